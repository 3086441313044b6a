"""Frame sources, chosen by a URL-like string the way pyserial chooses a transport.

    camera:0, 0, /dev/video2        a local camera (cv2.VideoCapture, V4L2 on Linux)
    http://..., https://..., rtsp://...  a network stream
    file:roll.mp4 (or a path to a video file)
    folder:frames/ (or a folder of .jpg/.png images)
    recording:rolls/0007/           one recorded roll, or a folder of rolls (rolls/0001, 0002...)
    fake:squares?rolls=2&seed=1     a synthetic tray (coloured squares thrown, then still)

`open_source(spec)` returns a `FrameSource`; `read()` gives a `Frame`, a `SourceLost` /
`SourceBack` status, or None at the end of a finite source. A live source that fails (camera
unplugged, stream dropped) reports `SourceLost` once and is reopened with backoff; the loop never
reads a frame as dice while the source is lost. Recordings also replay their tower triggers
(`Frame.events`), so a recorded roll goes through the loop exactly as it was lived.
"""

from __future__ import annotations

import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Union
from urllib.parse import parse_qs

import numpy as np

from reader.camera_settings import apply_settings, pixel_format_asked, pixel_format_of
from reader.errors import DiceReaderError
from reader.imagefile import ImageError, load_image

IMAGE_EXTS = (".jpg", ".jpeg", ".png", ".bmp")
VIDEO_EXTS = (".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v")


@dataclass
class Frame:
    """One image with its time in seconds (source clock) and side-band events (recorded triggers)."""

    index: int
    t: float
    bgr: np.ndarray
    events: list[dict] = field(default_factory=list)
    origin: str = ""  # where it came from: "rolls/0007#12", "frames/x.jpg"...
    cut: bool = False  # first frame of another recording: what came before is not this scene


@dataclass(frozen=True)
class SourceLost:
    reason: str


@dataclass(frozen=True)
class SourceBack:
    description: str


Item = Union[Frame, SourceLost, SourceBack, None]


class FrameSource:
    """Base: `read()` -> Item. `live` sources run in real time and never end on their own."""

    live = False
    url = ""

    def read(self) -> Item:  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self) -> dict:
        return {"source": self.url}

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __iter__(self) -> Iterator[Item]:
        while True:
            item = self.read()
            if item is None:
                return
            yield item


# -- in-memory and synthetic ---------------------------------------------------------------------

class MemorySource(FrameSource):
    """Frames from a list (tests): each item an ndarray, a Frame, or a SourceLost/SourceBack."""

    def __init__(self, items: Iterable, fps: float = 10.0, url: str = "memory:") -> None:
        self._items = iter(items)
        self.fps = fps
        self.url = url
        self._index = 0

    def read(self) -> Item:
        item = next(self._items, None)
        if item is None or isinstance(item, (SourceLost, SourceBack, Frame)):
            return item
        frame = Frame(self._index, self._index / self.fps, item, origin=f"{self.url}#{self._index}")
        self._index += 1
        return frame


def synthetic_tray(rolls: int = 2, seed: int = 0, fps: float = 10.0, size=(240, 320),
                   moving_s: float = 1.0, still_s: float = 1.5, dice: int = 2) -> list[np.ndarray]:
    """A tray seen from above: `dice` coloured squares tumble for `moving_s`, then lie still for
    `still_s`, `rolls` times. Deterministic from `seed`; for tests and demos without a camera."""
    rng = np.random.default_rng(seed)
    h, w = size
    colors = [(40, 40, 220), (220, 200, 40), (40, 200, 40), (200, 40, 200)]
    frames = []
    pos = rng.uniform([20, 20], [w - 60, h - 60], size=(dice, 2))
    for _ in range(rolls):
        vel = rng.uniform(-25, 25, size=(dice, 2))
        for i in range(int(moving_s * fps) + int(still_s * fps)):
            if i < moving_s * fps:
                pos = np.clip(pos + vel, 10, [w - 50, h - 50])
            img = np.full((h, w, 3), (60, 90, 60), np.uint8)
            for k, (x, y) in enumerate(pos):
                img[int(y):int(y) + 36, int(x):int(x) + 36] = colors[k % len(colors)]
            frames.append(img)
    return frames


# -- files ---------------------------------------------------------------------------------------

class FolderSource(FrameSource):
    """Image files of a folder in name order, at a nominal `fps`."""

    def __init__(self, folder: str | os.PathLike, fps: float = 10.0) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise DiceReaderError(f"folder source {self.folder}: no such folder")
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_EXTS)
        if not self.files:
            raise DiceReaderError(f"folder source {self.folder}: no .jpg/.png images in it")
        self.fps = fps
        self.url = f"folder:{self.folder}"
        self._i = 0
        self.skipped: list[str] = []

    def read(self) -> Item:
        while self._i < len(self.files):
            i, f = self._i, self.files[self._i]
            self._i += 1
            try:
                img = load_image(f)
            except ImageError:
                self.skipped.append(f"{f.name}: not a readable image")
                continue
            return Frame(i, i / self.fps, img, origin=str(f))
        return None


