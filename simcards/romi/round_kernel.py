"""Römi rounds in numba (D, T, O, J, G of ``seeds/romi.md``): the deal, the turns, the
reshuffles and the scores, round after round, with the seats' policies deciding each turn.

The state of a round is a handful of int64 arrays, the *workspace* (:func:`new_workspace`):
the scalars ``st`` (slots ``S_*``), each player's hand as card ids (``hand[p, :hn[p]]``), the
opened, has-drawn and turns-played flags per player, the stock (``stock[pos:end]``, top first),
the discard pile (``pile[:pn]``, bottom first) and the table melds (``tm[m]``: owner, kind,
suit or rank, places, joker; ``tc[m]``: the real card at each place of a run, 1 .. 14, or of
each suit of a set, -1 where none). Card ids are those of :mod:`simcards.romi.cards`; the slots
and every other integer code shared with Python (``R_*``, ``S_*``, ``TM_*``, ``MV_*``, ``X_*``,
the policy kinds, scores and the turn limit) are declared in :mod:`simcards.romi.codes`.

A turn is planned by the seat's policy from its observation only (I3): its own hand, the table,
the top of the discard pile, the cut card, every player's card count and opened flag, and its
own first-draw and turn flags. The policy functions (``choose_draw`` and ``plan_turn`` of
:mod:`simcards.romi.policies_kernel`) take exactly those arrays, never the workspace, and work
on scratch copies; the engine then copies the planned hand and table back and records the moves
(rows ``MV_*``, decoded into the :mod:`simcards.romi.actions` vocabulary by
:mod:`simcards.romi.records`).

The round's kernels, from the bottom up: :mod:`~simcards.romi.melds_kernel` (the exact meld
solver, with one search workspace reused for every hand, and the cards' arithmetic),
:mod:`~simcards.romi.table_melds_kernel` (the melds on the table),
:mod:`~simcards.romi.expert_kernel` (Q5's discard), :mod:`~simcards.romi.policies_kernel` (the
policies' turns, Q1-Q5) and this module; :mod:`~simcards.romi.search_kernel` plays the
searching seats (Q7, Q8) on top of them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.rng_kernel import next_u64, randbelow, seed_state
from simcards.romi.cards import N_CARDS
from simcards.romi.codes import (
    GO_OUT,
    MV_ADD,
    MV_CARD,
    MV_CODE,
    MV_DRAW_DISCARD,
    MV_DRAW_STOCK,
    MV_SWAP,
    MV_TARGET,
    MW,
    NEVER_OPENED,
    POLICY_EXPERT,
    POLICY_RUMMY,
    POLICY_THRESHOLD,
    ROMI,
    S_CUT,
    S_DEALER,
    S_END,
    S_NM,
    S_OUT,
    S_PN,
    S_POS,
    S_ROMI,
    S_SHUF,
    S_SIZE,
    S_STALLED,
    S_TURN,
    S_TURNS,
    STALL_TURNS,
    TC_SIZE,
    TM_OWNER,
    TM_SIZE,
    X_NEXT_OPEN,
    X_ON,
    X_PILE,
    X_SIZE,
)
from simcards.romi.expert_kernel import XR_ROWS, XR_W
from simcards.romi.kernel_state import RoundLog, RoundState, RoundWork, Scratch, View
from simcards.romi.melds_kernel import kind_of, kind_pen, new_solver
from simcards.romi.policies_kernel import _row, choose_draw, kept_plan, plan_turn

HW = 20
"""Width of a hand row (a hand holds at most 16 cards, D4 plus one draw)."""
MAX_MELDS = 40
"""More than the 36 melds 108 cards can make."""
CACHE = 1 << 14
"""Entries of the solver's answer cache (:func:`solve_counts`)."""
MAX_PLAN = 96
"""Moves of one turn: at most 16 cards placed, each a row, plus swaps and their joker adds."""


# ---------------------------------------------------------------- the round


@njit(cache=True)
def new_workspace(n):
    """The arrays a round is played in (module docstring); reused round after round."""
    st = np.zeros(S_SIZE, np.int64)
    hand = np.full((n, HW), -1, np.int64)
    hn = np.zeros(n, np.int64)
    opened = np.zeros(n, np.int64)
    drawn = np.zeros(n, np.int64)
    played = np.zeros(n, np.int64)
    stock = np.zeros(N_CARDS, np.int64)
    pile = np.zeros(N_CARDS, np.int64)
    tm = np.zeros((MAX_MELDS, TM_SIZE), np.int64)
    tc = np.full((MAX_MELDS, TC_SIZE), -1, np.int64)
    return RoundState(st, hand, hn, opened, drawn, played, stock, pile, tm, tc)


