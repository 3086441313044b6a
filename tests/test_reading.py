"""A reading's refusal (reader.reading.DieReading.reason / .refused): the one way the rules that refuse a
value (the size rule, the lone dot, the percentile check, a piece of a bigger die) say why."""

from __future__ import annotations

import pytest

from reader.reading import Box, Cocked, DieReading, Face, Unreadable

BOX = Box(10, 10, 40, 40)


@pytest.mark.parametrize("name, outcome, reason", [
    ("a die showing a face has no reason", Face(4, 0.97), None),
    ("a cocked die has none either", Cocked(0.8), None),
    ("an unreadable die says why", Unreadable("views disagree", 0.4), "views disagree"),
])
def test_reason(name, outcome, reason):
    assert DieReading("d6", BOX, outcome).reason == reason, name


@pytest.mark.parametrize("name, outcome", [
    ("a value refused", Face(10, 0.94)),
    ("a refusal refused again for another reason", Unreadable("low confidence", 0.5)),
])
def test_a_refusal_keeps_the_die_its_box_and_its_confidence(name, outcome):
    r = DieReading("d12", BOX, outcome, 0.9, None)
    out = r.refused("a percentile D10?")
    assert (out.state, out.value, out.reason) == ("unreadable", None, "a percentile D10?"), name
    assert (out.die, out.box, out.confidence, out.type_confidence) == (r.die, r.box, r.confidence, r.type_confidence)
    assert r.value == (10 if isinstance(outcome, Face) else None)  # the reading refused is left as it was
