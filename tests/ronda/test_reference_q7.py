"""Q7 in the reference engine: the last deal solved exactly.

Once the stock is empty, ``lookahead`` and ``rollout`` enumerate every consistent
assignment of the unseen cards to the other hands and search to the end of the
hand by max-n. The values are checked here against searches written separately
from the engine's: a plain minimax on absolute end-of-hand utilities (two
players, and two teams), and a textbook max-n on utility vectors (four players
alone). Assignments are checked against hand counts (multinomials, and a count
worked out by hand under announcements) and against a brute force over every
permutation of the unseen cards.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from fractions import Fraction

import pytest

from simcards.core.errors import UsageError
from simcards.ronda.reference import (
    Announcement,
    HandState,
    RondaOptions,
    consistent_assignments,
    greedy_policy,
    greedy_scores,
    holding_announcements,
    last_deal_policy,
    last_deal_values,
    lookahead_policy,
    parse_cards,
    rollout_policy,
    unseen_cards,
)

# ---------------------------------------------------------------- helpers


def utility(state: HandState, side: int) -> int:
    """Q1's V as an absolute quantity: 100 * (own score - the others' scores) plus
    the cards the side holds (an open pile counted for its last hitter's side).

    The last deal's announcements are made before its first play, so between any
    two positions of the last deal the difference of utilities is V of the stretch.
    """
    scores = state.scores()
    pile = len(state.pile) if state.pile and state.side_of(state.pile_hitter) == side else 0
    held = len(state.captured[side]) + pile
    return 100 * (scores[side] - sum(scores) + scores[side]) + held


def child(state: HandState, card: int) -> HandState:
    nxt = state.clone()
    nxt.apply(card)
    return nxt


def minimax(state: HandState, side: int) -> int:
    """Two sides: ``side`` maximises its utility, the other side minimises it."""
    if state.is_terminal():
        return utility(state, side)
    values = [minimax(child(state, card), side) for card in state.legal_actions()]
    return max(values) if state.side_of(state.current_player()) == side else min(values)


def max_n(state: HandState) -> tuple[int, ...]:
    """Textbook max-n: the utility vector of the end of the hand; each mover takes the
    child best for his own side, the first in card order among equals."""
    if state.is_terminal():
        return tuple(utility(state, s) for s in range(state.n_sides))
    mover_side = state.side_of(state.current_player())
    best = None
    for card in state.legal_actions():  # sorted by id, i.e. card order (Q1)
        vector = max_n(child(state, card))
        if best is None or vector[mover_side] > best[mover_side]:
            best = vector
    return best


def brute_assignments(obs: dict) -> set[tuple[tuple[int, ...], ...]]:
    """Every distinct split of the unseen cards over the other hands, by trying every
    permutation; kept when each holding as dealt announces what its player announced
    at the current deal (only when that deal announced)."""
    others = [p for p in range(obs["players"]) if p != obs["seat"]]
    sizes = [obs["hand_sizes"][p] for p in others]
    announcing = obs["options"].announce == "every_deal" and obs["options"].mode == "points"
    deal = obs["deal"]
    found = set()
    for perm in itertools.permutations(unseen_cards(obs)):
        hands, i = [], 0
        for size in sizes:
            hands.append(tuple(sorted(perm[i : i + size])))
            i += size
        ok = True
        if announcing:
            for p, hand in zip(others, hands, strict=True):
                made = sorted(
                    (a.kind, a.value)
                    for a in obs["announcements"]
                    if a.player == p and a.deal == deal
                )
                since = [card for q, card, d in obs["plays"] if q == p and d == deal]
                ok = ok and sorted(holding_announcements([*hand, *since])) == made
        if ok:
            found.add(tuple(hands))
    return found


def as_tuples(obs: dict, assignments) -> list[tuple[tuple[int, ...], ...]]:
    others = [p for p in range(obs["players"]) if p != obs["seat"]]
    return [tuple(tuple(sorted(a[p])) for p in others) for a in assignments]


def multinomial(obs: dict) -> int:
    sizes = [obs["hand_sizes"][p] for p in range(obs["players"]) if p != obs["seat"]]
    out = math.factorial(sum(sizes))
    for size in sizes:
        out //= math.factorial(size)
    return out


def last_deal_states(players: int, count: int, seed: int, *, max_left: int, **fixed):
    """Random positions of the last deal, at its start and mid-deal.

    Hands are played from random decks (each play greedy or uniformly random, so
    Derbas, piles in play and re-hits occur) until the stock is empty, then
    0 .. ``max_left`` - 1 more plays; positions where the mover has a single card
    are skipped, except with three players. Options are drawn per position unless
    given in ``fixed``.
    """
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        opts = {
            "derba_chain": rng.choice(["flat", "tiers"]),
            "announce": rng.choice(["first_deal", "every_deal"]),
            "mode": rng.choice(["points", "points", "classic"]),
            "announce_conflict": rng.choice(["text", "highest_takes_all"]),
        }
        opts.update(fixed)
        options = RondaOptions(players=players, **opts)
        state = HandState(options, rng.randrange(players), rng.sample(range(40), 40))

        def step(s: HandState) -> None:
            p = s.current_player()
            if rng.random() < 0.5:
                s.apply(greedy_policy(s.observation(p)))
            else:
                s.apply(rng.choice(s.legal_actions()))

        while state.stock:
            step(state)
        for _ in range(rng.randrange(max_left)):
            step(state)
        if len(state.legal_actions()) >= 2 or players == 3:
            out.append(state)
    return out


# ---------------------------------------------------------------- two players


@functools.cache
def two_player_states() -> tuple[HandState, ...]:
    """240 two-player last-deal positions, built once for the tests that share them."""
    return tuple(last_deal_states(2, 240, seed=7, max_left=6))


def test_Q7_two_players_values_equal_a_plain_minimax_and_the_choice_is_optimal():
    """Q7: with two players the unseen cards are the opponent's hand, the last deal
    is a game of perfect information, and max-n is minimax: every candidate's value
    is the minimax value of the rest of the hand, and the choice is optimal."""
    not_greedy = 0
    mid_deal = 0
    for state in two_player_states():
        me = state.current_player()
        obs = state.observation(me)
        side = obs["side"]
        base = utility(state, side)
        exact = {card: minimax(child(state, card), side) - base for card in obs["hand"]}
        values = last_deal_values(obs)
        assert values == {card: Fraction(v) for card, v in exact.items()}
        chosen = last_deal_policy(obs)
        best = max(exact.values())
        assert exact[chosen] == best
        # Q7 ties: lowest Derba risk, then card order.
        risks = {card: risk for card, _, risk in greedy_scores(obs)}
        assert chosen == min((c for c in exact if exact[c] == best), key=lambda c: (risks[c], c))
        not_greedy += exact[greedy_policy(obs)] < best
        mid_deal += len(obs["hand"]) < 4
    # The positions are not all trivial: greedy misses the optimum in some, and
    # many are mid-deal.
    assert not_greedy >= 10, not_greedy
    assert mid_deal >= 60, mid_deal


def test_Q7_lookahead_and_rollout_switch_to_the_exact_last_deal():
    """Q4/Q5/Q7: once the stock is empty both policies play Q7's choice whatever
    their parameter, ignore given samples, and draw nothing from their stream."""
    for state in two_player_states()[:30]:
        obs = state.observation(state.current_player())
        expected = last_deal_policy(obs)
        rng = random.Random(3)
        before = rng.getstate()
        assert lookahead_policy(obs, rng, depth=1, samples=2) == expected
        assert lookahead_policy(obs, rng, depth=3) == expected
        assert rollout_policy(obs, rng, k=1) == expected
        assert rollout_policy(obs, rng, k=5, drawn=[({}, [])]) == expected
        assert rng.getstate() == before


def test_Q7_two_players_one_assignment_the_opponents_hand():
    """Q7/I2: with two players and an empty stock the only consistent assignment is
    the opponent's real hand, with or without the last deal's announcements."""
    for state in two_player_states()[:80]:
        me = state.current_player()
        obs = state.observation(me)
        assert consistent_assignments(obs) == [{1 - me: state.hand(1 - me)}]
    assert any(s.options.announce == "every_deal" for s in two_player_states()[:80])


def test_Q7_worked_position_sees_to_the_end():
    """Q7 by hand, U1 and S1 included. Last round of the hand, A (seat 0) to play
    with 4o 7o, B (dealer) holds 3c 11e; table 3o 7c; B captured last; A has
    captured 19 cards, B 13 (S1: each card beyond 20 is a point).

    * A plays 7o: takes 7c (no 10 to run on); table 3o. If B replies 3c, it takes
      3o, Missa (B +1); A's 4o and B's 11e are laid (L4: nothing) and Ultima gives
      them to B. A ends with 21 cards (S1 +1): V = 100 * (1 - 1) + 2 = 2. If B
      lays 11e instead, A's 4o is laid, B's 3c takes 3o 4o (no 5), Ultima gives
      11e to B: A +1 by S1 alone, V = 102. B replies 3c: V(7o) = 2.
    * A plays 4o: laid; table 3o 4o 7c. If B replies 3c, it takes 3o 4o (no 5);
      A's 7o takes 7c, Missa (A +1); B's 11e is laid and Ultima gives it to A:
      A 22 cards (S1 +2), V = 100 * 3 + 3 = 303. If B lays 11e, A's 7o takes 7c
      only, B's 3c takes 3o 4o and Ultima gives B the 11e: V = 102. B lays 11e:
      V(4o) = 102.

    So Q7 plays 4o."""
    options = RondaOptions()
    hands = [parse_cards("4o 7o"), parse_cards("3c 11e")]
    table = parse_cards("3o 7c")
    rest = [x for x in range(40) if x not in {*hands[0], *hands[1], *table}]
    state = HandState.from_position(
        options, 1, hands, table=table, captured=[rest[:19], rest[19:]], last_capturer=1
    )
    obs = state.observation(0)
    values = last_deal_values(obs)
    assert values == {parse_cards("4o")[0]: 102, parse_cards("7o")[0]: 2}
    assert last_deal_policy(obs) == parse_cards("4o")[0]


# ---------------------------------------------------------------- assignments


def test_Q7_assignment_count_is_the_multinomial_without_announcements():
    """Q7: no announcement at the last deal (first_deal, or classic mode): every split
    of the U unseen cards over the other hands, once each: U! / prod(h_p!)."""
    counts = set()
    for players, teams in ((4, "off"), (4, "on"), (3, "off")):
        for state in last_deal_states(players, 25, seed=players, max_left=min(4, players),
                                      teams=teams,
                                      announce="first_deal"):
            obs = state.observation(state.current_player())
            got = as_tuples(obs, consistent_assignments(obs))
            assert len(got) == len(set(got)) == multinomial(obs)
            assert set(got) == brute_assignments(obs)
            truth = {p: state.hand(p) for p in range(players) if p != obs["seat"]}
            assert as_tuples(obs, [truth])[0] in set(got)
            counts.add(len(got))
    assert {90, 30, 2, 1} <= counts  # 6 unseen in 2-2-2, 5 in 2-2-1, 3 players' 1-1


def _announced_last_deal(b_played: bool) -> HandState:
    """4 players, dealer D (seat 3), announce=every_deal, the last deal (2 cards each).

    Holdings as dealt: A 1o 2o (or 1o 3o), B 5o 5c, C 6o 12b, D 5e 6c; 5b is among
    the captured cards. B announced a Ronda of 5, A, C and D nothing. If
    ``b_played``, A has laid 3o and B has laid 5o since the deal (C to play).
    """
    options = RondaOptions(players=4, announce="every_deal")
    deal = 2
    if b_played:
        hands = [parse_cards("1o"), parse_cards("5c"), parse_cards("6o 12b"),
                 parse_cards("5e 6c")]
        plays = [(0, parse_cards("3o")[0], deal), (1, parse_cards("5o")[0], deal)]
        table = parse_cards("3o 5o")
        last_laid = parse_cards("5o")[0]
    else:
        hands = [parse_cards("1o 2o"), parse_cards("5o 5c"), parse_cards("6o 12b"),
                 parse_cards("5e 6c")]
        plays, table, last_laid = [], [], None
    placed = {*(x for h in hands for x in h), *table}
    rest = [x for x in range(40) if x not in placed]
    anns = [Announcement(deal=deal, player=1, kind="ronda", value=4)]
    return HandState.from_position(
        options, 3, hands, table=table, captured=[rest[:13], rest[13:20], rest[20:27], rest[27:]],
        last_capturer=2, announcements=anns, plays=plays, last_laid=last_laid,
    )


def test_Q7_assignments_respect_the_last_deals_announcements():
    """Q7/Q1/A2: B announced a Ronda of 5 and C, D nothing. B holds two of the three
    unseen 5s (3 ways); of the 4 cards left, C takes 2 with no pair and D's 2 have
    none either: C must not take 6o 6c nor leave them to D (6 - 2 = 4 ways): 12
    assignments of the 90. Without the constraint: all 90."""
    state = _announced_last_deal(b_played=False)
    obs = state.observation(0)
    got = consistent_assignments(obs)
    assert len(got) == 12
    assert set(as_tuples(obs, got)) == brute_assignments(obs)
    for a in got:
        assert sorted(x // 4 for x in a[1]) == [4, 4]
        assert holding_announcements(a[2]) == [] and holding_announcements(a[3]) == []
    free = HandState.from_position(
        RondaOptions(players=4), 3, [state.hands[p] for p in range(4)],
        captured=state.captured, last_capturer=2,
    )
    assert len(consistent_assignments(free.observation(0))) == 90


def test_Q7_assignments_count_the_cards_played_since_the_deal():
    """Q7/Q1: B laid 5o since announcing his Ronda of 5, so his one card must be one
    of the other two unseen 5s.

    * Seen by A (unseen 5c 5e 6o 6c 12b): B 2 ways; C's and D's two cards each from
      the four left (a 5, 6o, 6c, 12b) with no pair: 4 ways. 8 of 5!/(1!2!2!) = 30.
    * Seen by C (unseen 1o 5c 5e 6c): B 2 ways; A's one card (his holding as dealt,
      that card plus 3o, has no pair: any of the 3 left) and D's two (no pair left
      to make): 3 ways. 6 of 4!/(1!1!2!) = 12.
    """
    state = _announced_last_deal(b_played=True)
    for seat, count, total in ((0, 8, 30), (2, 6, 12)):
        obs = state.observation(seat)
        got = consistent_assignments(obs)
        assert len(got) == count and multinomial(obs) == total
        assert set(as_tuples(obs, got)) == brute_assignments(obs)
        assert all(a[1][0] // 4 == 4 for a in got)


def test_Q7_assignments_only_once_the_stock_is_empty():
    state = HandState(RondaOptions(), 1, list(range(40)))
    with pytest.raises(UsageError, match="stock is empty"):
        consistent_assignments(state.observation(0))


# ---------------------------------------------------------------- four and three players


def test_Q7_four_players_teams_is_minimax_averaged_over_assignments():
    """Q7: with teams there are two sides, so max-n is minimax in each assignment;
    the value is its mean over every consistent assignment."""
    for state in last_deal_states(4, 12, seed=41, max_left=4, teams="on"):
        me = state.current_player()
        obs = state.observation(me)
        side = obs["side"]
        others = [p for p in range(4) if p != me]
        splits = brute_assignments(obs)
        totals = dict.fromkeys(obs["hand"], 0)
        for hands in splits:
            full = [obs["hand"] if p == me else hands[others.index(p)] for p in range(4)]
            s = state.clone()
            s.hands = [list(h) for h in full]
            base = utility(s, side)
            for card in obs["hand"]:
                totals[card] += minimax(child(s, card), side) - base
        expected = {card: Fraction(t, len(splits)) for card, t in totals.items()}
        assert last_deal_values(obs) == expected


def test_Q7_four_players_alone_is_max_n_averaged_over_assignments():
    """Q7: four sides; each later mover maximises his own V (ties by card order)
    knowing every hand of the assignment; the candidate's value is the mover's V
    under that play, averaged over the assignments."""
    for state in last_deal_states(4, 12, seed=43, max_left=4, teams="off"):
        me = state.current_player()
        obs = state.observation(me)
        side = obs["side"]
        others = [p for p in range(4) if p != me]
        splits = brute_assignments(obs)
        totals = dict.fromkeys(obs["hand"], 0)
        for hands in splits:
            s = state.clone()
            s.hands = [list(obs["hand"] if p == me else hands[others.index(p)])
                       for p in range(4)]
            base = utility(s, side)
            for card in obs["hand"]:
                totals[card] += max_n(child(s, card))[side] - base
        expected = {card: Fraction(t, len(splits)) for card, t in totals.items()}
        assert last_deal_values(obs) == expected
        chosen = lookahead_policy(obs, random.Random(0))
        assert expected[chosen] == max(expected.values())


def test_Q7_three_players_last_deal_leaves_no_choice():
    """Q7/D4: with three players the last deal gives one card each, so the mover has
    exactly one candidate and both policies play it."""
    for state in last_deal_states(3, 30, seed=3, max_left=3):
        me = state.current_player()
        obs = state.observation(me)
        assert len(obs["hand"]) == 1
        (card,) = obs["hand"]
        assert list(last_deal_values(obs)) == [card]
        assert lookahead_policy(obs, random.Random(1)) == card
        assert rollout_policy(obs, random.Random(1)) == card
        assert len(consistent_assignments(obs)) == multinomial(obs)
