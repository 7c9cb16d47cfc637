"""The questions study's kernel (:mod:`simcards.romi.reports.questions`): the rounds of
:func:`simcards.romi.round_kernel.simulate_rounds`, played turn by turn with what the study notes
per round and player, and each round played again with one joker exchanged.

Compiled code, so it lives with the game's other kernels and not beside the page: editing the
page then leaves numba's cache alone."""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.rng_kernel import randbelow, seed_state
from simcards.romi import codes
from simcards.romi import round_kernel as E
from simcards.romi.cards import JOKER0, N_CARDS
from simcards.romi.kernel_state import DrawNotes
from simcards.romi.melds_kernel import fill_counts, solve_counts

SEL_SALT = 0x9E3779B97F4A7C15
"""Mixed into a round's seed for the joker exchange's own stream (never the round's)."""


@njit(cache=True)
def _deal_features(ws, rules, sv, cnt, value, jokers):
    """Each dealt hand's ``best_value`` (V1) and jokers."""
    hand, hn = ws.hand, ws.hn
    for p in range(rules.players):
        jk = fill_counts(hand[p], hn[p], cnt)
        bv, _mp, _go = solve_counts(cnt, jk, rules.ace_low, sv)
        value[p] = bv
        jokers[p] = jk


@njit(cache=True)
def _play(deck, dealer, rules, seats, work, notes):
    """:func:`simcards.romi.round_kernel.play_round` turn by turn (the same calls in the same
    order), writing its :class:`~simcards.romi.kernel_state.DrawNotes` into ``notes``."""
    ws = work.ws
    st, opened, tm = ws.st, ws.opened, ws.tm
    log = work.log.moves
    info = work.log.info
    open_draw, first_disc, later_disc, draws, flags = notes
    n = rules.players
    E.start_round(deck, dealer, rules, ws)
    info[:] = 0
    for p in range(n):
        open_draw[p] = 0
        first_disc[p] = 0
        later_disc[p] = 0
        draws[p] = 0
    flags[0] = 0
    flags[1] = 0
    while st[codes.S_TURNS] < codes.STALL_TURNS + 1:
        if st[codes.S_TURNS] >= codes.STALL_TURNS:
            st[codes.S_STALLED] = 1
            break
        p = st[codes.S_TURN]
        t = st[codes.S_TURNS]
        was_open = opened[p]
        nm = st[codes.S_NM]
        info[2] = 0
        status = E.play_turn(rules, seats, work)
        if status == 2:
            st[codes.S_STALLED] = 1
            break
        if t > 0:
            draws[p] += 1
            code = log[0, codes.MV_CODE]
            if code == codes.MV_DRAW_DISCARD:
                if draws[p] == 1:
                    first_disc[p] = 1
                else:
                    later_disc[p] += 1
            elif code == codes.MV_DRAW_CUT:
                flags[0] = 1
        if was_open == 0 and opened[p] == 1:
            open_draw[p] = draws[p]
        st[codes.S_TURNS] += 1
        if status == 1:
            if was_open == 0:
                # G3 read the other way: a swap decides, adds to others' melds cancel in both.
                alt = True
                for i in range(info[2]):
                    code = log[i, codes.MV_CODE]
                    target = log[i, codes.MV_TARGET]
                    if code == codes.MV_ADD and target < nm and tm[target, codes.TM_OWNER] != p:
                        alt = False
                    if code == codes.MV_SWAP and rules.swap_romi == 1:
                        alt = False
                flags[1] = 1 if alt else 0
            break
        st[codes.S_TURN] = (st[codes.S_TURN] + 1) % n


