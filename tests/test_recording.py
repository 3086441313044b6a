"""The recording format: written atomically, read back exactly, refused when incomplete."""

from __future__ import annotations

import errno
import json

import numpy as np
import pytest

from reader import recording
from reader.errors import DiceReaderError
from reader.reading import Box, DieReading, Face
from reader.recording import (
    FrameError,
    RecordingReader,
    RecordingWriter,
    find_partials,
    list_rolls,
    next_roll_dir,
)


def _frame(value: int, h: int = 48, w: int = 64) -> np.ndarray:
    img = np.full((h, w, 3), 40, np.uint8)
    img[10:30, 10 + value : 30 + value] = (0, 0, 255)
    return img


def _write_roll(path, n_frames=3, frame_ext=".png"):
    clock = iter(range(100)).__next__
    w = RecordingWriter(path, camera={"source": "fake:"}, rules={"procedure": "banish", "count": 1},
                        frame_ext=frame_ext, clock=lambda: float(clock()))
    for i in range(n_frames):
        w.add_frame(_frame(i))
    w.add_event("trigger", source="tower", seq=12)
    reading = DieReading("d8", Box(1, 2, 30, 40), Face(5, 0.97))
    w.add_event("reading", frame=n_frames - 1, dice=[reading])
    w.add_event("decision", kind="banish", card=5)
    w.add_event("future_kind", payload=[1, 2])
    return w


def test_roundtrip_manifest_events_and_lossless_frames(tmp_path):
    w = _write_roll(tmp_path / "0001")
    assert (tmp_path / "0001.partial").is_dir() and not (tmp_path / "0001").exists()
    final = w.close()
    assert final == tmp_path / "0001" and not (tmp_path / "0001.partial").exists()

    r = RecordingReader(final)
    assert r.manifest["format"] == "dice-reader/recording" and r.manifest["version"] == 1
    assert r.manifest["kind"] == "roll" and r.manifest["rules"] == {"procedure": "banish", "count": 1}
    assert r.manifest["created"].endswith("Z")
    assert r.frame_indices == [0, 1, 2]
    frames = list(r.frames())
    assert [i for i, _, _ in frames] == [0, 1, 2]
    assert all(t1 < t2 for (_, t1, _), (_, t2, _) in zip(frames, frames[1:]))  # time moves forward
    for i, _, img in frames:
        assert np.array_equal(img, _frame(i))  # png: exact pixels
    assert r.readings(2) == [{"die": "d8", "value": 5, "box": [1.0, 2.0, 30.0, 40.0],
                              "confidence": 0.97, "state": "flat"}]
    assert r.readings(0) == [] and r.truth(2) == []
    assert r.decisions()[0]["card"] == 5
    assert r.triggers()[0]["seq"] == 12
    # unknown event types are kept, not dropped
    assert r.of_type("future_kind")[0]["payload"] == [1, 2]


def test_jpeg_frames_are_close_to_the_original(tmp_path):
    final = _write_roll(tmp_path / "r", frame_ext=".jpg").close()
    img = RecordingReader(final).frame(1)
    assert img.shape == (48, 64, 3)
    assert np.abs(img.astype(int) - _frame(1).astype(int)).mean() < 3


def test_each_event_line_is_on_disk_before_close(tmp_path):
    w = _write_roll(tmp_path / "r")
    lines = (tmp_path / "r.partial" / "events.jsonl").read_text().splitlines()
    assert [json.loads(x)["type"] for x in lines][-3:] == ["reading", "decision", "future_kind"]
    w.close()


def test_context_manager_commits_on_success_and_keeps_partial_on_error(tmp_path):
    with RecordingWriter(tmp_path / "ok") as w:
        w.add_frame(_frame(0))
    assert RecordingReader(tmp_path / "ok").frame_indices == [0]

    with pytest.raises(RuntimeError):
        with RecordingWriter(tmp_path / "boom") as w:
            w.add_frame(_frame(0))
            raise RuntimeError("crash mid-roll")
    assert (tmp_path / "boom.partial").is_dir() and not (tmp_path / "boom").exists()


def test_crash_mid_write_leaves_a_partial_the_reader_refuses(tmp_path):
    w = _write_roll(tmp_path / "0007")
    w._release()  # the process dies here: no close(), no rename
    del w
    with pytest.raises(DiceReaderError, match="unfinished recording"):
        RecordingReader(tmp_path / "0007.partial")
    with pytest.raises(DiceReaderError, match="unfinished recording"):
        RecordingReader(tmp_path / "0007")  # asking for the roll by its final name
    assert find_partials(tmp_path) == [tmp_path / "0007.partial"]
    assert list_rolls(tmp_path) == []
    # a later roll is numbered after the partial, which is never touched
    assert next_roll_dir(tmp_path) == tmp_path / "0008"
    with pytest.raises(DiceReaderError, match="unfinished recording"):
        RecordingWriter(tmp_path / "0007")


