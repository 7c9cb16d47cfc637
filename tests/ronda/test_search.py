"""Ronda's searching policies in the numba kernel (Q1, Q4, Q5, Q7, I3 of ``seeds/ronda.md``).

- Q4/Q5/Q7 against the reference engine: both engines play the same hands (``record_hands``)
  with ``lookahead:1``, ``lookahead:2`` and ``rollout:8`` seats mixed with ``greedy`` and
  ``random``; the reference plays every searching decision on the samples the kernel drew
  (``replay_searched``), or by its own exact last deal once the stock is empty, and must choose
  the kernel's card, decision by decision.
- Q7: the kernel's card in the last deal has the brute-force maximum value (a plain full
  enumeration of the remaining plays with the reference engine).
- Q1: the samples are uniform over the assignments consistent with the announcements (chi-square
  against an exact enumeration), also with four players when several announced a Tringla.
- I3: swapping hidden cards (between two other hands, between a hand and the stock) changes
  neither the choice nor the samples drawn.

The default run stays short on one core; a bigger agreement run::

    .venv/bin/python -m pytest --full tests/ronda/test_search.py
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass

import numpy as np
import pytest

from simcards.core.rng import chunk_state
from simcards.core.rng_kernel import seed_state
from simcards.ronda import codes, search_kernel
from simcards.ronda import reference as ref
from simcards.ronda.kernel_state import Seats
from simcards.ronda.play_kernel import play_position, record_hands, replay_searched
from simcards.ronda.policies import policy_arrays
from simcards.ronda.rules import RondaRules
from tests import sizes
from tests.ronda.replaying import drawn_samples, mask_cards, replay_in_reference

FULL = sizes.FULL


# ---------------------------------------------------------------- Q4, Q5: agreement


@dataclass(frozen=True)
class Config:
    name: str
    options: dict
    specs: tuple[str, ...]
    hands: int


CONFIGS = [
    Config("2p-lookahead1-greedy", {"players": 2}, ("lookahead:1", "greedy"), 4),
    Config("2p-tiers-every-hta-random-lookahead2",
           {"players": 2, "derba_chain": "tiers", "announce": "every_deal",
            "announce_conflict": "highest_takes_all"}, ("random", "lookahead:2"), 2),
    Config("2p-classic-rollout8-greedy", {"players": 2, "mode": "classic"},
           ("rollout:8", "greedy"), 1),
    Config("3p-every-lookahead1-rollout8-greedy", {"players": 3, "announce": "every_deal"},
           ("lookahead:1", "rollout:8", "greedy"), 1),
    Config("4p-tiers-lookahead1-greedy-lookahead2-random", {"players": 4, "derba_chain": "tiers"},
           ("lookahead:1", "greedy", "lookahead:2", "random"), 1),
    Config("4t-every-rollout8-random-lookahead1-greedy",
           {"players": 4, "teams": "on", "announce": "every_deal"},
           ("rollout:8", "random", "lookahead:1", "greedy"), 1),
]


@pytest.mark.parametrize("index", range(len(CONFIGS)), ids=[c.name for c in CONFIGS])
def test_q4_q5_q7_kernel_decisions_match_the_reference(index: int) -> None:
    cfg = CONFIGS[index]
    rules = RondaRules.make(**cfg.options)
    kr = rules.kernel
    kinds, params, explore = policy_arrays(list(cfg.specs))
    seats = Seats(kinds, params, explore)
    n_hands = cfg.hands * (10 if FULL else 1)
    decks, dealers, us, seeds = record_hands(chunk_state(21, index, stream=7), n_hands, -1,
                                             seats, kr)
    out = replay_searched(decks, dealers, us, seeds, seats, kr, 200_000)
    plays, meta, rec_hands, rec_stock = out[0], out[7], out[8], out[9]
    assert out[6][:, 3].sum() == 0  # no broken invariant
    rows = {(int(r[search_kernel.REC_HAND]), int(r[search_kernel.REC_PLAY])): r for r in meta}
    compared = {"sampled": 0, "forced": 0, "last_deal": 0}

    def search(h: int, k: int, p: int, obs: dict, state: ref.HandState) -> int:
        kind = kinds[p]
        if (h, k) in rows:
            row = rows[(h, k)]
            assert int(row[search_kernel.REC_SEAT]) == p
            assert int(row[search_kernel.REC_KIND]) == kind
            drawn = drawn_samples(row, rec_hands, rec_stock, obs["players"], p)
            expected = search_kernel.LOOKAHEAD_SAMPLES if kind == codes.POLICY_LOOKAHEAD \
                else int(params[p])
            assert len(drawn) == expected
            unseen = ref.unseen_cards(obs)
            for hidden, stock in drawn:  # each sample places exactly the unseen cards
                assert sorted([*stock, *(c for cs in hidden.values() for c in cs)]) == unseen
            compared["sampled"] += 1
            if kind == codes.POLICY_LOOKAHEAD:
                return ref.lookahead_policy(obs, None, depth=int(params[p]), drawn=drawn)
            return ref.rollout_policy(obs, None, k=int(params[p]), drawn=drawn)
        if obs["stock_size"] == 0:
            compared["last_deal"] += 1
            return ref.last_deal_policy(obs)  # Q7: no samples
        assert len({c // 4 for c in obs["hand"]}) == 1  # one value in hand: nothing to search
        compared["forced"] += 1
        return obs["hand"][0]

    replay_in_reference(rules, decks, dealers, us, plays, kinds, search)
    assert compared["sampled"] >= 5 and compared["last_deal"] >= 2, compared


# ---------------------------------------------------------------- positions


def _position(rules: RondaRules, deck, dealer: int, played):
    """The kernel's workspace and the reference's state after the plays ``played``."""
    kr = rules.kernel
    ws, played = play_position(np.asarray(deck, np.int64), dealer,
                               np.asarray(played, np.int64), kr)
    state = ref.HandState(ref.RondaOptions(**rules.summary()), dealer, [int(c) for c in deck])
    for c in played:
        state.apply(int(c))
    return ws, state


def _search(rules: RondaRules, ws, spec: str, seed: int = 1, rec_cap: int = 0):
    """The kernel's card for the player to move, and the samples it drew."""
    kr = rules.kernel
    kinds, params, _ = policy_arrays([spec])
    sw = search_kernel.new_search_workspace(kr, rec_cap, 1)
    pst = np.zeros(4, np.uint64)
    seed_state(pst, np.uint64(seed))
    p = int(ws.st[10])  # S_TURN
    card = search_kernel.search_card(p, kinds[0], params[0], kr, ws, sw, pst)
    n_samples = int(sw.rec_info[2])
    return int(card), sw.rec_hands[:n_samples].copy(), sw.rec_stock[:n_samples].copy()