@njit(cache=True)
def _exchange(deck, dealer, n, focus, rs):
    """The joker exchange for seat ``focus`` (module docstring), in place on ``deck``.
    Returns +1 when a joker was given, -1 when one was taken away."""
    starter = (dealer + 1) % n
    i = (focus - starter) % n
    lo = 0 if i == 0 else 15 + 14 * (i - 1)
    hi = lo + (15 if i == 0 else 14)
    nj = 0
    for j in range(lo, hi):
        if deck[j] >= JOKER0:
            nj += 1
    if nj > 0:
        pick = randbelow(rs, nj)
        a = -1
        for j in range(lo, hi):
            if deck[j] >= JOKER0:
                if pick == 0:
                    a = j
                    break
                pick -= 1
        while True:
            b = randbelow(rs, N_CARDS)
            if (b < lo or b >= hi) and deck[b] < JOKER0:
                break
        sign = -1
    else:
        a = lo + randbelow(rs, hi - lo)
        while True:
            b = randbelow(rs, N_CARDS)
            if deck[b] >= JOKER0:
                break
        sign = 1
    x = deck[a]
    deck[a] = deck[b]
    deck[b] = x
    return sign


@njit(cache=True)
def question_rounds(state, n_rounds, rules, seats, dealer):
    """The rounds :func:`simcards.romi.round_kernel.simulate_rounds` plays from ``state`` (the same
    stream use), with per-round arrays: scores [r, n], went_out [r], dealt value [r, n], dealt
    jokers [r, n], open_draw [r, n], first_disc [r, n], later_disc [r, n], draws [r, n], flags
    [r, 2] (cut card ended it, -20 under the other G3 reading), and the joker exchange: focus
    seat [r], sign [r] (+1 given, -1 taken), the focus seat's score after it [r]."""
    n = rules.players
    work = E.new_round_work(n, np.int64(E.MAX_PLAN + 1), np.int64(0), np.int64(0))
    ws, sv, rs = work.ws, work.sv, work.rs
    sel = np.zeros(4, np.uint64)
    deck = np.zeros(N_CARDS, np.int64)
    deck2 = np.zeros(N_CARDS, np.int64)
    cnt = np.zeros(52, np.int64)
    scores = np.zeros((n_rounds, n), np.int64)
    went_out = np.full(n_rounds, -1, np.int64)
    value = np.zeros((n_rounds, n), np.int64)
    jokers = np.zeros((n_rounds, n), np.int64)
    open_draw = np.zeros((n_rounds, n), np.int64)
    first_disc = np.zeros((n_rounds, n), np.int64)
    later_disc = np.zeros((n_rounds, n), np.int64)
    draws = np.zeros((n_rounds, n), np.int64)
    flags = np.zeros((n_rounds, 2), np.int64)
    focus = np.zeros(n_rounds, np.int64)
    sign = np.zeros(n_rounds, np.int64)
    alt_score = np.zeros(n_rounds, np.int64)
    d_open = np.zeros(n, np.int64)
    d_first = np.zeros(n, np.int64)
    d_later = np.zeros(n, np.int64)
    d_draws = np.zeros(n, np.int64)
    d_flags = np.zeros(2, np.int64)
    s2 = np.zeros(n, np.int64)
    st = ws.st
    for r in range(n_rounds):
        d, seed = E.round_chance(state, n, dealer)
        seed_state(rs, seed)
        E.shuffle_deck(rs, deck)
        E.start_round(deck, d, rules, ws)
        _deal_features(ws, rules, sv, cnt, value[r], jokers[r])
        _play(deck, d, rules, seats, work,
              DrawNotes(open_draw[r], first_disc[r], later_disc[r], draws[r], flags[r]))
        E.score_round(rules, ws, scores[r])
        went_out[r] = st[codes.S_OUT]
        # The joker exchange, from its own stream; the replay's reshuffles from the round's.
        seed_state(sel, seed ^ np.uint64(SEL_SALT))
        f = randbelow(sel, n)
        for j in range(N_CARDS):
            deck2[j] = deck[j]
        sign[r] = _exchange(deck2, d, n, f, sel)
        focus[r] = f
        seed_state(rs, seed)
        E.shuffle_deck(rs, deck)
        _play(deck2, d, rules, seats, work, DrawNotes(d_open, d_first, d_later, d_draws, d_flags))
        E.score_round(rules, ws, s2)
        alt_score[r] = s2[f]
    return (scores, went_out, value, jokers, open_draw, first_disc, later_disc, draws, flags,
            focus, sign, alt_score)
