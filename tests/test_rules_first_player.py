"""FirstPlayerSession: 2 D6 per player, higher total first, ties rolled again."""

import json
from fractions import Fraction
from itertools import product

import pytest

from reader.errors import DiceReaderError, InvalidReading
from reader.reading import Box, Cocked, DieReading, Face, Unreadable
from reader.rules import FirstPlayer, FirstPlayerSession, RollAgain, Rolled, Tie, from_json
from reader.rules.errors import DieNotAllowed, RuleError, SessionOver


def reading(die, outcome):
    return DieReading(die=die, box=Box(0, 0, 40, 40), outcome=outcome)


@pytest.mark.parametrize(
    ("pairs", "first", "results"),
    [
        ([(6, 5), (3, 4)], "Player 1", ["rolled", "rolled", "first"]),  # higher total first
        ([(1, 2), (6, 5)], "Player 2", ["rolled", "rolled", "first"]),  # second player higher
        ([(3, 4), (5, 2), (6, 6), (1, 1)], "Player 1",  # a tie at 7: both roll again
         ["rolled", "rolled", "tie", "rolled", "rolled", "first"]),
        ([(1, 1), (1, 1), (2, 2), (3, 1), (1, 1), (1, 2)], "Player 2",  # ties at 2 and at 4
         ["rolled", "rolled", "tie", "rolled", "rolled", "tie", "rolled", "rolled", "first"]),
        ([(3, 4)], None, ["rolled"]),  # rolls ran out: not decided
    ],
    ids=["player 1 higher", "player 2 higher", "one tie", "two ties", "undecided"],
)
def test_pairs_decide_the_first_player(pairs, first, results):
    s = FirstPlayerSession()
    for a, b in pairs:
        s.feed_pair(a, b)
    assert s.first == first
    assert s.done == (first is not None)
    assert [e.result for e in s.events] == results


def test_single_dice_readings_alternate_like_pairs():
    by_die, by_pair = FirstPlayerSession(("Ana", "Ben")), FirstPlayerSession(("Ana", "Ben"))
    values = [3, 4, 5, 2, 6, 1, 2, 2]
    for v in values:
        assert by_die.turn in ("Ana", "Ben")
        by_die.feed("d6", v)
    for i in range(0, len(values), 2):
        by_pair.feed_pair(values[i], values[i + 1])
    assert by_die.events == by_pair.events
    assert by_die.first == "Ana"
    assert by_die.events[-1] == FirstPlayer("Ana", (("Ana", 7), ("Ben", 4)), round=2)


def test_turn_pending_and_next_follow_the_readings():
    s = FirstPlayerSession(("Ana", "Ben"))
    assert s.turn == "Ana" and s.next == {"player": "Ana", "die": "d6", "dice": 2, "have": [],
                                          "round": 1}
    assert s.feed(reading("d6", Face(5, 0.97))) == []
    assert s.pending == (5,) and s.next["dice"] == 1
    assert s.feed(reading("d6", Face(2, 0.97))) == [Rolled("Ana", (5, 2), 7)]
    assert s.turn == "Ben" and s.pending == ()


def test_a_cocked_single_die_is_rolled_again_and_the_other_kept():
    s = FirstPlayerSession()
    s.feed("d6", 4)
    events = s.feed(reading("d6", Cocked(0.9)))
    assert events == [RollAgain(die="d6", reason="cocked", player="Player 1")]
    assert events[0].to_json() == {"die": "d6", "value": None, "result": "roll-again",
                                   "reason": "cocked", "player": "Player 1"}
    assert s.pending == (4,)
    s.feed("d6", 6)
    assert s.events[-1] == Rolled("Player 1", (4, 6), 10)


