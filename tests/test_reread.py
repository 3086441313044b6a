"""Which reading each die keeps when a frame is read again under a guessed camera (reader.vision.reread)."""

from __future__ import annotations

import pytest

from reader.reading import Box, Cocked, DieReading, Face, Unreadable
from reader.vision.reread import DISAGREE, kept

HERE = Box(10, 10, 60, 60)
NUDGED = Box(12, 11, 62, 61)  # the same find, its box a little moved by the second reading
ELSEWHERE = Box(200, 10, 250, 60)


def die(kind, outcome, box=HERE):
    return DieReading(kind, box, outcome)


UNSURE = Unreadable("low confidence", 0.6)

# (first reading, as if seen from above; the reading under the guessed camera; what is kept)
CASES = {
    "a D20 refused from above and read with the camera takes the camera's reading":
        (die("d20", UNSURE), die("d20", Face(17, 0.95)), die("d20", Face(17, 0.95))),
    "a D10 read from above and refused with the camera is refused":
        (die("d10", Face(7, 0.85)), die("d10", UNSURE), die("d10", UNSURE)),
    "a D8 the camera finds leaning is cocked":
        (die("d8", Face(3, 0.9)), die("d8", Cocked(0.7)), die("d8", Cocked(0.7))),
    "a D6 refused from above stays refused, however sure the camera's reading":
        (die("d6", UNSURE), die("d6", Face(6, 0.91)), die("d6", UNSURE)),
    "a D6 cocked from above stays cocked":
        (die("d6", Cocked(0.5)), die("d6", Face(2, 0.9)), die("d6", Cocked(0.5))),
    "a D6 read the same both ways keeps its first reading":
        (die("d6", Face(4, 0.93)), die("d6", Face(4, 0.97), NUDGED), die("d6", Face(4, 0.93))),
    "a D6 the camera refuses is refused":
        (die("d6", Face(4, 0.93)), die("d6", UNSURE), die("d6", UNSURE)),
    "a D6 the camera reads as another die is read again (roll again)":
        (die("d6", Face(5, 0.86)), die("d8", Face(5, 0.9)), die("d8", Unreadable(DISAGREE, 0.86))),
    "a D6 given two faces is read again (roll again)":
        (die("d6", Face(5, 0.88)), die("d6", Face(6, 0.91)), die("d6", Unreadable(DISAGREE, 0.88))),
    "a die found only the second time is kept as read":
        (die("d6", Face(1, 0.9), ELSEWHERE), die("d6", Face(3, 0.95)), die("d6", Face(3, 0.95))),
}


@pytest.mark.parametrize("first, again, expected", CASES.values(), ids=CASES.keys())
def test_each_die_keeps_the_reading_the_rule_gives(first, again, expected):
    assert kept([first], [again]) == [expected]


def test_every_die_of_the_second_reading_is_kept_in_its_order_and_dice_it_lost_stay_lost():
    first = [die("d6", Face(2, 0.9)), die("d20", UNSURE, ELSEWHERE), die("d8", Face(8, 0.9), Box(400, 10, 450, 60))]
    again = [die("d6", Face(2, 0.95)), die("d20", Face(11, 0.96), ELSEWHERE)]  # the D8 joined or dropped there
    assert kept(first, again) == [die("d6", Face(2, 0.9)), die("d20", Face(11, 0.96), ELSEWHERE)]
