"""The tower line protocol parser: what reaches the reader from a noisy serial line."""

from __future__ import annotations

import random

import pytest

from reader.tower.protocol import (
    BadChecksum,
    Drop,
    Fault,
    Garbage,
    Heartbeat,
    Hello,
    LineDecoder,
    Lost,
    Malformed,
    Pong,
    UnknownType,
    VersionMismatch,
    crc8,
    encode,
    parse_line,
)

HELLO = encode(0, "HELLO", 1, "dice-tower-1.0")


def test_crc8_check_value():
    assert crc8(b"123456789") == 0xF4  # the CRC-8/SMBUS catalogue check value


@pytest.mark.parametrize(
    "line, expected",
    [
        (encode(3, "DROP", 1532, 2), Drop(3, 1532, 2)),  # a drop of two dice
        (encode(0, "HELLO", 1, "dice-tower-1.0"), Hello(0, 1, "dice-tower-1.0")),
        (encode(9, "HB", 1000, 4), Heartbeat(9, 1000, 4)),
        (encode(2, "FAULT", "BEAM_BLOCKED"), Fault(2, "BEAM_BLOCKED")),
        (encode(5, "PONG"), Pong(5)),
        (encode(3, "DROP", 1532, 2).replace(b"\n", b"\r\n"), Drop(3, 1532, 2)),  # CRLF line end
    ],
    ids=["drop", "hello", "heartbeat", "fault", "pong", "crlf"],
)
def test_good_lines(line, expected):
    assert parse_line(line.rstrip(b"\n")) == expected


@pytest.mark.parametrize(
    "line, problem",
    [
        (b"$3,DROP,1532,2*00", BadChecksum),  # corrupted in transit
        (encode(3, "DROP", 1532, 3)[:-4] + b"*" + b"%02X" % crc8(b"3,DROP,1532,2"), BadChecksum),
        (b"3,DROP,1532,2*5A", Garbage),  # no '$'
        (b"$3,DROP,1532,2", Garbage),  # no checksum at all
        (b"$3,DROP,1532,2*ZZ", Garbage),  # checksum not hex
        (encode(3, "LAUNCH", 1).rstrip(), UnknownType),  # a type nobody knows
        (encode(3, "DROP", 1532).rstrip(), Malformed),  # missing field
        (encode(3, "DROP", "x", 2).rstrip(), Malformed),  # field not a number
        (encode(3, "DROP", 1532, 0).rstrip(), Malformed),  # a drop of no dice
        (b"$" + b"x,DROP,1,1" + b"*" + b"%02X" % crc8(b"x,DROP,1,1"), Malformed),  # no seq
    ],
    ids=["bad crc", "field changed", "no dollar", "no crc", "crc not hex", "unknown type",
         "missing field", "not a number", "zero dice", "no sequence number"],
)
def test_bad_lines_are_problems_never_messages(line, problem):
    assert isinstance(parse_line(line), problem)


def _stream(*msgs) -> bytes:
    return b"".join(msgs)


def test_split_lines_are_joined_across_reads():
    d = LineDecoder()
    data = _stream(HELLO, encode(1, "DROP", 10, 1))
    out = []
    for i in range(0, len(data), 3):  # three bytes at a time, as a slow port delivers them
        out += d.feed(data[i:i + 3])
    assert out == [Hello(0, 1, "dice-tower-1.0"), Drop(1, 10, 1)]


def test_merged_lines_in_one_read():
    out = LineDecoder().feed(_stream(HELLO, encode(1, "HB", 1000, 0), encode(2, "DROP", 1200, 1)))
    assert [type(e) for e in out] == [Hello, Heartbeat, Drop]


def test_half_line_after_replug_then_good_line():
    # the cable came back mid-message: the tail of a line, then a good one
    out = LineDecoder().feed(b"OP,12,1*3B\n" + HELLO)
    assert [type(e) for e in out] == [Garbage, Hello]


def test_dollar_inside_a_line_starts_a_new_one():
    out = LineDecoder().feed(b"$5,DR" + encode(6, "DROP", 3, 1))
    assert [type(e) for e in out] == [Garbage, Drop]


