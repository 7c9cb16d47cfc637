"""How long the ``bayes`` decision tables (rule S4) take to compute, by table size.

Usage: python scripts/bench_ronco_bayes.py [--players N] [--readme]

A game of n players needs the tables of every table size 2 .. n (players drop out), each
computed once per rules and field and then kept on disk. This computes them afresh (never read
back from that disk cache), against the field the reports use (``threshold:5:5``), with the
kernel compiled beforehand, and prints for each n the seconds that the tables of 2 .. n took
together, in CPU time of the one thread that computes them (so that other work on a shared
machine does not inflate them). ``--readme`` writes the figures to
``scripts/bench_results/ronco_bayes.json`` and rewrites the README's block that states them
(``scripts/update_readme_speeds.py``).
"""

from __future__ import annotations

import argparse
import os
import time

from simcards.ronco import bayes_exact
from simcards.ronco.policies import Policy
from simcards.ronco.rules import RoncoRules

FIELD = Policy("threshold", 5, 5)


def table_seconds(players: int) -> dict[int, float]:
    """For n = 2 .. ``players``: seconds to compute the tables of sizes 2 .. n."""
    rules = RoncoRules.make()
    bayes_exact._compiled()  # compile (or load) the kernel first: not part of the timing
    total = 0.0
    out = {}
    for k in range(2, players + 1):
        t0 = time.thread_time()
        bayes_exact._build(rules, k, [FIELD] * k, [True] * k)
        total += time.thread_time() - t0
        out[k] = total
        print(f"  {k:>2} players: {total:>8.2f} s (tables 2 .. {k})", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=bayes_exact.MAX_BAYES_PLAYERS)
    ap.add_argument("--readme", action="store_true",
                    help="save the figures and rewrite the README's block from them")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    seconds = table_seconds(args.players)
    if args.readme:
        import update_readme_speeds as speeds

        figures = {"field": FIELD.spec(), "seconds_by_players": {str(k): v for k, v in
                                                                 seconds.items() if k >= 3}}
        path = speeds.save_results("ronco_bayes", "python scripts/bench_ronco_bayes.py --readme",
                                   figures, load)
        print(f"wrote {path.relative_to(speeds.ROOT)}")
        speeds.main_update()


if __name__ == "__main__":
    main()
