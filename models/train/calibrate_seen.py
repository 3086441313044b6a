"""Calibrate the seen look (reader.vision.seen) on rendered crops it never learnt from, each with
the angle its camera saw it at, and write its thresholds into its metadata.

    python -m models.train.export top-face work/seen.pt work/seen.onnx
    python -m models.train.calibrate_seen work/seen.onnx --sets work/synth/leanN_116 work/synth/lean20_112 \
        --replay work/synth/calib_num=42:numerals --out models/reader_seen.onnx

Every crop is read as the recognizer reads a die with the camera described and `--lean-look`: the
release's reader (models/) from a box drawn with the detector's error (as calibrate.py draws it),
the lean look's verdict (a die it finds leaning is cocked; one the reader calls cocked that it finds
flat is decided again), then the seen look on the dice of its types seen between --from-deg and its
limit (by default from the type's steep limit, where the release stops reading it). A rendered crop's camera stands below it, so the seen look's crop is not turned. The face
temperature is fitted on the dice typed right (least negative log-likelihood); each type's threshold
is the lowest at which the readings it accepts wrongly (a wrong type or face, or a leaning die given
a value) stay within --max-wrong of the dice read as that type, and never under the release's own
threshold for the type.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from models.train.calibrate import box_with_error, threshold_over
from models.train.die_values import die_value
from models.train.export import restamp
from models.train.train_lean import angles_of
from reader.dice import FACES
from reader.reading import Box, Cocked, Face
from reader.vision.faces import softmax
from reader.vision.lean import FLAT_BELOW
from reader.vision.onnx_model import OnnxModel, models_dir
from reader.vision.recognizer import LEAN_MODEL, Recognizer
from reader.vision.seen import SeenLook
from reader.vision.viewing import STEEP_LIMITS

BOX_ERROR = (0.65, 1.3)  # detector box side / die side, as calibrate.py draws it (its --box-error)


def crops_of(folder: Path, replay: str | None) -> list[tuple[Path, dict, float]]:
    """(image, main die's label, camera degrees off vertical) of a `bulk crops` folder, D4 aside."""
    angles = angles_of(folder, replay)
    out = []
    for line in (folder / "labels.jsonl").read_text().splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        d = r["dice"][0]
        if d["die"] == "d4" or (d["state"] == "flat" and d["value"] is None):
            continue
        out.append((folder / r["image"], d, angles[r["image"]] if angles else float(r["camera"]["off_vertical_deg"])))
    return out


def lowest_safe(conf: np.ndarray, bad: np.ndarray, max_wrong: float) -> float:
    """The lowest threshold (0.5 or over) at which the accepted bad readings are at most max_wrong of all."""
    return threshold_over(conf, bad, int(np.floor(max_wrong * len(conf))), 0.5)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("onnx", type=Path, help="the seen look, exported (export top-face on train_top_face --seen weights)")
    ap.add_argument("--sets", type=Path, nargs="+", default=[], help="bulk crops --lean folders (angle in each row)")
    ap.add_argument("--replay", nargs="*", default=[], metavar="DIR=SEED:MIX",
                    help="bulk crops folders rendered without --lean, their angles replayed from the seed")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--models", type=Path, default=None, help="the release the look joins (default: models/)")
    ap.add_argument("--max-wrong", type=float, default=0.001)
    ap.add_argument("--from-deg", nargs="*", default=[], metavar="DIE=DEG", type=die_value(STEEP_LIMITS),
                    help="the angle off vertical from which the look decides a die type (default: the type's "
                         "steep limit, reader.vision.viewing.STEEP_LIMITS, where the release stops reading it)")
    ap.add_argument("--limit-deg", type=float, default=55.0)
    ap.add_argument("--scales", type=float, nargs="+", default=[1.0],
                    help="the look's views: its crop cut at these shares of its side (reader.vision.seen.SeenLook.scales)")
    ap.add_argument("--version", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    from_deg = {**STEEP_LIMITS, **dict(args.from_deg)}
    rows = [r for f in args.sets for r in crops_of(f, None)]
    for item in args.replay:
        folder, _, replay = item.partition("=")
        rows += crops_of(Path(folder), replay)
    mdir = models_dir(args.models)
    rec = Recognizer.load(mdir)
    lean = rec.lean
    if lean is None:
        raise SystemExit(f"calibrate_seen: {mdir} has no {LEAN_MODEL}; the seen look is read behind the lean look")
    seen_model = OnnxModel(args.onnx)
    look = SeenLook(seen_model, frozenset(seen_model.meta["dice"]), {}, per_side=float(seen_model.meta["crop_per_side"]),
                    scales=tuple(args.scales))
    jitter = np.random.default_rng(args.seed)
    recs = []  # (die, truth value or 0 when leaning, read type, reader decision, seen logits, p_type, p_leaning, angle)
    for n, (path, d, angle) in enumerate(rows):
        img = cv2.imread(str(path))
        box = box_with_error(jitter, d["box"], BOX_ERROR)
        ev = rec.faces.evidence(img, [box], check_state=False)[0]
        p_lean = float(lean.p_leaning_turned(img, [box], [0.0], [angle])[0])
        r = rec.faces.decide(ev, Box(*box), allow_none=False)
        if isinstance(r.outcome, Cocked) and p_lean < FLAT_BELOW:
            r = rec.faces.decide(replace(ev, cocked=p_lean), Box(*box), allow_none=False)
        if p_lean >= lean.threshold:
            continue  # the lean look calls it cocked, whatever is read: no value either way
        sl = look.logits(img, [box], [0.0])[0]
        recs.append((d["die"], d["value"] if d["state"] == "flat" else 0, r.die, r, sl, r.type_confidence, p_lean, angle))
        if n % 500 == 0:
            print(f"{n} of {len(rows)}", flush=True)

    mine = [i for i, q in enumerate(recs) if q[2] in look.dice and not isinstance(q[3].outcome, Cocked)
            and from_deg[q[2]] <= q[7] <= args.limit_deg]
    # the face temperature, on the dice typed right and standing flat
    fit = [i for i in mine if recs[i][0] == recs[i][2] and recs[i][1]]
    def nll(t):
        return -np.mean([np.log(softmax(recs[i][4][:, :FACES[recs[i][2]]], t)[:, recs[i][1] - 1] + 1e-9) for i in fit])
    temps = np.arange(0.5, 2.01, 0.05)
    t = float(temps[int(np.argmin([nll(x) for x in temps]))])
    thresholds, figures = {}, {"temperature_face": round(t, 2), "dice": {}}
    for die in sorted(look.dice):
        idx = [i for i in mine if recs[i][2] == die]
        if not idx:
            continue
        conf, face = [], []
        look_t = replace(look, temperature=t)
        for i in idx:
            p, agree = look_t.pooled(recs[i][4], die)
            face.append(int(np.argmax(p)) + 1)
            conf.append(recs[i][5] * p.max() * (1 - recs[i][6]) if agree else 0.0)
        conf, face = np.array(conf), np.array(face)
        right = np.array([recs[i][0] == die and recs[i][1] == v for i, v in zip(idx, face)])
        # never under the release's own threshold for the type: few dice of a type are seen that
        # steeply (48 D8 beyond 35 degrees here), and the surest wrong of so few says little
        thr = max(lowest_safe(conf, ~right, args.max_wrong), rec.faces.accept_by_die.get(die, rec.faces.accept))
        thresholds[die] = round(thr, 3)
        release_right = sum(1 for i in idx if isinstance(recs[i][3].outcome, Face) and recs[i][0] == die
                            and recs[i][3].value == recs[i][1])
        release_wrong = sum(1 for i in idx if isinstance(recs[i][3].outcome, Face) and not (recs[i][0] == die
                            and recs[i][3].value == recs[i][1]))
        acc = conf >= thr
        figures["dice"][die] = {"read_as": len(idx), "threshold": round(thr, 3), "right": int((acc & right).sum()),
                                "wrong": int((acc & ~right).sum()), "release_right": release_right,
                                "release_wrong": release_wrong}
        print(die, figures["dice"][die], flush=True)
    meta = {"accept_threshold_by_die": thresholds, "temperature_face": round(t, 2),
            "from_deg_by_die": {d: from_deg[d] for d in sorted(look.dice)},
            "limit_deg": args.limit_deg, "scales": list(args.scales), "version": args.version,
            "calibration": {"sets": [str(s) for s in args.sets] + list(args.replay), "max_wrong": args.max_wrong,
                            "box_error": list(BOX_ERROR), **figures}}
    restamp(args.onnx, args.out, meta)
    print(json.dumps(meta, indent=1))


if __name__ == "__main__":
    main()
