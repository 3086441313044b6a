"""`dice-reader evaluate`: score the recognizer on labeled photo sets and draw what it got wrong.

The definitions of every figure are in reader/vision/evaluate.py; this module only reads images,
runs the recognizer, shows progress and writes the table, the JSON and the error sheet.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from reader.commands import view_args
from reader.errors import DiceReaderError

HELP = (
    "Score the recognizer on labeled sets (folders with labels.jsonl, e.g. "
    "../shared/realdata/tray-mixed-bartek, or a set name under ../shared/realdata): dice found, "
    "type accuracy, share accepted, value accuracy, accepted-but-wrong, end-to-end, false "
    "detections, ms per image. Sets the models train on are scored on their holdout fifth only "
    "unless --all-images. Writes a PNG sheet of the dice it got wrong."
)


def add_arguments(p) -> None:
    p.add_argument("sets", nargs="+", metavar="SET", help="labeled set folder or set name")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--holdout-only", action="store_true",
                       help="score only the holdout fifth of every set (default for the sets "
                            "the models train on)")
    which.add_argument("--all-images", action="store_true",
                       help="score every image, even of sets the models train on")
    p.add_argument("--limit", type=int, metavar="N", default=None,
                   help="score at most N images per set (after the holdout choice)")
    p.add_argument("--sheet", metavar="OUT.png", default=None,
                   help="where to write the error sheet (default work/eval-<set>.png; with "
                        "several sets, OUT-<set>.png)")
    p.add_argument("--no-sheet", action="store_true", help="do not draw an error sheet")
    p.add_argument("--json", action="store_true", help="print the figures as JSON on stdout")
    p.add_argument("--dice", metavar="OUT.jsonl", default=None,
                   help="also write every die as a JSON line: its label, what was read and how that was "
                        "scored (reader.vision.die_log), for comparing two readers die by die")
    p.add_argument("--against", metavar="OLD.jsonl", default=None,
                   help="compare this run die by die with a log an earlier run wrote with --dice: print the "
                        "labeled dice whose reading changed, those for the worse first")
    p.add_argument("--models", metavar="DIR", default=None,
                   help="folder of the ONNX models (default: the project's models/)")
    p.add_argument("--shift", metavar="DX,DY", type=parse_shift, default=(0.0, 0.0),
                   help="move every image by DX,DY pixels before reading (parts of a pixel resampled) and "
                        "score the readings moved back: how much of a figure holds a hair to the side "
                        "(a few dice of a set move so; compare readers at several shifts, not at one)")
    view_args.add_arguments(p)
    view_args.add_guess_argument(p)
    p.add_argument("--truth-cameras", action="store_true",
                   help="rendered sets (fixtures/stills): read each frame knowing its camera, the field of view "
                        "and lean its truth events record, as a tray camera described at setup "
                        "(--camera-fov, --camera-tilt) is read")


def parse_shift(text: str) -> tuple[float, float]:
    try:
        dx, dy = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give DX,DY in pixels, e.g. 0.5,0.5") from None
    if not max(abs(dx), abs(dy)) <= 8:  # nan too
        raise argparse.ArgumentTypeError(f"{text!r}: at most 8 pixels each way (a hair to the side)")
    return dx, dy


def resolve_set(spec: str) -> Path:
    """A folder with labels.jsonl, or the name of a set under the shared real-photo folder."""
    from reader.vision.realdata import realdata_root

    p = Path(spec)
    if (p / "labels.jsonl").is_file():
        return p
    q = realdata_root() / spec
    if not p.exists() and (q / "labels.jsonl").is_file():
        return q
    if not p.exists():
        raise DiceReaderError(f"no such set: {spec} (neither a folder nor a set in {q.parent})")
    raise DiceReaderError(f"{spec} is not a labeled set: no labels.jsonl in it")


def display_names(folders: list[Path]) -> list[str]:
    """Each set's name in the table and the sheet's file name: its folder's, or, when two sets
    share a folder name (fixtures/stills and a 1280x720 render of it), with the parent's too."""
    names = [f.name for f in folders]
    return [f"{f.parent.name}/{f.name}" if names.count(f.name) > 1 else f.name for f in folders]


