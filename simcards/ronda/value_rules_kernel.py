"""The rules of one Ronda play on card values (P2-P5, X1-X7, M1, L1-L5) and the ``greedy``
policy (Q3), written once for every form a position takes.

Cards of one value act alike (D1), so a play, its credits and greedy's choice need only values:
a card is its value (0 = As .. 9 = Rey), the table a bit mask of values (P4 allows one card per
value), a holding its count of each value packed four bits a value. The public state a card acts
on is a :class:`~simcards.ronda.kernel_state.Board`, what greedy reads a
:class:`~simcards.ronda.kernel_state.Spot`.

Three forms of a position use these functions: the Monte Carlo loop on card values
(:mod:`simcards.ronda.value_kernel`, the board in local variables for a whole hand), the
compact position the searches copy and play out (:mod:`simcards.ronda.compact_kernel`) and, for
greedy, the hand's workspace (:mod:`simcards.ronda.hand_kernel`, whole hands with their logs,
and matches; it keeps card ids and plays with its own ``apply_play``, which the tests hold to
these rules play by play). So the rule, its tie-breaks and its Derba risk cannot drift apart
between them.

The two tightest loops, the two-player Monte Carlo hands and ``rollout:K``'s playouts, keep the
table as a nibble mask instead (bit 4v for a card of value v on it, :data:`NIBBLES`): a holding
and the table then meet in one AND, so :func:`greedy_nibbles` sees at once which of its values
capture, and :func:`act_nibbles` plays a card on such a board. ``greedy_nibbles`` chooses
exactly as :func:`greedy_value` (``tests/ronda/test_compact.py`` and
``tests/ronda/test_value_kernel.py`` hold them together).

Every function is inlined into its caller (``inline="always"``): a Board or a Spot is a handful
of registers, never a record in memory.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from simcards.core.bits_kernel import lowest_bit, popcount
from simcards.ronda.codes import (
    ACT_CAPTURE,
    ACT_DERBA,
    ACT_LAY,
    ACT_REHIT,
    CHAIN_FLAT,
    CONFLICT_TEXT,
    MAX_HAND,
    MODE_POINTS,
    SRC_DERBA,
    SRC_LAST_CARD,
    SRC_MISSA,
    SRC_RONDA,
    SRC_TRINGLA,
)
from simcards.ronda.kernel_state import Board, PlayFacts

N_CARDS = 40
AS = 0
REY = 9
NIBBLE = 15
LOW_NIBBLE_BITS = 0x1111111111  # bit 4v of each value v
RUN_STOP = 0x11111111111
"""Bit 4v for v = 0 .. 10: on a nibble table, a capture run (P2) stops at the first value
missing from the table, at the latest after the Rey."""


def comb_table() -> np.ndarray:
    """C(a, b) for 0 <= a <= 40 and 0 <= b <= 4 (0 when b > a), exactly."""
    table = np.zeros((N_CARDS + 1, MAX_HAND + 1), np.int64)
    for a in range(N_CARDS + 1):
        for b in range(MAX_HAND + 1):
            table[a, b] = math.comb(a, b)
    return table


COMB = comb_table()
"""Q1's binomials, a constant of the compiled code."""


@njit(cache=True, inline="always")
def side_of(p, teams):
    """D2: each player alone, or partnerships {0, 2} and {1, 3}."""
    if teams:
        return p & 1
    return p


@njit(cache=True, inline="always")
def tier(hit):
    """X7: the first, second and third hit of a chain score 1, 5 and 10."""
    if hit == 1:
        return 1
    if hit == 2:
        return 5
    return 10


@njit(cache=True, inline="always")
def held_nibbles(h):
    """Bit 4v set for each value v a packed holding ``h`` holds (counts are 0..4)."""
    return (h | (h >> 1) | (h >> 2)) & LOW_NIBBLE_BITS


@njit(cache=True, inline="always")
def pairs(h):
    """Bit 4v set for each value v the packed holding ``h`` holds exactly twice (a Ronda, A2),
    and for each it holds three or four times (a Tringla): ``(rondas, tringlas)``."""
    two_up = ((h >> 1) | (h >> 2)) & LOW_NIBBLE_BITS  # count 2, 3 or 4
    three_up = ((h & (h >> 1)) | (h >> 2)) & LOW_NIBBLE_BITS  # count 3 or 4
    return two_up & ~three_up, three_up


@njit(cache=True, inline="always")
def announced(rondas, tringlas):
    """A1's announced cards of a holding whose :func:`pairs` are ``(rondas, tringlas)``,
    packed: 2 at a Ronda's value, 3 at a Tringla's."""
    return (rondas << 1) | (tringlas * 3)


