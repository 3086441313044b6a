"""Who goes first, by the Grand Archive rules: each player rolls 2 D6, the higher total goes first,
a tie is rolled again (as often as needed).

    s = FirstPlayerSession(("Ana", "Ben"))       # default names "Player 1", "Player 2"
    s.feed_pair(3, 4)        # Ana's roll -> [Rolled("Ana", (3, 4), 7)]
    s.feed("d6", 5)          # Ben's first die (the camera may see the dice one by one) -> []
    s.feed(reading)          # Ben's second die, a DieReading -> [Rolled(...), FirstPlayer(...)]
    s.done, s.first, s.turn, s.next, s.to_json()

Readings alternate between the players: two D6 for the first player, then two for the second;
after a tie the next round starts again with the first player. Only D6 are taken (anything else
is refused with a message). A cocked or unreadable die is a `RollAgain` event: with `feed` only
that die is rolled again; with `feed_pair` the whole pair is (the pair was one roll).
Refusals raise a `DiceReaderError` and leave the session unchanged.
"""

from __future__ import annotations

from typing import Sequence

from reader.dice import check_value
from reader.rules.dice import normalize_die
from reader.rules.errors import DieNotAllowed, RuleError, SessionOver
from reader.rules.events import Event, FirstPlayer, RollAgain, Rolled, Tie
from reader.rules.readings import as_roll

DEFAULT_PLAYERS = ("Player 1", "Player 2")


def parse_players(players: Sequence[str] | str | None) -> tuple[str, str]:
    """Two distinct, non-empty player names from a list or "A,B"; None gives the defaults."""
    if players is None:
        return DEFAULT_PLAYERS
    if isinstance(players, str):
        players = players.split(",")
    names = tuple(str(p).strip() for p in players)
    if len(names) != 2:
        raise RuleError(f"first player is decided between 2 players, not {len(names)}: "
                        "give two names, e.g. \"Ana,Ben\"")
    if not all(names):
        raise RuleError("a player has no name")
    if names[0] == names[1]:
        raise RuleError(f"both players are called {names[0]!r}; give two different names")
    return names  # type: ignore[return-value]


class FirstPlayerSession:
    """Decide the first player from D6 readings; see the module doc."""

    def __init__(self, players: Sequence[str] | str | None = None) -> None:
        self._players = parse_players(players)
        self._round = 1
        self._turn = 0                        # index of the player whose dice come next
        self._dice: list[int] = []            # values of the current player's dice so far
        self._totals: list[int] = []          # totals of this round, in player order
        self._first: str | None = None
        self._events: list[Event] = []

    @property
    def players(self) -> tuple[str, str]:
        return self._players

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(self._events)

    @property
    def done(self) -> bool:
        return self._first is not None

    @property
    def first(self) -> str | None:
        """The player who goes first, once decided."""
        return self._first

    @property
    def round(self) -> int:
        """1 for the first roll-off, 2 after one tie, ..."""
        return self._round

    @property
    def turn(self) -> str | None:
        """The player whose dice are expected next (None when done)."""
        return None if self.done else self._players[self._turn]

    @property
    def pending(self) -> tuple[int, ...]:
        """Values of the current player's dice read so far (0 or 1 of them)."""
        return tuple(self._dice)

    @property
    def next(self) -> dict | None:
        """{"player", "die": "d6", "dice": how many still to read, "have": [values], "round"}."""
        if self.done:
            return None
        return {"player": self.turn, "die": "d6", "dice": 2 - len(self._dice),
                "have": list(self._dice), "round": self._round}

    def to_json(self) -> dict:
        return {"procedure": "first-player", "players": list(self._players),
                "first": self._first, "events": [e.to_json() for e in self._events],
                "done": self.done, "next": self.next}

    def feed(self, reading, value=None) -> list[Event]:
        """One D6 (DieReading, or "d6" and a value/outcome); returns the events it caused."""
        die, val, reason = self._check(reading, value)
        if reason is not None:
            return self._emit(RollAgain(die=die, reason=reason, player=self.turn))
        self._dice.append(val)
        return self._after_die()

    def feed_pair(self, first, second) -> list[Event]:
        """The current player's two D6 at once: each a DieReading, a value, or ("d6", value)."""
        if self._dice:
            raise RuleError(f"{self.turn} has one die read already ({self._dice[0]}); "
                            "feed the second die alone")
        rolls = [self._check(*self._pair_item(item)) for item in (first, second)]
        bad = [reason for _, _, reason in rolls if reason is not None]
        if bad:
            return self._emit(RollAgain(die="d6", reason=bad[0], player=self.turn))
        self._dice = [rolls[0][1]]
        self._dice.append(rolls[1][1])
        return self._after_die()

    # --- inside ---------------------------------------------------------------------------

    @staticmethod
    def _pair_item(item) -> tuple:
        if isinstance(item, tuple):
            return item
        if isinstance(item, int) and not isinstance(item, bool):
            return ("d6", item)
        return (item, None)

    def _check(self, reading, value) -> tuple[str, int | None, str | None]:
        die, val, reason = as_roll(reading, value)
        die = normalize_die(die)
        if die != "d6":
            raise DieNotAllowed(f"the first player is decided with two D6, not a {die.upper()}")
        if self.done:
            raise SessionOver(f"{self._first} goes first already; no more rolls are taken")
        if reason is None:
            check_value(die, val)
        return die, val, reason

    def _emit(self, *events: Event) -> list[Event]:
        self._events.extend(events)
        return list(events)

    def _after_die(self) -> list[Event]:
        if len(self._dice) < 2:
            return []
        player = self._players[self._turn]
        dice = (self._dice[0], self._dice[1])
        out = self._emit(Rolled(player=player, dice=dice, total=sum(dice)))
        self._dice = []
        self._totals.append(sum(dice))
        self._turn = 1 - self._turn
        if len(self._totals) < 2:
            return out
        a, b = self._totals
        self._totals = []
        if a == b:
            out += self._emit(Tie(total=a, round=self._round))
            self._round += 1
            self._turn = 0
            return out
        self._first = self._players[0] if a > b else self._players[1]
        totals = ((self._players[0], a), (self._players[1], b))
        out += self._emit(FirstPlayer(player=self._first, totals=totals, round=self._round))
        self._turn = 0
        return out
