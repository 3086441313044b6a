"""Exact outcome probabilities of a banish, computed by driving the real `BanishSession`.

Fairness is checked, not assumed: from each state every face of the die is fed to a copy of the
session; faces that give a `Reroll` leave the state as it was, so with F faces of which r are
rolled again each deciding face has probability

    sum_{j>=0} (r/F)^j * (1/F) = (1/F) / (1 - r/F)

(a geometric series over the re-rolls), computed in `fractions.Fraction`, never floats. When more
than 10 cards are left, the opponent picks each position with probability 1/n (a fair shuffle).

`choose_die(n, state)` says which die the players roll with n cards left, `state` being the
original positions of the remaining cards; it may switch dice at any point, which is how the tests
show that switching never breaks fairness.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from typing import Callable

from reader.dice import FACES
from reader.rules.banish import BanishSession
from reader.rules.events import Reroll

ChooseDie = Callable[[int, tuple[int, ...]], str]


def face_probability(faces: int, rerolled: int) -> Fraction:
    """Chance that one given deciding face ends the rolling: (1/F) / (1 - r/F)."""
    if rerolled >= faces:
        raise ValueError("every face is rolled again: the procedure never ends")
    return Fraction(1, faces) / (1 - Fraction(rerolled, faces))


def banish_distribution(n: int, count: int, mapping: str = "blocks",
                        choose_die: ChooseDie | None = None) -> dict[tuple[int, ...], Fraction]:
    """Probability of each ordered sequence of banished original positions (1-based).

    `choose_die=None` rolls the recommended (smallest allowed) die each time.
    """
    start = BanishSession([f"card {i}" for i in range(1, n + 1)], count, mapping=mapping)
    out: dict[tuple[int, ...], Fraction] = defaultdict(Fraction)

    def explore(session: BanishSession, p: Fraction) -> None:
        if session.done:
            out[tuple(b.original_position for b in session.banished)] += p
            return
        left = len(session.remaining)
        if session.procedure == "shuffle":
            for pos in range(1, left + 1):
                nxt = session.copy()
                nxt.pick(pos)
                explore(nxt, p * Fraction(1, left))
            return
        die = choose_die(left, session.remaining_original_positions) if choose_die else session.die
        faces = FACES[die]
        deciding, rerolled = [], 0
        for value in range(1, faces + 1):
            nxt = session.copy()
            events = nxt.feed(die, value)
            if isinstance(events[0], Reroll):
                if nxt.remaining_original_positions != session.remaining_original_positions:
                    raise AssertionError(f"a re-roll of {die}:{value} changed the cards")
                rerolled += 1
            else:
                deciding.append(nxt)
        each = face_probability(faces, rerolled)
        for nxt in deciding:
            explore(nxt, p * each)

    explore(start, Fraction(1))
    return dict(out)


def banished_set_distribution(n: int, count: int, mapping: str = "blocks",
                              choose_die: ChooseDie | None = None) -> dict[frozenset, Fraction]:
    """Probability of each set of banished original positions (order forgotten)."""
    out: dict[frozenset, Fraction] = defaultdict(Fraction)
    for seq, p in banish_distribution(n, count, mapping, choose_die).items():
        out[frozenset(seq)] += p
    return dict(out)
