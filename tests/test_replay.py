"""`dice-reader replay`: the regression check of a recognizer on recorded rolls."""

from __future__ import annotations

import json

import pytest

from reader.cli import build_parser, main
from reader.decide import RulesDecider
from reader.loop import LiveLoop, LoopConfig
from reader.sources import open_source
from tray_fakes import TruthRecognizer, make_roll, make_rolls


@pytest.fixture
def recorded(tmp_path):
    src = make_rolls(tmp_path / "src", [[("d8", 8)], [("d8", 2)]])
    rec = TruthRecognizer(src)
    LiveLoop(open_source(str(src)), rec, RulesDecider.banish("A,B,C,D,E,F,G", die="d8"),
             LoopConfig(out_dir=tmp_path / "rolls")).run()
    return tmp_path / "rolls", src


def _use(monkeypatch, recognizer):
    monkeypatch.setattr("reader.commands.replay.load_recognizer", lambda models=None: recognizer)


def test_same_model_same_result_exit_0(recorded, monkeypatch, capsys):
    rolls, src = recorded
    _use(monkeypatch, TruthRecognizer(src))
    assert main(["replay", str(rolls / "0001"), f"recording:{rolls / '0002'}"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("0001: D8 8 -> D8 shows 8: no card has that value, roll again   same")
    assert out[1].endswith("0002: D8 2 -> D8 shows 2: banish #2 B; done: banished #2 B; "
                           "remaining: A, C, D, E, F, G   same")


def test_a_model_that_reads_differently_is_reported_exit_1(recorded, tmp_path, monkeypatch, capsys):
    rolls, _ = recorded
    other = make_rolls(tmp_path / "other", [[("d8", 8)], [("d8", 5)]])  # roll 2 now reads 5
    _use(monkeypatch, TruthRecognizer(other))
    assert main(["replay", str(rolls)]) == 1
    captured = capsys.readouterr()
    assert "0001: D8 8" in captured.out and "DIFFERS" in captured.out
    assert "frame" in captured.out and "read D8 5, recorded D8 2" in captured.out
    assert "1 of 2 roll(s) differ" in captured.err


def test_json_and_progress_bar(recorded, monkeypatch, capsys):
    rolls, src = recorded
    _use(monkeypatch, TruthRecognizer(src))
    assert main(["replay", str(rolls), "--json", "--progress"]) == 0
    captured = capsys.readouterr()
    results = [json.loads(x) for x in captured.out.splitlines()]
    assert [r["same"] for r in results] == [True, True]
    assert results[1]["replayed_decisions"][0]["card"] == "B"
    assert "2/2" in captured.err and "[" in captured.err


def test_renderer_recording_is_compared_with_its_truth(tmp_path, monkeypatch, capsys):
    roll = make_roll(tmp_path / "fixture", [("d12", 11), ("d20", None)])  # a cocked D20
    _use(monkeypatch, TruthRecognizer(roll))
    assert main(["replay", str(roll)]) == 0
    assert "D12 11, D20 cocked   same" in capsys.readouterr().out


def test_unreadable_frame_is_reported_and_fails(recorded, monkeypatch, capsys):
    rolls, src = recorded
    _use(monkeypatch, TruthRecognizer(src))
    settled = [p for p in (rolls / "0002" / "frames").iterdir() if p.suffix == ".png"][0]
    settled.write_bytes(b"broken")
    assert main(["replay", str(rolls)]) == 1
    out = capsys.readouterr().out
    assert "0001" in out and "same" in out and "CANNOT REPLAY" in out and "corrupt" in out


def test_partials_are_reported_not_replayed(recorded, monkeypatch, capsys):
    rolls, src = recorded
    _use(monkeypatch, TruthRecognizer(src))
    (rolls / "0003.partial").mkdir()
    assert main(["replay", str(rolls)]) == 0
    assert "0003.partial is an unfinished recording" in capsys.readouterr().err
    assert main(["replay", str(rolls / "0003.partial")]) == 2


def test_missing_recording_is_a_clear_error(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope")]) == 2
    assert "no such recording" in capsys.readouterr().err


def test_help_explains_the_exit_status():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert "Exit status: 0 all the same, 1 if any roll differs" in sub.choices["replay"].description


def test_fixture_expected_decisions_are_checked(tmp_path, monkeypatch, capsys):
    from reader.recording import RecordingWriter
    from tray_fakes import roll_frames

    frames, still_from, boxes = roll_frames(1, seed=1)
    truth = [{"die": "d8", "value": 3, "box": boxes[0], "state": "flat"}]
    rules = RulesDecider.banish("A,B,C,D,E,F,G", die="d8").rules_json()
    for name, expected_card in (("good", "C"), ("stale", "D")):
        with RecordingWriter(tmp_path / name, rules=rules, frame_ext=".png") as w:
            for i, img in enumerate(frames):
                w.add_frame(img, t=i / 10)
                if i >= still_from:
                    w.add_event("truth", t=i / 10, frame=i, dice=truth)
            pos = "CD".index(expected_card) + 3
            w.add_event("expected", t=2.0, frame=len(frames) - 1,
                        decisions=[{"die": "d8", "value": 3, "result": "banish", "position": pos,
                                    "card": expected_card}, {"result": "done", "banished": [
                                        {"position": pos, "card": expected_card}],
                                        "remaining": [c for c in "ABCDEFG" if c != expected_card]}])
    _use(monkeypatch, TruthRecognizer(tmp_path / "good"))
    assert main(["replay", str(tmp_path / "good")]) == 0
    assert main(["replay", str(tmp_path / "stale")]) == 1  # expected decisions that the rules do not give
    assert "decision now: D8 shows 3: banish #3 C" in capsys.readouterr().out


def test_the_camera_set_up_is_recorded_and_replay_reads_with_it(tmp_path, monkeypatch, capsys):
    from reader.vision.viewing import CameraView

    src = make_rolls(tmp_path / "src", [[("d8", 3)]])
    live = TruthRecognizer(src)
    live.view = CameraView(70.0, 12.0)  # watch --camera-fov 70 --camera-tilt 12
    LiveLoop(open_source(str(src)), live, RulesDecider.banish("A,B,C,D,E,F,G", die="d8"),
             LoopConfig(out_dir=tmp_path / "rolls")).run()
    manifest = tmp_path / "rolls" / "0001" / "manifest.json"
    assert json.loads(manifest.read_text())["camera"]["view"] == {"hfov": 70.0, "tilt": 12.0}
    again = TruthRecognizer(src)
    _use(monkeypatch, again)
    assert main(["replay", str(tmp_path / "rolls" / "0001")]) == 0
    assert again.view == CameraView(70.0, 12.0)  # read as the roll was, not as if from above
    # a set-up that is not one is reported for that roll, not guessed
    m = json.loads(manifest.read_text())
    m["camera"]["view"] = {"hfov": "wide"}
    manifest.write_text(json.dumps(m))
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "rolls" / "0001")]) == 1
    assert "camera view" in capsys.readouterr().out


