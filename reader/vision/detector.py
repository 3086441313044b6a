"""Finding dice in a frame: a centre heatmap network, peaks turned into boxes.

The network sees the frame at a fixed working size (long side INPUT_LONG) so that its cost does not
depend on the camera; it was trained on dice 14-110 px across at that size. A camera close to the
tray makes dice bigger than that, and the network boxes their pips and faces instead (tray-d6-nell's
holdout blown up 3x, dice 72-190 px: 8 false detections, a red 5 counted twice as two accepted 5s,
a 4 boxed by its middle pip). So the frame is also seen at half that size (LARGE_LONG), where such a
die is 36-95 px, and a die found there bigger than any the first look reads well (LARGE_MIN) takes
the place of the boxes inside it. The other way too: a camera with more pixels than the first look
uses, far from the dice, makes them smaller than it finds well (tray-d6-nell's holdout set in a
canvas three times its side: dice 13 px at the working size, 90.6% of them found, 98.4% with the
finer look; models/detector.md). Such a frame is seen at twice the working size too, and at four
times if its dice are still small there (up to SMALL_LONG), and the small dice found there take the
place of the first look's boxes on them, or join them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from reader.reading import Box
from reader.vision.crops import to_tensor
from reader.vision.onnx_model import OnnxModel, sigmoid

INPUT_LONG = 640
STRIDE = 4
# The second, smaller look for dice too big for the first: at LARGE_LONG a die of LARGE_MIN px is
# 2 * LARGE_MIN at INPUT_LONG, near the top of the trained 14-110 px; smaller finds of that look are
# left to the first (where they are 28-96 px and boxed better).
LARGE_LONG = INPUT_LONG // 2
LARGE_MIN = 48
# ... and surer than the first look's threshold: at half size a tray's corner or a screw hole reads
# as a big die now and then (tray-d6-nell: 6 finds, scores 0.31-0.35, two read as a sure 1), where
# the dice of nell's holdout blown up 2-3x score 0.57 and more.
LARGE_SCORE = 0.5
# A box this many times smaller than another, its centre inside it, is part of that die. Two dice
# cannot do this: a die touching a die twice its side has its centre at 1.5x the big one's half-side
# from the big one's centre, beyond even a box 1.3x too loose (the detector's 90th percentile). On
# the four scored sets every pair from 2.0 to 2.5 was a pip, numeral or face of one die (22 pairs;
# desk-d6-matteo's pip of a 2 read as a confident 1 among them); below 2.0 one was a loose box over
# three rendered dice.
PART_RATIO = 2.0
# A look at a quarter size for a die filling a third of the frame or more (a camera a hand's width
# from the dice, a phone held close): at LARGE_LONG such a die is 100-150 px, past the trained 14-110,
# and the half-size look scores it 0.31-0.39 (desk-d6-matteo's holdout seen 3x closer), under
# LARGE_SCORE, while the first look boxes its pips, each read as a sure 1. At QUARTER_LONG it is
# 50-75 px and scores 0.55-0.77. Its finds (LARGE_MIN px and LARGE_SCORE, as the half-size look's) are
# only candidates: the recognizer takes one in place of the finds inside it where it reads it as a
# sure face (reader.vision.close_dice), for the quarter look also boxes a tray or a pasted photo whole.
QUARTER_LONG = INPUT_LONG // 4
# Finer looks for dice too small for the first, each at twice the last one's size up to SMALL_LONG,
# asked only where they can help: the frame has at least SMALL_FRAME times the last look's pixels on
# its long side, and no die was found so far, or dice of median side under SMALL_MAX px at its size (a
# 1280x720 tray frame, dice 20-40 px at 640, is not looked at again: a look at twice the size costs
# four times as much). Its finds are kept when they are small at the last look's size (under
# SMALL_KEEP px: bigger ones that look boxes whole, and the finer look may box a big die's face).
SMALL_LONG = INPUT_LONG * 4
SMALL_FRAME = 1.5
SMALL_MAX = 20.0
SMALL_KEEP = 28.0
# ... and surer than the first look's threshold, as the half-size look is: an empty checkered
# 1280x720 tray (rendered stills, frame 126) showed the finer look ten squares at 0.31-0.47, where
# 99.8% of the small dice of nell's holdout in a canvas three times its side score 0.5 or more.
SMALL_SCORE = 0.5
# A small find inside a box this many times its side is a die of its own, not a part of that box's
# die (a pip is a fifth to a seventh of its die's side, a numeral more): a box holding two of them
# is a tray, a wall or a shadow taken for one big die (nell's holdout in a canvas four times its
# side: the half-size look took the tray for a 128 px die, and its 18 dice for its parts).
SWALLOWED = 9.0
# A half-size find with this many of the first look's boxes in its middle is no die either: a D6
# shows at most six pips, and the first look boxed at most four on a big die of nell's holdout seen
# 3-4x closer, where a tray taken whole in a frame three times its side (bartek's holdout) held 9-11.
MANY_INSIDE = 7


@dataclass(frozen=True)
class Detection:
    box: tuple[float, float, float, float]
    score: float


def _pad_to(img: np.ndarray, multiple: int = 32) -> np.ndarray:
    h, w = img.shape[:2]
    ph, pw = (-h) % multiple, (-w) % multiple
    if ph or pw:
        img = cv2.copyMakeBorder(img, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    return img


@dataclass(frozen=True)
class Heat:
    """The network's die-centre heatmap of one frame, addressed in image pixels, and what find's
    coarser looks saw beside the dice it found: the recognizer's second chances at a die boxed as its
    pips (reader.vision.close_dice), carried here so a frame read twice looks once."""

    heat: np.ndarray  # (H/STRIDE, W/STRIDE) probabilities at network scale
    scale: float      # network px per image px
    # the half-size look's finds before its floor (LARGE_SCORE, LARGE_MIN): around()
    half: tuple = field(default=(), compare=False, repr=False)
    # the quarter-size look's candidates for a die filling a third of the frame, surest first
    quarter: tuple = field(default=(), compare=False, repr=False)

    def at(self, x: float, y: float) -> float:
        r = min(self.heat.shape[0] - 1, max(0, int(y * self.scale / STRIDE)))
        c = min(self.heat.shape[1] - 1, max(0, int(x * self.scale / STRIDE)))
        return float(self.heat[r, c])

    def ridge(self, a: tuple[float, float], b: tuple[float, float], steps: int = 9) -> float:
        """The lowest heat on the segment a-b: high when a and b are on one die (the heat stays
        up between them), near zero between two dice (a valley at the gap)."""
        return min(self.at(a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
                   for t in np.linspace(0.0, 1.0, steps))


def decode(out: np.ndarray, heat: np.ndarray, scale: float, threshold: float,
           max_dice: int = 40) -> list[Detection]:
    """Heatmap peaks -> boxes in original image pixels (`heat` = sigmoid(out[0]), `scale` =
    network px per image px)."""
    peaks = (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= threshold)
    ys, xs = np.nonzero(peaks)
    order = np.argsort(-heat[ys, xs])[:max_dice * 2]
    dets: list[Detection] = []
    for i in order:
        y, x = ys[i], xs[i]
        w, h = np.exp(out[1, y, x]) * STRIDE, np.exp(out[2, y, x]) * STRIDE
        cx = (x + sigmoid(out[3, y, x])) * STRIDE
        cy = (y + sigmoid(out[4, y, x])) * STRIDE
        box = ((cx - w / 2) / scale, (cy - h / 2) / scale, (cx + w / 2) / scale, (cy + h / 2) / scale)
        dets.append(Detection(box, float(heat[y, x])))
    return _suppress(dets)[:max_dice]


def _inside_core(box: Box, other: Box, core: float = 0.6) -> bool:
    """True when `box`'s centre lies in the central `core` part of `other`: seen from above, dice
    do not overlap, so a second peak there is the same die (a numeral, a glint), not a new one."""
    cx, cy = box.center
    mx, my = other.width * (1 - core) / 2, other.height * (1 - core) / 2
    return other.x0 + mx <= cx <= other.x1 - mx and other.y0 + my <= cy <= other.y1 - my


def part_of(box: Box, other: Box, ratio: float = PART_RATIO) -> bool:
    """True when `box` is much smaller than `other` and its centre lies inside it: a pip or a
    numeral of a big die, never a die of its own (seen from above, dice do not overlap). Read
    alone, a pip of a 3 is a confident 1."""
    return other.side >= ratio * box.side and _inside_core(box, other, core=1.0)


def _suppress(dets: list[Detection], iou: float = 0.45) -> list[Detection]:
    kept: list[tuple[Detection, Box]] = []
    for d in sorted(dets, key=lambda d: -d.score):
        b = Box(*d.box)
        if all(b.iou(k) < iou and not _inside_core(b, k) for _, k in kept):
            kept.append((d, b))
    # a weaker big box does not lose to a strong pip inside it: parts go whatever their score
    return [d for d, b in kept if not any(part_of(b, k) for e, k in kept if e is not d)]


class DiceDetector:
    def __init__(self, model: OnnxModel, threshold: float | None = None):
        self.model = model
        self.threshold = threshold if threshold is not None else float(model.meta.get("threshold", 0.3))

    def detect(self, bgr: np.ndarray, long_side: int = INPUT_LONG, large_long: int | None = None) -> list[Detection]:
        """The detections alone; one look unless `large_long` is given, never the finer look (the
        training tools find their dice this way, as they did when the models were trained; frames
        go through `find`)."""
        return self.find(bgr, long_side, large_long, small_long=None)[0]

    def _look(self, bgr: np.ndarray, long_side: int, finer: np.ndarray | None = None) -> tuple[list[Detection], Heat, np.ndarray]:
        """One look at `long_side`: its detections, heatmap and the frame as the network saw it.
        `finer`: the frame already shrunk for a look at least twice this size, shrunk on from there
        (from 640 px to 320 OpenCV's area resize takes 0.1 ms, from 1280 px 3 ms; they differ by
        at most one grey level); never an enlarged one (a frame under 640 px is shrunk itself)."""
        h, w = bgr.shape[:2]
        scale = long_side / max(h, w)
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        shrunk = finer is not None and 2 * long_side <= max(finer.shape[:2]) <= max(h, w)
        source = finer if shrunk else bgr
        interp = cv2.INTER_AREA if long_side < max(source.shape[:2]) else cv2.INTER_LINEAR
        small = cv2.resize(source, size, interpolation=interp)
        out = self.model(to_tensor([_pad_to(small)]))[0][0]
        heat = sigmoid(out[0])
        dets = decode(out, heat, scale, self.threshold)
        return [d for d in (_clip(d, w, h) for d in dets) if d is not None], Heat(heat, scale), small

    def find(self, bgr: np.ndarray, long_side: int = INPUT_LONG, large_long: int | None = LARGE_LONG,
             small_long: int | None = SMALL_LONG, quarter_long: int | None = QUARTER_LONG) -> tuple[list[Detection], Heat]:
        """The detections and the heatmap of the first look they came from; with `large_long`, the
        dice too big for the first look found by a second at that size (its finds below its floor
        kept on the heat, Heat.half); with `small_long`, the dice too small for it found by a finer
        look, when the frame has the pixels (module docstring); with `large_long` and `quarter_long`,
        the candidates for a die too big even for the second (Heat.quarter, very_large)."""
        dets, heat, small = self._look(bgr, long_side)
        if large_long:
            half, big_heat, _ = self._look(bgr, large_long, finer=small)
            big = [d for d in half if _large_find(d, big_heat.scale)]
            dets = merge_large(dets, big)
            heat = replace(heat, half=tuple(half))
        long_px, size = max(bgr.shape[:2]), long_side
        # each finer look at twice the last one's size (at most small_long), while the frame has the
        # pixels and the dice found so far are still small at the last look's size
        while (small_long and size < small_long and long_px >= SMALL_FRAME * size
               and small_dice(dets, size / long_px)):
            fine_size = min(2 * size, small_long, long_px)
            fine, _, _ = self._look(bgr, fine_size)
            keep = [d for d in fine if d.score >= SMALL_SCORE and Box(*d.box).side * size / long_px < SMALL_KEEP]
            dets, size = merge_small(dets, keep), fine_size
        if large_long and quarter_long:
            heat = replace(heat, quarter=tuple(self.very_large(bgr, [Box(*d.box) for d in dets], small, quarter_long)))
        return dets, heat

    def very_large(self, bgr: np.ndarray, boxes: list[Box], finer: np.ndarray | None = None,
                   long_side: int = QUARTER_LONG) -> list[Detection]:
        """Candidates for dice too big even for the half-size look, from a look at `long_side`: its
        finds of LARGE_MIN px or more there scoring LARGE_SCORE or more, surest first, less those
        holding two of the frame's `boxes` SWALLOWED times smaller than themselves (a tray taken
        whole with its dice: nell's holdout in a canvas three times its side). `finer`: the frame
        as the first look saw it, shrunk on from there (0.4 ms from 640 px, 1.1 from 1280)."""
        big, heat, _ = self._look(bgr, long_side, finer=finer)
        return sorted((d for d in big if _large_find(d, heat.scale) and not _swallows(Box(*d.box), boxes)),
                      key=lambda d: -d.score)


def _large_find(d: Detection, scale: float) -> bool:
    """A coarser look's find kept as a die: LARGE_SCORE or more, and LARGE_MIN px or more at its size
    (`scale`: the look's px per image px)."""
    return d.score >= LARGE_SCORE and Box(*d.box).side * scale >= LARGE_MIN


def around(heat: Heat, boxes: list[Box]) -> list[Detection]:
    """The half-size look's finds (Heat.half), at the first look's own threshold and of any size, that
    hold one of `boxes` as a part (part_of), surest first: the die a pip boxed alone belongs to, where
    the first look missed it (reader.vision.close_dice.mend_pips)."""
    return sorted((d for d in heat.half if any(part_of(b, Box(*d.box)) for b in boxes)), key=lambda d: -d.score)


def holds(big: Box, box: Box) -> bool:
    """True when `box` is a part of the big die boxed by `big`: its centre in the middle 80% of it, or
    overlapping it heavily (seen from above dice do not overlap, and a die touching it has its centre
    beyond even a loose box)."""
    return _inside_core(box, big, core=0.8) or box.iou(big) >= 0.45


def _swallows(k: Box, boxes: list[Box]) -> bool:
    """True when `k` holds two of `boxes` SWALLOWED times smaller than itself: a tray, a wall or a
    shadow taken for one big die, not a die (a pip is a fifth to a seventh of its die's side)."""
    return sum(k.side >= SWALLOWED * b.side and _inside_core(b, k, core=1.0) for b in boxes) >= 2


def small_dice(dets: list[Detection], scale: float) -> bool:
    """True when a look (`scale`: its px per image px) found no die, or dice whose median side is
    under SMALL_MAX px at its size: a finer look may find those it missed. A lone die far away is
    often not found at all (the bundled banish recording's D8 set in a frame twice its side: no
    find at 640, 0.57 at 1280); an empty tray's texture stays under SMALL_SCORE (a checkered one,
    0.31-0.47)."""
    return not dets or float(np.median([Box(*d.box).side for d in dets])) * scale < SMALL_MAX


def merge_small(dets: list[Detection], small: list[Detection]) -> list[Detection]:
    """The first look's detections with the finer look's small dice: a small die takes the place of
    the boxes on it (overlapping it, or either's centre in the other's middle), a small find inside a
    die twice its side is a part of it (a pip, a numeral) and dropped. A box holding two small finds
    SWALLOWED times smaller than itself is no die, and goes."""
    small_boxes = [Box(*d.box) for d in small]
    dets = [k for k in dets if not _swallows(Box(*k.box), small_boxes)]
    small = [d for d in small if not any(part_of(Box(*d.box), Box(*k.box)) for k in dets)]
    return _replaced_by(dets, small, lambda box, b: box.iou(b) >= 0.3 or _inside_core(box, b) or _inside_core(b, box))


def merge_large(dets: list[Detection], large: list[Detection]) -> list[Detection]:
    """The first look's detections, those on a large die replaced by it: a box whose centre is in
    the middle 80% of a large die's box, or that overlaps it heavily, is a part of it (seen from
    above dice do not overlap, and a die touching it has its centre beyond even a loose box). A
    large find holding MANY_INSIDE of them is a tray, not a die, and is dropped."""
    def holds_many(b: Box) -> bool:
        return sum(_inside_core(Box(*d.box), b, core=0.8) for d in dets) >= MANY_INSIDE
    large = [d for d in large if not holds_many(Box(*d.box))]
    return _replaced_by(dets, large, lambda box, b: holds(b, box))


def _replaced_by(dets: list[Detection], finds: list[Detection], on) -> list[Detection]:
    """`dets` without the boxes `on(box, find's box)` one of another look's `finds`, and those finds,
    surest first: where two looks saw one die, the one whose size suits it (merge_large, merge_small)."""
    found = [Box(*f.box) for f in finds]
    kept = [d for d in dets if not any(on(Box(*d.box), b) for b in found)]
    return sorted(kept + list(finds), key=lambda d: -d.score)


def _clip(d: Detection, w: int, h: int) -> Detection | None:
    """The detection with its box inside the image; None when nothing of it is inside."""
    x0, y0 = max(0.0, d.box[0]), max(0.0, d.box[1])
    x1, y1 = min(float(w), d.box[2]), min(float(h), d.box[3])
    return Detection((x0, y0, x1, y1), d.score) if x1 > x0 and y1 > y0 else None
