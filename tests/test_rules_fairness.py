"""Exhaustive, exact fairness: every card (and every set of k cards) is equally likely.

Probabilities come from `reader.rules.exact`, which drives the real BanishSession face by face and
sums re-rolls as a geometric series in Fractions: no sampling, no tolerance.
"""

from fractions import Fraction
from itertools import combinations, permutations
from math import comb, perm

import pytest

from reader.rules import MAPPINGS, ValueTable, allowed_dice
from reader.rules.exact import banish_distribution, banished_set_distribution, face_probability

CASES = [(n, die, mapping) for n in range(1, 11) for die in allowed_dice(n) for mapping in MAPPINGS]
SET_CASES = [(n, die, mapping, k) for n, die, mapping in CASES for k in (2, 3) if k <= n]


def fixed(die):
    return lambda n, state: die


@pytest.mark.parametrize(("n", "die", "mapping"), CASES, ids=[f"{n}cards-{d}-{m}" for n, d, m in CASES])
def test_each_card_equally_likely(n, die, mapping):
    dist = banish_distribution(n, 1, mapping, fixed(die))
    assert dist == {(p,): Fraction(1, n) for p in range(1, n + 1)}


@pytest.mark.parametrize(("n", "die", "mapping", "k"), SET_CASES,
                         ids=[f"{n}cards-{d}-{m}-k{k}" for n, d, m, k in SET_CASES])
def test_each_set_of_k_cards_equally_likely_with_one_die(n, die, mapping, k):
    sets = banished_set_distribution(n, k, mapping, fixed(die))
    assert sets == {frozenset(c): Fraction(1, comb(n, k)) for c in combinations(range(1, n + 1), k)}
    # and every order of banishing them, too
    seqs = banish_distribution(n, k, mapping, fixed(die))
    assert seqs == {s: Fraction(1, perm(n, k)) for s in permutations(range(1, n + 1), k)}


@pytest.mark.parametrize(("n", "k"), [(n, k) for n in range(1, 11) for k in (2, 3) if k <= n])
@pytest.mark.parametrize("mapping", MAPPINGS)
def test_switching_to_the_smallest_die_after_each_banish_stays_fair(n, mapping, k):
    sets = banished_set_distribution(n, k, mapping)  # choose_die=None: smallest allowed each time
    assert set(sets.values()) == {Fraction(1, comb(n, k))}
    assert len(sets) == comb(n, k)


def test_re_rolls_are_a_geometric_series():
    # 7 cards with a D8: 8 is rolled again, so each card has (1/8) / (1 - 1/8) = 1/7
    assert face_probability(8, 1) == Fraction(1, 7)
    partial = sum(Fraction(1, 8) * Fraction(1, 8) ** j for j in range(60))
    assert abs(float(partial) - float(face_probability(8, 1))) < 1e-12
    # 3 cards with a D8 and the single mapping: values 4..8 rolled again
    table = ValueTable("d8", 3, "single")
    assert face_probability(8, len(table.rerolled)) == Fraction(1, 3)
    with pytest.raises(ValueError):
        face_probability(6, 6)


def test_more_than_ten_cards_picks_then_dice_stay_fair():
    # 12 cards, 3 to banish: two opponent picks (12, 11 cards), then a D10 roll among 10
    sets = banished_set_distribution(12, 3)
    assert len(sets) == comb(12, 3)
    assert set(sets.values()) == {Fraction(1, comb(12, 3))}


def test_the_check_catches_an_unfair_table(monkeypatch):
    # a "value mod n" table (no re-roll) favours low cards; the enumeration must see it
    monkeypatch.setattr(ValueTable, "position", lambda self, v: (v - 1) % self.n + 1)
    dist = banish_distribution(3, 1, "blocks", fixed("d8"))
    assert dist[(1,)] == Fraction(3, 8) and dist[(3,)] == Fraction(2, 8)
