"""numba kernels for one Ronco round (rules R1-R10, policies S1-S4).

The round is split in two so that the Monte Carlo loop, the exact enumerator and the game kernel
share one implementation of the rules:

* :func:`act` plays positions 0 .. n-2 and the dealer's decision on an array of strengths;
* :func:`resolve` applies the cut (R6, R7) and finds the losers (R8-R10).

Everything works on card *strengths* (C2, C4), not card identities: nothing in the rules looks at
suits once the Poroli card has strength 0.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from simcards.core.rng_kernel import load, step, store, to_uniform, uniform, word_accepts
from simcards.ronco.codes import BAYES as _BAYES
from simcards.ronco.codes import BAYES_HIST_SPAN
from simcards.ronco.codes import CUT_KING_LOSES as _LOSES
from simcards.ronco.codes import CUT_KING_NONE as _NONE
from simcards.ronco.codes import FLAG_ALL_TIE as ALL_TIE
from simcards.ronco.codes import FLAG_CUT as CUT
from simcards.ronco.codes import FLAG_CUT_KING_FIRED as CUT_KING_FIRED
from simcards.ronco.codes import RANDOM as _RANDOM
from simcards.ronco.codes import THRESHOLD as _THRESHOLD
from simcards.ronco.codes import TIES_ALL as _TIES_ALL
from simcards.ronco.codes import TIES_FIRST as _TIES_FIRST
from simcards.ronco.codes import USER as _USER
from simcards.ronco.kernel_state import Decision
from simcards.ronco.observation_kernel import KEEP, PASS, keeps, observe, situation, user_keeps

_M32 = uint64(0xFFFFFFFF)


@njit(cache=True, inline="always")
def field_keeps(seats, who, dec, rules):
    """A threshold (S1) or informed (S2) decision of row ``who`` of ``seats`` (a position or a
    player), :class:`~simcards.ronco.kernel_state.Decision` ``dec``: True to keep (a dealer:
    not to cut)."""
    c, pos, dealer, swapped, d = dec.card, dec.pos, dec.dealer, dec.swapped, dec.given
    ties, cut_king, below, counts = rules.ties, rules.cut_king, rules.below, rules.counts
    thr = seats.Td[who] if dealer else seats.T[who]
    if seats.kind[who] == _THRESHOLD:
        return c >= thr
    # S2a: the previous position holds, for good, the card dealt to us.
    if swapped and (d < c or (ties == _TIES_FIRST and d == c)):
        return True
    # S2b: no unseen card is lower (d < c was handled above, so every lower card is unseen).
    if below[c] == 0:
        proven = True
        if not dealer and cut_king == _LOSES:
            proven = False
        elif ties == _TIES_FIRST:
            equal_unseen = counts[c] - 1
            if swapped and d == c:
                equal_unseen -= 1
            if dealer:
                proven = equal_unseen == 0
            else:
                proven = equal_unseen == 0 or pos == 0 or (pos == 1 and swapped)
        if proven:
            return False
    return c >= thr


@njit(cache=True, inline="always")
def bayes_key(n, pos, hist, c, d):
    """S4: where a ``bayes`` decision is looked up: the table size, the position, the public
    history of the earlier positions (base 3: keep 0, swap 1, refused 2), the current card and
    the card dealt to him when the previous position swapped with him (else -1)."""
    return (((n * 21 + pos) * BAYES_HIST_SPAN + hist) * 16 + c) * 16 + d + 1


@njit(cache=True, inline="always")
def bayes_keeps(n, pos, hist, c, d, bkeys, bvals):
    """S4: the precomputed decision (binary search in the sorted keys); a state the table
    does not hold (impossible under the declared field) keeps."""
    key = bayes_key(n, pos, hist, c, d)
    lo = 0
    hi = bkeys.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if bkeys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    if lo < bkeys.shape[0] and bkeys[lo] == key:
        return bvals[lo] != 0
    return True


@njit(cache=True, inline="always")
def _keeps(seats, i, u, n, dec, rules, users):
    """One decision of position ``i``: True to keep (a dealer: not to cut). S1, S2, S3, S4 and
    S5 (``users``, a :class:`~simcards.ronco.kernel_state.UserSeats`; None where no seat plays
    a user function: the branch is then compiled out)."""
    kind = seats.kind[i]
    if kind == _USER:
        if users is None:
            return True
        return user_keeps(users, i, n, dec, rules.top)
    if kind == _RANDOM:
        return u < seats.p[i]
    if kind == _BAYES:
        return bayes_keeps(n, dec.pos, dec.hist, dec.card, dec.given if dec.swapped else -1,
                           seats.bkeys, seats.bvals)
    return field_keeps(seats, i, dec, rules)


@njit(cache=True, inline="always")
def act(hold, n, seats, u, rules, users):
    """Play positions 0 .. n-2 in place on ``hold`` (strengths by position); return True when
    the dealer cuts.

    ``seats`` is indexed by position; ``u`` holds one uniform per position for random
    policies; ``users`` the user functions' seats (S5), or None. R2-R5: a pass swaps with the
    next position unless that player holds the top rank (refusal); the passer's card is final
    either way.
    """
    top = rules.top
    swapped = False
    d = -1
    hist = 0
    for i in range(n - 1):
        c = hold[i]
        if _keeps(seats, i, u[i], n, Decision(c, i, False, swapped, d, hist), rules, users):
            swapped = False
            hist = hist * 3
        elif hold[i + 1] == top:  # R4: refused
            swapped = False
            hist = hist * 3 + 2
        else:  # R3: swap; position i now holds, for good, the card dealt to i+1
            hold[i] = hold[i + 1]
            hold[i + 1] = c
            swapped = True
            d = hold[i]
            hist = hist * 3 + 1
    i = n - 1
    return not _keeps(seats, i, u[i], n, Decision(hold[i], i, True, swapped, d, hist), rules,
                      users)


@njit(cache=True, inline="always")
def resolve(hold, n, cut, cut_strength, rules, lost):
    """Apply the dealer's cut and find the losers.

    Writes lives lost by position into ``lost`` (0, 1, or 2 for the Poroli holder, R10) and
    returns flags: ALL_TIE (R9), CUT_KING_FIRED (R7 loses), CUT (the dealer cut).
    """
    top, ties, cut_king = rules.top, rules.ties, rules.cut_king
    flags = 0
    dealer = n - 1
    for i in range(n):
        lost[i] = 0
    if cut:
        flags |= CUT
        if cut_strength == top and cut_king != _NONE:
            if cut_king == _LOSES:  # R7 loses: he takes the card and is the sole loser
                hold[dealer] = cut_strength
                lost[dealer] = 1
                return flags | CUT_KING_FIRED
            # R7 blocked: the top card is not taken
        else:
            hold[dealer] = cut_strength
    low = hold[0]
    high = hold[0]
    for i in range(1, n):
        h = hold[i]
        if h < low:
            low = h
        if h > high:
            high = h
    if low == high:
        flags |= ALL_TIE
    hit = 2 if low == 0 else 1  # strength 0 exists only for the Poroli card (C4, R10)
    if ties == _TIES_ALL:
        for i in range(n):
            if hold[i] == low:
                lost[i] = hit
    else:
        for i in range(n):
            if hold[i] == low:
                lost[i] = hit
                break
    return flags


@njit(cache=True, inline="always")
def play_round(hold, cut_strength, n, seats, u, rules, lost, users):
    """A whole round on given strengths; returns resolve()'s flags."""
    cut = act(hold, n, seats, u, rules, users)
    return resolve(hold, n, cut, cut_strength, rules, lost)


