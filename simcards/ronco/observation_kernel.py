"""The ``ronco_v0`` and ``ronco_game_v0`` observations in compiled code: their layouts,
readers for a player's own policy (S5), and the writers the round and game kernels keep up to
date for the seat deciding.

The layouts are :data:`simcards.ronco.table.ROUND_OBSERVATION_FIELDS` (``help(
simcards.envs.ronco_v0.env)``): ``C`` strength classes (the deck's distinct strengths,
weakest first, C2; class 0 is the Poroli card under ``poroli``, C4) and ``n`` positions; and
:data:`~simcards.ronco.table.GAME_OBSERVATION_FIELDS`: the round's fields laid out for the
game's ``N`` players, then the lives, who is in and the dealer, seats counted from the seat's.
The readers find which layout, ``N``, ``n`` and ``C`` in the vector itself (:func:`layout`), so
one function serves rounds and games of every table size and deck. Every reader is compiled,
and works the same called from plain Python (a numpy float32 vector) and from inside a
compiled policy::

    from simcards.ronco.observation_kernel import card, refused_before, top_class

    def keep_six(obs, legal):
        if card(obs) >= 5 and not refused_before(obs):
            return 0  # keep
        return 1  # pass (the dealer: cut)

Under ``spanish40`` the classes 0..9 are the values 1-7, 10, 11, 12 (:data:`CLASS_VALUES`).
In a game, :func:`my_lives`, :func:`lives`, :func:`alive` and :func:`dealer_seat` read the
game's fields (a round's observation answers them as a game's first round would).
"""

from __future__ import annotations

import numpy as np
from numba import njit

KEPT = 0
"""An action slot: kept (R2, R6)."""
PASSED = 1
"""An action slot: passed and the swap took place (R3); the dealer: cut (R6)."""
REFUSED = 2
"""An action slot: passed and refused by the next position, who holds the top rank (R4)."""
TO_ACT = 3
"""An action slot: has not acted yet."""
KEEP = 0
"""The action code to keep (the dealer: not to cut)."""
PASS = 1
"""The action code to pass (the dealer: to cut)."""
MAX_PLAYERS = 20
"""T1: the ``players`` entry is the table size over this."""
MAX_TABLED = 8
"""The largest table at which a user's function is asked once per situation rather than once
per decision (:func:`tabulate`): position ``i`` meets ``3**i`` histories, so 8 players make
some 900,000 situations."""
MIN_CLASSES = 10
"""The fewest strength classes of a deck (``spanish40``)."""
CLASS_VALUES = {"spanish40": (1, 2, 3, 4, 5, 6, 7, 10, 11, 12),
                "spanish48": tuple(range(1, 13)), "french52": tuple(range(1, 14))}
"""The card value of each strength class, weakest first, without ``poroli`` (with it, class 0
is the Poroli card and class k + 1 is the value listed k-th)."""


# ---------------------------------------------------------------- the layout


@njit(cache=True, inline="always")
def _whole(x, lo, hi):
    """``x * 20`` when it is a whole number from ``lo`` to ``hi``, else -1 (a table size or
    the round's ``players`` entry)."""
    v = x * MAX_PLAYERS
    k = np.int64(v + 0.5)
    if lo <= k <= hi and abs(v - k) < 1e-3:
        return k
    return -1


@njit(cache=True, inline="always")
def _zero_or_one(x):
    return x == 0.0 or x == 1.0


@njit(cache=True)
def _game_fits(obs, big):
    """The round's table size when ``obs`` reads as a ``ronco_game_v0`` observation of ``big``
    players at a decision, else -1: its length is that layout's for a whole ``C``; the round's
    ``players`` entry is ``k / 20`` with 2 <= k <= big; the ``alive`` entries are 0 or 1, ``k``
    of them 1, the seat itself among them; the ``dealer`` entries are one-hot on a living seat;
    the first ``k`` action slots are one-hot and the others empty; the card and the position
    are one-hot. Every entry a wrong reading would look at is checked, so that no observation
    of another table size or deck passes (tests/ronco/test_game_observation.py enumerates
    them)."""
    size = obs.shape[0]
    rest = size - 10 * big - 3
    if rest <= 0 or rest % (big + 4) != 0:
        return -1
    c = rest // (big + 4)
    if c < 2:
        return -1
    tail = size - 3 * big
    k = _whole(obs[tail - 1], 2, big)
    if k < 0:
        return -1
    living = 0
    dealers = 0
    for j in range(big):
        a = obs[tail + big + j]
        d = obs[tail + 2 * big + j]
        if not (_zero_or_one(a) and _zero_or_one(d)) or (d == 1.0 and a != 1.0):
            return -1
        living += a == 1.0
        dealers += d == 1.0
    if living != k or dealers != 1 or obs[tail + big] != 1.0:
        return -1
    if _ones(obs, 0, c) != 1 or _ones(obs, c, big) != 1 or not _zero_or_one(obs[c + big]):
        return -1
    for pos in range(big):
        if _ones(obs, c + big + 1 + 4 * pos, 4) != (1 if pos < k else 0):
            return -1
    return k


