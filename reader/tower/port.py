"""The tower on a serial line: pyserial's `serial_for_url` under a reconnecting reader thread.

Any pyserial URL works: `/dev/ttyUSB0`, a pty from the simulator, `loop://`, `socket://host:port`,
`rfc2217://host:port`. The thread reads bytes, writes them to the raw-traffic log, feeds the pure
`LineDecoder`, and queues what it says; `poll()` hands those to the live loop. An unplugged cable
(read error, port gone) or a silent tower (no byte for SILENCE_S) becomes `TowerLost`; the port
is reopened with backoff and `TowerBack` is queued when the tower answers again.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass
from typing import IO, Union

from reader.tower.protocol import SILENCE_S, Event, LineDecoder, encode


@dataclass(frozen=True)
class TowerLost:
    reason: str


@dataclass(frozen=True)
class TowerBack:
    url: str


PortEvent = Union[Event, TowerLost, TowerBack]

BACKOFF_FIRST_S = 0.2
BACKOFF_MAX_S = 2.0


class RawLog:
    """Raw serial traffic, one line per read or write, apart from decisions (for debugging)."""

    def __init__(self, stream: IO[str] | None) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._t0 = time.monotonic()

    def write(self, direction: str, data: bytes | str) -> None:
        if self._stream is None:
            return
        text = data if isinstance(data, str) else repr(bytes(data))[2:-1]
        with self._lock:
            self._stream.write(f"{time.monotonic() - self._t0:10.3f} {direction} {text}\n")
            self._stream.flush()


class TowerPort:
    """Reads the tower at `url` in a background thread; `poll()` returns what happened since."""

    def __init__(self, url: str, *, raw_log: IO[str] | None = None, baudrate: int = 115200,
                 silence_s: float = SILENCE_S, open_timeout_s: float = 0.1) -> None:
        self.url = url
        self.baudrate = baudrate
        self.silence_s = silence_s
        self.raw = RawLog(raw_log)
        self.decoder = LineDecoder()
        self._events: queue.Queue[PortEvent] = queue.Queue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._serial = None
        self._timeout = open_timeout_s
        self._seq = 0
        self.connected = False
        self.lost_count = 0

    # -- public -----------------------------------------------------------------------------------

    def start(self) -> "TowerPort":
        self._thread = threading.Thread(target=self._run, name=f"tower {self.url}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=3)
        self._close()

    def poll(self) -> list[PortEvent]:
        out = []
        while True:
            try:
                out.append(self._events.get_nowait())
            except queue.Empty:
                return out

    def wait(self, timeout: float) -> list[PortEvent]:
        """Block up to `timeout` s for at least one event (tests, the simulator's console)."""
        try:
            first = self._events.get(timeout=timeout)
        except queue.Empty:
            return []
        return [first, *self.poll()]

    def __enter__(self) -> "TowerPort":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- thread -----------------------------------------------------------------------------------

    def _open(self) -> None:
        import serial

        self._serial = serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=self._timeout)
        self.decoder.reset()
        self.raw.write("--", f"opened {self.url}")
        self._send("HELLO")  # the tower may have been up for hours: ask it to say who it is

    def _send(self, type_: str) -> None:
        line = encode(self._seq, type_)
        self._seq = (self._seq + 1) % 65536
        self.raw.write(">>", line)
        self._serial.write(line)

    def _close(self) -> None:
        if self._serial is not None:
            try:
                self._serial.close()
            except Exception:
                pass
            self._serial = None

    def _lost(self, reason: str) -> None:
        self.raw.write("--", f"lost: {reason}")
        self._close()
        if self.connected:
            self.connected = False
            self.lost_count += 1
            self._events.put(TowerLost(reason))

    def _run(self) -> None:
        import serial

        backoff = BACKOFF_FIRST_S
        first_failure_reported = False
        while not self._stop.is_set():
            if self._serial is None:
                try:
                    self._open()
                except (serial.SerialException, OSError, ValueError) as exc:
                    if not first_failure_reported and not self.connected:
                        # never connected yet: say so once, then keep trying quietly
                        self._events.put(TowerLost(f"cannot open {self.url}: {exc}"))
                        first_failure_reported = True
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, BACKOFF_MAX_S)
                    continue
                last_byte = time.monotonic()
                answered = False
            try:
                data = self._serial.read(max(1, self._serial.in_waiting or 1))
            except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
                self._lost(f"{self.url}: {exc}")
                continue
            now = time.monotonic()
            if data:
                last_byte = now
                self.raw.write("<<", data)
                events = self.decoder.feed(data)
                if events and not answered and any(not hasattr(e, "text") for e in events):
                    answered = True
                    backoff = BACKOFF_FIRST_S
                    if not self.connected:
                        self.connected = True
                        self._events.put(TowerBack(self.url))
                for e in events:
                    self._events.put(e)
            elif now - last_byte > self.silence_s:
                self._lost(f"no heartbeat from the tower for {self.silence_s:.1f} s")