@njit(cache=True, inline="always")
def deal_words(s0, s1, s2, s3, perm, k):
    """R3/T3: a partial Fisher-Yates shuffle; ``perm[:k]`` becomes a uniform random k-sample.

    The generator state is four local words (see :func:`simcards.core.rng_kernel.step`); returns the
    advanced state. ``perm`` is any permutation of the deck and is kept between deals: a partial
    shuffle of a permutation is as good as one of the sorted deck, and it saves a reset per round.

    Stream layout (the deal's part of it): the deal reads 32-bit *words*, two from each 64-bit
    output of the generator, the high half first, then the low half. Card ``j`` (``j = 0 .. k-1``)
    is drawn from the next word ``w`` by Lemire's method with ``m = len(perm) - j``: with
    ``prod = w * m``, the word is accepted when ``prod mod 2**32 >= 2**32 mod m`` and then
    ``r = j + prod // 2**32`` is swapped into place; a rejected word (probability below
    ``m / 2**32``) is dropped and the next word tried. The deal starts on a fresh 64-bit output:
    when it ends on a high half, the unused low half is dropped. So k cards take ``ceil(k / 2)``
    outputs unless a word is rejected.
    """
    m = perm.shape[0]
    have = False
    spare = uint64(0)
    for j in range(k):
        bound = uint64(m - j)
        while True:
            if have:
                w = spare
                have = False
            else:
                s0, s1, s2, s3, x = step(s0, s1, s2, s3)
                w = x >> uint64(32)
                spare = x & _M32
                have = True
            prod = w * bound
            if word_accepts(prod, bound):
                break
        r = j + np.int64(prod >> uint64(32))
        x = perm[j]
        perm[j] = perm[r]
        perm[r] = x
    return s0, s1, s2, s3


