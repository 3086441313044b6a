"""Which reading a die keeps when a frame left a die refused is read again under a guessed camera.

Why: `read --guess-camera` and `evaluate --guess-camera` read a frame as if seen from above, and only
where that leaves a die refused guess the camera from the frame's dice and read it again
(reader.vision.camera_guess, Recognizer.read_frame_guessing). Read so, the numeral dice gain most on
the renders: a D20 seen from above takes the camera path's look and threshold, and a die seen
obliquely is judged by the lean look, not taken for cocked (the 1280x720 stills' right readings
594 -> 699, wrong 8 -> 3). A D6 gains little and loses a guard: under a camera the lean look stands
in for the reader's state check, whose doubt is what refused two of nell's blue D6 showing 5, read 6
once JPEG had blurred their red pips (the camera's reading took them at 0.86 and 0.91). So a die
either reading takes for a D6 keeps a value only where both readings give it the same one; every
other die takes the second reading, the one that knows the camera (models/reader.md, "Session 47").

Pure: two lists of readings in, one out.
"""

from __future__ import annotations

from collections.abc import Sequence

from reader.reading import DieReading, Unreadable

SAME_DIE = 0.7  # boxes of one find read twice overlap this much (IoU) or more
DISAGREE = "read otherwise with the camera guessed"


def kept(first: Sequence[DieReading], again: Sequence[DieReading]) -> list[DieReading]:
    """The readings of a frame read again under a guessed camera (`again`), each D6 held to the first
    reading (`first`, as if seen from above) of the same find: refused there, refused here; valued
    otherwise there, "roll again". A reading with no counterpart in the first is kept as it is."""
    out = []
    for r in again:
        overlap, twin = max(((f.box.iou(r.box), f) for f in first), key=lambda pair: pair[0], default=(0.0, None))
        if overlap < SAME_DIE or "d6" not in (twin.die, r.die):
            out.append(r)
        elif twin.value is None or r.value is None:
            out.append(twin if twin.value is None else r)
        elif (twin.die, twin.value) == (r.die, r.value):
            out.append(twin)
        else:
            out.append(DieReading(r.die, r.box, Unreadable(DISAGREE, min(r.confidence, twin.confidence))))
    return out
