"""The views the reader is given must be the crops it was taught on. crop_views cuts one crop per
angle modulo 90 degrees and turns it in memory; were the turn or its one-pixel offset wrong, every
die would be read from crops shifted or mirrored against training, and read worse with no error
anywhere (models/reader.md, "Session 38")."""

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
        # the warp's rounding of cos 90 may move a pixel by one grey level; a shift moves most by far more
        assert diff.max() <= 1, f"angle {a}: off by up to {diff.max()}"
        assert (diff > 0).mean() < 0.01, f"angle {a}: {(diff > 0).mean():.1%} of pixels differ"


def test_tensor_is_channels_first_in_the_unit_range_in_crop_order():
    img = frame(1)
    crops = crop_views(img, (100.0, 50.0, 140.0, 90.0), (0.0, 90.0)) + [crop_die(img, (10.0, 10.0, 40.0, 40.0))]
    x = to_tensor(crops)
    assert x.shape == (3, 3, CROP, CROP) and x.dtype == np.float32 and x.flags.c_contiguous
    for i, c in enumerate(crops):
        np.testing.assert_array_equal(x[i], c.transpose(2, 0, 1).astype(np.float32) / 255.0)
