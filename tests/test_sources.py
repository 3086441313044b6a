"""Frame sources by URL-like string: files, folders, recordings, fakes, and a camera that vanishes."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from reader.errors import DiceReaderError
from reader.sources import (
    CaptureSource,
    FolderSource,
    Frame,
    MemorySource,
    RecordingSource,
    SourceBack,
    SourceLost,
    open_source,
    synthetic_tray,
)
from tray_fakes import make_roll, make_rolls, tray, with_exif_orientation


def frames_of(source):
    return [item for item in source if isinstance(item, Frame)]


@pytest.mark.parametrize(
    "spec, n_frames",
    [
        ("fake:squares?rolls=1&seed=2", 25),  # one throw: 1 s moving + 1.5 s still at 10 fps
        ("fake:", 50),  # default: two throws
    ],
    ids=["one roll", "defaults"],
)
def test_fake_sources(spec, n_frames):
    src = open_source(spec)
    assert isinstance(src, MemorySource)
    frames = frames_of(src)
    assert len(frames) == n_frames and frames[0].bgr.shape == (240, 320, 3)
    assert [f.index for f in frames] == list(range(n_frames))


@pytest.mark.parametrize(
    "spec, message",
    [
        ("", "no source"),
        ("ftp://x/y", "unknown source"),
        ("fake:unicorns", "unknown fake"),
        ("fake:squares?rolls=x", "must be numbers"),
        ("folder:/nonexistent/frames", "no such folder"),
        ("file:/nonexistent/roll.mp4", "no such file"),
        ("recording:/nonexistent/rolls", "no such folder"),
        ("/nonexistent/thing", "unknown source"),
    ],
    ids=["empty", "unknown scheme", "unknown fake", "bad fake option", "missing folder",
         "missing video", "missing recording", "missing path"],
)
def test_bad_source_strings_give_clear_errors(spec, message):
    with pytest.raises(DiceReaderError, match=message):
        open_source(spec)


def test_folder_source_reads_images_in_order_and_skips_a_corrupt_one(tmp_path):
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), tray([(10 + i * 10, 10)]))
    (tmp_path / "f1b.jpg").write_bytes(b"not a jpeg")
    (tmp_path / "notes.txt").write_text("ignored")
    for spec in (f"folder:{tmp_path}", str(tmp_path)):
        src = open_source(spec)
        assert isinstance(src, FolderSource)
        frames = frames_of(src)
        assert [f.origin.rsplit("/", 1)[-1] for f in frames] == ["f0.png", "f1.png", "f2.png"]
        assert src.skipped == ["f1b.jpg: not a readable image"]
        assert np.array_equal(frames[2].bgr, tray([(30, 10)]))


def test_folder_source_gives_a_phone_photo_as_stored_not_turned_by_its_exif_tag(tmp_path):
    """As `read` does: boxes are pixels of the image as stored."""
    ok, buf = cv2.imencode(".jpg", tray([(10, 10)]))
    (tmp_path / "phone.jpg").write_bytes(with_exif_orientation(buf.tobytes(), 6))
    (frame,) = frames_of(open_source(f"folder:{tmp_path}"))
    assert frame.bgr.shape == tray([(10, 10)]).shape


def test_empty_folder_is_refused(tmp_path):
    with pytest.raises(DiceReaderError, match="no .jpg/.png"):
        open_source(f"folder:{tmp_path}")


def test_video_file_source(tmp_path):
    path = tmp_path / "roll.avi"
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (160, 120))
    if not w.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for img in synthetic_tray(rolls=1, size=(120, 160)):
        w.write(img)
    w.release()
    for spec in (f"file:{path}", str(path)):
        frames = frames_of(open_source(spec))
        assert len(frames) == 25
        assert frames[3].t == pytest.approx(0.3)


def test_recording_source_chains_rolls_and_replays_triggers(tmp_path):
    make_rolls(tmp_path / "rolls", [[("d6", 1)], [("d6", 2)]])
    make_roll(tmp_path / "rolls" / "0003", [("d6", 3)], trigger_at=4)
    (tmp_path / "rolls" / "0004.partial").mkdir()  # a crashed roll: reported, not read
    src = open_source(f"recording:{tmp_path / 'rolls'}")
    assert isinstance(src, RecordingSource) and len(src.rolls) == 3
    assert src.partials == [tmp_path / "rolls" / "0004.partial"]
    frames = frames_of(src)
    assert len(frames) == 3 * 17
    ts = [f.t for f in frames]
    assert ts == sorted(ts) and len(set(ts)) == len(ts)  # time runs on across rolls
    with_trigger = [f for f in frames if f.events]
    assert len(with_trigger) == 1 and with_trigger[0].events[0]["seq"] == 7
    assert with_trigger[0].origin.endswith("0003#4")


def test_recording_source_on_one_roll_and_on_a_partial(tmp_path):
    make_roll(tmp_path / "0001", [("d8", 8)])
    assert len(frames_of(open_source(f"recording:{tmp_path / '0001'}"))) == 17
    (tmp_path / "0001").rename(tmp_path / "0002.partial")
    with pytest.raises(DiceReaderError, match="unfinished recording"):
        open_source(f"recording:{tmp_path / '0002.partial'}")


def test_recording_source_skips_a_corrupt_frame_and_says_so(tmp_path):
    roll = make_roll(tmp_path / "0001", [("d8", 8)])
    (roll / "frames" / "000005.png").write_bytes(b"garbage")
    src = open_source(f"recording:{roll}")
    assert len(frames_of(src)) == 16
    assert "frame 5" in src.frame_errors[0]


class FakeCapture:
    """Stands in for cv2.VideoCapture: gives `n` frames, then fails like an unplugged camera."""

    def __init__(self, n):
        self.n = n

    def read(self):
        if self.n <= 0:
            return False, None
        self.n -= 1
        return True, tray([(10, 10)])

    def release(self):
        pass


def test_camera_that_vanishes_is_reported_once_and_reopened_with_backoff():
    opens = iter([FakeCapture(2), None, None, FakeCapture(1)])  # works, gone, gone, back
    sleeps = []
    src = CaptureSource(0, live=True, url="camera:0", opener=lambda: next(opens),
                        sleep=sleeps.append, clock=iter(range(100)).__next__)
    items = [src.read() for _ in range(7)]
    kinds = [type(i).__name__ for i in items]
    assert kinds == ["Frame", "Frame", "SourceLost", "SourceLost", "SourceLost", "SourceBack", "Frame"]
    assert "unplugged" in items[2].reason and "still gone" in items[3].reason
    assert sleeps == [0.25, 0.5, 1.0]  # backoff doubles
    assert src.lost_count == 1


def test_camera_that_never_opens_is_a_clear_error():
    with pytest.raises(DiceReaderError, match="cannot open camera camera:7"):
        CaptureSource(7, live=True, url="camera:7", opener=lambda: None)


def test_real_camera_string_opens_v4l2_or_says_it_cannot():
    # no camera on CI: the message must name it; with a camera, a frame comes back
    try:
        src = open_source("camera:9")
    except DiceReaderError as exc:
        assert "camera:9" in str(exc)
        return
    item = src.read()
    src.close()
    assert isinstance(item, (Frame, SourceLost))


def test_memory_source_passes_status_items_through():
    src = MemorySource([tray([(1, 1)]), SourceLost("x"), SourceBack("y"), tray([(2, 2)])])
    kinds = [type(i).__name__ for i in src]
    assert kinds == ["Frame", "SourceLost", "SourceBack", "Frame"]
