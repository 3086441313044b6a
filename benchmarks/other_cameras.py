"""The recognizer on labeled photos as other cameras and lights would have taken them.

The reader is scored on cameras nobody here has; this prints, for each set's holdout fifth (every
image of a set the models never train on), end-to-end and accepted-but-wrong as photographed, then
in low light, tungsten light, monochrome, JPEG quality 25 and 50, out of focus, overexposed, with
motion blur, under blue stage light, oversharpened, hazy, with lamps' glare, from a camera 3x closer,
from one with 3x the pixels 3x farther away, from one with 4x the pixels on the same tray, with its
own sensor noise, and from one with 2x and 3x fewer pixels (or
as many, farther away: the dice smaller in pixels), the first also as its JPEG at quality 75
(reader.vision.other_cameras). The variants are written to a temporary folder and deleted.

Run: python3 benchmarks/other_cameras.py [SET ...] [--models DIR] [--guess-camera] [--unbalanced]
     (default sets: tray-d6-nell tray-mixed-bartek desk-d6-matteo, from ../shared/realdata)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reader.commands.evaluate import evaluate_images, resolve_set  # noqa: E402
from reader.vision.evaluate import summarise  # noqa: E402
from reader.vision.other_cameras import VARIANTS, close_up, far_away, jpeg, more_pixels, smaller  # noqa: E402
from reader.vision.realdata import TRAINABLE, load_set, write_set  # noqa: E402
from reader.vision.recognizer import Recognizer  # noqa: E402

def write_variants(images, out: Path) -> dict[str, Path]:
    """One labeled folder per variant under `out`; returns name -> folder."""
    rng = np.random.default_rng(0)
    photos = [(im, img) for im in images if (img := cv2.imread(str(im.path))) is not None]
    folders = {}
    for name, variant in [("as photographed", None), *VARIANTS.items(), ("3x closer", "close"), ("3x farther", "far"),
                          ("4x pixels", "more"), ("2x smaller", (2.0, None)), ("3x smaller", (3.0, None)),
                          ("2x smaller JPEG 75", (2.0, 75))]:
        folder = out / name.replace(" ", "_")
        folder.mkdir()
        if variant == "close":
            shown = [(f"{im.path.stem}_{k}.jpg", big, dice)
                     for im, img in photos for k, (big, dice) in enumerate(close_up(img, im.dice))]
        elif variant == "far":
            shown = [(im.path.stem + ".jpg", *far_away(img, im.dice, 3.0)) for im, img in photos]
        elif variant == "more":
            shown = [(im.path.stem + ".jpg", *more_pixels(img, im.dice, rng)) for im, img in photos]
        elif isinstance(variant, tuple):  # (times fewer pixels, then a camera's or a photo file's JPEG or None)
            scale, quality = variant
            shown = [(im.path.stem + ".png", small if quality is None else jpeg(small, quality), dice)
                     for im, img in photos for small, dice in [smaller(img, im.dice, scale)]]
        else:
            shown = [(im.path.stem + ".png", img if variant is None else variant(img, rng), im.dice)
                     for im, img in photos]
        write_set(folder, shown)
        folders[name] = folder
    return folders


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sets", nargs="*", default=["tray-d6-nell", "tray-mixed-bartek", "desk-d6-matteo"])
    ap.add_argument("--models", default=None, help="folder of the ONNX models (default: models/)")
    ap.add_argument("--guess-camera", action="store_true",
                    help="as `read --guess-camera` reads: the camera guessed from the dice of a frame that "
                         "leaves a die refused")
    ap.add_argument("--unbalanced", action="store_true",
                    help="read every photo as it came, no colour cast taken out (reader.vision.white_balance): "
                         "as the release read before session 80")
    args = ap.parse_args(argv)
    recognizer = Recognizer.load(args.models)
    recognizer.guess_view = args.guess_camera
    recognizer.balance_light = not args.unbalanced
    print(f"{'set':22s} {'camera':18s} {'images':>6s} {'dice':>5s} {'end-to-end':>10s} {'wrong':>11s} {'false det':>9s}")
    for spec in args.sets:
        folder = resolve_set(spec)
        images = [im for im in load_set(folder) if im.holdout or folder.name not in TRAINABLE]
        with tempfile.TemporaryDirectory() as tmp:
            for name, variant in write_variants(images, Path(tmp)).items():
                s = summarise(name, evaluate_images(load_set(variant), recognizer))
                wrong = f"{s.accepted_wrong} ({100 * (s.accepted_wrong_rate or 0):.2f}%)"
                print(f"{folder.name:22s} {name:18s} {s.images:6d} {s.dice:5d} {100 * (s.end_to_end or 0):9.2f}% {wrong:>11s} "
                      f"{s.false_detections:9d}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
