"""numba kernels that play whole Ronda hands (``seeds/ronda.md``) and Monte Carlo batches of them.

A hand is played from a given deck order (D5: top card first) and dealer, with one policy per
seat (Q6): ``random`` (Q2), ``greedy`` (Q3) or a searching policy, ``lookahead:D`` (Q4) or
``rollout:K`` (Q5), which :mod:`simcards.ronda.search_kernel` plays, or ``ismcts:N:C`` (Q8),
which :mod:`simcards.ronda.ismcts_kernel` plays, as it plays ``seeing:N:C`` (Q9), the same
search on the true position: not a legal player, it reads the other holdings and the hand's
deck from the full state the hand is played in. The rules themselves are the primitives of
:mod:`simcards.ronda.hand_kernel`.

Chance in a hand is drawn before its first play. The stream layout of the hands' Monte Carlo
(:func:`simcards.ronda.hands_batch.simulate_hands`), per hand, from the chunk's xoshiro256**
state, in this order:

1. when ``dealer < 0``: the dealer, ``randbelow(players)`` (D3); otherwise none;
2. the shuffle (D5): a Fisher-Yates pass over the chunk's deck array, which is kept from hand
   to hand (it starts as 0..39): for j = 0 .. 38, ``r = j + randbelow(40 - j)``, swap
   ``deck[j]`` and ``deck[r]``; the deck is then read top card first (``deck[0]``);
3. one ``uniform`` per play of a ``random`` seat (Q2), in play order (play k of the hand is
   seat ``(dealer + 1 + k) % players``, D3); other plays draw nothing;
4. one 64-bit word per searching seat, in seat order: the seed of that seat's own stream for the
   hand (I3: a policy draws its samples from its own stream only). A ``seeing`` seat (Q9)
   gets one too, and never draws from it.

:func:`record_hands` returns exactly these deals, dealers, uniforms and seeds, and
:func:`replay` plays given ones with a per-play log, so that the reference engine can play the
same hands with the same decisions.

A batch without a searching seat is played by :mod:`simcards.ronda.value_kernel` on card
values, from the same stream and with the same statistics (it draws each uniform when its play
comes, which is the same order); :func:`workspace_hands` plays any batch here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.rng_kernel import next_u64, randbelow, seed_state, uniform
from simcards.ronda.codes import (
    ACT_DERBA,
    ACT_REHIT,
    MAX_DEALS,
    MODE_POINTS,
    N_FIELDS,
    N_SOURCES,
    POLICY_GREEDY,
    POLICY_ISMCTS,
    POLICY_ISMCTS_MATCH,
    POLICY_LOOKAHEAD,
    POLICY_RANDOM,
    POLICY_SEEING,
)
from simcards.ronda.hand_kernel import (
    N_CARDS,
    S_HELD,
    S_HOLDINGS,
    S_RONDAS,
    S_SCORE,
    S_TRINGLAS,
    S_TURN,
    apply_play,
    deal_next,
    finish_hand,
    greedy_card,
    hand_violations,
    new_workspace,
    side_of,
    start_hand,
)
from simcards.ronda.ismcts_kernel import ismcts_card, seeing_card, tree_capacity
from simcards.ronda.kernel_state import HandDraw, PlayLog, PlayWork
from simcards.ronda.observation_kernel import observe_deal, observe_play, snapshot
from simcards.ronda.search_kernel import new_search_workspace, search_card
from simcards.ronda.value_kernel import add_hand

__all__ = ["begin_hand", "new_play_work", "play_hand", "play_position", "record_hands", "replay",
           "replay_searched", "workspace_hands"]


@njit(cache=True, inline="always")
def choose_card(p, seats, u, rules, work):
    """The card seat ``p`` plays now under its policy (Q2-Q5, Q8, Q9): ``u`` is the play's
    uniform for ``random``; a searching policy draws from the seat's own stream
    ``work.streams[p]``; ``seeing`` (Q9) reads the true holdings and the hand's deck
    ``work.draw.deck`` and draws nothing."""
    kind = seats.kinds[p]
    ws = work.hand
    if kind == POLICY_RANDOM:
        hc = ws.hc
        m = ws.hn[p]
        i = np.int64(u * m)
        if i >= m:
            i = m - 1
        return hc[p, i]
    if kind == POLICY_GREEDY:
        return greedy_card(p, rules, ws)
    if kind in (POLICY_ISMCTS, POLICY_ISMCTS_MATCH):
        return ismcts_card(p, seats.params[p], seats.explore[p], rules, ws, work.search,
                           work.streams[p], kind == POLICY_ISMCTS_MATCH)
    if kind == POLICY_SEEING:  # Q9: the true position, from the full state (no observation)
        return seeing_card(p, seats.params[p], seats.explore[p], rules, ws, work.search,
                           work.draw.deck)
    return search_card(p, kind, seats.params[p], rules, ws, work.search, work.streams[p])


@njit(cache=True)
def new_play_work(rules, rec_cap, tree_cap):
    """A :class:`~simcards.ronda.kernel_state.PlayWork` for hands of ``rules``: the deck as
    0..39 (the shuffle is applied to it hand after hand), a one-row scratch log that is never
    written; the search records up to ``rec_cap`` samples (0: none); Q8's tree holds
    ``tree_cap`` nodes (``ismcts_kernel.tree_capacity`` of the seats)."""
    ns = rules.sides
    draw = HandDraw(np.arange(N_CARDS), np.zeros(N_CARDS, np.float64),
                    np.zeros(rules.players, np.uint64))
    log = PlayLog(np.zeros((1, N_FIELDS), np.int64), np.zeros((1, ns, N_SOURCES), np.int64),
                  np.zeros((1, ns, N_SOURCES), np.int64), rec_cap < 0)
    return PlayWork(new_workspace(rules), new_search_workspace(rules, rec_cap, tree_cap),
                    np.zeros((rules.players, 4), np.uint64), draw, log)


@njit(cache=True, inline="always")
def begin_hand(dealer, seats, rules, work):
    """How every hand starts (a whole hand here, one hand of a match in ``match_kernel``): each
    searching seat's own stream seeded for the hand from ``work.draw`` (I3), then the first
    deal and its announcements (D5, A1-A5)."""
    draw = work.draw
    for p in range(rules.players):
        if seats.kinds[p] >= POLICY_LOOKAHEAD:
            seed_state(work.streams[p], draw.seeds[p])
    start_hand(draw.deck, dealer, rules, work.hand, work.log)


@njit(cache=True, inline="always")
def target_leader(totals, ns, target):
    """S4/S5: the side that has reached ``target`` and holds the highest of the ``totals``
    alone, or -1 (nobody there, or a tie at the top: play goes on)."""
    top = totals[0]
    lead = 0
    n_top = 1
    for t in range(1, ns):
        x = totals[t]
        if x > top:
            top = x
            lead = t
            n_top = 1
        elif x == top:
            n_top += 1
    if top >= target and n_top == 1:
        return lead
    return -1


@njit(cache=True, inline="always")
def _check_point(scores, st, tot, ns, target):
    """S5: a check point inside a hand, on the carried scores plus the hand's points so far."""
    for t in range(ns):
        tot[t] = scores[t] + st[S_SCORE + t]
    return target_leader(tot, ns, target)


