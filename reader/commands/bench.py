"""`dice-reader bench`: milliseconds per 1280x720 tray frame with 1, 4 and 10 dice, and memory.

The target is at most 50 ms per 1280x720 frame with 10 dice on 2 cores. The frames are composed
at run time so nothing large is committed: dice are cut from labeled frames (the committed
`fixtures/`, else the shared real photos when present) and pasted, scaled to a tray-camera size,
onto a felt-like background; when no labeled frame exists anywhere, simple pip dice are drawn
with cv2. The point is timing the real recognizer on inputs of a realistic size and die count,
not scoring it (that is `dice-reader evaluate`).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

from reader.commands import view_args
from reader.errors import DiceReaderError

HELP = (
    "Time the recognizer on composed 1280x720 tray frames with 1, 4 and 10 dice: ms per frame "
    "(mean, p50, p95 and slowest after warm-up, each frame a layout of its own) and peak memory "
    "(RSS high-water mark)."
)

FRAME_W, FRAME_H = 1280, 720
PROJECT = Path(__file__).resolve().parents[2]


def add_arguments(p) -> None:
    p.add_argument("--runs", type=int, default=30, help="timed frames per dice count (30)")
    p.add_argument("--warmup", type=int, default=3, help="untimed frames first (3)")
    p.add_argument("--dice", default="1,4,10", help="dice counts per frame (1,4,10)")
    p.add_argument("--source", choices=("auto", "fixtures", "realdata", "drawn"), default="auto",
                   help="where the die images come from (auto: fixtures, else the shared real "
                        "photos, else drawn dice)")
    p.add_argument("--seed", type=int, default=6, help="seed of the frame layout")
    p.add_argument("--models", metavar="DIR", default=None,
                   help="folder of the ONNX models (default: the project's models/)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    # timed as `watch` reads: with a described camera and the lean look, each die given a value
    # takes one more pass (and the reader's state check is not asked)
    view_args.add_arguments(p)
    # timed as `read --guess-camera` reads: a frame that leaves a die refused read again, the lean look
    # asked under 87 set-ups
    view_args.add_guess_argument(p)


# --- die images ---------------------------------------------------------------------------------


# A labeled set of single-die crops (fixtures/single-d20, 128 px) is no tray frame: its dice, scaled
# as a frame's, would fill a 1280x720 frame. The bench cuts dice from frames at least this wide.
MIN_FRAME_W = 320


def _labeled_sets_under(root: Path) -> list[Path]:
    """The labeled sets of tray frames under `root` (not of single-die crops: MIN_FRAME_W)."""
    import cv2

    from reader.vision.realdata import load_set

    out = []
    for folder in sorted(p.parent for p in root.rglob("labels.jsonl")) if root.is_dir() else []:
        first = next(iter(load_set(folder)), None)
        image = cv2.imread(str(first.path)) if first is not None else None
        if image is not None and image.shape[1] >= MIN_FRAME_W:
            out.append(folder)
    return out


def _at_frame_scale(crop, source_shape):
    """Resize a die cut from a frame of `source_shape` to its size in a 1280x720 frame of the
    same view (long sides matched), so dice keep the size a tray camera gives them."""
    import cv2

    f = FRAME_W / max(source_shape[:2])
    h, w = crop.shape[:2]
    return cv2.resize(crop, (max(1, round(w * f)), max(1, round(h * f))),
                      interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)


def _crops_from_set(folder: Path, limit: int):
    """Die crops (BGR arrays) cut from the boxed labels of a set, with a little margin."""
    import cv2

    from reader.vision.realdata import load_set

    crops = []
    for item in load_set(folder):
        boxed = [d for d in item.dice if d.box is not None]
        if not boxed:
            continue
        image = cv2.imread(str(item.path))
        if image is None:
            continue
        h, w = image.shape[:2]
        for d in boxed:
            x0, y0, x1, y1 = d.box
            m = 0.12 * max(x1 - x0, y1 - y0)
            xa, ya = max(0, int(x0 - m)), max(0, int(y0 - m))
            xb, yb = min(w, int(x1 + m)), min(h, int(y1 + m))
            if xb - xa >= 12 and yb - ya >= 12:
                crops.append(_at_frame_scale(image[ya:yb, xa:xb], image.shape))
        if len(crops) >= limit:
            break
    return crops[:limit]


def _crops_from_recordings(root: Path, limit: int):
    """Die crops from recordings (frames + `truth` events, see the recording format)."""
    import cv2

    crops = []
    for events in sorted(root.rglob("events.jsonl")) if root.is_dir() else []:
        folder = events.parent
        if any(part.endswith(".partial") for part in folder.parts):
            continue  # an unfinished recording
        files = {}
        truths = []
        try:
            for line in events.read_text().splitlines():
                ev = json.loads(line) if line.strip() else {}
                if ev.get("type") == "frame":
                    files[ev.get("index")] = ev.get("file")
                elif ev.get("type") == "truth":
                    truths.append(ev)
        except (OSError, ValueError):
            continue
        for ev in truths[-1:]:  # the settled frame of the roll
            name = files.get(ev.get("frame"))
            image = cv2.imread(str(folder / name)) if name else None
            if image is None:
                continue
            h, w = image.shape[:2]
            for d in ev.get("dice", []):
                box = d.get("box")
                if not box:
                    continue
                x0, y0, x1, y1 = (int(v) for v in box)
                x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
                if x1 - x0 >= 12 and y1 - y0 >= 12:
                    crops.append(_at_frame_scale(image[y0:y1, x0:x1], image.shape))
        if len(crops) >= limit:
            break
    return crops[:limit]


def draw_die(value: int, side: int, rng):
    """A plain pip D6 drawn with cv2: a light rounded square with dark pips, slightly rotated."""
    import cv2
    import numpy as np

    pad = side // 6
    size = side + 2 * pad
    img = np.zeros((size, size, 4), np.uint8)  # BGRA: only the die is opaque
    body = tuple(int(c) for c in rng.integers(170, 250, 3)) + (255,)
    pip = tuple(int(c) for c in rng.integers(0, 60, 3)) + (255,)
    r = side // 8
    cv2.rectangle(img, (pad + r, pad), (pad + side - r, pad + side), body, -1)
    cv2.rectangle(img, (pad, pad + r), (pad + side, pad + side - r), body, -1)
    for cx, cy in ((pad + r, pad + r), (pad + side - r, pad + r),
                   (pad + r, pad + side - r), (pad + side - r, pad + side - r)):
        cv2.circle(img, (cx, cy), r, body, -1, cv2.LINE_AA)
    spots = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)],
             4: [(0, 0), (2, 0), (0, 2), (2, 2)], 5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)],
             6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)]}[value]
    for gx, gy in spots:
        cx = pad + side // 4 + gx * side // 4
        cy = pad + side // 4 + gy * side // 4
        cv2.circle(img, (cx, cy), max(2, side // 11), pip, -1, cv2.LINE_AA)
    m = cv2.getRotationMatrix2D((size / 2, size / 2), float(rng.uniform(0, 90)), 1.0)
    return cv2.warpAffine(img, m, (size, size), borderMode=cv2.BORDER_CONSTANT)


def die_images(source: str, limit: int = 60, rng=None):
    """(where from, list of die crops) for the chosen source."""
    import numpy as np

    from reader.vision.realdata import realdata_root

    rng = rng if rng is not None else np.random.default_rng(0)
    if source in ("auto", "fixtures"):
        fixtures = PROJECT / "fixtures"
        for folder in _labeled_sets_under(fixtures):
            crops = _crops_from_set(folder, limit)
            if crops:
                return f"fixtures ({folder.relative_to(PROJECT)})", crops
        crops = _crops_from_recordings(fixtures, limit)
        if crops:
            return "fixtures (recordings)", crops
        if source == "fixtures":
            raise DiceReaderError("no labeled dice in fixtures/; use --source drawn or realdata")
    if source in ("auto", "realdata"):
        for name in ("tray-mixed-bartek", "tray-d6-nell"):
            folder = realdata_root() / name
            if (folder / "labels.jsonl").is_file():
                crops = _crops_from_set(folder, limit)
                if crops:
                    return f"realdata ({name})", crops
        if source == "realdata":
            raise DiceReaderError(f"no real photo set in {realdata_root()}")
    return "drawn pip dice", [draw_die(int(rng.integers(1, 7)), int(rng.integers(50, 80)), rng)
                              for _ in range(limit)]


# --- frames -------------------------------------------------------------------------------------


# Empty trays made per row (as many as the row's frames were until session 74), each frame's dice pasted
# anew on one of them: a tray is made in float arrays several times a frame's size, and a tray made for
# every frame, between the reads, grew the process's heap measured as the recognizer's (peak 388 -> 402
# MB at the default rows).
TRAYS = 5


def background(rng):
    """A felt-like tray: one colour, low-frequency shading and fine noise."""
    import cv2
    import numpy as np

    base = rng.integers(30, 140, 3).astype(np.float32)
    low = cv2.resize(rng.normal(0, 12, (9, 16)).astype(np.float32), (FRAME_W, FRAME_H),
                     interpolation=cv2.INTER_CUBIC)
    fine = rng.normal(0, 6, (FRAME_H, FRAME_W)).astype(np.float32)
    img = base[None, None, :] + (low + fine)[:, :, None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _paste(frame, crop, x: int, y: int) -> None:
    """Paste a BGRA crop by its alpha, or a BGR photo crop through a feathered ellipse (so the
    photo's own background fades into the tray instead of leaving a hard rectangle)."""
    import cv2
    import numpy as np

    h, w = crop.shape[:2]
    if crop.shape[2] == 4:
        alpha = crop[:, :, 3].astype(np.float32) / 255
    else:
        alpha = np.zeros((h, w), np.float32)
        cv2.ellipse(alpha, (w // 2, h // 2), (int(w * 0.5), int(h * 0.5)), 0, 0, 360, 1.0, -1)
        k = max(3, (min(w, h) // 6) | 1)
        alpha = cv2.GaussianBlur(alpha, (k, k), 0)
    region = frame[y:y + h, x:x + w].astype(np.float32)
    out = region * (1 - alpha[:, :, None]) + crop[:, :, :3].astype(np.float32) * alpha[:, :, None]
    frame[y:y + h, x:x + w] = out.astype(np.uint8)


def compose_frame(crops, n: int, rng, die_px=(40, 140), tray=None):
    """A 1280x720 frame with `n` dice pasted without overlap; returns (frame, boxes).

    Each die keeps about its own size (+-10%), kept within `die_px` (long side, pixels). `tray`: the
    empty tray to paste them on (a copy is taken), else a new one (`background`)."""
    import cv2
    import numpy as np

    if not 0 <= n <= 24:
        raise DiceReaderError(f"{n} dice per frame: choose 0 to 24")
    frame = background(rng) if tray is None else tray.copy()
    cols, rows = 6, 4  # cells of 213x180 px, one die per cell
    cw, ch = FRAME_W // cols, FRAME_H // rows
    cells = rng.permutation(cols * rows)[:n]
    boxes = []
    for cell in cells:
        crop = crops[int(rng.integers(len(crops)))]
        h, w = crop.shape[:2]
        side = int(np.clip(max(h, w) * rng.uniform(0.9, 1.1), *die_px))
        scale = side / max(h, w)
        crop = cv2.resize(crop, (max(1, round(w * scale)), max(1, round(h * scale))))
        h, w = crop.shape[:2]
        r, c = divmod(int(cell), cols)
        x = c * cw + int(rng.integers(0, max(1, cw - w)))
        y = r * ch + int(rng.integers(0, max(1, ch - h)))
        _paste(frame, crop, x, y)
        boxes.append((x, y, x + w, y + h))
    return frame, boxes


# --- timing -------------------------------------------------------------------------------------


def peak_rss_mb() -> float:
    """High-water resident memory of this process (ru_maxrss: KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def time_frames(recognizer, frames, runs: int, warmup: int):
    """ms per read_frame call over `runs` frames taken from the iterator `frames` (each drawn before its
    call, outside the time; a generator composes it then), after `warmup` frames read untimed.

    Why a frame of its own each call: what a frame costs depends on what it shows (a die that alone
    of its frame looks leaning has the camera guessed from the frame's dice, reader.vision.lean_guard:
    46 ms more until session 74, 18 since), and five frames read six times over each (the bench until
    session 74) made the mean that of five layouts: the default seed's `--dice 10` had two of its
    five frames asking the guard, where 3 of 100 frames of twenty other seeds did."""
    frames = iter(frames)
    for _ in range(warmup):
        recognizer.read_frame(next(frames))
    times, found = [], []
    for _ in range(runs):
        frame = next(frames)
        t0 = time.perf_counter()
        readings = recognizer.read_frame(frame)
        times.append((time.perf_counter() - t0) * 1000)
        found.append(len(readings))
    return times, found


def run(args, recognizer=None) -> int:
    import numpy as np

    from reader.vision.evaluate import percentile

    try:
        counts = [int(x) for x in args.dice.split(",") if x.strip()]
    except ValueError:
        raise DiceReaderError(f"--dice wants numbers like 1,4,10, not {args.dice!r}") from None
    if args.runs < 1 or args.warmup < 0 or not counts:
        raise DiceReaderError("--runs must be at least 1, --warmup at least 0, --dice not empty")
    view = view_args.view_from_args(args)
    guess = view_args.guess_from_args(args)
    rng = np.random.default_rng(args.seed)
    where, crops = die_images(args.source, rng=rng)
    rss_start = peak_rss_mb()
    t0 = time.perf_counter()
    if recognizer is None:
        from reader.commands.read import load_recognizer

        recognizer = load_recognizer(args.models)
    recognizer.view = view
    recognizer.guess_view = guess
    load_ms = (time.perf_counter() - t0) * 1000
    rss_loaded = peak_rss_mb()
    rows = []
    for n in counts:
        trays = [background(rng) for _ in range(TRAYS)]
        layouts = (compose_frame(crops, n, rng, tray=trays[k % TRAYS])[0] for k in range(args.warmup + args.runs))
        times, found = time_frames(recognizer, layouts, args.runs, args.warmup)
        rows.append({"dice": n, "runs": args.runs, "ms_mean": sum(times) / len(times),
                     "ms_p50": percentile(times, 50), "ms_p95": percentile(times, 95), "ms_max": max(times),
                     "found_mean": sum(found) / len(found)})
    result = {
        "frame": f"{FRAME_W}x{FRAME_H}", "dice_from": where, "cpus": os.cpu_count(),
        "camera": view.to_json() if view is not None else ("guessed where refused" if guess else None),
        "load_ms": load_ms, "rss_before_models_mb": rss_start, "rss_after_load_mb": rss_loaded,
        "peak_rss_mb": peak_rss_mb(), "rows": rows,
    }
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"frames {FRAME_W}x{FRAME_H}, dice from {where}, {os.cpu_count()} CPUs, "
          f"{args.warmup} warm-up + {args.runs} timed frames per row, each a layout of its own; models loaded in "
          f"{load_ms:.0f} ms" + (f"; {view.describe()}" if view is not None else "")
          + ("; the camera guessed from the dice of each frame that leaves a die refused" if guess else ""))
    print(f"{'dice':>4}  {'mean ms':>8}  {'p50 ms':>8}  {'p95 ms':>8}  {'max ms':>8}  {'found/frame':>11}")
    for r in rows:
        print(f"{r['dice']:>4}  {r['ms_mean']:>8.1f}  {r['ms_p50']:>8.1f}  {r['ms_p95']:>8.1f}  {r['ms_max']:>8.1f}  "
              f"{r['found_mean']:>11.1f}")
    print(f"peak memory (RSS high-water): {result['peak_rss_mb']:.0f} MB "
          f"({rss_start:.0f} MB before loading the models, {rss_loaded:.0f} MB after)")
    return 0
