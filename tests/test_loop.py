"""The whole live loop driven from recordings: settle, read, decide, record, replay; and faults."""

from __future__ import annotations

import errno

import numpy as np
import pytest

from reader import recording
from reader.commands.replay import replay_roll
from reader.decide import RulesDecider
from reader.errors import DiceReaderError
from reader.loop import LiveLoop, LoopConfig
from reader.recording import RecordingReader, find_partials, list_rolls
from reader.settle import SettleConfig
from reader.sources import Frame, MemorySource, SourceBack, SourceLost, open_source
from tray_fakes import TruthRecognizer, make_rolls, roll_frames, tray


def _run(src, decider, out, recognizer=None, **cfg):
    events = []
    rec = recognizer or TruthRecognizer(src)
    loop = LiveLoop(open_source(f"recording:{src}"), rec, decider,
                    LoopConfig(out_dir=out, **cfg), on_event=events.append)
    return loop.run(), events, rec


def test_banish_from_recorded_rolls_then_replay_gives_the_same_result(tmp_path):
    # 5 cards on a D6: 6 names no card (reroll), 3 banishes C, then 4 cards: 2 banishes B
    src = make_rolls(tmp_path / "src", [[("d6", 6)], [("d6", 3)], [("d6", 2)]])
    summary, events, rec = _run(src, RulesDecider.banish("A,B,C,D,E", count=2, die="d6"),
                                tmp_path / "rolls")
    decisions = [(e["roll"], e["result"], e.get("card")) for e in events if e["type"] == "decision"]
    assert decisions == [("0001", "reroll", None), ("0002", "banish", "C"), ("0003", "banish", "B"),
                         ("0003", "done", None)]
    assert summary.stopped_because == "the rules decided"
    assert rec.calls == 3  # the recognizer ran once per settled roll, never on moving frames

    rolls = list_rolls(tmp_path / "rolls")
    assert [r.name for r in rolls] == ["0001", "0002", "0003"]
    for roll in rolls:
        r = RecordingReader(roll)
        types = [e["type"] for e in r.events]
        assert types.index("motion") < types.index("settled") < types.index("reading") < types.index("decision")
        settled = r.settled()[0]
        assert settled["still_s"] >= 0.5 and settled["latency_s"] >= settled["still_s"]
        # the tray before the throw and the settled frame are kept losslessly, moving frames as JPEG
        files = [e["file"] for e in r.of_type("frame")]
        assert files[0].endswith(".png") and r.of_type("baseline")[0]["frame"] == 0
        assert any(f.endswith(".jpg") for f in files[1:])
        assert next(e for e in r.of_type("frame") if e["index"] == settled["frame"])["file"].endswith(".png")
        assert r.manifest["rules"]["procedure"] == "banish"
    assert RecordingReader(rolls[2]).manifest["rules"]["fed_before"] == [["d6", 6], ["d6", 3]]

    # replay every recorded roll, each on its own: same readings, same decisions
    for roll in rolls:
        result = replay_roll(roll, rec)
        assert result.same, result.differences
        assert result.replayed_decisions == result.recorded_decisions != []


def test_replay_reports_a_model_that_now_reads_differently(tmp_path):
    src = make_rolls(tmp_path / "src", [[("d6", 3)]])
    _run(src, RulesDecider.banish("A,B,C,D,E", die="d6"), tmp_path / "rolls")
    other = make_rolls(tmp_path / "other", [[("d6", 5)]])  # same images, a different "model"
    result = replay_roll(tmp_path / "rolls" / "0001", TruthRecognizer(other))
    assert not result.same
    assert "read D6 5, recorded D6 3" in result.differences[0]
    assert "banish #5 E" in result.differences[1] and "banish #3 C" in result.differences[1]


@pytest.mark.parametrize(
    "dice, reason",
    [
        ([("d8", None)], "cocked"),  # a cocked die is never a value
        ([("d8", 4), ("d8", 2)], "2 dice in the tray"),  # one die per card
        ([("d4", 2)], "D4"),  # a die the rules refuse
    ],
    ids=["cocked", "two dice", "d4"],
)
def test_bad_rolls_are_roll_again_never_a_value(tmp_path, dice, reason):
    src = make_rolls(tmp_path / "src", [dice])
    summary, events, _ = _run(src, RulesDecider.banish("A,B,C,D,E,F,G", die="d8"), tmp_path / "rolls")
    decisions = [e for e in events if e["type"] == "decision"]
    assert [d["result"] for d in decisions] == ["roll-again"]
    assert decisions[0]["value"] is None and reason in decisions[0]["reason"]
    assert summary.rolls[0].outcome == "read"


def test_first_player_from_two_d6_rolls(tmp_path):
    src = make_rolls(tmp_path / "src", [[("d6", 3), ("d6", 4)], [("d6", 6), ("d6", 5)]])
    summary, events, rec = _run(src, RulesDecider.first_player("Ana,Ben"), tmp_path / "rolls")
    results = [(e["result"], e.get("player"), e.get("total")) for e in events if e["type"] == "decision"]
    assert results == [("rolled", "Ana", 7), ("rolled", "Ben", 11), ("first", "Ben", None)]
    assert all(replay_roll(r, rec).same for r in list_rolls(tmp_path / "rolls"))


