"""The named structures Ronda's compiled code passes around, declared once.

A kernel takes a handful of these instead of a long list of arrays by position: the rules
(:class:`KernelRules`), the seats' policies (:class:`Seats`), a hand's workspace
(:class:`HandWork`), the searching policies' scratch (:class:`SearchWork`, with Q8's
:class:`Tree`), the per-play log (:class:`PlayLog`) and what chance gave a hand
(:class:`HandDraw`).

Why numba named tuples: numba types a named tuple as a struct of its fields, so reading
``ws.st`` compiles to the same code as passing ``st`` as an argument of its own (the hand
benchmarks of ``scripts/bench_ronda.py`` are unchanged by the change); a named tuple can mix
arrays of different shapes and scalars, which one structured array cannot; it crosses between
Python and compiled code both ways (tests read a workspace by name); and functions that take
it keep numba's disk cache, which jitclass cannot. Its arrays stay mutable: a workspace is
built once per chunk and written in place hand after hand.

Build them with the functions of the kernel modules (``hand_kernel.new_workspace``,
``search_kernel.new_search_workspace``) or from Python (:meth:`RondaRules.kernel
<simcards.ronda.rules.RondaRules.kernel>`, ``policies.policy_arrays``). A named tuple built
inside compiled code must get typed values, not literals (``np.int64(0)``), so that every
caller shares one compiled specialisation.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["Board", "HandDraw", "HandWork", "KernelRules", "MatchChance", "MatchRecords",
           "MatchTally", "PlayFacts", "PlayLog", "PlayWork", "SearchWork", "Seats", "Spot",
           "Tree", "Unseen", "UserSeats", "ValueWork"]


class KernelRules(NamedTuple):
    """The rule switches of :class:`~simcards.ronda.rules.RondaRules` as the kernels read them
    (codes of :mod:`simcards.ronda.codes`), with the quantities they imply."""

    players: int
    teams: int  # D2: 1 for partnerships {0, 2} and {1, 3}
    chain: int  # X7: CHAIN_*
    announce: int  # A3: ANNOUNCE_*
    conflict: int  # A5: CONFLICT_*
    mode: int  # C1: MODE_*
    sides: int  # D2: players, or 2 with teams
    share: int  # S1: 40 // sides
    deals: int  # D4: deals in a hand
    plays: int  # plays in a hand: 40, or 39 with 3 players (the face-up card)
    face_up: int  # D4: 1 with 3 players
    target: int  # S4 (match level)
    target_check: int  # S4/S5: TARGET_CHECK_* (match level)
    hands_to_win: int  # C3 (match level)
    deal_sizes: np.ndarray  # D4: cards per player at each deal, then a spare 0


class PlayFacts(NamedTuple):
    """What one play did, as its credits read it (S3 steps (3)-(5)): ``action`` a
    ``codes.ACT_*``, ``hit`` its place in a Derba chain (0: none, X6/X7), ``missa`` (M1),
    ``last`` (the hand's last play, L1-L5), ``value`` the card's value index, ``side`` the
    player's, ``prev_side`` the previous hitter's (X7 takes his tier back)."""

    action: int
    hit: int
    missa: bool
    last: bool
    value: int
    side: int
    prev_side: int


class Board(NamedTuple):
    """The public state of play a card acts on, on card values (0 = As .. 9 = Rey;
    ``value_rules_kernel`` module docstring): ``table`` the values on the table as a bit mask (P4)
    and ``table_n`` their number; the pile in play (X3): ``pile_n`` cards (0: none), its top's
    value ``pile_v`` (-1: none) with ``pile_vc`` cards of it, its last ``hitter`` (-1: none);
    ``laid`` the value the previous play laid (X1; -1 if it captured or there was none); ``lc``
    the last capturer (U1, -1: none)."""

    table: int
    table_n: int
    pile_n: int
    pile_v: int
    pile_vc: int
    hitter: int
    laid: int
    lc: int


class Spot(NamedTuple):
    """What ``greedy`` (Q3) reads of a position, the same whichever form holds it. A holding or
    a count of cards by value is packed four bits a value (bits 4v .. 4v+3 hold the count of
    v).

    ``p`` the player to move and ``hand`` his holding; ``board`` the :class:`Board`; ``last``
    whether this is the hand's last play; and Q1's risk inputs: ``unseen`` the cards the mover
    has not seen, ``next_h`` the next player's holding at his next play, ``next_ann`` the next
    player's announced cards left unplayed at this deal (packed) and ``public`` the public
    cards (packed)."""

    p: int
    hand: int
    board: Board
    last: bool
    unseen: int
    next_h: int
    next_ann: int
    public: int


class ValueWork(NamedTuple):
    """The arrays the Monte Carlo loop on card values (``value_kernel``) plays in: the deck as
    values, shuffled in place hand after hand; per player the holding and the announced cards
    left unplayed, packed four bits a value (as in :class:`Spot`), and the holding's size; per
    side the captured cards and the points by source (``flat`` is the same array as one row,
    side after side, as ``value_rules_kernel.credit`` writes it); ``held`` greedy's scratch by
    side."""

    deck: np.ndarray  # (40,)
    hold: np.ndarray  # (players,)
    hn: np.ndarray  # (players,)
    ann: np.ndarray  # (players,)
    capn: np.ndarray  # (sides,)
    pts: np.ndarray  # (sides, sources)
    flat: np.ndarray  # (sides * sources,): pts
    held: np.ndarray  # (sides,)


class Unseen(NamedTuple):
    """The cards a searching seat does not see at a decision (Q1): their bit ``mask``, their
    ``count``, and ``full``, the counting state of the other hands' full sizes when an
    announcing deal constrains them (``search_kernel._count_ways``), else -1."""

    mask: int
    count: int
    full: int


class Seats(NamedTuple):
    """One policy per seat (Q6): ``kinds[p]`` a ``codes.POLICY_*``, ``params[p]`` its
    integer parameter (depth, samples, iterations) and ``explore[p]`` its real one (Q8's
    exploration constant C; 0 for the other kinds); ``policies.policy_arrays`` builds them."""

    kinds: np.ndarray
    params: np.ndarray
    explore: np.ndarray  # float64


class HandWork(NamedTuple):
    """The arrays one hand is played in (``hand_kernel`` module docstring), reused hand after
    hand."""

    st: np.ndarray  # the scalars, slots ``hand_kernel.S_*``
    hc: np.ndarray  # (players, MAX_HOLD): holdings, card order
    hn: np.ndarray  # (players,): cards held
    tab: np.ndarray  # (10,): the table, card of each value, -1 if none
    capm: np.ndarray  # (sides,): captured cards, bit masks
    capn: np.ndarray  # (sides,): captured cards, counts
    pts: np.ndarray  # (sides, sources): points of the hand
    ann: np.ndarray  # (players, 10): Q1: announced cards of each value left unplayed, this deal
    pubv: np.ndarray  # (10,): public cards of each value
    dp: np.ndarray  # (sides, sources): scratch, the credits of one play or deal
    held: np.ndarray  # (sides,): scratch
    dplay: np.ndarray  # (players, 10): I1/Q1: cards of each value each player played this deal


class Tree(NamedTuple):
    """``ismcts:N:C``'s tree (Q8, ``ismcts_kernel``) in preallocated arrays, reused decision
    after decision: node 0 is the root, every other node the value sequence of its path from
    the root. ``child[i, v]`` is the node reached from node i by a play of value v (0: not
    expanded yet; the root is nobody's child); per node ``visits`` (n), ``avail`` (n', times
    it was available when its parent chose) and ``total`` (W, the sum of the values V of
    ``side``, the side of the player whose play leads to it). ``path`` the nodes of one
    descent; ``logs[k]`` = ln k; ``f0`` the final values at the decision (Q1). Capacity: one
    node per iteration plus the root.

    For ``ismcts-match`` (Q10): ``stake`` is set by the match loop before every hand, each
    side's score (points mode) or hands won (classic mode) so far and, in its last slot, 1
    (0 outside a match: the hand loops never set it); ``base`` is set at each decision, what
    the end-of-hand totals add to the playout's final position (points mode: the score before
    the hand plus the announcements already scored) and, in its last slot, 1 when the
    decision backs up the match result."""

    child: np.ndarray  # (cap, 10)
    visits: np.ndarray  # (cap,)
    avail: np.ndarray  # (cap,)
    total: np.ndarray  # (cap,)
    side: np.ndarray  # (cap,)
    path: np.ndarray  # (41,)
    logs: np.ndarray  # (cap + 1,) float64
    f0: np.ndarray  # (sides,)
    stake: np.ndarray  # (sides + 1,): Q10, the match before this hand; last slot 1 in a match
    base: np.ndarray  # (sides + 1,): Q10, this decision's totals base; last slot 1: match value


class SearchWork(NamedTuple):
    """The scratch searching decisions work in (``search_kernel``), reused decision after
    decision."""

    st: np.ndarray  # (LEVELS, C_SIZE): the stacked compact positions
    ord: np.ndarray  # (LEVELS, 10): each level's mover's values in the order they are tried
    best: np.ndarray  # (LEVELS, sides): max-n's best final values at each level so far
    key: np.ndarray  # (LEVELS, 10): the ordering's scores
    f: np.ndarray  # (sides,): final values returned by a search
    held: np.ndarray  # (4,): scratch of greedy
    deck: np.ndarray  # the sample's deck: its stock at the positions the hand has not dealt yet
    un: np.ndarray  # the unseen cards, permuted in place by the samples
    pub: np.ndarray  # (C_SIZE,): the seat's view of the position, the other holdings empty
    totals: np.ndarray  # (MAX_HAND,): the root candidates' summed values
    cand: np.ndarray  # (MAX_HAND,): the root candidates
    own: np.ndarray  # (MAX_HAND,): cards of the candidate's value in the root holding
    rsc: np.ndarray  # (MAX_HAND, 10): lookahead:1's reply table: the reply's score ...
    rf: np.ndarray  # ... and the searcher's final value after it
    cnt: np.ndarray  # (10,): scratch of the consistency check
    rec_info: np.ndarray  # capacity in samples (0: off), decisions, samples, current hand
    rec_meta: np.ndarray  # per recorded decision: hand, play, seat, first sample, samples, kind
    rec_hands: np.ndarray  # per recorded sample: each seat's hand as a bit mask (0: searcher)
    rec_stock: np.ndarray  # per recorded sample: the stock, top first, -1 after its end
    ways: np.ndarray  # (11, RADIX**3): Q1's counts of consistent completions
    lim: np.ndarray  # (2, 3, 10): least and most unseen cards of each value per other hand
    vc: np.ndarray  # (4,): scratch, the unseen cards of one value
    lvl: np.ndarray  # (LEVELS, L_SIZE): each level's scalars (columns ``search_kernel.L_*``)
    tree: Tree  # Q8's search tree (``ismcts_kernel``)
    memo: np.ndarray  # (MAX_HAND, MAX_DEALS + 1, 9): one sample's playouts (``rollout_kernel``)


class PlayLog(NamedTuple):
    """Where a hand writes its per-play record when ``on``: ``plays[k]`` the log row of play k
    (fields ``codes.F_*``), ``play_points[k]`` its credits (side x source), ``deal_points[d]``
    the announcement credits of deal d. With ``on`` false they are one-row scratch, never
    written."""

    plays: np.ndarray
    play_points: np.ndarray
    deal_points: np.ndarray
    on: bool


class HandDraw(NamedTuple):
    """What chance gives one hand before its first play (``play_kernel`` module docstring):
    the deck, top card first (D5), ``us[k]`` the uniform of play k when its seat is random
    (Q2), ``seeds[p]`` the seed of seat p's own stream when it searches (I3)."""

    deck: np.ndarray
    us: np.ndarray
    seeds: np.ndarray


