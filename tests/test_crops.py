"""The views the reader is given must be the crops it was taught on. crop_views cuts one crop per
angle modulo 90 degrees and turns it in memory; were the turn or its one-pixel offset wrong, every
die would be read from crops shifted or mirrored against training, and read worse with no error
anywhere (models/reader.md, "Session 38")."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from reader.vision.crops import CROP, crop_die, crop_views, to_tensor


def frame(seed: int = 0) -> np.ndarray:
    """A frame with detail at every scale: no two neighbouring pixels alike, so a one-pixel shift or a
    mirror shows as a large difference."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (180, 320, 3), dtype=np.uint8)


# (angles, box, per_side): crop_views must give crop_die's view for each angle
VIEW_CASES = {
    "the reader's quarter turns": ((0.0, 90.0, 180.0, 270.0), (100.3, 50.2, 140.9, 88.1), 1.35),
    "the second looks' 45 and 225": ((45.0, 225.0), (40.0, 30.0, 75.5, 70.0), 0.7),
    "the wider cut's thirds": ((0.0, 120.0, 240.0), (200.0, 90.0, 230.0, 118.0), 1.35 * 1.3),
    "negative and over a full turn": ((-90.0, 450.0, 30.0), (150.0, 60.0, 190.0, 100.0), 1.15),
    "a die at the frame's corner": ((0.0, 90.0, 180.0, 270.0), (-8.0, -5.0, 20.0, 25.0), 1.35),
    "a die smaller than the crop (enlarged)": ((0.0, 90.0, 180.0, 270.0), (60.0, 60.0, 72.0, 70.0), 1.35),
}


@pytest.mark.parametrize("angles, box, per_side", VIEW_CASES.values(), ids=VIEW_CASES.keys())
def test_each_view_is_the_crop_cut_at_its_angle(angles, box, per_side):
    img = frame()
    views = crop_views(img, box, angles, per_side)
    assert len(views) == len(angles)
    for a, v in zip(angles, views):
        want = crop_die(img, box, a, per_side).astype(int)
        assert v.shape == (CROP, CROP, 3)
        diff = np.abs(v.astype(int) - want)
        # The two cuts may place a sample up to 1/32 pixel apart (warpAffine's fixed-point positions,
        # rounded from cos 90 differently by each OpenCV release): on this frame's noise that is at
        # most 255/32 = 8 grey levels in a pixel and 0.06 on average (OpenCV 4.12-4.14; 5.0 and 5.1
        # 1 and 0.01). A one-pixel shift moves the mean by 48 grey levels, a mirror by 57.
        assert diff.max() <= 8, f"angle {a}: off by up to {diff.max()}"
        assert diff.mean() < 0.5, f"angle {a}: off by {diff.mean():.2f} grey levels on average"


def test_tensor_is_channels_first_in_the_unit_range_in_crop_order():
    img = frame(1)
    crops = crop_views(img, (100.0, 50.0, 140.0, 90.0), (0.0, 90.0)) + [crop_die(img, (10.0, 10.0, 40.0, 40.0))]
    x = to_tensor(crops)
    assert x.shape == (3, 3, CROP, CROP) and x.dtype == np.float32 and x.flags.c_contiguous
    for i, c in enumerate(crops):
        np.testing.assert_array_equal(x[i], c.transpose(2, 0, 1).astype(np.float32) / 255.0)


# --- a die bigger than the crop: blurred as a camera with the crop's pixels sees it, then cut (crops.warp) ---------------------------

STILL = Path(__file__).resolve().parents[1] / "fixtures" / "stills"


def smooth_frame(h: int = 400, w: int = 600) -> np.ndarray:
    """Only slow changes (periods of 40 px and more): any two ways of shrinking it agree, so where
    they do not, the cut has moved."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    return np.stack([127 + 100 * np.sin(xx / 23.0) * np.cos(yy / 17.0),
                     127 + 90 * np.sin((xx + yy) / 31.0),
                     127 + 80 * np.cos((xx - 2 * yy) / 41.0)], -1).astype(np.uint8)


# (angle, box, per_side): cuts that shrink the frame 1.5-5x
SHRINK_CASES = {
    "the reader's upright view": (0.0, (200.3, 100.2, 380.9, 280.1), 1.35),
    "a turned view": (30.0, (200.0, 100.0, 380.0, 280.0), 1.35),
    "the second looks' 45": (45.0, (150.0, 80.0, 450.0, 380.0), 0.7),
    "a die past the frame's corner": (90.0, (-40.0, -30.0, 160.0, 170.0), 1.35),
    "a die filling the frame (read --single; averaged in blocks first)": (0.0, (0.0, 0.0, 600.0, 400.0), 1.35),
}


@pytest.mark.parametrize("angle, box, per_side", SHRINK_CASES.values(), ids=SHRINK_CASES.keys())
def test_a_shrinking_cut_stays_where_the_plain_warp_puts_it(angle, box, per_side):
    img = smooth_frame()
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    s = CROP / (max(x1 - x0, y1 - y0) * per_side)
    m = cv2.getRotationMatrix2D((cx, cy), angle, s)
    m[0, 2] += CROP / 2 - cx
    m[1, 2] += CROP / 2 - cy
    plain = cv2.warpAffine(img, m, (CROP, CROP), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    cut = crop_die(img, box, angle, per_side)
    diff = np.abs(cut.astype(int) - plain)
    # a cut half a crop pixel off differs by 2-5 grey levels on average here; the blur alone by under 1
    assert diff.mean() < 1.0, f"{diff.mean():.2f} grey levels apart"


def test_a_die_from_a_sharp_camera_is_cut_as_from_the_camera_the_models_know():
    """A 640x360 rendered tray frame blown up 6x (3840x2160) with sensor noise of 20 grey levels, as a
    4K camera over the same tray takes it: each die's cut matches its cut from the frame itself.
    Sampled from every second to fourth pixel, the cut kept the noise whole (11-12 grey levels from the
    frame's cut); blurred first as that camera would, 5-7."""
    line = json.loads((STILL / "labels.jsonl").read_text().splitlines()[1])
    small = cv2.imread(str(STILL / line["image"]))
    big = cv2.resize(small, None, fx=6, fy=6, interpolation=cv2.INTER_CUBIC).astype(np.float32)
    big += np.random.default_rng(4).normal(0, 20, big.shape).astype(np.float32)
    big = np.clip(big, 0, 255).astype(np.uint8)
    assert len(line["dice"]) >= 5
    for d in line["dice"]:
        box = d["box"]
        near = crop_die(small, box)
        far = crop_die(big, [v * 6 for v in box])
        diff = np.abs(far.astype(int) - near).mean()
        assert diff < 8.0, f"{d['die']} at {box}: {diff:.1f} grey levels from its cut in the frame itself"


def test_a_one_pixel_pattern_is_averaged_to_grey_not_folded_into_stripes():
    """Felt, cloth and pips' edges have detail finer than a shrinking cut's pixels."""
    yy, xx = np.mgrid[0:500, 0:500]
    checks = np.repeat((((xx + yy) % 2) * 255).astype(np.uint8)[..., None], 3, axis=2)
    cut = crop_die(checks, (100.0, 100.0, 400.0, 400.0))
    assert abs(cut.mean() - 127.5) < 3 and cut.std() < 10, f"mean {cut.mean():.1f}, spread {cut.std():.1f}"
