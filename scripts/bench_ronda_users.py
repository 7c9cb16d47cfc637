"""Speed of a player's own function (Q11) in Ronda hands, on one core, beside built-in greedy.

Usage: python scripts/bench_ronda_users.py [--hands N] [--repeats N] [--players N]

Two figures:

* hands per second, one process, one thread, in CPU seconds of this process (best of
  ``--repeats``): every seat ``greedy`` (the built-in path, on card values), then seat 0 playing
  a function of yours that plays its lowest card against ``greedy`` seats (the function called
  as a first-class function from the hand loop, its seat's observation kept up to date: with
  two players the loop on card values with the cards by id, ``ronda/user_hands_kernel.py``),
  then seat 0 playing ``greedy`` through the observation (``observation_kernel.greedy``), and
  the ratios to all-greedy;
* the first-run overhead of a policy file never seen before, on a warm cache: the wall time of
  ``simcards ronda hands --hands 1000`` with a freshly written file in seat 0, minus the same
  command with ``greedy`` there (both fresh processes; the difference is the function's own
  compilation and loading the kernels compiled for every user function).

Compile time of the kernels is excluded from the first figure: each path is called once on a
tiny batch before timing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from simcards.core.policyspec import PolicySpec
from simcards.core.rng import chunk_state
from simcards.core.userpolicy import load
from simcards.ronda.hands_batch import HandConfig, hands_chunk
from simcards.ronda.rules import RondaRules

LOWEST = Path(__file__).parent / "strategies" / "ronda_lowest.py"
GREEDY = '''
from simcards.ronda.observation_kernel import greedy


def via_obs(obs, legal):
    return greedy(obs, legal)
'''
ROOT = Path(__file__).resolve().parent.parent


def _rate(rules: RondaRules, specs: list[PolicySpec], hands: int, repeats: int) -> float:
    cfg = HandConfig.build(rules, specs, None)
    hands_chunk(chunk_state(1, 0), 64, cfg)  # compile or load outside the timing
    best = float("inf")
    for r in range(repeats):
        t0 = time.process_time()
        hands_chunk(chunk_state(2, r), hands, cfg)
        best = min(best, time.process_time() - t0)
    return hands / best


def _wall(policies: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "simcards", "ronda", "hands", "--policies", policies,
                    "--hands", "1000", "--workers", "1", "--store", "none", "--json"],
                   check=True, env=env, capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--players", type=int, default=2)
    args = ap.parse_args()
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    rules = RondaRules.make(players=args.players)
    greedy = PolicySpec("greedy", ())
    rest = [greedy] * (args.players - 1)
    with tempfile.TemporaryDirectory() as tmp:
        low = Path(tmp, "lowest.py")
        low.write_text(LOWEST.read_text())
        via = Path(tmp, "via_obs.py")
        via.write_text(GREEDY)
        base = _rate(rules, [greedy, *rest], args.hands, args.repeats)
        user = _rate(rules, [PolicySpec("user", (), load(f"{low}:lowest")), *rest], args.hands,
                     args.repeats)
        obs_greedy = _rate(rules, [PolicySpec("user", (), load(f"{via}:via_obs")), *rest],
                           args.hands, args.repeats)
        print(f"{args.players} players, one core: greedy everywhere {base:,.0f} hands/s; "
              f"lowest card (yours) in seat 0 {user:,.0f} hands/s ({user / base:.2f} of "
              f"greedy); greedy through the observation in seat 0 {obs_greedy:,.0f} hands/s "
              f"({obs_greedy / base:.2f})")
        fresh = Path(tmp, "fresh.py")
        fresh.write_text(LOWEST.read_text() + f"\n# {time.time_ns()}\n")
        _wall("greedy")  # warm the file system cache alike
        built_in = _wall("greedy")
        new = _wall(f"{fresh}:lowest,greedy")
        print(f"first run of a new policy file: {new:.2f} s wall for 1000 hands, built-in "
              f"{built_in:.2f} s: overhead {new - built_in:.2f} s")


if __name__ == "__main__":
    main()
