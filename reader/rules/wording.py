"""One console line per rules event: the same words in `banish`, `first-player`, `watch` and `replay`.

A judge who compares the tray's log with the command a player typed, or a replay with the live
run, must read the same sentence for the same decision. Takes an event or its JSON (what a
recording stores), so recorded decisions read exactly as live ones did.
"""

from __future__ import annotations

import json


def _die(d: dict) -> str:
    return (d.get("die") or "").upper()


def _who(d: dict) -> str:
    return f"{d['player']}: " if d.get("player") else ""


def describe(event) -> str:
    """The line for one rules event (an event object or its `to_json()` dict)."""
    d = event if isinstance(event, dict) else event.to_json()
    result = d.get("result")
    if result == "reroll":
        return f"{_die(d)} shows {d['value']}: no card has that value, roll again"
    if result == "roll-again":
        die = f"{_die(d)}: " if d.get("die") else ""
        return f"{_who(d)}{die}{d.get('reason') or 'unreadable'}, roll again"
    if result == "banish":
        how = {"pick": "opponent's pick", "only-card": "only card left"}.get(
            d.get("by", "roll"), f"{_die(d)} shows {d.get('value')}")
        return f"{how}: banish #{d['position']} {d['card']}"
    if result == "done":
        gone = ", ".join(f"#{b['position']} {b['card']}" for b in d["banished"])
        return f"done: banished {gone}; remaining: {', '.join(d['remaining']) or '(none)'}"
    if result == "rolled":
        a, b = d["dice"]
        return f"{d['player']} rolled {a} + {b} = {d['total']}"
    if result == "tie":
        return f"tie at {d['total']}: both players roll again"
    if result == "first":
        totals = ", ".join(f"{name} {total}" for name, total in (d.get("totals") or {}).items())
        return f"{d['player']} goes first" + (f" ({totals})" if totals else "")
    return json.dumps(d)
