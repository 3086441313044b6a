"""Banish cards from memory at random, by the Grand Archive rules, one reading at a time.

    s = BanishSession(["A", "B", "C", "D", "E", "F", "G"], count=2)   # die: smallest allowed
    s.table.describe(s.remaining)   # 'D8: 1 A | 2 B | ... | 7 G | 8 roll again'
    s.feed("d8", 8)                 # [Reroll(die='d8', value=8)]
    s.feed("d8", 3)                 # [Banished(position=3, card='C', die='d8', value=3)]
    s.table.describe(s.remaining)   # 'D6: 1 A | 2 B | 3 D | ...'  (cards numbered again)
    s.feed(reading)                 # a reader.reading.DieReading from the camera
    s.done, s.banished, s.remaining, s.next, s.to_json()

The rules, made exact:
- Cards are given in order; a card is its position, not its name (two copies are two cards).
- n <= 10 cards: roll any die with at least n faces (D6, D8, D10, D12, D20); the smallest is
  recommended. The value table (`reader.rules.mapping`) gives each card the same number of
  values; the rest are rolled again, so every card is equally likely.
- After each banish the remaining cards are numbered again 1..n-1 in their order. The die may be
  switched between rolls to any die still allowed: feed a reading of the other die, or call
  `use_die()` first so the table on screen is the right one.
- One card left (and still one to banish): it is banished without a roll.
- n > 10: no dice. The session says shuffle and let the opponent pick (`next["procedure"] ==
  "shuffle"`) and records the picked position with `pick(position)`. Once 10 or fewer cards are
  left, banishing goes on with dice.
- A cocked or unreadable die is a `RollAgain` event: nothing changes, the roll is made again.
- Refusals (a D4, a die too small, a value the die cannot show, a reading after the session is
  done, a roll where a pick is due) raise a `DiceReaderError` and leave the session unchanged.

Die choice: `die=None` follows the recommended (smallest allowed) die as cards are banished; a
named die, or a reading of another allowed die, pins that die until switched again.
"""

from __future__ import annotations

from typing import Sequence

from reader.rules.dice import MAX_DICE_CARDS, allowed_dice, check_die, smallest_die
from reader.rules.errors import RuleError, SessionOver, WrongProcedure
from reader.rules.events import Banished, Done, Event, Reroll, RollAgain
from reader.rules.mapping import ValueTable, check_mapping
from reader.rules.readings import as_roll


def parse_cards(cards: Sequence[str] | str) -> tuple[str, ...]:
    """Card names in order from a list or a comma-separated string; empty names are refused."""
    if isinstance(cards, str):
        cards = cards.split(",")
    names = tuple(str(c).strip() for c in cards)
    if not names or names == ("",):
        raise RuleError("no cards: give the cards in memory, in order, e.g. \"A,B,C\"")
    for i, name in enumerate(names, 1):
        if not name:
            raise RuleError(f"card {i} has no name (two commas in a row?)")
    return names


