"""The console line for each rules decision: the same words live, in `banish`, and in a replay.

A judge compares the tray's log with a replay; the same decision must read the same, from the
event itself or from its JSON as a recording stores it.
"""

import pytest

from reader.rules.events import Banished, Done, FirstPlayer, Reroll, RollAgain, Rolled, Tie
from reader.rules.wording import describe

CASES = [
    ("reroll", Reroll("d8", 8), "D8 shows 8: no card has that value, roll again"),
    ("cocked", RollAgain("d6", "cocked"), "D6: cocked, roll again"),
    ("player-cocked", RollAgain("d6", "cocked", player="Ana"), "Ana: D6: cocked, roll again"),
    ("banish-by-roll", Banished(3, "Rai", die="d8", value=3), "D8 shows 3: banish #3 Rai"),
    ("banish-by-pick", Banished(7, "Nico", by="pick"), "opponent's pick: banish #7 Nico"),
    ("only-card", Banished(1, "Zander", by="only-card"), "only card left: banish #1 Zander"),
    ("done-two-copies", Done((Banished(2, "Rai", "d6", 2), Banished(2, "Rai", "d6", 2)), ("Nico",)),
     "done: banished #2 Rai, #2 Rai; remaining: Nico"),
    ("done-nothing-left", Done((Banished(1, "Rai", by="only-card"),), ()),
     "done: banished #1 Rai; remaining: (none)"),
    ("rolled", Rolled("Ana", (6, 2), 8), "Ana rolled 6 + 2 = 8"),
    ("tie", Tie(7, 1), "tie at 7: both players roll again"),
    ("first", FirstPlayer("Ana", (("Ana", 8), ("Ben", 4)), 2), "Ana goes first (Ana 8, Ben 4)"),
]


@pytest.mark.parametrize(("event", "line"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_line_for_each_decision(event, line):
    assert describe(event) == line


@pytest.mark.parametrize("event", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_a_recorded_decision_reads_as_it_did_live(event):
    assert describe(event.to_json()) == describe(event)


def test_an_unknown_decision_is_shown_whole_not_dropped():
    assert describe({"result": "something-new", "x": 1}) == '{"result": "something-new", "x": 1}'