@njit(cache=True, inline="always")
def _ronda_bits(a):
    """Bit 4v set for each value v whose Ronda the packed announcements ``a`` hold (a 2 there;
    a Tringla is a 3, :func:`announced`)."""
    return (a >> 1) & ~a & LOW_NIBBLE_BITS


@njit(cache=True, inline="always")
def deal_two(deck, stock, size, first, h0, h1, shift):
    """D5 for two players: ``size`` rounds of one card each from ``deck[stock:]``, the first
    player (seat ``first``) first, added to the packed holdings ``(h0, h1)``, which are
    returned. ``shift`` turns an entry of ``deck`` into a value: 0 for a deck of values, 2 for
    one of card ids (value = id >> 2)."""
    for _ in range(size):
        c_first = np.int64(1) << (4 * (deck[stock] >> shift))
        c_second = np.int64(1) << (4 * (deck[stock + 1] >> shift))
        stock += 2
        if first == 0:
            h0 += c_first
            h1 += c_second
        else:
            h1 += c_first
            h0 += c_second
    return h0, h1


@njit(cache=True, _nrt=False)
def announcement_credits(rules, ann, at, pts):
    """A4/A5: the credits of one deal's announcements added to ``pts`` (side x source), each
    booked under its own kind, also when ``highest_takes_all`` gives it to another side.
    ``ann[at + q]`` is player q's announcements as dealt, packed: 2 at each value he announces
    a Ronda of, 3 at a Tringla (:func:`announced`). Every form of a hand credits them here."""
    n = rules.players
    teams = rules.teams
    if rules.conflict == CONFLICT_TEXT:
        # A4a: a Ronda of the same value held by another side cancels both.
        for q in range(n):
            rq = _ronda_bits(ann[at + q])
            if rq == 0:
                continue
            sq = side_of(q, teams)
            other = np.int64(0)
            for q2 in range(n):
                if side_of(q2, teams) != sq:
                    other |= _ronda_bits(ann[at + q2])
            pts[sq, SRC_RONDA] += popcount(rq & ~other)
        # A4b: Tringlas of one side all score; of several sides only the lowest.
        t_side = -1
        multi = False
        low = np.int64(-1)  # the lowest Tringla's bit, and its holder's side
        low_side = -1
        for q in range(n):
            tq = ann[at + q] & LOW_NIBBLE_BITS
            if tq == 0:
                continue
            sq = side_of(q, teams)
            if t_side < 0:
                t_side = sq
            elif sq != t_side:
                multi = True
            b = tq & -tq
            if low < 0 or b < low:
                low = b
                low_side = sq
        if t_side < 0:
            return
        if multi:
            pts[low_side, SRC_TRINGLA] += 5
        else:
            for q in range(n):
                pts[t_side, SRC_TRINGLA] += 5 * popcount(ann[at + q] & LOW_NIBBLE_BITS)
        return
    # A5: the side of the strongest announcement (A3: a Tringla beats a Ronda, then the
    # higher value) takes all; a tie between sides, nothing.
    all_t = np.int64(0)
    all_r = np.int64(0)
    for q in range(n):
        all_t |= ann[at + q] & LOW_NIBBLE_BITS
        all_r |= _ronda_bits(ann[at + q])
    if all_t == 0 and all_r == 0:
        return
    pick = all_t != 0  # the strongest is a Tringla
    top = all_t if pick else all_r
    while top & (top - 1):  # its highest value's bit
        top &= top - 1
    winner = -1
    for q in range(n):
        mine = ann[at + q] & LOW_NIBBLE_BITS if pick else _ronda_bits(ann[at + q])
        if mine & top:
            sq = side_of(q, teams)
            if winner < 0:
                winner = sq
            elif sq != winner:
                return
    for q in range(n):
        tq = ann[at + q] & LOW_NIBBLE_BITS
        rq = _ronda_bits(ann[at + q])
        pts[winner, SRC_RONDA] += popcount(rq)
        pts[winner, SRC_TRINGLA] += 5 * popcount(tq)


@njit(cache=True, inline="always")
def balance(play, rules):
    """The points of one play (:class:`~simcards.ronda.kernel_state.PlayFacts`) as the Q1
    balance dP(s) - sum of dP(t) over the other sides: X6/X7, M1, L1-L5 (S1 left to the
    caller)."""
    if rules.mode != MODE_POINTS:
        return 0
    hit = play.hit
    v = play.value
    b = 0
    if hit > 0:
        if rules.chain == CHAIN_FLAT:
            b += 1
        else:
            b += tier(hit)
            if hit > 1:
                b += tier(hit - 1) if play.prev_side != play.side else -tier(hit - 1)
    if play.missa:
        b += 1
    if play.last:
        if v == REY and play.action != ACT_LAY:
            b += 10
        elif v in (REY, AS):
            b -= 10 * (rules.sides - 1)
    return b