def test_max_rolls_stops_without_rules(tmp_path):
    src = make_rolls(tmp_path / "src", [[("d8", 1)], [("d8", 2)], [("d8", 3)]])
    summary, events, _ = _run(src, None, tmp_path / "rolls", max_rolls=2)
    assert [r.readings[0]["value"] for r in summary.rolls] == [1, 2]
    assert not [e for e in events if e["type"] == "decision"]


def test_recorded_tower_trigger_goes_through_the_loop(tmp_path):
    src = make_rolls(tmp_path / "src", [[("d6", 2)]], trigger_at=2)
    summary, events, _ = _run(src, None, tmp_path / "rolls")
    trig = [e for e in events if e["type"] == "trigger"]
    assert trig and trig[0]["seq"] == 7 and trig[0]["roll"] == "0001"
    assert RecordingReader(tmp_path / "rolls" / "0001").triggers()[0]["source"] == "tower"


def test_camera_lost_mid_roll_is_reported_and_the_roll_is_not_read(tmp_path):
    frames1, still1, _ = roll_frames(1, seed=3)
    frames2, _, _ = roll_frames(1, seed=4)
    items = frames1[: still1 - 2] + [SourceLost("unplugged"), SourceLost("still gone"),
                                     SourceBack("back")] + frames2
    src = make_rolls(tmp_path / "src", [[("d6", 5)]], seed=3)  # its roll 1 has seed 4: frames2
    rec = TruthRecognizer(src)
    events = []
    loop = LiveLoop(MemorySource(items), rec, RulesDecider.banish("A,B,C,D,E,F", die="d6"),
                    LoopConfig(out_dir=tmp_path / "rolls"), on_event=events.append)
    summary = loop.run()
    types = [e["type"] for e in events]
    assert types.count("camera_lost") == 1 and "camera_back" in types  # reported once, not per retry
    first = summary.rolls[0]
    assert first.outcome == "camera lost" and first.readings == [] and first.decisions == []
    r = RecordingReader(first.path)  # a complete, honest recording: not corrupt, not a reading
    assert r.manifest["outcome"] == "camera lost" and not r.of_type("reading")
    assert "camera lost mid-roll" in r.of_type("note")[0]["text"]
    assert summary.rolls[1].outcome == "read"  # the roll after the camera came back is read
    assert [d["value"] for d in summary.rolls[1].readings] == [5]
    assert rec.calls == 1
    assert summary.camera_losses == 1 and not find_partials(tmp_path / "rolls")


def test_hand_resting_in_the_tray_is_not_a_roll(tmp_path):
    frames, _, _ = roll_frames(1, seed=5, still=2)
    empty = frames[-1]
    pos = [(50, 50)]
    hand_in = [tray(pos, hand=True)] * 10  # arrives, then rests perfectly still
    items = [empty] * 3 + [tray([(60, 40)])] + hand_in
    rec = TruthRecognizer()
    events = []
    summary = LiveLoop(MemorySource(items), rec, None, LoopConfig(out_dir=tmp_path / "rolls"),
                       on_event=events.append).run()
    nar = [e for e in events if e["type"] == "not_a_roll"]
    assert nar and "hand" in nar[0]["reason"]
    assert rec.calls == 0 and summary.rolls == []
    assert not list((tmp_path / "rolls").glob("*"))  # no roll folder, no partial


def test_dice_still_moving_is_never_read(tmp_path):
    h = []
    pos = np.array([[10.0, 10.0]])
    for i in range(60):  # creeping 1 px per frame: small steps, but never still
        pos = pos + 1.0 if i % 2 == 0 else pos
        h.append(tray(pos))
    rec = TruthRecognizer()
    summary = LiveLoop(MemorySource([tray([(10, 10)])] * 3 + h), rec, None,
                       LoopConfig(out_dir=tmp_path / "rolls", settle=SettleConfig(settle_s=0.5))).run()
    assert rec.calls == 0 and not [r for r in summary.rolls if r.outcome == "read"]


class _DiskThatFills:
    def __init__(self, real, quota):
        self.real, self.quota, self.written = real, quota, 0

    def __call__(self, fd, data):
        if self.written + len(data) > self.quota:
            raise OSError(errno.ENOSPC, "No space left on device")
        n = self.real(fd, data)
        self.written += n
        return n


