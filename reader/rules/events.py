"""What a rules session decided, one event per step, each a small frozen dataclass.

Every event has `result` (a short string) and `to_json()` -> dict with a "result" key; the dicts
are what `dice-reader banish --json` prints, what a recording stores as a "decision" event and what
the overlay shows. `from_json()` turns such a dict back into the event (replay, appeals).

    result        event            meaning
    "reroll"      Reroll           the value names no card: roll the same procedure again
    "roll-again"  RollAgain        no value could be read (cocked, unreadable): roll that again
    "banish"      Banished         a card is banished (by a roll, by the opponent's pick, or as
                                   the only card left)
    "done"        Done             the session has banished all it was asked to
    "rolled"      Rolled           one player's two D6 are read (first player)
    "tie"         Tie              both players have the same total: both roll again
    "first"       FirstPlayer      the player who goes first

Positions are 1-based and count the cards as they lay when the event happened (the numbering the
players saw); `Banished.original_position` is the position in the list the session started with,
for logs that must name the physical card when two copies share a name (kept out of `to_json()`,
whose shape the command line documents; `BanishSession.to_json()` lists them as
"banished_original_positions").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union


@dataclass(frozen=True)
class Reroll:
    """`value` on `die` names no card (e.g. 8 on a D8 with 7 cards): roll again."""

    die: str
    value: int
    result = "reroll"

    def to_json(self) -> dict:
        return {"die": self.die, "value": self.value, "result": self.result}


@dataclass(frozen=True)
class RollAgain:
    """The die shows no readable face (`reason`: "cocked", "unreadable: glare"...): roll it again.

    `player` is set in a first-player session (whose roll it was), None for a banish.
    """

    die: str
    reason: str
    player: str | None = None
    result = "roll-again"

    def to_json(self) -> dict:
        out = {"die": self.die, "value": None, "result": self.result, "reason": self.reason}
        if self.player is not None:
            out["player"] = self.player
        return out


@dataclass(frozen=True)
class Banished:
    """Card `card` at `position` (numbering at that moment) is banished.

    `by` is "roll" (with `die` and `value`), "pick" (more than 10 cards: the opponent picked it)
    or "only-card" (one card left: no roll is needed).
    """

    position: int
    card: str
    die: str | None = None
    value: int | None = None
    by: str = "roll"
    original_position: int | None = field(default=None, compare=False)
    result = "banish"

    def to_json(self) -> dict:
        out = {
            "die": self.die,
            "value": self.value,
            "result": self.result,
            "position": self.position,
            "card": self.card,
        }
        if self.by != "roll":
            out["by"] = self.by
        return out

    def brief(self) -> dict:
        """{"position", "card"}: the entry in a "banished" list."""
        return {"position": self.position, "card": self.card}


@dataclass(frozen=True)
class Done:
    """All `count` cards are banished: `banished` in order, `remaining` cards in their order."""

    banished: tuple[Banished, ...]
    remaining: tuple[str, ...]
    result = "done"

    def to_json(self) -> dict:
        return {
            "result": self.result,
            "banished": [b.brief() for b in self.banished],
            "remaining": list(self.remaining),
        }


@dataclass(frozen=True)
class Rolled:
    """`player` rolled two D6 showing `dice`, total `total`."""

    player: str
    dice: tuple[int, int]
    total: int
    result = "rolled"

    def to_json(self) -> dict:
        return {"result": self.result, "player": self.player, "dice": list(self.dice),
                "total": self.total}


@dataclass(frozen=True)
class Tie:
    """Both players rolled `total`: both roll again (round `round` was a tie)."""

    total: int
    round: int
    result = "tie"

    def to_json(self) -> dict:
        return {"result": self.result, "total": self.total, "round": self.round}


@dataclass(frozen=True)
class FirstPlayer:
    """`player` goes first; `totals` is ((name, total), (name, total)) of the deciding round."""

    player: str
    totals: tuple[tuple[str, int], tuple[str, int]]
    round: int
    result = "first"

    def to_json(self) -> dict:
        return {"result": self.result, "player": self.player,
                "totals": {name: total for name, total in self.totals}, "round": self.round}


Event = Union[Reroll, RollAgain, Banished, Done, Rolled, Tie, FirstPlayer]


def _banished(d: dict) -> Banished:
    return Banished(position=int(d["position"]), card=str(d["card"]), die=d.get("die"),
                    value=d.get("value"), by=d.get("by", "roll"))


_PARSERS = {
    "reroll": lambda d: Reroll(die=d["die"], value=int(d["value"])),
    "roll-again": lambda d: RollAgain(die=d["die"], reason=d.get("reason", "unreadable"),
                                      player=d.get("player")),
    "banish": _banished,
    "done": lambda d: Done(banished=tuple(_banished(b) for b in d["banished"]),
                           remaining=tuple(d["remaining"])),
    "rolled": lambda d: Rolled(player=d["player"], dice=tuple(int(v) for v in d["dice"]),
                               total=int(d["total"])),
    "tie": lambda d: Tie(total=int(d["total"]), round=int(d.get("round", 1))),
    "first": lambda d: FirstPlayer(player=d["player"],
                                   totals=tuple((k, int(v)) for k, v in d["totals"].items()),
                                   round=int(d.get("round", 1))),
}


def from_json(d: dict) -> Event:
    """The event a `to_json()` dict describes; an unknown or malformed one is a ValueError."""
    result = d.get("result") if isinstance(d, dict) else None
    parser = _PARSERS.get(result)
    if parser is None:
        raise ValueError(f"unknown rules event {result!r}; known: {', '.join(_PARSERS)}")
    try:
        return parser(d)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"malformed {result!r} event {d!r}: {exc}") from None
