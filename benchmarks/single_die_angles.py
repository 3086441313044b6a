"""Photos of one die, rendered from a camera 0-55 degrees off vertical: what `read --single` makes of them.

A photo of one die is read with no camera described (`read --single`, and single-die sets in
`evaluate`), and the README asks for such a photo to be taken from above. This says, by die type and by
how far off vertical the camera was, how many flat dice are read right, read wrong (a value, the wrong
one or of the wrong type) or refused, and how many cocked dice are given a value: the photos the reader
can take and those it cannot. Each photo shows its die alone (no neighbours), on the renderer's tables,
lights and camera effects, a third or so of the dice cocked against a wall or another die, as
`python -m reader.synth.bulk crops --lean` draws them (the camera's foot below the photo; the reader
turns nothing for it). The photos are written to a temporary folder and deleted (or kept: --keep); the
same seed renders the same photos.

Run: python3 benchmarks/single_die_angles.py [--count N] [--seed N] [--models DIR] [--keep DIR]
     (needs the render extra: pip install -e ".[render]" and reader/synth/README.md's packages;
     measured in models/reader.md, "Session 73")
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reader.commands.evaluate import evaluate_images  # noqa: E402
from reader.vision.realdata import LabeledDie, load_set, write_set  # noqa: E402
from reader.vision.recognizer import Recognizer  # noqa: E402

DICE = ("d6", "d8", "d10", "d12", "d20")
BANDS = ((0.0, 15.0), (15.0, 30.0), (30.0, 45.0), (45.0, 55.1))


def band_of(deg: float) -> str:
    """The angle band a camera `deg` degrees off vertical falls in, as printed."""
    for lo, hi in BANDS:
        if lo <= deg < hi:
            return f"{lo:.0f}-{min(hi, 55.0):.0f}"
    raise ValueError(f"{deg} degrees is past the bands")


def outcome(result) -> str:
    """What one photo came to: flat dice 'right', 'wrong' (a value, wrong or of another type) or
    'refused'; cocked dice 'cocked valued' or 'cocked refused'."""
    die = next(d for d in result.dice if d.label is not None)  # scored as `evaluate` scores it
    if die.label.state == "cocked":
        return "cocked valued" if die.cocked_given_value else "cocked refused"
    if not die.accepted:
        return "refused"
    return "right" if die.right else "wrong"


def render_set(out: Path, die: str, count: int, seed: int) -> dict[str, float]:
    """`count` photos of one `die` each into `out` as a labeled single-die set (boxes null); returns
    each image's angle off vertical."""
    from reader.synth.bulk import make_crop
    from reader.synth.render import Renderer

    renderer = Renderer()
    shown, angles = [], {}
    for i in range(count):
        rgb, row, _ = make_crop(renderer, seed, i, size=128, mix=die, lean=True, neighbours=False)
        main = row["dice"][0]
        name = f"{die}_{i:04d}.jpg"
        label = LabeledDie(die=main["die"], value=main["value"], box=None, state=main["state"])
        shown.append((name, cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [label]))
        angles[name] = row["camera"]["off_vertical_deg"]
    write_set(out, shown)
    return angles


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=240, help="photos of each die type (240)")
    ap.add_argument("--seed", type=int, default=7300)
    ap.add_argument("--models", default=None, help="folder of the ONNX models (default: models/)")
    ap.add_argument("--keep", default=None, help="write the photos here and keep them")
    args = ap.parse_args(argv)
    recognizer = Recognizer.load(args.models)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        tally: Counter = Counter()
        for k, die in enumerate(DICE):
            folder = root / die
            folder.mkdir(parents=True, exist_ok=True)
            angles = render_set(folder, die, args.count, args.seed + k)
            for result in evaluate_images(load_set(folder), recognizer):
                tally[(die, band_of(angles[Path(result.image).name]), outcome(result))] += 1
            print(f"{die}: {args.count} photos read", file=sys.stderr, flush=True)
    kinds = ("right", "wrong", "refused", "cocked valued", "cocked refused")
    print(f"{'die':4s} {'off vertical':>12s} " + " ".join(f"{k:>14s}" for k in kinds))
    for die in DICE:
        for lo, hi in BANDS:
            band = band_of(lo)
            print(f"{die:4s} {band:>12s} " + " ".join(f"{tally[(die, band, k)]:14d}" for k in kinds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