def test_disk_filling_while_recording_stops_with_a_clear_message_and_no_corrupt_roll(tmp_path, monkeypatch):
    src = make_rolls(tmp_path / "src", [[("d6", 1)], [("d6", 2)], [("d6", 3)]])
    rec = TruthRecognizer(src)
    # measure one roll's size, then allow a bit more than one roll
    probe = tmp_path / "probe"
    _run(src, None, probe, recognizer=rec, max_rolls=1)
    one_roll = sum(f.stat().st_size for f in (probe / "0001").rglob("*") if f.is_file())
    disk = _DiskThatFills(recording._os_write, int(one_roll * 1.5))
    monkeypatch.setattr(recording, "_os_write", disk)
    events = []
    loop = LiveLoop(open_source(f"recording:{src}"), rec, None,
                    LoopConfig(out_dir=tmp_path / "rolls"), on_event=events.append)
    with pytest.raises(DiceReaderError, match="disk full"):
        loop.run()
    assert [r.name for r in list_rolls(tmp_path / "rolls")] == ["0001"]
    assert RecordingReader(tmp_path / "rolls" / "0001").readings  # the first roll is intact
    assert find_partials(tmp_path / "rolls") == [tmp_path / "rolls" / "0002.partial"]
    with pytest.raises(DiceReaderError, match="unfinished"):
        RecordingReader(tmp_path / "rolls" / "0002")
    assert any("disk full" in e.get("text", "") for e in events)


class _BrokenRecognizer:
    def read_frame(self, bgr):
        raise RuntimeError("model exploded")


def test_a_recognizer_failure_is_roll_again_and_the_loop_goes_on(tmp_path):
    src = make_rolls(tmp_path / "src", [[("d6", 3)], [("d6", 4)]])
    summary, events, _ = _run(src, RulesDecider.banish("A,B,C,D,E", count=2, die="d6"),
                              tmp_path / "rolls", recognizer=_BrokenRecognizer())
    decisions = [e for e in events if e["type"] == "decision"]
    assert [d["result"] for d in decisions] == ["roll-again", "roll-again"]
    assert "model exploded" in decisions[0]["reason"] and decisions[0]["value"] is None
    assert [r.outcome for r in summary.rolls] == ["read", "read"]


def test_operator_interrupt_keeps_the_roll_complete_and_marked(tmp_path):
    frames, still_from, _ = roll_frames(1, seed=2)

    def items():
        yield from frames[: still_from - 1]
        raise KeyboardInterrupt

    loop = LiveLoop(MemorySource(items()), TruthRecognizer(), None, LoopConfig(out_dir=tmp_path / "r"))
    with pytest.raises(KeyboardInterrupt):
        loop.run()
    r = RecordingReader(tmp_path / "r" / "0001")
    assert r.manifest["outcome"] == "interrupted" and not r.of_type("reading")
    assert not find_partials(tmp_path / "r")


def test_tower_drop_with_an_unchanged_tray_never_rereads_the_old_dice(tmp_path):
    frames, _, _ = roll_frames(1, seed=2)
    last = frames[-1]
    n = len(frames)
    trigger = Frame(n, n / 10, last, events=[{"type": "trigger", "source": "tower", "seq": 9}])
    items = frames + [trigger] + [Frame(n + 1 + k, (n + 1 + k) / 10, last) for k in range(10)]
    src = make_rolls(tmp_path / "src", [[("d6", 5)]], seed=1)  # truth for these frames
    rec = TruthRecognizer(src)
    summary = LiveLoop(MemorySource(items), rec, None, LoopConfig(out_dir=tmp_path / "r")).run()
    assert [r.outcome for r in summary.rolls] == ["read", "not a roll"]
    assert rec.calls == 1
    note = RecordingReader(summary.rolls[1].path).of_type("note")[0]["text"]
    assert "tray did not change" in note


def test_picking_the_dice_up_is_not_a_roll(tmp_path):
    src = make_rolls(tmp_path / "src", [[("d6", 4)]])
    frames = [f for f in open_source(str(src))]
    empty = tray([])
    items = [f.bgr for f in frames] + [empty] * 10  # the die is taken out of the tray
    rec = TruthRecognizer(src)
    events = []
    summary = LiveLoop(MemorySource(items), rec, RulesDecider.banish("A,B,C,D,E", die="d6", count=2),
                       LoopConfig(out_dir=tmp_path / "r"), on_event=events.append).run()
    assert [r.outcome for r in summary.rolls] == ["read"]  # one roll; the pick-up is not another
    assert [e["result"] for e in events if e["type"] == "decision"] == ["banish"]
    assert "dice picked up" in [e for e in events if e["type"] == "not_a_roll"][0]["reason"]
    assert [p.name for p in (tmp_path / "r").iterdir()] == ["0001"]


def test_stop_from_another_caller_ends_cleanly(tmp_path):
    frames, still_from, _ = roll_frames(1, seed=2)
    loop = None

    def on_frame(index, bgr, readings):
        if index == still_from - 2:  # mid-roll
            loop.stop()

    loop = LiveLoop(MemorySource(frames), TruthRecognizer(), None, LoopConfig(out_dir=tmp_path / "r"),
                    on_frame=on_frame)
    summary = loop.run()
    assert summary.stopped_because == "stopped"
    assert RecordingReader(tmp_path / "r" / "0001").manifest["outcome"] == "stopped"