@njit(cache=True)
def new_scratch():
    """A policy's scratch: plan hand, plan table, plan moves, kind counts, hand plus a card,
    kind counts, the answer of the plan the draw was chosen by (:func:`choose_draw`), the
    expert's view of the discard pile (``X_*``, Q5) and its meld list (``XR_*``)."""
    ph = np.full(HW, -1, np.int64)
    ptm = np.zeros((MAX_MELDS, TM_SIZE), np.int64)
    ptc = np.full((MAX_MELDS, TC_SIZE), -1, np.int64)
    mv = np.zeros((MAX_PLAN, MW), np.int64)
    cnt = np.zeros(52, np.int64)
    h2 = np.full(HW, -1, np.int64)
    cnt2 = np.zeros(52, np.int64)
    kept = np.zeros(6, np.int64)
    xs = np.zeros(X_SIZE, np.int64)
    xr = np.zeros((XR_ROWS, XR_W), np.int64)
    xo = np.zeros(XR_ROWS, np.int64)
    return Scratch(ph, ptm, ptc, mv, cnt, h2, cnt2, kept, xs, xr, xo)


@njit(cache=True)
def new_round_work(n, log_cap, shuf_cap, shuf_rounds):
    """A :class:`~simcards.romi.kernel_state.RoundWork` for ``n`` players whose record holds
    ``log_cap`` move rows and ``shuf_cap`` reshuffled cards in at most ``shuf_rounds``
    reshuffles (0, 0, 0: a Monte Carlo batch records nothing)."""
    log = RoundLog(np.zeros((log_cap, MW), np.int64), np.zeros(shuf_cap, np.int64),
                   np.zeros(shuf_rounds, np.int64), np.zeros(3, np.int64))
    return RoundWork(new_workspace(n), new_solver(), new_scratch(), np.zeros(4, np.uint64), log)


@njit(cache=True)
def shuffle_deck(rs, deck):
    """D3/D4: ``deck`` becomes a uniform permutation of 0 .. 107 (Fisher-Yates from the top:
    for j = 0 .. 106, swap deck[j] with deck[j + randbelow(108 - j)], starting from 0 .. 107)."""
    for j in range(N_CARDS):
        deck[j] = j
    for j in range(N_CARDS - 1):
        r = j + randbelow(rs, N_CARDS - j)
        x = deck[j]
        deck[j] = deck[r]
        deck[r] = x


@njit(cache=True)
def start_round(deck, dealer, rules, ws):
    """D3, D4: the deal from ``deck`` (top first): 15 cards to the starter (dealer + 1), then
    14 to each next player in play order, the stock the rest but the last card, which is the
    cut card."""
    st, hand, hn, opened, drawn, played, stock = ws[:7]
    n = rules.players
    for j in range(S_SIZE):
        st[j] = 0
    st[S_DEALER] = dealer
    starter = (dealer + 1) % n
    st[S_TURN] = starter
    pos = 0
    for i in range(n):
        p = (starter + i) % n
        size = 15 if i == 0 else 14
        for j in range(HW):
            hand[p, j] = -1
        for j in range(size):
            hand[p, j] = deck[pos + j]
        hn[p] = size
        pos += size
        opened[p] = 0
        drawn[p] = 0
        played[p] = 0
    m = N_CARDS - 1 - pos
    for j in range(m):
        stock[j] = deck[pos + j]
    st[S_POS] = 0
    st[S_END] = m
    st[S_CUT] = deck[N_CARDS - 1]
    st[S_PN] = 0
    st[S_NM] = 0
    st[S_OUT] = -1


@njit(cache=True)
def reshuffle(ws, rs, log):
    """T8: the discard pile but its top card becomes the stock, shuffled by Fisher-Yates over
    the pile read bottom first (for j = 0 .. m-2, swap j with j + randbelow(m - j)); the new
    stock's top is the first card after the shuffle. Records the order in ``log.shuf`` (flat)
    and its length in ``log.shuf_len`` when they have room (``log.info``: cards and reshuffles
    written). Returns False when the pile held one card or none (the round stops)."""
    shuf, shuf_len, info = log.shuf, log.shuf_len, log.info
    st, stock, pile = ws.st, ws.stock, ws.pile
    pn = st[S_PN]
    if pn <= 1:
        return False
    m = pn - 1
    for j in range(m):
        stock[j] = pile[j]
    pile[0] = pile[pn - 1]
    st[S_PN] = 1
    for j in range(m - 1):
        r = j + randbelow(rs, m - j)
        x = stock[j]
        stock[j] = stock[r]
        stock[r] = x
    st[S_POS] = 0
    st[S_END] = m
    st[S_SHUF] += 1
    if info[1] < shuf_len.shape[0] and info[0] + m <= shuf.shape[0]:
        for j in range(m):
            shuf[info[0] + j] = stock[j]
        shuf_len[info[1]] = m
        info[0] += m
        info[1] += 1
    return True


