"""What a look may be taught with (models.train.augment): the same die in another colour
(recolour), the same die out of focus (defocus), the same die small in a webcam's JPEG
(small_camera). If recolouring moved the marks, turned white pips
pink or swapped light and dark, or defocus changed the die's colours, a look taught with them would
learn dice that do not exist."""

import cv2
import numpy as np
import pytest

from models.train.augment import defocus, recolour, small_camera


def painted_die(body, pips) -> np.ndarray:
    """A 64 px die face, BGR body colour, three pips of another colour on the diagonal."""
    img = np.full((64, 64, 3), body, np.uint8)
    for c in (16, 32, 48):
        cv2.circle(img, (c, c), 6, pips, -1)
    return img


PIP_MASK = cv2.cvtColor(painted_die((0, 0, 0), (255, 255, 255)), cv2.COLOR_BGR2GRAY) > 0

CASES = {
    "white pips on a red die": ((40, 40, 200), (255, 255, 255)),
    "black pips on a yellow die": ((40, 220, 230), (0, 0, 0)),
    "red pips on a dark blue die": ((90, 30, 20), (40, 40, 210)),
}


@pytest.mark.parametrize("body, pips", CASES.values(), ids=CASES.keys())
def test_recolouring_keeps_the_marks_where_they_are_and_light_stays_light(body, pips):
    img = painted_die(body, pips)
    rng = np.random.default_rng(3)
    for _ in range(30):
        out = recolour(img, rng)
        assert out.shape == img.shape and out.dtype == np.uint8
        grey_in = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)[..., 2].astype(int)
        grey_out = cv2.cvtColor(out, cv2.COLOR_BGR2HSV)[..., 2].astype(int)
        # the pips are where they were, and as much lighter (or darker) than the body as before
        assert len({tuple(p) for p in out[PIP_MASK]}) == 1
        assert len({tuple(p) for p in out[~PIP_MASK]}) == 1
        assert np.abs(grey_out - grey_in).max() <= 3


def test_white_and_black_stay_white_and_black():
    img = painted_die((0, 0, 0), (255, 255, 255))
    rng = np.random.default_rng(4)
    for _ in range(20):
        out = recolour(img, rng)
        assert (out[PIP_MASK] == 255).all() and (out[~PIP_MASK] == 0).all()


def test_a_die_comes_out_in_many_colours():
    img = painted_die((40, 40, 200), (255, 255, 255))
    rng = np.random.default_rng(5)
    hues = {int(cv2.cvtColor(recolour(img, rng), cv2.COLOR_BGR2HSV)[0, 0, 0]) // 15 for _ in range(60)}
    assert len(hues) >= 6  # of 12 bins of 30 degrees of hue; the die as it came would fill one


def test_out_of_focus_softens_the_pips_and_keeps_the_die_s_colours():
    img = painted_die((40, 40, 200), (255, 255, 255))
    rng = np.random.default_rng(6)
    for _ in range(10):
        out = defocus(img, rng)
        edge = lambda im: np.abs(np.diff(im.astype(int), axis=1)).max()
        assert edge(out) < edge(img) / 2  # a pip's rim spread over several pixels
        assert np.abs(out.reshape(-1, 3).mean(0) - img.reshape(-1, 3).mean(0)).max() < 3


def test_the_whole_look_s_crops_can_be_taught_out_of_focus():
    # train_reader --blur: the same die's crops, with and without, over the same draws of turn and size
    pytest.importorskip("torch")  # reader_data takes the class names from the networks' module
    from models.train.reader_data import CTX, make_crop

    patch = cv2.resize(painted_die((40, 40, 200), (255, 255, 255)), (CTX, CTX), interpolation=cv2.INTER_NEAREST)
    edge = lambda im: np.abs(np.diff(cv2.cvtColor(im, cv2.COLOR_BGR2GRAY).astype(int), axis=1)).max()  # noqa: E731
    sharp = [edge(make_crop(patch, np.random.default_rng(s))) for s in range(12)]
    soft = [edge(make_crop(patch, np.random.default_rng(s), blur_p=1.0)) for s in range(12)]
    assert np.median(soft) < np.median(sharp) / 2


def fine_detail(img: np.ndarray) -> float:
    """Mean step between neighbouring pixels across a row: high for one-pixel stripes."""
    return float(np.abs(np.diff(img.astype(int), axis=1)).mean())


def test_a_small_camera_loses_what_a_small_die_cannot_show_and_keeps_its_colours():
    # a 96 px crop with one-pixel stripes: no die 24-72 px across in a JPEG stream shows them
    img = np.full((96, 96, 3), (40, 40, 200), np.uint8)
    img[:, ::2] = 255
    rng = np.random.default_rng(7)
    for _ in range(10):
        out = small_camera(img, rng, per_side=1.15)
        assert out.shape == img.shape and out.dtype == np.uint8
        assert fine_detail(out) < fine_detail(img) / 4
        assert np.abs(out.reshape(-1, 3).mean(0) - img.reshape(-1, 3).mean(0)).max() < 12


def test_the_d6_look_s_crops_can_be_taught_as_a_small_camera_sees_them():
    # train_top_face --small-camera: the same die's cuts, with and without, over the same draws
    pytest.importorskip("torch")  # a training tool: skipped where the train extra is absent, as in CI
    from models.train.reader_data import CTX
    from models.train.train_top_face import top_crop

    patch = np.full((CTX, CTX, 3), (40, 40, 200), np.uint8)
    patch[:, ::2] = 255
    sharp = [fine_detail(top_crop(patch, np.random.default_rng(s), per_side=1.15)) for s in range(12)]
    small = [fine_detail(top_crop(patch, np.random.default_rng(s), per_side=1.15, small_p=1.0)) for s in range(12)]
    assert np.median(small) < np.median(sharp) / 2
