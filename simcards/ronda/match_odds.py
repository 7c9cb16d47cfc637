"""The rest of a match after a hand, for ``ronda advise``'s match win probability (Q12).

Once a hand ends, what is left of a points match (S4) is a run of fresh hands, each shuffled
anew, whose points are added to the scores until a side is alone at the top at or past the
target. With ``greedy`` at every seat (Q3) a hand's points do not depend on the scores (greedy
reads only the hand) and only the dealer changes from hand to hand (D3), so the rest of the
match is a chain of independent draws of a hand's points given its dealer. A *pool* of hands
per dealer, played by the compiled engine (the same deals and play as ``ronda hands``), gives
those draws: a continuation draws each next hand's point vector uniformly from the pool of its
dealer, with replacement. The points are the hands' whole points, announcements included (they
count in a match, S2).

A classic match (C3) is the same chain with hands won in place of points: a greedy hand's
winner by captured cards (C2: strictly the most, else none) does not depend on the hands won
either, so a pool's hand adds one hand won to its winner's side (nothing on a tie), and the
match ends when a side reaches ``hands_to_win``.

The target is checked at the end of each hand (S4), also under ``target_check=immediate``
(S5): a pool keeps each hand's points, not the order they came in, so the check points inside
a later hand are not made here (the advisor makes those of the hand in progress, Q12)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from simcards.ronda.rules import RondaRules

POOL_HANDS = 4096
"""Greedy hands per dealer in a pool: enough that the pool's own error (a proportion from
4096 hands) is small beside the interval of a few hundred search iterations."""
CONTINUATIONS = 256
"""The rest of the match is drawn this many times from every end of the hand."""
MAX_HANDS = 200
"""A continuation still undecided after this many more hands is counted as not won (no match
of the pools' kind lasts that long: ``matches``' own cap)."""
STREAM = 45
"""The random stream of the pools (apart from every other command's)."""


def classic(rules: RondaRules) -> bool:
    """C1: nothing scores; a match counts hands won (C3)."""
    return rules.mode == "classic"


def captured_counts(masks: np.ndarray) -> np.ndarray:
    """The number of cards in each bit mask of captured cards (``replay``'s, Ultima
    included)."""
    bits = (masks[..., None] >> np.arange(40, dtype=np.int64)) & 1
    return bits.sum(axis=-1)


def hand_winners(counts: np.ndarray) -> np.ndarray:
    """C2 row by row: one hand won (1) for the side with strictly the most captured cards,
    none (all 0) on a tie for the most."""
    top = counts.max(axis=-1, keepdims=True)
    alone = (counts == top).sum(axis=-1, keepdims=True) == 1
    return ((counts == top) & alone).astype(np.int64)


@functools.lru_cache(maxsize=8)
def hand_pool(rules: RondaRules, seed: int) -> np.ndarray:
    """``[dealer, hand, side]``: what each of :data:`POOL_HANDS` greedy hands dealt by each
    dealer adds to the match, from ``seed`` (the compiled engine: ``record_hands`` then
    ``replay``): its points (S2), or in classic mode its one hand won (C2, nothing on a
    tie)."""
    from simcards.core.rng import chunk_state
    from simcards.ronda.play_kernel import record_hands, replay
    from simcards.ronda.policies import policy_arrays

    seats = policy_arrays(["greedy"] * rules.players)
    out = np.zeros((rules.players, POOL_HANDS, rules.n_sides), np.int64)
    for d in range(rules.players):
        decks, dealers, us, seeds = record_hands(chunk_state(seed, d, stream=STREAM),
                                                 POOL_HANDS, d, seats, rules.kernel)
        played = replay(decks, dealers, us, seeds, seats, rules.kernel)
        out[d] = (hand_winners(captured_counts(played[4])) if classic(rules)
                  else played[3].sum(axis=2))
    return out


def leaders(totals: np.ndarray, target: int) -> np.ndarray:
    """S4 row by row: the side alone at the top at or past ``target``, else -1."""
    top = totals.max(axis=1)
    alone = (totals == top[:, None]).sum(axis=1) == 1
    return np.where(alone & (top >= target), totals.argmax(axis=1), -1)


def decided(totals: np.ndarray, rules: RondaRules) -> np.ndarray:
    """Row by row, the side that has won the match, else -1: S4 on the scores, or in classic
    mode C3 on the hands won (one hand at a time, so at most one side reaches
    ``hands_to_win``)."""
    if not classic(rules):
        return leaders(totals, rules.target)
    reached = totals >= rules.hands_to_win
    return np.where(reached.any(axis=1), reached.argmax(axis=1), -1)


def rest_of_match(rules: RondaRules, totals: Sequence[Sequence[int]], dealer: int, side: int,
                  seed: int, *, k: int = CONTINUATIONS, draws: bool = False) -> np.ndarray:
    """For each row of ``totals`` (the scores, or in classic mode the hands won, at the end of
    a hand dealt by ``dealer``): the share of ``k`` draws of the rest of the match (module
    docstring) that ``side`` wins, 1 or 0 where the hand itself ends the match (S4, C3); with
    ``draws``, each draw's 1 or 0 instead (``[row, draw]``)."""
    pool = hand_pool(rules, seed)
    start = np.asarray(totals, np.int64).reshape(-1, rules.n_sides)
    scores = np.repeat(start, k, axis=0)
    winner = decided(scores, rules)
    rng = np.random.default_rng([seed, STREAM, dealer])
    d = dealer
    for _ in range(MAX_HANDS):
        live = np.flatnonzero(winner < 0)
        if not live.size:
            break
        d = (d + 1) % rules.players  # D3: the next dealer
        scores[live] += pool[d, rng.integers(0, POOL_HANDS, live.size)]
        winner[live] = decided(scores[live], rules)
    won = (winner == side).reshape(-1, k).astype(np.float64)
    return won if draws else won.mean(axis=1)
