"""Römi's searching seats: ``search:N`` (Q7 of ``seeds/romi.md``) and the all-seeing bound
``seeing:N`` (Q8), played in numba.

A searching seat plays each turn in two decisions, each by *determinized play-outs*: every
candidate is tried on the same N samples, each sample a state the seat cannot tell from the true
one (I3: its own hand, the table, the pile and the cut card as they are, every card it has not
seen dealt at random into the other hands and the stock, ``_sample``), played to the end of the
round by ``greedy`` seats (Q2, the fastest engine player). A sample's value to the seat is the
mean round score of the others minus its own (G2-G5: a point conceded is a point lost, whoever
scores it). A candidate replaces ``expert``'s (the first) only when its mean gain over it on the
same samples is clearly above 0 (:data:`MARGIN_Z`, :func:`_best`), so that a search that finds
nothing clearly better plays as ``expert`` (Q5). A candidate clearly below it is dropped on the
way (:data:`DROP_Z`, :func:`_drop`): most of the discards weighed are, and dropping them makes
the search about twice as fast for the same choices.

1. *The draw* (T2-T5): ``expert``'s draw, and the stock when that is not the stock; at a first
   draw (T3) the top discard too, when ``expert`` draws from the stock. Each candidate's sample
   draws, plans the rest of the turn as ``expert`` and is played out.
2. *The melding and discard* (T6, T7), once the card is in hand: ``expert``'s turn plan, the same
   melding with each other card of the hand discarded instead (one copy of each card), and,
   before opening, the plan that holds the opening back unless it goes out (Q3's holding rule;
   a card drawn from the pile under T4 must be melded, so not then).

``seeing:N`` makes the same decisions on the true state: its samples are copies of the round,
every hidden card in place (only the reshuffles of T8 are drawn). It is no legal player (it
reads I2's hidden cards): it measures what the hidden cards are worth to this search.

Chance. Each round seeds the searching seats' stream from the round's own seed (salted), apart
from the round's stream (the deck and its reshuffles), so the deal of every round is the one an
engine-only table gets from the same seed, and compare's rotations see the same decks. A
decision draws N sample seeds from that stream; the sample of seed s deals the unseen cards in
the order of a Fisher-Yates shuffle of their ids (ascending) and seeds the play-out's
reshuffles: which cards are unseen, not where they lie, makes the sample (I3).

Compilation. numba builds each compiled function with everything it calls linked in, optimised
and emitted again, so every level of the chain from :func:`simulate_rounds` down to the round
engine of the play-outs costs a further copy of that engine on a cold cache. The levels with
one call site (:func:`play_round`, :func:`_choose_draw`, :func:`_try_draw`, :func:`_try_plan`)
are inlined into their caller: about 20 s less to compile, the same rounds bit for bit, and no
slower.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.rng_kernel import next_u64, randbelow, seed_state
from simcards.romi.cards import N_CARDS
from simcards.romi.codes import (
    MV_CARD,
    MV_DRAW_DISCARD,
    MV_DRAW_STOCK,
    MW,
    POLICY_EXPERT,
    POLICY_SEARCH,
    POLICY_SEEING,
    S_CUT,
    S_END,
    S_NM,
    S_PN,
    S_POS,
    S_TURN,
    S_TURNS,
    STALL_TURNS,
    TC_SIZE,
    TM_SIZE,
)
from simcards.romi.kernel_state import SearchWork, Seats
from simcards.romi.melds_kernel import kind_of, kind_order
from simcards.romi.policies_kernel import choose_draw, kept_plan, plan_turn
from simcards.romi.round_kernel import (
    HW,
    MAX_MELDS,
    MAX_PLAN,
    commit_turn,
    new_results,
    new_round_work,
    note_round,
    play_turn,
    prepare_seat,
    record_draw,
    round_chance,
    score_round,
    shuffle_deck,
    stall_reached,
    start_round,
    take_draw,
    turn_played,
    turn_view,
)
from simcards.romi.table_melds_kernel import meld_cards

MAX_SAMPLES = 10_000
"""Q7, Q8: the most samples a searching decision may play out per candidate."""
SLOTS = 2
"""Candidate plans kept per decision: ``expert``'s and the one holding the opening back."""
MAX_CAND = 24
"""Candidates per decision: a plan's own discard, the other cards of its hand (at most 15),
and the holding plan."""
MARGIN_Z = 2.5
"""Q7: a candidate replaces ``expert``'s only when its paired gain over the samples is at least
this many standard errors above 0 (one-sided, 0.6% for a candidate no better than expert's),
so that noise in the play-outs does not choose the turn."""
DROP_Z = 1.0
"""Q7: after each sample from the second on, a candidate other than the first whose mean gain
is at least this many standard errors below 0 is dropped: it plays no more samples and is not
played (its mean is below 0, so MARGIN_Z could never choose it). Measured on 1,232 decisions
of ``search:16`` among ``expert`` seats (2 and 4 players) replayed both ways: the dropping
search plays 0.58 of the play-outs and chose otherwise in one decision."""
SEARCH_SALT = np.uint64(0x5EA2C4ED5EA2C4ED)
"""Mixed into a round's seed to seed its searching seats' stream (module docstring)."""


