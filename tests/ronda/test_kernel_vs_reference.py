"""The numba Ronda kernel against the independent pure-Python reference engine, play by play.

For every configuration below (2, 3 and 4 players, teams, every value of ``derba_chain``,
``announce``, ``announce_conflict`` and ``mode``; ``greedy`` and ``random`` seats mixed) both
engines play the very same hands -- the decks, dealers and uniforms the Monte Carlo would use,
from :func:`record_hands` -- and must agree on every play (player, card, capture, Derba or
re-hit, X5a/X5b closings, Missa, last card, credits by side and source), on the announcement
credits of every deal, and at the end of the hand on the points by side and source, the captured
cards of every side, the Ultima and the Ronda/Tringla counters.

The default run plays ``HANDS`` hands per configuration so that the file stays short on one
core. The full check plays ``FULL_HANDS`` (10,000) hands per configuration::

    .venv/bin/python -m pytest --full tests/ronda/test_kernel_vs_reference.py

The Monte Carlo's Ronda and Tringla rates per dealt 4-card holding are checked against their
exact hypergeometric values, and its invariants (every card in exactly one captured pile, never
two cards of a value on the table, each score the sum of its sources) on every simulated hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from simcards.core.errors import UsageError
from simcards.core.rng import chunk_state
from simcards.ronda import codes
from simcards.ronda import reference as ref
from simcards.ronda.hands_batch import STAT_NAMES, named_stats, simulate_hands
from simcards.ronda.kernel_state import Seats
from simcards.ronda.play_kernel import record_hands, replay
from simcards.ronda.policies import policy_arrays
from simcards.ronda.rules import RondaRules
from tests import sizes

HANDS = 300
FULL_HANDS = 10_000
N_HANDS = FULL_HANDS if sizes.FULL else HANDS
BATCH = 500  # hands replayed at a time (the per-play logs are large)


def _params(kinds: np.ndarray) -> np.ndarray:
    """Random and greedy seats take no parameter."""
    return np.zeros(len(kinds), np.int64)

G = codes.POLICY_GREEDY
R = codes.POLICY_RANDOM


@dataclass(frozen=True)
class Config:
    name: str
    options: dict
    kinds: tuple[int, ...]

    @property
    def rules(self) -> RondaRules:
        return RondaRules.make(**self.options)


CONFIGS = [
    Config("2p-default-gg", {"players": 2}, (G, G)),
    Config("2p-tiers-every-hta-gr", {"players": 2, "derba_chain": "tiers",
                                     "announce": "every_deal",
                                     "announce_conflict": "highest_takes_all"}, (G, R)),
    Config("2p-classic-rg", {"players": 2, "mode": "classic"}, (R, G)),
    Config("2p-tiers-every-text-rr", {"players": 2, "derba_chain": "tiers",
                                      "announce": "every_deal"}, (R, R)),
    Config("3p-flat-every-text-grg", {"players": 3, "announce": "every_deal"}, (G, R, G)),
    Config("3p-tiers-first-hta-ggg", {"players": 3, "derba_chain": "tiers",
                                      "announce_conflict": "highest_takes_all"}, (G, G, G)),
    Config("3p-classic-rgg", {"players": 3, "mode": "classic", "derba_chain": "tiers"},
           (R, G, G)),
    Config("4p-flat-every-hta-grgr", {"players": 4, "announce": "every_deal",
                                      "announce_conflict": "highest_takes_all"}, (G, R, G, R)),
    Config("4p-tiers-first-text-gggg", {"players": 4, "derba_chain": "tiers"}, (G, G, G, G)),
    Config("4t-flat-every-text-ggrg", {"players": 4, "teams": "on", "announce": "every_deal"},
           (G, G, R, G)),
    Config("4t-tiers-every-hta-gggg", {"players": 4, "teams": "on", "derba_chain": "tiers",
                                       "announce": "every_deal",
                                       "announce_conflict": "highest_takes_all"}, (G, G, G, G)),
    Config("4t-classic-rggr", {"players": 4, "teams": "on", "mode": "classic"}, (R, G, G, R)),
]


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _credits_table(credits, n_sides: int) -> list[list[int]]:
    table = [[0] * codes.N_SOURCES for _ in range(n_sides)]
    for side, points, source in credits:
        table[side][codes.SOURCES.index(source)] += points
    return table


def _announcement_credits(events, n_sides: int) -> list[list[list[int]]]:
    """The reference's announcement credits by deal, side and source, from its event log."""
    out = [[[0] * codes.N_SOURCES for _ in range(n_sides)] for _ in range(codes.MAX_DEALS)]
    deal = -1
    previous = ""
    for e in events:
        if e.kind == "deal" and previous != "deal":
            deal += 1
        if e.kind == "points" and e.source in ref.ANNOUNCE_SOURCES:
            out[deal][e.side][codes.SOURCES.index(e.source)] += e.points
        previous = e.kind
    return out


