"""A die given a value with no camera described is refused as cocked where it alone of its frame looks
leaning, and still does under the camera guessed from the frame's dice (reader.vision.lean_guard).
What a user notices: a die cocked against the tray's wall among flat ones is "roll again", not a value,
and a tray filmed by a leaning camera (every die showing a side face) reads as before.

The rule's pieces run on stand-ins (the lean look's answers chosen per case); the whole recognizer on a
committed rendered still."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from reader.reading import Box, Cocked, DieReading, Face, Unreadable
from reader.vision import lean_guard
from reader.vision.recognizer import Recognizer

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FRAME = np.zeros((720, 1280, 3), np.uint8)

# (p(leaning) of the frame's valued dice told the camera is straight above, the dice asked)
ASKED = {
    "one die leaning among flat ones is asked": ([0.99, 0.01, 0.02], [0]),
    "two leaning among many flat ones are both asked": ([0.99, 0.98, 0.0, 0.05, 0.1], [0, 1]),
    "every die leaning: the camera leans, none asked": ([0.99, 0.97, 0.96], []),
    "half the others leaning: none asked": ([0.99, 0.9, 0.0, 0.8, 0.0], []),
    "the others' median at the limit: not asked": ([0.99, lean_guard.OTHERS_FLAT_BELOW] * 2, []),
    "just under the asking level: not asked": ([0.949, 0.0, 0.0], []),
    "two dice tell nothing of the camera": ([0.99, 0.01], []),
}


@pytest.mark.parametrize("name", ASKED)
def test_a_die_is_asked_only_where_it_alone_looks_leaning(name):
    p, want = ASKED[name]
    assert lean_guard.asked(p) == want


GUESSED = lean_guard.CHOICES[10]  # a leaning set-up: the stand-in's frames are likeliest flat under it


class Lean:
    """The lean look's answers: `straight`, p(leaning) per box told the camera is straight above;
    `guessed`, per box under GUESSED (the set-up under which the frame's dice lie flat)."""

    def __init__(self, straight: dict, guessed: dict):
        self.straight, self.guessed, self.guessed_asked = straight, guessed, 0

    def p_leaning(self, image, boxes, view):
        if view == lean_guard.ASKED_UNDER:
            return np.array([self.straight[tuple(b)] for b in boxes])
        assert view == GUESSED
        return np.array([self.guessed[tuple(b)] for b in boxes])

    def p_leaning_under(self, image, boxes, views, turn_step=None):
        self.guessed_asked += 1
        return np.array([[0.01 if v == GUESSED else 0.9] * len(boxes) for v in views])


def die(x: int, value: int | None = 4, kind: str = "d6") -> DieReading:
    outcome = Face(value, 0.95) if value is not None else Unreadable("low confidence", 0.5)
    return DieReading(kind, Box(x, 300, x + 50, 350), outcome)


def box(x: int) -> tuple:
    return tuple(Box(x, 300, x + 50, 350))


def test_the_odd_die_out_that_still_leans_under_the_guess_is_cocked():
    readings = [die(100), die(300), die(500), die(700)]
    lean = Lean({box(100): 0.99, box(300): 0.01, box(500): 0.02, box(700): 0.0}, {box(100): 0.99})
    out = lean_guard.refuse_leaning(lean, FRAME, readings)
    assert isinstance(out[0].outcome, Cocked) and out[0].state == "cocked" and out[0].value is None
    assert out[1:] == readings[1:]


def test_the_odd_die_out_that_the_guess_finds_flat_keeps_its_value():
    readings = [die(100), die(300), die(500)]
    lean = Lean({box(100): 0.99, box(300): 0.01, box(500): 0.02}, {box(100): 0.97})
    assert lean_guard.refuse_leaning(lean, FRAME, readings) == readings


def test_a_frame_of_dice_all_looking_leaning_is_not_guessed():
    readings = [die(100), die(300), die(500)]
    lean = Lean({box(100): 0.99, box(300): 0.98, box(500): 0.97}, {})
    assert lean_guard.refuse_leaning(lean, FRAME, readings) == readings
    assert lean.guessed_asked == 0, "the costly guess is asked only where a die is"


def test_the_guess_rests_on_the_asked_die_and_the_dice_at_the_frame_edges():
    # the guess costs the lean look per die and turn: a ten-dice frame guesses from four, the edges' dice
    # showing a camera's lean most, under the guard's own set-ups (one field of view) and coarser turns
    xs = [600, 620, 640, 500, 700, 400, 800, 300, 900, 100]  # the frame's middle is x 640 (FRAME 1280 wide)
    readings = [die(x) for x in xs]
    lean = Lean({box(x): (0.99 if x == 600 else 0.01) for x in xs}, {box(600): 0.99})
    seen = []
    under = lean.p_leaning_under

    def recorded(image, boxes, views, turn_step=None):
        seen.append((list(boxes), tuple(views), turn_step))
        return under(image, boxes, views, turn_step)

    lean.p_leaning_under = recorded
    out = lean_guard.refuse_leaning(lean, FRAME, readings)
    assert isinstance(out[0].outcome, Cocked)
    assert seen == [([box(600), box(100), box(300), box(900)], lean_guard.CHOICES, lean_guard.GUESS_TURN_STEP)]


def test_under_three_valued_dice_nothing_is_asked():
    # a refused die and a D4 are no evidence of a lean among the valued dice
    readings = [die(100), die(300), die(500, value=None), die(700, value=None, kind="d4")]
    lean = Lean({}, {})  # any question would fail: nothing is known of these boxes
    assert lean_guard.refuse_leaning(lean, FRAME, readings) == readings


@pytest.fixture(scope="module")
def recognizer():
    return Recognizer.load()


def test_a_cocked_d12_in_a_rendered_still_is_refused(recognizer):
    # fixtures/stills frame 42: a D12 cocked against another die, its face square to the camera, read 10
    # by the reader alone (labels.jsonl: state cocked); the frame's eight other dice lie flat
    image = cv2.imread(str(FIXTURES / "stills" / "frames" / "000042.jpg"))
    near = Box(55.6, 63.1, 101.5, 104.0)
    recognizer.lean_guard = False
    try:
        before = [r for r in recognizer.read_frame(image) if r.box.iou(near) > 0.5]
    finally:
        recognizer.lean_guard = True
    after = [r for r in recognizer.read_frame(image) if r.box.iou(near) > 0.5]
    assert [(r.die, r.value) for r in before] == [("d12", 10)], "the reader alone gives it a value"
    assert [(r.die, r.state, r.value) for r in after] == [("d12", "cocked", None)]
