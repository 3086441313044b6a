"""The tower adapter on real serial devices: the simulator on a pty, and pyserial's loop://."""

from __future__ import annotations

import io
import time

import pytest

from reader.errors import DiceReaderError
from reader.tower.port import TowerBack, TowerLost, TowerPort
from reader.tower.protocol import BadChecksum, Drop, Duplicate, Garbage, Hello, Lost, Malformed, encode
from reader.tower.sim import Faults, TowerSim


def collect(port, until, timeout=5.0):
    """Events from the port until `until(events)` is true or the timeout passes."""
    events = []
    end = time.monotonic() + timeout
    while time.monotonic() < end and not until(events):
        events += port.wait(0.05)
    return events


def has(kind, n=1):
    return lambda evs: sum(isinstance(e, kind) for e in evs) >= n


@pytest.fixture
def sim(tmp_path):
    s = TowerSim(tmp_path / "tower", heartbeat_s=0.2).start()
    yield s
    s.stop()


def test_connect_hello_and_a_drop(sim):
    raw = io.StringIO()
    with TowerPort(sim.path, raw_log=raw) as port:
        evs = collect(port, has(Hello))
        assert isinstance(evs[0], TowerBack) and any(isinstance(e, Hello) for e in evs)
        sim.drop(3)
        evs = collect(port, has(Drop))
        assert [(e.count) for e in evs if isinstance(e, Drop)] == [3]
    log = raw.getvalue()
    assert ">> $0,HELLO*" in log and "DROP," in log and "opened" in log  # raw traffic, both ways


def test_unplugged_and_back(sim):
    with TowerPort(sim.path) as port:
        collect(port, has(Hello))
        sim.unplug()
        evs = collect(port, has(TowerLost))
        assert any(isinstance(e, TowerLost) for e in evs)
        time.sleep(0.5)  # the reader retries while the cable is out
        sim.replug()
        evs = collect(port, has(TowerBack))
        assert any(isinstance(e, TowerBack) for e in evs)
        sim.drop(1)
        evs = collect(port, has(Drop))
        assert any(isinstance(e, Drop) for e in evs)
        assert port.lost_count == 1


def test_ten_kilobytes_of_noise_then_a_good_drop(sim):
    with TowerPort(sim.path) as port:
        collect(port, has(Hello))
        sim.noise(10_000)
        sim.drop(2)
        evs = collect(port, has(Drop))
        drops = [e for e in evs if isinstance(e, Drop)]
        assert len(drops) == 1 and drops[0].count == 2  # the noise made no drop, the drop got through
        garbage = [e for e in evs if isinstance(e, (Garbage, BadChecksum, Malformed))]
        assert garbage and sum(getattr(g, "nbytes", 0) for g in garbage) > 5000
        assert len(garbage) < 20  # summarised, not one report per byte


@pytest.mark.parametrize(
    "faults, problem",
    [
        (Faults(duplicate=1.0), Duplicate),  # every line twice: copies ignored
        (Faults(garble=1.0), BadChecksum),  # every line damaged: nothing trusted
        (Faults(drop=0.5), Lost),  # lines lost: reported as gaps
    ],
    ids=["duplicate", "garble", "drop"],
)
def test_faults_on_demand_are_reported_and_never_double_count(tmp_path, faults, problem):
    sim = TowerSim(tmp_path / "t", faults=faults, seed=3, heartbeat_s=0.05).start()
    try:
        with TowerPort(sim.path) as port:
            time.sleep(0.1)
            for _ in range(5):
                sim.drop(1)
            evs = collect(port, has(problem), timeout=5)
            assert any(isinstance(e, problem) for e in evs)
            evs += collect(port, lambda e: False, timeout=0.5)
            drops = [e for e in evs if isinstance(e, Drop)]
            assert len(drops) <= 5 and len({d.seq for d in drops}) == len(drops)
            if isinstance(faults, Faults) and faults.garble == 1.0:
                assert drops == []
    finally:
        sim.stop()


def test_a_silent_tower_is_lost(tmp_path):
    sim = TowerSim(tmp_path / "t", heartbeat_s=60).start()  # says hello, then nothing
    try:
        with TowerPort(sim.path, silence_s=0.5) as port:
            evs = collect(port, has(TowerLost), timeout=3)
            assert "no heartbeat" in [e for e in evs if isinstance(e, TowerLost)][0].reason
    finally:
        sim.stop()


def test_port_that_cannot_be_opened_is_reported_once(tmp_path):
    with TowerPort(str(tmp_path / "no-such-tty")) as port:
        evs = collect(port, lambda e: False, timeout=0.8)
    lost = [e for e in evs if isinstance(e, TowerLost)]
    assert len(lost) == 1 and "cannot open" in lost[0].reason


def test_loop_url_carries_tower_lines():
    with TowerPort("loop://") as port:
        collect(port, lambda e: False, timeout=0.3)  # our own HELLO request echoes back: refused
        port._serial.write(encode(0, "HELLO", 1, "loop") + encode(1, "DROP", 50, 2))
        evs = collect(port, has(Drop))
        assert [e for e in evs if isinstance(e, Drop)] == [Drop(1, 50, 2)]


@pytest.mark.parametrize("text, message", [("drop=2", "probability"), ("jam=1", "unknown fault"),
                                           ("drop=x", "needs a number")],
                         ids=["out of range", "unknown", "not a number"])
def test_fault_options_are_checked(text, message):
    with pytest.raises(DiceReaderError, match=message):
        Faults.parse(text)


def test_fault_options_parse():
    assert Faults.parse("drop=0.1, garble=0.05,delay_s=0.2") == Faults(drop=0.1, garble=0.05, delay_s=0.2)
