"""How sure the reader must be of a die that is small in the picture, and how small is too small.

A camera farther from the tray, or one with fewer pixels, shows every die smaller. Its pips and
numerals then span a few pixels, and the reader's confidence, calibrated on dice mostly 30-60 px
across, no longer says how often it is right: small dice were read wrong more often at the same
confidence (models/reader.md, "Session 77"). The holdouts of tray-d6-nell, tray-mixed-bartek and
desk-d6-matteo, and nell's and bartek's trays with crops-fickett's D20 pasted in, shown 1.5-3x smaller
(reader.vision.other_cameras.smaller), some then saved as JPEG at quality 40-90 as a camera or a photo
file delivers them (colour at half the resolution: what smears a small die's coloured pips), read by
reader v24: accepted readings, right / wrong, by the box's longer side (`evaluate --dice`'s logs):

    D6 under 24 px, as accepted: 2,372 / 17 (0.7%) shrunk, 1,906 / 35 (1.8%) shrunk and JPEG (4 read 6)
    D6 under 24 px, at 0.97:     2,001 / 4 (0.2%),         1,539 / 6 (0.4%)
    D6 24 px and over, as accepted: 2,706 / 8 (0.3%),      1,682 / 7 (0.4%)
    D10 under 26 px, as accepted: 348 / 21 (6%) shrunk (a 5 or an 8 read 3); at 0.97: 79 / 0
    D10 26 px and over, as accepted: 695 / 4 (0.6%); D8: no size where it errs more, down to 16 px

So a D6 under 24 px, or a D10, D12 or D20 under 26, is accepted only at SMALL_ACCEPT or more (its
type's threshold where that is higher: the D20's 0.98), and is otherwise refused ("roll again") with
the reason. Refusing such dice outright would have cost ten times the right readings for the last few
wrong ones (tray-d6-nell 2x smaller: 95% -> 5% right); a stricter threshold keeps most of them. 0.97 is
the lowest of 0.95-0.97 that kept every variant measured under the 0.5% wrong target. A D12's and a
D20's numerals are smaller on the die than a D10's, so they take the D10's size: the renders, cleaner
than any camera at that size, show no such rise, and no real D12 or small real D20 was at hand. Under
SMALLEST_SIDE_PX nothing was measured and no die is read. At full size no labeled die of the real sets
is this small (tray-d6-nell's, the smallest, are 26-45 px); the 640x360 renders (fixtures/stills)
lose some of their smallest dice. Pure: it reads the boxes and confidences the reader gave.
"""

from __future__ import annotations

from reader.reading import DieReading, Face

# under these sides (the box's longer side, in the picture's pixels) a die must be read at SMALL_ACCEPT
SMALL_SIDE_PX = {"d6": 24.0, "d10": 26.0, "d12": 26.0, "d20": 26.0}
SMALL_ACCEPT = 0.97
# under this side no die is read: smaller than any measured
SMALLEST_SIDE_PX = 10.0


def too_small_reason() -> str:
    return (f"too small in the picture to read (under {SMALLEST_SIDE_PX:.0f} px across): bring the camera "
            f"closer or give it more pixels")


def unsure_small_reason(die: str) -> str:
    """What a small die read short of SMALL_ACCEPT is told: the same words for every die of a type, so
    that `evaluate`'s refusals count them together."""
    return (f"small in the picture and not sure enough (a {die.upper()} under {SMALL_SIDE_PX[die]:.0f} px "
            f"needs {SMALL_ACCEPT}): bring the camera closer or give it more pixels")


def refused_for_size(reading: DieReading) -> bool:
    """Whether `reading` was refused by this rule (its reason is one of this module's)."""
    return reading.reason in _REASONS


_REASONS = frozenset([too_small_reason(), *(unsure_small_reason(die) for die in SMALL_SIDE_PX)])


def setup_note(readings: list[DieReading]) -> str:
    """What the live loop tells the table, once, when a roll's dice were refused for their size: the
    camera is set up too far or with too few pixels for these dice, which no roll again will mend."""
    sides = sorted(round(r.box.side) for r in readings)
    span = f"{sides[0]}" if sides[0] == sides[-1] else f"{sides[0]}-{sides[-1]}"
    return (f"dice refused for their size in the picture (the dice here are {span} px "
            f"across; a D6 under {SMALL_SIDE_PX['d6']:.0f} px or a D10, D12 or D20 under "
            f"{SMALL_SIDE_PX['d10']:.0f} px is read only at {SMALL_ACCEPT}): bring the camera closer to the "
            f"tray or give it more pixels")


def size_refusal(reading: DieReading) -> str | None:
    """Why `reading`'s value may not stand for its die's size in the picture, or None where it may (or
    where it has none)."""
    if not isinstance(reading.outcome, Face):
        return None
    side = reading.box.side
    if side < SMALLEST_SIDE_PX:
        return too_small_reason()
    small = SMALL_SIDE_PX.get(reading.die)
    if small is not None and side < small and reading.outcome.confidence < SMALL_ACCEPT:
        return unsure_small_reason(reading.die)
    return None


def judge_size(readings: list[DieReading]) -> list[DieReading]:
    """The readings, each value that may not stand for its die's size made Unreadable with the reason
    (its confidence kept); every other reading as it was."""
    out = []
    for r in readings:
        why = size_refusal(r)
        out.append(r if why is None else r.refused(why))
    return out