@njit(cache=True)
def prepare_seat(rules, kind, param, ws, ps, p):
    """Seat ``p``'s opening threshold ``x`` (Q2: open_min, Q4: X) and ``hold`` (Q3) for its
    turn under the policy ``(kind, param)``, and the expert's view of the discard pile in
    ``ps.xs`` (Q5; ``X_ON`` 0 for the other kinds). Returns (x, hold)."""
    st, hn, pile = ws.st, ws.hn, ws.pile
    n = rules.players
    x = rules.open_min
    if kind == POLICY_THRESHOLD:
        x = param
    hold = False
    if kind == POLICY_RUMMY:
        hold = True
        for q in range(n):
            if q != p and hn[q] <= param:
                hold = False
    xs = ps.xs
    xs[X_ON] = 1 if kind == POLICY_EXPERT else 0
    if xs[X_ON] == 1:
        xs[X_NEXT_OPEN] = ws.opened[(p + 1) % n]
        for k in range(53):
            xs[X_PILE + k] = 0
        for i in range(st[S_PN]):
            xs[X_PILE + kind_of(pile[i])] += 1
    return x, hold


@njit(cache=True)
def turn_view(rules, ws, p, x, hold):
    """Seat ``p``'s :class:`~simcards.romi.kernel_state.View` at the start of its turn (I3),
    with its threshold ``x`` and ``hold`` (:func:`prepare_seat`). D4: the starter's first turn,
    his discard, neither opens nor draws."""
    st = ws.st
    top = ws.pile[st[S_PN] - 1] if st[S_PN] > 0 else -1
    if st[S_TURNS] == 0:
        return View(p, np.bool_(False), np.bool_(False), np.bool_(False), x, np.bool_(False),
                    top, st[S_CUT], rules.ace_low, ws.tm, ws.tc, st[S_NM])
    return View(p, ws.opened[p] == 1, ws.played[p] >= 1, ws.drawn[p] == 0, x, hold, top,
                st[S_CUT], rules.ace_low, ws.tm, ws.tc, st[S_NM])


@njit(cache=True)
def take_draw(ws, work, p, choice):
    """T2-T5: the card of the draw ``choice`` (``MV_DRAW_*``) into seat ``p``'s hand, the stock
    made again from the pile when it is empty (T8, from ``work.rs``). Returns (False when the
    round stops there, the card he must meld this turn (T4) or -1)."""
    st, hand, hn, drawn, stock, pile = ws.st, ws.hand, ws.hn, ws.drawn, ws.stock, ws.pile
    must = np.int64(-1)
    if choice == MV_DRAW_STOCK:
        if st[S_POS] == st[S_END] and not reshuffle(ws, work.rs, work.log):
            return False, must
        c = stock[st[S_POS]]
        st[S_POS] += 1
    elif choice == MV_DRAW_DISCARD:
        c = pile[st[S_PN] - 1]
        st[S_PN] -= 1
        work.ps.xs[X_PILE + kind_of(c)] -= 1
        if drawn[p]:
            must = c
    else:
        c = st[S_CUT]
        st[S_CUT] = -1
    hand[p, hn[p]] = c
    hn[p] += 1
    drawn[p] = 1
    return True, must


