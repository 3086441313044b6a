"""One recorded roll on disk: frames, a manifest and an event log, written atomically.

A roll is evidence (a judge may be asked why card 3 was banished), so a roll folder either holds
a complete recording or does not exist. `RecordingWriter` writes into `ROLL_DIR.partial/`, appends
each event as one flushed line, and only `close()` fsyncs everything and renames the folder to
`ROLL_DIR`. A crash or a full disk leaves the `.partial` folder, which `RecordingReader` refuses
and which `find_partials()` lets a later run report; nothing here ever deletes one.

Format (the contract shared by the live loop, the renderer, replay and the web views):

    ROLL_DIR/manifest.json   {"format": "dice-reader/recording", "version": 1, "created", "kind",
                              "camera", "tray", "software", "rules"}
    ROLL_DIR/frames/000000.jpg (or .png)
    ROLL_DIR/events.jsonl    one JSON object per line with "t" (seconds) and "type"

Event types: "frame" {index, file}; "motion" {frame}; "baseline" {frame: the tray before the
throw, kept losslessly}; "trigger" {source, seq, count}; "settled" {frame, still_s, latency_s};
"reading" {frame, dice, unmoved?: dice that were there before the throw, not counted, camera?: the
set-up read with, the manifest's camera.view and camera.guessed};
"decision" (a rules event's JSON); "note" {text}; from the renderer "truth" {frame, dice} and
"expected" {decisions}. Unknown event types are kept and ignored (forward compatible).
"""

from __future__ import annotations

import datetime as _dt
import errno
import json
import math
import os
import re
import time
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from reader.errors import DiceReaderError

FORMAT = "dice-reader/recording"
VERSION = 1
KINDS = ("roll", "stills")
PARTIAL_SUFFIX = ".partial"
FRAME_EXTS = (".jpg", ".png")
JPEG_QUALITY = 95

# Every byte written goes through this, so that tests can simulate a disk that fills up.
_os_write = os.write

_FULL_DISK_ERRNOS = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}


class RecordingError(DiceReaderError):
    """A recording cannot be written or read; the message names the folder and what to do."""


class FrameError(RecordingError):
    """One frame of a recording is missing or corrupt; the other frames are still readable."""


def _version() -> str:
    try:
        from reader import __version__

        return __version__
    except Exception:  # pragma: no cover - the package always has one
        return "unknown"


def _utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _json_default(obj):
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    to_json = getattr(obj, "to_json", None)
    if callable(to_json):
        return to_json()
    raise TypeError(f"cannot record a {type(obj).__name__} in an event")


def _dumps(obj) -> str:
    return json.dumps(obj, default=_json_default, separators=(",", ":"), ensure_ascii=False)


def partial_path(roll_dir: str | os.PathLike) -> Path:
    p = Path(roll_dir)
    return p.with_name(p.name + PARTIAL_SUFFIX)


def find_partials(folder: str | os.PathLike) -> list[Path]:
    """`.partial` roll folders left in `folder` by a crash or a full disk (to report, never delete)."""
    root = Path(folder)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and p.name.endswith(PARTIAL_SUFFIX))


def list_rolls(folder: str | os.PathLike) -> list[Path]:
    """Complete roll folders (with a manifest) in a session folder, in name order."""
    root = Path(folder)
    if not root.is_dir():
        return []
    return sorted(
        p for p in root.iterdir()
        if p.is_dir() and not p.name.endswith(PARTIAL_SUFFIX) and (p / "manifest.json").is_file()
    )


def is_recording(path: str | os.PathLike) -> bool:
    """True if `path` is one roll folder (complete or not), false for a folder of rolls."""
    p = Path(path)
    return (p / "manifest.json").is_file() or (p / "events.jsonl").is_file()


def next_roll_dir(folder: str | os.PathLike) -> Path:
    """The next free `folder/NNNN` (a number after every roll and partial already there)."""
    root = Path(folder)
    highest = 0
    if root.is_dir():
        for p in root.iterdir():
            m = re.fullmatch(r"(\d+)(?:\.partial)?", p.name)
            if m:
                highest = max(highest, int(m.group(1)))
    return root / f"{highest + 1:04d}"


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - some filesystems refuse to open directories
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


