"""An evaluation die by die (`evaluate --dice`) and two of them compared (`--against`)."""

from __future__ import annotations

import pytest

from reader.reading import Box, Cocked, DieReading, Face, Unreadable
from reader.vision.die_log import compare, die_rows
from reader.vision.evaluate import score_image
from reader.vision.realdata import LabeledDie

BOX_A, BOX_B = (10.0, 10.0, 50.0, 50.0), (100.0, 10.0, 140.0, 50.0)


def face(die, value, box, conf=0.97):
    return DieReading(die, Box(*box), Face(value, conf))


def refused(die, box, conf=0.7, why="low confidence"):
    return DieReading(die, Box(*box), Unreadable(why, conf))


def rows_of(readings, labels=(("d6", 4, BOX_A), ("d20", 17, BOX_B)), image="frames/1.png"):
    labeled = [LabeledDie(d, v, b) for d, v, b in labels]
    return die_rows("set", [score_image(image, labeled, readings, 1.0)])


BEFORE = [face("d6", 4, BOX_A), refused("d20", BOX_B)]

# (before's readings, after's readings, [(labeled die, for the worse)] of the changes, phantom counts moved)
CASES = {
    "the same readings: nothing changed": (BEFORE, BEFORE, [], []),
    "only a confidence moved: nothing changed": (BEFORE, [face("d6", 4, BOX_A, 0.91), refused("d20", BOX_B, 0.8)],
                                                 [], []),
    "a die no longer read: for the worse": (BEFORE, [refused("d6", BOX_A), refused("d20", BOX_B)], [("d6", True)], []),
    "a die read wrong anew: for the worse": (BEFORE, [face("d6", 5, BOX_A), refused("d20", BOX_B)], [("d6", True)], []),
    "a die read that was refused: a change, not worse": (BEFORE, [face("d6", 4, BOX_A), face("d20", 17, BOX_B)],
                                                         [("d20", False)], []),
    "a die missed": (BEFORE, [face("d6", 4, BOX_A)], [("d20", False)], []),
    "refused as another die type: a change, not worse": (BEFORE, [face("d6", 4, BOX_A), refused("d12", BOX_B)],
                                                          [("d20", False)], []),
    "refused, then called cocked: a change, not worse": (BEFORE, [face("d6", 4, BOX_A),
                                                                  DieReading("d20", Box(*BOX_B), Cocked(0.9))],
                                                         [("d20", False)], []),
    "read wrong, then wrong otherwise: a change, not worse": ([face("d6", 5, BOX_A), refused("d20", BOX_B)],
                                                              [face("d6", 6, BOX_A), refused("d20", BOX_B)],
                                                              [("d6", False)], []),
    "a phantom given a value: counted for its image": (BEFORE, BEFORE + [face("d6", 1, (200.0, 200.0, 230.0, 230.0))],
                                                       [], [("set", "frames/1.png", 0, 1)]),
}


@pytest.mark.parametrize("before, after, changed, phantoms", list(CASES.values()), ids=list(CASES))
def test_compare_names_the_dice_whose_reading_changed(before, after, changed, phantoms):
    c = compare(rows_of(before), rows_of(after))
    assert [(ch.label["die"], ch.worse) for ch in c.changes] == changed
    assert list(c.phantoms) == phantoms
    assert c.compared == 2


def test_only_images_both_logs_scored_are_compared():
    """A log of a holdout fifth against one of every image is compared on the fifth."""
    old = rows_of(BEFORE)
    new = rows_of(BEFORE) + rows_of([refused("d6", BOX_A)], labels=[("d6", 4, BOX_A)], image="frames/2.png")
    c = compare(old, new)
    assert c.compared == 2 and not c.changes


def test_two_dice_alike_in_one_image_are_each_compared_once():
    """Two labels of the same die and value on the same box (a set's duplicate line) pair up in turn."""
    labels = [("d6", 3, BOX_A), ("d6", 3, BOX_A)]
    before = rows_of([face("d6", 3, BOX_A), face("d6", 3, BOX_A)], labels=labels)
    after = rows_of([face("d6", 3, BOX_A)], labels=labels)
    c = compare(before, after)
    assert c.compared == 2 and [ch.after["kind"] for ch in c.changes] == ["missed"]


def test_a_change_says_what_was_read_before_and_after():
    (change,) = compare(rows_of(BEFORE), rows_of([refused("d6", BOX_A, 0.81), refused("d20", BOX_B)])).changes
    assert change.describe() == ("set frames/1.png: d6 4: d6 4 (0.97) [right] -> "
                                 "d6 refused: low confidence (0.81) [not-accepted]")
