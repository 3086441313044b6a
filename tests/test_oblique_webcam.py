"""A webcam on a desk, close to the dice and oblique: desk-d6-matteo's holdout fifth.

Seen so, a die shows its top face and, below it, the side face toward the camera. The detector
sometimes boxes that side face apart, and the reader reads it as a die of its own: one die counted
twice, a 1 up read as a 1 and a 5 (models/reader.md, Known failures, session 46). What a player
notices is a roll with more dice than were thrown. Skipped when ../shared/realdata is absent.
"""

from __future__ import annotations

import cv2
import pytest

from reader.vision.evaluate import match
from reader.vision.realdata import load_set, realdata_root
from reader.vision.recognizer import Recognizer

MATTEO = realdata_root() / "desk-d6-matteo"

pytestmark = pytest.mark.skipif(not (MATTEO / "labels.jsonl").is_file(), reason="../shared/realdata absent")


def dice_read_twice(recognizer: Recognizer, images) -> list[str]:
    """A valued find matching no labeled die that overlaps a find matched to one: a die read twice.
    (A real die the labels left out matches none too, but lies apart from the labeled ones.)"""
    twice = []
    for im in images:
        readings = recognizer.read_frame(cv2.imread(str(im.path)))
        pairs = match(im.dice, readings)
        matched = [readings[ri].box for li, ri in pairs if li is not None and ri is not None]
        unlabeled = [readings[ri] for li, ri in pairs if li is None and readings[ri].value is not None]
        twice += [im.name for r in unlabeled if any(r.box.intersection(box) > 0 for box in matched)]
    return twice


@pytest.mark.xfail(strict=True, reason="known failure of the committed reader: 3 side faces on 2 of matteo's "
                   "holdout photos are read as dice of their own (models/reader.md); remove this mark when fixed")
def test_a_die_seen_obliquely_is_read_once():
    images = [im for im in load_set(MATTEO) if im.holdout]
    assert len(images) >= 50
    assert dice_read_twice(Recognizer.load(), images) == []
