"""The recognizer: every die in a tray frame, its type, top face, confidence and state.

ONNX models from models/: `detector.onnx` finds dice (reader.vision.detector), `reader.onnx`
reads each one (reader.vision.faces), and the second looks named in the reader's metadata
(reader.vision.topface): `reader_top.onnx` at a numeral die's top face, `reader_top_d6.onnx` at a
D6's pips. Where the camera is known, `reader_lean.onnx` looks for dice that lean (reader.vision.lean).
Pure computation on an image
array: opening cameras and files is the callers' business.
"""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np

from reader.errors import DiceReaderError
from reader.reading import Box, DieReading, Face, Unreadable
from reader.vision.detector import DiceDetector, Heat
from reader.vision.faces import FaceReader
from reader.vision.lean import LeanLook
from reader.vision.onnx_model import OnnxModel, models_dir
from reader.vision.pieces import accepted, piece_pairs, refuse_pieces
from reader.vision.topface import TopFaceLook
from reader.vision.viewing import CameraView

# A single-die image is shrunk so its die has a size the detector knows (14-110 px). At 112 a die
# filling the image sat at the top of that range and its box came out short (crops-fickett: median
# 0.88 of the image, a tenth under 0.61); at 96 it is 0.98, a tenth under 0.84.
SINGLE_LONG_SIDE = 96
# The whole image is read as the die's box only when the detector's die spans at least this share of
# the image's long side. The reader learnt dice filling at least 1/1.89 of its crop (the crop side
# 1.35x the box, times up to 1.4 for a loose box); a whole-image crop is 1.35x the image, so a die
# under 0.71 of the image is smaller there than any die it was trained on, and is typed worse
# (type-lurig: dice 36-53% of the image, 77% typed right from the whole image, 99% from the box).
FILLS_IMAGE = 0.7
# The lean look, used only with a known camera that asks for it (CameraView.lean).
LEAN_MODEL = "reader_lean.onnx"
# The eager whole look, read with in reader.onnx's place only where the lean look guards it. Taught
# on dice cut from rendered tray frames too, it reads far more of the dice a tray camera sees, and,
# as surely, more of the cocked dice whose face looks squarely at the camera: from the crop alone
# those are flat dice seen from above, and only the camera's set-up tells them apart
# (models/reader_eager.md).
EAGER_MODEL = "reader_eager.onnx"


