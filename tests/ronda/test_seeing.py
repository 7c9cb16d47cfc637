"""Ronda's ``seeing:N:C`` (Q9 of ``seeds/ronda.md``): Q8's search on the true position, an
all-seeing bound that is no legal player.

- Q9 against the reference engine: both engines play the same hands (``record_hands``) with
  ``seeing`` seats among ``greedy`` and ``random`` ones, at 2, 3 and 4 players and in teams;
  the reference's ``seeing_policy`` (Q8's search with every sample the true position, read
  from the reference's whole state) must choose the kernel's card, decision by decision.
- Q9 reads the hidden cards, from the kernel's full state: a swap of two hidden cards that
  leaves the seat's observation as it was changes its choice on some positions (where Q8's
  choice never changes, ``test_ismcts.py``).
- Q9 = Q8 where the truth is the only consistent sample (two players, the last deal), and
  there it plays the exact optimum (Q7's values, by brute force) on almost every position.
- Q9 strength: ``seeing:N`` beats ``ismcts:N`` in duplicate at two players, by an interval
  from the deal sets' statistics.
- Same seed, same result (hands at every table size; ``workers`` 1 and 2 give the same JSON);
  ``hands``, ``matches`` and ``compare`` take it at 2, 3 and 4 players and in teams.
- Not a legal player: ``ronda play``, the table environments and the reference's ``choose``
  refuse it in one line, and every ``--policies`` help says that it sees hidden cards.
"""

from __future__ import annotations

import math
import random
import re

import numpy as np
import pytest

import simcards.ronda
from simcards.core.cli import main
from simcards.core.errors import UsageError
from simcards.core.rng import chunk_state
from simcards.ronda import codes, ismcts_kernel, search_kernel
from simcards.ronda import reference as ref
from simcards.ronda import table as ronda_table
from simcards.ronda.compare_batch import named_duplicate_stats
from simcards.ronda.hands_batch import simulate_hands
from simcards.ronda.match_kernel import simulate_duplicate
from simcards.ronda.play_kernel import play_position, record_hands, replay
from simcards.ronda.policies import ISMCTS_C, KINDS, check_legal, policy_arrays
from simcards.ronda.rules import RondaRules
from simcards.ronda.terminal import run_play
from tests.ronda.replaying import Config, replay_in_reference
from tests.ronda.test_ismcts import _kernel_card
from tests.ronda.test_search import (
    _assignments,
    _card_values,
    _hidden_swaps,
    _last_deal_positions,
    _position,
)


def _seeing_card(rules: RondaRules, ws, deck, spec: str) -> int:
    """The kernel's card under ``seeing`` for the player to move in ``ws``, the hand dealt
    from ``deck`` (its undealt part is the stock)."""
    seats = policy_arrays([spec])
    sw = search_kernel.new_search_workspace(rules.kernel, 0,
                                            ismcts_kernel.tree_capacity(seats, seats))
    p = int(ws.st[10])  # S_TURN
    return int(ismcts_kernel.seeing_card(p, seats.params[0], seats.explore[0], rules.kernel,
                                         ws, sw, np.asarray(deck, np.int64)))


# ---------------------------------------------------------------- Q9: agreement


CONFIGS = [
    Config("2p-seeing40-greedy", {"players": 2}, ("seeing:40", "greedy")),
    Config("2p-tiers-every-hta-random-seeing24c2",
           {"players": 2, "derba_chain": "tiers", "announce": "every_deal",
            "announce_conflict": "highest_takes_all"}, ("random", "seeing:24:2")),
    Config("2p-classic-seeing24-seeing16", {"players": 2, "mode": "classic"},
           ("seeing:24:0.3", "seeing:16")),
    Config("3p-every-seeing12-greedy-seeing12", {"players": 3, "announce": "every_deal"},
           ("seeing:12", "greedy", "seeing:12:0")),
    Config("4p-every-greedy-seeing12-random-greedy", {"players": 4, "announce": "every_deal"},
           ("greedy", "seeing:12", "random", "greedy")),
    Config("4t-seeing12-random-greedy-seeing12", {"players": 4, "teams": "on"},
           ("seeing:12", "random", "greedy", "seeing:12:1")),
]
HANDS = 2
"""Hands played by both engines per configuration."""


