"""The same checks against a real camera: set DICE_READER_CAMERA=camera:0 (or /dev/videoN, a
stream URL). Skipped otherwise (CI has no camera; fakes and recordings cover the sources there)."""

from __future__ import annotations

import os

import pytest

from reader.sources import Frame, open_source

SPEC = os.environ.get("DICE_READER_CAMERA")
pytestmark = pytest.mark.skipif(not SPEC, reason="no camera attached (set DICE_READER_CAMERA)")


def test_real_camera_gives_fresh_colour_frames():
    with open_source(SPEC) as src:
        frames = [src.read() for _ in range(10)]
        info = src.describe()
    assert all(isinstance(f, Frame) for f in frames)
    assert all(f.bgr.ndim == 3 and f.bgr.shape[2] == 3 for f in frames)
    ts = [f.t for f in frames]
    assert ts == sorted(ts) and ts[-1] > ts[0]  # live time stamps, not a stale buffer
    assert info["source"] and info.get("width")