@njit(cache=True)
def deal(state, perm, k):
    """:func:`deal_words` on the state array ``state`` (uint64[4]), advanced in place."""
    s0, s1, s2, s3 = load(state)
    s0, s1, s2, s3 = deal_words(s0, s1, s2, s3, perm, k)
    store(state, s0, s1, s2, s3)


@njit(cache=True)
def _threshold_rounds(state, rounds, n, seats, deck, rules, out, users, tabled):
    """:func:`simulate_rounds` when every position plays the threshold policy (S1) or a user's
    function (S5): asked decision by decision (``users``; None when no position does), or read
    from the user seats' table (``tabled``: ``(table, off, err)`` of
    :class:`~simcards.ronco.kernel_state.UserSeats`, else None). Three compilations, so that
    the loop of a table, like the built-in loop, calls no function it cannot see into.

    The same rules as :func:`act` and :func:`resolve`, fused into one pass that never copies
    the deal: the card travelling down the table (``carry``) is the one a passer hands on, and
    each position's final card is fixed as soon as the next position has been dealt. Tallies
    are kept in local scalars and the generator in local words. Consumes the stream exactly as
    the general loop does, so both play the same deals. ``out`` is ``(lost_count,
    double_count, tallies)``, added to. A user position is given what :func:`act` gives it:
    whether the previous position swapped with it, the card it was dealt, and the public
    history (``dd``, ``hist``).
    """
    lost_count, double_count, tallies = out
    kind = seats.kind
    if users is not None:  # read once: a field read in the loop costs a reference count
        fns, slot, obs, legal, cls, c, mark, err, _, _, _, _, _ = users
        f0, f1, f2, f3 = fns  # called by name: see observation_kernel.user_keeps
    if tabled is not None:
        utable, uoff, err = tabled
    track = users is not None or tabled is not None  # what a user position is told
    bad = 0  # the first action of the table that is not legal (position + 1), and the action:
    bad_action = 0  # in locals, for a store to ``err`` in the loop would slow every round
    t = seats.T
    td = seats.Td
    top, ties, cut_king = rules.top, rules.ties, rules.cut_king
    s0, s1, s2, s3 = load(state)
    dealer = n - 1
    tdd = td[dealer]
    final = np.empty(n, np.int64)
    all_tie = 0
    cuts = 0
    fired = 0
    for _ in range(rounds):
        s0, s1, s2, s3 = deal_words(s0, s1, s2, s3, deck, n + 1)
        carry = deck[0]
        low = top + 1
        high = -1
        dd = -1  # what a user position is told (S5): the strength it was dealt, or -1 ...
        hist = 0  # ... and the earlier positions' actions
        for i in range(n - 1):
            nxt = deck[i + 1]
            passes = carry < t[i]
            if tabled is not None and kind[i] == _USER:
                a = utable[situation(uoff, i, hist, dd, carry, top)]
                passes = a == PASS
                if a != KEEP and not passes and bad == 0:  # not legal: kept, and refused
                    bad, bad_action = i + 1, a
            if users is not None and kind[i] == _USER:
                observe(obs, cls, c, mark, i, n, n, carry, False, dd >= 0, dd, hist)
                k = slot[i]
                a = (f0(obs, legal) if k == 0 else f1(obs, legal) if k == 1
                     else f2(obs, legal) if k == 2 else f3(obs, legal))
                passes = not keeps(a, err, i)
            if track:  # without branches: the pass is the user's, hard to predict
                swap = passes and nxt != top  # R3, else a keep or a refusal (R4)
                f = nxt if swap else carry
                carry = carry if swap else nxt
                hist = hist * 3 + (2 if passes else 0) - (1 if swap else 0)
                dd = nxt if swap else -1
            elif passes and nxt != top:  # R3: a pass; i takes i+1's card for good
                f = nxt
            else:  # a keep, or a refusal (R4): i keeps, i+1 holds his own card
                f = carry
                carry = nxt
            final[i] = f
            low = min(low, f)
            high = max(high, f)
        dealer_cuts = carry < tdd
        if tabled is not None and kind[dealer] == _USER:
            a = utable[situation(uoff, dealer, hist, dd, carry, top)]
            dealer_cuts = a == PASS
            if a != KEEP and not dealer_cuts and bad == 0:
                bad, bad_action = dealer + 1, a
        if users is not None and kind[dealer] == _USER:
            observe(obs, cls, c, mark, dealer, n, n, carry, True, dd >= 0, dd, hist)
            k = slot[dealer]
            a = (f0(obs, legal) if k == 0 else f1(obs, legal) if k == 1
                 else f2(obs, legal) if k == 2 else f3(obs, legal))
            dealer_cuts = not keeps(a, err, dealer)
        if dealer_cuts:  # the dealer cuts (R6)
            cuts += 1
            cut_card = deck[n]
            if cut_card != top or cut_king == _NONE:
                carry = cut_card
            elif cut_king == _LOSES:  # R7: the sole loser
                lost_count[dealer] += 1
                fired += 1
                continue
            # R7 blocked: the top card is not taken
        final[dealer] = carry
        low = min(low, carry)
        high = max(high, carry)
        if low == high:
            all_tie += 1
        if ties == _TIES_ALL:
            for i in range(n):
                lost_count[i] += final[i] == low
            if low == 0:  # R10: the Poroli card costs its holder two lives
                for i in range(n):
                    double_count[i] += final[i] == 0
        else:
            for i in range(n):
                if final[i] == low:
                    lost_count[i] += 1
                    if low == 0:
                        double_count[i] += 1
                    break
    store(state, s0, s1, s2, s3)
    tallies[0] += all_tie
    tallies[1] += cuts
    tallies[2] += fired
    if tabled is not None and bad and err[0] == 0:
        err[0] = bad
        err[1] = bad_action


