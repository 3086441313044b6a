"""Reading one die from its crop: type, top face, state, and a confidence that can say "can't tell".

Each die is read four times, its crop turned by 0, 90, 180 and 270 degrees. A die seen from above
has no "up", so the four readings of a die the network really understands agree; disagreement is
the cheapest honest signal that a die is outside what it has learned (a new font, glare, a die
half hidden). A face is accepted only when the views agree and the calibrated confidence clears
the threshold stored in the model for that die type (pips are read surely where D20 numerals are
not, so one threshold for all would refuse good D6 or accept doubtful D20); anything else is
Unreadable, which the rules turn into "roll again". A reader with a print check (reader v16) also
refuses a find it is sure is a printed mark, a numeral on a card or a dot on the cloth: refused and
shown, never dropped, so a die it doubts wrongly still makes the roll "roll again".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from reader.dice import FACES
from reader.reading import Box, Cocked, DieReading, Face, Unreadable
from reader.vision.crops import CROP_PER_SIDE, crop_views, to_tensor
from reader.vision.onnx_model import OnnxModel, output_at, sigmoid
from reader.vision.topface import RISEN_DICE, TopFaceLook, combine

ANGLES = (0.0, 90.0, 180.0, 270.0)


# The reason a find the print check is sure of is refused with; a later look (the seen look, with the
# camera described) leaves such a find as it is.
PRINTED = "may be a printed mark, not a die"
# The reason a face the views agree on is refused for a confidence under the threshold; with the camera
# described, such a die may be decided again with the lean look (reader.vision.lean.LeanThresholds).
LOW_CONFIDENCE = "low confidence"


def softmax(x: np.ndarray, t: float = 1.0) -> np.ndarray:
    z = x / t
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def same_argmax(p: np.ndarray) -> bool:
    """Do all views (rows) name the same class?"""
    named = p.argmax(axis=1)
    return bool(np.all(named == named[0]))


@dataclass(frozen=True)
class FaceEvidence:
    """The averaged network outputs for one die, before the accept/reject decision."""

    type_probs: np.ndarray      # over TYPES
    face_probs: np.ndarray      # over 1..faces(die), for the most likely type
    cocked: float               # probability the die leans (no face up)
    views_agree: bool           # all four views name the same die type and face
    cocked_check: float = 0.0   # the state check's probability that it leans (0 where none was asked)
    printed: float = 0.0        # the print check's probability that it is a printed mark (0: no check)


@dataclass(frozen=True)
class StateCheck:
    """A second network's state head, asked of every die: at or over `threshold` p(cocked), a face
    is not accepted ("may be leaning", roll again).

    Why: a whole look taught on dice cut from rendered tray frames reads far more of the dice a
    tray camera sees, and as surely reads more of the leaning dice whose face looks at the camera
    squarely: its state head, sharper on the flat dice, lets more of those through. The whole look
    it was taught from still doubts some of them. Either state head may refuse; `threshold` is set
    on the calibration dice, as high as it can be while giving no more leaning dice a value than that
    older reader gave alone (calibrate --state-check). Session 28 measured it (models/reader.md):
    the renders kept their cocked dice from a value, but the pair let one more wrong reading
    through on the 640x360 stills and on crops-fickett, so no committed reader names a state check
    yet (metadata "state_check": {"model", "threshold"})."""

    model: object               # OnnxModel (or a stand-in): returns [type, face, state] logits
    threshold: float
    name: str = "reader_state"  # its network's file name without .onnx (the versions the logs keep)

    @classmethod
    def from_meta(cls, model, meta: dict) -> "StateCheck":
        """From the reader's metadata `state_check` ({"model": FILE, "threshold": T}) and FILE loaded."""
        return cls(model, float(meta["threshold"]), str(meta["model"]).removesuffix(".onnx"))


