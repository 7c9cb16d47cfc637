"""The named structures Römi's compiled code passes around, declared once.

A kernel takes a handful of these instead of a long list of arrays by position: the rules
(:class:`KernelRules`), the seats' policies (:class:`Seats`), a round's workspace
(:class:`RoundState`), the meld solver's search arrays (:class:`MeldWork`) and its caches
(:class:`Solver`), a policy's scratch (:class:`Scratch`), the round's record
(:class:`RoundLog`), everything a round is played in (:class:`RoundWork`), and what a policy
sees when it plans a turn (:class:`View`).

Why numba named tuples: numba types a named tuple as a struct of its fields, so reading
``ws.hand`` compiles to the same code as passing the array as an argument of its own; a named
tuple mixes arrays of different shapes and scalars, which one structured array cannot; it
crosses between Python and compiled code both ways (tests read a workspace by name, and its
fields by position still work); and functions that take it keep numba's disk cache, which
jitclass cannot. Its arrays stay mutable: a workspace is built once per batch and written in
place round after round. A named tuple built inside compiled code gets typed values, not
literals (``np.int64(0)``), so that every caller shares one compiled specialisation.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["DrawNotes", "KernelRules", "MeldWork", "RoundLog", "RoundState", "RoundWork",
           "Scratch", "SearchWork", "Seats", "Solver", "View"]


class KernelRules(NamedTuple):
    """The rule switches of :class:`~simcards.romi.rules.RomiRules` as the kernels read them."""

    players: int  # D2
    rounds: int  # D5, G6
    open_min: int  # O1
    ace_low: int  # M6: value of an As below the 2
    swap_romi: int  # G3: 1 when a joker swap keeps the -20 (``RomiRules.swap_keeps_romi``)


class Seats(NamedTuple):
    """One policy per seat: ``kinds[p]`` a ``codes.POLICY_*`` and ``params[p]`` its parameter
    (Q3's K, Q4's X; 0 for the others); ``policies.policy_arrays`` builds them."""

    kinds: np.ndarray
    params: np.ndarray


class RoundState(NamedTuple):
    """The arrays a round is played in (``round_kernel`` module docstring), reused round after
    round."""

    st: np.ndarray  # the scalars, slots ``codes.S_*``
    hand: np.ndarray  # (players, HW): each hand as card ids, ``hand[p, :hn[p]]``
    hn: np.ndarray  # (players,): cards held
    opened: np.ndarray  # (players,): 1 once the player has opened (O1)
    drawn: np.ndarray  # (players,): 1 once he has drawn (T3: his first draw)
    played: np.ndarray  # (players,): turns he has played
    stock: np.ndarray  # ``stock[pos:end]``, top first
    pile: np.ndarray  # the discard pile, ``pile[:pn]``, bottom first
    tm: np.ndarray  # (MAX_MELDS, TM_SIZE): table melds, columns ``codes.TM_*``
    tc: np.ndarray  # (MAX_MELDS, TC_SIZE): the real card at each place of a meld, -1 if none


class MeldWork(NamedTuple):
    """The exact meld solver's search arrays (``melds_kernel._search``): mixed-radix weights
    ``w`` of the kinds, the memo's stamps and values, the options of each depth and the search
    frames."""

    w: np.ndarray
    stamp: np.ndarray
    memo: np.ndarray
    buf: np.ndarray
    fr: np.ndarray


class Solver(NamedTuple):
    """The meld solver as the round kernel keeps it for a whole batch
    (``melds_kernel.new_solver``): its search arrays, a scratch of kind counts, ``info[0]`` the
    stamp of the last question, ``rows`` the melds of the last lay-down, then the answer cache
    of ``solve_counts`` (keys, packed answers, hits and misses in ``stats``) and that of
    ``discard_index`` (keys, kinds thrown)."""

    melds: MeldWork
    tmp: np.ndarray
    info: np.ndarray
    rows: np.ndarray
    ckey: np.ndarray
    cval: np.ndarray
    stats: np.ndarray
    dkey: np.ndarray
    dval: np.ndarray


class Scratch(NamedTuple):
    """A policy's scratch (``round_kernel.new_scratch``)."""

    ph: np.ndarray  # the plan's hand
    ptm: np.ndarray  # the plan's table melds
    ptc: np.ndarray
    mv: np.ndarray  # the plan's moves (rows ``codes.MV_*``)
    cnt: np.ndarray  # kind counts
    h2: np.ndarray  # the hand plus a card (``choose_draw``)
    cnt2: np.ndarray  # kind counts
    kept: np.ndarray  # the answer of the plan the draw was chosen by (``choose_draw``)
    xs: np.ndarray  # the expert's view of the discard pile (``codes.X_*``, Q5)
    xr: np.ndarray  # the expert's melds through each card it could draw (``expert_kernel.XR_*``)
    xo: np.ndarray  # their order, best bound first, per card


