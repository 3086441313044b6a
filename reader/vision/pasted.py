"""A photo of one real die pasted into a photo of a real tray: a yardstick for dice the trays lack.

Why: the reader is scored on D10, D12 and D20 in trays, and no labeled real tray here holds a D20.
crops-fickett holds 2,720 real D20 photographed alone from above (evaluation only), and nell's and
bartek's trays hold real dice, tables and light. Pasted beside a tray's dice, at the size of the
tray's own dice, a photo of one die makes a frame with a real D20 in it, read as a tray frame is
read (a die among others, at the tray camera's size, a camera guessed from all of them). It is not a
photo of a D20 in that tray: its light and camera are the single photo's, and its square is cut to a
disc (DISC) blended into the tray over a few pixels. benchmarks/dice_in_trays.py scores such frames.

Pure: images and labels in, an image and its labels out; the caller picks the photos.
"""

from __future__ import annotations

import random

import cv2
import numpy as np

from reader.vision.realdata import LabeledDie

DISC = 0.47    # the pasted photo is cut to a disc this share of its side in radius
FEATHER = 2.5  # px over which the disc's edge blends into the tray
GAP = 6        # px kept clear between a pasted photo and any die
TRIES = 200


def _apart(a, b, gap: float) -> bool:
    return a[2] + gap < b[0] or b[2] + gap < a[0] or a[3] + gap < b[1] or b[3] + gap < a[1]


def paste_die(tray: np.ndarray, dice: list[LabeledDie], photo: np.ndarray, die: str, value: int | None,
              rng: random.Random, size_of_dice: float = 1.25, fill: float = 0.85
              ) -> tuple[np.ndarray, LabeledDie] | None:
    """`tray` with `photo` (one die, filling `fill` of its side) pasted where no labeled die is, near
    them, its die `size_of_dice` times the tray's median die; the new image and the pasted die's label
    (its box the die's part of the photo), or None where no free place was found. `dice` are the tray's
    labels so far (boxed; the pasted ones included, so a second paste keeps clear of the first)."""
    boxes = [d.box for d in dice if d.box is not None]
    if not boxes:
        return None
    h, w = tray.shape[:2]
    sides = [max(b[2] - b[0], b[3] - b[1]) for b in boxes]
    s = int(round(size_of_dice * float(np.median(sides)) / fill))
    if s < 8 or s >= min(h, w):
        return None
    lo_x, hi_x = max(0, min(b[0] for b in boxes) - s), min(w - s, max(b[2] for b in boxes))
    lo_y, hi_y = max(0, min(b[1] for b in boxes) - s), min(h - s, max(b[3] for b in boxes))
    if hi_x < lo_x or hi_y < lo_y:
        return None
    for _ in range(TRIES):
        x0, y0 = rng.randint(int(lo_x), int(hi_x)), rng.randint(int(lo_y), int(hi_y))
        square = (x0, y0, x0 + s, y0 + s)
        if all(_apart(square, b, GAP) for b in boxes):
            break
    else:
        return None
    crop = cv2.resize(photo, (s, s), interpolation=cv2.INTER_AREA if photo.shape[0] > s else cv2.INTER_CUBIC)
    yy, xx = np.mgrid[0:s, 0:s]
    dist = np.hypot(xx - (s - 1) / 2, yy - (s - 1) / 2)
    alpha = np.clip((DISC * s - dist) / FEATHER, 0, 1)[..., None]
    out = tray.copy()
    under = out[y0:y0 + s, x0:x0 + s].astype(np.float32)
    out[y0:y0 + s, x0:x0 + s] = (alpha * crop + (1 - alpha) * under).round().astype(np.uint8)
    m = (1 - fill) / 2 * s
    return out, LabeledDie(die, value, (x0 + m, y0 + m, x0 + s - m, y0 + s - m))
