"""The live loop: frames in, rolls read, decided and recorded, events out.

    source -> settle detector (+ tower triggers) -> recognizer on the settled frame -> rules
           -> RecordingWriter (one folder per roll) -> on_event / on_frame callbacks

Each roll is recorded from a few frames before motion to the settled frame (written losslessly,
so that replay reads exactly the pixels the live loop read), with its trigger, readings and
decisions. Dice that were in the tray before the throw (reader.unmoved) are recorded, not
counted. A camera lost mid-roll ends that roll as a complete recording with no reading (the
dice are rolled again) and nothing is read until the camera is back; a full disk stops the loop
with a clear message and leaves only a `.partial` folder. Event shapes: reader/recording.py.
"""

from __future__ import annotations

import collections
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from reader.decide import NoRules
from reader.errors import DiceReaderError
from reader.guessed_camera import GuessedCamera
from reader.reading import DieReading
from reader.recording import RecordingError, RecordingWriter, next_roll_dir
from reader.settle import Motion, NotARoll, SettleConfig, SettleDetector, Settled, small_view
from reader.sources import Frame, FrameSource, SourceBack, SourceLost
from reader.unmoved import split_unmoved
from reader.vision import legible, lone_dot, percentile

# Dice refused for what a roll again cannot mend, the camera's set-up or the die itself: each told to
# the table once, at the first roll with such a die (which refusal -> what to say), in that roll's recording.
SETUP_NOTES = {"small": (legible.refused_for_size, legible.setup_note),
               "lone dot": (lone_dot.refused_as_lone_dot, lone_dot.setup_note),
               "percentile": (percentile.refused_as_percentile, percentile.setup_note)}

EventSink = Callable[[dict], None]
FrameSink = Callable[[int, np.ndarray, "list[DieReading] | None"], None]


@dataclass
class LoopConfig:
    out_dir: Path = Path("rolls")
    settle: SettleConfig = field(default_factory=SettleConfig)
    max_rolls: int | None = None  # stop after this many rolls read (None: until the source ends)
    pre_roll_frames: int = 3  # frames before motion kept in the roll
    record_every_s: float = 0.2  # at most one moving frame per this many seconds is written
    max_roll_s: float = 30.0  # a roll that never settles is not a roll
    realtime: bool = False  # pace a finite source at its recorded speed (tower tests, demos)
    warn_every_s: float = 5.0  # tower line problems are summarised at most this often
    # after a roll is read, lower the motion check's thresholds to the dice this camera shows, when
    # they are small in the frame (reader.settle.for_dice); never raised above `settle`'s
    scale_motion_to_dice: bool = True
    # no camera described: guess its set-up from the dice of every roll so far (reader.guessed_camera)
    guess_camera: bool = False


@dataclass
class RollResult:
    roll: str
    path: Path | None
    readings: list[dict]
    decisions: list[dict]
    outcome: str  # "read", "camera lost", "not a roll", "source ended"
    latency_s: float | None = None


@dataclass
class LoopSummary:
    rolls: list[RollResult] = field(default_factory=list)
    frames: int = 0
    camera_losses: int = 0
    tower_losses: int = 0
    tower_problems: dict = field(default_factory=dict)
    not_a_roll: int = 0
    stopped_because: str = ""


class _Roll:
    """The roll being recorded."""

    def __init__(self, writer: RecordingWriter, t0: float, triggered: bool) -> None:
        self.writer = writer
        self.t0 = t0
        self.triggered = triggered
        self.last_written_t = -1e9
        self.baseline: np.ndarray | None = None  # the tray before the roll (reader.unmoved)

    def t(self, t: float) -> float:
        return max(0.0, t - self.t0)


