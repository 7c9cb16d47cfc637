"""Best keep thresholds: the hero's best response to a field, and the symmetric equilibrium.

Search design:

* Every candidate (T, Td) of the hero plays the same games (common random numbers, see
  :mod:`simcards.ronco.race_kernel`), so two candidates are compared by a paired test on the
  games where exactly one of them won (McNemar's discordant pairs), far sharper than comparing
  two independent win rates.
* Successive halving with racing: stage s plays ``first_stage * 2**s`` fresh games for every
  surviving candidate; after each stage, every candidate whose paired z against the current best
  exceeds ``z_drop`` is dropped. The search stops when one candidate is left, when every other
  survivor is distinguishable from the best (z >= 1.96), or when the per-candidate budget is
  spent. Survivors that cannot be told apart from the best (z < 1.96) are reported as
  ``tied_with``.
* The symmetric equilibrium is found by best-response iteration: the field plays the best
  response found so far until the field's own thresholds are a best response to themselves
  (the best, or tied with it).
* The field may also be a function of the user's (S5) or a keep chart (S6), played as
  ``games`` plays them: a function is asked at its every decision with its ``ronco_game_v0``
  observation, through the game kernel's compiled user seats (one kernel for every function),
  and a chart plays each round's rows. Neither is a point of the grid, so the best-response
  iteration starts from the best response to it. A function numba cannot compile (or
  ``--engine python``) races on the Python table engine instead
  (:func:`simcards.ronco.users.python_race`), which plays the very games the kernel would:
  both engines give the same numbers.

The races of all table sizes run side by side on one pool of workers
(:func:`~simcards.core.plans.run_plans`). Each stage is a batch stored like any other, so a
killed search resumes.

The command's Python function is :func:`simcards.ronco.api.best_threshold`
(``simcards.ronco.best_threshold(...)``).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from simcards.core.engines import COMPILED, PYTHON
from simcards.core.plans import Plan, StageRequest, run_searches
from simcards.core.runner import Batch, Stats
from simcards.core.stats import Z95, wilson
from simcards.core.userpolicy import UserPolicy
from simcards.ronco.bayes_exact import (
    FIELD_KINDS,
    MAX_BAYES_PLAYERS,
    game_table,
    policy_table,
    prebuild,
)
from simcards.ronco.games_batch import MAX_ROUNDS
from simcards.ronco.kernel_state import GameSpec, KernelRules, Seats
from simcards.ronco.policies import BAYES_TABLE, Policy
from simcards.ronco.race_kernel import race_games
from simcards.ronco.rules import RoncoRules, check_players
from simcards.ronco.users import check_errors, python_race, user_seats

RACE_CHUNK = 2048
"""Games per chunk (each played by every surviving candidate)."""


@dataclass(frozen=True)
class RaceConfig:
    """One stage of one race, as the kernel's named tuples (pickled to workers)."""

    n: int
    lives: int
    field: Seats
    candidates: Seats
    rules: KernelRules
    users: tuple[UserPolicy | None, ...] = ()
    """S5: each player's function (None: the hero, player 0), when the field plays one of the
    user's; the text travels to the workers, which compile it themselves. Empty otherwise."""
    python: tuple[RoncoRules, Policy, tuple[Policy, ...]] | None = None
    """The rules, the field's policy and the candidates', when the race plays on the Python
    table engine (:func:`simcards.ronco.users.python_race`); None on the compiled engine."""


class RaceStats(NamedTuple):
    """A race chunk's statistics: wins by candidate, pairwise beats, games played."""

    wins: np.ndarray
    beats: np.ndarray
    games: np.ndarray


