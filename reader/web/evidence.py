"""Turn the live loop's events into roll-log entries: one "roll" entry per roll, with its evidence.

A roll's entry holds the dice as read, every decision the rules made from them, the frame the
reading came from and where the recording lies. It is written when the loop says the roll is saved
(`roll_saved`), or when the next roll starts, or when the server stops, whichever comes first, so
a roll whose recording failed (full disk) is still logged, pointing at the roll's name. After
writing, a "logged" event tells the pages which entry a judge's override must refer to.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Callable

from reader.rolllog import RollLog, RollLogError


class RollLogger:
    def __init__(self, log: RollLog, publish: Callable[[dict], None],
                 recordings: str | os.PathLike | None = None) -> None:
        self.log = log
        self._publish = publish
        self._root = Path(recordings).resolve() if recordings else None
        self._pending: dict[str, dict] = {}
        self._lock = threading.Lock()
        self.errors: list[str] = []

    def __call__(self, event: dict) -> None:
        kind = event.get("type")
        roll = event.get("roll")
        if roll is None or kind not in ("roll_started", "reading", "decision", "roll_saved") \
                or event.get("judge"):  # a judge's re-decision is logged by whoever made it
            return
        roll = str(roll)
        flush: list[str] = []
        with self._lock:
            if kind in ("roll_started", "reading"):
                flush = [r for r in self._pending if r != roll]
            p = self._pending.setdefault(roll, {"dice": [], "frame": None, "decisions": [],
                                               "recording": roll})
            if kind == "reading":
                p["dice"] = list(event.get("dice", []))
                p["frame"] = event.get("frame")
                p["decisions"] = []
            elif kind == "decision":
                p["decisions"].append({k: v for k, v in event.items() if k not in ("t", "type", "roll")})
            elif kind == "roll_saved":
                p["recording"] = self._relative(event.get("path")) or roll
                flush.append(roll)
        for r in flush:
            self._write(r)

    def close(self) -> None:
        """Write every roll still pending (the server is stopping)."""
        with self._lock:
            rolls = list(self._pending)
        for r in rolls:
            self._write(r)

    def _write(self, roll: str) -> None:
        with self._lock:
            p = self._pending.pop(roll, None)
        if p is None or (not p["dice"] and not p["decisions"]):
            return
        payload = {"dice": p["dice"], "frame": p["frame"], "decisions": p["decisions"]}
        try:
            entry = self.log.append("roll", payload, roll=roll, recording=p["recording"])
        except RollLogError as exc:  # keep serving; the judge page shows it
            self.errors.append(str(exc))
            self._publish({"type": "note", "roll": roll, "text": f"ROLL LOG ERROR: {exc}"})
            return
        self._publish({"type": "logged", "roll": roll, "seq": entry.seq})

    def _relative(self, path) -> str | None:
        if not path:
            return None
        p = Path(path).resolve()
        if self._root is not None:
            try:
                return p.relative_to(self._root).as_posix()
            except ValueError:
                pass
        return str(p)
