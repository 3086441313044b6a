"""The web app without a browser: token, read-only feed, recordings folder jail, roll-log wiring."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import threading

import numpy as np
import pytest

from reader.recording import RecordingWriter
from reader.rolllog import RollLog
from reader.web.evidence import RollLogger
from reader.web.hub import Hub
from reader.web.server import WebServer, make_app
from reader.web.state import TableState, decision_text, set_up_text

TOKEN = "t0ken-for-tests"
SECRET = b"SECRET-OUTSIDE-THE-RECORDINGS"


def write_roll(root, name="0001", frames=3):
    w = RecordingWriter(root / name, rules={"procedure": "banish", "cards": ["A", "B", "C"]})
    for i in range(frames):
        w.add_frame(np.full((48, 64, 3), 40 * i, np.uint8))
    w.add_event("settled", frame=frames - 1, still_s=0.6, latency_s=0.62)
    w.add_event("reading", frame=frames - 1, dice=[{"die": "d6", "value": 2, "box": [5, 5, 20, 20],
                                                   "confidence": 0.95, "state": "flat"}])
    w.add_event("decision", die="d6", value=2, result="banish", position=2, card="B")
    return w.close()


@pytest.fixture()
def served(tmp_path):
    root = tmp_path / "rolls"
    root.mkdir()
    write_roll(root, "0001")
    (root / "0002.partial").mkdir()  # a crash left this one
    (tmp_path / "secret.jpg").write_bytes(SECRET)
    os.symlink(tmp_path / "secret.jpg", root / "0001" / "frames" / "link.jpg")
    log = RollLog(tmp_path / "rolls.db")
    hub = Hub()
    logger = RollLogger(log, hub.publish, root)
    hub.listen(logger)
    server = WebServer(make_app(hub, log, TOKEN, root), "127.0.0.1", 0).start()
    yield server, hub, log, root
    server.stop()
    log.close()


def request(server, method, path, body=None, headers=None):
    """A raw HTTP request: the path goes out exactly as written (no client-side normalising)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
    conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
    r = conn.getresponse()
    out = r.status, r.read(), dict(r.getheaders())
    conn.close()
    return out


def run_in_own_loop(coroutine_fn):
    """asyncio.run on a thread of its own (a browser test's Playwright may own this thread's loop)."""
    out = {}

    def target():
        try:
            out["value"] = asyncio.run(coroutine_fn())
        except BaseException as exc:  # re-raised in the test's thread
            out["error"] = exc

    t = threading.Thread(target=target)
    t.start()
    t.join(60)
    if "error" in out:
        raise out["error"]
    return out["value"]


def roll_event(hub, name="0005", value=3, die="d8"):
    hub.publish({"type": "reading", "roll": name, "frame": 7,
                 "dice": [{"die": die, "value": value, "box": [1, 1, 9, 9], "confidence": 0.9, "state": "flat"}]})
    hub.publish({"type": "decision", "roll": name, "die": die, "value": value, "result": "banish",
                 "position": value, "card": "X"})
    hub.publish({"type": "roll_saved", "roll": name, "path": "/elsewhere/" + name})


JUDGE_ENDPOINTS = [("POST", "/api/override"), ("POST", "/api/reroll"), ("GET", "/api/log"),
                   ("GET", "/api/frame.jpg")]


@pytest.mark.parametrize("method,path", JUDGE_ENDPOINTS, ids=[p for _, p in JUDGE_ENDPOINTS])
@pytest.mark.parametrize("headers,status", [
    ({}, 401),                                    # no token at all
    ({"X-Judge-Token": "nope"}, 403),             # a guessed token
    ({"X-Judge-Token": TOKEN[:-1]}, 403),         # almost the token
], ids=["no-token", "wrong-token", "prefix-of-token"])
def test_every_judge_action_needs_the_token(served, method, path, headers, status):
    server, hub, log, _ = served
    roll_event(hub)
    before = log.head()
    code, body, _ = request(server, method, path, {"of": 1, "die": 0, "value": 1, "reason": "x"}
                            if method == "POST" else None, headers)
    assert code == status and "token" in json.loads(body)["error"]
    assert log.head() == before


def test_the_token_works_in_the_query_too_and_the_overlay_needs_none(served):
    server, hub, log, _ = served
    roll_event(hub)
    assert request(server, "GET", f"/api/log?token={TOKEN}")[0] == 200
    for path in ("/overlay", "/overlay.js", "/feed.js", "/api/state", "/replay", "/judge"):
        assert request(server, "GET", path)[0] == 200, path


