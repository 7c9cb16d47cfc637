"""Speed of a player's own function (Q11) in whole Ronda matches, on one core, beside greedy.

Usage: python scripts/bench_ronda_match_users.py [--matches N] [--repeats N]

Matches per second, one process, one thread, in CPU seconds of this process (best of
``--repeats``), for 2 players to 21, 2 players in classic mode to 3 hands won and 3 players
to 21: every seat ``greedy`` (the match kernel without users), then seat 0 playing ``greedy``
through the observation (``observation_kernel.greedy_under``, the match kernel with the
function called as a first-class function and its seat's match observation kept up to date),
and the ratio. Compile time is excluded: each path is called once on a tiny batch first.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from simcards.core.policyspec import PolicySpec
from simcards.core.rng import chunk_state
from simcards.core.userpolicy import load
from simcards.ronda.matches_batch import MatchConfig, matches_chunk
from simcards.ronda.rules import RondaRules

GREEDY = '''
from simcards.ronda.observation_kernel import greedy_under


def via_obs(obs, legal):
    return greedy_under(obs, legal, False, False, False)
'''
TABLES = ({"players": 2}, {"players": 2, "mode": "classic", "hands_to_win": 3},
          {"players": 3})


def _rate(rules: RondaRules, specs: list[PolicySpec], matches: int, repeats: int) -> float:
    cfg = MatchConfig.build(rules, specs, None)
    matches_chunk(chunk_state(1, 0), 16, cfg)  # compile or load outside the timing
    best = float("inf")
    for r in range(repeats):
        t0 = time.process_time()
        matches_chunk(chunk_state(2, r), matches, cfg)
        best = min(best, time.process_time() - t0)
    return matches / best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "via_obs.py"
        path.write_text(GREEDY)
        user = PolicySpec("user", (), load(f"{path}:via_obs"))
        for table in TABLES:
            rules = RondaRules.make(**table)
            n = rules.players
            builtin = [PolicySpec("greedy", ())] * n
            base = _rate(rules, builtin, args.matches, args.repeats)
            mine = _rate(rules, [user, *builtin[1:]], args.matches, args.repeats)
            name = ", ".join(f"{k} {v}" for k, v in table.items())
            print(f"{name}: greedy {base:,.0f} matches/s; one user seat {mine:,.0f} matches/s "
                  f"({mine / base:.2f} of greedy)")


if __name__ == "__main__":
    main()
