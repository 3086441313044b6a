"""`dice-reader serve` end to end: the live loop on recorded rolls feeds the pages and the roll log."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from reader.cli import build_parser, main
from reader.rolllog import RollLog
from tray_fakes import TruthRecognizer, make_rolls

REPO = Path(__file__).resolve().parents[1]
TOKEN = "serve-test-token"

# serve in a child process, with the fake recognizer that reads the rolls' recorded truth
SERVE = textwrap.dedent("""
    # Ctrl-C is how the test stops the server; a shell's background job (CI run with &)
    # starts its children with SIGINT ignored, and Python then never raises KeyboardInterrupt
    import signal
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from tray_fakes import TruthRecognizer
    import reader.commands.replay as replay
    fake = TruthRecognizer(Path(sys.argv[2]))
    replay.load_recognizer = lambda models=None: fake
    from reader.cli import main
    sys.exit(main(sys.argv[3:]))
""")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, token=None):
    req = urllib.request.Request(url, headers={"X-Judge-Token": token} if token else {})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def post(url, body, token):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"X-Judge-Token": token, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def serve_banish(src, out, port) -> subprocess.Popen:
    """`serve` in a child on the recorded rolls in src: banish two of A-E with a D6."""
    env = dict(os.environ, DICE_READER_JUDGE_TOKEN=TOKEN, PYTHONPATH=str(REPO))
    return subprocess.Popen(
        [sys.executable, "-c", SERVE, str(REPO / "tests"), str(src), "serve", "--source", f"recording:{src}",
         "--banish", "--cards", "A,B,C,D,E", "--count", "2", "--die", "d6", "--out", str(out),
         "--port", str(port)],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_line(proc, words, timeout=60.0) -> list[str]:
    lines, end = [], time.time() + timeout
    while time.time() < end:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if words in line:
            return lines
    raise AssertionError(f"{words!r} never printed; got {lines}")


def test_serve_runs_the_loop_logs_every_roll_and_serves_the_match(tmp_path):
    src = make_rolls(tmp_path / "src", [[("d6", 6)], [("d6", 3)], [("d6", 2)]])
    out, port = tmp_path / "out", free_port()
    proc = serve_banish(src, out, port)
    try:
        lines = wait_for_line(proc, "still serving")
        assert f"judge's view: http://127.0.0.1:{port}/judge?token={TOKEN}" in lines
        base = f"http://127.0.0.1:{port}"

        state = get(base + "/api/state")
        assert state["roll"]["name"] == "0003" and state["roll"]["decision_text"] == "Banished: #2 B"
        assert state["match"]["done"] and state["match"]["remaining"] == ["A", "D", "E"]

        log = get(base + "/api/log", TOKEN)
        kinds = [(e["kind"], e["roll"]) for e in log["entries"]]
        assert kinds == [("match", None), ("roll", "0001"), ("roll", "0002"), ("roll", "0003")]
        for e in log["entries"][1:]:  # each roll entry points at its recording, which is there
            assert (out / e["recording"] / "manifest.json").is_file()
        assert [d["result"] for d in log["entries"][2]["payload"]["decisions"]] == ["banish"]

        assert [r["name"] for r in get(base + "/api/rolls")["rolls"]] == ["0001", "0002", "0003"]
        with pytest.raises(urllib.error.HTTPError) as refused:
            post(base + "/api/override", {"of": 4, "die": 0, "value": 4, "reason": "x"}, "wrong")
        assert refused.value.code == 403

        # the judge reads the last roll as a 4, not a 2: the rules decide that roll again
        res = post(base + "/api/override", {"of": 4, "die": 0, "value": 4, "reason": "2 was a misread 4"},
                   TOKEN)
        assert res["seq"] == 5 and res["redecided"]["seq"] == 6
        state = get(base + "/api/state")
        assert state["roll"]["decision_text"] == "Banished: #4 E"  # A, B, D, E left after C: 4 is E
        assert state["roll"]["dice"][0]["overridden"] and state["roll"]["judge_reason"] == "2 was a misread 4"
        assert state["match"]["remaining"] == ["A", "B", "D"] and state["match"]["done"]

        # an older roll can be overridden (logged) but its decision is not changed
        res = post(base + "/api/override", {"of": 2, "die": 0, "value": 5, "reason": "6 was a 5"}, TOKEN)
        assert res["seq"] == 7 and res["redecided"] is None
        assert get(base + "/api/state")["match"]["remaining"] == ["A", "B", "D"]

        # the judge calls the last roll again: its banish is taken back
        res = post(base + "/api/reroll", {"reason": "die bounced off the tray"}, TOKEN)
        assert res["seq"] == 8
        state = get(base + "/api/state")
        assert state["match"]["remaining"] == ["A", "B", "D", "E"] and not state["match"]["done"]
        assert state["roll"]["decision_text"] == "Judge: roll again"
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 0, proc.stderr.read()
    with RollLog(out / "rolls.db") as log:
        assert log.verify().ok
        assert [e.kind for e in log.entries()] == ["match", "roll", "roll", "roll", "override", "roll",
                                                   "override", "reroll"]
        assert log.get(5).payload["reason"] == "2 was a misread 4" and log.get(5).payload["of"] == 4
        corrected = log.get(6)
        assert corrected.payload["corrects"] == 5 and corrected.recording == "0003"
        assert corrected.payload["decisions"][0] == {"die": "d6", "value": 4, "result": "banish",
                                                     "position": 4, "card": "E"}
        assert log.get(4).payload["decisions"][0]["card"] == "B"  # the original stays as it was


def test_a_service_manager_s_stop_shuts_serve_down_cleanly(tmp_path):
    """systemd and `docker stop` send SIGTERM: the judge's log and the rolls end as after Ctrl-C."""
    src = make_rolls(tmp_path / "src", [[("d6", 6)], [("d6", 3)]])
    out, port = tmp_path / "out", free_port()
    proc = serve_banish(src, out, port)
    try:
        wait_for_line(proc, "still serving")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            stdout, stderr = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 0, stderr
    assert "stopped serving" in stdout
    assert not list(out.glob("*.partial"))
    with RollLog(out / "rolls.db") as log:
        assert log.verify().ok
        assert [e.kind for e in log.entries()] == ["match", "roll", "roll"]


