"""`dice-reader banish`: banish cards from memory at random, rolls typed or given with --rolls.

    dice-reader banish --cards "A,B,C" --count 1 --rolls d8:8,d8:3 --json

A roll is `DIE:VALUE` (d8:3), a bare VALUE (the die the session expects), or `DIE:cocked`,
`cocked`, `x` or `unreadable` for a die that shows no face (it is rolled again). Without --rolls
(and --picks) each roll is asked for at the prompt on stderr; end of input stops with done false.
With more than 10 cards the opponent picks positions instead (--picks 4,7 or at the prompt).
"""

from __future__ import annotations

import json
import sys

from reader.errors import DiceReaderError
from reader.rules.wording import describe  # one wording for every command

HELP = "Banish cards from memory at random by the Grand Archive rules."

NO_FACE = {"cocked": "cocked", "unreadable": "unreadable", "x": "cocked"}


def add_arguments(p) -> None:
    p.add_argument("--cards", default="", help='cards in memory, in order: "A,B,C" (required)')
    p.add_argument("--count", default="1", help="how many cards to banish (default 1)")
    p.add_argument("--die", help="die to roll (d6, d8, d10, d12, d20); default the smallest allowed")
    p.add_argument("--mapping", default="blocks",
                   help="blocks (each card gets floor(F/n) values, default) or single")
    p.add_argument("--rolls", help="rolls in order, e.g. d8:8,d8:3,d6:4 (default: ask for each)")
    p.add_argument("--picks", help="more than 10 cards: positions the opponent picked, e.g. 4,7")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def parse_count(text: str) -> int:
    try:
        return int(str(text).strip())
    except ValueError:
        raise DiceReaderError(f"--count must be a whole number, not {text!r}") from None


def parse_roll(token: str):
    """'d8:3' -> ('d8', 3); '3' -> (None, 3); 'd8:cocked' -> ('d8', Cocked). Pure."""
    from reader.reading import Cocked, Unreadable

    text = token.strip().lower()
    die, sep, value = text.rpartition(":")
    if not sep:
        die = None
    if die is not None and not die:
        raise DiceReaderError(f"bad roll {token.strip()!r}: expected DIE:VALUE, e.g. d8:3")
    if value in NO_FACE:
        kind = NO_FACE[value]
        return die, (Cocked(1.0) if kind == "cocked" else Unreadable("typed as unreadable"))
    try:
        return die, int(value)
    except ValueError:
        raise DiceReaderError(
            f"bad roll {token.strip()!r}: expected DIE:VALUE (d8:3), a value, or DIE:cocked"
        ) from None


def feed(session, die: str | None, value) -> list:
    """Feed a typed roll; a bare value is on the expected die, and a D10's "0" face is 10."""
    die = die or session.die
    if value == 0 and isinstance(die, str) and die.strip().lower() == "d10":
        value = 10
    return session.feed(die, value)


def parse_position(token: str) -> int:
    try:
        return int(token.strip())
    except ValueError:
        raise DiceReaderError(f"bad pick {token.strip()!r}: expected a card position") from None


def _split(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [t for t in (s.strip() for s in text.split(",")) if t]


def _ask(prompt: str) -> str | None:
    """Prompt on stderr (stdout stays clean for --json); None at end of input."""
    print(prompt, end="", file=sys.stderr, flush=True)
    line = sys.stdin.readline()
    return None if line == "" else line


def _prompt_for(session) -> str:
    nxt = session.next
    if nxt["procedure"] == "shuffle":
        return nxt["message"] + "\npicked position: "
    return (session.table.describe(session.remaining)
            + f"\nroll (value, or DIE:VALUE to switch to {'/'.join(nxt['allowed'])}): ")


def run(args) -> int:
    from reader.rules import BanishSession

    session = BanishSession(args.cards, parse_count(args.count), die=args.die,
                            mapping=args.mapping.strip().lower())
    rolls, picks = _split(args.rolls), _split(args.picks)
    interactive = rolls is None and picks is None
    rolls, picks = rolls or [], picks or []
    shown = 0

    def show() -> None:
        nonlocal shown
        # with --json stdout carries only the final object; at the prompt say what happened
        stream = sys.stderr if args.json else sys.stdout
        if not args.json or interactive:
            for event in session.events[shown:]:
                print(describe(event), file=stream, flush=True)
        shown = len(session.events)

    def apply(token: str) -> None:
        if session.procedure == "shuffle":
            session.pick(parse_position(token))
        else:
            die, value = parse_roll(token)
            feed(session, die, value)

    show()
    while not session.done:
        if interactive:
            line = _ask(_prompt_for(session))
            if line is None:
                break
            for token in _split(line):
                try:
                    apply(token)
                except DiceReaderError as exc:  # a typo at the prompt: say so and ask again
                    print(f"not taken: {exc}", file=sys.stderr)
                    break
                show()
                if session.done:
                    break
            continue
        if session.procedure == "shuffle":
            if not picks:
                if rolls:
                    raise DiceReaderError(session.next["message"] + "; give the picks with --picks")
                break
            session.pick(parse_position(picks.pop(0)))
        else:
            if not rolls:
                if picks:
                    raise DiceReaderError(
                        f"a pick was given, but {len(session.remaining)} cards are banished with "
                        "a die roll; give the rolls with --rolls")
                break
            die, value = parse_roll(rolls.pop(0))
            feed(session, die, value)
        show()
    if rolls or picks:
        left = rolls + picks
        raise DiceReaderError(f"{len(left)} roll{'s' if len(left) != 1 else ''} left over after "
                              f"the banish was done ({', '.join(left)}): check the rolls")

    if args.json:
        out = {
            "banished": [b.brief() for b in session.banished],
            "remaining": list(session.remaining),
            "events": [e.to_json() for e in session.events if e.result != "done"],
            "done": session.done,
        }
        if not session.done:
            out["next"] = session.next
        print(json.dumps(out))
    elif not session.done:
        nxt = session.next
        print("not done: " + (nxt["message"] if nxt["procedure"] == "shuffle"
                              else "next roll " + session.table.describe(session.remaining)))
    return 0
