"""Throughput of the Ronda hand kernel on one core, beside a hand-specialised yardstick and the
pure-Python reference engine.

Usage: python scripts/bench_ronda.py [--policies random,greedy] [--hands N] [--players N]
                                     [--repeats N] [--limit PATH] [--engine values|workspace]
                                     [--reference-hands N]
       python scripts/bench_ronda.py --readme

Each policy of ``--policies`` is timed in turn: ``random`` and ``greedy`` in every seat, a
searching policy (``lookahead:D``, Q4; ``rollout:K``, Q5; ``ismcts:N[:C]``, Q8; or the
all-seeing bound ``seeing:N[:C]``, Q9) in seat 0 against ``greedy`` seats.
The default times ``random`` and ``greedy``.

The yardstick is a hand-specialised kernel for two players, default rules and random play, kept
outside the project at ``../shared/bench/ronda_limit.py`` from the repository root unless
``--limit`` says otherwise. It is loaded at run time, and its ``play_hands(hands, seed)`` is
timed beside every two-player default-rules run, the runs of the two alternating so that load
from other processes hits both alike; the ratio project / yardstick, the median over repeats of
each run's ratio to the yardstick's run beside it, is printed for each policy
(for ``greedy`` too: the yardstick plays random, and greedy weighs up to four candidates a
play). Without the file the ratios are skipped.

``--engine workspace`` times the hands on the hand's workspace (``play_kernel.
simulate_hands_on_workspace``), the path searching seats take, instead of the loop on card
values that ``simcards ronda hands`` runs for random and greedy seats.

``--readme`` measures the figures the README states (two players: random, greedy, one
``lookahead:1`` seat, one ``rollout:32`` seat, kernel only, with the yardstick's ratios),
writes them to ``scripts/bench_results/ronda.json`` and rewrites the README's speeds block
from it (``scripts/update_readme_speeds.py``).

Compile time is excluded: each kernel is called once on a tiny batch before timing. The figures
are whole hands per second on one core (one process, one thread), best of ``--repeats`` runs,
timed in CPU seconds of this process so that other work on a shared machine does not distort
them. The reference engine plays hands recorded from the same kind of stream with the same
policies, for ``greedy`` and ``random`` only (it searches far too slowly to time).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from yardsticks import BENCH, load_limit

from simcards.core.rng import chunk_state
from simcards.ronda import codes
from simcards.ronda import reference as ref
from simcards.ronda.hands_batch import simulate_hands, simulate_hands_on_workspace
from simcards.ronda.kernel_state import Seats
from simcards.ronda.play_kernel import record_hands
from simcards.ronda.policies import policy_arrays
from simcards.ronda.rules import RondaRules

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_LIMIT = BENCH / "ronda_limit.py"
DEFAULT_HANDS = {"greedy": 1_000_000, "random": 1_000_000, "lookahead": 20_000,
                 "rollout": 1_000, "ismcts": 200, "seeing": 200}
README_POLICIES = ("random", "greedy", "lookahead:1", "rollout:32")
"""The two-player figures the README states, each searching policy in seat 0 against greedy."""
ENGINES = {"values": simulate_hands, "workspace": simulate_hands_on_workspace}


def rates(rules: RondaRules, seats: Seats, hands: int, repeats: int,
          limit=None, engine: str = "values") -> tuple[float, float | None, float | None]:
    """Best hands/s of the project's kernel and, when ``limit`` is given, of the yardstick on
    as many hands, and the median over repeats of the ratio of each run to the yardstick's run
    beside it (None without a yardstick).

    Why the median of paired ratios: on a shared machine the processor's speed drifts by tens
    of percent within a minute, so two best-of figures may come from different moments; a run
    and its neighbour share the moment, and the median is not moved by one lucky or unlucky
    pair. The runs alternate in order (kernel first, then yardstick first) so that neither is
    always the one that runs warm."""
    run = ENGINES[engine]
    run(chunk_state(0, 0), 10, -1, seats, rules.kernel)  # compile / load from cache
    if limit is not None:
        limit.play_hands(1000, 1)  # compile
    best_k = 0.0
    best_l = 0.0
    ratios = []
    for rep in range(repeats):
        state = chunk_state(1, rep)
        k = lim = 0.0
        for turn in ((0, 1) if rep % 2 == 0 else (1, 0)):
            t0 = time.process_time()
            if turn == 0:
                run(state, hands, -1, seats, rules.kernel)
                k = hands / (time.process_time() - t0)
            elif limit is not None:
                limit.play_hands(hands, 12345 + rep)
                lim = hands / (time.process_time() - t0)
        best_k = max(best_k, k)
        if limit is not None:
            best_l = max(best_l, lim)
            ratios.append(k / lim)
    if limit is None:
        return best_k, None, None
    return best_k, best_l, float(np.median(ratios))


def reference_rate(rules: RondaRules, kinds: np.ndarray, hands: int) -> float:
    seats = Seats(kinds, np.zeros_like(kinds), np.zeros(len(kinds)))
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


def readme_figures(limit_path: Path) -> None:
    """Measure the README's figures, save them and rewrite the README's block."""
    import update_readme_speeds as speeds

    load = os.getloadavg()[0]
    rules = RondaRules.make(players=2)
    limit = load_limit(limit_path)
    figures: dict[str, float] = {}
    for policy in README_POLICIES:
        seats = policy_arrays(seat_specs(policy, 2)[0])
        hands = DEFAULT_HANDS[policy.partition(":")[0]]
        plain = policy in ("random", "greedy")
        k, lim, ratio = rates(rules, seats, hands, 7 if plain else 3,
                              limit if plain else None)
        figures[policy] = k
        line = f"  {policy:<12} {k:>12,.0f} hands/s"
        if lim is not None:
            figures[f"{policy} yardstick"] = lim
            figures[f"{policy} ratio"] = ratio
            line += f"   yardstick {lim:>12,.0f}   ratio {ratio:.3f} (median of 7 paired runs)"
        print(line)
    path = speeds.save_results("ronda", "python scripts/bench_ronda.py --readme", figures, load)
    print(f"wrote {path.relative_to(speeds.ROOT)}")
    speeds.main_update()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--policies", default="random,greedy",
                    help="comma-separated: greedy, random (every seat), or lookahead:D / "
                         "rollout:K / ismcts:N[:C] / seeing:N[:C] (seat 0, against greedy)")
    ap.add_argument("--policy", dest="policies", help="one policy (the same as --policies)")
    ap.add_argument("--hands", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--limit", type=Path, default=DEFAULT_LIMIT,
                    help="the yardstick kernel (default: ../shared/bench/ronda_limit.py)")
    ap.add_argument("--engine", choices=sorted(ENGINES), default="values",
                    help="values: the loop simcards runs for random and greedy seats; "
                         "workspace: the hand's workspace, as searching seats play")
    ap.add_argument("--reference-hands", type=int, default=200)
    ap.add_argument("--readme", action="store_true",
                    help="measure the README's figures and rewrite its speeds block")
    args = ap.parse_args()
    if args.readme:
        readme_figures(args.limit)
        return
    rules = RondaRules.make(players=args.players)
    limit = load_limit(args.limit) if args.players == 2 else None
    if args.players == 2 and limit is None:
        print(f"yardstick {args.limit} not found: timing the project kernel alone, no ratio")
    for policy in args.policies.split(","):
        name = policy.partition(":")[0]
        specs, against = seat_specs(policy, args.players)
        seats = policy_arrays(specs)
        hands = args.hands if args.hands is not None else DEFAULT_HANDS.get(name, 1_000)
        plain = name in ("greedy", "random")
        k, lim, ratio = rates(rules, seats, hands, args.repeats, limit if plain else None,
                              args.engine)
        print(f"Ronda hands, {args.players} players, {policy} vs {against}, default rules,"
              f" one core, {args.engine} engine")
        print(f"  numba kernel:     {k:>12,.0f} hands/s")
        if lim is not None:
            print(f"  yardstick:        {lim:>12,.0f} hands/s   (ratio project/yardstick "
                  f"{ratio:.3f}, the median of {args.repeats} paired runs)")
        r = None
        if plain and args.reference_hands > 0:
            r = reference_rate(rules, seats.kinds, args.reference_hands)
            print(f"  reference engine: {r:>12,.1f} hands/s   (kernel is {k / r:,.0f}x faster)")
        print(json.dumps({"players": args.players, "policy": policy, "against": against,
                          "engine": args.engine, "kernel_hands_per_s": k,
                          "limit_hands_per_s": lim,
                          "ratio": ratio,
                          "reference_hands_per_s": r}))


if __name__ == "__main__":
    main()
