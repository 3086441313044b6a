"""A simulated dice tower on a pseudo-terminal, with faults on demand.

It speaks the tower protocol (HELLO, HB every second, DROP on demand, PONG, answers HELLO) on the
master side of a pty; the reader opens the slave side like any serial port. A stable `link` path
(a symlink, like udev's /dev/serial/by-id/...) survives `unplug()` / `replug()`, which close the
pty and open a new one, as pulling and reinserting a USB cable does.

Faults (each a probability per message, drawn from a seeded generator so a run can be repeated):
`drop` (the line never leaves: the host sees a gap in seq), `garble` (one byte flipped: bad CRC),
`duplicate` (sent twice), `delay_s` (every line late), and `noise(n)` sends n random bytes.
"""

from __future__ import annotations

import os
import random
import select
import threading
import time
import tty
from dataclasses import dataclass
from pathlib import Path

from reader.errors import DiceReaderError
from reader.tower.protocol import PROTOCOL_VERSION, encode, parse_command

FIRMWARE = "dice-tower-sim-1.0"


@dataclass
class Faults:
    drop: float = 0.0
    garble: float = 0.0
    duplicate: float = 0.0
    delay_s: float = 0.0

    def __post_init__(self) -> None:
        for name in ("drop", "garble", "duplicate"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise DiceReaderError(f"fault {name}={v} must be a probability between 0 and 1")
        if self.delay_s < 0:
            raise DiceReaderError("fault delay_s must not be negative")

    @classmethod
    def parse(cls, text: str) -> "Faults":
        """`drop=0.1,garble=0.05,duplicate=0.1,delay_s=0.2` -> Faults."""
        kwargs = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, _, value = part.partition("=")
            if name not in cls.__dataclass_fields__:
                raise DiceReaderError(
                    f"unknown fault {name!r}; known: {', '.join(cls.__dataclass_fields__)}")
            try:
                kwargs[name] = float(value)
            except ValueError:
                raise DiceReaderError(f"fault {name} needs a number, not {value!r}") from None
        return cls(**kwargs)


class TowerSim:
    """The simulator. `start()` opens the pty; `path` is what the reader should open."""

    def __init__(self, link: str | os.PathLike | None = None, *, faults: Faults | None = None,
                 seed: int = 0, heartbeat_s: float = 1.0) -> None:
        self.link = Path(link) if link else None
        self.faults = faults or Faults()
        self.heartbeat_s = heartbeat_s
        self._rng = random.Random(seed)
        self._lock = threading.RLock()
        self._master: int | None = None
        self._slave: int | None = None
        self._slave_name = ""
        self._seq = 0
        self._t0 = time.monotonic()
        self._drops = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._rx = bytearray()
        self.rejected = 0  # host lines refused (bad CRC, unknown command)
        self.sent: list[bytes] = []  # every line as intended (before faults), for tests

    @property
    def path(self) -> str:
        return str(self.link) if self.link else self._slave_name

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def start(self) -> "TowerSim":
        self._plug()
        self._thread = threading.Thread(target=self._run, name="tower-sim", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=3)
        self.unplug()
        if self.link is not None and self.link.is_symlink():
            self.link.unlink()

    def __enter__(self) -> "TowerSim":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- what the tower does ------------------------------------------------------------------------

    def drop(self, count: int = 2) -> None:
        """Dice fall through the beam: one DROP message."""
        self._drops += 1
        self._send("DROP", self._ms(), count)

    def noise(self, nbytes: int) -> None:
        """Random bytes on the line (a bad cable, a baud-rate mismatch)."""
        self._write(bytes(self._rng.randrange(256) for _ in range(nbytes)))

    def fault_code(self, code: str) -> None:
        self._send("FAULT", code)

    def unplug(self) -> None:
        with self._lock:
            for fd in (self._master, self._slave):
                if fd is not None:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
            self._master = self._slave = None

    def replug(self) -> None:
        """A new pty behind the same link, and a fresh HELLO, as after a power cycle."""
        self.unplug()
        self._plug()

    # -- internals ----------------------------------------------------------------------------------

    def _ms(self) -> int:
        return int((time.monotonic() - self._t0) * 1000)

    def _plug(self) -> None:
        with self._lock:
            master, slave = os.openpty()
            tty.setraw(slave)  # no echo, no line editing: a plain 8-bit line
            self._master, self._slave = master, slave
            self._slave_name = os.ttyname(slave)
            if self.link is not None:
                tmp = self.link.with_name(self.link.name + ".new")
                if tmp.is_symlink() or tmp.exists():
                    tmp.unlink()
                tmp.symlink_to(self._slave_name)
                os.replace(tmp, self.link)
            self._seq = 0
            self._send("HELLO", PROTOCOL_VERSION, FIRMWARE)

    def _send(self, type_: str, *fields) -> None:
        with self._lock:
            line = encode(self._seq, type_, *fields)
            self._seq = (self._seq + 1) % 65536
            self.sent.append(line)
            f = self.faults
            if f.drop and self._rng.random() < f.drop:
                return
            if f.garble and self._rng.random() < f.garble:
                b = bytearray(line)
                i = self._rng.randrange(1, len(b) - 1)
                b[i] ^= 1 << self._rng.randrange(7)
                line = bytes(b)
            copies = 2 if f.duplicate and self._rng.random() < f.duplicate else 1
        if f.delay_s:
            time.sleep(f.delay_s)
        for _ in range(copies):
            self._write(line)

    def _write(self, data: bytes) -> None:
        with self._lock:
            if self._master is None:
                return  # unplugged: the bytes go nowhere
            try:
                os.write(self._master, data)
            except OSError:
                pass

    def _run(self) -> None:
        next_hb = time.monotonic() + self.heartbeat_s
        while not self._stop.is_set():
            master = self._master
            if master is None:
                self._stop.wait(0.05)
                continue
            try:
                ready, _, _ = select.select([master], [], [], 0.05)
                data = os.read(master, 1024) if ready else b""
            except (OSError, ValueError):
                data = b""
            if data:
                self._rx += data
                while b"\n" in self._rx:
                    line, _, rest = bytes(self._rx).partition(b"\n")
                    self._rx = bytearray(rest)
                    self._answer(parse_command(line[line.rfind(b"$"):] if b"$" in line else line))
            if time.monotonic() >= next_hb:
                next_hb += self.heartbeat_s
                if self.plugged:
                    self._send("HB", self._ms(), self._drops)

    def _answer(self, command) -> None:
        if command == "HELLO":
            with self._lock:
                self._seq = 0
                self._send("HELLO", PROTOCOL_VERSION, FIRMWARE)
        elif command == "PING":
            self._send("PONG")
        else:
            self.rejected += 1


