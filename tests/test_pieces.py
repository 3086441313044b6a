"""Two boxes on one die are read as one; two touching dice stay two.

The banish fixture's D8 was boxed twice (its top face, and its lower faces read as a D4), so a
tray of one die became "2 dice, roll again". Joining must never swallow a real neighbour: a crop
over an accepted die and an unreadable one beside it reads, confidently, as the accepted die.
"""

import numpy as np
import pytest

from reader.reading import Box, DieReading, Face, Unreadable
from reader.vision.detector import STRIDE, Heat
from reader.vision.pieces import merge_read_twice, piece_pairs, refuse_pieces

TOP_FACE = Box(258.0, 122.0, 282.0, 146.0)     # the split D8 of fixtures/banish-7-d8-then-d6, roll 2
LOWER_FACES = Box(255.0, 138.0, 277.0, 160.0)
INSIDE = Box(262.0, 126.0, 280.0, 144.0)       # a box mostly inside TOP_FACE
NEIGHBOUR = Box(280.0, 122.0, 304.0, 146.0)    # a touching die of the same size, boxes overlapping 2 px
FAR = Box(400.0, 122.0, 424.0, 146.0)
BESIDE = Box(278.0, 122.0, 302.0, 146.0)       # overlaps TOP_FACE by a sixth, the union 1.9x as long
WIDE = Box(230.0, 110.0, 300.0, 170.0)         # contains TOP_FACE; union 70 px, 1.0x the bigger box


def reading(box, outcome):
    return DieReading("d8", box, outcome, 0.9)


def accepted(box):
    return reading(box, Face(3, 0.9))


def unreadable(box):
    return reading(box, Unreadable("low confidence", 0.5))


def ridge_up(a, b):      # the heatmap stays high between the centres: one object
    return 0.3


def valley(a, b):        # it falls to nothing between them: two objects
    return 0.02


CASES = {
    "a die boxed twice, heat up between the boxes, is one candidate": (
        [TOP_FACE, LOWER_FACES], [accepted(TOP_FACE), unreadable(LOWER_FACES)], ridge_up, [(0, 1)]),
    "the same boxes with a valley between are two dice": (
        [TOP_FACE, LOWER_FACES], [accepted(TOP_FACE), unreadable(LOWER_FACES)], valley, []),
    "a box mostly inside another is one die whatever the heat": (
        [TOP_FACE, INSIDE], [accepted(TOP_FACE), unreadable(INSIDE)], valley, [(0, 1)]),
    "a piece the reader called no die still joins": (
        [TOP_FACE, LOWER_FACES], [unreadable(TOP_FACE), None], ridge_up, [(0, 1)]),
    "two accepted readings stay two": (
        [TOP_FACE, LOWER_FACES], [accepted(TOP_FACE), accepted(LOWER_FACES)], ridge_up, []),
    "two boxes the reader called no die are no candidate": (
        [TOP_FACE, LOWER_FACES], [None, None], ridge_up, []),
    "boxes that do not overlap are two dice": (
        [TOP_FACE, FAR], [accepted(TOP_FACE), unreadable(FAR)], ridge_up, []),
    "a touching neighbour whose box just overlaps stays": (
        [TOP_FACE, NEIGHBOUR], [accepted(TOP_FACE), unreadable(NEIGHBOUR)], ridge_up, []),
    "a union much longer than either box is two dice": (
        [TOP_FACE, BESIDE], [accepted(TOP_FACE), unreadable(BESIDE)], ridge_up, []),
    "a face box inside a die's whole box": (
        [WIDE, TOP_FACE], [unreadable(WIDE), accepted(TOP_FACE)], valley, [(0, 1)]),
}


@pytest.mark.parametrize(("boxes", "readings", "ridge", "pairs"), CASES.values(), ids=CASES.keys())
def test_which_pairs_are_read_as_one_die(boxes, readings, ridge, pairs):
    got = piece_pairs(boxes, readings, ridge)
    assert [(p.i, p.j) for p in got] == pairs
    for p in got:
        a, b = boxes[p.i], boxes[p.j]
        assert p.union == Box(min(a.x0, b.x0), min(a.y0, b.y0), max(a.x1, b.x1), max(a.y1, b.y1))


def test_the_ridge_is_the_lowest_heat_between_two_points():
    heat = np.zeros((10, 20), np.float32)
    heat[5, 2:8] = 0.6        # one die's heat along row 5, columns 2-7
    heat[5, 12:15] = 0.7      # another die, a gap at columns 8-11
    h = Heat(heat, scale=1.0)
    px = lambda col: col * STRIDE + 1.0  # noqa: E731 - image x of a heat column at scale 1
    y = 5 * STRIDE + 1.0
    assert h.ridge((px(2), y), (px(7), y)) == pytest.approx(0.6)
    assert h.ridge((px(2), y), (px(14), y)) == 0.0
    assert h.at(-50.0, 1e6) == heat[9, 0]   # points off the map are clamped to its edge


def die_at(x, side, outcome=None):
    """A D6 of box side `side` at x, read as a 1 unless told otherwise."""
    return DieReading("d6", Box(x, 100.0, x + side, 100.0 + side), outcome or Face(1, 0.97), 0.99)


