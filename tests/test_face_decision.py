"""How the reader turns network evidence into a reading: the accept/reject rules a judge relies on.

No model is needed: the evidence is made by hand, so these run everywhere.
"""

import numpy as np
import pytest

from reader.reading import Box, Cocked, Face, Unreadable
from reader.vision.faces import FaceEvidence, FaceReader, StateCheck

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


class _PerDie:
    meta = {"types": TYPES, "accept_threshold": 0.9, "cocked_threshold": 0.5,
            "accept_threshold_by_die": {"d6": 0.8, "d20": 0.95}}


@pytest.mark.parametrize(
    ("ev", "expected"),
    [
        pytest.param(evidence(die="d6", face=4, p_face=0.85), Face, id="d6 at 0.84: over its own 0.8"),
        pytest.param(evidence(die="d20", face=17, p_face=0.93), Unreadable,
                     id="d20 at 0.92: under its own 0.95, though over the global 0.9"),
        pytest.param(evidence(die="d20", face=17, p_face=0.99), Face, id="d20 at 0.98: over 0.95"),
        pytest.param(evidence(die="d8", face=3, p_face=0.85), Unreadable,
                     id="d8 at 0.84: no threshold of its own, the global 0.9"),
    ],
)
def test_each_die_type_is_held_to_its_own_threshold(ev, expected):
    assert isinstance(FaceReader(_PerDie()).decide(ev, BOX).outcome, expected)


def test_not_a_die_is_dropped_in_a_frame_but_named_in_a_single_image():
    ev = evidence(p_type=0.3, p_none=0.65)
    reader = FaceReader(_Meta())
    assert reader.decide(ev, BOX) is None
    single = reader.decide(ev, BOX, allow_none=False)
    assert single is not None and single.die == "d8" and single.value is None


class _Recording:
    """A stand-in network that keeps the crops it is shown and answers 'no idea'."""

    def __init__(self, meta):
        self.meta = {"types": TYPES, **meta}
        self.seen = None

    def __call__(self, x):
        self.seen = x
        n = len(x)
        return [np.zeros((n, len(TYPES)), np.float32), np.zeros((n, 20), np.float32),
                np.zeros((n, 2), np.float32)]


@pytest.mark.parametrize(("per_side", "white_share"), [(1.0, 1.0), (2.0, 0.25)], ids=["tight", "loose"])
def test_the_crop_is_cut_the_way_the_model_was_made_for(per_side, white_share):
    # a white 40 px die on black: a model made for loose crops must see the table around it
    image = np.zeros((200, 200, 3), np.uint8)
    image[80:120, 80:120] = 255
    net = _Recording({"crop_per_side": per_side})
    FaceReader(net).evidence(image, [(80, 80, 120, 120)])
    assert len(net.seen) == 4  # four turned views of the one die
    assert abs(float((net.seen[0, 0] > 0.5).mean()) - white_share) < 0.05


class _Fixed:
    """A stand-in network answering the same logits for every crop; counts the crops it is shown."""

    def __init__(self, meta, type_logits, face_logits):
        self.meta = {"types": TYPES, **meta}
        self.t, self.f = np.asarray(type_logits, np.float32), np.asarray(face_logits, np.float32)
        self.shown = 0

    def __call__(self, x):
        n = len(x)
        self.shown += n
        return [np.tile(self.t, (n, 1)), np.tile(self.f, (n, 1)), np.tile(np.array([5.0, -5.0], np.float32), (n, 1))]


def _logits(index, size, strength=8.0):
    z = np.zeros(size, np.float32)
    z[index] = strength
    return z


@pytest.mark.parametrize(
    ("die", "whole_face", "top_face", "looked", "expected"),
    [
        pytest.param("d20", 17, 17, True, Face, id="d20: both looks read 17, accepted"),
        pytest.param("d20", 17, 11, True, Unreadable, id="d20: the top face reads 11, refused"),
        pytest.param("d6", 4, 2, False, Face, id="d6 is not in the second look's dice: read from the whole die"),
    ],
)
def test_the_second_look_at_the_top_face_must_agree(die, whole_face, top_face, looked, expected):
    from reader.vision.topface import TopFaceLook

    whole = _Fixed({"accept_threshold": 0.9, "cocked_threshold": 0.5}, _logits(TYPES.index(die), len(TYPES)),
                   _logits(whole_face - 1, 20))
    top = _Fixed({}, np.zeros(len(TYPES)), _logits(top_face - 1, 20))
    reader = FaceReader(whole, [TopFaceLook(top, 0.7, frozenset({"d8", "d10", "d12", "d20"}))])
    image = np.full((120, 120, 3), 128, np.uint8)
    ev = reader.evidence(image, [(40, 40, 80, 80)])[0]
    r = reader.decide(ev, Box(40, 40, 80, 80))
    assert isinstance(r.outcome, expected)
    assert top.shown == (2 if looked else 0)  # the top face is looked at twice, at 45 and 225 degrees
    if expected is Face:
        assert r.value == whole_face


