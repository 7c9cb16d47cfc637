"""Monte Carlo hands of two players where a seat plays a player's own function (Q11), on card
values with the cards kept by id beside them: the loop
:func:`simcards.ronda.hands_batch.hands_chunk` runs for two players when no seat searches.

Why a loop of its own: the hand workspace (:func:`simcards.ronda.play_kernel.play_hand`) keeps
every seat's holding, the table and the pile in arrays written at every play, and the seat's
observation was rewritten from them play by play; a user's function in one seat then cost more
than five greedy hands. Here the hand is :func:`simcards.ronda.value_kernel._two_player_loop`'s
(positions in local words, the rules of :mod:`simcards.ronda.value_rules_kernel`, the same
statistics from the same streams), and beside it the few 40-bit masks of card ids the
``ronda_v0`` observation shows: each holding, the table, the pile in play, each side's captured
cards, each seat's played cards and the card the previous play laid. A card id ``c`` is
value-major (``c >> 2`` its value), so the card-id mask of a value run is the run's nibbles.

A user seat's observation is written only when its seat is asked for a card, and then only the
entries that changed since it was last asked (the masks' bit differences, the few counts): the
observation it reads is the one the workspace path keeps play by play
(:mod:`simcards.ronda.observation_kernel`), entry for entry, since every entry is a function of
the position at the moment it is read.

A built-in seat plays the card id the workspace path plays: ``greedy`` the lowest card of the
value it chooses, ``random`` the card of its rank in card order (Q2). So the user seats'
observations, their cards and every statistic are those of the workspace path, bit for bit
(``tests/ronda/test_user_hands_kernel.py``).

Compiled without reference counting (``hand_kernel`` module docstring): the caller allocates.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.bits_kernel import lowest_bit, popcount
from simcards.core.rng_kernel import load, step, store
from simcards.ronda.codes import (
    ACT_CAPTURE,
    ACT_DERBA,
    ACT_LAY,
    ACT_REHIT,
    ANNOUNCE_EVERY_DEAL,
    MODE_POINTS,
    N_SOURCES,
    OBS_ANNOUNCED,
    OBS_CAPTURED,
    OBS_DEAL,
    OBS_HAND,
    OBS_MARKS,
    OBS_PILE,
    OBS_PLAYED,
    OBS_POINTS,
    OBS_PREVIOUS,
    OBS_SCORES,
    OBS_SIZES,
    OBS_STOCK,
    OBS_TABLE,
    OBS_TO_PLAY,
    POLICY_RANDOM,
    SRC_CARDS,
)
from simcards.ronda.kernel_state import Board, PlayFacts, Spot
from simcards.ronda.observation_kernel import _diff
from simcards.ronda.value_kernel import _chance, _count_hand, _nth_value, rank_of
from simcards.ronda.value_rules_kernel import (
    N_CARDS,
    NIBBLE,
    act_nibbles,
    announced,
    announcement_credits,
    credit,
    greedy_nibbles,
    held_nibbles,
    pairs,
)

__all__ = ["MEMORY", "N_CARDS", "user_hands"]

MEMORY = 9
"""Entries of a user seat's memory of what its observation shows (``mem[seat]``): its holding,
the table, the pile, the previous card (-1: none), the cards it and the other seat played, the
cards its side and the other side captured (as card-id masks), and the deal shown (-1: none)."""
M_HAND, M_TABLE, M_PILE, M_PREVIOUS, M_PLAYED, M_PLAYED_OTHER, M_CAPTURED, M_CAPTURED_OTHER, \
    M_DEAL = range(MEMORY)


@njit(cache=True, inline="always")
def _show_hand(obs, legal, old, new):
    """:func:`~simcards.ronda.observation_kernel._diff` for the seat's holding, its action
    mask alike."""
    d = old ^ new
    while d:
        c = lowest_bit(d)
        x = (new >> c) & 1
        obs[OBS_HAND + c] = 1.0 if x else 0.0
        legal[c] = x
        d &= d - 1


@njit(cache=True, inline="always")
def _new_hand(obs, legal, mem, p, dealer, first):
    """A user seat's observation at the start of a hand: everything cleared, then the dealer's
    and the first player's marks and the flag that the seat is to play."""
    for i in range(obs.shape[0]):
        obs[i] = 0.0
    for c in range(N_CARDS):
        legal[c] = 0
    for i in range(MEMORY):
        mem[i] = 0
    mem[M_PREVIOUS] = -1
    mem[M_DEAL] = -1
    obs[OBS_MARKS + (dealer ^ p)] = 1.0
    obs[OBS_MARKS + 4 + (first ^ p)] = 1.0
    obs[OBS_TO_PLAY] = 1.0