@njit(cache=True)
def _general_rounds(state, rounds, n, seats, deck, rules, out, users):
    """:func:`simulate_rounds` for any mix of policies, through :func:`play_round`; ``out`` as
    in :func:`_threshold_rounds`."""
    lost_count, double_count, tallies = out
    kind = seats.kind
    s0, s1, s2, s3 = load(state)
    hold = np.empty(n, np.int64)
    u = np.zeros(n, np.float64)
    lost = np.empty(n, np.int64)
    any_random = False
    for i in range(n):
        if kind[i] == _RANDOM:
            any_random = True
    all_tie = 0
    cuts = 0
    fired = 0
    for _ in range(rounds):
        s0, s1, s2, s3 = deal_words(s0, s1, s2, s3, deck, n + 1)
        for i in range(n):
            hold[i] = deck[i]
        if any_random:
            for i in range(n):
                if kind[i] == _RANDOM:
                    s0, s1, s2, s3, x = step(s0, s1, s2, s3)
                    u[i] = to_uniform(x)
        flags = play_round(hold, deck[n], n, seats, u, rules, lost, users)
        for i in range(n):  # branch-free tallies: this loop runs for every round
            lost_count[i] += lost[i] > 0
            double_count[i] += lost[i] == 2
        all_tie += (flags & ALL_TIE) != 0
        cuts += (flags & CUT) != 0
        fired += (flags & CUT_KING_FIRED) != 0
    store(state, s0, s1, s2, s3)
    tallies[0] += all_tie
    tallies[1] += cuts
    tallies[2] += fired


