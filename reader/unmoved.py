"""Dice that were not rolled: a reading whose patch of the tray looks the same as before the roll.

A die left in the tray from an earlier roll, or a mark on the tray that the detector takes for a
die (a hole, a printed pip), is in the frame before the throw and in the same place after it. It
is not part of this roll: counting it would make a banish see two dice ("roll again" forever) or,
worse, give a first-player total a die nobody threw. The test is deliberately simple and fails
safe: any real change at the spot (a die landing there, a bump of the camera, the light changing)
counts the die as rolled, so the worst a mistake here can do is keep a "roll again" the rules
would have said anyway.
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

SIDE = 16  # the spot is compared at this size: sensor noise averages out, a die's edge does not
CHANGED = 24  # a cell changed when any colour channel moved by more than this many levels
MAX_CHANGED_SHARE = 0.04  # a spot with fewer changed cells than this did not change


def _spot(bgr: np.ndarray, box, pad: float = 0.15) -> np.ndarray | None:
    h, w = bgr.shape[:2]
    x0, y0, x1, y1 = box
    px, py = (x1 - x0) * pad, (y1 - y0) * pad
    x0, y0 = int(max(0, x0 - px)), int(max(0, y0 - py))
    x1, y1 = int(min(w, x1 + px + 1)), int(min(h, y1 + py + 1))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    return cv2.resize(bgr[y0:y1, x0:x1], (SIDE, SIDE), interpolation=cv2.INTER_AREA).astype(np.int16)


def unmoved(boxes: Sequence[Sequence[float]], before: np.ndarray, after: np.ndarray) -> list[bool]:
    """For each box (x0, y0, x1, y1) in `after`: True when that spot of `before` looks the same.

    Colour, not grey: a red die on green felt can have the felt's brightness. `before` is a frame
    of the tray taken before the roll began; frames of another size (a camera that changed mode)
    are never compared: every die counts as rolled.
    """
    if before is None or before.shape != after.shape:
        return [False] * len(boxes)
    out = []
    for box in boxes:
        sa, sb = _spot(before, box), _spot(after, box)
        if sa is None or sb is None:
            out.append(False)
            continue
        changed = np.abs(sa - sb).reshape(SIDE, SIDE, -1).max(axis=2) > CHANGED
        out.append(float(changed.mean()) < MAX_CHANGED_SHARE)
    return out


def split_unmoved(readings: Sequence, before: np.ndarray | None, after: np.ndarray) -> tuple[list, list]:
    """(readings of dice that were rolled, readings of dice that were already there).

    With no frame from before the roll (the camera came back mid-roll, an old recording), every
    reading counts as rolled."""
    readings = list(readings)
    if before is None or not readings:
        return readings, []
    flags = unmoved([r.box.as_list() for r in readings],
                    before, after)
    return ([r for r, f in zip(readings, flags) if not f], [r for r, f in zip(readings, flags) if f])
