"""The tower firmware's portable C logic, compiled with the host's C compiler and driven by a
scripted beam and clock. Its output is parsed with the reader's own protocol parser, so these
tests also prove that firmware and host agree on framing and checksum."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from reader.tower.protocol import (  # noqa: E402
    PROTOCOL_VERSION,
    Drop,
    Fault,
    Heartbeat,
    Hello,
    LineDecoder,
    Pong,
    Problem,
    crc8,
    encode,
)

FIRMWARE = ROOT / "firmware"
CC = shutil.which("gcc") or shutil.which("cc") or shutil.which("clang")

pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler (gcc/cc/clang) on this machine")


@pytest.fixture(scope="module")
def harness(tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp("fw") / "harness"
    cmd = [CC, "-std=c99", "-Wall", "-Wextra", "-Werror", "-O1", f"-I{FIRMWARE / 'src'}",
           str(FIRMWARE / "src" / "tower_logic.c"), str(FIRMWARE / "tests" / "harness.c"), "-o", str(exe)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, f"firmware does not compile:\n{done.stderr}"
    return exe


def run(harness: Path, script: str) -> str:
    done = subprocess.run([str(harness)], input=script, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


def messages(output: str):
    events = LineDecoder().feed(output.encode())
    problems = [e for e in events if isinstance(e, Problem)]
    assert not problems, f"host parser refused firmware output: {problems}\n{output}"
    return events


@pytest.mark.parametrize("text", ["123456789", "0,HELLO,1,dice-tower-1.0", "65535,HB,4294967295,12", ""])
def test_crc_matches_the_host(harness, text):
    assert run(harness, f"crc {text}\n").strip() == f"CRC {crc8(text.encode()):02X}"


@pytest.mark.parametrize("seq, body", [(0, "HELLO,1,x"), (7, "DROP,1532,2"), (65535, "PONG")])
def test_framing_matches_the_host(harness, seq, body):
    t, *fields = body.split(",")
    assert run(harness, f"frame {seq} {body}\n").encode() == encode(seq, t, *fields)


def test_frame_refuses_a_body_too_long_for_a_line(harness):
    assert run(harness, "frame 1 " + "A" * 200 + "\n").strip() == "FRAME-REFUSED"


def test_hello_at_power_up(harness):
    [hello] = messages(run(harness, "init 0 0\n"))
    assert hello == Hello(0, PROTOCOL_VERSION, "dice-tower-1.0")


@pytest.mark.parametrize(
    "beam_script, drops",
    [
        ("run 1 100 0\nrun 100 120 1\nrun 120 600 0\n", [(100, 1)]),  # one die, one drop
        ("run 1 100 0\nrun 100 110 1\nrun 110 150 0\nrun 150 160 1\nrun 160 700 0\n",
         [(100, 2)]),  # two dice 40 ms apart: one drop of two
        ("run 1 100 0\nrun 100 110 1\nrun 110 500 0\nrun 500 510 1\nrun 510 900 0\n",
         [(100, 1), (500, 1)]),  # 390 ms apart: two drops
        ("run 1 100 0\nrun 100 102 1\nrun 102 104 0\nrun 104 106 1\nrun 106 600 0\n", []),
        # 2 ms glitches shorter than the debounce: no drop
        ("run 1 100 0\nrun 100 101 1\nrun 101 102 0\nrun 102 130 1\nrun 130 131 0\nrun 131 132 1\n"
         "run 132 600 0\n", [(102, 1)]),  # bouncing edges around one die: counted once
    ],
    ids=["one die", "two dice one burst", "two separate drops", "glitches only", "bouncy edges"],
)
def test_debounce_and_drop_bursts(harness, beam_script, drops):
    out = run(harness, "init 0 0\n" + beam_script)
    got = [(m.t_ms, m.count) for m in messages(out) if isinstance(m, Drop)]
    assert got == drops


def test_drop_is_sent_250ms_after_the_last_die(harness):
    out = run(harness, "init 0 0\nrun 1 100 0\nrun 100 120 1\nrun 120 370 0\n")
    assert not [m for m in messages(out) if isinstance(m, Drop)]  # last step at 369 ms
    out = run(harness, "init 0 0\nrun 1 100 0\nrun 100 120 1\nrun 120 371 0\n")
    assert [m for m in messages(out) if isinstance(m, Drop)]


def test_heartbeat_every_second_with_drop_total_and_sequential_numbers(harness):
    out = run(harness, "init 0 0\nrun 1 100 0\nrun 100 120 1\nrun 120 3001 0\n")
    msgs = messages(out)
    hbs = [m for m in msgs if isinstance(m, Heartbeat)]
    assert [h.t_ms for h in hbs] == [1000, 2000, 3000]
    assert [h.drops for h in hbs] == [1, 1, 1]
    assert [m.seq for m in msgs] == list(range(len(msgs)))  # the host's decoder saw no gap either


def test_blocked_beam_is_a_fault_then_clear_and_not_a_drop_storm(harness):
    out = run(harness, "init 0 0\nrun 1 100 0\nrun 100 2500 1\nrun 2500 3000 0\n")
    msgs = messages(out)
    assert [m.code for m in msgs if isinstance(m, Fault)] == ["BEAM_BLOCKED", "CLEAR"]
    assert len([m for m in msgs if isinstance(m, Drop)]) == 1


def _cmd(seq: int, t: str) -> str:
    return encode(seq, t).decode().replace("\n", "\\n")


@pytest.mark.parametrize(
    "rx, replies, rejected",
    [
        (_cmd(4, "PING"), [Pong], 0),  # ping answered
        (_cmd(5, "HELLO"), [Hello], 0),  # host asks who is there
        (_cmd(4, "PING").replace("*", "*0").replace("\\n", "") + "\\n", [], 1),  # bad CRC field
        ("$4,PING*00\\n", [], 1),  # wrong checksum
        ("garbage" + _cmd(4, "PING"), [Pong], 1),  # noise before a '$' counted, line still read
        ("$" + "A" * 150 + "\\n" + _cmd(4, "PING"), [Pong], 1),  # over-long line refused, next ok
        (_cmd(6, "REBOOT"), [], 1),  # unknown command ignored
        ("$4,PI" + "\\n" + _cmd(5, "PING"), [Pong], 1),  # split line is refused, not merged
    ],
    ids=["ping", "hello", "mangled crc", "bad crc", "leading noise", "long line", "unknown",
         "truncated"],
)
def test_host_commands(harness, rx, replies, rejected):
    out = run(harness, f"init 0 0\nrx {rx}\nstats\n")
    lines = out.splitlines()
    stats = lines[-1]
    msgs = messages("\n".join(lines[:-1]) + "\n")
    assert [type(m) for m in msgs[1:]] == replies
    assert stats == f"STATS rejected={rejected} dropped=0"


def test_hello_restarts_the_sequence(harness):
    out = run(harness, f"init 0 0\nrun 1 1001 0\nrx {_cmd(1, 'HELLO')}\nrun 1001 2001 0\n")
    msgs = messages(out)
    assert [(type(m).__name__, m.seq) for m in msgs] == [
        ("Hello", 0), ("Heartbeat", 1), ("Hello", 0), ("Heartbeat", 1)]


def test_millis_wraparound_keeps_heartbeat_and_drops(harness):
    start = 2**32 - 500
    out = run(harness, f"init {start} 0\nrun {start + 1} {2**32} 0\nrun 0 100 0\nrun 100 120 1\n"
                       "run 120 1200 0\n")
    msgs = messages(out)
    drops = [m for m in msgs if isinstance(m, Drop)]
    assert [(d.t_ms, d.count) for d in drops] == [(100, 1)]
    assert [m.t_ms for m in msgs if isinstance(m, Heartbeat)] == [500]