def select_images(images, holdout: bool, limit: int | None):
    if holdout:
        images = [im for im in images if im.holdout]
    if limit is not None:
        images = images[:limit]
    return images


class Progress:
    """A counter on stderr: a redrawn bar on a terminal, a line per tenth otherwise."""

    def __init__(self, label: str, total: int, stream=None):
        self.label, self.total = label, total
        self.stream = stream if stream is not None else sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.last_tenth = -1
        self.t0 = time.monotonic()

    def __call__(self, done: int) -> None:
        if self.tty:
            width = 30
            fill = width * done // max(1, self.total)
            self.stream.write(f"\r{self.label} [{'#' * fill}{'.' * (width - fill)}] "
                              f"{done}/{self.total}")
            if done == self.total:
                self.stream.write(f"  {time.monotonic() - self.t0:.0f} s\n")
        else:
            tenth = 10 * done // max(1, self.total)
            if tenth != self.last_tenth or done == self.total:
                self.last_tenth = tenth
                self.stream.write(f"{self.label}: {done}/{self.total} images\n")
        self.stream.flush()


def truth_views(folder: Path, lean: bool = False) -> dict:
    """{image file: CameraView} of a rendered set, a recording whose truth events record the camera
    each frame was rendered with (reader.synth.fixtures); `lean`: and the lean look asked for."""
    from reader.recording import RecordingReader
    from reader.vision.viewing import CameraView

    if not (folder / "events.jsonl").is_file():
        raise DiceReaderError(f"{folder}: no events.jsonl, so no cameras to read it with (--truth-cameras "
                              "is for rendered sets such as fixtures/stills)")
    recording = RecordingReader(folder)
    files = {e.get("index"): e.get("file") for e in recording.of_type("frame")}
    views = {files[e.get("frame")]: CameraView.rendered(e["camera"], lean)
             for e in recording.of_type("truth") if "camera" in e and files.get(e.get("frame"))}
    if not views:
        raise DiceReaderError(f"{folder / 'events.jsonl'}: no frame's truth records its camera")
    return views


def evaluate_images(images, recognizer, progress=None, views: dict | None = None,
                    shift: tuple[float, float] = (0.0, 0.0)):
    """Run the recognizer on each labeled image and score it; an unreadable image misses all.
    `views`: {image path: CameraView}, each image read knowing its camera; the recognizer's own
    view is put back afterwards. `shift`: each image read moved by (dx, dy) pixels, its readings
    moved back (reader.vision.other_cameras.shifted)."""
    if views is None:
        return _evaluate(images, recognizer, progress, None, shift)
    own = recognizer.view
    try:
        return _evaluate(images, recognizer, progress, views, shift)
    finally:
        recognizer.view = own


def _evaluate(images, recognizer, progress, views, shift=(0.0, 0.0)):
    from dataclasses import replace

    from reader.imagefile import ImageError, load_image
    from reader.reading import Box
    from reader.vision.evaluate import failed_image, score_image
    from reader.vision.other_cameras import shifted
    from reader.vision.topface import moved

    dx, dy = shift
    moving = shift != (0.0, 0.0)

    results = []
    for n, item in enumerate(images, 1):
        path = str(item.path)
        if views is not None:
            recognizer.view = views.get(path)
        t0 = time.perf_counter()
        try:
            image = load_image(item.path)
            if moving:
                image = shifted(image, dx, dy)
            if item.single:
                readings = [recognizer.read_single(image)]
            else:
                readings = list(recognizer.read_frame(image))
        except (ImageError, DiceReaderError) as exc:
            results.append(failed_image(path, item.dice, str(exc)))
        except Exception as exc:  # one recognizer fault must not end the whole evaluation
            results.append(failed_image(path, item.dice,
                                        f"recognizer failed: {type(exc).__name__}: {exc}"))
        else:
            ms = (time.perf_counter() - t0) * 1000
            if moving:  # back onto the labels
                readings = [replace(r, box=Box(*moved(r.box, -dx, -dy))) for r in readings]
            results.append(score_image(path, item.dice, readings, ms))
        if progress is not None:
            progress(n)
    return results


