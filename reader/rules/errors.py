"""Why the rules refuse something: each a DiceReaderError, so the command line prints one line.

A refusal never changes a session: the reading (or pick, or die switch) is rejected and the
session waits for the same roll as before. The camera loop and the judge view catch
`DiceReaderError` and show the message ("a D4 is not used by the rules; ...").
"""

from __future__ import annotations

from reader.errors import DiceReaderError


class RuleError(DiceReaderError):
    """Something the Grand Archive random-selection rules do not allow."""


class DieNotAllowed(RuleError):
    """A die the rules do not use (a D4), or one with fewer faces than there are cards."""


class SessionOver(RuleError):
    """The session has decided already: no more readings are taken."""


class WrongProcedure(RuleError):
    """A roll where the rules say shuffle and pick (more than 10 cards), or the other way round."""
