"""Detector recall, false alarms and box size on the holdout fifth of the real tray sets.

    python -m models.train.eval_detector models/detector.onnx [--sets tray-d6-nell,fixtures/stills]

Box size matters as much as recall: the reader's crop is cut from the box, so a box half the
die's size hides half its face; and a die boxed twice is read twice.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from reader.vision.detector import DiceDetector
from reader.vision.onnx_model import OnnxModel
from reader.vision.realdata import TRAINABLE, load_set, realdata_root


def matched(label, pred) -> bool:
    lx, ly = (label[0] + label[2]) / 2, (label[1] + label[3]) / 2
    px, py = (pred[0] + pred[2]) / 2, (pred[1] + pred[3]) / 2
    return pred[0] <= lx <= pred[2] and pred[1] <= ly <= pred[3] and label[0] <= px <= label[2] and label[1] <= py <= label[3]


def boxed_twice(label, preds) -> bool:
    """Two or more finds centred in the middle 60% of a labeled die's box: the die boxed whole and
    again by a face, or in pieces (a D4 by its numerals, a big D10 by its faces). A neighbour's find
    seldom has its centre there. Each extra box is read as a die of its own (models/reader.md, "Session 52")."""
    mx, my = 0.2 * (label[2] - label[0]), 0.2 * (label[3] - label[1])
    inside = [p for p in preds if label[0] + mx <= (p[0] + p[2]) / 2 <= label[2] - mx
              and label[1] + my <= (p[1] + p[3]) / 2 <= label[3] - my]
    return len(inside) >= 2


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("onnx", type=Path)
    ap.add_argument("--sets", default="tray-d6-nell,tray-mixed-bartek,desk-d6-matteo")
    ap.add_argument("--threshold", type=float, default=None)
    args = ap.parse_args(argv)
    det = DiceDetector(OnnxModel(args.onnx), args.threshold)
    for name in args.sets.split(","):
        n_lab = n_found = n_pred = n_false = n_twice = 0
        sizes = []
        folder = Path(name) if Path(name).is_dir() else realdata_root() / name
        for li in load_set(folder):
            if folder.name in TRAINABLE and not li.holdout:
                continue
            img = cv2.imread(str(li.path))
            preds = [d.box for d in det.detect(img)]
            labels = [d.box for d in li.dice if d.box]
            used = set()
            for lb in labels:
                hit = next((j for j, p in enumerate(preds) if j not in used and matched(lb, p)), None)
                if hit is not None:
                    used.add(hit)
                    n_found += 1
                    p = preds[hit]
                    sizes.append(max(p[2] - p[0], p[3] - p[1]) / max(lb[2] - lb[0], lb[3] - lb[1]))
            n_twice += sum(boxed_twice(lb, preds) for lb in labels)
            n_lab += len(labels)
            n_pred += len(preds)
            n_false += len(preds) - len(used)
        q = np.percentile(sizes, [10, 50, 90]) if sizes else [0, 0, 0]
        print(f"{name:20s} dice {n_lab:5d} found {n_found/max(n_lab,1):.3f} false {n_false:4d} "
              f"box side / labeled side: 10% {q[0]:.2f} median {q[1]:.2f} 90% {q[2]:.2f} boxed twice {n_twice}")


if __name__ == "__main__":
    main()
