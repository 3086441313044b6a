"""What a local camera is asked (reader.camera_settings) and what the reader does when it will not
give the pixel format asked: a stand-in capture records the calls, so no camera is needed."""

import cv2
import numpy as np
import pytest

from reader.camera_settings import apply_settings, compression_note, pixel_format_asked, pixel_format_of
from reader.errors import DiceReaderError
from reader.sources import CaptureSource, Frame


class StandInCapture:
    """Stands in for cv2.VideoCapture: records what is set, says it gives frames of `fourcc`."""

    def __init__(self, fourcc: str | None = None):
        self.calls: list[tuple[int, float]] = []
        self.fourcc = fourcc
        self.released = False

    def set(self, prop, value):
        self.calls.append((prop, value))
        return True

    def get(self, prop):
        if prop == cv2.CAP_PROP_FOURCC:
            return float(cv2.VideoWriter_fourcc(*self.fourcc)) if self.fourcc else 0.0
        return {cv2.CAP_PROP_FRAME_WIDTH: 64.0, cv2.CAP_PROP_FRAME_HEIGHT: 48.0}.get(prop, 0.0)

    def read(self):
        return True, np.zeros((48, 64, 3), np.uint8)

    def release(self):
        self.released = True


def test_the_pixel_format_is_asked_before_the_size_and_rate():
    cap = StandInCapture()
    apply_settings(cap, {"pixel_format": "YUYV", "width": 1280, "height": 720, "fps": 10}, live=True)
    assert [prop for prop, _ in cap.calls] == [cv2.CAP_PROP_BUFFERSIZE, cv2.CAP_PROP_FOURCC, cv2.CAP_PROP_FRAME_WIDTH,
                                               cv2.CAP_PROP_FRAME_HEIGHT, cv2.CAP_PROP_FPS]
    assert cap.calls[1][1] == cv2.VideoWriter_fourcc(*"YUYV")


def test_nothing_asked_is_left_to_the_camera():
    cap = StandInCapture()
    apply_settings(cap, {"pixel_format": None, "width": None, "exposure": None}, live=False)
    assert cap.calls == []


@pytest.mark.parametrize("given, asked", [
    pytest.param("yuyv", "YUYV", id="lower case"),
    pytest.param(" MJPG ", "MJPG", id="spaces around"),
    pytest.param(None, None, id="none asked"),
    pytest.param("", None, id="empty"),
])
def test_a_pixel_format_is_a_four_character_code(given, asked):
    assert pixel_format_asked(given) == asked


@pytest.mark.parametrize("given", [
    pytest.param("YUV", id="three characters"),
    pytest.param("YUYV2", id="five characters"),
    pytest.param("MJ-G", id="a dash"),
])
def test_anything_else_is_a_clear_error(given):
    with pytest.raises(DiceReaderError, match="four-character code"):
        pixel_format_asked(given)


def test_a_capture_says_its_pixel_format_or_nothing():
    assert pixel_format_of(StandInCapture("MJPG")) == "MJPG"
    assert pixel_format_of(StandInCapture(None)) is None
    assert pixel_format_of(object()) is None  # no get() at all


def test_a_camera_that_falls_back_to_mjpg_is_refused_at_the_start():
    cap = StandInCapture("MJPG")
    with pytest.raises(DiceReaderError, match="camera:0 gives MJPG, not the YUYV asked for"):
        CaptureSource(0, live=True, url="camera:0", pixel_format="yuyv", opener=lambda: cap)
    assert cap.released


def test_a_camera_that_gives_the_format_reads_and_its_rolls_say_so():
    src = CaptureSource(0, live=True, url="camera:0", pixel_format="YUYV", opener=lambda: StandInCapture("YUYV"),
                        clock=lambda: 0.0)
    assert isinstance(src.read(), Frame)
    assert src.describe() == {"source": "camera:0", "pixel_format": "YUYV", "width": 64, "height": 48}


def test_a_camera_asked_nothing_still_says_what_it_gives():
    src = CaptureSource(0, live=True, url="camera:0", opener=lambda: StandInCapture("MJPG"), clock=lambda: 0.0)
    assert src.describe()["pixel_format"] == "MJPG"


@pytest.mark.parametrize("description, noted", [
    pytest.param({"source": "camera:0", "pixel_format": "MJPG"}, True, id="a webcam streaming MJPG"),
    pytest.param({"source": "camera:0", "pixel_format": "YUYV"}, False, id="uncompressed"),
    pytest.param({"source": "file:roll.mp4"}, False, id="a video file says nothing"),
])
def test_the_operator_is_told_once_where_the_camera_compresses_its_frames(description, noted):
    note = compression_note(description)
    assert (note is not None) == noted
    if noted:
        assert "camera:0 streams MJPG" in note and "--pixel-format YUYV" in note
