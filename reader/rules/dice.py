"""The dice the rules use, and which of them may select among n cards.

`reader.dice` knows every die the recognizer can name, a D4 included; the Grand Archive rules use
only a D6, D8, D10, D12 or D20, and for n cards only a die with at least n faces. More than 10 cards
are never selected with dice (shuffle, opponent picks), so `allowed_dice(11)` is empty.
"""

from __future__ import annotations

from reader.dice import FACES, faces
from reader.rules.errors import DieNotAllowed

RULES_DICE: tuple[str, ...] = ("d6", "d8", "d10", "d12", "d20")
MAX_DICE_CARDS = 10  # more cards than this: shuffle and let the opponent pick


def _names(dice) -> str:
    names = [d.upper() for d in dice]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def allowed_dice(n: int) -> tuple[str, ...]:
    """Dice that may select among `n` cards, smallest first (empty when n > 10)."""
    if n > MAX_DICE_CARDS:
        return ()
    return tuple(d for d in RULES_DICE if FACES[d] >= n)


def smallest_die(n: int) -> str | None:
    """The die the rules recommend for `n` cards: the smallest allowed (None when n > 10)."""
    dice = allowed_dice(n)
    return dice[0] if dice else None


def normalize_die(die: str) -> str:
    """'D8' or 'd8' -> 'd8'; a name no die has is an InvalidReading (from reader.dice)."""
    if not isinstance(die, str):
        raise DieNotAllowed(f"a die is named like d8, not {die!r}")
    name = die.strip().lower()
    faces(name)
    return name


def check_die(die: str, n: int) -> str:
    """Return the normalized name of `die` if the rules allow it for `n` cards, else refuse.

    The message names the dice that are allowed, so a player holding the wrong die knows which
    one to pick up.
    """
    name = normalize_die(die)
    allowed = allowed_dice(n)
    if name not in RULES_DICE:
        raise DieNotAllowed(
            f"a {name.upper()} is not used by the rules; roll a {_names(allowed or RULES_DICE)}"
            + (f" for {n} cards" if allowed else "")
        )
    if not allowed:
        raise DieNotAllowed(
            f"{n} cards are more than {MAX_DICE_CARDS}: no dice; shuffle and let the opponent pick"
        )
    if name not in allowed:
        raise DieNotAllowed(
            f"a {name.upper()} has {FACES[name]} faces, too few for {n} cards; "
            f"roll a {_names(allowed)}"
        )
    return name
