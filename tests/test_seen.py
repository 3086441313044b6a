"""The seen look (reader/vision/seen.py): with the camera described and the lean look asked for, a
numeral die is read again from its crop turned so that the camera's foot is below it. No network
is needed: a stand-in reads 17 when the die's red mark (its top face, beyond the face that looks at
the camera) lies in the upper part of its crop, and 3 otherwise, which is what a crop turned the
wrong way would show. The committed look on the committed stills is measured by `dice-reader
evaluate --truth-cameras --lean-look` (models/reader_seen.md)."""

from __future__ import annotations

import numpy as np
import pytest

from reader.reading import Box, Cocked, DieReading, Face, Unreadable
from reader.vision.faces import PRINTED
from reader.vision.lean import LeanLook
from reader.vision.recognizer import Recognizer
from reader.vision.seen import SeenLook
from reader.vision.viewing import STEEP_LIMITS, CameraView
from tray_fakes import FixedD20Reader, FixedLeaning, GivenBoxes

W, H = 1280, 720
VIEW = CameraView(90.0, lean=True)  # straight down: the camera's foot is the frame's middle


class _MarkModel:
    """Face 17 (p 0.97) when the crop's red lies in its upper part, else face 3 (p 0.97)."""

    meta: dict = {}

    def __init__(self):
        self.crops = 0

    def __call__(self, x):
        self.crops += len(x)
        red = (x[:, 2] > 0.5) & (x[:, 1] < 0.3)  # BGR
        rows = np.arange(x.shape[2])[None, :, None]
        high = np.array([(r * rows).sum() / max(r.sum(), 1) < x.shape[2] * 0.4 for r in red])
        f = np.full((len(x), 20), np.log(0.03 / 19), np.float32)  # the rest share 0.03
        f[high, 16] = np.log(0.97)
        f[~high, 2] = np.log(0.97)
        return [np.zeros((len(x), 7), np.float32), f, np.zeros((len(x), 2), np.float32)]


def frame_with_d20(cx, cy):
    """A grey frame, a white die at (cx, cy) and its red top face on the side away from the foot."""
    img = np.full((H, W, 3), 90, np.uint8)
    img[cy - 30:cy + 30, cx - 30:cx + 30] = 255
    fx, fy = W / 2, H / 2
    d = np.array([cx - fx, cy - fy], float)
    d = d / max(np.linalg.norm(d), 1e-9)
    mx, my = int(cx + d[0] * 18), int(cy + d[1] * 18)
    img[my - 8:my + 8, mx - 8:mx + 8] = (40, 40, 220)
    return img


def reading(cx, cy, outcome, die="d20"):
    return DieReading(die, Box(cx - 40, cy - 40, cx + 40, cy + 40), outcome, 0.98)


def lean(p=0.05):
    return LeanLook(FixedLeaning(p), 0.5)


def look(model=None, **kw):
    return SeenLook(model or _MarkModel(), frozenset({"d20", "d12"}), {"d20": 0.9, "d12": 0.9}, **kw)


# a die right of the foot (1100, 360) is seen some 35 degrees off vertical by a 90-degree camera
@pytest.mark.parametrize("cx, cy", [
    pytest.param(1100, 360, id="right of the foot"),
    pytest.param(640, 60, id="above the foot"),
    pytest.param(150, 650, id="lower left"),
])
def test_a_die_seen_obliquely_is_read_from_the_cameras_side(cx, cy):
    # the reader, turning the crop every way, read the neighbour (3) at 0.95: the seen look's crop
    # has the foot below, the top face above, and reads 17
    found = [reading(cx, cy, Face(3, 0.95))]
    (r,) = look().read_again(frame_with_d20(cx, cy), found, VIEW, lean())
    assert (r.die, r.value) == ("d20", 17)
    assert r.confidence == pytest.approx(0.98 * 0.97 * 0.95, abs=0.005)


@pytest.mark.parametrize("outcome, die, kw, unchanged", [
    pytest.param(Cocked(0.8), "d20", {}, True, id="a die called cocked stays cocked"),
    pytest.param(Face(4, 0.99), "d6", {}, True, id="a die type it was not taught is left alone"),
    pytest.param(Face(3, 0.95), "d20", {"from_deg": {"d20": 40.0}}, True, id="seen nearer vertical than from_deg: the reader's"),
    pytest.param(Face(3, 0.95), "d20", {"limit": 30.0}, True, id="beyond its limit: left to the steep limit"),
    pytest.param(Face(3, 0.95), "d20", {"from_deg": {"d12": 40.0}}, False, id="another type's from_deg: read"),
    pytest.param(Unreadable("low confidence", 0.5), "d20", {}, False, id="a die the reader refused is read"),
    pytest.param(Unreadable(PRINTED, 0.99), "d20", {}, True, id="a find refused as print stays refused"),
])
def test_which_dice_it_reads_again(outcome, die, kw, unchanged):
    model = _MarkModel()
    found = [reading(1100, 360, outcome, die), None]  # None: the reader saw no die there
    out = look(model, **kw).read_again(frame_with_d20(1100, 360), found, VIEW, lean())
    assert out[1] is None
    if unchanged:
        assert out[0] is found[0] and model.crops == 0
    else:
        assert out[0].value == 17 and model.crops == 1


