"""The live loop with the simulated tower on a pty: trigger, settle, read, decide, record, replay;
and the tower unplugged and back, and 10 kB of noise on its line, in the middle of a session."""

from __future__ import annotations

import time

from reader.commands.replay import replay_roll
from reader.decide import RulesDecider
from reader.loop import LiveLoop, LoopConfig
from reader.recording import RecordingReader, find_partials, list_rolls
from reader.sources import MemorySource
from reader.tower.port import TowerPort
from reader.tower.sim import TowerSim
from tray_fakes import TruthRecognizer, make_rolls, roll_frames


def _session(tmp_path, script, rolls=((("d6", 6),), (("d6", 3),))):
    """Run the loop on synthetic rolls with a simulated tower; `script` maps frame -> action."""
    src = make_rolls(tmp_path / "src", [list(r) for r in rolls])
    frames = []
    for i in range(len(rolls)):
        f, _, _ = roll_frames(len(rolls[i]), seed=i + 1)
        frames += f
    rec = TruthRecognizer(src)
    events = []
    sim = TowerSim(tmp_path / "tower", heartbeat_s=0.1).start()
    port = TowerPort(sim.path).start()
    deadline = time.monotonic() + 5
    while not port.connected and time.monotonic() < deadline:
        time.sleep(0.02)
    port.poll()

    def on_frame(index, bgr, readings):
        action = script.get(index)
        if action:
            def seen():
                return port.decoder.counts.get("Drop", 0) + port.decoder.counts.get("Garbage", 0)

            before, was_connected = seen(), port.connected
            action(sim)
            # wait (not a fixed sleep) until the port has seen what the tower did
            end = time.monotonic() + 10
            while time.monotonic() < end and port.connected == was_connected and seen() == before:
                time.sleep(0.01)
            time.sleep(0.05)

    try:
        loop = LiveLoop(MemorySource(frames), rec, RulesDecider.banish("A,B,C,D,E", die="d6"),
                        LoopConfig(out_dir=tmp_path / "rolls"), tower=port,
                        on_event=events.append, on_frame=on_frame)
        summary = loop.run()
    finally:
        port.stop()
        sim.stop()
    return summary, events, rec


def test_trigger_settle_read_decide_record_replay(tmp_path):
    summary, events, rec = _session(tmp_path, {1: lambda s: s.drop(1), 18: lambda s: s.drop(1)})
    triggers = [e for e in events if e["type"] == "trigger"]
    assert [(t["roll"], t["source"]) for t in triggers] == [("0001", "tower"), ("0002", "tower")]
    assert all(isinstance(t["seq"], int) for t in triggers)
    decisions = [(e["roll"], e["result"]) for e in events if e["type"] == "decision"]
    assert decisions == [("0001", "reroll"), ("0002", "banish"), ("0002", "done")]
    rolls = list_rolls(tmp_path / "rolls")
    assert len(rolls) == 2
    for roll in rolls:
        r = RecordingReader(roll)
        types = [e["type"] for e in r.events]
        assert types.index("trigger") < types.index("settled") < types.index("decision")
        assert replay_roll(roll, rec).same


def test_tower_unplugged_and_back_mid_session(tmp_path):
    summary, events, _ = _session(tmp_path, {2: lambda s: s.unplug(), 10: lambda s: s.replug(),
                                             18: lambda s: s.drop(1)})
    types = [e["type"] for e in events]
    assert "tower_lost" in types and "tower_back" in types
    assert types.index("tower_lost") < types.index("tower_back")
    assert summary.tower_losses == 1
    # the camera kept reading while the tower was away; the drop after the replug is a trigger
    assert [r.outcome for r in summary.rolls] == ["read", "read"]
    assert [e["roll"] for e in events if e["type"] == "trigger"] == ["0002"]
    assert not find_partials(tmp_path / "rolls")


def test_ten_kilobytes_of_noise_on_the_tower_line(tmp_path):
    summary, events, _ = _session(tmp_path, {5: lambda s: s.noise(10_000)})
    warnings = [e for e in events if e["type"] == "tower_warning"]
    assert warnings and "never a trigger" in warnings[0]["text"]
    assert not [e for e in events if e["type"] == "trigger"]  # noise is never a drop
    assert [r.outcome for r in summary.rolls] == ["read", "read"]  # and nothing else changed
    assert summary.tower_problems.get("Garbage", 0) >= 1
