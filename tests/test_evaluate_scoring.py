"""Scoring readings against labeled dice (reader/vision/evaluate.py), with hand-made readings."""

from __future__ import annotations

import pytest

from reader.reading import Box, Cocked, DieReading, Face, Unreadable
from reader.vision.evaluate import (
    ImageResult,
    failed_image,
    match,
    percentile,
    score_image,
    size_bin,
    summarise,
)
from reader.vision.report import format_details, format_table
from reader.vision.realdata import LabeledDie


def lab(die="d6", value=None, box=(0, 0, 50, 50), state="flat"):
    return LabeledDie(die=die, value=value, box=None if box is None else tuple(map(float, box)),
                      state=state)


def face(die="d6", value=1, box=(0, 0, 50, 50), conf=0.99, style=None):
    return DieReading(die=die, box=Box.from_list(box), outcome=Face(value, conf), style=style)


def cocked(die="d6", box=(0, 0, 50, 50)):
    return DieReading(die=die, box=Box.from_list(box), outcome=Cocked(0.9))


def unreadable(die="d6", box=(0, 0, 50, 50)):
    return DieReading(die=die, box=Box.from_list(box), outcome=Unreadable("glare", 0.3))


# --- matching -----------------------------------------------------------------------------------

MATCH_CASES = [
    # (labels, readings, expected pairs as a set)
    pytest.param([lab(box=(10, 10, 60, 60))], [face(box=(12, 11, 61, 59))], {(0, 0)},
                 id="same die, boxes nearly equal"),
    pytest.param([lab(box=(40, 40, 60, 60))], [face(box=(20, 20, 90, 90))], {(0, 0)},
                 id="top-face label inside a whole-die box (IoU 0.08): centre rule matches"),
    pytest.param([lab(box=(0, 0, 50, 50))], [face(box=(200, 200, 250, 250))],
                 {(0, None), (None, 0)}, id="far apart: a missed die and a false detection"),
    pytest.param([lab(box=(0, 0, 50, 50)), lab(box=(50, 0, 90, 50))], [face(box=(0, 0, 90, 50))],
                 {(0, 0), (1, None)},
                 id="one box over two touching dice goes to the die it overlaps most"),
    pytest.param([lab(box=(0, 0, 50, 50))], [face(box=(20, 20, 28, 28)), face(box=(1, 1, 49, 50))],
                 {(0, 1), (None, 0)},
                 id="a stray small box on a found die is a false detection"),
    pytest.param([lab(box=(0, 0, 50, 50)), lab(box=(40, 0, 90, 50))],
                 [face(box=(20, 0, 70, 50)), face(box=(2, 0, 52, 50))],
                 {(0, 1), (1, 0)},
                 id="greedy by best IoU, not by order: the first reading fits the second die"),
    pytest.param([lab(box=None)], [face(box=(5, 5, 80, 80))], {(0, 0)},
                 id="box-less single-die label takes the reading"),
    pytest.param([lab(die="d20", box=None)], [face(box=(0, 0, 9, 9)),
                                               face(die="d20", box=(20, 20, 80, 80))],
                 {(0, 1), (None, 0)}, id="box-less label prefers a reading of its own die type"),
    pytest.param([lab(), lab(box=(100, 0, 150, 50))], [], {(0, None), (1, None)},
                 id="no readings: every die missed"),
    pytest.param([], [face(), face(box=(100, 0, 150, 50))], {(None, 0), (None, 1)},
                 id="no labels: every reading a false detection"),
]


@pytest.mark.parametrize("labels, readings, expected", MATCH_CASES)
def test_match(labels, readings, expected):
    pairs = match(labels, readings)
    assert set(pairs) == expected
    assert len(pairs) == len(expected)  # each label and each reading exactly once


# --- per-die outcomes and the set figures -------------------------------------------------------

def one(label, reading):
    """Figures of a one-image set with one label and one reading (either may be None)."""
    labels = [] if label is None else [label]
    readings = [] if reading is None else [reading]
    return summarise("s", [score_image("a.png", labels, readings, ms=10.0)])


