"""BanishSession: the rules' worked examples, renumbering, die switching, refusals, JSON."""

import json

import pytest

from reader.errors import DiceReaderError, InvalidReading
from reader.reading import Box, Cocked, DieReading, Face, Unreadable
from reader.rules import (Banished, BanishSession, Done, Reroll, RollAgain, from_json)
from reader.rules.errors import DieNotAllowed, RuleError, SessionOver, WrongProcedure

SEVEN = ["A", "B", "C", "D", "E", "F", "G"]
FIVE = ["Ash", "Birch", "Cedar", "Dogwood", "Elm"]


def reading(die, outcome):
    return DieReading(die=die, box=Box(10, 10, 60, 60), outcome=outcome)


# Each step: (die, value, expected event result, (position, card) banished or None,
#             table the players see before the roll)
WORKED_EXAMPLES = [
    pytest.param(
        SEVEN, 2, None,
        [
            ("d8", 8, "reroll", None, "D8: 1 A | 2 B | 3 C | 4 D | 5 E | 6 F | 7 G | 8 roll again"),
            ("d8", 3, "banish", (3, "C"), "D8: 1 A | 2 B | 3 C | 4 D | 5 E | 6 F | 7 G | 8 roll again"),
            # six cards left, numbered again; the players switch to a D6
            ("d6", 4, "banish", (4, "E"), "D6: 1 A | 2 B | 3 D | 4 E | 5 F | 6 G"),
        ],
        ["A", "B", "D", "F", "G"],
        id="7 cards with a D8: 8 rolled again, then a D6 after a banish",
    ),
    pytest.param(
        FIVE, 2, "d20",
        [
            ("d20", 13, "banish", (4, "Dogwood"),
             "D20: 1-4 Ash | 5-8 Birch | 9-12 Cedar | 13-16 Dogwood | 17-20 Elm"),
            # four cards left: 5 values each on the same D20
            ("d20", 20, "banish", (4, "Elm"), "D20: 1-5 Ash | 6-10 Birch | 11-15 Cedar | 16-20 Elm"),
        ],
        ["Ash", "Birch", "Cedar"],
        id="5 cards with a D20: 1-4, 5-8, 9-12, 13-16, 17-20",
    ),
]


@pytest.mark.parametrize(("cards", "count", "die", "steps", "remaining"), WORKED_EXAMPLES)
def test_worked_examples_of_the_rules(cards, count, die, steps, remaining):
    s = BanishSession(cards, count, die=die)
    for die_, value, result, banished, table in steps:
        assert s.table.describe(s.remaining) == table
        events = s.feed(die_, value)
        assert events[0].result == result
        if banished:
            assert (events[0].position, events[0].card) == banished
    assert s.done
    assert list(s.remaining) == remaining
    assert isinstance(s.events[-1], Done)


def test_the_issue_json_example():
    s = BanishSession(SEVEN, 1)
    s.feed("d8", 8)
    s.feed("d8", 3)
    assert [e.to_json() for e in s.events[:-1]] == [
        {"die": "d8", "value": 8, "result": "reroll"},
        {"die": "d8", "value": 3, "result": "banish", "position": 3, "card": "C"},
    ]
    assert [b.brief() for b in s.banished] == [{"position": 3, "card": "C"}]


def test_recommended_die_follows_the_cards_left_unless_pinned():
    auto = BanishSession(SEVEN, 2)
    assert (auto.die, auto.recommended_die) == ("d8", "d8")
    auto.feed("d8", 1)
    assert auto.die == "d6"  # six cards: the smallest allowed is now a D6
    pinned = BanishSession(SEVEN, 2, die="d20")
    pinned.feed("d20", 1)
    assert (pinned.die, pinned.recommended_die) == ("d20", "d6")


def test_a_reading_of_another_allowed_die_switches_dice():
    s = BanishSession(SEVEN, 3)
    s.feed("d12", 12)  # 7 cards with a D12: 8..12 rolled again
    assert s.die == "d12"
    assert s.events[-1] == Reroll("d12", 12)
    s.feed("d12", 7)
    assert s.banished[-1].card == "G"
    assert s.use_die("d6").describe(s.remaining) == "D6: 1 A | 2 B | 3 C | 4 D | 5 E | 6 F"
    s.feed("d6", 6)
    assert s.banished[-1].card == "F"
    assert s.use_die(None).die == "d6"


