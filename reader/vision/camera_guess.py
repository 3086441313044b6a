"""The tray camera guessed from the dice of one frame, where nobody described it.

Why: the reader reads far more with the camera known (reader.vision.viewing, the lean look): a die
seen obliquely shows a side face, which, not knowing the camera, the reader takes for a lean and
refuses, and a cocked die whose face looks squarely at the camera passes for a flat one. On the
installed camera's 1280x720 renders reader v21 reads 761 of 1,444 dice without a camera and 914
with each frame's own; but a camera described wrong misreads (assumed straight down, the tilted
stills' D20 are read as the face toward the camera). A camera set-up is best measured
(`dice-reader camera`); this guesses one from what the frame shows.

How: a flat die seen from a camera shows its side faces toward that camera's foot, and the lean
look (reader.vision.lean) knows it. So of a grid of set-ups (`set_ups`: three fields of view,
straight down or leaning 5-35 degrees toward any side), the guess is the one under which the lean
look finds the frame's dice likeliest to lie flat, a share `PRIOR` of them allowed to lean (dice
do cock, and a set-up that calls every cocked die flat must not win for it). Straight down unless
a leaning set-up is likelier by `MARGIN` (in nats): on real trays the set-ups barely differ, and a
lean drawn from nothing moves where the top faces are cut. Under `MIN_DICE` dice there is no guess:
one die cannot tell its own lean from the camera's.

Measured (session 42, models/reader.md; right / accepted wrong / cocked valued): the installed
stills 761 / 2 / 11 without a camera -> 906 / 2 / 5 guessed (their own cameras 914 / 3 / 0); the
1280x720 stills 594 / 8 / 10 -> 708 / 4 / 7, the 640x360 ones 411 / 3 / 6 -> 458 / 3 / 2; the
rendered scenes of seeds 55 and 56 (960x540; PRIOR and MARGIN were not chosen on them) 614 / 8 / 27
-> 739 / 1 / 12; the real holdouts nell 414 / 1 and bartek 496 / 1 -> 414 / 1 and 495 / 1,
desk-d6-matteo's oblique webcam 257 / 1 -> 253 / 1. The frame is read twice and the lean look asked
under every set-up: 223 ms a 1280x720 frame where 35 (installed stills, 6 dice a frame); since session
43 each die's crop is turned to the nearest 10 degrees and run once a turn, the look's head told each
set-up's angle (LeanLook.p_leaning_under): 95 ms where 30, the same dice read within a few. `read
--guess-camera` and `evaluate --guess-camera` guess a frame's camera from its own dice where the frame,
read as if from above, leaves a die refused, a D6 then keeping a value only where both readings give it
(reader.vision.reread; session 47). Not by default: on real trays the reading under a guessed camera
reads no more dice and refuses a few more (nell and bartek with real D20 pasted in,
benchmarks/dice_in_trays.py: 915 -> 892 right). Without it, a frame of three dice or more is guessed
only where a D20 there looks seen from straight above (reader.vision.above), to tell whether the
camera sees that die near vertical.

Several frames of one camera (the live loop's rolls, reader.guessed_camera) add their dice's
evidence up (CameraEvidence): a banish roll is one die. A camera can be bumped without ever being
lost; the evidence then drops the older frames once the last few are far better told apart from them
(`MOVED`, `RECENT`; session 44, models/reader.md): on rendered sessions of a camera moved 10 degrees
or more between two sessions of 14 rolls, the second session's rolls read 535 right / 2 wrong pooled
with the first's, 578 / 0 with the older frames dropped, 589 / 0 guessed from their own rolls alone;
no session of an unmoved camera (30 of them, 14 rolls each) dropped any.

Pure: the caller gives p(leaning) of its dice under the set-ups (LeanLook.p_leaning_under of one frame).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from reader.vision.viewing import CameraView

FIELDS = (60.0, 75.0, 90.0)        # horizontal fields of view, degrees: a phone's to a wide webcam's
TILTS = (5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0)
SIDES = (0.0, 90.0, 180.0, 270.0)  # toward the picture's top, right, bottom, left
PRIOR = 0.15                       # the share of a frame's dice that may lean
MARGIN = 1.0                       # nats a leaning set-up must win by over straight down
MIN_DICE = 3
MOVED = 3.0                        # nats the last frames gain told apart from the older ones: the camera moved
RECENT = 6                         # frames: how far back a move is looked for


def set_ups(fields: Sequence[float] = FIELDS, tilts: Sequence[float] = TILTS,
            sides: Sequence[float] = SIDES) -> tuple[CameraView, ...]:
    """The set-ups a guess chooses from, straight down first, each asking for the lean look."""
    straight = tuple(CameraView(f, 0.0, True) for f in fields)
    return straight + tuple(CameraView(f, t, True, s) for f in fields for t in tilts for s in sides)


@dataclass(frozen=True)
class CameraGuess:
    """The set-up chosen, and how much likelier it made the frame's dice lie flat than the likeliest
    set-up straight down (0 when that is the one chosen)."""

    view: CameraView
    over_straight: float


def flat_likelihood(p_leaning: np.ndarray, prior: float = PRIOR) -> float:
    """log P(what the lean look sees | a set-up): each die flat, or leaning with chance `prior`."""
    p = np.asarray(p_leaning, dtype=np.float64)
    return float(np.sum(np.log((1.0 - prior) * (1.0 - p) + prior * p)))


class CameraEvidence:
    """What the dice of one or more frames from one camera say of its set-up: under each of `choices`,
    the log-likelihood (flat_likelihood) of every die seen so far, summed (`scores`).

    Why more than one frame: a frame needs MIN_DICE dice to tell its camera, and a banish roll is one
    die. A camera that stays where it is sees each roll's dice from the same set-up, so the rolls'
    evidence adds up: after a few rolls of one or two dice the set-up is told as well as from one frame
    of many (the live loop, `watch --guess-camera`). Every frame added must be of the same size; the
    caller starts a fresh one where the camera may have been moved and the reader cannot see it (lost
    and back).

    A camera bumped between rolls is seen in the evidence itself: the last frames (up to `recent`, at
    least MIN_DICE dice) are far likelier under a set-up of their own and the older ones under theirs
    than all of them under one (by `moved` nats, a split's likelihood ratio). The older frames are then
    dropped (`dropped` says how many dice were), and the guess rests on the last frames alone. A roll of
    cocked dice does not split it: they are unlikely under every set-up alike. `moved` None: never."""

    def __init__(self, choices: Sequence[CameraView] | None = None, prior: float = PRIOR,
                 moved: float | None = MOVED, recent: int = RECENT) -> None:
        self.choices = tuple(choices) if choices is not None else set_ups()
        if not any(v.tilt == 0.0 for v in self.choices):
            raise ValueError("a camera guess needs a straight-down set-up among its choices")
        self.prior, self.moved, self.recent = prior, moved, recent
        self._older = np.zeros(len(self.choices))  # the frames before the last `recent`, summed
        self._older_dice = 0
        self._frames: list[tuple[np.ndarray, int]] = []  # the last `recent`: (scores, dice) each
        self.dropped = 0

    @property
    def scores(self) -> np.ndarray:
        return self._summed(self._frames)[0]

    @property
    def dice(self) -> int:
        return self._summed(self._frames)[1]

    def _summed(self, frames: list, older: bool = True) -> tuple[np.ndarray, int]:
        """The scores and the dice of `frames` (some of the last ones), with the older frames' or not."""
        scores = self._older.copy() if older else np.zeros(len(self.choices))
        dice = self._older_dice if older else 0
        for s, n in frames:
            scores, dice = scores + s, dice + n
        return scores, dice

    def add(self, p_leaning: np.ndarray) -> None:
        """One frame's dice: their p(leaning) under each choice, a row a choice (LeanLook.p_leaning_under);
        the older frames dropped where the last ones tell of another set-up (`dropped` > 0)."""
        p = np.asarray(p_leaning, dtype=np.float64).reshape(len(self.choices), -1)
        self._frames.append((np.array([flat_likelihood(row, self.prior) for row in p]), p.shape[1]))
        if len(self._frames) > self.recent:
            scores, dice = self._frames.pop(0)
            self._older, self._older_dice = self._older + scores, self._older_dice + dice
        self.dropped = self._drop_if_moved()

    def _drop_if_moved(self, min_dice: int = MIN_DICE) -> int:
        """The dice dropped: those before the split of the last frames that gains most, if it gains
        `moved` nats or more; 0 otherwise."""
        if self.moved is None:
            return 0
        best, keep = self.moved, 0
        for k in range(1, len(self._frames) + 1):
            (a, last_dice), (b, rest_dice) = self._summed(self._frames[-k:], older=False), self._summed(self._frames[:-k])
            if last_dice < min_dice or rest_dice < min_dice:
                continue
            gain = float(a.max() + b.max() - (a + b).max())
            if gain >= best:
                best, keep = gain, k
        if not keep:
            return 0
        dropped = self._summed(self._frames[:-keep])[1]
        self._frames = self._frames[-keep:]
        self._older, self._older_dice = np.zeros(len(self.choices)), 0
        return dropped

    def guess(self, margin: float = MARGIN, min_dice: int = MIN_DICE) -> CameraGuess | None:
        """The choice under which the dice seen are likeliest to lie flat; straight down unless a
        leaning set-up wins by `margin`; None under `min_dice` dice."""
        if self.dice < min_dice:
            return None
        scores = self.scores  # summed once: a property
        best = int(np.argmax(scores))
        down = max((i for i, v in enumerate(self.choices) if v.tilt == 0.0), key=lambda i: scores[i])
        lead = float(scores[best] - scores[down])
        if lead >= margin:
            return CameraGuess(self.choices[best], lead)
        return CameraGuess(self.choices[down], 0.0)


def guess_camera(p_leaning: Callable[[Sequence[CameraView]], np.ndarray], dice: int,
                 choices: Sequence[CameraView] | None = None, prior: float = PRIOR,
                 margin: float = MARGIN, min_dice: int = MIN_DICE) -> CameraGuess | None:
    """The set-up of `choices` (default `set_ups()`, at least one of them straight down) under which
    one frame's `dice` dice are likeliest to lie flat, `p_leaning(views)` giving their p(leaning) under
    each view, a row a view (LeanLook.p_leaning_under); straight down unless a leaning set-up wins by
    `margin`; None under `min_dice` dice."""
    if dice < min_dice:
        return None
    evidence = CameraEvidence(choices, prior)
    evidence.add(p_leaning(evidence.choices))
    return evidence.guess(margin, min_dice)