@njit(cache=True)
def new_search_work(n, drop_z):
    """A :class:`~simcards.romi.kernel_state.SearchWork` for ``n`` players, dropping
    candidates at ``drop_z`` standard errors (Q7; ``np.inf``: never)."""
    roll = new_round_work(n, np.int64(0), np.int64(0), np.int64(0))
    return SearchWork(roll, np.zeros(4, np.uint64), np.zeros(4, np.uint64),
                      np.zeros(MAX_SAMPLES, np.uint64), np.zeros(N_CARDS, np.int64),
                      np.zeros(N_CARDS, np.int64), np.zeros(N_CARDS, np.int64),
                      np.full((SLOTS, HW), -1, np.int64),
                      np.zeros((SLOTS, MAX_MELDS, TM_SIZE), np.int64),
                      np.full((SLOTS, MAX_MELDS, TC_SIZE), -1, np.int64),
                      np.zeros((SLOTS, MAX_PLAN, MW), np.int64), np.zeros((SLOTS, 5), np.int64),
                      np.zeros((MAX_CAND, 2), np.int64), np.zeros(MAX_CAND, np.float64),
                      np.zeros(MAX_CAND, np.float64), np.zeros(MAX_CAND, np.int64),
                      np.zeros(n, np.int64), Seats(np.zeros(n, np.int64), np.zeros(n, np.int64)),
                      np.float64(drop_z))


# ---------------------------------------------------------------- samples


@njit(cache=True)
def _hidden(ws, p, sw):
    """The cards seat ``p`` has not seen (I2: the other hands and the stock), ascending by id
    into ``sw.hidden``. Returns their count."""
    st, hand, hn, pile, tm, tc = ws.st, ws.hand, ws.hn, ws.pile, ws.tm, ws.tc
    seen, hidden, buf = sw.seen, sw.hidden, sw.deal
    for c in range(N_CARDS):
        seen[c] = 0
    for i in range(hn[p]):
        seen[hand[p, i]] = 1
    for i in range(st[S_PN]):
        seen[pile[i]] = 1
    if st[S_CUT] >= 0:
        seen[st[S_CUT]] = 1
    for m in range(st[S_NM]):
        k, _ = meld_cards(tm, tc, m, buf)
        for i in range(k):
            seen[buf[i]] = 1
    k = 0
    for c in range(N_CARDS):
        if seen[c] == 0:
            hidden[k] = c
            k += 1
    expect = st[S_END] - st[S_POS]
    for q in range(hn.shape[0]):
        if q != p:
            expect += hn[q]
    if k != expect:
        raise ValueError("romi search: the unseen cards do not fill the hidden places")
    return k


