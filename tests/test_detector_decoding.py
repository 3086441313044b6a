"""Turning the detector's peaks into dice: one box per die, never a pip or a numeral as a die.

Seen from above, dice do not overlap. A strong peak on one pip of a big die, read alone, is a
confident "1" for a die showing 3: the decoding must drop it however strong it is.
"""

import warnings

import numpy as np
import pytest

from reader.vision.detector import (
    DiceDetector,
    Detection,
    _suppress,
    merge_large,
    merge_small,
    small_dice,
)

DIE = (100.0, 100.0, 160.0, 160.0)          # a 60 px die
PIP = (104.0, 104.0, 118.0, 118.0)          # one of its corner pips, 14 px
NEIGHBOUR = (162.0, 100.0, 222.0, 160.0)    # a touching die of the same size
SMALL_DIE = (163.0, 165.0, 183.0, 185.0)    # a smaller die just outside the big one
DOUBLE = (100.0, 100.0, 222.0, 160.0)       # one weak box over two touching dice
BIG_PIP = (106.0, 106.0, 134.0, 134.0)      # a blurred pip boxed at half the die's side
LOOSE_DIE = (91.0, 91.0, 169.0, 169.0)      # the 60 px die's box drawn 1.3x too big
HALF_DIE = (160.0, 115.0, 190.0, 145.0)     # a 30 px die touching it


def boxes(dets):
    return sorted(d.box for d in dets)


CASES = {
    "a strong pip inside a weaker die goes": ([Detection(PIP, 0.9), Detection(DIE, 0.5)], [DIE]),
    "touching dice both stay": ([Detection(DIE, 0.9), Detection(NEIGHBOUR, 0.8)], [DIE, NEIGHBOUR]),
    "a small die beside a big one stays": ([Detection(DIE, 0.9), Detection(SMALL_DIE, 0.6)], [DIE, SMALL_DIE]),
    "a box over two dice does not swallow them": (
        [Detection(DIE, 0.9), Detection(NEIGHBOUR, 0.9), Detection(DOUBLE, 0.4)], [DIE, NEIGHBOUR]),
    "a pip boxed half as big as its die goes": ([Detection(BIG_PIP, 0.9), Detection(DIE, 0.6)], [DIE]),
    "a half-size die touching a loose box stays": (
        [Detection(LOOSE_DIE, 0.9), Detection(HALF_DIE, 0.7)], [HALF_DIE, LOOSE_DIE]),
    "the same die twice is one die": ([Detection(DIE, 0.9), Detection((102, 101, 161, 162), 0.7)], [DIE]),
}


@pytest.mark.parametrize(("dets", "kept"), CASES.values(), ids=CASES.keys())
def test_one_box_per_die(dets, kept):
    assert boxes(_suppress(dets)) == sorted(kept)


