"""Image files turned into pixels: one decoder for every still the project reads (`read`,
`evaluate` and its error sheet, the folder frame source), so each decodes a photo the same way
and says why when it cannot.
"""

from __future__ import annotations

from pathlib import Path


class ImageError(Exception):
    """An image file that cannot be turned into pixels; the message says why."""


def load_image(path: str | Path):
    """Decode an image file to a BGR array; raises ImageError with a message a user can act on."""
    import cv2
    import numpy as np

    p = Path(path)
    if not p.exists():
        raise ImageError("no such file")
    if p.is_dir():
        raise ImageError("is a directory, not an image")
    try:
        data = np.fromfile(str(p), dtype=np.uint8)
    except PermissionError:
        raise ImageError("permission denied") from None
    except OSError as exc:
        raise ImageError(f"cannot read the file: {exc.strerror or exc}") from None
    if data.size == 0:
        raise ImageError("empty file")
    # Decoded as stored, a phone photo's EXIF orientation not applied: labels give boxes in "pixels
    # in the image as stored" (../shared/realdata/README.md), and OpenCV would otherwise turn the
    # image, so every box read off it lands elsewhere. A die seen from above reads the same either way.
    image = cv2.imdecode(data, cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
    if image is None or image.size == 0:
        raise ImageError("not an image that can be decoded (corrupt or unsupported format)")
    return image
