"""The compact positions of the searching policies play by the engine's rules (Q1, Q3, and the
play, deal and end-of-hand rules P, X, M1, L, A1, U1, S1 of ``seeds/ronda.md``).

Whole hands are played twice side by side, on the hand's workspace
(:mod:`simcards.ronda.hand_kernel`) and on a compact position
(:mod:`simcards.ronda.compact_kernel`), in every table configuration and option value that changes
play. Each play is greedy's (Q3) or a random value, the same in both; after every play and deal the
compact position must equal the one read from the workspace, slot for slot, greedy must pick the
same value on both, and the hand must end in the same final values.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from simcards.ronda import compact_kernel as C
from simcards.ronda import hand_kernel as E
from simcards.ronda.codes import (
    ACT_DERBA,
    ACT_REHIT,
    MAX_DEALS,
    N_FIELDS,
    N_SOURCES,
    SRC_CARDS,
    SRC_DERBA,
    SRC_LAST_CARD,
    SRC_MISSA,
)
from simcards.ronda.kernel_state import PlayLog
from simcards.ronda.rollout_kernel import M_END, M_KEY, rollout_sample
from simcards.ronda.rules import RondaRules
from simcards.ronda.search_kernel import new_search_workspace

OPTIONS = [
    {"players": 2},
    {"players": 2, "derba_chain": "tiers", "announce": "every_deal"},
    {"players": 2, "mode": "classic"},
    {"players": 3},
    {"players": 3, "derba_chain": "tiers", "announce": "every_deal"},
    {"players": 4},
    {"players": 4, "teams": "on", "derba_chain": "tiers"},
    {"players": 4, "teams": "on", "announce": "every_deal", "mode": "classic"},
]


def _final_values(ws, kr) -> np.ndarray:
    """Q1's final values F(t) of the workspace position: 100 x (2 P(t) - sum of P) + captured
    cards, announcements left out, an open pile counted for its last hitter's side."""
    st, capn, pts = ws.st, ws.capn, ws.pts
    p = pts[:, SRC_DERBA] + pts[:, SRC_MISSA] + pts[:, SRC_LAST_CARD] + pts[:, SRC_CARDS]
    f = 100 * (2 * p - p.sum()) + capn
    if st[E.S_PILE_N] > 0:
        f[E.side_of(st[E.S_PILE_HITTER], kr.teams)] += st[E.S_PILE_N]
    return f


def _compact(ws, kr) -> np.ndarray:
    x = np.zeros(C.C_SIZE, np.int64)
    C.from_workspace(ws, kr, -1, x)
    return x


def _table(options: dict) -> tuple:
    """The rules' arrays, the player and play counts, a hand's workspace with the engine's
    scratch log, and the compact side's scratch: ``(kr, n, plays, ws, plog, held,
    f_compact)``."""
    kr = RondaRules.make(**options).kernel
    n, ns, plays = kr.players, kr.sides, kr.plays
    plog = PlayLog(np.zeros((1, N_FIELDS), np.int64), np.zeros((1, ns, N_SOURCES), np.int64),
                   np.zeros((MAX_DEALS, ns, N_SOURCES), np.int64), False)
    return (kr, n, plays, E.new_workspace(kr), plog, np.zeros(4, np.int64),
            np.zeros(ns, np.int64))


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(f"{v}" for v in o.values()))
def test_q3_compact_positions_play_every_rule_as_the_engine(options: dict) -> None:
    kr, n, plays, ws, plog, held, f_compact = _table(options)
    rng = random.Random(20261130 + n)
    derbas = rehits = 0
    for hand in range(60):
        deck = np.array(rng.sample(range(40), 40), np.int64)
        E.start_hand(deck, hand % n, kr, ws, plog)
        x = _compact(ws, kr)
        greedy_share = rng.choice([0.0, 0.5, 1.0])
        while ws.st[E.S_PLAYS] < plays:
            if ws.st[E.S_HELD] == 0:
                E.deal_next(deck, kr, ws, plog)
                C.deal(x, kr, deck)
                np.testing.assert_array_equal(x, _compact(ws, kr))
            p = int(ws.st[E.S_TURN])
            card = int(E.greedy_card(p, kr, ws))
            assert C.greedy(x, kr, held) == card >> 2
            if rng.random() >= greedy_share:  # a random value, its lowest card
                hand_cards = [int(c) for c in ws.hc[p, : ws.hn[p]]]
                v = rng.choice(sorted({c >> 2 for c in hand_cards}))
                card = min(c for c in hand_cards if c >> 2 == v)
            action, _missa = E.apply_play(card, kr, ws, plog)
            derbas += action == ACT_DERBA
            rehits += action == ACT_REHIT
            C.play(card >> 2, x, kr)
            np.testing.assert_array_equal(x, _compact(ws, kr))
        E.finish_hand(kr, ws)
        f_engine = _final_values(ws, kr)
        C.finish(x, kr, f_compact)
        np.testing.assert_array_equal(f_compact, f_engine)
    assert derbas > 0 and rehits > 0  # the piles in play were exercised


