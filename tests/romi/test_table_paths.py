"""The table engine's moves after the draw (``table_paths``: paths from compiled code, each
path's move made when looked up) against the same mapping made from the whole list of the
reference's legal moves (``RomiTable.all_moves``): the same paths in the same order, and for
every path the same move (T4, T5, J1-J3, O1, T6, T7 and the copy rule of ``table``).

The positions are those of random-legal-move rounds of ``romi_v0``, 2 to 5 players, every
position after a draw or on the starter's first turn; ``--full`` plays ten times the rounds."""

from __future__ import annotations

import numpy as np
import pytest

from simcards.envs import romi_v0
from simcards.romi.actions import Open, Swap
from simcards.romi.table_paths import LazyMoves
from tests import sizes

ROUNDS = 1000 if sizes.FULL else 100
STEP_CAP = 400


def _positions(seed: int):
    """The table state at each position of round ``seed`` where the moves are lazy."""
    env = romi_v0.env(players=2 + seed % 4)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    raw = env.unwrapped
    steps = 0
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        state = raw.cursor.state
        if not raw.cursor.pending and isinstance(state.moves(), LazyMoves):
            yield state
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
        if steps >= STEP_CAP:
            return


@pytest.mark.parametrize("chunk", range(2))
def test_lazy_moves_are_the_whole_lists_path_by_path(chunk: int) -> None:
    positions = opens = swaps = 0
    for seed in range(chunk, ROUNDS, 2):
        for state in _positions(seed):
            whole = state.all_moves()
            state._moves = None
            lazy = state.moves()
            assert list(lazy) == list(whole)
            for path in lazy:  # each looked up alone, as a player's step does
                assert lazy[path] == whole[path], (seed, path)
            state._moves = None
            assert list(state.moves().items()) == list(whole.items())
            state._moves = None
            positions += 1
            opens += any(isinstance(m, Open) for m in whole.values())
            swaps += any(isinstance(m, Swap) for m in whole.values())
    assert positions > 25 * ROUNDS // 2
    assert opens > 0 and swaps > 0, (positions, opens, swaps)
