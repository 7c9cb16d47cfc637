"""PettingZoo environment: a Ronda match (``ronda_match_v0``);
see :mod:`simcards.ronda.table` for the observation, the actions and the rewards,
and :mod:`simcards.core.envs` for the environment itself."""

from simcards.core.envs import env_functions
from simcards.ronda.table import MATCH

env, raw_env = env_functions(MATCH)
__all__ = ["env", "raw_env"]
