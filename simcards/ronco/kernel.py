"""numba kernels for one Ronco round (rules R1-R10, policies S1-S3).

The round is split in two so that the Monte Carlo loop, the exact enumerator and the game kernel
share one implementation of the rules:

* :func:`act` plays positions 0 .. n-2 and the dealer's decision on an array of strengths;
* :func:`resolve` applies the cut (R6, R7) and finds the losers (R8-R10).

Everything works on card *strengths* (C2, C4), not card identities: nothing in the rules looks at
suits once the Poroli card has strength 0.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.rng import randbelow, uniform
from simcards.ronco.codes import CUT_KING_LOSES as _LOSES
from simcards.ronco.codes import CUT_KING_NONE as _NONE
from simcards.ronco.codes import FLAG_ALL_TIE as ALL_TIE
from simcards.ronco.codes import FLAG_CUT as CUT
from simcards.ronco.codes import FLAG_CUT_KING_FIRED as CUT_KING_FIRED
from simcards.ronco.codes import RANDOM as _RANDOM
from simcards.ronco.codes import THRESHOLD as _THRESHOLD
from simcards.ronco.codes import TIES_ALL as _TIES_ALL
from simcards.ronco.codes import TIES_FIRST as _TIES_FIRST


@njit(cache=True, inline="always")
def _keeps(kind, t, td, p, u, c, pos, dealer, swapped, d, ties, cut_king, below, counts):
    """One decision: True to keep (a dealer: not to cut). S1, S2 and S3."""
    if kind == _RANDOM:
        return u < p
    thr = td if dealer else t
    if kind == _THRESHOLD:
        return c >= thr
    # S2a: the previous position holds, for good, the card dealt to us.
    if swapped and (d < c or (ties == _TIES_FIRST and d == c)):
        return True
    # S2b: no unseen card is lower (d < c was handled above, so every lower card is unseen).
    if below[c] == 0:
        proven = True
        if not dealer and cut_king == _LOSES:
            proven = False
        elif ties == _TIES_FIRST:
            equal_unseen = counts[c] - 1
            if swapped and d == c:
                equal_unseen -= 1
            if dealer:
                proven = equal_unseen == 0
            else:
                proven = equal_unseen == 0 or pos == 0 or (pos == 1 and swapped)
        if proven:
            return False
    return c >= thr


@njit(cache=True, inline="always")
def act(hold, n, kind, t, td, p, u, top, ties, cut_king, below, counts):
    """Play positions 0 .. n-2 in place on ``hold`` (strengths by position); return True when
    the dealer cuts.

    ``kind``/``t``/``td``/``p`` are indexed by position; ``u`` holds one uniform per position for
    random policies. R2-R5: a pass swaps with the next position unless that player holds the top
    rank (refusal); the passer's card is final either way.
    """
    swapped = False
    d = -1
    for i in range(n - 1):
        c = hold[i]
        if _keeps(kind[i], t[i], td[i], p[i], u[i], c, i, False, swapped, d, ties, cut_king,
                  below, counts) or hold[i + 1] == top:
            swapped = False
        else:  # R3: swap; position i now holds, for good, the card dealt to i+1
            hold[i] = hold[i + 1]
            hold[i + 1] = c
            swapped = True
            d = hold[i]
    i = n - 1
    return not _keeps(kind[i], t[i], td[i], p[i], u[i], hold[i], i, True, swapped, d, ties,
                      cut_king, below, counts)


@njit(cache=True, inline="always")
def resolve(hold, n, cut, cut_strength, top, ties, cut_king, lost):
    """Apply the dealer's cut and find the losers.

    Writes lives lost by position into ``lost`` (0, 1, or 2 for the Poroli holder, R10) and
    returns flags: ALL_TIE (R9), CUT_KING_FIRED (R7 loses), CUT (the dealer cut).
    """
    flags = 0
    dealer = n - 1
    for i in range(n):
        lost[i] = 0
    if cut:
        flags |= CUT
        if cut_strength == top and cut_king != _NONE:
            if cut_king == _LOSES:  # R7 loses: he takes the card and is the sole loser
                hold[dealer] = cut_strength
                lost[dealer] = 1
                return flags | CUT_KING_FIRED
            # R7 blocked: the top card is not taken
        else:
            hold[dealer] = cut_strength
    low = hold[0]
    high = hold[0]
    for i in range(1, n):
        h = hold[i]
        if h < low:
            low = h
        if h > high:
            high = h
    if low == high:
        flags |= ALL_TIE
    hit = 2 if low == 0 else 1  # strength 0 exists only for the Poroli card (C4, R10)
    if ties == _TIES_ALL:
        for i in range(n):
            if hold[i] == low:
                lost[i] = hit
    else:
        for i in range(n):
            if hold[i] == low:
                lost[i] = hit
                break
    return flags


@njit(cache=True, inline="always")
def play_round(hold, cut_strength, n, kind, t, td, p, u, top, ties, cut_king, below, counts,
               lost):
    """A whole round on given strengths; returns resolve()'s flags."""
    cut = act(hold, n, kind, t, td, p, u, top, ties, cut_king, below, counts)
    return resolve(hold, n, cut, cut_strength, top, ties, cut_king, lost)


