"""Random streams owned by the kernels: the state each chunk of work starts from.

numba's built-in generator is per thread, so its output depends on how work is spread over
threads. Here every chunk of work carries its own 4-word state, derived from (user seed, chunk
index) by :class:`numpy.random.SeedSequence`; the same seed therefore gives bit-identical
results for any number of workers, on any backend, and after a resume. The generator that
draws from such a state, xoshiro256** in numba, is :mod:`simcards.core.rng_kernel`.
"""

from __future__ import annotations

import numpy as np


def chunk_state(seed: int, chunk: int, stream: int = 0) -> np.ndarray:
    """The generator state for one chunk: a pure function of ``(seed, stream, chunk)``.

    ``stream`` separates independent uses of one seed (for example two studies of one report)
    without making their chunks collide.
    """
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(int(stream), int(chunk)))
    state = ss.generate_state(4, np.uint64)
    if not state.any():  # xoshiro's one forbidden state; astronomically unlikely
        state[0] = np.uint64(1)
    return state