def race_chunk(state: np.ndarray, size: int, cfg: RaceConfig) -> RaceStats:
    """One chunk of a race (runs in a worker). A field of the user's function (S5) is
    compiled here; an action of it that is not legal, or an exception it raises, refuses the
    chunk in one line naming the function and the player."""
    if cfg.python is not None:
        return RaceStats(*python_race(state, size, cfg.n, cfg.lives, *cfg.python))
    spec = GameSpec(cfg.n, cfg.lives, -1, MAX_ROUNDS)
    if not cfg.users:
        return RaceStats(*race_games(state, size, cfg.field, cfg.candidates, cfg.rules, spec,
                                     None))
    seats = user_seats(cfg.users, cfg.rules, cfg.n, cfg.lives)
    out = RaceStats(*race_games(state, size, cfg.field, cfg.candidates, cfg.rules, spec, seats))
    check_errors(seats, cfg.users)
    return out


def _config(rules: RoncoRules, n: int, lives: int, field_policy: Policy,
            candidates: Sequence[Policy], engine: str = COMPILED) -> RaceConfig:
    bayes = None
    if any(BAYES_TABLE in c.declared.needs for c in candidates):  # S4: replies to this field
        bayes = game_table(rules, n, field_policy).kernel_arrays()
    if on_grid(field_policy):
        field = Seats.from_policies([field_policy] * n)
    else:  # S5, S6: the field's seats as games seat them (a chart's rows for every size)
        field = policy_table(rules, [field_policy] * n, game=True)
    if engine == PYTHON:  # the Python table engine seats the policies themselves
        return RaceConfig(n, lives, field, Seats.from_policies(candidates, bayes), rules.kernel,
                          python=(rules, field_policy, tuple(candidates)))
    users = (None, *[field_policy.user] * (n - 1)) if field_policy.user is not None else ()
    return RaceConfig(n, lives, field, Seats.from_policies(candidates, bayes), rules.kernel,
                      users)


def on_grid(field_policy: Policy) -> bool:
    """Whether the field is a point of a threshold family's grid (a T:Td pair), rather than a
    function of the user's or a chart."""
    return field_policy.user is None and field_policy.chart is None


def field_key(field_policy: Policy) -> dict[str, str]:
    """What names a field in a run's key beyond its text: a function's or a chart's digest
    (its file's text), so that an edited file never resumes an older run's chunks; nothing
    for a built-in field (whose keys stay as they were)."""
    if field_policy.user is not None:
        return {"field_digest": field_policy.user.digest}
    if field_policy.chart is not None:
        return {"field_digest": field_policy.chart.digest}
    return {}


@dataclass
class RaceResult:
    """The outcome of one race among hero candidates against one field."""

    candidates: list[Policy]
    field_policy: Policy
    games: np.ndarray
    wins: np.ndarray
    beats: np.ndarray
    alive: list[int]
    stages: int
    best: int = -1
    z: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def rate(self, i: int) -> float:
        return self.wins[i] / self.games[i]

    def paired(self, i: int, j: int) -> tuple[float, float]:
        """Win-rate difference i - j on their common games, and its standard error."""
        g = min(self.games[i], self.games[j])
        b_ij, b_ji = self.beats[i, j], self.beats[j, i]
        diff = (b_ij - b_ji) / g
        var = max((b_ij + b_ji) / g - diff * diff, 0.0) / g
        return diff, float(np.sqrt(var))

    def answers(self, policy: Policy) -> bool:
        """Whether ``policy`` is this race's best, or cannot be told apart from it."""
        return any(_same(self.candidates[i], policy) for i in [self.best, *self.tied_with()])

    def tied_with(self) -> list[int]:
        return [i for i in self.alive if i != self.best and self.z[i] < Z95]

    def summary(self) -> dict[str, Any]:
        b = self.best
        lo, hi = wilson(self.wins[b], self.games[b])
        return {
            "best": self.candidates[b],
            "win_rate": self.rate(b),
            "ci_low": float(lo),
            "ci_high": float(hi),
            "games": int(self.games[b]),
            "tied_with": [self.candidates[i] for i in self.tied_with()],
            "candidates": len(self.candidates),
            "stages": self.stages,
            "candidate_games": int(self.games.sum()),
        }


