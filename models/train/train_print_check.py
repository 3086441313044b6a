"""The whole look's print check: a find that is a printed mark, not a die, is refused as print.
Fitted on the whole look's own features and added to its ONNX file as a fourth output.

    python -m models.train.train_print_check models/reader.onnx models/reader.onnx \
        --detector models/detector.onnx --lurig-boxes work/lurig_boxes.json --synth work/synth/crops1 \
        --prints work/synth/prints81 --prints work/synth/prints82s \
        --prints work/synth/prints83 --prints work/synth/prints84s --sure 0.97 --version 16

Why: a tray camera also sees what lies beside or under the tray. On frames of printed numerals,
text, dots and cards (`reader.synth.prints`), reader v15 let the detector's finds through as dice
and gave a sixth of them a value: 169 phantom dice in 60 frames at 1280x720, a printed "2" read as
a D6 showing 2. The whole look had never been shown a printed numeral that is no die.

How: a small network (224 -> 32 -> 1) on the whole look's pooled features (the ones its type head
reads) tells the detector's finds on such frames from real and rendered dice. Its logit per crop is
the reader's fourth output, `print_logits`; the reader (reader.vision.faces) averages its sigmoid
over a find's four views and refuses the find ("may be a printed mark, not a die") when that reaches
the metadata's `print_check.sure`. Refused, not dropped: dropping (the check folded into the "none"
logit, tried first) took dice the reader could not read out of the frame altogether (a roll whose
only die is dropped is "not a roll" to the live loop), where a refused die is "roll again". The
three outputs the reader had are untouched, so every find the check does not refuse is read as
before, and the release's calibration holds.

Taught on what train_reader would teach, the calibration 8% left out (`is_calibration`): every die
of the real trays' training four-fifths, of type-lurig (with --lurig-boxes) and of the rendered
crops, each in --views augmented crops, as "die"; the detector's finds on the print frames as
"print". Its figures on the calibration 8% are printed. `--sure` for reader v16 (0.97) was the lowest level at which no figure
of the sets measured changed (models/reader.md, session 31).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from torch import nn

from models.train.batches import to_input
from models.train.heads import add_head_arguments, cached_features, fold_head, has_head, report_calibration, unfold_head
from models.train.nets import TYPES
from models.train.onnx_weights import reader_from_onnx
from models.train.reader_data import (
    Patches,
    detector_false_alarms,
    make_crop,
    synth_crops_of,
    training_frame_patches,
)
from models.train.train_reader import is_calibration, load_real, source_group

PREFIX = "print_check."
OUTPUT = "print_logits"
HIDDEN = 32


def has_print_check(model: onnx.ModelProto) -> bool:
    return has_head(model, PREFIX)


def unfold(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model without its print check (its nodes, weights and `print_logits` output)."""
    return unfold_head(model, PREFIX, OUTPUT)


def fold(src: Path, out: Path, w1, b1, w2, b2, sure: float, meta: dict | None = None) -> None:
    """`src` with the print check as an output of its own, `print_logits` (n x 1, the check's logit per
    crop), and metadata "print_check" ({"sure", "hidden"}); the outputs the reader had, its weights and
    its other metadata unchanged. A check already there is replaced (models.train.heads)."""
    fold_head(src, out, PREFIX, OUTPUT, w1, b1, w2, b2, {"print_check": {
        "sure": sure, "hidden": HIDDEN, "output": OUTPUT,
        "rule": "a find whose mean sigmoid(print_logits) over its views reaches 'sure' is refused as a printed "
                "mark (models/train/train_print_check.py)"}, **(meta or {})})


def features(net, patches: np.ndarray, views: int, rng: np.random.Generator, batch: int = 256) -> np.ndarray:
    """(len(patches) * views) x 224 pooled features of augmented crops (patch-major)."""
    out = []
    idx = np.repeat(np.arange(len(patches)), views)
    with torch.no_grad():
        for s in range(0, len(idx), batch):
            x = np.stack([make_crop(patches[i], rng) for i in idx[s:s + batch]])
            out.append(net.features(to_input(torch.from_numpy(x))).mean(dim=(2, 3)).numpy())
    return np.concatenate(out) if out else np.zeros((0, 224), np.float32)


def dice_images(dice: Patches) -> tuple[np.ndarray, np.ndarray]:
    """The dice of `dice` ("none" patches left out) as one array, and which of them are real (the trays
    and type-lurig): what a head on the whole look's features is told a die looks like."""
    none = TYPES.index("none")
    keep = [i for i, t in enumerate(dice.type_idx) if t != none]
    return (np.stack([dice.images[i] for i in keep]),
            np.array([source_group(dice.source[i]) in ("real", "types") for i in keep]))