@njit(cache=True, _nrt=False)
def play_hand(dealer, seats, rules, work, events, scores, tot, check, users):
    """One whole hand dealt by ``dealer`` from what chance gave it (``work.draw``: the deck
    top first, ``us[k]`` the uniform of play k when its seat is random, Q2: the card of rank
    floor(u * k) in card order, ``seeds[p]`` the seed of seat p's own stream for this hand, I3,
    when it searches); ``seats`` the policies (Q6). Writes the per-play log when
    ``work.log.on``. Adds the Derbas, re-hits and Missas of each side to ``events[side, 0 ..
    2]``.

    In a match, ``check`` asks for S5's check points: after the first deal's announcements,
    after each play, after each later deal's announcements, on the carried ``scores`` (S2)
    plus the hand's points so far (``tot`` is scratch); the first that finds a side winning
    ends the hand there. Returns ``(winner, plays, ultima_side, ultima_mask)``: the side a
    check point found winning and the plays made until then, or -1, the hand's plays and its
    Ultima (X5c, U1, S1 done; the end-of-hand check is the caller's). Without ``check``,
    ``scores`` and ``tot`` are not read.

    One compiled hand serves the hand loops and the match loops (``match_kernel``). A second
    copy inlined into the match cost about 60 s more to compile on a cold cache, and played
    slower: the match loop counts references, and counted them in its copy of the hand (greedy
    against greedy, one core: about 12,000-13,600 matches a second then, 61,000-67,000 now).

    ``users`` seats players' own functions (Q11, a
    :class:`~simcards.ronda.kernel_state.UserSeats`): each such seat's observation is kept up
    to date play by play and its function called for its card; a card it does not hold is
    recorded in ``users.err`` and the seat's first card played instead (the chunk is then
    refused whole). None where no seat plays one: the branch is compiled out.

    Compiled without reference counting (``hand_kernel`` module docstring): the caller owns
    every array, and the workspace's arrays are taken out of their tuple at every play."""
    ws, plog, draw = work.hand, work.log, work.draw
    deck = draw.deck
    st = ws.st
    ns = rules.sides
    target = rules.target
    n = rules.players
    begin_hand(dealer, seats, rules, work)
    if users is not None:
        # Called by name: a function taken from a tuple by an index known only at run time,
        # or handed on to another compiled function, is called through a slow path.
        f0, f1, f2, f3 = users.fns
        uslot, uobs, ulegal, before, err = users.slot, users.obs, users.legal, users.before, \
            users.err
        umatch = users.match
        for q in range(n):
            if uslot[q] >= 0:
                observe_deal(uobs[q], ulegal[q], q, rules, ws, umatch)
    if check:
        w = _check_point(scores, st, tot, ns, target)
        if w >= 0:
            return w, 0, -1, 0
    plays = rules.plays
    teams = rules.teams
    for k in range(plays):
        p = st[S_TURN]
        if users is not None and uslot[p] >= 0:
            j = uslot[p]
            o = uobs[p]
            lg = ulegal[p]
            card = (f0(o, lg) if j == 0 else f1(o, lg) if j == 1 else f2(o, lg) if j == 2
                    else f3(o, lg))
            if card < 0 or card >= N_CARDS or lg[card] == 0:
                if err[0] == 0:
                    err[0] = p + 1
                    err[1] = card
                card = ws.hc[p, 0]
            snapshot(before, ws, rules)
        else:
            card = choose_card(p, seats, draw.us[k], rules, work)
            if users is not None:
                snapshot(before, ws, rules)
        action, missa = apply_play(card, rules, ws, plog)
        if users is not None:
            for q in range(n):
                if uslot[q] >= 0:
                    observe_play(uobs[q], ulegal[q], q, p, card, before, rules, ws, umatch)
        s = side_of(p, teams)
        if action == ACT_DERBA:
            events[s, 0] += 1
        elif action == ACT_REHIT:
            events[s, 1] += 1
        if missa:
            events[s, 2] += 1
        if check:
            w = _check_point(scores, st, tot, ns, target)
            if w >= 0:
                return w, k + 1, -1, 0
        if st[S_HELD] == 0 and k + 1 < plays:
            deal_next(deck, rules, ws, plog)
            if users is not None:
                for q in range(n):
                    if uslot[q] >= 0:
                        observe_deal(uobs[q], ulegal[q], q, rules, ws, umatch)
            if check:
                w = _check_point(scores, st, tot, ns, target)
                if w >= 0:
                    return w, k + 1, -1, 0
    u_side, u_mask = finish_hand(rules, ws)
    return -1, plays, u_side, u_mask


