"""Real D20 in real trays, by pasting: crops-fickett's D20 photos pasted into nell's and bartek's trays.

No labeled real tray here holds a D20, and the reader is scored on D20 in trays. This pastes two of
crops-fickett's real D20 (evaluation only, never trained on; the three series without a caption over
the die) into each holdout frame of tray-d6-nell and tray-mixed-bartek, beside the tray's own dice
and at 1.25 times their size (reader.vision.pasted), and prints right and accepted-but-wrong by die,
read as `read` reads, as it read before session 48 (no D20 read where it looks seen from above,
reader.vision.above) and as `read --guess-camera` reads, then how sure the reader is of the pasted D20
(d20_ladder). The frames are written to a temporary folder and deleted; the same seed pastes the same
photos in the same places. The pasted dice are seen from straight above wherever they lie, where a
tray camera sees the frame's edge obliquely: the guessed camera's reading is understated there.

Run: python3 benchmarks/dice_in_trays.py [--seed N] [--models DIR] [--keep DIR]
     (needs ../shared/realdata; measured in models/reader.md, "Sessions 47 and 48")
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reader.commands.evaluate import evaluate_images, resolve_set  # noqa: E402
from reader.vision.evaluate import summarise  # noqa: E402
from reader.vision.pasted import paste_die  # noqa: E402
from reader.vision.realdata import load_set, write_set  # noqa: E402
from reader.vision.recognizer import Recognizer  # noqa: E402

TRAYS = ("tray-d6-nell", "tray-mixed-bartek")
PASTED_PER_FRAME = 2
# crops-fickett's D20 nearly fill their photos: the detector's boxes on the pasted dice are 0.98 of
# the photo's side (median), so the labels take 0.95
FILL = 0.95
# one of crops-fickett's four D20 series kept its caption ("features: N matches: M") printed across the
# die's upper half (viewed): no die photo to paste
CAPTIONED = "151028d20"


def write_frames(out: Path, seed: int) -> int:
    """The trays' holdout frames with real D20 pasted in, as a labeled set in `out`; the D20 pasted."""
    rng = random.Random(seed)
    photos = [im for im in load_set(resolve_set("crops-fickett"))
              if im.dice[0].die == "d20" and not im.path.name.startswith(CAPTIONED)]
    rng.shuffle(photos)
    frames, pasted = [], 0
    for tray in TRAYS:
        for im in (i for i in load_set(resolve_set(tray)) if i.holdout):
            img, dice = cv2.imread(str(im.path)), list(im.dice)
            if img is None:
                continue
            for _ in range(PASTED_PER_FRAME):
                photo = photos[pasted % len(photos)]
                got = paste_die(img, dice, cv2.imread(str(photo.path)), "d20", photo.dice[0].value, rng, fill=FILL)
                if got is not None:
                    img, label = got
                    dice.append(label)
                    pasted += 1
            frames.append((f"{tray}_{im.path.stem}.jpg", img, dice))
    write_set(out, frames)
    return pasted


LADDER = (0.98, 0.94, 0.9, 0.8)


def d20_ladder(images, recognizer) -> str:
    """The pasted D20 read without a camera at their labeled boxes (the detector aside), decided as the
    reader decides (FaceReader.decide) but at no threshold: how many are typed D20, and right / wrong
    among the D20 readings given a value at or above each confidence of LADDER."""
    from reader.imagefile import load_image
    from reader.reading import Box

    faces = recognizer.faces
    rows = []  # per pasted D20: typed D20, and (right, confidence) where it is given a value
    for im in images:
        dice = [d for d in im.dice if d.die == "d20"]
        if not dice:
            continue
        for d, ev in zip(dice, faces.evidence(load_image(im.path), [d.box for d in dice], True)):
            r = faces.decide(ev, Box(*d.box), accept_by_die={"d20": 0.0})
            typed = r is not None and r.die == "d20"
            rows.append((typed, (r.value == d.value, r.confidence) if typed and r.value is not None else None))
    valued = [v for _, v in rows if v is not None]
    ladder = ", ".join(f"at {t}: {sum(ok for ok, c in valued if c >= t)} / {sum(not ok for ok, c in valued if c >= t)}"
                       for t in LADDER)
    return (f"the {len(rows)} D20 at their labeled boxes, no camera: typed D20 {sum(t for t, _ in rows)}; "
            f"given a value at no threshold, right / wrong {ladder}, "
            f"at any: {sum(ok for ok, _ in valued)} / {sum(not ok for ok, _ in valued)}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=47)
    ap.add_argument("--models", default=None, help="folder of the ONNX models (default: models/)")
    ap.add_argument("--keep", metavar="DIR", default=None, help="write the frames here and keep them (to look at)")
    args = ap.parse_args(argv)
    recognizer = Recognizer.load(args.models)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        pasted = write_frames(folder, args.seed)
        images = load_set(folder)
        print(f"{len(images)} tray frames, {pasted} real D20 pasted in (seed {args.seed})")
        print(f"{'read as':24s} {'dice':>5s} {'right':>6s} {'wrong':>6s}  by die (right of all)")
        # the middle row: without session 48's D20 read where it looks seen from above (reader.vision.above)
        for name, guess, d20_above in (("read", False, True), ("read, no D20 from above", False, False),
                                       ("read --guess-camera", True, True)):
            recognizer.guess_view, recognizer.d20_from_above = guess, d20_above
            s = summarise(name, evaluate_images(images, recognizer))
            by_die = ", ".join(f"{d} {r}/{n}" for d, (r, n) in sorted(s.by_die.items(), key=lambda kv: int(kv[0][1:])))
            print(f"{name:24s} {s.value_labeled:5d} {s.right:6d} {s.accepted_wrong:6d}  {by_die}", flush=True)
        recognizer.guess_view, recognizer.d20_from_above = False, True
        print(d20_ladder(images, recognizer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
