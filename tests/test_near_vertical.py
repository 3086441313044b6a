"""The thresholds for numeral dice a described camera sees near vertical (reader.vision.viewing.NearVertical):
asked only with the camera described and the lean look asked for, only for dice refused for low
confidence, only within their type's angle. A stand-in reader reads every die as a D20 showing 14
at 0.90, under the reader's own D20 threshold (0.94) and over the near-vertical one (0.88). The
committed thresholds on the committed stills: tests/test_recognizer.py."""

from __future__ import annotations

import numpy as np
import pytest

from reader.errors import DiceReaderError
from reader.reading import Cocked, Face, Unreadable
from reader.vision.faces import FaceEvidence, FaceReader
from reader.vision.lean import LeanLook
from reader.vision.recognizer import Recognizer
from reader.vision.viewing import CameraView, NearVertical
from tray_fakes import FixedLeaning, GivenBoxes

W, H = 1280, 720
NEAR = NearVertical({"d20": 21.0}, {"d20": 0.88})


class _FaintD20(FaceReader):
    """Every die a D20 showing 14: p(type) 0.95, p(face) 0.95 (confidence 0.90), views agreeing, flat."""

    def __init__(self, agree=True):
        class _Meta:
            meta = {"types": ["d4", "d6", "d8", "d10", "d12", "d20", "none"], "accept_threshold": 0.85,
                    "accept_threshold_by_die": {"d20": 0.94}, "cocked_threshold": 0.4}
        super().__init__(_Meta())
        self.agree = agree

    def evidence(self, image, boxes, check_state=True):
        tp = np.array([0.0, 0.0, 0.0, 0.0, 0.05, 0.95, 0.0])
        fp = np.full(20, 0.05 / 19)
        fp[13] = 0.95
        return [FaceEvidence(tp, fp, 0.0, self.agree) for _ in boxes]


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
    assert NEAR.threshold(die, slant) == expected


@pytest.mark.parametrize("meta, ok", [
    pytest.param(None, True, id="no metadata: none"),
    pytest.param({"within_deg": {"d20": 21}, "accept_threshold_by_die": {"d20": 0.88}}, True, id="angles and thresholds"),
    pytest.param({"within_deg": {}, "accept_threshold_by_die": {"d20": 0.88}}, False, id="a threshold with no angle"),
    pytest.param({"within_deg": {"d20": 21}, "accept_threshold_by_die": {"d20": 1.5}}, False, id="a threshold over 1"),
    pytest.param({"accept_threshold_by_die": {"d20": 0.88}}, False, id="no angles at all"),
])
def test_the_readers_metadata_is_taken_or_refused_plainly(meta, ok):
    if ok:
        near = NearVertical.from_meta(meta)
        assert near is None if meta is None else near.threshold("d20", 0.0) == 0.88
    else:
        with pytest.raises(DiceReaderError):
            NearVertical.from_meta(meta)


@pytest.mark.parametrize("view, box, p_leaning, agree, expected", [
    pytest.param(None, MIDDLE, 0.01, True, None, id="no camera: the reader's threshold refuses it"),
    pytest.param(CameraView(90.0), MIDDLE, 0.01, True, None, id="camera without the lean look: refused"),
    pytest.param(CameraView(90.0, lean=True), MIDDLE, 0.01, True, 14, id="camera and lean look, seen straight down: read"),
    pytest.param(CameraView(90.0, lean=True), OFF, 0.01, True, None, id="seen 25 degrees off vertical: refused"),
    pytest.param(CameraView(90.0, lean=True), MIDDLE, 0.9, True, "cocked", id="the lean look finds it leaning: cocked"),
    pytest.param(CameraView(90.0, lean=True), MIDDLE, 0.01, False, None, id="views disagree: not decided again"),
])
def test_a_faint_d20_seen_near_vertical_is_read_only_with_the_camera_and_the_lean_look(view, box, p_leaning, agree,
                                                                                       expected):
    rec = Recognizer(GivenBoxes([box]), _FaintD20(agree), view=view, lean=LeanLook(FixedLeaning(p_leaning), 0.5),
                     near=NEAR)
    (r,) = rec.read_frame(frame())
    if expected == "cocked":
        assert isinstance(r.outcome, Cocked)
    elif expected is None:
        assert r.value is None and isinstance(r.outcome, Unreadable)
    else:
        assert isinstance(r.outcome, Face) and r.value == expected and r.confidence == pytest.approx(0.9025, abs=1e-3)


def _rows(*specs):
    """Calibration readings: (die read, degrees off vertical, confidence, wrong, cocked, p(leaning))."""
    return [{"die": d, "slant": s, "conf": c, "wrong": w, "cocked": k, "p_leaning": p, "source": "synth-crops"}
            for d, s, c, w, k, p in specs]


RIGHT = [("d20", 5.0, float(c), False, False, 0.0) for c in np.linspace(0.6, 0.99, 200)]


@pytest.mark.parametrize("extra, lean, expected", [
    pytest.param([], None, 0.5, id="no wrong reading: the floor"),
    pytest.param([("d20", 5.0, 0.9, True, False, 0.0)], None, 0.901, id="a flat die read wrong at 0.90: just over it"),
    pytest.param([("d20", 30.0, 0.93, True, False, 0.0)], None, 0.5, id="a wrong die seen beyond the cone: not counted"),
    pytest.param([("d20", 5.0, 0.91, False, True, 0.0)], None, 0.911, id="a cocked die the release refuses: over it"),
    pytest.param([("d20", 5.0, 0.91, False, True, 0.9)], 0.5, 0.5, id="a cocked die the lean look calls cocked"),
    pytest.param([("d20", 5.0, 0.95, False, True, 0.0)], None, 0.5,
                 id="a cocked die the release already values: no more than it"),
    pytest.param([("d20", 5.0, 0.97, True, False, 0.0)], None, 0.94,
                 id="a wrong die the release lets through: its threshold kept"),
])
def test_the_calibration_lets_through_no_more_than_the_release_near_vertical(extra, lean, expected):
    pytest.importorskip("torch")  # calibrate_near replays rendered crops' angles with the training tools
    from models.train.calibrate_near import near_thresholds

    found = near_thresholds(_rows(*RIGHT, *extra), {"d20": 21.0}, {"d20": 0.94}, 0.001, 100, lean)
    assert found["d20"]["threshold"] == pytest.approx(expected, abs=1e-3)
    assert found["d20"]["wrong"] <= found["d20"]["wrong_at_release"]
    assert found["d20"]["cocked_valued"] <= found["d20"]["cocked_valued_at_release"]


def test_a_wrong_reading_the_share_would_allow_is_still_refused_where_the_release_refused_it():
    # 0.1% of 1,001 dice allows one wrong reading; the release's threshold refused it, so the lower
    # threshold must too
    pytest.importorskip("torch")
    from models.train.calibrate_near import near_thresholds

    right = [("d20", 5.0, float(c), False, False, 0.0) for c in np.linspace(0.6, 0.99, 1000)]
    found = near_thresholds(_rows(*right, ("d20", 5.0, 0.9, True, False, 0.0)), {"d20": 21.0}, {"d20": 0.94},
                            0.001, 100)
    assert found["d20"]["threshold"] == pytest.approx(0.901, abs=1e-3) and found["d20"]["wrong"] == 0
