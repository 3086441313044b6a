"""How a die's numbers sit around it: each rendered die numbered as some maker numbers theirs.

Why: every die the renderer drew until session 65 carried one fixed numbering per type (geometry's
own, a D20's and a D12's drawn once from a fixed seed). A look taught on them learns that a top face's
neighbours name it: the same D20 poses with their numbers laid out otherwise took the release's D20
reading from 78% to 69% right at the labeled boxes, its median sureness from 0.83 to 0.63 (D12 and
D10 less, D8 not at all; models/reader.md, "Session 65"). Real dice follow no one numbering: makers
differ, a spindown D20 counts 1..20 face by face around the die. A look that must read the top face
from its own numeral is taught dice numbered many ways.

What stays as on real dice: opposite faces of a D6, D8, D12 and D20 sum to one more than the faces
(7, 9, 13, 21), the D20's spindown excepted; a D10 has its odd numbers around one apex and its even
ones around the other, opposite faces summing to 9 counting "0" as 0. The arrangement within those
rules is drawn anew for every die.
"""

from __future__ import annotations

import numpy as np

from reader.synth import geometry as geo
from reader.synth.scene import label_die, labeled_die

# Of the D20 drawn, the share numbered as a spindown (life counters: consecutive numbers on touching faces)
SPINDOWN_SHARE = 0.2


def draw_numbers(die: str, rng: np.random.Generator) -> tuple[int, ...]:
    """Values for the faces of `die` (face i shows values[i]) as some maker could have laid them out."""
    s = geo.solid(die)
    if die == "d4":
        return s.values
    if die == "d10":
        return _d10_numbers(s, rng)
    if die == "d20" and rng.random() < SPINDOWN_SHARE:
        return spindown(s, rng)
    return tuple(geo.pair_layout(s.normals, len(s.faces) + 1, rng))


def _d10_numbers(s: geo.Solid, rng: np.random.Generator) -> tuple[int, ...]:
    """Odd numbers around one apex in a drawn order, each face's opposite showing 9 less it ("0": 10)."""
    out = geo.d10_layout(s.normals, s.centers, rng.permutation([1, 3, 5, 7, 9]))
    if rng.random() < 0.5:  # the odd numbers around the other apex
        out = [(9 - v % 10) or 10 for v in out]
    return tuple(out)


def spindown(s: geo.Solid, rng: np.random.Generator) -> tuple[int, ...]:
    """1..F along a path that steps each time onto a face sharing an edge with the last: numbers one
    apart always touch, as on the D20 kept as a life counter."""
    faces = [set(f) for f in s.faces]
    touching = [[j for j in range(len(faces)) if j != i and len(faces[i] & faces[j]) == 2]
                for i in range(len(faces))]

    def walk(path: list[int]) -> list[int] | None:
        if len(path) == len(faces):
            return path
        for j in rng.permutation(touching[path[-1]]):
            if int(j) not in path:
                found = walk(path + [int(j)])
                if found:
                    return found
        return None

    path = walk([int(rng.integers(len(faces)))])
    out = [0] * len(faces)
    for v, i in enumerate(path, start=1):
        out[i] = v
    return tuple(out)


def vary_numbers(scene: dict, rng: np.random.Generator) -> None:
    """Number every die of `scene` anew (in place): `numbers` on the die, its label atlas drawn with them,
    and the scene's labels valued by them. Drawn from its own `rng` after the scene is laid out and its
    numerals drawn (glyphs.vary_glyphs and digit_forms.vary_forms rewrite the atlas without numbers), so
    the dice lie in the poses the seed gave, each showing the same face up, now with another number."""
    rows = [(row, labeled_die(scene, row)) for row in scene["labels"]]
    for d in scene["dice"]:
        if d["die"] == "d4":
            continue
        d["numbers"] = list(draw_numbers(d["die"], rng))
        atlas = list(d["material"]["atlas"])
        atlas += [()] * (10 - len(atlas))
        d["material"]["atlas"] = atlas[:10] + [tuple(d["numbers"])]
    for row, d in rows:
        if row["value"] is not None:
            row["value"] = label_die(d).value
