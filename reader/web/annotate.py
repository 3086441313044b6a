"""Draw the reader's boxes and readings on a frame, for the judge's live view (JPEG)."""

from __future__ import annotations

import numpy as np

COLORS = {"flat": (80, 200, 60), "cocked": (0, 140, 255), "unreadable": (60, 60, 230)}
MAX_WIDTH = 1280
MIN_WIDTH = 640


def _as_dict(r) -> dict:
    if isinstance(r, dict):
        return r
    to_json = getattr(r, "to_json", None)
    return to_json() if callable(to_json) else {}


def annotate(bgr: np.ndarray, readings) -> np.ndarray:
    import cv2

    img = bgr.copy()
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    up = 1.0
    if img.shape[1] < MIN_WIDTH:  # a small camera frame: enlarge first, so labels stay legible
        up = MIN_WIDTH / img.shape[1]
        img = cv2.resize(img, (MIN_WIDTH, int(round(img.shape[0] * up))), interpolation=cv2.INTER_NEAREST)
    scale = max(1.0, img.shape[1] / 900)
    for i, r in enumerate(readings):
        d = _as_dict(r)
        box = d.get("box")
        if not box or len(box) != 4:
            continue
        x0, y0, x1, y1 = (int(round(v * up)) for v in box)
        color = COLORS.get(d.get("state", "flat"), (200, 200, 200))
        cv2.rectangle(img, (x0, y0), (x1, y1), color, max(2, int(2 * scale)))
        value = d.get("value")
        label = f"{i + 1}: {str(d.get('die', '?')).upper()} " + (
            str(value) if value is not None else str(d.get("state", "?")).upper())
        conf = d.get("confidence")
        if conf is not None:
            label += f" {float(conf):.0%}"
        fs = 0.6 * scale
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, fs, max(1, int(scale)))
        ty = y0 - 6 if y0 - th - 10 > 0 else y1 + th + 6
        cv2.rectangle(img, (x0, ty - th - 6), (x0 + tw + 8, ty + 4), color, -1)
        cv2.putText(img, label, (x0 + 4, ty), cv2.FONT_HERSHEY_SIMPLEX, fs, (0, 0, 0),
                    max(1, int(scale)), cv2.LINE_AA)
    if img.shape[1] > MAX_WIDTH:
        f = MAX_WIDTH / img.shape[1]
        img = cv2.resize(img, (MAX_WIDTH, int(round(img.shape[0] * f))), interpolation=cv2.INTER_AREA)
    return img


def annotate_jpeg(bgr: np.ndarray, readings, quality: int = 80) -> bytes:
    import cv2

    ok, buf = cv2.imencode(".jpg", annotate(bgr, readings), [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("could not encode the live frame as JPEG")
    return buf.tobytes()
