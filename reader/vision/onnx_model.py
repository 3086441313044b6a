"""Loading an ONNX model with its metadata (classes, normalisation, calibration) on the CPU.

The metadata travels inside the .onnx file so that a model and the numbers that interpret its
outputs can never be mixed up.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from reader.errors import DiceReaderError

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"


def sigmoid(x: np.ndarray) -> np.ndarray:
    """A network's logits as probabilities, clipped first: a network sure of a "no" gives logits under
    -89, whose exp overflows float32 (the same 0 came out, with a RuntimeWarning on the user's
    terminal for every frame: a detector taught on from v3, sure of plain cloth)."""
    return 1.0 / (1.0 + np.exp(-np.clip(x, -60.0, 60.0)))


def output_at(model, name: str) -> int | None:
    """Where the output `name` is among `model`'s outputs, or None: a head folded in later (the print
    check, the percentile check) is found by its name, not its place; a test's stand-in without
    output names has none."""
    names = getattr(model, "output_names", None) or []
    return names.index(name) if name in names else None


def models_dir(override: str | os.PathLike | None = None) -> Path:
    return Path(override or os.environ.get("DICE_READER_MODELS") or MODELS_DIR)


class OnnxModel:
    def __init__(self, path: Path, threads: int | None = None):
        try:
            import onnxruntime as ort
        except ImportError as exc:  # pragma: no cover - runtime dependency
            raise DiceReaderError(f"onnxruntime is not installed: {exc}") from None
        if not path.is_file():
            raise DiceReaderError(f"model {path} not found; models are committed in models/ "
                                  "(python -m models.train.export makes them again)")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or min(2, os.cpu_count() or 1)
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        # Two sessions (detector, reader) take turns on the same cores: a pool that spin-waits after
        # its run steals the cores from the other one (a 10-dice frame took 90 ms instead of 50).
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types
            raise DiceReaderError(f"cannot load model {path}: {exc}") from None
        meta = self.session.get_modelmeta().custom_metadata_map
        self.meta = {k: json.loads(v) for k, v in meta.items()}
        self.path = path
        self.input_name = self.session.get_inputs()[0].name
        # the outputs by name: heads folded in later (models/train/heads.py) come after the first ones,
        # in the order they were folded
        self.output_names = [o.name for o in self.session.get_outputs()]

    def __call__(self, x: np.ndarray) -> list[np.ndarray]:
        return self.session.run(None, {self.input_name: x})

    def run(self, *inputs: np.ndarray) -> list[np.ndarray]:
        """The outputs for a model of several inputs, given in the model's order."""
        names = [i.name for i in self.session.get_inputs()]
        if len(inputs) != len(names):
            raise DiceReaderError(f"model {self.path} takes {len(names)} inputs ({', '.join(names)}), "
                                  f"given {len(inputs)}")
        return self.session.run(None, dict(zip(names, inputs)))
