"""Calibrate the thresholds for a die the reader refused for low confidence alone, decided again with the
lean look's p(leaning) in place of its state head's p(cocked), and write them into the reader's
metadata ("lean_thresholds", read by reader.vision.lean.LeanThresholds).

    python -m models.train.calibrate_lean_thresholds --crops work/synth/calib_all=41:all \
        work/synth/calib_num=42:numerals --scenes work/synth/calib_scenes51 ... \
        --lurig-faces models/train/lurig_values.json --out models/reader.onnx

Why: seen obliquely, a flat die shows a side face that the reader's state head takes for a lean,
and its p(cocked) costs a die read right its confidence; the D20's threshold is set by D20 seen over
21 degrees off vertical, read wrong as surely as others are read right. With the camera described,
the lean look knows the angle, and so does the frame. Every calibration die is read as the
recognizer reads it with a described camera and the lean look: the release's reader, looks,
temperatures and thresholds (models/, or --models) on a box drawn with the detector's error
(calibrate.box_with_error); accepted as the release accepts it (its own threshold, and the lean
look finding it standing), or, refused for low confidence alone and seen within its type's angle
(--within; by default where the reader decides: the steep limits, the D20 until the seen look takes
it), given p(type) x p(face) x (1 - p(leaning)). A die's angle: a rendered crop's camera angle
(replayed from its seed: its die is at the middle of the picture), a rendered frame's die's place
under that frame's camera, type-lurig's faces (photographed from above) 0.

Per die type (--dice; the numeral dice by default) the threshold is the lowest (0.5 or over) at
which the dice decided again give no flat die a wrong type or face and no cocked die a value: the
release's wrong readings stay the only ones. A type whose dice decided again reach none of it is left out.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from models.train.calibrate import box_with_error, threshold_over
from models.train.calibrate_seen import BOX_ERROR, crops_of
from models.train.export import restamp
from models.train.reader_data import lurig_values
from reader.reading import Box, Face, Unreadable
from reader.vision.faces import LOW_CONFIDENCE
from reader.vision.onnx_model import OnnxModel, models_dir
from reader.vision.recognizer import LEAN_MODEL, Recognizer, with_looks
from reader.vision.topface import TopFaceLook
from reader.vision.viewing import STEEP_LIMITS, CameraView, top_face_shift

DICE = ("d6", "d8", "d10", "d12", "d20")
# The D6 is left out by default: with a threshold set so (0.936), the 1280x720 stills read with their
# cameras and the lean look gave one more cocked die a value (a blurred D6 tipped under the camera,
# its 5 square to it: p(cocked) 0.22, p(leaning) 0.006), for 25 more right (models/reader.md, "Session 32").
DEFAULT_DICE = ("d8", "d10", "d12", "d20")


def crop_dice(folder: Path, seed: int, mix: str) -> list[tuple]:
    """(image, main die's label, degrees off vertical, source, turn to the camera's foot) of a `bulk
    crops` folder (calibrate_seen.crops_of, which replays the angles; a crop's foot is below it)."""
    return [(path, d, angle, "synth-crops", 0.0) for path, d, angle in crops_of(folder, f"{seed}:{mix}")]


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
            out.append((folder / r["image"], d, view.slant(cx, cy, w, h), "synth-scenes",
                        view.turn_to_foot(cx, cy, w, h)))
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


def read_all(rec: Recognizer, dice, seed: int, rise: float = 0.0, first: dict | None = None) -> list[dict]:
    """Each die read by the release from a box with the detector's error: the type read, whether the
    release accepts it with the lean look (its own threshold, and p(leaning) under the look's), the
    confidence it is decided again with where it is refused for low confidence alone, whether its
    face would be wrong, whether it leans. A rendered crop's camera stands below it, a frame's where
    its camera stands; type-lurig's photos are taken from above. `rise`: the numeral dice's second
    looks cut where the camera sees the top face (reader.vision.viewing.top_face_shift), as the
    recognizer cuts them with lean thresholds carrying that rise. `first`: the first decision's thresholds
    for the dice it names in place of the reader's own (LeanThresholds.first_by_die)."""
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
        shift = [top_face_shift(tuple(box), slant, turn, rise)] if rise else None
        ev = rec.faces_for(True).evidence(img, [box], check_state=False, shifts=shift)[0]
        own = rec.faces.decide(ev, box, allow_none=False, accept_by_die=first)
        p_lean = float(rec.lean.p_leaning_turned(img, [box], [turn], [slant])[0])
        again = rec.faces.decide(replace(ev, cocked=p_lean), box, allow_none=False,
                                 accept_by_die={t: 0.0 for t in DICE})
        unsure = isinstance(own.outcome, Unreadable) and own.outcome.reason == LOW_CONFIDENCE
        read = again if unsure else own
        rows.append({"image": str(path), "die": own.die, "slant": float(slant), "source": source,
                     "cocked": d["state"] != "flat",
                     "wrong": d["state"] == "flat" and (read.die != d["die"] or read.value != d["value"]),
                     "released": isinstance(own.outcome, Face) and p_lean < rec.lean.threshold,
                     "conf": float(again.confidence) if unsure and isinstance(again.outcome, Face) else 0.0})
    return rows


def taken(rows: list[dict], die: str, deg: float, threshold: float) -> list[dict]:
    """The readings of `die` within `deg` degrees that are given a value: the release's own (accepted
    at its threshold, p(leaning) under the lean look's) and those decided again at `threshold`."""
    return [r for r in rows if r["die"] == die and r["slant"] <= deg and (r["released"] or r["conf"] >= threshold)]


def lean_thresholds(rows: list[dict], within: dict, allowed: dict | None = None, floor: dict | None = None) -> dict:
    """{die: {threshold, dice within its angle read as it, right / wrong / cocked valued by the
    release with the lean look and with the dice decided again}}. `allowed`: per die type, how many
    of the dice decided again may be read wrong or cocked given a value (none by default); `floor`:
    per die type, the threshold no lower than which it is set (0.5 by default)."""
    out = {}
    for die, deg in within.items():
        near = [r for r in rows if r["die"] == die and r["slant"] <= deg]
        if not near:
            continue
        conf = np.array([r["conf"] for r in near])
        cocked = np.array([r["cocked"] for r in near])
        wrong = np.array([r["wrong"] for r in near])
        released = np.array([r["released"] for r in near])
        thr = threshold_over(conf, wrong | cocked, int((allowed or {}).get(die, 0)), max(0.5, (floor or {}).get(die, 0.5)))
        took = released | (conf >= thr)
        src = np.array([r["source"] for r in near])
        out[die] = {"threshold": round(float(thr), 3), "dice": len(near),
                    "right_at_release": int((released & ~wrong & ~cocked).sum()),
                    "right": int((took & ~wrong & ~cocked).sum()),
                    "wrong_at_release": int((released & wrong).sum()), "wrong": int((took & wrong).sum()),
                    "cocked_valued_at_release": int((released & cocked).sum()),
                    "cocked_valued": int((took & cocked).sum()),
                    "by_source": {str(s): int((src == s).sum()) for s in sorted(set(src))}}
    return out


def die_values(items: list[str], dice, ok=lambda v: True) -> dict[str, float]:
    """DIE=NUMBER items (--within, --first-gate) as {die: number}, each die one of `dice` and its number
    `ok`; ValueError naming the first item that is not one."""
    out = {}
    for item in items:
        die, _, v = item.partition("=")
        try:
            out[die] = float(v)
        except ValueError:
            raise ValueError(repr(item)) from None
        if die not in dice or not ok(out[die]):
            raise ValueError(repr(item))
    return out


def first_gate(items: list[str]) -> dict[str, float]:
    """--first-gate's DIE=THRESHOLD items as {die: threshold}: a numeral die, a threshold over 0, at most 1."""
    return die_values(items, DICE, lambda t: 0.0 < t <= 1.0)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--crops", nargs="*", default=[], metavar="DIR=SEED:MIX",
                    help="bulk crops folders no network learnt from, their camera angles replayed from the seed")
    ap.add_argument("--scenes", type=Path, nargs="*", default=[], help="bulk scenes folders no network learnt from")
    ap.add_argument("--lurig-faces", type=Path, default=None, help="type-lurig's faces read by eye (lurig_values.json)")
    ap.add_argument("--lurig-boxes", type=Path, default=Path("work/lurig_boxes.json"),
                    help="the detector's box in each type-lurig photo (models.train.single_boxes); "
                         "the whole photo without")
    ap.add_argument("--dice", nargs="+", default=list(DEFAULT_DICE), choices=DICE,
                    help="the die types decided again (default: the numeral dice)")
    ap.add_argument("--within", nargs="*", default=[], metavar="DIE=DEG",
                    help="how near vertical a die type must be seen to be decided again (default: where the reader "
                         "decides with the lean look: the steep limits, the D20 until the seen look's angle)")
    ap.add_argument("--rise", type=float, default=None,
                    help="cut the numeral dice's second looks where the camera sees the top face, this x the box "
                         "side x sin(angle) from the box's middle (reader.vision.viewing.top_face_shift); "
                         "written into the thresholds (default: the release's, 0 before v18)")
    ap.add_argument("--look", default=None, metavar="ONNX_NAME",
                    help="a second look in the release's folder taken with the camera described, in place of the "
                         "reader's own for the dice its metadata names (cut as it says), pooled at --look-weight with "
                         "the whole look at face temperature --look-temperature; written into the thresholds")
    ap.add_argument("--look-weight", type=float, default=1.0)
    ap.add_argument("--look-temperature", type=float, default=0.8)
    ap.add_argument("--reference", type=Path, default=None, metavar="DIR",
                    help="a release read on the same dice (its own rise and looks) that this one may not do worse "
                         "than: no threshold under its lean thresholds, and per die type no more flat dice read wrong "
                         "and cocked dice given a value in all than its readings give")
    ap.add_argument("--first-gate", nargs="*", default=None, metavar="DIE=THRESHOLD",
                    help="with the camera described and the looks, the first decision's threshold for these dice "
                         "in place of the reader's own, written into the thresholds (LeanThresholds.first_by_die): "
                         "a reader whose no-camera look for a type changed keeps the threshold the camera's path was "
                         "set behind (reader v20: d20=0.94); default: the release's own (none before v20)")
    ap.add_argument("--models", type=Path, default=None, help="the release (default: models/)")
    ap.add_argument("--seed", type=int, default=0, help="of the box errors drawn")
    ap.add_argument("--out", type=Path, default=None, help="write the reader with these thresholds here")
    ap.add_argument("--report", type=Path, default=None, help="write the figures as JSON here")
    ap.add_argument("--version", default=None, help="the reader's version in its metadata (default: kept)")
    args = ap.parse_args(argv)

    release = models_dir(args.models)
    rec = Recognizer.load(release)
    if rec.lean is None:
        raise SystemExit(f"calibrate_lean_thresholds: {release} has no {LEAN_MODEL}; "
                         "the dice are decided again with it")
    seen_from = rec.seen.from_deg if rec.seen is not None else {}
    within = {d: min(STEEP_LIMITS[d], seen_from.get(d, STEEP_LIMITS[d])) for d in args.dice}
    try:
        within.update(die_values(args.within, args.dice))
    except ValueError as exc:
        ap.error(f"--within {exc}: give DIE=DEG for one of {', '.join(args.dice)}")
    first = dict(rec.lean_thresholds.first_by_die) if rec.lean_thresholds else {}
    if args.first_gate is not None:
        try:
            first = first_gate(args.first_gate)
        except ValueError as exc:
            ap.error(f"--first-gate {exc}: give DIE=THRESHOLD, over 0 and at most 1, for one of {', '.join(DICE)}")
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

    rise = args.rise if args.rise is not None else (rec.lean_thresholds.rise if rec.lean_thresholds else 0.0)
    if not 0.0 <= rise <= 1.0:
        ap.error(f"--rise {rise:g}: give 0-1")
    looks = list(rec.lean_thresholds.looks) if rec.lean_thresholds else []
    if args.look:
        if not (release / args.look).is_file():
            ap.error(f"--look {args.look}: not in {release}")
        made = OnnxModel(release / args.look).meta  # its cut and dice, as calibrate reads a look's
        entry = {"model": args.look, "per_side": float(made["crop_per_side"]),
                 "dice": sorted(made.get("dice") or DICE[1:]), "cut_by_die": made.get("cut_by_die", {}),
                 "temperature": args.look_temperature, "weight": args.look_weight,
                 "angles": list(TopFaceLook.angles)}
        looks = [t for t in looks if not set(t["dice"]) & set(entry["dice"])] + [entry]
    rec.lean_faces = with_looks(rec.faces, looks, release)
    rows = read_all(rec, dice, args.seed, rise, first)
    allowed, floor, reference = {}, {}, None
    if args.reference:
        ref = Recognizer.load(args.reference)
        if ref.lean_thresholds is None:
            ap.error(f"--reference {args.reference}: its reader has no lean thresholds")
        floor = dict(ref.lean_thresholds.accept_by_die)
        ref_rows = read_all(ref, dice, args.seed, ref.lean_thresholds.rise, ref.lean_thresholds.first_by_die)
        reference = {"floors": floor, "right": {}, "wrong_or_cocked": {}}
        for die, deg in within.items():
            took = taken(ref_rows, die, deg, floor.get(die, 2.0))  # a type it decides none of: its own only
            bad_ref = sum(1 for r in took if r["wrong"] or r["cocked"])
            bad_own = sum(1 for r in taken(rows, die, deg, 2.0) if r["wrong"] or r["cocked"])
            allowed[die] = max(0, bad_ref - bad_own)
            reference["right"][die] = len(took) - bad_ref
            reference["wrong_or_cocked"][die] = bad_ref
        reference["allowed"] = allowed
        print(f"against {args.reference}: floors {floor}, wrong or cocked the dice decided again may add {allowed}")
    found = lean_thresholds(rows, within, allowed, floor)
    for die, f in found.items():
        print(f"{die}: within {within[die]:g} degrees, {f['dice']} dice {f['by_source']}; "
              f"threshold {f['threshold']:.3f}: "
              f"right {f['right_at_release']} -> {f['right']}, wrong {f['wrong_at_release']} -> {f['wrong']}, "
              f"cocked valued {f['cocked_valued_at_release']} -> {f['cocked_valued']}")
    kept = {d: f["threshold"] for d, f in found.items() if f["right"] > f["right_at_release"]}
    if args.report:
        args.report.write_text(json.dumps({"within_deg": within, "found": found, "rows": rows}))
    if args.out:
        meta = {"lean_thresholds": {
            "within_deg": {d: within[d] for d in kept}, "accept_threshold_by_die": kept, "top_face_rise": rise,
            **({"looks": looks} if looks else {}),
            **({"first_accept_by_die": first} if first else {}),
            "calibration": {"box_error": list(BOX_ERROR), "lean_threshold": rec.lean.threshold,
                            "sources": sorted({r["source"] for r in rows}),
                            **({"reference": reference} if reference else {}),
                            "figures": {d: {k: v for k, v in f.items() if k != "by_source"}
                                        for d, f in found.items()}}}}
        if args.version:
            meta["version"] = args.version
        restamp(release / "reader.onnx", args.out, meta)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