@pytest.mark.parametrize("body,words", [
    ({"of": 1, "die": 0, "value": 5}, "needs a reason"),
    ({"of": 1, "die": 0, "value": 5, "reason": "   "}, "needs a reason"),
    ({"of": 1, "die": 0, "value": 9, "reason": "saw a 9"}, "cannot show 9"),  # a D8
    ({"of": 99, "die": 0, "value": 5, "reason": "saw a 5"}, "not a roll"),
    ({"die": 0, "value": 5, "reason": "saw a 5"}, "needs 'of'"),
    (b"not json", "must be JSON"),
], ids=["no-reason", "blank-reason", "impossible-value", "no-such-entry", "no-target", "not-json"])
def test_a_bad_override_is_refused_and_nothing_is_logged(served, body, words):
    server, hub, log, _ = served
    roll_event(hub)
    before = log.head()
    code, text, _ = request(server, "POST", "/api/override", body, {"X-Judge-Token": TOKEN})
    assert code == 400 and words in json.loads(text)["error"]
    assert log.head() == before


def test_an_override_is_a_new_entry_and_reaches_the_pages(served):
    server, hub, log, _ = served
    roll_event(hub)
    seq = hub.snapshot()["roll"]["log_seq"]
    code, text, _ = request(server, "POST", "/api/override",
                            {"of": seq, "die": 0, "value": 6, "reason": "glare; judge saw a 6"},
                            {"X-Judge-Token": TOKEN})
    assert code == 200
    entry = log.get(json.loads(text)["seq"])
    assert entry.kind == "override" and entry.payload["of"] == seq and entry.roll == "0005"
    view = hub.snapshot()["roll"]
    assert view["dice"][0]["value"] == 6 and view["dice"][0]["overridden"]
    assert log.verify().ok


def test_the_judge_calls_a_roll_again(served):
    server, hub, log, _ = served
    roll_event(hub)
    code, text, _ = request(server, "POST", "/api/reroll", {"reason": "die left the tray"},
                            {"X-Judge-Token": TOKEN})
    assert code == 200
    e = log.get(json.loads(text)["seq"])
    assert e.kind == "reroll" and e.roll == "0005" and e.payload["reason"] == "die left the tray"
    assert hub.snapshot()["roll"]["decision_text"] == "Judge: roll again"


TRAVERSALS = [
    # (id, path) — each must be refused, never answered with a file outside the recordings folder
    ("dot-dot", "/rec/0001/../../secret.jpg"),
    ("encoded-dot-dot", "/rec/0001/..%2F..%2Fsecret.jpg"),
    ("double-encoded", "/rec/0001/%252e%252e%252fsecret.jpg"),
    ("dot-dot-in-name", "/rec/..%2Fsecret.jpg/x.jpg"),
    ("absolute-in-path", "/rec/0001/%2Fetc%2Fpasswd"),
    ("symlink-out", "/rec/0001/frames/link.jpg"),
    ("deep-dot-dot", "/rec/0001/frames/../../../secret.jpg"),
    ("log-file", "/rec/0001/../../rolls.db"),
    ("not-a-recording-file", "/rec/0001/frames/../../../../etc/hostname"),
]


@pytest.mark.parametrize("path", [t[1] for t in TRAVERSALS], ids=[t[0] for t in TRAVERSALS])
def test_no_file_outside_the_recordings_folder_is_served(served, path):
    server, *_ = served
    code, body, _ = request(server, "GET", path)
    assert code in (403, 404)
    assert SECRET not in body and b"root:" not in body


def test_recorded_rolls_are_listed_and_served_for_replay(served):
    server, *_ = served
    code, body, _ = request(server, "GET", "/api/rolls")
    listing = json.loads(body)
    assert [r["name"] for r in listing["rolls"]] == ["0001"] and listing["partials"] == ["0002.partial"]
    code, body, _ = request(server, "GET", "/api/rolls/0001")
    roll = json.loads(body)
    assert [f["index"] for f in roll["frames"]] == [0, 1, 2]
    assert [e["type"] for e in roll["events"] if e["type"] in ("reading", "decision")] == ["reading", "decision"]
    code, body, headers = request(server, "GET", "/rec/0001/" + roll["frames"][2]["file"])
    assert code == 200 and headers["Content-Type"] == "image/jpeg" and body[:2] == b"\xff\xd8"
    code, body, _ = request(server, "GET", "/api/rolls/0002.partial")
    assert code == 404 and "unfinished" in json.loads(body)["error"]