class PlayWork(NamedTuple):
    """Everything a hand is played in: the hand's workspace, the searching policies' scratch,
    each seat's own stream (one xoshiro256** state per seat, I3), what chance gives the hand
    (:class:`HandDraw`, drawn into hand after hand) and where the per-play log goes
    (:class:`PlayLog`; one-row scratch with ``on`` false in Monte Carlo batches)."""

    hand: HandWork
    search: SearchWork
    streams: np.ndarray
    draw: HandDraw
    log: PlayLog


class MatchChance(NamedTuple):
    """Where one match's chance comes from (``match_kernel`` module docstring): the chunk's
    stream ``state``, or with ``duplicate`` the deal set's deck stream and role streams, role
    of seat p being ``(p - offset) % players``; and the match's first dealer (D3)."""

    state: np.ndarray
    deck_stream: np.ndarray
    role_streams: np.ndarray
    offset: int
    duplicate: bool
    first_dealer: int


class MatchTally(NamedTuple):
    """What one match adds up, by side: ``scores`` and ``cards`` are set to its final scores
    (S2) and captured cards; ``points`` (side x source) and ``hand_wins`` (C2) are added to;
    ``won`` is scratch (hands won, C3); ``out`` gets the result row (``match_kernel.O_*``)."""

    scores: np.ndarray
    cards: np.ndarray
    points: np.ndarray
    hand_wins: np.ndarray
    won: np.ndarray
    out: np.ndarray


