"""Whole Ronda matches on the Python engine (Q11): the reference engine's
:class:`~simcards.ronda.reference.MatchState`, the engine of the ``ronda_match_v0``
environment, playing the very matches the match kernel plays, for ``matches`` and, in
duplicate, for ``compare`` (and so ``ladder``).

A match's draws depend on its play (how many hands it lasts), so its hands are drawn as they
are dealt: each from the chunk's stream by the kernel's own
:func:`~simcards.ronda.play_kernel._draw_hand` (``matches``) or from the deal set's deck and
role streams by :func:`~simcards.ronda.match_kernel._draw_duplicate_hand` (``compare``), in
the order :mod:`simcards.ronda.match_kernel` documents. Users' seats are asked with the
environment's match observation and action mask, built-in seats decide as the kernel does
(``random`` from the hand's uniform of that play, Q2; ``greedy`` by Q3), and the matches are
added up into the statistics the kernel returns: a function both engines can run gives the
same numbers on both. Like the Python engine of single hands (:mod:`simcards.ronda.users`),
it seats ``random``, ``greedy`` and users' functions only.

A later match of a chunk is found only by playing those before it, so the Python engine's
chunks are the compiled engine's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from simcards.core.engines import ask
from simcards.core.policyspec import USER_KIND, PolicySpec
from simcards.ronda import codes
from simcards.ronda import reference as ref
from simcards.ronda.rules import RondaRules
from simcards.ronda.table import observation_vector
from simcards.ronda.users import ACTIONS, seat_name

Decider = tuple[str, object, object]
"""A seat's policy as the Python engine asks it: its kind, the user's function and policy
(None for a built-in)."""


@dataclass
class MatchOutcome:
    """What one match adds up, as the match kernel's ``_play_match`` leaves it."""

    winner: int
    """The winning side, -1 when stopped undecided after ``max_hands`` hands."""
    hands: int
    """Hands started (a hand an S5 check point ended counts)."""
    finished: int
    """Hands played to their end."""
    scores: np.ndarray
    """Final match scores by side (S2)."""
    cards: np.ndarray
    """Cards captured by side, over every hand started."""
    points: np.ndarray
    """Points by side and source (:data:`simcards.ronda.codes.SOURCES`), every hand started."""
    hand_wins: np.ndarray
    """Finished hands won by strictly most captured cards (C2), by side."""


def deciders(specs: Sequence[PolicySpec]) -> list[Decider]:
    """Each seat's :data:`Decider`."""
    return [(s.kind, s.user.function() if s.user is not None else None, s.user) for s in specs]


def play_match(options: ref.RondaOptions, seats: Sequence[Decider], first: int,
               draw: Callable[[int], tuple[list[int], np.ndarray]], max_hands: int,
               legal: np.ndarray) -> MatchOutcome:
    """One match from first dealer ``first`` (D3); ``draw(dealer)`` gives each hand's deck
    (top first) and uniforms by play, drawn when the hand is dealt; a match still undecided
    after ``max_hands`` hands is stopped (the next hand is not drawn)."""
    n = options.players
    ns = options.n_sides
    uniforms: dict[int, np.ndarray] = {}

    def deck(h: int) -> list[int]:
        if h >= max_hands:  # the cap stops the match before this hand: nothing drawn
            return list(range(ref.N_CARDS))
        cards, us = draw((first + h) % n)  # D3: the deal moves on one seat per hand
        uniforms[h] = us
        return cards

    m = ref.MatchState(options, first, deck)
    while not m.is_terminal() and m.hand_index < max_hands:
        p = m.current_player()
        kind, fn, user = seats[p]
        hand = m.hand
        if kind == USER_KIND:
            legal[:] = 0
            legal[hand.hands[p]] = 1
            obs = observation_vector(hand, p, options, True, m.hands_won)
            card = ask(fn, user, obs, legal, seat_name(p), ACTIONS)
        elif kind == "random":
            card = ref.random_policy(m.observation(p),
                                     float(uniforms[m.hand_index][len(hand.plays)]))
        else:
            card = ref.greedy_policy(m.observation(p))
        m.apply(card)
    done = m.finished_hands
    capped = m.hand_index >= max_hands
    started = list(done)
    if not capped and not (done and m.hand is done[-1]):
        started.append(m.hand)  # an S5 check point ended it
    scores = np.array(started[-1].scores(), np.int64)
    cards = np.zeros(ns, np.int64)
    points = np.zeros((ns, codes.N_SOURCES), np.int64)
    hand_wins = np.zeros(ns, np.int64)
    for hand in started:
        for t in range(ns):
            cards[t] += len(hand.captured_cards(t))
            by_source = hand.points_by_source(t)
            for src, name in enumerate(codes.SOURCES):
                points[t, src] += by_source[name]
    for hand in done:
        w = hand.hand_winner()
        if w is not None:
            hand_wins[w] += 1
    winner = -1 if capped or m.winner is None else int(m.winner)
    return MatchOutcome(winner, len(started), len(done), scores, cards, points, hand_wins)


