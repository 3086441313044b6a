"""Percentile D10 (faces "00" to "90") are refused, not read (reader/vision/percentile.py).

fixtures/percentile-d10 holds 80 rendered photos of one percentile D10 each (`python -m
reader.synth.bulk crops --out fixtures/percentile-d10 --count 80 --seed 7830 --mix d10 --tens --numbers
varied --glyphs varied`: cameras 0-35 degrees off vertical, some dice cocked, other dice at the edges;
the main die is the first label, "tens": true, its value the plain D10's). Reader v24, with no check,
gave four of its 74 flat dice a value other than their tens digit (three read as a D12's 10).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from reader.reading import Box, Cocked, DieReading, Face, Unreadable
from reader.vision.percentile import REASON, PercentileCheck, refused_as_percentile
from reader.vision.recognizer import Recognizer

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "percentile-d10"


class FakeWholeLook:
    """A whole look whose percentile logit is given per crop by the crop's mean grey level: bright
    crops (> 128) are percentile dice."""

    def __init__(self, meta: dict | None = None, names=("type_logits", "face_logits", "state_logits",
                                                        "print_logits", "percentile_logits")):
        self.meta = {"crop_per_side": 1.35, **({"percentile_check": {
            "sure": 0.9, "output": "percentile_logits", "dice": ["d10", "d12", "d20"]}} if meta is None else meta)}
        self.output_names = list(names)
        self.calls = 0

    def __call__(self, x: np.ndarray) -> list[np.ndarray]:
        self.calls += 1
        bright = x.mean(axis=(1, 2, 3)) > 0.5
        out = [np.zeros((len(x), 1), np.float32) for _ in self.output_names]
        out[self.output_names.index("percentile_logits")] = np.where(bright, 8.0, -8.0)[:, None].astype(np.float32)
        return out


def _image() -> np.ndarray:
    """A dark frame with a bright square at 100-140 (a 'percentile die') and dark elsewhere."""
    img = np.full((240, 320, 3), 20, np.uint8)
    img[100:141, 100:141] = 230
    return img


BRIGHT, DARK = Box(105, 105, 135, 135), Box(200, 40, 230, 70)


@pytest.mark.parametrize("name, reading, refused", [
    ("a D12 valued on a percentile die", DieReading("d12", BRIGHT, Face(10, 0.94), 0.99), True),
    ("a D10 valued on a percentile die", DieReading("d10", BRIGHT, Face(10, 0.88), 0.99), True),
    ("a D20 valued on a percentile die", DieReading("d20", BRIGHT, Face(20, 0.99), 0.99), True),
    ("a D10 valued on a plain die", DieReading("d10", DARK, Face(3, 0.95), 0.99), False),
    ("a D6 is not asked", DieReading("d6", BRIGHT, Face(1, 0.99), 0.99), False),
    ("a D8 is not asked", DieReading("d8", BRIGHT, Face(8, 0.99), 0.99), False),
    ("a die refused already keeps its reason", DieReading("d12", BRIGHT, Unreadable("low confidence", 0.5), 0.9), False),
    ("a cocked die stays cocked", DieReading("d10", BRIGHT, Cocked(0.7), 0.9), False),
])
def test_which_readings_the_check_refuses(name, reading, refused):
    check = PercentileCheck.of(FakeWholeLook())
    (out,) = check.refuse(_image(), [reading])
    assert refused_as_percentile(out) is refused, name
    if refused:
        assert out.value is None and out.outcome.reason == REASON
        assert out.confidence == reading.confidence and out.box == reading.box and out.die == reading.die
    else:
        assert out == reading


def test_one_pass_for_all_the_dice_asked_and_none_where_none_is():
    look = FakeWholeLook()
    check = PercentileCheck.of(look)
    readings = [DieReading("d12", BRIGHT, Face(10, 0.94), 0.99), DieReading("d10", DARK, Face(3, 0.95), 0.99),
                DieReading("d6", DARK, Face(2, 0.95), 0.99)]
    out = check.refuse(_image(), readings)
    assert [refused_as_percentile(r) for r in out] == [True, False, False] and look.calls == 1
    assert check.refuse(_image(), [readings[2]]) == [readings[2]] and look.calls == 1


@pytest.mark.parametrize("name, look, present", [
    ("a whole look with the check", FakeWholeLook(), True),
    ("reader v24: no metadata", FakeWholeLook(meta={}), False),
    ("metadata naming an output the graph lacks", FakeWholeLook(names=("type_logits", "face_logits", "state_logits")), False),
    ("no whole look (a test's stand-in reader)", None, False),
])
def test_the_check_is_there_only_where_the_whole_look_carries_it(name, look, present):
    assert (PercentileCheck.of(look) is not None) is present, name


def test_the_output_is_found_by_name_wherever_it_was_folded():
    look = FakeWholeLook(names=("type_logits", "face_logits", "state_logits", "percentile_logits", "print_logits"))
    assert PercentileCheck.of(look).at == 3
    (out,) = PercentileCheck.of(look).refuse(_image(), [DieReading("d12", BRIGHT, Face(10, 0.94), 0.99)])
    assert refused_as_percentile(out)


# ---- the committed reader on the committed fixture ----------------------------------------------------

def rows() -> list[dict]:
    return [json.loads(line) for line in (FIXTURE / "labels.jsonl").read_text().splitlines() if line.strip()]


def test_the_fixture_is_percentile_dice():
    rows_ = rows()
    assert len(rows_) == 80 and all(r["dice"][0]["die"] == "d10" and r["dice"][0].get("tens") for r in rows_)
    assert sum(r["dice"][0]["state"] == "flat" for r in rows_) >= 70


@pytest.fixture(scope="module")
def read() -> Counter:
    """Per flat percentile die: 'refused', 'refused as percentile', 'another die' (a neighbour read
    instead), 'its tens' or 'wrong'."""
    recognizer = Recognizer.load()
    out: Counter = Counter()
    for r in rows():
        die = r["dice"][0]
        if die["state"] != "flat":
            continue
        reading = recognizer.read_single(cv2.imread(str(FIXTURE / r["image"])))
        if reading.value is None:
            out["refused as percentile" if refused_as_percentile(reading) else "refused"] += 1
        elif reading.box.iou(Box(*die["box"])) < 0.3:
            out["another die"] += 1
        elif reading.die == "d10" and reading.value == die["value"]:
            out["its tens"] += 1
        else:
            out["wrong"] += 1
    return out


def test_the_committed_reader_carries_the_check():
    assert Recognizer.load().percentile is not None


def test_the_check_names_the_percentile_dice_it_refuses(read):
    """Reader v25: four of the 74 refused as percentile dice, most of the rest for low confidence or views
    that disagree; reader v24 said nothing of the kind."""
    assert read["refused as percentile"] >= 3, read


def test_fewer_percentile_dice_are_given_a_wrong_value(read):
    """Reader v24 gave four a wrong value (two "70" and a "10" read as a D12's 10, a "60" as the "80"
    beside it); v25 two (the two D12 10s, the check at 0.89 under its 0.92: a plain D12's
    10 reaches 0.88). Known to fall short of none (models/reader.md, "Session 78")."""
    assert read["wrong"] <= 2, read


def test_the_live_loop_tells_the_table_once_to_take_the_percentile_die_out(tmp_path):
    """Two recorded banish rolls of a D10 refused as a percentile die: two "roll again" decisions with the
    reason, and one note (reader.loop.SETUP_NOTES) kept in the first roll's recording."""
    from reader.decide import RulesDecider
    from tray_fakes import loop_refusing_every_die

    events, first = loop_refusing_every_die(tmp_path, [[("d10", 4)], [("d10", 7)]], REASON, 0.93,
                                            RulesDecider.banish("A,B,C,D,E,F,G", die="d10"))
    notes = [e["text"] for e in events if e["type"] == "note" and "percentile" in e["text"]]
    assert len(notes) == 1 and "roll a D10 numbered 1 to 0" in notes[0]
    decisions = [e for e in events if e["type"] == "decision"]
    assert [e["result"] for e in decisions] == ["roll-again", "roll-again"]
    assert all("percentile" in json.dumps(e) for e in decisions)
    assert any("percentile" in e["text"] for e in first.of_type("note"))