def sheet_path(args, set_name: str, several: bool) -> Path:
    if args.sheet is None:
        return Path("work") / f"eval-{set_name}.png"
    out = Path(args.sheet)
    if several:
        out = out.with_name(f"{out.stem}-{set_name}{out.suffix}")
    # OpenCV picks the image format by the suffix and has none to pick without one
    return out if out.suffix else out.with_name(out.name + ".png")


def write_sheet(results, out: Path, title: str) -> Path | None:
    """Draw and write the error sheet; None when nothing went wrong."""
    import cv2

    from reader.imagefile import ImageError, load_image
    from reader.vision.sheet import draw_sheet

    def load(path):
        try:
            return load_image(path)
        except ImageError:
            return None

    dice = [d for r in results for d in r.dice]
    errors = {r.image: r.error for r in results if r.error}
    sheet = draw_sheet(dice, load, title=title, errors=errors)
    if sheet is None:
        return None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        written = cv2.imwrite(str(out), sheet)
    except (OSError, cv2.error) as exc:
        raise DiceReaderError(f"cannot write the error sheet to {out}: {str(exc).strip().splitlines()[-1]}") from exc
    if not written:
        raise DiceReaderError(f"cannot write the error sheet to {out}")
    return out


def run(args, recognizer=None) -> int:
    """`recognizer` can be injected (tests); by default the ONNX models are loaded."""
    from reader.vision.die_log import compare, die_rows
    from reader.vision.evaluate import summarise
    from reader.vision.report import format_details, format_table
    from reader.vision.realdata import TRAINABLE, load_set

    if args.limit is not None and args.limit < 1:
        raise DiceReaderError("--limit must be at least 1")
    if args.truth_cameras and args.camera_fov is not None:
        raise DiceReaderError("give --camera-fov or --truth-cameras, not both")
    if args.truth_cameras and args.guess_camera:
        raise DiceReaderError("give --guess-camera or --truth-cameras, not both")
    guess = view_args.guess_from_args(args)
    # one camera for every image, as a tray camera is described
    fixed = None if args.truth_cameras else view_args.view_from_args(args)
    folders = [resolve_set(s) for s in args.sets]  # fail on a bad name before loading models
    earlier = read_die_log(Path(args.against)) if args.against else None
    log = DieLog(Path(args.dice)) if args.dice else None
    truth = {f: truth_views(f, args.lean_look) for f in folders} if args.truth_cameras else {}
    if recognizer is None:
        from reader.commands.read import load_recognizer

        recognizer = load_recognizer(args.models)
    if fixed is not None:
        recognizer.view = fixed
    recognizer.guess_view = guess
    several = len(folders) > 1
    scores, sheets, rows = [], {}, []
    for folder, name in zip(folders, display_names(folders)):
        holdout = args.holdout_only or (folder.name in TRAINABLE and not args.all_images)
        images = select_images(load_set(folder), holdout, args.limit)
        label = f"{name}{' (holdout)' if holdout else ''}"
        views = None
        if fixed is not None:
            label += f" ({fixed.describe()})"
        if guess:
            label += " (cameras guessed where a die is refused)"
        if args.truth_cameras:
            views = {str(folder / f): v for f, v in truth[folder].items()}
            label += " (cameras known, lean look)" if args.lean_look else " (cameras known)"
        if args.shift != (0.0, 0.0):
            label += f" (moved {args.shift[0]:g},{args.shift[1]:g} px)"
        results = evaluate_images(images, recognizer, Progress(label, len(images)), views, args.shift)
        score = summarise(label, results)
        scores.append(score)
        if log is not None or earlier is not None:
            these = die_rows(name, results, str(folder))
            if log is not None:
                log.write(these)
            if earlier is not None:  # held only to compare
                rows += these
        if not args.no_sheet:
            try:
                out = write_sheet(results, sheet_path(args, name.replace("/", "-"), several), title=label)
            except DiceReaderError as exc:  # the figures were paid for: print them all the same
                print(f"dice-reader evaluate: {exc} (the figures are not affected)", file=sys.stderr)
                out = None
            sheets[label] = None if out is None else str(out)
    if log is not None:
        log.close()
    comparison = compare(earlier, rows) if earlier is not None else None
    if args.json:
        out = []
        for s in scores:
            d = s.to_json()
            d["sheet"] = sheets.get(s.name)
            out.append(d)
        doc = {"sets": out}
        if comparison is not None:
            doc["against"] = {"log": args.against, "summary": comparison.summary(),
                              "changes": [c.describe() for c in ordered(comparison.changes)],
                              "phantoms": [list(p) for p in comparison.phantoms]}
        print(json.dumps(doc, indent=1))
    else:
        print(format_table(scores))
        print()
        for s in scores:
            print(format_details(s))
            if sheets.get(s.name):
                print(f"  sheet of what went wrong: {sheets[s.name]}")
        if comparison is not None:
            print()
            print(format_comparison(comparison, args.against))
    return 0


