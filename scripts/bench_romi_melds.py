"""Throughput of Römi's exact meld solver (V1-V3 of ``seeds/romi.md``) on one core.

Usage: python scripts/bench_romi_melds.py [--hands N] [--size N] [--seed N] [--json]

Hands are dealt uniformly from the 108-card deck (``--size`` cards each, 15 by default: a
player's hand after his draw). One call of ``solve_batch`` answers best_value, min_penalty and
can_go_out for every hand. Compile time is excluded (a tiny batch is solved first); the figure
is hands per second on one core (one process, one thread), best of three runs, timed in CPU
seconds of this process so that other work on a shared machine does not distort it. Dealing
the hands is not timed. Target: at least 50,000 fifteen-card hands per second.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from simcards.romi.cards import N_CARDS
from simcards.romi.melds_kernel import solve_batch


def deal(rng: np.random.Generator, hands: int, size: int) -> np.ndarray:
    """``hands`` hands of ``size`` distinct card ids, each uniform over the 108 cards."""
    keys = rng.random((hands, N_CARDS))
    return np.argpartition(keys, size, axis=1)[:, :size].astype(np.int64)


def rate(hands: np.ndarray, ace_low: int = 1) -> float:
    solve_batch(hands[:10], ace_low)  # compile / load from cache
    best = 0.0
    for _ in range(3):
        t0 = time.process_time()
        solve_batch(hands, ace_low)
        best = max(best, len(hands) / (time.process_time() - t0))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200_000)
    ap.add_argument("--size", type=int, default=15)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    hands = deal(np.random.default_rng(a.seed), a.hands, a.size)
    r = rate(hands)
    jokers = float(np.mean(np.sum(hands >= 104, axis=1)))
    if a.json:
        print(json.dumps({"hands_per_second": round(r), "hands": a.hands, "size": a.size,
                          "mean_jokers": jokers}))
    else:
        print(f"meld solver: {r:,.0f} hands of {a.size} cards per second on one core "
              f"({a.hands:,} hands, {jokers:.2f} jokers a hand on average; target 50,000)")


if __name__ == "__main__":
    main()