def test_the_feed_is_read_only_and_pushes_every_change(served):
    server, hub, log, _ = served
    import aiohttp

    async def scenario():
        async with aiohttp.ClientSession() as s:
            async with s.ws_connect(f"{server.url}/ws") as ws:
                first = json.loads((await ws.receive()).data)
                assert first["kind"] == "snapshot" and first["state"]["roll"] is None
                # a page tries to act through the feed: ignored
                await ws.send_str(json.dumps({"type": "override", "of": 1, "die": 0, "value": 1,
                                              "reason": "from the overlay"}))
                await ws.send_str("garbage")
                threading.Thread(target=roll_event, args=(hub, "0009", 4)).start()
                seen = []
                while True:
                    msg = json.loads((await asyncio.wait_for(ws.receive(), 5)).data)
                    seen.append(msg["state"]["version"])
                    roll = msg["state"]["roll"]
                    if roll and roll["log_seq"]:
                        return seen, roll

    seen, roll = run_in_own_loop(scenario)
    assert seen == sorted(seen)  # versions arrive in order
    assert roll["name"] == "0009" and roll["dice"][0]["value"] == 4
    assert [e.kind for e in log.entries()] == ["roll"]  # nothing came from the feed


def test_a_roll_is_logged_with_its_recording_and_a_roll_that_was_never_saved_still_is(tmp_path):
    root = tmp_path / "rolls"
    log = RollLog(tmp_path / "rolls.db")
    published = []
    logger = RollLogger(log, published.append, root)
    logger({"type": "roll_started", "roll": "0001"})
    logger({"type": "reading", "roll": "0001", "frame": 4, "dice": [{"die": "d6", "value": 6}]})
    logger({"type": "decision", "roll": "0001", "result": "rolled", "player": "A", "dice": [6, 1], "total": 7})
    logger({"type": "decision", "roll": "0001", "result": "first", "player": "A", "totals": {"A": 7, "B": 5}})
    logger({"type": "roll_saved", "roll": "0001", "path": str(root / "0001")})
    # roll 2 is read, but its recording fails (full disk): no roll_saved; roll 3 starts
    logger({"type": "reading", "roll": "0002", "frame": 2, "dice": [{"die": "d6", "value": 2}]})
    logger({"type": "roll_started", "roll": "0003"})
    e1, e2 = list(log.entries())
    assert e1.recording == "0001" and e1.payload["frame"] == 4
    assert [d["result"] for d in e1.payload["decisions"]] == ["rolled", "first"]
    assert e2.roll == "0002" and e2.payload["decisions"] == []
    assert published == [{"type": "logged", "roll": "0001", "seq": 1}, {"type": "logged", "roll": "0002", "seq": 2}]
    logger.close()  # roll 3 has no reading: nothing to log
    assert log.head()[0] == 2 and log.verify().ok


@pytest.mark.parametrize("event,text", [
    ({"result": "banish", "position": 3, "card": "C", "die": "d8", "value": 3}, "Banished: #3 C"),
    ({"result": "banish", "position": 1, "card": "Z", "by": "only-card"}, "Banished: #1 Z (last card)"),
    ({"result": "reroll", "die": "d8", "value": 8}, "8 names no card: roll again"),
    ({"result": "roll-again", "die": "d6", "reason": "cocked", "player": "Ann"}, "Ann: cocked: roll again"),
    ({"result": "tie", "total": 7, "round": 1}, "Tie at 7: both roll again"),
    ({"result": "first", "player": "Bob", "totals": {"Ann": 5, "Bob": 9}, "round": 2}, "Bob goes first (5 vs 9)"),
    ({"result": "done", "banished": [{"position": 3, "card": "C"}], "remaining": []}, "Banish complete: #3 C"),
], ids=["banish", "last-card", "reroll", "cocked", "tie", "first", "done"])
def test_decisions_read_as_a_viewer_would_say_them(event, text):
    assert decision_text(event) == text


def test_a_banish_and_then_done_keeps_the_banish_on_screen():
    s = TableState(clock=lambda: 1.0)
    s.apply({"type": "reading", "roll": "0001", "dice": [{"die": "d6", "value": 2}]})
    s.apply({"type": "decision", "roll": "0001", "result": "banish", "position": 2, "card": "B"})
    s.apply({"type": "decision", "roll": "0001", "result": "done", "banished": [], "remaining": []})
    assert s.snapshot()["roll"]["decision_text"] == "Banished: #2 B"
    assert not s.apply({"type": "some_future_event"})  # unknown events change nothing
    s.apply({"type": "camera_lost"})
    assert s.snapshot()["status"]["camera"] == "lost"


