"""The roll log: append-only, hash-chained, verifiable after hand edits and crashes."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from reader import rolllog
from reader.cli import main
from reader.rolllog import GENESIS, RollLog, RollLogError, entry_hash

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def only_the_log_command(monkeypatch):
    """Build the CLI with this command alone, so a colleague's half-written command cannot break it."""
    from reader import cli

    monkeypatch.setattr(cli, "COMMANDS", {"log": "log"})


def roll_payload(i: int) -> dict:
    return {"dice": [{"die": "d8", "value": (i % 8) + 1, "box": [10, 10, 50, 50], "confidence": 0.97,
                      "state": "flat"}],
            "decision": {"result": "banish", "position": (i % 5) + 1, "card": f"Card {i % 5}"}}


def make_log(path: Path, n: int = 5) -> None:
    with RollLog(path) as log:
        log.append("match", {"players": ["Ann", "Bob"], "procedure": "banish", "cards": ["A", "B", "C"]})
        for i in range(1, n):
            log.append("roll", roll_payload(i), roll=f"{i:04d}", recording=f"{i:04d}")


def hand_edit(path: Path, *sql: str) -> None:
    """What someone with the sqlite3 shell could do: drop the guards, then change rows."""
    db = sqlite3.connect(path)
    db.execute("DROP TRIGGER entries_append_only_update")
    db.execute("DROP TRIGGER entries_append_only_delete")
    for stmt in sql:
        db.execute(stmt)
    db.commit()
    db.close()


def verify_cli(path: Path, capsys, *extra: str) -> tuple[int, str]:
    code = main(["log", "verify", str(path), *extra])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_a_fresh_log_verifies_and_chains_each_entry_to_the_one_before(tmp_path, capsys):
    path = tmp_path / "rolls.db"
    make_log(path, 4)
    with RollLog(path) as log:
        entries = list(log.entries())
        assert [e.seq for e in entries] == [1, 2, 3, 4]
        assert entries[0].prev == GENESIS
        for before, after in zip(entries, entries[1:]):
            assert after.prev == before.hash == entry_hash(before.body())
        assert entries[1].recording == "0001"  # each roll points at its recorded frames
        verdict = log.verify()
        assert verdict.ok and verdict.count == 4 and verdict.head == entries[-1].hash
        assert db_journal_mode(path) == "wal"
    code, text = verify_cli(path, capsys)
    assert code == 0 and "ok: 4 entries" in text and entries[-1].hash in text


def db_journal_mode(path: Path) -> str:
    db = sqlite3.connect(path)
    try:
        return db.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        db.close()