@njit(cache=True, inline="always")
def act(v, board):
    """What a card of value ``v`` does on ``board`` (P2-P4, X1, X4, X5b, M1): ``(action,
    taken, hit, chain_closed, missa)``."""
    k = 0
    hit = 0
    chain_closed = False
    if board.pile_n > 0 and board.pile_v == v:
        action = ACT_REHIT  # X4: the card goes on the pile; nothing from the table
        hit = board.pile_vc
        chain_closed = board.pile_vc == 3  # X5b: the fourth card of the value
    elif (board.table >> v) & 1:
        k = lowest_bit(~(board.table >> v))  # P2: the run of values on the table from v up
        if board.laid == v:
            action = ACT_DERBA  # X1
            hit = 1
        else:
            action = ACT_CAPTURE
    else:
        action = ACT_LAY  # P3
    missa = k > 0 and board.table_n == k  # M1
    return action, k, hit, chain_closed, missa


@njit(cache=True, inline="always")
def play_value(v, p, board, last, rules, caps, at):
    """Player ``p`` plays a card of value ``v`` on ``board`` (S3 steps (1)-(2): X5a, then the
    card acts, P2-P5, X1-X5), ``last`` telling whether it is the hand's last play; cards
    captured by side t are added to ``caps[at + t]``. Returns ``(board after, facts)``,
    ``facts`` the :class:`~simcards.ronda.kernel_state.PlayFacts` its credits read."""
    teams = rules.teams
    s = side_of(p, teams)
    table, table_n, pile_n, pile_v = board.table, board.table_n, board.pile_n, board.pile_v
    pile_vc, hitter, laid, lc = board.pile_vc, board.hitter, board.laid, board.lc
    hs = side_of(hitter, teams) if hitter >= 0 else -1
    action, taken, hit, chain_closed, missa = act(v, board)
    if pile_n > 0 and pile_v != v:  # X5a: another value closes the pile first
        caps[at + hs] += pile_n
        pile_n, pile_v, pile_vc, hitter = 0, -1, 0, -1
    if action == ACT_REHIT:
        pile_n += 1
        pile_vc += 1
        hitter = p
        lc = p
        laid = -1
        if chain_closed:  # X5b
            caps[at + s] += pile_n
            pile_n, pile_v, pile_vc, hitter = 0, -1, 0, -1
    elif action == ACT_LAY:
        table |= 1 << v
        table_n += 1
        laid = v
    else:
        table &= ~(((1 << taken) - 1) << v)
        table_n -= taken
        if action == ACT_DERBA:  # X3: the Derba's cards form the pile in play
            pile_n = taken + 1
            pile_v = v
            pile_vc = 2
            hitter = p
        else:  # P5
            caps[at + s] += taken + 1
        lc = p
        laid = -1
    return (Board(table, table_n, pile_n, pile_v, pile_vc, hitter, laid, lc),
            PlayFacts(action, hit, missa, last, v, s, hs))


@njit(cache=True, inline="always")
def credit(play, rules, pts, at, stride, by_source):
    """The points of one play (S3 steps (3)-(5): X6/X7, M1, L1-L5) added to ``pts``: those of
    side t and source src at ``pts[at + t * stride + src * by_source]`` (``by_source`` 0 adds
    every source into one total a side). Only in points mode (C1)."""
    if rules.mode != MODE_POINTS:
        return
    hit, s, v = play.hit, play.side, play.value
    if hit > 0:
        if rules.chain == CHAIN_FLAT:
            pts[at + s * stride + SRC_DERBA * by_source] += 1  # X6
        else:
            pts[at + s * stride + SRC_DERBA * by_source] += tier(hit)  # X7
            if hit > 1:
                pts[at + play.prev_side * stride + SRC_DERBA * by_source] -= tier(hit - 1)
    if play.missa:
        pts[at + s * stride + SRC_MISSA * by_source] += 1
    if play.last:
        if v == REY and play.action != ACT_LAY:
            pts[at + s * stride + SRC_LAST_CARD * by_source] += 10  # L1
        elif v in (REY, AS):
            for t in range(rules.sides):  # L2, L3: each other side (a team once)
                if t != s:
                    pts[at + t * stride + SRC_LAST_CARD * by_source] += 10