def test_a_pair_with_an_unreadable_die_is_rolled_again_whole():
    s = FirstPlayerSession()
    events = s.feed_pair(reading("d6", Face(6, 0.9)), reading("d6", Unreadable("blur")))
    assert events == [RollAgain(die="d6", reason="unreadable: blur", player="Player 1")]
    assert s.pending == () and s.turn == "Player 1"
    s.feed_pair(("d6", 2), ("d6", 3))
    assert s.events[-1].total == 5


@pytest.mark.parametrize(
    ("die", "value", "error", "message"),
    [
        ("d8", 3, DieNotAllowed, "two D6, not a D8"),
        ("d4", 3, DieNotAllowed, "two D6, not a D4"),
        ("d6", 7, InvalidReading, "a D6 cannot show 7"),
        ("d6", 0, InvalidReading, "a D6 cannot show 0"),
        ("d9", 3, InvalidReading, "unknown die"),
    ],
)
def test_wrong_dice_and_values_are_refused_and_change_nothing(die, value, error, message):
    s = FirstPlayerSession()
    s.feed("d6", 2)
    with pytest.raises(error, match=message):
        s.feed(die, value)
    with pytest.raises(error, match=message):
        FirstPlayerSession().feed_pair(("d6", 1), (die, value))
    assert s.pending == (2,) and s.events == ()


def test_a_pair_while_one_die_is_pending_is_refused():
    s = FirstPlayerSession()
    s.feed("d6", 2)
    with pytest.raises(RuleError, match="has one die read already"):
        s.feed_pair(3, 4)


def test_no_more_rolls_after_the_decision():
    s = FirstPlayerSession()
    s.feed_pair(6, 6)
    s.feed_pair(1, 1)
    with pytest.raises(SessionOver, match="Player 1 goes first already"):
        s.feed("d6", 3)
    assert s.turn is None and s.next is None


@pytest.mark.parametrize(
    ("players", "expected"),
    [
        (None, ("Player 1", "Player 2")),
        ("Ana,Ben", ("Ana", "Ben")),
        ([" Ana ", "Ben"], ("Ana", "Ben")),
    ],
)
def test_player_names(players, expected):
    assert FirstPlayerSession(players).players == expected


@pytest.mark.parametrize(
    ("players", "message"),
    [("Ana", "between 2 players, not 1"), ("Ana,Ben,Cy", "not 3"), ("Ana,Ana", "both players"),
     ("Ana,", "has no name")],
)
def test_bad_player_names_are_refused(players, message):
    with pytest.raises(DiceReaderError, match=message):
        FirstPlayerSession(players)


def test_json_is_serialisable_and_events_round_trip():
    s = FirstPlayerSession(("Ana", "Ben"))
    s.feed_pair(3, 4)
    s.feed_pair(reading("d6", Cocked(0.8)), 1)
    s.feed_pair(5, 2)
    s.feed_pair(1, 1)
    s.feed_pair(1, 2)
    state = json.loads(json.dumps(s.to_json()))
    assert state["first"] == "Ben" and state["done"]
    assert state["events"][-1] == {"result": "first", "player": "Ben", "totals": {"Ana": 2, "Ben": 3},
                                   "round": 2}
    assert state["events"][3] == {"result": "tie", "total": 7, "round": 1}
    for event in s.events:
        assert from_json(json.loads(json.dumps(event.to_json()))) == event
    assert isinstance(s.events[3], Tie)


def test_both_players_equally_likely_to_go_first():
    # all 6^4 rolls of a round through the session; ties repeat the round (geometric series)
    wins = {"Player 1": 0, "Player 2": 0}
    ties = 0
    for a, b, c, d in product(range(1, 7), repeat=4):
        s = FirstPlayerSession()
        s.feed_pair(a, b)
        s.feed_pair(c, d)
        if s.done:
            wins[s.first] += 1
        else:
            ties += 1
    assert ties == 146  # sum over totals of (ways to roll it)^2
    p_tie = Fraction(ties, 6 ** 4)
    p1 = Fraction(wins["Player 1"], 6 ** 4) / (1 - p_tie)
    assert p1 == Fraction(1, 2)
