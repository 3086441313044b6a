"""Guessing the camera from a frame's dice (reader.vision.camera_guess), with a stand-in lean look."""

from __future__ import annotations

import numpy as np
import pytest

from reader.vision.camera_guess import MARGIN, MIN_DICE, CameraEvidence, flat_likelihood, guess_camera, set_ups
from reader.vision.viewing import CameraView

STRAIGHT = CameraView(75.0, 0.0, True)
LEANING = CameraView(75.0, 20.0, True, 90.0)


def lean_look(p_by_view: dict, other: float = 0.6):
    """A stand-in for LeanLook.p_leaning_under of one frame: p(leaning) of its dice under each set-up
    asked, a row a set-up, `other` for every die under a set-up not named."""
    n = len(next(iter(p_by_view.values())))
    return lambda views: np.array([p_by_view.get(view, [other] * n) for view in views], dtype=float)


# (p(leaning) of five dice under the straight and the leaning set-up, the set-up guessed)
CASES = {
    "the dice lie flat only under a leaning camera": ({STRAIGHT: [0.7] * 5, LEANING: [0.02] * 5}, LEANING),
    "the dice lie flat straight down": ({STRAIGHT: [0.02] * 5, LEANING: [0.7] * 5}, STRAIGHT),
    # a leaning set-up a little likelier is not worth moving the top faces' cuts for
    "a lean that wins by less than the margin": ({STRAIGHT: [0.05] * 5, LEANING: [0.01] * 5}, STRAIGHT),
    # dice do cock: one that leans under every set-up must not pull the camera over
    "one cocked die among flat ones": ({STRAIGHT: [0.99, 0.01, 0.01, 0.01, 0.01], LEANING: [0.3] * 5}, STRAIGHT),
}


@pytest.mark.parametrize("p_by_view, want", CASES.values(), ids=CASES.keys())
def test_the_set_up_the_dice_lie_flat_under_is_guessed(p_by_view, want):
    guess = guess_camera(lean_look(p_by_view), 5, choices=(STRAIGHT, LEANING))
    assert guess.view == want
    assert (guess.over_straight >= MARGIN) == (want is LEANING)


def test_too_few_dice_tell_nothing():
    p = lean_look({STRAIGHT: [0.9] * (MIN_DICE - 1), LEANING: [0.0] * (MIN_DICE - 1)})
    assert guess_camera(p, MIN_DICE - 1, choices=(STRAIGHT, LEANING)) is None
    assert guess_camera(lean_look({STRAIGHT: [0.9] * MIN_DICE, LEANING: [0.0] * MIN_DICE}), MIN_DICE,
                        choices=(STRAIGHT, LEANING)).view == LEANING


def test_every_field_of_view_is_tried_straight_down_too():
    wide = CameraView(90.0, 0.0, True)
    p = lean_look({STRAIGHT: [0.5] * 4, wide: [0.01] * 4, LEANING: [0.3] * 4})
    assert guess_camera(p, 4, choices=(STRAIGHT, wide, LEANING)).view == wide


def test_the_set_ups_lean_every_way_and_ask_for_the_lean_look():
    views = set_ups()
    assert all(v.lean for v in views)
    straight = [v for v in views if v.tilt == 0.0]
    assert views[:len(straight)] == tuple(straight) and len(straight) >= 2
    leaning = {(v.tilt, v.toward) for v in views if v.tilt}
    assert {t for _, t in leaning} == {0.0, 90.0, 180.0, 270.0}
    assert max(t for t, _ in leaning) >= 30.0


def test_flat_dice_are_likelier_than_leaning_ones():
    assert flat_likelihood([0.0, 0.0]) > flat_likelihood([0.5, 0.0]) > flat_likelihood([1.0, 0.0])
    assert flat_likelihood([]) == 0.0


