"""Scoring recognizer readings against labeled dice: pure functions, no images, no models.

Why a module of its own: the figures the issue asks for (dice found, type accuracy, share
accepted, accepted-but-wrong, end-to-end) decide whether a model ships, so their definitions live
in one place, are unit-tested with hand-made readings, and are the same for the CLI, the
benchmarks and the model cards.

Matching a reading to a labeled die (per image, greedy):
  a (label, reading) pair is a candidate when their boxes overlap with IoU >= 0.3, OR the
  reading's box centre lies inside the label box, OR the label's centre lies inside the reading's
  box. The centre rules are there because some sets (desk-d6-matteo) label only the top face of a
  die while the recognizer boxes the whole die: the IoU of such a pair can be well under 0.3, but
  the face's centre is inside the die box. Candidates are taken best first (highest IoU, then
  nearest centres), each label and each reading at most once. So when a reading box spans two
  touching dice it is given to the die it overlaps most and the other die counts as missed; a
  stray small box on a die that was also found properly is a false detection.
  A label with no box (single-die images, read with `read_single`) takes a leftover reading,
  one of its own die type first.

Definitions (counts per set; a rate is None when its denominator is 0):
  found          labeled dice matched to a reading
  type accuracy  matched dice whose die type is right (a D6 is "d6", pips or numerals) / found
  accepted       a reading that lies flat with a value: the only kind that feeds the rules
  share accepted accepted / matched dice that have a value label
  value accuracy accepted readings with the right type and value / accepted
  accepted-wrong accepted with a wrong value or wrong type / all dice with a value label
  end-to-end     found, accepted, right type and value / all dice with a value label
  false dets     readings matched to no labeled die
  false valued   false detections given a value: phantom dice the rules would count
  mistyped valued dice labeled with no value (type-only labels, a D4) read as another die type
                 and given a value: the rules would take a value from a die that is not what the
                 reading says (a D4 read as a D6 showing 2). They have no value label, so they are
                 not in accepted-wrong's count or its denominator; they are counted here instead.
  refused        matched dice with a value label given none, by the reading's reason
                 ("low confidence", "views disagree", "called cocked", ...)
Type-only labels (value null, e.g. type-lurig) count for type accuracy only. A die labeled
`cocked` has no value: giving it one is counted as `cocked_given_value`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from reader.reading import Box, Cocked, DieReading
from reader.vision.realdata import LabeledDie

MIN_IOU = 0.3

# Box side bins (pixels, the labeled box's longer side) for end-to-end by die size: how large a
# die must be in the frame to be read tells whoever sets up a camera how close it must be.
SIZE_EDGES = (24, 32, 48, 64, 96)
SIZE_BINS = (f"<{SIZE_EDGES[0]}", *(f"{a}-{b}" for a, b in zip(SIZE_EDGES, SIZE_EDGES[1:])), f">={SIZE_EDGES[-1]}")


def size_bin(box: tuple[float, float, float, float] | None) -> str | None:
    """The bin of a labeled box's longer side (one of SIZE_BINS); None without a box."""
    if box is None:
        return None
    side = max(box[2] - box[0], box[3] - box[1])
    return SIZE_BINS[sum(side >= e for e in SIZE_EDGES)]


def _contains(box: Box, point: tuple[float, float]) -> bool:
    x, y = point
    return box.x0 <= x <= box.x1 and box.y0 <= y <= box.y1


def _centre_distance(a: Box, b: Box) -> float:
    (ax, ay), (bx, by) = a.center, b.center
    return ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5


def is_candidate(label: Box, reading: Box, min_iou: float = MIN_IOU) -> bool:
    """Could this reading be this labeled die? (IoU, or either centre inside the other box.)"""
    return (
        label.iou(reading) >= min_iou
        or _contains(label, reading.center)
        or _contains(reading, label.center)
    )


def match(
    labels: Sequence[LabeledDie], readings: Sequence[DieReading], min_iou: float = MIN_IOU
) -> list[tuple[int | None, int | None]]:
    """Pair labels with readings; returns (label index, reading index) pairs, None for no partner.

    Every label and every reading appears exactly once: matched pairs first (best first), then
    missed labels (label, None), then false detections (None, reading).
    """
    label_boxes = [Box.from_list(d.box) if d.box is not None else None for d in labels]
    candidates = []
    for li, lb in enumerate(label_boxes):
        if lb is None:
            continue
        for ri, r in enumerate(readings):
            if is_candidate(lb, r.box, min_iou):
                candidates.append((-lb.iou(r.box), _centre_distance(lb, r.box), li, ri))
    candidates.sort()
    used_l: set[int] = set()
    used_r: set[int] = set()
    pairs: list[tuple[int | None, int | None]] = []
    for _, _, li, ri in candidates:
        if li in used_l or ri in used_r:
            continue
        used_l.add(li)
        used_r.add(ri)
        pairs.append((li, ri))
    # Box-less labels take leftover readings, their own die type first.
    for li, lb in enumerate(label_boxes):
        if lb is not None:
            continue
        left = [ri for ri in range(len(readings)) if ri not in used_r]
        if not left:
            continue
        same = [ri for ri in left if readings[ri].die == labels[li].die]
        ri = (same or left)[0]
        used_l.add(li)
        used_r.add(ri)
        pairs.append((li, ri))
    pairs += [(li, None) for li in range(len(labels)) if li not in used_l]
    pairs += [(None, ri) for ri in range(len(readings)) if ri not in used_r]
    return pairs