def test_a_die_too_small_is_refused_naming_the_allowed_ones_and_changes_nothing():
    s = BanishSession(SEVEN, 2)
    before = s.to_json()
    with pytest.raises(DieNotAllowed, match="too few for 7 cards; roll a D8, D10, D12 or D20"):
        s.feed("d6", 3)
    with pytest.raises(DieNotAllowed, match="too few for 7 cards"):
        s.use_die("d6")
    assert s.to_json() == before


def test_a_d4_reading_is_refused_by_the_rules():
    s = BanishSession(["A", "B", "C"], 1)
    with pytest.raises(DieNotAllowed, match="a D4 is not used by the rules; roll a D6, D8, D10, D12 or D20"):
        s.feed(reading("d4", Face(3, 0.99)))
    with pytest.raises(DieNotAllowed, match="D4"):
        s.feed(reading("d4", Cocked(0.9)))  # a cocked D4 is still the wrong die
    assert s.events == ()


@pytest.mark.parametrize(
    ("outcome", "reason"),
    [
        (Cocked(0.95), "cocked"),  # leaning on the tray wall
        (Unreadable("glare", 0.3), "unreadable: glare"),
    ],
)
def test_a_die_with_no_face_is_rolled_again(outcome, reason):
    s = BanishSession(SEVEN, 1)
    events = s.feed(reading("d8", outcome))
    assert events == [RollAgain(die="d8", reason=reason)]
    assert events[0].to_json() == {"die": "d8", "value": None, "result": "roll-again", "reason": reason}
    assert s.remaining == tuple(SEVEN) and not s.banished
    s.feed(reading("d8", Face(2, 0.99)))
    assert s.banished[0].card == "B"


@pytest.mark.parametrize("value", [9, 0, True, "3"])
def test_an_impossible_value_is_an_error_and_changes_nothing(value):
    s = BanishSession(SEVEN, 1)
    with pytest.raises(InvalidReading):
        s.feed("d8", value)
    assert s.events == () and s.die == "d8"


def test_two_copies_of_a_card_are_two_cards():
    s = BanishSession(["Lost Soul", "Lost Soul", "Ember"], 1)
    s.feed("d6", 4)  # 3 cards with a D6: 1-2, 3-4, 5-6 -> the second copy
    b = s.banished[0]
    assert (b.position, b.card, b.original_position) == (2, "Lost Soul", 2)
    assert s.remaining == ("Lost Soul", "Ember")
    assert s.remaining_original_positions == (1, 3)


def test_one_card_needs_no_roll():
    s = BanishSession(["Only"], 1)
    assert s.done and s.next is None and s.table is None
    assert s.events[0] == Banished(position=1, card="Only", by="only-card")
    assert s.events[0].to_json()["by"] == "only-card"
    with pytest.raises(SessionOver):
        s.feed("d6", 1)


def test_banishing_every_card_takes_the_last_without_a_roll():
    s = BanishSession(["A", "B"], 2)
    events = s.feed("d6", 5)  # 4-6 is B
    assert [e.result for e in events] == ["banish", "banish", "done"]
    assert events[1].by == "only-card" and events[1].card == "A"
    assert s.remaining == ()


def test_the_session_ends_after_count_banishes_and_takes_no_more_rolls():
    s = BanishSession(SEVEN, 2)
    s.feed("d8", 1)
    assert not s.done
    events = s.feed("d6", 1)
    assert s.done and isinstance(events[-1], Done)
    assert events[-1].to_json() == {"result": "done",
                                    "banished": [{"position": 1, "card": "A"}, {"position": 1, "card": "B"}],
                                    "remaining": ["C", "D", "E", "F", "G"]}
    with pytest.raises(SessionOver, match="the banish is done"):
        s.feed("d6", 1)


def test_more_than_ten_cards_shuffle_and_the_opponent_picks():
    cards = [f"card {i}" for i in range(1, 13)]
    s = BanishSession(cards, 3)
    assert s.procedure == "shuffle" and s.die is None and s.table is None
    assert s.next["procedure"] == "shuffle"
    assert "no dice; shuffle them face down and let the opponent pick" in s.next["message"]
    with pytest.raises(WrongProcedure, match="no dice"):
        s.feed("d20", 3)
    with pytest.raises(RuleError, match=r"positions are 1\.\.12"):
        s.pick(13)
    s.pick(5)
    assert s.banished[-1].to_json() == {"die": None, "value": None, "result": "banish",
                                        "position": 5, "card": "card 5", "by": "pick"}
    s.pick(11)  # eleven cards: still a pick; position 11 is card 12
    assert s.banished[-1].card == "card 12"
    assert s.procedure == "roll" and s.die == "d10"  # ten cards: dice again
    with pytest.raises(WrongProcedure, match="roll a D10 / D12 / D20"):
        s.pick(1)
    s.feed("d10", 10)
    assert s.banished[-1].card == "card 11" and s.done


