"""Exact round probabilities by enumerating every deal (the oracle for the Monte Carlo).

Only strengths matter to the rules (C2, C4), so a deal is enumerated as the sequence of strength
classes dealt to positions 0 .. n-1, weighted by the probability of drawing it without
replacement; the cut card is enumerated only for deals where the dealer cuts. That turns 40!/(40-n)!
ordered deals into at most classes**n sequences (10**6 for 6 players and a Spanish deck).

The command's Python function is :func:`simcards.ronco.api.exact`
(``simcards.ronco.exact(...)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from simcards.core.errors import UsageError
from simcards.ronco.bayes_exact import policy_table
from simcards.ronco.policies import Policy
from simcards.ronco.round_kernel import ALL_TIE, CUT, CUT_KING_FIRED, act, resolve
from simcards.ronco.rules import RoncoRules, check_players

MAX_LEAVES = 3_000_000_000


@njit(cache=True, inline="always")
def _outcome_code(n, lost, flags):
    """Lives lost by position as base-3 digits, then resolve()'s flags above them."""
    code = 0
    scale = 1
    for i in range(n):
        code += lost[i] * scale
        scale *= 3
    return code + scale * flags


@njit(cache=True)
def _enumerate_piece(n, cls, seats, rules, prefix, dist):
    """Add to ``dist`` the probability of every round outcome (see :func:`_outcome_code`) over
    the deals whose first ``len(prefix)`` positions get the strength classes ``prefix``.

    Deals are visited depth first in class order, and a prefix's weight is built one factor at a
    time as in a single enumeration of every deal, so running the prefixes one after another in
    their order adds the same numbers in the same order: the result is bit-identical to one
    pass over everything, however the work is cut.
    """
    cls_strength = cls.strength
    cls_count = cls.count
    n_cards = cls.n_cards
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
        cut = act(hold, n, seats, u, rules)
        if not cut:
            flags = resolve(hold, n, False, 0, rules, lost)
            dist[_outcome_code(n, lost, flags)] += wt[n]
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
            dist[_outcome_code(n, lost, flags)] += wt[n] * rem[kc] / left


PIECE_LEAVES = 500_000
"""Deal classes per piece of the enumeration, at most: a fraction of a second each, so Ctrl-C
is answered between two pieces and the progress bar moves."""


def _prefixes(n: int, cls_count: np.ndarray) -> tuple[int, list[np.ndarray]]:
    """The pieces of an enumeration of ``n`` positions: every possible sequence of classes for
    the first ``d`` positions, in depth-first order, with ``d`` the smallest depth (below ``n``)
    that keeps a piece under :data:`PIECE_LEAVES` deal classes."""
    n_cls = len(cls_count)
    d = 0
    while d < n - 1 and float(n_cls) ** (n - d) > PIECE_LEAVES:
        d += 1
    out: list[np.ndarray] = []
    rem = [int(c) for c in cls_count]
    seq: list[int] = []

    def walk() -> None:
        if len(seq) == d:
            out.append(np.array(seq, dtype=np.int64))
            return
        for k in range(n_cls):
            if rem[k]:
                rem[k] -= 1
                seq.append(k)
                walk()
                seq.pop()
                rem[k] += 1

    walk()
    return d, out


def _enumerate(n, cls, seats, rules, progress: bool = False):
    """Probability of every round outcome (see :func:`_outcome_code`), enumerated in pieces
    (see :func:`_enumerate_piece`) with progress, answering Ctrl-C between pieces."""
    from simcards.core.progress import Progress

    depth, pieces = _prefixes(n, cls.count)
    per_piece = len(cls.count) ** (n - depth)
    dist = np.zeros(3**n * 8, np.float64)
    with Progress(per_piece * len(pieces), "Ronco exact (deal classes)", progress) as bar:
        for prefix in pieces:
            _enumerate_piece(n, cls, seats, rules, prefix, dist)
            bar.advance(per_piece)
    return dist


@dataclass(frozen=True)
class Outcome:
    """One possible result of a round: lives lost by position, and the round's flags."""

    lost: tuple[int, ...]
    all_tie: bool
    cut: bool
    cut_king: bool


def decode(n: int, code: int) -> Outcome:
    lost = []
    for _ in range(n):
        code, digit = divmod(code, 3)
        lost.append(digit)
    return Outcome(tuple(lost), bool(code & ALL_TIE), bool(code & CUT),
                   bool(code & CUT_KING_FIRED))


@dataclass(frozen=True)
class ExactRound:
    """Exact per-position probabilities of one round."""

    p_lose: np.ndarray
    p_double: np.ndarray
    p_all_tie: float
    p_cut: float
    p_cut_king: float


def round_outcomes(rules: RoncoRules, policies: Sequence[Policy], *,
                   progress: bool = False) -> list[tuple[Outcome, float]]:
    """Every outcome of a round with its exact probability, for deterministic ``policies``
    (one per position); ``progress`` shows a bar (or plain lines) on stderr for long ones."""
    n = check_players(len(policies))
    for pol in policies:
        pol.validate(rules.top)
        if not pol.deterministic:
            raise UsageError(
                f"exact needs deterministic policies; {pol.spec()} draws at random "
                "(use Monte Carlo instead)"
            )
    cls = rules.classes
    leaves = float(len(cls.strength)) ** n
    if leaves > MAX_LEAVES:
        raise UsageError(
            f"exact enumeration of {n} players with deck {rules.deck} is too large "
            f"({leaves:.1e} deal classes); use Monte Carlo instead"
        )
    dist = _enumerate(n, cls, policy_table(rules, policies), rules.kernel, progress)
    return [(decode(n, int(c)), float(dist[c])) for c in np.flatnonzero(dist)]


def exact_round(rules: RoncoRules, policies: Sequence[Policy], *,
                progress: bool = False) -> ExactRound:
    """Exact per-position probabilities of one round."""
    n = len(policies)
    p_lose = np.zeros(n)
    p_double = np.zeros(n)
    tallies = np.zeros(3)
    for out, pr in round_outcomes(rules, policies, progress=progress):
        lost = np.array(out.lost)
        p_lose += pr * (lost > 0)
        p_double += pr * (lost == 2)
        tallies += pr * np.array([out.all_tie, out.cut, out.cut_king])
    return ExactRound(p_lose, p_double, float(tallies[0]), float(tallies[1]), float(tallies[2]))