def python_matches(state: np.ndarray, size: int, dealer: int, rules: RondaRules,
                   specs: Sequence[PolicySpec], max_hands: int) -> dict[str, np.ndarray]:
    """``size`` matches on the Python engine from the chunk's stream ``state``, as
    :func:`simcards.ronda.match_kernel.simulate_matches` draws and plays them (``dealer`` a
    seat, or -1 to draw each match's first dealer): the statistics of
    :data:`simcards.ronda.matches_batch.MATCH_STAT_NAMES`."""
    from simcards.core.rng_kernel import randbelow
    from simcards.ronda.kernel_state import HandDraw
    from simcards.ronda.play_kernel import _draw_hand
    from simcards.ronda.policies import policy_arrays

    kr = rules.kernel
    n, ns = rules.players, rules.n_sides
    arrays = policy_arrays(specs)
    hand = HandDraw(np.arange(ref.N_CARDS), np.zeros(ref.N_CARDS, np.float64),
                    np.zeros(n, np.uint64))  # the deck is kept from hand to hand, match to match

    def draw(d: int) -> tuple[list[int], np.ndarray]:
        _draw_hand(state, d, arrays, kr, hand)
        return [int(c) for c in hand.deck], hand.us.copy()

    options = ref.RondaOptions(**rules.summary())
    seats = deciders(specs)
    legal = np.zeros(ref.N_CARDS, np.int8)
    out = {name: np.zeros(shape, np.int64) for name, shape in (
        ("matches", 1), ("wins", ns), ("first_side_wins", 1), ("hands", 1), ("hands_sq", 1),
        ("length_hist", max_hands + 1), ("unfinished", 1), ("score", ns), ("score_sq", ns),
        ("points", (ns, codes.N_SOURCES)), ("cards", ns), ("hand_count", 1),
        ("hand_wins", ns), ("violations", 1))}
    for _ in range(size):
        first = dealer if dealer >= 0 else int(randbelow(state, n))
        o = play_match(options, seats, first, draw, max_hands, legal)
        out["matches"][0] += 1
        if o.winner >= 0:
            out["wins"][o.winner] += 1
            out["first_side_wins"][0] += o.winner == rules.side_of((first + 1) % n)
        else:
            out["unfinished"][0] += 1
        out["hands"][0] += o.hands
        out["hands_sq"][0] += o.hands * o.hands
        out["length_hist"][o.hands] += 1
        out["score"] += o.scores
        out["score_sq"] += o.scores * o.scores
        out["points"] += o.points
        out["cards"] += o.cards
        out["hand_count"][0] += o.finished
        out["hand_wins"] += o.hand_wins
    return out


