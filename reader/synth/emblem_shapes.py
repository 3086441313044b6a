"""Emblems drawn from a number: many shapes that are neither a digit nor a pip, for makers' logos.

Why: the D6 look taught the six drawn emblems (logos.KINDS) as no face refused those six and read
emblems it never saw nearly as often wrong as before; it learnt six shapes, not "a logo is no face"
(models/reader.md, "Session 75"). A look that is to learn the latter has to see logos of shapes
without end: each number here draws one (`shape`), from parts real makers' logos are made of:
stars and polygrams, lobed outlines with a cut-out, curved strokes, capital letters, crests
mirrored about their axis, polygons, often inside a ring or a shield.

What it must never draw is a face the reader is right to read: a lone round disc is a pip D6's 1, and
so is any compact solid shape at 15 px (a square, a triangle, a star of short points); a lone
straight bar is a 1, a lone ring a 0 or an O. `shape` draws again (from the same number, a stream
further on) while what it drew is one of those (`_pip_or_bar`), and its letters leave out those
that are digits to a reader, upright or turned (O I L S Z B G D Q U T E). Some shapes will still
look like a digit at a tray camera's 15 px (a curve may make a 6): those are the logos no reader
tells from a number, and why the README advises plain dice at a top table.
"""

from __future__ import annotations

import itertools

import cv2
import numpy as np

# capital letters that are no digit's twin, upright or turned as a die turns them (O 0, I/L 1, S 5, Z 2,
# B 8, G 6, D/Q/U 0, and turned over: T a footed 1, E a 3)
LETTERS = "ACFHKMNPRVWXY"
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
         cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX)
ENCLOSED_SHARE = 0.35  # of the shapes drawn inside a ring, a polygon or a shield (strokes always are)


def shape(number: int, size: int) -> np.ndarray:
    """The ink mask (size x size, uint8, 0 to 255) of the emblem `number` draws (the same number and size,
    the same emblem), drawn at 4x and shrunk, its ink within the tile's middle 80%."""
    for attempt in itertools.count():  # 731 of 1,000 numbers pass at the first draw, none needs over six
        big = _draw(np.random.default_rng([int(number), 31, attempt]), size * 4)
        out = cv2.resize(big, (size, size), interpolation=cv2.INTER_AREA)
        if not _pip_or_bar(out):
            break
    out.setflags(write=False)
    return out


def _draw(rng: np.random.Generator, big: int) -> np.ndarray:
    img = np.zeros((big, big), np.uint8)
    c = big / 2
    r = big * 0.36
    line = max(2, int(big * rng.uniform(0.035, 0.08)))
    part = tuple(PARTS)[int(rng.integers(len(PARTS)))]
    # strokes alone may cross as a 7's or a 5's do; in a ring they are a monogram, as makers draw them
    if part == "strokes" or rng.random() < ENCLOSED_SHARE:
        _enclosure(img, rng, c, r, line)
        r *= 0.62
    PARTS[part](img, rng, c, r, line)
    return img


def unit_points(c: float, r: float, xy) -> list[np.ndarray]:
    """Points given about a unit circle (x, y in -1..1) as OpenCV's polygon of pixels, centred at c
    with radius r (logos.emblem draws its six the same way)."""
    return [np.int32([(c + x * r, c + y * r) for x, y in xy])]


def _ngon(n: int, turn: float, radius: float = 1.0) -> list[tuple[float, float]]:
    """A regular n-gon's corners about the unit circle, turned by `turn` radians."""
    return [(radius * np.cos(turn + 2 * np.pi * i / n), radius * np.sin(turn + 2 * np.pi * i / n)) for i in range(n)]


def _enclosure(img, rng, c, r, line) -> None:
    kind = int(rng.integers(3))
    if kind == 0:
        cv2.circle(img, (int(c), int(c)), int(r), 255, line, lineType=cv2.LINE_AA)
    elif kind == 1:
        n = int(rng.integers(5, 9))
        a0 = rng.uniform(0, 2 * np.pi)
        cv2.polylines(img, unit_points(c, r, _ngon(n, a0)), True, 255, line, lineType=cv2.LINE_AA)
    else:  # a shield
        cv2.polylines(img, unit_points(c, r, [(-0.8, -0.85), (0.8, -0.85), (0.8, 0.1), (0.0, 1.0), (-0.8, 0.1)]),
                      True, 255, line, lineType=cv2.LINE_AA)


def _star(img, rng, c, r, line) -> None:
    """A star or polygram of 3-9 points, filled or outlined, perhaps squat."""
    n = int(rng.integers(3, 10))
    inner = rng.uniform(0.3, 0.7)
    a0, sx = rng.uniform(0, 2 * np.pi), rng.uniform(0.75, 1.0)
    xy = [((1.0 if i % 2 == 0 else inner) * np.cos(a0 + np.pi * i / n) * sx,
           (1.0 if i % 2 == 0 else inner) * np.sin(a0 + np.pi * i / n)) for i in range(2 * n)]
    if rng.random() < 0.6:
        cv2.fillPoly(img, unit_points(c, r, xy), 255, lineType=cv2.LINE_AA)
    else:
        cv2.polylines(img, unit_points(c, r, xy), True, 255, line, lineType=cv2.LINE_AA)