@njit(cache=True)
def _copy_state(ws, r):
    """The round ``ws`` into the play-out's workspace ``r``."""
    for j in range(ws.st.shape[0]):
        r.st[j] = ws.st[j]
    n = ws.hn.shape[0]
    for q in range(n):
        r.hn[q] = ws.hn[q]
        r.opened[q] = ws.opened[q]
        r.drawn[q] = ws.drawn[q]
        r.played[q] = ws.played[q]
        for j in range(HW):
            r.hand[q, j] = ws.hand[q, j]
    for j in range(ws.st[S_POS], ws.st[S_END]):
        r.stock[j] = ws.stock[j]
    for j in range(ws.st[S_PN]):
        r.pile[j] = ws.pile[j]
    for m in range(ws.st[S_NM]):
        for j in range(TM_SIZE):
            r.tm[m, j] = ws.tm[m, j]
        for j in range(TC_SIZE):
            r.tc[m, j] = ws.tc[m, j]


@njit(cache=True)
def _sample(ws, p, seeing, k, sw, seed):
    """Sample ``seed`` of seat ``p``'s decision into ``sw.roll``: the round as the seat sees
    it with its ``k`` unseen cards (``sw.hidden``) dealt at random into the other hands and then
    the stock, top first (``seeing``: the round itself); the play-out's stream seeded."""
    roll = sw.roll
    r = roll.ws
    _copy_state(ws, r)
    tmp = sw.tmp
    seed_state(tmp, seed)
    if not seeing:
        deal = sw.deal
        for i in range(k):
            deal[i] = sw.hidden[i]
        for i in range(k - 1):
            j = i + randbelow(tmp, k - i)
            x = deal[i]
            deal[i] = deal[j]
            deal[j] = x
        i = 0
        for q in range(r.hn.shape[0]):
            if q != p:
                for j in range(r.hn[q]):
                    r.hand[q, j] = deal[i]
                    i += 1
        for j in range(r.st[S_POS], r.st[S_END]):
            r.stock[j] = deal[i]
            i += 1
    seed_state(roll.rs, next_u64(tmp))
    for j in range(roll.log.info.shape[0]):
        roll.log.info[j] = 0


@njit(cache=True)
def _play_out(rules, sw, p):
    """The sample in ``sw.roll`` played to the round's end by ``greedy`` seats (as
    ``round_kernel.play_round`` plays, T8, T9). Returns its value to seat ``p``: the others'
    mean score minus its own."""
    roll = sw.roll
    st = roll.ws.st
    while not stall_reached(st):
        if not turn_played(st, play_turn(rules, sw.greedy, roll), rules.players):
            break
    return _value(rules, sw, p)


@njit(cache=True)
def _value(rules, sw, p):
    """The sample's round scored (G2-G5): the others' mean score minus seat ``p``'s."""
    n = rules.players
    score_round(rules, sw.roll.ws, sw.scores)
    others = 0
    for q in range(n):
        if q != p:
            others += sw.scores[q]
    return others / (n - 1) - sw.scores[p]


# ---------------------------------------------------------------- choosing


@njit(cache=True)
def _clear(sw, nc):
    for c in range(nc):
        sw.value[c] = 0.0
        sw.value_sq[c] = 0.0
        sw.live[c] = 1


@njit(cache=True)
def _mean_se(total, total_sq, samples):
    """The mean of gains summing to ``total`` (squares ``total_sq``) over ``samples`` >= 2,
    and its standard error."""
    m = total / samples
    var = (total_sq - samples * m * m) / (samples - 1)
    return m, np.sqrt(max(var, 0.0) / samples)


@njit(cache=True)
def below(total, total_sq, samples, z):
    """Whether gains summing to ``total`` (squares ``total_sq``) over ``samples`` >= 2 have
    a mean at least ``z`` standard errors below 0 (Q7's dropping; ``z`` infinite: never)."""
    m, se = _mean_se(total, total_sq, samples)
    return m + z * se < 0.0


@njit(cache=True)
def _drop(sw, nc, samples):
    """Q7's dropping after ``samples`` samples: the candidates other than the first whose mean
    gain is ``sw.drop_z`` standard errors below 0 leave ``sw.live``. Returns how many other
    candidates are still weighed."""
    left = 0
    for c in range(1, nc):
        if sw.live[c] == 1:
            if below(sw.value[c], sw.value_sq[c], samples, sw.drop_z):
                sw.live[c] = 0
            else:
                left += 1
    return left


