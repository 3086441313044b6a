"""A die filling a third of the frame or more, read whole in place of its pips.

A camera a hand's width from the dice, or a phone held close, shows a D6 200-300 px wide in a 640 px
frame. The detector's first look was taught dice of 14-110 px: it boxes such a die's pips, and the
reader reads a pip cut alone as a sure 1 (desk-d6-matteo's holdout seen 3x closer,
reader.vision.other_cameras.close_up: 13 pips given a value, and a 6, a 3 and a 2 read 1 at 0.88-0.99
from a pip). The half-size look scores such a die 0.31-0.39, under its floor. The detector's
quarter-size look finds it (DiceDetector.very_large), but boxes a tray, or a photo pasted into a plain
canvas, whole too. So a candidate is taken only where the reader reads it whole as a sure face, and
it then replaces the readings inside it: those the half-size look's die would replace
(reader.vision.detector.holds), and pieces half its size or less whose centre is on it (part_of: a
numeral or a corner at its edge, left refused beside the die, made a roll of one die two).

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
    return [r for r in readings if not (holds(big, r.box) or part_of(r.box, big))] + [whole]
