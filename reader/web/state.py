"""What the overlay and the judge show, folded from the live loop's events. Pure: no I/O.

The web pages never interpret raw loop events themselves: `TableState.apply(event)` keeps a small
view (the last roll with its dice, the decision in words, the match state with the value table,
device status, recent history) and `snapshot()` is what is pushed to every page. A page that
connects late, or reconnects after a restart, gets the whole picture at once.

Events consumed (shared contract, recording.md): roll_started, reading, decision, roll_saved,
camera_lost/back, tower_lost/back, note; plus those the web app itself adds: "match" (the rules
session's `to_json()`, published after each decision so the value table stays current),
"logged" (a roll's roll-log entry number), "override" (a judge's correction) and "judge_reroll".
Unknown types are ignored (forward compatible).
"""

from __future__ import annotations

import copy
import time
from typing import Callable

from reader.errors import DiceReaderError
from reader.vision.viewing import CameraView

HISTORY = 12


def decision_text(d: dict | None) -> str:
    """One line a viewer understands, from a rules event dict (reader/rules/events.py)."""
    if not d:
        return ""
    result = d.get("result")
    if result == "banish":
        how = {"pick": " (opponent's pick)", "only-card": " (last card)"}.get(d.get("by", ""), "")
        return f"Banished: #{d.get('position')} {d.get('card')}{how}"
    if result == "reroll":
        return f"{d.get('value')} names no card: roll again"
    if result == "roll-again":
        who = f"{d['player']}: " if d.get("player") else ""
        return f"{who}{d.get('reason') or 'unreadable'}: roll again"
    if result == "done":
        names = ", ".join(f"#{b.get('position')} {b.get('card')}" for b in d.get("banished", []))
        return f"Banish complete: {names}" if names else "Banish complete"
    if result == "rolled":
        dice = " + ".join(str(v) for v in d.get("dice", []))
        return f"{d.get('player')}: {dice} = {d.get('total')}"
    if result == "tie":
        return f"Tie at {d.get('total')}: both roll again"
    if result == "first":
        totals = d.get("totals") or {}
        score = " vs ".join(str(v) for v in totals.values())
        return f"{d.get('player')} goes first" + (f" ({score})" if score else "")
    return str(result or "")


def first_player_scores(events: list[dict]) -> list[dict]:
    """The current (or deciding) round of a first-player session: who rolled what."""
    scores: list[dict] = []
    for ev in events:
        result = ev.get("result")
        if result == "rolled":
            if len(scores) == 2:
                scores = []
            scores.append({"player": ev.get("player"), "dice": ev.get("dice"), "total": ev.get("total")})
        elif result == "tie":
            scores = [dict(s, tie=True) for s in scores]
    return scores


# What the judge is told of a roll read without the lean look: on rendered rolls of 1-3 dice, 14 of 112
# cocked dice were given a value with no camera described, 9 described without the lean look, 1 with it
# (models/reader.md, "Session 74"; watch and serve say it at the start, reader.commands.view_args).
MAY_PASS_FOR_FLAT = "a die cocked against the wall or another die can pass for flat: look at the photo"


def set_up_text(camera: dict | None) -> str:
    """The camera set-up a roll was read with, in words (the reading event's `camera`: the view from the
    roll's manifest, and how it was guessed where it was). Why the judge sees it: a reading depends on
    it (a die seen steeply is refused, a guessed set-up decides which dice are taken for leaning), and
    a camera guessed wrong, or bumped, is what the judge would look for behind a strange reading."""
    camera = camera if isinstance(camera, dict) else {}
    view = camera.get("view")
    if view is None:
        return f"none described: read with no camera angle known ({MAY_PASS_FOR_FLAT})"
    try:
        described = CameraView.from_json(view)
    except DiceReaderError:
        return f"unrecognised set-up {view!r}"
    words = described.describe()
    guessed = camera.get("guessed")
    if not isinstance(guessed, dict):
        return f"described: {words}" + ("" if described.lean else f" (no lean look: {MAY_PASS_FOR_FLAT})")
    moved = (f"; the camera seemed to have moved, the {guessed['dropped']} dice of the earlier rolls dropped"
             if guessed.get("dropped") else "")
    return f"guessed from the {guessed.get('dice')} dice of the rolls so far: {words}{moved}"


def _die_view(d: dict) -> dict:
    return {
        "die": str(d.get("die", "?")),
        "value": d.get("value"),
        "state": d.get("state", "flat"),
        "confidence": d.get("confidence"),
        "box": d.get("box"),
        "reason": d.get("reason"),
    }


