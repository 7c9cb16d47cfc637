"""numba kernels that play whole Ronda matches (rules S2, S4, S5, C1-C3 and D3 of
``seeds/ronda.md``) and the duplicate comparison of two policies.

A match is a sequence of hands (each played by :func:`simcards.ronda.play_kernel.play_hand`, the
hand loops' own, with S5's check points when they apply) whose dealer moves on by one seat after
each hand (D3). In points mode the scores carry over (S2) and the target ``rules.target`` is checked
after the S1 count of each hand (S4, ``target_check=end_of_hand``) or at every check point (S5,
``immediate``: after each deal's announcements, after each play, after the end of the hand); a side
wins when it has reached the target and holds the highest total alone, and a tie at the top plays
on. In classic mode the side with strictly most captured cards wins the hand (C2) and the first side
to win ``hands_to_win`` hands wins the match (C3). A match still undecided after ``max_hands`` hands
is stopped and counted as unfinished.

Stream layouts
--------------

:func:`simulate_matches`, per match, from the chunk's xoshiro256** state, in this order:

1. when ``dealer < 0``: the first dealer, ``randbelow(players)`` (D3); otherwise none;
2. for each hand of the match, in order, exactly the per-hand layout of ``kernel._draw_hand``
   with the hand's dealer given (so no dealer draw): the Fisher-Yates shuffle of the deck array
   (kept from hand to hand and from match to match, starting as 0..39), one ``uniform`` per play
   of a ``random`` seat, one 64-bit seed per searching seat. A hand that the S5 check ends early
   has drawn its whole layout all the same.

:func:`simulate_duplicate`, per deal set, from the chunk's state, in this order:

1. when ``dealer < 0``: the first dealer, ``randbelow(players)``; otherwise none;
2. one 64-bit word, the seed of the set's *deck stream*;
3. ``players`` 64-bit words, the seeds of the set's *role streams*, role 0 .. players-1.

Every play of the set starts a fresh deck stream from its seed (``seed_state``), a fresh deck
array 0..39 and fresh role streams from theirs, and plays the match with the same dealer
sequence. Per hand, the deck stream gives the shuffle only (the same Fisher-Yates pass), so hand
i of every play of the set is dealt from the same deck. A seat's *role* is its offset from A's
first seat in that play, ``(seat - r) % players`` for play r: the uniforms of a ``random`` seat
(one per play it makes, drawn in play order right after the shuffle) and the per-hand seed of a
searching seat (one word per hand, after the uniforms, in seat order) come from its role's
stream. A role always holds the same policy (role 0 is A; with two sides, the even roles are
A's), so each seat's random stream follows its policy and its position relative to A, not the
seat number; and since every seat makes the same number of plays in a hand (D4), the role
streams stay aligned from play to play of a set.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.rng_kernel import next_u64, randbelow, seed_state, uniform
from simcards.ronda.codes import (
    MODE_POINTS,
    N_SOURCES,
    POLICY_LOOKAHEAD,
    POLICY_RANDOM,
    TARGET_CHECK_IMMEDIATE,
)
from simcards.ronda.hand_kernel import N_CARDS, S_SCORE, hand_violations, side_of
from simcards.ronda.ismcts_kernel import tree_capacity
from simcards.ronda.kernel_state import MatchChance, MatchRecords, MatchTally, Seats
from simcards.ronda.play_kernel import _draw_hand, new_play_work, play_hand, target_leader

__all__ = [
    "duplicate_plays",
    "record_duplicate",
    "record_matches",
    "simulate_duplicate",
    "simulate_matches",
    "target_leader",
]

# Fields of a match's result row (``out`` of :func:`_play_match`).
O_WINNER = 0  # winning side, -1 when unfinished
O_HANDS = 1  # hands started (a hand the S5 check ends early counts)
O_FINISHED = 2  # hands played to their end (finish_hand ran)
O_BAD = 3  # finished hands failing hand_violations
O_LAST_PLAYS = 4  # plays made in the last hand
O_FIRST_SIDE = 5  # side of the first player of the first hand
O_SIZE = 6


# ---------------------------------------------------------------- the chance of a duplicate hand


@njit(cache=True)
def _draw_duplicate_hand(chance, dealer, seats, rules, draw):
    """The per-hand layout of a duplicate play (module docstring): the shuffle from the deck
    stream, then the uniforms and seeds from the role streams (role of seat p: ``(p -
    offset) % players``)."""
    dst, rst, off = chance.deck_stream, chance.role_streams, chance.offset
    n = rules.players
    kinds = seats.kinds
    deck = draw.deck
    for j in range(N_CARDS - 1):
        r = j + randbelow(dst, N_CARDS - j)
        x = deck[j]
        deck[j] = deck[r]
        deck[r] = x
    for k in range(rules.plays):
        p = (dealer + 1 + k) % n
        if kinds[p] == POLICY_RANDOM:
            draw.us[k] = uniform(rst[(p - off + n) % n])
        else:
            draw.us[k] = 0.0
    for p in range(n):
        if kinds[p] >= POLICY_LOOKAHEAD:
            draw.seeds[p] = next_u64(rst[(p - off + n) % n])
        else:
            draw.seeds[p] = 0


# ---------------------------------------------------------------- one match


@njit(cache=True)
def _play_match(chance, seats, rules, work, max_hands, tally, rec, j, users):
    """Play one match from ``chance.first_dealer`` (D3). Hands draw their chance from
    ``chance.state`` by ``play_kernel._draw_hand`` or, when ``chance.duplicate``, from its deck
    and role streams (:func:`_draw_duplicate_hand`), into ``work.draw``.

    ``tally`` gets what the match adds up (:class:`~simcards.ronda.kernel_state.MatchTally`).
    When ``rec.on``, hand h's deck, dealer, uniforms, seeds and the scores after it are written
    to row ``[j, h]`` of the records.

    ``users`` seats players' own functions (Q11, a
    :class:`~simcards.ronda.kernel_state.UserSeats`, or None): before each hand the match's
    carried scores and hands won are written into ``users.match``, which the hand's observation
    writers show as ``ronda_match_v0`` does; the match stops after a hand in which a function
    played a card it did not hold.
    """
    ws = work.hand
    st, capn, pts = ws.st, ws.capn, ws.pts
    scores = tally.scores
    won = tally.won
    n = rules.players
    ns = rules.sides
    classic = rules.mode != MODE_POINTS
    check = (not classic) and rules.target_check == TARGET_CHECK_IMMEDIATE
    target = rules.target
    to_win = rules.hands_to_win
    first_dealer = chance.first_dealer
    draw = work.draw
    stake = work.search.tree.stake  # Q10: what an ismcts-match seat knows of the match
    tot = np.zeros(ns, np.int64)
    events = np.zeros((ns, 3), np.int64)  # the hands' Derbas, re-hits, Missas: not kept here
    for t in range(ns):
        scores[t] = 0
        tally.cards[t] = 0
        won[t] = 0
    winner = -1
    hands = 0
    finished = 0
    bad = 0
    last_plays = 0
    d = first_dealer
    while hands < max_hands:
        if chance.duplicate:
            _draw_duplicate_hand(chance, d, seats, rules, draw)
        else:
            _draw_hand(chance.state, d, seats, rules, draw)
        if rec.on:
            rec.decks[j, hands] = draw.deck
            rec.dealers[j, hands] = d
            rec.us[j, hands] = draw.us
            rec.seeds[j, hands] = draw.seeds
        for t in range(ns):
            stake[t] = won[t] if classic else scores[t]
        stake[ns] = 1
        if users is not None:
            for t in range(ns):
                users.match[0, t] = scores[t]
                users.match[1, t] = won[t]
        w, last_plays, _, _ = play_hand(d, seats, rules, work, events, scores, tot, check,
                                          users)
        hands += 1
        for t in range(ns):
            scores[t] += st[S_SCORE + t]
            tally.cards[t] += capn[t]
            for src in range(N_SOURCES):
                tally.points[t, src] += pts[t, src]
        if rec.on:
            rec.hand_scores[j, hands - 1] = scores
        if w >= 0:  # S5: a check point inside the hand ended the match
            winner = w
            break
        if users is not None and users.err[0] != 0:  # the chunk is refused (Q11)
            break
        finished += 1
        if hand_violations(rules, ws):
            bad += 1
        # C2: strictly more captured cards than every other side (any mode, for the record).
        best = capn[0]
        best_t = 0
        n_best = 1
        for t in range(1, ns):
            if capn[t] > best:
                best = capn[t]
                best_t = t
                n_best = 1
            elif capn[t] == best:
                n_best += 1
        if n_best == 1:
            tally.hand_wins[best_t] += 1
        if classic:
            if n_best == 1:
                won[best_t] += 1
                if won[best_t] >= to_win:  # C3
                    winner = best_t
                    break
        else:
            w = target_leader(scores, ns, target)  # S4 (and S5's end-of-hand check point)
            if w >= 0:
                winner = w
                break
        d = (d + 1) % n  # D3: the deal passes to the first player of the hand just played
    out = tally.out
    out[O_WINNER] = winner
    out[O_HANDS] = hands
    out[O_FINISHED] = finished
    out[O_BAD] = bad
    out[O_LAST_PLAYS] = last_plays
    out[O_FIRST_SIDE] = side_of((first_dealer + 1) % n, rules.teams)
    if rec.on:
        rec.first[j] = first_dealer
        rec.out[j] = out
        rec.scores[j] = scores
        rec.cards[j] = tally.cards


# ---------------------------------------------------------------- Monte Carlo of matches


@njit(cache=True)
def _match_records(rules, rows, max_hands):
    """:class:`~simcards.ronda.kernel_state.MatchRecords` for ``rows`` matches of at most
    ``max_hands`` hands, kept; with ``rows < 0``, one-row scratch that is never written."""
    n = rules.players
    ns = rules.sides
    on = rows >= 0
    r = rows if on else 1
    h = max_hands if on else 1
    return MatchRecords(on, np.zeros(r, np.int64), np.zeros((r, O_SIZE), np.int64),
                        np.zeros((r, ns), np.int64), np.zeros((r, ns), np.int64),
                        np.zeros((r, h, N_CARDS), np.int64), np.zeros((r, h), np.int64),
                        np.zeros((r, h, N_CARDS), np.float64), np.zeros((r, h, n), np.uint64),
                        np.zeros((r, h, ns), np.int64))


@njit(cache=True)
def _new_tally(rules):
    ns = rules.sides
    return MatchTally(np.zeros(ns, np.int64), np.zeros(ns, np.int64),
                      np.zeros((ns, N_SOURCES), np.int64), np.zeros(ns, np.int64),
                      np.zeros(ns, np.int64), np.zeros(O_SIZE, np.int64))


@njit(cache=True)
def _run_matches(state, n_matches, dealer, seats, rules, max_hands, rec, users):
    """The Monte Carlo loop of :func:`simulate_matches`; with ``rec.on`` it also keeps every
    match's first dealer, result row, final scores and per-hand draws (:func:`record_matches`),
    so that both play exactly the same matches. ``users``: :func:`_play_match`'s; the loop
    stops after a match in which a function played a card it did not hold."""
    n = rules.players
    ns = rules.sides
    work = new_play_work(rules, np.int64(0), tree_capacity(seats, seats))
    tally = _new_tally(rules)
    dst = np.zeros(4, np.uint64)
    rst = np.zeros((n, 4), np.uint64)
    out = tally.out
    matches = np.zeros(1, np.int64)
    wins = np.zeros(ns, np.int64)
    first_wins = np.zeros(1, np.int64)
    hands = np.zeros(1, np.int64)
    hands_sq = np.zeros(1, np.int64)
    hist = np.zeros(max_hands + 1, np.int64)
    unfinished = np.zeros(1, np.int64)
    score = np.zeros(ns, np.int64)
    score_sq = np.zeros(ns, np.int64)
    cards = np.zeros(ns, np.int64)
    hand_count = np.zeros(1, np.int64)
    violations = np.zeros(1, np.int64)
    for m in range(n_matches):
        first = dealer
        if first < 0:
            first = randbelow(state, n)
        # Typed values, not literals: the match and duplicate paths share one compiled
        # _play_match instead of one specialisation each.
        chance = MatchChance(state, dst, rst, np.int64(0), np.bool_(False), first)
        _play_match(chance, seats, rules, work, max_hands, tally, rec, m if rec.on else 0,
                    users)
        if users is not None and users.err[0] != 0:
            break
        matches[0] += 1
        w = out[O_WINNER]
        if w >= 0:
            wins[w] += 1
            if w == out[O_FIRST_SIDE]:
                first_wins[0] += 1
        else:
            unfinished[0] += 1
        h = out[O_HANDS]
        hands[0] += h
        hands_sq[0] += h * h
        hist[h] += 1
        for t in range(ns):
            score[t] += tally.scores[t]
            score_sq[t] += tally.scores[t] * tally.scores[t]
            cards[t] += tally.cards[t]
        hand_count[0] += out[O_FINISHED]
        violations[0] += out[O_BAD]
    return (matches, wins, first_wins, hands, hands_sq, hist, unfinished, score, score_sq,
            tally.points, cards, hand_count, tally.hand_wins, violations)


def simulate_matches(state, n_matches, dealer, seats, rules, max_hands, users=None):
    """Monte Carlo: ``n_matches`` independent matches from the stream ``state`` (layout in the
    module docstring). ``dealer`` is the first dealer of every match, or -1 to draw it (D3);
    ``seats`` the policies (``policies.policy_arrays``, Q6); a match still undecided after
    ``max_hands`` hands is stopped and counted as unfinished; ``users`` seats players' own
    functions (Q11, a :class:`~simcards.ronda.kernel_state.UserSeats`, or None). Returns the
    statistics of :data:`~simcards.ronda.matches_batch.MATCH_STAT_NAMES`, in that order.

    Plain Python, not compiled (as ``play_kernel.replay``): a compiled layer over the loop
    would optimise all of the loop's code once more on a cold cache."""
    return _run_matches(state, n_matches, dealer, seats, rules, max_hands,
                        _match_records(rules, np.int64(-1), max_hands), users)