@njit(cache=True)
def commit_turn(rules, ws, p, nm, res, ps, log, li):
    """Play seat ``p``'s planned melding and discard (``res``, :func:`plan_turn`'s answer,
    its hand, table and moves in ``ps``) on the round: its moves recorded in ``log.moves`` from
    row ``li`` while it has room (``log.info[2]`` set past them), the hand and the table copied
    back, the discard laid on the pile. ``nm``: the melds on the table before the turn. Returns
    True when he went out (G1, with the -20 of G3 noted)."""
    st, hand, hn, opened, played, pile, tm, tc = (ws.st, ws.hand, ws.hn, ws.opened, ws.played,
                                                   ws.pile, ws.tm, ws.tc)
    moves = log.moves
    cap = moves.shape[0]
    nmv, op, nh, nm2, out = res
    ph, ptm, ptc, mv = ps.ph, ps.ptm, ps.ptc, ps.mv
    romi = out and opened[p] == 0
    for i in range(nmv):
        code = mv[i, MV_CODE]
        # G3: a card added to a meld laid by another player (one already on the table) cancels
        # the -20; a swap does too unless the rules read G3 as "his own new melds" only.
        if (code == MV_SWAP and rules.swap_romi == 0) or (
                code == MV_ADD and mv[i, MV_TARGET] < nm
                and tm[mv[i, MV_TARGET], TM_OWNER] != p):
            romi = False
        if li < cap:
            moves[li, :] = mv[i]
        li += 1
    log.info[2] = li
    for j in range(HW):
        hand[p, j] = ph[j] if j < nh else -1
    hn[p] = nh
    for m in range(nm2):
        for j in range(TM_SIZE):
            tm[m, j] = ptm[m, j]
        for j in range(TC_SIZE):
            tc[m, j] = ptc[m, j]
    st[S_NM] = nm2
    opened[p] = 1 if op else 0
    pile[st[S_PN]] = mv[nmv - 1, MV_CARD]
    st[S_PN] += 1
    played[p] += 1
    if out:
        st[S_OUT] = p
        st[S_ROMI] = 1 if romi else 0
    return out


@njit(cache=True, inline="always")
def record_draw(ws, work, p, choice, li):
    """Player p's draw ``choice`` taken (:func:`take_draw`) and recorded in row ``li`` of
    ``work.log`` when it has room. Returns (whether the round goes on, the card he must meld or
    -1, the log's next row)."""
    ok, must = take_draw(ws, work, p, choice)
    if not ok:
        return ok, must, li
    log = work.log.moves
    if li < log.shape[0]:
        _row(log, li, p, choice, -1, -1, -1)
    return ok, must, li + 1


@njit(cache=True)
def play_turn(rules, seats, work):
    """One turn of the player to move (T1-T7), recorded in ``work.log`` from row
    ``log.info[2]`` when it has room. Returns 0 to go on, 1 when he went out (G1), 2 when the
    round stops (T8)."""
    ws, sv, ps = work.ws, work.sv, work.ps
    st, hand, hn = ws.st, ws.hand, ws.hn
    p = st[S_TURN]
    x, hold = prepare_seat(rules, seats.kinds[p], seats.params[p], ws, ps, p)
    nm = st[S_NM]
    li = work.log.info[2]
    view = turn_view(rules, ws, p, x, hold)
    if st[S_TURNS] == 0:
        res = plan_turn(hand[p], hn[p], np.int64(-1), view, sv, ps)
    else:
        choice = choose_draw(hand[p], hn[p], view, sv, ps)
        ok, must, li = record_draw(ws, work, p, choice, li)
        if not ok:
            return 2
        if choice != MV_DRAW_STOCK and ps.kept[5] == 1:
            res = kept_plan(ps.kept)
        else:
            res = plan_turn(hand[p], hn[p], must, view, sv, ps)
    if commit_turn(rules, ws, p, nm, res, ps, work.log, li):
        return 1
    return 0


@njit(cache=True)
def score_round(rules, ws, scores):
    """G2-G5: -10 or -20 for the player out, 100 for a player never opened, else the penalty
    (M7) of the cards in hand."""
    st, hand, hn, opened = ws.st, ws.hand, ws.hn, ws.opened
    for p in range(rules.players):
        if p == st[S_OUT]:
            scores[p] = ROMI if st[S_ROMI] else GO_OUT
        elif not opened[p]:
            scores[p] = NEVER_OPENED
        else:
            s = 0
            for i in range(hn[p]):
                s += kind_pen(kind_of(hand[p, i]))
            scores[p] = s


@njit(cache=True)
def play_round(deck, dealer, rules, seats, work, max_turns):
    """A whole round from ``deck`` and ``dealer`` (or its first ``max_turns`` turns) in
    ``work`` (:class:`~simcards.romi.kernel_state.RoundWork`), the reshuffles drawn from its
    stream ``work.rs``. Ends when a player goes out (G1), at T8's stop or at T9's 1,000 turns
    (stalled)."""
    ws = work.ws
    st = ws.st
    start_round(deck, dealer, rules, ws)
    work.log.info[:] = 0
    while st[S_TURNS] < max_turns and not stall_reached(st):
        if not turn_played(st, play_turn(rules, seats, work), rules.players):
            break


@njit(cache=True, inline="always")
def stall_reached(st):
    """T9: the round has played its 1,000 turns; it is marked stalled and stops."""
    if st[S_TURNS] >= STALL_TURNS:
        st[S_STALLED] = 1
        return True
    return False