# CameraEvidence: several frames of one camera (the live loop's rolls), their dice's evidence added up.
def test_frames_too_few_dice_each_tell_the_camera_together():
    evidence = CameraEvidence((STRAIGHT, LEANING))
    for _ in range(MIN_DICE - 1):  # a banish roll: one die a frame
        evidence.add(np.array([[0.7], [0.02]]))
        assert evidence.guess() is None
    evidence.add(np.array([[0.7], [0.02]]))
    assert evidence.dice == MIN_DICE and evidence.guess().view == LEANING


def test_leads_too_small_in_each_frame_add_up_past_the_margin():
    # each frame's dice favour the leaning set-up by less than the margin (0.17 nats): alone, straight down
    frame = np.array([[0.05] * 5, [0.01] * 5])
    assert guess_camera(lambda views: frame, 5, choices=(STRAIGHT, LEANING)).view == STRAIGHT
    evidence = CameraEvidence((STRAIGHT, LEANING))
    for _ in range(7):
        evidence.add(frame)
    guess = evidence.guess()
    assert guess.view == LEANING and guess.over_straight >= MARGIN


def test_a_guess_needs_a_straight_down_choice():
    with pytest.raises(ValueError, match="straight-down"):
        CameraEvidence((LEANING,))


# A camera bumped between rolls, never lost: the last frames' dice tell of another set-up than the
# older ones', and the older are dropped. One die a frame (a banish roll), p(leaning) under
# (STRAIGHT, LEANING).
FLAT_LEANING = np.array([[0.7], [0.02]])   # the die lies flat under the leaning camera only
FLAT_STRAIGHT = np.array([[0.02], [0.7]])  # ... under the straight one only
COCKED = np.array([[0.99], [0.99]])        # leans under either: a cocked die
UNSURE = np.array([[0.3], [0.15]])         # a little likelier flat under the leaning camera

# (frames, after which frame the older ones are dropped (None: never), the set-up guessed at the end);
# a move is told from four dice (each 0.84 nats likelier under its own set-up: 4 x 0.84 >= MOVED)
MOVES = {
    "a camera that stays put": ([FLAT_LEANING] * 30, None, LEANING),
    "moved from leaning to straight down": ([FLAT_LEANING] * 10 + [FLAT_STRAIGHT] * 6, 13, STRAIGHT),
    "moved after a long session": ([FLAT_LEANING] * 60 + [FLAT_STRAIGHT] * 6, 63, STRAIGHT),
    # dice do cock: a run of them is unlikely under every set-up alike and tells of no move
    "three cocked dice in a row": ([FLAT_LEANING] * 8 + [COCKED] * 3 + [FLAT_LEANING] * 3, None, LEANING),
    "dice the lean look is unsure of": ([FLAT_LEANING] * 8 + [UNSURE] * 10, None, LEANING),
}


@pytest.mark.parametrize("frames, dropped_after, want", MOVES.values(), ids=MOVES.keys())
def test_a_camera_moved_between_rolls_drops_the_older_evidence(frames, dropped_after, want):
    evidence = CameraEvidence((STRAIGHT, LEANING))
    drops = []
    for i, p in enumerate(frames):
        evidence.add(p)
        if evidence.dropped:
            drops.append((i, evidence.dropped))
    if dropped_after is None:
        assert drops == [] and evidence.dice == len(frames)
    else:  # found within a few rolls, once: the dice seen by the camera before it moved are dropped, no others
        assert drops == [(dropped_after, sum(p is FLAT_LEANING for p in frames))]
        assert evidence.dice == len(frames) - drops[0][1]
    assert evidence.guess().view == want


def test_a_move_is_not_looked_for_where_the_caller_says_never():
    evidence = CameraEvidence((STRAIGHT, LEANING), moved=None)
    for p in [FLAT_LEANING] * 10 + [FLAT_STRAIGHT] * 6:
        evidence.add(p)
        assert evidence.dropped == 0
    assert evidence.dice == 16 and evidence.guess().view == LEANING
