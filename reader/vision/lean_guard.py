"""A die given a value with no camera described, refused as cocked where it alone of its frame looks
leaning, and still does under the camera guessed from the frame's dice.

Why: with no camera described, leaning is judged by the reader's state head alone, which sees one crop
and no camera. A die cocked against a wall or another die can show a face squarely to the camera and
pass for a flat one: on the installed camera's rendered stills (1280x720, seed 8) 11 of 116 cocked
dice were given a value, on fixtures/stills 6 of 110 (the issue asks for none). The lean look
(reader.vision.lean) judges a lean knowing where the camera stands; with the camera described and
`--lean-look` those stills value none. Without it, the frame's own dice tell the camera
(reader.vision.camera_guess: the set-up under which they look likeliest to lie flat).

Which dice: a valued die is asked where the lean look, told the camera is straight above the frame's
middle (90 degrees wide), finds it leaning at `ASK_FROM` or more while the frame's other valued dice
(two or more) look flat to it (their median p(leaning) under `OTHERS_FLAT_BELOW`): the camera is then
near straight down, and one die looking so unlike the rest is what a cocked die does. It is refused
where it still leans at `REFUSE_AT` under the camera guessed from it and the frame's other dice
farthest from the frame's middle, `GUESS_DICE` in all: a camera's lean shows most at the frame's
edges, and the guess costs the lean look on each of its dice turned toward every set-up's foot. The
guess chooses from camera_guess's set-ups of one field of view (`CHOICES`: 75 degrees, straight down
or leaning 5-35 degrees toward any side, 29 set-ups), each die's crop turned to the nearest
`GUESS_TURN_STEP` degrees: some 18 ms a frame on 2 cores where camera_guess's own 87 set-ups, six dice
and 10-degree turns took 46 (session 74). Where the other dice look leaning too, the camera leans,
a side face shows on every die, and nothing is asked: a guess alone let through too much
(desk-d6-matteo's flat dice under its oblique webcam reach p(leaning) 0.97 under their frames'
guesses).

Chosen on rendered stills of seeds no figure below uses (session 73: the installed camera's seed 9, the
640x360 stills of seed 10): their cocked dice valued 14 -> 7 of 117 and 10 -> 8 of 105, none read right
refused, alike for the others' median under 0.2, 0.3 or 0.5 (0.2 asks least), REFUSE_AT 0.97 or 0.98
(0.95 refuses 2 read right), and the guess from 6 dice or from all (6 costs less). Without the others'
condition the guess alone at 0.98 refused 2 read right on the test stills and was asked in most
frames of `dice-reader bench`; straight-down set-ups alone (no guess of a lean) refused 6 read right on
the test sets, 2 of them matteo's, and 4 on those renders. The cheaper guess (session 74, the same
renders): 8 and 7 cocked valued (15, as the 87 set-ups' 7 and 8), none read right refused; of the
others tried there, one field of view alone 6 and 7 (37 ms), with four dice 7 and 7 (26 ms, but one of
matteo's read right refused), with 20-degree turns 7 and 7 (24 ms); four dice or 20-degree turns alone
(with the three fields) 8-10 and 7-8.

Measured (sessions 73 and 74, models/reader.md; right / accepted wrong / cocked valued, no camera
described; the cheaper guess reads these sets as the 87 set-ups did, die for die where said):
the installed camera's stills (seed 8) 765 / 2 / 11 of 116 -> 765 / 2 / 7; fixtures/stills 412 / 3 / 6 of
110 -> 412 / 3 / 5; the 1280x720 stills (seed 7) 596 / 8 / 10 either way; nell, bartek and matteo's
holdouts and real D20 pasted into the real trays read as before, die for die (as other cameras take
them, benchmarks/other_cameras.py: 2 of 10,950 read right refused, 1 with the 87 set-ups). With `--guess-camera`
the installed stills 904 / 3 / 5 -> 904 / 3 / 4, fixtures/stills 451 / 1 / 3 either way. Asked in one
frame of twenty or so of those sets (3 of 100 frames of ten dice of `dice-reader bench`, twenty seeds);
such a frame of ten dice takes some 20 ms more. It only ever takes a value away.

Pure computation on an image array: the caller gives the lean look.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from reader.reading import Cocked, DieReading
from reader.vision.camera_guess import MIN_DICE, guess_camera, set_ups
from reader.vision.viewing import CameraView

# p(leaning) under the camera straight above at which a valued die is asked
ASK_FROM = 0.95
# ... where the frame's other valued dice look flat under it: their median p(leaning) under this
OTHERS_FLAT_BELOW = 0.2
ASKED_UNDER = CameraView(hfov=90.0)
# p(leaning) under the guessed camera at which an asked die is refused as cocked
REFUSE_AT = 0.98
# the dice the guess rests on: the asked ones and the others farthest from the frame's middle
GUESS_DICE = 4
# the set-ups it chooses from: camera_guess's, of one field of view (75 degrees) ...
CHOICES = set_ups(fields=(75.0,))
# ... each die's crop turned to the nearest this many degrees toward each set-up's foot
GUESS_TURN_STEP = 20.0


def asked(p_straight: Sequence[float]) -> list[int]:
    """Indices (into the frame's valued dice) of those that look leaning to a camera straight above
    while the others look flat to it: `p_straight` their p(leaning) so; none under three dice."""
    p = np.asarray(p_straight, dtype=float)
    if len(p) < MIN_DICE:
        return []
    return [i for i in range(len(p))
            if p[i] >= ASK_FROM and float(np.median(np.delete(p, i))) < OTHERS_FLAT_BELOW]


def refuse_leaning(lean, image: np.ndarray, readings: Sequence[DieReading]) -> list[DieReading]:
    """`readings` (one frame's, no camera described), each asked one (`asked`) that leans at REFUSE_AT
    under the camera guessed from the frame's dice turned Cocked (a D4 aside: the lean look was taught
    none, and a D4 is never valued)."""
    out = list(readings)
    valued = [i for i, r in enumerate(readings) if r.value is not None]
    if len(valued) < MIN_DICE:
        return out
    p_straight = lean.p_leaning(image, [tuple(readings[i].box) for i in valued], ASKED_UNDER)
    ask = [valued[k] for k in asked(p_straight)]
    if not ask:
        return out
    h, w = image.shape[:2]

    def from_middle(i: int) -> float:
        x, y = readings[i].box.center
        return float(np.hypot(x - w / 2, y - h / 2))

    others = sorted((i for i, r in enumerate(readings) if r.die != "d4" and i not in ask), key=from_middle,
                    reverse=True)
    dice = [tuple(readings[i].box) for i in ask + others[:max(0, GUESS_DICE - len(ask))]]
    guess = guess_camera(lambda views: lean.p_leaning_under(image, dice, views, GUESS_TURN_STEP), len(dice), CHOICES)
    if guess is None:
        return out
    p = lean.p_leaning(image, [tuple(readings[i].box) for i in ask], guess.view)
    for i, pi in zip(ask, p):
        if pi >= REFUSE_AT:
            out[i] = replace(readings[i], outcome=Cocked(round(float(pi), 4)))
    return out
