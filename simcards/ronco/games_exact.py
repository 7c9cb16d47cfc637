"""Exact Ronco game values for small tables: a Markov chain over (lives, dealer).

Each round's exact outcome distribution over every set of losers (with Poroli's double losses and
the absolute tie) comes from :func:`simcards.ronco.rounds_exact.round_outcomes`; the game is then a
Markov chain on states (lives of every player, dealer). It is solved without recursion, as an
explicit sparse transition table over the states reachable from the start, through which the
start's probability is pushed round by round. Total lives strictly fall every counted round, so
the probability moves down through the levels of total lives and is all absorbed (a win or a
draw) within ``players * lives`` counted rounds: any table :data:`MAX_STATES` admits is solved,
2 players with 250 lives as well as 4 with 3. A replayed round (G6 ``replay``) is a self-loop:
for the winner it is folded in by conditioning on the round not being an absolute tie, and for
the game length it stays in the table, as the extra rounds it costs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy import sparse

from simcards.core.errors import UsageError
from simcards.ronco.games_batch import QUANTILES, check_first_dealer, check_lives
from simcards.ronco.policies import Policy
from simcards.ronco.rounds_exact import round_outcomes
from simcards.ronco.rules import RoncoRules, check_players

MAX_STATES = 250_000

TINY = 1e-200
"""State probabilities below this are dropped as the chain runs (see :func:`_flush`)."""


@dataclass(frozen=True)
class ExactGame:
    """Exact game results: win probability by player, draws, and the game length."""

    win: np.ndarray
    draw: float
    rounds_mean: float
    rounds_dist: np.ndarray
    """P(the game lasts r rounds), r = 0 .. len-1 (truncated for endless replays)."""

    def rounds_quantiles(self) -> dict[str, int]:
        cdf = np.cumsum(self.rounds_dist)
        return {f"{q}%": int(np.searchsorted(cdf, q / 100 - 1e-12)) for q in QUANTILES}

    def to_dict(self) -> dict[str, object]:
        return {
            "win_rate": self.win.tolist(),
            "draw_rate": self.draw,
            "rounds_mean": self.rounds_mean,
            "rounds_quantiles": self.rounds_quantiles(),
        }


def exact_game(rules: RoncoRules, policies: Sequence[Policy], lives: int,
               first_dealer: int | None = None) -> ExactGame:
    """Solve the game for deterministic ``policies`` (by player)."""
    n = check_players(len(policies))
    check_lives(lives)
    check_first_dealer(first_dealer, n)
    states = (lives + 1) ** n * n
    if states > MAX_STATES:
        raise UsageError(f"exact game solver: {n} players with {lives} lives is too large "
                         f"({states:,} states, limit {MAX_STATES:,}); use Monte Carlo instead")
    chain = _Chain(rules, policies, lives)
    dealers = range(n) if first_dealer is None else [first_dealer]
    start = np.array([chain.code([lives] * n, d) for d in dealers], np.int64)
    codes, table, p_tie, end = chain.explore(start)
    index = np.full(states, -1, np.int64)
    index[codes] = np.arange(codes.size)
    m0 = np.zeros(codes.size)
    m0[index[start]] = 1.0 / start.size
    step = table.T.tocsr()  # m -> the distribution one round later

    replay = rules.absolute_tie == "replay"
    if replay:  # the winner: condition every round on not being an absolute tie
        keep = 1.0 - p_tie
        cond = sparse.diags(1.0 / keep) @ table
        ends = end / keep[:, None]
        cond_step = cond.T.tocsr()
    else:  # an absolute tie ends the game in a draw
        keep = np.ones(codes.size)
        ends = end.copy()
        ends[:, n] += p_tie
        cond_step = step
    # Per state: wins by player, draws, and the rounds spent there (1 / keep on average).
    # Sparse products throughout: no BLAS call, whose threads only slow vectors this size.
    report = sparse.csr_matrix(np.column_stack([ends, 1.0 / keep]).T)
    totals = np.zeros(n + 2)
    m = m0
    for _ in range(n * lives + 1):  # every counted round costs at least one life
        if not m.any():
            break
        totals += report @ m
        m = _flush(cond_step @ m)

    # The length, replays included: P(the game ends after exactly r rounds), r < horizon.
    horizon = n * lives + 64
    leave = sparse.csr_matrix(end.sum(axis=1) + (0.0 if replay else p_tie))
    if replay:
        step = (table + sparse.diags(p_tie)).T.tocsr()
    dist = np.zeros(horizon)
    m = m0
    for r in range(1, horizon):
        if not m.any():
            break
        dist[r] = (leave @ m)[0]
        m = _flush(step @ m)
    return ExactGame(win=totals[:n], draw=float(totals[n]), rounds_mean=float(totals[n + 1]),
                     rounds_dist=dist)


def _flush(m: np.ndarray) -> np.ndarray:
    """``m`` with probabilities below 1e-200 set to 0: they cannot move any result, and left in
    they become subnormal numbers, on which arithmetic is many times slower."""
    m[m < TINY] = 0.0
    return m


class _Chain:
    """The game's states as integer codes, and the exact round from each of them.

    A state's code is ``(sum of lives[p] * (lives + 1) ** p) * n + dealer``, below the state
    count that :data:`MAX_STATES` bounds, so flags and values are plain arrays indexed by code.
    """

    def __init__(self, rules: RoncoRules, policies: Sequence[Policy], lives: int) -> None:
        self.rules = rules
        self.policies = tuple(policies)
        self.n = len(policies)
        self.base = lives + 1
        self.radix = self.base ** np.arange(self.n, dtype=np.int64)
        self.size = self.base ** self.n * self.n

    def code(self, lives: Sequence[int], dealer: int) -> int:
        return int(np.asarray(lives, np.int64) @ self.radix) * self.n + dealer

    @cache  # noqa: B019 - one chain per solve, dropped with it
    def outcomes(self, order: tuple[int, ...]) -> tuple[float, np.ndarray, np.ndarray]:
        """One round with the players ``order`` (by position): P(absolute tie), then the other
        outcomes merged by lives lost (one row per outcome, by position) and their
        probabilities."""
        p_tie = 0.0
        merged: dict[tuple[int, ...], float] = {}
        for out, pr in round_outcomes(self.rules, [self.policies[pl] for pl in order]):
            if out.all_tie:  # G6
                p_tie += pr
            else:
                merged[out.lost] = merged.get(out.lost, 0.0) + pr
        lost = np.array(list(merged), np.int64).reshape(len(merged), len(order))
        return p_tie, lost, np.array(list(merged.values()))

    def explore(self, start: np.ndarray) -> tuple[np.ndarray, sparse.csr_matrix, np.ndarray,
                                                  np.ndarray]:
        """Every state reachable from ``start``, breadth first: their codes (sorted), the
        transition table between them (row: from, column: to; a round ending the game leaves
        it), P(absolute tie) from each, and P(the round ends the game) by winner (the last
        column: no winner)."""
        n = self.n
        seen = np.zeros(self.size, bool)
        tie = np.zeros(self.size)
        end = np.zeros((self.size, n + 1))
        src: list[np.ndarray] = []
        dst: list[np.ndarray] = []
        prob: list[np.ndarray] = []
        frontier = np.unique(start)
        seen[frontier] = True
        while frontier.size:
            dealer = frontier % n
            lv = (frontier // n)[:, None] // self.radix % self.base
            alive = lv > 0
            group = (alive @ (1 << np.arange(n))) * n + dealer
            found = []
            for key in np.unique(group):
                sel = group == key
                rows, here, d = frontier[sel], lv[sel], int(key % n)
                order = tuple(pl for pl in ((d + 1 + i) % n for i in range(n))
                              if here[0, pl] > 0)  # G3: the dealer comes last
                p_tie, losts, prs = self.outcomes(order)
                tie[rows] = p_tie
                cols = list(order)
                for lost, pr in zip(losts, prs, strict=True):
                    nxt = here.copy()
                    nxt[:, cols] = np.maximum(nxt[:, cols] - lost, 0)
                    left = nxt > 0
                    count = left.sum(axis=1)
                    over = count <= 1  # G7
                    if over.any():
                        winner = np.where(count[over] == 1, left[over].argmax(axis=1), n)
                        np.add.at(end, (rows[over], winner), pr)
                    go = ~over
                    if not go.any():
                        continue
                    nxt = nxt[go]
                    nd = np.full(nxt.shape[0], order[0])  # G5
                    for _ in range(n):
                        out = nxt[np.arange(nd.size), nd] == 0
                        if not out.any():
                            break
                        nd[out] = (nd[out] + 1) % n
                    codes = (nxt @ self.radix) * n + nd
                    src.append(rows[go])
                    dst.append(codes)
                    prob.append(np.full(codes.size, pr))
                    found.append(codes)
            frontier = np.unique(np.concatenate(found)) if found else np.zeros(0, np.int64)
            frontier = frontier[~seen[frontier]]
            seen[frontier] = True
        codes = np.flatnonzero(seen)
        index = np.full(self.size, -1, np.int64)
        index[codes] = np.arange(codes.size)
        if src:
            s, t, p = np.concatenate(src), np.concatenate(dst), np.concatenate(prob)
        else:
            s = t = np.zeros(0, np.int64)
            p = np.zeros(0)
        table = sparse.csr_matrix((p, (index[s], index[t])), shape=(codes.size, codes.size))
        return codes, table, tie[codes], end[codes]


def win_values(rules: RoncoRules, policies: Sequence[Policy], lives: int,
               states: Sequence[tuple[Sequence[int], int]]) -> np.ndarray:
    """P(each player wins the game, G7) from each of ``states`` (lives by player, at most
    ``lives`` each, and the dealer), the players playing ``policies``: the chain of
    :func:`exact_game` solved backwards, as the value of every state it reaches (rows by
    state, columns by player)."""
    n = len(policies)
    size = (lives + 1) ** n * n
    if size > MAX_STATES:
        raise UsageError(f"exact game solver: {n} players with up to {lives} lives is too large "
                         f"({size:,} states, limit {MAX_STATES:,})")
    chain = _Chain(rules, policies, lives)
    start = np.array([chain.code(lv, d) for lv, d in states], np.int64)
    codes, table, p_tie, end = chain.explore(start)
    index = np.full(chain.size, -1, np.int64)
    index[codes] = np.arange(codes.size)
    if rules.absolute_tie == "replay":  # G6: a replayed round is folded in
        keep = 1.0 - p_tie
        step = sparse.diags(1.0 / keep) @ table
        wins = end[:, :n] / keep[:, None]
    else:
        step = table
        wins = end[:, :n]
    step = step.tocsr()
    value = np.zeros((codes.size, n))
    for _ in range(n * lives + 1):  # every counted round costs at least one life
        value = wins + step @ value
    return value[index[start]]
