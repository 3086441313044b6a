"""Percentile D10 ("00" to "90"): how often the reader gives one a value, and what the check costs plain dice.

Every polyhedral set holds a percentile D10 beside the plain one (reader/synth/percentile.py). Rolled
for a banish in place of a D10 its face has no value the rules name, so the reader's answer is "roll
again", best with the reason (reader/vision/percentile.py). This renders photos of one D10 each
(`python -m reader.synth.bulk crops --mix d10 --tens --numbers varied --glyphs varied`: the renderer's
tables, lights, camera effects and neighbours), the same photos with the die numbered plainly (the same
seed: the same dice in the same poses), and photos of the other numeral dice (`--mix numerals`), reads
them with `read --single`'s reading and prints, for the percentile dice: refused as percentile, refused
otherwise, read as their tens digit ("30" as 3), another value; for the plain dice: right, wrong,
refused, and refused as percentile (the check's false alarms). A die read in a photo is the main one
where its box overlaps the label's (a neighbour read instead is counted apart). The photos are written
to a temporary folder and deleted (or kept: --keep); the same seed renders the same photos.

Run: python3 benchmarks/percentile_dice.py [--count N] [--seed N] [--models DIR] [--keep DIR | --photos DIR]
     (needs the render extra: pip install -e ".[render]" and reader/synth/README.md's packages;
     measured in models/reader.md, "Session 78")
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reader.reading import Box  # noqa: E402
from reader.vision.percentile import refused_as_percentile  # noqa: E402
from reader.vision.realdata import LabeledDie, load_set, write_set  # noqa: E402
from reader.vision.recognizer import Recognizer  # noqa: E402

# folder -> (bulk crops --mix, --tens)
KINDS = {"percentile": ("d10", True), "plain-d10": ("d10", False), "other-numerals": ("numerals", False)}


def render(folder: Path, mix: str, tens: bool, count: int, seed: int) -> None:
    """Photos 0..count-1 of `seed` and `mix` whose main die lies flat (not a D4), as a labeled set with
    the main die's box (the reading is matched to it)."""
    from reader.synth.bulk import make_crop
    from reader.synth.render import Renderer

    renderer, shown = Renderer(), []
    for i in range(count):
        rgb, row, _ = make_crop(renderer, seed, i, size=128, mix=mix, numbers="varied", glyphs="varied", tens=tens)
        main = row["dice"][0]
        if main["state"] != "flat" or main["die"] == "d4":
            continue
        label = [LabeledDie(die=main["die"], value=main["value"], box=tuple(main["box"]), state="flat")]
        shown.append((f"{i:05d}.jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), label))
    folder.mkdir(parents=True, exist_ok=True)
    write_set(folder, shown)


def outcome(recognizer: Recognizer, image, label: LabeledDie) -> str:
    reading = recognizer.read_single(image)
    if reading.value is None:
        return "refused as percentile" if refused_as_percentile(reading) else "refused"
    if reading.box.iou(Box(*label.box)) < 0.3:
        return "a neighbour read"
    return "right" if (reading.die, reading.value) == (label.die, label.value) else "wrong"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=400, help="photos rendered of each kind (400; the flat ones are read)")
    ap.add_argument("--seed", type=int, default=7850)
    ap.add_argument("--models", default=None, help="folder of the ONNX models (default: models/)")
    ap.add_argument("--keep", default=None, help="write the photos here and keep them")
    ap.add_argument("--photos", default=None, metavar="DIR",
                    help="read the photos an earlier run kept (--keep DIR) instead of rendering them")
    args = ap.parse_args(argv)
    if args.keep and args.photos:
        ap.error("--keep writes new photos; --photos reads kept ones: give one")
    recognizer = Recognizer.load(args.models)
    tally: dict[str, Counter] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.photos or args.keep or tmp)
        for name, (mix, tens) in KINDS.items():
            folder = root / name
            if not args.photos:
                # the percentile dice and their plain twins share a seed: the same dice, the same poses
                render(folder, mix, tens, args.count, args.seed + (2 if name == "other-numerals" else 0))
            tally[name] = Counter(outcome(recognizer, cv2.imread(str(item.path)), item.dice[0])
                                  for item in load_set(folder))
            print(f"{name}: {sum(tally[name].values())} photos read", file=sys.stderr, flush=True)
    cols = ("right", "wrong", "refused", "refused as percentile", "a neighbour read")
    print(f"{'dice':15s} {'photos':>6s} " + " ".join(f"{c:>21s}" for c in cols))
    for name in KINDS:
        t = tally[name]
        print(f"{name:15s} {sum(t.values()):6d} " + " ".join(f"{t[c]:21d}" for c in cols))
    print("(a percentile die is 'right' read as its tens digit, \"30\" as 3; the rules want a plain D10, so the "
          "reader's answer is to refuse it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