def test_next_names_the_die_and_the_table():
    s = BanishSession(["A", "B", "C"], 1, mapping="single")
    nxt = s.next
    assert nxt["procedure"] == "roll" and nxt["die"] == "d6"
    assert nxt["allowed"] == ["d6", "d8", "d10", "d12", "d20"]
    assert nxt["table"]["cards"][2] == {"position": 3, "card": "C", "values": [3], "label": "3"}
    assert nxt["table"]["reroll"] == [4, 5, 6]


@pytest.mark.parametrize(
    ("cards", "count", "die", "mapping", "message"),
    [
        ("", 1, None, "blocks", "no cards"),
        ([], 1, None, "blocks", "no cards"),
        ("A,,B", 1, None, "blocks", "card 2 has no name"),
        ("A,B,C", 4, None, "blocks", "cannot banish 4 of 3 cards"),
        ("A,B,C", 0, None, "blocks", "cannot banish 0 of 3 cards"),
        ("A,B,C", "2", None, "blocks", "whole number"),
        ("A,B,C", True, None, "blocks", "whole number"),
        ("A,B,C,D,E,F,G", 1, "d6", "blocks", "too few for 7 cards"),
        ("A,B,C", 1, "d4", "blocks", "D4 is not used"),
        ("A,B,C", 1, None, "random", "unknown mapping"),
        (",".join("ABCDEFGHIJKL"), 1, "d20", "blocks", "12 cards are more than 10: no dice"),
        (",".join("ABCDEFGHIJKL"), 3, "d8", "blocks", "too few for 10 cards"),
    ],
)
def test_bad_setups_are_refused_with_a_message(cards, count, die, mapping, message):
    with pytest.raises(DiceReaderError, match=message):
        BanishSession(cards, count, die=die, mapping=mapping)


def test_session_json_is_serialisable_and_events_round_trip():
    s = BanishSession(SEVEN, 3)
    s.feed(reading("d8", Cocked(0.9)))
    s.feed("d8", 8)
    s.feed("d8", 7)
    s.feed("d6", 2)
    s.feed("d6", 1)
    state = json.loads(json.dumps(s.to_json()))
    assert state["done"] and state["next"] is None
    assert state["banished"] == [{"position": 7, "card": "G"}, {"position": 2, "card": "B"},
                                 {"position": 1, "card": "A"}]
    assert state["banished_original_positions"] == [7, 2, 1]
    assert [e["result"] for e in state["events"]] == ["roll-again", "reroll", "banish", "banish",
                                                      "banish", "done"]
    for event in s.events:
        d = json.loads(json.dumps(event.to_json()))
        assert from_json(d).to_json() == d
        assert type(from_json(d)) is type(event)
    assert from_json(s.events[2].to_json()) == s.events[2]
    with pytest.raises(ValueError, match="unknown rules event"):
        from_json({"result": "explode"})
    with pytest.raises(ValueError, match="malformed"):
        from_json({"result": "reroll", "die": "d8"})


def test_copy_is_independent():
    s = BanishSession(SEVEN, 2)
    c = s.copy()
    c.feed("d8", 1)
    assert s.remaining == tuple(SEVEN) and not s.events
    assert c.remaining[0] == "B"


def test_a_die_named_for_more_than_ten_cards_is_used_once_ten_are_left():
    s = BanishSession([f"c{i}" for i in range(12)], 3, die="d12")
    s.pick(1)
    s.pick(1)
    assert s.die == "d12" and s.table.describe().startswith("D12: 1 #1 | ")


def test_the_rules_are_pure():
    import subprocess
    import sys

    code = ("import sys, reader.rules, reader.rules.exact; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('cv2', 'numpy', 'serial', 'onnxruntime', 'socket', 'sqlite3', 'http')))")
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=root)
    assert out.stdout.strip() == "[]"