class RoundLog(NamedTuple):
    """Where a round records itself: move rows (``codes.MV_*``) in ``moves`` from row
    ``info[2]``, the cards of each reshuffled stock in ``shuf`` (flat) and their lengths in
    ``shuf_len`` (``info[0]``, ``info[1]``: cards and reshuffles written), each only while it
    has room (zero-size arrays record nothing)."""

    moves: np.ndarray
    shuf: np.ndarray
    shuf_len: np.ndarray
    info: np.ndarray


class RoundWork(NamedTuple):
    """Everything a round is played in: the workspace, the solver, a policy's scratch, the
    round's own stream (its reshuffles, T8) and its record."""

    ws: RoundState
    sv: Solver
    ps: Scratch
    rs: np.ndarray
    log: RoundLog


class SearchWork(NamedTuple):
    """What a searching seat's decisions work in (``search_kernel``, Q7, Q8), built once per
    batch: the round its samples are played out in (``roll``, recording nothing), the search's
    own stream ``ss`` (seeded from the round's seed, apart from the round's stream), a sample's
    stream ``tmp`` and the seeds of a decision's samples, the cards the seat has seen
    (``seen``, per card id) and the others (``hidden``, by id; ``deal``: one sample's order),
    the candidate plans (``ph``, ``ptm``, ``ptc``, ``mv`` and ``meta``: moves, opened after,
    hand count, melds, went out), the candidates (``cand``: plan slot and the card it
    discards) with their gains over the first candidate summed (``value``) and squared
    (``value_sq``) and whether each is still weighed (``live``, 1 until Q7 drops it), the
    scores of a played-out sample, the seats the samples are played out by (``greedy``), and
    ``drop_z``, Q7's dropping margin in standard errors (``search_kernel.DROP_Z``; infinite:
    nothing dropped, every candidate tried on every sample)."""

    roll: RoundWork
    ss: np.ndarray
    tmp: np.ndarray
    seeds: np.ndarray
    seen: np.ndarray
    hidden: np.ndarray
    deal: np.ndarray
    ph: np.ndarray
    ptm: np.ndarray
    ptc: np.ndarray
    mv: np.ndarray
    meta: np.ndarray
    cand: np.ndarray
    value: np.ndarray
    value_sq: np.ndarray
    live: np.ndarray
    scores: np.ndarray
    greedy: Seats
    drop_z: float


class View(NamedTuple):
    """What a seat's policy sees when it plans a draw or a turn, besides its hand (I3): its
    seat ``me``, whether it has opened, whether O2 lets it open now, whether this is its first
    draw (T3), its opening threshold ``x`` (Q2: open_min, Q4: X), ``hold`` (Q3 before an
    opponent is down to K cards: open only to go out), the top of the discard pile and the cut
    card (-1 when none), the rules' value of an As below the 2 (M6), and the table: melds
    ``tm[:nm]`` with their cards ``tc[:nm]``. The policies read nothing else of the round."""

    me: int
    opened: bool
    may_open: bool
    first_draw: bool
    x: int
    hold: bool
    top: int
    cut: int
    ace_low: int
    tm: np.ndarray
    tc: np.ndarray
    nm: int


class DrawNotes(NamedTuple):
    """What the questions study notes per player while a round is played
    (``question_kernel``): the draw at which he opened (``open_draw``, 0 never), whether
    his first draw took the top discard (T3), his later discard draws (T4) and the draws he
    made; ``flags``: [cut card taken (T5), -20 under the other G3 reading]."""

    open_draw: np.ndarray
    first_disc: np.ndarray
    later_disc: np.ndarray
    draws: np.ndarray
    flags: np.ndarray
