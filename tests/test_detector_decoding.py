"""Turning the detector's peaks into dice: one box per die, never a pip or a numeral as a die.

Seen from above, dice do not overlap. A strong peak on one pip of a big die, read alone, is a
confident "1" for a die showing 3: the decoding must drop it however strong it is.
"""

import pytest

from reader.vision.detector import Detection, _suppress, merge_large

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

LARGE_CASES = {
    "the pips of a big die give way to the die": (
        [Detection(b, 0.8) for b in BIG_PIPS], [Detection(BIG, 0.7)], [BIG]),
    "the first look's box on the same big die gives way too": (
        [Detection(BIG_FACE, 0.9)], [Detection(BIG, 0.6)], [BIG]),
    "a smaller die touching the big one stays": (
        [Detection(BIG_PIPS[0], 0.8), Detection(NEXT_DIE, 0.8)], [Detection(BIG, 0.7)], [BIG, NEXT_DIE]),
    "with no big die the first look's boxes stand": (
        [Detection(DIE, 0.9), Detection(NEIGHBOUR, 0.8)], [], [DIE, NEIGHBOUR]),
}


@pytest.mark.parametrize(("first", "large", "kept"), LARGE_CASES.values(), ids=LARGE_CASES.keys())
def test_a_big_die_found_at_half_size_replaces_the_pieces_found_inside_it(first, large, kept):
    assert boxes(merge_large(first, large)) == sorted(kept)
