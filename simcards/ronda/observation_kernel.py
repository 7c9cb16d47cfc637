"""The ``ronda_v0`` observation in compiled code: its layout, readers for a player's own
policy (Q11), and the writers the hand kernel keeps it up to date with for each seat that
plays one.

The layout is :data:`simcards.ronda.table.OBSERVATION_FIELDS` (``help(
simcards.envs.ronda_v0.env)``): 527 float32 entries, seats and sides counted from the seat
that observes (relative seat 0 is the seat itself, 1 the next to play after it, and so on).
Every reader is compiled and works the same called from plain Python (a numpy float32
vector) and from inside a compiled policy::

    from simcards.ronda.observation_kernel import hand_cards, lowest_card

    def play_low(obs, legal):
        return lowest_card(obs)

A card id ``c`` is value-major: ``c // 4`` is the value index of 1 .. 7, 10 .. 12
(:data:`VALUES`), ``c % 4`` the suit of oros, copas, espadas, bastos. ``legal`` (int8, 40
entries) is 1 for each card id of the hand, and the function returns the id of the card to
play. It keeps no memory between decisions (Q11): each card is chosen from the observation of
the moment alone, so anything a function wants to remember must be read again from ``obs``
(the played and captured cards of the whole hand are in it).

:func:`greedy` is the built-in ``greedy`` (Q3) computed from the observation, so that a
policy can be "greedy, except ..." in a few lines (``scripts/strategies/ronda_hold_rey.py``);
:func:`greedy_under` says when it is exactly the built-in one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.bits_kernel import lowest_bit
from simcards.ronda import codes
from simcards.ronda.codes import MODE_POINTS
from simcards.ronda.hand_kernel import (
    S_ANNP,
    S_DEAL,
    S_DEALER,
    S_FIRST,
    S_LAST_CAPTURER,
    S_LAST_LAID,
    S_PILE_HITTER,
    S_PILE_MASK,
    S_PILE_N,
    S_SCORE,
    S_STOCK,
    S_TABLE_MASK,
)
from simcards.ronda.kernel_state import Board, KernelRules, Spot
from simcards.ronda.value_rules_kernel import greedy_value, side_of

N_CARDS = codes.OBS_CARDS
MAX_SEATS = codes.OBS_MAX_SEATS
MAX_DEALS = codes.OBS_MAX_DEALS
VALUES = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
"""The card value of each value index (a card id's ``c // 4``)."""

HAND = codes.OBS_HAND
"""Offsets of the fields (:data:`simcards.ronda.table.OBSERVATION_FIELDS`), declared once in
:mod:`simcards.ronda.codes` and named here for players' own functions."""
TABLE = codes.OBS_TABLE
PILE = codes.OBS_PILE
PREVIOUS = codes.OBS_PREVIOUS
PLAYED = codes.OBS_PLAYED
CAPTURED = codes.OBS_CAPTURED
SIZES = codes.OBS_SIZES
ANNOUNCED = codes.OBS_ANNOUNCED
MARKS = codes.OBS_MARKS
SCORES = codes.OBS_SCORES
POINTS = codes.OBS_POINTS
DEAL = codes.OBS_DEAL
STOCK = codes.OBS_STOCK
TO_PLAY = codes.OBS_TO_PLAY
WON = codes.OBS_WON
SIZE = codes.OBS_SIZE
MARK_DEALER, MARK_FIRST, MARK_HITTER, MARK_CAPTURER = 0, 1, 2, 3
"""The rows of ``seat_marks``."""


# ---------------------------------------------------------------- readers


@njit(cache=True, inline="always")
def _cards(obs, at):
    n = 0
    for c in range(N_CARDS):
        if obs[at + c] > 0.5:
            n += 1
    out = np.empty(n, np.int64)
    n = 0
    for c in range(N_CARDS):
        if obs[at + c] > 0.5:
            out[n] = c
            n += 1
    return out


@njit(cache=True, inline="always")
def hand_cards(obs):
    """The card ids in the seat's hand, ascending (card order)."""
    return _cards(obs, HAND)


@njit(cache=True, inline="always")
def table_cards(obs):
    """The card ids lying on the table (P4: at most one of each value), ascending."""
    return _cards(obs, TABLE)


@njit(cache=True, inline="always")
def pile_cards(obs):
    """The card ids of the open pile in play (X3), ascending; empty when none is open."""
    return _cards(obs, PILE)


@njit(cache=True, inline="always")
def captured_cards(obs, side):
    """The card ids relative side ``side`` (0: the seat's own) has captured this hand."""
    return _cards(obs, CAPTURED + N_CARDS * side)


@njit(cache=True, inline="always")
def played_cards(obs, seat):
    """The card ids relative seat ``seat`` (0: the seat itself) has played this hand."""
    return _cards(obs, PLAYED + N_CARDS * seat)


@njit(cache=True, inline="always")
def value_of(card):
    """The card value (1 .. 7, 10 .. 12) of card id ``card``."""
    v = card // 4
    return v + 1 if v < 7 else v + 3


@njit(cache=True, inline="always")
def value_index(card):
    """The value index 0 .. 9 of card id ``card`` (its order among the values)."""
    return card // 4


@njit(cache=True, inline="always")
def hand_values(obs):
    """The card values (1 .. 7, 10 .. 12) in the seat's hand, ascending, one per card."""
    cards = hand_cards(obs)
    out = np.empty(cards.shape[0], np.int64)
    for i in range(cards.shape[0]):
        out[i] = value_of(cards[i])
    return out


@njit(cache=True, inline="always")
def on_table(obs, value_idx):
    """The card id of value index ``value_idx`` on the table, or -1 (P4: at most one)."""
    for s in range(4):
        if obs[TABLE + 4 * value_idx + s] > 0.5:
            return 4 * value_idx + s
    return -1


@njit(cache=True, inline="always")
def _first(obs, at):
    """The lowest card marked in the 40-card field at ``at``, or -1."""
    for c in range(N_CARDS):
        if obs[at + c] > 0.5:
            return c
    return -1


@njit(cache=True, inline="always")
def previous_card(obs):
    """The card the previous play laid on the table, or -1 (it captured, or nobody has played:
    X1, a capture of its value is a Missa or a Derba)."""
    return _first(obs, PREVIOUS)


@njit(cache=True, inline="always")
def lowest_card(obs):
    """The seat's lowest card (card order), -1 with an empty hand."""
    return _first(obs, HAND)


@njit(cache=True, inline="always")
def highest_card(obs):
    """The seat's highest card (card order), -1 with an empty hand."""
    for c in range(N_CARDS - 1, -1, -1):
        if obs[HAND + c] > 0.5:
            return c
    return -1


@njit(cache=True, inline="always")
def cards_held(obs, seat):
    """The cards relative seat ``seat`` holds now (0: the seat itself)."""
    return np.int64(obs[SIZES + seat] * 4 + 0.5)


@njit(cache=True, inline="always")
def mark(obs, which):
    """The relative seat of a mark (:data:`MARK_DEALER`, :data:`MARK_FIRST`,
    :data:`MARK_HITTER`: the open pile's last hitter, :data:`MARK_CAPTURER`: the last
    capturer), or -1 when nobody holds it."""
    for r in range(MAX_SEATS):
        if obs[MARKS + 4 * which + r] > 0.5:
            return r
    return -1


@njit(cache=True, inline="always")
def rondas_announced(obs, seat):
    """The Rondas relative seat ``seat`` announced at this deal (A2)."""
    return np.int64(obs[ANNOUNCED + 2 * seat] + 0.5)


@njit(cache=True, inline="always")
def tringlas_announced(obs, seat):
    """The Tringlas relative seat ``seat`` announced at this deal (A2)."""
    return np.int64(obs[ANNOUNCED + 2 * seat + 1] + 0.5)


@njit(cache=True, inline="always")
def score(obs, side):
    """Relative side ``side``'s score over the target (S2: the match score; in ``hands``,
    the points of this hand)."""
    return obs[SCORES + side]


@njit(cache=True, inline="always")
def hand_points(obs, side):
    """Relative side ``side``'s points of this hand over the target."""
    return obs[POINTS + side]


@njit(cache=True, inline="always")
def deal(obs):
    """The deal in progress, 0-based (D4: five deals with two players, three or more
    otherwise)."""
    for d in range(MAX_DEALS):
        if obs[DEAL + d] > 0.5:
            return d
    return -1


@njit(cache=True, inline="always")
def stock_left(obs):
    """The cards left in the stock."""
    return np.int64(obs[STOCK] * N_CARDS + 0.5)


@njit(cache=True, inline="always")
def last_card_of_hand(obs):
    """Whether the seat is playing the hand's last card (the stock is empty and every other
    seat's hand is empty: L1-L5 credit this play)."""
    if obs[STOCK] > 0.0 or cards_held(obs, 0) != 1:
        return False
    for r in range(1, MAX_SEATS):  # noqa: SIM110 (a loop: compiled code has no all())
        if obs[SIZES + r] > 0.0:
            return False
    return True


# ---------------------------------------------------------------- the writers (hand kernel)


@njit(cache=True, inline="always")
def observe_deal(obs, legal, p, rules, ws, match):
    """Q11: seat ``p``'s observation ``obs`` and action mask ``legal`` after a deal (D5) and
    its announcements (A1-A5): the new holding, every holding's size, the announcements, the
    deal and the stock, the sides' points. The first deal of a hand clears the rest (table,
    pile, history, marks) and writes it whole, with the hands each side has won in the match
    (``match[1]``, C2; zeros outside one)."""
    st, hc, hn = ws.st, ws.hc, ws.hn
    n = rules.players
    d = st[S_DEAL]
    if d == 0:
        for i in range(obs.shape[0]):
            obs[i] = 0.0
        tm = st[S_TABLE_MASK]
        for c in range(N_CARDS):
            if (tm >> c) & 1:
                obs[TABLE + c] = 1.0
        obs[MARKS + 4 * MARK_DEALER + _rel(st[S_DEALER], p, n)] = 1.0
        obs[MARKS + 4 * MARK_FIRST + _rel(st[S_FIRST], p, n)] = 1.0
        obs[TO_PLAY] = 1.0  # read only when the seat is to play
        ns = rules.sides
        mine = side_of(p, rules.teams)
        for t in range(ns):
            if match[1, t] > 0:  # hands_to_win is read only when a hand was won (C3)
                obs[WON + _rel(t, mine, ns)] = match[1, t] / rules.hands_to_win
    else:
        obs[DEAL + d - 1] = 0.0
    obs[DEAL + d] = 1.0
    for c in range(N_CARDS):
        legal[c] = 0
    for j in range(hn[p]):
        obs[HAND + hc[p, j]] = 1.0
        legal[hc[p, j]] = 1
    for q in range(n):
        r = _rel(q, p, n)
        obs[SIZES + r] = hn[q] / 4.0
        packed = st[S_ANNP + q]
        rondas = 0
        tringlas = 0
        for v in range(10):
            k = (packed >> (4 * v)) & 15
            if k == 2:
                rondas += 1
            elif k == 3:
                tringlas += 1
        obs[ANNOUNCED + 2 * r] = rondas
        obs[ANNOUNCED + 2 * r + 1] = tringlas
    obs[STOCK] = (N_CARDS - st[S_STOCK]) / N_CARDS
    _points(obs, p, rules, st, match)


@njit(cache=True, inline="always")
def observe_play(obs, legal, p, q, card, before, rules, ws, match):
    """Q11: seat ``p``'s observation after seat ``q`` played ``card``: only what a play changes
    (the card out of ``q``'s hand into its played cards, the table, the pile, the captured
    cards and the previous card as bit differences from ``before``, :func:`snapshot`, the
    holding's size, the hitter's and capturer's marks, the points)."""
    st, hn, capm = ws.st, ws.hn, ws.capm
    n = rules.players
    r = _rel(q, p, n)
    if q == p:
        obs[HAND + card] = 0.0
        legal[card] = 0
    obs[PLAYED + N_CARDS * r + card] = 1.0
    obs[SIZES + r] = hn[q] / 4.0
    _diff(obs, TABLE, before[0], st[S_TABLE_MASK])
    _diff(obs, PILE, before[1], st[S_PILE_MASK])
    if before[2] >= 0:
        obs[PREVIOUS + before[2]] = 0.0
    if st[S_LAST_LAID] >= 0:
        obs[PREVIOUS + st[S_LAST_LAID]] = 1.0
    ns = rules.sides
    mine = side_of(p, rules.teams)
    for t in range(ns):
        _diff(obs, CAPTURED + N_CARDS * _rel(t, mine, ns), before[3 + t], capm[t])
    for k in (MARK_HITTER, MARK_CAPTURER):
        for i in range(MAX_SEATS):
            obs[MARKS + 4 * k + i] = 0.0
    if st[S_PILE_N] > 0 and st[S_PILE_HITTER] >= 0:
        obs[MARKS + 4 * MARK_HITTER + _rel(st[S_PILE_HITTER], p, n)] = 1.0
    if st[S_LAST_CAPTURER] >= 0:
        obs[MARKS + 4 * MARK_CAPTURER + _rel(st[S_LAST_CAPTURER], p, n)] = 1.0
    if rules.mode == MODE_POINTS:
        _points(obs, p, rules, st, match)


@njit(cache=True, inline="always")
def snapshot(before, ws, rules):
    """What :func:`observe_play` compares against, taken before a play: the table's and the
    pile's cards, the previous card and each side's captured cards."""
    st = ws.st
    before[0] = st[S_TABLE_MASK]
    before[1] = st[S_PILE_MASK]
    before[2] = st[S_LAST_LAID]
    for t in range(rules.sides):
        before[3 + t] = ws.capm[t]


@njit(cache=True, inline="always")
def _rel(q, p, n):
    r = q - p
    return r + n if r < 0 else r


@njit(cache=True, inline="always")
def _diff(obs, at, old, new):
    """Write the cards whose bit differs between the masks ``old`` and ``new``."""
    d = old ^ new
    while d:
        c = lowest_bit(d)
        obs[at + c] = 1.0 if (new >> c) & 1 else 0.0
        d &= d - 1


@njit(cache=True, inline="always")
def _points(obs, p, rules, st, match):
    """Each relative side's score (the match's carried score ``match[0]`` plus the hand's
    points, S2: a single hand carries none) and points of the hand over the target."""
    ns = rules.sides
    mine = side_of(p, rules.teams)
    target = float(rules.target)
    for t in range(ns):
        r = _rel(t, mine, ns)
        obs[SCORES + r] = (match[0, t] + st[S_SCORE + t]) / target
        obs[POINTS + r] = st[S_SCORE + t] / target


# ---------------------------------------------------------------- greedy, from the observation

DEAL_SIZES = np.array([[4, 4, 4, 4, 4, 0], [4, 4, 4, 1, 0, 0], [4, 4, 2, 0, 0, 0]], np.int64)
"""D4: cards per player at each deal with 2, 3 and 4 players (then a spare 0)."""


@njit(cache=True, inline="always")
def players(obs):
    """The seats at the table, read from the observation: every seat holds a card or has
    played one by the time it is asked to play (D4: every deal gives each seat cards)."""
    n = 1
    for r in range(1, MAX_SEATS):
        if obs[SIZES + r] > 0.0:
            n += 1
            continue
        for c in range(N_CARDS):
            if obs[PLAYED + N_CARDS * r + c] > 0.5:
                n += 1
                break
    return n


@njit(cache=True)
def greedy_under(obs, legal, teams, tiers, classic):
    """Q3's card (``greedy``) for the seat observing ``obs``, under the rules the observation
    does not carry: ``teams`` (D2: partnerships, four players), ``tiers`` (X7:
    ``--derba-chain tiers``) and ``classic`` (C1: nothing scores). The number of players is
    read from the observation (:func:`players`).

    What the observation lacks: *which* values the next seat announced at this deal (it
    holds how many Rondas and Tringlas, A2, not of which value). The built-in greedy breaks a
    tie in V by the Derba risk, which is 1 for a value the next seat's announcements prove he
    still holds; here that risk is always the hypergeometric one. So this is exactly the
    built-in ``greedy`` wherever the next seat announced nothing at this deal (always in
    classic mode), and may differ from it, in a tie of V only, where it did."""
    n = players(obs)
    hand = np.int64(0)
    for c in range(N_CARDS):
        if obs[HAND + c] > 0.5:
            hand += np.int64(1) << (4 * (c >> 2))
    table = np.int64(0)
    table_n = 0
    for c in range(N_CARDS):
        if obs[TABLE + c] > 0.5:
            table |= np.int64(1) << (c >> 2)
            table_n += 1
    pile_n = 0
    pile_v = -1  # X3: the pile's top value, the one value it holds two or more cards of
    pile_vc = 0
    for v in range(10):
        k = 0
        for c in range(4 * v, 4 * v + 4):
            if obs[PILE + c] > 0.5:
                k += 1
        pile_n += k
        if k >= 2:
            pile_v = v
            pile_vc = k
    prev = previous_card(obs)
    board = Board(table, np.int64(table_n), np.int64(pile_n), np.int64(pile_v),
                  np.int64(pile_vc), np.int64(mark(obs, MARK_HITTER)),
                  np.int64(prev >> 2) if prev >= 0 else np.int64(-1),
                  np.int64(mark(obs, MARK_CAPTURER)))
    # Public cards: every card played, and with three players the face-up card (D4), the one
    # card on the table, in the pile or captured that nobody played.
    public = np.int64(0)
    n_public = 0
    played = np.int64(0)
    for r in range(MAX_SEATS):
        for c in range(N_CARDS):
            if obs[PLAYED + N_CARDS * r + c] > 0.5:
                played |= np.int64(1) << c
                public += np.int64(1) << (4 * (c >> 2))
                n_public += 1
    if n == 3:
        for c in range(N_CARDS):
            if (played >> c) & 1:
                continue
            seen = obs[TABLE + c] > 0.5 or obs[PILE + c] > 0.5
            for t in range(MAX_SEATS):
                seen = seen or obs[CAPTURED + N_CARDS * t + c] > 0.5
            if seen:
                public += np.int64(1) << (4 * (c >> 2))
                n_public += 1
    mine = cards_held(obs, 0)
    h = cards_held(obs, 1)
    d = deal(obs)
    sizes = DEAL_SIZES[n - 2]
    if h == 0:
        h = sizes[d + 1]
    last = stock_left(obs) == 0 and n_public + mine == N_CARDS and mine == 1
    spot = Spot(np.int64(0), hand, board, last, np.int64(N_CARDS - n_public - mine), h,
                np.int64(0), public)
    sides = 2 if teams else n
    rules = KernelRules(np.int64(n), np.int64(1 if teams else 0), np.int64(1 if tiers else 0),
                        np.int64(0), np.int64(0), np.int64(1 if classic else 0),
                        np.int64(sides), np.int64(N_CARDS // sides), np.int64(0),
                        np.int64(0), np.int64(1 if n == 3 else 0), np.int64(0), np.int64(0),
                        np.int64(0), sizes)
    # One scratch array: greedy's held cards by side in 0 .. 3, the captured counts from 4.
    scratch = np.zeros(2 * MAX_SEATS, np.int64)
    for t in range(sides):
        for c in range(N_CARDS):
            if obs[CAPTURED + N_CARDS * t + c] > 0.5:
                scratch[MAX_SEATS + t] += 1
    v = greedy_value(spot, rules, scratch, MAX_SEATS, scratch)
    for c in range(4 * v, 4 * v + 4):
        if legal[c]:
            return c
    return -1


@njit(cache=True)
def greedy(obs, legal):
    """Q3's card (``greedy``) under the default rules (no teams, flat Derba chains, points
    mode): :func:`greedy_under` with them. A policy of yours may call it for the cases it
    leaves to greedy::

        def hold_rey(obs, legal):
            ...
            return greedy(obs, legal)
    """
    return greedy_under(obs, legal, False, False, False)
