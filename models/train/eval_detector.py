"""Detector recall and false alarms on the holdout fifth of the real tray sets.

    python -m models.train.eval_detector models/detector.onnx
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from reader.vision.detector import DiceDetector
from reader.vision.onnx_model import OnnxModel
from reader.vision.realdata import load_set, realdata_root


def matched(label, pred) -> bool:
    lx, ly = (label[0] + label[2]) / 2, (label[1] + label[3]) / 2
    px, py = (pred[0] + pred[2]) / 2, (pred[1] + pred[3]) / 2
    return pred[0] <= lx <= pred[2] and pred[1] <= ly <= pred[3] and label[0] <= px <= label[2] and label[1] <= py <= label[3]


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("onnx", type=Path)
    ap.add_argument("--sets", default="tray-d6-nell,tray-mixed-bartek,desk-d6-matteo")
    ap.add_argument("--threshold", type=float, default=None)
    args = ap.parse_args(argv)
    det = DiceDetector(OnnxModel(args.onnx), args.threshold)
    for name in args.sets.split(","):
        n_lab = n_found = n_pred = n_false = 0
        sizes = []
        for li in load_set(realdata_root() / name):
            if not li.holdout:
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
                    sizes.append(((p[2] - p[0]) / (lb[2] - lb[0]), (p[3] - p[1]) / (lb[3] - lb[1])))
            n_lab += len(labels)
            n_pred += len(preds)
            n_false += len(preds) - len(used)
        s = np.array(sizes) if sizes else np.zeros((1, 2))
        print(f"{name:20s} dice {n_lab:5d} found {n_found/max(n_lab,1):.3f} false {n_false:4d} "
              f"size ratio w {np.median(s[:,0]):.2f} h {np.median(s[:,1]):.2f}")


if __name__ == "__main__":
    main()
