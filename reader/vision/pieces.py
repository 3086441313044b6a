"""Two boxes on one die: which pairs of detections may be pieces of a single die.

The detector sometimes boxes one die twice: a D8's top face and, apart, its lower faces and shadow;
a D20's faces. Read alone, the piece is a confident D4 or an unreadable die, and a tray of one die
becomes "2 dice, roll again". Seen from above, dice do not overlap, but the boxes of two touching
dice can, and a crop holding an accepted die and an unreadable neighbour is read, confidently, as
the accepted die alone (measured: 5 such pairs in tray-d6-nell's holdout). So a pair is a candidate
only when
- at least one of the two readings is not an accepted face (a pair of good readings stays two),
- their boxes overlap and their union is not much bigger than the bigger box (two dice side by
  side make a union twice as long), and
- they are one thing to the detector: either the boxes overlap heavily (dice cannot), or its
  centre heatmap stays up all the way between the two centres (between two dice it falls to a
  valley at the gap: at most 0.14 for the touching pairs measured, 0.25 on the split D8 of
  fixtures/banish-7-d8-then-d6).
The recognizer then reads the union, and joins the pair only when the union reads as one accepted
face.

Two boxes on one die can also both be read, and both given a value (`merge_read_twice`): the
detector boxed a die whole and again by its top face or a side face. The roll then held one die
too many ("roll again" where one die was rolled), and where a die was missed besides, the count
came out right with a value taken twice.

A piece no other box joins is still read as a die: a pip of a 2 boxed alone is a confident 1, the
upturned face of a cocked die a confident face. What gives it away is its size: the dice of one
tray are of a size, and a box far smaller than the dice beside it is a piece (`refuse_pieces`).

Pure geometry on boxes, readings and the heatmap; the reading itself is the recognizer's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from reader.reading import Box, DieReading, Face, Unreadable

UNION_GROWTH = 1.6   # union side at most this times the bigger box's side
MIN_OVERLAP = 0.10   # intersection at least this share of the smaller box
SAME_DIE_OVERLAP = 0.4  # boxes overlapping this much (share of the smaller) are on one die
MIN_RIDGE = 0.2      # or: the heatmap stays at least this high between the two centres
# A face read from a box under this share of the median box side of the frame's other dice is
# refused. Dice bought for play are 12-22 mm, and a die's box is 1-1.41x its side as it turns: a
# 12 mm die among 16 mm ones comes to 0.53-1.06 of one of them, and about 0.6 or more of their
# median (they lie at all turns). Measured with reader v11, accepted faces of dice among at least
# two others: below 0.55, 5 wrong (3 pips, 2 faces of cocked dice) and 0 right on the 1280x720
# renders of fixtures/stills, 1 and 1 at 640x360; on the real holdouts none on tray-d6-nell and
# desk-d6-matteo, and 1 right on tray-mixed-bartek (0.48: a D10 boxed by its top face alone, read
# right; a piece all the same, and the next right one is at 0.59).
PIECE_SIZE = 0.55
PIECE_NEEDS = 2      # other dice in the frame: with one, which of the two is the piece is unknown
# Two faces read whose boxes overlap at least this share of the smaller box are one die read twice.
# Measured (session 52, reader v21, pairs of readings given a value, every image of the real sets):
# two labeled dice overlap up to 0.48 (tray-d6-nell: two D6 side by side, turned, 0.41 and 0.48;
# tray-mixed-bartek 0.42), none more of their 5,183 labeled dice; the pairs of one die
# read twice overlap 0.58-1.0 (tray-d6-nell 1, tray-mixed-bartek 7, desk-d6-matteo 2, viewed:
# work/s52/pairs.png) and on the renders 0.62-0.88 (3), with more such pairs at 0.41-0.50.
TWICE_READ_OVERLAP = 0.55


@dataclass(frozen=True)
class PiecePair:
    """Detections i and j (indices into the frame's detections) and the box that holds both."""

    i: int
    j: int
    union: Box


def accepted(r: DieReading | None) -> bool:
    """A reading that is a face read and accepted (not "not a die", cocked or unreadable)."""
    return r is not None and isinstance(r.outcome, Face)


def piece_pairs(boxes: list[Box], readings: list[DieReading | None],
                ridge: Callable[[tuple, tuple], float]) -> list[PiecePair]:
    """Pairs worth reading as one die (see the module's docstring), most overlapping first.

    `readings[k]` is the reading of `boxes[k]`, None where the reader said "not a die";
    `ridge(p, q)` the detector's lowest heat on the segment between two points (`Heat.ridge`).
    """
    pairs = []
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            a, b = boxes[i], boxes[j]
            if readings[i] is None and readings[j] is None:
                continue
            if accepted(readings[i]) and accepted(readings[j]):
                continue
            overlap = a.overlap(b)
            if overlap < MIN_OVERLAP:
                continue
            union = a.hull(b)
            if union.side > UNION_GROWTH * max(a.side, b.side):
                continue
            if overlap < SAME_DIE_OVERLAP and ridge(a.center, b.center) < MIN_RIDGE:
                continue
            pairs.append((overlap, PiecePair(i, j, union)))
    pairs.sort(key=lambda p: -p[0])
    return [p for _, p in pairs]


def refuse_pieces(readings: list[DieReading], ratio: float = PIECE_SIZE,
                  needs: int = PIECE_NEEDS) -> list[DieReading]:
    """The readings, a face read from a box under `ratio` of the median side of the frame's other
    dice (at least `needs` of them) turned Unreadable: a pip, a numeral or the upturned face of a
    cocked die boxed alone, read as a die. Refused, not dropped: something is there, so the roll
    is read again rather than counted a die short."""
    sides = np.array([r.box.side for r in readings])
    out = []
    for k, r in enumerate(readings):
        others = np.delete(sides, k)
        if isinstance(r.outcome, Face) and len(others) >= needs and r.box.side < ratio * float(np.median(others)):
            r = replace(r, outcome=Unreadable("much smaller than the dice beside it: a piece of a die?",
                                              r.outcome.confidence))
        out.append(r)
    return out


def merge_read_twice(readings: list[DieReading], overlap: float = TWICE_READ_OVERLAP) -> list[DieReading]:
    """The readings, each pair of faces read from boxes overlapping at least `overlap` of the smaller
    box taken for one die read twice: where both name one die type and value, the surer reading
    alone; where they differ, one Unreadable die in the box holding both ("one die read twice, as
    D10 4 and D10 6"), for the two faces cannot both be up. Neither can give the rules a value that
    was not read: two dice merged by mistake show the same value, so a banish takes the value both
    show and the first player's roll is one die short (roll again). Order kept, the merged reading
    where the first of its pair was."""
    out: list[DieReading | None] = list(readings)
    faces = [i for i, r in enumerate(out) if accepted(r)]
    pairs = sorted(((out[i].box.overlap(out[j].box), i, j) for n, i in enumerate(faces) for j in faces[n + 1:]),
                   reverse=True)
    for share, i, j in pairs:
        if share < overlap:
            break  # the pairs left overlap less
        a, b = out[i], out[j]
        if not (accepted(a) and accepted(b)):
            continue  # one of the two merged already, with a third
        if (a.die, a.value) == (b.die, b.value):
            out[i] = a if a.confidence >= b.confidence else b
        else:
            names = f"{a.die.upper()} {a.value} and {b.die.upper()} {b.value}"
            out[i] = replace(a, box=a.box.hull(b.box),
                             outcome=Unreadable(f"one die read twice, as {names}", 0.0))
        out[j] = None
    return [r for r in out if r is not None]
