"""The toy game's kernel, chunk function, exact answer and policy kinds."""

from __future__ import annotations

from math import comb
from typing import NamedTuple

import numpy as np
from numba import njit

from simcards.core.policyspec import PolicyKind, PolicyKinds
from simcards.core.rng import chunk_state
from simcards.core.rng_kernel import randbelow

RANKS = 10
SUITS = 4
KINDS = PolicyKinds("toy", [PolicyKind("show", 0, (), "show the card you are dealt")])


class ToyStats(NamedTuple):
    wins: np.ndarray
    draws: np.ndarray


@njit(cache=True)
def play(state, deals, n):
    deck = np.empty(RANKS * SUITS, np.int64)
    for i in range(RANKS * SUITS):
        deck[i] = i // SUITS
    wins = np.zeros(n, np.int64)
    draws = np.zeros(1, np.int64)
    m = deck.shape[0]
    for _ in range(deals):
        for j in range(n):
            r = j + randbelow(state, m - j)
            x = deck[j]
            deck[j] = deck[r]
            deck[r] = x
        best = -1
        who = -1
        tied = False
        for j in range(n):
            if deck[j] > best:
                best = deck[j]
                who = j
                tied = False
            elif deck[j] == best:
                tied = True
        if tied:
            draws[0] += 1
        else:
            wins[who] += 1
    return wins, draws


def chunk(state: np.ndarray, size: int, n: int) -> ToyStats:
    return ToyStats(*play(state, size, n))


def warm() -> None:
    chunk(chunk_state(0, 0), 8, 2)


def exact_win(n: int) -> float:
    """P(a given player wins): the highest rank r is held by exactly one player, each player
    equally likely. Count the n-card hands whose maximum rank appears once."""
    cards = RANKS * SUITS
    unique_top = sum(SUITS * comb(r * SUITS, n - 1) for r in range(RANKS))
    return unique_top / comb(cards, n) / n
