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

from simcards.core.errors import UsageError
from simcards.ronco.bayes_exact import policy_table
from simcards.ronco.policies import Policy
from simcards.ronco.round_kernel import ALL_TIE, CUT, CUT_KING_FIRED, enumerate_piece
from simcards.ronco.rules import RoncoRules, check_players

MAX_LEAVES = 3_000_000_000
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
    """Probability of every round outcome (see
    :func:`~simcards.ronco.round_kernel.outcome_code`), enumerated in pieces (see
    :func:`~simcards.ronco.round_kernel.enumerate_piece`) with progress, answering Ctrl-C
    between pieces."""
    from simcards.core.progress import Progress

    depth, pieces = _prefixes(n, cls.count)
    per_piece = len(cls.count) ** (n - depth)
    dist = np.zeros(3**n * 8, np.float64)
    with Progress(per_piece * len(pieces), "Ronco exact (deal classes)", progress) as bar:
        for prefix in pieces:
            enumerate_piece(n, cls, seats, rules, prefix, dist)
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


