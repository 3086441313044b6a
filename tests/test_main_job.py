"""The README's main job with the committed models: a bundled recording in, the rules' decision out.

This is what a new user sees first, with no camera: every roll of the fixture is read by the real
detector and die reader (not the ground-truth fake the loop tests use) and the rules decide exactly
what the fixture's truth decides. A model that misreads one die here fails a promise the README makes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reader.decide import RulesDecider
from reader.loop import LiveLoop, LoopConfig
from reader.recording import RecordingReader, list_rolls
from reader.sources import open_source
from reader.vision.recognizer import Recognizer

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

# (fixture, the rules the README's command line gives)
MAIN_JOBS = {
    "first-player-tie": RulesDecider.first_player("Ana,Ben"),
    "banish-7-d8-then-d6": RulesDecider.banish("Lorraine,Nico,Rai,Silvie,Tonoris,Zander,Kongming",
                                               count=2, die="d8"),
}
# The README runs the banish; the roll-off is the other procedure a new user meets first.


@pytest.fixture(scope="module")
def recognizer():
    return Recognizer.load()


@pytest.mark.parametrize("name", sorted(MAIN_JOBS))
def test_the_bundled_rolls_are_read_and_decided_as_the_truth_decides(name, recognizer, tmp_path):
    scenario = FIXTURES / name
    rolls = [RecordingReader(p) for p in list_rolls(scenario)]
    summary = LiveLoop(open_source(f"recording:{scenario}"), recognizer, MAIN_JOBS[name],
                       LoopConfig(out_dir=tmp_path / "rolls")).run()
    read = [r for r in summary.rolls if r.outcome == "read"]
    assert len(read) == len(rolls)
    for got, rec in zip(read, rolls):
        truth = rec.of_type("truth")[-1]["dice"]
        assert sorted((d["die"], d["value"]) for d in got.readings) == \
            sorted((d["die"], d["value"]) for d in truth), got.roll
        assert _unordered(got.decisions) == _unordered(rec.of_type("expected")[-1]["decisions"]), got.roll


def _unordered(decisions):
    """Decisions with each player's two dice sorted: which D6 was read first does not matter."""
    return [{**d, "dice": sorted(d["dice"])} if "dice" in d else d for d in decisions]
