"""Gather the reader's calibration dice again, for `calibrate`, without training the reader.

    python -m reader.synth.bulk crops  --out work/synth/calib_all --count 2400 --seed 41   # and 43
    python -m reader.synth.bulk crops  --out work/synth/calib_num --count 2300 --seed 42 --mix numerals  # and 44
    python -m reader.synth.bulk scenes --out work/synth/calib_scenes51 --count 150 --seed 51  # 52, 53, 54
    python -m models.train.calib_set --out work/reader.calib.npz \
        --renders work/synth/calib_all --renders work/synth/calib_num ... \
        --scenes work/synth/calib_scenes51 ... --lurig-faces models/train/lurig_values.json

`train_reader` writes its calibration dice beside its weights (OUT.calib.npz), in work/, which a
fresh machine does not have. The real ones come back: the same fixed 8% of each real source (tray
dice, table patches, the detector's false alarms on the training frames, type-lurig in the
detector's boxes), chosen by their pixels (`train_reader.is_calibration`). The rendered ones do
not: the training renders are 56,368 crops, two hours of rendering. So `--renders` takes crops
rendered afresh with seeds no model was trained on, every one of them a calibration die (reader
v9: seeds 41 and 43, every type, 2,400 each; 42 and 44, numeral dice, 2,300 each), `--scenes`
every whole die of rendered tray frames (seeds 51-54, 150 frames each), and `--lurig-faces`
type-lurig's faces read by eye (real dice of other makers; since reader v23 the D20 look was taught
the training four-fifths' D20 faces, which `--lurig-taught d20` leaves out). `--synth`
takes training renders instead, of which the same fixed 8% is kept, as train_reader did.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np

from models.train import single_boxes
from models.train.nets import STATES, TYPES
from models.train.reader_data import (Patches, detector_false_alarms, lurig_values, lurig_values_of,
                                      single_die_patches, synth_crop_patches, synth_scene_patches)
from models.train.train_reader import is_calibration, load_real


def lurig_faces(lurig_boxes: Path, faces_file: Path, taught: tuple[str, ...] = ()) -> Patches:
    """Every type-lurig photo whose face was read by eye (both fifths), source "type-lurig:faces":
    real dice of makers no tray set has (reader v23's D20 look was taught the training fifths' D20).
    `taught`: die types whose training four-fifths a look was taught (train_top_face --lurig-faces
    --lurig-dice), left out: a look is surer of the photos it learnt, and its temperature would be
    fitted on them."""
    values = lurig_values(faces_file)
    boxes = json.loads(lurig_boxes.read_text())
    learnt = lurig_values_of(values, taught) if taught else {}
    out = Patches()
    for holdout in (False, True):
        kept = values if holdout else {k: v for k, v in values.items() if k not in learnt}
        p = single_die_patches("type-lurig", boxes, holdout=holdout, values=kept)
        for i in np.nonzero(np.array(p.face_idx) >= 0)[0]:
            out.add(p.images[i], TYPES[p.type_idx[i]], p.face_idx[i] + 1, STATES[p.state_idx[i]], "type-lurig:faces")
    return out


def gather(detector: Path, lurig_boxes: Path, renders: list[Path], synth: list[Path],
           scenes: list[Path] = (), faces_file: Path | None = None,
           lurig_taught: tuple[str, ...] = ()) -> dict[str, np.ndarray]:
    """The calibration dice as train_reader saves them: imgs, ti, fi, si, src."""
    if not lurig_boxes.is_file():
        single_boxes.main([str(detector), "type-lurig", "--out", str(lurig_boxes)])
    chosen = load_real(lurig_boxes)
    chosen.extend(detector_false_alarms(detector))
    for folder in synth:
        chosen.extend(synth_crop_patches(folder))
    imgs, ti, fi, si, src = chosen.arrays()
    keep = np.array([is_calibration(im) for im in imgs], dtype=bool)
    fresh = Patches()
    for folder in renders:
        if not (folder / "labels.jsonl").is_file():
            raise SystemExit(f"--renders {folder}: no labels.jsonl (render it with reader.synth.bulk crops)")
        fresh.extend(synth_crop_patches(folder))
    for folder in scenes:
        if not (folder / "labels.jsonl").is_file():
            raise SystemExit(f"--scenes {folder}: no labels.jsonl (render it with reader.synth.bulk scenes)")
        fresh.extend(synth_scene_patches(folder))
    if faces_file:
        fresh.extend(lurig_faces(lurig_boxes, faces_file, lurig_taught))
    parts = [(imgs[keep], ti[keep], fi[keep], si[keep], src[keep])]
    if len(fresh):
        parts.append(fresh.arrays())
    return {k: np.concatenate([p[i] for p in parts]) for i, k in enumerate(("imgs", "ti", "fi", "si", "src"))}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--detector", type=Path, default=Path("models/detector.onnx"))
    ap.add_argument("--lurig-boxes", type=Path, default=Path("work/lurig_boxes.json"),
                    help="the detector's boxes on type-lurig; found with --detector when the file is missing")
    ap.add_argument("--renders", type=Path, action="append", default=[],
                    help="crops rendered for calibration alone (seeds never trained on): all of them kept")
    ap.add_argument("--synth", type=Path, action="append", default=[],
                    help="training renders: the fixed 8%% train_reader keeps for calibration")
    ap.add_argument("--scenes", type=Path, action="append", default=[],
                    help="tray frames rendered for calibration alone: every die in them kept")
    ap.add_argument("--lurig-faces", type=Path, default=None, metavar="JSON",
                    help="type-lurig's faces read by eye (models/train/lurig_values.json): every valued photo "
                         "kept, for looks and readers never taught them")
    ap.add_argument("--lurig-taught", nargs="*", default=[], metavar="DIE",
                    help="with --lurig-faces: leave out the training four-fifths' photos of these die types, "
                         "for a look taught them (reader v23's D20 look: d20)")
    args = ap.parse_args(argv)
    if args.lurig_taught and not args.lurig_faces:
        ap.error("--lurig-taught leaves out some of --lurig-faces: give --lurig-faces too")
    d = gather(args.detector, args.lurig_boxes, args.renders, args.synth, args.scenes, args.lurig_faces,
               tuple(args.lurig_taught))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **d)
    counts = Counter(str(s) for s in d["src"])
    print(f"{len(d['imgs'])} calibration dice -> {args.out}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