@njit(cache=True)
def _add(sw, c, v, v0):
    """Candidate ``c``'s value ``v`` on a sample where candidate 0 scored ``v0``: its paired
    gain summed, and squared."""
    d = v - v0
    sw.value[c] += d
    sw.value_sq[c] += d * d


@njit(cache=True)
def _best(sw, nc, samples):
    """The candidate to play: the one of highest mean gain over candidate 0, provided that gain
    is MARGIN_Z standard errors above 0 (with one sample: above 0), else candidate 0. A
    dropped candidate's gain is below 0 (:func:`_drop`), so it is never chosen."""
    best = 0
    for c in range(1, nc):
        if sw.value[c] > sw.value[best] and sw.value[c] > 0.0:
            best = c
    if best == 0 or samples < 2:
        return best
    m, se = _mean_se(sw.value[best], sw.value_sq[best], samples)
    return best if m > MARGIN_Z * se else 0


@njit(cache=True)
def _weigh(rules, ws, p, samples, seeing, sw, nc, nm):
    """The candidate seat ``p`` plays among the ``nc`` of ``sw.cand``: each tried on the same
    samples (the decision's seeds), those clearly worse than the first dropped on the way
    (:func:`_drop`; once all are, the first is expert's choice and the weighing stops), and
    chosen by :func:`_best`. ``nm`` < 0: the candidates are draws (:func:`_try_draw`); else
    plans with a discard (:func:`_try_plan`), ``nm`` the melds on the table before the
    turn."""
    k = 0 if seeing else _hidden(ws, p, sw)
    _clear(sw, nc)
    for i in range(samples):
        if i >= 2 and _drop(sw, nc, i) == 0:
            return 0
        v0 = 0.0
        for c in range(nc):
            if sw.live[c] == 0:
                continue
            _sample(ws, p, seeing, k, sw, sw.seeds[i])
            if nm < 0:
                v = _try_draw(rules, sw, p, sw.cand[c, 0])
            else:
                v = _try_plan(rules, sw, p, nm, sw.cand[c, 0], sw.cand[c, 1])
            if c == 0:
                v0 = v
            _add(sw, c, v, v0)
    return _best(sw, nc, samples)


# ---------------------------------------------------------------- the draw


@njit(cache=True, inline="always")
def _try_draw(rules, sw, p, choice):
    """Value of the draw ``choice`` on the sample in ``sw.roll``: drawn, the turn planned as
    ``expert`` plans it, then played out."""
    roll = sw.roll
    r = roll.ws
    x, hold = prepare_seat(rules, POLICY_EXPERT, np.int64(0), r, roll.ps, p)
    view = turn_view(rules, r, p, x, hold)
    nm = r.st[S_NM]
    ok, must = take_draw(r, roll, p, choice)
    if ok:
        res = plan_turn(r.hand[p], r.hn[p], must, view, roll.sv, roll.ps)
        out = commit_turn(rules, r, p, nm, res, roll.ps, roll.log, 0)
        status = 1 if out else 0
    else:
        status = 2  # T8: the round stops
    if turn_played(r.st, status, rules.players):
        return _play_out(rules, sw, p)
    return _value(rules, sw, p)


@njit(cache=True, inline="always")
def _choose_draw(rules, ws, p, base, first_draw, samples, seeing, sw):
    """Decision 1: the draw, among ``expert``'s (``base``), the stock, and at a first draw
    (T3) the top discard (module docstring)."""
    cand = sw.cand
    nc = 0
    cand[nc, 0] = base
    nc += 1
    if base != MV_DRAW_STOCK:
        cand[nc, 0] = MV_DRAW_STOCK
        nc += 1
    elif first_draw and ws.st[S_PN] > 0:
        cand[nc, 0] = MV_DRAW_DISCARD
        nc += 1
    if nc == 1:
        return base
    return cand[_weigh(rules, ws, p, samples, seeing, sw, nc, np.int64(-1)), 0]


# ---------------------------------------------------------------- the melding and discard


