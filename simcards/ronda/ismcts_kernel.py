"""Ronda's ``ismcts:N:C`` in numba: single-observer information-set Monte Carlo tree search
(Q8 of ``seeds/ronda.md``; Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree
Search", IEEE TCIAIG 4(2), 2012, the SO-ISMCTS of their Algorithm 2).

One tree per decision, over the searching seat's information sets: every play is public
(I1), so a node is the sequence of values played since the decision, whoever played them.
Each of the N iterations draws a consistent sample (Q1: ``search_kernel.draw_sample``, the
announcements respected) from the seat's own stream, descends the tree on it choosing among
the values the mover holds *in this sample* (availability counts n' in UCB1, so that a value
absent from most samples is not over-explored), expands one node, plays ``greedy`` (Q3) to the
end of the hand (``compact_kernel.greedy_to_end``, the playout of ``rollout``, Q5) and backs
up every side's value V (Q1) from the decision to the end of the hand. Each node keeps the
value of the side whose play leads to it, so every mover, the seat, its partner or an
opponent, maximises his own side's value. Values enter UCB1 normalized to [0, 1] by the
least and greatest V seen so far at the decision, so that C has one meaning in points and
classic mode, with 2, 3 or 4 sides and early or late in the hand.

Why the playout goes to the end of the hand (Q8's rule text), measured against a variant
whose playout stops at the end of the deal of the expanded play and values Q1's V there (two
players, duplicate, same deals): the variant beat ``greedy`` by more at N = 200 (paired
win-rate difference +0.44 [0.42, 0.46] against +0.37 [0.35, 0.39], 4,000 deal sets) and ran
twice as fast (about 180 against 85 hands per second at N = 1000), but lost to
``rollout:32`` at N = 1000 (-0.077 [-0.089, -0.066], 10,000 sets, and 1.65 fewer cards per
hand) where playouts to the end of the hand tie with it (-0.010 [-0.027, 0.008], 4,000
sets). Within a deal Q1's V weighs a captured card at a hundredth of a point, while S1 makes
it worth about a point by the end of the hand: only a playout to the end sees that.

The only chance in a decision is the samples: the expansion takes the first untried value in
sequence order and the playout is deterministic, so given the samples the decision is fixed.
``tests/ronda/test_ismcts.py`` makes the reference engine (``reference.ismcts_policy``)
replay the samples the kernel drew and choose the same card, decision by decision.

The tree lives in preallocated arrays (:class:`~simcards.ronda.kernel_state.Tree`, part of
the search workspace); a decision allocates nothing. Positions are compact positions
(:mod:`simcards.ronda.compact_kernel`): level 0 of the search workspace holds the sample,
level 1 the descent and the playout.

``ismcts-match:N:C`` (Q10, :func:`ismcts_card` with ``by_match``) is Q8 in the hand loops; in
a match (the match loop writes each hand's starting scores into ``Tree.stake``) a playout whose
hand ends the match (S4 at the end of the hand; C3 in classic mode) adds ``100 x target`` to
the winner's value and takes it from every other side's (:func:`_match_weight`; 40 cards in
classic mode). Why Q8 keeps V alone, measured against Q10 in duplicate matches to 21 at
the report seed: Q10's paired win-rate difference was -0.041 [-0.080, -0.003] with two
players (800 deal sets), -0.005 [-0.040, +0.030] with three, +0.000 [-0.025, +0.025] with
four and -0.025 [-0.080, +0.030] in teams (400 each); a first form that ranked any match won
above every V (weight 10^6) lost -0.22 [-0.32, -0.12] (two players, 100 sets), the
normalization below squeezing V into a sliver of [0, 1].

``seeing:N:C`` (Q9, :func:`seeing_card`) is the same search on the true position: no legal
player, an upper bound on what a search of this kind can get from the hidden cards. Level 0
holds the real position once, copied from the kernel's full state (every holding from the
hand's workspace, the stock from the hand's deck), never from a seat's observation, and every
iteration starts from it: :func:`_iterate` with no stream (``pst`` None) compiles without the
sampling step. Nothing is drawn, so a ``seeing`` decision is a function of the position.
Measured at two players, duplicate, 2,000 deal sets each (``simcards ronda compare
seeing:1000 ismcts:1000`` and ``... seeing:1000 greedy``): paired win-rate differences +0.873
[0.858, 0.888] against ``ismcts:1000`` (+5.50 [5.40, 5.59] points and +6.8 cards per hand) and
+0.973 [0.965, 0.980] against ``greedy`` (+8.35 [8.23, 8.47] points per hand): what the hidden
cards are worth to this search. Its defaults are Q8's: C = 0.25, 0.5 and 1.0 gave the same
result within the intervals (``seeing:200:C`` against ``ismcts:200``, 400 deal sets each,
+0.89 +-0.03, about +6 points per hand).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.ronda import compact_kernel
from simcards.ronda.codes import MODE_POINTS, POLICY_ISMCTS, POLICY_ISMCTS_MATCH, POLICY_SEEING
from simcards.ronda.compact_kernel import C_CAPN, C_HELD, C_PLAYS, C_PTS, C_TURN, hand_values
from simcards.ronda.hand_kernel import N_VALUES, S_SCORE, S_STOCK
from simcards.ronda.kernel_state import Unseen
from simcards.ronda.search_kernel import (
    _candidates,
    _keep,
    _place,
    _record,
    _unseen,
    draw_sample,
)
from simcards.ronda.value_rules_kernel import N_CARDS, side_of


@njit(cache=True)
def tree_capacity(seats_a, seats_b):
    """The nodes Q8's tree needs for the seats of ``seats_a`` and ``seats_b`` (pass the same
    seats twice for one table): N + 1 for the largest ``ismcts:N``, ``ismcts-match:N`` (Q10)
    or ``seeing:N`` (Q9), else 1."""
    cap = 1
    for seats in (seats_a, seats_b):
        for p in range(seats.kinds.shape[0]):
            k = seats.kinds[p]
            if k in (POLICY_ISMCTS, POLICY_ISMCTS_MATCH, POLICY_SEEING):
                cap = max(cap, seats.params[p] + 1)
    return cap


@njit(cache=True, inline="always")
def _new_node(tree, i, side):
    child = tree.child
    for v in range(N_VALUES):
        child[i, v] = 0
    tree.visits[i] = 0
    tree.avail[i] = 0
    tree.total[i] = 0
    tree.side[i] = side


@njit(cache=True, inline="always")
def _match_weight(rules):
    """Q10: what a match won adds to V and a match lost takes from it: 100 points a target
    point in points mode (V counts a point as 100), 40 cards in classic mode (V counts
    cards)."""
    return 100 * rules.target if rules.mode == MODE_POINTS else N_CARDS


@njit(cache=True, inline="always")
def _match_winner(x, rules, base):
    """Q10: the side that wins the match at the end of the hand the playout finished in ``x``
    (S4 with the totals ``base[t]`` plus the hand's points in ``x``; classic mode, C3: the
    hand's winner by strictly most cards, C2, with ``base[t]`` hands already won), or -1."""
    ns = rules.sides
    best = np.int64(-1)
    top = np.int64(0)
    alone = False
    for t in range(ns):
        v = base[t] + x[C_PTS + t] if rules.mode == MODE_POINTS else x[C_CAPN + t]
        if best < 0 or v > top:
            best = t
            top = v
            alone = True
        elif v == top:
            alone = False
    if not alone:
        return -1
    if rules.mode == MODE_POINTS:
        return best if top >= rules.target else -1
    return best if base[best] + 1 >= rules.hands_to_win else -1


@njit(cache=True)
def _iterate(iterations, explore, p, rules, ws, sw, pst, unseen):
    """Q8's N iterations from the decision of seat ``p``; the tree's root children hold the
    result. ``unseen`` the seat's unseen cards in ``sw.un[:count]`` (:class:`Unseen`), each
    iteration's sample drawn from ``pst``. With ``pst`` None (Q9) level 0 already holds the
    true position and every iteration starts from it: this specialisation has no sampling."""
    tree = sw.tree
    child, visits, avail, total, side = tree.child, tree.visits, tree.avail, tree.total, tree.side
    path, logs, f0 = tree.path, tree.logs, tree.f0
    f, deck, held = sw.f, sw.deck, sw.held
    x0 = sw.st[0]
    x = sw.st[1]
    plays, teams, ns = rules.plays, rules.teams, rules.sides
    nu = unseen.count
    recording = sw.rec_info[0] > 0
    base = tree.base
    by_match = base[ns] == 1  # Q10: the match result backed up with V
    _new_node(tree, 0, side_of(p, teams))
    nodes = 1
    lo = np.int64(0)  # least and greatest V seen so far (any side, any iteration)
    hi = np.int64(0)
    for it in range(iterations):
        if pst is not None:  # Q8: a consistent sample at level 0
            hands = draw_sample(p, nu, rules, ws, sw, pst, unseen)
            if recording:
                _record(p, POLICY_ISMCTS, hands, rules, ws, sw, nu, it == 0)
            _place(p, hands, nu, rules, ws, sw)
        compact_kernel.copy(x0, x)
        span = float(hi - lo)
        node = 0
        depth = 0
        while True:
            if x[C_PLAYS] == plays:  # the descent reached the end of the hand
                compact_kernel.finish(x, rules, f)
                break
            if x[C_HELD] == 0:
                compact_kernel.deal(x, rules, deck)
            q = x[C_TURN]
            vm = hand_values(x, q)  # the values available in this sample
            pick = -1
            for v in range(N_VALUES):  # expansion: the first untried value
                if (vm >> v) & 1 and child[node, v] == 0:
                    pick = v
                    break
            expand = pick >= 0
            if expand:
                child[node, pick] = nodes
                _new_node(tree, nodes, side_of(q, teams))
                nodes += 1
            else:  # selection: UCB1 with availability counts, ties to the lower value
                best = 0.0
                for v in range(N_VALUES):
                    if (vm >> v) & 1:
                        c = child[node, v]
                        n_c = visits[c]
                        mean = total[c] / n_c
                        score = (mean - lo) / span if span > 0.0 else 0.0
                        score += explore * np.sqrt(logs[avail[c]] / n_c)
                        if pick < 0 or score > best:
                            best = score
                            pick = v
            for v in range(N_VALUES):
                if (vm >> v) & 1:
                    c = child[node, v]
                    if c > 0:
                        avail[c] += 1
            node = child[node, pick]
            depth += 1
            path[depth] = node
            compact_kernel.play(pick, x, rules)
            if expand:  # the playout: greedy to the end of the hand (Q5's)
                compact_kernel.greedy_to_end(x, rules, deck, held, f)
                break
        if by_match:
            w = _match_winner(x, rules, base)
            if w >= 0:  # the match ends with this hand: +1 to its winner, -1 to the others
                win = _match_weight(rules)
                for t in range(ns):
                    f[t] += win if t == w else -win
        for t in range(ns):
            vt = f[t] - f0[t]
            f[t] = vt
            if it == 0 and t == 0:
                lo = vt
                hi = vt
            elif vt < lo:
                lo = vt
            elif vt > hi:
                hi = vt
        for d in range(1, depth + 1):
            c = path[d]
            visits[c] += 1
            total[c] += f[side[c]]
        visits[0] += 1


@njit(cache=True, inline="always")
def _check_capacity(iterations, tree):
    if iterations + 1 > tree.child.shape[0]:
        raise ValueError("ismcts: the search workspace's tree is too small (tree_capacity)")


@njit(cache=True, inline="always")
def _most_visited(p, nc, rules, ws, sw):
    """The card of the root's child with the most visits; ties by the higher mean value,
    then by Derba risk (as greedy ranks it, from ``p``'s observation), then card order."""
    tree, cand, own = sw.tree, sw.cand, sw.own
    child, visits, total = tree.child, tree.visits, tree.total
    best = -1
    b_n = np.int64(0)
    b_w = np.int64(0)
    b_keep = np.int64(0)
    for j in range(nc):
        c = child[0, cand[j] >> 2]
        n_j = visits[c] if c > 0 else np.int64(0)
        w_j = total[c] if c > 0 else np.int64(0)
        keep = _keep(p, cand[j], own[j], rules, ws)
        if best < 0 or n_j > b_n or (n_j == b_n and (w_j * b_n > b_w * n_j or (
                w_j * b_n == b_w * n_j and keep > b_keep))):
            best = j
            b_n = n_j
            b_w = w_j
            b_keep = keep
    return cand[best]


@njit(cache=True, inline="always")
def _stake(by_match, rules, ws, tree, x):
    """Q10's base of this decision's end-of-hand totals into ``tree.base`` (its last slot 1
    when the match result is backed up: ``by_match`` and a match is being played). Points
    mode: the score before the hand plus the points the hand has scored, less those the
    compact position ``x`` counts (it leaves the announcements out, Q1); classic mode: the
    hands each side has won."""
    ns = rules.sides
    base = tree.base
    stake = tree.stake
    on = by_match and stake[ns] == 1
    base[ns] = 1 if on else 0
    if on:
        st = ws.st
        for t in range(ns):
            if rules.mode == MODE_POINTS:
                base[t] = stake[t] + st[S_SCORE + t] - x[C_PTS + t]
            else:
                base[t] = stake[t]


@njit(cache=True)
def ismcts_card(p, iterations, explore, rules, ws, sw, pst, by_match):
    """The card seat ``p`` plays under ``ismcts:iterations:explore`` (Q8), or with
    ``by_match`` under ``ismcts-match:iterations:explore`` (Q10: in a match, the match result
    is backed up with V). Reads only ``p``'s observation from ``ws`` (I3) and the match's
    public scores, and draws only from ``pst``, one consistent sample per iteration. With one
    value in hand it plays its first card and draws nothing. The root's child with the most
    visits wins; ties by the higher mean value, then by Derba risk (as greedy ranks it), then
    card order."""
    nc = _candidates(p, ws, sw)
    if nc == 1:
        return sw.cand[0]  # one value: nothing to search
    tree = sw.tree
    _check_capacity(iterations, tree)
    compact_kernel.from_workspace(ws, rules, p, sw.pub)
    compact_kernel.values(sw.pub, rules, tree.f0)
    _stake(by_match, rules, ws, tree, sw.pub)
    _iterate(iterations, explore, p, rules, ws, sw, pst, _unseen(p, rules, ws, sw))
    return _most_visited(p, nc, rules, ws, sw)


@njit(cache=True)
def seeing_card(p, iterations, explore, rules, ws, sw, deck):
    """The card seat ``p`` plays under ``seeing:iterations:explore`` (Q9): Q8's search with
    every iteration on the true position, which it takes from the kernel's full state, not
    from ``p``'s observation: every holding from the hand's workspace ``ws`` and the stock
    from ``deck``, the hand's deck (top card first; the undealt part is the stock in order).
    Draws nothing. With one value in hand it plays its first card; otherwise the choice is
    Q8's (most visits, then mean value, Derba risk, card order)."""
    nc = _candidates(p, ws, sw)
    if nc == 1:
        return sw.cand[0]  # one value: nothing to search
    tree = sw.tree
    _check_capacity(iterations, tree)
    x0 = sw.st[0]
    compact_kernel.from_workspace(ws, rules, np.int64(-1), x0)  # every holding
    sd = sw.deck
    for i in range(ws.st[S_STOCK], N_CARDS):
        sd[i] = deck[i]
    compact_kernel.values(x0, rules, tree.f0)
    tree.base[rules.sides] = 0  # Q9 backs up V alone
    _iterate(iterations, explore, p, rules, ws, sw, None,
             Unseen(np.int64(0), np.int64(0), np.int64(-1)))
    return _most_visited(p, nc, rules, ws, sw)