@njit(cache=True, inline="always")
def turn_played(st, status, n):
    """After a turn of status ``status`` (:func:`play_turn`'s): a round stopped by T8 is marked
    stalled; else the turn is counted and, unless the player went out, the next player (to the
    left) is to move. Returns True while the round goes on."""
    if status == 2:
        st[S_STALLED] = 1
        return False
    st[S_TURNS] += 1
    if status == 1:
        return False
    st[S_TURN] = (st[S_TURN] + 1) % n
    return True


@njit(cache=True)
def round_chance(state, n, dealer):
    """The chance of one round from the batch stream: its dealer (``randbelow(players)`` when
    ``dealer < 0``) and the seed of the round's own stream (one 64-bit word), in that order."""
    if dealer < 0:
        dealer = randbelow(state, n)
    return dealer, next_u64(state)


@njit(cache=True)
def simulate_rounds(state, n_rounds, rules, seats, dealer):
    """Monte Carlo rounds. Per round, from the batch stream ``state``: the dealer (drawn when
    ``dealer < 0``) and a seed; from the round's own stream (``seed_state(seed)``): the deck
    (:func:`shuffle_deck`), then every T8 reshuffle. Returns per-round arrays: (scores [r, n],
    went_out [r] (-1 none), romi [r], never_opened [r, n], turns [r], stalled [r], dealers
    [r])."""
    n = rules.players
    work = new_round_work(n, np.int64(0), np.int64(0), np.int64(0))
    rs = work.rs
    deck = np.zeros(N_CARDS, np.int64)
    out = new_results(n_rounds, n)
    for r in range(n_rounds):
        d, seed = round_chance(state, n, dealer)
        seed_state(rs, seed)
        shuffle_deck(rs, deck)
        play_round(deck, d, rules, seats, work, STALL_TURNS + 1)
        note_round(out, r, rules, work.ws, d)
    return out


@njit(cache=True)
def new_results(n_rounds, n):
    """:func:`simulate_rounds`' per-round arrays: (scores [r, n], went_out [r] (-1 none),
    romi [r], never_opened [r, n], turns [r], stalled [r], dealers [r])."""
    return (np.zeros((n_rounds, n), np.int64), np.full(n_rounds, -1, np.int64),
            np.zeros(n_rounds, np.int64), np.zeros((n_rounds, n), np.int64),
            np.zeros(n_rounds, np.int64), np.zeros(n_rounds, np.int64),
            np.zeros(n_rounds, np.int64))


@njit(cache=True)
def note_round(out, r, rules, ws, dealer):
    """Round ``r``, played in ``ws`` with ``dealer``, into the per-round arrays ``out``
    (:func:`new_results`), scored by G2-G5."""
    scores, went_out, romi, never, turns, stalled, dealers = out
    st = ws.st
    score_round(rules, ws, scores[r])
    went_out[r] = st[S_OUT]
    romi[r] = st[S_ROMI]
    for p in range(rules.players):
        never[r, p] = 1 - ws.opened[p]
    turns[r] = st[S_TURNS]
    stalled[r] = st[S_STALLED]
    dealers[r] = dealer


@njit(cache=True)
def simulate_games(state, n_games, rules, seats):
    """Monte Carlo games of ``rules.rounds`` rounds (D5, G6). Per game, from ``state``: the
    first dealer (``randbelow(players)``), then one seed per round (each round's own stream,
    as in :func:`simulate_rounds`); the deal moves one seat to the left each round. Returns
    (totals [g, n], winners [g, n]: 1 for every player with the lowest total, shared wins
    included)."""
    n = rules.players
    work = new_round_work(n, np.int64(0), np.int64(0), np.int64(0))
    ws = work.ws
    rs = work.rs
    deck = np.zeros(N_CARDS, np.int64)
    scores = np.zeros(n, np.int64)
    totals = np.zeros((n_games, n), np.int64)
    winners = np.zeros((n_games, n), np.int64)
    for g in range(n_games):
        d0 = randbelow(state, n)
        for r in range(rules.rounds):
            d = (d0 + r) % n
            seed = next_u64(state)
            seed_state(rs, seed)
            shuffle_deck(rs, deck)
            play_round(deck, d, rules, seats, work, STALL_TURNS + 1)
            score_round(rules, ws, scores)
            for p in range(n):
                totals[g, p] += scores[p]
        low = totals[g, 0]
        for p in range(1, n):
            if totals[g, p] < low:
                low = totals[g, p]
        for p in range(n):
            winners[g, p] = 1 if totals[g, p] == low else 0
    return totals, winners