class FaceReader:
    def __init__(self, model: OnnxModel, looks: Sequence[TopFaceLook] = (), state_check: StateCheck | None = None):
        self.model = model
        self.state_check = state_check
        # the second looks, each for its own die types (reader.vision.topface); one die type, one look
        self.looks = tuple(looks)
        self.look_of: dict[str, TopFaceLook] = {}
        for look in self.looks:
            for die in look.dice:
                if die in self.look_of:
                    raise ValueError(f"two second looks claim the {die}: each die type takes at most one")
                self.look_of[die] = look
        meta = model.meta
        self.types: list[str] = meta["types"]
        self.t_type = float(meta.get("temperature_type", 1.0))
        self.t_face = float(meta.get("temperature_face", 1.0))
        self.accept = float(meta.get("accept_threshold", 0.9))
        # per die type as read (calibrated on its own dice); a type not listed keeps the global one
        self.accept_by_die = {k: float(v) for k, v in meta.get("accept_threshold_by_die", {}).items()}
        self.cocked_threshold = float(meta.get("cocked_threshold", 0.5))
        # The print check (models/train/train_print_check.py): a fourth output, the logit that a find is
        # a printed mark (a numeral on a card, a dot on the cloth), not a die. Where it is sure, the find
        # is refused ("roll again"), not dropped: a die it wrongly doubts is still shown and still
        # counted as a die, so a roll is never taken for an empty tray.
        check = meta.get("print_check")
        self.print_sure = float(check["sure"]) if check else None
        # where its output is: by name where the model says (a head folded after it, the percentile
        # check, comes later; one folded again moves to the end), else the fourth
        at = output_at(model, (check or {}).get("output", "print_logits"))
        self._print_at = 3 if at is None else at
        self.per_side = float(meta.get("crop_per_side", CROP_PER_SIDE))
        # The views must name the same die type, each the likeliest among the dice, "none" aside: a
        # view that half takes the crop for no die (a die at the frame's edge, a bright object beside
        # it) has not named another die, and whether the crop holds a die at all is the pooled
        # "none" probability's question (`decide`). Counting "none" as a type refused tray-d6-nell's
        # die showing 1 that all six views read as 1 (0.95).
        self._die_cols = [i for i, t in enumerate(self.types) if t != "none"]

    def evidence(self, image: np.ndarray, boxes: list[tuple], check_state: bool = True,
                 shifts: list[tuple[float, float]] | None = None) -> list[FaceEvidence]:
        """`check_state`: ask the state check too, if there is one (a caller with a better judge of
        leaning, the lean look with the camera known, need not). `shifts`: per box, (dx, dy) pixels
        from its middle to where a described camera sees the die's top face; the second looks of
        the numeral dice cut there (reader.vision.viewing.top_face_shift)."""
        if not boxes:
            return []
        x = self._views(image, boxes, ANGLES)
        outs = self.model(x)
        t_logits, f_logits, s_logits = outs[:3]
        n = len(ANGLES)
        printed = np.zeros(len(boxes))
        if self.print_sure is not None and len(outs) > self._print_at:
            printed = sigmoid(outs[self._print_at][:, 0]).reshape(len(boxes), n).mean(axis=1)
        checked = np.zeros(len(boxes))
        if check_state and self.state_check is not None:
            checked = softmax(self.state_check.model(x)[2])[:, 1].reshape(len(boxes), n).mean(axis=1)
        tp_all = self._type_probs(t_logits, len(boxes), n)
        dice = [self.types[int(np.argmax(tp.mean(axis=0)))] for tp in tp_all]
        top_logits = {}
        for look in self.looks:
            second = [i for i, die in enumerate(dice) if self.look_of.get(die) is look]
            if second:
                moved = [shifts[i] if dice[i] in RISEN_DICE else (0.0, 0.0) for i in second] if shifts else None
                top_logits.update(zip(second, look.face_logits(image, [boxes[i] for i in second],
                                                               [dice[i] for i in second], moved)))
        out = []
        for i in range(len(boxes)):
            sl = slice(i * n, (i + 1) * n)
            tp = tp_all[i]
            sp = softmax(s_logits[sl])
            type_probs = tp.mean(axis=0)
            die = dice[i]
            k = FACES.get(die, 0)
            agree = same_argmax(tp[:, self._die_cols])
            if k:
                fp = softmax(f_logits[sl][:, :k], self.t_face)
                if i in top_logits:  # pooled with the second look's views, averaged
                    look = self.look_of[die]
                    top = softmax(top_logits[i][:, :k], look.temperature).mean(axis=0)
                    fp = combine(fp, top, look.weight)
                face_probs = fp.mean(axis=0)
                agree = agree and same_argmax(fp)
            else:
                face_probs = np.zeros(0)
            out.append(FaceEvidence(type_probs, face_probs, float(sp[:, 1].mean()), agree, float(checked[i]),
                                    float(printed[i])))
        return out

    def likeliest_types(self, image: np.ndarray, boxes: list, wider: float = 1.0,
                        angles: Sequence[float] = ANGLES) -> list[str]:
        """Per box, the die type the whole look finds likeliest ("none" aside), its views' type
        probabilities (the crop turned by each of `angles`) averaged, from a cut `wider` times its own
        (reader.vision.wider)."""
        if not boxes:
            return []
        t_logits = self.model(self._views(image, boxes, angles, wider))[0]
        probs = [tp.mean(axis=0) for tp in self._type_probs(t_logits, len(boxes), len(angles))]
        return [self.types[self._die_cols[int(np.argmax(p[self._die_cols]))]] for p in probs]

    def _views(self, image: np.ndarray, boxes: list, angles: Sequence[float], wider: float = 1.0) -> np.ndarray:
        """The network's input: each box cut `wider` times the reader's own side, turned by each of
        `angles` (box-major)."""
        return to_tensor([c for b in boxes for c in crop_views(image, b, angles, self.per_side * wider)])

    def _type_probs(self, t_logits: np.ndarray, boxes: int, views: int) -> list[np.ndarray]:
        """Per box, its views' type probabilities (views x types) at the type temperature."""
        return [softmax(t_logits[i * views:(i + 1) * views], self.t_type) for i in range(boxes)]

    def decide(self, ev: FaceEvidence, box: Box, allow_none: bool = True,
               accept_by_die: dict[str, float] | None = None) -> DieReading | None:
        """Turn evidence into a reading; None when the 'die' is most likely not a die.
        `accept_by_die`: thresholds to accept at instead of the reader's own, per die type (the die
        types it leaves out keep theirs): a die decided again with the lean look's p(leaning)
        (reader.vision.lean.LeanThresholds)."""
        probs = ev.type_probs.copy()
        if "none" in self.types:
            i_none = self.types.index("none")
            if allow_none and probs[i_none] >= 0.5:
                return None
            probs[i_none] = 0.0
        ti = int(np.argmax(probs))
        die = self.types[ti]
        p_type = float(probs[ti] / max(probs.sum(), 1e-9))
        if self.print_sure is not None and ev.printed >= self.print_sure:
            return DieReading(die, box, Unreadable(PRINTED, round(ev.printed, 4)), p_type)
        if ev.cocked >= self.cocked_threshold:
            return DieReading(die, box, Cocked(round(ev.cocked, 4)), p_type)
        if die == "d4":
            return DieReading(die, box, Unreadable("a D4: the rules use D6 to D20", p_type), p_type)
        if ev.face_probs.size == 0 or len(ev.face_probs) != FACES[die]:
            # evidence was computed for another type (the 'none' class won before masking)
            return DieReading(die, box, Unreadable("unsure of the die type", p_type), p_type)
        vi = int(np.argmax(ev.face_probs))
        conf = float(p_type * ev.face_probs[vi] * (1.0 - ev.cocked))
        if not ev.views_agree:
            reason = "views disagree"
        elif conf < (accept_by_die or {}).get(die, self.accept_by_die.get(die, self.accept)):
            reason = LOW_CONFIDENCE
        elif self.state_check is not None and ev.cocked_check >= self.state_check.threshold:
            reason = "may be leaning"
        else:
            return DieReading(die, box, Face(vi + 1, round(conf, 4)), p_type)
        return DieReading(die, box, Unreadable(reason, round(conf, 4)), p_type)