class TableState:
    """The view of one table, updated event by event. Not thread-safe: the Hub locks around it."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self.version = 0
        self.roll: dict | None = None  # the last roll with dice
        self.match: dict = {}
        self.status = {"camera": "ok", "tower": None}
        self.history: list[dict] = []  # recent decisions, newest last
        self.log_seq: dict[str, int] = {}  # roll name -> its roll-log entry
        self.judge: list[dict] = []  # recent judge actions, newest last
        self.last_event: dict | None = None

    # -- folding ----------------------------------------------------------------------------------

    def apply(self, event: dict) -> bool:
        """Fold one event in; True when the view changed (and must be pushed to the pages)."""
        handler = _HANDLERS.get(event.get("type"))
        if handler is None:
            return False
        handler(self, event)
        self.version += 1
        self.last_event = {"type": event.get("type"), "roll": event.get("roll"),
                           "at_ms": round(self._clock() * 1000, 1)}
        return True

    def _roll(self, name) -> dict:
        if self.roll is None or self.roll.get("name") != name:
            self.roll = {"name": name, "dice": [], "decisions": [], "decision_text": "",
                         "log_seq": self.log_seq.get(name), "overrides": [], "saved": None,
                         "frame": None, "reading_ms": None, "judge_reason": None, "set_up": None}
        return self.roll

    def _on_roll_started(self, e: dict) -> None:
        self._roll(e.get("roll"))

    def _on_reading(self, e: dict) -> None:
        r = self._roll(e.get("roll"))
        r["dice"] = [_die_view(d) for d in e.get("dice", []) if isinstance(d, dict)]
        # dice that were in the tray before the throw: shown to the judge, never counted
        r["unmoved"] = [_die_view(d) for d in e.get("unmoved", []) if isinstance(d, dict)]
        r["frame"] = e.get("frame")
        r["set_up"] = set_up_text(e.get("camera"))
        r["reading_ms"] = round(self._clock() * 1000, 1)
        r["decisions"], r["decision_text"], r["overrides"], r["judge_reason"] = [], "", [], None

    def _on_decision(self, e: dict) -> None:
        r = self._roll(e.get("roll"))
        d = {k: v for k, v in e.items() if k not in ("t", "type", "roll", "judge")}
        if e.get("judge") and r.get("rejudged"):  # the judge's reading replaces the decisions
            r["decisions"], r["rejudged"], r["decision_text"] = [], False, ""
        r["decisions"].append(d)
        text = decision_text(d)
        if d.get("result") != "done" or not r["decision_text"]:
            r["decision_text"] = text
        self.history.append({"roll": e.get("roll"), "text": text, "result": d.get("result")})
        del self.history[:-HISTORY]
        if d.get("result") == "first":
            self.match["first"] = d.get("player")

    def _on_roll_saved(self, e: dict) -> None:
        if self.roll is not None and self.roll.get("name") == e.get("roll"):
            self.roll["saved"] = e.get("path")

    def _on_match(self, e: dict) -> None:
        self.match = {k: v for k, v in e.items() if k not in ("t", "type", "events")}
        if e.get("procedure") == "first-player":
            self.match["scores"] = first_player_scores(e.get("events") or [])

    def _on_logged(self, e: dict) -> None:
        self.log_seq[e.get("roll")] = e.get("seq")
        if self.roll is not None and self.roll.get("name") == e.get("roll"):
            self.roll["log_seq"] = e.get("seq")
        if len(self.log_seq) > 1000:  # keep the newest; older rolls are in the log itself
            for k in list(self.log_seq)[:-1000]:
                del self.log_seq[k]

    def _on_override(self, e: dict) -> None:
        entry = {k: e.get(k) for k in ("seq", "of", "roll", "die", "value", "state", "reason", "by")}
        self.judge.append({"action": "override", **entry})
        del self.judge[:-HISTORY]
        r = self.roll
        if r is not None and (r.get("name") == e.get("roll") or r.get("log_seq") == e.get("of")):
            i = e.get("die")
            if isinstance(i, int) and 0 <= i < len(r["dice"]):
                die = r["dice"][i]
                die.update(value=e.get("value"), state=e.get("state", "flat"), confidence=1.0,
                           overridden=True, was=die.get("value"))
            r["overrides"].append(entry)
            r["rejudged"] = True
            shown = e.get("value") if e.get("value") is not None else e.get("state")
            r["decision_text"] = f"Judge: die {(i or 0) + 1} is {shown}"
            r["judge_reason"] = e.get("reason")

    def _on_judge_reroll(self, e: dict) -> None:
        self.judge.append({"action": "reroll", "seq": e.get("seq"), "roll": e.get("roll"),
                           "reason": e.get("reason")})
        del self.judge[:-HISTORY]
        if self.roll is not None:
            self.roll["decision_text"] = "Judge: roll again"
            self.roll["judge_reason"] = e.get("reason") or None

    def _on_status(self, e: dict) -> None:
        device, _, what = e["type"].partition("_")
        self.status[device] = "lost" if what == "lost" else "ok"

    def _on_not_a_roll(self, e: dict) -> None:
        if self.roll is not None and not self.roll["dice"] and not self.roll["decisions"]:
            self.roll = None  # the motion was a hand or a bump: nothing to show
        self._on_note({"text": f"not a roll: {e.get('reason', '')}"})

    def _on_note(self, e: dict) -> None:
        self.history.append({"roll": e.get("roll"), "text": str(e.get("text", "")), "result": "note"})
        del self.history[:-HISTORY]

    # -- output -----------------------------------------------------------------------------------

    def snapshot(self) -> dict:
        """A JSON-ready copy of the view: what every page renders."""
        return copy.deepcopy({
            "version": self.version,
            "roll": self.roll,
            "match": self.match,
            "status": self.status,
            "history": self.history,
            "judge": self.judge,
            "last_event": self.last_event,
        })


_HANDLERS = {
    "roll_started": TableState._on_roll_started,
    "reading": TableState._on_reading,
    "decision": TableState._on_decision,
    "roll_saved": TableState._on_roll_saved,
    "match": TableState._on_match,
    "logged": TableState._on_logged,
    "override": TableState._on_override,
    "judge_reroll": TableState._on_judge_reroll,
    "camera_lost": TableState._on_status,
    "camera_back": TableState._on_status,
    "tower_lost": TableState._on_status,
    "tower_back": TableState._on_status,
    "note": TableState._on_note,
    "tower_warning": TableState._on_note,
    "not_a_roll": TableState._on_not_a_roll,
}
