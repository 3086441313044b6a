"""Makers' digit forms (bulk crops --glyphs makers): each form draws what it says on its own digit,
leaves the other digits alone and stays on its face (that a scene changes only in its ink:
tests/test_synth_render.py)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PIL")

from reader.synth.digit_forms import FORMS  # noqa: E402
from reader.synth.textures import _draw_text_tile, fonts  # noqa: E402

ALL = tuple(FORMS)

try:
    fonts()
except RuntimeError as exc:  # no font packages here: nothing to draw digits with
    pytest.skip(str(exc), allow_module_level=True)


def _ink_box(tile: np.ndarray) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero(tile > 127)
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def _top_band_span(tile: np.ndarray) -> float:
    """Share of the glyph's width inked in its top tenth: a flat top spans it, a round one does not."""
    x0, y0, x1, y1 = _ink_box(tile)
    band = tile[y0: y0 + max(2, (y1 - y0) // 10), x0:x1] > 127
    return float(band.any(axis=0).sum()) / (x1 - x0)


def _base_over_height(tile: np.ndarray) -> float:
    """How wide the glyph stands on its bottom tenth, over its height."""
    x0, y0, x1, y1 = _ink_box(tile)
    band = tile[y1 - max(2, (y1 - y0) // 10): y1] > 127
    cols = np.nonzero(band.any(axis=0))[0]
    return float(cols.max() - cols.min() + 1) / (y1 - y0)


def _flat_top(plain, formed) -> bool:
    return _top_band_span(formed) >= 0.9 > _top_band_span(plain)


def _footed(plain, formed) -> bool:
    return _base_over_height(formed) >= 0.5  # a font whose 1 has a foot already keeps its own


def _crossed(plain, formed) -> bool:
    return (formed > 127).sum() > (plain > 127).sum() * 1.08


# (form, digit, what the form must do to that digit, in every font)
SHAPES = {
    "a flat-topped 3 spans its top": ("flat3", "3", _flat_top),
    "a footed 1 stands on half its height": ("foot1", "1", _footed),
    "a crossed 7 is inked across its middle": ("cross7", "7", _crossed),
}


@pytest.mark.parametrize("form,digit,holds", SHAPES.values(), ids=SHAPES.keys())
def test_each_form_draws_its_digit_so(form, digit, holds):
    for font in fonts():
        plain = _draw_text_tile(digit, font, 0.54, "none")
        formed = _draw_text_tile(digit, font, 0.54, "none", forms=(form,))
        assert holds(plain, formed), font


@pytest.mark.parametrize("text", ["2", "8", "20", "6", "9"])
def test_forms_leave_other_digits_as_the_font_draws_them(text):
    for font in fonts():
        assert np.array_equal(_draw_text_tile(text, font, 0.5, "underline"),
                              _draw_text_tile(text, font, 0.5, "underline", forms=ALL)), font


@pytest.mark.parametrize("text", ["1", "11", "13", "17", "7", "3"])
def test_formed_numerals_stay_on_their_face(text):
    """Ink at the tile's edge would print part of a numeral on the neighbouring face."""
    for font in fonts():
        tile = _draw_text_tile(text, font, 0.54, "none", forms=ALL)
        edge = np.concatenate([tile[:3].ravel(), tile[-3:].ravel(), tile[:, :3].ravel(), tile[:, -3:].ravel()])
        assert edge.max() < 32, font
