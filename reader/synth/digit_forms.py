"""Makers' forms of single digits, drawn over a font's own: a footed 1, a flat-topped 3, a crossed 7.

Why: the D20 looks misread real D20 mostly by a few digit forms that none of the renderer's base
fonts draws (models/reader.md, session 49). On type-lurig's D20 read from above by the camera
path's look, 31 of its 53 wrong faces are a 13 read 12 (12: the maker's 3 has a flat top, like a
2's) and a 1 read 7 (11) or 19 (8: its 1 has a long flag, like a 7's top); crops-fickett's maker's
1 is read 7 too. These forms are those digits as the moulds cut them, made from the font's own
glyph so that its weight and height stay the font's.

A flagged 1 is not among them. Drawn two ways (a short, flat flag; a long, steep one as the maker's),
it made the 1 -> 7 confusion worse in both controlled CPU pairs (type-lurig's 1 read 7: 15 and 11
without it, 21 and 22 with it; crops-fickett's 1 read 19: 7 and 7, 17 and 16). The flat-topped 3
took lurig's 13 -> 12 from 10 and 9 to 2 and 6 (models/reader.md, session 49).

Each form is a function of one digit's ink mask (uint8, 0/255, cut to the glyph's box) and returns
the new mask, perhaps wider. `vary_forms` picks a die's forms from its own random stream, so a seed
lays out the same dice in the same poses with or without them.
"""

from __future__ import annotations

import cv2
import numpy as np

# per die: the chance that its moulds cut each form
FORM_CHANCE = {"foot1": 0.35, "flat3": 0.4, "cross7": 0.15}
# the space between two digits of a number drawn in forms, x the tallest digit (the base font's own)
DIGIT_GAP = 0.1


def stroke_width(mask: np.ndarray) -> float:
    """A glyph's stroke width in pixels: twice the deepest point of its ink from the ink's edge."""
    ink = (mask > 127).astype(np.uint8)
    if not ink.any():
        return 1.0
    return float(2.0 * cv2.distanceTransform(ink, cv2.DIST_L2, 3).max())


def middle_x(mask: np.ndarray) -> int:
    """Where a glyph's ink crosses its middle row (a 1's stem, a 7's diagonal): the column the
    foot or cross bar is centred on."""
    h, w = mask.shape
    ink = np.nonzero(mask[h // 2] > 127)[0]
    return int(ink.mean()) if ink.size else w // 2


def foot1(mask: np.ndarray) -> np.ndarray:
    """A 1 standing on a foot: a bar under its stem, about half its height wide."""
    h, w = mask.shape
    st = stroke_width(mask)
    half = int(round(0.27 * h))
    cx = middle_x(mask)
    left, right = max(0, half - cx), max(0, cx + half - (w - 1))  # the foot may be wider than the 1
    m = cv2.copyMakeBorder(mask, 0, 0, left, right, cv2.BORDER_CONSTANT, value=0)
    cx += left
    t = max(1, int(round(0.6 * st)))
    cv2.rectangle(m, (cx - half, h - t), (cx + half, h - 1), 255, thickness=-1)
    return m


def flat3(mask: np.ndarray) -> np.ndarray:
    """A 3 with a flat top: a bar and a stroke down to the middle in place of the upper bowl."""
    h, w = mask.shape
    st = stroke_width(mask)
    cut = int(round(0.44 * h))
    m = mask.copy()
    m[:cut] = 0
    t = max(1, int(round(0.9 * st)))
    cv2.rectangle(m, (int(0.08 * w), 0), (w - 1, t - 1), 255, thickness=-1)
    cv2.line(m, (int(w - 0.6 * st), int(t / 2)), (int(0.38 * w), int(0.5 * h)), 255,
             thickness=t, lineType=cv2.LINE_AA)
    return m


def cross7(mask: np.ndarray) -> np.ndarray:
    """A 7 crossed at half its height, as it is written in much of Europe."""
    h, w = mask.shape
    st = stroke_width(mask)
    cx = middle_x(mask)
    half = int(round(0.26 * w))
    t = max(1, int(round(0.6 * st)))
    m = mask.copy()
    top, bottom = h // 2 - t // 2, h // 2 + t - t // 2
    cv2.rectangle(m, (max(0, cx - half), top), (min(w - 1, cx + half), bottom), 255, thickness=-1)
    return m


FORMS = {"foot1": ("1", foot1), "flat3": ("3", flat3), "cross7": ("7", cross7)}


def reform(char: str, mask: np.ndarray, forms: tuple) -> np.ndarray:
    """`mask` (one digit's ink, cut to its box) in the forms of `forms` that are this digit's."""
    for name in forms:
        digit, form = FORMS[name]
        if digit == char:
            mask = form(mask)
    return mask


def vary_forms(scene: dict, rng) -> None:
    """Give every numeral die in `scene` its makers' digit forms, each drawn with its FORM_CHANCE,
    in the base fonts: its atlas gets no reshaped glyphs (`glyphs.vary_glyphs`'s place) and the
    forms after it."""
    for d in scene["dice"]:
        atlas = list(d["material"]["atlas"])
        if atlas[1] == "pips" or atlas[0] == "d4":
            continue
        forms = tuple(name for name, chance in FORM_CHANCE.items() if rng.random() < chance)
        d["material"]["atlas"] = atlas[:8] + [(), forms]


def compose(text: str, font, max_w: float, forms: tuple) -> np.ndarray:
    """`text` drawn digit by digit in `font`, each digit in its forms, DIGIT_GAP x the tallest digit
    apart, squeezed across to `max_w` at most: the ink mask cut to the numeral's box."""
    from PIL import Image, ImageDraw

    measure = ImageDraw.Draw(Image.new("L", (1, 1)))
    pieces = []
    for ch in text:
        x0, y0, x1, y1 = measure.textbbox((0, 0), ch, font=font)
        img = Image.new("L", (x1 - x0 + 4, y1 - y0 + 4), 0)
        ImageDraw.Draw(img).text((2 - x0, 2 - y0), ch, fill=255, font=font)
        m = np.asarray(img, np.uint8)
        ys, xs = np.nonzero(m > 0)
        m = m[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1] if ys.size else m
        pieces.append(reform(ch, np.ascontiguousarray(m), forms))
    height = max(p.shape[0] for p in pieces)
    space = int(round(DIGIT_GAP * height))
    strip = np.zeros((height, sum(p.shape[1] for p in pieces) + space * (len(pieces) - 1)), np.uint8)
    x = 0
    for p in pieces:
        where = (slice(height - p.shape[0], height), slice(x, x + p.shape[1]))
        strip[where] = np.maximum(strip[where], p)
        x += p.shape[1] + space
    if strip.shape[1] > max_w:
        strip = cv2.resize(strip, (int(max_w), height), interpolation=cv2.INTER_AREA)
    return strip
