"""Frames of flat printed marks that are not dice: the reader's "none" for what a table may show.

    python -m reader.synth.prints --out work/synth/prints81 --count 400 --seed 81

Why: a tray camera also sees what lies beside or under the tray, a score pad, a card's cost
numeral, a life counter, a dotted cloth. Reader v15 had never been shown printed numerals that are
not dice: on 60 of these frames at 1280x720 the detector boxed 1,016 marks and the reader gave 169
of them a value ("D6 showing 2" at 0.97 for a printed "2"). These frames hold no die at all (labels
with no dice, the scene format), so every box drawn on them is a false alarm: `dice-reader evaluate`
counts them ("false detections N (given a value: M)"), and reader v16's print check is taught on
them (models/train/train_print_check.py).

What is drawn, on a table texture of the renderer's and sheets of paper: numerals 1-20 in the
renderer's fonts (12-90 px tall, any angle, some in a printed ring like a token), lines of small
text and digits, patches of polka dots, and card-like panels with a numeral in a corner ring. Not
drawn: a numeral or pips inside a printed square or triangle. Seen from straight above, a real die
shows just that, and a reader taught to refuse it would refuse real dice.
"""

from __future__ import annotations

import argparse
import json
import string
from pathlib import Path

import cv2
import numpy as np

from reader.synth.camfx import apply_fx, encode_jpeg, sample_fx
from reader.synth.textures import _font, fonts, surface_texture


def _ink(rng, under: np.ndarray) -> tuple[int, int, int]:
    """An ink colour that stands out from the colour under it."""
    lum = float(np.mean(under))
    base = rng.integers(0, 90, 3) if lum > 120 else rng.integers(170, 256, 3)
    if rng.random() < 0.3:  # a coloured ink
        base[rng.integers(3)] = rng.integers(0, 256)
    return tuple(int(x) for x in base)