@njit(cache=True, inline="always")
def greedy_value(sp, rules, caps, at, held):
    """Q3: the value of the card whose single play has the highest V(own side) (Q1: 100 x the
    point balance without announcements, plus the change in cards held; the last play includes
    X5c, U1 and S1); ties go to the lowest Derba risk, then card order (the lowest value).

    ``caps[at + t]`` are the cards side t has captured; ``held`` is scratch of at least
    ``rules.sides`` entries.

    Q1's Derba risk of a card of value v is 1 - C(U-u, h) / C(U, h), or 1 when the next
    player's announcements at this deal prove he holds a v, or 0 for a capture without Derba, a
    chain closed by X5b or the last play. U and h are the same for every card of one decision,
    so the risks of two cards compare exactly as their integers ``keep`` = C(U-u, h) (C(U, h)
    for a risk of 0, 0 for a proven v) compare, the other way round: distinct numerators below
    2**53 over one denominator give distinct quotients. Greedy ranks by ``keep`` and never
    forms the quotient.
    """
    hand = sp.hand
    nz = held_nibbles(hand)
    if nz & (nz - 1) == 0:
        return lowest_bit(nz) >> 2  # one value held: nothing to weigh
    teams = rules.teams
    ns = rules.sides
    p = sp.p
    s = side_of(p, teams)
    board = sp.board
    pile_n = board.pile_n
    hitter = board.hitter
    hs = side_of(hitter, teams) if hitter >= 0 else -1
    last, big_u, h = sp.last, sp.unseen, sp.next_h
    safe = COMB[big_u, h]  # keep of a risk of 0
    ann = sp.next_ann
    pubv = sp.public
    best = -1
    best_v = 0
    best_keep = 0
    while nz:  # values in card order: the first of a tie wins it
        v = lowest_bit(nz) >> 2
        nz &= nz - 1
        action, k, hit, chain_closed, missa = act(v, board)
        bal = balance(PlayFacts(action, hit, missa, last, v, s, hs), rules)
        if action == ACT_REHIT:
            dk = 1 if hs == s else pile_n + 1
        elif action == ACT_LAY:
            dk = 0
        else:
            dk = k + 1
        if last:
            for t in range(ns):
                held[t] = caps[at + t]
            if pile_n > 0:
                held[hs] += pile_n
            before = held[s]
            if action == ACT_REHIT:
                held[hs] -= pile_n
                held[s] += pile_n + 1
            elif action != ACT_LAY:
                held[s] += k + 1
            left = board.table_n - k + (1 if action == ACT_LAY else 0)
            if left > 0:  # U1
                lc = p if action != ACT_LAY else board.lc
                held[side_of(lc, teams) if lc >= 0 else ns - 1] += left
            if rules.mode == MODE_POINTS:
                share = rules.share
                for t in range(ns):  # S1
                    if held[t] > share:
                        bal += held[t] - share if t == s else share - held[t]
            dk = held[s] - before
        value = 100 * bal + dk
        if best >= 0 and (value < best_v or (value == best_v and best_keep >= safe)):
            continue  # not better: lower value, or a tie no risk can break
        if action == ACT_CAPTURE or chain_closed or last:
            keep = safe
        elif (ann >> (4 * v)) & NIBBLE:
            keep = 0  # his announcements at this deal prove he holds a v: risk 1
        else:
            own = (hand >> (4 * v)) & NIBBLE  # u = unseen cards of value v
            keep = COMB[big_u - (4 - ((pubv >> (4 * v)) & NIBBLE) - own), h]
        if best < 0 or value > best_v or keep > best_keep:
            best = v
            best_v = value
            best_keep = keep
    return best


# ---------------------------------------------------------------- the table as a nibble mask

def nibble_masks() -> np.ndarray:
    """``[m]``: the mask of values ``m`` (bit v) as a nibble mask (bit 4v)."""
    out = np.zeros(1 << 10, np.int64)
    for m in range(1 << 10):
        out[m] = sum(1 << (4 * v) for v in range(10) if (m >> v) & 1)
    return out


NIBBLES = nibble_masks()
"""A table's values as a nibble mask, a constant of the compiled code."""


