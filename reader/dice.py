"""The physical dice the reader knows, and the values each can show.

The recognizer names every die it sees, a D4 included (a D4 dropped in the tray by mistake must be
called a D4, never read as something else); the rules decide which dice they accept.
"""

from __future__ import annotations

from reader.errors import InvalidReading

# name -> number of faces. A D10's "0" face is the value 10.
FACES: dict[str, int] = {"d4": 4, "d6": 6, "d8": 8, "d10": 10, "d12": 12, "d20": 20}
DIE_NAMES: tuple[str, ...] = tuple(FACES)


def faces(die: str) -> int:
    """Number of faces of `die` ("d8" -> 8); an unknown name is an InvalidReading."""
    try:
        return FACES[die.lower()]
    except KeyError:
        raise InvalidReading(f"unknown die {die!r}; known dice: {', '.join(DIE_NAMES)}") from None


def check_value(die: str, value: int) -> int:
    """Return `value` if `die` can show it (1..faces), else raise InvalidReading."""
    n = faces(die)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= n:
        raise InvalidReading(f"a {die.upper()} cannot show {value!r}; its values are 1..{n}")
    return value
