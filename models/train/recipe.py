"""The one command that makes models/detector.onnx, reader.onnx and reader_top.onnx again, from scratch.

    pip install torch==2.13.0 onnx moderngl pillow     # training extras (CPU build)
    python -m reader.synth.bulk crops  --out work/synth/crops  --count 30000 --seed 1
    python -m reader.synth.bulk crops  --out work/synth/numerals --count 30000 --seed 11 --mix numerals
    python -m reader.synth.bulk scenes --out work/synth/scenes --count 1500 --seed 2
    python -m models.train.recipe [--detector-minutes 127] [--reader-minutes 356] [--top-face-minutes 70] \
        [--pips-look-minutes 70]

Steps: train the detector on real tray frames (training four-fifths) and rendered scenes; export
it; find the die in each single-die photo with it; train the reader on real dice, rendered dice,
type-only photos, table patches and the detector's own false alarms ("none"); export; start the
second look at the top face from the reader's weights and train it (train_top_face); export it;
the same for the D6's own look (train_top_face --dice d6 --cut d6=1.15, reader_top_d6.onnx);
calibrate the three together on the held-back 8%; export the reader again with the calibration in the
ONNX metadata. Timings are for two CPU cores. The committed models were trained
in stages of the same recipe (models/*.md say which); one run of the summed minutes stands in for
them, close but not bit-identical.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from models.train import calibrate, export, single_boxes, train_detector, train_reader, train_top_face


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--detector-minutes", type=float, default=127)
    ap.add_argument("--reader-minutes", type=float, default=356)
    ap.add_argument("--top-face-minutes", type=float, default=70)
    ap.add_argument("--pips-look-minutes", type=float, default=70, help="the D6's second look (0: none)")
    ap.add_argument("--synth-crops", type=Path, action="append", default=None,
                    help="folders of rendered crops (default: work/synth/crops and work/synth/numerals)")
    ap.add_argument("--synth-scenes", type=Path, default=Path("work/synth/scenes"))
    ap.add_argument("--work", type=Path, default=Path("work"))
    ap.add_argument("--models", type=Path, default=Path("models"))
    # each model keeps its own version line (the cards name them): detector v3, reader v8
    ap.add_argument("--detector-version", default="3")
    ap.add_argument("--reader-version", default="8")
    args = ap.parse_args(argv)
    crops = args.synth_crops or [Path("work/synth/crops"), Path("work/synth/numerals")]
    w, m = args.work, args.models
    w.mkdir(parents=True, exist_ok=True)

    train_detector.main(["--minutes", str(args.detector_minutes), "--out", str(w / "detector.pt")] +
                        (["--synth", str(args.synth_scenes)] if args.synth_scenes.is_dir() else []))
    export.main(["detector", str(w / "detector.pt"), str(m / "detector.onnx"), "--version", args.detector_version])
    single_boxes.main([str(m / "detector.onnx"), "type-lurig", "--out", str(w / "lurig_boxes.json")])
    train_reader.main(["--minutes", str(args.reader_minutes), "--out", str(w / "reader.pt"),
                       "--lurig-boxes", str(w / "lurig_boxes.json"),
                       "--hard-negatives", str(m / "detector.onnx")] +
                      (["--scenes", str(args.synth_scenes)] if args.synth_scenes.is_dir() else []) +
                      [a for c in crops if c.is_dir() for a in ("--synth", str(c))])
    export.main(["reader", str(w / "reader.pt"), str(w / "reader_uncalibrated.onnx"), "--version", args.reader_version])
    train_top_face.main(["--minutes", str(args.top_face_minutes), "--init", str(w / "reader.pt"),
                         "--out", str(w / "reader_top.pt")] + [a for c in crops if c.is_dir() for a in ("--synth", str(c))])
    export.main(["top-face", str(w / "reader_top.pt"), str(m / "reader_top.onnx"), "--version", args.reader_version])
    looks = ["--top-face", str(m / "reader_top.onnx")]
    if args.pips_look_minutes > 0:
        train_top_face.main(["--minutes", str(args.pips_look_minutes), "--init", str(w / "reader.pt"),
                             "--out", str(w / "reader_top_d6.pt"), "--dice", "d6", "--cut", "d6=1.15"] +
                            [a for c in crops if c.is_dir() for a in ("--synth", str(c))])
        export.main(["top-face", str(w / "reader_top_d6.pt"), str(m / "reader_top_d6.onnx"),
                     "--version", args.reader_version])
        looks += ["--top-face", str(m / "reader_top_d6.onnx")]
    calibrate.main([str(w / "reader_uncalibrated.onnx"), str(w / "reader.calib.npz"),
                    "--out", str(w / "reader_calib.json")] + looks)
    export.main(["reader", str(w / "reader.pt"), str(m / "reader.onnx"), "--meta", str(w / "reader_calib.json"),
                 "--version", args.reader_version])


if __name__ == "__main__":
    main()
