"""One input to a rules session, from whatever form the caller has it in.

Sessions take `feed(reading)` with a `reader.reading.DieReading` (the camera), or
`feed(die, value)` with a die name and an int (typed rolls, tests), or `feed(die, outcome)` with
an outcome object (`Face`, `Cocked`, `Unreadable`). This module reduces each to (die, value or
None, reason): a value only for a `Face`; otherwise the reason the roll is made again.
"""

from __future__ import annotations

from reader.errors import InvalidReading
from reader.reading import Cocked, DieReading, Face, Unreadable


def as_roll(reading, value=None) -> tuple[str, int | None, str | None]:
    """(die, value, None) for a face; (die, None, reason) for a cocked or unreadable die."""
    if isinstance(reading, DieReading):
        if value is not None:
            raise InvalidReading("give either a DieReading or a die and a value, not both")
        die, outcome = reading.die, reading.outcome
    elif isinstance(reading, str):
        die, outcome = reading, value
    else:
        raise InvalidReading(f"not a die reading: {reading!r}")
    if isinstance(outcome, Face):
        return die, outcome.value, None
    if isinstance(outcome, Cocked):
        return die, None, "cocked"
    if isinstance(outcome, Unreadable):
        return die, None, f"unreadable: {outcome.reason}" if outcome.reason else "unreadable"
    if outcome is None:
        raise InvalidReading(f"a reading of a {die.upper()} needs a value")
    return die, outcome, None