@njit(cache=True, inline="always")
def _ones(obs, at, width):
    """How many of ``width`` entries from ``at`` are 1 (-1 when one is neither 0 nor 1)."""
    m = 0
    for j in range(width):
        x = obs[at + j]
        if x == 1.0:
            m += 1
        elif x != 0.0:
            return -1
    return m


@njit(cache=True)
def layout(obs):
    """``(slots, k, C)`` of an observation of either environment: the positions its round
    fields are laid out for (``ronco_v0``: the table, ``n``; ``ronco_game_v0``: the game's
    players, ``N``), the current round's positions and the deck's strength classes.

    A round's last entry is ``n / 20``; a game's is the last ``dealer`` entry, 0 or 1. So an
    observation whose last entry is ``n / 20`` for ``2 <= n < 20`` with a round's length is a
    round's; any other is a game's: of the one size whose length it has (every deck has at
    least :data:`MIN_CLASSES` classes), when its ``players`` entry reads as one, else of the
    first size whose every entry fits (:func:`_game_fits`: lengths alone collide), and when
    none fits, a round of 20 (whose entries before the last are 0, 1 or 2, so that none reads
    as a game's ``players`` entry). The first way costs a few operations: a reader is called at
    every decision of a game."""
    size = obs.shape[0]
    n = _whole(obs[size - 1], 2, MAX_PLAYERS - 1)
    if n > 0 and (size - 7 * n - 3) % (n + 4) == 0:
        return n, n, (size - 7 * n - 3) // (n + 4)
    only = -1
    fits = 0
    for big in range(2, MAX_PLAYERS + 1):  # the game sizes the length allows (a deck's C)
        rest = size - 10 * big - 3
        if rest > 0 and rest % (big + 4) == 0 and rest // (big + 4) >= MIN_CLASSES:
            fits += 1
            only = big
    if fits == 1:  # one size: its players entry alone tells it from a round of 20
        k = _whole(obs[size - 3 * only - 1], 2, only)
        if k > 0:
            return only, k, (size - 10 * only - 3) // (only + 4)
    for big in range(2, MAX_PLAYERS + 1):
        k = _game_fits(obs, big)
        if k > 0:
            return big, k, (size - 10 * big - 3) // (big + 4)
    n = MAX_PLAYERS
    return n, n, (size - 7 * n - 3) // (n + 4)


@njit(cache=True, inline="always")
def players(obs):
    """The positions at the table in the current round, ``n`` (a game's survivors, G3)."""
    return layout(obs)[1]


@njit(cache=True, inline="always")
def slots(obs):
    """The positions the round's fields are laid out for: ``players(obs)`` in a round, the
    game's players in a game."""
    return layout(obs)[0]


@njit(cache=True, inline="always")
def classes(obs):
    """The deck's strength classes, ``C``."""
    return layout(obs)[2]


@njit(cache=True, inline="always")
def in_game(obs):
    """Whether ``obs`` is a ``ronco_game_v0`` observation (with lives, G1)."""
    big, _, c = layout(obs)
    return obs.shape[0] == c * (big + 4) + 10 * big + 3


@njit(cache=True, inline="always")
def _one_hot(obs, at, width):
    for k in range(width):
        if obs[at + k] > 0.5:
            return k
    return -1


# ---------------------------------------------------------------- readers


@njit(cache=True, inline="always")
def card(obs):
    """The strength class of the card the seat holds (-1 before it is dealt)."""
    return _one_hot(obs, 0, classes(obs))


@njit(cache=True, inline="always")
def top_class(obs):
    """The top rank's class, ``C - 1`` (C3: it refuses a swap, R4)."""
    return classes(obs) - 1


@njit(cache=True, inline="always")
def position(obs):
    """The seat's position: 0 acts first, ``players(obs) - 1`` deals (T2)."""
    big, _, c = layout(obs)
    return _one_hot(obs, c, big)


@njit(cache=True, inline="always")
def is_dealer(obs):
    """Whether the seat deals (its ``pass`` is a cut, R6)."""
    big, _, c = layout(obs)
    return obs[c + big] > 0.5


