"""Property tests: whatever the rolls, dice and switches, a banish keeps its promises."""

from fractions import Fraction
from math import comb, perm

from hypothesis import given, settings
from hypothesis import strategies as st

from reader.dice import FACES
from reader.reading import Cocked, Unreadable
from reader.rules import MAPPINGS, BanishSession, FirstPlayerSession, allowed_dice
from reader.rules.errors import SessionOver
from reader.rules.exact import banish_distribution, banished_set_distribution

# one step of play: which allowed die to use (index), the raw value, and whether it lands cocked
steps = st.lists(
    st.tuples(st.integers(0, 4), st.integers(0, 10**6), st.sampled_from(["face"] * 8 + ["cocked", "blur"])),
    max_size=60,
)


@st.composite
def setups(draw, max_cards=14):
    n = draw(st.integers(1, max_cards))
    k = draw(st.integers(1, n))
    names = draw(st.lists(st.sampled_from(["Ash", "Birch", "Cedar", "Lost Soul"]), min_size=n, max_size=n))
    return names, k, draw(st.sampled_from(MAPPINGS))


def play(session, step):
    which, raw, landing = step
    n = len(session.remaining)
    if session.procedure == "shuffle":
        return session.pick(raw % n + 1)
    die = session.allowed_dice[which % len(session.allowed_dice)]
    if landing == "cocked":
        return session.feed(die, Cocked(0.9))
    if landing == "blur":
        return session.feed(die, Unreadable("blur"))
    return session.feed(die, raw % FACES[die] + 1)


@settings(max_examples=300, deadline=None)
@given(setups(), steps)
def test_no_card_twice_order_kept_and_done_exactly_after_k(setup, plays):
    names, k, mapping = setup
    s = BanishSession(names, k, mapping=mapping)
    all_positions = list(range(1, len(names) + 1))
    for step in plays:
        if s.done:
            break
        before = s.remaining_original_positions
        events = play(s, step)
        gone = [b.original_position for b in s.banished]
        # no card banished twice, and the banished are the ones missing from memory
        assert len(gone) == len(set(gone))
        assert sorted(gone + list(s.remaining_original_positions)) == all_positions
        # the rest keep their order
        assert list(s.remaining_original_positions) == [p for p in before if p not in gone]
        assert s.remaining == tuple(names[p - 1] for p in s.remaining_original_positions)
        # each banish names the card at that position in the numbering the players saw
        for e in events:
            if e.result == "banish":
                assert names[e.original_position - 1] == e.card
        # never more than k; done exactly when k are banished, and then a single Done
        assert len(gone) <= k
        assert s.done == (len(gone) == k)
        assert [e.result for e in s.events].count("done") == (1 if s.done else 0)
    if s.done:
        assert s.events[-1].result == "done" and s.next is None
        try:
            s.feed("d20", 1)
        except SessionOver:
            pass
        else:
            raise AssertionError("a finished session took another roll")


@settings(max_examples=200, deadline=None)
@given(setups(max_cards=12))
def test_the_session_ends_exactly_after_k_banishes(setup):
    names, k, mapping = setup
    s = BanishSession(names, k, mapping=mapping)
    banishes = sum(e.result == "banish" for e in s.events)  # one card: banished without a roll
    while not s.done:
        if s.procedure == "shuffle":
            events = s.pick(1)
        else:
            events = s.feed(s.die, 1)  # 1 always names card 1
        banishes += sum(e.result == "banish" for e in events)
        assert banishes <= k
    assert banishes == k == len(s.banished)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 8), k=st.integers(1, 3), mapping=st.sampled_from(MAPPINGS),
       seed=st.integers(0, 2**32))
def test_switching_dice_never_breaks_fairness(n, k, mapping, seed):
    k = min(k, n)

    def choose(left, state):  # any allowed die, chosen from what has happened so far
        dice = allowed_dice(left)
        return dice[hash((seed, state)) % len(dice)]

    sets = banished_set_distribution(n, k, mapping, choose)
    assert len(sets) == comb(n, k) and set(sets.values()) == {Fraction(1, comb(n, k))}
    seqs = banish_distribution(n, k, mapping, choose)
    assert len(seqs) == perm(n, k) and set(seqs.values()) == {Fraction(1, perm(n, k))}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), max_size=30))
def test_first_player_is_the_higher_total_of_the_last_round(pairs):
    s = FirstPlayerSession(("Ana", "Ben"))
    for i, (a, b) in enumerate(pairs):
        if s.done:
            break
        s.feed_pair(a, b)
    rolled = [e for e in s.events if e.result == "rolled"]
    assert [e.player for e in rolled] == ["Ana", "Ben"] * (len(rolled) // 2) + ["Ana"] * (len(rolled) % 2)
    if s.done:
        ana, ben = rolled[-2].total, rolled[-1].total
        assert ana != ben and s.first == ("Ana" if ana > ben else "Ben")
        assert all(rolled[i].total == rolled[i + 1].total for i in range(0, len(rolled) - 2, 2))
