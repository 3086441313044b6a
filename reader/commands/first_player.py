"""`dice-reader first-player`: who goes first, from 2 D6 per player (typed or --rolls).

    dice-reader first-player --players Ana,Ben --rolls 3+4,5+2 --json

Each roll is a pair `A+B` (values of the two D6; `d6:3+d6:4` and `cocked` are accepted too); pairs
alternate between the players, the first player first; a tie starts a new round. Without --rolls
each pair is asked for at the prompt on stderr; end of input stops with "first": null.
"""

from __future__ import annotations

import json
import sys

from reader.errors import DiceReaderError
from reader.rules.wording import describe  # one wording for every command

HELP = "Decide who goes first: each player rolls 2 D6, higher total first, ties roll again."


def add_arguments(p) -> None:
    p.add_argument("--players", help='the two players, first roller first (default "Player 1,Player 2")')
    p.add_argument("--rolls", help="pairs in order, alternating players: 3+4,5+2,...")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def parse_pair(token: str) -> tuple:
    """'3+4' -> (('d6', 3), ('d6', 4)); 'cocked' stands for a die with no face. Pure."""
    from reader.commands.banish import parse_roll

    parts = token.split("+")
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise DiceReaderError(f"bad roll {token.strip()!r}: expected two D6 values like 3+4")
    out = []
    for part in parts:
        die, value = parse_roll(part)
        out.append((die or "d6", value))
    return tuple(out)


def run(args) -> int:
    from reader.rules import FirstPlayerSession

    session = FirstPlayerSession(args.players)
    tokens = None if args.rolls is None else [t for t in args.rolls.split(",") if t.strip()]
    shown = 0

    def show() -> None:
        nonlocal shown
        # with --json stdout carries only the final object; at the prompt say what happened
        stream = sys.stderr if args.json else sys.stdout
        if not args.json or tokens is None:
            for event in session.events[shown:]:
                print(describe(event), file=stream, flush=True)
        shown = len(session.events)

    while not session.done:
        if tokens is None:
            print(f"{session.turn}, roll 2 D6 (e.g. 3+4): ", end="", file=sys.stderr, flush=True)
            line = sys.stdin.readline()
            if line == "":
                break
            if not line.strip():
                continue
            try:
                session.feed_pair(*parse_pair(line))
            except DiceReaderError as exc:  # a typo at the prompt: say so and ask again
                print(f"not taken: {exc}", file=sys.stderr)
        else:
            if not tokens:
                break
            session.feed_pair(*parse_pair(tokens.pop(0)))
        show()
    if tokens:
        raise DiceReaderError(f"{len(tokens)} roll{'s' if len(tokens) != 1 else ''} left over after "
                              f"{session.first} was chosen ({', '.join(tokens)}): check the rolls")

    if args.json:
        print(json.dumps({"first": session.first,
                          "events": [e.to_json() for e in session.events]}))
    elif not session.done:
        print(f"not done: {session.turn} rolls next")
    return 0