def _compare_hand(cfg, options, deck, dealer, us, k_plays, k_play_pts, k_deal_pts, k_points,
                  k_captured, k_ultima, k_counters) -> str | None:
    """None when both engines agree on the whole hand, else where they first differ."""
    state = ref.HandState(options, int(dealer), [int(c) for c in deck])
    n_sides = options.n_sides
    k = 0
    while not state.is_terminal():
        p = state.current_player()
        row = k_plays[k]
        if p != row[codes.F_PLAYER]:
            return f"play {k}: player {p} vs kernel {row[codes.F_PLAYER]}"
        obs = state.observation(p)
        card = ref.random_policy(obs, float(us[k])) if cfg.kinds[p] == R else \
            ref.greedy_policy(obs)
        if card != row[codes.F_CARD]:
            return f"play {k}: card {ref.card_name(card)} vs kernel " \
                   f"{ref.card_name(int(row[codes.F_CARD]))}"
        rec = state.apply(card)
        got = (
            codes.ACTIONS.index(rec.action), _mask(rec.taken), len(rec.taken), len(rec.closed),
            -1 if rec.closed_to is None else rec.closed_to, rec.hit, int(rec.chain_closed),
            int(rec.missa), int(rec.last_card),
        )
        want = tuple(int(row[f]) for f in (
            codes.F_ACTION, codes.F_TAKEN, codes.F_N_TAKEN, codes.F_CLOSED, codes.F_CLOSED_TO,
            codes.F_HIT, codes.F_CHAIN_CLOSED, codes.F_MISSA, codes.F_LAST))
        if got != want:
            return f"play {k}: record {got} vs kernel {want}"
        if _credits_table(rec.credits, n_sides) != k_play_pts[k].tolist():
            return f"play {k}: credits {rec.credits} vs kernel {k_play_pts[k].tolist()}"
        k += 1
    if k != 40 - (1 if options.players == 3 else 0):
        return f"{k} plays"
    if _announcement_credits(state.events, n_sides) != k_deal_pts.tolist():
        return "announcement credits differ"
    points = [[state.points_by_source(s)[src] for src in codes.SOURCES] for s in range(n_sides)]
    if points != k_points.tolist():
        return f"points {points} vs kernel {k_points.tolist()}"
    if [_mask(state.captured_cards(s)) for s in range(n_sides)] != k_captured.tolist():
        return "captured cards differ"
    u = state.ultima()
    ultima = [-1, 0] if u is None else [u[0], _mask(u[1])]
    if ultima != k_ultima.tolist():
        return f"ultima {ultima} vs kernel {k_ultima.tolist()}"
    hc = state.holding_counters()
    counters = [sum(x[2] for x in hc), sum(x[3] for x in hc), len(hc), 0]
    if counters != k_counters.tolist():
        return f"counters {counters} vs kernel {k_counters.tolist()}"
    return None


