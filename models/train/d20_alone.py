"""A D20 look alone, on real and rendered D20: how often it names the top face, how often surely.

    python -m models.train.d20_alone release=models/reader_top_d20.onnx new=work/x/look.onnx \\
        --real work/lurig_faces --real ../shared/realdata/crops-fickett --rendered work/synth/d20_s4950
    python -m models.train.d20_alone release=models/reader_top_d20.onnx --cut 0.3 0.35 0.45 --real ...

Why: a look taught on other renders is judged first by whether it reads more real D20 right, before
the reader's thresholds and the other looks blur the answer (models/reader.md: sessions 22, 33, 46
and 49 each wrote this measurement again). Each look cuts the die at 0.45 x its box, as the D20
looks are taught, in its two views, averaged as the reader averages a second look's views. Real
photos hold one die; the detector boxes it (`single_find`). Rendered crops (`bulk crops --mix d20`)
are read at their labelled boxes, flat D20 only. crops-fickett's series 151028 is left out: its
caption is printed across the die. Prints per set and look: top-1 right, right and wrong at
p >= 0.9, and the commonest confusions (label -> read).

`--cut` measures each look at other cuts too (the look's name then says which, `release@0.35`):
the release's look is surest on real D20 cut tighter than it was taught at, and on rendered ones
at its own cut or wider (models/reader.md, "Session 50").

Where both real and rendered sets are named, a last line per look reads the real D20 at the
renders' own threshold: the lowest at which at most 0.5% of the rendered D20 it accepts are wrong.
The reader's calibration sets its thresholds on rendered dice too, but counts the wrong among all
dice (`evaluate`'s accepted-but-wrong); here they are counted among the dice taken, which is
stricter, so a look cannot lower its threshold by refusing more of the renders. "Sure at 0.9"
alone misleads: a look taught without unsure crops is sure of far more real D20 at 0.9 (crops-fickett
126 against the release's 1), yet its wrong renders are as sure, so at the renders' threshold it
reads fewer real D20 than the release (models/reader.md, "Session 51"). The line is a first filter:
`candidate` decides, through the whole reader.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
from pathlib import Path

import cv2
import numpy as np

from reader.dice import FACES
from reader.vision.detector import DiceDetector
from reader.vision.faces import softmax
from reader.vision.onnx_model import MODELS_DIR, OnnxModel
from reader.vision.realdata import load_set
from reader.vision.single_find import find_single_die
from reader.vision.topface import TopFaceLook

CUT = 0.45
SURE = 0.9
WRONG_SHARE = 0.005  # the issue's accepted-but-wrong target, for the renders' threshold
CAPTIONED = "151028"  # crops-fickett's series with its caption across the die


def pooled(look: TopFaceLook, image: np.ndarray, box: tuple) -> np.ndarray:
    """The look's face probabilities for one D20, its views averaged as FaceReader.evidence averages
    a second look's views (at the look's own temperature, 1 here)."""
    logits = look.face_logits(image, [box], ["d20"])[0]
    return softmax(logits[:, :FACES["d20"]], look.temperature).mean(axis=0)


def real_dice(folder: Path, detector: DiceDetector, limit: int | None, seed: int = 3):
    """(image, detector's box, value) of a labelled set's valued D20 photos, a fixed sample."""
    images = [i for i in load_set(folder)
              if i.dice and i.dice[0].die == "d20" and i.dice[0].value and CAPTIONED not in i.path.name]
    random.Random(seed).shuffle(images)
    for item in images[:limit]:
        image = cv2.imread(str(item.path))
        found = None if image is None else find_single_die(detector, image)
        if found is not None:
            yield image, tuple(found), item.dice[0].value


def rendered_dice(folder: Path):
    """(image, labelled box, value) of the flat D20 each rendered crop is centred on."""
    with (folder / "labels.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            die = row["dice"][0]
            if die["die"] == "d20" and die.get("state") == "flat" and die["value"]:
                yield cv2.imread(str(folder / row["image"])), tuple(die["box"]), die["value"]


def renders_threshold(top_p: np.ndarray, right: np.ndarray, wrong_share: float = WRONG_SHARE) -> float:
    """The lowest threshold on the top probability at which the dice taken (top_p >= it) are at most
    `wrong_share` wrong; 1.0 where even the surest die alone is wrong. Ties go in or out together."""
    order = np.argsort(-top_p, kind="stable")
    p, wrong = top_p[order], np.cumsum(~right[order])
    last_of_tie = np.r_[p[1:] != p[:-1], True]  # a threshold takes every die of its probability
    safe = last_of_tie & (wrong <= wrong_share * np.arange(1, len(p) + 1))
    return float(p[safe].min()) if safe.any() else 1.0


def score(looks: dict, dice) -> dict:
    """Per look: each die's top probability, whether its face was named right, and the confusions
    counted (label -> read). The counts printed and the renders' threshold all come from these."""
    out = {name: {"top_p": [], "named": [], "confused": collections.Counter()} for name in looks}
    for image, box, value in dice:
        for name, look in looks.items():
            g = pooled(look, image, box)
            face, s = int(g.argmax()) + 1, out[name]
            if face != value:
                s["confused"][(value, face)] += 1
            s["top_p"].append(float(g.max()))
            s["named"].append(face == value)
    return out


def taken(s: dict, threshold: float) -> tuple[int, int]:
    """(right, wrong) among a set's dice read at or above `threshold`."""
    p, ok = np.array(s["top_p"]), np.array(s["named"], bool)
    return int((ok & (p >= threshold)).sum()), int((~ok & (p >= threshold)).sum())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("looks", nargs="+", metavar="NAME=LOOK.onnx")
    ap.add_argument("--real", type=Path, action="append", default=[], help="a labelled set of single-die photos")
    ap.add_argument("--real-limit", type=int, default=800, help="photos per real set at most (a fixed sample)")
    ap.add_argument("--rendered", type=Path, action="append", default=[], help="a folder of bulk crops")
    ap.add_argument("--models", type=Path, default=MODELS_DIR, help="where detector.onnx is")
    ap.add_argument("--cut", type=float, nargs="+", default=[CUT], metavar="SIDE",
                    help=f"cut side / box side, one or more (default {CUT}, as the D20 looks are taught)")
    args = ap.parse_args(argv)
    if any(not 0.1 <= c <= 1.5 for c in args.cut):
        ap.error(f"--cut {args.cut}: a cut is a share of the die's box side, 0.1 to 1.5")
    looks = {}
    for spec in args.looks:
        name, _, path = spec.partition("=")
        if not path:
            ap.error(f"{spec!r}: give NAME=LOOK.onnx")
        model = OnnxModel(Path(path))
        for cut in args.cut:
            shown = name if args.cut == [CUT] else f"{name}@{cut:g}"
            looks[shown] = TopFaceLook(model, cut, frozenset({"d20"}), name=name)
    detector = DiceDetector(OnnxModel(args.models / "detector.onnx"))
    # keyed by kind and folder: a folder can be named both ways, and two folders can share a name
    sets = [(("real", f), lambda f=f: real_dice(f, detector, args.real_limit)) for f in args.real]
    sets += [(("rendered", f), lambda f=f: rendered_dice(f)) for f in args.rendered]
    if not sets:
        ap.error("name a set: --real or --rendered")
    scored = {}
    for key, dice in sets:
        scored[key] = score(looks, dice())
        for name, s in scored[key].items():
            worst = ", ".join(f"{a}->{b} x{n}" for (a, b), n in s["confused"].most_common(4))
            sure_right, sure_wrong = taken(s, SURE)
            print(f"{key[1].name:20s} {name:10s} top-1 {sum(s['named'])}/{len(s['named'])}  sure right {sure_right} "
                  f"wrong {sure_wrong}  commonest: {worst}", flush=True)
    rendered = [("rendered", f) for f in args.rendered]
    if rendered and args.real:
        for name in looks:
            pooled_renders = {key: [x for r in rendered for x in scored[r][name][key]] for key in ("top_p", "named")}
            t = renders_threshold(np.array(pooled_renders["top_p"]), np.array(pooled_renders["named"], bool))
            right, wrong = taken(pooled_renders, t)
            reals = " | ".join("{} {}/{}".format(f.name, *taken(scored["real", f][name], t)) for f in args.real)
            print(f"at the renders' threshold {name:10s} p >= {t:.3f}: rendered {right}/{wrong} of "
                  f"{len(pooled_renders['top_p'])} | {reals}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
