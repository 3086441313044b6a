"""Split `bulk crops` folders by how steeply each crop's camera sees its die.

    python -m models.train.slant_split --out work/synth/split --near 15 --steep 25 \
        work/synth/d20room311=311:d20 work/synth/d20base312=312:d20

For each DIR=SEED:MIX, OUT/near-NAME holds the crops seen within --near degrees of vertical and
OUT/steep-NAME those seen beyond --steep (the band between is left out), as folders a trainer
reads like any render folder: labels.jsonl and links to the images. A crop's angle is replayed from
its seed (train_lean.replayed_angles: no rendering; a folder that is not that seed's scenes stops
it), or read from its row where it was rendered with --lean.

Why: a tight cut of a D20 seen more than about 20 degrees off vertical does not hold its top face
(a D20's faces are 41.8 degrees apart; the cut shows the face that looks at the camera, or an
edge), so teaching such crops their top face teaches the look to doubt every D20. A look taught
its face on the near crops alone, and to claim no face on the steep ones (train_top_face --unsure),
can be sure where the face is there to see (models/reader.md, "Session 34").
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path


def angle_of(row: dict, angles: dict[str, float] | None) -> float:
    """A crop's camera angle: replayed (`angles` by image), else the row's own (bulk crops --lean)."""
    return angles[row["image"]] if angles is not None else float(row["camera"]["off_vertical_deg"])


def split_rows(lines: list[str], angles: dict[str, float] | None, near: float, steep: float) -> tuple[list[str], list[str]]:
    """(near rows, steep rows) of a labels.jsonl's lines; `angles` by image, else each row's own
    camera angle (bulk crops --lean). Rows between `near` and `steep` degrees are in neither."""
    if not 0.0 <= near <= steep:
        raise ValueError(f"near {near:g}, steep {steep:g}: give 0 <= near <= steep")
    near_rows, steep_rows = [], []
    for line in lines:
        if not line.strip():
            continue
        a = angle_of(json.loads(line), angles)
        if a <= near:
            near_rows.append(line)
        elif a > steep:
            steep_rows.append(line)
    return near_rows, steep_rows


def risen_rows(rows: list[str], angles: dict[str, float] | None, rise: float) -> list[str]:
    """The rows with their main die's box moved to where the crop's camera sees its top face
    (reader.vision.viewing.top_face_shift; a bulk crop's camera foot is below the crop), so a
    trainer cuts a look's crops there, as the recognizer cuts them with the camera described."""
    from reader.vision.topface import moved
    from reader.vision.viewing import top_face_shift

    out = []
    for line in rows:
        r = json.loads(line)
        d = r["dice"][0]
        d["box"] = [round(v, 2) for v in moved(d["box"], *top_face_shift(d["box"], angle_of(r, angles), 0.0, rise))]
        out.append(json.dumps(r))
    return out


def write_folder(src: Path, out: Path, rows: list[str]) -> None:
    """A render folder of these rows of `src`: labels.jsonl and a link to each image."""
    out.mkdir(parents=True, exist_ok=True)
    for line in rows:
        name = json.loads(line)["image"]
        if not (out / name).exists():
            os.symlink((src / name).resolve(), out / name)
    (out / "labels.jsonl").write_text("".join(x + "\n" for x in rows))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", metavar="DIR[=SEED:MIX]",
                    help="bulk crops folders; SEED:MIX replays their angles (without it: rendered with --lean)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--near", type=float, default=15.0, help="degrees off vertical, at most (default %(default)s)")
    ap.add_argument("--steep", type=float, default=25.0, help="degrees off vertical, over (default %(default)s)")
    ap.add_argument("--rise", type=float, default=0.0,
                    help="move each near crop's main box this x its side x sin(angle) toward where the camera sees "
                         "the top face (reader v18's cut with the camera described; default 0: not moved)")
    args = ap.parse_args(argv)
    from models.train.train_lean import angles_of

    for spec in args.folders:
        folder, _, replay = spec.partition("=")
        folder = Path(folder)
        angles = angles_of(folder, replay)
        lines = (folder / "labels.jsonl").read_text().splitlines()
        near, steep = split_rows(lines, angles, args.near, args.steep)
        if args.rise:
            near = risen_rows(near, angles, args.rise)
        write_folder(folder, args.out / f"near-{folder.name}", near)
        write_folder(folder, args.out / f"steep-{folder.name}", steep)
        print(f"{folder}: {len(near)} near (<= {args.near:g} deg), {len(steep)} steep (> {args.steep:g} deg) "
              f"of {sum(1 for x in lines if x.strip())}")


if __name__ == "__main__":
    main()
