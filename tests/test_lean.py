"""The lean look (reader/vision/lean.py): with the camera known, a read die it finds leaning gets no
value. No network is needed: a stand-in model says "leaning" when the die's second face is not at
the bottom of its crop, which is where a flat die seen obliquely shows its side toward the
camera's foot. The committed lean look on the committed stills is tested in test_recognizer.py."""

from __future__ import annotations

import numpy as np
import pytest

from reader.errors import DiceReaderError
from reader.reading import Box, Cocked, DieReading, Face, Unreadable
from reader.vision.faces import FaceEvidence, FaceReader, StateCheck
from reader.vision.camera_guess import MIN_DICE
from reader.vision.lean import LeanLook
from reader.vision.recognizer import Recognizer
from reader.vision.viewing import CameraView
from tray_fakes import GivenBoxes

W, H = 1280, 720
VIEW = CameraView(90.0)  # straight down: the camera's foot is the frame's middle


class _SideFaceModel:
    """p(leaning) 0.9 unless the crop's red (the die's second face) lies in its lower part."""

    meta = {"lean_threshold": 0.5}

    def __init__(self):
        self.slants = []

    def run(self, x, slant):
        self.slants.append(slant[:, 0].tolist())
        red = (x[:, 2] > 0.5) & (x[:, 1] < 0.3)  # BGR
        rows = np.arange(x.shape[2])[None, :, None]
        low = np.array([(r * rows).sum() / max(r.sum(), 1) > x.shape[2] * 0.6 for r in red])
        p = np.where(low, 0.1, 0.9)
        return [np.stack([np.log(1 - p), np.log(p)], 1)]


def frame_with_die(cx, cy, face_toward):
    """A grey frame, a white die at (cx, cy) and its red second face on the side (dx, dy)."""
    img = np.full((H, W, 3), 90, np.uint8)
    img[cy - 30:cy + 30, cx - 30:cx + 30] = 255
    dx, dy = face_toward
    x0, y0 = cx + dx * 30, cy + dy * 30
    img[min(y0, cy + dy * 45) - 12 * (dy == 0): max(y0, cy + dy * 45) + 12 * (dy == 0) + 1,
        min(x0, cx + dx * 45) - 12 * (dx == 0): max(x0, cx + dx * 45) + 12 * (dx == 0) + 1] = (40, 40, 220)
    return img


def read(cx, cy, value=4):
    return DieReading("d6", Box(cx - 46, cy - 46, cx + 46, cy + 46), Face(value, 0.97))


@pytest.mark.parametrize("cx, cy, face_toward, leaning", [
    pytest.param(1000, 360, (-1, 0), False, id="right of the foot, its side toward it: flat"),
    pytest.param(1000, 360, (1, 0), True, id="right of the foot, its second face away from it: leaning"),
    pytest.param(640, 80, (0, 1), False, id="above the foot, its side toward it: flat"),
    pytest.param(640, 80, (0, -1), True, id="above the foot, its second face away: leaning"),
    pytest.param(200, 640, (1, -1), False, id="lower left, its side toward the foot: flat"),
])
def test_a_die_showing_its_second_face_away_from_the_cameras_foot_is_cocked(cx, cy, face_toward, leaning):
    look = LeanLook(_SideFaceModel(), 0.5)
    out = look.refuse_leaning(frame_with_die(cx, cy, face_toward), [read(cx, cy)], VIEW)
    assert isinstance(out[0].outcome, Cocked) is leaning
    assert (out[0].value is None) is leaning


def test_only_valued_readings_are_looked_at_and_told_their_angle():
    model = _SideFaceModel()
    look = LeanLook(model, 0.5)
    unread = DieReading("d20", Box(100, 100, 160, 160), Unreadable("low confidence", 0.5))
    readings = [read(1000, 360), unread, read(640, 80, 6)]
    out = look.refuse_leaning(frame_with_die(1000, 360, (1, 0)), readings, VIEW)
    assert out[1] is unread
    (slants,) = model.slants
    assert slants == pytest.approx([VIEW.slant(1000, 360, W, H), VIEW.slant(640, 80, W, H)], abs=1e-3)


def test_a_reading_already_judged_with_its_p_leaning_is_not_looked_at_again():
    # the seen look (reader.vision.seen) decides its dice with the lean look's p(leaning) in the confidence
    model = _SideFaceModel()
    readings = [read(1000, 360), read(640, 80, 6)]
    out = LeanLook(model, 0.5).refuse_leaning(frame_with_die(1000, 360, (1, 0)), readings, VIEW, judged=frozenset({0}))
    assert out[0] is readings[0]
    (slants,) = model.slants
    assert slants == pytest.approx([VIEW.slant(640, 80, W, H)], abs=1e-3)


def test_nothing_read_nothing_asked():
    model = _SideFaceModel()
    assert LeanLook(model, 0.5).refuse_leaning(np.zeros((H, W, 3), np.uint8), [], VIEW) == []
    assert model.slants == []


