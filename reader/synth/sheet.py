"""Side-by-side sheet of real and rendered dice, to judge the renderer by eye.

    python -m reader.synth.sheet --out work/sheet.png [--realdata ../shared/realdata] [--seed 3]

Each real set gets a row of real crops (cut from `../shared/realdata` at run time, never copied)
and, under it, a row of rendered crops of the same kinds of dice. If they are easy to tell
apart, the recognizer trained on the renders will be surprised by real dice.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

# real set -> (classes rendered for comparison, how real crops are taken)
SETS = {
    "tray-mixed-bartek": [("d6", "pips"), ("d6", "numerals"), ("d8", None), ("d10", None)],
    "tray-d6-nell": [("d6", "pips")],
    "crops-fickett": [("d20", None), ("d6", "pips")],
    "type-lurig": [("d4", None), ("d8", None), ("d10", None), ("d20", None), ("d6", "numerals")],
}


def real_crops(root: Path, name: str, n: int, size: int, rng) -> list[np.ndarray]:
    folder = root / name
    rows = [json.loads(line) for line in (folder / "labels.jsonl").read_text().splitlines() if line.strip()]
    out = []
    for _ in range(n * 4):
        if len(out) >= n:
            break
        row = rows[int(rng.integers(len(rows)))]
        img = cv2.imread(str(folder / row["image"]))
        if img is None:
            continue
        dice = [d for d in row["dice"] if d.get("box")]
        if not dice:
            out.append(cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA))
            continue
        d = dice[int(rng.integers(len(dice)))]
        x0, y0, x1, y1 = d["box"]
        side = max(x1 - x0, y1 - y0) / rng.uniform(0.5, 0.7)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        h, w = img.shape[:2]
        a, b = int(max(0, cx - side / 2)), int(max(0, cy - side / 2))
        c, e = int(min(w, cx + side / 2)), int(min(h, cy + side / 2))
        if c - a < 8 or e - b < 8:
            continue
        out.append(cv2.resize(img[b:e, a:c], (size, size), interpolation=cv2.INTER_AREA))
    return out


def rendered_crops(renderer, classes, n: int, size: int, seed: int) -> list[np.ndarray]:
    from reader.synth.camfx import apply_fx, encode_jpeg, sample_fx
    from reader.synth.layouts import crop_scene

    out = []
    for i in range(n):
        rng = np.random.default_rng([seed, i, 9])
        die, style = classes[i % len(classes)]
        scene = crop_scene(rng, size=size, die=die, style=style, cocked=False)
        img = apply_fx(renderer.render(scene), sample_fx(rng, 0.6))
        buf = np.frombuffer(encode_jpeg(img, 85), np.uint8)
        out.append(cv2.imdecode(buf, cv2.IMREAD_COLOR))
    return out


def build_sheet(root: Path, seed: int = 3, per_row: int = 10, size: int = 96) -> np.ndarray:
    from reader.synth.render import Renderer

    renderer = Renderer()
    rng = np.random.default_rng(seed)
    bands = []
    for k, (name, classes) in enumerate(SETS.items()):
        if not (root / name / "labels.jsonl").exists():
            continue
        real = real_crops(root, name, per_row, size, rng)
        fake = rendered_crops(renderer, classes, per_row, size, seed * 100 + k)
        for label, tiles in ((f"real: {name}", real), ("rendered", fake)):
            tiles = tiles + [np.zeros((size, size, 3), np.uint8)] * (per_row - len(tiles))
            row = np.hstack(tiles[:per_row])
            bar = np.full((16, row.shape[1], 3), 30, np.uint8)
            cv2.putText(bar, label, (4, 12), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (230, 230, 230), 1, cv2.LINE_AA)
            bands.append(np.vstack([bar, row]))
    if not bands:
        raise SystemExit(f"no real data sets found under {root}")
    bands.append(tray_band(renderer, root, rng, seed, bands[0].shape[1]))
    return np.vstack(bands)


def tray_band(renderer, root: Path, rng, seed: int, width: int, height: int = 200) -> np.ndarray:
    """Whole real tray photos next to whole rendered tray frames, scaled to one height."""
    from reader.synth.camfx import apply_fx, sample_fx
    from reader.synth.layouts import tray_scene

    tiles = []
    for name in ("tray-mixed-bartek", "tray-d6-nell"):
        folder = root / name
        files = sorted(folder.glob("*.jpg"))
        if files:
            img = cv2.imread(str(files[int(rng.integers(len(files)))]))
            if img is not None:
                tiles.append(cv2.resize(img, (int(img.shape[1] * height / img.shape[0]), height)))
    k = 0
    while sum(t.shape[1] for t in tiles) < width:
        r = np.random.default_rng([seed, k, 8])
        scene = tray_scene(r, width=640, height=360)
        img = cv2.cvtColor(apply_fx(renderer.render(scene), sample_fx(r, 0.5)), cv2.COLOR_RGB2BGR)
        tiles.append(cv2.resize(img, (int(640 * height / 360), height)))
        k += 1
    row = np.hstack(tiles)[:, :width]
    bar = np.full((16, width, 3), 30, np.uint8)
    cv2.putText(bar, "real trays (left) | rendered trays", (4, 12), cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                (230, 230, 230), 1, cv2.LINE_AA)
    return np.vstack([bar, row])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m reader.synth.sheet", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path("work/sheet.png"))
    p.add_argument("--realdata", type=Path, default=Path("../shared/realdata"))
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--per-row", type=int, default=10)
    a = p.parse_args(argv)
    sheet = build_sheet(a.realdata, a.seed, a.per_row)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(a.out), sheet)
    print(f"sheet: wrote {a.out} ({sheet.shape[1]}x{sheet.shape[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