def _table(rng, width: int, height: int) -> np.ndarray:
    """The renderer's table textures, tiled at a random scale, as RGB."""
    tex, _, _ = surface_texture(int(rng.integers(10_000)))
    scale = rng.uniform(0.5, 2.0)
    tile = cv2.resize(tex, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    reps = (height // tile.shape[0] + 1, width // tile.shape[1] + 1, 1)
    return np.ascontiguousarray(np.tile(tile, reps)[:height, :width])


def _paper(rng, img: np.ndarray) -> None:
    """A sheet of paper or card, any angle, somewhere on the frame."""
    h, w = img.shape[:2]
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    sw, sh = rng.uniform(0.15, 0.6) * w, rng.uniform(0.15, 0.6) * h
    box = cv2.boxPoints(((cx, cy), (sw, sh), rng.uniform(0, 180))).astype(np.int32)
    shade = rng.integers(200, 256) if rng.random() < 0.7 else rng.integers(40, 200)
    tint = np.clip(shade + rng.normal(0, 12, 3), 0, 255)
    cv2.fillPoly(img, [box], tuple(int(x) for x in tint), cv2.LINE_AA)


def _numeral(rng, img: np.ndarray, font_list: tuple[str, ...]) -> None:
    """A printed numeral, any angle, some in a ring (a token, a card's cost)."""
    from PIL import Image, ImageDraw

    h, w = img.shape[:2]
    text = str(int(rng.integers(1, 21))) if rng.random() < 0.85 else str(int(rng.integers(0, 100)))
    size = int(rng.uniform(12, 90))
    font = _font(font_list[int(rng.integers(len(font_list)))], max(8, int(size * 1.35)))
    pad = size
    tile = Image.new("L", (4 * size + 2 * pad, 2 * size + 2 * pad), 0)
    draw = ImageDraw.Draw(tile)
    x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font)
    cx, cy = tile.width / 2, tile.height / 2
    draw.text((cx - (x1 - x0) / 2 - x0, cy - (y1 - y0) / 2 - y0), text, fill=255, font=font)
    mask = np.asarray(tile, np.float32) / 255.0
    ring = rng.random() < 0.25
    if ring:
        r = int(0.5 * max(x1 - x0, y1 - y0) * rng.uniform(1.2, 1.6))
        cv2.circle(mask, (int(cx), int(cy)), r, 1.0, max(1, size // 12), cv2.LINE_AA)
    rot = cv2.getRotationMatrix2D((cx, cy), float(rng.uniform(0, 360)), 1.0)
    mask = cv2.warpAffine(mask, rot, (tile.width, tile.height))
    # its centre anywhere in the frame (a numeral may run off the edge)
    px, py = int(rng.uniform(0, w) - tile.width / 2), int(rng.uniform(0, h) - tile.height / 2)
    _stamp(img, mask, px, py, rng)


def _text_lines(rng, img: np.ndarray) -> None:
    """A few lines of small print: a score pad, a card's rules text."""
    h, w = img.shape[:2]
    x, y = int(rng.uniform(0, w * 0.8)), int(rng.uniform(20, h))
    scale, thick = rng.uniform(0.35, 1.2), int(rng.integers(1, 3))
    ink = _ink(rng, img[min(y, h - 1), min(x, w - 1)])
    chars = string.ascii_letters + string.digits + "  "
    for k in range(int(rng.integers(1, 6))):
        line = "".join(rng.choice(list(chars), int(rng.integers(3, 24))))
        cv2.putText(img, line, (x, y + int(k * 30 * scale)), int(rng.choice([0, 1, 2, 3, 4, 6])), scale, ink,
                    thick, cv2.LINE_AA)


def _dots(rng, img: np.ndarray) -> None:
    """A patch of polka dots (a cloth, a playmat's pattern)."""
    h, w = img.shape[:2]
    r = int(rng.integers(2, 15))
    step = max(2 * r + 2, int(r * rng.uniform(2.5, 6)))
    x0, y0 = int(rng.uniform(0, w * 0.7)), int(rng.uniform(0, h * 0.7))
    x1, y1 = int(min(w, x0 + rng.uniform(0.2, 0.8) * w)), int(min(h, y0 + rng.uniform(0.2, 0.8) * h))
    ink = _ink(rng, img[y0, x0])
    for row, y in enumerate(range(y0, y1, step)):
        for x in range(x0 + (step // 2 if row % 2 and rng.random() < 0.9 else 0), x1, step):
            cv2.circle(img, (x, y), r, ink, -1, cv2.LINE_AA)


def _card(rng, img: np.ndarray) -> None:
    """A card-like panel: a border, a mottled art area, a numeral in a corner ring."""
    h, w = img.shape[:2]
    cw = rng.uniform(80, 260)
    ch = cw * 88 / 63
    cx, cy, ang = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0, 180)
    box = cv2.boxPoints(((cx, cy), (cw, ch), ang)).astype(np.int32)
    border = tuple(int(x) for x in rng.integers(0, 256, 3))
    cv2.fillPoly(img, [box], border, cv2.LINE_AA)
    art = cv2.boxPoints(((cx, cy), (cw * 0.85, ch * 0.45), ang)).astype(np.int32)
    cv2.fillPoly(img, [art], tuple(int(x) for x in rng.integers(0, 256, 3)), cv2.LINE_AA)
    noise = cv2.resize(rng.random((8, 8)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [art], 1)
    img[mask > 0] = np.clip(img[mask > 0] * (0.6 + 0.8 * noise[mask > 0, None]), 0, 255).astype(np.uint8)
    # the cost numeral, near a corner
    corner = box[int(rng.integers(4))].astype(np.float32)
    p = corner + (np.array([cx, cy], np.float32) - corner) * 0.15
    r = int(cw * rng.uniform(0.08, 0.13))
    ink = _ink(rng, np.array(border))
    cv2.circle(img, (int(p[0]), int(p[1])), r, ink, max(1, r // 6), cv2.LINE_AA)
    text = str(int(rng.integers(0, 10)))
    cv2.putText(img, text, (int(p[0] - r * 0.45), int(p[1] + r * 0.5)), int(rng.choice([0, 2, 3])),
                r / 22.0, ink, max(1, r // 7), cv2.LINE_AA)


def _stamp(img: np.ndarray, mask: np.ndarray, px: int, py: int, rng) -> None:
    """Blend `mask` (0-1) into `img` at (px, py) in an ink that stands out there, clipped at the edges."""
    h, w = img.shape[:2]
    mh, mw = mask.shape
    x0, y0, x1, y1 = max(0, px), max(0, py), min(w, px + mw), min(h, py + mh)
    if x1 <= x0 or y1 <= y0:
        return
    m = mask[y0 - py:y1 - py, x0 - px:x1 - px, None]
    region = img[y0:y1, x0:x1].astype(np.float32)
    ink = np.array(_ink(rng, region.mean(axis=(0, 1))), np.float32)
    img[y0:y1, x0:x1] = np.clip(region * (1 - m) + ink * m, 0, 255).astype(np.uint8)


def print_frame(seed: int, index: int, width: int = 1280, height: int = 720) -> np.ndarray:
    """Frame `index` of `seed` as BGR uint8: a pure function of (seed, index)."""
    rng = np.random.default_rng([seed, index])
    font_list = fonts(more=True)
    img = _table(rng, width, height)
    for _ in range(int(rng.integers(0, 4))):
        _paper(rng, img)
    # cards last: a numeral printed over a card's art would be a numeral in a square
    for _ in range(int(rng.integers(0, 3))):
        _dots(rng, img)
    for _ in range(int(rng.integers(0, 5))):
        _text_lines(rng, img)
    for _ in range(int(rng.integers(3, 30))):
        _numeral(rng, img, font_list)
    for _ in range(int(rng.integers(0, 6))):
        _card(rng, img)
    fx = sample_fx(rng)
    fx["resample"] = 1.0  # a whole frame, not a crop blown up
    out = apply_fx(img, fx)
    jpg = encode_jpeg(out, fx["jpeg"])
    return cv2.imdecode(np.frombuffer(jpg, np.uint8), cv2.IMREAD_COLOR)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--count", type=int, default=400)
    ap.add_argument("--seed", type=int, default=81)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(args.count):
        name = f"{i:07d}.jpg"
        frame = print_frame(args.seed, i, args.width, args.height)
        if not cv2.imwrite(str(args.out / name), frame):
            raise SystemExit(f"could not write {args.out / name}")
        lines.append(json.dumps({"image": name, "dice": []}))
    (args.out / "labels.jsonl").write_text("\n".join(lines) + "\n")
    print(f"{args.count} frames of printed marks in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