FIGURE_CASES = [
    # (label, reading, expected figures)
    pytest.param(lab(value=5), face(value=5),
                 dict(found_rate=1, type_accuracy=1, share_accepted=1, value_accuracy=1,
                      accepted_wrong_rate=0, end_to_end=1, false_detections=0),
                 id="right die and value: counts end to end"),
    pytest.param(lab(value=6), face(value=3),
                 dict(share_accepted=1, value_accuracy=0, accepted_wrong_rate=1, end_to_end=0),
                 id="accepted with the wrong value: accepted-but-wrong"),
    pytest.param(lab(value=5), unreadable(),
                 dict(found_rate=1, share_accepted=0, value_accuracy=None,
                      accepted_wrong_rate=0, end_to_end=0),
                 id="unreadable: found, not accepted, not wrong either"),
    pytest.param(lab(value=5), cocked(),
                 dict(share_accepted=0, accepted_wrong_rate=0, end_to_end=0),
                 id="a flat die read as cocked: roll again, not an error"),
    pytest.param(lab(die="d8", value=4), face(die="d10", value=4),
                 dict(type_accuracy=0, share_accepted=1, accepted_wrong_rate=1, end_to_end=0),
                 id="right value on the wrong die type is accepted-but-wrong"),
    pytest.param(lab(die="d6", value=3), face(die="d6", value=3, style="numerals"),
                 dict(type_accuracy=1, end_to_end=1),
                 id="a numeral D6 is a d6"),
    pytest.param(lab(die="d4", box=None), face(die="d8", value=2),
                 dict(type_accuracy=0, share_accepted=None, accepted_wrong_rate=None,
                      end_to_end=None, mistyped_valued=1),
                 id="type-only label: a D4 called a D8 is a type error, no value figures, "
                    "but valued as another die"),
    pytest.param(lab(die="d4", box=None), face(die="d4", value=2),
                 dict(type_accuracy=1, share_accepted=None, end_to_end=None, mistyped_valued=0),
                 id="type-only label: a D4 named d4 is right"),
    pytest.param(lab(die="d6", value=None, box=None), face(die="d6", value=4),
                 dict(type_accuracy=1, accepted_wrong_rate=None, mistyped_valued=0),
                 id="type-only label read as its own type with a value: nothing to call wrong"),
    pytest.param(lab(die="d4", value=None), unreadable(die="d6"),
                 dict(type_accuracy=0, mistyped_valued=0),
                 id="a D4 called a D6 but given no value: a type error only"),
    pytest.param(lab(die="d12", value=None, state="cocked"), face(die="d20", value=7),
                 dict(cocked_given_value=1, mistyped_valued=0),
                 id="a cocked die valued as another die counts once, as cocked valued"),
    pytest.param(lab(value=2), None,
                 dict(found_rate=0, type_accuracy=None, share_accepted=None,
                      accepted_wrong_rate=0, end_to_end=0),
                 id="missed die: counts against found and end-to-end"),
    pytest.param(None, face(value=2),
                 dict(found_rate=None, false_detections=1, false_valued=1, end_to_end=None),
                 id="reading with no die under it, given a value: a phantom die"),
    pytest.param(None, unreadable(),
                 dict(false_detections=1, false_valued=0),
                 id="reading with no die under it, refused: a false detection, no phantom"),
]


@pytest.mark.parametrize("label, reading, expected", FIGURE_CASES)
def test_figures_for_one_die(label, reading, expected):
    s = one(label, reading)
    for name, want in expected.items():
        got = getattr(s, name)
        assert got == want, f"{name}: {got} != {want}"


def test_cocked_label_given_a_value_is_counted():
    s = one(lab(value=None, state="cocked"), face(value=4))
    assert s.cocked_labeled == 1 and s.cocked_given_value == 1
    s = one(lab(value=None, state="cocked"), cocked())
    assert s.cocked_labeled == 1 and s.cocked_given_value == 0


