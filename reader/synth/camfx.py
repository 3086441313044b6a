"""Camera effects applied to a clean render: what a phone or webcam does to a picture.

Exposure and white balance errors, lens (defocus) blur, motion blur, vignetting, sensor noise
(shot noise grows with brightness, read noise does not; chroma noise at low light), a
soft-resampling step (cheap webcams upscale), and JPEG. Parameters are drawn once per image from
the generator, so an image is reproducible from its seed.
"""

from __future__ import annotations

import cv2
import numpy as np


# The smallest share of its pixels a crop keeps before it is blown up again (the training mix):
# real crops are cut from frames where a die is 30-80 px wide
RESAMPLE_MIN = 0.3


def sample_fx(rng, strength: float = 1.0, resample_min: float = RESAMPLE_MIN) -> dict:
    """Random camera parameters; strength 0 gives a clean image, 1 the training mix.
    `resample_min`: the smallest share of its pixels a crop keeps (drawn up to 1.3, capped at 1);
    a look cut close to the top face wants more of them than the whole die does."""
    s = strength
    return {
        "exposure": float(np.exp(np.clip(rng.normal(0, 0.22 * s), -0.6, 0.4))),
        "wb": [float(x) for x in np.exp(rng.normal(0, 0.06 * s, 3))],
        "gamma": float(np.exp(rng.normal(0, 0.08 * s))),
        "defocus": float(max(0.0, rng.normal(0.3, 0.5) * s)),
        "motion": float(max(0.0, rng.normal(-0.5, 1.5) * s)),
        "motion_angle": float(rng.uniform(0, 180)),
        "vignette": float(rng.uniform(0, 0.35) * s),
        "noise": float(abs(rng.normal(0, 0.018)) * s),
        "chroma_noise": float(abs(rng.normal(0, 0.008)) * s),
        "resample": float(min(1.0, rng.uniform(resample_min, 1.3)) if s > 0 else 1.0),
        "jpeg": int(rng.integers(45, 96)) if s > 0 else 95,
        "seed": int(rng.integers(2 ** 31)),
        "auto_exposure": bool(rng.random() < 0.85),
        "ae_target": float(rng.uniform(0.13, 0.28)),
    }


def motion_kernel(length: float, angle_deg: float) -> np.ndarray:
    n = max(1, int(np.ceil(length)) * 2 + 1)
    k = np.zeros((n, n), np.float32)
    c = n // 2
    dx, dy = np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))
    for t in np.linspace(-length, length, 4 * n):
        k[int(round(c + dy * t)), int(round(c + dx * t))] = 1.0
    return k / k.sum()


def apply_fx(rgb: np.ndarray, fx: dict) -> np.ndarray:
    """RGB uint8 -> RGB uint8 with the camera effects of `fx` (no JPEG: see encode_jpeg)."""
    rng = np.random.default_rng(fx["seed"])
    img = (rgb.astype(np.float32) / 255.0) ** 2.2
    h, w = img.shape[:2]
    scale = w / 128.0  # effect sizes are given for a 128 px crop
    if fx["defocus"] > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), fx["defocus"] * scale ** 0.5)
    if fx["motion"] > 0.3:
        img = cv2.filter2D(img, -1, motion_kernel(fx["motion"] * scale ** 0.5, fx["motion_angle"]))
    # auto-exposure, as every phone and webcam does: bring the mean to a mid-grey, then miss a bit
    lum = float((img @ np.array([0.2126, 0.7152, 0.0722], np.float32)).mean())
    gain = float(np.clip(fx.get("ae_target", 0.2) / max(lum, 1e-4), 0.6, 3.0)) if fx.get("auto_exposure", True) else 1.0
    img = img * gain * fx["exposure"] * np.asarray(fx["wb"], np.float32)[None, None, :]
    if fx["vignette"] > 0:
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((x - w / 2) / (w / 2)) ** 2 + ((y - h / 2) / (h / 2)) ** 2
        img *= (1 - fx["vignette"] * r2 / 2)[..., None]
    img = np.clip(img, 0, 1) ** (1 / (2.2 * fx["gamma"]))
    if fx["noise"] > 0:
        shot = rng.normal(0, 1, img.shape).astype(np.float32) * np.sqrt(np.clip(img, 0, 1)) * fx["noise"]
        read = rng.normal(0, fx["noise"] * 0.5, img.shape[:2]).astype(np.float32)[..., None]
        img = img + shot + read
        if fx["chroma_noise"] > 0:
            cn = rng.normal(0, fx["chroma_noise"], (h // 2 + 1, w // 2 + 1, 3)).astype(np.float32)
            img = img + cv2.resize(cn, (w, h))
    out = np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8)
    if fx["resample"] < 1.0:
        small = cv2.resize(out, (max(8, int(w * fx["resample"])), max(8, int(h * fx["resample"]))),
                           interpolation=cv2.INTER_AREA)
        out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    return out


def encode_jpeg(rgb: np.ndarray, quality: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()
