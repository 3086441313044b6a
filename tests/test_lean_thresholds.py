"""A die refused for low confidence alone, decided again with the lean look's p(leaning) in place of the
state head's p(cocked) (reader.vision.lean.LeanThresholds): only with the camera described and the
lean look asked for, only within its type's angle. A stand-in reader reads every die as a D20
showing 14 with p(type) 0.95 and p(face) 0.95 and a p(cocked) of 0.3 (confidence 0.63, under the
reader's own D20 threshold, 0.94); the stand-in lean look's p(leaning) 0.01 gives 0.89, over the
D20's lean threshold here (0.88). The committed thresholds on the committed stills:
tests/test_recognizer.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from reader.errors import DiceReaderError
from reader.reading import Cocked, Face, Unreadable
from reader.vision.lean import LeanLook, LeanThresholds
from reader.vision.recognizer import Recognizer
from reader.vision.viewing import CameraView
from tray_fakes import FixedD20Reader, FixedLeaning, GivenBoxes

W, H = 1280, 720
THRESHOLDS = LeanThresholds({"d20": 21.0}, {"d20": 0.88})


def _FaintD20(agree=True):
    """Every die a D20 showing 14: p(type) 0.95, p(face) 0.95, p(cocked) 0.3, views agreeing."""
    return FixedD20Reader(14, 0.95, p_type=0.95, cocked=0.3, agree=agree, accept_by_die={"d20": 0.94})


def frame():
    img = np.full((H, W, 3), 90, np.uint8)
    img[320:400, 600:680] = 255
    img[320:400, 898:978] = 255
    return img


MIDDLE = (600.0, 320.0, 680.0, 400.0)   # seen straight down by a camera straight down
OFF = (898.0, 320.0, 978.0, 400.0)     # 25 degrees off vertical by a 90-degree camera: within the steep limit


@pytest.mark.parametrize("die, slant, expected", [
    pytest.param("d20", 0.0, 0.88, id="seen straight down"),
    pytest.param("d20", 21.0, 0.88, id="at the edge of its cone"),
    pytest.param("d20", 21.5, None, id="beyond it: the reader's own"),
    pytest.param("d12", 5.0, None, id="a type it names no threshold for"),
])
def test_the_threshold_holds_within_its_types_angle(die, slant, expected):
    assert THRESHOLDS.threshold(die, slant) == expected


@pytest.mark.parametrize("meta, ok", [
    pytest.param(None, True, id="no metadata: none"),
    pytest.param({"within_deg": {"d20": 21}, "accept_threshold_by_die": {"d20": 0.88}}, True, id="angles and thresholds"),
    pytest.param({"within_deg": {}, "accept_threshold_by_die": {"d20": 0.88}}, False, id="a threshold with no angle"),
    pytest.param({"within_deg": {"d20": 21}, "accept_threshold_by_die": {"d20": 1.5}}, False, id="a threshold over 1"),
    pytest.param({"accept_threshold_by_die": {"d20": 0.88}}, False, id="no angles at all"),
    pytest.param({"within_deg": {"d20": 21}, "accept_threshold_by_die": {"d20": 0.88}, "top_face_rise": 0.4}, True,
                 id="with the top face's rise"),
    pytest.param({"within_deg": {"d20": 21}, "accept_threshold_by_die": {"d20": 0.88}, "top_face_rise": 3}, False,
                 id="a rise over the box's side"),
    pytest.param({"within_deg": {"d20": 21}, "accept_threshold_by_die": {"d20": 0.88},
                  "first_accept_by_die": {"d20": 0.94}}, True, id="with the first decision's own threshold"),
    pytest.param({"within_deg": {"d20": 21}, "accept_threshold_by_die": {"d20": 0.88},
                  "first_accept_by_die": {"d20": 1.5}}, False, id="a first threshold over 1"),
])
def test_the_readers_metadata_is_taken_or_refused_plainly(meta, ok):
    if ok:
        found = LeanThresholds.from_meta(meta)
        assert found is None if meta is None else found.threshold("d20", 0.0) == 0.88
    else:
        with pytest.raises(DiceReaderError):
            LeanThresholds.from_meta(meta)


@pytest.mark.parametrize("view, box, p_leaning, agree, expected", [
    pytest.param(None, MIDDLE, 0.01, True, None, id="no camera: the reader's threshold refuses it"),
    pytest.param(CameraView(90.0), MIDDLE, 0.01, True, None, id="camera without the lean look: refused"),
    pytest.param(CameraView(90.0, lean=True), MIDDLE, 0.01, True, 14, id="camera and lean look, seen straight down: read"),
    pytest.param(CameraView(90.0, lean=True), OFF, 0.01, True, None, id="seen 25 degrees off vertical: refused"),
    pytest.param(CameraView(90.0, lean=True), MIDDLE, 0.3, True, None, id="the lean look doubts it too: refused"),
    pytest.param(CameraView(90.0, lean=True), MIDDLE, 0.9, True, None, id="the lean look finds it leaning: refused"),
    pytest.param(CameraView(90.0, lean=True), MIDDLE, 0.01, False, None, id="views disagree: not decided again"),
])
def test_an_unsure_d20_is_read_again_only_with_the_camera_and_the_lean_look(view, box, p_leaning, agree, expected):
    rec = Recognizer(GivenBoxes([box]), _FaintD20(agree), view=view, lean=LeanLook(FixedLeaning(p_leaning), 0.5),
                     lean_thresholds=THRESHOLDS)
    (r,) = rec.read_frame(frame())
    if expected is None:
        assert r.value is None and isinstance(r.outcome, (Unreadable, Cocked))
    else:
        assert isinstance(r.outcome, Face) and r.value == expected
        assert r.confidence == pytest.approx(0.95 * 0.95 * 0.99, abs=1e-3)


@pytest.mark.parametrize("view, first, expected", [
    pytest.param(None, {"d20": 0.94}, None, id="no camera: the reader's own threshold (0.98) refuses it"),
    pytest.param(CameraView(90.0), {"d20": 0.94}, None, id="camera without the lean look: the reader's own"),
    pytest.param(CameraView(90.0, lean=True), {"d20": 0.94}, 14,
                 id="camera and lean look: the first threshold reads it"),
    pytest.param(CameraView(90.0, lean=True), {}, None, id="camera and lean look, no first threshold: refused"),
    pytest.param(CameraView(90.0, lean=True), {"d12": 0.5}, None, id="a first threshold for another type only"),
])
def test_with_the_looks_the_first_decision_keeps_the_threshold_it_was_set_behind(view, first, expected):
    # a D20 read at p(type) 0.99 x p(face) 0.97 x (1 - p(cocked) 0.01) = 0.951: under the reader's own D20
    # threshold (0.98, as reader v20's no-camera look has it), over the camera path's (0.94); seen 25
    # degrees off vertical, beyond the lean thresholds' 21, so not decided again with the lean look
    reader = FixedD20Reader(14, 0.97, p_type=0.99, cocked=0.01, accept_by_die={"d20": 0.98})
    rec = Recognizer(GivenBoxes([OFF]), reader, view=view, lean=LeanLook(FixedLeaning(0.01), 0.5),
                     lean_thresholds=LeanThresholds({"d20": 21.0}, {"d20": 0.88}, first_by_die=first))
    rec.d20_from_above = False  # without the looks, a D20 that looks seen from above: tests/test_d20_from_above.py
    (r,) = rec.read_frame(frame())
    assert r.value == expected
    if expected is None:
        assert isinstance(r.outcome, Unreadable) and r.outcome.reason == "low confidence"


@pytest.mark.parametrize("view, from_above, leaning, expected", [
    pytest.param(None, False, 0.01, None, id="no camera, read once: the reader's threshold refuses it"),
    pytest.param(None, True, 0.01, 14, id="no camera: read again as seen from straight above, found flat: read"),
    pytest.param(None, True, 0.9, None, id="no camera: read again as seen from straight above, found leaning"),
    pytest.param(CameraView(60.0, lean=True), True, 0.01, 14,
                 id="taken by the described camera, the lean look asked: read"),
])
def test_a_photo_of_one_die_is_judged_by_the_described_camera_too(view, from_above, leaning, expected):
    img = np.full((120, 120, 3), 90, np.uint8)
    img[20:100, 20:100] = 255
    rec = Recognizer(GivenBoxes([(20.0, 20.0, 100.0, 100.0)]), _FaintD20(), view=view,
                     lean=LeanLook(FixedLeaning(leaning), 0.5), lean_thresholds=THRESHOLDS)
    rec.single_from_above = from_above
    assert rec.read_single(img).value == expected


def test_a_die_read_again_with_the_lean_look_is_not_looked_at_twice():
    # its p(leaning) is under the look's threshold already: refuse_leaning need not ask again
    net = FixedLeaning(0.01)
    rec = Recognizer(GivenBoxes([MIDDLE]), _FaintD20(), view=CameraView(90.0, lean=True), lean=LeanLook(net, 0.5),
                     lean_thresholds=THRESHOLDS)
    (r,) = rec.read_frame(frame())
    assert r.value == 14 and net.crops == 1


def _rows(*specs):
    """Calibration readings: (die read, degrees off vertical, confidence decided again, flat die read
    wrong, cocked, the release accepts it)."""
    return [{"die": d, "slant": s, "conf": c, "wrong": w, "cocked": k, "released": r, "source": "synth-crops"}
            for d, s, c, w, k, r in specs]


RIGHT = [("d20", 5.0, float(c), False, False, False) for c in np.linspace(0.6, 0.99, 200)]


@pytest.mark.parametrize("extra, expected", [
    pytest.param([], 0.5, id="no wrong reading: the floor"),
    pytest.param([("d20", 5.0, 0.9, True, False, False)], 0.901, id="a flat die read wrong at 0.90: just over it"),
    pytest.param([("d20", 30.0, 0.93, True, False, False)], 0.5, id="a wrong die seen beyond its angle: not counted"),
    pytest.param([("d20", 5.0, 0.91, False, True, False)], 0.911, id="a cocked die at 0.91: over it"),
    pytest.param([("d20", 5.0, 0.0, True, False, True)], 0.5, id="a wrong die the release accepts: its own"),
])
def test_the_dice_decided_again_add_no_wrong_reading_and_no_cocked_die(extra, expected):
    pytest.importorskip("torch")  # the calibration replays rendered crops' angles with the training tools
    from models.train.calibrate_lean_thresholds import lean_thresholds

    found = lean_thresholds(_rows(*RIGHT, *extra), {"d20": 21.0})["d20"]
    assert found["threshold"] == pytest.approx(expected, abs=1e-3)
    assert found["wrong"] == found["wrong_at_release"] and found["cocked_valued"] == found["cocked_valued_at_release"]
    assert found["right"] > found["right_at_release"]


@pytest.mark.parametrize("view, rise, moved", [
    pytest.param(None, 0.4, False, id="no camera: cut about the box's middle"),
    pytest.param(CameraView(90.0), 0.4, False, id="camera without the lean look: the middle"),
    pytest.param(CameraView(90.0, lean=True), 0.0, False, id="thresholds set on cuts about the middle (v17)"),
    pytest.param(CameraView(90.0, lean=True), 0.4, True, id="camera, lean look, rise: where the top face is"),
])
def test_the_numeral_looks_cut_where_the_camera_sees_the_top_face_only_as_calibrated(view, rise, moved):
    faces = _FaintD20()
    rec = Recognizer(GivenBoxes([OFF]), faces, view=view, lean=LeanLook(FixedLeaning(0.01), 0.5),
                     lean_thresholds=LeanThresholds({"d20": 21.0}, {"d20": 0.88}, rise))
    rec.read_frame(frame())
    (shifts,) = faces.shifts
    if not moved:
        assert shifts is None
    else:
        # OFF is right of the foot (the middle of a camera straight down): its top face further right
        (dx, dy), = shifts
        assert dx == pytest.approx(0.4 * 80 * math.sin(math.radians(25.2)), rel=0.05) and abs(dy) < 1e-6


@pytest.mark.parametrize("extra, allowed, floor, expected", [
    pytest.param([("d20", 5.0, 0.91, False, True, False)], {}, {}, 0.911, id="none allowed: over the cocked die"),
    pytest.param([("d20", 5.0, 0.91, False, True, False)], {"d20": 1}, {}, 0.5,
                 id="one allowed (the reference valued one): the floor"),
    pytest.param([], {}, {"d20": 0.9}, 0.9, id="never under the reference's own threshold"),
])
def test_the_reference_sets_what_the_dice_decided_again_may_add_and_the_floor(extra, allowed, floor, expected):
    pytest.importorskip("torch")
    from models.train.calibrate_lean_thresholds import lean_thresholds

    found = lean_thresholds(_rows(*RIGHT, *extra), {"d20": 21.0}, allowed, floor)["d20"]
    assert found["threshold"] == pytest.approx(expected, abs=1e-3)


@pytest.mark.parametrize("view, expected", [
    pytest.param(None, None, id="no camera: the reader's own looks, unsure"),
    pytest.param(CameraView(90.0), None, id="camera without the lean look: its own looks"),
    pytest.param(CameraView(90.0, lean=True), 7, id="camera and lean look: the lean thresholds' looks"),
])
def test_the_lean_thresholds_looks_read_only_with_the_camera_and_the_lean_look(view, expected):
    rec = Recognizer(GivenBoxes([MIDDLE]), _FaintD20(), view=view, lean=LeanLook(FixedLeaning(0.01), 0.5),
                     lean_thresholds=LeanThresholds({"d20": 21.0}, {"d20": 0.97}),
                     lean_faces=FixedD20Reader(7, 0.99, p_type=1.0, accept_by_die={"d20": 0.94}))
    (r,) = rec.read_frame(frame())
    assert r.value == expected


@pytest.mark.parametrize("looks, ok", [
    pytest.param([{"model": "reader_near_d20.onnx", "per_side": 0.7, "dice": ["d20"]}], True, id="a look"),
    pytest.param([{"per_side": 0.7, "dice": ["d20"]}], False, id="no model"),
    pytest.param([{"model": "reader_near_d20.onnx", "per_side": 0.7, "dice": []}], False, id="no dice"),
    pytest.param(["reader_near_d20.onnx"], False, id="a name, not an entry"),
])
def test_the_lean_thresholds_looks_are_taken_or_refused_plainly(looks, ok):
    meta = {"within_deg": {"d20": 21}, "accept_threshold_by_die": {"d20": 0.88}, "looks": looks}
    if ok:
        assert LeanThresholds.from_meta(meta).looks == tuple(looks)
    else:
        with pytest.raises(DiceReaderError):
            LeanThresholds.from_meta(meta)


def test_the_lean_thresholds_are_set_with_a_look_and_a_rise_and_travel_in_the_reader(tmp_path):
    # the command that set reader v18's, on type-lurig's D20 faces alone (photographed from above):
    # the reader it writes names the look and the rise, loads, and keeps the reference's floor (in the
    # detector's boxes where work/ has them, else the whole photos: a fresh clone's D20 may then read
    # no more than the reference's, and no D20 threshold is written)
    pytest.importorskip("torch")
    import shutil

    from models.train import calibrate_lean_thresholds
    from reader.vision.onnx_model import models_dir
    from reader.vision.realdata import realdata_root

    if not (realdata_root() / "type-lurig" / "labels.jsonl").is_file():
        pytest.skip("type-lurig absent")
    models = models_dir(None)
    release = tmp_path / "release"
    release.mkdir()
    for f in models.glob("*.onnx"):
        shutil.copy(f, release / f.name)
    out = release / "reader.onnx"
    assert calibrate_lean_thresholds.main([
        "--lurig-faces", str(models / "train" / "lurig_values.json"), "--dice", "d20",
        "--models", str(release), "--rise", "0.3", "--look", "reader_near_d20.onnx", "--reference", str(models),
        "--out", str(out)]) == 0
    rec = Recognizer.load(release)
    got = rec.lean_thresholds
    assert got.rise == pytest.approx(0.3)
    assert [look["model"] for look in got.looks] == ["reader_near_d20.onnx"]
    floors = Recognizer.load(models).lean_thresholds.accept_by_die
    assert all(t >= floors[die] for die, t in got.accept_by_die.items())
    assert "reader_near_d20" in rec.versions and rec.lean_faces.look_of["d20"].name == "reader_near_d20"


FIRST_GATE_CASES = {
    "one type": (["d20=0.94"], {"d20": 0.94}),
    "two types": (["d20=0.94", "d12=0.8"], {"d20": 0.94, "d12": 0.8}),
    "a threshold over 1": (["d20=1.5"], None),
    "a type the rules do not read": (["d4=0.5"], None),
    "no threshold": (["d20"], None),
    "not a number": (["d20=high"], None),
}


@pytest.mark.parametrize("items, expected", FIRST_GATE_CASES.values(), ids=FIRST_GATE_CASES.keys())
def test_the_first_decisions_thresholds_are_taken_or_refused_plainly(items, expected):
    # calibrate_lean_thresholds --first-gate: what it writes is what the recognizer then applies
    pytest.importorskip("torch")
    from models.train.calibrate_lean_thresholds import first_gate

    if expected is None:
        with pytest.raises(ValueError):
            first_gate(items)
    else:
        assert first_gate(items) == expected
