"""A D6 read as 1 must have a die's edge around its pip: a lone dot on a plain field is no die.

A pip of a white die on a pale desk, the die's outline lost to an exposure set too bright, is boxed
by the detector as if it were a die, and read as a sure 1 (0.97-0.99): desk-d6-matteo's holdout at
1.6x the light (`benchmarks/other_cameras.py`, "overexposed") read five 2s so and gave three phantoms
a 1 (models/reader.md, "Session 77"). A die showing 1 has its own edge around the pip, where the box
ends: the outline measured here is the mean gradient (grey levels a pixel) in the ring 0.75-1.15 of
the box's half-side about its centre, on a cut of 2.6 half-sides taken to 52 px as the looks' crops
are (reader.vision.crops.warp: a bigger die blurred first, as a camera with the cut's pixels would
see it), so a die's size in the picture does not change it. Measured on every D6 read 1
(work/s77/outline_warp.py): the right ones of nell, bartek and matteo's holdouts as photographed and
as twenty-three other cameras take them, crops-fickett, type-lurig and the renders (4,108, some counted
twice) have 9.9 or more but for three cameras: 3x closer 3.6 (the thinnest margin), tungsten 6.0, and
overexposed, where matteo's right 1s are white on white (0-3: no die to the eye either) and its lone
dots under 1. Refused under
OUTLINE_MIN, 3: matteo overexposed loses its five wrong 1s, three phantoms and fifteen right 1s, and
nothing else measured changes.
Pure: reads the picture about the boxes the reader gave.
"""

from __future__ import annotations

import cv2
import numpy as np

from reader.reading import DieReading, Face
from reader.vision.crops import warp

CUT = 52          # px of the resampled cut
CUT_HALF_SIDES = 2.6  # the cut's side, in the box's half-sides
RING = (0.75, 1.15)   # where the die's edge lies, in the box's half-sides from its centre
OUTLINE_MIN = 3.0     # grey levels a pixel of the cut
REASON = "a lone dot with no die's edge around it (overexposed, or a mark on the table?)"

_yy, _xx = np.mgrid[0:CUT, 0:CUT]
_DIST = np.maximum(np.abs(_xx - (CUT - 1) / 2), np.abs(_yy - (CUT - 1) / 2)) / (CUT / CUT_HALF_SIDES)
_RING_MASK = (_DIST >= RING[0]) & (_DIST <= RING[1])


def outline(image: np.ndarray, box) -> float:
    """The mean gradient in the ring where a die in `box` has its edge (module docstring)."""
    x0, y0, x1, y1 = box
    cx, cy, half = (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0) / 2
    k = CUT / (CUT_HALF_SIDES * half)
    m = np.float32([[k, 0, CUT / 2 - k * cx], [0, k, CUT / 2 - k * cy]])
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    cut = cv2.GaussianBlur(warp(grey, m, CUT).astype(np.float32), (0, 0), 1.0)  # the looks' own cut
    mag = np.hypot(cv2.Sobel(cut, cv2.CV_32F, 1, 0), cv2.Sobel(cut, cv2.CV_32F, 0, 1))
    return float(mag[_RING_MASK].mean())


def lone_dot(image: np.ndarray, reading: DieReading) -> bool:
    """Whether `reading` is a D6 given the value 1 with no die's edge around it."""
    return (reading.die == "d6" and isinstance(reading.outcome, Face) and reading.outcome.value == 1
            and outline(image, tuple(reading.box)) < OUTLINE_MIN)


def refuse_lone_dots(image: np.ndarray, readings: list[DieReading]) -> list[DieReading]:
    """The readings, each D6 read 1 with no edge around it made Unreadable (its confidence kept)."""
    return [r.refused(REASON) if lone_dot(image, r) else r
            for r in readings]


def refused_as_lone_dot(reading: DieReading) -> bool:
    """Whether `reading` was refused by this rule (its reason is this module's)."""
    return reading.reason == REASON


def setup_note(readings: list[DieReading]) -> str:
    """What the live loop tells the table, once, when a roll had a lone dot refused: the camera's
    exposure or something on the table, which no roll again will mend."""
    return ("a die read as 1 was refused: no die's edge around its pip (white dice washed out by an exposure "
            "set too bright, or a dot on the tray): lower the camera's exposure, or clear the tray")