@njit(cache=True)
def play_position(deck, dealer, cards, rules):
    """The position after the plays ``cards`` of a hand dealt from ``deck`` by ``dealer`` (for
    tests of the searching policies): ``cards[k]`` is play k's card, or -1 for the mover's first
    card in card order. Returns ``(ws, played)``, the hand's workspace and the cards played."""
    ws = new_workspace(rules)
    ns = rules.sides
    plog = PlayLog(np.zeros((1, N_FIELDS), np.int64), np.zeros((1, ns, N_SOURCES), np.int64),
                   np.zeros((MAX_DEALS, ns, N_SOURCES), np.int64),
                   cards.shape[0] < 0)  # False, as a run-time value (see replay)
    start_hand(deck, dealer, rules, ws, plog)
    st = ws.st
    played = np.empty(cards.shape[0], np.int64)
    for k in range(cards.shape[0]):
        c = cards[k]
        if c < 0:
            c = ws.hc[st[S_TURN], 0]
        played[k] = c
        apply_play(c, rules, ws, plog)
        if st[S_HELD] == 0 and k + 1 < rules.plays:
            deal_next(deck, rules, ws, plog)
    return ws, played


# ---------------------------------------------------------------- chance


@njit(cache=True, _nrt=False)
def _draw_hand(state, dealer, seats, rules, draw):
    """The stream layout of one hand (module docstring): dealer, shuffle, uniforms, seeds,
    into ``draw`` (its deck shuffled in place). Returns the dealer."""
    n = rules.players
    kinds = seats.kinds
    deck, us, seeds = draw.deck, draw.us, draw.seeds
    if dealer < 0:
        dealer = randbelow(state, n)
    for j in range(N_CARDS - 1):
        r = j + randbelow(state, N_CARDS - j)
        x = deck[j]
        deck[j] = deck[r]
        deck[r] = x
    p = dealer  # play k is seat (dealer + 1 + k) % n's (D3), kept without a division
    for k in range(rules.plays):
        p += 1
        if p == n:
            p = 0
        if kinds[p] == POLICY_RANDOM:
            us[k] = uniform(state)
        else:
            us[k] = 0.0
    for p in range(n):
        if kinds[p] >= POLICY_LOOKAHEAD:
            seeds[p] = next_u64(state)
        else:
            seeds[p] = 0
    return dealer


