"""A die filling a third of the frame or more, read whole in place of its pips.

A camera a hand's width from the dice, or a phone held close, shows a D6 200-300 px wide in a 640 px
frame. The detector's first look was taught dice of 14-110 px: it boxes such a die's pips, and the
reader reads a pip cut alone as a sure 1 (desk-d6-matteo's holdout seen 3x closer,
reader.vision.other_cameras.close_up: 13 pips given a value, and a 6, a 3 and a 2 read 1 at 0.88-0.99
from a pip). The half-size look scores such a die 0.31-0.39, under its floor. The detector's
quarter-size look finds it (DiceDetector.very_large, asked by find: Heat.quarter), but boxes a tray, or a photo pasted into a plain
canvas, whole too. So a candidate is taken only where the reader reads it whole as a sure face, and
it then replaces the readings inside it: those the half-size look's die would replace
(reader.vision.detector.holds), and pieces half its size or less whose centre is on it (part_of: a
numeral or a corner at its edge, left refused beside the die, made a roll of one die two).

The same happens to a die of a size the first look knows, where it boxes a pip and misses the die
(desk-d6-matteo's holdout under tungsten light: a 3 read 1 twice, pips of a 2 valued as 1s). Where a
D6 is read 1, the half-size look's finds that hold it as a part (detector.around, from Heat.half) are read whole
too, and one is taken where it holds no accepted face but 1s (a cluster of dice holds others) and
reads as a sure face other than a D6's 1 (a die read 1 whole agrees with its pip: nothing to mend,
and the bigger box would only misplace it; nell's tray seen 3x farther lost two dice so).

SURE: on desk-d6-matteo's holdout seen 3x closer the candidates on a real die are read at 0.961-0.991;
the one candidate read as a face at under 0.95 on the renders and the real trays (as photographed
and as other cameras take them) was a patch of a rendered tray with a small D6 5 in its middle, read
as a big D6 showing 1 at 0.87 (fixtures/stills, 000178).
"""

from __future__ import annotations

from reader.reading import Box, DieReading, Face
from reader.vision.detector import holds, part_of

SURE = 0.95


def take_whole(readings: list[DieReading], big: Box, whole: DieReading | None) -> list[DieReading]:
    """The readings with those inside `big` replaced by `whole` (the die read from `big`), where that
    is an accepted face at SURE or more; else the readings as they were."""
    if whole is None or not isinstance(whole.outcome, Face) or whole.confidence < SURE:
        return readings
    return [r for r in readings if not _on(big, r)] + [whole]


def read_as_one(readings: list[DieReading]) -> list[DieReading]:
    """The accepted D6 readings of 1: what a pip cut alone is read as."""
    return [r for r in readings if _one(r)]


def mend_pips(readings: list[DieReading], big: Box, whole: DieReading | None) -> list[DieReading]:
    """take_whole for a find of the half-size look around a D6 read 1: only where every accepted
    reading on it is such a 1 and `whole` is not a D6's 1 itself; else the readings as they were."""
    on_it = [r for r in readings if _on(big, r)]
    if whole is None or _one(whole) or any(isinstance(r.outcome, Face) and not _one(r) for r in on_it):
        return readings
    return take_whole(readings, big, whole)


def _on(big: Box, r: DieReading) -> bool:
    """Is `r` on the die boxed by `big`: one the half-size look's die would replace, or a piece at its edge?"""
    return holds(big, r.box) or part_of(r.box, big)


def _one(r: DieReading) -> bool:
    return isinstance(r.outcome, Face) and r.die == "d6" and r.value == 1