@pytest.mark.parametrize(
    ("die", "pips_look_reads", "numeral_look_reads", "expected", "value"),
    [
        pytest.param("d6", 4, 11, Face, 4, id="d6: pooled with the pips look alone, accepted"),
        pytest.param("d6", 2, 4, Unreadable, None, id="d6: the pips look reads 2 against the whole die's 4, refused"),
        pytest.param("d20", 2, 4, Face, 4, id="d20: pooled with the numeral look alone, accepted"),
    ],
)
def test_each_die_type_takes_the_second_look_made_for_it(die, pips_look_reads, numeral_look_reads, expected, value):
    from reader.vision.topface import TopFaceLook

    whole = _Fixed({"accept_threshold": 0.9, "cocked_threshold": 0.5}, _logits(TYPES.index(die), len(TYPES)),
                   _logits(3, 20))
    pips = _Fixed({}, np.zeros(len(TYPES)), _logits(pips_look_reads - 1, 20))
    numerals = _Fixed({}, np.zeros(len(TYPES)), _logits(numeral_look_reads - 1, 20))
    reader = FaceReader(whole, [TopFaceLook(numerals, 0.7, frozenset({"d8", "d10", "d12", "d20"})),
                                TopFaceLook(pips, 1.15, frozenset({"d6"}), name="reader_top_d6")])
    r = reader.decide(reader.evidence(np.full((120, 120, 3), 128, np.uint8), [(40, 40, 80, 80)])[0], BOX)
    assert isinstance(r.outcome, expected) and r.value == value
    # the die is shown to its own look only, twice (45 and 225 degrees)
    assert (pips.shown, numerals.shown) == ((2, 0) if die == "d6" else (0, 2))


def test_two_second_looks_for_one_die_type_are_refused():
    from reader.vision.topface import TopFaceLook

    looks = [TopFaceLook(_Meta(), 0.7, frozenset({"d8", "d20"})), TopFaceLook(_Meta(), 1.0, frozenset({"d6", "d20"}))]
    with pytest.raises(ValueError, match="d20"):
        FaceReader(_Meta(), looks)


def test_the_second_look_cuts_the_middle_of_the_die():
    from reader.vision.topface import TopFaceLook

    # a 40 px die, black with a white 16 px top face: the whole-die crop is mostly table and black,
    # the second look's cut (0.5 x the box) is mostly the white top face
    image = np.zeros((200, 200, 3), np.uint8)
    image[92:108, 92:108] = 255
    top = _Recording({})
    whole = _Fixed({"accept_threshold": 0.9, "cocked_threshold": 0.5}, _logits(TYPES.index("d12"), len(TYPES)),
                   _logits(0, 20))
    FaceReader(whole, [TopFaceLook(top, 0.5, frozenset({"d12"}))]).evidence(image, [(80, 80, 120, 120)])
    assert len(top.seen) == 2
    assert float((top.seen[0, 0] > 0.5).mean()) > 0.5


@pytest.mark.parametrize(
    ("die", "shift", "white_share"),
    [
        pytest.param("d20", None, 0.0, id="no camera: the cut about the box's middle misses the top face"),
        pytest.param("d20", (16.0, 0.0), 1.0, id="moved to where the camera sees the top face: all of it"),
        pytest.param("d6", (16.0, 0.0), 0.0, id="a D6's look is not moved: it reads the whole die"),
    ],
)
def test_a_described_camera_moves_the_numeral_dice_cut_to_their_top_face(die, shift, white_share):
    from reader.vision.topface import TopFaceLook

    # a 40 px black die whose white 16 px top face is seen 16 px right of its box's middle; the cut
    # (0.2 x the box, turned 45 degrees) fits in it
    image = np.zeros((200, 200, 3), np.uint8)
    image[92:108, 108:124] = 255
    top = _Recording({})
    whole = _Fixed({"accept_threshold": 0.9, "cocked_threshold": 0.5}, _logits(TYPES.index(die), len(TYPES)),
                   _logits(0, 20))
    look = TopFaceLook(top, 0.2, frozenset({"d6", "d20"}))
    FaceReader(whole, [look]).evidence(image, [(80, 80, 120, 120)], shifts=None if shift is None else [shift])
    assert float((top.seen[0, 0] > 0.5).mean()) == pytest.approx(white_share, abs=0.05)