@njit(cache=True, inline="always")
def _observe(obs, legal, mem, p, mine, other, table, pile, previous, played, played_other,
             captured, captured_other, ann_self, ann_other, board, deal, stock, pts, target):
    """Seat ``p``'s observation and action mask brought up to date before it plays (the
    module docstring): ``mine``/``other`` the two holdings as card-id masks, ``played*`` and
    ``captured*`` the seat's own and the other's, ``ann_*`` the Rondas and Tringlas each
    announced at this deal (Rondas in the low 32 bits), ``pts`` the points by side and
    source."""
    _show_hand(obs, legal, mem[M_HAND], mine)
    mem[M_HAND] = mine
    _diff(obs, OBS_TABLE, mem[M_TABLE], table)
    mem[M_TABLE] = table
    _diff(obs, OBS_PILE, mem[M_PILE], pile)
    mem[M_PILE] = pile
    _diff(obs, OBS_PLAYED, mem[M_PLAYED], played)
    mem[M_PLAYED] = played
    _diff(obs, OBS_PLAYED + N_CARDS, mem[M_PLAYED_OTHER], played_other)
    mem[M_PLAYED_OTHER] = played_other
    _diff(obs, OBS_CAPTURED, mem[M_CAPTURED], captured)
    mem[M_CAPTURED] = captured
    _diff(obs, OBS_CAPTURED + N_CARDS, mem[M_CAPTURED_OTHER], captured_other)
    mem[M_CAPTURED_OTHER] = captured_other
    if mem[M_PREVIOUS] != previous:
        if mem[M_PREVIOUS] >= 0:
            obs[OBS_PREVIOUS + mem[M_PREVIOUS]] = 0.0
        if previous >= 0:
            obs[OBS_PREVIOUS + previous] = 1.0
        mem[M_PREVIOUS] = previous
    if mem[M_DEAL] != deal:
        if mem[M_DEAL] >= 0:
            obs[OBS_DEAL + mem[M_DEAL]] = 0.0
        obs[OBS_DEAL + deal] = 1.0
        mem[M_DEAL] = deal
        obs[OBS_STOCK] = (N_CARDS - stock) / N_CARDS
        obs[OBS_ANNOUNCED] = ann_self & 0xFFFFFFFF
        obs[OBS_ANNOUNCED + 1] = ann_self >> 32
        obs[OBS_ANNOUNCED + 2] = ann_other & 0xFFFFFFFF
        obs[OBS_ANNOUNCED + 3] = ann_other >> 32
    obs[OBS_SIZES] = popcount(mine) / 4.0
    obs[OBS_SIZES + 1] = popcount(other) / 4.0
    for k in (2, 3):  # the pile's last hitter, the last capturer
        obs[OBS_MARKS + 4 * k] = 0.0
        obs[OBS_MARKS + 4 * k + 1] = 0.0
    if board.pile_n > 0 and board.hitter >= 0:
        obs[OBS_MARKS + 8 + (board.hitter ^ p)] = 1.0
    if board.lc >= 0:
        obs[OBS_MARKS + 12 + (board.lc ^ p)] = 1.0
    tg = float(target)
    for t in range(2):
        s = 0
        for src in range(N_SOURCES):
            s += pts[t, src]
        obs[OBS_SCORES + (t ^ p)] = s / tg
        obs[OBS_POINTS + (t ^ p)] = s / tg


@njit(cache=True, inline="always")
def _nth_card(mask, v, i):
    """The card id of rank ``i`` (0-based, card order) in the card-id mask ``mask``, known to
    be of value ``v``: the rank among the cards of ``v`` is ``i`` less the cards below ``v``."""
    j = i - popcount(mask & ((np.int64(1) << (4 * v)) - 1))
    x = (mask >> (4 * v)) & NIBBLE
    for _ in range(j):
        x &= x - 1
    return 4 * v + lowest_bit(x)


