"""Throughput of the Ronco kernels on one core, beside the pure-Python reference engine.

Usage: python scripts/bench_ronco.py [--rounds N] [--players N] [--reference-rounds N]
                                     [--games N] [--game-players N] [--lives N]

Compile time is excluded: each kernel is called once on a tiny batch before timing. The figures
printed are rounds per second and whole games per second on one core (one process, one thread),
best of three runs.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from simcards.core.rng import chunk_state, randbelow
from simcards.ronco import reference as ref
from simcards.ronco.games import GameConfig, games_chunk
from simcards.ronco.kernel import deal, record_deals, simulate_rounds
from simcards.ronco.policies import Policy
from simcards.ronco.rounds import KernelConfig
from simcards.ronco.rules import RoncoRules


def kernel_rate(cfg: KernelConfig, rounds: int) -> float:
    args = cfg.args()
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
    cards, us = record_deals(chunk_state(2, 0), rounds, cfg.n, cfg.policies.kind,
                             cfg.rules.n_cards)
    deck = rules.deck_obj
    pols = [ref.RefPolicy(p.kind, p.T, p.Td, p.p) for p in policies]
    dealt = [([deck.card(int(c)) for c in row[:-1]], deck.card(int(row[-1]))) for row in cards]
    t0 = time.perf_counter()
    for (hand, cut), u in zip(dealt, us, strict=True):
        ref.play_round(hand, cut, pols, deck=rules.deck, cut_king=rules.cut_king.value,
                       ties=rules.ties.value, poroli=rules.poroli, uniforms=list(u))
    return rounds / (time.perf_counter() - t0)


def game_rate(cfg: GameConfig, games: int) -> float:
    games_chunk(chunk_state(0, 0), 10, cfg)  # compile / load from cache
    best = 0.0
    for rep in range(3):
        t0 = time.perf_counter()
        games_chunk(chunk_state(3, rep), games, cfg)
        best = max(best, games / (time.perf_counter() - t0))
    return best


def reference_game_rate(rules: RoncoRules, policies: list[Policy], lives: int,
                        games: int) -> float:
    deck = rules.deck_obj
    state = chunk_state(4, 0)
    perm = np.arange(len(deck))
    pols = [ref.RefPolicy(p.kind, p.T, p.Td, p.p) for p in policies]

    def next_deal(k: int):
        deal(state, perm, k + 1)
        return [deck.card(int(c)) for c in perm[:k]], deck.card(int(perm[k])), [0.0] * k

    t0 = time.perf_counter()
    for _ in range(games):
        ref.play_game(len(policies), lives, pols, int(randbelow(state, len(policies))),
                      next_deal, deck=rules.deck)
    return games / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=20_000_000)
    ap.add_argument("--reference-rounds", type=int, default=100_000)
    ap.add_argument("--policy", default="threshold")
    ap.add_argument("--games", type=int, default=500_000)
    ap.add_argument("--game-players", type=int, default=8)
    ap.add_argument("--lives", type=int, default=7)
    ap.add_argument("--reference-games", type=int, default=300)
    args = ap.parse_args()
    rules = RoncoRules.make()
    policies = [Policy(args.policy, 5, 5)] * args.players
    cfg = KernelConfig.build(rules, policies)
    k = kernel_rate(cfg, args.rounds)
    r = reference_rate(rules, policies, cfg, args.reference_rounds)
    print(f"Ronco rounds, {args.players} players, {args.policy} policy, default rules, one core")
    print(f"  numba kernel:     {k:>14,.0f} rounds/s")
    print(f"  reference engine: {r:>14,.0f} rounds/s   (kernel is {k / r:,.0f}x faster)")
    gpol = [Policy(args.policy, 5, 5)] * args.game_players
    gcfg = GameConfig.build(rules, gpol, args.lives, None)
    g = game_rate(gcfg, args.games)
    rg = reference_game_rate(rules, gpol, args.lives, args.reference_games)
    print(f"Ronco games, {args.game_players} players, {args.lives} lives, {args.policy} policy,"
          " one core")
    print(f"  numba kernel:     {g:>14,.0f} games/s")
    print(f"  reference engine: {rg:>14,.1f} games/s   (kernel is {g / rg:,.0f}x faster)")
    print(json.dumps({"players": args.players, "policy": args.policy,
                      "kernel_rounds_per_s": k, "reference_rounds_per_s": r,
                      "game_players": args.game_players, "lives": args.lives,
                      "kernel_games_per_s": g, "reference_games_per_s": rg}))


if __name__ == "__main__":
    main()
