"""The committed fixtures: they load as recordings, and their labels are what the pose shows.

No rendering here (CI has no GL): the top face of every die is recomputed from the final
rotation stored in the truth events, with the renderer's pure-numpy geometry, and compared to the
stored label. The rules block in each roll's manifest is rebuilt and run on the truth to check the
recorded `expected` decisions.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from reader.recording import RecordingReader
from reader.synth import geometry as geo

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SCENARIOS = ["first-player-tie", "banish-7-d8-then-d6", "banish-5-d20", "cocked-die",
             "tray-10-mixed", "tower-trigger"]


def _rolls(name: str) -> list[Path]:
    rolls = sorted(p for p in (FIXTURES / name).iterdir() if p.is_dir())
    assert rolls, f"no rolls in fixtures/{name}"
    return rolls


def _all_recordings() -> list[Path]:
    return [r for name in SCENARIOS for r in _rolls(name)] + [FIXTURES / "stills"]


def _project(point, cam: dict) -> tuple[float, float]:
    view = np.asarray(cam["view_matrix"], float)
    k = np.asarray(cam["intrinsics"], float)
    x, y, z = (view @ np.r_[point, 1.0])[:3]
    return k[0, 2] + k[0, 0] * x / -z, k[1, 2] - k[1, 1] * y / -z


def test_fixtures_are_small():
    size = sum(f.stat().st_size for f in FIXTURES.rglob("*") if f.is_file())
    assert size < 20e6, f"fixtures are {size / 1e6:.1f} MB; the budget is 20 MB"


@pytest.mark.parametrize("path", _all_recordings(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_recording_loads_and_truth_matches_pose(path):
    rec = RecordingReader(path)
    assert rec.frame_indices == list(range(len(rec.frame_indices)))
    truths = rec.of_type("truth")
    assert truths, "every fixture carries ground truth"
    first = rec.frame(rec.frame_indices[0])
    for ev in truths:
        cam = ev.get("camera", rec.manifest["camera"])
        h, w = cam["height"], cam["width"]
        assert first.shape[:2] == (h, w)
        for d in ev["dice"]:
            pose = d["pose"]
            r = np.asarray(pose["R"], float)
            assert np.allclose(r @ r.T, np.eye(3), atol=1e-4) and np.isclose(np.linalg.det(r), 1, atol=1e-4)
            lab = geo.label_from_rotation(geo.solid(d["die"]), r)
            assert d["state"] == lab.state, f"{d['die']} labeled {d['state']}, pose says {lab.state}"
            assert d["value"] == lab.value, f"{d['die']} labeled {d['value']}, pose shows {lab.value}"
            x0, y0, x1, y1 = d["box"]
            assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
            u, v = _project(pose["t"], cam)
            if 0 <= u < w and 0 <= v < h:
                assert x0 - 1 <= u <= x1 + 1 and y0 - 1 <= v <= y1 + 1, "box is around the die"


@pytest.mark.parametrize("name", SCENARIOS)
def test_rolls_end_still_with_truth_and_expected_decisions(name):
    from reader.decide import RulesDecider
    from reader.reading import Box, Cocked, DieReading, Face, Unreadable

    for path in _rolls(name):
        rec = RecordingReader(path)
        truth_frames = [e["frame"] for e in rec.of_type("truth")]
        last = rec.frame_indices[-1]
        assert last in truth_frames and len(truth_frames) >= 5, "a roll ends with still frames"
        # the still frames really are still: the same picture up to sensor noise
        a = rec.frame(truth_frames[0]).astype(np.float32)
        b = rec.frame(last).astype(np.float32)
        assert np.abs(a - b).mean() < 4.0
        # and the first frames (dice still coming) differ from the rest picture
        assert np.abs(rec.frame(rec.frame_indices[len(rec.frame_indices) // 3]).astype(np.float32) - b).mean() > \
            np.abs(a - b).mean()
        readings = []
        for d in rec.truth(last):
            if d["state"] == "cocked":
                outcome = Cocked(1.0)
            elif d["value"] is None:
                outcome = Unreadable("type only", 1.0)
            else:
                outcome = Face(d["value"], 1.0)
            readings.append(DieReading(d["die"], Box.from_list(d["box"]), outcome, style=d.get("style")))
        decider = RulesDecider.from_rules_json(rec.manifest["rules"])
        expected = rec.of_type("expected")
        assert len(expected) == 1
        assert decider.decide(readings) == expected[0]["decisions"]


def _expected(name: str) -> list[list[dict]]:
    return [RecordingReader(p).of_type("expected")[0]["decisions"] for p in _rolls(name)]


def _results(decisions: list[dict]) -> list[str]:
    return [d.get("result") for d in decisions]


def test_first_player_roll_off_has_a_tie_then_a_winner():
    exp = _expected("first-player-tie")
    flat = [d for roll in exp for d in roll]
    assert "tie" in _results(flat)
    firsts = [d for d in flat if d.get("result") == "first"]
    assert len(firsts) == 1 and flat.index(firsts[0]) > _results(flat).index("tie")


def test_banish_d8_eight_is_rolled_again_then_d6():
    rolls = _rolls("banish-7-d8-then-d6")
    exp = _expected("banish-7-d8-then-d6")
    assert exp[0] == [{"die": "d8", "value": 8, "result": "reroll"}]
    assert "banish" in _results(exp[1])
    last = RecordingReader(rolls[-1])
    assert [d["die"] for d in last.truth(last.frame_indices[-1])] == ["d6"]
    assert "banish" in _results(exp[2]) and "done" in _results(exp[2])
    assert last.manifest["rules"]["fed_before"] == [["d8", 8], ["d8", exp[1][0]["value"]]]


def test_five_card_d20_banish_uses_blocks_of_four():
    (dec,) = _expected("banish-5-d20")
    banish = [d for d in dec if d["result"] == "banish"][0]
    assert banish["position"] == (banish["value"] - 1) // 4 + 1


def test_cocked_die_gives_roll_again():
    rec = RecordingReader(_rolls("cocked-die")[0])
    states = [d["state"] for d in rec.truth(rec.frame_indices[-1])]
    assert "cocked" in states
    assert _results(_expected("cocked-die")[0]) == ["roll-again"]


def test_tray_of_ten_mixed_dice():
    rec = RecordingReader(_rolls("tray-10-mixed")[0])
    dice = rec.truth(rec.frame_indices[-1])
    assert len(dice) == 10
    assert {d["die"] for d in dice} >= {"d6", "d8", "d10", "d12", "d20"}
    assert rec.manifest["rules"] is None


def test_tower_trigger_comes_before_the_dice():
    rec = RecordingReader(_rolls("tower-trigger")[0])
    (trig,) = rec.triggers()
    assert trig["source"] == "tower"
    first_truth = min(e["t"] for e in rec.of_type("truth"))
    assert trig["t"] < first_truth
    assert trig["t"] <= rec.frame_time(rec.frame_indices[3])


def test_still_set_labels_match_truth_events():
    rec = RecordingReader(FIXTURES / "stills")
    assert rec.kind == "stills"
    rows = [json.loads(line) for line in (FIXTURES / "stills" / "labels.jsonl").read_text().splitlines()]
    assert 250 <= len(rows) == len(rec.frame_indices)
    n_dice = 0
    for index, row in enumerate(rows):
        assert row["image"] == f"frames/{index:06d}.jpg"
        truth = rec.truth(index)
        assert [(d["die"], d["value"], d["box"], d["state"]) for d in truth] == \
            [(d["die"], d["value"], d["box"], d["state"]) for d in row["dice"]]
        for d in row["dice"]:
            assert d["state"] in ("flat", "cocked")
            assert (d["die"] == "d6") == ("style" in d)
        n_dice += len(row["dice"])
    assert n_dice > 3 * len(rows), "trays hold several dice on average"


@pytest.mark.parametrize("text, want", [
    pytest.param("1280x720", (1280, 720), id="the product's frame size"),
    pytest.param("640X360", (640, 360), id="either case of x"),
    pytest.param("1280", None, id="one number is not a size"),
    pytest.param("0x720", None, id="no width"),
    pytest.param("wide x tall", None, id="words"),
])
def test_still_set_frame_size_is_checked(text, want, capsys):
    from reader.synth.fixtures import main

    if want is None:
        with pytest.raises(SystemExit):
            main(["--stills-size", text, "--only", "stills", "--out", "/nonexistent/never-written"])
        err = capsys.readouterr().err
        assert "WIDTHxHEIGHT" in err or "16-4096" in err
    else:
        from reader.synth.fixtures import _size

        assert _size(text) == want


class _FlatRenderer:
    """A stand-in for the GL renderer: every scene a grey picture of its camera's size."""

    def render(self, scene):
        cam = scene["camera"]
        return np.full((cam["height"], cam["width"], 3), 120, np.uint8)


