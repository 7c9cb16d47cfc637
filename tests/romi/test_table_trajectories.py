"""The table engine's legal moves (``table_legal``) against the engine that asked the reference
for them at every step: random-legal-move rounds of ``romi_v0`` recorded with that engine, 2 to
5 players, replayed move by move here. Every step's observation of every seat, action mask,
rewards, terminations and infos must be the recorded ones (one digest per round, so a change
anywhere in a round shows), and the recorded rounds play swaps (J1) and lay jokers (M4).

The recording (``table_trajectories.json``) was made by this module's :func:`record` run on the
engine before ``table_legal`` (``python -m tests.romi.test_table_trajectories``): 300 rounds,
40,673 steps, 514 swaps."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from simcards.envs import romi_v0
from simcards.romi import table_codes as T
from tests import sizes

DATA = Path(__file__).with_name("table_trajectories.json")
ROUNDS = 300
"""Recorded rounds: seed ``i`` plays with ``2 + i % 4`` players."""
STEP_CAP = 400
"""Steps played per round at most (a round of random moves rarely ends sooner: it stops here)."""
QUICK_STEPS = 24
"""Steps replayed per round by ``make test`` (the digest is also kept at this step), on the
first :data:`QUICK_ROUNDS` rounds; ``--full`` replays every round to :data:`STEP_CAP`."""
QUICK_ROUNDS = 200


def record(seed: int, players: int, cap: int = STEP_CAP) -> dict[str, object]:
    """Play one round of random legal codes (``numpy`` generator seeded ``seed``), at most
    ``cap`` of them, and digest every step: each seat's observation, the mask, the rewards,
    terminations, truncations and infos (the digest after :data:`QUICK_STEPS` steps and at the
    end); also the steps played, the swaps made and the steps whose player held a joker."""
    env = romi_v0.env(players=players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    digest = hashlib.sha256()
    steps = swaps = jokers = 0
    quick = ""
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        for other in env.possible_agents:
            digest.update(env.observe(other)["observation"].tobytes())
        digest.update(obs["action_mask"].tobytes())
        digest.update(repr((agent, reward, term, trunc, sorted(info.items()))).encode())
        jokers += int(obs["observation"][52] > 0)
        if term or trunc:
            env.step(None)
            continue
        if steps == QUICK_STEPS:
            quick = digest.hexdigest()[:16]
        if steps >= cap:
            break
        code = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        swaps += int(T.SWAP0 <= code < T.N_ACTIONS)
        env.step(code)
        steps += 1
    return {"seed": seed, "players": players, "steps": steps, "swaps": swaps,
            "jokers": jokers, "quick": quick or digest.hexdigest()[:16],
            "digest": digest.hexdigest()[:16]}


def _recorded() -> list[dict[str, object]]:
    return json.loads(DATA.read_text("utf-8"))["rounds"]


def test_the_recorded_rounds_play_every_player_count_swaps_and_jokers() -> None:
    rounds = _recorded()
    assert len(rounds) == ROUNDS
    assert {r["players"] for r in rounds} == {2, 3, 4, 5}
    assert sum(r["swaps"] for r in rounds) > 0
    assert sum(r["jokers"] > 0 for r in rounds) > ROUNDS // 2


@pytest.mark.parametrize("chunk", range(4))
def test_the_table_engine_replays_the_recorded_rounds_step_by_step(chunk: int) -> None:
    for want in _recorded()[:ROUNDS if sizes.FULL else QUICK_ROUNDS][chunk::4]:
        if sizes.FULL:
            assert record(int(want["seed"]), int(want["players"])) == want
        else:
            got = record(int(want["seed"]), int(want["players"]), QUICK_STEPS)
            assert (got["seed"], got["quick"]) == (want["seed"], want["quick"])


def main() -> None:
    rounds = [record(i, 2 + i % 4) for i in range(ROUNDS)]
    DATA.write_text(json.dumps({"rounds": rounds}, indent=None) + "\n", "utf-8")
    print(f"{len(rounds)} rounds, {sum(r['steps'] for r in rounds)} steps", file=sys.stderr)


if __name__ == "__main__":
    main()
