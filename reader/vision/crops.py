"""How a die is cut out of a frame for the reader network: the same convention in training and use.

A square of side CROP_PER_SIDE x the longer side of the die's box, centred on the box, resized to
CROP x CROP. At 96 px a D20's numerals stay legible where 64 px lost them.
"""

from __future__ import annotations

import cv2
import numpy as np

CROP = 96
CROP_PER_SIDE = 1.35


def crop_die(image: np.ndarray, box, angle: float = 0.0, per_side: float = CROP_PER_SIDE) -> np.ndarray:
    """CROP x CROP BGR crop of the die in `box` (x0, y0, x1, y1), rotated by `angle` degrees.

    `per_side`: crop side / box side; a model states its own in its metadata ("crop_per_side").
    """
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    side = max(x1 - x0, y1 - y0, 4.0) * per_side
    s = CROP / side
    M = cv2.getRotationMatrix2D((cx, cy), angle, s)
    M[0, 2] += CROP / 2 - cx
    M[1, 2] += CROP / 2 - cy
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, M, (CROP, CROP), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def to_tensor(crops: list[np.ndarray]) -> np.ndarray:
    """N x 3 x CROP x CROP float32 in [0, 1], BGR channel order (the models' input normalisation)."""
    arr = np.stack(crops).astype(np.float32) / 255.0
    return np.ascontiguousarray(arr.transpose(0, 3, 1, 2))