def test_asking_for_the_lean_look_without_its_model_is_refused_plainly():
    from reader.errors import DiceReaderError
    from reader.vision.recognizer import Recognizer

    class _NoDice:
        def find(self, image):
            raise AssertionError("the frame was read before the set-up was checked")

    rec = Recognizer(_NoDice(), faces=None, view=CameraView(70.0, lean=True), lean=None)
    with pytest.raises(DiceReaderError, match="reader_lean.onnx"):
        rec.read_frame(np.zeros((H, W, 3), np.uint8))


@pytest.mark.parametrize("angle", [30.0, -75.0, 160.0])
def test_the_lean_look_is_taught_on_crops_turned_as_it_reads_them(angle):
    # train_lean's real dice: a context patch turned toward the camera's foot, then cut as every
    # training crop is, must be the crop reader.vision.lean cuts from the frame at that turn
    pytest.importorskip("torch")
    from models.train.reader_data import BOX_IN_CTX, CTX, context_patch, cut
    from reader.vision.crops import CROP_PER_SIDE, crop_die

    img = frame_with_die(700, 300, (1, -1))
    box = (654, 254, 746, 346)
    taught = cut(context_patch(img, box, angle=angle), CTX * BOX_IN_CTX * CROP_PER_SIDE, 0.0, 0.0, 0.0)
    read = crop_die(img, box, angle)
    assert np.abs(taught.astype(int) - read.astype(int)).mean() < 3


def cocked(cx, cy):
    return DieReading("d6", Box(cx - 46, cy - 46, cx + 46, cy + 46), Cocked(0.7))


def test_only_the_cocked_dice_it_finds_flat_are_named_for_a_second_reading():
    # two dice the reader called cocked: one shows its side toward the camera's foot (flat seen
    # obliquely), one its second face away from it (leaning); and a die given a value
    img = frame_with_die(1000, 360, (-1, 0))
    img[200:260, 300:360] = 255
    img[215:245, 285:300] = (40, 40, 220)  # the second die's red face on its left, away from the foot
    readings = [cocked(1000, 360), cocked(330, 230), read(640, 600), None]  # None: the reader saw no die there
    assert LeanLook(_SideFaceModel(), 0.5).flat_among(img, readings, VIEW) == {0: pytest.approx(0.1)}


class _SureOfAFour(FaceReader):
    """A stand-in reader: every die a D6 showing 4 (0.99), which its state head calls cocked (0.7)."""

    def __init__(self):
        super().__init__(_ReaderMeta())

    def evidence(self, image, boxes, check_state=True, shifts=None):
        tp = np.array([0.0, 0.99, 0.0, 0.0, 0.0, 0.01, 0.0])
        fp = np.array([0.002, 0.002, 0.002, 0.99, 0.002, 0.002])
        return [FaceEvidence(tp, fp, 0.7, True) for _ in boxes]

    def likeliest_types(self, image, boxes, wider=1.0, angles=()):
        return ["d6"] * len(boxes)  # a D6 in a wider cut too (reader.vision.wider)


class _ReaderMeta:
    meta = {"types": ["d4", "d6", "d8", "d10", "d12", "d20", "none"], "accept_threshold": 0.85,
            "cocked_threshold": 0.4}


@pytest.mark.parametrize("face_toward, read_again", [
    pytest.param((-1, 0), True, id="its side toward the camera's foot: flat, read"),
    pytest.param((1, 0), False, id="its second face away from the foot: leaning, still cocked"),
])
def test_with_the_lean_look_a_flat_die_the_reader_took_for_cocked_is_read(face_toward, read_again):
    box = (954.0, 314.0, 1046.0, 406.0)
    rec = Recognizer(GivenBoxes([box]), _SureOfAFour(), view=CameraView(90.0, lean=True),
                     lean=LeanLook(_SideFaceModel(), 0.5))
    (r,) = rec.read_frame(frame_with_die(1000, 360, face_toward))
    if read_again:
        assert (r.die, r.value) == ("d6", 4) and r.confidence == pytest.approx(0.99 * 0.99 * 0.9, abs=1e-3)
    else:
        assert isinstance(r.outcome, Cocked) and r.value is None
    rec.view = None  # without the camera the reader's state head is heard alone
    (r,) = rec.read_frame(frame_with_die(1000, 360, face_toward))
    assert isinstance(r.outcome, Cocked)



class _CountingStateNet:
    """A stand-in state check that doubts every die (p(cocked) 0.5)."""

    meta: dict = {}

    def __init__(self):
        self.seen = 0

    def __call__(self, x):
        self.seen += len(x)
        n = len(x)
        return [np.zeros((n, 7), np.float32), np.zeros((n, 20), np.float32), np.zeros((n, 2), np.float32)]


class _FlatFour:
    """A stand-in whole look: every crop a D6 showing 4, flat."""

    meta = {"types": ["d4", "d6", "d8", "d10", "d12", "d20", "none"], "accept_threshold": 0.5, "cocked_threshold": 0.4}

    def __call__(self, x):
        n = len(x)
        t = np.full((n, 7), -9.0, np.float32)
        t[:, 1] = 9.0
        f = np.full((n, 20), -9.0, np.float32)
        f[:, 3] = 9.0
        s = np.tile(np.array([[4.0, -4.0]], np.float32), (n, 1))
        return [t, f, s]


