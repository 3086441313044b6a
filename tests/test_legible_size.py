"""A die small in the picture must be read surer, and one too small is not read (reader.vision.legible).

A camera with fewer pixels, or farther from the tray, shows dice a few pixels across; the reader
then read real D10 wrong 6% of the time, and small D6 under JPEG 1.8%, at confidences it is right to
trust for bigger dice. These tests hold the rule by named cases, the recognizer to it on a committed
still shown 2x smaller and on photos of one die shown 4x and 7x smaller, the live loop to its one
note on a camera set too far, and, where ../shared/realdata is present, tray-mixed-bartek's holdout
seen 2x smaller to the 0.5% accepted-but-wrong target (measured: 1.37% without the rule, 0% with it).
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from reader.reading import Box, Cocked, DieReading, Face, Unreadable
from reader.vision.legible import (SMALL_ACCEPT, SMALL_SIDE_PX, SMALLEST_SIDE_PX, judge_size, size_refusal,
                                   too_small_reason, unsure_small_reason)

ROOT = Path(__file__).resolve().parents[1]


def die(kind: str, w: float, h: float, outcome=None) -> DieReading:
    return DieReading(kind, Box(100.0, 100.0, 100.0 + w, 100.0 + h), outcome or Face(3, 0.93))


UNSURE, SURE = Face(3, 0.96), Face(3, 0.97)
CASES = {
    "a D10 under 26 px read at 0.96 is refused": (die("d10", 25.0, 25.0, UNSURE), "unsure"),
    "a D10 under 26 px read at 0.97 stands": (die("d10", 25.0, 25.0, SURE), "kept"),
    "a D10 of 26 px read at 0.96 stands": (die("d10", 26.0, 26.0, UNSURE), "kept"),
    "a D6 under 24 px read at 0.96 is refused": (die("d6", 23.9, 22.0, UNSURE), "unsure"),
    "a D6 of 24 px read at 0.85 stands": (die("d6", 24.0, 24.0, Face(2, 0.85)), "kept"),
    "a D12 takes the D10's size": (die("d12", 24.0, 24.0, Face(11, 0.9)), "unsure"),
    "a D20 takes the D10's size": (die("d20", 25.9, 25.0, UNSURE), "unsure"),
    "the longer side decides: a D20 30 x 20 is big enough": (die("d20", 30.0, 20.0, UNSURE), "kept"),
    "a small D8 read at 0.85 stands: no size where it errs more": (die("d8", 17.0, 17.0, Face(5, 0.85)), "kept"),
    "under 10 px no die is read, however sure": (die("d6", 9.9, 9.0, Face(6, 0.999)), "too small"),
    "a small cocked die stays cocked": (die("d6", 8.0, 8.0, Cocked(0.7)), "kept"),
    "a small die already refused keeps its reason": (die("d10", 9.0, 9.0, Unreadable("views disagree", 0.2)), "kept"),
    "a small D4 is named as before": (die("d4", 9.0, 9.0, Unreadable("a D4: the rules use D6 to D20", 0.9)), "kept"),
}


@pytest.mark.parametrize("reading, expected", list(CASES.values()), ids=list(CASES))
def test_a_small_die_needs_a_surer_reading_and_a_tiny_one_is_not_read(reading, expected):
    (out,) = judge_size([reading])
    if expected == "kept":
        assert out == reading and size_refusal(reading) is None
        return
    assert out.value is None and out.state == "unreadable"
    assert out.outcome.reason == (too_small_reason() if expected == "too small" else unsure_small_reason(reading.die))
    assert "bring the camera closer" in out.outcome.reason
    assert out.confidence == reading.confidence and out.box == reading.box and out.die == reading.die


def test_the_sizes_the_rule_names():
    assert SMALL_SIDE_PX["d10"] == SMALL_SIDE_PX["d12"] == SMALL_SIDE_PX["d20"] > SMALL_SIDE_PX["d6"] > SMALLEST_SIDE_PX
    assert "d8" not in SMALL_SIDE_PX and 0.9 < SMALL_ACCEPT < 1.0
    assert f"a D6 under 24 px needs {SMALL_ACCEPT}" in unsure_small_reason("d6")


def test_a_still_shown_twice_smaller_keeps_no_unsure_value_for_its_small_dice():
    """Committed still 22 at half its size: its D10 and a D12 are 22-23 px, read 5 and 12 at under 0.97
    (measured: valued without the rule); now each is refused and says why, and no die under its
    type's size keeps a value read at under 0.97."""
    from reader.vision.other_cameras import smaller
    from reader.vision.recognizer import Recognizer

    img = cv2.imread(str(ROOT / "fixtures" / "stills" / "frames" / "000022.jpg"))
    readings = Recognizer.load().read_frame(smaller(img, (), 2.0)[0])
    small = [r for r in readings if r.die in SMALL_SIDE_PX and r.box.side < SMALL_SIDE_PX[r.die]]
    assert all(r.value is None or r.confidence >= SMALL_ACCEPT for r in small)
    refused = [r for r in small if isinstance(r.outcome, Unreadable) and r.outcome.reason == unsure_small_reason(r.die)]
    assert {r.die for r in refused} >= {"d10", "d12"}
    as_json = json.loads(json.dumps([r.to_json() for r in refused]))
    assert all(d["state"] == "unreadable" and d["value"] is None and "small in the picture" in d["reason"] for d in as_json)


