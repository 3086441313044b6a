"""The event bus between the live loop (any thread) and the web pages (the server's asyncio loop).

The loop calls `hub.publish(event)` from its own thread; the Hub folds the event into the table
view (`TableState`) under a lock and hands the new snapshot to every connected page's queue with
`call_soon_threadsafe`, so the loop never waits on a slow browser. A page that is too slow to keep
up only ever misses intermediate snapshots (its queue keeps the newest), never the latest one.

The judge's live view uses `set_frame()`: the newest camera frame and its readings are kept as
they are and only encoded to JPEG (with boxes drawn) when a judge page asks for it.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from typing import Callable

import numpy as np

from reader.web.state import TableState

QUEUE_SIZE = 8


class Hub:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._lock = threading.Lock()
        self._clock = clock
        self.state = TableState(clock=clock)
        self._subscribers: set[tuple[asyncio.AbstractEventLoop, asyncio.Queue]] = set()
        self._listeners: list[Callable[[dict], None]] = []
        self._frame: tuple[int, np.ndarray, list] | None = None
        self._jpeg: tuple[int, bytes] | None = None

    # -- input ----------------------------------------------------------------------------------

    def publish(self, event: dict) -> None:
        """Take one event from anywhere (thread-safe); push the new view to every page."""
        if not isinstance(event, dict) or "type" not in event:
            return
        with self._lock:  # fold and hand out in one step, so every page gets versions in order
            changed = self.state.apply(event)
            if changed:
                message = json.dumps({"kind": "snapshot", "state": self.state.snapshot(),
                                      "sent_ms": round(self._clock() * 1000, 1)})
                for loop, queue in list(self._subscribers):
                    try:
                        loop.call_soon_threadsafe(_offer, queue, message)
                    except RuntimeError:  # that page's loop is closed (server stopped): forget it
                        self._subscribers.discard((loop, queue))
            listeners = list(self._listeners)
        for listener in listeners:  # after the pages: a listener may publish follow-up events
            try:
                listener(event)
            except Exception as exc:  # never let a listener stop the live loop; say so on the pages
                print(f"dice-reader: {getattr(listener, '__name__', type(listener).__name__)} failed on a "
                      f"{event.get('type')} event: {exc}", file=sys.stderr, flush=True)
                if event.get("type") != "note":
                    self.publish({"type": "note", "roll": event.get("roll"),
                                  "text": f"internal error while handling {event.get('type')}: {exc}"})

    def listen(self, fn: Callable[[dict], None]) -> None:
        """Also call `fn(event)` for every event published (e.g. the roll-log writer)."""
        with self._lock:
            self._listeners.append(fn)

    def set_frame(self, index: int, bgr: np.ndarray, readings=None) -> None:
        """The newest camera frame and its readings (DieReading or dicts), for the judge view."""
        with self._lock:
            self._frame = (int(index), bgr, list(readings or []))

    # -- output ---------------------------------------------------------------------------------

    def snapshot_message(self) -> str:
        with self._lock:
            return json.dumps({"kind": "snapshot", "state": self.state.snapshot(),
                               "sent_ms": round(self._clock() * 1000, 1)})

    def snapshot(self) -> dict:
        with self._lock:
            return self.state.snapshot()

    def subscribe(self) -> asyncio.Queue:
        """A queue of snapshot messages for one page; call from the server's event loop."""
        queue: asyncio.Queue = asyncio.Queue(maxsize=QUEUE_SIZE)
        with self._lock:
            self._subscribers.add((asyncio.get_running_loop(), queue))
        return queue

    def unsubscribe(self, queue: asyncio.Queue) -> None:
        with self._lock:
            self._subscribers = {s for s in self._subscribers if s[1] is not queue}

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subscribers)

    def frame_jpeg(self) -> tuple[int, bytes] | None:
        """(frame index, JPEG with boxes and readings drawn) of the newest frame, or None."""
        with self._lock:
            frame = self._frame
            cached = self._jpeg
        if frame is None:
            return None
        if cached is not None and cached[0] == frame[0]:
            return cached
        from reader.web.annotate import annotate_jpeg

        jpeg = (frame[0], annotate_jpeg(frame[1], frame[2]))
        with self._lock:
            self._jpeg = jpeg
        return jpeg


def _offer(queue: asyncio.Queue, message: str) -> None:
    """Put without ever blocking the loop: a full queue drops its oldest message."""
    while queue.full():
        try:
            queue.get_nowait()
        except asyncio.QueueEmpty:  # pragma: no cover
            break
    queue.put_nowait(message)
