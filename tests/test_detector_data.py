"""The detector's training patches (models.train.detector_data.sample): the die sides it is taught.

Taught on from v3 with big oblique dice alone, the detector lost the small dice of a far camera
(session 38's v4 candidate). `small` keeps a share of patches at a far camera's sides; if it did not
reach the targets, a detector taught with it would lose them again.
"""

import numpy as np
import pytest

pytest.importorskip("torch")  # detector_data takes its helpers from the training modules

from models.train.detector_data import SMALL, STRIDE, Frame, sample  # noqa: E402

# three 40 px dice in a plain 400 px frame: every die's side in a patch is the drawn side
FRAME = Frame(np.full((400, 400, 3), 90, np.uint8),
              np.array([[50, 50, 90, 90], [200, 180, 240, 220], [300, 300, 340, 340]], np.float32),
              np.ones(3, bool), "test")


def taught_sides(small: float, n: int = 60) -> np.ndarray:
    rng = np.random.default_rng(7)
    sides = []
    for _ in range(n):
        _, _, size, _, mask = sample(FRAME, rng, 256, small=small)
        cells = mask == 1
        sides.extend(np.exp(size[0][cells]) * STRIDE)
    return np.array(sides)


@pytest.mark.parametrize("small, lo, hi", [
    pytest.param(0.0, 14.0, 110.0, id="by default dice 14-110 px"),
    pytest.param(1.0, *SMALL, id="small: dice as a far camera shows them"),
])
def test_the_patches_teach_dice_of_the_sides_asked(small, lo, hi):
    sides = taught_sides(small)
    assert len(sides) > 20
    assert sides.min() >= lo - 0.5 and sides.max() <= hi + 0.5


def test_a_share_of_small_patches_mixes_both():
    sides = taught_sides(0.5, n=120)
    assert (sides < 14).any() and (sides > SMALL[1]).any()
