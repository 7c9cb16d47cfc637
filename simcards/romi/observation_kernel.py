"""The ``romi_v0`` observation for a player's own policy (Q9): readers of its fields and the
action codes, so that a policy is written without counting offsets.

The observation is :data:`simcards.romi.table.OBSERVATION_FIELDS` (``help(
simcards.envs.romi_v0.env)``), a float32 vector whose length tells the number of players
``n`` (2 .. 5) and whether it is a game's (``romi_game_v0``, which adds the round and the
totals). Cards are *kinds*: ``rank`` 1 (As) .. 13 (K) and ``suit`` 0 .. 3 (spades, hearts,
diamonds, clubs) make kind ``suit * 13 + rank - 1``; the joker is kind :data:`JOKER` (52).
Other seats are *relative*: 0 is the seat deciding, 1 the player on its left who plays next,
and so on. Every reader is compiled with numba's ``njit`` and works the same called from plain
Python (a numpy float32 vector)::

    import numpy as np

    from simcards.romi.observation_kernel import DRAW_STOCK, discard, hand, is_drawing

    def stock_then_highest(obs, legal):  # never opens
        if is_drawing(obs):
            return DRAW_STOCK
        cards = hand(obs)
        for k in range(52, -1, -1):  # the highest kind the mask lets go
            if cards[k] > 0 and legal[discard(k)]:
                return discard(k)
        return int(np.flatnonzero(legal)[0])  # no discard allowed yet (T4, T5, J3)

A move is one code or, for an opening (O1), a path: the shape codes of its melds in increasing
order, then :data:`OPEN_DONE`, each asked for in turn (the observation's ``opening`` field
holds the shapes named so far). The mask says which codes continue a legal move; a policy must
return one of them. :mod:`simcards.romi.policy_functions` has the built-in policies as
functions of the same two arguments.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.romi import table_codes as T

N_KINDS = 53
"""52 real kinds and the joker."""
JOKER = 52
"""The joker's kind."""
MAX_MELDS = T.MAX_MELDS
"""Table meld slots in the observation (M1, M2: never more than 36 melds)."""
N_SHAPES = T.N_SHAPES

# The action codes (simcards.romi.table_codes).
DRAW_STOCK = T.DRAW_STOCK
"""Draw the top card of the stock (T2; T8's reshuffle first when it is empty)."""
DRAW_DISCARD = T.DRAW_DISCARD
"""Take the top card of the discard pile (T2-T4: it must be melded this turn)."""
DRAW_CUT = T.DRAW_CUT
"""Take the cut card (T5: only to go out with it)."""
DISCARD0 = T.DISCARD0
OPEN_DONE = T.OPEN_DONE
"""The opening's melds are all named (O1): the last code of an opening's path."""
SHAPE0 = T.SHAPE0
ADD0 = T.ADD0
ADD_VARIANTS = T.ADD_VARIANTS
SWAP0 = T.SWAP0
N_ACTIONS = T.N_ACTIONS
JOKER_LOW = T.JOKER_LOW
"""An addition's ``v``: a joker at a run's low end."""
JOKER_HIGH = T.JOKER_HIGH
"""An addition's ``v``: a joker at a run's high end."""
JOKER_SET = T.JOKER_SET
"""An addition's ``v``: a joker into a set."""

# The phase (the observation's ``phase``).
OTHER = 0
"""Not this seat's decision."""
FIRST = 1
"""The starter's first turn: only a discard (D4)."""
DRAW = 2
"""This seat draws (T2)."""
MELD = 3
"""This seat has drawn: it melds, adds, swaps or discards (T6, T7)."""
OVER = 4
"""The round (the game) is over."""

_TABLE = 2643
"""Where the table starts: hand 53, phase 5, opening 2,527, must_place 53, turn_flags 4,
may_open 1."""


# ---------------------------------------------------------------- the layout


@njit(cache=True)
def players(obs):
    """The number of players, ``n`` (from the vector's length)."""
    size = obs.shape[0]
    if (size - 6532) % 94 == 0:
        return (size - 6532) // 94
    return (size - 6533) // 95


@njit(cache=True)
def is_game(obs):
    """Whether the observation is a game's (``romi_game_v0``): it ends with ``round`` and
    ``totals``."""
    return (obs.shape[0] - 6532) % 94 != 0


@njit(cache=True)
def _slot(n):
    return N_KINDS + 52 + n


@njit(cache=True)
def _pile_at(n):
    return _TABLE + MAX_MELDS * _slot(n)


@njit(cache=True)
def _sizes_at(n):
    """Where ``hand_sizes`` starts (after pile, top, cut, cut_taken)."""
    return _pile_at(n) + 3 * N_KINDS + 1


@njit(cache=True)
def _stock_at(n):
    return _sizes_at(n) + 3 * n + (n - 1) * N_KINDS


