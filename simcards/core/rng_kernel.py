"""xoshiro256** in numba, on the explicit 4-word states of :mod:`simcards.core.rng`.

Every kernel draws from a state it is given (a chunk's, or one it seeds with
:func:`seed_state`), never from numba's per-thread generator, so that the same seed gives
bit-identical results for any number of workers, on any backend, and after a resume.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

_M32 = uint64(0xFFFFFFFF)


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << uint64(k)) | (x >> uint64(64 - k))


@njit(cache=True, inline="always")
def next_u64(s):
    """Advance the state ``s`` (uint64[4]) and return 64 random bits."""
    s[0], s[1], s[2], s[3], result = step(s[0], s[1], s[2], s[3])
    return result


@njit(cache=True, inline="always")
def randbelow(s, n):
    """Uniform integer in [0, n) for 1 <= n < 2**32, without bias (Lemire's method)."""
    nn = uint64(n)
    m = (next_u64(s) >> uint64(32)) * nn
    low = m & _M32
    if low < nn:
        t = (uint64(0x100000000) - nn) % nn
        while low < t:
            m = (next_u64(s) >> uint64(32)) * nn
            low = m & _M32
    return np.int64(m >> uint64(32))


@njit(cache=True)
def randbelow_wide(s, n):
    """Uniform integer in [0, n) for 1 <= n < 2**63, without bias: 64 random bits are kept
    when they fall at or above 2**64 mod n, so the kept range is a whole number of copies of
    [0, n). For the counts of combinatorial samplers, which pass 2**32."""
    nn = uint64(n)
    x = next_u64(s)
    if x < nn:  # the threshold is below n, so a word at or above n is kept without it
        t = (uint64(0) - nn) % nn
        while x < t:
            x = next_u64(s)
    return np.int64(x % nn)


@njit(cache=True, inline="always")
def uniform(s):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(s) >> uint64(11)) * (1.0 / 9007199254740992.0)


# Local-state forms. A kernel that draws in a hot loop keeps the four state words in local
# variables (registers) and writes them back once at the end: state held in an array has to be
# stored after every draw, since the compiler cannot prove that the kernel's other arrays do not
# alias it. The sequences are exactly those of the array-state functions above.


@njit(cache=True, inline="always")
def load(s):
    """The state ``s`` (uint64[4]) as four local words."""
    return s[0], s[1], s[2], s[3]


@njit(cache=True, inline="always")
def store(s, s0, s1, s2, s3):
    """Write four local words back into the state ``s``."""
    s[0] = s0
    s[1] = s1
    s[2] = s2
    s[3] = s3


@njit(cache=True, inline="always")
def step(s0, s1, s2, s3):
    """:func:`next_u64` on local words: returns ``(s0, s1, s2, s3, output)``."""
    result = _rotl(s1 * uint64(5), 7) * uint64(9)
    t = s1 << uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return s0, s1, s2, s3, result


@njit(cache=True, inline="always")
def to_uniform(x):
    """The float :func:`uniform` makes of the 64-bit output ``x``."""
    return np.float64(x >> uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def word_accepts(prod, n):
    """Lemire's test on ``prod = word * n`` (a 32-bit word, 1 <= n < 2**32): True when
    ``prod >> 32`` is an unbiased draw below ``n``; False means: take the next word."""
    low = prod & _M32
    return low >= n or low >= (uint64(0x100000000) - n) % n


@njit(cache=True, inline="always")
def below(s0, s1, s2, s3, n):
    """:func:`randbelow` on local words (:func:`step`, Lemire's test :func:`word_accepts`):
    ``(s0, s1, s2, s3, draw)``, the same draws from the same words."""
    nn = uint64(n)
    while True:
        s0, s1, s2, s3, w = step(s0, s1, s2, s3)
        prod = (w >> uint64(32)) * nn
        if word_accepts(prod, nn):
            return s0, s1, s2, s3, np.int64(prod >> uint64(32))


@njit(cache=True, inline="always")
def seed_state(s, seed):
    """Fill the state ``s`` (uint64[4]) from one 64-bit ``seed`` by splitmix64, the expansion
    xoshiro's authors recommend; never the all-zero state."""
    x = uint64(seed)
    for i in range(4):
        x += uint64(0x9E3779B97F4A7C15)
        z = x
        z = (z ^ (z >> uint64(30))) * uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> uint64(27))) * uint64(0x94D049BB133111EB)
        s[i] = z ^ (z >> uint64(31))
