"""Where the die is in a photo of one die (`read --single`, single-die sets in `evaluate`).

Why a module of its own: a photo of one die is either a crop the die fills (crops-fickett, type-lurig,
the renders' crops) or a photo the die is small in (one die on a table, photographed from a step away),
and the detector, taught dice of 14-110 px in tray frames, must be shown each at a size where the die
has that size. The recognizer reads the box this gives (Recognizer._read_single); a box much bigger
than the die is read badly: a small dark die in the middle of a big crop looks like one pip, and was
read as a D6 showing 1 (session 44, models/reader.md).

`detector` is a reader.vision.detector.DiceDetector (its `detect`); no I/O.
"""

from __future__ import annotations

import numpy as np

from reader.reading import Box

# A single-die image is shrunk so its die has a size the detector knows (14-110 px). At 112 a die
# filling the image sat at the top of that range and its box came out short (crops-fickett: median
# 0.88 of the image, a tenth under 0.61); at 96 it is 0.98, a tenth under 0.84.
SINGLE_LONG_SIDE = 96
# Where the detector finds no die at that size, the die is smaller in the photo than the photo (one
# die on a table, photographed from a step away): the photo is looked at again at twice the size,
# and again, up to this long side (a die of 1% of a 4000 px photo is 15 px there), until a die is found.
SINGLE_LONGEST = 1536
# ... in photos at least this big. A smaller image is a crop of the die (crops-fickett 90 px, type-lurig
# 230, the renders' 128): looked at so, the boxes found are often the top face alone, and type-lurig's
# types fell from 99.5% to 98.2%, the rendered crops gained 10 right and 5 wrong (session 44).
SINGLE_SEARCH_FROM = 400
# A box found in such a photo is zoomed in on: cut out at ZOOM_MARGIN x its side and looked at again,
# it is loose where the die found in the cut is under ZOOM_LOOSE of the cut (a tight box's die fills
# 1 / 1.35 = 0.74 of it); at most ZOOM_STEPS times, never into a cut under ZOOM_SMALLEST px.
ZOOM_MARGIN = 1.35
ZOOM_LOOSE = 0.5
ZOOM_STEPS = 3
ZOOM_SMALLEST = 16


def find_single_die(detector, image: np.ndarray) -> Box | None:
    """The box of the die in a photo of one die (the detector's surest find), None where it finds
    none. A small image is a crop of the die: it is looked at once, shrunk so that a die filling it
    has a size the detector knows (SINGLE_LONG_SIDE). In a photo of SINGLE_SEARCH_FROM px or more
    the die may be small: where that look finds none, looks at twice the size and twice again
    follow (finds_at_sizes), and the box found is zoomed in on (zoomed_in).

    Why (session 44, models/reader.md): a type-lurig photo set in the middle of a bigger one, as a
    die on a table is photographed from a step away, was read from the whole photo (no find at the
    first size) or from a box three or four times the die's side (a loose find), and a small dark
    die in the middle of a big crop reads as a D6 showing 1, surely: at 1000 px wide, 64 of 859
    dice were read so; at 2400, nearly every die was refused."""
    h, w = image.shape[:2]
    longest = min(max(h, w), SINGLE_LONGEST)
    if longest < SINGLE_SEARCH_FROM:
        return _surest(detector.detect(image, long_side=SINGLE_LONG_SIDE, large_long=None))
    found = _surest(finds_at_sizes(detector, image, longest))
    return zoomed_in(detector, image, found) if found is not None else None


def _surest(finds: list) -> Box | None:
    """The box of the surest of the detector's finds; None where there are none."""
    return Box(*max(finds, key=lambda d: d.score).box) if finds else None


def finds_at_sizes(detector, image: np.ndarray, longest: int) -> list:
    """The finds of the look at SINGLE_LONG_SIDE; where it finds none, those of looks at twice that
    size, and twice again, up to `longest`, all of them. Not the first look that finds one: at twice
    the first size a die of 6% of the photo is found loosely, with the table around it, and the
    sure box comes from the looks after (0.40 against 0.64-0.82)."""
    finds = detector.detect(image, long_side=SINGLE_LONG_SIDE, large_long=None)
    if finds:
        return finds
    long_side = SINGLE_LONG_SIDE
    while long_side < longest:
        long_side *= 2
        finds += detector.detect(image, long_side=long_side, large_long=None)
    return finds


def zoomed_in(detector, image: np.ndarray, box: Box) -> Box:
    """`box` made tight: the photo cut around it (ZOOM_MARGIN x its side) is looked at again as a
    photo of one die filling it (at SINGLE_LONG_SIDE alone), and where the die found there is under
    ZOOM_LOOSE of the cut, the box was loose and takes that die's (up to ZOOM_STEPS times). A tight
    box's cut shows the die filling it (1 / ZOOM_MARGIN), a box on the die's top face alone more.
    Not the bigger looks: in a tight cut they find a numeral on a side face (a type-lurig D8's 9,
    then read as a D6 showing 6)."""
    h, w = image.shape[:2]
    for _ in range(ZOOM_STEPS):
        (cx, cy), half = box.center, box.side * ZOOM_MARGIN / 2
        x0, y0 = max(0, int(cx - half)), max(0, int(cy - half))
        x1, y1 = min(w, int(np.ceil(cx + half))), min(h, int(np.ceil(cy + half)))
        cut = image[y0:y1, x0:x1]
        if min(cut.shape[:2]) < ZOOM_SMALLEST:
            break
        inner = _surest(detector.detect(cut, long_side=SINGLE_LONG_SIDE, large_long=None))
        if inner is None or inner.side >= ZOOM_LOOSE * max(cut.shape[:2]):
            break
        box = Box(inner.x0 + x0, inner.y0 + y0, inner.x1 + x0, inner.y1 + y0)
    return box