# ---------------------------------------------------------------- Q7: the exact last deal


def _max_n_final(state: ref.HandState) -> ref.HandState:
    """Plain max-n to the end of the hand: every mover takes the card with the highest V(own
    side) from his play to the end, the first in card order on a tie."""
    if state.is_terminal():
        return state
    side = state.side_of(state.current_player())
    best, best_v = None, None
    for card in state.legal_actions():
        child = state.clone()
        child.apply(card)
        final = _max_n_final(child)
        v = ref.stretch_value(state, final, side)
        if best_v is None or v > best_v:
            best, best_v = final, v
    return best


def _card_values(state: ref.HandState, assignments) -> dict[int, float]:
    """Mean V(own side) of each card over the given assignments of the other hands."""
    p = state.current_player()
    side = state.side_of(p)
    obs = state.observation(p)
    totals = dict.fromkeys(obs["hand"], 0)
    for hidden in assignments:
        base = ref.HandState.from_observation(obs, hidden, [])
        for card in obs["hand"]:
            child = base.clone()
            child.apply(card)
            totals[card] += ref.stretch_value(base, _max_n_final(child), side)
    return {c: t / len(assignments) for c, t in totals.items()}


def _assignments(state: ref.HandState) -> list[dict[int, list[int]]]:
    """Every assignment of the unseen cards to the other hands consistent with the last deal's
    announcements (Q1, Q7), by plain enumeration."""
    p = state.current_player()
    obs = state.observation(p)
    unseen = ref.unseen_cards(obs)
    others = [q for q in range(obs["players"]) if q != p]
    deal = obs["deal"]
    announcing = obs["options"].scoring and (deal == 0 or obs["options"].announce == "every_deal")
    out = []

    def rec(i: int, left: list[int], hidden: dict) -> None:
        if i == len(others):
            out.append(dict(hidden))
            return
        q = others[i]
        for hand in itertools.combinations(left, obs["hand_sizes"][q]):
            if announcing:
                played = [c for pq, c, d in obs["plays"] if pq == q and d == deal]
                wanted = sorted((a.kind, a.value) for a in obs["announcements"]
                                if a.deal == deal and a.player == q)
                if sorted(ref.holding_announcements(list(hand) + played)) != wanted:
                    continue
            hidden[q] = list(hand)
            rec(i + 1, [c for c in left if c not in hand], hidden)
        hidden.pop(q, None)

    rec(0, unseen, {})
    return out