# ---------------------------------------------------------------- what the seat holds


@njit(cache=True)
def hand(obs):
    """Copies of each kind in the seat's hand: 53 int64 counts (the joker at 52)."""
    out = np.zeros(N_KINDS, np.int64)
    for k in range(N_KINDS):
        out[k] = np.int64(obs[k] + 0.5)
    return out


@njit(cache=True)
def hand_size(obs):
    """Cards in the seat's hand."""
    s = 0
    for k in range(N_KINDS):
        s += np.int64(obs[k] + 0.5)
    return s


@njit(cache=True)
def holds(obs, k):
    """Copies of kind ``k`` in the seat's hand."""
    return np.int64(obs[k] + 0.5)


@njit(cache=True)
def must_place(obs):
    """The kind of the card the player in turn took from the discard pile and must still meld
    this turn (T4), or -1."""
    at = _TABLE - 58
    for k in range(N_KINDS):
        if obs[at + k] > 0.5:
            return k
    return -1


@njit(cache=True)
def opening_named(obs):
    """The shape codes of an opening being composed (O1), as counts per shape
    (``SHAPE0 + s`` for shape ``s``): the codes this seat has named so far."""
    out = np.zeros(N_SHAPES, np.int64)
    for s in range(N_SHAPES):
        out[s] = np.int64(obs[N_KINDS + 5 + s] + 0.5)
    return out


@njit(cache=True)
def composing(obs):
    """Whether this seat is in the middle of an opening's path (O1)."""
    return (obs[N_KINDS + 5:N_KINDS + 5 + N_SHAPES] > 0.5).any()


# ---------------------------------------------------------------- the turn


@njit(cache=True)
def phase(obs):
    """:data:`OTHER`, :data:`FIRST`, :data:`DRAW`, :data:`MELD` or :data:`OVER`."""
    for p in range(5):
        if obs[N_KINDS + p] > 0.5:
            return p
    return OTHER


@njit(cache=True)
def is_drawing(obs):
    """Whether the seat is to draw (T2)."""
    return obs[N_KINDS + DRAW] > 0.5


@njit(cache=True)
def is_melding(obs):
    """Whether the seat has drawn and melds or discards (T6, T7), or plays the starter's first
    turn, a discard only (D4)."""
    return obs[N_KINDS + MELD] > 0.5 or obs[N_KINDS + FIRST] > 0.5


@njit(cache=True)
def freed_jokers(obs):
    """Jokers the player in turn freed by a swap and must lay again this turn (J3)."""
    return np.int64(obs[_TABLE - 5] + 0.5)


@njit(cache=True)
def must_go_out(obs):
    """Whether the player in turn took the cut card and must go out (T5)."""
    return obs[_TABLE - 4] > 0.5


@njit(cache=True)
def opened_this_turn(obs):
    """Whether the player in turn opened this turn."""
    return obs[_TABLE - 3] > 0.5


@njit(cache=True)
def may_open(obs):
    """Whether O2 lets the seat open (it has played a turn of this round)."""
    return obs[_TABLE - 1] > 0.5


# ---------------------------------------------------------------- the table


@njit(cache=True)
def table_melds(obs):
    """Melds on the table (slots are filled in order, M5)."""
    n = players(obs)
    slot = _slot(n)
    count = 0
    for m in range(MAX_MELDS):
        s = _TABLE + m * slot
        used = False
        for k in range(N_KINDS):
            if obs[s + k] > 0.5:
                used = True
                break
        if not used:
            break
        count += 1
    return count


@njit(cache=True)
def meld_kinds(obs, m):
    """The kinds of table meld ``m``: 53 counts, 0 or 1 (the joker at 52)."""
    n = players(obs)
    s = _TABLE + m * _slot(n)
    out = np.zeros(N_KINDS, np.int64)
    for k in range(N_KINDS):
        out[k] = np.int64(obs[s + k] + 0.5)
    return out


@njit(cache=True)
def meld_joker_as(obs, m):
    """The kind table meld ``m``'s joker stands for (M4), -1 without a joker."""
    n = players(obs)
    s = _TABLE + m * _slot(n) + N_KINDS
    for k in range(52):
        if obs[s + k] > 0.5:
            return k
    return -1


@njit(cache=True)
def meld_owner(obs, m):
    """The relative seat that laid table meld ``m`` (G3)."""
    n = players(obs)
    s = _TABLE + m * _slot(n) + N_KINDS + 52
    for q in range(n):
        if obs[s + q] > 0.5:
            return q
    return -1


@njit(cache=True)
def pile(obs):
    """Copies of each kind in the discard pile (I1): 53 counts."""
    at = _pile_at(players(obs))
    out = np.zeros(N_KINDS, np.int64)
    for k in range(N_KINDS):
        out[k] = np.int64(obs[at + k] + 0.5)
    return out


