"""The whole reader at each rendered crop's labeled box, face by face: right, refused, read wrong.

    python -m models.train.at_boxes work/synth/d6b_6104 work/synth/d6n_6104 \\
        --models release=models new=work/candidates/x

Why: `dice-reader evaluate` reads a crop as a frame, and the detector, taught on tray frames, does not
box a die that fills a 128 px crop; `d20_alone` asks one look alone. This reads each crop's main die
(the first label, flat and valued) at its labeled box as a frame's die is first read with no camera
described (the recognizer's FaceReader: every look pooled, the reader's thresholds), so a pair of render
folders made from one seed, the same dice in the same poses, tells what one change of the renderer
costs the reader: `bulk crops --seed S --glyphs makers` against `--seed S` alone is the makers' digits
(a 3 with a flat top read 5: models/reader.md, "Session 61"). Prints per folder and models folder the
totals, and per labeled face right / refused / wrong with the faces it was read as.
"""

from __future__ import annotations

import argparse
import collections
from dataclasses import dataclass, field
from pathlib import Path

from reader.imagefile import ImageError, load_image
from reader.reading import Box
from reader.vision.onnx_model import MODELS_DIR
from reader.vision.realdata import LabeledDie, load_set
from reader.vision.recognizer import Recognizer


@dataclass
class Tally:
    """One folder read by one models folder: per labeled face, how its dice were read."""

    right: collections.Counter = field(default_factory=collections.Counter)
    refused: collections.Counter = field(default_factory=collections.Counter)
    wrong: collections.Counter = field(default_factory=collections.Counter)  # (label, read as) -> dice

    def totals(self) -> tuple[int, int, int]:
        return sum(self.right.values()), sum(self.refused.values()), sum(self.wrong.values())


def main_dice(folder: Path) -> list[tuple[Path, LabeledDie]]:
    """(image path, label) of each crop whose main die (its first label) lies flat with a value and a box."""
    return [(im.path, im.dice[0]) for im in load_set(folder)
            if im.dice and im.dice[0].state == "flat" and im.dice[0].value and im.dice[0].box]


def tallies(recognizers: list[Recognizer], folder: Path) -> list[Tally]:
    """`folder` read by each recognizer, each crop decoded once for all of them."""
    out = [Tally() for _ in recognizers]
    for path, label in main_dice(folder):
        try:
            img = load_image(path)
        except ImageError as exc:
            raise SystemExit(f"{path}: {exc}") from None
        box = Box(*label.box)
        face = (label.die, label.value)
        for recognizer, t in zip(recognizers, out):
            ev = recognizer.faces.evidence(img, [box])[0]
            reading = recognizer.faces.decide(ev, box, allow_none=False)
            if reading.value is None:
                t.refused[face] += 1
            elif reading.die == label.die and reading.value == label.value:
                t.right[face] += 1
            else:
                t.wrong[(face, (reading.die, reading.value))] += 1
    return out


def tally(recognizer: Recognizer, folder: Path) -> Tally:
    """`folder` read by one recognizer."""
    return tallies([recognizer], folder)[0]


def report(folder: str, name: str, t: Tally) -> list[str]:
    right, refused, wrong = t.totals()
    lines = [f"{folder} {name}: right {right} refused {refused} wrong {wrong}"]
    read_as = collections.defaultdict(list)  # labeled face -> [(read as, dice)]
    for (face, seen), n in sorted(t.wrong.items()):
        read_as[face].append((seen, n))
    for die, value in sorted(set(t.right) | set(t.refused) | set(read_as)):
        seen = read_as[(die, value)]
        named = ", ".join(f"{d}{v} x{n}" for (d, v), n in seen)
        lines.append(f"  {die} {value}: right {t.right[(die, value)]} refused {t.refused[(die, value)]} "
                     f"wrong {sum(n for _, n in seen)}{f' (read {named})' if seen else ''}")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path, help="rendered crops (bulk crops): labels.jsonl and images")
    ap.add_argument("--models", nargs="+", default=[f"release={MODELS_DIR}"], metavar="NAME=DIR",
                    help="models folders to read with, each named (default: the project's models/)")
    args = ap.parse_args(argv)
    readers = []
    for spec in args.models:
        name, sep, where = spec.partition("=")
        if not sep or not name or not where:
            ap.error(f"--models wants NAME=DIR, not {spec!r}")
        readers.append((name, Recognizer.load(Path(where))))
    for folder in args.folders:
        if not (folder / "labels.jsonl").is_file():
            ap.error(f"{folder}: no labels.jsonl")
        for (name, _), t in zip(readers, tallies([r for _, r in readers], folder)):
            print("\n".join(report(folder.name, name, t)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
