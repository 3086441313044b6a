"""The live loop on the project's rendered fixtures (fixtures/, made by reader.synth.fixtures):
settle detection on rendered frames with sensor noise and motion blur, triggers, rules. The
recognizer is the ground-truth fake, so this checks everything around the models; the models
themselves are scored by `dice-reader evaluate`. Skipped while fixtures/ has no roll recordings."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reader.decide import RulesDecider
from reader.loop import LiveLoop, LoopConfig
from reader.recording import RecordingReader, list_rolls
from reader.sources import open_source
from tray_fakes import TruthRecognizer

# $DICE_READER_FIXTURES checks freshly rendered fixtures before they are committed
FIXTURES = Path(os.environ.get("DICE_READER_FIXTURES") or Path(__file__).resolve().parents[1] / "fixtures")
SCENARIOS = sorted(p for p in FIXTURES.iterdir() if p.is_dir() and list_rolls(p)) if FIXTURES.is_dir() else []


@pytest.mark.skipif(not SCENARIOS, reason="no recorded roll fixtures in fixtures/ yet")
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_every_fixture_roll_is_read_once_and_decided_as_expected(scenario, tmp_path):
    rolls = [RecordingReader(p) for p in list_rolls(scenario)]
    decider = RulesDecider.from_rules_json(rolls[0].manifest.get("rules"))
    events = []
    summary = LiveLoop(open_source(f"recording:{scenario}"), TruthRecognizer(scenario), decider,
                       LoopConfig(out_dir=tmp_path / "rolls"), on_event=events.append).run()
    read = [r for r in summary.rolls if r.outcome == "read"]
    assert len(read) == len(rolls), [(r.roll, r.outcome) for r in summary.rolls]
    for got, rec in zip(read, rolls):
        last_truth = rec.of_type("truth")[-1]["dice"]
        assert sorted((d["die"], d["value"]) for d in got.readings) == \
            sorted((d["die"], d["value"]) for d in last_truth)
        expected = rec.of_type("expected")
        if expected:
            assert got.decisions == expected[-1]["decisions"]
    triggered = sum(1 for r in rolls if r.triggers())
    assert len([e for e in events if e["type"] == "trigger"]) == triggered
