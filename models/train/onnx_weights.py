"""Start training from a committed ONNX model when the torch weights it was exported from are gone.

The training checkpoints live in work/, which is not committed and does not survive a fresh
machine; the ONNX files in models/ do. Their export folded every BatchNorm into the convolution
before it (weight and bias), so the torch network is rebuilt the other way round: each
convolution takes the folded weight, and its BatchNorm is made to pass the folded bias on. Read in
eval mode the rebuilt network gives the ONNX model's outputs (checked by `reader_from_onnx`).

Training mode normalises by each batch's own statistics, so a BatchNorm that merely passes a bias
on would rescale every activation at the first step. `refit_batchnorm` therefore measures what
each convolution gives on real batches and sets its BatchNorm to undo exactly that (mean m,
variance v: running stats m and v, scale sqrt(v + eps), shift m + bias). Eval outputs stay the
same, and a training batch drawn like those normalises to nearly the same values.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn

from models.train.nets import DiceDetector, DiceReaderNet, LeanNet, load_reader_state


def _conv_pairs(net: nn.Module, bare: bool = False) -> list[tuple[nn.Conv2d, nn.BatchNorm2d | None]]:
    """(convolution, its BatchNorm) in the order the forward pass meets them (the order the modules
    are made in, in every network here). `bare`: a convolution with no BatchNorm after it (the
    detector's lateral 1x1s and its head) is paired with None; else it is an error."""
    mods = list(net.modules())
    pairs = []
    for i, m in enumerate(mods):
        if isinstance(m, nn.Conv2d):
            bn = mods[i + 1] if i + 1 < len(mods) else None
            if not isinstance(bn, nn.BatchNorm2d):
                if not bare:
                    raise ValueError(f"convolution {m} is not followed by a BatchNorm")
                bn = None
            pairs.append((m, bn))
    return pairs


def _normalised(net: nn.Module) -> list[tuple[nn.Conv2d, nn.BatchNorm2d]]:
    """The (convolution, BatchNorm) pairs of any of the networks, the bare convolutions left out."""
    return [(c, bn) for c, bn in _conv_pairs(net, bare=True) if bn is not None]


def _load_folded(net: nn.Module, path: Path, heads: tuple[str, ...], bare: bool = False) -> nn.Module:
    """`net` with an exported model's weights: each convolution (in forward order) its folded weight,
    its BatchNorm passing the folded bias on (`bare`: a convolution without one takes the bias
    itself); each Linear in `heads` as exported (Gemm, by name)."""
    model = onnx.load(str(path))
    init = {t.name: np.array(numpy_helper.to_array(t)) for t in model.graph.initializer}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    pairs = _conv_pairs(net, bare)
    if len(convs) != len(pairs):
        raise ValueError(f"{path}: {len(convs)} convolutions, the {type(net).__name__} has {len(pairs)}")
    with torch.no_grad():
        for node, (conv, bn) in zip(convs, pairs):
            w = init[node.input[1]]
            b = init[node.input[2]] if len(node.input) > 2 else np.zeros(w.shape[0], np.float32)
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise ValueError(f"{path}: convolution {node.name} is {w.shape}, expected {tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.from_numpy(w))
            if bn is None:
                conv.bias.copy_(torch.from_numpy(b))
                continue
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(b))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)  # (x - 0) / sqrt(var + eps) = x
        for head in heads:
            lin = getattr(net, head)
            lin.weight.copy_(torch.from_numpy(init[f"{head}.weight"]))
            lin.bias.copy_(torch.from_numpy(init[f"{head}.bias"]))
    net.eval()
    return net


def reader_from_onnx(path: Path, check: bool = True) -> DiceReaderNet:
    """The reader's network (DiceReaderNet) with the weights of an exported reader or second look."""
    net = _load_folded(DiceReaderNet(), path, ("type_head", "face_head", "state_head"))
    if check:
        _check_against(net, path, {"image": _probe_images()}, ("type", "face", "state"))
    return net


def lean_from_onnx(path: Path, check: bool = True) -> LeanNet:
    """The lean look's network (LeanNet: the reader's features, its 1x1 squeeze, the two layers told
    the angle) with the weights of an exported lean look (models/reader_lean.onnx), so that it can be
    taught on when its checkpoint is gone (train_lean --resume X.onnx)."""
    net = _load_folded(LeanNet(), path, ("hidden", "out"))
    if check:
        slant = np.array([[0.0], [15.0], [30.0], [45.0]], np.float32)
        _check_against(net, path, {"image": _probe_images(), "slant": slant}, ("lean",))
    return net


