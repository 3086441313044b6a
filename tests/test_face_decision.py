"""How the reader turns network evidence into a reading: the accept/reject rules a judge relies on.

No model is needed: the evidence is made by hand, so these run everywhere.
"""

import numpy as np
import pytest

from reader.reading import Box, Cocked, Face, Unreadable
from reader.vision.faces import FaceEvidence, FaceReader

TYPES = ["d4", "d6", "d8", "d10", "d12", "d20", "none"]


class _Meta:
    """A stand-in for an OnnxModel: only the metadata FaceReader reads."""

    meta = {"types": TYPES, "accept_threshold": 0.9, "cocked_threshold": 0.5}


def evidence(die="d8", p_type=0.99, face=3, p_face=0.99, cocked=0.01, agree=True, p_none=0.0):
    tp = np.full(len(TYPES), (1 - p_type - p_none) / (len(TYPES) - 2))
    tp[TYPES.index(die)] = p_type
    tp[TYPES.index("none")] = p_none
    k = {"d4": 4, "d6": 6, "d8": 8, "d10": 10, "d12": 12, "d20": 20}[die]
    fp = np.full(k, (1 - p_face) / (k - 1))
    fp[face - 1] = p_face
    return FaceEvidence(tp, fp, cocked, agree)


BOX = Box(10, 10, 50, 50)


@pytest.mark.parametrize(
    ("ev", "expected"),
    [
        (evidence(), Face),                                        # sure, views agree: a face
        (evidence(agree=False), Unreadable),                       # rotated views disagree: can't tell
        (evidence(p_face=0.6), Unreadable),                        # unsure of the face
        (evidence(p_type=0.6), Unreadable),                        # unsure of the die type
        (evidence(cocked=0.8), Cocked),                            # leaning die: never a value
        (evidence(die="d4", face=2), Unreadable),                  # a D4 is named, not read
        (evidence(die="d20", face=17), Face),                      # a D20 face
    ],
    ids=["sure", "views-disagree", "unsure-face", "unsure-type", "cocked", "d4", "d20"],
)
def test_outcome(ev, expected):
    r = FaceReader(_Meta()).decide(ev, BOX)
    assert isinstance(r.outcome, expected)
    if expected is not Face:
        assert r.value is None


def test_value_and_die_of_an_accepted_face():
    r = FaceReader(_Meta()).decide(evidence(die="d10", face=10), BOX)
    assert (r.die, r.value, r.state) == ("d10", 10, "flat")
    assert 0.9 <= r.confidence <= 1.0


def test_not_a_die_is_dropped_in_a_frame_but_named_in_a_single_image():
    ev = evidence(p_type=0.3, p_none=0.65)
    reader = FaceReader(_Meta())
    assert reader.decide(ev, BOX) is None
    single = reader.decide(ev, BOX, allow_none=False)
    assert single is not None and single.die == "d8" and single.value is None
