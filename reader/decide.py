"""From the readings of one settled roll to rules decisions, for the live loop and replay.

A roll in the tray is one physical throw. For a banish it must show exactly one die (one roll
per card); for the first player, the two D6 of the player whose turn it is. Anything else (no
die, too many dice, a die the rules refuse) is a "roll-again" decision with the reason, never a
value. The rules themselves (reader.rules) turn a cocked or unreadable die into "roll-again".

`RulesDecider.rules_json()` records the options and every value fed so far, so that one roll
taken out of a session can be replayed with the session exactly as it stood before that roll.
"""

from __future__ import annotations

from typing import Sequence

from reader.errors import DiceReaderError
from reader.reading import DieReading


class NoRules:
    """Read and record, decide nothing (watch without --banish / --first-player)."""

    done = False

    def rules_json(self) -> None:
        return None

    def decide(self, readings: Sequence[DieReading]) -> list[dict]:
        return []

    def prompt(self) -> str | None:
        return None

    def roll_again(self, reason: str) -> list[dict]:
        return []


class RulesDecider:
    """Wraps a BanishSession or FirstPlayerSession; decisions are the rules events' JSON."""

    def __init__(self, procedure: str, options: dict, fed: list | None = None) -> None:
        from reader.rules import BanishSession, FirstPlayerSession

        if procedure not in ("banish", "first-player"):
            raise DiceReaderError(f"unknown rules procedure {procedure!r}")
        self.procedure = procedure
        self.options = dict(options)
        if procedure == "banish":
            self.session = BanishSession(options["cards"], count=options.get("count", 1),
                                         die=options.get("die"), mapping=options.get("mapping", "blocks"))
        else:
            self.session = FirstPlayerSession(options.get("players"))
        self.fed: list = []
        for item in fed or []:  # replay the session up to where it stood
            if procedure == "banish":
                self.session.feed(item[0], int(item[1]))
            else:
                self.session.feed_pair(*(tuple(x) for x in item))
            self.fed.append(item)

    @classmethod
    def banish(cls, cards, count: int = 1, die: str | None = None, mapping: str = "blocks") -> "RulesDecider":
        from reader.rules import parse_cards

        return cls("banish", {"cards": list(parse_cards(cards)), "count": count, "die": die,
                              "mapping": mapping})

    @classmethod
    def first_player(cls, players=None) -> "RulesDecider":
        from reader.rules import parse_players

        return cls("first-player", {"players": list(parse_players(players))})

    @classmethod
    def from_rules_json(cls, rules: dict | None):
        """The decider a recording's manifest "rules" describes (NoRules for null)."""
        if not rules:
            return NoRules()
        opts = {k: v for k, v in rules.items() if k not in ("procedure", "fed_before")}
        try:
            return cls(rules["procedure"], opts, rules.get("fed_before"))
        except (KeyError, TypeError, ValueError) as exc:
            raise DiceReaderError(f"recorded rules {rules!r} cannot be rebuilt: {exc}") from None

    @property
    def done(self) -> bool:
        return self.session.done

    def rules_json(self) -> dict:
        return {"procedure": self.procedure, **self.options, "fed_before": [list(x) for x in self.fed]}

    def prompt(self) -> str | None:
        """What the players should roll next, in words."""
        s = self.session
        if s.done:
            return None
        if self.procedure == "first-player":
            return f"{s.turn}: roll two D6"
        if s.procedure == "shuffle":
            return "more than 10 cards: shuffle and let the opponent pick"
        return f"roll {s.table.describe(s.remaining)}"

    def roll_again(self, reason: str) -> list[dict]:
        """A roll-again decision that the rules did not make (the reader failed on the frame)."""
        return [] if self.session.done else self._roll_again(reason)

    def _roll_again(self, reason: str, die: str | None = None) -> list[dict]:
        from reader.rules import RollAgain

        if self.procedure == "first-player":
            event = RollAgain(die="d6", reason=reason, player=self.session.turn)
        else:
            event = RollAgain(die=die or self.session.die or "die", reason=reason)
        return [event.to_json()]

    def decide(self, readings: Sequence[DieReading]) -> list[dict]:
        if self.session.done:
            return []
        try:
            if self.procedure == "banish":
                return self._banish(readings)
            return self._first_player(readings)
        except DiceReaderError as exc:  # a die the rules refuse: roll again, with the reason
            return self._roll_again(str(exc))

    def _banish(self, readings: Sequence[DieReading]) -> list[dict]:
        if self.session.procedure == "shuffle":
            return self._roll_again("more than 10 cards: no dice; shuffle and let the opponent pick")
        if not readings:
            return self._roll_again("no die seen in the tray")
        if len(readings) > 1:
            return self._roll_again(f"{len(readings)} dice in the tray; roll one die per card")
        r = readings[0]
        events = self.session.feed(r)
        if r.value is not None:
            self.fed.append([r.die, r.value])
        return [e.to_json() for e in events]

    def _first_player(self, readings: Sequence[DieReading]) -> list[dict]:
        d6 = [r for r in readings if r.die == "d6"]
        if len(d6) != len(readings):
            others = sorted({r.die.upper() for r in readings if r.die != "d6"})
            return self._roll_again(f"{', '.join(others)} in the tray: the first player is decided "
                                    "with two D6 only")
        if len(d6) != 2:
            return self._roll_again(f"{self.session.turn} must roll two D6; {len(d6)} seen")
        events = self.session.feed_pair(d6[0], d6[1])
        if all(r.value is not None for r in d6):
            self.fed.append([[r.die, r.value] for r in d6])
        return [e.to_json() for e in events]