def detector_from_onnx(path: Path, check: bool = True) -> DiceDetector:
    """The detector's network with the weights of an exported detector (models/detector.onnx), so that
    it can be taught on when its checkpoint is gone (train_detector --init X.onnx)."""
    net = _load_folded(DiceDetector(), path, (), bare=True)
    if check:
        probe = np.random.default_rng(0).random((1, 3, 96, 160), dtype=np.float32)
        _check_against(net, path, {"image": probe}, ("heat and box",))
    return net


def _probe_images() -> np.ndarray:
    """Four fixed 96 px inputs to compare a rebuilt network with its ONNX model on."""
    return np.random.default_rng(0).random((4, 3, 96, 96), dtype=np.float32)


def _check_against(net: nn.Module, path: Path, inputs: dict[str, np.ndarray], names: tuple[str, ...],
                   tol: float = 1e-3) -> None:
    """ValueError unless `net`, given `inputs` (the ONNX model's input names, in `net`'s argument
    order), gives the ONNX model's outputs (named `names` in the message) within `tol`."""
    import onnxruntime as ort

    ref = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, inputs)
    with torch.no_grad():
        got = net(*(torch.from_numpy(v) for v in inputs.values()))
    got = got if isinstance(got, (tuple, list)) else (got,)
    for r, g, name in zip(ref, got, names):
        err = float(np.abs(r - g.numpy()).max())
        if err > tol:
            raise ValueError(f"{path}: rebuilt network's {name} logits differ by {err:.4g} from the ONNX model's")


def _passes_through(bn: nn.BatchNorm2d) -> bool:
    """A BatchNorm as reader_from_onnx leaves it: unit scale and statistics, the folded bias on."""
    return bool(torch.all(bn.weight == 1) and torch.all(bn.running_mean == 0)
                and torch.allclose(bn.running_var + bn.eps, torch.ones_like(bn.running_var),
                                   rtol=0.0, atol=bn.eps / 10))  # a fresh BatchNorm's var is 1


def folded(net: nn.Module) -> bool:
    """Weights with the BatchNorms folded in (rebuilt from ONNX, or a soup of such: see
    models.train.soup); trained as they are, the first step would rescale every activation."""
    return all(_passes_through(bn) for _, bn in _normalised(net))


def refit_batchnorm(net: nn.Module, batches) -> None:
    """Make each BatchNorm normalise what its convolution gives on `batches` (tensors NCHW), with
    the eval-mode outputs unchanged (see the module docstring). A batch is an input tensor, or a
    tuple of the inputs (the lean look's crops and angles)."""
    pairs = _normalised(net)
    sums = {id(c): [0.0, 0.0, 0] for c, _ in pairs}

    def hook(conv, _inp, out):
        y = out.detach().double()
        s = sums[id(conv)]
        s[0] = s[0] + y.sum(dim=(0, 2, 3))
        s[1] = s[1] + (y * y).sum(dim=(0, 2, 3))
        s[2] += y.shape[0] * y.shape[2] * y.shape[3]

    handles = [c.register_forward_hook(hook) for c, _ in pairs]
    was_training = net.training
    net.eval()
    try:
        with torch.no_grad():
            for x in batches:
                net(*x) if isinstance(x, tuple) else net(x)
    finally:
        for h in handles:
            h.remove()
    with torch.no_grad():
        for conv, bn in pairs:
            total, sq, n = sums[id(conv)]
            if n == 0:
                raise ValueError("refit_batchnorm: no batches given")
            if not _passes_through(bn):
                raise ValueError("refit_batchnorm expects the pass-through BatchNorms of reader_from_onnx")
            mean = total / n
            var = (sq / n - mean * mean).clamp_min(0.0)
            bn.running_mean.copy_(mean.float())
            bn.running_var.copy_(var.float())
            bn.weight.copy_(torch.sqrt(var + bn.eps).float())
            bn.bias.add_(mean.float())  # the folded bias it passed on, plus the mean it now removes
    net.train(was_training)


def start_from(path: Path, batches) -> DiceReaderNet:
    """The network to train on: torch weights (.pt, as train_* or models.train.soup save them) or an
    exported ONNX model. Folded weights (ONNX, a soup) get their BatchNorms refitted on `batches`, a
    callable giving a list of input tensors: session 21 started a run from a soup's .pt without
    that, and its type loss began at 2.1, a network reading at random (1.06 from the soup's ONNX)."""
    if not path.is_file():
        raise SystemExit(f"--init {path}: no such file (give a .pt checkpoint or a models/*.onnx reader)")
    if path.suffix == ".onnx":
        net = reader_from_onnx(path)
    else:
        net = DiceReaderNet()
        load_reader_state(net, torch.load(path))
    if folded(net):  # always from ONNX; from a .pt, a soup's (models.train.soup)
        refit_batchnorm(net, batches())
    net.train()
    return net
