"""`dice-reader read`: read the dice in image files, one result per image.

A batch of images is a log of evidence: one bad file must not cost the readings of the others,
so an image that cannot be read gets an error object of its own and the run goes on; the exit
status says afterwards that something failed.
"""

from __future__ import annotations

import json
import sys
import time

from reader.commands import view_args
from reader.errors import DiceReaderError
from reader.imagefile import ImageError, load_image

HELP = (
    "Read every die in image files. Prints one line per image; with --jsonl one JSON object per "
    'image: {"image": PATH, "dice": [...], "ms": MS} or {"image": PATH, "error": MESSAGE} for a '
    "file that cannot be read (the run goes on). Exit status: 0 all images read, 1 one or more "
    "images gave an error, 2 bad usage or the models cannot be loaded."
)


def add_arguments(p) -> None:
    p.add_argument("images", nargs="+", metavar="IMAGE", help="image files (jpg, png, ...)")
    p.add_argument("--jsonl", action="store_true",
                   help="one JSON object per image on stdout instead of a line of text")
    p.add_argument("--single", action="store_true",
                   help="each image shows one die, which may fill the image; with no camera "
                        "described, a die refused is read again as photographed from straight above")
    p.add_argument("--models", metavar="DIR", default=None,
                   help="folder of the ONNX models (default: the project's models/)")
    view_args.add_arguments(p)
    view_args.add_guess_argument(p)


def load_recognizer(models_dir: str | None):
    """The real recognizer, or a DiceReaderError saying why it cannot be had."""
    try:
        from reader.vision.recognizer import Recognizer
    except ImportError as exc:
        raise DiceReaderError(f"the recognizer is not available: {exc}") from None
    try:
        return Recognizer.load(models_dir)  # positional: the contract names it models_dir
    except DiceReaderError:
        raise
    except Exception as exc:  # a model that does not load is the user's problem to fix, not a crash
        where = models_dir or "models/"
        raise DiceReaderError(f"cannot load the models from {where}: {exc}") from None


def read_one(recognizer, path: str, single: bool) -> dict:
    """Read one image; a dict with dice and ms, or with an error. Never raises for a bad file."""
    t0 = time.perf_counter()
    try:
        image = load_image(path)
        camera = None
        if single:
            reading, assumed = recognizer.read_single_assumed(image)
            readings = [reading]
            camera = {"assumed": assumed.to_json()} if assumed is not None else None
        elif recognizer.guessing():  # run() set it; a described camera (view) excludes it
            readings, guess = recognizer.read_frame_guessing(image, where_refused=True)
            if guess is not None:  # guessed where the frame left a die refused: said where it was
                camera = {"guessed": guess.view.to_json()}
        else:
            readings = list(recognizer.read_frame(image))
    except (ImageError, DiceReaderError) as exc:
        return {"image": path, "error": str(exc)}
    except Exception as exc:  # a recognizer fault on one image must not lose the others
        return {"image": path, "error": f"recognizer failed: {type(exc).__name__}: {exc}"}
    ms = (time.perf_counter() - t0) * 1000
    out = {"image": path, "dice": [r.to_json() for r in readings], "ms": round(ms, 2)}
    if camera is not None:  # the set-up guessed (--guess-camera) or assumed (--single)
        out["camera"] = camera
    return out


def describe(result: dict) -> str:
    """One human-readable line for a read_one() result."""
    if "error" in result:
        return f"{result['image']}: ERROR {result['error']}"
    parts = []
    for d in result["dice"]:
        if d["state"] == "flat":
            parts.append(f"{d['die']} {d['value']} ({d['confidence']:.2f})")
        elif d["state"] == "cocked":
            parts.append(f"{d['die']} cocked")
        else:
            parts.append(f"{d['die']} unreadable ({d.get('reason', '?')})")
    n = len(result["dice"])
    dice = "; ".join(parts) if parts else "no dice"
    camera = result.get("camera") or {}
    if camera.get("assumed"):
        dice += " (read as if photographed from straight above)"
    elif camera.get("guessed"):  # the frame read again with the set-up its dice suggest
        from reader.vision.viewing import CameraView

        dice += f" (read with the {CameraView.from_json(camera['guessed']).describe()} guessed from the dice)"
    return f"{result['image']}: {n} {'die' if n == 1 else 'dice'} in {result['ms']:.1f} ms: {dice}"


def run(args, recognizer=None) -> int:
    """`recognizer` can be injected (tests); by default the ONNX models are loaded."""
    view = view_args.view_from_args(args)  # a bad set-up is refused before the models load
    guess = view_args.guess_from_args(args)
    rec = recognizer if recognizer is not None else load_recognizer(args.models)
    rec.view = view
    rec.guess_view = guess
    failed = 0
    for path in args.images:
        result = read_one(rec, path, args.single)
        failed += "error" in result
        if args.jsonl:
            print(json.dumps(result), flush=True)
        else:
            print(describe(result), flush=True)
    if failed:
        print(f"dice-reader read: {failed} of {len(args.images)} images could not be read",
              file=sys.stderr)
    return 1 if failed else 0
