"""The judge's corrections, applied to the rules: an override decides the roll again, a roll
called again is taken back.

The live loop owns a rules decider (`reader.decide.RulesDecider`) and feeds it each roll's
readings. `JudgedRules` wraps it so that the judge can correct the most recent roll:

- an override of one die of that roll rebuilds the session as it stood before the roll (the
  decider can be rebuilt from its options and the values fed before) and feeds the corrected
  dice: the decision the players see is the one the judge's reading gives;
- "call this roll again" takes the roll back: the session is rebuilt as it stood before it, so a
  card it banished is back in memory and the value table is the one before.

Only the latest roll can be corrected this way: once another roll was decided on top of it, the
rules have moved on, and the override is logged without changing any decision (the judge is told).
Thread-safe: the loop decides on its thread while the judge acts on the server's.
"""

from __future__ import annotations

import copy
import threading

from reader.reading import DieReading


class JudgedRules:
    def __init__(self, inner) -> None:
        self.inner = inner
        self._lock = threading.RLock()
        self._last: dict | None = None  # {"roll", "fed_before", "dice"} of the latest decided roll

    def __getattr__(self, name):  # done, session, prompt(), rules_json(), procedure, fed...
        return getattr(self.inner, name)

    # -- the loop's side ---------------------------------------------------------------------------

    def decide(self, readings) -> list[dict]:
        with self._lock:
            before = copy.deepcopy(getattr(self.inner, "fed", []))
            decisions = self.inner.decide(readings)
            self._last = {"roll": None, "fed_before": before,
                          "dice": [r.to_json() for r in readings]}
            return decisions

    def note_event(self, event: dict) -> None:
        """The loop's events name the roll the last decision belongs to (its "reading")."""
        if event.get("type") == "reading" and not event.get("judge"):
            with self._lock:
                if self._last is not None and self._last["roll"] is None:
                    self._last["roll"] = event.get("roll")

    def rules_json(self):
        with self._lock:
            return self.inner.rules_json()

    # -- the judge's side --------------------------------------------------------------------------

    def latest_roll(self) -> str | None:
        with self._lock:
            return self._last["roll"] if self._last else None

    def override(self, roll: str, die: int, value: int | None, state: str = "flat"):
        """Decide `roll` again with die `die` corrected; (dice, decisions), or None if not the latest."""
        with self._lock:
            last = self._last
            if last is None or last["roll"] != roll or not hasattr(self.inner, "procedure"):
                return None
            dice = copy.deepcopy(last["dice"])
            if not 0 <= die < len(dice):
                return None
            dice[die].update(value=value if state == "flat" else None, state=state, confidence=1.0)
            dice[die].pop("reason", None)
            if state == "unreadable":
                dice[die]["reason"] = "judge"
            readings = [DieReading.from_json(d) for d in dice]
            fresh = type(self.inner)(self.inner.procedure, self.inner.options, last["fed_before"])
            decisions = fresh.decide(readings)
            self.inner = fresh
            last["dice"] = dice
            return dice, decisions

    def take_back(self, roll: str | None) -> bool:
        """Undo the latest roll's effect on the rules (the judge called it again)."""
        with self._lock:
            last = self._last
            if last is None or (roll is not None and last["roll"] != roll) \
                    or not hasattr(self.inner, "procedure"):
                return False
            self.inner = type(self.inner)(self.inner.procedure, self.inner.options, last["fed_before"])
            self._last = None
            return True
