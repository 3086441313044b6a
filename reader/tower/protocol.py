"""The dice tower's line protocol, as pure byte-to-message parsing (no port, no thread).

Every message, both ways, is one ASCII line (firmware/PROTOCOL.md has the full description):

    $<seq>,<TYPE>[,<field>...]*<CRC>\\n

`seq` is 0..65535 and counts the sender's messages (HELLO restarts it at 0), `CRC` is the CRC-8
(polynomial 0x07, init 0) of the bytes between `$` and `*`, as two upper-case hex digits. The
same framing is implemented in C in firmware/src/tower_logic.c; the tests check that both agree.

A serial line carries noise, half lines after a replug and lines glued together, so the decoder
never trusts a byte: garbage, a bad checksum, an unknown type or a gap in the sequence numbers
becomes a `Problem` (reported, logged) and never a trigger.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

PROTOCOL_VERSION = 1
MAX_LINE = 96  # bytes between '$' and '\n'; a longer "line" is garbage
SEQ_MOD = 65536
HEARTBEAT_S = 1.0  # the tower sends HB every second
SILENCE_S = 3.5  # no byte for this long: the tower is considered gone


def crc8(data: bytes) -> int:
    """CRC-8, polynomial 0x07, init 0x00, no reflection (the firmware's tl_crc8)."""
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def encode(seq: int, type_: str, *fields) -> bytes:
    """One framed line: encode(3, "DROP", 1234, 2) -> b"$3,DROP,1234,2*XX\\n"."""
    body = ",".join([str(seq % SEQ_MOD), type_, *(str(f) for f in fields)]).encode("ascii")
    return b"$" + body + b"*" + f"{crc8(body):02X}".encode("ascii") + b"\n"


# -- messages (what the tower says) --------------------------------------------------------------

@dataclass(frozen=True)
class Hello:
    """The tower (re)started: its protocol version and firmware name."""

    seq: int
    version: int
    firmware: str


@dataclass(frozen=True)
class Drop:
    """Dice left the tower: `count` beam breaks in one burst, the first at tower time `t_ms`."""

    seq: int
    t_ms: int
    count: int


@dataclass(frozen=True)
class Heartbeat:
    seq: int
    t_ms: int
    drops: int


@dataclass(frozen=True)
class Fault:
    """The tower reports a fault, e.g. BEAM_BLOCKED (a die stuck in the exit) or CLEAR."""

    seq: int
    code: str


@dataclass(frozen=True)
class Pong:
    seq: int


Message = Union[Hello, Drop, Heartbeat, Fault, Pong]


# -- problems (what the decoder reports instead of a message) ------------------------------------

@dataclass(frozen=True)
class Problem:
    """Something on the line that is not a good message; `text` says what, for the operator."""

    text: str


@dataclass(frozen=True)
class Garbage(Problem):
    nbytes: int = 0


@dataclass(frozen=True)
class BadChecksum(Problem):
    pass


@dataclass(frozen=True)
class Malformed(Problem):
    pass


@dataclass(frozen=True)
class UnknownType(Problem):
    pass


@dataclass(frozen=True)
class Duplicate(Problem):
    seq: int = 0


@dataclass(frozen=True)
class Lost(Problem):
    """Sequence numbers were skipped: `count` messages never arrived (maybe a drop among them)."""

    count: int = 0


@dataclass(frozen=True)
class VersionMismatch(Problem):
    version: int = 0


Event = Union[Message, Problem]


def _ints(fields: list[str], n: int) -> list[int]:
    if len(fields) != n:
        raise ValueError(f"expected {n} fields, got {len(fields)}")
    out = []
    for f in fields:
        if not f.isdigit():
            raise ValueError(f"field {f!r} is not a number")
        out.append(int(f))
    return out


def _hello(seq: int, fields: list[str]) -> Message:
    if len(fields) != 2 or not fields[0].isdigit():
        raise ValueError("HELLO needs a version and a firmware name")
    return Hello(seq, int(fields[0]), fields[1])


def _drop(seq: int, fields: list[str]) -> Message:
    t_ms, count = _ints(fields, 2)
    if count < 1:
        raise ValueError("a drop has at least one die")
    return Drop(seq, t_ms, count)


def _heartbeat(seq: int, fields: list[str]) -> Message:
    t_ms, drops = _ints(fields, 2)
    return Heartbeat(seq, t_ms, drops)


def _fault(seq: int, fields: list[str]) -> Message:
    if len(fields) != 1 or not fields[0].replace("_", "").isalnum():
        raise ValueError("FAULT needs one code")
    return Fault(seq, fields[0])


def _pong(seq: int, fields: list[str]) -> Message:
    if fields:
        raise ValueError("PONG has no fields")
    return Pong(seq)


# type -> builder(seq, fields). Anything else is refused as UnknownType.
PARSERS: dict[str, Callable[[int, list[str]], Message]] = {
    "HELLO": _hello,
    "DROP": _drop,
    "HB": _heartbeat,
    "FAULT": _fault,
    "PONG": _pong,
}


def _show(line: bytes) -> str:
    return repr(line[:40])[2:-1] + ("..." if len(line) > 40 else "")


def unframe(line: bytes) -> tuple[int, str, list[str]] | Problem:
    """Check framing and CRC of one line ('$' .. CRC, no newline): (seq, type, fields) or why not."""
    line = line.rstrip(b"\r")
    if not line.startswith(b"$"):
        return Garbage(f"line does not start with '$': {_show(line)}", len(line))
    star = line.rfind(b"*")
    if star < 0 or len(line) - star != 3:
        return Garbage(f"no checksum at the end of {_show(line)}", len(line))
    body, crc_text = line[1:star], line[star + 1:]
    try:
        crc = int(crc_text.decode("ascii"), 16)
    except (UnicodeDecodeError, ValueError):
        return Garbage(f"checksum {_show(crc_text)} is not hex", len(line))
    if crc8(body) != crc:
        return BadChecksum(f"bad checksum on {_show(line)}")
    try:
        text = body.decode("ascii")
    except UnicodeDecodeError:
        return Malformed(f"non-ASCII bytes in {_show(line)}")
    parts = text.split(",")
    if len(parts) < 2 or not parts[0].isdigit() or int(parts[0]) >= SEQ_MOD:
        return Malformed(f"no sequence number in {_show(line)}")
    return int(parts[0]), parts[1], parts[2:]


def parse_line(line: bytes) -> Event:
    """One tower line from '$' up to (not including) '\n' -> a Message, or a Problem saying why."""
    framed = unframe(line)
    if isinstance(framed, Problem):
        return framed
    seq, type_, fields = framed
    parser = PARSERS.get(type_)
    if parser is None:
        return UnknownType(f"unknown message type {type_!r}")
    try:
        return parser(seq, fields)
    except ValueError as exc:
        return Malformed(f"{type_}: {exc}")


# What the host may send to the tower (the tower ignores anything else).
HOST_COMMANDS = ("HELLO", "PING")


def parse_command(line: bytes) -> str | Problem:
    """One host->tower line -> the command name, or a Problem."""
    framed = unframe(line)
    if isinstance(framed, Problem):
        return framed
    _, type_, fields = framed
    if type_ not in HOST_COMMANDS or fields:
        return UnknownType(f"unknown command {type_!r}")
    return type_


class LineDecoder:
    """Bytes in, messages and problems out. Keeps the partial line between feeds, so split and
    merged lines are handled; tracks sequence numbers to report duplicates and losses.

    Consecutive garbage is reported as one `Garbage` problem per feed (10 kB of noise is one
    report, not a thousand).
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._in_line = False
        self._garbage = 0
        self.last_seq: int | None = None
        self.hello: Hello | None = None
        self.counts: dict[str, int] = {}

    def reset(self) -> None:
        """Forget the partial line and the sequence (the port was reopened)."""
        self._buf.clear()
        self._in_line = False
        self.last_seq = None

    def feed(self, data: bytes) -> list[Event]:
        out: list[Event] = []
        for b in data:
            if b == 0x24:  # '$' always starts a new line; what came before it is garbage
                if self._in_line and self._buf:
                    self._garbage += len(self._buf)
                self._buf = bytearray(b"$")
                self._in_line = True
            elif not self._in_line:
                if b not in (0x0A, 0x0D):
                    self._garbage += 1
            elif b == 0x0A:
                self._emit(parse_line(bytes(self._buf)), out)
                self._buf.clear()
                self._in_line = False
            else:
                self._buf.append(b)
                if len(self._buf) > MAX_LINE:
                    self._garbage += len(self._buf)
                    self._buf.clear()
                    self._in_line = False
        self._flush_garbage(out)
        return out

    def _flush_garbage(self, out: list[Event]) -> None:
        if self._garbage:
            out.append(Garbage(f"{self._garbage} bytes of noise on the line were ignored", self._garbage))
            self._count(out[-1])
            self._garbage = 0

    def _count(self, ev: Event) -> None:
        name = type(ev).__name__
        self.counts[name] = self.counts.get(name, 0) + 1

    def _emit(self, ev: Event, out: list[Event]) -> None:
        if isinstance(ev, Problem):
            if isinstance(ev, Garbage):  # a whole line of noise joins the garbage count
                self._garbage += ev.nbytes
                return
            self._flush_garbage(out)
            self._count(ev)
            out.append(ev)
            return
        self._flush_garbage(out)
        if isinstance(ev, Hello):
            self.last_seq = ev.seq
            self.hello = ev
            self._count(ev)
            out.append(ev)
            if ev.version != PROTOCOL_VERSION:
                out.append(VersionMismatch(
                    f"tower speaks protocol {ev.version}, this reader speaks {PROTOCOL_VERSION}",
                    ev.version))
                self._count(out[-1])
            return
        if self.last_seq is not None:
            expected = (self.last_seq + 1) % SEQ_MOD
            if ev.seq == self.last_seq:
                out.append(Duplicate(f"message {ev.seq} arrived twice; the copy was ignored", ev.seq))
                self._count(out[-1])
                return
            if ev.seq != expected:
                gap = (ev.seq - expected) % SEQ_MOD
                if gap > SEQ_MOD // 2:  # an old message arriving late
                    out.append(Duplicate(f"old message {ev.seq} arrived after {self.last_seq}; ignored",
                                         ev.seq))
                    self._count(out[-1])
                    return
                out.append(Lost(f"{gap} tower message(s) lost before {ev.seq}", gap))
                self._count(out[-1])
        self.last_seq = ev.seq
        self._count(ev)
        out.append(ev)


def describe(ev: Event) -> str:
    """One line for the operator."""
    if isinstance(ev, Problem):
        return ev.text
    if isinstance(ev, Hello):
        return f"tower {ev.firmware} says hello (protocol {ev.version})"
    if isinstance(ev, Drop):
        return f"dice dropped ({ev.count} through the beam)"
    if isinstance(ev, Fault):
        return "tower exit blocked (a die stuck?)" if ev.code == "BEAM_BLOCKED" else f"tower: {ev.code}"
    if isinstance(ev, Heartbeat):
        return f"tower heartbeat ({ev.drops} drops so far)"
    return type(ev).__name__
