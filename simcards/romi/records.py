"""Römi rounds as records for the reference engine, and the Python side of the numba engine.

:func:`record_rounds` plays the rounds :func:`simcards.romi.round_kernel.simulate_rounds` would play
from the same stream (the same dealers, decks and reshuffles) and returns, per round, what a
replay needs: the deck (top first), the dealer, every new stock order of T8 (top first, in the
order they were drawn) and the flat list of moves in the :mod:`simcards.romi.actions`
vocabulary (melds in canonical form), with the round's results and its final state (hands,
table, discard pile, stock, cut card) for checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from simcards.core.errors import UsageError
from simcards.core.policyspec import PolicySpec
from simcards.romi import actions as A
from simcards.romi import codes
from simcards.romi.actions import NO_JOKER, Action, Meld
from simcards.romi.cards import JOKER0
from simcards.romi.kernel_state import KernelRules, RoundState, Seats
from simcards.romi.melds_kernel import pos_kind
from simcards.romi.policies import policy_arrays, searching
from simcards.romi.records_kernel import (
    final_table,
    one_search_turn,
    one_turn,
    record_round,
    round_chances,
)
from simcards.romi.round_kernel import new_workspace
from simcards.romi.rules import RomiRules
from simcards.romi.search_kernel import DROP_Z


def engine_args(rules: RomiRules, policies: Sequence[PolicySpec | str]
                ) -> tuple[KernelRules, np.ndarray, np.ndarray]:
    """``(rules, kinds, params)`` for the engine's kernels, validated (``UsageError``): the
    engine's turn plays Q2-Q5; a searching seat (Q7, Q8) plays only through
    ``search_kernel``."""
    kinds, params = policy_arrays(policies, rules)
    if searching(kinds):
        raise UsageError("the recorded rounds play greedy, rummy, threshold and expert seats "
                         "(Q2-Q5); search and seeing play in rounds, games, compare and ladder")
    return rules.kernel, kinds, params


@dataclass(frozen=True)
class RoundRecord:
    """One round as played: what a replay needs (``deck``, ``dealer``, ``stock_orders``,
    ``moves``), its results, and its final state."""

    deck: tuple[int, ...]
    dealer: int
    stock_orders: tuple[tuple[int, ...], ...]
    moves: tuple[Action, ...]
    scores: tuple[int, ...]
    went_out: int
    romi: bool
    never_opened: tuple[bool, ...]
    turns: int
    stalled: bool
    hands: tuple[tuple[int, ...], ...]
    table: tuple[tuple[int, Meld], ...]
    """(owner, meld) in table order."""
    pile: tuple[int, ...]
    """Bottom first."""
    stock: tuple[int, ...]
    """Top first."""
    cut: int
    """The cut card, -1 once taken."""
    rows: np.ndarray = field(compare=False, repr=False, default_factory=lambda: np.zeros(
        (0, codes.MW), np.int64))
    """The moves as the engine's integer rows (``engine.MV_*``), which :func:`decode_moves`
    turns into ``moves``."""


def _meld(cards: np.ndarray, k: int, stands: int) -> Meld:
    return Meld(tuple(int(c) for c in cards[:k]), NO_JOKER if stands < 0 else int(stands))


def decode_moves(rows: np.ndarray) -> list[Action]:
    """Move rows (``engine.MV_*``) as actions; consecutive ``MV_OPEN`` rows are one ``Open``."""
    return _decode(rows)[0]


def _decode(rows: np.ndarray) -> tuple[list[Action], dict[int, int]]:
    """The actions, and the table number each engine meld laid in them has in the actions
    (``index[e]``; melds on the table before the rows keep their numbers).

    An ``Open`` lists its melds sorted by their card tuples (the canonical form both engines
    share), so the table numbers of an opening's melds follow that order, whatever order the
    engine laid them in; later ``Add`` and ``Swap`` targets are renumbered to match."""
    out: list[Action] = []
    opening: list[tuple[int, Meld]] = []
    index: dict[int, int] = {}

    def close_opening() -> None:
        base = min(m for m, _ in opening)
        ordered = sorted(opening, key=lambda em: em[1].cards)
        for r, (m, _) in enumerate(ordered):
            index[m] = base + r
        out.append(A.Open(tuple(meld for _, meld in ordered)))
        opening.clear()

    for row in np.asarray(rows):
        code = int(row[codes.MV_CODE])
        if code != codes.MV_OPEN and opening:
            close_opening()
        target = int(row[codes.MV_TARGET])
        if code == codes.MV_DRAW_STOCK:
            out.append(A.DrawStock())
        elif code == codes.MV_DRAW_DISCARD:
            out.append(A.DrawDiscard())
        elif code == codes.MV_DRAW_CUT:
            out.append(A.DrawCut())
        elif code in (codes.MV_OPEN, codes.MV_LAY):
            meld = _meld(row[codes.MV_C0:], int(row[codes.MV_N]), int(row[codes.MV_STANDS]))
            if code == codes.MV_OPEN:
                opening.append((target, meld))
            else:
                index[target] = target
                out.append(A.Lay(meld))
        elif code == codes.MV_ADD:
            s = int(row[codes.MV_STANDS])
            out.append(A.Add(index.get(target, target), int(row[codes.MV_CARD]),
                           NO_JOKER if s < 0 else s))
        elif code == codes.MV_SWAP:
            out.append(A.Swap(index.get(target, target), int(row[codes.MV_CARD])))
        elif code == codes.MV_DISCARD:
            out.append(A.Discard(int(row[codes.MV_CARD])))
        else:
            raise ValueError(f"unknown move code {code}")
    if opening:
        close_opening()
    return out, index


def record_from_seed(seed: int, dealer: int, rules: KernelRules, kinds: np.ndarray,
                     params: np.ndarray, max_turns: int = codes.STALL_TURNS + 1) -> RoundRecord:
    """One round from its own stream's seed (or its first ``max_turns`` turns)."""
    deck, log, shuf, shuf_len, scores, ws = record_round(np.uint64(seed), dealer, rules,
                                                         Seats(kinds, params), max_turns)
    st, hand, hn, opened, _, _, stock, pile = ws[:8]
    n = int(rules.players)
    orders = []
    at = 0
    for m in shuf_len:
        orders.append(tuple(int(c) for c in shuf[at:at + m]))
        at += int(m)
    owners, cards, counts, stands = final_table(ws)
    moves, index = _decode(log)
    table: list[tuple[int, Meld]] = [(0, Meld(()))] * len(owners)
    for m in range(len(owners)):
        table[index.get(m, m)] = (int(owners[m]),
                                  _meld(cards[m], int(counts[m]), int(stands[m])))
    return RoundRecord(
        deck=tuple(int(c) for c in deck),
        dealer=int(dealer),
        stock_orders=tuple(orders),
        moves=tuple(moves),
        scores=tuple(int(s) for s in scores),
        went_out=int(st[codes.S_OUT]),
        romi=bool(st[codes.S_ROMI]),
        never_opened=tuple(not bool(opened[p]) for p in range(n)),
        turns=int(st[codes.S_TURNS]),
        stalled=bool(st[codes.S_STALLED]),
        hands=tuple(tuple(int(c) for c in hand[p, :hn[p]]) for p in range(n)),
        table=tuple(table),
        pile=tuple(int(c) for c in pile[:st[codes.S_PN]]),
        stock=tuple(int(c) for c in stock[st[codes.S_POS]:st[codes.S_END]]),
        cut=int(st[codes.S_CUT]),
        rows=log,
    )