@njit(cache=True, inline="always")
def action(obs, pos):
    """Position ``pos``'s public action: :data:`KEPT`, :data:`PASSED`, :data:`REFUSED` or
    :data:`TO_ACT` (R11)."""
    big, _, c = layout(obs)
    return _one_hot(obs, c + big + 1 + 4 * pos, 4)


@njit(cache=True, inline="always")
def refused_before(obs):
    """Whether an earlier position's pass was refused: the next position holds the top rank
    (R4), which everybody saw."""
    for pos in range(position(obs)):  # noqa: SIM110 (a loop: compiled code has no any())
        if action(obs, pos) == REFUSED:
            return True
    return False


@njit(cache=True, inline="always")
def dealt(obs):
    """When the previous position swapped with the seat, the class of the card the seat was
    dealt (now that position's for good, R3, R5); -1 otherwise."""
    big, _, c = layout(obs)
    return _one_hot(obs, c + 5 * big + 1, c)


@njit(cache=True, inline="always")
def cut(obs):
    """The cut card's class once the dealer has cut (R6); -1 before."""
    big, _, c = layout(obs)
    return _one_hot(obs, 3 * c + 5 * big + 1, c)


# ---------------------------------------------------------------- readers of a game (G1-G5)


@njit(cache=True, inline="always")
def seats(obs):
    """The players of the game, ``N`` (a round: its positions)."""
    return layout(obs)[0]


@njit(cache=True, inline="always")
def lives(obs, seat):
    """Relative seat ``seat``'s lives left as a share of the starting lives (1.0 at the start,
    0 once out; ``seat`` 0 is the seat itself, 1 the next seat, G1). A round: 1.0."""
    if not in_game(obs):
        return 1.0
    big = seats(obs)
    return np.float64(obs[obs.shape[0] - 3 * big + seat])


@njit(cache=True, inline="always")
def my_lives(obs):
    """The seat's own lives left as a share of the starting lives: ``lives(obs, 0)``. With
    ``--lives L``, ``my_lives(obs) * L`` is the number of lives."""
    return lives(obs, 0)


@njit(cache=True, inline="always")
def alive(obs, seat):
    """Whether relative seat ``seat`` is still in the game (G2). A round: every position."""
    if not in_game(obs):
        return seat < seats(obs)
    big = seats(obs)
    return obs[obs.shape[0] - 2 * big + seat] > 0.5


@njit(cache=True, inline="always")
def dealer_seat(obs):
    """The relative seat dealing the current round (G4, G5; -1 before the first dealer). A
    round: the dealer's position counted from the seat's."""
    big = seats(obs)
    if not in_game(obs):
        return big - 1 - position(obs)
    return _one_hot(obs, obs.shape[0] - big, big)


# ---------------------------------------------------------------- the writer (round kernels)


@njit(cache=True, inline="always")
def user_keeps(users, i, n, dec, top):
    """S5: position ``i``'s decision by its user function, given
    :class:`~simcards.ronco.kernel_state.Decision` ``dec`` (``top``: the top rank's strength):
    True to keep; read from the seats' table when they have one (:func:`tabulate`). A hot
    loop reads the
    fields of ``users`` once and calls :func:`observe`, the function and :func:`keeps` itself:
    a function (or a tuple of them) handed on to another compiled function, or taken from a
    tuple by an index known only at run time, is called through a slow path."""
    fns, slot, obs, legal, cls, c, mark, err, table, off, seat, lives, game = users
    if table.shape[0] > 0:
        a = table[situation(off, i, dec.hist, dec.given if dec.swapped else -1, dec.card,
                            top)]
        return keeps(a, err, i)
    big = game[0]
    observe(obs, cls, c, mark, i, n, big, dec.card, dec.dealer, dec.swapped, dec.given,
            dec.hist)
    if seat.shape[0] > 0 and mark[4] != seat[i]:  # a game: the seat's own view of the table
        observe_seats(obs, c * (big + 4) + 7 * big + 3, big, seat[i], lives, game[1],
                      game[2])
        mark[4] = seat[i]
        return keeps(fns[slot[i]](obs, legal), err, seat[i])  # a game's error names the player
    return keeps(fns[slot[i]](obs, legal), err, i)


@njit(cache=True, inline="always")
def situation(off, i, hist, dealt, card, top):
    """Where position ``i``'s action is in a user seat's table (:func:`tabulate`): by its
    history (base 3), the strength it was dealt (-1: no swap) and the strength it holds;
    ``top`` is the top rank's strength."""
    return off[i] + (hist * (top + 2) + dealt + 1) * (top + 1) + card


