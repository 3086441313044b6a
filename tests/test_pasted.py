"""A photo of one die pasted into a tray photo (reader.vision.pasted): where it lands and what its label says."""

from __future__ import annotations

import random

import numpy as np
import pytest

from reader.vision.pasted import GAP, paste_die
from reader.vision.realdata import LabeledDie

TRAY = np.full((240, 320, 3), 90, np.uint8)
DICE = [LabeledDie("d6", 3, (100.0, 100.0, 130.0, 130.0)), LabeledDie("d6", 5, (180.0, 120.0, 210.0, 150.0))]


def die_photo(side=90):
    """A white die on a grey ground, filling the middle 85% of the photo."""
    photo = np.full((side, side, 3), 140, np.uint8)
    m = int(0.075 * side)
    photo[m:side - m, m:side - m] = 250
    return photo


@pytest.mark.parametrize("seed", range(5))
def test_the_pasted_die_lands_clear_of_every_die_and_its_label_says_where(seed):
    img, label = paste_die(TRAY, DICE, die_photo(), "d20", 17, random.Random(seed))
    assert (label.die, label.value) == ("d20", 17)
    x0, y0, x1, y1 = label.box
    assert 0 <= x0 < x1 <= TRAY.shape[1] and 0 <= y0 < y1 <= TRAY.shape[0]
    side = 1.25 * 30  # the tray's dice are 30 px: the pasted one a quarter bigger
    assert x1 - x0 == pytest.approx(side, abs=1.5) and y1 - y0 == pytest.approx(side, abs=1.5)
    for d in DICE:  # clear of the tray's dice, by the gap, photo margin and all
        b = d.box
        margin = 0.075 * (x1 - x0) / 0.85 + GAP
        assert x1 + margin < b[0] or b[2] + margin < x0 or y1 + margin < b[1] or b[3] + margin < y0
    cx, cy = int((x0 + x1) / 2), int((y0 + y1) / 2)
    assert img[cy, cx].tolist() == [250, 250, 250]  # the die is there
    assert img[5, 5].tolist() == [90, 90, 90] and TRAY[cy, cx].tolist() == [90, 90, 90]  # the rest and the input untouched


def test_a_second_die_pasted_keeps_clear_of_the_first():
    rng = random.Random(3)
    img, first = paste_die(TRAY, DICE, die_photo(), "d20", 1, rng)
    _, second = paste_die(img, DICE + [first], die_photo(), "d20", 2, rng)
    a, b = first.box, second.box
    assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


@pytest.mark.parametrize("dice", [
    pytest.param([], id="a tray with no labeled die: no size to paste at"),
    pytest.param([LabeledDie("d6", 1, (0.0, 0.0, 320.0, 240.0))], id="a die filling the photo: no room"),
    pytest.param([LabeledDie("d6", 1, None)], id="a die with no box"),
])
def test_no_place_no_paste(dice):
    assert paste_die(TRAY, dice, die_photo(), "d20", 5, random.Random(0)) is None
