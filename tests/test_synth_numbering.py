"""Dice numbered as other makers number theirs (reader.synth.numbering; bulk crops --numbers varied).

Pure numpy but for the atlas case (PIL): runs in CI, which never renders."""

from __future__ import annotations

import numpy as np
import pytest

from reader.synth import geometry as geo
from reader.synth.numbering import draw_numbers, spindown, vary_numbers
from reader.synth.scene import die_solid


def _opposite(s: geo.Solid, i: int) -> int:
    return int(np.argmin(s.normals @ s.normals[i]))


def _touch(s: geo.Solid, i: int, j: int) -> bool:
    return len(set(s.faces[i]) & set(s.faces[j])) == 2


# die, what opposite faces of every numbering drawn must show: (a, b) -> ok
OPPOSITES = {
    "a D6's opposite faces sum to 7": ("d6", lambda a, b: a + b == 7),
    "a D8's sum to 9": ("d8", lambda a, b: a + b == 9),
    "a D10's sum to 9 counting its 0 as 0": ("d10", lambda a, b: a % 10 + b % 10 == 9),
    "a D12's sum to 13": ("d12", lambda a, b: a + b == 13),
}


@pytest.mark.parametrize("die,ok", OPPOSITES.values(), ids=OPPOSITES.keys())
def test_every_numbering_keeps_what_real_dice_keep(die, ok):
    s = geo.solid(die)
    drawn = set()
    for seed in range(30):
        values = draw_numbers(die, np.random.default_rng(seed))
        assert sorted(values) == sorted(s.values), "each number once"
        assert all(ok(values[i], values[_opposite(s, i)]) for i in range(len(values)))
        drawn.add(values)
    assert len(drawn) >= 10, "numbered anew, not one fixed way"


def test_a_d10_keeps_its_odd_numbers_around_one_apex():
    s = geo.solid("d10")
    for seed in range(20):
        values = draw_numbers("d10", np.random.default_rng(seed))
        top = {values[i] % 2 for i in range(10) if s.normals[i][2] > 0}
        assert len(top) == 1, values


def test_a_d20_is_balanced_or_a_spindown():
    s = geo.solid("d20")
    kinds = {"balanced": 0, "spindown": 0}
    for seed in range(60):
        values = draw_numbers("d20", np.random.default_rng(seed))
        assert sorted(values) == list(range(1, 21))
        if all(values[i] + values[_opposite(s, i)] == 21 for i in range(20)):
            kinds["balanced"] += 1
        else:
            at = {v: i for i, v in enumerate(values)}
            assert all(_touch(s, at[v], at[v + 1]) for v in range(1, 20)), values
            kinds["spindown"] += 1
    assert kinds["balanced"] > kinds["spindown"] > 3, kinds


@pytest.mark.parametrize("seed", range(5))
def test_a_spindown_counts_from_face_to_touching_face(seed):
    s = geo.solid("d20")
    values = spindown(s, np.random.default_rng(seed))
    at = {v: i for i, v in enumerate(values)}
    assert sorted(values) == list(range(1, 21))
    assert all(_touch(s, at[v], at[v + 1]) for v in range(1, 20))


def test_numbering_anew_changes_the_numbers_not_the_dice():
    """The same seed's dice in the same poses, the same face up, each label the number now on that face."""
    from reader.synth.layouts import MIXES, crop_scene
    from reader.synth.scene import labeled_die

    changed = valued = 0
    for i in range(20):
        base = crop_scene(np.random.default_rng([7, i, 1]), classes=MIXES["all"])
        varied = crop_scene(np.random.default_rng([7, i, 1]), classes=MIXES["all"])
        vary_numbers(varied, np.random.default_rng([7, i, 23]))
        assert len(base["labels"]) == len(varied["labels"])
        for b, v in zip(base["dice"], varied["dice"], strict=True):
            assert b["R"] == v["R"] and b["t"] == v["t"]
            assert ("numbers" in v) == (v["die"] != "d4")
        for rb, rv in zip(base["labels"], varied["labels"], strict=True):
            assert (rb["die"], rb["box"], rb["state"]) == (rv["die"], rv["box"], rv["state"])
            d = labeled_die(varied, rv)
            top = geo.label_from_rotation(geo.solid(d["die"]), np.asarray(d["R"])).top_face
            if rv["value"] is None:
                assert rb["value"] is None
                continue
            assert rv["value"] == d["numbers"][top] == die_solid(d).values[top]
            assert d["material"]["atlas"][10] == tuple(d["numbers"])  # the atlas draws those numbers
            valued += 1
            changed += rv["value"] != rb["value"]
    assert valued > 20 and changed > valued // 2


@pytest.mark.parametrize("die", ["d6", "d10", "d20"])
def test_each_face_of_the_atlas_shows_the_number_it_is_given(die):
    """Face i's tile of a die numbered anew is the tile its base numbering draws for that number."""
    pytest.importorskip("PIL")
    from reader.synth.textures import TILE, atlas_grid, label_atlas

    s = geo.solid(die)
    numbers = draw_numbers(die, np.random.default_rng(3))
    args = (die, "numerals", 0, 0.6, "underline")
    base, varied = label_atlas(*args), label_atlas(*args, numbers=numbers)
    cols, _ = atlas_grid(len(s.faces))

    def tile(atlas, face):
        r, c = divmod(face, cols)
        return atlas[r * TILE:(r + 1) * TILE, c * TILE:(c + 1) * TILE]

    for i, v in enumerate(numbers):
        assert np.array_equal(tile(varied, i), tile(base, s.face_of_value(v))), (i, v)
    assert not np.array_equal(varied, base)


def test_a_numbering_of_other_numbers_is_refused():
    with pytest.raises(ValueError, match="d6 faces show"):
        geo.numbered("d6", (1, 2, 3, 4, 5, 7))