@pytest.mark.parametrize(
    "seqs, expected",
    [
        ([1, 2, 3], ["Drop", "Drop", "Drop"]),  # in order
        ([1, 1, 2], ["Drop", "Duplicate", "Drop"]),  # a repeat is ignored, not a second roll
        ([1, 4], ["Drop", "Lost", "Drop"]),  # two messages lost, reported
        ([1, 3, 2], ["Drop", "Lost", "Drop", "Duplicate"]),  # late message ignored
        ([65534, 65535, 0], ["Drop", "Drop", "Drop"]),  # wrap-around is not a gap
    ],
    ids=["in order", "duplicate", "lost", "late", "wrap"],
)
def test_sequence_numbers(seqs, expected):
    d = LineDecoder()
    d.last_seq = seqs[0] - 1
    out = d.feed(_stream(*(encode(s, "DROP", 100 + s, 1) for s in seqs)))
    assert [type(e).__name__ for e in out] == expected
    if "Lost" in expected:
        lost = next(e for e in out if isinstance(e, Lost))
        assert lost.count == (2 if seqs == [1, 4] else 1)


def test_hello_restarts_sequence_and_mismatched_version_is_reported():
    d = LineDecoder()
    d.feed(_stream(HELLO, encode(1, "HB", 1, 0), encode(2, "HB", 2, 0)))
    out = d.feed(_stream(encode(0, "HELLO", 1, "x"), encode(1, "HB", 3, 0)))  # tower rebooted
    assert [type(e) for e in out] == [Hello, Heartbeat]
    out = d.feed(encode(0, "HELLO", 2, "future"))
    assert [type(e) for e in out] == [Hello, VersionMismatch]


def test_ten_kilobytes_of_random_bytes_give_no_message_and_one_report_per_read():
    rng = random.Random(4)
    noise = bytes(rng.randrange(256) for _ in range(10_000))
    d = LineDecoder()
    out = d.feed(noise)
    assert not [e for e in out if isinstance(e, (Drop, Hello, Heartbeat, Fault, Pong))]
    garbage = [e for e in out if isinstance(e, Garbage)]
    assert len(garbage) <= 2 and sum(g.nbytes for g in garbage) > 9_000
    assert "noise" in garbage[0].text
    # and the line still works afterwards
    assert d.feed(b"\n" + HELLO + encode(1, "DROP", 5, 2))[-1] == Drop(1, 5, 2)


def test_random_bytes_in_small_reads_never_make_a_drop():
    rng = random.Random(7)
    d = LineDecoder()
    for _ in range(2000):
        chunk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 12)))
        for e in d.feed(chunk):
            assert not isinstance(e, Drop)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=200, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=30))
def test_any_split_of_a_stream_gives_the_same_messages(cuts):
    stream = _stream(HELLO, *(encode(i, "DROP", i * 10, 1 + i % 3) for i in range(1, 8)))
    points = sorted({c % (len(stream) + 1) for c in cuts})
    chunks = [stream[a:b] for a, b in zip([0, *points], [*points, len(stream)])]
    d = LineDecoder()
    out = [e for c in chunks for e in d.feed(c)]
    assert out == LineDecoder().feed(stream)
    assert [e.seq for e in out if isinstance(e, Drop)] == list(range(1, 8))


@settings(max_examples=200, deadline=None)
@given(noise=st.lists(st.binary(max_size=40), min_size=8, max_size=8))
def test_noise_between_lines_never_invents_or_loses_a_good_line(noise):
    lines = [HELLO, *(encode(i, "DROP", i, 1) for i in range(1, 8))]
    # noise is followed by a newline, as on a real line after a glitch; a good line stays whole
    stream = b"".join(n.replace(b"$", b"") + b"\n" + line for n, line in zip(noise, lines))
    drops = [e for e in LineDecoder().feed(stream) if isinstance(e, Drop)]
    assert [d.seq for d in drops] == list(range(1, 8))
