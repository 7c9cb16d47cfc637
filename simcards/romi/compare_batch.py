"""Two Römi policies compared on the same deals with the seats rotated (``simcards romi compare``).

A *deal set* is one game (``rounds`` rounds, D5, G6) played on one fixed sequence of decks and
dealers, repeated once per seat rotation: with n players, A sits in seat r (r = 0 .. n-1) and B
in every other seat, the same decks and dealers every time. The luck of the deal therefore falls
alike on both policies and cancels from each set's paired differences:

- *score difference*: A's mean score per round over its n seatings minus B's mean score per
  round (B's seats averaged), in points per round. Scores are points against a player (G2-G5),
  so a negative difference means A gives away fewer points than B: A is the better policy.
- *win-rate difference*: A's game win share over its n seatings minus B's per-seat share (G6:
  the lowest total wins, equal lowest totals share the win, as in ``simcards romi games``). A
  seat's fair share is 1/n, so the difference is 0 between equals.

Each set's differences (and each policy's own means) are accumulated as a sum and a sum of
squares, so chunks merge by addition; the reported figure is the mean over sets with a normal
95% interval from their spread, except each policy's own win rate, a rate with a Wilson
interval (:func:`win_rates`), and the win-rate difference where every set sits at one of its
bounds (A wins every game, or none), whose normal interval would have width zero: Wilson's on
the sets instead (:func:`_at_bounds`). The per-set numbers are formed from integer numerators (wins
in sixtieths, the least common multiple of the shares 1/1 .. 1/5), so a policy compared with
itself gives a difference of exactly 0 on every set.

Chance. From the chunk's stream, per set: the first dealer (``randbelow(players)``, unless
fixed) and one 64-bit seed. Every rotation starts a fresh *set stream* from that seed
(:func:`simcards.core.rng_kernel.seed_state`) and plays the game round by round through
:func:`simcards.romi.round_kernel.simulate_rounds` with the dealer fixed, which draws each round's
own seed from the set stream: every rotation gets the same round seeds, hence the same decks
(D3, D4) and the same random numbers for the reshuffles (T8). A reshuffle shuffles the discard
pile of the moment; when the policies have played differently before it, the piles and so the
new stocks differ between rotations (a rare event: most rounds end before the stock runs out).
The set stream is separate from the chunk's stream, so the result depends only on the seed and
the chunk size, never on the number of workers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcards.core.policyspec import PolicySpec
from simcards.core.stats import Z95, bound_interval, wilson
from simcards.romi.codes import STALL_TURNS
from simcards.romi.kernel_state import KernelRules, Seats
from simcards.romi.policies import policy_arrays
from simcards.romi.rules import RomiRules

STREAM = "romi.compare"
"""The random stream of the compare command."""
ROUNDS_PER_CHUNK = 512
"""Rounds a chunk plays, all rotations counted (under a second on one core for greedy
players); a chunk holds ``max(1, ROUNDS_PER_CHUNK // (players * rounds))`` deal sets."""
WIN_UNITS = 60
"""Win shares are counted in sixtieths: 1/k of a win for k tied winners (k <= 5) is whole."""


@dataclass(frozen=True)
class CompareConfig:
    """What a chunk needs, as the kernels' named tuples and ints (pickled to workers).
    ``rotations[r]`` are the seats' policies in rotation r: A in seat r, B elsewhere."""

    rules: KernelRules
    rotations: tuple[Seats, ...]
    players: int
    rounds_per_game: int
    dealer: int


def build_config(rules: RomiRules, a: PolicySpec, b: PolicySpec,
                 dealer: int | None) -> CompareConfig:
    """The rotations' seat policies of A and B, each rotation's seats built as every table's
    (:func:`~simcards.romi.policies.policy_arrays`): A in seat r, B elsewhere."""
    n = rules.players
    rotations = tuple(policy_arrays([a if p == r else b for p in range(n)], rules)
                      for r in range(n))
    return CompareConfig(rules.kernel, rotations, n, rules.rounds,
                         -1 if dealer is None else int(dealer))


def chunk_size(players: int, rounds_per_game: int, searching: bool = False) -> int:
    """Deal sets per chunk (:data:`ROUNDS_PER_CHUNK`); one where a seat searches (Q7, Q8:
    seconds a round)."""
    if searching:
        return 1
    return max(1, ROUNDS_PER_CHUNK // (players * rounds_per_game))


STAT_NAMES = ("sets", "score_diff", "score_diff_sq", "score_a", "score_a_sq", "score_b",
              "score_b_sq", "win_diff", "win_diff_sq", "win_a", "win_a_sq", "win_b", "win_b_sq",
              "rounds", "went_out", "romi", "never_opened", "turns_hist", "stalled")
"""The chunk's statistics. Per set, with n players and R rounds: ``score_diff`` sums
(n-1)*SA - SB, ``score_a`` SA and ``score_b`` SB, where SA is the sum of A's round scores over
its n seatings and SB that of B's n(n-1) seat-games; ``win_*`` likewise with win shares in
sixtieths. ``went_out``, ``romi``, ``never_opened`` count seat-rounds by policy (A, B);
``turns_hist`` and ``stalled`` count every round played."""


def _empty() -> dict[str, np.ndarray]:
    out = {k: np.zeros(1, np.float64) for k in STAT_NAMES}
    out["sets"] = np.zeros(1, np.int64)
    out["rounds"] = np.zeros(1, np.int64)
    out["stalled"] = np.zeros(1, np.int64)
    for k in ("went_out", "romi", "never_opened"):
        out[k] = np.zeros(2, np.int64)
    out["turns_hist"] = np.zeros(STALL_TURNS + 1, np.int64)
    return out


def compare_chunk(state: np.ndarray, size: int, cfg: CompareConfig) -> dict[str, np.ndarray]:
    """One chunk of deal sets (runs in a worker); see the module docstring."""
    from simcards.core.rng_kernel import next_u64, randbelow, seed_state
    from simcards.romi.rounds_batch import simulator

    simulate_rounds = simulator(cfg.rotations[0])
    n, rounds = cfg.players, cfg.rounds_per_game
    acc = _empty()
    sub = np.zeros(4, np.uint64)
    for _ in range(size):
        d0 = cfg.dealer if cfg.dealer >= 0 else int(randbelow(state, n))
        set_seed = np.uint64(next_u64(state))
        sa = sb = wa = wb = 0
        for r in range(n):
            seed_state(sub, set_seed)
            totals = np.zeros(n, np.int64)
            for k in range(rounds):
                scores, out, romi, never, turns, stalled, _ = simulate_rounds(
                    sub, 1, cfg.rules, cfg.rotations[r], (d0 + k) % n)
                totals += scores[0]
                acc["rounds"][0] += 1
                acc["turns_hist"][min(int(turns[0]), STALL_TURNS)] += 1
                acc["stalled"][0] += int(stalled[0])
                if out[0] >= 0:
                    side = 0 if out[0] == r else 1
                    acc["went_out"][side] += 1
                    acc["romi"][side] += int(romi[0])
                acc["never_opened"][0] += int(never[0, r])
                acc["never_opened"][1] += int(never[0].sum() - never[0, r])
            sa, sb, wa, wb = seat_game(totals, r, (sa, sb, wa, wb))
        add_set(acc, n, sa, sb, wa, wb)
    return acc


def seat_game(totals: np.ndarray, r: int, sums: tuple[int, int, int, int]
              ) -> tuple[int, int, int, int]:
    """``sums`` (A's and B's points, A's and B's wins in :data:`WIN_UNITS`) after one game of
    a deal set with A in seat ``r``: the lowest total wins, equal lowest share the win."""
    sa, sb, wa, wb = sums
    won = totals == totals.min()
    share = WIN_UNITS // int(won.sum())
    return (sa + int(totals[r]), sb + int(totals.sum() - totals[r]),
            wa + share * int(won[r]), wb + share * int(won.sum() - won[r]))


def add_set(acc: dict[str, np.ndarray], n: int, sa: int, sb: int, wa: int, wb: int) -> None:
    """One finished deal set into ``acc``: its paired differences (A's against the mean of
    the ``n - 1`` B seats, scaled by ``n - 1``) and each side's sums, with their squares.
    Both engines' compare chunks count their sets here."""
    acc["sets"][0] += 1
    for name, x in (("score_diff", (n - 1) * sa - sb), ("score_a", sa), ("score_b", sb),
                    ("win_diff", (n - 1) * wa - wb), ("win_a", wa), ("win_b", wb)):
        acc[name][0] += float(x)
        acc[f"{name}_sq"][0] += float(x) * float(x)


def _mean_ci(total: float, total_sq: float, n: int, scale: float) -> dict[str, object]:
    """``{"mean", "ci"}`` of ``n`` per-set values given their sum and sum of squares, each
    divided by ``scale``; a normal 95% interval (``[None, None]`` with fewer than 2 sets)."""
    m = total / n
    if n < 2:
        return {"mean": m / scale, "ci": [None, None]}
    var = max(total_sq / n - m * m, 0.0) * n / (n - 1)
    half = Z95 * (var / n) ** 0.5
    return {"mean": m / scale, "ci": [(m - half) / scale, (m + half) / scale]}


def _at_bounds(d: dict[str, object], sets: int, low: float, high: float) -> dict[str, object]:
    """``d`` (:func:`_mean_ci` of per-set values that lie in ``[low, high]``) with Wilson's
    interval where its mean sits at a bound, where the normal one has width zero
    (:func:`simcards.core.stats.bound_interval`). A set's win-rate difference lies between
    -1/(n - 1) (B wins every game) and 1 (A wins every game)."""
    at_bound = bound_interval(float(d["mean"]), sets, low, high)  # type: ignore[arg-type]
    return d if at_bound is None else {"mean": d["mean"], "ci": list(at_bound)}


def win_rates(win_a: float, sets: int, players: int) -> dict[str, dict[str, object]]:
    """Each policy's per-seat game win rate with its 95% Wilson interval, from A's win
    shares (``win_a``, in sixtieths) over ``sets`` deal sets.

    A plays ``sets * players`` games (one per rotation) and wins a share of each; a shared win
    counts as its share of a success (a share varies less than a whole win, so the interval is
    if anything wide). The rotations of one set, A in different seats on the same decks, are
    not positively correlated (one seat's good cards are another's bad ones). B wins the rest
    of every game, spread over its ``players - 1`` seats, so its rate and interval are A's
    complement divided by that: the two come from the same games, not independent ones."""
    n, games = players, sets * players
    wins = win_a / WIN_UNITS
    lo, hi = (float(x) for x in wilson(wins, games))
    rate = wins / games
    return {"a": {"mean": rate, "ci": [lo, hi]},
            "b": {"mean": (1 - rate) / (n - 1), "ci": [(1 - hi) / (n - 1), (1 - lo) / (n - 1)]}}


def summarise(s: dict[str, np.ndarray], players: int, rounds_per_game: int) -> dict[str, object]:
    """The command's figures from merged chunk statistics (module docstring): paired
    differences, each policy's own means, and the per-round rates by policy."""
    n, r = players, rounds_per_game
    sets = int(s["sets"][0])

    def mc(name: str, scale: float) -> dict[str, object]:
        return _mean_ci(float(s[name][0]), float(s[f"{name}_sq"][0]), sets, scale)

    a_rounds = sets * n * r
    b_rounds = a_rounds * (n - 1)
    played = int(s["rounds"][0])

    def rates(name: str) -> dict[str, float]:
        return {"a": int(s[name][0]) / a_rounds, "b": int(s[name][1]) / b_rounds}

    return {
        "rounds_played": played,
        "score_diff": mc("score_diff", n * (n - 1) * r),
        "win_rate_diff": _at_bounds(mc("win_diff", n * (n - 1) * WIN_UNITS), sets,
                                    -1.0 / (n - 1), 1.0),
        "score_mean": {"a": mc("score_a", n * r), "b": mc("score_b", n * (n - 1) * r)},
        "win_rate": win_rates(float(s["win_a"][0]), sets, n),
        "go_out_rate": rates("went_out"),
        "rummy_rate": rates("romi"),
        "never_opened_rate": rates("never_opened"),
        "stalled_rate": int(s["stalled"][0]) / played,
        "turns_mean": float((s["turns_hist"] * np.arange(STALL_TURNS + 1)).sum()) / played,
    }
