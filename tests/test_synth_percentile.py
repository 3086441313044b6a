"""Percentile D10 in the renderer (reader.synth.percentile; bulk crops --tens).

Pure numpy but for the atlas case (PIL): runs in CI, which never renders."""

from __future__ import annotations

import numpy as np
import pytest

from reader.synth import geometry as geo
from reader.synth.percentile import put_tens


def _scenes(n=40, seed=9, mix="all"):
    from reader.synth.layouts import MIXES, crop_scene

    for i in range(n):
        yield crop_scene(np.random.default_rng([seed, i, 1]), classes=MIXES[mix])


def test_only_the_main_d10_becomes_a_percentile_die_and_its_label_says_so():
    """The main die, where it is a D10, is marked (its atlas and its label row, "tens": true); the dice
    lie as the seed put them, their values the plain D10's; no other die is touched."""
    marked = 0
    for base, scene in zip(_scenes(), _scenes()):
        put_tens(scene)
        for n, (b, d) in enumerate(zip(base["dice"], scene["dice"], strict=True)):
            assert b["R"] == d["R"] and b["t"] == d["t"]
            percentile = n == 0 and d["die"] == "d10"
            assert bool(d.get("tens")) is percentile
            assert (d["material"]["atlas"][-1] is True) is percentile
        assert [(r["die"], r["value"], r["box"]) for r in base["labels"]] == \
               [(r["die"], r["value"], r["box"]) for r in scene["labels"]]
        assert [bool(r.get("tens")) for r in scene["labels"]].count(True) == (scene["dice"][0]["die"] == "d10")
        marked += scene["dice"][0]["die"] == "d10"
    assert marked >= 3


def test_every_d10_of_a_scene_when_asked():
    seen = 0
    for scene in _scenes():
        put_tens(scene, main_only=False)
        for d in scene["dice"]:
            assert bool(d.get("tens")) is (d["die"] == "d10")
            seen += d["die"] == "d10"
    assert seen >= 5


@pytest.mark.parametrize("die", ["d10", "d12"])
def test_a_percentile_face_reads_its_tens_and_only_a_d10_has_them(die):
    """The atlas of a percentile D10 draws every face wider than the plain die's (a second digit, "0");
    a D12 asked the same is drawn as it was."""
    pytest.importorskip("PIL")
    from reader.synth.textures import TILE, atlas_grid, label_atlas

    s = geo.solid(die)
    args = (die, "numerals", 0, 0.6, "underline", 0.5, 0.16, 0.0, (), (), (), ())
    plain, tens = label_atlas(*args), label_atlas(*args, True)
    if die != "d10":
        assert np.array_equal(plain, tens)
        return
    cols, _ = atlas_grid(len(s.faces))
    for i in range(len(s.faces)):
        r, c = divmod(i, cols)
        a, b = (t[r * TILE:(r + 1) * TILE, c * TILE:(c + 1) * TILE, 0] > 127 for t in (plain, tens))
        width = [np.ptp(np.nonzero(x.any(axis=0))[0]) for x in (a, b)]
        assert width[1] > 1.3 * width[0], (s.values[i], width)