class RecordingWriter:
    """Writes one roll into `ROLL_DIR.partial/`; `close()` makes it `ROLL_DIR`, atomically.

    Use as a context manager: leaving the block normally closes (commits) the roll, an exception
    leaves the `.partial` folder in place, as a crash would.
    """

    def __init__(
        self,
        roll_dir: str | os.PathLike,
        *,
        kind: str = "roll",
        camera: dict | None = None,
        tray: dict | None = None,
        rules: dict | None = None,
        models: dict | None = None,
        frame_ext: str = ".jpg",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"recording kind must be one of {KINDS}, not {kind!r}")
        if frame_ext not in FRAME_EXTS:
            raise ValueError(f"frame format must be one of {FRAME_EXTS}, not {frame_ext!r}")
        self.final_dir = Path(roll_dir)
        self.partial_dir = partial_path(self.final_dir)
        self.frame_ext = frame_ext
        self._clock = clock
        self._t0 = clock()
        self._next_index = 0
        self._events_fd: int | None = None
        self._failed: str | None = None
        self._closed = False
        self.manifest = {
            "format": FORMAT,
            "version": VERSION,
            "created": _utc_now(),
            "kind": kind,
            "camera": dict(camera or {}),
            "tray": dict(tray or {}),
            "software": {"dice_reader": _version(), "models": dict(models or {})},
            "rules": rules,
        }
        if self.final_dir.exists():
            raise RecordingError(f"{self.final_dir} already exists; a recording is never overwritten")
        if self.partial_dir.exists():
            raise RecordingError(
                f"{self.partial_dir} is left from an unfinished recording (crash or full disk); "
                "look at it or move it away before recording there again"
            )
        try:
            self.partial_dir.parent.mkdir(parents=True, exist_ok=True)
            self.partial_dir.mkdir()
            (self.partial_dir / "frames").mkdir()
            self._write_manifest()
            self._events_fd = os.open(
                self.partial_dir / "events.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644
            )
        except OSError as exc:
            self._fail(exc, "starting the recording")

    # -- public API -----------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.final_dir.name

    @property
    def frame_count(self) -> int:
        return self._next_index

    def elapsed(self) -> float:
        return self._clock() - self._t0

    def add_frame(self, bgr: np.ndarray, t: float | None = None, ext: str | None = None) -> int:
        """Encode and write one frame, log its `frame` event, return its index."""
        ext = ext or self.frame_ext
        if ext not in FRAME_EXTS:
            raise ValueError(f"frame format must be one of {FRAME_EXTS}, not {ext!r}")
        self._check_open()
        import cv2

        params = [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY] if ext == ".jpg" else []
        ok, buf = cv2.imencode(ext, bgr, params)
        if not ok:
            raise RecordingError(f"could not encode frame {self._next_index} as {ext}")
        index = self._next_index
        rel = f"frames/{index:06d}{ext}"
        try:
            fd = os.open(self.partial_dir / rel, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                self._write_all(fd, buf.tobytes())
            finally:
                os.close(fd)
        except OSError as exc:
            self._fail(exc, f"writing frame {index}")
        self._next_index += 1
        self.add_event("frame", t=t, index=index, file=rel)
        return index

    def add_event(self, type: str, t: float | None = None, **fields) -> dict:
        """Append one event line (flushed to the OS at once) and return the event as written."""
        event = {"t": round(self.elapsed() if t is None else float(t), 4), "type": type}
        event.update(fields)
        self.write_event(event)
        return event

    def write_event(self, event: dict) -> None:
        """Append an already built event dict (it must have "t" and "type")."""
        if "type" not in event or "t" not in event:
            raise ValueError(f"an event needs 't' and 'type': {event!r}")
        self._check_open()
        line = (_dumps(event) + "\n").encode("utf-8")
        try:
            self._write_all(self._events_fd, line)
        except OSError as exc:
            self._fail(exc, f"writing a {event['type']} event")

    def set_manifest(self, **fields) -> None:
        """Change manifest fields (rules, camera...) before close; rewritten atomically."""
        self._check_open()
        self.manifest.update(fields)
        try:
            self._write_manifest()
        except OSError as exc:
            self._fail(exc, "updating the manifest")

    def close(self) -> Path:
        """fsync frames, events and manifest, then rename `.partial` to the final folder."""
        if self._closed:
            return self.final_dir
        self._check_open()
        try:
            self._write_manifest()
            os.fsync(self._events_fd)
            os.close(self._events_fd)
            self._events_fd = None
            frames = self.partial_dir / "frames"
            for f in frames.iterdir():
                fd = os.open(f, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            _fsync_dir(frames)
            _fsync_dir(self.partial_dir)
            if self.final_dir.exists():
                raise RecordingError(f"{self.final_dir} appeared while recording; kept {self.partial_dir}")
            os.rename(self.partial_dir, self.final_dir)
            _fsync_dir(self.final_dir.parent)
        except OSError as exc:
            self._fail(exc, "finishing the recording")
        self._closed = True
        return self.final_dir

    def abandon(self, reason: str = "") -> Path:
        """Stop writing and keep the `.partial` folder (a roll that must not count); return it."""
        if self._events_fd is not None and self._failed is None and reason:
            try:
                self.add_event("note", text=f"abandoned: {reason}")
            except DiceReaderError:
                pass
        self._release()
        self._failed = self._failed or f"abandoned: {reason or 'no reason given'}"
        return self.partial_dir

    def __enter__(self) -> "RecordingWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self._release()

    # -- internals ------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise RecordingError(f"recording {self.final_dir} is already closed")
        if self._failed:
            raise RecordingError(
                f"recording {self.final_dir} stopped earlier ({self._failed}); "
                f"what was written is kept in {self.partial_dir}"
            )

    def _write_manifest(self) -> None:
        tmp = self.partial_dir / "manifest.json.tmp"
        data = (json.dumps(self.manifest, default=_json_default, indent=2) + "\n").encode("utf-8")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            self._write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.partial_dir / "manifest.json")

    @staticmethod
    def _write_all(fd: int, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = _os_write(fd, view)
            view = view[n:]

    def _release(self) -> None:
        if self._events_fd is not None:
            try:
                os.close(self._events_fd)
            except OSError:  # pragma: no cover
                pass
            self._events_fd = None

    def _fail(self, exc: OSError, doing: str):
        self._release()
        if exc.errno in _FULL_DISK_ERRNOS:
            self._failed = "disk full"
            raise RecordingError(
                f"disk full while {doing} in {self.partial_dir}: the roll was not saved "
                f"(its partial data stays in {self.partial_dir.name} and will not load as a roll); "
                "free some space and roll again"
            ) from exc
        self._failed = f"{exc.strerror or exc}"
        raise RecordingError(
            f"cannot write recording {self.partial_dir} while {doing}: {exc.strerror or exc}; "
            "the roll was not saved"
        ) from exc


class RecordingReader:
    """Reads one complete roll folder; refuses `.partial` folders and foreign formats."""

    def __init__(self, path: str | os.PathLike) -> None:
        p = Path(path)
        if p.name.endswith(PARTIAL_SUFFIX) or (not p.exists() and partial_path(p).exists()):
            shown = p if p.name.endswith(PARTIAL_SUFFIX) else partial_path(p)
            raise RecordingError(
                f"{shown} is an unfinished recording (the writer crashed or the disk filled); "
                "it is not a valid roll and is not read"
            )
        if not p.is_dir():
            raise RecordingError(f"no recording at {p}: not a folder")
        manifest_file = p / "manifest.json"
        if not manifest_file.is_file():
            raise RecordingError(f"{p} is not a recording: it has no manifest.json")
        try:
            manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RecordingError(f"{manifest_file} cannot be read: {exc}") from exc
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise RecordingError(f"{p} is not a dice-reader recording (format {manifest.get('format')!r})"
                                 if isinstance(manifest, dict) else f"{manifest_file} is not an object")
        version = manifest.get("version")
        if not isinstance(version, int) or version > VERSION or version < 1:
            raise RecordingError(
                f"{p} is recording format version {version!r}; this dice-reader reads up to {VERSION}"
            )
        self.path = p
        self.manifest: dict = manifest
        self.events: list[dict] = self._read_events(p / "events.jsonl")
        self._frame_events = {
            int(e["index"]): e for e in self.events if e.get("type") == "frame" and "index" in e
        }

    @staticmethod
    def _read_events(path: Path) -> list[dict]:
        if not path.is_file():
            raise RecordingError(f"{path.parent} is not a complete recording: it has no events.jsonl")
        events = []
        with open(path, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    event = json.loads(line)
                except ValueError as exc:
                    raise RecordingError(f"{path}, line {lineno}: not JSON ({exc})") from exc
                if not isinstance(event, dict) or "type" not in event or "t" not in event:
                    raise RecordingError(f"{path}, line {lineno}: an event needs 't' and 'type'")
                t = event["t"]
                if not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t):
                    raise RecordingError(f"{path}, line {lineno}: 't' must be a number of seconds")
                events.append(event)
        return events

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def kind(self) -> str:
        return self.manifest.get("kind", "roll")

    @property
    def frame_indices(self) -> list[int]:
        return sorted(self._frame_events)

    def frame_time(self, index: int) -> float:
        return float(self._frame_events[index]["t"])

    def frame(self, index: int) -> np.ndarray:
        """The BGR image of frame `index`; a missing or corrupt file raises FrameError."""
        event = self._frame_events.get(index)
        if event is None:
            raise FrameError(f"{self.path} has no frame {index}")
        rel = event.get("file") or f"frames/{index:06d}.jpg"
        f = (self.path / rel).resolve()
        if self.path.resolve() not in f.parents:
            raise FrameError(f"{self.path}: frame {index} points outside the recording ({rel})")
        try:
            data = np.fromfile(f, dtype=np.uint8)
        except OSError as exc:
            raise FrameError(f"{self.path}: frame {index} ({rel}) cannot be read: {exc.strerror}") from exc
        import cv2

        img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
        if img is None:
            raise FrameError(f"{self.path}: frame {index} ({rel}) is corrupt or not an image")
        return img

    def frames(self, errors: str = "raise") -> Iterator[tuple[int, float, np.ndarray]]:
        """(index, t, bgr) for every frame in order. errors="skip" passes over bad frames and
        lists them in `.frame_errors`; "raise" stops at the first with a FrameError."""
        if errors not in ("raise", "skip"):
            raise ValueError("errors must be 'raise' or 'skip'")
        self.frame_errors: list[FrameError] = []
        for index in self.frame_indices:
            try:
                img = self.frame(index)
            except FrameError as exc:
                if errors == "raise":
                    raise
                self.frame_errors.append(exc)
                continue
            yield index, self.frame_time(index), img

    def _per_frame(self, type_: str, index: int) -> list[dict]:
        found = None
        for e in self.events:
            if e.get("type") == type_ and e.get("frame") == index:
                found = e
        return list(found.get("dice", [])) if found else []

    def truth(self, index: int) -> list[dict]:
        """Ground-truth dice recorded for frame `index` (renderer), [] if none."""
        return self._per_frame("truth", index)

    def readings(self, index: int) -> list[dict]:
        """The readings recorded for frame `index`, [] if none."""
        return self._per_frame("reading", index)

    def of_type(self, type_: str) -> list[dict]:
        return [e for e in self.events if e.get("type") == type_]

    def decisions(self) -> list[dict]:
        return self.of_type("decision")

    def settled(self) -> list[dict]:
        return self.of_type("settled")

    def triggers(self) -> list[dict]:
        return self.of_type("trigger")
