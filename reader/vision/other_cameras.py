"""Labeled photos as another camera or light would have taken them: the reader is scored on
cameras nobody here has, so its figures on the ones we have are also measured through these.

Each variant is a pure function of an image (and a random generator, for sensor noise and the
lamps' glare); the close camera also moves the labels, since it cuts windows of the photo and blows
them up, and so does the far camera, which sets the photo in a larger frame, the camera with fewer
pixels, which shrinks it, and the camera with more pixels, which blows it up. Writing the variants
out and scoring them is benchmarks/other_cameras.py's and tests/test_close_camera.py's,
test_far_camera.py's and test_legible_size.py's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

import cv2
import numpy as np

from reader.vision.realdata import LabeledDie


def _bytes(x: np.ndarray) -> np.ndarray:
    """Light levels back to a camera's 8 bits: what is over 255 clips white."""
    return np.clip(x, 0, 255).astype(np.uint8)


def low_light(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A third of the light, the sensor's noise, brightened again by the camera."""
    return _bytes((img.astype(np.float32) / 3 + rng.normal(0, 2.5, img.shape)) * 2.6)


def lit(img: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """The photo under a coloured light its camera did not balance: each channel times its gain (BGR)."""
    return _bytes(img.astype(np.float32) * gains)


def sharpened(img: np.ndarray, sigma: float, amount: float) -> np.ndarray:
    """An unsharp mask of `sigma` px and `amount`, as a webcam sharpens its picture."""
    soft = cv2.GaussianBlur(img, (0, 0), sigma).astype(np.float32)
    return _bytes(img.astype(np.float32) * (1 + amount) - soft * amount)


def washed_out(img: np.ndarray, share: float, grey: float) -> np.ndarray:
    """Every level pulled `share` of the way to `grey`: a lamp flaring in the lens."""
    return _bytes(img.astype(np.float32) * (1 - share) + share * grey)


def bright_spots(img: np.ndarray, rng: np.random.Generator, spots: int, sd: tuple[float, float],
                 peak: float | tuple[float, float], scale: float = 1.0) -> np.ndarray:
    """`spots` soft bright spots anywhere, lamps reflected in a glossy tray or die: each centre drawn,
    then its standard deviation (in `sd` times `scale` px), then its height where `peak` is a range."""
    h, w = img.shape[:2]
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    out = img.astype(np.float32)
    for _ in range(spots):
        cx, cy, s = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(*sd) * scale
        height = rng.uniform(*peak) if isinstance(peak, tuple) else peak
        out += height * np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * s * s))[..., None]
    return _bytes(out)