@njit(cache=True)
def simulate_rounds(state, rounds, n, seats, rules, users):
    """Monte Carlo: ``rounds`` deals from the stream ``state``, ``seats`` by position.

    Returns ``(lost_count, double_count, tallies)``: rounds lost and double losses by position,
    and ``tallies = [all_tie, cut, cut_king_fired]``.

    Stream layout, per round: one deal of n+1 cards by :func:`deal_words` (positions 0..n-1,
    then the cut card; 32-bit words, two per 64-bit output, the deal starting on a fresh
    output), then, for each random-policy position in position order, one uniform from the
    next 64-bit output (:func:`simcards.core.rng_kernel.uniform`). The deck carried from round
    to round is ``rules.strengths`` permuted by the previous deals (see :func:`deal_words`);
    :func:`record_deals` records exactly these deals. ``users`` seats the user functions
    (S5; a user function draws nothing from the stream).
    """
    # Shuffling the strengths themselves (rather than card indices) saves a lookup per card
    # and deals exactly what shuffling card indices would, draw for draw.
    deck = rules.strengths.copy()
    out = (np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(3, np.int64))
    fused = True
    for i in range(n):
        if seats.kind[i] != _THRESHOLD and seats.kind[i] != _USER:
            fused = False
    if fused:
        if users is None:
            _threshold_rounds(state, rounds, n, seats, deck, rules, out, None, None)
        elif users.table.shape[0] > 0:
            _threshold_rounds(state, rounds, n, seats, deck, rules, out, None,
                              (users.table, users.off, users.err))
        else:
            _threshold_rounds(state, rounds, n, seats, deck, rules, out, users, None)
    else:
        _general_rounds(state, rounds, n, seats, deck, rules, out, users)
    return out


@njit(cache=True)
def record_deals(state, rounds, n, kind, n_cards, skip=0):
    """The deals :func:`simulate_rounds` would play from ``state``, as card indices, after the
    first ``skip`` (drawn and not kept: the deck a round is dealt from is the one the rounds
    before it left, so a later stretch of a chunk is found only by drawing what comes before).

    Returns ``cards`` (rounds x (n+1): positions, then the cut card) and ``u`` (rounds x n), so
    that an independent engine can replay exactly the same deals. The stream is read as
    :func:`simulate_rounds` documents: per round one :func:`deal` of n+1 cards, then one
    :func:`simcards.core.rng_kernel.uniform` per random-policy position, in position order.
    """
    perm = np.arange(n_cards)
    cards = np.empty((rounds, n + 1), np.int64)
    us = np.zeros((rounds, n), np.float64)
    for r in range(-skip, rounds):
        deal(state, perm, n + 1)
        if r >= 0:
            for j in range(n + 1):
                cards[r, j] = perm[j]
        for i in range(n):
            if kind[i] == _RANDOM:
                u = uniform(state)
                if r >= 0:
                    us[r, i] = u
    return cards, us