class RecordingSource(FrameSource):
    """The frames of one roll, or of every roll in a session folder, with their recorded tower
    triggers. Time runs on across rolls (each roll starts after the previous one's end)."""

    def __init__(self, path: str | os.PathLike) -> None:
        from reader.recording import RecordingReader, find_partials, is_recording, list_rolls

        p = Path(path)
        if not p.exists():
            raise DiceReaderError(f"recording source {p}: no such folder")
        if is_recording(p) or p.name.endswith(".partial"):
            self.rolls = [RecordingReader(p)]
        else:
            rolls = list_rolls(p)
            if not rolls:
                raise DiceReaderError(f"recording source {p}: no recorded rolls in it")
            self.rolls = [RecordingReader(r) for r in rolls]
        self.partials = find_partials(p) if not is_recording(p) else []
        self.url = f"recording:{p}"
        self.frame_errors: list[str] = []
        self._gen = self._frames()

    def describe(self) -> dict:
        cam = dict(self.rolls[0].manifest.get("camera") or {})
        return {"source": self.url, "recorded_camera": cam}

    def _frames(self) -> Iterator[Frame]:
        from reader.recording import FrameError

        offset, n = 0.0, 0
        for k, roll in enumerate(self.rolls):
            first = k > 0
            pending = sorted((e for e in roll.events if e.get("type") == "trigger"),
                             key=lambda e: e["t"])
            last_t = 0.0
            for index in roll.frame_indices:
                t = roll.frame_time(index)
                events = [dict(e, t=e["t"] + offset) for e in pending if e["t"] <= t]
                pending = [e for e in pending if e["t"] > t]
                try:
                    img = roll.frame(index)
                except FrameError as exc:
                    self.frame_errors.append(str(exc))
                    continue
                yield Frame(n, t + offset, img, events, origin=f"{roll.path}#{index}", cut=first)
                first = False
                n += 1
                last_t = t
            offset += last_t + 1.0  # a second of nothing between rolls

    def read(self) -> Item:
        return next(self._gen, None)


# -- OpenCV captures (camera, stream, video file) -----------------------------------------------

class CaptureSource(FrameSource):
    """cv2.VideoCapture on a camera index, device path, stream URL or video file.

    Live sources (camera, stream) are reopened after a failure with backoff; a video file ends.
    """

    def __init__(self, target: int | str, *, live: bool, url: str, width: int | None = None,
                 height: int | None = None, fps: float | None = None, exposure: float | None = None,
                 white_balance: float | None = None, pixel_format: str | None = None,
                 opener: Callable | None = None,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
                 backoff_max_s: float = 5.0) -> None:
        self.target = target
        self.live = live
        self.url = url
        self.settings = {"width": width, "height": height, "fps": fps, "exposure": exposure,
                         "white_balance": white_balance, "pixel_format": pixel_format_asked(pixel_format)}
        self._opener = opener or self._cv_open
        self._clock = clock
        self._sleep = sleep
        self._cap = None
        self._index = 0
        self._lost = False
        self._backoff = 0.25
        self._backoff_max = backoff_max_s
        self._file_fps = 10.0
        self.lost_count = 0
        self._cap = self._open_or_raise()

    def describe(self) -> dict:
        out = {"source": self.url}
        out.update({k: v for k, v in self.settings.items() if v is not None})
        if self._cap is not None:
            try:
                import cv2

                out["width"] = int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH)) or out.get("width")
                out["height"] = int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT)) or out.get("height")
                if self.live and (given := pixel_format_of(self._cap)):
                    out["pixel_format"] = given  # evidence: was the stream compressed (MJPG) or not
            except Exception:
                pass
        return out

    def _cv_open(self):
        import cv2

        if isinstance(self.target, int) or str(self.target).startswith("/dev/video"):
            dev = f"/dev/video{self.target}" if isinstance(self.target, int) else str(self.target)
            if sys.platform.startswith("linux") and not os.path.exists(dev):
                return None  # unplugged: say so without OpenCV's warnings on stderr
            cap = cv2.VideoCapture(self.target, cv2.CAP_V4L2)
        else:
            cap = cv2.VideoCapture(self.target)
        if not cap.isOpened():
            cap.release()
            return None
        apply_settings(cap, self.settings, self.live)
        if not self.live:
            self._file_fps = cap.get(cv2.CAP_PROP_FPS) or 10.0
        return cap

    def _open_or_raise(self):
        cap = self._opener()
        if cap is None:
            what = "camera" if self.live and not str(self.target).startswith(("http", "rtsp")) else "source"
            raise DiceReaderError(f"cannot open {what} {self.url}: not found, busy or not a video")
        asked = self.settings["pixel_format"]
        if asked and (given := pixel_format_of(cap)) != asked:
            # a driver that cannot give the format at this size and rate falls back to another
            # silently: the operator asked for it to keep JPEG off the dice, so say so at the start
            cap.release()
            raise DiceReaderError(
                f"{self.url} gives {given or 'frames of an unknown format'}, not the {asked} asked for: the "
                f"camera cannot deliver {asked} at this size and frame rate; lower --width/--height/--fps "
                "or leave --pixel-format out")
        return cap

    def read(self) -> Item:
        if self._lost:
            return self._reopen()
        ok, img = (False, None)
        try:
            ok, img = self._cap.read()
        except Exception:  # a driver error is a lost camera, not a crash
            ok = False
        if ok and img is not None and img.size:
            t = self._clock() if self.live else self._index / self._file_fps
            frame = Frame(self._index, t, img, origin=f"{self.url}#{self._index}")
            self._index += 1
            return frame
        if not self.live:
            return None  # end of the video file
        self._release()
        self._lost = True
        self.lost_count += 1
        self._backoff = 0.25
        return SourceLost(f"camera {self.url} stopped giving frames (unplugged?); reopening")

    def _reopen(self) -> Item:
        self._sleep(self._backoff)
        self._backoff = min(self._backoff * 2, self._backoff_max)
        cap = self._opener()
        if cap is None:
            return self.read_again_later()
        self._cap = cap
        self._lost = False
        return SourceBack(f"camera {self.url} is back")

    def read_again_later(self) -> Item:
        """Still lost: the loop gets the same status again (it keeps its own clock running)."""
        return SourceLost(f"camera {self.url} is still gone; retrying every {self._backoff:.1f} s")

    def _release(self) -> None:
        if self._cap is not None:
            try:
                self._cap.release()
            except Exception:
                pass
            self._cap = None

    def close(self) -> None:
        self._release()


