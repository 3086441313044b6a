"""The print check folded into a reader's graph (models/train/train_print_check.py): a fourth output,
the three the reader had untouched. Needs the training extras (torch, onnx)."""

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")

from models.train.train_print_check import HIDDEN, OUTPUT, fold, has_print_check, unfold
from reader.vision.onnx_model import OnnxModel


@pytest.fixture()
def reader_onnx(tmp_path) -> Path:
    from models.train.export import export
    from models.train.nets import DiceReaderNet

    torch.manual_seed(0)
    torch.save(DiceReaderNet().state_dict(), tmp_path / "r.pt")
    export("reader", tmp_path / "r.pt", tmp_path / "r.onnx", {"version": "test"})
    return tmp_path / "r.onnx"


def _check(bias: float, seed: int = 1):
    w1 = np.random.default_rng(seed).normal(0, 0.1, (HIDDEN, 224)).astype(np.float32)
    return w1, np.zeros(HIDDEN, np.float32), np.zeros((1, HIDDEN), np.float32), np.array([bias], np.float32)


X = np.random.default_rng(2).random((5, 3, 96, 96), dtype=np.float32)


def test_the_check_is_a_fourth_output_and_the_readings_stay_bit_for_bit(reader_onnx, tmp_path):
    out = tmp_path / "checked.onnx"
    fold(reader_onnx, out, *_check(1.5), sure=0.97, meta={"version": "16"})
    before, after = OnnxModel(reader_onnx)(X), OnnxModel(out)(X)
    assert len(before) == 3 and len(after) == 4
    for b, a in zip(before, after):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(after[3], 1.5, atol=1e-6)  # w2 = 0: the logit is the bias
    meta = OnnxModel(out).meta
    assert meta["print_check"]["sure"] == 0.97 and meta["version"] == "16"
    assert meta["types"] == OnnxModel(reader_onnx).meta["types"]  # the rest of the metadata kept


def test_folding_again_replaces_the_check_and_unfolding_removes_it(reader_onnx, tmp_path):
    fold(reader_onnx, tmp_path / "a.onnx", *_check(5.0), sure=0.97)
    fold(tmp_path / "a.onnx", tmp_path / "b.onnx", *_check(-5.0), sure=0.9)
    b = OnnxModel(tmp_path / "b.onnx")
    np.testing.assert_allclose(b(X)[3], -5.0, atol=1e-6)
    assert b.meta["print_check"]["sure"] == 0.9
    plain = unfold(onnx.load(str(tmp_path / "b.onnx")))
    assert not has_print_check(plain) and OUTPUT not in [o.name for o in plain.graph.output]
