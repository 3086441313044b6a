"""Branded dice: a maker's logo on the face up, where a number would be (reader/synth/logos.py).

Nothing on such a face says which number it stands for, so the reader's answer for it is "roll
again", or by luck the number makers put the logo on (a pip D6's 1, a D20's 20). fixtures/logo-faces
holds 80 rendered photos of one die each, its emblem up on every die lying flat (`python -m
reader.synth.bulk crops --out fixtures/logo-faces --count 80 --seed 7530 --logos up`: cameras 0-35
degrees off vertical, a tenth of the dice cocked, other dice at the edges; the main die is the first
label). The release gives some emblems another number: a known failure (models/reader.md, "Session
75"; benchmarks/logo_faces.py measures it on 900 photos).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import pytest

from reader.synth.logos import logo_value
from reader.vision.recognizer import Recognizer

LOGOS = Path(__file__).resolve().parents[1] / "fixtures" / "logo-faces"


def rows() -> list[dict]:
    """The fixture's label rows (bulk's: the main die first)."""
    return [json.loads(line) for line in (LOGOS / "labels.jsonl").read_text().splitlines() if line.strip()]


def photos():
    """(image, main die's label row) of every photo whose die shows its emblem up."""
    return [(cv2.imread(str(LOGOS / r["image"])), r["dice"][0]) for r in rows() if r["dice"][0].get("logo")]


@pytest.fixture(scope="module")
def read():
    """Per emblem photo: 'refused', 'the maker's number' or 'another number'."""
    recognizer = Recognizer.load()
    out = Counter()
    for image, die in photos():
        r = recognizer.read_single(image)
        if r.value is None:
            out["refused"] += 1
        elif r.die == die["die"] and r.value == logo_value(die["die"], die.get("style")):
            out["the maker's number"] += 1
        else:
            out["another number"] += 1
    return out


def test_every_flat_die_of_the_fixture_shows_its_emblem_up():
    rows_ = rows()
    flat = [r["dice"][0] for r in rows_ if r["dice"][0]["state"] == "flat" and r["dice"][0]["die"] != "d4"]
    assert len(rows_) == 80 and len(flat) >= 60
    assert all(d.get("logo") is True for d in flat)
    assert all(not r["dice"][0].get("logo") for r in rows_ if r["dice"][0] not in flat)


def test_most_emblems_are_refused(read):
    """A logo face is "roll again" far more often than a number (the release: 60 of the 66 emblems refused,
    3 read as the maker's number, 3 as another)."""
    assert read["refused"] >= 0.85 * sum(read.values()), read


@pytest.mark.xfail(strict=True, reason="known failure of the committed reader: some emblems are read as "
                   "another number (models/reader.md, Session 75); remove this mark when fixed")
def test_no_emblem_is_read_as_another_number(read):
    assert read["another number"] == 0, read