@njit(cache=True)
def top(obs):
    """The kind on top of the discard pile, or -1 when the pile is empty."""
    at = _pile_at(players(obs)) + N_KINDS
    for k in range(N_KINDS):
        if obs[at + k] > 0.5:
            return k
    return -1


@njit(cache=True)
def cut(obs):
    """The cut card's kind (D3), whether or not it was taken (:func:`cut_taken`)."""
    at = _pile_at(players(obs)) + 2 * N_KINDS
    for k in range(N_KINDS):
        if obs[at + k] > 0.5:
            return k
    return -1


@njit(cache=True)
def cut_taken(obs):
    """Whether the cut card was taken (T5)."""
    return obs[_pile_at(players(obs)) + 3 * N_KINDS] > 0.5


# ---------------------------------------------------------------- the players


@njit(cache=True)
def hand_sizes(obs):
    """Cards held by each relative seat (0 is this seat): ``n`` int64."""
    n = players(obs)
    at = _sizes_at(n)
    out = np.zeros(n, np.int64)
    for q in range(n):
        out[q] = np.int64(obs[at + q] + 0.5)
    return out


@njit(cache=True)
def has_opened(obs, q):
    """Whether relative seat ``q`` has opened (O1); ``q`` = 0 is this seat."""
    n = players(obs)
    return obs[_sizes_at(n) + n + q] > 0.5


@njit(cache=True)
def i_opened(obs):
    """Whether this seat has opened (O1)."""
    return has_opened(obs, 0)


@njit(cache=True)
def others_opened(obs):
    """How many of the other players have opened."""
    n = players(obs)
    at = _sizes_at(n) + n
    count = 0
    for q in range(1, n):
        if obs[at + q] > 0.5:
            count += 1
    return count


@njit(cache=True)
def has_drawn(obs, q):
    """Whether relative seat ``q`` has drawn this round (T3: a first draw is free)."""
    n = players(obs)
    return obs[_sizes_at(n) + 2 * n + q] > 0.5


@njit(cache=True)
def known(obs, q):
    """Copies of each kind known to be in relative seat ``q``'s hand (``q`` >= 1: cards it
    took from the discard pile or the cut card, jokers it freed, I1): 53 counts."""
    n = players(obs)
    at = _sizes_at(n) + 3 * n + (q - 1) * N_KINDS
    out = np.zeros(N_KINDS, np.int64)
    for k in range(N_KINDS):
        out[k] = np.int64(obs[at + k] + 0.5)
    return out


@njit(cache=True)
def stock(obs):
    """Cards in the stock."""
    return np.int64(obs[_stock_at(players(obs))] + 0.5)


@njit(cache=True)
def turn(obs):
    """Turns played in the round (T9 stops it at 1,000)."""
    return np.int64(obs[_stock_at(players(obs)) + 1] + 0.5)


@njit(cache=True)
def dealer(obs):
    """The relative seat of the dealer (D3)."""
    n = players(obs)
    at = _stock_at(n) + 2
    for q in range(n):
        if obs[at + q] > 0.5:
            return q
    return -1


# ---------------------------------------------------------------- cards and action codes


@njit(cache=True)
def kind(rank, suit):
    """The kind of rank 1 (As) .. 13 (K) and suit 0 .. 3 (spades, hearts, diamonds, clubs)."""
    return suit * 13 + rank - 1


@njit(cache=True)
def rank_of(k):
    """The rank of kind ``k``: 1 (As) .. 13 (K); 0 for the joker."""
    return 0 if k == JOKER else k % 13 + 1


@njit(cache=True)
def suit_of(k):
    """The suit of kind ``k``: 0 .. 3 (spades, hearts, diamonds, clubs); -1 for the joker."""
    return -1 if k == JOKER else k // 13


@njit(cache=True)
def discard(k):
    """The code that discards a card of kind ``k`` (T7; ``discard(JOKER)`` a joker)."""
    return DISCARD0 + k


@njit(cache=True)
def meld(s):
    """The code of meld shape ``s`` (:data:`simcards.romi.table_codes.SHAPES`): lay it once
    opened (T6), or name it as the next meld of an opening (O1)."""
    return SHAPE0 + s


@njit(cache=True)
def add(m, v):
    """The code that adds to table meld ``m``: ``v`` a real kind 0 .. 51, or
    :data:`JOKER_LOW`, :data:`JOKER_HIGH`, :data:`JOKER_SET` for a joker (T6)."""
    return ADD0 + m * ADD_VARIANTS + v


@njit(cache=True)
def swap(m):
    """The code that takes the joker of table meld ``m`` with the card it stands for (J1, J2)."""
    return SWAP0 + m


@njit(cache=True)
def discarded_kind(code):
    """The kind a discard code lets go, -1 for another code."""
    if DISCARD0 <= code < OPEN_DONE:
        return code - DISCARD0
    return -1