@njit(cache=True, inline="always")
def greedy_nibbles(sp, hs, rules):
    """Q3's value for the mover of ``sp`` (:class:`~simcards.ronda.kernel_state.Spot`, its
    board's table a nibble mask) holding two values or more, so never the hand's last play;
    ``hs`` the side of the pile's last hitter (-1: no pile). Chooses as :func:`greedy_value`,
    by cases: a capture or a re-hit always scores above a laid card (it gains cards, and its
    points are never negative), so a holding with no capturing value compares only Derba
    risks, one with a single capturing value plays it, and only two or more capturing values
    are scored in full: the highest value, then the highest ``keep`` (the lowest Derba risk),
    then card order."""
    b = sp.board
    h = sp.hand
    nz = held_nibbles(h)
    opts = nz & b.table
    if b.pile_n > 0:
        opts |= nz & (np.int64(1) << (4 * b.pile_v))
    nh = sp.next_h
    if opts == 0:  # every card is laid: V = 0, the lowest Derba risk wins
        base = sp.unseen - 4
        seen = sp.public + h
        best = -1
        best_keep = np.int64(-1)
        while nz:
            w = lowest_bit(nz) >> 2
            nz &= nz - 1
            announced_v = (sp.next_ann >> (4 * w)) & NIBBLE  # he holds a v: risk 1
            keep = 0 if announced_v else COMB[base + ((seen >> (4 * w)) & NIBBLE), nh]
            if keep > best_keep:
                best_keep = keep
                best = w
        return best
    if opts & (opts - 1) == 0:
        return lowest_bit(opts) >> 2
    points = rules.mode == MODE_POINTS
    flat = rules.chain == CHAIN_FLAT
    s = side_of(sp.p, rules.teams)
    safe = COMB[sp.unseen, nh]
    best_key = np.int64(-1)
    while opts:
        w = lowest_bit(opts) >> 2
        opts &= opts - 1
        bal = 0
        if b.pile_n > 0 and b.pile_v == w:  # X4
            hit = b.pile_vc
            dk = 1 if hs == s else b.pile_n + 1
            if points:
                if flat:
                    bal = 1
                else:
                    bal = tier(hit)
                    if hit > 1:
                        bal += tier(hit - 1) if hs != s else -tier(hit - 1)
            sure = hit == 3  # X5b closes the chain
        else:  # P2, X1
            k = lowest_bit(~(b.table >> (4 * w)) & RUN_STOP) >> 2
            dk = k + 1
            sure = b.laid != w  # a plain capture; a Derba leaves a pile in play
            if points:
                if not sure:
                    bal = 1
                if b.table_n == k:
                    bal += 1
        if sure:
            keep = safe
        elif (sp.next_ann >> (4 * w)) & NIBBLE:
            keep = 0
        else:
            keep = COMB[sp.unseen - 4 + (((sp.public + h) >> (4 * w)) & NIBBLE), nh]
        key = ((100 * bal + dk) << 24) | (keep << 4) | (15 - w)
        if key > best_key:
            best_key = key
    return 15 - (best_key & 15)


@njit(cache=True, inline="always")
def act_nibbles(v, p, b, teams):
    """Player ``p`` plays a card of value ``v`` on ``b`` (table a nibble mask), S3 steps
    (1)-(2): ``(board after, hs, closed, gained, hit, taken)``: ``hs`` the side of the pile's
    last hitter before the play (-1: no pile), which gets the ``closed`` cards of a pile X5a
    closes; the mover's side gains ``gained`` cards; ``hit`` the play's place in a chain (0:
    none), ``taken`` the cards taken from the table."""
    table, table_n, pile_n, pile_v, pile_vc = b.table, b.table_n, b.pile_n, b.pile_v, b.pile_vc
    hitter, laid, lc = b.hitter, b.laid, b.lc
    hs = side_of(hitter, teams) if hitter >= 0 else -1
    closed = 0
    if pile_n > 0 and pile_v != v:  # X5a
        closed = pile_n
        pile_n, pile_v, pile_vc, hitter = 0, -1, 0, -1
    gained = 0
    hit = 0
    k = 0
    sh = 4 * v
    if pile_n > 0:  # X4
        hit = pile_vc
        pile_n += 1
        pile_vc += 1
        hitter = p
        lc = p
        laid = -1
        if pile_vc == 4:  # X5b
            gained = pile_n
            pile_n, pile_v, pile_vc, hitter = 0, -1, 0, -1
    elif (table >> sh) & 1:  # P2
        k = lowest_bit(~(table >> sh) & RUN_STOP) >> 2
        table &= ~(((np.int64(1) << (4 * k)) - 1) << sh)
        table_n -= k
        if laid == v:  # X1, X3
            hit = 1
            pile_n, pile_v, pile_vc, hitter = k + 1, v, 2, p
        else:  # P5
            gained = k + 1
        lc = p
        laid = -1
    else:  # P3
        table |= np.int64(1) << sh
        table_n += 1
        laid = v
    return Board(table, table_n, pile_n, pile_v, pile_vc, hitter, laid, lc), hs, closed, gained, \
        hit, k