def test_a_mixed_set_adds_up():
    images = [
        # 3 dice: right, wrong value accepted, unreadable; plus one false detection
        score_image("a.png",
                    [lab(value=1, box=(0, 0, 50, 50)), lab(value=2, box=(100, 0, 150, 50)),
                     lab(value=3, box=(200, 0, 250, 50))],
                    [face(value=1, box=(0, 0, 50, 50)), face(value=5, box=(100, 0, 150, 50)),
                     unreadable(box=(200, 0, 250, 50)), face(value=6, box=(400, 400, 450, 450))],
                    ms=20.0),
        # 2 dice: one right with the wrong type (d8 read as d10, accepted), one missed
        score_image("b.png",
                    [lab(die="d8", value=4, box=(0, 0, 50, 50)),
                     lab(die="d8", value=7, box=(100, 0, 150, 50))],
                    [face(die="d10", value=4, box=(0, 0, 50, 50))], ms=40.0),
        # a file that could not be read: its die is missed, its time is not counted
        failed_image("c.png", [lab(value=6)], "corrupt"),
    ]
    s = summarise("mixed", images)
    assert (s.images, s.images_failed, s.dice, s.found) == (3, 1, 6, 4)
    assert (s.value_labeled, s.value_found, s.accepted, s.right, s.accepted_wrong) == (6, 4, 3, 1, 2)
    assert s.type_accuracy == 3 / 4
    assert s.share_accepted == 3 / 4
    assert s.value_accuracy == 1 / 3
    assert s.accepted_wrong_rate == 2 / 6
    assert s.end_to_end == 1 / 6
    assert s.false_detections == 1 and s.false_valued == 1
    assert s.ms == [20.0, 40.0] and s.ms_mean == 30.0
    assert s.type_confusions == {"d8->d10": 1}
    assert s.value_confusions == {"d6 2->5": 1}
    assert s.by_die == {"d6": [1, 4], "d8": [0, 2]}
    j = s.to_json()
    assert j["end_to_end"] == round(1 / 6, 5) and j["images_failed"] == 1
    assert j["by_die"]["d8"] == {"right": 0, "dice": 2}
    assert "end-to-end by die: d6 1/4, d8 0/2" in format_details(s)


# (label, reading, refused): why a die that has a value was given none, by the reading's reason
REFUSAL_CASES = {
    "refused with its reason": (lab(value=3), unreadable(), {"glare": 1}),
    "called cocked": (lab(value=3), cocked(), {"called cocked": 1}),
    "accepted, even wrong, is no refusal": (lab(value=3), face(value=4), {}),
    "a cocked die has no value to refuse": (lab(value=None, state="cocked"), cocked(), {}),
    "a missed die was never read": (lab(value=3), None, {}),
}


@pytest.mark.parametrize("label, reading, refused", REFUSAL_CASES.values(), ids=REFUSAL_CASES.keys())
def test_refusals_are_counted_by_reason(label, reading, refused):
    s = one(label, reading)
    assert s.refused == refused
    assert s.to_json()["refused"] == refused
    assert ("  refused: " in format_details(s)) == bool(refused)


def test_refusals_are_listed_commonest_first():
    labels = [lab(value=v, box=(100 * i, 0, 100 * i + 50, 50)) for i, v in enumerate((1, 2, 3))]
    readings = [unreadable(box=(0, 0, 50, 50)), cocked(box=(100, 0, 150, 50)), cocked(box=(200, 0, 250, 50))]
    s = summarise("s", [score_image("a.png", labels, readings, ms=1.0)])
    assert "  refused: called cocked 2, glare 1" in format_details(s)


@pytest.mark.parametrize("values, q, want", [
    pytest.param(list(range(1, 101)), 95, 95, id="p95 of 1..100 is 95"),
    pytest.param([4, 1, 3, 2], 50, 2, id="p50 of four values is the second smallest"),
    pytest.param([7.5], 95, 7.5, id="one value is every percentile"),
    pytest.param([], 95, None, id="no values: no percentile"),
])
def test_percentile(values, q, want):
    assert percentile(values, q) == want


