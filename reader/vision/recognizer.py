"""The recognizer: every die in a tray frame, its type, top face, confidence and state.

Two ONNX models from models/: `detector.onnx` finds dice (reader.vision.detector), `reader.onnx`
reads each one (reader.vision.faces). Pure computation on an image array: opening cameras and
files is the callers' business.
"""

from __future__ import annotations

import os

import numpy as np

from reader.errors import DiceReaderError
from reader.reading import Box, DieReading, Unreadable
from reader.vision.detector import DiceDetector
from reader.vision.faces import FaceReader
from reader.vision.onnx_model import OnnxModel, models_dir

SINGLE_LONG_SIDE = 112  # a single-die image is shrunk so its die has the size the detector knows (14-110 px)


class Recognizer:
    def __init__(self, detector: DiceDetector, faces: FaceReader):
        self.detector = detector
        self.faces = faces

    @classmethod
    def load(cls, models_dir_: str | os.PathLike | None = None, threads: int | None = None) -> "Recognizer":
        d = models_dir(models_dir_)
        return cls(DiceDetector(OnnxModel(d / "detector.onnx", threads)),
                    FaceReader(OnnxModel(d / "reader.onnx", threads)))

    @property
    def versions(self) -> dict:
        return {"detector": self.detector.model.meta.get("version"),
                "reader": self.faces.model.meta.get("version")}

    @staticmethod
    def _check(image) -> np.ndarray:
        if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
            raise DiceReaderError("expected a BGR colour image (H x W x 3)")
        if image.dtype != np.uint8:
            raise DiceReaderError(f"expected an 8-bit image, got {image.dtype}")
        return image

    def read_frame(self, image: np.ndarray) -> list[DieReading]:
        """Every die in a tray frame, left to right then top to bottom."""
        image = self._check(image)
        dets = self.detector.detect(image)
        boxes = [d.box for d in dets]
        readings = []
        for det, ev in zip(dets, self.faces.evidence(image, boxes)):
            r = self.faces.decide(ev, Box(*det.box))
            if r is not None:
                readings.append(r)
        readings.sort(key=lambda r: (round(r.box.center[1] / max(r.box.height, 1)), r.box.center[0]))
        return readings

    def read_single(self, image: np.ndarray) -> DieReading:
        """The image shows one die, which may fill it."""
        image = self._check(image)
        h, w = image.shape[:2]
        candidates = [(0.0, 0.0, float(w), float(h))]
        dets = self.detector.detect(image, long_side=SINGLE_LONG_SIDE)
        if dets:
            best = max(dets, key=lambda d: d.score)
            if best.score >= 0.3:
                candidates.insert(0, best.box)
        evidence = self.faces.evidence(image, candidates)
        # the box whose reading is most sure it shows a die
        none_i = self.faces.types.index("none") if "none" in self.faces.types else None
        def die_prob(ev):
            return 1.0 - (ev.type_probs[none_i] if none_i is not None else 0.0)
        k = int(np.argmax([die_prob(ev) for ev in evidence]))
        reading = self.faces.decide(evidence[k], Box(*candidates[k]), allow_none=False)
        if reading is None:  # pragma: no cover - allow_none=False never returns None
            return DieReading("d6", Box(*candidates[k]), Unreadable("no die found"), 0.0)
        return reading
