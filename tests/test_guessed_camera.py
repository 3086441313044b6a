"""The live loop's camera guess (reader.guessed_camera, `watch --guess-camera`): the set-up told from the
dice of every roll so far, each roll read with it and recorded with it, so that replay reads the same.

The unit tests give a stand-in recognizer whose lean look finds every die flat under one set-up
only; the last test runs the README's roll-off with the committed models.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from reader.cli import main
from reader.decide import RulesDecider
from reader.guessed_camera import GuessedCamera
from reader.loop import LiveLoop, LoopConfig
from reader.recording import RecordingReader, list_rolls
from reader.sources import MemorySource, SourceBack, SourceLost, open_source
from reader.vision.camera_guess import MIN_DICE
from reader.vision.recognizer import Recognizer
from tray_fakes import TruthRecognizer, make_rolls, roll_frames

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


class _OneDieAFrame:
    """Reads one die a frame; its lean look finds the die flat only under the choice named `flat`."""

    def __init__(self, flat_index: int = 5) -> None:
        self.flat_index = flat_index
        self.seen = []  # the evidence each frame was pooled into

    def read_frame_guessing(self, image, evidence):
        self.seen.append(evidence)
        p = np.full((len(evidence.choices), 1), 0.9)
        p[self.flat_index] = 0.01
        evidence.add(p)
        return [], evidence.guess()


def frame(width=1280, height=720):
    return np.zeros((height, width, 3), np.uint8)


def test_one_die_a_roll_is_read_as_from_above_until_enough_dice_then_with_the_guess():
    guessed, rec = GuessedCamera(), _OneDieAFrame()
    notes = []
    for _ in range(MIN_DICE - 1):
        notes.append(guessed.read(rec, frame())[1])
        assert guessed.manifest_camera({"source": "camera:0"}) == {"source": "camera:0"}
    notes.append(guessed.read(rec, frame())[1])
    camera = guessed.manifest_camera({"source": "camera:0"})
    assert camera["view"] == guessed.evidence.choices[5].to_json()
    assert camera["guessed"]["dice"] == MIN_DICE
    # the table hears of the set-up once, when it is first guessed (and again only when it changes)
    assert notes[:-1] == [None] * (MIN_DICE - 1) and "3 dice" in notes[-1]
    assert guessed.read(rec, frame())[1] is None
    assert len({id(e) for e in rec.seen}) == 1  # one camera, one pool of evidence


@pytest.mark.parametrize("change", ["the frame size changes", "forget (the camera was lost)"])
def test_the_evidence_starts_again_where_the_camera_may_have_moved(change):
    guessed, rec = GuessedCamera(), _OneDieAFrame()
    for _ in range(MIN_DICE):
        guessed.read(rec, frame())
    assert guessed.guess is not None
    if change == "forget (the camera was lost)":
        guessed.forget()
        guessed.read(rec, frame())
    else:
        guessed.read(rec, frame(640, 360))
    assert guessed.evidence.dice == 1 and guessed.guess is None
    assert rec.seen[-1] is not rec.seen[0]


def test_a_camera_bumped_between_rolls_is_guessed_again_from_the_rolls_since():
    # never lost, so nothing but the dice says it moved: five rolls flat under one set-up, then under another
    guessed, rec = GuessedCamera(), _OneDieAFrame(flat_index=5)
    for _ in range(5):
        guessed.read(rec, frame())
    first = guessed.guess.view
    rec.flat_index = 40
    notes, cameras = [], []
    for _ in range(MIN_DICE):
        notes.append(guessed.read(rec, frame())[1])
        cameras.append(guessed.manifest_camera({"source": "camera:0"}))
    assert notes[:-1] == [None] * (MIN_DICE - 1) and "moved" in notes[-1] and "5 dice of the earlier rolls" in notes[-1]
    assert guessed.guess.view == guessed.evidence.choices[40] != first
    assert cameras[-1]["view"] == guessed.evidence.choices[40].to_json()
    assert cameras[-1]["guessed"]["dice"] == MIN_DICE and cameras[-1]["guessed"]["dropped"] == 5
    assert all("dropped" not in c["guessed"] for c in cameras[:-1])
    assert guessed.read(rec, frame())[1] is None  # heard once


def test_the_roll_off_read_with_a_guessed_camera_is_recorded_so_and_replays_the_same(tmp_path, capsys):
    scenario = FIXTURES / "first-player-tie"
    out = tmp_path / "rolls"
    rolls = [RecordingReader(p) for p in list_rolls(scenario)]
    summary = LiveLoop(open_source(f"recording:{scenario}"), Recognizer.load(), RulesDecider.first_player("Ana,Ben"),
                       LoopConfig(out_dir=out, guess_camera=True)).run()
    read = [r for r in summary.rolls if r.outcome == "read"]
    assert len(read) == len(rolls)
    for got, rec in zip(read, rolls):  # two D6 a roll, read as the truth says
        assert sorted((d["die"], d["value"]) for d in got.readings) == \
            sorted((d["die"], d["value"]) for d in rec.of_type("truth")[-1]["dice"])
    cameras = [json.loads((out / r.roll / "manifest.json").read_text())["camera"] for r in read]
    assert "view" not in cameras[0]  # two dice: too few to tell, read as if seen from above
    assert all(c["view"]["lean"] and c["guessed"]["dice"] >= MIN_DICE for c in cameras[1:])
    # the reading event says the set-up too (the judge page shows it): none for the first roll
    readings = [RecordingReader(out / r.roll).of_type("reading")[-1] for r in read]
    assert "camera" not in readings[0]
    assert all(e["camera"] == {k: c[k] for k in ("view", "guessed")} for e, c in zip(readings[1:], cameras[1:]))
    assert main(["replay", str(out)]) == 0
    assert f"all {len(read)} roll(s) read the same as recorded" in capsys.readouterr().err


def test_a_described_camera_and_a_guessed_one_are_not_both_asked_for(tmp_path, capsys):
    code = main(["watch", "--source", f"recording:{FIXTURES / 'first-player-tie'}", "--first-player",
                 "--players", "Ana,Ben", "--out", str(tmp_path), "--camera-fov", "70", "--guess-camera"])
    assert code == 2 and "not both" in capsys.readouterr().err


class _GuessingTruth(TruthRecognizer):
    """The recorded truth, and a lean look that finds every die flat only under choice 5."""

    def read_frame_guessing(self, bgr, evidence):
        readings = self.read_frame(bgr)
        if readings:
            p = np.full((len(evidence.choices), len(readings)), 0.9)
            p[5] = 0.01
            evidence.add(p)
        return readings, evidence.guess()


def test_a_camera_lost_between_rolls_starts_the_guess_again(tmp_path):
    # one die a roll: the third roll is read with the set-up its three dice give; the camera is then
    # lost and comes back (perhaps moved), and the next roll, one die, has nothing to guess from
    src = make_rolls(tmp_path / "src", [[("d6", 1)], [("d6", 2)], [("d6", 3)], [("d6", 4)]], seed=10)
    frames = [roll_frames(1, seed=s)[0] for s in (11, 12, 13, 14)]
    items = frames[0] + frames[1] + frames[2] + [SourceLost("unplugged"), SourceBack("back")] + frames[3]
    rec = _GuessingTruth(src)
    summary = LiveLoop(MemorySource(items), rec, None,
                       LoopConfig(out_dir=tmp_path / "rolls", guess_camera=True)).run()
    read = [r for r in summary.rolls if r.outcome == "read"]
    assert [[d["value"] for d in r.readings] for r in read] == [[1], [2], [3], [4]]
    views = [RecordingReader(r.path).manifest["camera"].get("view") for r in read]
    assert views[:2] == [None, None] and views[2] is not None and views[3] is None
