"""How often ``ronda advise``'s best card agrees with ``ismcts:N``'s choice, beside how often
two runs of ``ismcts:N`` with different seeds agree with each other (rule Q12), on positions
of real play in the middle of a hand (the stock not empty, the mover holding two values or
more).

    .venv/bin/python scripts/advise_agreement.py [--positions 200] [--iterations 1000]
        [--players 2] [--seed 1]

The advice ranks the cards by their mean margin over the search's iterations; ``ismcts``
plays its most visited card. Prints both rates with their 95% Wilson intervals.
"""

from __future__ import annotations

import argparse
import random
import time

from simcards.core.stats import wilson
from simcards.ronda import api
from simcards.ronda import reference as ref
from simcards.ronda.terminal import position_fields


def mid_hand(rng: random.Random, players: int) -> ref.HandState:
    """A position of greedy play (with some random moves) with cards still in the stock."""
    options = ref.RondaOptions(players=players)
    while True:
        state = ref.HandState(options, rng.randrange(players), rng.sample(range(40), 40))
        stop = rng.randrange(4, 28)
        for k in range(40):
            p = state.current_player()
            hand = state.hands[p]
            if k >= stop and state.stock and len({c // 4 for c in hand}) > 1:
                return state
            obs = state.observation(p)
            state.apply(ref.greedy_policy(obs) if rng.random() < 0.7 else rng.choice(hand))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    advice_agrees = runs_agree = 0
    start = time.process_time()
    for i in range(args.positions):
        state = mid_hand(rng, args.players)
        obs = state.observation(state.current_player())
        out = api.advise(players=args.players, iterations=args.iterations, seed=3 * i,
                         **position_fields(obs)).data
        best = ref.parse_card(out["moves"][0]["card"]) // 4
        a = ref.ismcts_policy(obs, random.Random(3 * i + 1), n=args.iterations) // 4
        b = ref.ismcts_policy(obs, random.Random(3 * i + 2), n=args.iterations) // 4
        advice_agrees += best == a
        runs_agree += a == b
    n = args.positions
    seconds = (time.process_time() - start) / (3 * n)
    for name, k in (("advise's best card = ismcts's choice", advice_agrees),
                    ("two ismcts runs agree", runs_agree)):
        lo, hi = wilson(k, n)
        print(f"{name}: {k}/{n} = {k / n:.3f} [{float(lo):.3f}, {float(hi):.3f}]")
    print(f"{args.players} players, ismcts:{args.iterations}: {seconds:.2f} s of CPU a search")


if __name__ == "__main__":
    main()
