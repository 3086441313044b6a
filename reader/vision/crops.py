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
    return _warped(image, box, angle, per_side, CROP)


def crop_views(image: np.ndarray, box, angles, per_side: float = CROP_PER_SIDE) -> list[np.ndarray]:
    """crop_die(image, box, a, per_side) for each of `angles`, one warp per angle modulo 90 degrees:
    the cut turns about pixel (CROP/2, CROP/2), so a cut one pixel wider holds the views a quarter
    turn or more from it, each a slice of its rot90 (equal to crop_die's to 1 grey level in a few
    pixels: rounding of cos 90). Four warps per die were a tenth of a 10-dice frame's time."""
    cuts: dict[float, np.ndarray] = {}
    views = []
    for a in angles:
        base = float(a) % 90.0
        if base not in cuts:
            cuts[base] = _warped(image, box, base, per_side, CROP + 1)
        views.append(np.rot90(cuts[base], round((float(a) - base) / 90.0) % 4)[:CROP, :CROP])
    return views


def _warped(image: np.ndarray, box, angle: float, per_side: float, size: int) -> np.ndarray:
    """The cut of crop_die, `size` pixels square (the extra pixels beyond CROP: crop_views)."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    side = max(x1 - x0, y1 - y0, 4.0) * per_side
    s = CROP / side
    M = cv2.getRotationMatrix2D((cx, cy), angle, s)
    M[0, 2] += CROP / 2 - cx
    M[1, 2] += CROP / 2 - cy
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, M, (size, size), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def to_tensor(crops: list[np.ndarray]) -> np.ndarray:
    """N x 3 x H x W float32 in [0, 1], BGR channel order (every model's input normalisation): the
    reader's crops, or the detector's one frame."""
    # each crop put channels-first while still bytes, into one array (crop_views' turned views are
    # strided views; np.stack then a float transpose of them took 3 ms for 40 crops, this 0.8)
    out = np.empty((len(crops), 3) + crops[0].shape[:2], np.uint8)
    for i, c in enumerate(crops):
        out[i] = c.transpose(2, 0, 1)
    arr = out.astype(np.float32)
    arr /= 255.0
    return arr