def record_matches(state, n_matches, dealer, seats, rules, max_hands, users=None):
    """The matches :func:`simulate_matches` plays from ``state``, with what each hand drew.

    Returns ``(stats, first_dealers, results, scores, decks, dealers, us, seeds,
    hand_scores)``: ``stats`` exactly as :func:`simulate_matches` returns them;
    ``first_dealers[m]``; ``results[m]`` = (winning side or -1, hands started, hands finished,
    hands failing the invariants, plays made in the last hand, side of the first player);
    ``scores[m, side]`` the final scores; and for hand h of match m (h below its number of
    hands) ``decks[m, h]`` (top first), ``dealers[m, h]``, ``us[m, h, k]`` (the uniform of play
    k), ``seeds[m, h, p]`` and ``hand_scores[m, h, side]`` (the match scores after the hand, or
    where an S5 check point stopped it). ``users`` as in :func:`simulate_matches`. Plain
    Python, as :func:`simulate_matches`.
    """
    rec = _match_records(rules, np.int64(n_matches), max_hands)
    stats = _run_matches(state, n_matches, dealer, seats, rules, max_hands, rec, users)
    return (stats, rec.first, rec.out, rec.scores, rec.decks, rec.dealers, rec.us, rec.seeds,
            rec.hand_scores)


