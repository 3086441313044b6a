"""A D6 read from one face of a bigger die is refused; a real D6 stands.

Rendered stills frames 66 and 249: the detector boxes only the top face of a D8 seen obliquely, and
the whole look reads that face surely as a D6 showing the same number (a D8's 3 read as a D6's 3
names another card at a banish). Cut wider, the whole look sees the D8.
"""

from pathlib import Path

import cv2
import pytest

from reader.reading import Box, Cocked, DieReading, Face, Unreadable
from reader.vision.recognizer import Recognizer
from reader.vision.wider import REASON, asked, grown, read_as_bigger, refuse_unlike

STILLS = Path(__file__).resolve().parents[1] / "fixtures" / "stills"


def die(kind, outcome):
    return DieReading(kind, Box(10.0, 10.0, 40.0, 40.0), outcome, 0.95)


CASES = {
    "a D6 that is a D8 in the wider cut is refused": (die("d6", Face(3, 0.96)), "d8", True),
    "a D6 that is a D12 in the wider cut is refused": (die("d6", Face(5, 0.93)), "d12", True),
    "a D6 that stays a D6 is read": (die("d6", Face(3, 0.96)), "d6", False),
    "a D6 already unreadable keeps its own reason": (die("d6", Unreadable("views disagree", 0.4)), "d8", False),
    "a cocked D6 stays cocked": (die("d6", Cocked(0.7)), "d8", False),
}


@pytest.mark.parametrize(("before", "wider_type", "refused"), CASES.values(), ids=CASES.keys())
def test_a_d6_reading_must_hold_in_a_wider_cut(before, wider_type, refused):
    after = refuse_unlike([before], {0: wider_type})[0]
    assert after.box == before.box and after.die == before.die  # refused, never dropped or retyped
    if refused:
        assert after.value is None and after.state == "unreadable" and after.outcome.reason == REASON
    else:
        assert after == before


def test_only_accepted_d6_readings_are_cut_wider():
    readings = [die("d6", Face(2, 0.9)), die("d8", Face(2, 0.9)), die("d6", Unreadable("low confidence", 0.5)),
                die("d20", Face(17, 0.97)), die("d6", Face(6, 0.99))]
    assert asked(readings) == [0, 4]


REFUSED = die("d6", Unreadable(REASON, 0.96))

AGAIN_CASES = {
    "read anew as the D8 the wider cut named: the D8 stands": (DieReading("d8", Box(0, 0, 50, 50), Face(2, 0.97), 0.99),
                                                              "d8", "again"),
    "read anew as another die than the one named: still refused": (
        DieReading("d10", Box(0, 0, 50, 50), Face(2, 0.97), 0.99), "d8", "refused"),
    "read anew as a D6 again: still refused": (DieReading("d6", Box(0, 0, 50, 50), Face(3, 0.95), 0.99), "d8",
                                                "refused"),
    "read anew but not accepted: still refused": (DieReading("d8", Box(0, 0, 50, 50), Unreadable("low confidence", 0.5),
                                                             0.9), "d8", "refused"),
    "the grown box holds no die: still refused": (None, "d8", "refused"),
}


@pytest.mark.parametrize(("again", "named", "kept"), AGAIN_CASES.values(), ids=AGAIN_CASES.keys())
def test_a_refused_d6_read_anew_stands_only_as_the_bigger_die_the_wider_cut_named(again, named, kept):
    assert read_as_bigger(REFUSED, named, again) is (again if kept == "again" else REFUSED)


@pytest.mark.parametrize(("box", "expected"), [
    pytest.param(Box(100, 100, 140, 130), Box(94, 89, 146, 141), id="grown about its middle, square on its longer side"),
    pytest.param(Box(0, 5, 40, 45), Box(0, 0, 46, 51), id="kept inside the frame at its edge"),
])
def test_the_grown_box(box, expected):
    assert tuple(grown(box, 640, 360)) == pytest.approx(tuple(expected))


@pytest.fixture(scope="module")
def recognizer():
    return Recognizer.load()


# (frame, the labeled D8 whose top face alone the detector boxes, its value)
TOP_FACE_BOXED = {
    "frame 66: a purple D8 showing 2": ("000066.jpg", (155.1, 181.7, 224.1, 230.6), 2),
    "frame 249: a black D8 showing 5": ("000249.jpg", (321.4, 136.7, 361.8, 181.2), 5),
}


@pytest.mark.parametrize(("frame", "d8", "value"), TOP_FACE_BOXED.values(), ids=TOP_FACE_BOXED.keys())
def test_a_d8_boxed_by_its_top_face_is_not_read_as_a_d6(recognizer, frame, d8, value):
    image = cv2.imread(str(STILLS / "frames" / frame))
    inside = [r for r in recognizer.read_frame(image)
              if d8[0] <= r.box.center[0] <= d8[2] and d8[1] <= r.box.center[1] <= d8[3]]
    assert inside, "the D8 was not found at all"
    for r in inside:
        assert r.value is None or (r.die, r.value) == ("d8", value), f"read as a {r.die} showing {r.value}"


def test_a_d8_refused_as_a_d6_is_read_as_the_d8_from_a_grown_box(recognizer):
    """Frame 66's purple D8 showing 2: refused as a D6 from its top face's box, read again from a box
    grown about it, it is the D8 showing 2. (Its lower faces, boxed apart, stay an unreadable piece.)"""
    image = cv2.imread(str(STILLS / "frames" / "000066.jpg"))
    d8 = TOP_FACE_BOXED["frame 66: a purple D8 showing 2"][1]
    inside = [r for r in recognizer.read_frame(image)
              if d8[0] <= r.box.center[0] <= d8[2] and d8[1] <= r.box.center[1] <= d8[3]]
    assert [(r.die, r.value) for r in inside if r.value is not None] == [("d8", 2)]
