"""A camera with more pixels, farther away: the dice keep their pixels but are small in the frame.

The photos stand in for such a camera set in a canvas three times their side
(reader.vision.other_cameras.far_away), made in memory or a temporary folder and never kept. The
detector sees a frame at 640 px on its long side, where such dice are 10-15 px; before its finer
look at twice that size it found 198 of the 356 dice of the committed stills' first 60 frames so
set, and 90.6% of tray-d6-nell's holdout dice. The real photos are skipped when ../shared/realdata
is absent; the committed stills always run. The live loop on the committed recordings seen from
twice as far: its motion check, scaled to the small dice it read (reader.settle.for_dice), sees a
lone small die roll.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from reader.commands.evaluate import evaluate_images
from reader.reading import Box
from reader.vision.detector import DiceDetector
from reader.vision.evaluate import summarise
from reader.vision.onnx_model import OnnxModel, models_dir
from reader.vision.other_cameras import far_away
from reader.vision.realdata import LabeledDie, load_set, realdata_root, write_set
from reader.vision.recognizer import Recognizer

ROOT = Path(__file__).resolve().parents[1]
STILLS = ROOT / "fixtures" / "stills"
NELL = realdata_root() / "tray-d6-nell"


def found_and_false(detector, frames, **find):
    found = false = 0
    for img, truth in frames:
        dets = [Box(*d.box) for d in detector.find(img, **find)[0]]
        found += sum(any(b.iou(t) >= 0.4 for b in dets) for t in truth)
        false += sum(not any(b.iou(t) >= 0.2 for t in truth) for b in dets)
    return found, false


def test_small_dice_in_a_big_frame_are_found_by_the_finer_look():
    frames, dice = [], 0
    for line in (STILLS / "labels.jsonl").read_text().splitlines()[:60]:
        rec = json.loads(line)
        labels = tuple(LabeledDie(d["die"], d["value"], tuple(d["box"]), d.get("state", "flat")) for d in rec["dice"])
        img, moved = far_away(cv2.imread(str(STILLS / rec["image"])), labels, 3.0)
        frames.append((img, [Box(*d.box) for d in moved]))
        dice += len(moved)
    detector = DiceDetector(OnnxModel(models_dir() / "detector.onnx"))
    found, false = found_and_false(detector, frames)
    found_before, false_before = found_and_false(detector, frames, small_long=None)
    # measured (session 30): 248 of 356 found, 27 false; without the finer look 198 and 29; at 650b5db
    # 276 and 24, 215 and 26 (models/detector.md, "Small far dice kept in view")
    assert found >= found_before + 35
    assert found >= 0.66 * dice
    assert false <= false_before + 2


@pytest.mark.skipif(not (NELL / "labels.jsonl").is_file(), reason="../shared/realdata absent")
@pytest.mark.parametrize("scale, found, end_to_end", [
    # measured: found 98.4%, end-to-end 95.8%, 2 wrong (without the finer look: 90.6%, 86.2%, 2)
    pytest.param(3.0, 0.97, 0.93, id="3x as far, 1920 px: one finer look"),
    # measured: 96.5%, 92.3%, 2 wrong (one finer look: 89.2%; none: 76.5%, 65.0%, 7 wrong)
    pytest.param(4.0, 0.95, 0.90, id="4x as far, 2560 px: a second finer look"),
])
def test_a_real_tray_seen_from_farther_is_read(tmp_path, scale, found, end_to_end):
    write_set(tmp_path, [(im.path.name, *far_away(cv2.imread(str(im.path)), im.dice, scale))
                         for im in load_set(NELL) if im.holdout])
    score = summarise("far", evaluate_images(load_set(tmp_path), Recognizer.load()))
    assert score.found / score.dice >= found
    assert score.end_to_end >= end_to_end
    assert score.accepted_wrong <= 3


FIRST_PLAYER = ROOT / "fixtures" / "first-player-tie" / "0001"
BANISH = ROOT / "fixtures" / "banish-7-d8-then-d6"


def far_rolls(out: Path, rolls: list[Path], scale: float) -> Path:
    """Recorded rolls as a camera `scale` times farther would record them: every frame set in a
    canvas (far_away) and written losslessly, every other event kept."""
    from reader.recording import RecordingReader, RecordingWriter

    for i, roll in enumerate(rolls, 1):
        rec = RecordingReader(roll)
        with RecordingWriter(out / f"{i:04d}", camera=rec.manifest.get("camera"), rules=rec.manifest.get("rules"),
                             frame_ext=".png") as w:
            for e in rec.events:
                if e["type"] == "frame":
                    w.add_frame(far_away(rec.frame(e["index"]), (), scale)[0], t=e["t"])
                else:
                    w.add_event(e["type"], **{k: v for k, v in e.items() if k != "type"})
    return out


@pytest.mark.parametrize("scaled, d8_values", [
    pytest.param(True, [8, 3], id="the motion check scaled to the dice it read: both D8 rolls read"),
    pytest.param(False, [], id="not scaled: neither lone D8 is seen to roll (measured before the scaling)"),
])
def test_a_far_camera_s_lone_small_dice_are_seen_to_roll_once_dice_were_read(tmp_path, scaled, d8_values):
    """The first-player recording's roll (two D6), then the banish recording's three (a D8, a D8, a
    D6), all seen from twice as far: the two D6 are seen to roll, and once read, the motion check is
    scaled to dice that small, and the lone D8 are seen too."""
    from reader.decide import RulesDecider
    from reader.loop import LiveLoop, LoopConfig
    from reader.recording import RecordingReader
    from reader.sources import open_source

    folder = far_rolls(tmp_path / "far", [FIRST_PLAYER, *sorted(p for p in BANISH.iterdir() if p.is_dir())], 2.0)
    decider = RulesDecider.from_rules_json(RecordingReader(BANISH / "0001").manifest.get("rules"))
    events = []
    summary = LiveLoop(open_source(f"recording:{folder}"), Recognizer.load(), decider,
                       LoopConfig(out_dir=tmp_path / "rolls", scale_motion_to_dice=scaled),
                       on_event=events.append).run()
    read = [r for r in summary.rolls if r.outcome == "read"]
    assert [d["value"] for r in read for d in r.readings if d["die"] == "d8"] == d8_values
    assert len(read) == 2 + len(d8_values)  # the two D6 and the last roll's D6 5 either way
    noted = any("small in the frame" in e.get("text", "") for e in events if e["type"] == "note")
    assert noted == scaled