# ---------------------------------------------------------------- duplicate comparison


@njit(cache=True)
def duplicate_plays(rules):
    """``(P, m)``: plays per deal set and B's sides per play. With two sides (2 players, or 4
    in teams) A and B swap sides (P = 2, m = 1); with 3 or 4 players alone A takes each seat in
    turn and B every other seat (P = players, m = players - 1)."""
    n = rules.players
    if rules.sides == 2:
        return 2, 1
    return n, n - 1


@njit(cache=True, inline="always")
def _a_role(role, two_sides):
    """Whether a role (offset from A's first seat) belongs to A: role 0, and with two sides
    every even role (A's partner sits opposite, D2)."""
    if two_sides:
        return role % 2 == 0
    return role == 0


@njit(cache=True)
def _run_duplicate(state, n_deals, dealer, seats_a, seats_b, rules, max_hands, rec, users,
                   user_ab):
    """The loop of :func:`simulate_duplicate`; with ``rec.on`` it also keeps what every play
    of every set drew and gave (:func:`record_duplicate`). With ``users`` (Q11), each play
    seats A's function slot ``user_ab[0]`` and B's ``user_ab[1]`` (-1: a built-in) as it
    seats their kinds; the loop stops after a play in which a function played a card it did
    not hold."""
    n, ns, teams = rules.players, rules.sides, rules.teams
    two_sides = ns == 2
    n_plays, m = duplicate_plays(rules)
    work = new_play_work(rules, np.int64(0), tree_capacity(seats_a, seats_b))
    deck = work.draw.deck
    tally = _new_tally(rules)
    scores, mcards, out = tally.scores, tally.cards, tally.out
    dst = np.zeros(4, np.uint64)
    rst = np.zeros((n, 4), np.uint64)
    role_seeds = np.zeros(n, np.uint64)
    seats = Seats(np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.float64))
    s_sets = np.zeros(1, np.int64)
    s_plays = np.zeros(1, np.int64)
    s_bseats = np.zeros(1, np.int64)
    s_unfinished = np.zeros(1, np.int64)
    s_awins = np.zeros(1, np.int64)
    s_bwins = np.zeros(1, np.int64)
    s_wd = np.zeros(1, np.int64)
    s_wd2 = np.zeros(1, np.int64)
    s_hands = np.zeros(1, np.int64)
    s_h = np.zeros(1, np.int64)
    s_h2 = np.zeros(1, np.int64)
    s_apts = np.zeros(1, np.int64)
    s_bpts = np.zeros(1, np.int64)
    s_x = np.zeros(1, np.int64)
    s_x2 = np.zeros(1, np.int64)
    s_xh = np.zeros(1, np.int64)
    s_acards = np.zeros(1, np.int64)
    s_bcards = np.zeros(1, np.int64)
    s_y = np.zeros(1, np.int64)
    s_y2 = np.zeros(1, np.int64)
    s_yh = np.zeros(1, np.int64)
    s_hand_count = np.zeros(1, np.int64)
    s_viol = np.zeros(1, np.int64)
    for i in range(n_deals):
        first = dealer
        if first < 0:
            first = randbelow(state, n)
        deck_seed = next_u64(state)
        for j in range(n):
            role_seeds[j] = next_u64(state)
        wa = 0
        wb = 0
        pa = 0
        pb = 0
        ca = 0
        cb = 0
        hh = 0
        for r in range(n_plays):
            for p in range(n):
                a = _a_role((p - r + n) % n, two_sides)
                seats.kinds[p] = seats_a.kinds[0] if a else seats_b.kinds[0]
                seats.params[p] = seats_a.params[0] if a else seats_b.params[0]
                seats.explore[p] = seats_a.explore[0] if a else seats_b.explore[0]
                if users is not None:
                    users.slot[p] = user_ab[0] if a else user_ab[1]
            seed_state(dst, deck_seed)
            for j in range(n):
                seed_state(rst[j], role_seeds[j])
            for c in range(N_CARDS):
                deck[c] = c
            chance = MatchChance(state, dst, rst, np.int64(r), np.bool_(True), first)
            _play_match(chance, seats, rules, work, max_hands, tally, rec,
                        i * n_plays + r if rec.on else 0, users)
            if users is not None and users.err[0] != 0:
                break
            a_side = side_of(r, teams)  # A's first seat is seat r
            w = out[O_WINNER]
            if w < 0:
                s_unfinished[0] += 1
            elif w == a_side:
                wa += 1
            else:
                wb += 1
            for t in range(ns):
                if t == a_side:
                    pa += scores[t]
                    ca += mcards[t]
                else:
                    pb += scores[t]
                    cb += mcards[t]
            hh += out[O_HANDS]
            s_hand_count[0] += out[O_FINISHED]
            s_viol[0] += out[O_BAD]
        if users is not None and users.err[0] != 0:
            break
        d = m * wa - wb
        big_h = m * hh
        x = m * pa - pb
        y = m * ca - cb
        s_sets[0] += 1
        s_plays[0] += n_plays
        s_bseats[0] += n_plays * m
        s_awins[0] += wa
        s_bwins[0] += wb
        s_wd[0] += d
        s_wd2[0] += d * d
        s_hands[0] += hh
        s_h[0] += big_h
        s_h2[0] += big_h * big_h
        s_apts[0] += pa
        s_bpts[0] += pb
        s_x[0] += x
        s_x2[0] += x * x
        s_xh[0] += x * big_h
        s_acards[0] += ca
        s_bcards[0] += cb
        s_y[0] += y
        s_y2[0] += y * y
        s_yh[0] += y * big_h
    return (s_sets, s_plays, s_bseats, s_unfinished, s_awins, s_bwins, s_wd, s_wd2, s_hands,
            s_h, s_h2, s_apts, s_bpts, s_x, s_x2, s_xh, s_acards, s_bcards, s_y, s_y2, s_yh,
            s_hand_count, s_viol)