@pytest.mark.parametrize("sql", [
    "UPDATE entries SET payload = '{}' WHERE seq = 2",
    "DELETE FROM entries WHERE seq = 2",
], ids=["update-refused", "delete-refused"])
def test_the_log_refuses_changes_to_written_entries(tmp_path, sql):
    path = tmp_path / "rolls.db"
    make_log(path, 3)
    db = sqlite3.connect(path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute(sql)
    db.close()
    with RollLog(path) as log:
        assert log.verify().ok


def _rewrite_entry_3_with_a_fresh_hash(path: Path) -> list[str]:
    """A careful forger: changes entry 3's value AND recomputes its hash."""
    with RollLog(path) as log:
        e = log.get(3)
    payload = dict(e.payload, decision={"result": "banish", "position": 1, "card": "A"})
    body = dict(e.body(), payload=payload)
    return [f"UPDATE entries SET payload = '{rolllog.canonical_json(payload)}', "
            f"hash = '{entry_hash(body)}' WHERE seq = 3"]


HAND_EDITS = [
    # (id, sql statements, first bad entry named, words in the message)
    ("value-changed", ["UPDATE entries SET payload = json_set(payload, '$.dice[0].value', 1) WHERE seq = 3"],
     3, "changed"),
    ("timestamp-changed", ["UPDATE entries SET ts = '2020-01-01T00:00:00Z' WHERE seq = 2"], 2, "changed"),
    ("recording-pointer-changed", ["UPDATE entries SET recording = '0009' WHERE seq = 4"], 4, "changed"),
    ("middle-entry-removed", ["DELETE FROM entries WHERE seq = 3"], 3, "missing"),
    ("entries-reordered", ["UPDATE entries SET seq = 100 WHERE seq = 2",
                           "UPDATE entries SET seq = 2 WHERE seq = 3",
                           "UPDATE entries SET seq = 3 WHERE seq = 100"], 2, "does not follow"),
    ("last-entry-removed", ["DELETE FROM entries WHERE seq = 5"], 5, "removed from the end"),
    ("forged-hash-breaks-the-next-link", None, 4, "does not follow"),
]


@pytest.mark.parametrize("sql,bad,words", [h[1:] for h in HAND_EDITS], ids=[h[0] for h in HAND_EDITS])
def test_verify_names_the_first_entry_edited_by_hand(tmp_path, capsys, sql, bad, words):
    path = tmp_path / "rolls.db"
    make_log(path, 5)
    assert verify_cli(path, capsys)[0] == 0
    hand_edit(path, *(sql if sql is not None else _rewrite_entry_3_with_a_fresh_hash(path)))
    code, text = verify_cli(path, capsys)
    assert code == 1
    assert f"BAD entry {bad}" in text and words in text


def test_a_rewritten_log_with_a_consistent_chain_fails_against_the_head_written_down(tmp_path, capsys):
    path = tmp_path / "rolls.db"
    make_log(path, 5)
    code, text = verify_cli(path, capsys)
    noted_head = text.split("head ")[1].split()[0]
    # Cut the last entry off and fix the head record too: the chain alone cannot tell...
    with RollLog(path) as log:
        e4 = log.get(4)
    hand_edit(path, "DELETE FROM entries WHERE seq = 5", f"UPDATE head SET seq = 4, hash = '{e4.hash}'")
    assert verify_cli(path, capsys)[0] == 0
    # ...but the head hash the judge wrote down can.
    code, text = verify_cli(path, capsys, "--head", noted_head)
    assert code == 1 and "rewritten" in text


CRASHER = textwrap.dedent("""
    import os, signal, sys
    from reader import rolllog
    log = rolllog.RollLog(sys.argv[1])
    for i in range(1, 1001):
        log.append("roll", {"dice": [{"die": "d6", "value": i % 6 + 1, "box": [0, 0, 9, 9],
                                      "confidence": 0.9, "state": "flat"}], "decision": None},
                   roll="%04d" % i, recording="%04d" % i)
    print("written", flush=True)
    def crash(db, seq, h):  # the entry row is inserted, the transaction is open: die right here
        os.kill(os.getpid(), signal.SIGKILL)
    rolllog._update_head = crash
    # a big entry: SQLite spills its pages into the WAL file before the commit that never comes
    log.append("roll", {"dice": [], "decision": "never committed", "pad": "x" * 8_000_000}, roll="1001")
    print("not reached", flush=True)
""")


def test_verify_passes_after_1000_rolls_and_a_process_killed_while_writing_one(tmp_path, capsys):
    path = tmp_path / "rolls.db"
    proc = subprocess.run([sys.executable, "-c", CRASHER, str(path)], cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == -9, proc.stderr  # killed by SIGKILL mid-transaction
    assert "written" in proc.stdout and "not reached" not in proc.stdout
    wal = path.with_name(path.name + "-wal")
    assert wal.stat().st_size > 4_000_000  # the half-written entry really reached the disk
    code, text = verify_cli(path, capsys)
    assert code == 0, text
    assert "ok: 1000 entries" in text
    with RollLog(path) as log:
        assert log.get(1001) is None  # the half-written entry is gone whole
        e = log.append("roll", roll_payload(1), roll="1001", recording="1001")
        assert e.seq == 1001 and e.prev == log.get(1000).hash
        assert log.verify().ok


def test_an_exception_in_the_middle_of_an_append_leaves_nothing_behind(tmp_path, monkeypatch):
    path = tmp_path / "rolls.db"
    make_log(path, 3)

    def boom(db, seq, h):
        raise OSError("disk went away")

    with RollLog(path) as log:
        monkeypatch.setattr(rolllog, "_update_head", boom)
        with pytest.raises(OSError):
            log.append("roll", roll_payload(9), roll="0009")
        monkeypatch.undo()
        assert log.get(4) is None and log.verify().ok
        assert log.append("note", {"text": "after the error"}).seq == 4
        assert log.verify().ok


OVERRIDES = [
    # (id, kwargs, error words) — what a judge may and may not do
    ("no-reason", dict(of=2, die=0, value=3, reason="  "), "needs a reason"),
    ("not-a-roll", dict(of=1, die=0, value=3, reason="saw a 3"), "not a roll"),
    ("no-such-die", dict(of=2, die=4, value=3, reason="saw a 3"), "no die 4"),
    ("value-the-die-cannot-show", dict(of=2, die=0, value=9, reason="saw a 9"), "cannot show 9"),
]


@pytest.mark.parametrize("kwargs,words", [o[1:] for o in OVERRIDES], ids=[o[0] for o in OVERRIDES])
def test_an_override_is_refused_without_a_reason_or_a_real_target(tmp_path, kwargs, words):
    path = tmp_path / "rolls.db"
    make_log(path, 3)
    with RollLog(path) as log, pytest.raises(Exception, match=words):
        log.append_override(**kwargs)
    with RollLog(path) as log:
        assert log.head()[0] == 3


def test_an_override_is_a_new_entry_that_leaves_the_roll_untouched(tmp_path):
    path = tmp_path / "rolls.db"
    make_log(path, 3)
    with RollLog(path) as log:
        before = log.get(2)
        o = log.append_override(of=2, die=0, value=5, reason="die was tilted, 5 clearly up", by="judge")
        assert o.seq == 4 and o.kind == "override" and o.roll == before.roll
        assert o.payload["was"]["value"] == before.payload["dice"][0]["value"]
        assert o.payload["value"] == 5 and o.payload["reason"].startswith("die was tilted")
        assert log.get(2) == before and log.verify().ok


def test_export_writes_every_entry_with_its_hash_as_jsonl_and_csv(tmp_path, capsys):
    path = tmp_path / "rolls.db"
    make_log(path, 4)
    out = tmp_path / "appeal.jsonl"
    assert main(["log", "export", str(path), "--format", "jsonl", "--out", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [e["seq"] for e in lines] == [1, 2, 3, 4]
    for e in lines:  # an appeal committee can recompute every hash from the export alone
        assert entry_hash({k: v for k, v in e.items() if k != "hash"}) == e["hash"]
    capsys.readouterr()
    assert main(["log", "export", str(path), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 4 and rows[1]["recording"] == "0001"
    assert json.loads(rows[1]["payload"])["decision"]["card"] == "Card 1"


def test_export_of_a_tampered_log_still_writes_but_says_so(tmp_path, capsys):
    path = tmp_path / "rolls.db"
    make_log(path, 4)
    hand_edit(path, "UPDATE entries SET roll = '0003' WHERE seq = 2")
    assert main(["log", "export", str(path)]) == 1
    assert "BAD entry 2" in capsys.readouterr().err


@pytest.mark.parametrize("prepare,words", [
    (lambda p: None, "no roll log"),  # missing file
    (lambda p: p.write_bytes(b"not a database at all" * 100), "cannot be opened"),
    (lambda p: sqlite3.connect(p).execute("CREATE TABLE t (x)"), "not a dice-reader roll log"),
], ids=["missing-file", "garbage-file", "foreign-sqlite"])
def test_verify_of_something_that_is_not_a_roll_log_is_one_clear_line(tmp_path, capsys, prepare, words):
    path = tmp_path / "x.db"
    prepare(path)
    assert main(["log", "verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_unknown_kinds_and_non_json_payloads_are_refused(tmp_path):
    with RollLog(tmp_path / "rolls.db") as log:
        with pytest.raises(RollLogError, match="unknown log entry kind"):
            log.append("edit", {})
        with pytest.raises(RollLogError, match="plain JSON"):
            log.append("note", {"x": float("nan")})
        assert log.head()[0] == 0
