"""What a look may be taught with (models.train.augment): the same die in another colour
(recolour), the same die out of focus (defocus), the same die small in a webcam's JPEG
(small_camera). If recolouring moved the marks, turned white pips
pink or swapped light and dark, or defocus changed the die's colours, a look taught with them would
learn dice that do not exist."""

import cv2
import numpy as np
import pytest

from models.train.augment import camera_fault, defocus, recolour, small_camera


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


def contrast(img: np.ndarray) -> float:
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(float)
    return abs(float(grey[PIP_MASK].mean() - grey[~PIP_MASK].mean()))


# each camera fault (augment.camera_fault), and what a look taught through it must have seen
FAULTS = {
    "coloured light turns a grey die another colour, the pips still dark on it":
        ("coloured light", lambda img, out: np.ptp(out[~PIP_MASK].reshape(-1, 3).mean(0)) > 15
         and contrast(out) > 0.5 * contrast(img)),
    "oversharpened rings the pips' rims with light and dark":
        ("oversharpened", lambda img, out: fine_detail(out) > 1.2 * fine_detail(img)),
    "hazy leaves the pips paler against the body":
        ("hazy", lambda img, out: contrast(out) < 0.8 * contrast(img) and contrast(out) > 0),
    "glare brightens a spot and leaves the rest":
        ("glare", lambda img, out: (out.astype(int) - img.astype(int)).max() > 100
         and ((out.astype(int) - img.astype(int)).max(axis=2) > 30).mean() < 0.5),
}


@pytest.mark.parametrize("fault, seen", FAULTS.values(), ids=FAULTS.keys())
def test_a_camera_fault_shows_the_die_as_that_camera_would(fault, seen):
    img = painted_die((120, 120, 120), (20, 20, 20))  # a grey die, black pips
    rng = np.random.default_rng(8)
    for _ in range(10):
        out = camera_fault(img, rng, fault)
        assert out.shape == img.shape and out.dtype == np.uint8
        assert seen(img, out), fault


def test_camera_faults_are_drawn_all_four_ways_and_an_unknown_one_is_named():
    img = painted_die((230, 230, 230), (20, 20, 20))
    outs = {camera_fault(img, np.random.default_rng(s)).tobytes() for s in range(40)}
    assert len(outs) == 40  # a strength drawn each time
    with pytest.raises(ValueError, match="no camera fault 'fog'"):
        camera_fault(img, np.random.default_rng(0), "fog")


FAULT_SHARES = {
    "none: the look sees the cuts as cut": (0.0, 0),
    "every cut through a fault": (1.0, 16),
}


@pytest.mark.parametrize("share, changed", FAULT_SHARES.values(), ids=FAULT_SHARES.keys())
def test_train_top_face_faults_show_the_look_a_fault_and_keep_the_cut_for_the_held_look(share, changed):
    # train_top_face --faults: the look is shown the fault, --hold's frozen look the cut as it was
    pytest.importorskip("torch")  # a training tool: skipped where the train extra is absent, as in CI
    from models.train.train_top_face import seen_through_faults

    cuts = np.stack([painted_die((120, 120, 120), (20, 20, 20))] * 16)
    kept = cuts.copy()
    seen = seen_through_faults(cuts, np.random.default_rng(9), share)
    assert seen.shape == cuts.shape and seen.dtype == np.uint8
    assert sum(not np.array_equal(a, b) for a, b in zip(seen, cuts)) == changed
    assert np.array_equal(cuts, kept)


def test_train_top_face_refuses_a_faults_share_outside_0_to_1(capsys):
    pytest.importorskip("torch")
    from models.train.train_top_face import main

    with pytest.raises(SystemExit):
        main(["--minutes", "1", "--out", "x.pt", "--faults", "1.5"])
    assert "--faults 1.5: give a share from 0 to 1" in capsys.readouterr().err
