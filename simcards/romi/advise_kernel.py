"""The play-outs of ``simcards romi advise`` (Q10 of ``seeds/romi.md``), in numba.

A move of the advice is one turn of the seat to move: a draw (``MV_DRAW_*``, or -1 when the
card is already in hand or the turn is the starter's first, a discard only), ``expert``'s plan
for the melding (Q5; or Q3's holding plan: open only to go out) and a discard (a card of the
plan's hand thrown instead of the plan's own, or -1 for the plan's own). Each move is played on
the same samples as Q7's search plays its candidates (``search_kernel._sample``: the cards the
seat has not seen dealt at random into the other hands and the stock), then every seat plays
``greedy`` (Q2) to the end of the round, and the seat's own round score (G2-G5) is summed.
Only the sums leave the kernel; :mod:`simcards.romi.advice` turns them into means and
intervals.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.romi.codes import MV_CARD, POLICY_EXPERT, S_NM, S_TURNS
from simcards.romi.policies_kernel import plan_turn
from simcards.romi.round_kernel import (
    commit_turn,
    prepare_seat,
    score_round,
    take_draw,
    turn_played,
    turn_view,
)
from simcards.romi.search_kernel import (
    _copy_state,
    _hidden,
    _keep,
    _load,
    _play_out,
    _sample,
    new_search_work,
)


@njit(cache=True)
def _turn(rules, sw, p, choice, hold, discard):
    """The move (``choice``, ``hold``, ``discard``) played by seat ``p`` on the round in
    ``sw.roll``. Returns the turn's status (0 on, 1 out, 2 stopped by T8)."""
    roll = sw.roll
    r = roll.ws
    x, _ = prepare_seat(rules, POLICY_EXPERT, np.int64(0), r, roll.ps, p)
    view = turn_view(rules, r, p, x, hold)
    nm = r.st[S_NM]
    must = np.int64(-1)
    if choice >= 0:
        ok, must = take_draw(r, roll, p, choice)
        if not ok:
            return 2
    elif r.st[S_TURNS] > 0:
        r.drawn[p] = 1
    res = plan_turn(r.hand[p], r.hn[p], must, view, roll.sv, roll.ps)
    if discard >= 0:
        _keep(sw, 0, roll.ps, res)
        res = _load(sw, 0, discard, roll.ps)
    if commit_turn(rules, r, p, nm, res, roll.ps, roll.log, 0):
        return 1
    return 0


@njit(cache=True)
def plan(rules, ws, p, choice, hold, hand):
    """``expert``'s plan (``hold``: Q3's holding plan) for seat ``p`` after the draw
    ``choice`` on ``ws`` itself (a copy is played; the draw must be a known card or none).
    Writes the plan's hand after its discard into ``hand`` and returns (cards in it, the plan's
    discard, 1 when it goes out, the card T4 makes it meld or -1)."""
    sw = new_search_work(rules.players, np.inf)
    _copy_state(ws, sw.roll.ws)
    x, _ = prepare_seat(rules, POLICY_EXPERT, np.int64(0), sw.roll.ws, sw.roll.ps, p)
    must = np.int64(-1)
    if choice >= 0:
        _, must = take_draw(sw.roll.ws, sw.roll, p, choice)  # a known card: never T8
    view = turn_view(rules, ws, p, x, hold)
    res = plan_turn(sw.roll.ws.hand[p], sw.roll.ws.hn[p], must, view, sw.roll.sv, sw.roll.ps)
    nmv, _, nh, _, out = res
    for j in range(nh):
        hand[j] = sw.roll.ps.ph[j]
    return nh, sw.roll.ps.mv[nmv - 1, MV_CARD], 1 if out else 0, must


@njit(cache=True)
def weigh(rules, ws, p, seeds, moves, sums, squares):
    """Every move of ``moves`` (rows: draw, 1 to hold, discard) played by seat ``p`` on the
    samples of ``seeds`` (each move on the same samples), then played out by ``greedy`` seats;
    the seat's round scores summed into ``sums`` and their squares into ``squares``."""
    sw = new_search_work(rules.players, np.inf)
    k = _hidden(ws, p, sw)
    for i in range(seeds.shape[0]):
        for c in range(moves.shape[0]):
            _sample(ws, p, False, k, sw, seeds[i])
            status = _turn(rules, sw, p, moves[c, 0], moves[c, 1] == 1, moves[c, 2])
            if turn_played(sw.roll.ws.st, status, rules.players):
                _play_out(rules, sw, p)
            score_round(rules, sw.roll.ws, sw.scores)
            v = sw.scores[p]
            sums[c] += v
            squares[c] += v * v
