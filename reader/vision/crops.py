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
    return warp(image, M, size)


def warp(image: np.ndarray, m: np.ndarray, size: int, border: int = cv2.BORDER_REPLICATE) -> np.ndarray:
    """cv2.warpAffine of `image` by `m` (a turn and a scale) to a `size` x `size` square, edges
    repeated; where `m` shrinks, the pixels it reaches are first blurred as a camera with that many
    fewer pixels would have taken them.

    warpAffine samples two-by-two pixels around each point whatever the scale (its INTER_AREA is
    bilinear), so a die more than about 70 px across in the frame, from a sharp or close camera,
    was cut from every second or third pixel: its sensor noise kept whole and fine texture folded
    into blotches that no crop the looks were taught on has. A camera whose pixels were `1/scale`
    times as wide would have averaged over that width (a box: variance w^2/12 for a width w), and the
    cut reads its pixels bilinearly at about their own pitch (a tent: w^2/6), w^2/4 in all. Variances
    add, so from this frame's pixels (w = 1) the blur still to add has a standard deviation of
    sqrt(1/scale^2 - 1) / 2. A Gaussian of that spread, not an area resize: the blur moves with the
    image, so the cut still changes smoothly with the box and the turn (an area resize's cells start
    where the cut's corner falls, and a hair's move of the box jumped them by a pixel).
    models/reader.md, "Session 54"."""
    scale = float(np.hypot(m[0, 0], m[1, 0]))
    if scale >= 1.0:
        return _plain(image, m, size, border)
    block = int(1.0 / scale) // 2
    if block >= 2:
        return _warp_blocks(image, m, size, border, block)
    sigma = float(np.sqrt((1.0 / scale) ** 2 - 1.0) / 2.0)
    # wide enough that the blur's own edge is not in what the cut reads
    reached = _reached(image, m, size, int(np.ceil(3 * sigma)) + 2, 1, border)
    if reached is None:  # nothing of the image in reach: warp as it is
        return _plain(image, m, size, border)
    region, x0, y0 = reached
    blurred = cv2.GaussianBlur(region, (0, 0), sigma, borderType=border)
    on_region = np.asarray(m, np.float64).copy()
    on_region[:, 2] += on_region[:, :2] @ np.array([x0, y0], np.float64)
    return _plain(blurred, on_region, size, border)


def _warp_blocks(image: np.ndarray, m: np.ndarray, size: int, border: int, block: int) -> np.ndarray:
    """warp() of a cut that shrinks `2 * block` times or more: the frame's pixels reached first averaged
    `block` x `block`, in blocks laid from the frame's corner (so the same for every box: the cut still
    moves smoothly), then warp() of what is left, a shrink of 2-4x. A Gaussian of the whole spread
    over a 4000x3000 photo read as one die took 4.4 s a cut, this 0.37 s; a 1200 px die 48 -> 4 ms."""
    # the blur left after the blocks reaches 3 spreads of under 2 blocks; a block spare
    reached = _reached(image, m, size, block * 8, block, border)
    if reached is None:
        return _plain(image, m, size, border)
    region, x0, y0 = reached
    small = cv2.resize(region, (region.shape[1] // block, region.shape[0] // block), interpolation=cv2.INTER_AREA)
    # a block's pixel u covers frame pixels x0 + block * u .. + block - 1: its middle at x0 + block * u + (block - 1) / 2
    on_small = np.asarray(m, np.float64).copy()
    on_small[:, 2] += on_small[:, :2] @ np.array([x0 + (block - 1) / 2, y0 + (block - 1) / 2])
    on_small[:, :2] *= block
    return warp(small, on_small, size, border)


def _plain(image: np.ndarray, m: np.ndarray, size: int, border: int) -> np.ndarray:
    """warpAffine's bilinear cut alone: right where `m` does not shrink, or once the blur is done."""
    return cv2.warpAffine(image, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=border)


def _reached(image: np.ndarray, m: np.ndarray, size: int, margin: int, align: int, border: int):
    """(the pixels a `size` square cut by `m` reads, `margin` more around, its corner x0, y0 on multiples
    of `align`; x0; y0), beyond the image's edge filled as `border` fills it; None where the square
    reaches nothing of the image."""
    inv = cv2.invertAffineTransform(np.asarray(m, np.float64))
    corners = np.array([[0, 0, 1], [size, 0, 1], [0, size, 1], [size, size, 1]], np.float64) @ inv.T
    x0, y0 = np.floor((corners.min(axis=0) - margin) / align).astype(int) * align
    x1, y1 = np.ceil((corners.max(axis=0) + margin) / align).astype(int) * align
    h, w = image.shape[:2]
    if x1 <= 0 or y1 <= 0 or x0 >= w or y0 >= h:
        return None
    region = image[max(0, y0):min(h, y1), max(0, x0):min(w, x1)]
    pads = (max(0, -y0), max(0, y1 - h), max(0, -x0), max(0, x1 - w))
    if any(pads):
        region = cv2.copyMakeBorder(region, *pads, border)
    return region, int(x0), int(y0)


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