@njit(cache=True)
def _keep(sw, s, ps, res):
    """Keep the plan in ``ps`` (``res``: moves, opened after, hand count, melds, went out) in
    slot ``s``."""
    nmv, op, nh, nm2, out = res
    for j in range(HW):
        sw.ph[s, j] = ps.ph[j]
    for m in range(nm2):
        for j in range(TM_SIZE):
            sw.ptm[s, m, j] = ps.ptm[m, j]
        for j in range(TC_SIZE):
            sw.ptc[s, m, j] = ps.ptc[m, j]
    for i in range(nmv):
        for j in range(MW):
            sw.mv[s, i, j] = ps.mv[i, j]
    sw.meta[s, 0] = nmv
    sw.meta[s, 1] = 1 if op else 0
    sw.meta[s, 2] = nh
    sw.meta[s, 3] = nm2
    sw.meta[s, 4] = 1 if out else 0


@njit(cache=True)
def _card_key(c):
    """Q1's card order, the order a plan's hand is kept in (``policies_kernel._sort_hand``)."""
    return kind_order(kind_of(c)) * 1000 + 500 + c


@njit(cache=True)
def _load(sw, s, discard, ps):
    """Slot ``s``'s plan into ``ps`` with ``discard`` thrown instead of its own discard (the
    plan's discard goes back into the hand, in card order). Returns the plan's answer."""
    nmv = sw.meta[s, 0]
    nh = sw.meta[s, 2]
    nm2 = sw.meta[s, 3]
    for m in range(nm2):
        for j in range(TM_SIZE):
            ps.ptm[m, j] = sw.ptm[s, m, j]
        for j in range(TC_SIZE):
            ps.ptc[m, j] = sw.ptc[s, m, j]
    for i in range(nmv):
        for j in range(MW):
            ps.mv[i, j] = sw.mv[s, i, j]
    own = sw.mv[s, nmv - 1, MV_CARD]
    ph = ps.ph
    n = 0
    dropped = False
    for j in range(nh):
        c = sw.ph[s, j]
        if not dropped and c == discard:
            dropped = True
        else:
            ph[n] = c
            n += 1
    if discard != own:
        # the plan's own discard goes back in, at its place in card order
        i = n
        while i > 0 and _card_key(ph[i - 1]) > _card_key(own):
            ph[i] = ph[i - 1]
            i -= 1
        ph[i] = own
        n += 1
        ps.mv[nmv - 1, MV_CARD] = discard
    for j in range(n, HW):
        ph[j] = -1
    return nmv, sw.meta[s, 1] == 1, n, nm2, sw.meta[s, 4] == 1


@njit(cache=True, inline="always")
def _try_plan(rules, sw, p, nm, s, discard):
    """Value of slot ``s``'s plan with ``discard`` on the sample in ``sw.roll`` (its draw
    already made there), played out."""
    roll = sw.roll
    res = _load(sw, s, discard, roll.ps)
    out = commit_turn(rules, roll.ws, p, nm, res, roll.ps, roll.log, 0)
    if turn_played(roll.ws.st, 1 if out else 0, rules.players):
        return _play_out(rules, sw, p)
    return _value(rules, sw, p)


@njit(cache=True)
def _candidates(sw, slots):
    """Decision 2's candidates into ``sw.cand`` (slot, card discarded): slot 0's plan with its
    own discard, then with each other card of its hand (one copy of each card), then the other
    slots' plans. Returns their count."""
    cand = sw.cand
    nc = 0
    for s in range(slots):
        nmv = sw.meta[s, 0]
        own = sw.mv[s, nmv - 1, MV_CARD]
        cand[nc, 0] = s
        cand[nc, 1] = own
        nc += 1
        if s == 0 and sw.meta[s, 4] == 0:
            nh = sw.meta[s, 2]
            for j in range(nh):
                c = sw.ph[s, j]
                fresh = kind_of(c) != kind_of(own)
                for i in range(j):
                    if kind_of(sw.ph[s, i]) == kind_of(c):
                        fresh = False
                if fresh and nc < MAX_CAND - (slots - 1):
                    cand[nc, 0] = s
                    cand[nc, 1] = c
                    nc += 1
    return nc


