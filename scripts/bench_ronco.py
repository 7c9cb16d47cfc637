"""Throughput of the Ronco round kernel on one core, beside the pure-Python reference engine.

Usage: python scripts/bench_ronco.py [--rounds N] [--players N] [--reference-rounds N]

Compile time is excluded: the kernel is called once on a tiny batch before timing. The figure
printed is rounds per second on one core (one process, one thread), best of three runs.
"""

from __future__ import annotations

import argparse
import json
import time

from simcards.rng import chunk_state
from simcards.ronco import reference as ref
from simcards.ronco.kernel import record_deals, simulate_rounds
from simcards.ronco.policies import Policy
from simcards.ronco.rounds import KernelConfig
from simcards.ronco.rules import RoncoRules


def kernel_rate(cfg: KernelConfig, rounds: int) -> float:
    args = (cfg.n, cfg.kind, cfg.T, cfg.Td, cfg.p, cfg.strengths, cfg.top, cfg.ties,
            cfg.cut_king, cfg.below, cfg.counts)
    simulate_rounds(chunk_state(0, 0), 1000, *args)  # compile / load from cache
    best = 0.0
    for rep in range(3):
        state = chunk_state(1, rep)
        t0 = time.perf_counter()
        simulate_rounds(state, rounds, *args)
        best = max(best, rounds / (time.perf_counter() - t0))
    return best


def reference_rate(rules: RoncoRules, policies: list[Policy], cfg: KernelConfig,
                   rounds: int) -> float:
    cards, us = record_deals(chunk_state(2, 0), rounds, cfg.n, cfg.kind, len(cfg.strengths))
    deck = rules.deck_obj
    pols = [ref.RefPolicy(p.kind, p.T, p.Td, p.p) for p in policies]
    dealt = [([deck.card(int(c)) for c in row[:-1]], deck.card(int(row[-1]))) for row in cards]
    t0 = time.perf_counter()
    for (hand, cut), u in zip(dealt, us, strict=True):
        ref.play_round(hand, cut, pols, deck=rules.deck, cut_king=rules.cut_king.value,
                       ties=rules.ties.value, poroli=rules.poroli, uniforms=list(u))
    return rounds / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=20_000_000)
    ap.add_argument("--reference-rounds", type=int, default=100_000)
    ap.add_argument("--policy", default="threshold")
    args = ap.parse_args()
    rules = RoncoRules.make()
    policies = [Policy(args.policy, 5, 5)] * args.players
    cfg = KernelConfig.build(rules, policies)
    k = kernel_rate(cfg, args.rounds)
    r = reference_rate(rules, policies, cfg, args.reference_rounds)
    print(f"Ronco rounds, {args.players} players, {args.policy} policy, default rules, one core")
    print(f"  numba kernel:     {k:>14,.0f} rounds/s")
    print(f"  reference engine: {r:>14,.0f} rounds/s   (kernel is {k / r:,.0f}x faster)")
    print(json.dumps({"players": args.players, "policy": args.policy,
                      "kernel_rounds_per_s": k, "reference_rounds_per_s": r}))


if __name__ == "__main__":
    main()
