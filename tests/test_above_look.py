"""The above look (models/reader_above.onnx, lean look v3, session 60) on real D20 it was never taught:
crops-fickett's D20, photographed from above by an automatic roller (evaluation only, never trained
on). What a user notices: with no camera described, a D20 read from above by the D20's own look at
0.94 or more is given its value only where the look finds it lying flat, seen straight down
(reader.vision.above), and a single photo's die refused is read again as a camera straight above sees
it, where the look refuses it if it leans (Recognizer.read_single); the lean look v2, taught no real
D20, doubted most of them, and a banish with a D20 ended in "roll again". The above look was taught
type-lurig's D20 from above and from 45 degrees: it lets more of fickett's through, and none more
wrong. Skipped when ../shared/realdata is absent.
"""

from __future__ import annotations

import copy

import pytest

from reader.commands.evaluate import evaluate_images
from reader.vision.evaluate import summarise
from reader.vision.realdata import load_set, realdata_root
from reader.vision.recognizer import Recognizer

FICKETT = realdata_root() / "crops-fickett"
EVERY = 4  # every fourth of its 2,720 D20, in the labels' order: 680 photos, about 17 s a reading

pytestmark = pytest.mark.skipif(not (FICKETT / "labels.jsonl").is_file(), reason="crops-fickett absent")


def test_real_d20_from_above_are_read_more_often_by_the_above_look_and_never_wrong():
    d20 = [im for im in load_set(FICKETT) if im.dice and im.dice[0].die == "d20"][::EVERY]
    rec = Recognizer.load()
    assert rec.above_look is not None
    with_look = summarise("fickett d20", evaluate_images(d20, rec))
    v2 = copy.copy(rec)
    v2.above_look = None  # the D20 judged by the lean look v2, as reader v23 shipped
    without = summarise("fickett d20", evaluate_images(d20, v2))
    # measured (session 60): these 680, 88 right with the above look and 74 with the lean look, one wrong
    # either way (a D20 labeled 1 read as 7 at the reader's own threshold, not by this rule); all 2,720, 355 and 295
    assert len(d20) == 680
    assert with_look.accepted_wrong <= without.accepted_wrong <= 1
    assert with_look.right >= without.right + 8