@pytest.mark.parametrize(
    ("die", "white_share"),
    [
        pytest.param("d20", 1.0, id="a d20 is cut to its own top face (0.25 x the box): all white"),
        pytest.param("d12", 0.16, id="a d12 keeps the wide cut (1.0 x the box): mostly the black die"),
    ],
)
def test_each_die_type_is_cut_the_way_its_second_look_was_trained(die, white_share):
    from reader.vision.topface import TopFaceLook

    # a 40 px black die with a white 16 px top face
    image = np.zeros((200, 200, 3), np.uint8)
    image[92:108, 92:108] = 255
    top = _Recording({})
    whole = _Fixed({"accept_threshold": 0.9, "cocked_threshold": 0.5}, _logits(TYPES.index(die), len(TYPES)),
                   _logits(0, 20))
    look = TopFaceLook.from_meta(top, {"per_side": 1.0, "dice": ["d12", "d20"], "cut_by_die": {"d20": 0.25}})
    FaceReader(whole, [look]).evidence(image, [(80, 80, 120, 120)])
    assert float((top.seen[0, 0] > 0.5).mean()) == pytest.approx(white_share, abs=0.05)


@pytest.mark.parametrize(
    ("weight", "expected"),
    [
        pytest.param(0.0, [0.7, 0.2, 0.1], id="weight 0: the whole die alone"),
        pytest.param(1.0, [0.1, 0.8, 0.1], id="weight 1: the top face alone"),
        pytest.param(0.5, [0.7 ** 0.5 * 0.1 ** 0.5, 0.2 ** 0.5 * 0.8 ** 0.5, 0.1], id="0.5: the geometric mean"),
    ],
)
def test_the_two_looks_are_pooled_by_weight(weight, expected):
    from reader.vision.topface import combine

    pooled = combine(np.array([[0.7, 0.2, 0.1]]), np.array([[0.1, 0.8, 0.1]]), weight)[0]
    want = np.array(expected) / np.sum(expected)
    assert np.allclose(pooled, want)


