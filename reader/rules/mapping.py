"""Which die values name which card: the value table the players (and the overlay) see.

Two mappings, both fair because every card gets the same number of values and every other value
is rolled again:

- `blocks` (default): each of the n cards gets floor(F/n) consecutive values, the F mod n highest
  values are rolled again. This is what the tournament rules describe: 7 cards with a D8 give
  1..7 one card each and 8 rolled again; 5 cards with a D20 give 1-4, 5-8, 9-12, 13-16, 17-20.
- `single`: card i is value i only, every value above n is rolled again (more re-rolls, but the
  number on the die *is* the card number, which some players prefer).

Positions are 1-based and count the cards as they lie now (after earlier banishes the remaining
cards are numbered again 1..n). The table is pure data: `ValueTable(die, n, mapping)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from reader.dice import FACES, check_value
from reader.rules.dice import check_die
from reader.rules.errors import RuleError

MAPPINGS: tuple[str, ...] = ("blocks", "single")


def check_mapping(mapping: str) -> str:
    """Return `mapping` if known ('blocks' or 'single'), else refuse naming the known ones."""
    if mapping not in MAPPINGS:
        raise RuleError(f"unknown mapping {mapping!r}; use one of: {', '.join(MAPPINGS)}")
    return mapping


def _span(values: Sequence[int]) -> str:
    """(1, 2, 3, 4) -> '1-4'; (7,) -> '7'; () -> ''."""
    if not values:
        return ""
    return str(values[0]) if len(values) == 1 else f"{values[0]}-{values[-1]}"


@dataclass(frozen=True)
class ValueTable:
    """The values of `die` that name each of `n` cards under `mapping`; the rest are rolled again.

    Construction refuses a die the rules do not allow for n cards (a D4, a D6 for 7 cards), so a
    table that exists is one the rules accept.
    """

    die: str
    n: int
    mapping: str = "blocks"

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            raise RuleError(f"a value table needs at least one card, not {self.n!r}")
        object.__setattr__(self, "die", check_die(self.die, self.n))
        check_mapping(self.mapping)

    @property
    def faces(self) -> int:
        return FACES[self.die]

    @property
    def per_card(self) -> int:
        """How many values name each card (floor(F/n) for blocks, 1 for single)."""
        return self.faces // self.n if self.mapping == "blocks" else 1

    def position(self, value: int) -> int | None:
        """The card position (1..n) that `value` names, or None when it is rolled again.

        A value the die cannot show is an InvalidReading, never a decision.
        """
        check_value(self.die, value)
        if value > self.n * self.per_card:
            return None
        return (value - 1) // self.per_card + 1

    def values(self, position: int) -> tuple[int, ...]:
        """The values that name card `position` (1..n)."""
        if isinstance(position, bool) or not isinstance(position, int) or not 1 <= position <= self.n:
            raise RuleError(f"no card at position {position!r}; positions are 1..{self.n}")
        m = self.per_card
        return tuple(range((position - 1) * m + 1, position * m + 1))

    @property
    def rerolled(self) -> tuple[int, ...]:
        """Values that name no card: they are rolled again."""
        return tuple(range(self.n * self.per_card + 1, self.faces + 1))

    def rows(self, names: Sequence[str] | None = None) -> list[dict]:
        """One row per card: position, card name (when given), its values and a label like '1-4'."""
        if names is not None and len(names) != self.n:
            raise RuleError(f"{len(names)} card names for a table of {self.n} cards")
        rows = []
        for pos in range(1, self.n + 1):
            vals = self.values(pos)
            row = {"position": pos, "values": list(vals), "label": _span(vals)}
            if names is not None:
                row["card"] = names[pos - 1]
            rows.append(row)
        return rows

    def to_json(self, names: Sequence[str] | None = None) -> dict:
        """{"die", "faces", "mapping", "cards": rows, "reroll": [values rolled again]}."""
        return {
            "die": self.die,
            "faces": self.faces,
            "mapping": self.mapping,
            "cards": self.rows(names),
            "reroll": list(self.rerolled),
        }

    def describe(self, names: Sequence[str] | None = None) -> str:
        """One line for a prompt or overlay: 'D8: 1 A | 2 B | ... | 8 roll again'."""
        parts = [
            f"{row['label']} {row.get('card', '#' + str(row['position']))}" for row in self.rows(names)
        ]
        if self.rerolled:
            parts.append(f"{_span(self.rerolled)} roll again")
        return f"{self.die.upper()}: " + " | ".join(parts)