REPLAY_VIEW_CASES = {
    "read with no set-up described": ({"source": "usb:0"}, None),
    "watch --camera-fov 70 --camera-tilt 12": ({"source": "usb:0", "view": {"hfov": 70.0, "tilt": 12.0}},
                                               (70.0, 12.0)),
    "the renderer's own camera, a view matrix": ({"source": "synth:reader.synth",
                                                  "view_matrix": [[1.0, 0, 0, 0]] * 4}, None),
    "a matrix from anything else: not guessed": ({"source": "usb:0", "view": [[1.0, 0, 0, 0]] * 4}, "error"),
}


@pytest.mark.parametrize("camera, expected", REPLAY_VIEW_CASES.values(), ids=REPLAY_VIEW_CASES.keys())
def test_a_roll_is_replayed_with_the_set_up_it_was_read_with(camera, expected):
    from reader.commands.replay import recorded_view
    from reader.errors import DiceReaderError

    if expected == "error":
        with pytest.raises(DiceReaderError):
            recorded_view({"camera": camera})
        return
    view = recorded_view({"camera": camera})
    assert (None if view is None else (view.hfov, view.tilt)) == expected


def test_a_committed_fixture_is_replayed_against_its_truth(capsys):
    # the renderer wrote its own camera (a view matrix) where watch writes the set-up described: every
    # committed fixture was "CANNOT REPLAY" until session 40 (since 41 it writes camera.view_matrix)
    from pathlib import Path

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "banish-7-d8-then-d6"
    assert main(["replay", str(fixture)]) == 0
    out, err = capsys.readouterr()
    assert "CANNOT REPLAY" not in out
    assert out.count("   same") == 3 and "all 3 roll(s) read the same as recorded" in out + err