def test_the_smaller_camera_shrinks_the_photo_and_its_boxes():
    import numpy as np

    from reader.vision.other_cameras import smaller
    from reader.vision.realdata import LabeledDie

    photo = np.full((90, 160, 3), 120, np.uint8)
    photo[30:50, 40:60] = 230
    small, (moved, whole) = smaller(photo, (LabeledDie("d6", 5, (40.0, 30.0, 60.0, 50.0)), LabeledDie("d20", 7, None)), 2.0)
    assert small.shape == (45, 80, 3)
    assert moved == LabeledDie("d6", 5, (20.0, 15.0, 30.0, 25.0)) and whole.box is None
    assert small[16:24, 21:29].min() > 220  # the die is where its label says


def _bartek():
    from reader.vision.realdata import realdata_root

    return realdata_root() / "tray-mixed-bartek"


@pytest.mark.skipif(not (_bartek() / "labels.jsonl").is_file(), reason="../shared/realdata absent")
def test_a_real_tray_seen_twice_smaller_is_read_under_the_wrong_target(tmp_path):
    """tray-mixed-bartek's holdout from a camera with half the pixels: its D10 are 18-30 px. Measured
    (session 77): without the rule 392 right, 7 wrong (1.37%, five of them D10); with it 331 right,
    none wrong."""
    from reader.commands.evaluate import evaluate_images
    from reader.vision.evaluate import summarise
    from reader.vision.other_cameras import smaller
    from reader.vision.realdata import load_set, write_set
    from reader.vision.recognizer import Recognizer

    write_set(tmp_path, [(im.path.stem + ".png", *smaller(cv2.imread(str(im.path)), im.dice, 2.0))
                         for im in load_set(_bartek()) if im.holdout])
    score = summarise("2x smaller", evaluate_images(load_set(tmp_path), Recognizer.load()))
    assert score.accepted_wrong_rate <= 0.005
    assert score.end_to_end >= 0.55


@pytest.mark.parametrize("photo, shrink, die, why", [
    # measured: read 7 at under 0.97 without the rule, the die 21 px in a 32 px photo
    pytest.param("single-d20/0000026.jpg", 4.0, "d20", unsure_small_reason("d20"), id="a D20 of 21 px read short of 0.97"),
    # measured: a D6 of 9 px in an 18 px photo, read 1 without the rule
    pytest.param("logo-faces/0000007.jpg", 7.0, "d6", too_small_reason(), id="a D6 of 9 px, however sure"),
])
def test_a_photo_of_one_small_die_says_why_it_is_not_read_on_read_single(tmp_path, capsys, photo, shrink, die, why):
    """`read --jsonl --single` on committed photos of one die shown several times smaller."""
    from reader.cli import main
    from reader.vision.other_cameras import smaller

    path = tmp_path / "tiny.png"
    cv2.imwrite(str(path), smaller(cv2.imread(str(ROOT / "fixtures" / photo)), (), shrink)[0])
    assert main(["read", "--jsonl", "--single", str(path)]) == 0
    (out,) = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    (d,) = out["dice"]
    assert d["die"] == die and d["value"] is None and d["state"] == "unreadable" and d["reason"] == why


class SmallDiceRecognizer:
    """Test fake: the recorded truth of each frame (tray_fakes' 18 px squares), read at `confidence`
    and judged by the size rule as the recognizer judges its readings."""

    versions = {"fake": "small"}

    def __init__(self, truth, confidence: float) -> None:
        self.truth, self.confidence = truth, confidence

    def read_frame(self, bgr):
        from dataclasses import replace

        from reader.vision.legible import judge_size

        return judge_size([replace(r, outcome=Face(r.value, self.confidence)) if r.value is not None else r
                           for r in self.truth.read_frame(bgr)])


@pytest.mark.parametrize("confidence, told", [
    pytest.param(0.90, 1, id="read at 0.90: refused, and the table told once in two rolls"),
    pytest.param(0.99, 0, id="read at 0.99: the small dice stand, nothing to tell"),
])
def test_the_live_loop_tells_the_table_once_that_its_dice_are_too_small_in_the_picture(tmp_path, confidence, told):
    from reader.decide import RulesDecider
    from reader.loop import LiveLoop, LoopConfig
    from reader.recording import RecordingReader, list_rolls
    from reader.sources import open_source
    from tray_fakes import TruthRecognizer, make_rolls

    src = make_rolls(tmp_path / "src", [[("d6", 3)], [("d6", 5)]])
    events = []
    loop = LiveLoop(open_source(f"recording:{src}"), SmallDiceRecognizer(TruthRecognizer(src), confidence),
                    RulesDecider.banish("A,B,C,D,E", die="d6"), LoopConfig(out_dir=tmp_path / "rolls"),
                    on_event=events.append)
    loop.run()
    notes = [e["text"] for e in events if e["type"] == "note" and "refused for their size" in e["text"]]
    assert len(notes) == told
    decisions = [e for e in events if e["type"] == "decision"]
    if told:
        assert "the dice here are 18 px across" in notes[0] and "bring the camera closer" in notes[0]
        assert [d["result"] for d in decisions] == ["roll-again", "roll-again"]
        assert "small in the picture" in decisions[0]["reason"]
        first = RecordingReader(list_rolls(tmp_path / "rolls")[0])
        assert any("refused for their size" in e["text"] for e in first.of_type("note"))  # kept as evidence
    else:
        assert [d["result"] for d in decisions][:1] == ["banish"]