# (readings of one frame, which are refused as pieces)
SIZE_CASES = {
    "a pip boxed alone among three dice is refused": (
        [die_at(0, 40), die_at(100, 44), die_at(200, 42), die_at(300, 12)], [3]),
    "the upturned face of a cocked die, half the dice' size, is refused": (
        [die_at(0, 40), die_at(100, 40), die_at(200, 20)], [2]),
    "a mini die among standard ones (12 against 16 mm, turned) is read": (
        [die_at(0, 40), die_at(100, 52), die_at(200, 45), die_at(300, 27)], []),
    "with one other die, which is the piece is unknown: both read": (
        [die_at(0, 40), die_at(100, 12)], []),
    "a big die among small ones is read": (
        [die_at(0, 30), die_at(100, 30), die_at(200, 70)], []),
    "a small box already unreadable keeps its own reason": (
        [die_at(0, 40), die_at(100, 40), die_at(200, 12, Unreadable("low confidence", 0.4))], []),
}


@pytest.mark.parametrize(("readings", "refused"), SIZE_CASES.values(), ids=SIZE_CASES.keys())
def test_a_face_read_from_a_box_far_smaller_than_the_other_dice_is_refused(readings, refused):
    out = refuse_pieces(readings)
    assert len(out) == len(readings)  # refused, never dropped: something is there
    for k, (before, after) in enumerate(zip(readings, out)):
        assert after.box == before.box and after.die == before.die
        if k in refused:
            assert after.value is None and after.state == "unreadable"
            assert "piece of a die" in after.outcome.reason
        else:
            assert after == before


# --- one die read twice --------------------------------------------------------------------------
# Boxes laid out as measured on tray-mixed-bartek 20211121_175633 (a D10 boxed whole and again, both
# read 4: 0.69 of the smaller box shared) and tray-d6-nell IMG_20191209_095613 (two red D6 side by
# side, turned 45 degrees, boxes sharing 0.48: two dice).
WHOLE = Box(100.0, 100.0, 160.0, 160.0)
AGAIN = Box(112.0, 90.0, 162.0, 140.0)       # shares 0.77 of its area with WHOLE
SIDE_BY_SIDE = Box(131.0, 100.0, 191.0, 160.0)  # a die beside WHOLE, turned: shares 0.48


def face(box, value, conf=0.95, die="d10"):
    return DieReading(die, box, Face(value, conf), 0.99)


TWICE_CASES = {
    "one die read twice with one value is one die, the surer reading": (
        [face(WHOLE, 4, 0.97), face(AGAIN, 4, 0.99)], [("d10", 4, AGAIN)]),
    "one die read as two faces is one die that cannot be read": (
        [face(WHOLE, 4), face(AGAIN, 6)], [("d10", None, WHOLE.hull(AGAIN))]),
    "two die types in one place: one die that cannot be read": (
        [face(WHOLE, 4), face(AGAIN, 4, die="d8")], [("d10", None, WHOLE.hull(AGAIN))]),
    "two dice side by side stay two, even showing one value": (
        [face(WHOLE, 4), face(SIDE_BY_SIDE, 4)], [("d10", 4, WHOLE), ("d10", 4, SIDE_BY_SIDE)]),
    "a face and an unreadable reading are the pieces' business, not this": (
        [face(WHOLE, 4), DieReading("d10", AGAIN, Unreadable("low confidence", 0.4))],
        [("d10", 4, WHOLE), ("d10", None, AGAIN)]),
    "three boxes on one die, all read 4: one die": (
        [face(WHOLE, 4, 0.9), face(AGAIN, 4, 0.95), face(Box(105.0, 95.0, 158.0, 150.0), 4, 0.92)],
        [("d10", 4, AGAIN)]),
}


@pytest.mark.parametrize(("readings", "want"), TWICE_CASES.values(), ids=TWICE_CASES.keys())
def test_one_die_read_twice_is_one_die(readings, want):
    out = merge_read_twice(readings)
    assert [(r.die, r.value, r.box) for r in out] == want
    for r in out:
        if r.value is None and r.state == "unreadable" and "twice" in r.outcome.reason:
            assert r.confidence == 0.0


def test_the_two_faces_are_named_where_a_die_is_read_as_both():
    (out,) = merge_read_twice([face(WHOLE, 4), face(AGAIN, 6)])
    assert out.outcome.reason == "one die read twice, as D10 4 and D10 6"



@pytest.mark.parametrize(("a", "b", "share"), [
    pytest.param(Box(0.0, 0.0, 100.0, 100.0), Box(20.0, 20.0, 40.0, 40.0), 1.0, id="a small box inside a big one"),
    pytest.param(Box(0.0, 0.0, 10.0, 10.0), Box(5.0, 0.0, 25.0, 10.0), 0.5, id="half of the smaller covered"),
    pytest.param(Box(0.0, 0.0, 10.0, 10.0), Box(10.0, 0.0, 20.0, 10.0), 0.0, id="touching edges share nothing"),
])
def test_the_overlap_is_the_share_of_the_smaller_box_covered(a, b, share):
    assert a.overlap(b) == b.overlap(a) == share