def _last_deal_positions(options: dict, count: int, seed: int):
    """Random positions of the last deal (its start, or some plays into it), random play before."""
    rules = RondaRules.make(**options)
    ref_options = ref.RondaOptions(**rules.summary())
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        deck = list(range(40))
        rng.shuffle(deck)
        dealer = rng.randrange(rules.players)
        state = ref.HandState(ref_options, dealer, deck)
        played = []
        while state.observation(0)["stock_size"] > 0:
            c = rng.choice(state.legal_actions())
            played.append(c)
            state.apply(c)
        extra = rng.randrange(rules.players * ref_options.deal_sizes[-1] - 1)
        for _ in range(extra):
            c = rng.choice(state.legal_actions())
            played.append(c)
            state.apply(c)
        if len({c // 4 for c in state.legal_actions()}) > 1:
            out.append((deck, dealer, played))
    return rules, out


@pytest.mark.parametrize("spec", ["lookahead:1", "rollout:4"])
def test_q7_two_players_last_deal_is_exactly_optimal(spec: str) -> None:
    rules, positions = _last_deal_positions({"players": 2, "derba_chain": "tiers"},
                                            150, seed=7)
    starts = 0
    for deck, dealer, played in positions:
        ws, state = _position(rules, deck, dealer, played)
        card, _, _ = _search(rules, ws, spec)
        values = _card_values(state, _assignments(state))
        assert len(_assignments(state)) == 1
        assert values[card] == max(values.values()), (deck, dealer, played, card, values)
        starts += state.observation(0)["hand_sizes"] == (4, 4)
    assert starts >= 10


@pytest.mark.parametrize("options", [{"players": 4}, {"players": 4, "teams": "on"},
                                     {"players": 4, "announce": "every_deal"}],
                         ids=["4p", "4t", "4p-every-deal"])
def test_q7_four_players_last_deal_averages_every_consistent_assignment(options) -> None:
    rules, positions = _last_deal_positions(options, 12, seed=9)
    for deck, dealer, played in positions:
        ws, state = _position(rules, deck, dealer, played)
        card, _, _ = _search(rules, ws, "lookahead:1")
        values = _card_values(state, _assignments(state))
        assert values[card] == max(values.values()), (deck, dealer, played, card, values)
        best = [c for c, v in values.items() if v == max(values.values())]
        if len(best) == 1:
            assert card == best[0]
        assert card == ref.last_deal_policy(state.observation(state.current_player()))


# ---------------------------------------------------------------- Q1: uniform samples


def _announcing_position(seed: int):
    """Two players, ``announce=every_deal``, the fourth deal: the first player announced a Ronda
    and has played one card since; the dealer to move."""
    rules = RondaRules.make(players=2, announce="every_deal")
    rng = random.Random(seed)
    while True:
        deck = list(range(40))
        rng.shuffle(deck)
        dealer = 1
        ws, state = _position(rules, deck, dealer, [-1] * 25)
        wanted = [a for a in state.announcements if a.deal == 3 and a.player == 0]
        values = {c // 4 for c in state.hands[1]}
        if wanted and all(a.kind == "ronda" for a in wanted) and len(values) > 1:
            return rules, ws, state


def test_q1_samples_are_uniform_over_the_consistent_assignments() -> None:
    rules, ws, state = _announcing_position(3)
    obs = state.observation(1)
    assert obs["stock_size"] == 8 and obs["hand_sizes"] == (3, 4)
    consistent = {tuple(sorted(h[0])) for h in _assignments(state)}
    n_unseen = len(ref.unseen_cards(obs))
    assert 1 < len(consistent) < math.comb(n_unseen, 3)  # the announcement constrains
    k = min(400 * len(consistent), 100_000)
    _, hands, stock = _search(rules, ws, f"rollout:{k}", seed=5, rec_cap=k)
    assert len(hands) == k
    counts: dict[tuple[int, ...], int] = {}
    tops: dict[int, int] = {}
    for i in range(k):
        hand = tuple(mask_cards(hands[i, 0]))
        assert hand in consistent, hand
        counts[hand] = counts.get(hand, 0) + 1
        tops[int(stock[i, 0])] = tops.get(int(stock[i, 0]), 0) + 1
    # Pearson's chi-square against the uniform law over the consistent hands; the threshold is
    # the mean plus 5 standard deviations of the chi-square law (dof = cells - 1), a false
    # alarm rate below 1e-5.
    cells = len(consistent)
    expected = k / cells
    chi2 = sum((counts.get(h, 0) - expected) ** 2 / expected for h in consistent)
    dof = cells - 1
    assert chi2 < dof + 5 * math.sqrt(2 * dof), (chi2, dof)
    # Given the hand, the stock is a uniform shuffle of the rest: card c is on top with
    # probability sum over the consistent hands h without c of 1 / (cells x |rest of h|).
    p_top = {c: 0.0 for c in ref.unseen_cards(obs)}
    for h in consistent:
        rest = [c for c in ref.unseen_cards(obs) if c not in h]
        for c in rest:
            p_top[c] += 1 / (cells * len(rest))
    chi2 = sum((tops.get(c, 0) - k * p) ** 2 / (k * p) for c, p in p_top.items() if p > 0)
    dof = sum(1 for p in p_top.values() if p > 0) - 1
    assert chi2 < dof + 5 * math.sqrt(2 * dof), (chi2, dof)


def _rare_four_player_position(seed: int):
    """Four players, two rounds of the first deal played: at least two other players announced a
    Tringla, so that a plain rejection sampler would almost never draw a consistent sample."""
    rules = RondaRules.make(players=4)
    rng = random.Random(seed)
    while True:
        deck = list(range(40))
        rng.shuffle(deck)
        dealer = rng.randrange(4)
        ws, state = _position(rules, deck, dealer, [-1] * 8)
        p = state.current_player()
        tringlas = {a.player for a in state.announcements
                    if a.deal == 0 and a.kind == "tringla" and a.player != p}
        if len(tringlas) >= 2 and len({c // 4 for c in state.hands[p]}) > 1:
            return rules, ws, state


def test_q1_four_player_samples_are_uniform_when_several_players_announced() -> None:
    """Q1 with three other hands and two or more Tringlas announced: every sample is consistent
    and each other hand follows its exact marginal law over the consistent assignments (plain
    enumeration), so the exact sampler neither rejects forever nor favours any assignment."""
    rules, ws, state = _rare_four_player_position(11)
    p = state.current_player()
    obs = state.observation(p)
    others = [q for q in range(4) if q != p]
    assignments = _assignments(state)
    total = len(assignments)
    assert total > 1
    # The chance that independent uniform hands happen to fit: a rejection sampler's yield.
    free = math.prod(math.comb(len(ref.unseen_cards(obs)) - 2 * i, 2) for i in range(3))
    assert total / free < 1e-3
    k = 40_000
    _, hands, _ = _search(rules, ws, f"rollout:{k}", seed=7, rec_cap=k)
    assert len(hands) == k
    consistent = {tuple(tuple(sorted(a[q])) for q in others) for a in assignments}
    for q in others:
        exact: dict[tuple[int, ...], int] = {}
        for a in assignments:
            h = tuple(sorted(a[q]))
            exact[h] = exact.get(h, 0) + 1
        counts: dict[tuple[int, ...], int] = {}
        for i in range(k):
            h = tuple(mask_cards(hands[i, q]))
            counts[h] = counts.get(h, 0) + 1
        assert set(counts) <= set(exact)
        # Pearson's chi-square against the exact marginal; mean plus 5 standard deviations.
        chi2 = sum((counts.get(h, 0) - k * n / total) ** 2 / (k * n / total)
                   for h, n in exact.items())
        dof = len(exact) - 1
        if dof > 0:
            assert chi2 < dof + 5 * math.sqrt(2 * dof), (q, chi2, dof)
    for i in range(k):
        assert tuple(tuple(mask_cards(hands[i, q])) for q in others) in consistent


# ---------------------------------------------------------------- I3: isolation


def _hidden_swaps(rules: RondaRules, deck, dealer: int, played, state):
    """Decks that differ from ``deck`` by a swap of two hidden cards: between two other hands,
    and between another hand and the stock, keeping every announcement as it was."""
    p = state.current_player()
    obs = state.observation(p)
    others = [q for q in range(rules.players) if q != p and state.hands[q]]
    pos = {c: i for i, c in enumerate(deck)}
    pairs = []
    if len(others) >= 2:
        pairs += [(a, b) for a in state.hands[others[0]] for b in state.hands[others[1]]]
    pairs += [(a, b) for q in others for a in state.hands[q] for b in state.stock]
    out = []
    for a, b in pairs:
        if a // 4 == b // 4:
            continue
        swapped = list(deck)
        swapped[pos[a]], swapped[pos[b]] = b, a
        _, other = _position(rules, swapped, dealer, played)
        if other.announcements == state.announcements and \
                other.observation(p) == obs:
            out.append((swapped, "hands" if b not in state.stock else "stock"))
    return out


@pytest.mark.parametrize("spec", ["lookahead:2", "rollout:6"])
@pytest.mark.parametrize("options,n_played", [({"players": 2}, 1), ({"players": 2}, 13),
                                              ({"players": 4, "announce": "every_deal"}, 5),
                                              ({"players": 3}, 4)],
                         ids=["2p-deal0", "2p-deal1", "4p-every", "3p"])
def test_i3_hidden_cards_change_neither_the_choice_nor_the_samples(spec, options,
                                                                   n_played) -> None:
    rules = RondaRules.make(**options)
    rng = random.Random(n_played)
    kinds_seen = set()
    for _ in range(3):
        deck = list(range(40))
        rng.shuffle(deck)
        dealer = rng.randrange(rules.players)
        ws, state = _position(rules, deck, dealer, [-1] * n_played)
        played = [int(c) for c in play_position(np.asarray(deck, np.int64), dealer,
                                                np.full(n_played, -1, np.int64),
                                                rules.kernel)[1]]
        card, hands, stock = _search(rules, ws, spec, seed=3, rec_cap=1000)
        swaps = _hidden_swaps(rules, deck, dealer, played, state)
        for swapped, kind in swaps[:6]:
            ws2, state2 = _position(rules, swapped, dealer, played)
            assert state2.hands != state.hands or state2.stock != state.stock
            card2, hands2, stock2 = _search(rules, ws2, spec, seed=3, rec_cap=1000)
            assert card2 == card
            assert np.array_equal(hands2, hands) and np.array_equal(stock2, stock)
            kinds_seen.add(kind)
    assert "stock" in kinds_seen
    if rules.players > 2:
        assert "hands" in kinds_seen
