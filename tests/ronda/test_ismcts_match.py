"""Ronda's ``ismcts-match:N:C`` (Q10 of ``seeds/ronda.md``): Q8's search backing up the match
result with V where a match is played.

- Q10 against the reference engine: positions of a hand whose match stands near its end
  (points mode at 2 and 3 players and in teams, classic mode with two hands to win); the
  kernel's search with the match's scores (``Tree.stake``, as the match loop sets it) and the
  reference's ``ismcts_policy(..., match=True)`` on the samples the kernel drew choose the
  same card, decision by decision, and on some of them the match result moves the choice
  away from Q8's.
- Outside a match (the hand loops) Q10 is Q8: the same hands, statistic for statistic; in a
  match the two play differently, so the match loop hands its scores to the search.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from simcards.core.rng import chunk_state
from simcards.core.rng_kernel import seed_state
from simcards.ronda import codes, ismcts_kernel, search_kernel
from simcards.ronda import reference as ref
from simcards.ronda.hands_batch import simulate_hands
from simcards.ronda.match_kernel import simulate_duplicate
from simcards.ronda.play_kernel import play_position
from simcards.ronda.policies import ISMCTS_C, KINDS, check_legal, policy_arrays
from simcards.ronda.rules import RondaRules
from tests.ronda.replaying import drawn_samples


def test_q10_spec_parses_with_q8s_defaults_and_is_a_legal_searching_kind() -> None:
    assert KINDS.parse("ismcts-match").values == (1000, ISMCTS_C)
    assert KINDS.parse("ismcts-match:300:0.25").text() == "ismcts-match:300:0.25"
    seats = policy_arrays(["ismcts-match:300", "greedy"])
    assert seats.kinds.tolist() == [codes.POLICY_ISMCTS_MATCH, codes.POLICY_GREEDY]
    assert seats.kinds[0] >= codes.POLICY_LOOKAHEAD  # searches: a stream of its own (I3)
    check_legal("ismcts-match:300")  # sees only its observation and the public scores
    assert ismcts_kernel.tree_capacity(seats, seats) == 301
    assert ref.parse_policy("ismcts-match:300:0.25") == ("ismcts-match", 300, 0.25)


def _searched(rules: RondaRules, ws, stake: list[int] | None, n: int, seed: int,
              by_match: bool):
    """The kernel's card for the player to move under ``ismcts-match:n`` (``by_match``) or
    ``ismcts:n``, with the match's ``stake`` set as the match loop sets it (None: no match),
    and the samples it drew."""
    kr = rules.kernel
    seats = policy_arrays([f"ismcts:{n}"])
    sw = search_kernel.new_search_workspace(kr, 4 * n,
                                            ismcts_kernel.tree_capacity(seats, seats))
    if stake is not None:
        sw.tree.stake[:rules.n_sides] = stake
        sw.tree.stake[rules.n_sides] = 1
    pst = np.zeros(4, np.uint64)
    seed_state(pst, np.uint64(seed))
    p = int(ws.st[10])  # S_TURN
    card = ismcts_kernel.ismcts_card(p, n, ISMCTS_C, kr, ws, sw, pst, by_match)
    return int(card), sw, p


CASES = [
    ("2p", {"players": 2}, [(15, 17), (19, 12), (20, 20)], None),
    ("3p", {"players": 3}, [(16, 18, 14), (20, 9, 19)], None),
    ("4t", {"players": 4, "teams": "on"}, [(17, 19), (20, 16)], None),
    ("2p-classic", {"players": 2, "mode": "classic", "hands_to_win": 2}, [(1, 1), (1, 0)],
     "classic"),
]


@pytest.mark.parametrize("name,options,stakes,mode", CASES, ids=[c[0] for c in CASES])
def test_q10_kernel_decisions_match_the_reference_in_a_match_near_its_end(
        name, options, stakes, mode) -> None:
    rules = RondaRules.make(**options)
    kr = rules.kernel
    rng = random.Random(name)
    n = 40
    compared = moved = 0
    for i in range(18):
        stake = list(stakes[i % len(stakes)])
        deck = list(range(40))
        rng.shuffle(deck)
        dealer = rng.randrange(rules.players)
        played = np.full(rng.randrange(0, 20), -1, np.int64)
        ws, cards = play_position(np.asarray(deck, np.int64), dealer, played, kr)
        start = [0] * rules.n_sides if mode else stake
        state = ref.HandState(ref.RondaOptions(**rules.summary()), dealer, deck,
                              start_scores=start)
        for c in cards:
            state.apply(int(c))
        p = state.current_player()
        obs = state.observation(p)
        if len({c // 4 for c in obs["hand"]}) == 1:
            continue  # one value: nothing to search
        obs["hands_won"] = tuple(stake) if mode else (0,) * rules.n_sides
        card, sw, kp = _searched(rules, ws, stake, n, seed=i, by_match=True)
        assert kp == p
        meta = sw.rec_meta[:int(sw.rec_info[1])]
        drawn = drawn_samples(meta[0], sw.rec_hands, sw.rec_stock, rules.players, p)
        assert len(drawn) == n
        assert ref.ismcts_policy(obs, None, n=n, c=ISMCTS_C, drawn=drawn, match=True) == card
        compared += 1
        plain, _, _ = _searched(rules, ws, stake, n, seed=i, by_match=False)
        moved += plain != card
    assert compared >= 10 and moved >= 1, (compared, moved)


def test_q10_plays_as_q8_outside_a_match_and_apart_from_it_in_one() -> None:
    """The hand loops never set the match's scores: ``ismcts-match`` plays Q8's hands
    exactly. In duplicate matches to 21 it meets Q8 on the same deals and the two part."""
    rules = RondaRules.make(players=2)
    kr = rules.kernel
    a = simulate_hands(chunk_state(3, 0), 4, -1, policy_arrays(["ismcts-match:30", "greedy"]),
                       kr)
    b = simulate_hands(chunk_state(3, 0), 4, -1, policy_arrays(["ismcts:30", "greedy"]), kr)
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x, y)
    seats_q10, seats_q8 = policy_arrays(["ismcts-match:30"]), policy_arrays(["ismcts:30"])
    same = simulate_duplicate(chunk_state(4, 0), 6, -1, seats_q8, seats_q8, kr, 200)
    apart = simulate_duplicate(chunk_state(4, 0), 6, -1, seats_q10, seats_q8, kr, 200)
    assert same[6][0] == 0  # win_diff: Q8 against itself
    assert any(not np.array_equal(x, y) for x, y in zip(same, apart, strict=True))
