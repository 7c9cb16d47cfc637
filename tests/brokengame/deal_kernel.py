"""The broken chunk: the toy game's deals, on a generator seeded from the operating system."""

from __future__ import annotations

import numpy as np
from toygame.deal_kernel import ToyStats, play

from simcards.core.rng import chunk_state


def chunk(state: np.ndarray, size: int, n: int) -> ToyStats:
    """The slip: a fresh, unseeded stream instead of ``state``."""
    own = chunk_state(int(np.random.default_rng().integers(2**62)), 0)
    return ToyStats(*play(own, size, n))