@dataclass(frozen=True)
class DieResult:
    """One labeled die and what was read for it, or a reading no labeled die explains."""

    image: str
    label: LabeledDie | None  # None: a false detection
    reading: DieReading | None  # None: the die was missed

    @property
    def found(self) -> bool:
        return self.label is not None and self.reading is not None

    @property
    def has_value(self) -> bool:
        return self.label is not None and self.label.value is not None

    @property
    def type_right(self) -> bool:
        return self.found and self.reading.die == self.label.die

    @property
    def valued(self) -> bool:
        """A reading that lies flat with a value: the only kind that feeds the rules."""
        return self.reading is not None and self.reading.state == "flat" and self.reading.value is not None

    @property
    def accepted(self) -> bool:
        return self.found and self.valued

    @property
    def right(self) -> bool:
        """Found, accepted, and both die type and value are the labeled ones."""
        return (
            self.has_value
            and self.accepted
            and self.type_right
            and self.reading.value == self.label.value
        )

    @property
    def accepted_wrong(self) -> bool:
        return self.has_value and self.accepted and not self.right

    @property
    def cocked_given_value(self) -> bool:
        return self.label is not None and self.label.state == "cocked" and self.accepted

    @property
    def mistyped_valued(self) -> bool:
        """A die labeled with no value (and not cocked) given a value as another die type: wrong
        whatever its face, though its label says no value to compare (a D4 read as a D6's 2)."""
        return (self.label is not None and self.label.value is None and self.label.state != "cocked"
                and self.accepted and not self.type_right)

    @property
    def phantom(self) -> bool:
        """A reading no labeled die explains, given a value: a die the rules would count that
        is not there (a printed numeral, a pattern on the cloth)."""
        return self.label is None and self.valued

    @property
    def kind(self) -> str:
        """What happened, worst first: the sheet sorts and colours by this."""
        if self.label is None:
            return "phantom" if self.phantom else "false-detection"
        if self.reading is None:
            return "missed"
        if self.accepted_wrong or self.cocked_given_value or self.mistyped_valued:
            return "accepted-wrong"
        if not self.type_right:
            return "wrong-type"
        if self.has_value and not self.accepted:
            return "not-accepted"
        return "right"


@dataclass(frozen=True)
class ImageResult:
    image: str
    dice: tuple[DieResult, ...]
    ms: float | None  # None when the image could not be read
    error: str | None = None


def score_image(
    image: str,
    labels: Sequence[LabeledDie],
    readings: Sequence[DieReading],
    ms: float | None,
    min_iou: float = MIN_IOU,
) -> ImageResult:
    """Match one image's readings to its labels."""
    dice = []
    for li, ri in match(labels, readings, min_iou):
        dice.append(
            DieResult(
                image=image,
                label=None if li is None else labels[li],
                reading=None if ri is None else readings[ri],
            )
        )
    return ImageResult(image=image, dice=tuple(dice), ms=ms)


def failed_image(image: str, labels: Sequence[LabeledDie], error: str) -> ImageResult:
    """An image that could not be read or recognised: every labeled die in it is missed."""
    dice = tuple(DieResult(image=image, label=d, reading=None) for d in labels)
    return ImageResult(image=image, dice=dice, ms=None, error=error)