class MatchRecords(NamedTuple):
    """What every match of a batch drew and gave, kept when ``on`` (one-row scratch
    otherwise): per match (or duplicate play) m, ``first[m]``, ``out[m]`` (its result row),
    ``scores[m]`` and ``cards[m]`` by side; per hand h, ``decks[m, h]``, ``dealers[m, h]``,
    ``us[m, h]``, ``seeds[m, h]`` and ``hand_scores[m, h]`` (the scores after the hand)."""

    on: bool
    first: np.ndarray
    out: np.ndarray
    scores: np.ndarray
    cards: np.ndarray
    decks: np.ndarray
    dealers: np.ndarray
    us: np.ndarray
    seeds: np.ndarray
    hand_scores: np.ndarray


class UserSeats(NamedTuple):
    """The seats that play a player's own function (Q11), for the hand and match kernels: the
    functions, which seat plays which, and each such seat's observation and action mask, kept
    up to date play by play (:mod:`simcards.ronda.observation_kernel`), with the match state
    the ``ronda_match_v0`` observation shows. Built in the process that runs the kernel (the
    functions are compiled there), never pickled."""

    fns: tuple  # MAX_USER_POLICIES cfuncs f(obs, legal) -> card (a spare slot: a stub)
    slot: np.ndarray  # int64 by seat: the seat's function in fns, -1 for a built-in
    obs: np.ndarray  # float32 (players, OBSERVATION_SIZE): each user seat's observation
    legal: np.ndarray  # int8 (players, 40): each user seat's action mask, its hand
    before: np.ndarray  # int64: the masks a play changes, as they were before it
    err: np.ndarray  # int64 [seat + 1, card] of the first card played that is not legal
    match: np.ndarray  # int64 (2, sides): the match's carried scores (S2) and hands won (C2)
    # by side before the hand, written by the match kernel; zeros in single hands

