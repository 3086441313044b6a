"""A strong colour cast taken out of a frame before its dice are read.

Why: a camera's white balance fails under coloured light (a feature table's blue stage light, a warm
lamp with the camera's balance fixed for daylight), and the looks learnt colour only within about 15%
a channel (models/train/augment.py). Under the blue stage light of reader.vision.other_cameras the
release read 4-6 points fewer of the real holdouts' dice, under tungsten light 1.5-1.6 points fewer
(models/reader.md, "Session 80").

How: the light's colour is the colour of the brightest pixels of the dice the detector found, those
that did not clip (white bodies, pips and numerals, highlights). Not the frame's mean colour: to the
mean, a green or red tray cloth is a cast, and correcting it so cost right readings (grey world,
session 71); nor the frame's brightest pixels: a tray's pale wooden rim is a warm cast to them
(rendered trays: a third of the frames corrected for none, against a tenth from the dice); nor one
die's: its own colour, a copper die's on a beige cloth, is a warm light to it (MIN_DICE). Only the part
of the cast beyond what the looks learnt (DEAD_ZONE) is taken out: a frame within it is read exactly
as it came, so a camera that balances well is read as before.
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np

# the part of a channel's gain, in log, the looks learnt to read through: log(1.16), as the training's
# colour noise (augment.py, 15% a channel); a cast within it is left alone
DEAD_ZONE = 0.15
# the share of the dice' pixels, the brightest, taken to show the light's colour
BRIGHTEST = 0.02
# a pixel with a channel over this is clipped: its colour is not the light's (under a coloured light a
# white die clips in one channel; overexposed, in all three)
CLIPPED = 245
# under this brightness (0-255) the brightest unclipped pixels are no white: a dim frame's noise, or
# a die's coloured body beside its clipped marks
DARKEST = 100.0
# the fewest unclipped pixels an estimate is made from
MIN_PIXELS = 50
# over this share of the brightest pixels clipped in every channel, the whites are blown out
MOST_BLOWN = 0.5
# the fewest dice a cast is judged by: one die's own colour, a copper or a yellow die's, is a cast to
# this estimate, on a warm cloth as under a warm light (session 80: a photo of one die is read as it came)
MIN_DICE = 2
# each die's box is sampled about this many pixels to a side (a 120 px die every third pixel): the
# estimate costs about a millisecond for ten dice
SAMPLES_PER_SIDE = 40


def dice_pixels(image: np.ndarray, boxes: Iterable) -> np.ndarray:
    """The pixels (N x 3, BGR) inside the boxes (x0, y0, x1, y1), cut to the image, each box sampled
    about SAMPLES_PER_SIDE pixels to a side (a pip keeps several)."""
    h, w = image.shape[:2]
    parts = []
    for x0, y0, x1, y1 in boxes:
        x0, y0 = max(0, int(x0)), max(0, int(y0))
        x1, y1 = min(w, int(np.ceil(x1))), min(h, int(np.ceil(y1)))
        if x1 > x0 and y1 > y0:
            step = max(1, min(x1 - x0, y1 - y0) // SAMPLES_PER_SIDE)
            parts.append(image[y0:y1:step, x0:x1:step].reshape(-1, 3))
    return np.concatenate(parts) if parts else np.empty((0, 3), np.uint8)


def light_gains(pixels: np.ndarray) -> np.ndarray:
    """The gains (B, G, R; their mean 1 at the brightest pixels) that make the light white, from the
    dice' pixels; all 1 where they cannot tell: the whites blown out (most of the brightest pixels
    clipped in every channel: what is left unclipped is a die's coloured side, not a white), too few
    unclipped, or the brightest of them too dark to be a white."""
    px = np.asarray(pixels, dtype=np.float32).reshape(-1, 3)
    if len(px) < MIN_PIXELS:
        return np.ones(3)
    b, g, r = px[:, 0], px[:, 1], px[:, 2]  # column by column: numpy is slow across a row of three
    brightness = b + g + r
    brightest = brightness >= np.quantile(brightness, 1.0 - BRIGHTEST)
    blown = np.minimum(np.minimum(b, g), r) > CLIPPED
    if blown[brightest].mean() > MOST_BLOWN:
        return np.ones(3)
    unclipped = np.maximum(np.maximum(b, g), r) <= CLIPPED
    if unclipped.sum() < MIN_PIXELS:
        return np.ones(3)
    lit = brightness[unclipped]
    top = px[unclipped][lit >= np.quantile(lit, 1.0 - BRIGHTEST)]
    colour = top.mean(axis=0).astype(np.float64)
    if colour.mean() < DARKEST or colour.min() <= 0:
        return np.ones(3)
    return colour.mean() / colour


def beyond_dead_zone(gains: np.ndarray, dead_zone: float = DEAD_ZONE) -> np.ndarray:
    """The part of each gain beyond the dead zone (in log): 1 for a channel within it."""
    log = np.log(np.asarray(gains, dtype=np.float64))
    return np.exp(np.sign(log) * np.maximum(np.abs(log) - dead_zone, 0.0))


def cast_of(image: np.ndarray, boxes: Iterable) -> np.ndarray | None:
    """The gains that take the cast beyond the dead zone out, judged by the dice in `boxes`; None where
    there is no such cast, or fewer than MIN_DICE dice to judge it by (the frame is read as it came)."""
    boxes = [tuple(b) for b in boxes]
    if len(boxes) < MIN_DICE:
        return None
    gains = beyond_dead_zone(light_gains(dice_pixels(image, boxes)))
    return None if np.all(gains == 1.0) else gains


def taken_out(image: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """The frame under white light: each channel times its gain, 8 bits again (saturated)."""
    return cv2.transform(image, np.diag(gains))
