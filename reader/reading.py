"""What the recognizer says about one die: its box, its type and an outcome.

The outcome is a type, never an int that sometimes means "unknown": a `Face` (a value with a
confidence), `Cocked` (leaning on a wall or another die: no face is up) or `Unreadable` (blur,
glare, occlusion, or a die the reader is not sure of). Only a `Face` can feed the rules; anything
else means "roll again".
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Union

from reader.dice import check_value, faces

STATES = ("flat", "cocked", "unreadable")


@dataclass(frozen=True)
class Box:
    """Axis-aligned box in image pixels, x0 < x1 and y0 < y1."""

    x0: float
    y0: float
    x1: float
    y1: float

    def __post_init__(self) -> None:
        if not (self.x1 > self.x0 and self.y1 > self.y0):
            raise ValueError(f"empty box {self.as_list()}")

    @classmethod
    def from_list(cls, xs) -> "Box":
        x0, y0, x1, y1 = (float(v) for v in xs)
        return cls(x0, y0, x1, y1)

    def __iter__(self):
        """x0, y0, x1, y1: a Box unpacks like the (x0, y0, x1, y1) tuples the crops take."""
        return iter((self.x0, self.y0, self.x1, self.y1))

    def as_list(self) -> list[float]:
        return [round(self.x0, 1), round(self.y0, 1), round(self.x1, 1), round(self.y1, 1)]

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def center(self) -> tuple[float, float]:
        return ((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)

    @property
    def side(self) -> float:
        """The longer side: how big the die is, whatever its box's shape."""
        return max(self.width, self.height)

    @property
    def area(self) -> float:
        return self.width * self.height

    def intersection(self, other: "Box") -> float:
        """Area shared with `other` (0 when apart)."""
        ix = max(0.0, min(self.x1, other.x1) - max(self.x0, other.x0))
        iy = max(0.0, min(self.y1, other.y1) - max(self.y0, other.y0))
        return ix * iy

    def overlap(self, other: "Box") -> float:
        """The share of the smaller box's area that the other covers: 1 for a box inside another,
        whatever their sizes, where the IoU of a small box inside a big one is small."""
        return self.intersection(other) / min(self.area, other.area)

    def iou(self, other: "Box") -> float:
        inter = self.intersection(other)
        union = self.area + other.area - inter
        return inter / union if union > 0 else 0.0

    def hull(self, other: "Box") -> "Box":
        """The smallest box holding both."""
        return Box(min(self.x0, other.x0), min(self.y0, other.y0), max(self.x1, other.x1), max(self.y1, other.y1))


def _check_confidence(c: float) -> None:
    if not 0.0 <= c <= 1.0:
        raise ValueError(f"confidence {c} is not in [0, 1]")


@dataclass(frozen=True)
class Face:
    """The die lies flat and shows `value`; `confidence` is the calibrated chance it is right."""

    value: int
    confidence: float

    def __post_init__(self) -> None:
        _check_confidence(self.confidence)


@dataclass(frozen=True)
class Cocked:
    """The die leans on a wall or another die: no face is up, so it has no value."""

    confidence: float

    def __post_init__(self) -> None:
        _check_confidence(self.confidence)


@dataclass(frozen=True)
class Unreadable:
    """A die is there but its face cannot be trusted: `reason` says why (blur, glare, unsure...)."""

    reason: str
    confidence: float = 0.0

    def __post_init__(self) -> None:
        _check_confidence(self.confidence)


Outcome = Union[Face, Cocked, Unreadable]


@dataclass(frozen=True)
class DieReading:
    """One die in one frame: where it is, what kind it is, and what it shows."""

    die: str
    box: Box
    outcome: Outcome
    type_confidence: float = 1.0
    style: str | None = None  # "pips" or "numerals" for a D6

    def __post_init__(self) -> None:
        faces(self.die)  # unknown die names are refused
        _check_confidence(self.type_confidence)
        if isinstance(self.outcome, Face):
            check_value(self.die, self.outcome.value)

    @property
    def state(self) -> str:
        if isinstance(self.outcome, Face):
            return "flat"
        if isinstance(self.outcome, Cocked):
            return "cocked"
        return "unreadable"

    @property
    def value(self) -> int | None:
        return self.outcome.value if isinstance(self.outcome, Face) else None

    @property
    def confidence(self) -> float:
        return self.outcome.confidence

    @property
    def reason(self) -> str | None:
        """Why the die is unreadable; None where it is flat or cocked."""
        return self.outcome.reason if isinstance(self.outcome, Unreadable) else None

    def refused(self, reason: str) -> "DieReading":
        """This reading made Unreadable for `reason`, its confidence kept: a rule that refuses a value
        (the size rule, the lone dot, the percentile check) says why, and the roll is "roll again"."""
        return replace(self, outcome=Unreadable(reason, self.outcome.confidence))

    def to_json(self) -> dict:
        out = {
            "die": self.die,
            "value": self.value,
            "box": self.box.as_list(),
            "confidence": round(self.confidence, 4),
            "state": self.state,
        }
        if isinstance(self.outcome, Unreadable):
            out["reason"] = self.outcome.reason
        if self.style:
            out["style"] = self.style
        return out

    @classmethod
    def from_json(cls, d: dict) -> "DieReading":
        state = d.get("state", "flat")
        conf = float(d.get("confidence", 1.0))
        if state == "flat":
            outcome: Outcome = Face(int(d["value"]), conf)
        elif state == "cocked":
            outcome = Cocked(conf)
        elif state == "unreadable":
            outcome = Unreadable(d.get("reason", "unreadable"), conf)
        else:
            raise ValueError(f"unknown die state {state!r}; expected one of {STATES}")
        return cls(die=d["die"], box=Box.from_list(d["box"]), outcome=outcome, style=d.get("style"))
