"""A D6 read must still be a D6 when the cut around it is widened: one face of a bigger die, boxed
alone, reads as a D6.

The detector sometimes boxes only the top face of a big die seen obliquely (a D8's triangle, a
D12's pentagon, 0.3-0.5 of the die's side). Cut from that box, the whole look sees one face with one
numeral filling the crop, which is what a numeral D6 seen from above shows, and reads it surely as a
D6 showing the same number (0.87-0.99). A D8 showing 3 read as a D6 showing 3 is a wrong card at a
banish (4 cards: a D8's 3 is card 2, a D6's 3 card 3). The pooled type probabilities cannot tell
(session 36: such D8 have p(d8) 0.002-0.08, real D6 reach 0.056), nor can a second network on the
whole look's features (session 37: sure they are D6, 0.85-0.999).

A cut WIDER times as wide shows the rest of the die, and the whole look then names it (the six
mistyped D6 readings of the rendered stills: p(d6) 0.00-0.39, the die's own type 0.50-1.00). A real D6
in a wider cut is a smaller D6 with more table around it, which the whole look was taught on (crop
scale jitter 0.6-1.4x) and still reads as a D6. Only D6 readings are asked: the converse (a D6 read as
a bigger die) does not come from a box on one face, and widening the cut of the numeral dice lost
right readings (models/reader.md, "Session 37").

Refused, not retyped from the wider cut's type alone: the face was read from the wrong cut. The die
is then read anew, whole, from a box grown as much (`grown`), and that reading stands only where it
is an accepted face of the type the wider cut named (`read_as_bigger`); else "roll again".
"""

from __future__ import annotations

from reader.reading import Box, DieReading, Face

# The wider cut's side over the reader's own (its crop_per_side x the box). 1.3: on the three rendered
# stills sets it refused the six D8 and D12 read as a D6 and no right D6; on the real holdouts as
# photographed no die; on them as other cameras take them (benchmarks/other_cameras.py) four right D6
# of 6,626 dice (models/reader.md, "Session 37"). Wider cuts lose the type of right dice.
WIDER = 1.3
# Three views, not the reader's four: they refuse the same mistyped dice and no right one (four views:
# one right D6 of the 1280x720 renders), for three quarters of the cost (1.9 ms a die on two cores).
VIEWS = (0.0, 120.0, 240.0)
ASKED = frozenset({"d6"})
REASON = "a face of a bigger die? It is not a D6 in a wider cut"


def asked(readings: list[DieReading]) -> list[int]:
    """Indices of the readings to cut wider: accepted faces of the die types a lone face is taken for."""
    return [i for i, r in enumerate(readings) if isinstance(r.outcome, Face) and r.die in ASKED]


def grown(box: Box, width: int, height: int, factor: float = WIDER) -> Box:
    """`box` grown `factor` times about its middle, inside the frame: the box the bigger die is read
    again from."""
    cx, cy = box.center
    half = box.side * factor / 2
    return Box(max(0.0, cx - half), max(0.0, cy - half), min(float(width), cx + half), min(float(height), cy + half))


def read_as_bigger(refused: DieReading, named: str, again: DieReading | None) -> DieReading:
    """The refused D6 reading, or `again` (its die read anew from the grown box) where that is an
    accepted face of the die type the wider cut `named`: two looks then agree it is that bigger die.
    Anything else (a D6 again, another type, no accepted face) leaves the die refused."""
    if again is not None and isinstance(again.outcome, Face) and again.die == named and named not in ASKED:
        return again
    return refused


def refuse_unlike(readings: list[DieReading], wider_types: dict[int, str]) -> list[DieReading]:
    """The readings, each one asked (`wider_types`: its index -> the die type the whole look names in
    the wider cut) whose wider cut names another die type turned Unreadable; the others as they were."""
    out = list(readings)
    for i, die in wider_types.items():
        r = readings[i]
        if isinstance(r.outcome, Face) and die != r.die:
            out[i] = r.refused(REASON)
    return out
