"""Dice that were already in the tray before the throw are not part of the roll (reader.unmoved)."""

from __future__ import annotations

import numpy as np
import pytest

from reader.commands.replay import replay_roll
from reader.decide import RulesDecider
from reader.loop import LiveLoop, LoopConfig
from reader.recording import RecordingReader, RecordingWriter, list_rolls
from reader.sources import open_source
from reader.unmoved import unmoved
from tray_fakes import COLORS, SIZE, TruthRecognizer

H, W = SIZE
OLD = (100.0, 20.0, 118.0, 38.0)  # a die left in the tray from an earlier roll


def frame(dice=(), noise_seed=None, brightness=0):
    img = np.full((H, W, 3), (60, 90, 60), np.int16) + brightness
    for k, (x0, y0, x1, y1) in enumerate(dice):
        img[int(y0):int(y1), int(x0):int(x1)] = COLORS[k % len(COLORS)]
    if noise_seed is not None:  # fresh sensor noise in every frame
        img = img + np.random.default_rng(noise_seed).normal(0, 4, img.shape).round().astype(np.int16)
    return np.clip(img, 0, 255).astype(np.uint8)


NEW = (30.0, 60.0, 48.0, 78.0)
CASES = {
    "same spot, fresh noise": (frame([OLD], 1), frame([OLD], 2), OLD, True),
    "a die landed on empty tray": (frame([], 1), frame([NEW], 2), NEW, False),
    "the die was moved a little": (frame([OLD], 1), frame([(104, 22, 122, 40)], 2), (104, 22, 122, 40), False),
    "the light changed": (frame([OLD], 1), frame([OLD], 2, brightness=40), OLD, False),
}


@pytest.mark.parametrize(("before", "after", "box", "expected"), CASES.values(), ids=CASES.keys())
def test_a_spot_that_did_not_change_is_an_unmoved_die(before, after, box, expected):
    assert unmoved([box], before, after) == [expected]


def test_another_frame_size_never_hides_a_die():
    assert unmoved([OLD], frame([OLD])[:60], frame([OLD])) == [False]


def _roll_with_a_leftover_die(path):
    """Idle tray with an old die; a new die thrown in and settling; the old one never touched."""
    w = RecordingWriter(path, camera={"source": "synthetic", "fps": 10}, frame_ext=".png", clock=lambda: 0.0)
    frames = [frame([OLD])] * 3 + [frame([OLD, (10 + 12 * i, 90 - 5 * i, 28 + 12 * i, 108 - 5 * i)]) for i in range(6)]
    landed = (10 + 12 * 5, 90 - 25, 28 + 12 * 5, 108 - 25)
    frames += [frame([OLD, landed])] * 8
    truth = [{"die": "d6", "value": 6, "box": list(OLD), "state": "flat"},
             {"die": "d6", "value": 3, "box": list(landed), "state": "flat"}]
    for i, img in enumerate(frames):
        w.add_frame(img, t=i / 10)
        if i >= 9:
            w.add_event("truth", t=i / 10, frame=i, dice=truth)
    return w.close()


def test_a_banish_counts_only_the_die_that_was_thrown_and_replay_agrees(tmp_path):
    src = _roll_with_a_leftover_die(tmp_path / "src" / "0001")
    events = []
    LiveLoop(open_source(f"recording:{src}"), TruthRecognizer(src),
             RulesDecider.banish("A,B,C,D,E", count=1, die="d6"),
             LoopConfig(out_dir=tmp_path / "rolls"), on_event=events.append).run()
    decided = [e for e in events if e["type"] == "decision"]
    # the leftover 6 would name no card; the thrown 3 banishes C
    assert [(d["result"], d.get("card")) for d in decided] == [("banish", "C"), ("done", None)]
    roll = RecordingReader(list_rolls(tmp_path / "rolls")[0])
    reading = roll.of_type("reading")[0]
    assert [d["value"] for d in reading["dice"]] == [3]
    assert [d["value"] for d in reading["unmoved"]] == [6]  # kept as evidence, not counted
    again = replay_roll(roll.path, TruthRecognizer(src))
    assert again.same and again.replayed_decisions == again.recorded_decisions
