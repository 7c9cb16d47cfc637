"""Tabular learning of one Ronco seat's keep decision through the Gymnasium environment, checked
against the exact best reply (``bayes``, rule S4).

Four players, one round (``ronco_v0``); the other three play ``threshold:5:5``. Each episode
puts the learner at one position (0 .. 3 in turn, the dealer last): the environment deals, the
field acts up to the learner, the learner keeps or passes (the dealer: keeps or cuts), the field
finishes the round, and the reward is minus the lives lost. The learner sees only the
environment's observation vector and keeps, for each observation and action, the mean reward
of the episodes where it took that action there (Monte Carlo evaluation with uniformly random
exploration: every action tried equally often, so each mean converges to the action's expected
reward in that information state). Its learned rule takes the action with the higher mean
(equal means keep, as ``bayes`` does).

The check: ``simcards.ronco.bayes_exact`` knows every information state of each position with
its exact probability and the exact expected loss of both actions. The score is the share of
information states, weighted by their probability (positions weighted equally), where the
learned action is the ``bayes`` action; ``optimal`` also counts states where both actions lose
exactly as much. Reported at checkpoints, with the training time.

    .venv/bin/python scripts/learn_ronco.py --episodes 2M --seed 1

Needs ``pip install 'simcards[rl]'``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import defaultdict

import numpy as np


def _count(text: str) -> int:
    from simcards.core.cli_options import parse_count

    return parse_count(text, "--episodes")


def learn(episodes: int, checkpoints: int = 8, seed: int = 1, field: str = "threshold:5:5",
          echo: bool = False) -> list[dict]:
    """Train for ``episodes`` and score the learned rule at ``checkpoints`` even steps."""
    from simcards.envs import seat_env
    from simcards.ronco import bayes_exact
    from simcards.ronco import reference as ref
    from simcards.ronco.policies import Policy
    from simcards.ronco.rules import RoncoRules

    players = 4
    rules = RoncoRules.make()
    kind, t, td = field.split(":")
    table = bayes_exact.game_table(rules, players, Policy(kind, int(t), int(td)))
    names = ("keep", "swap", "refused")
    exact: dict[tuple, tuple[float, float, float]] = {}
    for i in range(table.size):
        if int(table.k[i]) != players:
            continue
        pos, h = int(table.pos[i]), int(table.hist[i])
        digits = []
        for _ in range(pos):
            h, r = divmod(h, 3)
            digits.append(names[r])
        dealt = int(table.dealt[i])
        key = (pos, tuple(reversed(digits)), int(table.card[i]), None if dealt < 0 else dealt)
        exact[key] = (float(table.weight[i]), float(table.loss_keep[i]),
                      float(table.loss_pass[i]))

    envs = [seat_env("ronco_v0", seat=pos, policies=field, players=players)
            for pos in range(players)]
    for pos, env in enumerate(envs):
        env.reset(seed=seed * 10 + pos)
    explore = random.Random(seed)
    total = defaultdict(lambda: np.zeros(2))
    count = defaultdict(lambda: np.zeros(2))
    exact_key: dict[bytes, tuple] = {}

    def agreement() -> dict[str, float]:
        learned: dict[tuple, int] = {}
        for k, c in count.items():
            mean = np.divide(total[k], c, out=np.full(2, -np.inf), where=c > 0)
            learned[exact_key[k]] = 0 if mean[0] >= mean[1] else 1
        same = best = 0.0
        for key, (w, keep_loss, pass_loss) in exact.items():
            bayes = 0 if keep_loss <= pass_loss + 1e-12 else 1
            action = learned.get(key)
            if action is None:
                continue
            same += w * (action == bayes)
            loss = (keep_loss, pass_loss)
            best += w * (loss[action] <= min(loss) + 1e-12)
        return {"same_as_bayes": same / players, "optimal": best / players,
                "states_met": len(learned), "states": len(exact)}

    start = time.perf_counter()
    marks = {int(episodes * (j + 1) / checkpoints) for j in range(checkpoints)}
    rows = []
    for e in range(1, episodes + 1):
        pos = e % players
        env = envs[pos]
        obs, _ = env.reset()
        key = obs["observation"].tobytes()
        if key not in exact_key:
            rs = env.cursor.state
            view = rs.decision_view()
            card = ref.strength(view.current, poroli=rules.poroli)
            dealt = (ref.strength(view.dealt_card, poroli=rules.poroli)
                     if view.swapped_with_previous else None)
            exact_key[key] = (pos, view.history, card, dealt)
        action = explore.randrange(2)
        _, reward, done, _, _ = env.step(action)
        assert done
        total[key][action] += reward
        count[key][action] += 1
        if e in marks:
            rows.append({"episodes": e, "seconds": round(time.perf_counter() - start, 1),
                         **agreement()})
            if echo:
                print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", default="2M")
    parser.add_argument("--checkpoints", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--field", default="threshold:5:5")
    args = parser.parse_args()
    rows = learn(_count(args.episodes), args.checkpoints, args.seed, args.field, echo=True)
    print(json.dumps({"players": 4, "field": args.field, "seed": args.seed,
                      "checkpoints": rows}, indent=2))


if __name__ == "__main__":
    main()
