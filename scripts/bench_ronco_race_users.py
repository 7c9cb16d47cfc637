"""Speed of ``best-threshold`` against a field of the user's (rules S5, S6) beside the built-in
field it imitates: the same race, one worker.

Usage: python scripts/bench_ronco_race_users.py [--players N] [--lives N] [--games N]
[--repeats N]

The field is ``threshold:5:5`` three ways: the built-in (every seat's decision fused into the
game kernel's threshold pass), a function written from the ``ronco_game_v0`` observation's
readers (asked at its every decision through the game kernel's compiled user seats, the
observation kept up to date as it goes) and the keep chart exported from the function (looked
up as ``bayes`` is). Every candidate of the threshold grid plays ``--games`` games (one stage,
no equilibrium iteration, no gains), so the three runs play the same games and give the same
answer; the best of ``--repeats`` runs of each, alternating, is kept (wall clock, compile time
excluded: each is run once on a small count first).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import simcards.ronco

T55 = '''
from simcards.ronco.observation_kernel import card


def t55(obs, legal):
    """threshold:5:5 under spanish40 (the value 5 is class 4), dealer or not."""
    return 0 if card(obs) >= 4 else 1
'''


def _race(field: str, players: int, lives: int, games: int) -> tuple[float, dict]:
    t0 = time.perf_counter()
    out = simcards.ronco.best_threshold(players=players, lives=lives, field=field,
                                        first_stage=games, max_games=games, min_games=games,
                                        gain_games=0, max_iterations=0, workers=1,
                                        store="none").to_dict()
    return time.perf_counter() - t0, out["rows"][0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--lives", type=int, default=7)
    ap.add_argument("--games", type=int, default=8192)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mine.py"
        path.write_text(T55)
        user = f"{path}:t55"
        parts: list[str] = []
        for n in range(args.players, 1, -1):  # a game of n meets every table size down to 2
            out = Path(tmp) / f"c{n}.csv"
            simcards.ronco.chart(players=n, policy=user, out=str(out))
            lines = out.read_text().splitlines(keepends=True)
            parts.extend(lines if not parts else lines[1:])
        chart = Path(tmp) / "t55.csv"
        chart.write_text("".join(parts))
        fields = {"built-in": "threshold:5:5", "your function": user, "chart": f"chart:{chart}"}
        for field in fields.values():
            _race(field, args.players, args.lives, 64)
        best = dict.fromkeys(fields, float("inf"))
        rows = {}
        for _ in range(args.repeats):
            for name, field in fields.items():
                seconds, rows[name] = _race(field, args.players, args.lives, args.games)
                best[name] = min(best[name], seconds)
    same = {k: v for k, v in rows["built-in"].items() if k not in ("field", "best_response_path")}
    agree = all({k: r[k] for k in same} == same for r in rows.values())
    games = rows["built-in"]["candidate_games"]
    print(f"Ronco best-threshold, {args.players} players, {args.lives} lives, field "
          f"threshold:5:5, {games:,} candidate games, one worker, best of {args.repeats}")
    for name in fields:
        print(f"  {name:<16}{best[name]:>8.2f} s {games / best[name]:>14,.0f} games/s "
              f"{best['built-in'] / best[name]:>7.3f} of the built-in")
    print(f"  same answer: {agree}")
    print(json.dumps({"players": args.players, "lives": args.lives,
                      "candidate_games": games, "seconds": best, "same_answer": agree}))


if __name__ == "__main__":
    main()
