"""The whole look's percentile check: a D10 numbered "00" to "90" is refused, not read.

    python -m reader.synth.bulk crops --mix d10 --tens --numbers varied --glyphs varied \
        --out work/synth/tens_7810 --count 2500 --seed 7810
    python -m reader.synth.bulk crops --mix d10 --numbers varied --glyphs varied \
        --out work/synth/plain_7810 --count 2500 --seed 7810
    python -m reader.synth.bulk crops --mix numerals --numbers varied --glyphs varied \
        --out work/synth/num_7811 --count 2500 --seed 7811
    python -m reader.synth.bulk crops --mix d12 --numbers varied --glyphs varied \
        --out work/synth/d12_7814 --count 1500 --seed 7814
    python -m reader.synth.bulk crops --mix d20 --numbers varied --glyphs varied \
        --out work/synth/d20_7815 --count 1500 --seed 7815
    python -m models.train.train_percentile_check models/reader.onnx models/reader.onnx \
        --tens work/synth/tens_7810 --synth work/synth/plain_7810 --synth work/synth/num_7811 \
        --synth work/synth/d12_7814 --synth work/synth/d20_7815 --sure 0.92 --version 25

Why: every polyhedral set holds a percentile D10 beside the plain one, and a player reaching for "the
D10" takes either. The reader was never shown one. Rendered (reader.synth.percentile), reader v24 gave
16 of 369 photos of one percentile D10 a value, none of them the tens digit: a "40" read as a D12's 10
at 0.94, a "10" as a D10's 0 (models/reader.md, "Session 78"). Nothing in those readings tells them
from a plain D12's 10 or a D10's 0; the look's features do.

How: as the print check (train_print_check), small networks (224 -> 32 -> 1, five seeds, their logits
averaged: mean_of_fits) on the whole look's pooled features, folded into its graph as an output of its
own, `percentile_logits` (models.train.heads): the outputs the reader had are untouched. They are taught
the main die of rendered percentile crops (--tens) as 1 and every other die as 0: the same dice in the
same poses numbered plainly (--synth, the same seed without --tens: the hardest negatives there are),
the other numeral dice, D12 and D20 alone (their 10 to 20 are two digits too; a D12's 10 is what a
percentile die is most often read as), and every real die of the trainable sets' training four-fifths
and of type-lurig. The reader asks it of the dice it gives a
value where a percentile die is taken for them (metadata `percentile_check.dice`) and refuses those whose
mean probability over the four views reaches `sure` (reader.vision.percentile). Its figures on the
calibration 8% (train_reader.is_calibration) are printed.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch

from models.train.heads import add_head_arguments, cached_features, fold_head, report_calibration
from models.train.onnx_weights import reader_from_onnx
from models.train.reader_data import Patches, synth_crop_patches, synth_crops_of
from models.train.train_print_check import dice_images, fit, two_class_features
from models.train.train_reader import load_real

PREFIX = "percentile_check."
OUTPUT = "percentile_logits"
# the dice a rendered percentile D10 is read as (v24, 369 photos: D10 188, D12 117, D20 37; D6 19 and
# D8 5, whose faces "x0" are not)
ASKED = ("d10", "d12", "d20")


def percentile_patches(folder: Path) -> Patches:
    """The main dice of rendered percentile crops (bulk crops --mix d10 --tens: every main die a
    percentile D10, its label row "tens": true); a folder rendered otherwise is refused."""
    rows = [json.loads(x) for x in (folder / "labels.jsonl").read_text().splitlines() if x.strip()]
    plain = [r["image"] for r in rows if r.get("dice") and not r["dice"][0].get("tens")]
    if plain:
        raise SystemExit(f"{folder}: {len(plain)} main dice are no percentile D10 (e.g. {plain[0]}): "
                         "render it with bulk crops --mix d10 --tens")
    out = synth_crop_patches(folder)
    out.source = ["synth-tens"] * len(out)
    return out


def gather(args, net) -> dict:
    """Features of the percentile dice and of the other dice, each split training / calibration by
    its pixels as train_reader splits."""
    t0 = time.time()
    dice = load_real(args.lurig_boxes)
    for new in synth_crops_of(args.synth, args.synth_limit):
        dice.extend(new)
    imgs, real = dice_images(dice)
    tens = Patches()
    for folder in args.tens:
        tens.extend(percentile_patches(folder))
    timgs = np.stack(tens.images)
    print(f"{len(imgs)} other dice ({int(real.sum())} real), {len(timgs)} percentile D10 "
          f"({time.time() - t0:.0f}s)", flush=True)
    out = two_class_features(net, imgs, real, timgs, "tens", args.views, args.seed)
    print(f"features of {len(out['dice']) + len(out['tens'])} crops ({time.time() - t0:.0f}s)", flush=True)
    return out


def mean_of_fits(dice: np.ndarray, tens: np.ndarray, seeds: int):
    """The check's weights: `seeds` small networks fitted alike from seeds 0.. (train_print_check.fit), as
    one network whose logit is their mean (their hidden layers side by side, the last layer's weights
    and bias divided by their number). One fit (seed 0) put plain dice read right as high as 0.94
    (type-lurig's D10 faces), five averaged 0.89, where most percentile dice stay over 0.92
    (models/reader.md, "Session 78")."""
    fits = [fit(dice, tens, s) for s in range(seeds)]
    w1 = np.vstack([f[0].weight.detach().numpy() for f in fits])
    b1 = np.concatenate([f[0].bias.detach().numpy() for f in fits])
    w2 = np.hstack([f[2].weight.detach().numpy() for f in fits]) / seeds
    b2 = np.sum([f[2].bias.detach().numpy() for f in fits], axis=0) / seeds
    return w1, b1, w2, b2


def _logit(x: np.ndarray, w1, b1, w2, b2) -> np.ndarray:
    return (np.maximum(x @ w1.T + b1, 0.0) @ w2.T + b2)[:, 0]


def fold(src: Path, out: Path, w1, b1, w2, b2, sure: float, meta: dict | None = None) -> None:
    """`src` with the percentile check as the output `percentile_logits` and metadata
    "percentile_check" ({"sure", "hidden", "output", "dice"}); a check already there is replaced."""
    fold_head(src, out, PREFIX, OUTPUT, w1, b1, w2, b2, {"percentile_check": {
        "sure": sure, "hidden": int(len(b1)), "output": OUTPUT, "dice": list(ASKED),
        "rule": "a die of 'dice' given a value whose mean sigmoid(percentile_logits) over its views reaches 'sure' "
                "is refused as a percentile D10 (models/train/train_percentile_check.py)"}, **(meta or {})})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reader", type=Path, help="the exported whole look (reader.onnx); a percentile check it has is replaced")
    ap.add_argument("out", type=Path)
    ap.add_argument("--tens", type=Path, action="append", required=True,
                    help="rendered crops of percentile D10 (bulk crops --mix d10 --tens)")
    ap.add_argument("--synth", type=Path, action="append", default=[],
                    help="rendered crops of other dice (bulk crops): the same seeds without --tens, other numerals")
    add_head_arguments(ap, sure=0.92, what="a die")
    ap.add_argument("--seed", type=int, default=0, help="the augmented crops' draws")
    ap.add_argument("--seeds", type=int, default=5, help="networks fitted, their logits averaged (mean_of_fits)")
    args = ap.parse_args(argv)
    torch.set_num_threads(2)
    net = reader_from_onnx(args.reader).eval()
    data = cached_features(args.features, lambda: gather(args, net))
    dc, tc = data["dice_cal"], data["tens_cal"]
    w1, b1, w2, b2 = mean_of_fits(data["dice"][~dc], data["tens"][~tc], args.seeds)
    q_d, q_t = (1.0 / (1.0 + np.exp(-_logit(x, w1, b1, w2, b2))) for x in (data["dice"][dc], data["tens"][tc]))
    report_calibration(args.sure, "percentile D10", q_t, q_d, data["real"][dc])
    fold(args.reader, args.out, w1, b1, w2, b2, args.sure, {"version": args.version} if args.version else None)
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
