"""The named structures Ronco's compiled code passes around, declared once.

A kernel takes a handful of these instead of a long list of arrays and codes by position: the
rules (:class:`KernelRules`), the policies by position or by player (:class:`Seats`), and the
facts of one decision (:class:`Decision`).

Why numba named tuples: numba types a named tuple as a struct of its fields, so reading
``rules.top`` compiles to the same code as passing ``top`` as an argument of its own (the round
and game benchmarks of ``scripts/bench_ronco.py`` are unchanged by the change); a named tuple
mixes arrays and scalars, which one structured array cannot; it crosses between Python and
compiled code both ways; and functions that take it keep numba's disk cache, which jitclass
cannot. The hot loops unpack the fields they read into locals once, before the loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from simcards.ronco.policies import Policy

__all__ = ["Classes", "Decision", "GameSpec", "GameWork", "KernelRules", "RaceWork", "Seats",
           "UserSeats"]


class KernelRules(NamedTuple):
    """The rules of :class:`~simcards.ronco.rules.RoncoRules` as the kernels read them
    (``RoncoRules.kernel``): plain arrays and integer codes."""

    strengths: np.ndarray  # C2/C4: strength of every card of the deck, by card index
    top: int  # C3: strength of the blocking card
    ties: int  # R9: codes.TIES_*
    cut_king: int  # R7: codes.CUT_KING_*
    below: np.ndarray  # S2b: cards strictly weaker than each strength 0 .. top
    counts: np.ndarray  # cards of each strength 0 .. top
    absolute_tie: int  # G6: codes.ABSOLUTE_TIE_*

    @property
    def n_cards(self) -> int:
        return int(self.strengths.shape[0])


class Seats(NamedTuple):
    """Policies as kernel arrays: one row per position (rounds) or per player (games), plus
    the decision table of a ``bayes`` player (S4; empty when nobody plays it)."""

    kind: np.ndarray  # codes.THRESHOLD, INFORMED, RANDOM, BAYES
    T: np.ndarray  # S1/S2: keep at or above T (a player not dealing)
    Td: np.ndarray  # S1/S2: the dealer's threshold
    p: np.ndarray  # S3: probability of keeping
    bkeys: np.ndarray  # S4: the decision table's sorted keys ...
    bvals: np.ndarray  # ... and decisions

    @classmethod
    def from_policies(cls, policies: Sequence[Policy],
                      bayes: tuple[np.ndarray, np.ndarray] | None = None) -> Seats:
        """The arrays of ``policies`` (``KINDS.seat_arrays``: each seat's T, Td and p, its
        kind's or not); ``bayes`` is the decision table (sorted keys, decisions) any policy
        whose kind needs it looks up (``bayes``, see :mod:`simcards.ronco.bayes_exact`)."""
        from simcards.ronco.policies import BAYES_TABLE, KINDS

        if bayes is None:
            if any(BAYES_TABLE in p.declared.needs for p in policies):
                raise ValueError("a bayes policy needs its decision table")
            bayes = (np.empty(0, np.int64), np.empty(0, np.int8))
        kind, t, td, p = KINDS.seat_arrays([q.as_spec() for q in policies],
                                           [q.fields() for q in policies])
        return cls(kind=kind, T=t, Td=td, p=p, bkeys=bayes[0], bvals=bayes[1])


class Decision(NamedTuple):
    """One keep-or-pass decision as the policies read it (S1-S4): the decider's card
    strength, his position, whether he deals, whether the previous position swapped with him
    (and so holds, for good, the card ``given`` to him: its strength, else -1), and the public
    history of the earlier positions (base 3: keep 0, swap 1, refused 2)."""

    card: int
    pos: int
    dealer: bool
    swapped: bool
    given: int
    hist: int


class UserSeats(NamedTuple):
    """The seats that play a user's function (S5), for the round kernels: the functions, which
    seat plays which, and the observation they read, kept up to date decision by decision
    (:func:`simcards.ronco.observation_kernel.user_keeps`); or, at a table of up to
    :data:`~simcards.ronco.observation_kernel.MAX_TABLED` positions, each user position's
    action in every situation it can meet, asked of its function once
    (:func:`~simcards.ronco.observation_kernel.tabulate`). In a game (``seat`` not empty) the
    game kernel refills ``slot``, ``seat``, ``lives`` and the dealer every round, and the
    function is asked at every decision: its answer may depend on the lives. Built in the
    process that runs the kernel (the functions are compiled there), never pickled."""

    fns: tuple  # MAX_USER_POLICIES cfuncs f(obs, legal) -> action (a spare slot: a stub)
    slot: np.ndarray  # int64 by position: the seat's function in fns, -1 for a built-in
    obs: np.ndarray  # float32: the ronco_v0 (a game: ronco_game_v0) observation of the seat
    legal: np.ndarray  # int8 [1, 1]: keep and pass are always legal
    cls: np.ndarray  # int64 by strength: its strength class (C2, C4), the observation's unit
    n_classes: int
    mark: np.ndarray  # int64 [next position, card entry, dealt entry, position entry, player
    # whose game fields are written]
    err: np.ndarray  # int64 [position + 1, action] of the first action that is not legal
    table: np.ndarray  # int64: the functions' actions by situation (empty: ask each time)
    off: np.ndarray  # int64 by position: where its situations start in ``table``
    seat: np.ndarray  # int64 by position: the player there (a game; empty in a round)
    lives: np.ndarray  # int64 by player: lives left (a game; empty in a round)
    game: np.ndarray  # int64 [positions laid out, starting lives, the player dealing, then
    # each player's slot in fns (a game; -1 for a built-in)]


class GameSpec(NamedTuple):
    """How a game is set up (G1-G4): the players, the lives each starts with, the first
    dealer (-1: drawn, G4) and a cap on its rounds (a game still running then is stalled)."""

    players: int
    lives: int
    first_dealer: int
    max_rounds: int


class GameWork(NamedTuple):
    """Scratch for whole games (``game_kernel.game_buffers``), allocated once per chunk, not
    once per game: the deck (strengths, shuffled in place), each player's lives and the round
    he was eliminated in (0: never), the round's order of positions (G3), the cards held by
    position, the uniforms and lives lost by position, the policies by position (a
    :class:`Seats` whose arrays are refilled every round), and ``ring``, the survivors in seat
    order (the fused game path)."""

    deck: np.ndarray
    lives: np.ndarray
    elim_round: np.ndarray
    order: np.ndarray
    hold: np.ndarray
    u: np.ndarray
    lost: np.ndarray
    by_pos: Seats
    ring: np.ndarray


class Classes(NamedTuple):
    """The deck as strength classes, for the exact solvers (``rounds_exact``, ``bayes_kernel``):
    the strength of each class (ascending), its number of cards, the deck's size, the top
    class, ``pow5[j] = 5**j`` (a deal's class counts packed in base 5) and ``mult[j]``, the
    lives a loss on that class costs (2 for the Poroli card, R10)."""

    strength: np.ndarray
    count: np.ndarray
    n_cards: int
    top: int
    pow5: np.ndarray
    mult: np.ndarray


class RaceWork(NamedTuple):
    """Scratch for races (``race_kernel``): the game scratch and the state of the game stream
    every candidate replays."""

    work: GameWork
    state: np.ndarray