def test_serve_binds_to_this_machine_only_unless_told():
    args = build_parser().parse_args(["serve", "--source", "fake:squares"])
    assert args.host == "127.0.0.1" and args.port == 8765


@pytest.fixture
def fake_models(tmp_path, monkeypatch):
    src = make_rolls(tmp_path / "src", [[("d6", 6)]])
    monkeypatch.setattr("reader.commands.replay.load_recognizer", lambda models=None: TruthRecognizer(src))
    return src


def test_serve_refuses_to_append_to_a_log_that_does_not_verify(tmp_path, capsys, fake_models):
    db = tmp_path / "rolls.db"
    with RollLog(db) as log:
        log.append("note", {"text": "first"})
        log.append("note", {"text": "second"})
    con = sqlite3.connect(db)
    con.execute("DROP TRIGGER entries_append_only_update")
    con.execute("UPDATE entries SET payload = '{\"text\":\"changed\"}' WHERE seq = 1")
    con.commit()
    con.close()
    code = main(["serve", "--source", f"recording:{fake_models}", "--out", str(tmp_path / "out"),
                 "--log", str(db), "--port", "0", "--exit-when-done"])
    err = capsys.readouterr().err
    assert code == 2 and "does not verify" in err and "BAD entry 1" in err


def test_serve_on_a_port_in_use_says_so_in_one_line(tmp_path, capsys, fake_models):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        code = main(["serve", "--source", f"recording:{fake_models}", "--out", str(tmp_path / "out"),
                     "--port", str(port), "--exit-when-done"])
    err = capsys.readouterr().err
    assert code == 2 and f"cannot serve on 127.0.0.1:{port}" in err and "Traceback" not in err


@pytest.mark.parametrize("options, told", [
    pytest.param([], True, id="no camera described: told"),
    pytest.param(["--camera-fov", "66", "--lean-look"], False, id="described with the lean look: quiet"),
])
def test_serve_says_before_the_first_roll_when_a_cocked_die_may_pass_for_flat(tmp_path, capsys, fake_models,
                                                                             options, told):
    # the operator's terminal hears it as watch's does (tests/test_watch.py); the port taken, serve stops there
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        main(["serve", "--source", f"recording:{fake_models}", "--out", str(tmp_path / "out"), *options,
              "--port", str(s.getsockname()[1]), "--exit-when-done"])
    assert ("the tray camera is not described" in capsys.readouterr().err) == told
