"""type-lurig's faces read by eye, as a labeled set `dice-reader evaluate` scores.

    python -m models.train.lurig_faces_set --out work/lurig_faces
    dice-reader evaluate --all-images work/lurig_faces [--models DIR]
    python -m models.train.lurig_faces_set --values models/train/lurig_oblique_values.json --out work/lurig_oblique
    python -m models.train.lurig_faces_set --values models/train/lurig_d6_values.json --out work/lurig_d6

type-lurig gives die types only; models/train/lurig_values.json holds the faces of its D8, D10 and
D20 photographed from above, read by eye (859 photos of dice from makers no tray set has). No
committed network was taught those faces, so this is the nearest thing here to the numeral dice
the reader is scored on and nobody here has: session 20 chose between reader candidates with it
(models/reader.md). The whole look did learn their types on type-lurig's training four-fifths,
and `calibrate` fits its temperatures on them too, so it is a proxy, not a holdout. The set is
links to ../shared/realdata's photos and a labels.jsonl, in work/ (never committed).

models/train/lurig_oblique_values.json holds the faces up of its D20 photographed about 45 degrees
off vertical (*_off-angle*, 149 photos of five dice, read by eye from their turntable runs): where
a reader takes a photo as taken from above, it reads the face toward the camera instead, so this
set tells whether a change reads real D20 photographed obliquely wrong (models/reader.md, "Session 45").

models/train/lurig_d6_values.json holds the faces up of its 600 D6 (numeral D6 of one maker, from
above, at 45 degrees, off-angle, on coloured cloths and on wood by a phone; read by eye from their
runs): the first real D6 of another maker and other cameras with values here (models/reader.md,
"Session 46"); tests/test_real_d6_photos.py reads them.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from pathlib import Path

from models.train.reader_data import lurig_values
from reader.vision.realdata import load_set, realdata_root, write_labels

VALUES = Path(__file__).with_name("lurig_values.json")


def write(out: Path, values_file: Path = VALUES) -> dict[str, int]:
    """Write the set (links and labels.jsonl) to `out`; how many dice of each type it holds."""
    values = lurig_values(values_file)
    source = realdata_root() / "type-lurig"
    if not (source / "labels.jsonl").is_file():
        raise SystemExit(f"{source}: type-lurig is not here (../shared/realdata)")
    out.mkdir(parents=True, exist_ok=True)
    rows, counts = [], {}
    for li in load_set(source):
        if li.name not in values:
            continue
        link = out / li.name
        if not link.exists():
            os.symlink(li.path.resolve(), link)
        die = dataclasses.replace(li.dice[0], value=values[li.name])
        rows.append((li.name, [die]))
        counts[die.die] = counts.get(die.die, 0) + 1
    write_labels(out, rows)
    return counts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("work/lurig_faces"))
    ap.add_argument("--values", type=Path, default=VALUES, help="the faces read by eye (default: %(default)s)")
    args = ap.parse_args(argv)
    counts = write(args.out, args.values)
    print(f"{args.out}: {sum(counts.values())} dice {counts}")


if __name__ == "__main__":
    main()