@njit(cache=True)
def search_turn(rules, seats, work, sw):
    """One turn of the searching seat to move (Q7, Q8; module docstring), recorded as
    :func:`~simcards.romi.round_kernel.play_turn` records. Returns 0 to go on, 1 when it went
    out (G1), 2 when the round stops (T8)."""
    ws, sv, ps = work.ws, work.sv, work.ps
    st, hand, hn = ws.st, ws.hand, ws.hn
    p = st[S_TURN]
    samples = seats.params[p]
    seeing = seats.kinds[p] == POLICY_SEEING
    for i in range(samples):
        sw.seeds[i] = next_u64(sw.ss)
    x, hold = prepare_seat(rules, POLICY_EXPERT, np.int64(0), ws, ps, p)
    nm = st[S_NM]
    li = work.log.info[2]
    view = turn_view(rules, ws, p, x, hold)
    held = turn_view(rules, ws, p, x, True)  # before the draw: the view reads the pile's top
    must = np.int64(-1)
    first = st[S_TURNS] == 0
    if first:
        res = plan_turn(hand[p], hn[p], must, view, sv, ps)
    else:
        base = choose_draw(hand[p], hn[p], view, sv, ps)
        choice = _choose_draw(rules, ws, p, base, view.first_draw, samples, seeing, sw)
        ok, must, li = record_draw(ws, work, p, choice, li)
        if not ok:
            return 2
        if choice == base and choice != MV_DRAW_STOCK and ps.kept[5] == 1:
            res = kept_plan(ps.kept)
        else:
            res = plan_turn(hand[p], hn[p], must, view, sv, ps)
    _keep(sw, 0, ps, res)
    slots = 1
    if (not first and not view.opened and view.may_open and must < 0 and res[1]
            and not res[4]):
        prepare_seat(rules, POLICY_EXPERT, np.int64(0), ws, ps, p)  # the pile as it is now
        alt = plan_turn(hand[p], hn[p], must, held, sv, ps)
        _keep(sw, 1, ps, alt)
        slots = 2
    nc = _candidates(sw, slots)
    best = 0
    if nc > 1:
        best = _weigh(rules, ws, p, samples, seeing, sw, nc, nm)
    res = _load(sw, sw.cand[best, 0], sw.cand[best, 1], ps)
    if commit_turn(rules, ws, p, nm, res, ps, work.log, li):
        return 1
    return 0


# ---------------------------------------------------------------- rounds


@njit(cache=True, inline="always")
def play_round(deck, dealer, rules, seats, work, sw, max_turns):
    """:func:`simcards.romi.round_kernel.play_round` with searching seats: a round from
    ``deck`` and ``dealer`` (or its first ``max_turns`` turns), each searching seat's turn
    played by :func:`search_turn` (its stream ``sw.ss`` seeded by the caller)."""
    ws = work.ws
    st = ws.st
    start_round(deck, dealer, rules, ws)
    work.log.info[:] = 0
    while st[S_TURNS] < max_turns and not stall_reached(st):
        if seats.kinds[st[S_TURN]] in (POLICY_SEARCH, POLICY_SEEING):
            status = search_turn(rules, seats, work, sw)
        else:
            status = play_turn(rules, seats, work)
        if not turn_played(st, status, rules.players):
            break


@njit(cache=True)
def simulate_rounds(state, n_rounds, rules, seats, dealer):
    """:func:`simcards.romi.round_kernel.simulate_rounds` for tables with searching seats:
    the same chance per round (dealer, seed; the deck and reshuffles from the round's stream),
    the same per-round arrays, and the searching seats' stream seeded from the round's seed
    (module docstring)."""
    n = rules.players
    work = new_round_work(n, np.int64(0), np.int64(0), np.int64(0))
    sw = new_search_work(n, DROP_Z)
    deck = np.zeros(N_CARDS, np.int64)
    out = new_results(n_rounds, n)
    for r in range(n_rounds):
        d, seed = round_chance(state, n, dealer)
        seed_state(work.rs, seed)
        seed_state(sw.ss, seed ^ SEARCH_SALT)
        shuffle_deck(work.rs, deck)
        play_round(deck, d, rules, seats, work, sw, STALL_TURNS + 1)
        note_round(out, r, rules, work.ws, d)
    return out
