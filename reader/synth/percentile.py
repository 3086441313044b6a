"""Percentile dice: a D10 whose faces read "00", "10" ... "90", the tens of a D100 roll.

Why: every polyhedral set a player buys holds two D10, one of them a percentile die, and a player
reaching into that set for "the D10" of a banish takes either. The reader was only ever taught D10
showing "1" to "9" and "0". Shown a percentile die it sees a D10's shape and two digits: it may read
the tens digit, the "0" beside it (10), or something between. Rendered here so that how it reads them
can be measured (benchmarks/percentile_dice.py) and, if need be, taught.

What a percentile die stands for when rolled as a D10 is the tens digit: "30" is 3, and "00" is 10, as
a plain D10's "0" is 10 (the label's value stays the face's D10 value, so a row reads as a plain D10's
would). Drawn after the scene is laid out and numbered: the dice lie as the seed put them.
"""

from __future__ import annotations

# the label atlas's positional arguments before `tens` (textures.label_atlas: die .. logo)
ATLAS_BEFORE_TENS = 12


def put_tens(scene: dict, main_only: bool = True) -> None:
    """Make the D10 of `scene` percentile dice in place: the main die (dice[0]) if it is a D10, or
    every D10 (`main_only` False). Each such die and its label row gain "tens": true."""
    from reader.synth.scene import labeled_die

    rows = [(row, labeled_die(scene, row)) for row in scene["labels"]]
    for n, d in enumerate(scene["dice"]):
        if d["die"] != "d10" or (main_only and n != 0):
            continue
        atlas = list(d["material"]["atlas"])
        atlas += [()] * (ATLAS_BEFORE_TENS - len(atlas))
        d["material"]["atlas"] = atlas[:ATLAS_BEFORE_TENS] + [True]
        d["tens"] = True
    for row, d in rows:
        if d.get("tens"):
            row["tens"] = True