@pytest.mark.parametrize("index", range(len(CONFIGS)), ids=[c.name for c in CONFIGS])
def test_kernel_matches_reference_play_by_play(index: int) -> None:
    cfg = CONFIGS[index]
    rules = cfg.rules
    options = ref.RondaOptions(**rules.summary())
    kr = rules.kernel
    kinds = np.array(cfg.kinds, np.int64)
    seats = Seats(kinds, _params(kinds), np.zeros(len(kinds)))
    decks, dealers, us, seeds = record_hands(chunk_state(11, index, stream=7), N_HANDS, -1,
                                             seats, kr)
    mismatches: list[tuple[int, str]] = []
    actions = np.zeros(len(codes.ACTIONS), np.int64)
    for lo in range(0, N_HANDS, BATCH):
        hi = min(lo + BATCH, N_HANDS)
        out = replay(decks[lo:hi], dealers[lo:hi], us[lo:hi], seeds[lo:hi], seats,
                      kr)
        plays, play_pts, deal_pts, points, captured, ultima, counters = out
        n_plays = rules.plays
        actions += np.bincount(plays[:, :n_plays, codes.F_ACTION].ravel(),
                               minlength=len(codes.ACTIONS))
        for h in range(hi - lo):
            why = _compare_hand(cfg, options, decks[lo + h], dealers[lo + h], us[lo + h],
                                plays[h], play_pts[h], deal_pts[h], points[h], captured[h],
                                ultima[h], counters[h])
            if why is not None:
                mismatches.append((lo + h, why))
    assert mismatches == [], f"{len(mismatches)} hands differ; first: {mismatches[:3]}"
    # The hands must exercise the rules, not only agree on trivia.
    assert np.all(actions > 0), dict(zip(codes.ACTIONS, actions.tolist(), strict=True))


@pytest.mark.parametrize("chain", ["flat", "tiers"])
def test_chains_closed_by_four_of_a_value_agree(chain: str) -> None:
    """X5b fires in few hands: pick them out of many and play them in both engines."""
    cfg = Config(f"2p-{chain}-x5b", {"players": 2, "derba_chain": chain}, (G, G))
    rules = cfg.rules
    options = ref.RondaOptions(**rules.summary())
    kr = rules.kernel
    kinds = np.array(cfg.kinds, np.int64)
    seats = Seats(kinds, _params(kinds), np.zeros(len(kinds)))
    decks, dealers, us, seeds = record_hands(chunk_state(13, 0, stream=7), 2_000, -1, seats, kr)
    plays, play_pts, deal_pts, points, captured, ultima, counters = replay(
        decks, dealers, us, seeds, seats, kr)
    chosen = np.flatnonzero(plays[:, :, codes.F_CHAIN_CLOSED].any(axis=1))[:40]
    assert len(chosen) >= 10
    for h in chosen:
        why = _compare_hand(cfg, options, decks[h], dealers[h], us[h], plays[h], play_pts[h],
                            deal_pts[h], points[h], captured[h], ultima[h], counters[h])
        assert why is None, (int(h), why)


def _exact_rates() -> tuple[float, float]:
    """A2: expected Rondas and Tringlas in 4 cards drawn from 40 (ten values of four suits)."""
    total = math.comb(40, 4)
    pair = math.comb(4, 2) * math.comb(36, 2) / total
    three_or_four = (math.comb(4, 3) * math.comb(36, 1) + math.comb(4, 4)) / total
    return 10 * pair, 10 * three_or_four


@pytest.mark.parametrize("players,teams,mode", [(2, "off", "points"), (3, "off", "classic"),
                                                (4, "on", "points")])
