"""The Monte Carlo loop on card values (:mod:`simcards.ronda.value_kernel`) is the hand engine's
loop on the workspace, bit for bit (rules P, X, M1, L, A1-A5, U1, S1, Q2, Q3 of
``seeds/ronda.md``; the stream layout of :mod:`simcards.ronda.play_kernel`).

The workspace loop is the one the reference engine checks play by play
(``test_kernel_vs_reference.py``); here both loops play the same streams in every player count,
side layout and rule option, with every mix of random and greedy seats, and must give the same
statistics, every array equal (two players take the loop of their own, with greedy by cases).
The loop's integer shortcuts are checked against what they replace: the rank of a random seat's
card (Q2) against the float product, the branch-free card of a given rank and the Ronda/Tringla
masks (A2) against counting.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from simcards.core.rng import chunk_state
from simcards.ronda.hands_batch import named_stats, simulate_hands, simulate_hands_on_workspace
from simcards.ronda.policies import policy_arrays
from simcards.ronda.rules import RondaRules
from simcards.ronda.value_kernel import ROUNDS_UP, _nth_value, rank_of
from simcards.ronda.value_rules_kernel import pairs

TABLES = [(2, "off"), (3, "off"), (4, "off"), (4, "on")]
OPTIONS = [dict(zip(("derba_chain", "announce", "announce_conflict", "mode"), combo,
                    strict=True))
           for combo in itertools.product(("flat", "tiers"), ("first_deal", "every_deal"),
                                          ("text", "highest_takes_all"), ("points", "classic"))
           if combo[3] == "points" or combo[:3] == ("flat", "first_deal", "text")]
"""Every option value that changes a hand; classic mode (C1) scores nothing, so its other
options change nothing and it is played once per table."""
MIXES = ("random", "greedy", "mixed")
HANDS = 400


def _seats(mix: str, players: int):
    if mix == "mixed":
        return policy_arrays((["greedy", "random"] * 2)[:players])
    return policy_arrays([mix] * players)


@pytest.mark.parametrize("players,teams", TABLES, ids=[f"{n}p-teams-{t}" for n, t in TABLES])
def test_value_loop_gives_the_workspace_loops_statistics_in_every_configuration(
        players: int, teams: str) -> None:
    for i, (options, mix) in enumerate(itertools.product(OPTIONS, MIXES)):
        kr = RondaRules.make(players=players, teams=teams, **options).kernel
        seats = _seats(mix, players)
        for dealer in (-1, players - 1):
            values = named_stats(simulate_hands(chunk_state(11, i, players), HANDS, dealer,
                                                seats, kr))
            workspace = named_stats(simulate_hands_on_workspace(
                chunk_state(11, i, players), HANDS, dealer, seats, kr))
            for name, array in workspace.items():
                assert np.array_equal(values[name], array), (options, mix, dealer, name)
            assert values["hands"][0] == HANDS
            assert values["violations"][0] == 0


@pytest.mark.parametrize("players", [2, 3])
def test_value_loop_leaves_the_stream_where_the_workspace_loop_does(players: int) -> None:
    """The next chunk of a worker starts from the same state either way (a chunk's state is
    its own, but a resumed or split run must not depend on the path taken); two players have a
    loop of their own."""
    kr = RondaRules.make(players=players).kernel
    seats = _seats("mixed", players)
    a = chunk_state(4, 0)
    b = chunk_state(4, 0)
    simulate_hands(a, 50, -1, seats, kr)
    simulate_hands_on_workspace(b, 50, -1, seats, kr)
    assert np.array_equal(a, b)


def test_rank_of_a_random_card_is_the_float_ranks_for_every_holding_size() -> None:
    rng = np.random.default_rng(5)
    words = rng.integers(0, 2**64, 200_000, dtype=np.uint64, endpoint=False)
    x = np.uint64(ROUNDS_UP)
    edges = [x << np.uint64(11), (x << np.uint64(11)) | np.uint64(2047),
             (x - np.uint64(1)) << np.uint64(11), (x + np.uint64(1)) << np.uint64(11),
             np.uint64(0), np.uint64(2**64 - 1)]
    for m in range(1, 5):
        for k in (((1 << 53) * j) // m for j in range(1, m)):  # words at each rank's edge
            for d in (-1, 0, 1):
                edges.append(np.uint64(max(k + d, 0)) << np.uint64(11))
    words = np.concatenate([words, np.array(edges, np.uint64)])
    for m in range(1, 5):
        u = (words >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)
        expected = np.minimum((u * m).astype(np.int64), m - 1)
        got = np.array([rank_of(w, m) for w in words])
        assert np.array_equal(got, expected), m
    # The one word whose float product rounds up across an integer: rank 2 of 3, not 1.
    assert rank_of(np.uint64(ROUNDS_UP) << np.uint64(11), 3) == 2
    assert (3 * ROUNDS_UP) >> 53 == 1


def _holdings():
    """Every holding of one to four cards, as value counts."""
    for size in range(1, 5):
        yield from itertools.combinations_with_replacement(range(10), size)


def test_card_of_each_rank_and_the_announcement_masks_match_counting() -> None:
    for cards in _holdings():
        h = sum(1 << (4 * v) for v in cards)
        for i, v in enumerate(sorted(cards)):
            assert _nth_value(np.int64(h), i) == v, (cards, i)
        rondas, tringlas = pairs(np.int64(h))
        counts = np.bincount(cards, minlength=10)
        assert rondas == sum(1 << (4 * v) for v in range(10) if counts[v] == 2)
        assert tringlas == sum(1 << (4 * v) for v in range(10) if counts[v] >= 3)