@pytest.mark.parametrize("index", range(len(CONFIGS)), ids=[c.name for c in CONFIGS])
def test_q9_kernel_decisions_match_the_reference(index: int) -> None:
    cfg = CONFIGS[index]
    rules = RondaRules.make(**cfg.options)
    kr = rules.kernel
    seats = policy_arrays(list(cfg.specs))
    kinds, params, explore = seats
    decks, dealers, us, seeds = record_hands(chunk_state(37, index, stream=7), HANDS, -1,
                                             seats, kr)
    out = replay(decks, dealers, us, seeds, seats, kr)
    plays = out[0]
    assert out[6][:, 3].sum() == 0  # no broken invariant
    counts = {"searched": 0}

    def search(h: int, k: int, p: int, obs: dict, state: ref.HandState) -> int:
        assert kinds[p] == codes.POLICY_SEEING
        counts["searched"] += len({c // 4 for c in obs["hand"]}) > 1
        return ref.seeing_policy(state, n=int(params[p]), c=float(explore[p]))

    replay_in_reference(rules, decks, dealers, us, plays, kinds, search)
    searched = counts["searched"]
    assert searched >= 10, searched


# ---------------------------------------------------------------- Q9 reads the hidden cards


@pytest.mark.parametrize("options,n_played", [({"players": 2}, 3), ({"players": 3}, 4),
                                              ({"players": 4, "announce": "every_deal"}, 5)],
                         ids=["2p", "3p", "4p-every"])
def test_q9_hidden_cards_it_sees_change_its_choice(options, n_played) -> None:
    """Swaps of two hidden cards that leave the seat's observation as it was (so Q8 and every
    legal policy choose alike, I3): ``seeing`` changes its card on some of them, and on every
    position it plays the reference's ``seeing_policy`` card."""
    rules = RondaRules.make(**options)
    rng = random.Random(100 + n_played)
    changed = tried = 0
    for i in range(12):
        deck = list(range(40))
        rng.shuffle(deck)
        dealer = rng.randrange(rules.players)
        ws, state = _position(rules, deck, dealer, [-1] * n_played)
        if len({c // 4 for c in state.legal_actions()}) == 1:
            continue
        played = [int(c) for c in play_position(np.asarray(deck, np.int64), dealer,
                                                np.full(n_played, -1, np.int64),
                                                rules.kernel)[1]]
        card = _seeing_card(rules, ws, deck, "seeing:200")
        if i < 2:
            assert _seeing_card(rules, ws, deck, "seeing:12") == ref.seeing_policy(state, 12)
        for swapped, _kind in _hidden_swaps(rules, deck, dealer, played, state)[:8]:
            ws2, _ = _position(rules, swapped, dealer, played)
            tried += 1
            changed += _seeing_card(rules, ws2, swapped, "seeing:200") != card
    assert tried >= 20 and changed >= 5, (tried, changed)


# ---------------------------------------------------------------- Q9 on the last deal


def test_q9_two_player_last_deal_is_q8_and_near_the_exact_optimum() -> None:
    """Two players, last deal: the truth is the one consistent sample, so ``seeing:N:C`` and
    ``ismcts:N:C`` choose alike; and the card chosen is worth Q7's exact optimum (brute
    force by the reference engine) on almost every position, never much less on the rest."""
    rules, positions = _last_deal_positions({"players": 2}, 30, seed=29)
    optimal = 0
    lost = 0.0
    for i, (deck, dealer, played) in enumerate(positions):
        ws, state = _position(rules, deck, dealer, played)
        assert len(_assignments(state)) == 1
        for spec in ("seeing:50", "seeing:200:1.5"):
            assert _seeing_card(rules, ws, deck, spec) == \
                _kernel_card(rules, ws, spec.replace("seeing", "ismcts"), seed=i)
        values = _card_values(state, _assignments(state))
        best = max(values.values())
        got = values[_seeing_card(rules, ws, deck, "seeing:2000")]
        optimal += got == best
        lost += best - got
    assert optimal >= 0.95 * len(positions), optimal
    assert lost / len(positions) < 20, lost  # a fifth of a point a position at most


# ---------------------------------------------------------------- Q9 strength

SETS = 100
"""Deal sets of the strength check."""


def test_q9_seeing_beats_ismcts_with_the_same_iterations_in_duplicate() -> None:
    """``seeing:100`` against ``ismcts:100``, two players, duplicate matches to 21 (each deal
    set played twice, seats swapped). Per set D = (seeing's wins) - (ismcts's wins) lies in
    -2 .. 2, and the sets are independent: the paired win-rate difference is the mean of D / 2,
    with the standard error of a mean; the points per hand are the ratio of the sets' point
    differences to their hands (delta method).

    The margins come from the measured interval: ``simcards ronda compare seeing:100
    ismcts:100 --deals 1000`` gave a win-rate difference of +0.937 [0.922, 0.952] and +6.45
    points per hand [6.31, 6.59], about 0.24 standard deviations of D / 2 per set, so 100 sets
    put the mean some 40 standard errors above 0. Both differences must be above 0 by three
    standard errors, and reach the measured interval's low end within five: a search that
    did not use what it sees, or used it much less, fails. The run is seeded: it fails only if
    play changes."""
    rules = RondaRules.make(players=2)
    a = policy_arrays(["seeing:100"])
    b = policy_arrays(["ismcts:100"])
    stats = named_duplicate_stats(simulate_duplicate(chunk_state(9, 0), SETS, -1, a, b,
                                                     rules.kernel, 50))
    n = int(stats["deal_sets"][0])
    assert n == SETS and stats["violations"][0] == 0 and stats["unfinished"][0] == 0
    d, d2 = stats["win_diff"][0], stats["win_diff_sq"][0]
    mean = d / n / 2  # the paired win-rate difference
    se = math.sqrt((d2 - n * (d / n) ** 2) / (n - 1) / n) / 2
    assert mean - 3 * se > 0 and mean + 5 * se > 0.922, (mean, se)
    x, x2 = stats["points_diff"][0], stats["points_diff_sq"][0]
    h, h2, xh = stats["set_hands"][0], stats["set_hands_sq"][0], stats["points_diff_hands"][0]
    r = x / h  # points per hand
    var = (x2 - 2 * r * xh + r * r * h2) / (n - 1)  # of X - r H over the sets
    se_r = math.sqrt(var / n) / (h / n)
    assert r - 3 * se_r > 0 and r + 5 * se_r > 6.31, (r, se_r)


# ---------------------------------------------------------------- seeds, commands


@pytest.mark.parametrize("options", [{"players": 2}, {"players": 3},
                                     {"players": 4, "announce": "every_deal"},
                                     {"players": 4, "teams": "on", "mode": "classic"}],
                         ids=["2p", "3p", "4p-every", "4t-classic"])
def test_q9_hands_are_reproducible_by_seed_and_sound(options) -> None:
    rules = RondaRules.make(**options)
    n = rules.players
    seats = policy_arrays(["seeing:40", *(["greedy", "ismcts:20", "seeing:20:2"] * 2)][:n])
    a = simulate_hands(chunk_state(6, 0), 3, -1, seats, rules.kernel)
    b = simulate_hands(chunk_state(6, 0), 3, -1, seats, rules.kernel)
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x, y)
    assert a[0][0] == 3 and a[16][0] == 0  # hands played, no broken invariant
    assert a[5].sum() == 3 * 40  # every card captured once (S1)


def test_q9_the_same_seed_gives_the_same_json_for_any_workers() -> None:
    """Runs of several chunks (``seeing:1000`` makes small ones): one worker and two give the
    same numbers."""
    kw = {"policies": "seeing:1000,greedy", "hands": 128, "seed": 3, "store": "none"}
    assert simcards.ronda.hands(**kw, workers=1).to_dict() == \
        simcards.ronda.hands(**kw, workers=2).to_dict()
    kw = {"deals": 24, "seed": 4, "store": "none"}
    one = simcards.ronda.compare("seeing:1000", "greedy", **kw, workers=1).to_dict()
    assert one == simcards.ronda.compare("seeing:1000", "greedy", **kw, workers=2).to_dict()
    assert one["policy_a"] == "seeing:1000:0.5" and one["violations"] == 0


@pytest.mark.parametrize("table", [{"players": 2}, {"players": 3}, {"players": 4},
                                   {"players": 4, "teams": "on"}],
                         ids=["2p", "3p", "4p", "4t"])
def test_q9_hands_matches_and_compare_take_it(table) -> None:
    n = table["players"]
    policies = ",".join(["seeing:30", *["greedy"] * (n - 1)])
    kw = {**table, "workers": 1, "store": "none", "seed": 2}
    hands = simcards.ronda.hands(policies=policies, hands=6, **kw)
    assert hands["policies"][0] == "seeing:30:0.5" and hands["violations"] == 0
    matches = simcards.ronda.matches(policies=policies, matches=2, **kw)
    assert matches["policies"][0] == "seeing:30:0.5" and matches["violations"] == 0
    compare = simcards.ronda.compare("seeing:30", "greedy", deals=1, target=11, **kw)
    assert compare["policy_a"] == "seeing:30:0.5" and compare["violations"] == 0
    assert compare["plays"] == (2 if n == 2 or "teams" in table else n)


# ---------------------------------------------------------------- not a legal player


def test_q9_spec_parses_with_q8_defaults_and_bounds() -> None:
    assert KINDS.parse("seeing").values == (1000, ISMCTS_C)
    assert KINDS.parse("seeing:200:1.5").text() == "seeing:200:1.5"
    for bad in ("seeing:0", "seeing:100001", "seeing:10:-1", "seeing:1:2:3"):
        with pytest.raises(UsageError):
            KINDS.parse(bad)
    seats = policy_arrays(["seeing:300:0.25", "ismcts"])
    assert seats.kinds.tolist() == [codes.POLICY_SEEING, codes.POLICY_ISMCTS]
    assert seats.params.tolist() == [300, 1000] and seats.explore.tolist() == [0.25, ISMCTS_C]


def _words(text: str) -> str:
    return re.sub(r"[\s│|]+", " ", text)


def test_q9_play_refuses_it_in_one_line(capsys) -> None:
    for policies in ("seeing", "human,seeing:50", "greedy,seeing:10:1"):
        assert main(["ronda", "play", "--policies", policies, "--seed", "1"]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        lines = captured.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("simcards: error: ")
        assert "sees hidden cards" in lines[0], lines[0]
    with pytest.raises(UsageError, match="sees hidden cards"):
        run_play(RondaRules.make(), ["human", "seeing:10"], seed=1)
    with pytest.raises(UsageError, match="sees hidden cards"):
        ronda_table._seat_policy(None, "seeing:10")
    with pytest.raises(UsageError, match="sees hidden cards"):
        check_legal(KINDS.parse("seeing"))
    for legal in ("random", "greedy", "lookahead:2", "rollout:4", "ismcts:10"):
        check_legal(KINDS.parse(legal))
    state = ref.HandState(ref.RondaOptions(players=2), 1, list(range(40)))
    with pytest.raises(UsageError, match="sees hidden cards"):
        ref.choose("seeing:8", state.observation(state.current_player()), random.Random(1))


@pytest.mark.parametrize("command", ["hands", "matches", "compare", "ladder", "play"])
def test_q9_every_policies_help_says_it_sees_hidden_cards(command, capsys) -> None:
    assert main(["ronda", command, "--help"]) == 0
    out = _words(capsys.readouterr().out)
    assert "seeing:N:C" in out
    assert "sees the hidden cards" in out and "not a legal player" in out, out