@njit(cache=True, _nrt=False)
def user_hands(state, hands, dealer, seats, rules, work, stats, users, deck, mem):
    """``hands`` hands of two players from the stream ``state`` (``play_kernel`` layout),
    adding up into ``stats`` as :func:`play_kernel.workspace_hands` does; ``users`` seats the
    players' own functions (:class:`~simcards.ronda.kernel_state.UserSeats`, Q11), ``deck``
    the card ids 0..39 (shuffled hand after hand), ``mem`` (2 x :data:`MEMORY`) scratch. A
    card a function's seat does not hold is recorded in ``users.err`` and the seat's lowest
    card played instead; the loop stops after that hand (the chunk is refused whole)."""
    events = stats[8]
    plays, sizes, share = rules.plays, rules.deal_sizes, rules.share
    points_mode = rules.mode == MODE_POINTS
    every_deal = rules.announce == ANNOUNCE_EVERY_DEAL
    target = rules.target
    ann, capn, pts, flat = work.ann, work.capn, work.pts, work.flat
    random0 = seats.kinds[0] == POLICY_RANDOM
    random1 = seats.kinds[1] == POLICY_RANDOM
    f0, f1, f2, f3 = users.fns
    uslot, uobs, ulegal, err = users.slot, users.obs, users.legal, users.err
    user0 = uslot[0] >= 0
    user1 = uslot[1] >= 0
    s0, s1, s2, s3 = load(state)
    for _ in range(hands):
        s0, s1, s2, s3, d = _chance(s0, s1, s2, s3, dealer, 2, deck)
        for t in range(2):
            for src in range(N_SOURCES):
                pts[t, src] = 0
        first = 1 - d
        if user0:
            _new_hand(uobs[0], ulegal[0], mem[0], 0, d, first)
        if user1:
            _new_hand(uobs[1], ulegal[1], mem[1], 1, d, first)
        h0 = np.int64(0)
        h1 = np.int64(0)
        a0 = np.int64(0)
        a1 = np.int64(0)
        # The cards by id: holdings, table, pile in play, captured and played by seat (side),
        # the card the previous play laid; the announcements' counts of this deal by seat.
        m0 = np.int64(0)
        m1 = np.int64(0)
        tm = np.int64(0)
        pm = np.int64(0)
        cm0 = np.int64(0)
        cm1 = np.int64(0)
        pl0 = np.int64(0)
        pl1 = np.int64(0)
        previous = -1
        n0 = np.int64(0)
        n1 = np.int64(0)
        cc = np.int64(0)
        ev = np.int64(0)
        board = Board(np.int64(0), np.int64(0), np.int64(0), np.int64(-1), np.int64(0),
                      np.int64(-1), np.int64(-1), np.int64(-1))
        public = np.int64(0)
        stock = 0
        deal = -1
        in_hand = 0
        hand_rondas = 0
        hand_tringlas = 0
        hand_holdings = 0
        p = first
        for k in range(plays):
            if in_hand == 0:  # D5: the next deal, first player first, dealer last
                deal += 1
                size = sizes[deal]
                for _r in range(size):
                    c_first = deck[stock]
                    c_second = deck[stock + 1]
                    stock += 2
                    if first == 0:
                        h0 += np.int64(1) << (4 * (c_first >> 2))
                        m0 |= np.int64(1) << c_first
                        h1 += np.int64(1) << (4 * (c_second >> 2))
                        m1 |= np.int64(1) << c_second
                    else:
                        h1 += np.int64(1) << (4 * (c_first >> 2))
                        m1 |= np.int64(1) << c_first
                        h0 += np.int64(1) << (4 * (c_second >> 2))
                        m0 |= np.int64(1) << c_second
                in_hand = 2 * size
                p = first
                announcing = points_mode and (deal == 0 or every_deal)
                two0, three0 = pairs(h0)
                two1, three1 = pairs(h1)
                if size == 4:
                    hand_rondas += popcount(two0) + popcount(two1)
                    hand_tringlas += popcount(three0) + popcount(three1)
                    hand_holdings += 2
                if announcing:
                    a0 = announced(two0, three0)
                    a1 = announced(two1, three1)
                    n0 = popcount(two0) | (popcount(three0) << 32)
                    n1 = popcount(two1) | (popcount(three1) << 32)
                    if a0 | a1:
                        ann[0] = a0
                        ann[1] = a1
                        announcement_credits(rules, ann, 0, pts)
                else:
                    a0 = 0
                    a1 = 0
                    n0 = 0
                    n1 = 0
            last = k + 1 == plays
            h = h0 if p == 0 else h1
            mm = m0 if p == 0 else m1
            m = (in_hand + 1) >> 1  # the mover holds one card more than the other, or as many
            if (user0 if p == 0 else user1):
                o = uobs[p]
                lg = ulegal[p]
                if p == 0:
                    _observe(o, lg, mem[0], 0, m0, m1, tm, pm, previous, pl0, pl1, cm0, cm1, n0,
                             n1, board, deal, stock, pts, target)
                else:
                    _observe(o, lg, mem[1], 1, m1, m0, tm, pm, previous, pl1, pl0, cm1, cm0, n1,
                             n0, board, deal, stock, pts, target)
                j = uslot[p]
                card = (f0(o, lg) if j == 0 else f1(o, lg) if j == 1 else f2(o, lg) if j == 2
                        else f3(o, lg))
                if card < 0 or card >= N_CARDS or lg[card] == 0:
                    if err[0] == 0:
                        err[0] = p + 1
                        err[1] = card
                    card = lowest_bit(mm)
                v = card >> 2
            elif random0 if p == 0 else random1:
                s0, s1, s2, s3, w = step(s0, s1, s2, s3)
                i = rank_of(w, m)
                v = _nth_value(h, i)
                card = _nth_card(mm, v, i)
            else:
                nz = held_nibbles(h)
                if nz & (nz - 1) == 0:
                    v = lowest_bit(nz) >> 2
                else:
                    nh = in_hand >> 1  # the other's holding at his next play
                    if nh == 0:
                        nh = sizes[deal + 1]
                    v = greedy_nibbles(Spot(p, h, board, False, N_CARDS - k - m, nh,
                                            a1 if p == 0 else a0, public), board.hitter, rules)
                card = 4 * v + lowest_bit((mm >> (4 * v)) & NIBBLE)
            sh = 4 * v
            nib = np.int64(1) << sh
            bit = np.int64(1) << card
            if p == 0:
                h0 -= nib
                m0 ^= bit
                pl0 |= bit
                if (a0 >> sh) & NIBBLE:
                    a0 -= nib
            else:
                h1 -= nib
                m1 ^= bit
                pl1 |= bit
                if (a1 >> sh) & NIBBLE:
                    a1 -= nib
            in_hand -= 1
            public += nib
            board, hs, closed, gained, hit, taken = act_nibbles(v, p, board, False)
            # The cards by id, as hand_kernel.apply_play moves them: X5a's closed pile to its
            # hitter, then the card taking a run of the table (P2: a Derba's pile or P5's
            # capture), laid (P3) or hitting the pile (X4); X5b's or P5's cards to the mover.
            if closed > 0:
                if hs == 0:
                    cm0 |= pm
                else:
                    cm1 |= pm
                pm = np.int64(0)
            if taken > 0:
                run = tm & (((np.int64(1) << (4 * taken)) - 1) << sh)
                tm ^= run
                pm |= run | bit
            elif board.laid >= 0:
                tm |= bit
            else:
                pm |= bit
            if gained > 0:
                if p == 0:
                    cm0 |= pm
                else:
                    cm1 |= pm
                pm = np.int64(0)
            previous = card if board.laid >= 0 else -1
            missa = taken > 0 and board.table_n == 0
            if closed > 0:
                cc += closed << (32 * hs)
            cc += gained << (32 * p)
            if hit > 0 or missa or last:
                ev += (np.int64(hit == 1) | (np.int64(hit > 1) << 8)
                       | (np.int64(missa) << 16)) << (24 * p)
                if points_mode:  # X6/X7, M1, L1-L5
                    if hit == 1:
                        action = ACT_DERBA
                    elif hit > 1:
                        action = ACT_REHIT
                    elif board.laid == v:
                        action = ACT_LAY
                    else:
                        action = ACT_CAPTURE
                    credit(PlayFacts(action, hit, missa, last, v, p, hs), rules, flat, 0,
                           N_SOURCES, 1)
            p = 1 - p
        c0 = cc & 0xFFFFFFFF
        c1 = cc >> 32
        if board.pile_n > 0:
            if board.hitter == 0:
                c0 += board.pile_n
            else:
                c1 += board.pile_n
        if board.table_n > 0:
            if board.lc == 0:
                c0 += board.table_n
            else:
                c1 += board.table_n
        capn[0] = c0
        capn[1] = c1
        if points_mode:
            if c0 > share:
                pts[0, SRC_CARDS] += c0 - share
            if c1 > share:
                pts[1, SRC_CARDS] += c1 - share
        events[0, 0] += ev & 255
        events[0, 1] += (ev >> 8) & 255
        events[0, 2] += (ev >> 16) & 255
        events[1, 0] += (ev >> 24) & 255
        events[1, 1] += (ev >> 32) & 255
        events[1, 2] += (ev >> 40) & 255
        _count_hand(stats, pts, capn, not points_mode, c0 + c1 != N_CARDS or h0 != 0 or h1 != 0,
                    hand_holdings, hand_rondas, hand_tringlas)
        if err[0] != 0:
            break
    store(state, s0, s1, s2, s3)