@njit(cache=True)
def replay_rounds(cards, us, n, seats, rules):
    """Play given deals; returns lives lost (rounds x n), flags and final strengths."""
    rounds = cards.shape[0]
    lost_all = np.zeros((rounds, n), np.int64)
    flags = np.zeros(rounds, np.int64)
    finals = np.zeros((rounds, n), np.int64)
    hold = np.empty(n, np.int64)
    lost = np.empty(n, np.int64)
    strengths = rules.strengths
    for r in range(rounds):
        for i in range(n):
            hold[i] = strengths[cards[r, i]]
        flags[r] = play_round(hold, strengths[cards[r, n]], n, seats, us[r], rules, lost, None)
        for i in range(n):
            lost_all[r, i] = lost[i]
            finals[r, i] = hold[i]
    return lost_all, flags, finals


# ---------------------------------------------------------------- every deal (rounds_exact.py)


@njit(cache=True, inline="always")
def outcome_code(n, lost, flags):
    """A round's outcome as one number: lives lost by position as base-3 digits, then
    :func:`resolve`'s flags above them."""
    code = 0
    scale = 1
    for i in range(n):
        code += lost[i] * scale
        scale *= 3
    return code + scale * flags


@njit(cache=True)
def enumerate_piece(n, cls, seats, rules, prefix, dist):
    """Add to ``dist`` the probability of every round outcome (see :func:`outcome_code`) over
    the deals whose first ``len(prefix)`` positions get the strength classes ``prefix``.

    Deals are visited depth first in class order, and a prefix's weight is built one factor at a
    time as in a single enumeration of every deal, so running the prefixes one after another in
    their order adds the same numbers in the same order: the result is bit-identical to one
    pass over everything, however the work is cut.
    """
    cls_strength, cls_count, n_cards = cls.strength, cls.count, cls.n_cards
    n_cls = cls_strength.shape[0]
    d = prefix.shape[0]
    rem = cls_count.copy()
    idx = np.full(n, -1, np.int64)
    wt = np.empty(n + 1, np.float64)
    wt[0] = 1.0
    base = np.empty(n, np.int64)
    hold = np.empty(n, np.int64)
    after = np.empty(n, np.int64)
    lost = np.empty(n, np.int64)
    u = np.full(n, 0.5)
    for level in range(d):
        k = prefix[level]
        if rem[k] == 0:
            return
        idx[level] = k
        wt[level + 1] = wt[level] * rem[k] / (n_cards - level)
        rem[k] -= 1
        base[level] = cls_strength[k]
    level = d
    while level >= d:
        if idx[level] >= 0:
            rem[idx[level]] += 1
        k = idx[level] + 1
        while k < n_cls and rem[k] == 0:
            k += 1
        if k == n_cls:
            idx[level] = -1
            level -= 1
            continue
        idx[level] = k
        wt[level + 1] = wt[level] * rem[k] / (n_cards - level)
        rem[k] -= 1
        base[level] = cls_strength[k]
        if level < n - 1:
            level += 1
            continue
        for i in range(n):
            hold[i] = base[i]
        cut = act(hold, n, seats, u, rules, None)
        if not cut:
            flags = resolve(hold, n, False, 0, rules, lost)
            dist[outcome_code(n, lost, flags)] += wt[n]
            continue
        for i in range(n):
            after[i] = hold[i]
        left = n_cards - n
        for kc in range(n_cls):
            if rem[kc] == 0:
                continue
            for i in range(n):
                hold[i] = after[i]
            flags = resolve(hold, n, True, cls_strength[kc], rules, lost)
            dist[outcome_code(n, lost, flags)] += wt[n] * rem[kc] / left