def record_rounds(state: np.ndarray, n_rounds: int, rules: KernelRules, kinds: np.ndarray,
                  params: np.ndarray, dealer: int = -1) -> list[RoundRecord]:
    """The rounds :func:`simcards.romi.round_kernel.simulate_rounds` plays from ``state`` (advanced
    the same way), each with its deck, dealer, new stock orders and moves."""
    if n_rounds < 0:
        raise UsageError(f"n_rounds={n_rounds} must be >= 0")
    n = int(rules.players)
    dealers, seeds = round_chances(state, n_rounds, n, dealer)
    return [record_from_seed(int(seeds[r]), int(dealers[r]), rules, kinds, params)
            for r in range(n_rounds)]


# ---------------------------------------------------------------- positions (tests, analysis)


def put_meld(ws: tuple, m: int, owner: int, cards: Sequence[int],
             stands_for: int = NO_JOKER) -> None:
    """Write table meld m of a workspace from its canonical cards (M5; a run low to high with
    the joker at its place, a set by suit with the joker last) and the kind its joker stands
    for (needed for a run's joker; a set's joker follows its real suits). Three or four cards
    of one rank are a set (M3). ``UsageError`` for cards that are no meld."""
    tm, tc = ws.tm, ws.tc
    real = [int(c) for c in cards if c < JOKER0]
    jokers = [int(c) for c in cards if c >= JOKER0]
    if len(jokers) > 1 or len(real) < 2 or len(cards) < 3:
        raise UsageError(f"table meld {list(cards)} is no meld (M1-M4)")
    tm[m, :] = 0
    tc[m, :] = -1
    tm[m, codes.TM_OWNER] = owner
    tm[m, codes.TM_JID] = jokers[0] if jokers else -1
    ranks = {c % 13 for c in real}
    suits = [(c % 52) // 13 for c in real]
    if len(ranks) == 1 and len(set(suits)) == len(real) and len(cards) <= 4:
        tm[m, codes.TM_RUN] = 0
        tm[m, codes.TM_RANK] = real[0] % 13 + 1
        for c, s in zip(real, suits, strict=True):
            tc[m, s] = c
            tm[m, codes.TM_MASK] |= 1 << s
        return
    if len(set(suits)) != 1:
        raise UsageError(f"table meld {list(cards)} is no meld (M1-M4)")
    first = next(i for i, c in enumerate(cards) if c < JOKER0)
    r = cards[first] % 13 + 1
    place = (1 if first == 0 else 14) if r == 1 else r
    lo = place - first
    hi = lo + len(cards) - 1
    if lo < 1 or hi > 14 or hi - lo > 12:
        raise UsageError(f"table meld {list(cards)} is no run (M2)")
    tm[m, codes.TM_RUN] = 1
    tm[m, codes.TM_SUIT] = suits[0]
    tm[m, codes.TM_LO] = lo
    tm[m, codes.TM_HI] = hi
    for i, c in enumerate(cards):
        p = lo + i
        if c >= JOKER0:
            tm[m, codes.TM_JP] = p
            if stands_for != NO_JOKER and stands_for != pos_kind(suits[0], p):
                raise UsageError(f"table meld {list(cards)}: the joker is at a different place")
        elif pos_kind(suits[0], p) != c % 52:
            raise UsageError(f"table meld {list(cards)} is no run (M2)")
        else:
            tc[m, p] = c


def position(rules: RomiRules, hands: Sequence[Sequence[int]], *, dealer: int = 0,
             to_move: int | None = None, table: Sequence[tuple[int, Sequence[int], int]] = (),
             pile: Sequence[int] = (), stock: Sequence[int] = (), cut: int = -1,
             opened: Sequence[bool] | None = None, drawn: Sequence[bool] | None = None,
             played: Sequence[int] | None = None, turns: int = 1) -> tuple:
    """A workspace holding a position built by hand: hands, table melds ``(owner, cards,
    stands_for)``, discard pile (bottom first), stock (top first), cut card, flags. By default
    every player has opened nothing, drawn once and played one turn, and the player after the
    dealer is to move."""
    n = rules.players
    ws = new_workspace(n)
    st, hand, hn, op, dr, pl, stk, pil = ws[:8]
    st[codes.S_DEALER] = dealer
    st[codes.S_TURN] = (dealer + 1) % n if to_move is None else to_move
    st[codes.S_TURNS] = turns
    st[codes.S_OUT] = -1
    for p in range(n):
        hand[p, :] = -1
        hand[p, :len(hands[p])] = hands[p]
        hn[p] = len(hands[p])
        op[p] = int(opened[p]) if opened is not None else 0
        dr[p] = int(drawn[p]) if drawn is not None else 1
        pl[p] = played[p] if played is not None else 1
    stk[:len(stock)] = stock
    st[codes.S_POS] = 0
    st[codes.S_END] = len(stock)
    pil[:len(pile)] = pile
    st[codes.S_PN] = len(pile)
    st[codes.S_CUT] = cut
    for m, (owner, cards, stands) in enumerate(table):
        put_meld(ws, m, owner, cards, stands)
    st[codes.S_NM] = len(table)
    return ws


def play_one_turn(ws: tuple, rules: KernelRules, kinds: np.ndarray, params: np.ndarray,
                  seed: int = 0) -> tuple[int, list[Action], tuple[int, ...]]:
    """Play the turn of the player to move in ``ws`` (changed in place; the turn counter and the
    player to move are not advanced). Returns (status: 0 on, 1 went out, 2 stopped by T8; the
    turn's actions; the new stock order if T8 reshuffled)."""
    status, log, shuf = one_turn(rules, Seats(kinds, params), RoundState(*ws), np.uint64(seed))
    return int(status), decode_moves(log), tuple(int(c) for c in shuf)


def play_one_search_turn(ws: tuple, rules: KernelRules, kinds: np.ndarray, params: np.ndarray,
                         seed: int = 0, search_seed: int = 0, drop_z: float = DROP_Z
                         ) -> tuple[int, list[Action], tuple[int, ...]]:
    """:func:`play_one_turn` for a searching seat to move (Q7, Q8), its stream seeded by
    ``search_seed``; ``drop_z`` Q7's dropping margin (``math.inf``: every candidate weighed on
    every sample)."""
    status, log, shuf = one_search_turn(rules, Seats(kinds, params), RoundState(*ws),
                                         np.uint64(seed), np.uint64(search_seed),
                                         np.float64(drop_z))
    return int(status), decode_moves(log), tuple(int(c) for c in shuf)


def play_prefix(seed: int, dealer: int, rules: KernelRules, kinds: np.ndarray, params: np.ndarray,
                turns: int) -> tuple:
    """The workspace after the first ``turns`` turns of the round of that seed and dealer (the
    round may have ended earlier: ``ws.st[engine.S_OUT]``)."""
    return record_round(np.uint64(seed), dealer, rules, Seats(kinds, params), turns)[5]