class Recognizer:
    def __init__(self, detector: DiceDetector, faces: FaceReader, view: CameraView | None = None,
                 lean: LeanLook | None = None, eager: FaceReader | None = None):
        self.detector = detector
        self.faces = faces
        # read with in faces' place when the lean look is asked for (EAGER_MODEL); None: faces always
        self.eager = eager
        # the camera, when its set-up is known: numeral dice seen too steeply are refused
        # (reader.vision.viewing), and, if the set-up asks for it, dice the lean look finds
        # leaning are cocked (reader.vision.lean); None: every die is read as if seen from above
        self.view = view
        self.lean = lean

    @classmethod
    def load(cls, models_dir_: str | os.PathLike | None = None, threads: int | None = None) -> "Recognizer":
        d = models_dir(models_dir_)
        networks: dict[str, OnnxModel] = {}  # the second looks' networks, shared by both whole looks

        def reader_with_looks(name: str) -> FaceReader:
            reader = OnnxModel(d / name, threads)
            # its second looks, if it has any: a list (reader v7 wrote its one look as a dict); each
            # whole look's metadata holds the temperatures fitted with it
            tops = reader.meta.get("top_face") or []
            looks = []
            for t in [tops] if isinstance(tops, dict) else tops:
                if t["model"] not in networks:
                    networks[t["model"]] = OnnxModel(d / t["model"], threads)
                looks.append(TopFaceLook.from_meta(networks[t["model"]], t))
            return FaceReader(reader, looks)

        lean = LeanLook.from_model(OnnxModel(d / LEAN_MODEL, threads)) if (d / LEAN_MODEL).is_file() else None
        eager = reader_with_looks(EAGER_MODEL) if (d / EAGER_MODEL).is_file() else None
        return cls(DiceDetector(OnnxModel(d / "detector.onnx", threads)), reader_with_looks("reader.onnx"),
                   lean=lean, eager=eager)

    @property
    def versions(self) -> dict:
        out = {"detector": self.detector.model.meta.get("version"),
               "reader": self.faces.model.meta.get("version")}
        for look in self.faces.looks:  # reader_top (v7's, the numeral dice), reader_top_d6, ...
            out[look.name] = look.model.meta.get("version")
        if self.lean is not None:
            out["reader_lean"] = self.lean.model.meta.get("version")
        if self.eager is not None:
            out["reader_eager"] = self.eager.model.meta.get("version")
        return out

    def _reader(self) -> FaceReader:
        """The whole look to read with: the eager one only where the lean look guards it."""
        guarded = self.view is not None and self.view.lean
        return self.eager if guarded and self.eager is not None else self.faces

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
        if self.view is not None and self.view.lean and self.lean is None:
            raise DiceReaderError(f"the lean look was asked for, but the models have no {LEAN_MODEL}")
        faces = self._reader()
        dets, heat = self.detector.find(image)
        boxes = [Box(*d.box) for d in dets]
        found = [faces.decide(ev, b) for b, ev in zip(boxes, faces.evidence(image, boxes))]
        readings = refuse_pieces([r for r in self._join_pieces(faces, image, boxes, found, heat) if r is not None])
        if self.view is not None:
            if self.view.lean:
                readings = self._read_flat_again(faces, image, readings)
            readings = self.view.refuse_steep(readings, image.shape[1], image.shape[0])
            if self.view.lean:
                readings = self.lean.refuse_leaning(image, readings, self.view)
        readings.sort(key=lambda r: (round(r.box.center[1] / max(r.box.height, 1)), r.box.center[0]))
        return readings

    def _read_flat_again(self, faces: FaceReader, image: np.ndarray, readings: list[DieReading]) -> list[DieReading]:
        """The dice the reader's state head calls cocked that the lean look, which knows where the
        camera sees them from, finds standing flat, read again with its p(leaning) in place of the
        state head's p(cocked) (reader.vision.lean.LeanLook.flat_among)."""
        again = self.lean.flat_among(image, readings, self.view)
        if not again:
            return readings
        boxes = [readings[i].box for i in again]
        out = list(readings)
        for i, b, ev in zip(again, boxes, faces.evidence(image, [tuple(b) for b in boxes])):
            r = faces.decide(replace(ev, cocked=again[i]), b, allow_none=False)
            if r is not None and isinstance(r.outcome, Face):
                out[i] = r
        return out

    def _join_pieces(self, faces: FaceReader, image: np.ndarray, boxes: list[Box],
                     found: list[DieReading | None], heat: Heat) -> list[DieReading | None]:
        """Two boxes on one die read as one (reader.vision.pieces): a pair is joined only when the
        box holding both reads as an accepted face."""
        pairs = piece_pairs(boxes, found, heat.ridge)
        if not pairs:
            return found
        unions = [faces.decide(ev, p.union) for p, ev in zip(pairs, faces.evidence(image, [p.union for p in pairs]))]
        out, used = list(found), set()
        for p, u in zip(pairs, unions):
            if not accepted(u) or p.i in used or p.j in used:
                continue
            out[p.i], out[p.j] = u, None
            used.update((p.i, p.j))
        return out

    def read_single(self, image: np.ndarray) -> DieReading:
        """The image shows one die, which may fill it."""
        image = self._check(image)
        h, w = image.shape[:2]
        candidates = [(0.0, 0.0, float(w), float(h))]
        dets = self.detector.detect(image, long_side=SINGLE_LONG_SIDE, large_long=None)
        if dets:  # the detector's own threshold already dropped the doubtful ones
            best = max(dets, key=lambda d: d.score)
            fills = Box(*best.box).side >= FILLS_IMAGE * max(w, h)
            candidates = [best.box] + (candidates if fills else [])
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
