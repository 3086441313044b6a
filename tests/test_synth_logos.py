"""Dice bearing a maker's logo on one face (reader.synth.logos; bulk crops --logos).

Pure numpy but for the atlas cases (PIL): runs in CI, which never renders."""

from __future__ import annotations

import numpy as np
import pytest

from reader.synth import geometry as geo
from reader.synth.logos import KINDS, emblem, logo_value, put_logos
from reader.synth.numbering import draw_numbers

# die, style -> the face a maker puts the logo on
LOGO_FACES = {
    "a D20's 20": ("d20", None, 20),
    "a D12's 12": ("d12", None, 12),
    "a D10's 0, its 10": ("d10", None, 10),
    "a D8's 8": ("d8", None, 8),
    "a numeral D6's 6": ("d6", "numerals", 6),
    "a pip D6's 1, the face with the most room": ("d6", "pips", 1),
    "none on a D4": ("d4", None, None),
}


@pytest.mark.parametrize("die,style,value", LOGO_FACES.values(), ids=LOGO_FACES.keys())
def test_the_logo_goes_where_makers_put_it(die, style, value):
    assert logo_value(die, style) == value


def test_every_emblem_is_ink_and_each_its_own():
    tiles = [emblem(k, 128) for k in range(KINDS)]
    for t in tiles:
        assert t.shape == (128, 128) and t.dtype == np.uint8
        assert 0.04 < (t > 127).mean() < 0.5, "a mark of a numeral's size, not a blank or a blot"
    for i in range(KINDS):
        for j in range(i + 1, KINDS):
            assert np.abs(tiles[i].astype(int) - tiles[j]).mean() > 10, (i, j)


def _tile(atlas, face, cols):
    from reader.synth.textures import TILE

    r, c = divmod(face, cols)
    return atlas[r * TILE:(r + 1) * TILE, c * TILE:(c + 1) * TILE, 0]


# die, style, numbers (() the solid's own), logo value
ATLASES = {
    "a D20's 20": ("d20", "numerals", (), 20),
    "a pip D6's 1": ("d6", "pips", (), 1),
    "a D10 numbered anew, its 0": ("d10", "numerals", "anew", 10),
    "a D12's 5 (the face a crop shows up)": ("d12", "numerals", (), 5),
}


@pytest.mark.parametrize("die,style,numbers,value", ATLASES.values(), ids=ATLASES.keys())
def test_the_emblem_takes_that_face_alone(die, style, numbers, value):
    """The face showing `value` is the emblem; every other face is drawn as without a logo."""
    pytest.importorskip("PIL")
    from reader.synth.textures import atlas_grid, label_atlas

    if numbers == "anew":
        numbers = draw_numbers(die, np.random.default_rng(4))
    s = geo.numbered(die, tuple(numbers))
    args = (die, style, 0, 0.6, "underline", 0.5, 0.16, 0.0, (), (), tuple(numbers))
    plain, logo = label_atlas(*args), label_atlas(*args, (value, 2))
    cols, _ = atlas_grid(len(s.faces))
    face = s.values.index(value)
    for i in range(len(s.faces)):
        if i == face:
            assert np.array_equal(_tile(logo, i, cols), emblem(2, 128))
            assert not np.array_equal(_tile(plain, i, cols), _tile(logo, i, cols))
        else:
            assert np.array_equal(_tile(plain, i, cols), _tile(logo, i, cols)), i


def _scenes(n=30, seed=8):
    from reader.synth.layouts import MIXES, crop_scene

    for i in range(n):
        yield crop_scene(np.random.default_rng([seed, i, 1]), classes=MIXES["all"])


def test_logos_up_put_an_emblem_on_the_main_dies_face_up_and_say_so():
    """--logos up: every crop whose main die lies flat shows an emblem up, its label row marked, its
    value what that face is; the dice lie as the seed put them."""
    from reader.synth.scene import label_die

    shown = 0
    for base, scene in zip(_scenes(), _scenes()):
        put_logos(scene, np.random.default_rng(3), up=True)
        for b, d in zip(base["dice"], scene["dice"], strict=True):
            assert b["R"] == d["R"] and b["t"] == d["t"]
        main, row = scene["dice"][0], scene["labels"][0]
        assert [(r["die"], r["value"], r["box"]) for r in base["labels"]] == \
               [(r["die"], r["value"], r["box"]) for r in scene["labels"]]
        if main["die"] == "d4" or row["value"] is None:
            assert not row.get("logo")
            continue
        assert row["logo"] is True
        assert main["material"]["atlas"][11][0] == row["value"] == label_die(main).value
        shown += 1
    assert shown >= 15


def test_some_logos_mark_a_share_of_the_dice_on_their_makers_face():
    """--logos some: about a third of the dice bear a logo, each on its maker's face; a label says
    "logo" exactly where that face is up."""
    from reader.synth.scene import label_die, labeled_die

    dice = marked = 0
    for scene in _scenes(60, seed=9):
        put_logos(scene, np.random.default_rng(5))
        for d in scene["dice"]:
            if d["die"] == "d4":
                assert "logo" not in d
                continue
            dice += 1
            if "logo" in d:
                marked += 1
                assert d["logo"] == logo_value(d["die"], d["style"])
        for row in scene["labels"]:
            d = labeled_die(scene, row)
            up = row["value"] is not None and d.get("logo") == label_die(d).value
            assert bool(row.get("logo")) == up
    assert 0.2 < marked / dice < 0.4, (marked, dice)


def test_bulk_marks_only_crops():
    from reader.synth.bulk import _run

    with pytest.raises(SystemExit):
        _run(["scenes", "--out", "/nonexistent", "--count", "1", "--logos", "up"])


def test_the_held_out_family_is_drawn_only_when_asked():
    """The emblems a look is judged on (logos.FAMILIES["held-out"]) are their own shapes, and put_logos
    draws from them only when asked: taught on "drawn", judged on "held-out"."""
    from reader.synth.logos import FAMILIES

    drawn = [emblem(k, 128) for k in FAMILIES["drawn"]]
    held = [emblem(k, 128) for k in FAMILIES["held-out"]]
    for h in held:
        assert 0.04 < (h > 127).mean() < 0.5
        assert all(np.abs(h.astype(int) - d).mean() > 10 for d in drawn)
    for family in ("drawn", "held-out"):
        kinds = set()
        for scene in _scenes(20, seed=10):
            put_logos(scene, np.random.default_rng(6), up=True, family=family)
            kinds |= {d["material"]["atlas"][11][1] for d in scene["dice"] if "logo" in d}
        assert kinds and kinds <= set(FAMILIES[family]), (family, kinds)