@pytest.mark.parametrize("options", OPTIONS[:1] + OPTIONS[3:4] + OPTIONS[6:7],
                         ids=["2p", "3p", "4t"])
def test_q5_compact_playout_ends_where_the_engine_greedy_playout_ends(options: dict) -> None:
    kr, n, plays, ws, plog, held, f_compact = _table(options)
    rng = random.Random(7 + n)
    for hand in range(40):
        deck = np.array(rng.sample(range(40), 40), np.int64)
        E.start_hand(deck, hand % n, kr, ws, plog)
        stop = rng.randrange(plays)
        x = None
        while ws.st[E.S_PLAYS] < plays:
            if ws.st[E.S_HELD] == 0:
                E.deal_next(deck, kr, ws, plog)
            if ws.st[E.S_PLAYS] == stop:
                x = _compact(ws, kr)
            p = int(ws.st[E.S_TURN])
            E.apply_play(E.greedy_card(p, kr, ws), kr, ws, plog)
        E.finish_hand(kr, ws)
        f_engine = _final_values(ws, kr)
        C.greedy_to_end(x, kr, deck, held, f_compact)
        np.testing.assert_array_equal(f_compact, f_engine)


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(f"{v}" for v in o.values()))
def test_q5_rollout_playouts_end_where_greedy_to_end_ends(options: dict) -> None:
    """``rollout:K``'s playouts of one sample (:func:`rollout_kernel.rollout_sample`: no copies,
    greedy by cases, the ends of playouts that meet at a deal shared) add up, candidate by
    candidate, exactly the final values that playing the candidate and then
    :func:`compact_kernel.greedy_to_end` gives; and some candidates did meet an earlier one."""
    kr, n, plays, ws, plog, held, f = _table(options)
    sw = new_search_workspace(kr, 0, 1)
    rng = random.Random(5 + 7 * n + len(options))
    met = compared = 0
    for hand in range(40):
        deck = np.array(rng.sample(range(40), 40), np.int64)
        E.start_hand(deck, hand % n, kr, ws, plog)
        while ws.st[E.S_PLAYS] < plays:
            if ws.st[E.S_HELD] == 0:
                E.deal_next(deck, kr, ws, plog)
            p = int(ws.st[E.S_TURN])
            cards = [int(c) for c in ws.hc[p, : ws.hn[p]]]
            values = sorted({c >> 2 for c in cards})
            if len(values) > 1 and rng.random() < 0.5:
                x0 = _compact(ws, kr)
                s = int(E.side_of(p, kr.teams))
                sw.st[0][:] = x0
                sw.deck[:] = deck
                for j, v in enumerate(values):
                    sw.cand[j] = 4 * v
                    sw.totals[j] = 0
                rollout_sample(s, len(values), kr, sw)
                for j, v in enumerate(values):
                    x = x0.copy()
                    C.play(v, x, kr)
                    C.greedy_to_end(x, kr, deck, held, f)
                    assert sw.totals[j] == f[s], (hand, int(ws.st[E.S_PLAYS]), v)
                    # A candidate that met an earlier one left its later deals unwritten.
                    deals = range(int(x0[C.C_DEAL]) + 1, kr.deals)
                    met += j > 0 and any(sw.memo[j, d, M_KEY] < 0 for d in deals)
                    compared += 1
                assert all(sw.memo[j, M_END, 1] >= 0 for j in range(len(values)))
            E.apply_play(E.greedy_card(p, kr, ws), kr, ws, plog)
    assert compared > 100 and met > 0