class BanishSession:
    """Banish `count` of `cards` at random; consumes readings, emits events (see module doc)."""

    def __init__(self, cards: Sequence[str] | str, count: int = 1, die: str | None = None,
                 mapping: str = "blocks") -> None:
        self._cards = parse_cards(cards)
        n = len(self._cards)
        if isinstance(count, bool) or not isinstance(count, int):
            raise RuleError(f"the count of cards to banish is a whole number, not {count!r}")
        if not 1 <= count <= n:
            raise RuleError(f"cannot banish {count} of {n} card{'s' if n != 1 else ''}; "
                            f"the count is 1..{n}")
        self._count = count
        self._mapping = check_mapping(mapping)
        self._pinned: str | None = None
        if die is not None:
            # with more than 10 cards the die is first rolled once 10 are left; if that never
            # happens (too few banishes), check_die(die, n) says there are no dice
            rolls_at = n if n - count + 1 > MAX_DICE_CARDS else min(n, MAX_DICE_CARDS)
            self._pinned = check_die(die, rolls_at)
        self._remaining: list[int] = list(range(n))  # indices into self._cards, in order
        self._banished: list[Banished] = []
        self._events: list[Event] = []
        self._settle()

    # --- what the players see -------------------------------------------------------------

    @property
    def cards(self) -> tuple[str, ...]:
        """All cards as given at the start, in order."""
        return self._cards

    @property
    def count(self) -> int:
        return self._count

    @property
    def mapping(self) -> str:
        return self._mapping

    @property
    def remaining(self) -> tuple[str, ...]:
        """Names of the cards still in memory, in order: position i is remaining[i - 1]."""
        return tuple(self._cards[i] for i in self._remaining)

    @property
    def remaining_original_positions(self) -> tuple[int, ...]:
        """Start-of-session positions (1-based) of the remaining cards, in order."""
        return tuple(i + 1 for i in self._remaining)

    @property
    def banished(self) -> tuple[Banished, ...]:
        return tuple(self._banished)

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event so far, in order (the last is Done once done)."""
        return tuple(self._events)

    @property
    def done(self) -> bool:
        return len(self._banished) == self._count

    @property
    def procedure(self) -> str:
        """"roll" (dice), "shuffle" (more than 10 cards: opponent picks) or "done"."""
        if self.done:
            return "done"
        return "shuffle" if len(self._remaining) > MAX_DICE_CARDS else "roll"

    @property
    def allowed_dice(self) -> tuple[str, ...]:
        """Dice allowed for the next roll (empty when done or when the opponent picks)."""
        return allowed_dice(len(self._remaining)) if self.procedure == "roll" else ()

    @property
    def recommended_die(self) -> str | None:
        return smallest_die(len(self._remaining)) if self.procedure == "roll" else None

    @property
    def die(self) -> str | None:
        """The die expected for the next roll: the pinned one, else the recommended one."""
        if self.procedure != "roll":
            return None
        return self._pinned or self.recommended_die

    @property
    def table(self) -> ValueTable | None:
        """The value table for the next roll (None when no roll is due)."""
        die = self.die
        return ValueTable(die, len(self._remaining), self._mapping) if die else None

    @property
    def next(self) -> dict | None:
        """What happens next, for a prompt or overlay; None when done.

        {"procedure": "roll", "die", "allowed", "recommended", "table": ValueTable.to_json(names)}
        or {"procedure": "shuffle", "cards": n, "message": ...}.
        """
        proc = self.procedure
        if proc == "done":
            return None
        if proc == "shuffle":
            n = len(self._remaining)
            return {"procedure": "shuffle", "cards": n,
                    "message": f"{n} cards are more than {MAX_DICE_CARDS}: no dice; shuffle them "
                               f"face down and let the opponent pick one (position 1..{n})"}
        return {"procedure": "roll", "die": self.die, "allowed": list(self.allowed_dice),
                "recommended": self.recommended_die,
                "table": self.table.to_json(self.remaining)}

    def to_json(self) -> dict:
        """The whole session: setup, events, result so far and what comes next."""
        return {
            "procedure": "banish",
            "cards": list(self._cards),
            "count": self._count,
            "mapping": self._mapping,
            "banished": [b.brief() for b in self._banished],
            "banished_original_positions": [b.original_position for b in self._banished],
            "remaining": list(self.remaining),
            "events": [e.to_json() for e in self._events],
            "done": self.done,
            "next": self.next,
        }

    # --- what the players do ------------------------------------------------------------

    def use_die(self, die: str | None) -> ValueTable | None:
        """Switch to `die` for the next rolls (None: follow the recommended die); returns the table.

        Refuses a die too small for the cards left, naming the allowed ones.
        """
        self._require("roll")
        self._pinned = None if die is None else check_die(die, len(self._remaining))
        return self.table

    def feed(self, reading, value=None) -> list[Event]:
        """Take one roll: a DieReading, or a die name and a value (or outcome); returns its events.

        A Face value gives Reroll or Banished (plus Done, and the only-card banish when one card
        is left); a cocked or unreadable die gives RollAgain. Anything the rules refuse raises.
        """
        die, val, reason = as_roll(reading, value)
        self._require("roll")
        n = len(self._remaining)
        die = check_die(die, n)
        if reason is not None:
            return self._emit(RollAgain(die=die, reason=reason))
        table = ValueTable(die, n, self._mapping)
        position = table.position(val)  # an impossible value raises here, before any change
        if die != self.die:
            self._pinned = die  # the players switched dice
        if position is None:
            return self._emit(Reroll(die=die, value=val))
        return self._banish(position, die=die, value=val, by="roll")

    def pick(self, position: int) -> list[Event]:
        """More than 10 cards: record the position (1..n) the opponent picked after the shuffle."""
        self._require("shuffle")
        n = len(self._remaining)
        if isinstance(position, bool) or not isinstance(position, int) or not 1 <= position <= n:
            raise RuleError(f"no card at position {position!r}; positions are 1..{n}")
        return self._banish(position, die=None, value=None, by="pick")

    def copy(self) -> "BanishSession":
        """An independent copy (for what-if views and exact enumeration)."""
        other = object.__new__(BanishSession)
        other.__dict__.update(self.__dict__)
        other._remaining = list(self._remaining)
        other._banished = list(self._banished)
        other._events = list(self._events)
        return other

    # --- inside ---------------------------------------------------------------------------

    def _require(self, procedure: str) -> None:
        current = self.procedure
        if current == procedure:
            return
        if current == "done":
            raise SessionOver(f"the banish is done ({len(self._banished)} of {self._count} "
                              "banished); no more rolls are taken")
        if current == "shuffle":
            raise WrongProcedure(self.next["message"])
        raise WrongProcedure(f"{len(self._remaining)} cards: banish with a die roll, not a pick; "
                             f"roll a {' / '.join(d.upper() for d in self.allowed_dice)}")

    def _emit(self, *events: Event) -> list[Event]:
        self._events.extend(events)
        return list(events)

    def _banish(self, position: int, die, value, by: str) -> list[Event]:
        index = self._remaining.pop(position - 1)
        event = Banished(position=position, card=self._cards[index], die=die, value=value, by=by,
                         original_position=index + 1)
        self._banished.append(event)
        return self._emit(event) + self._settle()

    def _settle(self) -> list[Event]:
        """After setup or a banish: banish a lone card without a roll; say Done when done."""
        out: list[Event] = []
        if not self.done and len(self._remaining) == 1:
            index = self._remaining.pop()
            event = Banished(position=1, card=self._cards[index], by="only-card",
                             original_position=index + 1)
            self._banished.append(event)
            out += self._emit(event)
        if self.done:
            out += self._emit(Done(banished=tuple(self._banished), remaining=self.remaining))
        return out