class LiveLoop:
    def __init__(self, source: FrameSource, recognizer, decider=None, config: LoopConfig | None = None,
                 tower=None, on_event: EventSink | None = None, on_frame: FrameSink | None = None,
                 clock: Callable[[], float] = time.monotonic, models: dict | None = None) -> None:
        self.source = source
        self.recognizer = recognizer
        self.decider = decider or NoRules()
        self.config = config or LoopConfig()
        self.tower = tower
        self.on_event = on_event or (lambda e: None)
        self.on_frame = on_frame
        self.clock = clock
        self.models = models or {}
        self.settle = SettleDetector(self.config.settle)
        self.summary = LoopSummary()
        self._recent: collections.deque[Frame] = collections.deque(maxlen=max(1, self.config.pre_roll_frames))
        self._roll: _Roll | None = None
        self._camera_lost = False
        self._tower_lost = False
        self._t0 = clock()
        self._last_frame_t = 0.0
        self._pending_problems: dict[str, int] = {}
        self._last_warn = -1e9
        self._pace_start: tuple[float, float] | None = None
        self._stop_requested = False
        self._guessed = GuessedCamera() if self.config.guess_camera else None
        self._told: set[str] = set()  # the set-up notes given (SETUP_NOTES), each once

    # -- events ---------------------------------------------------------------------------------

    def _emit(self, event: dict) -> dict:
        event.setdefault("t", round(self.clock() - self._t0, 4))
        self.on_event(event)
        return event

    def _record(self, type_: str, t: float, **fields) -> dict:
        """An event that belongs to the roll being recorded: written, then emitted with "roll"."""
        roll = self._roll
        ev = roll.writer.add_event(type_, t=roll.t(t), **fields)
        out = dict(ev, roll=roll.writer.name)
        self.on_event(out)
        return out

    # -- main loop ------------------------------------------------------------------------------

    def run(self) -> LoopSummary:
        try:
            while True:
                if self._should_stop():
                    break
                self._poll_tower(self._last_frame_t)
                item = self.source.read()
                if item is None:
                    self.summary.stopped_because = "the source ended"
                    self._end_roll_unread("source ended", "the source ended before the dice settled")
                    break
                if isinstance(item, SourceLost):
                    self._on_lost(item)
                    continue
                if isinstance(item, SourceBack):
                    self._on_back(item)
                    continue
                self._on_frame(item)
        except RecordingError as exc:
            self._emit({"type": "note", "text": str(exc)})
            self.summary.stopped_because = str(exc)
            raise
        except KeyboardInterrupt:
            # the operator stopped: the roll under way is kept, complete, marked unread
            self.summary.stopped_because = "interrupted"
            self._end_roll_unread("interrupted", "stopped by the operator before the dice settled")
            raise
        finally:
            if self._roll is not None:  # interrupted: the roll stays a .partial, as after a crash
                self._roll.writer.abandon("the loop stopped before the roll was finished")
                self._roll = None
            self._flush_problems(force=True)
        return self.summary

    def stop(self) -> None:
        """Ask a running loop (in another thread) to stop after the current frame."""
        self._stop_requested = True

    def _should_stop(self) -> bool:
        if self._stop_requested:
            self.summary.stopped_because = "stopped"
            if self._roll is not None:
                self._end_roll_unread("stopped", "stopped before the dice settled")
            return True
        read = sum(1 for r in self.summary.rolls if r.outcome == "read")
        if self.config.max_rolls is not None and read >= self.config.max_rolls and self._roll is None:
            self.summary.stopped_because = f"{read} roll(s) read"
            return True
        if getattr(self.decider, "done", False) and self._roll is None:
            self.summary.stopped_because = "the rules decided"
            return True
        return False

    def _pace(self, frame: Frame) -> None:
        if not self.config.realtime or getattr(self.source, "live", False):
            return
        now = self.clock()
        if self._pace_start is None:
            self._pace_start = (now, frame.t)
            return
        wait = (frame.t - self._pace_start[1]) - (now - self._pace_start[0])
        if wait > 0:
            time.sleep(wait)

    # -- camera ---------------------------------------------------------------------------------

    def _on_lost(self, item: SourceLost) -> None:
        if not self._camera_lost:
            self._camera_lost = True
            self.summary.camera_losses += 1
            self._emit({"type": "camera_lost", "reason": item.reason})
            self._end_roll_unread("camera lost", f"camera lost mid-roll ({item.reason}); "
                                                 "this roll is not read: roll again")
            self.settle.reset()
            self._recent.clear()
            if self._guessed is not None:  # it may come back moved
                self._guessed.forget()
        self._poll_tower(self._last_frame_t)

    def _on_back(self, item: SourceBack) -> None:
        if self._camera_lost:
            self._camera_lost = False
            self._emit({"type": "camera_back", "text": item.description})
        self.settle.reset()

    # -- tower ----------------------------------------------------------------------------------

    def _poll_tower(self, t: float) -> None:
        if self.tower is None:
            return
        from reader.tower import protocol as p
        from reader.tower.port import TowerBack, TowerLost

        for ev in self.tower.poll():
            if isinstance(ev, p.Drop):
                self._trigger(t, {"source": "tower", "seq": ev.seq, "count": ev.count})
            elif isinstance(ev, TowerLost):
                if not self._tower_lost:
                    self._tower_lost = True
                    self.summary.tower_losses += 1
                    self._emit({"type": "tower_lost", "reason": ev.reason})
            elif isinstance(ev, TowerBack):
                if self._tower_lost:
                    self._tower_lost = False
                    self._emit({"type": "tower_back", "text": f"tower on {ev.url} is back"})
            elif isinstance(ev, p.Problem):
                name = type(ev).__name__
                self.summary.tower_problems[name] = self.summary.tower_problems.get(name, 0) + 1
                key = ev.text if isinstance(ev, (p.Lost, p.VersionMismatch)) else name
                self._pending_problems[key] = self._pending_problems.get(key, 0) + 1
                if isinstance(ev, p.Lost) and self._roll is not None:
                    self._record("note", t, text=f"tower: {ev.text}")
            elif isinstance(ev, (p.Fault, p.Hello)):
                self._emit({"type": "note", "text": p.describe(ev)})
        self._flush_problems()

    def _flush_problems(self, force: bool = False) -> None:
        if not self._pending_problems:
            return
        now = self.clock()
        if not force and now - self._last_warn < self.config.warn_every_s:
            return
        self._last_warn = now
        parts = [f"{k} x{n}" if n > 1 else k for k, n in self._pending_problems.items()]
        self._pending_problems = {}
        self._emit({"type": "tower_warning",
                    "text": "serial line problems (ignored, never a trigger): " + "; ".join(parts)})

    def _trigger(self, t: float, fields: dict) -> None:
        if self._camera_lost:
            self._emit({"type": "note", "text": "dice dropped while the camera is lost: not read; "
                                                "roll again when the camera is back"})
            return
        motion = self.settle.trigger(t)
        if motion is not None:
            self._start_roll(t, triggered=True)
        elif self._roll is not None:
            self._roll.triggered = True
        if self._roll is not None:
            self._record("trigger", t, **fields)

    # -- frames ---------------------------------------------------------------------------------

    def _on_frame(self, frame: Frame) -> None:
        self._pace(frame)
        self.summary.frames += 1
        self._last_frame_t = frame.t
        arrived = self.clock()
        if frame.cut:  # the next recorded roll: a new scene, judged on its own
            self._end_roll_unread("source ended", "the recording ended before the dice settled")
            self.settle.reset()
            self._recent.clear()
        for ev in frame.events:  # triggers recorded with the frames (recording sources)
            if ev.get("type") == "trigger":
                self._trigger(frame.t, {k: v for k, v in ev.items() if k not in ("t", "type", "roll")})
        verdict = self.settle.update(frame.t, small_view(frame.bgr))
        if isinstance(verdict, Motion) and self._roll is None:
            self._start_roll(frame.t, triggered=False)
            self._write_frame(frame, force=True)
            self._record("motion", frame.t, frame=self._roll.writer.frame_count - 1)
        elif isinstance(verdict, Settled):
            self._read_roll(frame, verdict, arrived)
        elif isinstance(verdict, NotARoll):
            self._not_a_roll(frame, verdict.reason)
        elif self._roll is not None:
            self._write_frame(frame)
            if frame.t - self._roll.t0 > self.config.max_roll_s:
                self.settle.reset()
                self._not_a_roll(frame, f"nothing settled within {self.config.max_roll_s:.0f} s "
                                        "(dice or a hand kept moving)")
        if self._roll is None:
            self._recent.append(frame)
        if self.on_frame is not None and not isinstance(verdict, Settled):
            self.on_frame(frame.index, frame.bgr, None)

    def _start_roll(self, t: float, triggered: bool) -> None:
        path = next_roll_dir(self.config.out_dir)
        camera = self.source.describe()
        view = getattr(self.recognizer, "view", None)
        if view is not None:  # the set-up the readings depended on (reader.vision.viewing)
            camera = {**camera, "view": view.to_json()}
        writer = RecordingWriter(path, camera=camera, rules=self.decider.rules_json(), models=self.models)
        t0 = self._recent[0].t if self._recent else t
        self._roll = _Roll(writer, t0, triggered)
        self._emit({"type": "roll_started", "roll": writer.name})
        for k, old in enumerate(self._recent):
            # the baseline is kept losslessly, as the settled frame is: replay compares the same pixels
            self._write_frame(old, force=True, lossless=(k == 0))
        if self._recent:
            # frame 0 shows the tray before the throw: dice already there were not rolled
            self._roll.baseline = self._recent[0].bgr
            self._record("baseline", self._recent[0].t, frame=0)
        self._recent.clear()

    def _write_frame(self, frame: Frame, force: bool = False, lossless: bool = False) -> int | None:
        roll = self._roll
        if roll is None:
            return None
        if not force and frame.t - roll.last_written_t < self.config.record_every_s:
            return None
        roll.last_written_t = frame.t
        ext = ".png" if lossless else ".jpg"
        return roll.writer.add_frame(frame.bgr, t=roll.t(frame.t), ext=ext)

    def _read_roll(self, frame: Frame, verdict: Settled, arrived: float) -> None:
        if self._roll is None:  # settled without a recorded start (camera came back mid-roll)
            self._start_roll(frame.t, triggered=verdict.triggered)
        index = self._write_frame(frame, force=True, lossless=True)
        try:
            readings = self._read(frame)
        except Exception as exc:  # a reader failure is a roll read as nothing, never a crash
            readings = None
            decisions = self.decider.roll_again(f"the reader failed on this frame: {exc}")
            self._record("note", frame.t, text=f"reader failed: {exc}")
        left: list[DieReading] = []
        if readings is not None:
            readings, left = split_unmoved(readings, self._roll.baseline, frame.bgr)
            for name, (refused, note) in SETUP_NOTES.items():
                if name not in self._told and any(refused(r) for r in readings):
                    self._told.add(name)
                    self._record("note", frame.t, text=note(readings))
            if not readings and not verdict.triggered:
                # dice picked up (the tray was cleared): not a roll; a tower drop still counts
                self._not_a_roll(frame, "no dice in the tray after it settled (dice picked up?)")
                return
            decisions = self.decider.decide(readings)
        readings = readings or []
        latency = verdict.still_s + (self.clock() - arrived)
        self._record("settled", frame.t, frame=index, still_s=round(verdict.still_s, 3),
                     latency_s=round(latency, 3))
        dice = [r.to_json() for r in readings]
        extra = {"unmoved": [r.to_json() for r in left]} if left else {}
        camera = self._roll.writer.manifest["camera"]
        if "view" in camera:  # the set-up read with, described or guessed: the judge page shows it
            extra["camera"] = {k: camera[k] for k in ("view", "guessed") if k in camera}
        self._record("reading", frame.t, frame=index, dice=dice, **extra)
        for d in decisions:
            self._record("decision", frame.t, **d)
        if self.on_frame is not None:
            self.on_frame(frame.index, frame.bgr, readings)
        self._finish_roll("read", dice, decisions, latency)
        if self.config.scale_motion_to_dice and readings:
            self._scale_motion_to(readings, frame.bgr.shape[1], frame.bgr.shape[0])

    def _read(self, frame: Frame) -> list[DieReading]:
        """The settled frame's readings; guessing the camera, read with the set-up the rolls so far
        give, which the roll's manifest then records (replay reads with it)."""
        if self._guessed is None:
            return list(self.recognizer.read_frame(frame.bgr))
        readings, note = self._guessed.read(self.recognizer, frame.bgr)
        writer = self._roll.writer
        writer.set_manifest(camera=self._guessed.manifest_camera(writer.manifest["camera"]))
        if note:
            self._record("note", frame.t, text=note)
        return readings

    def _scale_motion_to(self, readings: list[DieReading], width: int, height: int) -> None:
        """Lower the motion check's thresholds to the dice just read, if they are small in the frame:
        a lone small die moving changes less of the frame than the default threshold."""
        share = float(np.median([r.box.width * r.box.height for r in readings])) / max(1, width * height)
        now = self.settle.scale_to_dice(share)
        if now is None:
            return
        scaled = self.settle.config
        self._emit({"type": "note", "text": (
            f"the dice are small in the frame ({100 * share:.2f}% of it each): the motion check now counts "
            f"{100 * scaled.motion_fraction:.3f}% of the frame changed as motion, {100 * scaled.drift_fraction:.3f}% "
            f"as creep (were {100 * now.motion_fraction:.3f}% and {100 * now.drift_fraction:.3f}%)")})

    def _finish_roll(self, outcome: str, dice: list[dict], decisions: list[dict],
                     latency: float | None = None) -> None:
        roll, self._roll = self._roll, None
        if outcome != "read":
            roll.writer.set_manifest(outcome=outcome)
        path = roll.writer.close()
        self._emit({"type": "roll_saved", "roll": roll.writer.name, "path": str(path),
                    "outcome": outcome})
        self.summary.rolls.append(RollResult(roll.writer.name, path, dice, decisions, outcome, latency))

    def _end_roll_unread(self, outcome: str, text: str) -> None:
        if self._roll is None:
            return
        self._record("note", self._last_frame_t, text=text)
        self._finish_roll(outcome, [], [])

    def _not_a_roll(self, frame: Frame, reason: str) -> None:
        self.summary.not_a_roll += 1
        roll = self._roll
        if roll is not None and roll.triggered:
            # the tower says dice fell: keep what was seen as evidence, read nothing
            self._write_frame(frame, force=True)
            self._record("note", frame.t, text=f"not a roll: {reason}")
            self._finish_roll("not a roll", [], [])
            return
        if roll is not None:
            # motion without dice (a hand, a bump): our own unfinished folder, removed on purpose
            partial = roll.writer.abandon(reason)
            shutil.rmtree(partial, ignore_errors=True)
            self._roll = None
        self._emit({"type": "not_a_roll", "reason": reason})


def run_loop(source: FrameSource, recognizer, decider=None, **kwargs) -> LoopSummary:
    """Convenience: LiveLoop(...).run()."""
    return LiveLoop(source, recognizer, decider, **kwargs).run()


__all__ = ["LiveLoop", "LoopConfig", "LoopSummary", "RollResult", "run_loop", "DiceReaderError"]