@pytest.mark.parametrize("cameras, most_off", [
    pytest.param("any", 35.0, id="any camera over a table: up to 35 degrees off straight down"),
    pytest.param("installed", 15.0, id="a camera on an arm over the tray: up to 15"),
])
def test_a_still_set_is_taken_with_the_cameras_asked_for(tmp_path, cameras, most_off):
    from reader.recording import RecordingReader, RecordingWriter
    from reader.synth.rolls import write_stills

    with RecordingWriter(tmp_path / "stills", kind="stills", camera={"source": "test"}) as w:
        write_stills(w, _FlatRenderer(), seed=3, count=24, width=160, height=90, cameras=cameras)
    offs = [e["camera"]["off_vertical_deg"] for e in RecordingReader(tmp_path / "stills").of_type("truth")]
    assert len(offs) == 24 and max(offs) <= most_off
    if cameras == "any":
        assert max(offs) > 15.0  # the tilted cameras the installed set leaves out


def test_a_still_set_with_unknown_cameras_is_refused(tmp_path):
    from reader.recording import RecordingWriter
    from reader.synth.rolls import write_stills

    with pytest.raises(ValueError, match="installed"):
        with RecordingWriter(tmp_path / "stills", kind="stills", camera={"source": "test"}) as w:
            write_stills(w, _FlatRenderer(), seed=3, count=1, width=160, height=90, cameras="handheld")
