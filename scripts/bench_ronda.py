"""Throughput of the Ronda hand kernel on one core, beside the pure-Python reference engine.

Usage: python scripts/bench_ronda.py [--hands N] [--reference-hands N] [--players N]
                                     [--policy greedy|random|lookahead:1|rollout:100]
       python scripts/bench_ronda.py --readme

``--readme`` measures the figures the README states (two players: greedy, one ``lookahead:1``
seat, one ``rollout:32`` seat, kernel only), writes them to ``scripts/bench_results/ronda.json``
and rewrites the README's speeds block from it (``scripts/update_readme_speeds.py``).

Compile time is excluded: the kernel is called once on a tiny batch before timing. The figures
are whole hands per second on one core (one process, one thread), best of three runs, timed in
CPU seconds of this process so that other work on a shared machine does not distort them; the
reference engine plays hands recorded from the same kind of stream with the same policies.
Target: at least 100,000 two-player greedy hands per second.

A searching policy (``lookahead:D``, Q4; ``rollout:K``, Q5) plays seat 0 against ``greedy`` seats;
the reference engine is timed only for ``greedy`` and ``random`` (it searches far too slowly to
time in a benchmark). Targets, two players: 5,000 hands/s for ``lookahead:1`` and 200 hands/s
for ``rollout:100`` against greedy.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from simcards.core.rng import chunk_state
from simcards.ronda import codes
from simcards.ronda import reference as ref
from simcards.ronda.kernel_state import Seats
from simcards.ronda.play_kernel import record_hands, simulate_hands
from simcards.ronda.policies import policy_arrays
from simcards.ronda.rules import RondaRules

DEFAULT_HANDS = {"greedy": 300_000, "random": 300_000, "lookahead": 20_000, "rollout": 1_000}
README_POLICIES = ("greedy", "lookahead:1", "rollout:32")
"""The two-player figures the README states, each searching policy in seat 0 against greedy."""


def kernel_rate(rules: RondaRules, kinds: np.ndarray, params: np.ndarray, hands: int) -> float:
    seats = Seats(kinds, params)
    simulate_hands(chunk_state(0, 0), 10, -1, seats, rules.kernel)  # compile / load from cache
    best = 0.0
    for rep in range(3):
        state = chunk_state(1, rep)
        t0 = time.process_time()
        simulate_hands(state, hands, -1, seats, rules.kernel)
        best = max(best, hands / (time.process_time() - t0))
    return best


def reference_rate(rules: RondaRules, kinds: np.ndarray, hands: int) -> float:
    seats = Seats(kinds, np.zeros_like(kinds))
    decks, dealers, us, _ = record_hands(chunk_state(2, 0), hands, -1, seats, rules.kernel)
    options = ref.RondaOptions(**rules.summary())
    t0 = time.process_time()
    for h in range(hands):
        state = ref.HandState(options, int(dealers[h]), [int(c) for c in decks[h]])
        k = 0
        while not state.is_terminal():
            p = state.current_player()
            obs = state.observation(p)
            if kinds[p] == codes.POLICY_RANDOM:
                state.apply(ref.random_policy(obs, float(us[h, k])))
            else:
                state.apply(ref.greedy_policy(obs))
            k += 1
    return hands / (time.process_time() - t0)


def seat_specs(policy: str, players: int) -> tuple[list[str], str]:
    """The seats' policies: ``greedy`` and ``random`` everywhere, a searching policy in seat 0
    against ``greedy``; and what it plays against."""
    if policy.partition(":")[0] in ("greedy", "random"):
        return [policy] * players, policy
    return [policy] + ["greedy"] * (players - 1), "greedy"


def readme_figures() -> None:
    """Measure the README's figures, save them and rewrite the README's block."""
    import update_readme_speeds as speeds

    load = os.getloadavg()[0]
    rules = RondaRules.make(players=2)
    figures = {}
    for policy in README_POLICIES:
        kinds, params = policy_arrays(seat_specs(policy, 2)[0])
        hands = DEFAULT_HANDS[policy.partition(":")[0]]
        figures[policy] = kernel_rate(rules, kinds, params, hands)
        print(f"  {policy:<12} {figures[policy]:>12,.0f} hands/s")
    path = speeds.save_results("ronda", "python scripts/bench_ronda.py --readme", figures, load)
    print(f"wrote {path.relative_to(speeds.ROOT)}")
    speeds.main_update()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--policy", default="greedy",
                    help="greedy, random (every seat), or lookahead:D / rollout:K (seat 0, "
                         "against greedy)")
    ap.add_argument("--hands", type=int, default=None)
    ap.add_argument("--reference-hands", type=int, default=200)
    ap.add_argument("--readme", action="store_true",
                    help="measure the README's figures and rewrite its speeds block")
    args = ap.parse_args()
    if args.readme:
        readme_figures()
        return
    rules = RondaRules.make(players=args.players)
    name = args.policy.partition(":")[0]
    specs, against = seat_specs(args.policy, args.players)
    kinds, params = policy_arrays(specs)
    hands = args.hands if args.hands is not None else DEFAULT_HANDS.get(name, 1_000)
    k = kernel_rate(rules, kinds, params, hands)
    print(f"Ronda hands, {args.players} players, {args.policy} vs {against}, default rules,"
          " one core")
    print(f"  numba kernel:     {k:>12,.0f} hands/s")
    r = None
    if name in ("greedy", "random") and args.reference_hands > 0:
        r = reference_rate(rules, kinds, args.reference_hands)
        print(f"  reference engine: {r:>12,.1f} hands/s   (kernel is {k / r:,.0f}x faster)")
    print(json.dumps({"players": args.players, "policy": args.policy, "against": against,
                      "kernel_hands_per_s": k, "reference_hands_per_s": r}))


if __name__ == "__main__":
    main()
