"""The committed models on the committed rendered stills: what a judge would notice.

fixtures/stills are 300 rendered tray frames (every die type, cocked dice, touching dice, several
trays and lights) from a seed the training crops never used. The floors below are set a little
under the figures measured when the models were committed (models/reader.md): a model that reads
worse than that, or that gives a cocked die a value, fails here.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from reader.commands.evaluate import evaluate_images
from reader.errors import DiceReaderError
from reader.vision.evaluate import summarise
from reader.vision.faces import FaceReader
from reader.vision.lean import LeanThresholds
from reader.vision.realdata import load_set
from reader.vision.recognizer import Recognizer

ROOT = Path(__file__).resolve().parents[1]
STILLS = ROOT / "fixtures" / "stills"

# Measured with the committed models (models/reader.md, v12, detector v3): found 93.5%, type 87.3%,
# end-to-end 27.7% (v9 26.7%), accepted-but-wrong 0.48%. Far from the 99% end-to-end target: these
# floors guard against a regression, they do not claim the target is met.
FLOOR = {"found": 0.92, "type": 0.85, "end_to_end": 0.26, "accepted_wrong": 0.005}
# Stills whose every die is given a value read as if from above (measured, reader v21: 14 of 300; one
# of them reads otherwise when its camera is guessed all the same, as session 42 guessed every frame)
AT_ONCE = 12


@pytest.fixture(scope="module")
def recognizer():
    return Recognizer.load()


@pytest.fixture(scope="module")
def stills_results(recognizer):
    return evaluate_images(load_set(STILLS), recognizer)


@pytest.fixture(scope="module")
def stills_score(stills_results):
    return summarise("stills", stills_results)


def test_models_are_committed_with_their_metadata(recognizer):
    meta = recognizer.faces.model.meta
    assert set(meta["types"]) >= {"d4", "d6", "d8", "d10", "d12", "d20"}
    assert 0.0 < meta["accept_threshold"] < 1.0
    assert "normalisation" in meta and "normalisation" in recognizer.detector.model.meta
    looks = recognizer.faces.looks  # the second looks (a numeral die's top face, ...) travel with the reader
    assert "d20" in recognizer.faces.look_of
    assert all("normalisation" in look.model.meta for look in looks)
    total = sum(p.stat().st_size for p in (ROOT / "models").glob("*.onnx"))
    assert total < 30e6


@pytest.mark.xfail(strict=True, reason="known failure of the committed reader: 5 of 110 cocked "
                   "rendered dice get a value (models/reader.md); remove this mark when fixed")
def test_a_cocked_die_is_never_given_a_value(stills_score):
    assert stills_score.cocked_given_value == 0


@pytest.fixture(scope="module")
def known_camera_scores(recognizer):
    """The stills read knowing each frame's camera (evaluate --truth-cameras): without and with the
    lean look (reader.vision.lean)."""
    from reader.commands.evaluate import truth_views

    out = {}
    for lean in (False, True):
        views = {str(STILLS / f): v for f, v in truth_views(STILLS, lean).items()}
        out[lean] = summarise("stills", evaluate_images(load_set(STILLS), recognizer, views=views))
    # the lean look without the seen look (reader.vision.seen), which the looks asked for bring along
    seen, recognizer.seen = recognizer.seen, None
    try:
        out["unseen"] = summarise("stills", evaluate_images(load_set(STILLS), recognizer, views=views))
    finally:
        recognizer.seen = seen
    # and without deciding the unsure dice again with the lean look (reader.vision.lean.LeanThresholds:
    # no die type within an angle it decides at), its looks and cuts kept
    kept = recognizer.lean_thresholds
    recognizer.lean_thresholds = replace(kept, within_deg={}, accept_by_die={})
    try:
        out["unsure"] = summarise("stills", evaluate_images(load_set(STILLS), recognizer, views=views))
    finally:
        recognizer.lean_thresholds = kept
    # and as reader v17 read them: the cuts about the box's middle, the D20 read by the numeral look, at
    # v17's thresholds (the reference v18's were set against: its metadata keeps them)
    floors = recognizer.faces.model.meta["lean_thresholds"]["calibration"]["reference"]["floors"]
    own, recognizer.lean_faces = recognizer.lean_faces, None
    recognizer.lean_thresholds = LeanThresholds(kept.within_deg, floors)
    try:
        out["v17"] = summarise("stills", evaluate_images(load_set(STILLS), recognizer, views=views))
    finally:
        recognizer.lean_thresholds, recognizer.lean_faces = kept, own
    assert recognizer.view is None  # put back: the other tests read as if from above
    return out


def test_with_the_camera_known_the_lean_look_gives_no_cocked_die_a_value(known_camera_scores):
    # measured (lean look v1, reader v15, session 28: the lean look also reads the flat dice the
    # reader took for cocked): cocked dice given a value 4 -> 0 of 110, right readings 406 -> 401
    # of 1,453 (388 before it read them), accepted wrong values 4 -> 2
    plain, lean = known_camera_scores[False], known_camera_scores[True]
    assert plain.cocked_given_value > 0  # the stills hold cocked dice the reader alone gives a value
    assert lean.cocked_given_value == 0
    assert lean.end_to_end >= plain.end_to_end - 0.01
    assert lean.accepted_wrong_rate <= plain.accepted_wrong_rate


@pytest.mark.parametrize("without, more", [
    # measured (seen look v2, reader v15, session 29): D8-D20 read right 142 -> 170 of the 944 valued
    # numeral dice, accepted wrong 2 -> 2, cocked dice given a value 0 -> 0
    pytest.param("unseen", 15, id="the seen look"),
    # measured (reader v17, session 32): 170 -> 190 (D8 63 -> 72, D12 53 -> 62, D20 15 -> 17), accepted
    # wrong 2 -> 2, cocked valued 0 -> 0; the 1280x720 trays 630 -> 678, the installed camera's 786 -> 860
    pytest.param("unsure", 10, id="the unsure dice decided again with the lean look"),
    # measured (reader v18, session 35): 190 -> 201 (D10 39 -> 41, D12 62 -> 66, D20 17 -> 22), accepted
    # wrong 2 -> 2, cocked valued 0 -> 0; the 1280x720 trays 678 -> 703, the installed camera's 860 -> 905
    pytest.param("v17", 8, id="the top face cut where the camera sees it, and the D20's own look"),
])
def test_with_the_camera_known_each_look_reads_more_numeral_dice_and_no_more_wrong(known_camera_scores, without,
                                                                                   more):
    less, full = known_camera_scores[without], known_camera_scores[True]
    numerals = ("d8", "d10", "d12", "d20")
    right = [sum(s.by_die.get(d, [0, 0])[0] for d in numerals) for s in (less, full)]
    assert right[1] >= right[0] + more
    assert full.accepted_wrong <= less.accepted_wrong
    assert full.cocked_given_value == 0


@pytest.fixture(scope="module")
def guessed_results(recognizer):
    """The stills read with each frame's camera guessed from its dice where the frame leaves a die
    refused (evaluate --guess-camera)."""
    recognizer.guess_view = True
    try:
        return evaluate_images(load_set(STILLS), recognizer)
    finally:
        recognizer.guess_view = False


def test_a_camera_guessed_from_the_dice_reads_more_and_values_fewer_cocked_dice(stills_score, guessed_results):
    # measured (reader v21, session 47): right 411 -> 450 of 1,453, accepted wrong 3 -> 1, cocked dice given
    # a value 6 -> 3 (a D6 keeps a value only where both readings give it; every frame guessed, session 42's
    # way: 457 / 1 / 3); with each frame's own camera 459 / 2 / 0
    score = summarise("stills", guessed_results)
    assert score.right >= stills_score.right + 30
    assert score.accepted_wrong <= stills_score.accepted_wrong
    assert score.cocked_given_value < stills_score.cocked_given_value


def test_a_frame_read_at_once_is_not_read_again_under_a_guessed_camera(stills_results, guessed_results):
    # a frame whose every die (D4 aside) is given a value without a camera keeps that reading, as real
    # trays' frames mostly do (a webcam's 257 right stay 257, where guessing every frame reads 253)
    at_once = 0
    for plain, again in zip(stills_results, guessed_results):
        readings = [d.reading for d in plain.dice if d.reading is not None]
        if readings and all(r.value is not None for r in readings if r.die != "d4"):
            at_once += 1
            assert again.dice == plain.dice, plain.image
    assert at_once >= AT_ONCE


def test_rendered_stills_are_found_and_read(stills_score):
    s = stills_score
    assert s.found_rate >= FLOOR["found"]
    assert s.type_accuracy >= FLOOR["type"]
    assert s.end_to_end >= FLOOR["end_to_end"]


def test_a_die_boxed_twice_is_counted_once(stills_results, stills_score):
    # frame 253's D6 showing 6 was boxed twice by the detector, the boxes sharing 0.62 of the
    # smaller, and both read 6: a tray of 12 dice read as 13, a die the rules would count twice
    # (reader.vision.pieces.merge_read_twice). No reading on the stills is given a value where no
    # die lies (reader v21 before the merge: 1).
    (frame,) = [r for r in stills_results if r.image.endswith("000253.jpg")]
    sixes = [d for d in frame.dice if d.valued and d.reading.value == 6 and d.reading.die == "d6"]
    assert len(sixes) == 1 and sixes[0].right
    assert stills_score.false_valued == 0


def test_wrong_readings_are_rare_among_accepted_ones(stills_score):
    assert stills_score.accepted_wrong_rate <= FLOOR["accepted_wrong"]


@pytest.mark.parametrize("die", ["d8", "d6", "d10"], ids=["the numeral dice' look", "the pips look", "the D10's look"])
def test_each_second_look_reads_more_of_its_dice(recognizer, stills_score, die):
    # the same frames read without the look that takes this die (reader.vision.topface), the
    # others kept, same thresholds: the dice of its types read right must be more with it
    # (measured, reader v9: the numeral dice' look, D8 D12 D20, 96 against 75 of 687; the pips
    # look 257 against 237 of 509; the D10's look 35 against 26 of 257), the wrong ones in all no
    # more than two more (measured: 7 against 6; 7 against 5; 7 against 6). Since reader v20 the
    # numeral look reads the D8 and D12; the D20's own look reads none of these small oblique
    # renders' D20, and is held to real D20 instead (tests/test_d20_look.py)
    look = recognizer.faces.look_of[die]
    others = [other for other in recognizer.faces.looks if other is not look]
    without = summarise("stills", evaluate_images(
        load_set(STILLS), Recognizer(recognizer.detector, FaceReader(recognizer.faces.model, others))))
    right = lambda s: sum(s.by_die.get(d, [0, 0])[0] for d in look.dice)  # noqa: E731
    assert right(stills_score) > right(without)
    assert stills_score.accepted_wrong <= without.accepted_wrong + 2


def test_an_empty_tray_has_no_dice(recognizer):
    felt = np.full((720, 1280, 3), (40, 90, 30), np.uint8)
    noise = np.random.default_rng(0).normal(0, 6, felt.shape)
    felt = np.clip(felt + noise, 0, 255).astype(np.uint8)
    assert recognizer.read_frame(felt) == []


def test_a_pip_boxed_alone_is_not_read_as_a_die_showing_1(recognizer):
    """Stills frame 103: the detector boxes a pip D6's 2 as its two pips, far smaller than the
    three dice beside them. Read alone each pip is a sure 1 (0.89, over the D6's threshold); it must
    not come out as a die showing 1, nor may the 2 be read as anything but a 2."""
    frame = cv2.imread(str(STILLS / "frames" / "000103.jpg"))
    two = (127.8, 206.2, 186.5, 254.9)  # the labeled D6 showing 2
    inside = [r for r in recognizer.read_frame(frame)
              if two[0] <= r.box.center[0] <= two[2] and two[1] <= r.box.center[1] <= two[3]]
    assert inside, "the 2 was not found at all"
    assert all(r.value in (None, 2) for r in inside)


def test_turning_the_camera_does_not_change_the_values(recognizer):
    """A tray seen from above has no 'up': the same frame turned a quarter reads the same."""
    roll = ROOT / "fixtures" / "first-player-tie" / "0003"
    frames = sorted((roll / "frames").iterdir())
    frame = cv2.imread(str(frames[-1]))  # the settled tray: Ana's 6 and 2
    a = sorted((r.die, r.value) for r in recognizer.read_frame(frame) if r.value is not None)
    b = sorted((r.die, r.value) for r in recognizer.read_frame(cv2.rotate(frame, cv2.ROTATE_90_CLOCKWISE))
               if r.value is not None)
    assert a and a == b


@pytest.mark.parametrize(
    "image",
    [np.zeros((10, 10), np.uint8), np.zeros((10, 10, 3), np.float32), np.zeros((0, 0, 3), np.uint8)],
    ids=["grey", "float", "empty"],
)
def test_an_image_that_is_not_a_colour_frame_is_refused(recognizer, image):
    with pytest.raises(DiceReaderError):
        recognizer.read_frame(image)
