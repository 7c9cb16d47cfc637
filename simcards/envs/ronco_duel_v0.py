"""PettingZoo environment: one two-player Ronco round as a zero-sum game (``ronco_duel_v0``);
see :mod:`simcards.ronco.table` for the observation, the actions and the rewards,
and :mod:`simcards.core.envs` for the environment itself."""

from simcards.core.envs import env_functions
from simcards.ronco.table import DUEL

env, raw_env = env_functions(DUEL)
__all__ = ["env", "raw_env"]