@pytest.mark.parametrize("view, asked", [
    pytest.param(None, True, id="no camera: the state check is asked, and refuses"),
    pytest.param(CameraView(90.0), True, id="a camera, no lean look: asked, refuses"),
    pytest.param(CameraView(90.0, lean=True), False, id="the lean look judges leaning instead: not asked, read"),
])
def test_the_state_check_is_asked_unless_the_lean_look_judges(view, asked):
    net = _CountingStateNet()
    faces = FaceReader(_FlatFour(), state_check=StateCheck(net, 0.2))
    rec = Recognizer(GivenBoxes([(954.0, 314.0, 1046.0, 406.0)]), faces, view=view, lean=LeanLook(_SideFaceModel(), 0.5))
    (r,) = rec.read_frame(frame_with_die(1000, 360, (-1, 0)))  # flat, to the lean look
    assert r.value == (None if asked else 4)
    assert (net.seen > 0) is asked


# Under many set-ups at once (a camera guess: LeanLook.p_leaning_under), with the committed look and its head.
GUESSED = (CameraView(75.0, 0.0, True), CameraView(60.0, 25.0, True, 90.0), CameraView(90.0, 35.0, True, 180.0))
BOXES = [(100.0, 80.0, 160.0, 140.0), (600.0, 330.0, 680.0, 410.0), (1150.0, 600.0, 1220.0, 670.0)]


@pytest.fixture(scope="module")
def committed_lean():
    lean = Recognizer.load().lean
    assert lean.head is not None  # models/reader_lean_head.onnx, the look's own head
    return lean


def test_under_many_set_ups_the_head_apart_gives_what_the_whole_look_gives(committed_lean):
    # turned to the exact angle (a step of a thousandth of a degree), features and head apart are the look
    img = frame_with_die(640, 370, (0, 1))
    exact = LeanLook(committed_lean.model, committed_lean.threshold, committed_lean.per_side, committed_lean.head,
                     turn_step=0.001)
    want = np.stack([committed_lean.p_leaning(img, BOXES, v) for v in GUESSED])
    assert np.allclose(exact.p_leaning_under(img, BOXES, GUESSED), want, rtol=0.02, atol=1e-6)
    # ... and so does the look told the step for one call (the lean guard's coarser guess asks its own)
    assert np.allclose(committed_lean.p_leaning_under(img, BOXES, GUESSED, turn_step=0.001), want, rtol=0.02, atol=1e-6)
    # at the run-time step each crop is turned to the nearest 10 degrees: near, not the same
    assert committed_lean.p_leaning_under(img, BOXES, GUESSED).shape == (3, 3)


class _OtherHead:
    """A head that is not the look's own: every die flat, sure."""

    def run(self, features, slant):
        return [np.tile(np.array([[9.0, -9.0]], np.float32), (len(features), 1))]


def test_a_head_that_is_not_the_looks_own_is_refused_with_a_message(committed_lean):
    # checked once, when the look is put together with it, not on every frame
    with pytest.raises(DiceReaderError, match="lean-split"):
        LeanLook(committed_lean.model, committed_lean.threshold, committed_lean.per_side, _OtherHead())


@pytest.mark.parametrize("dice, asked", [
    pytest.param(MIN_DICE - 1, False, id="too few dice to tell the camera: the lean look is not asked"),
    pytest.param(MIN_DICE, True, id="enough dice: asked under the set-ups"),
])
def test_a_frame_guessed_alone_asks_the_lean_look_only_when_its_dice_can_tell(dice, asked):
    model = _SideFaceModel()
    boxes = [(100.0 + 200 * i, 314.0, 192.0 + 200 * i, 406.0) for i in range(dice)]
    rec = Recognizer(GivenBoxes(boxes), FaceReader(_FlatFour()), lean=LeanLook(model, 0.5))
    readings, guess = rec.read_frame_guessing(frame_with_die(1000, 360, (-1, 0)))
    assert len(readings) == dice
    assert (guess is not None) == asked and bool(model.slants) == asked


@pytest.mark.parametrize("name, degrees", [
    pytest.param("d20_d20_top_007.jpg", 0.0, id="d20 from above"),
    pytest.param("d8_d8_color0158.jpg", 0.0, id="d8 on the colour sheet, from above"),
    pytest.param("d20_d20_off-angle_0126.jpg", 45.0, id="d20 from 45 degrees"),
    pytest.param("d6_d6_45angle_0244.jpg", 45.0, id="d6 from 45 degrees"),
    pytest.param("d20_d20_wood0281.jpg", None, id="on wood, from the side at no told angle"),
])
def test_the_lean_look_takes_a_lurig_photo_at_the_angle_its_name_tells(name, degrees):
    # a photo from 45 degrees taught as one from above would teach the look that such dice lie flat
    # seen straight down, the very dice reader.vision.above must refuse
    pytest.importorskip("torch")
    from models.train.train_lean import lurig_view

    assert lurig_view(name) == degrees