class _DiskThatFills:
    """Stands in for os.write: accepts `quota` bytes, then fails like a full disk."""

    def __init__(self, real, quota: int):
        self.real, self.quota, self.written = real, quota, 0

    def __call__(self, fd, data):
        room = self.quota - self.written
        if room <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        n = self.real(fd, bytes(data[:room]))
        self.written += n
        return n


@pytest.mark.parametrize(
    "quota",
    [
        pytest.param(20, id="full before the manifest is written"),
        pytest.param(1500, id="full while writing a frame"),
        pytest.param(2400, id="full in the middle of an event line"),
    ],
)
def test_disk_that_fills_raises_a_clear_error_and_leaves_only_a_partial(tmp_path, monkeypatch, quota):
    monkeypatch.setattr(recording, "_os_write", _DiskThatFills(recording._os_write, quota))
    with pytest.raises(DiceReaderError, match="disk full") as info:
        w = RecordingWriter(tmp_path / "0003", frame_ext=".png")
        for i in range(50):
            w.add_frame(_frame(i % 10))
            w.add_event("note", text="x" * 100)
        w.close()
    assert "roll was not saved" in str(info.value)
    assert not (tmp_path / "0003").exists()
    assert (tmp_path / "0003.partial").is_dir()
    assert list_rolls(tmp_path) == []
    with pytest.raises(DiceReaderError, match="unfinished"):
        RecordingReader(tmp_path / "0003")


def test_writer_refuses_after_disk_full_and_keeps_earlier_rolls(tmp_path, monkeypatch):
    _write_roll(tmp_path / "0001").close()
    disk = _DiskThatFills(recording._os_write, 10**9)
    monkeypatch.setattr(recording, "_os_write", disk)
    w = RecordingWriter(tmp_path / "0002")
    disk.quota = disk.written  # the disk is now full
    with pytest.raises(DiceReaderError, match="disk full"):
        w.add_frame(_frame(0))
    with pytest.raises(DiceReaderError, match="stopped earlier"):
        w.add_event("note", text="after")
    with pytest.raises(DiceReaderError, match="stopped earlier"):
        w.close()
    assert RecordingReader(tmp_path / "0001").frame_indices == [0, 1, 2]  # nothing recorded is lost


def test_corrupt_frame_is_an_error_for_that_frame_only(tmp_path):
    final = _write_roll(tmp_path / "r").close()
    (final / "frames" / "000001.png").write_bytes(b"\x89PNG garbage")
    r = RecordingReader(final)
    with pytest.raises(FrameError, match="frame 1"):
        r.frame(1)
    assert r.frame(0).shape == (48, 64, 3)
    got = [i for i, _, _ in r.frames(errors="skip")]
    assert got == [0, 2] and len(r.frame_errors) == 1
    (final / "frames" / "000002.png").unlink()
    with pytest.raises(FrameError, match="frame 2"):
        r.frame(2)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: (d / "manifest.json").unlink(), "no manifest"),  # not a recording
        (lambda d: (d / "manifest.json").write_text('{"format": "other"}'), "not a dice-reader"),
        (lambda d: (d / "manifest.json").write_text(
            '{"format": "dice-reader/recording", "version": 99}'), "version 99"),  # from the future
        (lambda d: (d / "events.jsonl").write_text('{"t": 0, "type": "frame"}\n{"t": 1, "ty'),
         "line 2"),  # truncated event line
        (lambda d: (d / "events.jsonl").write_text('{"type": "note"}\n'), "needs 't'"),
        (lambda d: (d / "events.jsonl").unlink(), "no events.jsonl"),
    ],
    ids=["no manifest", "foreign format", "newer version", "truncated events", "event without t",
         "no events"],
)
def test_reader_refuses_damaged_recordings_with_a_clear_message(tmp_path, mutate, message):
    final = _write_roll(tmp_path / "r").close()
    mutate(final)
    with pytest.raises(DiceReaderError, match=message):
        RecordingReader(final)


def test_never_overwrites_an_existing_roll(tmp_path):
    _write_roll(tmp_path / "0001").close()
    with pytest.raises(DiceReaderError, match="never overwritten"):
        RecordingWriter(tmp_path / "0001")
    assert next_roll_dir(tmp_path) == tmp_path / "0002"


def test_set_manifest_updates_rules_before_close(tmp_path):
    w = RecordingWriter(tmp_path / "r")
    w.set_manifest(rules={"procedure": "first-player", "players": ["A", "B"]})
    w.close()
    assert RecordingReader(tmp_path / "r").manifest["rules"]["players"] == ["A", "B"]
