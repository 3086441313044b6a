"""A percentile D10, its faces "00" to "90", is refused: the rules want a plain die.

Why: every polyhedral set holds a percentile D10 beside the plain one, and a player reaching for "the
D10" takes either. Shown one, the reader sees two digits on a die it takes for a D10, D12 or D20 and
may give it a value: rendered (reader.synth.percentile), reader v24 gave 16 of 369 photos of one
percentile D10 a value, none of them its tens digit (a "40" read as a D12's 10 at 0.94, a "10" as a
D10's 0; models/reader.md, "Session 78"). Nothing in such a reading tells it from a plain D12's 10.

The whole look (reader v25) carries a check for it, taught on rendered percentile D10 against the same
dice numbered plainly and every other die (models/train/train_percentile_check.py): an output of its
own, `percentile_logits`, beside the type, face and state outputs, which it leaves as they were. Asked
last, of the dice given a value whose type a percentile D10 is taken for (metadata
`percentile_check.dice`), at the box the reading ends with, whichever look gave the value; where the
mean of its sigmoid over the four views reaches `sure`, the value is refused with a reason that says
what to do. Refused, not dropped: the die still counts, and the roll is "roll again".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reader.reading import DieReading, Face
from reader.vision.crops import CROP_PER_SIDE, crop_views, to_tensor
from reader.vision.faces import ANGLES
from reader.vision.onnx_model import output_at, sigmoid

REASON = "a percentile D10 (faces 00 to 90)? the rules want a plain die: roll a D10 numbered 1 to 0"


@dataclass(frozen=True)
class PercentileCheck:
    """The whole look's percentile check: `model` the whole look, its output `at`, `sure` the mean
    probability that refuses, `dice` the types it is asked of."""

    model: object
    at: int
    sure: float
    dice: frozenset
    per_side: float = CROP_PER_SIDE

    @classmethod
    def of(cls, model) -> "PercentileCheck | None":
        """The check the whole look `model` carries (metadata `percentile_check`), or None (reader v24
        and before; no model: a test's stand-in reader)."""
        meta = (getattr(model, "meta", None) or {}).get("percentile_check")
        at = output_at(model, meta.get("output", "")) if meta else None
        if at is None:
            return None
        return cls(model, at, float(meta["sure"]), frozenset(meta["dice"]),
                   float(model.meta.get("crop_per_side", CROP_PER_SIDE)))

    def probabilities(self, image: np.ndarray, boxes: list) -> np.ndarray:
        """Per box, the check's probability that the die there is a percentile D10, over its views."""
        if not boxes:
            return np.zeros(0)
        x = to_tensor([c for b in boxes for c in crop_views(image, b, ANGLES, self.per_side)])  # the look's own views
        logits = self.model(x)[self.at][:, 0]
        return sigmoid(logits).reshape(len(boxes), len(ANGLES)).mean(axis=1)

    def asked(self, reading: DieReading) -> bool:
        return reading.die in self.dice and isinstance(reading.outcome, Face)

    def refuse(self, image: np.ndarray, readings: list[DieReading]) -> list[DieReading]:
        """The readings, each die the check is sure is a percentile D10 made Unreadable (its confidence
        kept); one pass of the whole look over the dice asked, none where no die is."""
        idx = [i for i, r in enumerate(readings) if self.asked(r)]
        if not idx:
            return readings
        p = self.probabilities(image, [tuple(readings[i].box) for i in idx])
        out = list(readings)
        for i, q in zip(idx, p):
            if q >= self.sure:
                out[i] = out[i].refused(REASON)
        return out


def refused_as_percentile(reading: DieReading) -> bool:
    """Whether `reading` was refused by this check (its reason is this module's)."""
    return reading.reason == REASON


def setup_note(readings: list[DieReading]) -> str:
    """What the live loop tells the table, once, when a roll had a percentile D10 refused: the die is
    the wrong one, and every roll of it will be refused."""
    return ("a percentile D10 (faces 00 to 90) was refused: the rules want a plain die; "
            "take the percentile D10 out of the players' dice and roll a D10 numbered 1 to 0")