def python_duplicate(state: np.ndarray, size: int, dealer: int, rules: RondaRules,
                     a: PolicySpec, b: PolicySpec, max_hands: int) -> dict[str, np.ndarray]:
    """``size`` deal sets on the Python engine from the chunk's stream ``state``, as
    :func:`simcards.ronda.match_kernel.simulate_duplicate` draws, seats and plays them: the
    statistics of :data:`simcards.ronda.compare_batch.DUPLICATE_STAT_NAMES`."""
    from simcards.core.rng_kernel import next_u64, randbelow, seed_state
    from simcards.ronda.compare_batch import DUPLICATE_STAT_NAMES, plays_per_set
    from simcards.ronda.kernel_state import HandDraw, MatchChance
    from simcards.ronda.match_kernel import _draw_duplicate_hand
    from simcards.ronda.policies import policy_arrays

    kr = rules.kernel
    n = rules.players
    two_sides = rules.n_sides == 2
    n_plays, mb = plays_per_set(rules)
    options = ref.RondaOptions(**rules.summary())
    legal = np.zeros(ref.N_CARDS, np.int8)
    dst = np.zeros(4, np.uint64)
    rst = np.zeros((n, 4), np.uint64)
    hand = HandDraw(np.arange(ref.N_CARDS), np.zeros(ref.N_CARDS, np.float64),
                    np.zeros(n, np.uint64))
    out = {name: np.zeros(1, np.int64) for name in DUPLICATE_STAT_NAMES}
    for _ in range(size):
        first = dealer if dealer >= 0 else int(randbelow(state, n))
        deck_seed = np.uint64(next_u64(state))
        role_seeds = np.array([next_u64(state) for _ in range(n)], np.uint64)
        wa = wb = pa = pb = ca = cb = hh = 0
        for r in range(n_plays):
            # seat p's role is its offset from A's first seat (seat r); A's roles as the kernel's
            specs = [a if ((p - r) % n == 0 or (two_sides and (p - r) % n % 2 == 0)) else b
                     for p in range(n)]
            arrays = policy_arrays(specs)
            seed_state(dst, deck_seed)
            for j in range(n):
                seed_state(rst[j], role_seeds[j])
            hand.deck[:] = np.arange(ref.N_CARDS)
            chance = MatchChance(state, dst, rst, np.int64(r), np.bool_(True), np.int64(first))

            def draw(d: int, chance=chance, arrays=arrays) -> tuple[list[int], np.ndarray]:
                _draw_duplicate_hand(chance, d, arrays, kr, hand)
                return [int(c) for c in hand.deck], hand.us.copy()

            o = play_match(options, deciders(specs), first, draw, max_hands, legal)
            a_side = rules.side_of(r)  # A's first seat is seat r
            if o.winner < 0:
                out["unfinished"][0] += 1
            elif o.winner == a_side:
                wa += 1
            else:
                wb += 1
            for t in range(rules.n_sides):
                if t == a_side:
                    pa += int(o.scores[t])
                    ca += int(o.cards[t])
                else:
                    pb += int(o.scores[t])
                    cb += int(o.cards[t])
            hh += o.hands
            out["hand_count"][0] += o.finished
        d, big_h, x, y = mb * wa - wb, mb * hh, mb * pa - pb, mb * ca - cb
        for name, value in (("deal_sets", 1), ("plays", n_plays), ("b_seats", n_plays * mb),
                            ("a_wins", wa), ("b_wins", wb), ("win_diff", d),
                            ("win_diff_sq", d * d), ("hands", hh), ("set_hands", big_h),
                            ("set_hands_sq", big_h * big_h), ("a_points", pa),
                            ("b_points", pb), ("points_diff", x), ("points_diff_sq", x * x),
                            ("points_diff_hands", x * big_h), ("a_cards", ca),
                            ("b_cards", cb), ("cards_diff", y), ("cards_diff_sq", y * y),
                            ("cards_diff_hands", y * big_h)):
            out[name][0] += value
    return out
