"""PettingZoo environment: one Römi round (``romi_v0``);
see :mod:`simcards.romi.table` for the observation, the actions and the rewards,
and :mod:`simcards.core.envs` for the environment itself."""

from simcards.core.envs import env_functions
from simcards.romi.table import ROUND

env, raw_env = env_functions(ROUND)
__all__ = ["env", "raw_env"]