def test_table_is_aligned_and_shows_dashes_for_figures_with_nothing_to_count():
    a = one(lab(value=5), face(value=5))
    b = summarise("type-only-set", [score_image("x.png", [lab(die="d20", box=None)],
                                                 [face(die="d20", value=3)], ms=5.0)])
    text = format_table([a, b])
    lines = text.splitlines()
    assert len({len(line) for line in lines}) == 1, text  # every row lines up
    assert lines[0].split()[:3] == ["set", "images", "dice"]
    row_b = lines[3]
    assert row_b.startswith("type-only-set")
    assert "100.0%" in row_b  # type accuracy
    assert row_b.count(" - ") + row_b.endswith(" -") >= 3  # no value figures for type-only
    assert "100.00%" in lines[2]  # end to end for the right die


def test_details_name_the_confusions():
    s = summarise("s", [score_image("a.png", [lab(die="d10", value=6, box=(0, 0, 50, 50))],
                                    [face(die="d10", value=9, box=(0, 0, 50, 50))], ms=1.0)])
    text = format_details(s)
    assert "accepted-but-wrong 1" in text
    assert "d10 6->9 x1" in text


def test_a_d4_valued_as_another_die_is_shown_and_told():
    """A D4 read as a D6 showing 2 feeds the rules a value from a die that is not a D6: the sheet
    puts it first, among the accepted wrong, and the details say so, though its label has no value."""
    r = score_image("a.png", [lab(die="d4", value=None)], [face(die="d6", value=2, conf=0.93)], ms=1.0)
    assert [d.kind for d in r.dice] == ["accepted-wrong"]
    s = summarise("s", [r])
    assert s.mistyped_valued == 1 and s.to_json()["mistyped_valued"] == 1
    assert "given one as another die (a D4 read as a D6): 1" in format_details(s)
    assert "as another die" not in format_details(one(lab(die="d4", value=None), unreadable()))


def test_image_result_keeps_every_die_once():
    r = score_image("a.png", [lab(value=1), lab(value=2, box=(100, 0, 150, 50))],
                    [face(value=1), face(box=(0, 300, 9, 309))], ms=1.0)
    assert isinstance(r, ImageResult)
    assert sorted(d.kind for d in r.dice) == ["missed", "phantom", "right"]


@pytest.mark.parametrize("reading, kind", [
    pytest.param(face(box=(0, 300, 9, 309)), "phantom", id="given a value: a die the rules would count"),
    pytest.param(unreadable(box=(0, 300, 9, 309)), "false-detection", id="refused: roll again, nothing counted"),
    pytest.param(cocked(box=(0, 300, 9, 309)), "false-detection", id="called cocked: no value either"),
])
def test_a_find_no_label_explains_is_a_phantom_only_where_it_is_given_a_value(reading, kind):
    r = score_image("a.png", [], [reading], ms=1.0)
    assert [d.kind for d in r.dice] == [kind]


@pytest.mark.parametrize("box, want", [
    pytest.param((0, 0, 20, 23.9), "<24", id="under 24 px"),
    pytest.param((10, 10, 34, 30), "24-32", id="24 px wide: the next bin starts at its edge"),
    pytest.param((0, 0, 40, 63), "48-64", id="the longer side decides"),
    pytest.param((0, 0, 96, 96), ">=96", id="96 px and over"),
    pytest.param(None, None, id="no box (a single-die image): no size"),
])
def test_size_bin(box, want):
    assert size_bin(box) == want


def test_end_to_end_by_die_size_says_which_dice_are_too_small_to_read():
    images = [score_image("a.png",
                          [lab(value=3, box=(0, 0, 20, 20)), lab(value=5, box=(100, 0, 120, 20)),
                           lab(value=2, box=(200, 0, 270, 70))],
                          [face(value=3, box=(0, 0, 20, 20)), face(value=4, box=(100, 0, 120, 20)),
                           face(value=2, box=(200, 0, 270, 70))], ms=1.0)]
    s = summarise("s", images)
    assert s.by_size == {"<24": [1, 2], "64-96": [1, 1]}
    assert s.to_json()["by_size"] == {"<24": {"right": 1, "dice": 2}, "64-96": {"right": 1, "dice": 1}}
    assert "end-to-end by die size (box side, px): <24 1/2, 64-96 1/1" in format_details(s)
    # one size only: the line would say nothing the table does not
    assert "by die size" not in format_details(one(lab(value=3), face(value=3)))
