"""OpenSpiel's ISMCTS bot playing two-player Ronda hands through ``simcards_ronda``, in duplicate
against one of the project's policies (``greedy`` by default, or ``rollout:32``).

Each deal set is one shuffled deck and dealer, played twice: the bot in seat 0 and the policy in
seat 1, then the seats swapped. The paired figure of a deal set is the bot's mean, over the two
hands, of its points minus the policy's (S1-S3), and of its hand result (1 for more points than
the other seat, 1/2 for equal points, 0 for fewer). Means carry 95% normal intervals over the
deal sets, which are independent. Everything is seeded: deck and dealer from the deal set's
index, the bot's random streams and the worlds it resamples from the deal set and the seat.

    .venv/bin/python scripts/openspiel_ismcts_ronda.py --deals 300 --simulations 100 \
        --opponent greedy --workers 2

Needs ``pip install 'simcards[rl]'``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from concurrent.futures import ProcessPoolExecutor


def _play(index: int, bot_seat: int, simulations: int, uct_c: float, opponent: str) -> float:
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    import simcards.openspiel  # noqa: F401  (registers the games)
    from simcards.ronda import reference as ref

    game = pyspiel.load_game("simcards_ronda", {"players": 2})
    deal = random.Random(f"deal:{index}")
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes = [o for o, _ in state.chance_outcomes()]
        state.apply_action(deal.choice(outcomes))
    seed = (index * 2 + bot_seat) % 2**31
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1,
                                            random_state=np.random.RandomState(seed))
    bot = ismcts.ISMCTSBot(game=game, evaluator=evaluator, uct_c=uct_c,
                           max_simulations=simulations,
                           random_state=np.random.RandomState(seed + 1))
    worlds = random.Random(f"worlds:{seed}")
    bot.set_resampler(lambda s, p: s.resample_from_infostate(p, worlds.random))
    other = random.Random(f"policy:{seed}")
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = [o for o, _ in state.chance_outcomes()]
            state.apply_action(deal.choice(outcomes))
            continue
        p = state.current_player()
        if p == bot_seat:
            action = bot.step(state)
        else:
            obs = state.cursor.state.hand.observation(p)
            action = ref.choose(opponent, obs, other)
        state.apply_action(action)
    r = state.returns()
    return r[bot_seat] - r[1 - bot_seat]


def _deal_set(args: tuple[int, int, float, str]) -> tuple[float, float]:
    index, simulations, uct_c, opponent = args
    margins = [_play(index, seat, simulations, uct_c, opponent) for seat in (0, 1)]
    results = [1.0 if m > 0 else 0.5 if m == 0 else 0.0 for m in margins]
    return sum(margins) / 2, sum(results) / 2


def _interval(xs: list[float]) -> tuple[float, float, float]:
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    half = 1.959964 * math.sqrt(var / n)
    return mean, mean - half, mean + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--uct-c", type=float, default=2.0)
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--first", type=int, default=0, help="index of the first deal set")
    args = parser.parse_args()
    jobs = [(i, args.simulations, args.uct_c, args.opponent)
            for i in range(args.first, args.first + args.deals)]
    start = time.perf_counter()
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            rows = list(pool.map(_deal_set, jobs, chunksize=4))
    else:
        rows = [_deal_set(j) for j in jobs]
    margin = _interval([m for m, _ in rows])
    result = _interval([w for _, w in rows])
    print(json.dumps({
        "bot": f"open_spiel ismcts, {args.simulations} simulations, uct_c {args.uct_c}, "
               "random rollouts",
        "opponent": args.opponent, "deal_sets": args.deals, "first": args.first,
        "points_margin": {"mean": margin[0], "ci95": [margin[1], margin[2]]},
        "hand_result": {"mean": result[0], "ci95": [result[1], result[2]]},
        "seconds": round(time.perf_counter() - start, 1),
    }, indent=2))


if __name__ == "__main__":
    main()