def two_class_features(net, dice: np.ndarray, real: np.ndarray, marked: np.ndarray, key: str, views: int,
                       seed: int) -> dict:
    """What a head is fitted on: the features of `views` augmented crops of each die (0) and of each
    `marked` crop (1, kept as `key`), each flagged by whether its pixels put it in the calibration 8%
    (`dice_cal`, `key`_cal), and which dice are real; drawn from `seed`."""
    rng = np.random.default_rng(seed)
    cal = np.array([is_calibration(im) for im in dice])
    mcal = np.array([is_calibration(im) for im in marked])
    return {"dice": features(net, dice, views, rng), key: features(net, marked, views, rng),
            "dice_cal": np.repeat(cal, views), f"{key}_cal": np.repeat(mcal, views), "real": np.repeat(real, views)}


def gather(args, net) -> dict:
    """Features of the dice and of the printed marks the detector finds, split training /
    calibration by their pixels as train_reader splits."""
    t0 = time.time()
    dice = load_real(args.lurig_boxes)
    for new in synth_crops_of(args.synth, args.synth_limit):
        dice.extend(new)
    dice.extend(training_frame_patches(args.train_scenes))
    imgs, real = dice_images(dice)
    prints = Patches()
    for folder in args.prints:
        prints.extend(detector_false_alarms(args.detector, sets=(), scenes=folder))
    pimgs = np.stack(prints.images)
    print(f"{len(imgs)} dice ({int(real.sum())} real), {len(pimgs)} printed marks found by the detector "
          f"({time.time() - t0:.0f}s)", flush=True)
    out = two_class_features(net, imgs, real, pimgs, "prints", args.views, args.seed)
    print(f"features of {len(out['dice']) + len(out['prints'])} crops ({time.time() - t0:.0f}s)", flush=True)
    return out


def fit(dice: np.ndarray, prints: np.ndarray, seed: int, steps: int = 2000):
    """The check's weights: logistic loss, prints 1, dice 0, the two classes weighted alike."""
    torch.manual_seed(seed)
    net = nn.Sequential(nn.Linear(224, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 1))
    x = torch.from_numpy(np.concatenate([dice, prints]).astype(np.float32))
    y = torch.cat([torch.zeros(len(dice)), torch.ones(len(prints))])
    w = torch.cat([torch.full((len(dice),), 0.5 / len(dice)), torch.full((len(prints),), 0.5 / len(prints))])
    opt = torch.optim.Adam(net.parameters(), lr=3e-3, weight_decay=1e-4)
    for step in range(steps):
        loss = (F.binary_cross_entropy_with_logits(net(x)[:, 0], y, reduction="none") * w).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 500 == 0 or step == steps - 1:
            print(f"step {step}: loss {loss.item():.4f}", flush=True)
    return net


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reader", type=Path, help="the exported whole look (reader.onnx); a print check it has is replaced")
    ap.add_argument("out", type=Path)
    ap.add_argument("--detector", type=Path, required=True, help="whose finds on the print frames are mined")
    ap.add_argument("--synth", type=Path, action="append", default=[], help="rendered crops (bulk crops)")
    ap.add_argument("--train-scenes", type=Path, action="append", default=[], metavar="DIR",
                    help="rendered tray frames (bulk scenes) whose every whole die is a die: small, oblique, "
                         "blurred dice as the detector hands them over")
    ap.add_argument("--prints", type=Path, action="append", default=[], required=True,
                    help="frames of printed marks (python -m reader.synth.prints): every find there is no die")
    ap.add_argument("--seed", type=int, default=0)
    add_head_arguments(ap, sure=0.97, what="a find")
    args = ap.parse_args(argv)
    torch.set_num_threads(2)
    net = reader_from_onnx(args.reader).eval()
    data = cached_features(args.features, lambda: gather(args, net))
    dc, pc = data["dice_cal"], data["prints_cal"]
    check = fit(data["dice"][~dc], data["prints"][~pc], args.seed)
    with torch.no_grad():
        q_d = torch.sigmoid(check(torch.from_numpy(data["dice"][dc]))[:, 0]).numpy()
        q_p = torch.sigmoid(check(torch.from_numpy(data["prints"][pc]))[:, 0]).numpy()
    report_calibration(args.sure, "printed marks", q_p, q_d, data["real"][dc])
    l1, l2 = check[0], check[2]
    fold(args.reader, args.out, *(t.detach().numpy() for t in (l1.weight, l1.bias, l2.weight, l2.bias)), args.sure,
         {"version": args.version} if args.version else None)
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