def race(rules: RoncoRules, n: int, lives: int, field_policy: Policy,
         candidates: Sequence[Policy], *, seed: int, first_stage: int, max_games: int,
         z_drop: float, min_games: int = 0, stream: str = "ronco.race",
         engine: str = COMPILED) -> Generator[StageRequest, Stats, RaceResult]:
    """A race, as a generator: it yields each stage's batch and is sent back its statistics.
    ``engine``: where its games are played (both engines play the same games)."""
    k = len(candidates)
    res = RaceResult(list(candidates), field_policy, np.zeros(k, np.int64),
                     np.zeros(k, np.int64), np.zeros((k, k), np.int64), list(range(k)), 0)
    size = first_stage
    while True:
        alive = res.alive
        cfg = _config(rules, n, lives, field_policy, [candidates[i] for i in alive], engine)
        stage_stream = f"{stream}.stage-{res.stages}"
        manifest = {"game": "ronco", "command": "race-stage", "rules": rules.summary(),
                    "players": n, "lives": lives, "field": field_policy.spec(),
                    **field_key(field_policy),
                    "candidates": [candidates[i].spec() for i in alive], "seed": seed,
                    "stream": stage_stream, "games": size, "chunk_size": RACE_CHUNK}
        wins, beats, games = RaceStats(**(yield StageRequest(
            Batch(race_chunk, cfg, seed, size, RACE_CHUNK, stage_stream), manifest)))
        idx = np.array(alive)
        res.wins[idx] += wins
        res.games[idx] += int(games[0])
        res.beats[np.ix_(idx, idx)] += beats
        res.stages += 1
        res.best = max(alive, key=lambda i: (res.rate(i), -i))
        res.z = np.full(k, np.inf)
        for i in alive:
            if i != res.best:
                diff, se = res.paired(res.best, i)
                res.z[i] = diff / se if se > 0 else (np.inf if diff > 0 else 0.0)
        res.alive = [i for i in alive if i == res.best or res.z[i] <= z_drop]
        spent = int(res.games[res.best])
        undecided = [i for i in res.alive if i != res.best and res.z[i] < Z95]
        if spent >= max_games or (spent >= min_games and (len(res.alive) == 1
                                                          or not undecided)):
            return res
        size = min(2 * size, max_games - spent)


def grid(rules: RoncoRules, kind: str) -> list[Policy]:
    """Every (T, Td) pair over the deck's distinct values: thresholds between two values act
    like the higher one, so this is the whole strategy space of the threshold family."""
    values = sorted({int(v) for v in rules.deck_obj.values})
    return [Policy(kind, t, td) for t in values for td in values]


@dataclass
class Row:
    """The answer for one table size."""

    players: int
    best_response: RaceResult
    equilibrium: Policy | None
    equilibrium_race: RaceResult
    equilibrium_converged: bool
    iterations: int
    gain: RaceResult | None
    path: list[tuple[int, int]]
    """The field (when it is a T:Td pair), then each best response in turn: a cycle shows when
    there is no pure symmetric equilibrium (or the budget cannot separate its neighbours)."""