@njit(cache=True)
def record_hands(state, hands, dealer, seats, rules, skip=0):
    """The deals, dealers, uniforms and seat seeds ``simulate_hands`` would use from
    ``state``, after the first ``skip`` (drawn and not kept: each hand's deck is shuffled from
    the one before it, so a later stretch of a chunk is found only by drawing what comes
    before): ``(decks (hands x 40), dealers (hands), us (hands x 40), seeds (hands x
    players))``."""
    deck = np.arange(N_CARDS)
    decks = np.empty((hands, N_CARDS), np.int64)
    dealers = np.empty(hands, np.int64)
    us = np.zeros((hands, N_CARDS), np.float64)
    seeds = np.zeros((hands, rules.players), np.uint64)
    dropped = HandDraw(deck, np.zeros(N_CARDS, np.float64), np.zeros(rules.players, np.uint64))
    for _ in range(skip):
        _draw_hand(state, dealer, seats, rules, dropped)
    for h in range(hands):
        dealers[h] = _draw_hand(state, dealer, seats, rules, HandDraw(deck, us[h], seeds[h]))
        decks[h] = deck
    return decks, dealers, us, seeds


def replay(decks, dealers, us, seeds, seats, rules):
    """Play given hands with per-play logs (:func:`_replay`'s results).

    Plain Python around the compiled :func:`_replay`, as :func:`replay_searched` is: a compiled
    wrapper would link, optimise and emit every policy's machine code once more (numba builds
    each compiled function with all it calls), for nothing at run time."""
    return _replay(decks, dealers, us, seeds, seats, rules,
                   new_play_work(rules, np.int64(0), tree_capacity(seats, seats)))


def replay_searched(decks, dealers, us, seeds, seats, rules, rec_cap):
    """:func:`replay`, recording the samples the searching seats drew (Q1), at most
    ``rec_cap`` of them. Returns replay's tuple followed by ``(meta, hands, stock)``: one row
    of ``meta`` per sampled decision (``search.REC_*``: hand, play, seat, first sample, number
    of samples, policy kind), and per sample the other seats' hands as bit masks and the stock
    top first (-1 past its end). Decisions of the last deal (Q7) draw no samples and are not
    recorded."""
    work = new_play_work(rules, np.int64(rec_cap), tree_capacity(seats, seats))
    out = _replay(decks, dealers, us, seeds, seats, rules, work)
    sw = work.search
    info = sw.rec_info
    return (*out, sw.rec_meta[:info[1]].copy(), sw.rec_hands[:info[2]].copy(),
            sw.rec_stock[:info[2]].copy())