def test_ronda_and_tringla_rates_match_the_hypergeometric_values(players, teams, mode) -> None:
    rules = RondaRules.make(players=players, teams=teams, mode=mode)
    kr = rules.kernel
    kinds = np.full(players, R, np.int64)
    seats = Seats(kinds, _params(kinds), np.zeros(len(kinds)))
    hands = 40_000
    stats = named_stats(simulate_hands(chunk_state(5, players), hands, -1, seats,
                                       kr))
    assert stats["hands"][0] == hands
    assert stats["violations"][0] == 0
    per_hand = stats["holdings"][0] / hands  # 4-card holdings per hand: fixed by D4
    assert per_hand == players * {2: 5, 3: 3, 4: 2}[players]
    exact_r, exact_t = _exact_rates()
    for name, exact in (("rondas", exact_r), ("tringlas", exact_t)):
        mean = stats[name][0] / hands
        var = stats[name + "_sq"][0] / hands - mean * mean
        se = math.sqrt(var / hands) / per_hand
        rate = mean / per_hand
        assert abs(rate - exact) < 4 * se, (name, rate, exact, se)


@pytest.mark.parametrize("index", range(len(CONFIGS)), ids=[c.name for c in CONFIGS])
def test_monte_carlo_invariants_on_every_hand(index: int) -> None:
    cfg = CONFIGS[index]
    rules = cfg.rules
    kr = rules.kernel
    kinds = np.array(cfg.kinds, np.int64)
    seats = Seats(kinds, _params(kinds), np.zeros(len(kinds)))
    hands = 3_000
    stats = named_stats(simulate_hands(chunk_state(3, index), hands, -1, seats,
                                       kr))
    assert stats["violations"][0] == 0
    assert stats["cards"].sum() == 40 * hands
    assert np.array_equal(stats["score"], stats["points"].sum(axis=1))
    if rules.mode == "classic":
        assert stats["points"].sum() == 0
    else:
        # S1: at least one side beyond its share in every hand with more than one card point.
        assert stats["points"][:, codes.SRC_CARDS].sum() > 0
    assert stats["hands_won"].sum() <= hands


def test_monte_carlo_is_the_recorded_hands() -> None:
    """simulate_hands and record_hands/replay draw the same stream (module docstring layout)."""
    rules = RondaRules.make(players=3, announce="every_deal")
    kr = rules.kernel
    kinds = np.array([R, G, R], np.int64)
    seats = Seats(kinds, _params(kinds), np.zeros(len(kinds)))
    stats = named_stats(simulate_hands(chunk_state(9, 0), 200, -1, seats, kr))
    assert set(stats) == set(STAT_NAMES)
    assert all(a.dtype in (np.int64, np.float64) for a in stats.values())
    decks, dealers, us, seeds = record_hands(chunk_state(9, 0), 200, -1, seats, kr)
    out = replay(decks, dealers, us, seeds, seats, kr)
    assert np.array_equal(out[3].sum(axis=0), stats["points"])
    assert out[6][:, 0].sum() == stats["rondas"][0]


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"players": 5}, "--players must be between 2 and 4 (rule D2), got 5"),
        ({"players": 3, "teams": "on"}, "--teams on needs --players 4 (rule D2), got --players 3"),
        ({"derba_chain": "steep"}, "--derba-chain must be one of flat|tiers (rule X6, X7), got"),
        ({"target": 1001}, "--target must be between 1 and 1000 (rule S4), got 1001"),
        ({"mode": "points", "hands_to_win": 2}, "only to --mode classic (rule C3), got 2"),
    ],
)
def test_rules_refuse_bad_values_in_one_line(kwargs, message) -> None:
    with pytest.raises(UsageError) as err:
        RondaRules.make(**kwargs)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_policy_arrays_give_each_seat_its_kind_and_parameter() -> None:
    kinds, params, _ = policy_arrays(["greedy", "random", "lookahead:2", "rollout"])
    assert kinds.tolist() == [G, R, codes.POLICY_LOOKAHEAD, codes.POLICY_ROLLOUT]
    assert params.tolist() == [0, 0, 2, 32]
    for spec, message in (("smart", "unknown ronda policy"), ("greedy:2", "at most 0"),
                          ("lookahead:0", "between 1 and"), ("rollout:x", "must be an integer")):
        with pytest.raises(UsageError, match=message):
            policy_arrays([spec])
