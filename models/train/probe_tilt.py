"""Does the reader tell a leaning die from a flat one seen at an angle? Renders dice both ways.

    python -m models.train.probe_tilt models/reader.onnx [--count 40]

Prints, per case (flat or cocked, camera 0-30 degrees off vertical), the reader's median
p(cocked), the share it calls cocked and how many it gives a value. A flat die seen 30 degrees
off vertical and a die cocked 25-40 degrees seen straight down make nearly the same crop; this
measures how far the state head separates them (models/reader.md, known failures). Needs the
renderer (moderngl, training extras); clean renders, no camera effects.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from reader.reading import Box
from reader.synth.layouts import crop_scene
from reader.synth.render import Renderer
from reader.vision.faces import FaceReader
from reader.vision.onnx_model import OnnxModel

CASES = [(False, 0.0), (False, 15.0), (False, 30.0), (True, 0.0), (True, 15.0)]  # (cocked, degrees off vertical)
DICE = ["d6", "d8", "d10", "d12", "d20"]


def probe(reader: FaceReader, renderer: Renderer, cocked: bool, off: float, count: int, seed: int = 0) -> str:
    p_cocked, valued = [], 0
    for i in range(count):
        rng = np.random.default_rng([seed, i, int(off), int(cocked)])
        s = crop_scene(rng, size=128, die=str(rng.choice(DICE)), cocked=cocked, off_vertical=off)
        box = s["labels"][0]["box"]  # the main die comes first
        bgr = cv2.cvtColor(renderer.render(s), cv2.COLOR_RGB2BGR)
        ev = reader.evidence(bgr, [tuple(box)])[0]
        reading = reader.decide(ev, Box(*box), allow_none=False)
        p_cocked.append(ev.cocked)
        valued += reading is not None and reading.state == "flat"
    p = np.array(p_cocked)
    return (f"{'cocked' if cocked else 'flat':6s} seen {off:2.0f} deg off vertical: p(cocked) median {np.median(p):.2f}, "
            f"called cocked {np.mean(p >= reader.cocked_threshold):.0%}, given a value {valued}/{count}")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("reader", type=Path)
    ap.add_argument("--count", type=int, default=40)
    args = ap.parse_args(argv)
    reader = FaceReader(OnnxModel(args.reader, 2))
    renderer = Renderer()
    for cocked, off in CASES:
        print(probe(reader, renderer, cocked, off, args.count), flush=True)


if __name__ == "__main__":
    main()
