"""Calibrate the reader's thresholds for the numeral dice a described camera sees near vertical, and
write them into its metadata ("near_vertical", read by reader.vision.viewing.NearVertical).

    python -m models.train.calibrate_near --crops work/synth/calib_all=41:all work/synth/calib_num=42:numerals \
        --scenes work/synth/calib_scenes51 ... --lurig-faces models/train/lurig_values.json --out models/reader.onnx

Why: the reader's D20 threshold is set by the calibration D20 seen over 21 degrees off vertical,
which show a neighbour face squarely and are read wrong as surely as others are read right. With
the camera described, a die's angle is known, and the dice seen near vertical can be held to the
same rule on their own. Every die is read as the recognizer reads it with a described camera and
the lean look (reader.vision.viewing.NearVertical is asked only then): the release's reader, looks,
temperatures and thresholds (models/, or --models) on a box drawn with the detector's error
(calibrate.box_with_error), then, for a die refused for low confidence and seen within --within
degrees of vertical, the lower threshold; a die whose p(leaning) reaches the lean look's threshold
is refused whatever its confidence. A die's angle: a rendered crop's camera
angle (replayed from its seed: its die is at the middle of the picture), a rendered frame's die's
place under that frame's camera, type-lurig's faces (photographed from above) 0.

Per die type, the threshold is the lowest (0.5 or over) at which the flat dice it accepts wrongly (a
wrong type or face) are at most --max-wrong of the flat dice near vertical read as that type, among
them all and among those of each source with --min-source of them (calibrate.py's rule), and at
which it accepts no more of them wrongly, and gives no more cocked dice near vertical a value, than
the release's threshold does (the rule that ships a reader); never over the release's own threshold. A type whose threshold comes out
at the release's is left out.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from models.train.calibrate import box_with_error, threshold_over
from models.train.export import restamp
from models.train.reader_data import lurig_values
from reader.reading import Box, Face, Unreadable
from reader.vision.faces import LOW_CONFIDENCE
from reader.vision.onnx_model import models_dir
from reader.vision.recognizer import LEAN_MODEL, Recognizer
from reader.vision.viewing import CameraView

BOX_ERROR = (0.65, 1.3)  # detector box side / die side, as calibrate.py draws it
NUMERAL_DICE = ("d8", "d10", "d12", "d20")
WITHIN_DEG = 21.0  # half the angle between a D20's neighbouring faces (41.8 degrees)


def crop_dice(folder: Path, seed: int, mix: str) -> list[tuple]:
    """(image, main die's label, degrees off vertical, source, turn to the camera's foot) of a `bulk
    crops` folder."""
    from models.train.train_lean import replayed_angles

    angles = replayed_angles(folder, seed, mix)
    out = []
    for line in (folder / "labels.jsonl").read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            out.append((folder / r["image"], r["dice"][0], angles[r["image"]], "synth-crops", 0.0))
    return out


def scene_dice(folder: Path) -> list[tuple]:
    """(frame, die's label, degrees off vertical at its place, source, turn to the camera's foot) of
    every die of a `bulk scenes` folder."""
    out = []
    for line in (folder / "labels.jsonl").read_text().splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        view = CameraView.rendered(r["camera"])
        w, h = r["camera"]["width"], r["camera"]["height"]
        for d in r["dice"]:
            x0, y0, x1, y1 = d["box"]
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            out.append((folder / r["image"], d, view.slant(cx, cy, w, h), "synth-scenes", view.turn_to_foot(cx, cy, w, h)))
    return out


def lurig_dice(faces_file: Path, boxes_file: Path | None) -> list[tuple]:
    """type-lurig's faces read by eye (photographed from above: 0 degrees), in the detector's boxes
    (models.train.single_boxes) where given, else the whole photo."""
    from reader.vision.realdata import realdata_root

    boxes = json.loads(boxes_file.read_text()) if boxes_file and boxes_file.is_file() else {}
    out = []
    for name, value in sorted(lurig_values(faces_file).items()):
        path = realdata_root() / "type-lurig" / name
        img = cv2.imread(str(path))
        if img is None:
            continue
        box = boxes.get(name) or [0.0, 0.0, float(img.shape[1]), float(img.shape[0])]
        out.append((path, {"die": name.split("_")[0], "value": value, "box": box, "state": "flat"}, 0.0,
                    "type-lurig:faces", 0.0))
    return out


def read_all(rec: Recognizer, dice, seed: int) -> list[dict]:
    """Each die read by the release from a box with the detector's error: the type read, its face and
    confidence where the release accepts it or refuses it for low confidence alone, whether that
    face would be wrong, and the lean look's p(leaning) (a rendered crop's camera stands below it,
    a frame's where its camera stands; type-lurig's photos are taken from above)."""
    rng = np.random.default_rng(seed)
    rows, cache = [], {}
    for path, d, slant, source, turn in dice:
        if d["die"] == "d4" or (d["state"] == "flat" and d["value"] is None):
            continue
        img = cache.get(path)
        if img is None:
            cache.clear()
            img = cache[path] = cv2.imread(str(path))
        box = Box(*box_with_error(rng, d["box"], BOX_ERROR))
        ev = rec.faces.evidence(img, [box])[0]
        r = rec.faces.decide(ev, box, allow_none=False, accept_by_die={t: 0.0 for t in NUMERAL_DICE})
        own = rec.faces.decide(ev, box, allow_none=False)
        candidate = isinstance(r.outcome, Face) and (
            isinstance(own.outcome, Face) or (isinstance(own.outcome, Unreadable) and own.outcome.reason == LOW_CONFIDENCE))
        wrong = d["state"] != "flat" or r.die != d["die"] or r.value != d["value"]
        p_lean = float(rec.lean.p_leaning_turned(img, [box], [turn], [slant])[0]) if rec.lean is not None else 0.0
        rows.append({"die": r.die, "slant": float(slant), "source": source, "cocked": d["state"] != "flat",
                     "p_leaning": p_lean,
                     "conf": float(r.confidence) if candidate else 0.0, "wrong": bool(wrong),
                     "released": isinstance(own.outcome, Face)})
    return rows


def near_thresholds(rows: list[dict], within: dict, release: dict, max_wrong: float, min_source: int,
                    lean_threshold: float | None = None) -> dict:
    """{die: {threshold, dice near vertical read as it, right / wrong / cocked valued at it and at the
    release's threshold}}. `lean_threshold`: as read with the lean look, which calls a die whose
    p(leaning) reaches it cocked, whatever its confidence."""
    out = {}
    for die, deg in within.items():
        near = [r for r in rows if r["die"] == die and r["slant"] <= deg]
        if not near:
            continue
        conf = np.array([r["conf"] for r in near])
        if lean_threshold is not None:
            conf = np.where(np.array([r["p_leaning"] for r in near]) >= lean_threshold, 0.0, conf)
        cocked = np.array([r["cocked"] for r in near])
        wrong = np.array([r["wrong"] for r in near]) & ~cocked  # a flat die read wrong
        src = np.array([r["source"] for r in near])
        flat = ~cocked
        groups = [flat] + [flat & (src == s) for s in sorted(set(src)) if (flat & (src == s)).sum() >= min_source]
        at_release = conf >= release[die]
        # within max_wrong of every group, and no more than the release's threshold lets through in any
        thr = max(threshold_over(conf[g], wrong[g], min(int(np.floor(max_wrong * g.sum())), int((at_release & wrong & g).sum())), 0.5)
                  for g in groups)
        # and no more cocked dice given a value than at the release's threshold (calibrate sets the
        # cocked threshold for those; a lower accept threshold must not let more of them through)
        thr = max(thr, threshold_over(conf, cocked, int((at_release & cocked).sum()), 0.5))
        thr = min(thr, release[die])
        took = conf >= thr
        out[die] = {"threshold": round(float(thr), 3), "dice": len(near),
                    "cocked_valued": int((took & cocked).sum()), "cocked_valued_at_release": int((at_release & cocked).sum()),
                    "right": int((took & ~wrong & flat).sum()), "wrong": int((took & wrong).sum()),
                    "right_at_release": int((at_release & ~wrong & flat).sum()), "wrong_at_release": int((at_release & wrong).sum()),
                    "by_source": {str(s): int((src == s).sum()) for s in sorted(set(src))}}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--crops", nargs="*", default=[], metavar="DIR=SEED:MIX",
                    help="bulk crops folders no network learnt from, their camera angles replayed from the seed")
    ap.add_argument("--scenes", type=Path, nargs="*", default=[], help="bulk scenes folders no network learnt from")
    ap.add_argument("--lurig-faces", type=Path, default=None, help="type-lurig's faces read by eye (lurig_values.json)")
    ap.add_argument("--lurig-boxes", type=Path, default=Path("work/lurig_boxes.json"),
                    help="the detector's box in each type-lurig photo (models.train.single_boxes); the whole photo without")
    ap.add_argument("--within", nargs="*", default=[], metavar="DIE=DEG",
                    help=f"how near vertical a die type must be seen (default {WITHIN_DEG:g} for each of {', '.join(NUMERAL_DICE)})")
    ap.add_argument("--max-wrong", type=float, default=0.001)
    ap.add_argument("--min-source", type=int, default=100)
    ap.add_argument("--models", type=Path, default=None, help="the release (default: models/)")
    ap.add_argument("--seed", type=int, default=0, help="of the box errors drawn")
    ap.add_argument("--out", type=Path, default=None, help="write the reader with these thresholds here")
    ap.add_argument("--report", type=Path, default=None, help="write the figures as JSON here")
    ap.add_argument("--version", default=None, help="the reader's version in its metadata (default: kept)")
    args = ap.parse_args(argv)

    within = {d: WITHIN_DEG for d in NUMERAL_DICE}
    for item in args.within:
        die, _, deg = item.partition("=")
        if die not in NUMERAL_DICE or not deg:
            ap.error(f"--within {item!r}: give DIE=DEG for one of {', '.join(NUMERAL_DICE)}")
        within[die] = float(deg)
    dice = []
    for item in args.crops:
        folder, _, spec = item.partition("=")
        seed, _, mix = spec.partition(":")
        if not seed:
            ap.error(f"--crops {item!r}: give DIR=SEED:MIX")
        dice += crop_dice(Path(folder), int(seed), mix or "all")
    for folder in args.scenes:
        dice += scene_dice(folder)
    if args.lurig_faces:
        dice += lurig_dice(args.lurig_faces, args.lurig_boxes)
    if not dice:
        ap.error("no calibration dice: give --crops, --scenes or --lurig-faces")

    release = models_dir(args.models)
    rec = Recognizer.load(release)
    if rec.lean is None:
        raise SystemExit(f"calibrate_near: {release} has no {LEAN_MODEL}; the thresholds are set for readings it judges")
    own = {d: rec.faces.accept_by_die.get(d, rec.faces.accept) for d in NUMERAL_DICE}
    rows = read_all(rec, dice, args.seed)
    found = near_thresholds(rows, within, own, args.max_wrong, args.min_source, rec.lean.threshold)
    for die, f in found.items():
        print(f"{die}: within {within[die]:g} degrees, {f['dice']} dice {f['by_source']}; threshold "
              f"{f['threshold']:.3f} (release {own[die]:.3f}): right {f['right_at_release']} -> {f['right']}, "
              f"wrong {f['wrong_at_release']} -> {f['wrong']}, cocked valued {f['cocked_valued_at_release']} -> "
              f"{f['cocked_valued']}")
    lower = {d: f["threshold"] for d, f in found.items() if f["threshold"] < own[d]}
    if args.report:
        args.report.write_text(json.dumps({"within_deg": within, "found": found, "release": own, "rows": rows}))
    if args.out:
        meta = {"near_vertical": {
            "within_deg": {d: within[d] for d in lower}, "accept_threshold_by_die": lower,
            "calibration": {"max_wrong": args.max_wrong, "box_error": list(BOX_ERROR), "lean_threshold": rec.lean.threshold,
                            "sources": sorted({r["source"] for r in rows}),
                            "figures": {d: {k: v for k, v in f.items() if k != "by_source"} for d, f in found.items()}}}}
        if args.version:
            meta["version"] = args.version
        restamp(release / "reader.onnx", args.out, meta)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
