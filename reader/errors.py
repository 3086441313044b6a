"""Errors a user can act on: the command line prints their message on one line, no traceback."""


class DiceReaderError(Exception):
    """Something the user asked for cannot be done; the message says what and why."""


class InvalidReading(DiceReaderError):
    """A die reading that no die of that kind can show (a 9 on a D8, an unknown die)."""
