"""Photometric augmentation shared by the detector and the die reader.

Real photos differ from ours in white balance, exposure, blur, noise and JPEG: the models must
see all of these during training so that a new camera is not a new world.
"""

from __future__ import annotations

import cv2
import numpy as np

from reader.vision.other_cameras import bright_spots, jpeg, lit, sharpened, washed_out

# the JPEG qualities small_camera draws from unless told (train_top_face --small-camera-quality)
SMALL_CAMERA_QUALITY = (20, 75)


def photometric(img: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """Random colour, exposure, blur, noise and JPEG on a uint8 BGR image."""
    out = img.astype(np.float32)
    # white balance and exposure
    gains = rng.uniform(1 - 0.15 * strength, 1 + 0.15 * strength, size=3)
    out *= gains * rng.uniform(1 - 0.35 * strength, 1 + 0.3 * strength)
    # contrast and gamma
    mean = out.mean()
    out = (out - mean) * rng.uniform(1 - 0.3 * strength, 1 + 0.25 * strength) + mean
    out = np.clip(out, 0, 255)
    if rng.random() < 0.5:
        g = rng.uniform(0.7, 1.4)
        out = 255.0 * (out / 255.0) ** g
    # occasional grey / desaturation
    if rng.random() < 0.1 * strength:
        grey = out.mean(axis=2, keepdims=True)
        a = rng.uniform(0.3, 1.0)
        out = out * (1 - a) + grey * a
    out = np.clip(out, 0, 255).astype(np.uint8)
    r = rng.random()
    if r < 0.25 * strength:
        k = int(rng.choice([3, 5]))
        out = cv2.GaussianBlur(out, (k, k), rng.uniform(0.4, 1.4))
    elif r < 0.32 * strength:
        out = motion_blur(out, rng)
    if rng.random() < 0.4 * strength:
        sigma = rng.uniform(2, 9)
        noise = rng.normal(0, sigma, size=out.shape).astype(np.float32)
        out = np.clip(out.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.5 * strength:
        out = jpeg(out, int(rng.uniform(35, 90)))
    return out


def recolour(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The same die in another colour: its channels in a random order, half the time its hue turned
    too. The real dice a look learns from are a few makers' colours (tray-d6-nell's dark swirled
    dice with red pips, bartek's blue and white D10): recoloured, a blue die with red pips is also
    a red one with blue pips, a green one with yellow, and the look learns the marks, not the
    colours of the dice it happened to see. Light and dark stay as they were."""
    out = img[..., rng.permutation(3)]
    if rng.random() < 0.5:
        hsv = cv2.cvtColor(np.ascontiguousarray(out), cv2.COLOR_BGR2HSV)
        hsv[..., 0] = ((hsv[..., 0].astype(np.int32) + int(rng.integers(0, 180))) % 180).astype(np.uint8)
        out = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    return np.ascontiguousarray(out)


def defocus(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A camera out of focus: a Gaussian blur of 1.5-4 px on the 96 px crop (0.7-2 px on a 35 px
    die in the frame), where photometric's stops at 1.4. The label stays the die's face: where the
    blur leaves the face readable the look learns to read it, where it does not, to spread its
    belief over the faces it cannot tell apart, so a blurred die is refused rather than read wrong
    (tray-mixed-bartek blurred by 1.6 px: a white D6's ornate 1 read as 4 at 0.84-0.97)."""
    return cv2.GaussianBlur(img, (0, 0), float(rng.uniform(1.5, 4.0)))


def small_camera(img: np.ndarray, rng: np.random.Generator, per_side: float,
                 quality: tuple[int, int] = SMALL_CAMERA_QUALITY) -> np.ndarray:
    """The crop as a small or cheap camera gives it: the die 24-72 px across in the frame (drawn
    log-uniform), the JPEG of a webcam's stream at that size (quality drawn from `quality`), blown
    up to the crop again as the runtime blows up its cuts (reader.vision.crops).

    Why: photometric's JPEG is applied to the 96 px crop, so its 8 px blocks are a twelfth of the
    crop; a 35 px die's blocks are 8 px of the frame, about a fifth of its cut, 14-22 px once blown
    up: large enough to look like pips. tray-d6-nell at JPEG 25 (benchmarks/other_cameras.py) had
    the D6's look read a 5 and a 4 as 6 at 0.99-1.0. `per_side` is the cut's side over the die's box
    side, so that the die, not the cut, is that size. Taught to the D6's look (session 25) it made
    that look surer of compressed dice, wrong ones too: off in every committed look
    (models/reader.md, "Session 25")."""
    n = img.shape[0]
    side = float(np.exp(rng.uniform(np.log(24), np.log(72))))
    small = max(8, int(round(side * per_side)))
    if small >= n:
        return img
    out = cv2.resize(img, (small, small), interpolation=cv2.INTER_AREA)
    out = jpeg(out, int(rng.integers(quality[0], quality[1] + 1)))
    return cv2.resize(out, (n, n), interpolation=cv2.INTER_LINEAR)


def motion_blur(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    k = int(rng.integers(3, 8))
    kernel = np.zeros((k, k), np.float32)
    kernel[k // 2, :] = 1.0 / k
    rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
    kernel = cv2.warpAffine(kernel, rot, (k, k))
    kernel /= max(kernel.sum(), 1e-6)
    return cv2.filter2D(img, -1, kernel)


# camera_fault's faults, each as a crop of 96 px sees it (a die of 30-60 px cut at 1.15 x its box is
# blown up about 1.5-3x): the frame-level ones of reader.vision.other_cameras, at a drawn strength
CAMERA_FAULTS = ("coloured light", "oversharpened", "hazy", "glare")


def camera_fault(img: np.ndarray, rng: np.random.Generator, fault: str | None = None) -> np.ndarray:
    """The crop as a camera or a light the looks were never taught would give it, one fault drawn
    (or the one named) at a drawn strength:

    - coloured light: each channel's gain drawn log-uniform in 0.55-1.4 (stage light, a daylight
      white balance under tungsten or LEDs), where photometric's white balance stays within 15%;
    - oversharpened: an unsharp mask of 1.5-4 crop pixels, amount 0.7-2 (a webcam's sharpening);
    - hazy: every level pulled 25-55% of the way to a pale grey of 140-230 (a lamp flaring in the
      lens), where photometric's contrast goes down to 0.7;
    - glare: one or two soft bright spots, 3-12 crop pixels (standard deviation), anywhere on the
      crop (a lamp reflected in a glossy die or tray).

    The label stays the die's face. Why: benchmarks/other_cameras.py's "stage light", "oversharpened",
    "hazy" and "glare" cost the release 2-8 points of end-to-end on the real trays, and "hazy" let 3
    of nell's and 3 of bartek's holdout dice through read wrong (models/reader.md, "Session 79").
    Taught with `train_top_face --faults`, the look sees the fault and is held to what the release
    reads on the same crop without it."""
    fault = fault or CAMERA_FAULTS[int(rng.integers(len(CAMERA_FAULTS)))]
    if fault == "coloured light":
        return lit(img, np.exp(rng.uniform(np.log(0.55), np.log(1.4), size=3)).astype(np.float32))
    if fault == "oversharpened":
        amount = rng.uniform(0.7, 2.0)
        return sharpened(img, float(rng.uniform(1.5, 4.0)), amount)
    if fault == "hazy":
        share = rng.uniform(0.25, 0.55)
        return washed_out(img, share, rng.uniform(140, 230))
    if fault == "glare":
        return bright_spots(img, rng, int(rng.integers(1, 3)), sd=(3.0, 12.0), peak=(120.0, 240.0))
    raise ValueError(f"no camera fault {fault!r}: one of {', '.join(CAMERA_FAULTS)}")
