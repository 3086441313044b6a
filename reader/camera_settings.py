"""A local camera's settings, as cv2.VideoCapture takes them: pixel format, size, frame rate, fixed
exposure and white balance (`watch`/`serve` --pixel-format, --width, ...), and the pixel format a
capture says it gives, which each roll's manifest keeps (reader.sources.CaptureSource.describe).

Kept apart from reader.sources so that what is asked of a driver, and in which order, can be tested
with a stand-in capture: no camera is needed to see that YUYV is asked before the size.
"""

from __future__ import annotations

import re

from reader.errors import DiceReaderError


def pixel_format_asked(text: str | None) -> str | None:
    """A pixel format as V4L2 names it (a four-character code: YUYV, MJPG, NV12...), upper-cased, or
    None where none is asked; a DiceReaderError for anything else."""
    if text is None or not str(text).strip():
        return None
    code = str(text).strip().upper()
    if not re.fullmatch(r"[0-9A-Z]{4}", code):
        raise DiceReaderError(f"pixel format {text!r}: give a four-character code such as YUYV "
                              "(uncompressed) or MJPG")
    return code


def pixel_format_of(cap) -> str | None:
    """The four-character code of the frames `cap` gives (OpenCV's CAP_PROP_FOURCC), or None where it
    says nothing (0, or no such property)."""
    import cv2

    try:
        code = int(cap.get(cv2.CAP_PROP_FOURCC))
    except Exception:
        return None
    text = "".join(chr((code >> (8 * i)) & 0xFF) for i in range(4)).strip("\x00 ").upper()
    return text if code and text.isprintable() else None


def apply_settings(cap, settings: dict, live: bool) -> None:
    """A capture's settings, each where one is given: the pixel format first (V4L2 chooses the sizes
    and rates it offers from the format), then size, rate, fixed exposure and white balance.

    Why the pixel format: a webcam at 1280x720 often streams MJPG, JPEG that halves colour's
    resolution and quantises it coarsely; dark dice with red pips, compressed so (tray-d6-nell as
    JPEG 50, benchmarks/other_cameras.py), are read wrong 3 times in 426, where the photos as taken
    are read wrong once. YUYV is uncompressed, at fewer frames a second."""
    import cv2

    if live:
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # never hand out a stale frame
    if settings.get("pixel_format"):
        cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*settings["pixel_format"]))
    if settings.get("width"):
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, settings["width"])
    if settings.get("height"):
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, settings["height"])
    if settings.get("fps"):
        cap.set(cv2.CAP_PROP_FPS, settings["fps"])
    if settings.get("exposure") is not None:
        cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1)  # V4L2: 1 = manual
        cap.set(cv2.CAP_PROP_EXPOSURE, settings["exposure"])
    if settings.get("white_balance") is not None:
        cap.set(cv2.CAP_PROP_AUTO_WB, 0)
        cap.set(cv2.CAP_PROP_WB_TEMPERATURE, settings["white_balance"])


# Pixel formats that are JPEG frames: a camera streaming one compresses every frame before the reader.
COMPRESSED = ("MJPG", "JPEG")


def compression_note(description: dict) -> str | None:
    """A line for the operator where a live camera streams JPEG frames (its description, as
    CaptureSource.describe gives it), else None: said once at the start, since the remedy is the
    camera's set-up, not anything the reader can do frame by frame."""
    given = description.get("pixel_format")
    if given not in COMPRESSED:
        return None
    return (f"note: {description.get('source', 'the camera')} streams {given} (JPEG-compressed frames): "
            "the pips of small dice can be lost to it, and such dice refused or, rarely, misread; "
            "--pixel-format YUYV asks for uncompressed frames")