def test_the_judge_frame_has_the_boxes_drawn(served):
    import cv2

    server, hub, *_ = served
    assert request(server, "GET", "/api/frame.jpg", headers={"X-Judge-Token": TOKEN})[0] == 503
    hub.set_frame(12, np.zeros((240, 320, 3), np.uint8),
                  [{"die": "d6", "value": 4, "box": [50, 50, 150, 150], "confidence": 0.9, "state": "flat"}])
    code, body, headers = request(server, "GET", "/api/frame.jpg", headers={"X-Judge-Token": TOKEN})
    assert code == 200 and headers["X-Frame-Index"] == "12"
    img = cv2.imdecode(np.frombuffer(body, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape == (480, 640, 3)  # a small frame is shown enlarged (2x), boxes with it
    assert img[100, 200].max() > 100 and img[200, 200].max() < 30  # box edge drawn, inside untouched


def test_a_failing_roll_log_never_stops_the_loop_and_the_pages_are_told(tmp_path):
    log = RollLog(tmp_path / "rolls.db")
    hub = Hub()
    hub.listen(RollLogger(log, hub.publish, tmp_path))
    log.close()  # the log becomes unusable under the server (disk gone, file closed)
    roll_event(hub, "0001")  # must not raise into the live loop
    history = hub.snapshot()["history"]
    assert any(h["text"].startswith("ROLL LOG ERROR") for h in history)


def test_a_hand_in_the_tray_clears_the_rolling_roll_and_is_noted():
    s = TableState()
    s.apply({"type": "roll_started", "roll": "0004"})
    assert s.snapshot()["roll"]["name"] == "0004"  # the overlay says "Rolling…"
    s.apply({"type": "not_a_roll", "reason": "a hand in the tray"})
    snap = s.snapshot()
    assert snap["roll"] is None and snap["history"][-1]["text"] == "not a roll: a hand in the tray"


@pytest.mark.parametrize("host,status", [
    ("127.0.0.1", 200), ("localhost:8765", 200), ("[::1]:8765", 200),
    ("evil.example", 403), ("evil.example:8765", 403), ("127.0.0.1.evil.example", 403),
], ids=["ip", "localhost", "ipv6", "other-site", "other-site-port", "lookalike"])
def test_a_local_server_answers_only_to_local_names(served, host, status):
    """A page on another site cannot reach the table through DNS rebinding."""
    server, *_ = served
    assert request(server, "GET", "/api/state", headers={"Host": host})[0] == status


def test_a_die_left_in_the_tray_is_shown_to_the_judge_but_not_counted():
    s = TableState(clock=lambda: 1.0)
    s.apply({"type": "reading", "roll": "0003", "frame": 9,
             "dice": [{"die": "d6", "value": 3, "box": [1, 1, 9, 9], "state": "flat"}],
             "unmoved": [{"die": "d6", "value": 6, "box": [20, 1, 29, 9], "state": "flat"}]})
    roll = s.snapshot()["roll"]
    assert [d["value"] for d in roll["dice"]] == [3]
    assert [d["value"] for d in roll["unmoved"]] == [6]


VIEW = {"hfov": 75.0, "tilt": 20.0, "toward": 270.0, "lean": True}


NO_ANGLE = ("none described: read with no camera angle known (a die cocked against the wall or another die "
            "can pass for flat: look at the photo)")


@pytest.mark.parametrize("camera,text", [
    (None, NO_ANGLE),
    ({"source": "camera:0"}, NO_ANGLE),
    ({"view": {"hfov": 66.0, "tilt": 18.0}}, "described: camera 66 deg wide, tilted 18 (no lean look: a die cocked "
                                               "against the wall or another die can pass for flat: look at the photo)"),
    ({"view": {"hfov": 66.0, "tilt": 18.0, "lean": True}}, "described: camera 66 deg wide, tilted 18, lean look"),
    ({"view": VIEW, "guessed": {"dice": 7, "over_straight": 4.1}},
     "guessed from the 7 dice of the rolls so far: camera 75 deg wide, tilted 20 toward the left, lean look"),
    ({"view": VIEW, "guessed": {"dice": 4, "over_straight": 4.1, "dropped": 12}},
     "guessed from the 4 dice of the rolls so far: camera 75 deg wide, tilted 20 toward the left, lean look; "
     "the camera seemed to have moved, the 12 dice of the earlier rolls dropped"),
    ({"view": {"tilt": 5}}, "unrecognised set-up {'tilt': 5}"),
    ("camera:0", NO_ANGLE),
], ids=["no-camera", "no-view", "described without the lean look", "described with it", "guessed",
        "guessed-after-a-move", "garbled", "not-a-dict"])
def test_the_judge_is_told_the_set_up_each_roll_was_read_with(camera, text):
    assert set_up_text(camera) == text
    s = TableState(clock=lambda: 1.0)
    s.apply({"type": "reading", "roll": "0002", "dice": [], **({"camera": camera} if camera else {})})
    assert s.snapshot()["roll"]["set_up"] == text
