"""The Grand Archive random-selection rules, exact and pure (no camera, port or file).

Public API (everything a caller needs):

    from reader.rules import BanishSession, FirstPlayerSession, ValueTable
    BanishSession(cards, count=1, die=None, mapping="blocks")
        .feed(reading) / .feed(die, value) -> [events]   .pick(position) -> [events]
        .use_die(die) -> ValueTable     .table  .die  .allowed_dice  .recommended_die
        .remaining  .banished  .events  .done  .procedure  .next  .to_json()  .copy()
    FirstPlayerSession(players=("Player 1", "Player 2"))
        .feed(reading) / .feed("d6", value) -> [events]   .feed_pair(a, b) -> [events]
        .turn  .pending  .round  .first  .events  .done  .next  .to_json()
    ValueTable(die, n, mapping="blocks"): .position(value) .values(position) .rerolled
        .rows(names) .to_json(names) .describe(names)
    allowed_dice(n), smallest_die(n), check_die(die, n), RULES_DICE, MAPPINGS
    events: Reroll, RollAgain, Banished, Done, Rolled, Tie, FirstPlayer; events.from_json(dict)
    errors (all DiceReaderError): RuleError, DieNotAllowed, SessionOver, WrongProcedure

Each event's `to_json()` is a dict with a "result" key: "reroll", "roll-again", "banish", "done",
"rolled", "tie", "first". `reader.rules.exact` computes exact outcome probabilities of a session.
"""

from reader.rules.banish import BanishSession, parse_cards
from reader.rules.dice import MAX_DICE_CARDS, RULES_DICE, allowed_dice, check_die, smallest_die
from reader.rules.errors import DieNotAllowed, RuleError, SessionOver, WrongProcedure
from reader.rules.events import (Banished, Done, FirstPlayer, Reroll, RollAgain, Rolled, Tie,
                                 from_json)
from reader.rules.first_player import DEFAULT_PLAYERS, FirstPlayerSession, parse_players
from reader.rules.mapping import MAPPINGS, ValueTable

__all__ = [
    "BanishSession", "FirstPlayerSession", "ValueTable", "parse_cards", "parse_players",
    "allowed_dice", "smallest_die", "check_die", "RULES_DICE", "MAPPINGS", "MAX_DICE_CARDS",
    "DEFAULT_PLAYERS", "Reroll", "RollAgain", "Banished", "Done", "Rolled", "Tie", "FirstPlayer",
    "from_json", "RuleError", "DieNotAllowed", "SessionOver", "WrongProcedure",
]
