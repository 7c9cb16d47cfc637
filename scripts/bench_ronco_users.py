"""Throughput of a player's own Ronco function (rule S5) beside the built-in it imitates, and
what a new policy file costs before its first deal.

Usage: python scripts/bench_ronco_users.py [--players N] [--rounds N] [--repeats N]

The function is ``threshold:5:5`` written as a user would write it, from the ``ronco_v0``
observation's readers; the built-in is ``threshold:5:5`` itself. Both run through the Python
API on one worker (the whole command: chunks, kernel, summaries), alternating, and the best of
``--repeats`` runs is kept (wall clock). Compile time is excluded: each is run once on a small
count first.

The first-run overhead is the wall time of ``simcards ronco rounds --rounds 1000`` in a fresh
process with a policy file no process has seen (a new comment makes its text new), less the
same command with the built-in policy: what loading and compiling the function costs on a warm
cache.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import simcards.ronco

T55 = '''
from simcards.ronco.observation_kernel import card, is_dealer


def t55(obs, legal):
    """threshold:5:5 under spanish40 (the value 5 is class 4)."""
    return 0 if card(obs) >= 4 else 1
'''


def _rate(policy: str, players: int, rounds: int) -> float:
    t0 = time.perf_counter()
    simcards.ronco.rounds(players=players, policy=policy, rounds=rounds, workers=1,
                          store="none")
    return rounds / (time.perf_counter() - t0)


def _command_seconds(policy: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "simcards", "ronco", "rounds", "--policy", policy,
                    "--rounds", "1000", "--store", "none", "--json"], check=True,
                   capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=20_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mine.py"
        path.write_text(T55)
        user = f"{path}:t55"
        for policy in (user, "threshold"):
            _rate(policy, args.players, 10_000)
        best = {"user": 0.0, "builtin": 0.0}
        for _ in range(args.repeats):
            best["user"] = max(best["user"], _rate(user, args.players, args.rounds))
            best["builtin"] = max(best["builtin"], _rate("threshold", args.players, args.rounds))
        _command_seconds("threshold")  # the kernels are cached
        fresh = []
        for _ in range(args.repeats):
            path.write_text(T55 + f"# {uuid.uuid4()}\n")
            fresh.append(_command_seconds(user) - _command_seconds("threshold"))
    ratio = best["user"] / best["builtin"]
    print(f"Ronco rounds, {args.players} players, threshold 5:5, one worker, best of "
          f"{args.repeats} (wall clock)")
    print(f"  {'your function':<22}{best['user']:>14,.0f} rounds/s")
    print(f"  {'built-in':<22}{best['builtin']:>14,.0f} rounds/s")
    print(f"  {'ratio':<22}{ratio:>14.3f}")
    print(f"  {'new file, first run':<22}{min(fresh):>14.2f} s more than the built-in "
          f"(max {max(fresh):.2f} s)")
    print(json.dumps({"players": args.players, "user_rounds_per_s": best["user"],
                      "builtin_rounds_per_s": best["builtin"], "ratio": ratio,
                      "first_run_overhead_s": min(fresh),
                      "first_run_overhead_max_s": max(fresh)}))


if __name__ == "__main__":
    main()
