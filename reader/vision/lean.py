"""The lean look: with the camera known, a die that shows a face squarely where a flat die would
show its side is leaning, and gets no value.

The reader's state head calls most cocked dice cocked, but not those whose upturned face (or a
side face, the die leaning away) looks squarely at the camera: from one crop, turned every way as
the reader turns it, such a die is a flat die seen from above (models/reader.md, "Known
failures": 11 of 110 rendered cocked dice given a value at 1280x720). Where the camera is known
(reader.vision.viewing), a flat die seen 30 degrees off vertical shows the side face toward the
camera's foot, and nothing on the far side. So the lean look cuts the die as the reader does,
turned so that the camera's foot is below it, and a network taught on such crops and told the
angle (models/train/train_lean.py) says whether the die leans. A reading it finds leaning at or
over its threshold (metadata "lean_threshold", set on held-out renders) becomes Cocked: no value,
roll again. The other way too: a die the state head calls cocked, which the lean look finds
standing flat (under FLAT_BELOW), is read again, its p(leaning) in place of the state head's
p(cocked). Seen obliquely, a flat die shows a side face, and the state head, which does not know
the camera, takes it for a lean: at 1280x720, with each frame's camera, 143 flat dice of the
renders were called cocked. And a die the reader refused for low confidence alone is decided again
with its p(leaning) in place of p(cocked), at thresholds set for such readings (LeanThresholds).
Without a camera set-up nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from reader.errors import DiceReaderError
from reader.reading import Cocked, DieReading
from reader.vision.crops import CROP_PER_SIDE, crop_die, to_tensor
from reader.vision.faces import softmax
from reader.vision.viewing import CameraView

# A die the reader's state head calls cocked is read again only when this look is sure it stands
# flat. On the 1280x720 renders read with their cameras, the truly cocked dice the reader called
# cocked were given p(leaning) of 0.99 or more (nine in ten of 43), the flat ones a median of 0.08:
# 0.1, 0.2 and the look's own threshold (0.50) read the same dice again.
FLAT_BELOW = 0.2
# Asked under many set-ups at once (p_leaning_under), a die's crop is turned to the nearest multiple of
# this many degrees toward each set-up's foot, and each turn is run once. The look was taught on crops
# turned up to a few degrees off (sd 8).
TURN_STEP = 10.0
# ... and the turned crops are run this many at a time: onnxruntime keeps the memory of its largest
# batch, and ten dice turned 19 ways each in one batch took the process's peak from 342 to 871 MB.
TURNS_A_RUN = 32


@dataclass(frozen=True)
class LeanLook:
    model: object       # OnnxModel (or a stand-in): (image N x 3 x 96 x 96, slant N x 1) -> logits[, features]
    threshold: float    # p(leaning) at or over which a read die is called cocked
    per_side: float = CROP_PER_SIDE
    # the look's head alone (models/reader_lean_head.onnx): (features N x 576, slant N x 1) -> logits,
    # the features the model's second output; None: p_leaning_under asks the whole look each set-up
    head: object | None = None
    turn_step: float = TURN_STEP

    def __post_init__(self) -> None:
        """A head is checked once, here: on a probe crop at two angles it must give the look's own
        logits (a head cut from another look would guess cameras from features it never saw)."""
        if self.head is None:
            return
        probe = np.full((2, 3, 96, 96), 0.5, np.float32)
        slant = np.array([[0.0], [30.0]], np.float32)
        logits, features = self.model.run(probe, slant)[:2]
        if not np.allclose(self.head.run(features, slant)[0], logits, atol=1e-3):
            raise DiceReaderError("the lean look's head (reader_lean_head.onnx) is not its own: make both again "
                                  "with python -m models.train.export lean-split")

    @classmethod
    def from_model(cls, model, head=None) -> "LeanLook":
        meta = model.meta
        return cls(model, float(meta["lean_threshold"]), float(meta.get("crop_per_side", CROP_PER_SIDE)), head)

    def p_leaning(self, image: np.ndarray, boxes: list, view: CameraView) -> np.ndarray:
        """p(leaning) of the dice in `boxes`, seen by the camera `view`."""
        h, w = image.shape[:2]
        centres = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes]
        return self.p_leaning_turned(image, boxes, [view.turn_to_foot(cx, cy, w, h) for cx, cy in centres],
                                     [view.slant(cx, cy, w, h) for cx, cy in centres])

    def p_leaning_turned(self, image: np.ndarray, boxes: list, angles: list[float], slants: list[float]) -> np.ndarray:
        """p(leaning) of the dice in `boxes`, each crop turned by its angle (so that the camera's foot
        is below it) and seen at its slant: a rendered crop, whose foot is below already, at 0."""
        if not boxes:
            return np.zeros(0)
        crops = [crop_die(image, b, a, self.per_side) for b, a in zip(boxes, angles)]
        logits = self.model.run(to_tensor(crops), np.array(slants, np.float32).reshape(-1, 1))[0]
        return softmax(logits)[:, 1]

    def p_leaning_under(self, image: np.ndarray, boxes: list, views, turn_step: float | None = None) -> np.ndarray:
        """p(leaning) of the dice in `boxes` under each of `views`: len(views) x len(boxes).

        Why not p_leaning once per view: a camera guess (reader.vision.camera_guess) asks 87 set-ups,
        and the look's cost is its features. With its head apart, each die's crop is turned to the
        nearest `turn_step` toward each set-up's foot, each such crop run once for its features, and
        the head (a few thousand multiplications) told each set-up's slant: a die turned 14 ways
        instead of 87 (a 1280x720 frame, steps of 10 degrees). `turn_step`: another step than the
        look's own (reader.vision.lean_guard's coarser guess)."""
        if not boxes:
            return np.zeros((len(views), 0))
        if self.head is None:
            return np.stack([self.p_leaning(image, boxes, v) for v in views])
        h, w = image.shape[:2]
        centres = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes]
        turns = np.array([[v.turn_to_foot(cx, cy, w, h) for cx, cy in centres] for v in views])
        slants = np.array([[v.slant(cx, cy, w, h) for cx, cy in centres] for v in views], np.float32)
        step = float(turn_step) if turn_step is not None else self.turn_step
        steps = np.round(turns / step).astype(int) % round(360 / step)
        pairs = sorted({(i, int(k)) for i in range(len(boxes)) for k in steps[:, i]})
        row = {pair: n for n, pair in enumerate(pairs)}
        crops = [crop_die(image, boxes[i], k * step, self.per_side) for i, k in pairs]
        features = np.concatenate([
            self.model.run(to_tensor(part), np.zeros((len(part), 1), np.float32))[1]
            for part in (crops[at:at + TURNS_A_RUN] for at in range(0, len(crops), TURNS_A_RUN))])
        index = np.array([[row[(i, int(k))] for i, k in enumerate(line)] for line in steps])
        (out,) = self.head.run(features[index.ravel()], slants.reshape(-1, 1))
        return softmax(out)[:, 1].reshape(len(views), len(boxes))

    def flat_among(self, image: np.ndarray, readings: list[DieReading | None], view: CameraView) -> dict[int, float]:
        """{index: p(leaning)} of the readings called cocked that this look finds flat (under
        FLAT_BELOW): a flat die seen obliquely shows a side face, which the reader's state head,
        not knowing the camera, takes for a lean. None (no die there) is passed over."""
        cocked = [i for i, r in enumerate(readings) if r is not None and isinstance(r.outcome, Cocked)]
        p = self.p_leaning(image, [tuple(readings[i].box) for i in cocked], view)
        return {i: float(pi) for i, pi in zip(cocked, p) if pi < FLAT_BELOW}

    def refuse_leaning(self, image: np.ndarray, readings: list[DieReading], view: CameraView,
                       judged: frozenset[int] = frozenset()) -> list[DieReading]:
        """The readings, each one with a value whose die leans turned into Cocked; `judged`: indices
        of readings already decided with this look's p(leaning) (reader.vision.seen), not looked at
        again."""
        valued = [i for i, r in enumerate(readings) if r.value is not None and i not in judged]
        p = self.p_leaning(image, [tuple(readings[i].box) for i in valued], view)
        out = list(readings)
        for i, pi in zip(valued, p):
            if pi >= self.threshold:
                out[i] = replace(readings[i], outcome=Cocked(round(float(pi), 4)))
        return out


@dataclass(frozen=True)
class LeanThresholds:
    """Accept thresholds for a die refused for low confidence alone, decided again with the lean
    look's p(leaning) in place of the state head's p(cocked) (reader metadata "lean_thresholds":
    {"within_deg": {die: deg}, "accept_threshold_by_die": {die: threshold}}), where the camera sees
    the die within its type's angle.

    Why: the reader's confidence is p(type) x p(face) x (1 - p(cocked)), its thresholds set on
    calibration dice seen from every angle with no camera known. Seen obliquely, a flat die shows a
    side face, and the state head takes it for a lean: its p(cocked) of 0.2-0.4 costs a die read
    right that much. And the D20's threshold (0.94) is set by D20 seen over 21 degrees off vertical,
    which show a neighbour face squarely and are read wrong as surely as others are read right
    (models/reader.md, "Session 28"). With the camera described, the lean look, which knows the angle,
    says how much a die leans, and each die's angle is known. Within the angle where the reader
    decides (the steep limits; the D20 to 21 degrees, half its face angle, beyond which the seen look
    reads it) the dice read so are held to thresholds set on calibration dice read the same way:
    none of them read wrong, none cocked given a value (models/train/calibrate_lean_thresholds.py;
    models/reader.md, "Session 32")."""

    within_deg: dict
    accept_by_die: dict
    # With the camera described, the numeral dice's second looks cut where the camera sees the top
    # face, this x the box side x sin(angle) from the box's middle (reader.vision.viewing.top_face_shift;
    # metadata "top_face_rise"). The thresholds were set on dice read so; 0 (readers before v18): the
    # cut about the box's middle, as without a camera.
    rise: float = 0.0
    # Second looks taken with the camera described, in place of the reader's own for their dice (each
    # a metadata entry as the reader's "top_face" ones: model, per_side, dice, ...; metadata "looks"):
    # a look taught the faces of dice seen near vertical reads them surely where the camera says
    # they are seen so, and the thresholds above were set on its readings (models/reader.md,
    # "Session 35"). Empty: the reader's own looks.
    looks: tuple = ()
    # The first decision's thresholds with the camera described and the looks, for the dice named
    # (metadata "first_accept_by_die"); the others take the reader's own. Why: that decision is made
    # on the evidence of the looks above, and the thresholds here were set behind it. A reader whose
    # no-camera look for a type changes has its own threshold for that type set again on the new
    # look's readings (reader v20's D20: 0.94 -> 0.98), which says nothing of the camera's look; the
    # camera's path keeps the threshold it was set behind (models/reader.md, "Session 40"). Empty:
    # the reader's own for every die (readers before v20).
    first_by_die: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0.0 <= float(self.rise) <= 1.0:
            raise DiceReaderError(f"lean thresholds' top_face_rise {self.rise!r}: give 0-1")
        for look in self.looks:
            if not isinstance(look, dict) or not isinstance(look.get("model"), str) or not look.get("dice") \
                    or "per_side" not in look:
                raise DiceReaderError(f"lean thresholds' look {look!r}: give its model, per_side and dice")
        for die, t in self.accept_by_die.items():
            if die not in self.within_deg:
                raise DiceReaderError(f"lean threshold for the {die} names no angle it holds within")
            if not 0.0 < float(t) <= 1.0:
                raise DiceReaderError(f"lean threshold {t!r} for the {die}: give 0-1")
        for die, t in self.first_by_die.items():
            if not 0.0 < float(t) <= 1.0:
                raise DiceReaderError(f"first threshold {t!r} for the {die} with the camera described: give 0-1")

    @classmethod
    def from_meta(cls, meta: dict | None) -> "LeanThresholds | None":
        """From the reader's metadata "lean_thresholds"; None where it has none."""
        if not meta:
            return None
        try:
            return cls({str(k): float(v) for k, v in meta["within_deg"].items()},
                       {str(k): float(v) for k, v in meta["accept_threshold_by_die"].items()},
                       float(meta.get("top_face_rise", 0.0)), tuple(meta.get("looks", ())),
                       {str(k): float(v) for k, v in (meta.get("first_accept_by_die") or {}).items()})
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise DiceReaderError(f"reader metadata lean_thresholds {meta!r} is not angles and thresholds") from exc

    def threshold(self, die: str, slant: float) -> float | None:
        """The threshold for a `die` seen `slant` degrees off vertical; None: not decided again."""
        if die in self.accept_by_die and slant <= self.within_deg[die]:
            return self.accept_by_die[die]
        return None
