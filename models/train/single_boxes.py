"""Find the die in single-die photos (type-lurig) with the detector, so the reader trains on the
same crops it will see at run time.

    python -m models.train.single_boxes models/detector.onnx type-lurig --out work/lurig_boxes.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2

from reader.vision.detector import DiceDetector
from reader.vision.onnx_model import OnnxModel
from reader.vision.realdata import load_set, realdata_root
from reader.vision.recognizer import SINGLE_LONG_SIDE


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("onnx", type=Path)
    ap.add_argument("set_name")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    det = DiceDetector(OnnxModel(args.onnx))
    boxes, found = {}, 0
    items = load_set(realdata_root() / args.set_name)
    for li in items:
        img = cv2.imread(str(li.path))
        if img is None:
            continue
        dets = det.detect(img, long_side=SINGLE_LONG_SIDE)
        if dets and dets[0].score >= 0.3:
            b = max(dets, key=lambda d: d.score).box
            boxes[li.name] = [round(v, 1) for v in b]
            found += 1
    args.out.write_text(json.dumps(boxes))
    print(f"{found}/{len(items)} images with a die found -> {args.out}")


if __name__ == "__main__":
    main()