# -- the parser ----------------------------------------------------------------------------------

def _fake(rest: str) -> FrameSource:
    name, _, query = rest.partition("?")
    if name not in ("", "squares"):
        raise DiceReaderError(f"unknown fake source {name!r}; try fake:squares?rolls=2&seed=1")
    q = {k: v[-1] for k, v in parse_qs(query).items()}
    try:
        rolls, seed = int(q.get("rolls", 2)), int(q.get("seed", 0))
        fps = float(q.get("fps", 10))
    except ValueError:
        raise DiceReaderError(f"fake source options must be numbers: {query!r}") from None
    return MemorySource(synthetic_tray(rolls=rolls, seed=seed, fps=fps), fps=fps, url=f"fake:{rest}")


def open_source(spec: str, **camera_options) -> FrameSource:
    """The FrameSource a string names (see module doc); a bad string is a DiceReaderError."""
    spec = str(spec).strip()
    if not spec:
        raise DiceReaderError("no source given; e.g. camera:0, file:roll.mp4, recording:rolls/")
    scheme, sep, rest = spec.partition(":")
    scheme = scheme.lower() if sep else ""
    if scheme == "camera" or re.fullmatch(r"\d+", spec):
        target = rest if scheme == "camera" else spec
        dev: int | str = int(target) if re.fullmatch(r"\d+", target) else target
        return CaptureSource(dev, live=True, url=f"camera:{target}", **camera_options)
    if spec.startswith("/dev/video"):
        return CaptureSource(spec, live=True, url=spec, **camera_options)
    if scheme in ("http", "https", "rtsp", "rtmp"):
        return CaptureSource(spec, live=True, url=spec, **camera_options)
    if scheme == "fake":
        return _fake(rest)
    if scheme == "recording":
        return RecordingSource(rest)
    if scheme == "folder":
        return FolderSource(rest, fps=camera_options.get("fps") or 10.0)
    if scheme == "file":
        if not Path(rest).is_file():
            raise DiceReaderError(f"video file {rest}: no such file")
        return CaptureSource(rest, live=False, url=spec)
    # a bare path: guess from what is there
    p = Path(spec)
    if p.is_dir():
        from reader.recording import is_recording, list_rolls

        if is_recording(p) or list_rolls(p):
            return RecordingSource(p)
        return FolderSource(p, fps=camera_options.get("fps") or 10.0)
    if p.is_file() and p.suffix.lower() in VIDEO_EXTS:
        return CaptureSource(str(p), live=False, url=f"file:{p}")
    raise DiceReaderError(
        f"unknown source {spec!r}; use camera:0, /dev/videoN, http(s)://, rtsp://, file:VIDEO, "
        "folder:DIR, recording:ROLL_OR_DIR or fake:squares"
    )