def _lobed(img, rng, c, r, line) -> None:
    """A closed outline of 2-6 lobes, filled, with a cut-out (a hole or slits) so it is no pip."""
    t = np.linspace(0, 2 * np.pi, 180, endpoint=False)
    rad = np.ones_like(t)
    for k in range(2, 7):
        rad += rng.uniform(0, 0.28) * np.cos(k * t + rng.uniform(0, 2 * np.pi))
    rad = 0.55 + 0.45 * rad / rad.max()
    cv2.fillPoly(img, unit_points(c, r, np.stack([rad * np.cos(t), rad * np.sin(t)], 1)), 255, lineType=cv2.LINE_AA)
    if rng.random() < 0.5:  # a hole, off the middle
        hx, hy = rng.uniform(-0.25, 0.25, 2)
        cv2.ellipse(img, (int(c + hx * r), int(c + hy * r)), (int(r * rng.uniform(0.15, 0.3)),
                    int(r * rng.uniform(0.15, 0.3))), float(rng.uniform(0, 180)), 0, 360, 0, -1, cv2.LINE_AA)
    else:  # slits across it
        for _ in range(int(rng.integers(1, 4))):
            a = rng.uniform(0, np.pi)
            o = rng.uniform(-0.4, 0.4)
            p0 = (c + r * (o * np.sin(a) - np.cos(a)), c + r * (-o * np.cos(a) - np.sin(a)))
            p1 = (c + r * (o * np.sin(a) + np.cos(a)), c + r * (-o * np.cos(a) + np.sin(a)))
            cv2.line(img, tuple(int(v) for v in p0), tuple(int(v) for v in p1), 0, max(2, line // 2), cv2.LINE_AA)


def _strokes(img, rng, c, r, line) -> None:
    """3-4 long curved strokes (quadratic curves through random points), a swoosh's or a knot's look;
    long, so that no stroke is a pip, and several, so that they are seldom a digit's two or three."""
    for _ in range(int(rng.integers(3, 5))):
        p = rng.uniform(-1, 1, (3, 2))
        while np.hypot(*(p[2] - p[0])) < 1.0:
            p[2] = rng.uniform(-1, 1, 2)
        s = np.linspace(0, 1, 40)[:, None]
        curve = (1 - s) ** 2 * p[0] + 2 * s * (1 - s) * p[1] + s ** 2 * p[2]
        cv2.polylines(img, unit_points(c, r, curve), False, 255, line, lineType=cv2.LINE_AA)


def _letters(img, rng, c, r, line) -> None:
    """One to three capital letters that are no digit's twin, in one of OpenCV's stroke fonts."""
    text = "".join(LETTERS[int(i)] for i in rng.integers(len(LETTERS), size=int(rng.integers(1, 4))))
    font = FONTS[int(rng.integers(len(FONTS)))]
    thick = max(2, int(line * rng.uniform(0.6, 1.2)))
    (w, h), _ = cv2.getTextSize(text, font, 1.0, thick)
    scale = 1.8 * r / max(w, h * 1.2)
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    cv2.putText(img, text, (int(c - w / 2), int(c + h / 2)), font, scale, 255, thick, cv2.LINE_AA)


def _crest(img, rng, c, r, line) -> None:
    """A random outline mirrored about the upright axis: an animal's, a wing's or a tree's look."""
    n = int(rng.integers(4, 9))
    ys = np.sort(rng.uniform(-1, 1, n))
    xs = rng.uniform(0.1, 1.0, n)
    half = list(zip(xs, ys))
    xy = [(0.0, -1.0)] + half + [(0.0, 1.0)] + [(-x, y) for x, y in reversed(half)]
    cv2.fillPoly(img, unit_points(c, r, xy), 255, lineType=cv2.LINE_AA)
    if rng.random() < 0.6:  # an eye or a notch
        cv2.circle(img, (int(c), int(c + r * rng.uniform(-0.5, 0.2))), int(r * rng.uniform(0.1, 0.2)), 0, -1,
                   cv2.LINE_AA)


def _polygon(img, rng, c, r, line) -> None:
    """A polygon outline holding a smaller filled polygon turned against it."""
    n, m = int(rng.integers(3, 9)), int(rng.integers(3, 7))
    a0, a1 = rng.uniform(0, 2 * np.pi, 2)
    cv2.polylines(img, unit_points(c, r, _ngon(n, a0)), True, 255, line, lineType=cv2.LINE_AA)
    cv2.fillPoly(img, unit_points(c, r, _ngon(m, a1, rng.uniform(0.3, 0.5))), 255, lineType=cv2.LINE_AA)


def _pip_or_bar(mask: np.ndarray) -> bool:
    """Is the drawing, softened as a small die's face is, what a reader is right to read: one compact
    solid blob (a pip), one straight bar (a 1), one plain ring (a 0), or next to no ink?"""
    # as a tray camera sees it: notches, slits and eyes under a 60th of the tile are gone at 15 px
    soft = cv2.GaussianBlur(mask, (0, 0), mask.shape[0] / 60)
    ink = (soft > 127).astype(np.uint8)
    if ink.mean() < 0.03:
        return True
    if cv2.connectedComponents(ink, connectivity=8)[0] - 1 != 1:
        return False
    contours, _ = cv2.findContours(ink, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outer = max(contours, key=cv2.contourArea)
    area = cv2.contourArea(outer)
    hull = cv2.contourArea(cv2.convexHull(outer))
    solidity = area / max(hull, 1.0)
    (_, _), (w, h), _ = cv2.minAreaRect(outer)
    if max(w, h) > 3.5 * max(min(w, h), 1.0):
        return True  # a bar
    perimeter = cv2.arcLength(outer, True)
    round_ = 4 * np.pi * area / max(perimeter ** 2, 1.0)
    # compact and solid: a pip (a filled star of short points, a square or a triangle is one at 15 px), or a
    # ring (a 0) whatever its hole
    return bool(solidity > 0.85 and round_ > 0.55)


# the parts an emblem is drawn from, each drawn at the tile's middle c with radius r, strokes `line` wide
PARTS = {"star": _star, "lobed": _lobed, "strokes": _strokes, "letters": _letters, "crest": _crest,
         "polygon": _polygon}