# A camera close to the tray: the first look (dice up to 110 px) boxes a big die's pips and faces,
# the second, at half size, the die itself (reader.vision.detector.merge_large).
BIG = (100.0, 100.0, 260.0, 260.0)          # a 160 px die, found by the second look
BIG_PIPS = [(120.0, 120.0, 150.0, 150.0), (165.0, 165.0, 195.0, 195.0), (210.0, 210.0, 240.0, 240.0)]
BIG_FACE = (110.0, 105.0, 250.0, 255.0)     # the first look's own box on the big die
NEXT_DIE = (262.0, 120.0, 312.0, 170.0)     # a 50 px die touching it, found by the first look
# seven 20 px dice in the middle of what the half-size look took for one 160 px die (a tray, seen far)
TRAY_DICE = [(120.0 + 25 * (k % 4), 130.0 + 40 * (k // 4), 140.0 + 25 * (k % 4), 150.0 + 40 * (k // 4)) for k in range(7)]

LARGE_CASES = {
    "the pips of a big die give way to the die": (
        [Detection(b, 0.8) for b in BIG_PIPS], [Detection(BIG, 0.7)], [BIG]),
    "the first look's box on the same big die gives way too": (
        [Detection(BIG_FACE, 0.9)], [Detection(BIG, 0.6)], [BIG]),
    "a smaller die touching the big one stays": (
        [Detection(BIG_PIPS[0], 0.8), Detection(NEXT_DIE, 0.8)], [Detection(BIG, 0.7)], [BIG, NEXT_DIE]),
    "with no big die the first look's boxes stand": (
        [Detection(DIE, 0.9), Detection(NEIGHBOUR, 0.8)], [], [DIE, NEIGHBOUR]),
    "a big find holding seven of the first look's dice is a tray: they stay, it goes": (
        [Detection(b, 0.8) for b in TRAY_DICE], [Detection(BIG, 0.7)], TRAY_DICE),
    "six boxes inside (a D6's pips at most) still give way to the big die": (
        [Detection(b, 0.8) for b in TRAY_DICE[:6]], [Detection(BIG, 0.7)], [BIG]),
}


@pytest.mark.parametrize(("first", "large", "kept"), LARGE_CASES.values(), ids=LARGE_CASES.keys())
def test_a_big_die_found_at_half_size_replaces_the_pieces_found_inside_it(first, large, kept):
    assert boxes(merge_large(first, large)) == sorted(kept)


# A camera with more pixels, far from a small tray: the first look (the frame at 640 px) finds the
# dice at 10-20 px, some not at all; a finer look at twice the size finds them bigger
# (reader.vision.detector.merge_small).
TINY = (300.0, 300.0, 312.0, 312.0)         # a 12 px die as the first look boxed it
TINY_FINE = (299.0, 299.0, 313.0, 314.0)    # the same die as the finer look boxes it
MISSED = (340.0, 300.0, 353.0, 313.0)       # a die the first look missed
TRAY = (250.0, 250.0, 400.0, 400.0)         # a 150 px "die": the tray, taken whole at half size
PIP_OF_DIE = (108.0, 108.0, 122.0, 122.0)   # a finer find on a pip of the 60 px die (4x smaller)

SMALL_CASES = {
    "the finer look's box on a die replaces the first look's": (
        [Detection(TINY, 0.6)], [Detection(TINY_FINE, 0.8)], [TINY_FINE]),
    "a die the first look missed joins": (
        [Detection(TINY, 0.6)], [Detection(TINY_FINE, 0.8), Detection(MISSED, 0.7)], [MISSED, TINY_FINE]),
    "a finer find on a pip of a die the first look found is a part, dropped": (
        [Detection(DIE, 0.9)], [Detection(PIP_OF_DIE, 0.9)], [DIE]),
    "a box holding two dice nine times smaller is no die: it goes, they stay": (
        [Detection(TRAY, 0.7)], [Detection(TINY_FINE, 0.8), Detection(MISSED, 0.7)], [MISSED, TINY_FINE]),
    "a big box holding one small find keeps it out": (
        [Detection(TRAY, 0.7)], [Detection(MISSED, 0.7)], [TRAY]),
}


@pytest.mark.parametrize(("first", "small", "kept"), SMALL_CASES.values(), ids=SMALL_CASES.keys())
def test_small_dice_found_at_twice_the_size_join_the_first_looks(first, small, kept):
    assert boxes(merge_small(first, small)) == sorted(kept)


@pytest.mark.parametrize(("sides", "scale", "asked"), [
    pytest.param([], 1.0, True, id="no die found: a lone far die may be there, looked at again"),
    pytest.param([12, 14, 30], 1.0, True, id="dice of median 14 px: looked at again"),
    pytest.param([24, 30, 40], 1.0, False, id="dice of median 30 px: found well already"),
    pytest.param([30, 34, 36], 0.5, True, id="the sides counted at the look's own size (17 px)"),
])
def test_the_finer_look_is_asked_only_for_small_dice(sides, scale, asked):
    dets = [Detection((0.0, 0.0, float(s), float(s)), 0.9) for s in sides]
    assert small_dice(dets, scale) is asked


class SureOfTheCloth:
    """A stand-in detector network: logits of -100 everywhere (a detector taught on sure of plain
    cloth gives such), one die's peak at cell (40, 30) of the 640 px look, 4 cells (16 px) a side."""
    meta: dict = {}

    def __call__(self, x):
        out = np.full((1, 5, x.shape[2] // 4, x.shape[3] // 4), -100.0, np.float32)
        out[0, :, 30, 40] = (4.0, np.log(4.0), np.log(4.0), 0.0, 0.0)
        return [out]


def test_a_detector_sure_of_its_background_is_read_quietly():
    """Such logits overflowed exp in the heatmap's sigmoid and printed a RuntimeWarning on the user's
    terminal for every frame; the die is found where its peak is, and nothing is printed."""
    frame = np.zeros((360, 640, 3), np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dets = DiceDetector(SureOfTheCloth()).detect(frame)
    assert [tuple(round(v) for v in d.box) for d in dets] == [(154, 114, 170, 130)]