def plan(rules: RoncoRules, n: int, lives: int, kind: str, field_policy: Policy, *, seed: int,
         first_stage: int, max_games: int, z_drop: float, max_iterations: int,
         gain_games: int, min_games: int = 0, engine: str = COMPILED,
         ) -> Generator[StageRequest, Stats, Row]:
    """Everything asked for one table size: best response, equilibrium, and the gains of
    informed and bayes play over the best pair. ``engine`` plays the races against a function
    of the user's (S5); those against a built-in field (the iteration's) play compiled."""
    check_players(n)
    cands = grid(rules, kind)
    opts = {"seed": seed, "first_stage": first_stage, "max_games": max_games,
            "z_drop": z_drop, "min_games": min_games}
    user_engine = engine if field_policy.user is not None else COMPILED
    br = yield from race(rules, n, lives, field_policy, cands, **opts, engine=user_engine)
    path = [(br.candidates[br.best].T, br.candidates[br.best].Td)]
    if on_grid(field_policy):
        path.insert(0, (field_policy.T, field_policy.Td))
    # Best-response iteration towards a symmetric equilibrium: stop once the field's own
    # thresholds are a best response to themselves (the best, or tied with it).
    current = br
    iterations = 0
    fld = field_policy
    while not (converged := current.answers(fld)) and iterations < max_iterations:
        best = current.candidates[current.best]
        fld = Policy(kind, best.T, best.Td)
        iterations += 1
        current = yield from race(rules, n, lives, fld, cands, **opts)
        path.append((current.candidates[current.best].T, current.candidates[current.best].Td))
    eq_policy = fld if converged else None
    gain = None
    if gain_games > 0:
        # The same games for the best pair, informed at that pair, and the exact one-round
        # best reply to the field (S4) where its table can be computed: paired gains.
        b = br.candidates[br.best]
        pair = [Policy("threshold", b.T, b.Td), Policy("informed", b.T, b.Td)]
        if with_bayes(n, field_policy):
            pair.append(Policy("bayes"))
        gain = yield from race(rules, n, lives, field_policy, pair, seed=seed,
                               first_stage=gain_games, max_games=gain_games, z_drop=np.inf,
                               stream="ronco.race.informed-gain", engine=user_engine)
    return Row(n, br, eq_policy, current, converged, iterations, gain, path)


def with_bayes(n: int, field_policy: Policy) -> bool:
    """Whether the gain comparison includes ``bayes`` (S4): its decisions are computed for up
    to :data:`~simcards.ronco.bayes_exact.MAX_BAYES_PLAYERS` players and threshold or informed
    fields."""
    return n <= MAX_BAYES_PLAYERS and field_policy.kind in FIELD_KINDS


def _cycle(path: list[tuple[int, int]]) -> list[list[int]]:
    """The repeating tail of a best-response path (empty when nothing repeats yet)."""
    for end in range(1, len(path)):
        if path[end] in path[:end]:
            start = path.index(path[end])
            return [list(p) for p in path[start:end]]
    return []


def _same(a: Policy, b: Policy) -> bool:
    return (a.kind, a.T, a.Td) == (b.kind, b.T, b.Td)


def row_dict(row: Row) -> dict[str, Any]:
    """The JSON form of one row."""
    br = row.best_response.summary()
    best = br["best"]
    fld = row.best_response.field_policy
    out: dict[str, Any] = {
        "players": row.players,
        "field": [fld.T, fld.Td] if on_grid(fld) else fld.spec(),
        "best_T": best.T,
        "best_Td": best.Td,
        "win_rate": br["win_rate"],
        "ci_low": br["ci_low"],
        "ci_high": br["ci_high"],
        "games": br["games"],
        "tied_with": [[p.T, p.Td] for p in br["tied_with"]],
        "fair_share": 1.0 / row.players,
        "candidate_games": br["candidate_games"],
        "stages": br["stages"],
        "equilibrium_T": row.equilibrium.T if row.equilibrium else None,
        "equilibrium_Td": row.equilibrium.Td if row.equilibrium else None,
        "equilibrium_converged": row.equilibrium_converged,
        "equilibrium_iterations": row.iterations,
        "best_response_path": [list(p) for p in row.path],
        "equilibrium_cycle": _cycle(row.path) if not row.equilibrium_converged else [],
    }
    eq = row.equilibrium_race.summary()
    out["equilibrium_best_response"] = [eq["best"].T, eq["best"].Td]
    out["equilibrium_tied_with"] = [[p.T, p.Td] for p in eq["tied_with"]]
    if row.gain is not None:
        g = row.gain
        diff, se = g.paired(1, 0)
        out["informed_gain"] = float(diff)
        out["informed_gain_ci"] = [float(diff - Z95 * se), float(diff + Z95 * se)]
        out["informed_win_rate"] = float(g.rate(1))
        out["threshold_win_rate"] = float(g.rate(0))
        out["gain_games"] = int(g.games[0])
        if len(g.candidates) > 2:
            diff, se = g.paired(2, 0)
            out["bayes_gain"] = float(diff)
            out["bayes_gain_ci"] = [float(diff - Z95 * se), float(diff + Z95 * se)]
            out["bayes_win_rate"] = float(g.rate(2))
    return out