@njit(cache=True)
def tabulate(users, n, counts, top):
    """Fill ``users.table``: each user position's action in every situation it can meet,
    asked of its function with the observation :func:`observe` writes for it. A round's
    observation at a decision is a function of the position, the history, the dealt and the
    held strengths alone (nothing else is known before the position acts, R11), and a policy
    keeps no memory (S5), so the table decides exactly as the function would, decision by
    decision; an action that is not legal is kept, and refused where it is met."""
    fns, slot, obs, legal, cls, c, mark, _err, table, off, _, _, _ = users
    f0, f1, f2, f3 = fns  # called by name: see user_keeps
    for i in range(n):
        k = slot[i]
        if k < 0:
            continue
        for hist in range(3**i):
            swap_seen = i > 0 and hist % 3 == 1
            for d in range(-1, top + 1):
                if (d >= 0) != swap_seen or (d >= 0 and counts[d] == 0):
                    continue
                for s in range(top + 1):
                    if counts[s] == 0:
                        continue
                    mark[0] = -1  # each situation written whole
                    observe(obs, cls, c, mark, i, n, n, s, i == n - 1, d >= 0, d, hist)
                    a = (f0(obs, legal) if k == 0 else f1(obs, legal) if k == 1
                         else f2(obs, legal) if k == 2 else f3(obs, legal))
                    table[situation(off, i, hist, d, s, top)] = a


@njit(cache=True, inline="always")
def observe(obs, cls, c, mark, i, n, big, card, dealer, swapped, given, hist):
    """S5: bring the observation ``obs`` up to date for position ``i`` of ``n`` about to decide, its
    round fields laid out for ``big`` positions (``n`` in a round, the game's players in a
    game), holding a card of strength ``card`` (``dealer``: whether it deals; ``swapped``:
    whether the previous position swapped with it, and ``given`` the strength it was dealt;
    ``hist``: the earlier positions' public actions, base 3, the latest last). ``cls`` maps
    strengths to classes, ``c`` is the number of classes and ``mark`` what the last call wrote.

    Kept up to date rather than rebuilt: when ``i`` follows the position that decided last,
    only the entries that changed are written (that position's action, the card, position,
    dealer and dealt entries); the first decision of a round, or one out of order, rewrites the
    action slots from ``hist`` (a game's kernel marks each round's start out of order: its
    tables change size)."""
    pos_at = c
    act_at = c + big + 1
    if i == 0 or i != mark[0]:
        obs[c * (big + 4) + 7 * big + 2] = n / MAX_PLAYERS
        for k in range(4 * big):
            obs[act_at + k] = 0.0
        h = hist
        for j in range(i - 1, -1, -1):
            obs[act_at + 4 * j + h % 3] = 1.0
            h //= 3
        for j in range(i, n):
            obs[act_at + 4 * j + TO_ACT] = 1.0
    else:
        obs[act_at + 4 * (i - 1) + TO_ACT] = 0.0
        obs[act_at + 4 * (i - 1) + hist % 3] = 1.0
    for k in range(1, 4):
        if mark[k] >= 0:
            obs[mark[k]] = 0.0
    mark[1] = cls[card]
    mark[3] = pos_at + i
    obs[mark[1]] = 1.0
    obs[mark[3]] = 1.0
    obs[c + big] = 1.0 if dealer else 0.0
    mark[2] = act_at + 4 * big + cls[given] if swapped else -1
    if mark[2] >= 0:
        obs[mark[2]] = 1.0
    mark[0] = i + 1


@njit(cache=True, inline="always")
def observe_seats(obs, at, big, seat, lives, start, dealer):
    """S5 in a game: write the fields after the round's (``lives``, ``alive``, ``dealer``, from
    ``at``) as player ``seat`` sees them, seats counted from his (``ronco_game_v0``);
    ``lives`` by player, ``start`` the starting lives (G1), ``dealer`` the player dealing."""
    for j in range(big):
        s = seat + j
        if s >= big:
            s -= big
        obs[at + j] = lives[s] / start
        obs[at + big + j] = 1.0 if lives[s] > 0 else 0.0
        obs[at + 2 * big + j] = 1.0 if s == dealer else 0.0


@njit(cache=True, inline="always")
def keeps(action, err, i):
    """S5: whether position ``i``'s (a game: player ``i``'s) user function keeps; an action
    that is not legal is
    recorded in ``err`` (the first one) and the seat keeps: the chunk is then refused whole."""
    if action != KEEP and action != PASS:
        if err[0] == 0:
            err[0] = i + 1
            err[1] = action
        return True
    return action == KEEP
