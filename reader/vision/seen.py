"""The seen look: with the camera known, a numeral die read from the side the camera sees it from.

A D20's faces are 41.8 degrees apart, so a D20 seen more than about 21 degrees off vertical shows a
neighbour of its top face more squarely than the top face itself. Turned every way, as the reader
turns its crops, such a die is another D20 seen from above: the reader reads the neighbour as surely
as a top face, and its D20 threshold must refuse nearly every D20 (models/reader.md, "Session 28":
11 of the 13 calibration D20 read wrong at 0.80 or more were seen over 30 degrees off vertical).
Where the camera is known (reader.vision.viewing), the crop can be turned so that the camera's foot
is straight below the die, as every rendered crop is made: the top face then lies beyond the face
that looks at the camera, on the far side, by the angle. A network taught only such crops
(models/train/train_top_face.py --seen) reads the top face there.

For the die types it was taught (metadata "dice"), a die read flat or refused by the reader (never
one it calls cocked) and seen between its type's `from_deg` and `limit` degrees off vertical is
decided again by this look's face. Its confidence is p(type) x p(face) x (1 - p(leaning)): p(type)
the reader's, p(leaning) the lean look's (reader.vision.lean), not the reader's p(cocked). The
reader's state head, not knowing the camera, takes the side face of a flat die seen obliquely for a
lean (1280x720 renders, flat D8-D20 seen 30-45 degrees off vertical: median p(cocked) 0.16-0.29,
p(leaning) 0.01), and with its p(cocked) few of them could be accepted at all. It is accepted at
this look's own threshold for the type (metadata "accept_threshold_by_die", set on rendered crops it
never learnt from: models/train/calibrate_seen.py). Its limit replaces the steep limit of those
types. Only with a camera described and the looks that need it right asked for (CameraView.lean):
a wrong description turns the crop the wrong way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reader.dice import FACES
from reader.errors import DiceReaderError
from reader.reading import Box, Cocked, DieReading, Face, Unreadable
from reader.vision.crops import CROP_PER_SIDE, crop_die, to_tensor
from reader.vision.faces import PRINTED, softmax
from reader.vision.lean import LeanLook
from reader.vision.viewing import CameraView


@dataclass(frozen=True)
class SeenLook:
    model: object                 # OnnxModel (or a stand-in): returns [type, face, state] logits
    dice: frozenset               # the die types it reads
    accept_by_die: dict = field(default_factory=dict)  # its confidence threshold per die type
    temperature: float = 1.0      # of its face logits (fitted on its calibration dice)
    per_side: float = CROP_PER_SIDE
    # per die type, dice seen nearer vertical keep the reader's own decision (a type not named: 0)
    from_deg: dict = field(default_factory=dict)
    limit: float = 55.0           # dice seen further off vertical are refused (its renders end there)
    # Its views: the crop cut at these shares of per_side. It cannot be turned every way as the
    # reader's views are (the camera's foot must stay below), so its views differ in zoom, as the
    # detector's boxes do; a face is accepted only when they name the same one.
    scales: tuple[float, ...] = (1.0,)
    name: str = "reader_seen"

    @classmethod
    def from_model(cls, model, name: str = "reader_seen") -> "SeenLook":
        meta = model.meta
        if "accept_threshold_by_die" not in meta or "dice" not in meta:
            raise DiceReaderError(f"{name}.onnx has no thresholds or die types in its metadata: calibrate it "
                                  "(python -m models.train.calibrate_seen) before it reads")
        seen = meta.get("seen") or {}
        return cls(model, frozenset(meta["dice"]),
                   {str(k): float(v) for k, v in meta["accept_threshold_by_die"].items()},
                   float(meta.get("temperature_face", 1.0)), float(seen.get("per_side", CROP_PER_SIDE)),
                   {str(k): float(v) for k, v in meta.get("from_deg_by_die", {}).items()},
                   float(meta.get("limit_deg", 55.0)), tuple(float(x) for x in meta.get("scales", (1.0,))), name)

    def logits(self, image: np.ndarray, boxes: list, angles: list[float]) -> np.ndarray:
        """Boxes x views x 20 face logits, each die's crops turned by its angle."""
        crops = [crop_die(image, b, a, self.per_side * k) for b, a in zip(boxes, angles) for k in self.scales]
        return self.model(to_tensor(crops))[1].reshape(len(boxes), len(self.scales), -1)

    def pooled(self, logits: np.ndarray, die: str) -> tuple[np.ndarray, bool]:
        """(face probabilities over 1..faces(die), do the views agree) from one die's views x 20 logits."""
        p = softmax(logits[:, :FACES[die]], self.temperature)
        named = p.argmax(axis=1)
        return p.mean(axis=0), bool(np.all(named == named[0]))

    def face_probs(self, image: np.ndarray, boxes: list, dice: list[str], view: CameraView) -> list[tuple]:
        """Per die, (face probabilities, views agree) from its crops turned to the camera's foot."""
        if not boxes:
            return []
        h, w = image.shape[:2]
        lg = self.logits(image, boxes, [view.turn_to_foot(*Box(*b).center, w, h) for b in boxes])
        return [self.pooled(x, d) for x, d in zip(lg, dice)]

    def limits(self, steep: dict[str, float]) -> dict[str, float]:
        """The steep limits (viewing.STEEP_LIMITS) with this look's limit for its die types."""
        return {**steep, **{d: self.limit for d in self.dice}}

    def reads(self, found: list[DieReading | None], view: CameraView, width: int, height: int) -> list[int]:
        """The indices of the dice in `found` this look decides: of its types, not called cocked, seen
        from their type's `from_deg` to `limit` degrees off vertical. The lean look has judged
        them too (their p(leaning) is in the decision), so it need not look at them again."""
        return [i for i, r in enumerate(found)
                if r is not None and r.die in self.dice and not isinstance(r.outcome, Cocked)
                and r.reason != PRINTED
                and self.from_deg.get(r.die, 0.0) <= view.slant(*r.box.center, width, height) <= self.limit]

    def read_again(self, image: np.ndarray, found: list[DieReading | None], view: CameraView,
                   lean: LeanLook, mine: list[int] | None = None) -> list[DieReading | None]:
        """`found` with each die of this look's types that is not cocked, seen from its type's `from_deg`
        to `limit` degrees off vertical, decided by this look's face and the lean look's p(leaning)
        (module docstring); one the lean look finds leaning is cocked, as it would have called it.
        `mine`: those dice's indices (`reads`), when the caller has them already."""
        if mine is None:
            mine = self.reads(found, view, image.shape[1], image.shape[0])
        boxes = [tuple(found[i].box) for i in mine]
        probs = self.face_probs(image, boxes, [found[i].die for i in mine], view)
        leaning = lean.p_leaning(image, boxes, view)
        out = list(found)
        for i, (p, agree), pl in zip(mine, probs, leaning):
            r = found[i]
            vi = int(np.argmax(p))
            conf = round(float(r.type_confidence * p[vi] * (1.0 - pl)), 4)
            if pl >= lean.threshold:  # as the lean look would call it (LeanLook.refuse_leaning)
                out[i] = DieReading(r.die, r.box, Cocked(round(float(pl), 4)), r.type_confidence, r.style)
            elif agree and conf >= self.accept_by_die.get(r.die, 1.0):
                out[i] = DieReading(r.die, r.box, Face(vi + 1, conf), r.type_confidence, r.style)
            else:
                why = "low confidence" if agree else "views disagree"
                out[i] = DieReading(r.die, r.box, Unreadable(f"{why}, seen from the camera's side", conf),
                                    r.type_confidence, r.style)
        return out