@njit(cache=True)
def _replay(decks, dealers, us, seeds, seats, rules, work):
    """Play given hands with per-play logs, in ``work`` (its own log unused).

    Returns ``(plays, play_points, deal_points, points, captured, ultima, counters)``:
    ``plays[h, k]`` the log row of play k (fields ``codes.F_*``), ``play_points[h, k, side,
    source]`` its credits, ``deal_points[h, d, side, source]`` the announcement credits of
    deal d, ``points[h, side, source]`` the hand's points, ``captured[h, side]`` the captured
    cards as bit masks, ``ultima[h] = (side, mask)`` (side -1: none) and ``counters[h] =
    (rondas, tringlas, 4-card holdings, invariant violations)``.
    """
    hands = decks.shape[0]
    ns = rules.sides
    ws = work.hand
    sw = work.search
    plays = np.zeros((hands, N_CARDS, N_FIELDS), np.int64)
    play_points = np.zeros((hands, N_CARDS, ns, N_SOURCES), np.int64)
    deal_points = np.zeros((hands, MAX_DEALS, ns, N_SOURCES), np.int64)
    points = np.zeros((hands, ns, N_SOURCES), np.int64)
    captured = np.zeros((hands, ns), np.int64)
    ultima = np.zeros((hands, 2), np.int64)
    counters = np.zeros((hands, 4), np.int64)
    events = np.zeros((ns, 3), np.int64)
    tot = np.zeros(ns, np.int64)
    log_on = hands >= 0  # True, as a run-time value: one compiled play_hand serves every caller
    no_check = hands < 0  # False, as a run-time value, as the matches' check
    for h in range(hands):
        sw.rec_info[3] = h
        logged = PlayWork(ws, sw, work.streams, HandDraw(decks[h], us[h], seeds[h]),
                          PlayLog(plays[h], play_points[h], deal_points[h], log_on))
        _, _, u_side, u_mask = play_hand(dealers[h], seats, rules, logged, events, tot, tot,
                                         no_check, None)
        st, pts, capm = ws.st, ws.pts, ws.capm
        for t in range(ns):
            captured[h, t] = capm[t]
            for src in range(N_SOURCES):
                points[h, t, src] = pts[t, src]
        ultima[h, 0] = u_side
        ultima[h, 1] = u_mask if u_side >= 0 else 0
        counters[h, 0] = st[S_RONDAS]
        counters[h, 1] = st[S_TRINGLAS]
        counters[h, 2] = st[S_HOLDINGS]
        counters[h, 3] = hand_violations(rules, ws)
    return plays, play_points, deal_points, points, captured, ultima, counters


# ---------------------------------------------------------------- Monte Carlo


@njit(cache=True, _nrt=False)
def workspace_hands(state, hands, dealer, seats, rules, work, stats, users):
    """:func:`simcards.ronda.hands_batch.simulate_hands`'s hands on the workspace, adding up
    into ``stats`` (its arrays in :data:`~simcards.ronda.hands_batch.STAT_NAMES` order, events
    as one (side, 3) array, then a scratch of totals by side). ``users`` seats players' own
    functions (Q11, :func:`play_hand`), or None; the loop stops after a hand in which one
    played a card it did not hold. Compiled without reference counting (``hand_kernel``
    module docstring): ``hands_batch`` allocates, this plays."""
    events = stats[8]
    holdings, rondas, rondas_sq, tringlas, tringlas_sq, violations = stats[9:15]
    ws = work.hand
    st = ws.st
    classic = rules.mode != MODE_POINTS
    totals = stats[15]  # scratch, unread: the hand loop has no check points
    no_check = hands < 0  # False, as a run-time value, as the matches' check
    for _ in range(hands):
        d = _draw_hand(state, dealer, seats, rules, work.draw)
        play_hand(d, seats, rules, work, events, totals, totals, no_check, users)
        if hand_violations(rules, ws):
            violations[0] += 1
        add_hand(ws.pts, ws.capn, classic, stats)
        holdings[0] += st[S_HOLDINGS]
        rondas[0] += st[S_RONDAS]
        rondas_sq[0] += st[S_RONDAS] * st[S_RONDAS]
        tringlas[0] += st[S_TRINGLAS]
        tringlas_sq[0] += st[S_TRINGLAS] * st[S_TRINGLAS]
        if users is not None and users.err[0] != 0:
            break
