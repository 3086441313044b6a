"""A D20 that looks seen from straight above and lying flat, decided at a threshold for such dice.

Why: read without a camera, a D20 is held to the threshold the calibration's D20 seen from every
angle set (reader v21: 0.98). A D20 seen 40-50 degrees off vertical shows a neighbour face squarely,
and the reader reads that face as surely as it reads a top face seen from above; those dice hold the
threshold up, and a tray photographed from above has almost none of them. So real D20 in trays, their
face named right three times in four, are refused nearly always (pasted into nell's and bartek's
trays: 4 of 196 read; models/reader.md, "Session 47").

The lean look (reader.vision.lean) was taught whether a die leans, told the angle it is seen at. Told
"straight down" (slant 0), it takes a die seen obliquely for a leaning one: its side faces show where
a die seen from above shows none. A D20 refused for low confidence alone (its views agree) whose
confidence reaches `ACCEPT_BY_DIE` and which that look, told "straight down", finds flat (p(leaning)
under `FLAT_BELOW`, its crop turned four ways and averaged) is given its value.

Measured (session 48, models/reader.md; right / accepted wrong, D20 only, at the labeled boxes):
rendered D20 seen within 15 degrees of vertical 36 / 0 -> 96 / 0; 15-30 degrees 0 / 0 -> 0 / 0; 30-55
degrees 0 / 5 -> 0 / 11 (40-51 degrees, a neighbour face square to the camera: no crop tells those
from a top face); cocked D20 0 / 2 -> 0 / 2; rendered D20 as the training crops see them (0-35
degrees) 93 / 0 -> 219 / 0, one of their 152 cocked D20 given a value (none before); type-lurig's D20
read by eye 33 / 0 -> 67 / 0; crops-fickett's D20 pasted into the real trays 4 / 0 -> 12 / 0.

Where a camera is described (without the lean look, which reads such dice its own way) the D20 must
be seen within `WITHIN_DEG` of vertical by it. Where none is and the frame holds three dice or more,
the camera is guessed from them as `read --guess-camera` guesses it (reader.vision.camera_guess) and
such a D20 is given its value only where that camera sees it within `WITHIN_DEG` of vertical. Why:
seen 40-50 degrees off vertical a D20 shows a neighbour face as squarely as a top face seen from
above, and the lean look, told "straight down", finds it flat; the frame's other dice, which have no
such symmetry, show the camera's slant. On the rendered frames that guard took back both wrong
readings the rule alone added (fixtures/stills, a D20 20 read 16 seen about 38 degrees off; a
1280x720 frame's D20 12 read 7 seen 45 degrees off), for two right readings of real D20 pasted near
a tray photo's edge. Through the whole reader: the installed camera's 1280x720 stills 761 -> 769
right, 2 wrong either way; type-lurig's D20 faces 61 -> 81 and crops-fickett's D20 252 -> 266 of
2,720 (`read --single`), none more wrong.

Which look: the recognizer gives this rule the above look (models/reader_above.onnx, lean look v3,
session 60: v2 taught on with type-lurig's real dice from above and from 45 degrees) where the models
folder has one, else the lean look. v2, taught no real D20, doubted real ones seen from above: of the
410 D20 of crops-fickett the rule asks about, 405 read right, it let 73 through; with the above look
fickett's D20 295 -> 340 of 2,720 by this rule (355 with the single photo read again from above by it
too: Recognizer.read_single) and real D20 pasted into trays 15 -> 22 of 196 (another seed's pastes 14 ->
15), none more wrong on any set
(models/reader_lean.md, "Session 60").

Computation on an image array, as the recognizer's: the caller gives the lean look and the reader.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reader.reading import Box, DieReading, Face
from reader.vision.camera_guess import MIN_DICE, guess_camera
from reader.vision.faces import LOW_CONFIDENCE, FaceEvidence, FaceReader
from reader.vision.viewing import CameraView

# The die types decided so, each at its threshold. Only the D20: its own threshold (0.98) is the one
# that oblique dice hold up; the others' (0.77-0.84) already read most of what they name.
ACCEPT_BY_DIE = {"d20": 0.94}
# p(leaning) the lean look, told the die is seen straight down, must stay under. Rendered D20 (1,500,
# camera 0-55 degrees off vertical): under 0.1 for 46% of those seen within 15 degrees, 1% of those
# seen 15-30 degrees, 5% of those seen 30 degrees or more, 1% of the cocked ones.
FLAT_BELOW = 0.1
# Each crop turned these ways, p(leaning) averaged: seen from straight above a die has no "down".
TURNS = (0.0, 90.0, 180.0, 270.0)
# With a camera guessed from the frame's dice, the most a D20 decided so may be seen off vertical: half
# the angle between a D20's neighbouring faces (41.8 degrees), past which a neighbour face looks at
# the camera more squarely than the top face (the lean thresholds' D20 angle too).
WITHIN_DEG = 21.0


def asked(readings: Sequence[DieReading | None]) -> list[int]:
    """Indices of the readings to ask the lean look about: refused for low confidence alone, of a type
    in ACCEPT_BY_DIE, and at or over its threshold there."""
    return [i for i, r in enumerate(readings)
            if r is not None and r.reason == LOW_CONFIDENCE
            and r.die in ACCEPT_BY_DIE and r.outcome.confidence >= ACCEPT_BY_DIE[r.die]]


def p_leaning_from_above(lean, image: np.ndarray, boxes: Sequence[Box]) -> np.ndarray:
    """Per box, the lean look's p(leaning) told the die is seen straight down, its crop turned each of
    TURNS and averaged."""
    if not boxes:
        return np.zeros(0)
    n = len(TURNS)
    p = lean.p_leaning_turned(image, [tuple(b) for b in boxes for _ in TURNS], list(TURNS) * len(boxes),
                              [0.0] * (n * len(boxes)))
    return np.asarray(p, dtype=float).reshape(len(boxes), n).mean(axis=1)


def near_vertical(lean, image: np.ndarray, boxes: Sequence[Box], found: Sequence[DieReading | None],
                  chosen: list[int], view: CameraView | None = None) -> list[int]:
    """Of `chosen`, those seen within WITHIN_DEG of vertical: by `view`, the camera described, or else
    by the camera guessed from the frame's dice (a D4 aside: the lean look was taught none); all of
    them where no camera is described and the dice are too few to guess one from."""
    h, w = image.shape[:2]
    if view is None:
        dice = [tuple(b) for b, r in zip(boxes, found) if r is not None and r.die != "d4"]
        if not chosen or len(dice) < MIN_DICE:
            return chosen
        guess = guess_camera(lambda views: lean.p_leaning_under(image, dice, views), len(dice))
        if guess is None:
            return chosen
        view = guess.view
    return [i for i in chosen if view.slant(*boxes[i].center, w, h) < WITHIN_DEG]


def read_from_above(lean, faces: FaceReader, image: np.ndarray, boxes: Sequence[Box], evs: Sequence[FaceEvidence],
                    found: Sequence[DieReading | None], view: CameraView | None = None) -> list[DieReading | None]:
    """`found` (the readings of `boxes`, from `evs`), each D20 refused for low confidence alone that
    looks seen from straight above and flat decided again at ACCEPT_BY_DIE; `view`: the camera, where
    one is described (without the lean look asked for)."""
    out = list(found)
    idx = asked(found)
    if not idx:
        return out
    p = p_leaning_from_above(lean, image, [boxes[i] for i in idx])
    flat = near_vertical(lean, image, boxes, found, [i for i, pi in zip(idx, p) if pi < FLAT_BELOW], view)
    for i in flat:
        again = faces.decide(evs[i], boxes[i], allow_none=False, accept_by_die=ACCEPT_BY_DIE)
        if isinstance(again.outcome, Face):
            out[i] = again
    return out