@njit(cache=True)
def deal(state, perm, k):
    """R3/T3: a partial Fisher-Yates shuffle; ``perm[:k]`` becomes a uniform random k-sample.

    ``perm`` is any permutation of the deck and is kept between deals: a partial shuffle of a
    permutation is as good as one of the sorted deck, and it saves a reset per round.
    """
    m = perm.shape[0]
    for j in range(k):
        r = j + randbelow(state, m - j)
        x = perm[j]
        perm[j] = perm[r]
        perm[r] = x


@njit(cache=True)
def simulate_rounds(state, rounds, n, kind, t, td, p, strengths, top, ties, cut_king, below,
                    counts):
    """Monte Carlo: ``rounds`` deals from the stream ``state``.

    Returns ``(lost_count, double_count, tallies)``: rounds lost and double losses by position,
    and ``tallies = [all_tie, cut, cut_king_fired]``. The stream is consumed as: n+1 cards
    (positions 0..n-1, then the cut card), then one uniform per random-policy position in
    position order.
    """
    # Shuffling the strengths themselves (rather than card indices) saves a lookup per card
    # and deals exactly what shuffling card indices would, draw for draw.
    deck = strengths.copy()
    hold = np.empty(n, np.int64)
    u = np.zeros(n, np.float64)
    lost = np.empty(n, np.int64)
    lost_count = np.zeros(n, np.int64)
    double_count = np.zeros(n, np.int64)
    tallies = np.zeros(3, np.int64)
    any_random = False
    for i in range(n):
        if kind[i] == _RANDOM:
            any_random = True
    for _ in range(rounds):
        deal(state, deck, n + 1)
        for i in range(n):
            hold[i] = deck[i]
        if any_random:
            for i in range(n):
                if kind[i] == _RANDOM:
                    u[i] = uniform(state)
        flags = play_round(hold, deck[n], n, kind, t, td, p, u, top, ties, cut_king,
                           below, counts, lost)
        for i in range(n):  # branch-free tallies: this loop runs for every round
            lost_count[i] += lost[i] > 0
            double_count[i] += lost[i] == 2
        tallies[0] += (flags & ALL_TIE) != 0
        tallies[1] += (flags & CUT) != 0
        tallies[2] += (flags & CUT_KING_FIRED) != 0
    return lost_count, double_count, tallies


@njit(cache=True)
def record_deals(state, rounds, n, kind, n_cards):
    """The deals :func:`simulate_rounds` would play from ``state``, as card indices.

    Returns ``cards`` (rounds x (n+1): positions, then the cut card) and ``u`` (rounds x n), so
    that an independent engine can replay exactly the same deals.
    """
    perm = np.arange(n_cards)
    cards = np.empty((rounds, n + 1), np.int64)
    us = np.zeros((rounds, n), np.float64)
    for r in range(rounds):
        deal(state, perm, n + 1)
        for j in range(n + 1):
            cards[r, j] = perm[j]
        for i in range(n):
            if kind[i] == _RANDOM:
                us[r, i] = uniform(state)
    return cards, us


@njit(cache=True)
def replay_rounds(cards, us, n, kind, t, td, p, strengths, top, ties, cut_king, below, counts):
    """Play given deals; returns lives lost (rounds x n), flags and final strengths."""
    rounds = cards.shape[0]
    lost_all = np.zeros((rounds, n), np.int64)
    flags = np.zeros(rounds, np.int64)
    finals = np.zeros((rounds, n), np.int64)
    hold = np.empty(n, np.int64)
    lost = np.empty(n, np.int64)
    for r in range(rounds):
        for i in range(n):
            hold[i] = strengths[cards[r, i]]
        flags[r] = play_round(hold, strengths[cards[r, n]], n, kind, t, td, p, us[r], top, ties,
                              cut_king, below, counts, lost)
        for i in range(n):
            lost_all[r, i] = lost[i]
            finals[r, i] = hold[i]
    return lost_all, flags, finals
