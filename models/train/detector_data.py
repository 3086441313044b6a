"""Training samples for the detector: random patches of labeled tray frames with centre targets.

Sources are the trainable real sets (their training four-fifths only) and rendered scenes. Each
sample rescales the frame so that dice take 14-110 px (or, for a share asked, 8-24: `SMALL`),
turns it by a quarter turn (a tray seen from above has no "up"; quarter turns keep the labeled
boxes exact) and flips it, and applies photometric noise, so a new camera or table is not a new
world.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from models.train.augment import photometric
from models.train.reader_data import grow, tray_images

STRIDE = 4


@dataclass
class Frame:
    image: np.ndarray            # BGR, long side <= 1024
    boxes: np.ndarray            # (N, 4) float, in `image` pixels
    size_known: np.ndarray       # (N,) bool: False where the box covers the top face only
    source: str


def _load_image(path: Path, boxes: list, size_known: list, source: str, max_side=1024) -> Frame | None:
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        return None
    s = min(1.0, max_side / max(img.shape[:2]))
    if s < 1.0:
        img = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    b = np.array(boxes, np.float32).reshape(-1, 4) * s
    return Frame(img, b, np.array(size_known, bool), source)


def real_frames(sets=("tray-d6-nell", "tray-mixed-bartek", "desk-d6-matteo")) -> list[Frame]:
    out = []
    for name, li in tray_images(sets):
        boxes = [d.box for d in li.dice if d.box is not None]
        # desk-d6-matteo boxes cover the top face only: teach its centres, not its sizes.
        known = [name != "desk-d6-matteo"] * len(boxes)
        if name == "desk-d6-matteo":
            # grow top-face boxes a little toward the whole die so heat blobs are die-sized
            boxes = [grow(b, 1.25) for b in boxes]
        f = _load_image(li.path, boxes, known, name)
        if f is not None:
            out.append(f)
    return out


def synth_frames(folder: Path, threads: int = 8) -> list[Frame]:
    """Frames in the shared labels.jsonl format: rendered scenes (reader.synth bulk --kind scenes), or
    a pack of the real trays (`pack_real`), whose rows name their set and whose dice may say
    `"size_known": false`. Decoded on `threads` threads (a GPU machine's thousands of renders)."""
    labels = folder / "labels.jsonl"
    if not labels.is_file():
        return []
    recs = [json.loads(line) for line in labels.read_text().splitlines() if line.strip()]

    def load(rec):
        dice = [d for d in rec["dice"] if d.get("box")]
        return _load_image(folder / rec["image"], [d["box"] for d in dice],
                           [d.get("size_known", True) for d in dice], rec.get("source", "synth"))

    with ThreadPoolExecutor(max(1, threads)) as pool:
        return [f for f in pool.map(load, recs) if f is not None]


def pack_real(out: Path, quality: int = 85) -> int:
    """Write `real_frames()` (the real trays' training four-fifths, as the trainer sees them) as a
    folder `synth_frames` reads, for a training machine without ../shared. The frames are 640 px on
    their long side already; at JPEG quality 85 the 660 of them take about 29 MB, so they travel
    with a call. The pack is the real photos' pixels: it lives in work/, never committed."""
    return write_frames(out, real_frames(), quality)


def write_frames(out: Path, frames: list[Frame], quality: int = 85) -> int:
    """`frames` as a folder `synth_frames` reads back: each die's box, whether its size is known,
    and the frame's source."""
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for i, f in enumerate(frames):
        name = f"{i:05d}.jpg"
        if not cv2.imwrite(str(out / name), f.image, [cv2.IMWRITE_JPEG_QUALITY, quality]):
            raise OSError(f"could not write {out / name}")
        dice = [{"box": [round(float(v), 2) for v in b], "size_known": bool(k)}
                for b, k in zip(f.boxes, f.size_known)]
        rows.append(json.dumps({"image": name, "source": f.source, "dice": dice}))
    (out / "labels.jsonl").write_text("\n".join(rows) + "\n")
    return len(rows)


SMALL = (8.0, 24.0)  # die sides (px) of a far camera's frame in the detector's looks


def sample(frame: Frame, rng: np.random.Generator, patch: int = 256, right_angles: float = 1.0,
           small: float = 0.0):
    """One augmented patch and its targets: heat (1,H,W), size (2,H,W), offset (2,H,W), mask.

    `small`: the share of patches whose dice are drawn at SMALL sides, as a camera far from the tray
    shows them. Teaching on from a detector with big oblique dice alone lost such dice (session 38's
    v4 candidate); these keep them in what it learns.
    """
    h, w = frame.image.shape[:2]
    boxes = frame.boxes
    if len(boxes):
        med = float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
    else:
        med = 40.0
    # drawn only when asked: without it the patches are the same, draw for draw, as before (a recipe's
    # seed makes the same detector)
    lo, hi = SMALL if small > 0 and rng.random() < small else (14.0, 110.0)
    target = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
    scale = target / max(med, 4.0)
    # Quarter turns only: a labeled box turned by 90 degrees is still the die's exact box, while
    # at 45 degrees the die's true extent is unknown (a D6 at 45 degrees in the photo has a box
    # 1.4x its side; turned back it is 1x). Guessed boxes taught the size head a +-30% error that
    # the reader's crops inherited. Dice lie at every angle in the photos themselves.
    angle = float(rng.choice([0.0, 90.0, 180.0, 270.0])) if rng.random() < right_angles else rng.uniform(0, 360)
    # centre of the patch: on a random die most of the time, else anywhere
    if len(boxes) and rng.random() < 0.7:
        b = boxes[rng.integers(len(boxes))]
        cx, cy = (b[0] + b[2]) / 2 + rng.normal(0, 60), (b[1] + b[3]) / 2 + rng.normal(0, 60)
    else:
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    M = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    M[0, 2] += patch / 2 - cx
    M[1, 2] += patch / 2 - cy
    flip = rng.random() < 0.5
    if flip:
        M[0] = -M[0]
        M[0, 2] += patch
    border = cv2.BORDER_REFLECT101 if rng.random() < 0.7 else cv2.BORDER_CONSTANT
    img = cv2.warpAffine(frame.image, M, (patch, patch), flags=cv2.INTER_LINEAR, borderMode=border,
                         borderValue=tuple(int(v) for v in rng.integers(0, 255, 3)))
    img = photometric(img, rng)

    out = patch // STRIDE
    heat = np.zeros((out, out), np.float32)
    size = np.zeros((2, out, out), np.float32)
    off = np.zeros((2, out, out), np.float32)
    mask = np.zeros((out, out), np.float32)
    ys, xs = np.mgrid[0:out, 0:out]
    for b, known in zip(boxes, frame.size_known):
        corners = np.array([[b[0], b[1], 1], [b[2], b[1], 1], [b[2], b[3], 1], [b[0], b[3], 1]], np.float32)
        pts = corners @ M.T
        c = pts.mean(axis=0)
        bw = (b[2] - b[0]) * scale
        bh = (b[3] - b[1]) * scale
        ang = np.deg2rad(angle)
        # exact for quarter turns; at other angles a die seen from above is between a square and
        # a disc, so the turned box's extent is averaged with the unturned side (a guess)
        ew = abs(bw * np.cos(ang)) + abs(bh * np.sin(ang))
        eh = abs(bw * np.sin(ang)) + abs(bh * np.cos(ang))
        if angle % 90:
            side = float(np.sqrt(bw * bh))
            ew, eh = 0.5 * ew + 0.5 * side, 0.5 * eh + 0.5 * side
        gx, gy = c[0] / STRIDE, c[1] / STRIDE
        if not (0 <= gx < out and 0 <= gy < out):
            continue
        sigma = max(0.7, max(ew, eh) / STRIDE / 6)
        g = np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * sigma ** 2))
        np.maximum(heat, g, out=heat)
        ix, iy = int(gx), int(gy)
        heat[iy, ix] = 1.0
        off[:, iy, ix] = (gx - ix, gy - iy)
        if known:
            size[:, iy, ix] = (np.log(max(ew, 1) / STRIDE), np.log(max(eh, 1) / STRIDE))
            mask[iy, ix] = 1.0
        else:
            mask[iy, ix] = 0.5  # offset only (see loss)
    return img, heat, size, off, mask


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="pack the real trays' training frames for a machine without ../shared")
    ap.add_argument("--pack", type=Path, required=True, help="the folder to write (work/detpack)")
    ap.add_argument("--quality", type=int, default=85)
    a = ap.parse_args()
    print(f"{pack_real(a.pack, a.quality)} frames -> {a.pack}")
