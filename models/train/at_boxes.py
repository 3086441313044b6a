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

`--at d20=0.96` tallies each models folder a second time as if it accepted those die types at those
thresholds, from the same looks: what a threshold buys on these crops and what it lets through. Render
the dice seen obliquely too (`bulk crops --lean`, cameras 0-55 degrees off vertical): session 64's D20
at 0.96 instead of 0.98 read none more wrong of 706 D20 crops of the training mix (0-35 degrees), but
6 -> 15 of the 352 flat ones of 500 `--lean` crops, and type-lurig's D20 photographed 45 degrees off
vertical 1 -> 24 wrong over four placements (a neighbour face read; models/reader.md, "Session 64").
"""

from __future__ import annotations

import argparse
import collections
from dataclasses import dataclass, field
from pathlib import Path

from models.train.die_values import die_value
from reader.dice import FACES
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


def tallies(recognizers: list[Recognizer], folder: Path,
            accept_by_die: list[dict[str, float] | None] | None = None) -> list[Tally]:
    """`folder` read by each recognizer, each crop decoded once for all of them. `accept_by_die`: per
    recognizer, thresholds to accept those die types at instead of its own (None: its own)."""
    at = accept_by_die or [None] * len(recognizers)
    if len(at) != len(recognizers):
        raise ValueError(f"{len(at)} sets of thresholds for {len(recognizers)} recognizers")
    out = [Tally() for _ in recognizers]
    for path, label in main_dice(folder):
        try:
            img = load_image(path)
        except ImageError as exc:
            raise SystemExit(f"{path}: {exc}") from None
        box = Box(*label.box)
        face = (label.die, label.value)
        evidence = {}  # one look per recognizer, however many thresholds it is tallied at
        for recognizer, t, thresholds in zip(recognizers, out, at):
            if id(recognizer) not in evidence:
                evidence[id(recognizer)] = recognizer.faces.evidence(img, [box])[0]
            ev = evidence[id(recognizer)]
            reading = recognizer.faces.decide(ev, box, allow_none=False, accept_by_die=thresholds)
            if reading.value is None:
                t.refused[face] += 1
            elif reading.die == label.die and reading.value == label.value:
                t.right[face] += 1
            else:
                t.wrong[(face, (reading.die, reading.value))] += 1
    return out


def tally(recognizer: Recognizer, folder: Path, accept_by_die: dict[str, float] | None = None) -> Tally:
    """`folder` read by one recognizer (at `accept_by_die`'s thresholds for those die types, if given)."""
    return tallies([recognizer], folder, [accept_by_die])[0]


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
    ap.add_argument("--at", nargs="+", default=[], metavar="DIE=T", type=die_value(FACES, 0.0, 1.0),
                    help="also tally each models folder as if it accepted these die types at these thresholds "
                         "(e.g. d20=0.96): what a threshold buys and costs, from one pass over the crops")
    args = ap.parse_args(argv)
    at = dict(args.at)
    readers = []
    for spec in args.models:
        name, sep, where = spec.partition("=")
        if not sep or not name or not where:
            ap.error(f"--models wants NAME=DIR, not {spec!r}")
        readers.append((name, Recognizer.load(Path(where)), None))
        if at:
            said = " ".join(f"{d}={t:g}" for d, t in at.items())
            readers.append((f"{name} at {said}", readers[-1][1], at))
    for folder in args.folders:
        if not (folder / "labels.jsonl").is_file():
            ap.error(f"{folder}: no labels.jsonl")
        counted = tallies([r for _, r, _ in readers], folder, [a for _, _, a in readers])
        for (name, _, _), t in zip(readers, counted):
            print("\n".join(report(folder.name, name, t)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