def test_the_check_folds_in_beside_the_print_check_and_both_keep_their_outputs(tmp_path):
    """models.train.heads: the percentile check is a fifth output; the four the reader had stay bit for bit,
    and folding the print check again after it leaves the percentile output as it was (found by name).
    Needs the training extras (torch, onnx)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from models.train.export import export
    from models.train.nets import DiceReaderNet
    from models.train.train_percentile_check import OUTPUT, fold
    from models.train.train_print_check import fold as fold_print
    from reader.vision.onnx_model import OnnxModel

    torch.manual_seed(0)
    torch.save(DiceReaderNet().state_dict(), tmp_path / "r.pt")
    export("reader", tmp_path / "r.pt", tmp_path / "r.onnx", {"version": "test"})
    rng = np.random.default_rng(3)

    def head(bias: float, hidden: int = 32):
        return (rng.normal(0, 0.1, (hidden, 224)).astype(np.float32), np.zeros(hidden, np.float32),
                np.zeros((1, hidden), np.float32), np.array([bias], np.float32))

    fold_print(tmp_path / "r.onnx", tmp_path / "p.onnx", *head(-3.0), sure=0.97)
    fold(tmp_path / "p.onnx", tmp_path / "pc.onnx", *head(2.0, hidden=160), sure=0.92, meta={"version": "25"})
    x = np.random.default_rng(4).random((3, 3, 96, 96), dtype=np.float32)
    before, after = OnnxModel(tmp_path / "p.onnx"), OnnxModel(tmp_path / "pc.onnx")
    assert after.output_names[:4] == before.output_names and after.output_names[4] == OUTPUT
    for b, a in zip(before(x), after(x)):
        np.testing.assert_array_equal(a, b)
    assert after.meta["percentile_check"]["hidden"] == 160 and after.meta["version"] == "25"
    check = PercentileCheck.of(after)
    assert check is not None and check.sure == 0.92 and check.dice == {"d10", "d12", "d20"}
    np.testing.assert_allclose(after(x)[check.at], 2.0, atol=1e-6)
    fold_print(tmp_path / "pc.onnx", tmp_path / "again.onnx", *head(-1.0), sure=0.97)
    again = OnnxModel(tmp_path / "again.onnx")
    assert again.output_names[-1] == "print_logits" and PercentileCheck.of(again).at == 3
    np.testing.assert_allclose(again(x)[PercentileCheck.of(again).at], 2.0, atol=1e-6)
    from reader.vision.faces import FaceReader

    assert FaceReader(again)._print_at == 4 and FaceReader(after)._print_at == 3  # the print check by name too
