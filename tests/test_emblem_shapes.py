"""Emblems drawn from a number (reader.synth.emblem_shapes; bulk crops --logos up --emblems procedural).

A look taught that a logo is no face from these must never be shown a face it is right to read as
one: a pip, a bar, a ring. Pure numpy and OpenCV: runs in CI, which never renders."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from reader.synth.emblem_shapes import LETTERS, _pip_or_bar, shape
from reader.synth.logos import DRAWN_FROM, FAMILIES, TAUGHT, emblem, put_logos

BIG = 512


def _canvas():
    return np.zeros((BIG, BIG), np.uint8)


def _disc():
    img = _canvas()
    cv2.circle(img, (256, 256), 150, 255, -1)
    return img


def _square():
    img = _canvas()
    cv2.rectangle(img, (120, 120), (390, 390), 255, -1)
    return img


def _bar():
    img = _canvas()
    cv2.rectangle(img, (235, 80), (280, 430), 255, -1)
    return img


def _ring():
    img = _canvas()
    cv2.circle(img, (256, 256), 160, 255, 30)
    return img


def _specks():
    img = _canvas()
    for x, y in ((100, 120), (380, 200), (240, 400)):
        cv2.circle(img, (x, y), 12, 255, -1)
    return img


def _disc_cut_by_a_hairline():
    img = _disc()
    cv2.line(img, (80, 256), (430, 256), 0, 3)
    return img


def _deep_star():
    img = _canvas()
    pts = [((1.0 if i % 2 == 0 else 0.35) * np.sin(np.pi * i / 5), -(1.0 if i % 2 == 0 else 0.35) * np.cos(np.pi * i / 5))
           for i in range(10)]
    cv2.fillPoly(img, [np.int32([(256 + 180 * x, 256 + 180 * y) for x, y in pts])], 255)
    return img


def _letters():
    img = _canvas()
    cv2.putText(img, "AK", (90, 330), cv2.FONT_HERSHEY_DUPLEX, 6, 255, 24)
    return img


def _ring_round_a_star():
    img = _deep_star() // 2
    img[img > 0] = 255
    small = cv2.resize(img, None, fx=0.5, fy=0.5)
    out = _canvas()
    out[128:384, 128:384] = small
    cv2.circle(out, (256, 256), 200, 255, 24)
    return out


GUARD = {
    "a round disc is a pip D6's 1": (_disc, True),
    "a filled square is a pip at 15 px": (_square, True),
    "a straight bar is a 1": (_bar, True),
    "a lone ring is a 0": (_ring, True),
    "next to no ink is a blank face": (_specks, True),
    "a disc cut by a hairline is a pip at 15 px": (_disc_cut_by_a_hairline, True),
    "a star of deep points is a logo": (_deep_star, False),
    "two letters are a logo": (_letters, False),
    "a ring round a star is a logo": (_ring_round_a_star, False),
}


@pytest.mark.parametrize("draw,refused", GUARD.values(), ids=GUARD.keys())
def test_the_guard_refuses_what_a_reader_is_right_to_read(draw, refused):
    assert _pip_or_bar(draw()) == refused


def test_no_emblem_drawn_is_a_pip_a_bar_or_a_ring():
    for n in range(DRAWN_FROM, DRAWN_FROM + 200):
        tile = shape(n, 128)
        assert tile.shape == (128, 128) and tile.dtype == np.uint8
        assert not _pip_or_bar(tile), n


def test_a_number_draws_one_emblem_and_numbers_draw_many():
    assert np.array_equal(shape(4242, 96), shape(4242, 96))
    tiles = [shape(n, 64).astype(int) for n in range(DRAWN_FROM, DRAWN_FROM + 60)]
    twins = {j for i in range(60) for j in range(i + 1, 60) if np.abs(tiles[i] - tiles[j]).mean() < 3}
    assert len(twins) <= 2, "sixty numbers, sixty emblems but for a lone letter drawn twice"
    ink = [(t > 127).mean() for t in tiles]
    assert min(ink) > 0.02 and max(ink) < 0.6, "a mark of a numeral's size, not a blank or a blot"


def test_letters_that_pass_for_digits_are_never_drawn():
    for twin in "OILSZBGDQUTE0123456789":
        assert twin not in LETTERS


def test_the_procedural_family_is_the_generator_and_may_be_taught():
    assert "procedural" in TAUGHT and "held-out" not in TAUGHT
    kinds = FAMILIES["procedural"]
    assert len(kinds) >= 10_000 and min(kinds) == DRAWN_FROM
    assert np.array_equal(emblem(DRAWN_FROM + 7, 96), shape(DRAWN_FROM + 7, 96))


def test_dice_marked_from_the_procedural_family_bear_many_emblems():
    from reader.synth.layouts import MIXES, crop_scene

    kinds = []
    for i in range(40):
        scene = crop_scene(np.random.default_rng([76, i]), size=96, classes=MIXES["all"])
        put_logos(scene, np.random.default_rng([76, i, 29]), up=True, family="procedural")
        kinds += [d["material"]["atlas"][11][1] for d in scene["dice"] if "logo" in d]
    assert len(kinds) > 30 and all(k in FAMILIES["procedural"] for k in kinds)
    assert len(set(kinds)) == len(kinds), "each die an emblem of its own"


BULK_ERRORS = {
    "procedural emblems without logos": ["--emblems", "procedural"],
    "the held-out family is never taught": ["--logos", "up", "--emblems", "held-out"],
}


@pytest.mark.parametrize("args", BULK_ERRORS.values(), ids=BULK_ERRORS.keys())
def test_bulk_refuses_emblems_it_cannot_draw(args):
    from reader.synth.bulk import _run

    with pytest.raises(SystemExit):
        _run(["crops", "--out", "/nonexistent", "--count", "1", *args])
