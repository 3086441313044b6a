"""Dice whose face up bears a maker's logo: how often the reader gives them a value.

Branded dice carry an emblem where a number would be (the D20's 20, a pip D6's 1, a numeral die's
highest face; reader/synth/logos.py). Nothing on such a face says which number it stands for, so the
reader's right answer is "roll again"; a value given is a guess, and a wrong one feeds the rules. This
renders photos of one die each with an emblem on its face up (`python -m reader.synth.bulk crops --logos up`, the
renderer's tables, lights, camera effects and neighbours) and the same photos with the face numbered
(the same seed: the same dice in the same poses), reads both with `read --single`'s reading, and prints
per die type: emblems read as the number makers put the logo on (logos.logo_value: right on most
branded dice), given another value (wrong), or refused, beside the numbered faces read right, wrong
and refused. The photos are written to a temporary folder and
deleted (or kept: --keep); the same seed renders the same photos.

Run: python3 benchmarks/logo_faces.py [--count N] [--seed N] [--emblems drawn|held-out|procedural] [--models DIR]
                                      [--keep DIR | --photos DIR]
     (needs the render extra: pip install -e ".[render]" and reader/synth/README.md's packages;
     measured in models/reader.md, "Session 75" and "Session 76")
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
from reader.synth.logos import FAMILIES, logo_value  # noqa: E402
from single_die_angles import outcome as as_labeled  # noqa: E402  (a flat die: right, wrong or refused)
from reader.vision.realdata import LabeledDie, load_set, write_set  # noqa: E402
from reader.vision.recognizer import Recognizer  # noqa: E402

# the mixes rendered (bulk crops --mix) and the rows they are printed as
MIXES = {"d6 pips": ("d6", "pips"), "d6 numerals": ("d6-numerals", "numerals"), "d8": ("d8", None),
         "d10": ("d10", None), "d12": ("d12", None), "d20": ("d20", None)}


def render_pair(plain: Path, logo: Path, mix: str, style: str | None, count: int, seed: int,
                emblems: str = "drawn") -> int:
    """Up to `count` photos of one die each, drawn from `mix`, written twice as labeled single-die sets
    (boxes null): into `logo` with the emblem on the face up, into `plain` as numbered. Only dice lying
    flat with the emblem up (of `style`, for the D6) are kept, the emblems from the family `emblems`
    (logos.FAMILIES); returns how many."""
    from reader.synth.bulk import make_crop
    from reader.synth.render import Renderer

    renderers = {"plain": Renderer(), "logo": Renderer()}  # two texture caches: one atlas key, two dice
    shown: dict[str, list] = {"plain": [], "logo": []}
    i = 0
    while len(shown["logo"]) < count and i < count * 4:
        rgb, row, _ = make_crop(renderers["logo"], seed, i, size=128, mix=mix, logos="up", emblems=emblems)
        main = row["dice"][0]
        if main.get("logo") and (style is None or main.get("style") == style):
            twin, _, _ = make_crop(renderers["plain"], seed, i, size=128, mix=mix)
            label = [LabeledDie(die=main["die"], value=main["value"], box=None, state=main["state"])]
            name = f"{i:05d}.jpg"
            shown["logo"].append((name, cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), label))
            shown["plain"].append((name, cv2.cvtColor(twin, cv2.COLOR_RGB2BGR), label))
        i += 1
    for folder, kind in ((logo, "logo"), (plain, "plain")):
        folder.mkdir(parents=True, exist_ok=True)
        write_set(folder, shown[kind])
    return len(shown["logo"])


def outcome(result, emblem: bool, style: str | None = None) -> str:
    """'right', 'wrong' (another value or die type) or 'refused'. A numbered face is right as labeled;
    an emblem is right read as the number makers put it on (logos.logo_value: a pip D6's 1, a D20's
    20), the number it stands for on most branded dice, whichever face of the rendered die bears it;
    `style`: a D6's, pips or numerals."""
    if not emblem:
        return as_labeled(result)
    die = next(d for d in result.dice if d.label is not None)
    if not die.accepted:
        return "refused"
    r = die.reading
    return "right" if r.die == die.label.die and r.value == logo_value(r.die, style) else "wrong"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=150, help="photos of each die type (150)")
    ap.add_argument("--seed", type=int, default=7520)
    ap.add_argument("--models", default=None, help="folder of the ONNX models (default: models/)")
    ap.add_argument("--emblems", choices=sorted(FAMILIES), default="drawn",
                    help="the renderer's emblems (drawn: the six bulk crops --logos draws; procedural: a shape "
                         "drawn anew for each die, reader.synth.emblem_shapes, as --emblems procedural teaches, "
                         "another seed drawing others) or held-out: a family no look is taught (a heart, a spiral, "
                         "a sword, letters, a leaf, a skull), for judging a look taught logos on emblems it never saw")
    ap.add_argument("--keep", default=None, help="write the photos here and keep them")
    ap.add_argument("--photos", default=None, metavar="DIR",
                    help="read the photos an earlier run kept (--keep DIR) instead of rendering them: several "
                         "models folders judged on the same photos, no renderer needed")
    args = ap.parse_args(argv)
    if args.keep and args.photos:
        ap.error("--keep writes new photos; --photos reads kept ones: give one")
    recognizer = Recognizer.load(args.models)
    tally: Counter = Counter()
    shown: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.photos or args.keep or tmp)
        for k, (name, (mix, style)) in enumerate(MIXES.items()):
            folders = {kind: root / name.replace(" ", "-") / kind for kind in ("plain", "logo")}
            if args.photos:
                shown[name] = len(load_set(folders["logo"]))
            else:
                shown[name] = render_pair(folders["plain"], folders["logo"], mix, style, args.count, args.seed + k,
                                          args.emblems)
            for kind, folder in folders.items():
                for result in evaluate_images(load_set(folder), recognizer):
                    tally[(name, kind, outcome(result, kind == "logo", style))] += 1
            print(f"{name}: {shown[name]} photos read with the emblem up and numbered", file=sys.stderr, flush=True)
    print(f"{'die':12s} {'photos':>6s} | {'emblem: as the maker':>20s} {'valued wrong':>12s} {'refused':>8s} | "
          f"{'numbered: right':>15s} {'wrong':>6s} {'refused':>8s}")
    for name in MIXES:
        lg = [tally[(name, "logo", k)] for k in ("right", "wrong", "refused")]
        pl = [tally[(name, "plain", k)] for k in ("right", "wrong", "refused")]
        print(f"{name:12s} {shown[name]:6d} | {lg[0]:20d} {lg[1]:12d} {lg[2]:8d} | {pl[0]:15d} {pl[1]:6d} {pl[2]:8d}")
    total = sum(shown.values())
    wrong = sum(tally[(n, "logo", "wrong")] for n in MIXES)
    print(f"emblems given a wrong value: {wrong} of {total} ({100.0 * wrong / max(total, 1):.1f}%); "
          f"numbered faces read wrong: {sum(tally[(n, 'plain', 'wrong')] for n in MIXES)} of {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
