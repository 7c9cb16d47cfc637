"""The recorded rounds and single turns of :mod:`simcards.romi.records`, in numba: a round from
the seed of its own stream with every move logged (:func:`record_round`), the chance of a batch
of rounds as :func:`simcards.romi.round_kernel.simulate_rounds` draws it (:func:`round_chances`),
a round's final table in canonical form (:func:`final_table`), and one turn, or one searching
turn, played on a given position (:func:`one_turn`, :func:`one_search_turn`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.rng_kernel import seed_state
from simcards.romi import codes
from simcards.romi.cards import N_CARDS
from simcards.romi.kernel_state import RoundWork
from simcards.romi.round_kernel import (
    MAX_PLAN,
    new_round_work,
    play_round,
    play_turn,
    round_chance,
    score_round,
    shuffle_deck,
)
from simcards.romi.search_kernel import new_search_work, search_turn
from simcards.romi.table_melds_kernel import meld_cards

LOG_CAP = 4000
"""Move rows of one round: at most 1,000 draws and 1,000 discards (T9) plus one row per card
laid, added or swapped (each real card reaches the table once, a joker at most once per swap)."""
SHUF_CAP = 1200
"""Cards of all of a round's new stocks: every card of a new stock is drawn before the next
reshuffle, so they are at most the 1,000 turns' draws plus the last stock."""


@njit(cache=True)
def record_round(seed, dealer, rules, seats, max_turns):
    """One round from the seed of its own stream (deck, then reshuffles) with every move
    logged. Returns (deck, log rows, reshuffle cards, reshuffle lengths, scores, workspace)."""
    n = rules.players
    work = new_round_work(n, np.int64(LOG_CAP), np.int64(SHUF_CAP),
                            np.int64(codes.STALL_TURNS + 1))
    ws = work.ws
    rs = work.rs
    seed_state(rs, seed)
    deck = np.zeros(N_CARDS, np.int64)
    shuffle_deck(rs, deck)
    play_round(deck, dealer, rules, seats, work, max_turns)
    log = work.log.moves
    shuf = work.log.shuf
    shuf_len = work.log.shuf_len
    info = work.log.info
    if info[2] > LOG_CAP:
        raise ValueError("record_round: move log overflow")
    if info[1] != ws.st[codes.S_SHUF]:
        raise ValueError("record_round: reshuffle record overflow")
    scores = np.zeros(n, np.int64)
    score_round(rules, ws, scores)
    return (deck, log[:info[2]].copy(), shuf[:info[0]].copy(), shuf_len[:info[1]].copy(),
            scores, ws)

@njit(cache=True)
def round_chances(state, n_rounds, n, dealer):
    dealers = np.zeros(n_rounds, np.int64)
    seeds = np.zeros(n_rounds, np.uint64)
    for r in range(n_rounds):
        d, s = round_chance(state, n, dealer)
        dealers[r] = d
        seeds[r] = s
    return dealers, seeds

@njit(cache=True)
def final_table(ws):
    """Final table in canonical form: (owners, cards [m, 14] padded -1, counts, stands)."""
    st, tm, tc = ws.st, ws.tm, ws.tc
    nm = st[codes.S_NM]
    owners = np.zeros(nm, np.int64)
    cards = np.full((nm, 14), -1, np.int64)
    counts = np.zeros(nm, np.int64)
    stands = np.zeros(nm, np.int64)
    for m in range(nm):
        owners[m] = tm[m, codes.TM_OWNER]
        counts[m], stands[m] = meld_cards(tm, tc, m, cards[m])
    return owners, cards, counts, stands

@njit(cache=True)
def _turn_work(rules, ws, seed):
    """The work of one turn played on the position ``ws``, its stream seeded by ``seed`` and
    its log sized for one turn."""
    w0 = new_round_work(rules.players, np.int64(MAX_PLAN + 1), np.int64(N_CARDS),
                          np.int64(1))
    work = RoundWork(ws, w0.sv, w0.ps, w0.rs, w0.log)
    seed_state(work.rs, seed)
    return work


@njit(cache=True)
def _turn_log(work):
    """The turn's moves and, if T8 reshuffled, the new stock order, as :func:`_turn_work`'s
    log holds them."""
    info = work.log.info
    return work.log.moves[:info[2]].copy(), work.log.shuf[:info[0]].copy()


@njit(cache=True)
def one_turn(rules, seats, ws, seed):
    work = _turn_work(rules, ws, seed)
    status = play_turn(rules, seats, work)
    moves, shuf = _turn_log(work)
    return status, moves, shuf

@njit(cache=True)
def one_search_turn(rules, seats, ws, seed, search_seed, drop_z):
    work = _turn_work(rules, ws, seed)
    sw = new_search_work(rules.players, drop_z)
    seed_state(sw.ss, search_seed)
    status = search_turn(rules, seats, work, sw)
    moves, shuf = _turn_log(work)
    return status, moves, shuf
