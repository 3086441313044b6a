"""`python -m models.train.d20_alone`: a D20 look alone, measured at the cut it was taught at and at
others (`--cut`). Session 50 found the release's D20 look surest on real D20 cut tighter than it was
taught at (models/reader.md); a session that judges a new look must be able to ask so again, by one
command, on the committed rendered D20 (fixtures/single-d20)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from models.train import d20_alone

ROOT = Path(__file__).resolve().parents[1]
SINGLE_D20 = ROOT / "fixtures" / "single-d20"
LOOK = ROOT / "models" / "reader_top_d20.onnx"
LINE = re.compile(r"^single-d20\s+(\S+)\s+top-1 (\d+)/(\d+)\s+sure right (\d+) wrong (\d+)")


def flat_valued_d20() -> int:
    rows = [json.loads(line)["dice"][0] for line in (SINGLE_D20 / "labels.jsonl").open(encoding="utf-8")]
    return sum(d["die"] == "d20" and d.get("state") == "flat" and bool(d["value"]) for d in rows)


def measured(capsys, *args) -> dict[str, tuple[int, int]]:
    assert d20_alone.main([f"release={LOOK}", "--rendered", str(SINGLE_D20), *args]) == 0
    rows = [m.groups() for line in capsys.readouterr().out.splitlines() if (m := LINE.match(line))]
    return {name: (int(right), int(of)) for name, right, of, _, _ in rows}


@pytest.mark.parametrize("cuts, names", [
    pytest.param([], ["release"], id="taught cut: the look's own name"),
    pytest.param(["--cut", "0.45"], ["release"], id="the taught cut named: the same"),
    pytest.param(["--cut", "0.35", "0.45"], ["release@0.35", "release@0.45"], id="two cuts: one line each"),
])
def test_each_cut_is_measured_on_every_flat_d20(capsys, cuts, names):
    got = measured(capsys, *cuts)
    assert list(got) == names
    assert {of for _, of in got.values()} == {flat_valued_d20()}


def test_another_cut_reads_the_renders_otherwise(capsys):
    # measured: the release's look names 55 of the fixture's 72 flat D20 at 0.45 and 47 at 0.35 (a
    # rendered die's numerals are cut off at 0.35); the option must really change the cut
    got = measured(capsys, "--cut", "0.35", "0.45")
    assert got["release@0.45"][0] > got["release@0.35"][0]


@pytest.mark.parametrize("cut", [pytest.param("0", id="zero"), pytest.param("2", id="wider than the die twice over")])
def test_a_cut_no_die_has_is_refused(cut):
    with pytest.raises(SystemExit) as stop:
        d20_alone.main([f"release={LOOK}", "--rendered", str(SINGLE_D20), "--cut", cut])
    assert stop.value.code == 2


@pytest.mark.parametrize("top_p, right, share, threshold", [
    pytest.param([0.99, 0.98, 0.97, 0.5], [True, True, False, True], 0.0, 0.98,
                 id="none wrong allowed: stop above the surest wrong die"),
    pytest.param([0.99, 0.98, 0.97, 0.5], [True, True, False, True], 0.5, 0.5,
                 id="half may be wrong: every die"),
    pytest.param([0.9, 0.9, 0.8], [True, False, True], 0.0, 1.0,
                 id="a wrong die tied with the surest right one: nothing can be taken"),
    pytest.param([0.7, 0.6], [False, True], 0.0, 1.0, id="the surest die wrong: nothing"),
    pytest.param([0.95, 0.9, 0.85, 0.8], [True] * 4, 0.0, 0.8, id="none wrong: every die"),
])
def test_the_renders_threshold_is_the_lowest_meeting_the_wrong_share(top_p, right, share, threshold):
    assert d20_alone.renders_threshold(np.array(top_p), np.array(right), share) == threshold


THRESHOLD_LINE = re.compile(r"^at the renders' threshold (\S+)\s+p >= ([\d.]+): rendered (\d+)/(\d+) of (\d+) \| "
                            r"single-d20 (\d+)/(\d+)$")


def test_real_dice_are_read_at_the_threshold_the_renders_set(capsys):
    # the fixture named twice: as renders (read at their labelled boxes) and as "real" photos (boxed
    # by the detector, as a real set is), so the two columns are measured apart
    assert d20_alone.main([f"release={LOOK}", "--rendered", str(SINGLE_D20), "--real", str(SINGLE_D20),
                           "--cut", "0.35", "0.45"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = {m.group(1): m.groups()[1:] for line in out if (m := THRESHOLD_LINE.match(line))}
    assert list(rows) == ["release@0.35", "release@0.45"]
    for t, right, wrong, of, real_right, real_wrong in rows.values():
        assert int(of) == flat_valued_d20()
        assert 0 < int(right) and int(wrong) <= d20_alone.WRONG_SHARE * (int(right) + int(wrong))
        assert 0.0 < float(t) < 1.0 and int(real_right) + int(real_wrong) > 0


def test_no_threshold_line_without_both_kinds_of_set(capsys):
    assert d20_alone.main([f"release={LOOK}", "--rendered", str(SINGLE_D20)]) == 0
    assert "threshold" not in capsys.readouterr().out


def test_the_renders_threshold_pools_every_rendered_set(capsys):
    # the threshold is the renders' as a whole: two rendered sets are counted together (here the
    # fixture twice, so the same threshold over twice the dice)
    assert d20_alone.main([f"release={LOOK}", "--rendered", str(SINGLE_D20), "--rendered", str(SINGLE_D20),
                           "--real", str(SINGLE_D20)]) == 0
    rows = [m.groups() for line in capsys.readouterr().out.splitlines() if (m := THRESHOLD_LINE.match(line))]
    assert len(rows) == 1
    assert int(rows[0][4]) == 2 * flat_valued_d20()