class _ViewByView(_Fixed):
    """A stand-in network whose four views of one die name the types given, one each, and read a 4;
    a view that takes it for no die still finds a d6 the likeliest die (as tray-d6-nell's die showing
    1 did: none 0.77, d6 0.21)."""

    def __init__(self, view_types):
        super().__init__({"accept_threshold": 0.9, "cocked_threshold": 0.5}, np.zeros(len(TYPES)), _logits(3, 20))
        self.rows = np.stack([_logits(TYPES.index(t), len(TYPES)) + (_logits(TYPES.index("d6"), len(TYPES), 6.0)
                                                                       if t == "none" else 0) for t in view_types])

    def __call__(self, x):
        out = super().__call__(x)
        return [np.tile(self.rows, (len(x) // len(self.rows), 1))] + out[1:]


@pytest.mark.parametrize(
    ("view_types", "expected"),
    [
        pytest.param(("d6", "d6", "d6", "d6"), Face, id="all four views name a d6: read"),
        pytest.param(("none", "d6", "d6", "d6"), Face, id="one view takes it for no die, the rest a d6: read"),
        pytest.param(("d8", "d6", "d6", "d6"), Unreadable, id="one view names a d8: refused"),
        pytest.param(("none", "d8", "d6", "d6"), Unreadable, id="no die, a d8 and two d6: refused"),
    ],
)
def test_views_must_name_the_same_die_type(view_types, expected):
    reader = FaceReader(_ViewByView(view_types))
    r = reader.decide(reader.evidence(np.full((120, 120, 3), 128, np.uint8), [(40, 40, 80, 80)])[0], BOX)
    assert isinstance(r.outcome, expected)
    assert r.die == "d6"
    if expected is Face:
        assert r.value == 4


class _StateNet:
    """A stand-in state-check network: p(cocked) `p` for every crop; counts the crops it is shown."""

    meta: dict = {}

    def __init__(self, p):
        self.p, self.seen = p, 0

    def __call__(self, x):
        self.seen += len(x)
        s = np.tile([np.log(1 - self.p), np.log(self.p)], (len(x), 1)).astype(np.float32)
        return [np.zeros((len(x), len(TYPES)), np.float32), np.zeros((len(x), 20), np.float32), s]


@pytest.mark.parametrize("checked, threshold, expected", [
    pytest.param(0.30, 0.18, Unreadable, id="the state check doubts it (0.30 over 0.18): roll again"),
    pytest.param(0.10, 0.18, Face, id="the state check finds it flat (0.10 under 0.18): read"),
    pytest.param(0.30, None, Face, id="no state check: the reader's own state head alone"),
])
def test_a_state_check_that_finds_a_die_leaning_refuses_its_face(checked, threshold, expected):
    check = StateCheck(_StateNet(0.5), threshold) if threshold is not None else None
    ev = evidence(die="d6", face=4)
    r = FaceReader(_Meta(), state_check=check).decide(FaceEvidence(*astuple_of(ev)[:4], cocked_check=checked), BOX)
    assert isinstance(r.outcome, expected)
    if expected is Unreadable:
        assert r.value is None and r.outcome.reason == "may be leaning"


def astuple_of(ev):
    return ev.type_probs, ev.face_probs, ev.cocked, ev.views_agree


@pytest.mark.parametrize("check_state, asked", [
    pytest.param(True, True, id="asked: its p(cocked), averaged over the four views"),
    pytest.param(False, False, id="not asked (the lean look judges instead): not run"),
])
def test_the_state_check_sees_the_readers_own_crops(check_state, asked):
    net = _StateNet(0.3)
    reader = FaceReader(_Recording({"crop_per_side": 1.35}), state_check=StateCheck(net, 0.2))
    image = np.zeros((200, 200, 3), np.uint8)
    (ev,) = reader.evidence(image, [(80, 80, 120, 120)], check_state=check_state)
    assert net.seen == (4 if asked else 0)
    assert ev.cocked_check == (pytest.approx(0.3) if asked else 0.0)


class _Printed:
    """A stand-in reader with a print check: the three outputs of a sure D8 showing 3, and a fourth,
    the print check's logit, the same for every view."""

    def __init__(self, print_logit, sure=0.97):
        self.meta = {"types": TYPES, "accept_threshold": 0.9, "cocked_threshold": 0.5,
                     "print_check": {"sure": sure}}
        self.q = print_logit

    def __call__(self, x):
        n = len(x)
        return [np.tile(_logits(TYPES.index("d8"), len(TYPES)), (n, 1)), np.tile(_logits(2, 20), (n, 1)),
                np.tile(np.array([5.0, -5.0], np.float32), (n, 1)), np.full((n, 1), self.q, np.float32)]


PRINT_CASES = {
    "the check is sure it is print: refused, still shown as a find": (6.0, Unreadable),
    "the check is unsure: read as ever": (2.0, Face),
    "the check says die: read as ever": (-6.0, Face),
}


@pytest.mark.parametrize(("print_logit", "expected"), PRINT_CASES.values(), ids=PRINT_CASES.keys())
def test_a_find_the_print_check_is_sure_of_is_refused_not_dropped(print_logit, expected):
    reader = FaceReader(_Printed(print_logit))
    image = np.zeros((100, 100, 3), np.uint8)
    ev = reader.evidence(image, [(30, 30, 70, 70)])[0]
    r = reader.decide(ev, BOX)
    assert r is not None and r.die == "d8"
    assert isinstance(r.outcome, expected)
    if expected is Unreadable:
        assert "printed" in r.outcome.reason and r.value is None
    else:
        assert r.value == 3


def test_a_reader_without_a_print_check_ignores_a_fourth_output():
    net = _Printed(6.0)
    del net.meta["print_check"]
    reader = FaceReader(net)
    r = reader.decide(reader.evidence(np.zeros((100, 100, 3), np.uint8), [(30, 30, 70, 70)])[0], BOX)
    assert r.value == 3


@pytest.mark.parametrize(
    ("new_dice", "kept"),
    [
        pytest.param({"d20"}, [{"d8", "d12"}, {"d20"}], id="the D20 taken from the numeral look"),
        pytest.param({"d8", "d12", "d20"}, [{"d8", "d12", "d20"}], id="a look left with no dice is dropped"),
    ],
)
def test_a_look_in_place_of_anothers_takes_its_dice(new_dice, kept):
    from reader.vision.topface import TopFaceLook, in_place_of

    numerals = TopFaceLook(_Meta(), 0.7, frozenset({"d8", "d12", "d20"}))
    new = TopFaceLook(_Meta(), 0.7, frozenset(new_dice), name="reader_top_d20")
    looks = in_place_of([numerals], [new])
    assert [set(look.dice) for look in looks] == kept
    FaceReader(_Meta(), looks)  # one look per die type: accepted
