"""A die type handed from the numeral look to a look of its own (models.train.own_look, session 66's
D12 candidates): the new look reads exactly the dice named, placed as the numeral look was, and a mistaken
hand-over is refused with a message rather than written into the reader."""

from __future__ import annotations

import shutil

import pytest

from models.train.own_look import hand_over

NUMERAL = {"model": "reader_top.onnx", "per_side": 0.7, "dice": ["d12", "d8"], "temperature": 0.8,
           "angles": [45.0, 225.0], "weight": 0.5}
D6 = {"model": "reader_top_d6.onnx", "per_side": 0.7, "dice": ["d6"], "temperature": 0.7, "weight": 0.75,
      "cut_by_die": {"d6": 1.15}}
D20 = {"model": "reader_top_d20.onnx", "per_side": 0.7, "dice": ["d20"], "temperature": 0.6, "weight": 1.0,
       "cut_by_die": {"d20": 0.45}}
RELEASE = [NUMERAL, D6, D20]


def test_the_new_look_reads_the_named_dice_as_the_numeral_look_did():
    looks = hand_over(RELEASE, "reader_top_d12.onnx", ["d12"])
    assert [entry["model"] for entry in looks] == ["reader_top.onnx", "reader_top_d12.onnx",
                                                    "reader_top_d6.onnx", "reader_top_d20.onnx"]
    numeral, d12 = looks[0], looks[1]
    assert numeral["dice"] == ["d8"] and d12["dice"] == ["d12"]
    for key in ("per_side", "temperature", "angles", "weight"):
        assert d12[key] == NUMERAL[key]
    assert looks[2:] == [D6, D20]
    assert RELEASE[0]["dice"] == ["d12", "d8"]  # the release's metadata is not touched


@pytest.mark.parametrize("top_face, look, dice, says", [
    pytest.param(RELEASE, "reader_top_d12.onnx", ["d10"], "does not read d10", id="a die the numeral look does not read"),
    pytest.param(RELEASE, "reader_top_d20.onnx", ["d12"], "already among", id="a look the reader has"),
    pytest.param(RELEASE, "reader_top_d12.onnx", [], "name the die types", id="no die named"),
    pytest.param([D6, D20], "reader_top_d12.onnx", ["d12"], "no numeral look", id="no numeral look"),
    pytest.param(RELEASE, "reader_top_d12.onnx", ["d12", "d8"], "would read no die", id="every die taken"),
])
def test_a_mistaken_hand_over_is_refused(top_face, look, dice, says):
    with pytest.raises(ValueError, match=says):
        hand_over(top_face, look, dice)


def test_the_reader_written_reads_the_die_with_its_own_look(tmp_path):
    """The command end to end on a copy of the committed models, the numeral look reading the D8 and
    the D12 as the release has it: the recognizer loaded from the written folder asks the new
    look for the D12 and the numeral look for the D8."""
    pytest.importorskip("torch")  # export (restamp) lives beside the training code
    from models.train import own_look
    from models.train.export import restamp
    from reader.vision.onnx_model import MODELS_DIR
    from reader.vision.recognizer import Recognizer

    for path in MODELS_DIR.glob("*.onnx"):
        shutil.copy(path, tmp_path / path.name)
    committed = Recognizer.load(tmp_path).faces.model.meta["top_face"]
    as_v24 = [{**entry, "dice": ["d12", "d8"]} if entry["model"] == "reader_top.onnx" else entry
              for entry in committed if entry["model"] != "reader_top_d12.onnx"]
    restamp(tmp_path / "reader.onnx", tmp_path / "reader.onnx", {"top_face": as_v24})
    (tmp_path / "reader_top_d12.onnx").unlink(missing_ok=True)
    shutil.copy(tmp_path / "reader_top.onnx", tmp_path / "reader_top_d12.onnx")
    own_look.main([str(tmp_path / "reader.onnx"), str(tmp_path / "reader.onnx"), "--look", "reader_top_d12.onnx",
                   "--dice", "d12", "--version", "test"])
    rec = Recognizer.load(tmp_path)
    assert rec.faces.look_of["d12"].name == "reader_top_d12"
    assert rec.faces.look_of["d8"].name == "reader_top"
    assert rec.versions["reader"] == "test"
