"""Throughput and round statistics of Römi's numba engine, every seat one policy, on one core.

Usage: python scripts/bench_romi.py [--rounds N] [--players 2,3,4,5] [--policy P[,P...]]
                                    [--search N[,N...]] [--search-rounds N] [--seed N] [--json]

For each player count and each policy of ``--policy`` (one, or several comma-separated, e.g.
``greedy,expert``), ``--rounds`` rounds (20,000 by default) with every seat playing that policy
(default ``greedy``, Q2; the target is 1,000 four-player greedy rounds per second; ``expert``,
Q5, weighs every discard over the unseen cards, and its target is a quarter of greedy's rounds
per second at 4 players, measured in the same run: ``--players 4 --policy greedy,expert``) are
played by ``simulate_rounds`` (default rules: open_min 51, ace_low_value 1; dealer drawn each
round) in one process and one thread. Compile time is excluded (a few rounds are played
first); the rate is rounds per CPU second of this process, so other work on a shared machine
distorts it less. Reported per player count and policy: rounds per second, mean turns per
round (T9's counter), the share of rounds someone went out (G1), of Römis (-20, G3), of
players never opened at the end (G5, per player and round) and of stalled rounds (T8, T9);
with several policies, each one's rounds per second as a share of the first's (``ratio`` in
JSON).

``--search 16`` adds, per player count, tables of one ``search:16`` seat (Q7) among ``expert``
seats, ``--search-rounds`` rounds each (default 40), played by ``search_kernel.simulate_rounds``:
their rounds per second, and the searching seat's mean score beside the others' mean.
"""

from __future__ import annotations

import argparse
import json
import time

from simcards.core.rng import chunk_state
from simcards.romi import round_kernel as E
from simcards.romi import search_kernel as S
from simcards.romi.codes import POLICY_SEARCH
from simcards.romi.kernel_state import Seats
from simcards.romi.records import engine_args
from simcards.romi.rules import RomiRules


def bench(players: int, rounds: int, seed: int, policy: str = "greedy") -> dict[str, object]:
    rl, kinds, params = engine_args(RomiRules.make(players=players), [policy] * players)
    # compile (or load from the cache)
    E.simulate_rounds(chunk_state(seed, 10_000 + players), 3, rl, Seats(kinds, params), -1)
    t0 = time.process_time()
    scores, went_out, romi, never, turns, stalled, _ = E.simulate_rounds(
        chunk_state(seed, players), rounds, rl, Seats(kinds, params), -1)
    dt = time.process_time() - t0
    return {
        "players": players,
        "policy": policy,
        "rounds": rounds,
        "rounds_per_second": round(rounds / dt, 1),
        "mean_turns": round(float(turns.mean()), 2),
        "go_out_rate": round(float((went_out >= 0).mean()), 4),
        "romi_rate": round(float(romi.mean()), 4),
        "never_opened_rate": round(float(never.mean()), 4),
        "stalled_rate": round(float(stalled.mean()), 4),
        "mean_score": round(float(scores.mean()), 2),
    }


def bench_search(players: int, samples: int, rounds: int, seed: int) -> dict[str, object]:
    """One ``search:samples`` seat (seat 0) among ``expert`` seats: rounds per CPU second."""
    rl, kinds, params = engine_args(RomiRules.make(players=players), ["expert"] * players)
    kinds[0] = POLICY_SEARCH
    params[0] = samples
    # compile (or load from the cache)
    S.simulate_rounds(chunk_state(seed, 20_000 + players), 1, rl, Seats(kinds, params), -1)
    t0 = time.process_time()
    scores, *_ = S.simulate_rounds(chunk_state(seed, players), rounds, rl, Seats(kinds, params), -1)
    dt = time.process_time() - t0
    return {"players": players, "policy": f"search:{samples} among expert", "rounds": rounds,
            "rounds_per_second": round(rounds / dt, 2),
            "search_score": round(float(scores[:, 0].mean()), 2),
            "others_score": round(float(scores[:, 1:].mean()), 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=20_000)
    ap.add_argument("--players", default="2,3,4,5")
    ap.add_argument("--policy", default="greedy",
                    help="one policy, or several comma-separated (greedy,expert)")
    ap.add_argument("--search", default="",
                    help="also time one search:N seat among experts, for each N listed")
    ap.add_argument("--search-rounds", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    policies = a.policy.split(",")
    for n in (int(x) for x in a.players.split(",")):
        for samples in (int(x) for x in a.search.split(",") if x):
            r = bench_search(n, samples, a.search_rounds, a.seed)
            if a.json:
                print(json.dumps(r))
            else:
                print(f"{n} players, {r['policy']}: {r['rounds_per_second']:,.2f} rounds/s on "
                      f"one core; search scored {r['search_score']:.1f} a round, the experts "
                      f"{r['others_score']:.1f} ({a.search_rounds} rounds)")
        first = None
        for policy in policies:
            r = bench(n, a.rounds, a.seed, policy)
            if first is None:
                first = r
            else:
                r["ratio"] = round(r["rounds_per_second"] / first["rounds_per_second"], 3)
            if a.json:
                print(json.dumps(r))
                continue
            print(f"{n} {policy} players: {r['rounds_per_second']:,.0f} rounds/s on one core; "
                  f"{r['mean_turns']:.1f} turns a round, went out {r['go_out_rate']:.1%}, "
                  f"Römi (-20) {r['romi_rate']:.2%}, never opened {r['never_opened_rate']:.1%}"
                  f" of players, stalled {r['stalled_rate']:.2%} ({a.rounds:,} rounds)")
            if "ratio" in r:
                print(f"{n} players: {policy} plays {r['ratio']:.3f} of {first['policy']}'s "
                      f"rounds/s (1/{1 / r['ratio']:.1f})")


if __name__ == "__main__":
    main()