def race_plans(rules: RoncoRules, sizes: Sequence[int], lives: int, kind: str,
               field_policy: Policy, opts: dict[str, Any], engine: str = COMPILED,
               ) -> tuple[list[Plan], list[_Budget]]:
    """One :func:`plan` per table size, each with the budget it may still spend (for a progress
    bar's total). The bayes tables the gains need start computing in the background.
    ``engine``: where the races against a function of the user's play (:func:`plan`)."""
    budgets = [_Budget(opts["max_iterations"] + 1, opts["max_games"], opts["gain_games"])
               for _ in sizes]
    plans = [_tracked(plan(rules, n, lives, kind, field_policy, **opts, engine=engine), b)
             for n, b in zip(sizes, budgets, strict=True)]
    bayes_sizes = [n for n in sizes if with_bayes(n, field_policy)]
    if opts["gain_games"] > 0 and bayes_sizes:
        prebuild(rules, max(bayes_sizes), field_policy)
    return plans, budgets


def search(rules: RoncoRules, sizes: Sequence[int], lives: int, kind: str,
           field_policy: Policy, opts: dict[str, Any], *, workers: int,
           root: Path | None, progress: bool, executor: Executor | None = None,
           engine: str = COMPILED) -> tuple[list[Row], int, int]:
    """Run :func:`plan` for every table size side by side on one pool of workers
    (:func:`~simcards.core.plans.run_plans`); ``engine`` plays the races against a function of
    the user's (S5).

    Every stage batch is stored under ``root`` (if given), so an interrupted search resumes.
    Returns the rows and how many chunks were resumed and computed.
    """
    plans, budgets = race_plans(rules, sizes, lives, kind, field_policy, opts, engine)

    def label() -> str:
        finished = sum(b.finished for b in budgets)
        return f"best-threshold, {finished} of {len(sizes)} table sizes done (games)"

    return run_searches(plans, label=label, progress=progress, root=root, executor=executor,
                        workers=workers,
                        still_to_ask=lambda: sum(b.remaining() for b in budgets))


class _Budget:
    """The most games one table size's plan may still ask for: the rest of the race it is in,
    the races it has not begun (best response and equilibrium iterations), and the informed
    gain. An upper bound that only shrinks, so the search's one progress bar never goes back."""

    def __init__(self, races: int, max_games: int, gain_games: int) -> None:
        self.races_left = races
        self.max_games = max_games
        self.gain_left = gain_games
        self.race_left = 0
        self.finished = False

    def see(self, request: StageRequest) -> None:
        stream = request.batch.stream
        if stream.endswith(".stage-0"):
            if ".informed-gain." in stream:
                self.race_left, self.gain_left = self.gain_left, 0
            else:
                self.race_left, self.races_left = self.max_games, max(self.races_left - 1, 0)
        self.race_left = max(self.race_left - request.batch.total, 0)

    def remaining(self) -> int:
        if self.finished:
            return 0
        return self.race_left + self.races_left * self.max_games + self.gain_left


def _tracked(gen: Generator[StageRequest, Stats, Row],
             budget: _Budget) -> Generator[StageRequest, Stats, Row]:
    """``gen``, telling ``budget`` about each stage it asks for and when it is done."""
    request = next(gen)
    while True:
        budget.see(request)
        stats = yield request
        try:
            request = gen.send(stats)
        except StopIteration as stop:
            budget.finished = True
            return stop.value


