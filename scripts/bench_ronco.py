"""Throughput of the Ronco kernels on one core, beside a hand-specialised yardstick and the
pure-Python reference engine.

Usage: python scripts/bench_ronco.py [--rounds N] [--players N] [--threshold T]
                                     [--dealer-threshold TD] [--repeats N] [--limit PATH]
                                     [--clock cpu|wall] [--games N] [--game-players N]
                                     [--lives N] [--reference-rounds N] [--reference-games N]

The yardstick is a hand-specialised round kernel (default rules, threshold policy) kept outside
the project, at ``../shared/bench/ronco_limit.py`` from the repository root unless ``--limit``
says otherwise; it is loaded at run time and its ``play_rounds(n, rounds, t, td, seed)`` timed
beside the project's ``simulate_rounds`` on the same table. Without the file the ratio is
skipped. Whole games are timed with every player on the threshold policy (S1) and again with
every player informed (S2), the family whose races and certificates the best-threshold report
plays.

Compile time is excluded: each kernel is called once on a tiny batch before timing. Runs of the
project kernel and of the yardstick alternate, so that load from other processes hits both
alike, and the best of ``--repeats`` runs is kept. The default clock is the thread's CPU time
(the time the core actually spent on the run, which other processes on a shared machine do not
inflate); ``--clock wall`` uses the wall clock instead.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from yardsticks import BENCH, load_limit

from simcards.core.rng import chunk_state
from simcards.core.rng_kernel import randbelow
from simcards.ronco import reference as ref
from simcards.ronco.games_batch import GameConfig, games_chunk
from simcards.ronco.policies import Policy
from simcards.ronco.round_kernel import deal, record_deals, simulate_rounds
from simcards.ronco.rounds_batch import KernelConfig
from simcards.ronco.rules import RoncoRules

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_LIMIT = BENCH / "ronco_limit.py"
CLOCKS = {"cpu": time.thread_time, "wall": time.perf_counter}


def timed(clock, fn) -> float:
    t0 = clock()
    fn()
    return clock() - t0


def round_rates(cfg: KernelConfig, limit, rounds: int, t: int, td: int, repeats: int,
                clock) -> tuple[float, float | None]:
    """Best rounds/s of the project kernel and of the yardstick, runs interleaved."""
    args = (*cfg.args(), None)  # no user functions (S5)
    simulate_rounds(chunk_state(0, 0), 1000, *args)  # compile / load from cache
    if limit is not None:
        limit.play_rounds(cfg.n, 1000, t, td, 0)  # compile
    best_k = 0.0
    best_l = 0.0
    for rep in range(repeats):
        state = chunk_state(1, rep)
        best_k = max(best_k, rounds / timed(clock, lambda s=state: simulate_rounds(s, rounds,
                                                                                 *args)))
        if limit is not None:
            best_l = max(best_l, rounds / timed(
                clock, lambda r=rep: limit.play_rounds(cfg.n, rounds, t, td, r + 1)))
    return best_k, (best_l if limit is not None else None)


def reference_rate(rules: RoncoRules, policies: list[Policy], cfg: KernelConfig,
                   rounds: int, clock) -> float:
    cards, us = record_deals(chunk_state(2, 0), rounds, cfg.n, cfg.policies.kind,
                             cfg.rules.n_cards)
    deck = rules.deck_obj
    pols = [ref.RefPolicy(p.kind, p.T, p.Td, p.p) for p in policies]
    dealt = [([deck.card(int(c)) for c in row[:-1]], deck.card(int(row[-1]))) for row in cards]
    t0 = clock()
    for (hand, cut), u in zip(dealt, us, strict=True):
        ref.play_round(hand, cut, pols, deck=rules.deck, cut_king=rules.cut_king,
                       ties=rules.ties, poroli=rules.poroli, uniforms=list(u))
    return rounds / (clock() - t0)


def game_rate(cfg: GameConfig, games: int, repeats: int, clock) -> float:
    games_chunk(chunk_state(0, 0), 10, cfg)  # compile / load from cache
    best = 0.0
    for rep in range(repeats):
        state = chunk_state(3, rep)
        best = max(best, games / timed(clock, lambda s=state: games_chunk(s, games, cfg)))
    return best


def reference_game_rate(rules: RoncoRules, policies: list[Policy], lives: int,
                        games: int, clock) -> float:
    deck = rules.deck_obj
    state = chunk_state(4, 0)
    perm = np.arange(len(deck))
    pols = [ref.RefPolicy(p.kind, p.T, p.Td, p.p) for p in policies]

    def next_deal(k: int):
        deal(state, perm, k + 1)
        return [deck.card(int(c)) for c in perm[:k]], deck.card(int(perm[k])), [0.0] * k

    t0 = clock()
    for _ in range(games):
        ref.play_game(len(policies), lives, pols, int(randbelow(state, len(policies))),
                      next_deal, deck=rules.deck)
    return games / (clock() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=20_000_000)
    ap.add_argument("--threshold", type=int, default=5)
    ap.add_argument("--dealer-threshold", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--limit", type=Path, default=DEFAULT_LIMIT,
                    help="the yardstick kernel (default: ../shared/bench/ronco_limit.py)")
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    ap.add_argument("--reference-rounds", type=int, default=100_000)
    ap.add_argument("--games", type=int, default=500_000)
    ap.add_argument("--game-players", type=int, default=8)
    ap.add_argument("--lives", type=int, default=7)
    ap.add_argument("--reference-games", type=int, default=300)
    args = ap.parse_args()
    clock = CLOCKS[args.clock]
    t, td = args.threshold, args.dealer_threshold
    rules = RoncoRules.make()
    policies = [Policy("threshold", t, td)] * args.players
    cfg = KernelConfig.build(rules, policies)
    limit = load_limit(args.limit)
    if limit is None:
        print(f"yardstick {args.limit} not found: timing the project kernel alone, no ratio")
    k, lim = round_rates(cfg, limit, args.rounds, t, td, args.repeats, clock)
    r = reference_rate(rules, policies, cfg, args.reference_rounds, clock)
    gpol = [Policy("threshold", t, td)] * args.game_players
    gcfg = GameConfig.build(rules, gpol, args.lives, None)
    g = game_rate(gcfg, args.games, args.repeats, clock)
    ipol = [Policy("informed", t, td)] * args.game_players
    gi = game_rate(GameConfig.build(rules, ipol, args.lives, None), args.games, args.repeats,
                   clock)
    rg = reference_game_rate(rules, gpol, args.lives, args.reference_games, clock)

    print(f"Ronco rounds, {args.players} players, threshold {t}:{td}, default rules, one core"
          f" ({args.clock} clock, best of {args.repeats})")
    print(f"  {'project kernel':<22}{k:>14,.0f} rounds/s")
    if lim is not None:
        print(f"  {'yardstick (limit)':<22}{lim:>14,.0f} rounds/s")
        print(f"  {'ratio project/limit':<22}{k / lim:>14.3f}")
    print(f"  {'reference engine':<22}{r:>14,.0f} rounds/s   (kernel is {k / r:,.0f}x faster)")
    print(f"Ronco games, {args.game_players} players, {args.lives} lives, threshold {t}:{td},"
          " one core")
    print(f"  {'project kernel':<22}{g:>14,.0f} games/s")
    print(f"  {'reference engine':<22}{rg:>14,.1f} games/s   (kernel is {g / rg:,.0f}x faster)")
    print(f"  {'informed players':<22}{gi:>14,.0f} games/s   (every player informed:{t}:{td})")
    print(json.dumps({"players": args.players, "threshold": t, "dealer_threshold": td,
                      "clock": args.clock, "kernel_rounds_per_s": k, "limit_rounds_per_s": lim,
                      "ratio": None if lim is None else k / lim,
                      "reference_rounds_per_s": r, "game_players": args.game_players,
                      "lives": args.lives, "kernel_games_per_s": g,
                      "kernel_informed_games_per_s": gi,
                      "reference_games_per_s": rg}))


if __name__ == "__main__":
    main()