def simulate_duplicate(state, n_deals, dealer, seats_a, seats_b, rules, max_hands, users=None,
                       user_ab=None):
    """Duplicate comparison of policy A against policy B over ``n_deals`` deal sets.

    ``seats_a`` and ``seats_b`` are one-seat policies (``policies.policy_arrays([spec])``).
    Each deal set is one match played P times on the same sequence of decks and dealers
    (module docstring): with two sides, once with A on side 0's seats and B on side 1's and
    once swapped; with 3 or 4 players alone, once with A in seat r and B in every other seat,
    for r = 0 .. players-1. Luck of the deal then falls alike on both policies and cancels from
    the paired differences. ``users`` seats players' own functions (Q11, a
    :class:`~simcards.ronda.kernel_state.UserSeats` whose slots the plays rewrite) and
    ``user_ab`` A's and B's slots in its functions (-1 for a built-in); None without one.
    Returns the statistics of :data:`~simcards.ronda.compare_batch.DUPLICATE_STAT_NAMES`, in
    that order. Plain Python, as :func:`simulate_matches`."""
    if user_ab is None:
        user_ab = np.full(2, -1, np.int64)
    return _run_duplicate(state, n_deals, dealer, seats_a, seats_b, rules, max_hands,
                          _match_records(rules, np.int64(-1), max_hands), users, user_ab)


def record_duplicate(state, n_deals, dealer, seats_a, seats_b, rules, max_hands):
    """The plays :func:`simulate_duplicate` makes from ``state``, with what each hand drew.

    Returns ``(stats, first_dealers, results, scores, cards, decks, dealers, us, seeds,
    hand_scores)``, indexed by play ``i * P + r`` (set i, play r; P from
    :func:`duplicate_plays`) and, for the per-hand arrays, by hand, as in
    :func:`record_matches`; ``cards[play, side]`` are the cards captured over the match.
    Plain Python, as :func:`simulate_duplicate`.
    """
    n_plays, _ = duplicate_plays(rules)
    rec = _match_records(rules, np.int64(n_deals * n_plays), max_hands)
    stats = _run_duplicate(state, n_deals, dealer, seats_a, seats_b, rules, max_hands, rec,
                           None, np.full(2, -1, np.int64))
    return (stats, rec.first, rec.out, rec.scores, rec.cards, rec.decks, rec.dealers, rec.us,
            rec.seeds, rec.hand_scores)
