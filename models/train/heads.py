"""Small heads on the whole look's pooled features, folded into its ONNX graph as outputs of their own.

Why: a check that reads what the whole look already computed for every crop costs the reader nothing
at run time and cannot change the readings it had: the type, face and state outputs, their weights and
the calibration behind them stay bit for bit (tests/test_print_check.py, tests/test_percentile_check.py).
The print check (train_print_check, reader v16) and the percentile check (train_percentile_check,
reader v25) are two such heads; each lives under a prefix of its own, so folding one again replaces it
and leaves the other alone. The reader finds their outputs by name (reader.vision.onnx_model).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from models.train.export import save_with_metadata


def has_head(model: onnx.ModelProto, prefix: str) -> bool:
    return any(t.name.startswith(prefix) for t in model.graph.initializer)


def unfold_head(model: onnx.ModelProto, prefix: str, output: str) -> onnx.ModelProto:
    """The model without the head under `prefix` (its nodes, weights and its `output`)."""
    if not has_head(model, prefix):
        return model
    g = model.graph
    keep = [n for n in g.node if not any(o.startswith(prefix) or o == output for o in n.output)]
    del g.node[:]
    g.node.extend(keep)
    inits = [t for t in g.initializer if not t.name.startswith(prefix)]
    del g.initializer[:]
    g.initializer.extend(inits)
    outs = [o for o in g.output if o.name != output]
    del g.output[:]
    g.output.extend(outs)
    return model


def fold_head(src: Path, out: Path, prefix: str, output: str, w1, b1, w2, b2, meta: dict) -> None:
    """`src` with a head features -> Gemm(w1, b1) -> Relu -> Gemm(w2, b2) as the output `output` (n x 1,
    a logit per crop), read from the pooled features the type head reads; `meta` added to the model's
    metadata (the rest kept). A head already under `prefix` is replaced."""
    model = unfold_head(onnx.load(str(src)), prefix, output)
    g = model.graph
    type_head = next(n for n in g.node if n.op_type == "Gemm" and "type_logits" in n.output)
    feats = type_head.input[0]
    for k, v in {"w1": w1, "b1": b1, "w2": w2, "b2": b2}.items():
        g.initializer.append(numpy_helper.from_array(np.asarray(v, np.float32), prefix + k))
    g.node.extend([
        helper.make_node("Gemm", [feats, prefix + "w1", prefix + "b1"], [prefix + "h"], transB=1),
        helper.make_node("Relu", [prefix + "h"], [prefix + "r"]),
        helper.make_node("Gemm", [prefix + "r", prefix + "w2", prefix + "b2"], [output], transB=1),
    ])
    g.output.append(helper.make_tensor_value_info(output, TensorProto.FLOAT, ["n", 1]))
    onnx.checker.check_model(model)
    kept = {p.key: json.loads(p.value) for p in model.metadata_props}
    save_with_metadata(model, out, {**kept, **meta})


def cached_features(path: Path | None, gather) -> dict:
    """A head's training features: those kept in `path` (an .npz) where it exists, else `gather()`'s,
    kept there when a path is given (computing them is most of a head's fitting time)."""
    if path is not None and path.is_file():
        return dict(np.load(path))
    data = gather()
    if path is not None:
        np.savez(path, **data)
    return data


def add_head_arguments(ap, sure: float, what: str) -> None:
    """The options every head's fitting takes (train_print_check, train_percentile_check): the real and
    rendered dice it is told from, its augmented views, the threshold it is folded with, the reader's
    version and the features' cache. `what`: what a sure check refuses, for the help."""
    ap.add_argument("--lurig-boxes", type=Path, default=None)
    ap.add_argument("--synth-limit", type=int, default=None, help="the first N crops of each --synth folder")
    ap.add_argument("--views", type=int, default=3, help="augmented crops per patch")
    ap.add_argument("--sure", type=float, default=sure, help=f"the check's mean probability that refuses {what}")
    ap.add_argument("--version", default=None, help="the reader's version in its metadata (kept when not given)")
    ap.add_argument("--features", type=Path, default=None,
                    help="an .npz to keep the features in, and to take them from when it exists")


def report_calibration(sure: float, what: str, q_head: np.ndarray, q_dice: np.ndarray, real: np.ndarray) -> None:
    """Print the share of the calibration crops a check folded at `sure` refuses: of `what` (`q_head`,
    what it is to refuse), of the real dice and of the rendered dice (`q_dice`, `real` marking the real)."""
    print(f"calibration crops past {sure}: {what} {np.mean(q_head >= sure):.1%} of {len(q_head)}, "
          f"real dice {np.mean(q_dice[real] >= sure):.2%} of {int(real.sum())}, "
          f"rendered dice {np.mean(q_dice[~real] >= sure):.2%} of {int((~real).sum())}", flush=True)