def tungsten(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Warm light and no white balance (BGR gains)."""
    return lit(img, np.array([0.65, 0.9, 1.25]))


def monochrome(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)


def jpeg(img: np.ndarray, quality: int) -> np.ndarray:
    """The image after a JPEG round trip at `quality` (as it came when OpenCV cannot encode it);
    training's augmentation (models/train/augment.py) compresses with this too."""
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else img


def webcam_jpeg(quality: int) -> Callable[[np.ndarray, np.random.Generator], np.ndarray]:
    """A webcam's JPEG stream at `quality`, the photos' own JPEG compressed once more: 25 a cheap
    one's, 50 a middling MJPG stream's. At 40, tray-d6-nell's dark dice with red pips let 4 wrong
    through (session 68), more than at 25 (README: `--pixel-format YUYV`)."""
    def compressed(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return jpeg(img, quality)
    return compressed


def out_of_focus(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A Gaussian blur of 1.6 px on a 640 px photo."""
    return cv2.GaussianBlur(img, (0, 0), 1.6)


def overexposed(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """An exposure set for a dark tray: 1.6x the light, the bright parts clipped (a white die on a
    pale desk loses its outline)."""
    return _bytes(img.astype(np.float32) * 1.6)


def motion_blur(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The camera or the table shaken across the exposure: a 5 px streak, side to side."""
    kernel = np.zeros((5, 5), np.float32)
    kernel[2, :] = 1 / 5
    return cv2.filter2D(img, -1, kernel)


def stage_light(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A feature table under blue stage light, the camera's white balance set for daylight (BGR
    gains): white dice turn blue, red pips dark, far beyond the 15% casts the looks were taught."""
    return lit(img, np.array([1.35, 0.85, 0.55], np.float32))


def oversharpened(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A webcam that sharpens its picture hard (an unsharp mask of 1.5 px, amount 1.5): a white halo
    round every pip and edge, a dark seam inside it, and the table's grain made coarse."""
    return sharpened(img, 1.5, 1.5)


def hazy(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Washed out: a lamp flaring in the lens, or a fogged one. Every level pulled 45% of the way to a
    pale grey (190), so black pips are mid grey and a white die is barely lighter than the tray."""
    return washed_out(img, 0.45, 190.0)


def glare(img: np.ndarray, rng: np.random.Generator, spots: int = 6) -> np.ndarray:
    """Lamps reflected in a glossy tray and glossy dice: `spots` bright soft spots, each 1-3% of the
    photo's width across (standard deviation), anywhere, on dice too."""
    return bright_spots(img, rng, spots, sd=(0.01, 0.03), peak=230.0, scale=img.shape[1])


VARIANTS: dict[str, Callable[[np.ndarray, np.random.Generator], np.ndarray]] = {
    "low light": low_light,
    "tungsten": tungsten,
    "monochrome": monochrome,
    "JPEG 25": webcam_jpeg(25),
    "JPEG 50": webcam_jpeg(50),
    "out of focus": out_of_focus,
    "overexposed": overexposed,
    "motion blur": motion_blur,
    "stage light": stage_light,
    "oversharpened": oversharpened,
    "hazy": hazy,
    "glare": glare,
}

# where the close camera's windows are centred, as shares of the photo's width and height
WINDOW_CENTRES = ((0.5, 0.5), (0.25, 0.25), (0.75, 0.75), (0.25, 0.75), (0.75, 0.25))


def shifted(img: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """The scene moved by (dx, dy) pixels in the picture, as a camera a hair to the side takes it:
    whole pixels are copied, parts of a pixel resampled (bilinear), the edge repeated into the gap.
    A reading that holds only at one place to a pixel is luck, not skill: the reader's figures are
    measured so too (`dice-reader evaluate --shift`)."""
    m = np.float32([[1, 0, dx], [0, 1, dy]])
    h, w = img.shape[:2]
    return cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def close_up(img: np.ndarray, dice: tuple[LabeledDie, ...], zoom: int = 3
             ) -> Iterator[tuple[np.ndarray, list[LabeledDie]]]:
    """A camera `zoom` times closer: windows of 1/zoom of the photo blown up `zoom` times, each with
    the dice wholly inside it, their boxes moved. A window that cuts through a die, or holds none,
    is left out (its label would be a guess)."""
    h, w = img.shape[:2]
    ws, hs = w // zoom, h // zoom
    for fx, fy in WINDOW_CENTRES:
        x0 = max(0, min(w - ws, int(fx * w - ws / 2)))
        y0 = max(0, min(h - hs, int(fy * h - hs / 2)))
        inside, cut = [], False
        for d in dice:
            if d.box is None:
                cut = True
                continue
            b = d.box
            if b[0] >= x0 and b[1] >= y0 and b[2] <= x0 + ws and b[3] <= y0 + hs:
                moved = ((b[0] - x0) * zoom, (b[1] - y0) * zoom, (b[2] - x0) * zoom, (b[3] - y0) * zoom)
                inside.append(LabeledDie(d.die, d.value, moved, d.state))
            elif not (b[2] <= x0 or b[0] >= x0 + ws or b[3] <= y0 or b[1] >= y0 + hs):
                cut = True
        if cut or not inside:
            continue
        big = cv2.resize(img[y0:y0 + hs, x0:x0 + ws], (ws * zoom, hs * zoom), interpolation=cv2.INTER_CUBIC)
        yield big, inside


def _scaled(dice: tuple[LabeledDie, ...], k: float) -> list[LabeledDie]:
    """The dice' boxes `k` times their coordinates (a photo blown up or shrunk k times); boxless as they are."""
    return [d if d.box is None else replace(d, box=tuple(v * k for v in d.box)) for d in dice]


def more_pixels(img: np.ndarray, dice: tuple[LabeledDie, ...], rng: np.random.Generator, zoom: int = 4,
                noise: float = 10.0) -> tuple[np.ndarray, list[LabeledDie]]:
    """A camera with `zoom` times the pixels on the same tray (2560 px where the photo was 640):
    the photo blown up (cubic), each new pixel with its own sensor noise of `noise` grey levels, the
    boxes scaled. The dice are `zoom` times bigger in pixels, with the noise at their pixels' size,
    not the photo's: what a big die's cut must not fold into blotches (reader.vision.crops.warp)."""
    h, w = img.shape[:2]
    big = cv2.resize(img, (w * zoom, h * zoom), interpolation=cv2.INTER_CUBIC).astype(np.float32)
    big += rng.normal(0.0, noise, big.shape).astype(np.float32)
    return _bytes(big), _scaled(dice, zoom)


def smaller(img: np.ndarray, dice: tuple[LabeledDie, ...], scale: float = 2.0) -> tuple[np.ndarray, list[LabeledDie]]:
    """The same tray from a camera with `scale` times fewer pixels across, or as many pixels `scale`
    times farther away: the photo shrunk by area, the boxes scaled. Where far_away's dice keep their
    pixels, these lose them: a 40 px die becomes 20 px, its pips and numerals a few pixels each, and
    the reader must refuse what it cannot read (reader.vision.legible)."""
    h, w = img.shape[:2]
    small = cv2.resize(img, (max(1, round(w / scale)), max(1, round(h / scale))), interpolation=cv2.INTER_AREA)
    return small, _scaled(dice, 1 / scale)


def far_away(img: np.ndarray, dice: tuple[LabeledDie, ...], scale: float = 3.0) -> tuple[np.ndarray, list[LabeledDie]]:
    """A camera with `scale` times the pixels, farther away: the photo in the middle of a canvas
    `scale` times its side, the table around it one plain colour (the median of the photo's
    border), the dice' boxes moved. The dice keep their pixels; in the frame they are `scale`
    times smaller, as a 4K camera over a whole table sees a small tray."""
    h, w = img.shape[:2]
    H, W = round(h * scale), round(w * scale)
    y0, x0 = (H - h) // 2, (W - w) // 2
    border = np.concatenate([img[0], img[-1], img[:, 0], img[:, -1]])
    colour = [int(c) for c in np.median(border, axis=0)]
    canvas = cv2.copyMakeBorder(img, y0, H - h - y0, x0, W - w - x0, cv2.BORDER_CONSTANT, value=colour)
    moved = [LabeledDie(d.die, d.value, None if d.box is None else
                        (d.box[0] + x0, d.box[1] + y0, d.box[2] + x0, d.box[3] + y0), d.state) for d in dice]
    return canvas, moved