def test_under_its_threshold_a_die_is_refused_with_the_reason():
    seen = SeenLook(_MarkModel(), frozenset({"d20"}), {"d20": 0.99})
    (r,) = seen.read_again(frame_with_d20(1100, 360), [reading(1100, 360, Face(3, 0.995))], VIEW, lean())
    assert r.value is None and isinstance(r.outcome, Unreadable)
    assert "camera's side" in r.outcome.reason


def test_its_confidence_takes_the_lean_looks_doubt_not_the_readers():
    seen = look()
    (sure,) = seen.read_again(frame_with_d20(1100, 360), [reading(1100, 360, Face(3, 0.95))], VIEW, lean(0.0))
    (doubt,) = seen.read_again(frame_with_d20(1100, 360), [reading(1100, 360, Face(3, 0.95))], VIEW, lean(0.3))
    assert sure.value == 17 and sure.confidence == pytest.approx(0.98 * 0.97, abs=0.005)
    assert doubt.value is None


def test_a_die_the_lean_look_finds_leaning_is_cocked_not_merely_unread():
    (r,) = look().read_again(frame_with_d20(1100, 360), [reading(1100, 360, Face(3, 0.95))], VIEW, lean(0.8))
    assert isinstance(r.outcome, Cocked) and r.value is None and r.state == "cocked"


def test_its_limit_replaces_the_steep_limit_of_its_types():
    limits = look(limit=50.0).limits(STEEP_LIMITS)
    assert limits["d20"] == limits["d12"] == 50.0
    assert limits["d10"] == STEEP_LIMITS["d10"] and limits["d6"] == STEEP_LIMITS["d6"]


def _SureNeighbour():
    """A stand-in reader: every die a D20 showing 3 (0.96), flat."""
    return FixedD20Reader(3, 0.96)


@pytest.mark.parametrize("view, value", [
    pytest.param(None, 3, id="no camera: the reader's reading"),
    pytest.param(CameraView(90.0), None, id="camera without the looks: beyond the D20's steep limit, refused"),
    pytest.param(VIEW, 17, id="camera and the looks: read from the camera's side"),
])
def test_the_recognizer_asks_the_seen_look_only_with_the_looks_asked_for(view, value):
    box = (1060.0, 320.0, 1140.0, 400.0)
    rec = Recognizer(GivenBoxes([box]), _SureNeighbour(), view=view, lean=lean(0.01), seen=look())
    (r,) = rec.read_frame(frame_with_d20(1100, 360))
    assert r.value == value


@pytest.mark.parametrize("bad, n, max_wrong, expected", [
    pytest.param([], 100, 0.001, 0.5, id="no wrong reading: the floor"),
    pytest.param([0.9], 100, 0.001, 0.901, id="one wrong, none allowed: just over it"),
    pytest.param([0.9, 0.95], 1000, 0.001, 0.901, id="one of a thousand allowed: over the second surest"),
    pytest.param([0.3], 100, 0.001, 0.5, id="a wrong reading under the floor: the floor"),
])
def test_the_seen_looks_threshold_lets_through_at_most_its_share_of_wrong_readings(bad, n, max_wrong, expected):
    pytest.importorskip("torch")  # calibrate_seen replays rendered crops' angles with the training tools
    from models.train.calibrate_seen import lowest_safe

    conf = np.concatenate([np.array(bad), np.linspace(0.2, 0.99, n - len(bad))])
    wrong = np.arange(n) < len(bad)
    thr = lowest_safe(conf, wrong, max_wrong)
    assert thr == pytest.approx(expected, abs=1e-3)
    assert int((wrong & (conf >= thr)).sum()) <= int(max_wrong * n)


@pytest.mark.parametrize("turn", [8.0, None])
def test_the_seen_look_is_taught_on_crops_that_keep_the_cameras_foot_below(turn):
    # a crop whose camera's foot is below (a red mark at the bottom): turned at most 8 degrees it
    # stays below; a real die, turned any way, is found elsewhere too
    pytest.importorskip("torch")
    from models.train.reader_data import CTX
    from models.train.train_top_face import top_crop

    patch = np.full((CTX, CTX, 3), 90, np.uint8)
    patch[CTX // 2 - 30:CTX // 2 + 30, CTX // 2 - 30:CTX // 2 + 30] = 255
    patch[CTX // 2 + 18:CTX // 2 + 30, CTX // 2 - 8:CTX // 2 + 8] = (40, 40, 220)
    rng = np.random.default_rng(0)
    lows = []
    for _ in range(40):
        c = top_crop(patch, rng, per_side=1.35, turn=turn).astype(int)
        red = (c[:, :, 2] - c[:, :, 1]) > 60  # redder than green, whatever the photometric noise did
        if red.sum() > 50:  # not a crop the photometric noise turned grey
            lows.append(np.nonzero(red)[0].mean() > c.shape[0] * 0.55)
    assert len(lows) >= 30
    assert all(lows) if turn is not None else not all(lows)


def test_an_uncalibrated_seen_look_is_refused_plainly():
    from reader.errors import DiceReaderError

    class _Uncalibrated(_MarkModel):
        meta = {"dice": ["d20"], "seen": {"per_side": 1.35}}

    with pytest.raises(DiceReaderError, match="calibrate"):
        SeenLook.from_model(_Uncalibrated())
