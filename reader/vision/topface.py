"""A second look at a numeral die's top face alone, zoomed in, to read its numeral.

The reader sees the whole die in a 96 px crop, where a D20's top face is some 30 px across and
its neighbours' numerals sit all around it. The second look cuts only the middle of the die (a
square of `per_side` x the box side, about its top face) to the same 96 px and asks a network
trained on such cuts for the face alone, in two views of its own. Its opinion is pooled with each
of the whole look's four views (a geometric mean): a face must be likely to both, so the pair
refuses where either doubts, and the four pooled views must still agree.
Only die types whose faces carry numerals that the whole-die look reads worst take the second
look (metadata "top_face.dice"); pips are read surely from the whole die.
A die type may be cut to another side than the rest (metadata "top_face.cut_by_die"), when the
network was trained on such cuts (models/train/train_top_face.py --cut).
A reader may take more than one second look, each its own network for its own die types (metadata
"top_face" a list): a D6's pips are read best from the whole die cut close (1.15 x its box), by a
network taught pips alone, where the numeral dice want their top face alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from reader.vision.crops import crop_views, to_tensor


# The die types whose cut may be moved to where a described camera sees the top face
# (reader.vision.viewing.top_face_shift): the numeral dice, cut about their top face. A D6's look cuts
# the whole die (1.15 x its box) and reads its pips from it.
RISEN_DICE = frozenset({"d8", "d10", "d12", "d20"})


@dataclass(frozen=True)
class TopFaceLook:
    model: object              # OnnxModel (or a stand-in): returns [type, face, state] logits
    per_side: float            # cut side / die box side
    dice: frozenset            # die types that take the second look
    temperature: float = 1.0   # of its face logits (fitted on the calibration dice)
    # Two views, not the whole look's four, halve its cost: with four, ten numeral dice took a
    # frame from 35-42 ms to 63 ms. At 45 and 225 degrees they are turned unlike any of the whole
    # look's views, so the pair adds a look the four do not already have.
    angles: tuple[float, ...] = (45.0, 225.0)
    weight: float = 0.5        # of this look against the whole die's in the pooling
    # Die types cut to another side than per_side (metadata "cut_by_die", from the network's own
    # metadata: it is trained on those cuts). At 0.7 a real D20's cut still holds its neighbours'
    # numerals, and a thin "1" was lost to the "19" beside it; at 0.4 its top face fills the cut.
    # With v7's second look, unchanged (face top-1): type-lurig's D20 from above 63.9% at 0.7 ->
    # 81.7% at 0.4, crops-fickett's 37.3 -> 56.0%; but a D10's or D8's top face is larger, and
    # theirs fell (lurig D10 85.1 -> 57.8%, D8 84.4 -> 66.9%).
    cut_by_die: dict = field(default_factory=dict)
    name: str = "reader_top"   # its network's file name without .onnx (the versions the logs keep)

    @classmethod
    def from_meta(cls, model, meta: dict) -> "TopFaceLook":
        """From the reader's metadata `top_face`; what it leaves out keeps the defaults above."""
        extra = {k: float(meta[k]) for k in ("temperature", "weight") if k in meta}
        if "angles" in meta:
            extra["angles"] = tuple(float(a) for a in meta["angles"])
        if "cut_by_die" in meta:
            extra["cut_by_die"] = {str(k): float(v) for k, v in meta["cut_by_die"].items()}
        if "model" in meta:
            extra["name"] = str(meta["model"]).removesuffix(".onnx")
        return cls(model, float(meta["per_side"]), frozenset(meta["dice"]), **extra)

    def face_logits(self, image: np.ndarray, boxes: list[tuple], dice: list[str] | None = None,
                    shifts: list[tuple[float, float]] | None = None) -> list[np.ndarray]:
        """Per die, views x 20 face logits of its middle (the reader applies its softmax with
        `temperature`, as it does to its own); `dice`: the type each was read as, for its cut;
        `shifts`: (dx, dy) pixels to move each cut by, to where the camera sees the top face."""
        cuts = [self.cut_by_die.get(d, self.per_side) for d in (dice or [None] * len(boxes))]
        if shifts:
            boxes = [moved(b, dx, dy) for b, (dx, dy) in zip(boxes, shifts)]
        crops = [v for b, c in zip(boxes, cuts) for v in crop_views(image, b, self.angles, c)]
        logits = self.model(to_tensor(crops))[1]
        n = len(self.angles)
        return [logits[i * n:(i + 1) * n] for i in range(len(boxes))]


def in_place_of(looks, new) -> tuple:
    """`looks` with the die types the `new` looks read taken from them (a look left with none is
    dropped), then the `new` looks: a reader takes one second look per die type."""
    taken = frozenset().union(*(n.dice for n in new)) if new else frozenset()
    kept = tuple(replace(look, dice=look.dice - taken) for look in looks)
    return tuple(look for look in kept if look.dice) + tuple(new)


def moved(box, dx: float, dy: float) -> tuple:
    """`box` (x0, y0, x1, y1) moved by (dx, dy) pixels."""
    x0, y0, x1, y1 = box
    return x0 + dx, y0 + dy, x1 + dx, y1 + dy


def combine(whole: np.ndarray, top: np.ndarray, weight: float = 0.5) -> np.ndarray:
    """Each of the whole look's views (views x faces) pooled with the top face's probabilities
    (faces): their geometric mean, `weight` on the top face, renormalised. Not their product:
    both looks learnt from the same dice and err together, and a product made a pair that both
    say 0.9 read as 0.99, so wrong faces came out as sure as right ones (calibration then had to
    raise the D20's threshold from 0.92 to 0.98)."""
    p = whole ** (1.0 - weight) * top ** weight
    return p / np.maximum(p.sum(axis=1, keepdims=True), 1e-12)