def ordered(changes):
    """The changes for the worse first, each group in the order scored."""
    return [c for c in changes if c.worse] + [c for c in changes if not c.worse]


def format_comparison(comparison, against: str, top: int = 40) -> str:
    lines = [f"against {against}: {comparison.summary()}"]
    changes = ordered(comparison.changes)
    lines += [f"  {'worse' if c.worse else 'other'}: {c.describe()}" for c in changes[:top]]
    if len(changes) > top:
        lines.append(f"  ... and {len(changes) - top} more (--json lists them all)")
    for set_name, image, before, after in comparison.phantoms[:top]:
        lines.append(f"  phantoms: {set_name} {image}: {before} -> {after}")
    return "\n".join(lines)


def read_die_log(path: Path) -> list[dict]:
    """The rows of a log written by --dice; a clear error for a missing or damaged one."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DiceReaderError(f"cannot read the die log {path}: {exc}") from None
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if not isinstance(row, dict) or not {"set", "image", "kind", "label", "reading"} <= row.keys():
                raise ValueError("not a die row")
        except ValueError:
            raise DiceReaderError(f"{path} line {n} is not a die row of `evaluate --dice`") from None
        rows.append(row)
    return rows


class DieLog:
    """The --dice file, written a set at a time. It is opened before any image is read, so that a path
    that cannot be written fails at once; a write that fails later (a full disk) stops the log with a
    message and costs the figures nothing."""

    def __init__(self, path: Path):
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.file = open(path, "w", encoding="utf-8")
        except OSError as exc:
            raise DiceReaderError(f"cannot write the die log {path}: {exc.strerror or exc}") from None

    def write(self, rows: list[dict]) -> None:
        if self.file is None:
            return
        try:
            self.file.write("".join(json.dumps(r) + "\n" for r in rows))
            self.file.flush()
        except OSError as exc:
            print(f"dice-reader evaluate: cannot write the die log {self.path} ({exc.strerror or exc}); "
                  "it stops here (the figures are not affected)", file=sys.stderr)
            self.close()

    def close(self) -> None:
        """Close the file, once; a full disk may fail this too, and the figures still stand."""
        if self.file is None:
            return
        try:
            self.file.close()
        except OSError:
            pass
        self.file = None
