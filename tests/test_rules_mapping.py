"""Value tables: which die values name which card, and which dice the rules allow."""

import pytest

from reader.errors import DiceReaderError, InvalidReading
from reader.rules import MAPPINGS, RULES_DICE, ValueTable, allowed_dice, check_die, smallest_die
from reader.rules.dice import MAX_DICE_CARDS
from reader.rules.errors import DieNotAllowed, RuleError


@pytest.mark.parametrize(
    ("n", "die", "mapping", "labels", "reroll"),
    [
        # rules example: 7 cards with a D8, 8 is rolled again
        (7, "d8", "blocks", ["1", "2", "3", "4", "5", "6", "7"], [8]),
        # rules example: 5 cards with a D20 get 1-4, 5-8, 9-12, 13-16, 17-20, nothing rolled again
        (5, "d20", "blocks", ["1-4", "5-8", "9-12", "13-16", "17-20"], []),
        # 3 cards with a D8: two values each, 7 and 8 rolled again
        (3, "d8", "blocks", ["1-2", "3-4", "5-6"], [7, 8]),
        # single mapping: the value is the card number, the rest rolled again
        (3, "d8", "single", ["1", "2", "3"], [4, 5, 6, 7, 8]),
        # 6 cards with a D20: three values each, 19 and 20 rolled again
        (6, "d20", "blocks", ["1-3", "4-6", "7-9", "10-12", "13-15", "16-18"], [19, 20]),
        # 10 cards with a D12: 11 and 12 rolled again
        (10, "d12", "blocks", [str(i) for i in range(1, 11)], [11, 12]),
        # 10 cards with a D10: the "0" face is 10 and names card 10
        (10, "d10", "blocks", [str(i) for i in range(1, 11)], []),
        # 2 cards with a D6: 1-3 and 4-6
        (2, "d6", "blocks", ["1-3", "4-6"], []),
    ],
)
def test_value_table_rows(n, die, mapping, labels, reroll):
    table = ValueTable(die, n, mapping)
    assert [row["label"] for row in table.rows()] == labels
    assert list(table.rerolled) == reroll
    for row in table.rows():
        for value in row["values"]:
            assert table.position(value) == row["position"]
    for value in reroll:
        assert table.position(value) is None


def test_five_cards_d20_names_each_card_from_the_table():
    table = ValueTable("d20", 5)
    names = ["Ash", "Birch", "Cedar", "Dogwood", "Elm"]
    assert [table.position(v) for v in (1, 4, 5, 8, 9, 12, 13, 16, 17, 20)] == [
        1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert table.describe(names) == "D20: 1-4 Ash | 5-8 Birch | 9-12 Cedar | 13-16 Dogwood | 17-20 Elm"
    assert table.to_json(names)["cards"][3] == {
        "position": 4, "card": "Dogwood", "values": [13, 14, 15, 16], "label": "13-16"}


@pytest.mark.parametrize("n", range(1, 11))
@pytest.mark.parametrize("mapping", MAPPINGS)
def test_every_allowed_table_gives_each_card_the_same_number_of_values(n, mapping):
    for die in allowed_dice(n):
        table = ValueTable(die, n, mapping)
        counts = [len(table.values(p)) for p in range(1, n + 1)]
        assert len(set(counts)) == 1
        covered = sorted(v for p in range(1, n + 1) for v in table.values(p))
        assert covered + list(table.rerolled) == list(range(1, table.faces + 1))
        if mapping == "blocks":
            assert counts[0] == table.faces // n


@pytest.mark.parametrize(
    ("n", "allowed"),
    [
        (1, ("d6", "d8", "d10", "d12", "d20")),
        (6, ("d6", "d8", "d10", "d12", "d20")),
        (7, ("d8", "d10", "d12", "d20")),  # a D6 is too small for 7 cards
        (9, ("d10", "d12", "d20")),
        (10, ("d10", "d12", "d20")),
        (11, ()),  # more than 10 cards: no dice
    ],
)
def test_allowed_dice(n, allowed):
    assert allowed_dice(n) == allowed
    assert smallest_die(n) == (allowed[0] if allowed else None)


@pytest.mark.parametrize(
    ("die", "n", "message"),
    [
        ("d4", 3, "a D4 is not used by the rules; roll a D6, D8, D10, D12 or D20 for 3 cards"),
        ("d6", 7, "a D6 has 6 faces, too few for 7 cards; roll a D8, D10, D12 or D20"),
        ("D8", 9, "a D8 has 8 faces, too few for 9 cards; roll a D10, D12 or D20"),
        ("d20", 11, "11 cards are more than 10: no dice; shuffle and let the opponent pick"),
    ],
)
def test_refused_dice_name_the_allowed_ones(die, n, message):
    with pytest.raises(DieNotAllowed) as err:
        check_die(die, n)
    assert str(err.value) == message
    with pytest.raises(DieNotAllowed):
        ValueTable(die, n)


def test_die_names_are_case_insensitive_and_unknown_ones_refused():
    assert check_die("D12", 10) == "d12"
    assert ValueTable("D8", 7).die == "d8"
    with pytest.raises(InvalidReading, match="unknown die 'd7'"):
        check_die("d7", 3)


@pytest.mark.parametrize(
    ("die", "value"),
    [("d8", 9), ("d8", 0), ("d6", -1), ("d20", 21), ("d8", True), ("d8", "3"), ("d8", 2.0)],
)
def test_a_value_the_die_cannot_show_is_an_error_not_a_decision(die, value):
    with pytest.raises(InvalidReading):
        ValueTable(die, 5).position(value)


def test_unknown_mapping_and_bad_positions_are_refused():
    with pytest.raises(RuleError, match="unknown mapping 'modulo'; use one of: blocks, single"):
        ValueTable("d8", 5, "modulo")
    with pytest.raises(RuleError, match=r"positions are 1\.\.5"):
        ValueTable("d8", 5).values(6)
    with pytest.raises(RuleError):
        ValueTable("d8", 0)
    assert issubclass(RuleError, DiceReaderError)


def test_rules_dice_exclude_the_d4():
    assert "d4" not in RULES_DICE
    assert MAX_DICE_CARDS == 10