def _rate(num: int, den: int) -> float | None:
    return num / den if den else None


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100); None for no values."""
    if not values:
        return None
    xs = sorted(values)
    k = max(0, min(len(xs) - 1, int(-(-q * len(xs) // 100)) - 1))
    return xs[k]


@dataclass
class SetScore:
    """The figures for one set; rates are properties so they always agree with the counts."""

    name: str
    images: int = 0
    images_failed: int = 0
    dice: int = 0
    found: int = 0
    type_right: int = 0
    value_labeled: int = 0
    value_found: int = 0
    accepted: int = 0
    right: int = 0
    accepted_wrong: int = 0
    cocked_labeled: int = 0
    cocked_given_value: int = 0
    false_detections: int = 0
    false_valued: int = 0  # false detections given a value: phantom dice
    mistyped_valued: int = 0  # dice labeled with no value, given one as another die type
    ms: list[float] = field(default_factory=list)
    type_confusions: dict[str, int] = field(default_factory=dict)  # "d10->d8": count
    value_confusions: dict[str, int] = field(default_factory=dict)  # "d6 6->9" (accepted only)
    by_die: dict[str, list[int]] = field(default_factory=dict)  # die -> [right, valued dice labeled]
    by_size: dict[str, list[int]] = field(default_factory=dict)  # size_bin -> [right, valued dice labeled]
    # Why found dice that have a value were not accepted, by the reading's own reason ("low
    # confidence", "views disagree", "called cocked"): which refusal a reader change must move
    # (session 42: the rendered D20 are refused for low confidence, 199 of 230).
    refused: dict[str, int] = field(default_factory=dict)

    @property
    def found_rate(self) -> float | None:
        return _rate(self.found, self.dice)

    @property
    def type_accuracy(self) -> float | None:
        return _rate(self.type_right, self.found)

    @property
    def share_accepted(self) -> float | None:
        return _rate(self.accepted, self.value_found)

    @property
    def value_accuracy(self) -> float | None:
        return _rate(self.right, self.accepted)

    @property
    def accepted_wrong_rate(self) -> float | None:
        return _rate(self.accepted_wrong, self.value_labeled)

    @property
    def end_to_end(self) -> float | None:
        return _rate(self.right, self.value_labeled)

    @property
    def ms_mean(self) -> float | None:
        return sum(self.ms) / len(self.ms) if self.ms else None

    @property
    def ms_p95(self) -> float | None:
        return percentile(self.ms, 95)

    def by_size_in_order(self) -> list[tuple[str, list[int]]]:
        """by_size from the smallest dice to the largest."""
        return [(k, self.by_size[k]) for k in SIZE_BINS if k in self.by_size]

    def to_json(self) -> dict:
        def r(x):
            return None if x is None else round(x, 5)

        return {
            "set": self.name,
            "images": self.images,
            "images_failed": self.images_failed,
            "dice": self.dice,
            "found": self.found,
            "type_right": self.type_right,
            "value_labeled": self.value_labeled,
            "value_found": self.value_found,
            "accepted": self.accepted,
            "right": self.right,
            "accepted_wrong": self.accepted_wrong,
            "cocked_labeled": self.cocked_labeled,
            "cocked_given_value": self.cocked_given_value,
            "false_detections": self.false_detections,
            "false_valued": self.false_valued,
            "mistyped_valued": self.mistyped_valued,
            "found_rate": r(self.found_rate),
            "type_accuracy": r(self.type_accuracy),
            "share_accepted": r(self.share_accepted),
            "value_accuracy": r(self.value_accuracy),
            "accepted_wrong_rate": r(self.accepted_wrong_rate),
            "end_to_end": r(self.end_to_end),
            "ms_mean": r(self.ms_mean),
            "ms_p95": r(self.ms_p95),
            "type_confusions": dict(self.type_confusions),
            "value_confusions": dict(self.value_confusions),
            "by_die": {k: {"right": v[0], "dice": v[1]} for k, v in sorted(self.by_die.items())},
            "by_size": {k: {"right": v[0], "dice": v[1]} for k, v in self.by_size_in_order()},
            "refused": dict(self.refused),
        }


def _count(table: dict[str, list[int]], key: str, right: bool) -> None:
    tally = table.setdefault(key, [0, 0])
    tally[0] += right
    tally[1] += 1


def refusal(reading: DieReading) -> str:
    """Why a reading gives no value: "called cocked", or the reason it was refused with."""
    if isinstance(reading.outcome, Cocked):
        return "called cocked"
    return getattr(reading.outcome, "reason", "") or "no value"


def summarise(name: str, results: Iterable[ImageResult]) -> SetScore:
    """Add up per-image results into the set's figures."""
    s = SetScore(name=name)
    for img in results:
        s.images += 1
        if img.error is not None:
            s.images_failed += 1
        elif img.ms is not None:
            s.ms.append(img.ms)
        for d in img.dice:
            if d.label is None:
                s.false_detections += 1
                s.false_valued += d.phantom
                continue
            s.dice += 1
            s.value_labeled += d.has_value
            if d.has_value:
                _count(s.by_die, d.label.die, d.right)
                size = size_bin(d.label.box)
                if size is not None:
                    _count(s.by_size, size, d.right)
            s.cocked_labeled += d.label.state == "cocked"
            if not d.found:
                continue
            s.found += 1
            s.type_right += d.type_right
            s.value_found += d.has_value
            if d.has_value and d.accepted:
                s.accepted += 1
            elif d.has_value:
                why = refusal(d.reading)
                s.refused[why] = s.refused.get(why, 0) + 1
            s.right += d.right
            s.accepted_wrong += d.accepted_wrong
            s.cocked_given_value += d.cocked_given_value
            s.mistyped_valued += d.mistyped_valued
            if not d.type_right:
                key = f"{d.label.die}->{d.reading.die}"
                s.type_confusions[key] = s.type_confusions.get(key, 0) + 1
            elif d.accepted_wrong:
                key = f"{d.label.die} {d.label.value}->{d.reading.value}"
                s.value_confusions[key] = s.value_confusions.get(key, 0) + 1
    return s
