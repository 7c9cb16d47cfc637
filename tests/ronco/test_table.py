"""Ronco as a game-AI state (``simcards.ronco.table``): the step-by-step engine against the
reference engine (R1-R10, G1-G7), what each player may see (R11), resampling, chance (T3, G4)
and the two descriptors (``ronco_v0``, ``ronco_game_v0``)."""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable
from itertools import product

import numpy as np
import pytest

from simcards.core.errors import UsageError
from simcards.core.table import CHANCE, Cursor, TableState
from simcards.ronco import cli
from simcards.ronco import reference as ref
from simcards.ronco.table import (
    GAME,
    KEEP,
    PASS,
    REFUSED,
    ROUND,
    GameState,
    RoncoSetup,
    RoundState,
    seat_policy,
)

# -- helpers


class _Uniforms:
    """A generator stand-in whose ``random()`` returns the uniform the reference gives the
    position to act (S3: one per position and decision)."""

    def __init__(self, uniforms: Callable[[], float]) -> None:
        self._next = uniforms

    def random(self) -> float:
        return self._next()


def _spec(rng: random.Random, top: int) -> str:
    kind = rng.choice(("threshold", "informed", "informed", "random"))
    if kind == "random":
        return f"random:{rng.choice((0.2, 0.5, 0.8))}"
    return f"{kind}:{rng.randint(0, top + 1)}:{rng.randint(0, top + 1)}"


def _ref_policy(spec: str) -> ref.RefPolicy:
    kind, *vals = spec.split(":")
    if kind == "random":
        return ref.RefPolicy("random", p=float(vals[0]))
    return ref.RefPolicy(kind, int(vals[0]), int(vals[1]))


def _round_setup(deck: str, n: int, cut_king: str | None = None, ties: str = "all",
                 poroli: bool = False) -> RoncoSetup:
    return ROUND.setup({"players": n, "deck": deck, "cut_king": cut_king, "ties": ties,
                        "poroli": poroli})


RULE_SETS = [
    (deck, poroli, cut_king, ties)
    for deck, poroli, cut_king, ties in product(("spanish40", "spanish48", "french52"),
                                                (False, True), ("loses", "blocked", "none"),
                                                ("all", "first"))
    if not (deck == "spanish48" and poroli and cut_king == "blocked")
]
"""Every rule switch of a round, less one combination, to keep the file fast."""


def _play_round(state: RoundState, choosers: list, uniforms: list[float], cut: int) -> None:
    """Drive a dealt round with the seats' choosers; the cut card when the dealer cuts."""
    stub = _Uniforms(lambda: uniforms[state.current_player()])
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_chance(cut)
        else:
            state.play(choosers[state.current_player()](state, stub))


# -- agreement with the reference engine


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: "-".join(map(str, r)))
def test_round_agrees_with_reference_R1_R10(rules) -> None:
    """R1-R10 and S1-S3 deal by deal: the same final cards, losers, double losses, absolute
    ties, cuts and cut-king as ``reference.play_round`` with the same policies."""
    deck, poroli, cut_king, ties = rules
    rng = random.Random("-".join(map(str, rules)))
    for _ in range(100):
        n = rng.randint(2, 7)
        setup = _round_setup(deck, n, cut_king, ties, poroli)
        t = setup.table
        specs = [_spec(rng, t.top) for _ in range(n)]
        perm = rng.sample(range(t.n_cards), n + 1)
        uniforms = [rng.random() for _ in range(n)]
        out = ref.play_round([t.ref_cards[c] for c in perm[:n]], t.ref_cards[perm[n]],
                             [_ref_policy(s) for s in specs], deck=deck, cut_king=cut_king,
                             ties=ties, poroli=poroli, uniforms=uniforms)
        state = ROUND.new_state(setup)
        for c in perm[:n]:
            state.apply_chance(c)
        _play_round(state, [seat_policy(setup, s) for s in specs], uniforms, perm[n])
        assert tuple(t.ref_cards[c] for c in state.cards) == out.final_cards
        assert state.losers == out.losers
        assert state.double == out.double
        assert state.absolute_tie == out.absolute_tie
        assert (state.acts[-1] == PASS) == out.dealer_cut
        assert state.cut_king_fired == out.cut_king_fired
        lost = [0 if out.absolute_tie or not lo else 2 if d else 1
                for lo, d in zip(out.losers, out.double, strict=True)]
        assert state.returns() == [float(-x) for x in lost]


GAME_CASES = [
    # deck, poroli, cut_king, ties, absolute_tie, players, lives, first_dealer
    ("spanish40", False, "loses", "all", "void", 4, 2, None),
    ("spanish40", False, "loses", "all", "replay", 2, 3, 1),
    ("spanish40", True, None, "first", "replay", 3, 2, None),
    ("spanish48", False, "blocked", "first", "void", 5, 2, 4),
    ("french52", True, "blocked", "all", "replay", 6, 1, None),
    ("french52", False, "none", "all", "void", 3, 3, None),
    ("spanish40", False, "none", "first", "replay", 2, 2, None),
]


@pytest.mark.parametrize("case", GAME_CASES, ids=lambda c: "-".join(map(str, c)))
def test_game_agrees_with_reference_G1_G7(case, monkeypatch) -> None:
    """G1-G7 game by game: every round's final cards and losers, then lives, eliminations,
    rounds, winner and void endings as ``reference.play_game`` on the same deals."""
    deck, poroli, cut_king, ties, absolute_tie, n, lives, first = case
    setup = GAME.setup({"players": n, "deck": deck, "cut_king": cut_king, "ties": ties,
                        "poroli": poroli, "absolute_tie": absolute_tie, "lives": lives,
                        "first_dealer": first})
    t = setup.table
    rules = setup.rules
    rng = random.Random(n * 1000 + lives)
    played: list = []
    real_play_round = ref.play_round

    def recording(*args, **kwargs):
        out = real_play_round(*args, **kwargs)
        played.append(out)
        return out

    monkeypatch.setattr(ref, "play_round", recording)
    endings = set()
    for _ in range(60):
        specs = [_spec(rng, t.top) for _ in range(n)]
        deals: list[tuple[list[int], int, list[float]]] = []

        def next_deal(k: int, deals=deals):
            perm = rng.sample(range(t.n_cards), k + 1)
            us = [rng.random() for _ in range(k)]
            deals.append((perm[:k], perm[k], us))
            return [t.ref_cards[c] for c in perm[:k]], t.ref_cards[perm[k]], us

        d0 = first if first is not None else rng.randrange(n)
        played.clear()
        out = ref.play_game(n, lives, [_ref_policy(s) for s in specs], d0, next_deal,
                            deck=deck, cut_king=rules.cut_king, ties=ties,
                            poroli=poroli, absolute_tie=absolute_tie)
        game = GAME.new_state(setup)
        if first is None:
            assert game.current_player() == CHANCE
            game.apply_chance(d0)
        choosers = [seat_policy(setup, s) for s in specs]
        for r, (dealt, cut, us) in enumerate(deals):
            assert len(game.rounds) == r + 1
            stub = _Uniforms(lambda us=us, g=game: us[g.round.current_player()])
            for c in dealt:
                game.apply_chance(c)
            rnd = game.round
            while len(game.rounds) == r + 1 and not game.is_terminal():
                if game.current_player() == CHANCE:
                    game.apply_chance(cut)
                else:
                    game.play(choosers[game.current_player()](game, stub))
            assert tuple(t.ref_cards[c] for c in rnd.cards) == played[r].final_cards
            assert rnd.losers == played[r].losers
        assert game.is_terminal()
        assert len(game.rounds) == out.rounds == len(deals)
        assert tuple(game.lives) == out.lives_left
        assert tuple(game.eliminated_in_round) == out.eliminated_in_round
        assert game.winner == out.winner and game.void == out.void
        assert game.returns() == [float(s == out.winner) for s in range(n)]
        assert game.infos(0)["rounds"] == out.rounds
        endings.add("void" if out.void else "won" if out.winner is not None else "all out")
    assert "won" in endings


# -- what a player sees (R11)


def _seen_cards(state: RoundState, p: int | None) -> set[int]:
    """The cards ``p`` has seen, worked out here from the rules alone (R3, R4, R6, R11, and
    cards up at the end), independently of the module's own bookkeeping."""
    t = state.table
    n = state.n_players
    cards = list(state.dealt)
    seen = {cards[p]} if p is not None and p < len(cards) else set()
    for i, move in enumerate(state.decisions[: n - 1]):
        if move == PASS and t.values[cards[i + 1]] != t.top:
            if p in (i, i + 1):
                seen |= {cards[i], cards[i + 1]}
            cards[i], cards[i + 1] = cards[i + 1], cards[i]
    if state.cut is not None:
        seen.add(state.cut)
        blocked = t.values[state.cut] == t.top and t.rules.cut_king == "blocked"
        if not blocked:
            cards[n - 1] = state.cut
    if state.is_terminal():
        seen |= set(cards)
    return seen


def _changed_deal(state: RoundState, p: int | None, rng: random.Random) -> list[int]:
    """The deal with every card ``p`` has not seen replaced by another card he has not seen,
    the top rank by the top rank and any other by another (so refusals stay as they were, R4)."""
    t = state.table
    seen = _seen_cards(state, p)
    unseen = [c for c in range(t.n_cards) if c not in seen]
    new = list(state.dealt)
    for top in (True, False):
        hidden = [j for j, c in enumerate(state.dealt)
                  if c not in seen and (t.values[c] == t.top) == top]
        pool = [c for c in unseen if (t.values[c] == t.top) == top]
        for j, c in zip(hidden, rng.sample(pool, len(hidden)), strict=True):
            new[j] = c
    return new


def _replayed(state: RoundState, deal: list[int]) -> RoundState:
    other = RoundState(state.table, state.n_players)
    for c in deal:
        other.apply_chance(c)
    for move in state.decisions:
        other.play(move)
    if state.cut is not None:
        other.apply_chance(state.cut)
    return other


def _random_round(rng: random.Random) -> RoundState:
    """A round stopped at a random point (mid-deal, mid-round, awaiting the cut, or over)."""
    deck = rng.choice(("spanish40", "spanish48", "french52"))
    n = rng.randint(2, 6)
    setup = _round_setup(deck, n, rng.choice((None, "blocked", "loses")),
                         rng.choice(("all", "first")), rng.random() < 0.3)
    state = ROUND.new_state(setup)
    steps = rng.randint(0, 2 * n + 2)
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.current_player() == CHANCE:
            state.apply_chance(rng.choice(state.chance_outcomes())[0])
        else:
            state.play(rng.choice((KEEP, PASS, PASS)))
    return state


def _leaks(states: list[RoundState], rng: random.Random) -> int:
    """How many (state, player) views change when every card the player cannot see changes."""
    found = 0
    for state in states:
        for p in range(state.n_players):
            for _ in range(3):
                other = _replayed(state, _changed_deal(state, p, rng))
                assert other.acts == state.acts
                if (not np.array_equal(state.observation(p), other.observation(p))
                        or state.observation_text(p) != other.observation_text(p)
                        or state.information_text(p) != other.information_text(p)):
                    found += 1
                    break
    return found


def test_hidden_cards_never_reach_the_player_R11(monkeypatch) -> None:
    """Changing every card a player has not seen (other hands, the cards travelling in swaps he
    was not part of; the cut card does not exist before the dealer cuts) leaves his
    observation, its text and his information text as they were; a deliberately leaky
    encoder (the next position's card added) is caught by the same check."""
    rng = random.Random(11)
    states = [_random_round(rng) for _ in range(600)]
    assert _leaks(states, rng) == 0

    honest = RoundState.observation

    def leaky(self: RoundState, player: int, pending=()) -> np.ndarray:
        out = honest(self, player, pending)
        nxt = (player + 1) % self.n_players
        extra = np.zeros(self.table.n_classes, dtype=np.float32)
        if nxt < len(self.cards):
            extra[self.table.classes[self.cards[nxt]]] = 1.0
        return np.concatenate([out, extra])

    monkeypatch.setattr(RoundState, "observation", leaky)
    assert _leaks(states, random.Random(12)) > 100


def test_game_views_hide_the_current_round_R11() -> None:
    """In a game, changing the unseen cards of the round in progress changes nothing any seat
    observes, the seats that are out included (they watch as onlookers)."""
    rng = random.Random(5)
    setup = GAME.setup({"players": 5, "lives": 2, "poroli": True})
    checked = 0
    for _ in range(30):
        game = GAME.new_state(setup)
        choosers = [seat_policy(setup, _spec(rng, setup.table.top)) for _ in range(5)]
        stop = rng.randint(1, 60)
        steps = 0
        while not game.is_terminal() and steps < stop:
            if game.current_player() == CHANCE:
                game.deal(rng)
            else:
                game.play(choosers[game.current_player()](game, rng))
                steps += 1
        if game.is_terminal():
            continue
        order = game.order
        for seat in range(5):
            pos = order.index(seat) if seat in order else None
            other = game.clone()
            other.rounds[-1] = (order, _replayed(game.round,
                                                 _changed_deal(game.round, pos, rng)))
            assert np.array_equal(game.observation(seat), other.observation(seat))
            assert game.observation_text(seat) == other.observation_text(seat)
            assert game.information_text(seat) == other.information_text(seat)
            checked += 1
    assert checked > 50


def test_refusal_is_automatic_and_public_R4() -> None:
    """Position 0 passes to a Rey: the swap is refused, both keep their cards, and everybody
    sees the refusal (which tells position 0 nothing more than that a top card sits there)."""
    setup = _round_setup("spanish40", 3)
    t = setup.table
    five, rey, two = (t.deck.find(5, "oros"), t.deck.find(12, "copas"),
                      t.deck.find(2, "espadas"))
    state = ROUND.new_state(setup)
    for c in (five, rey, two):
        state.apply_chance(c)
    state.play(PASS)
    assert state.acts == [REFUSED] and state.cards == [five, rey, two]
    assert "refuses" in state.information_text(2)
    obs = state.observation(2)
    at = t.n_classes + 3 + 1  # card, position, dealer
    assert obs[at + 4 * 0 + REFUSED] == 1.0


def test_cut_card_is_drawn_only_when_the_dealer_cuts_R6_T3() -> None:
    """Nothing is drawn when the dealer keeps; a cut is a chance node over every card not
    dealt, and the cut card is then shown to everybody (R6, R11)."""
    setup = _round_setup("spanish48", 3)
    state = ROUND.new_state(setup)
    state.deal(random.Random(3))
    keep = state.clone()
    for _ in range(3):
        keep.play(KEEP)
    assert keep.is_terminal() and keep.cut is None
    state.play(KEEP)
    state.play(KEEP)
    state.play(PASS)
    assert state.current_player() == CHANCE
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 48 - 3 and not {c for c, _ in outcomes} & set(state.dealt)
    state.apply_chance(outcomes[0][0])
    assert state.is_terminal()
    for p in range(3):
        assert "cut card" in state.observation_text(p)


def test_absolute_tie_costs_no_lives_and_poroli_costs_two_R9_R10_G6() -> None:
    """An absolute tie keeps its losers (R9) but costs no lives (G6): the round pays 0; void
    ends the game with no winner, replay deals again with the same dealer. A Poroli loser
    loses two lives (R10)."""
    setup = _round_setup("spanish40", 2)
    d = setup.table.deck
    state = ROUND.new_state(setup)
    for c in (d.find(5, "oros"), d.find(5, "copas")):
        state.apply_chance(c)
    state.play(KEEP)
    state.play(KEEP)
    assert state.absolute_tie and state.losers == (True, True)
    assert state.returns() == [0.0, 0.0]
    assert state.infos(0) == {"lost": True, "lives_lost": 0, "final_card": (5, "oros"),
                              "dealer_cut": False}
    for rule, over in (("void", True), ("replay", False)):
        game = GAME.new_state(GAME.setup({"players": 2, "absolute_tie": rule,
                                          "first_dealer": 1}))
        for c in (d.find(5, "oros"), d.find(5, "copas")):
            game.apply_chance(c)
        game.play(KEEP)
        game.play(KEEP)
        assert game.is_terminal() == over and game.lives == [7, 7]
        if over:
            assert game.returns() == [0.0, 0.0] and game.infos(1)["winner"] is None
        else:
            assert len(game.rounds) == 2 and game.order == [0, 1]
    setup = _round_setup("spanish40", 2, poroli=True)
    state = ROUND.new_state(setup)
    for c in (d.find(1, "bastos"), d.find(3, "copas")):
        state.apply_chance(c)
    state.play(KEEP)
    state.play(KEEP)
    assert state.returns() == [-2.0, 0.0] and state.infos(0)["lives_lost"] == 2


# -- resampling


def test_resample_keeps_the_information_R11() -> None:
    """A resampled state gives the player the same information text and observation, and
    keeps every card he has seen (rounds, and games with their past rounds)."""
    rng = random.Random(21)
    for _ in range(200):
        state = _random_round(rng)
        for p in range(state.n_players):
            other = state.resample(p, rng)
            assert other.information_text(p) == state.information_text(p)
            assert np.array_equal(other.observation(p), state.observation(p))
            assert _seen_cards(other, p) == _seen_cards(state, p)
    setup = GAME.setup({"players": 4, "lives": 2, "absolute_tie": "replay"})
    for _ in range(10):
        game = GAME.new_state(setup)
        chooser = seat_policy(setup, "informed:5:5")
        stop = rng.randint(5, 40)
        while not game.is_terminal() and stop:
            if game.current_player() == CHANCE:
                game.deal(rng)
            else:
                game.play(chooser(game, rng))
                stop -= 1
        for seat in range(4):
            other = game.resample(seat, rng)
            assert other.information_text(seat) == game.information_text(seat)
            assert np.array_equal(other.observation(seat), game.observation(seat))


def test_resample_covers_every_consistent_card_R3_R4() -> None:
    """Position 0 passes and is refused (position 1 was dealt a Rey, R4); position 1 keeps;
    position 2 swaps with the dealer (the dealer was not dealt a Rey, R3). Resampled for
    position 0, position 1 gets every Rey but his, position 2 every card he has not seen,
    the dealer every card but the Reys, and nothing else."""
    setup = _round_setup("spanish40", 4)
    t = setup.table
    d = t.deck
    mine = d.find(3, "oros")
    dealt = [mine, d.find(12, "copas"), d.find(6, "espadas"), d.find(4, "bastos")]
    state = ROUND.new_state(setup)
    for c in dealt:
        state.apply_chance(c)
    for move in (PASS, KEEP, PASS):
        state.play(move)
    assert state.acts == [REFUSED, 0, 1]
    rng = random.Random(4)
    slots: list[set[int]] = [set(), set(), set(), set()]
    for _ in range(1500):
        other = state.resample(0, rng)
        for j, c in enumerate(other.dealt):
            slots[j].add(c)
    others = set(range(t.n_cards)) - {mine}
    reys = {c for c in others if t.values[c] == 12}
    assert slots[0] == {mine}
    assert slots[1] == reys
    assert slots[2] == others
    assert slots[3] == others - reys
    # The dealer cuts: at the end every final card is up (cards up), and only the card he
    # discarded for the cut card (the one position 2 swapped to him) is still unknown.
    state.play(PASS)
    cut = d.find(7, "copas")
    state.apply_chance(cut)
    assert state.is_terminal()
    discarded = set()
    for _ in range(600):
        other = state.resample(0, rng)
        assert [c for j, c in enumerate(other.dealt) if j != 2] == [mine, dealt[1], dealt[3]]
        discarded.add(other.dealt[2])
    assert discarded == others - {dealt[1], dealt[3], cut}


# -- chance


def test_chance_probabilities_sum_to_one_T3_G4() -> None:
    """Every chance node (the first dealer, each card of a deal, the cut card) lists distinct
    outcomes in increasing order with probabilities summing to 1."""
    rng = random.Random(8)
    states: list[TableState] = [GAME.new_state(GAME.setup({"players": 3, "lives": 3}))]
    states += [ROUND.new_state(_round_setup(deck, n, poroli=poroli))
               for deck, n, poroli in product(("spanish40", "french52"), (2, 5, 7), (False, True))]
    nodes = 0
    for state in states:
        choose = seat_policy(state.setup if isinstance(state, GameState)
                             else RoncoSetup(state.table.rules, state.n_players), "random:0.5")
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                outcomes = state.chance_outcomes()
                ids = [o for o, _ in outcomes]
                assert ids == sorted(set(ids))
                assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-12
                state.apply_chance(rng.choice(ids))
                nodes += 1
            else:
                state.play(choose(state, rng))
    assert nodes > 80


# -- the descriptors


def test_descriptor_params_are_the_commands_flags() -> None:
    """Options named as the ``rounds``/``games`` flags, with their defaults; bad values are
    one-line errors naming the flag; ``--poroli`` sets cut_king none (P1)."""
    rounds_sig = inspect.signature(cli.rounds).parameters
    games_sig = inspect.signature(cli.games).parameters
    for game, sig in ((ROUND, rounds_sig), (GAME, games_sig)):
        for p in game.params:
            assert sig[p.name].default == p.default, p.name
    assert GAME.defaults()["lives"] == 7
    assert ROUND.setup({"poroli": True}).rules.cut_king == "none"
    bad = [(ROUND, {"deck": "tarot"}, "--deck"), (ROUND, {"cut_king": "x"}, "--cut-king"),
           (ROUND, {"ties": "x"}, "--ties"), (ROUND, {"players": 1}, "--players"),
           (ROUND, {"poroli": "yes"}, "--poroli"), (GAME, {"lives": 0}, "--lives"),
           (GAME, {"absolute_tie": "x"}, "--absolute-tie"),
           (GAME, {"first_dealer": 4}, "--first-dealer"), (ROUND, {"lives": 3}, "lives")]
    for game, opts, flag in bad:
        with pytest.raises(UsageError, match=flag) as err:
            game.setup(opts)
        assert "\n" not in str(err.value)
    with pytest.raises(UsageError, match="bayes"):
        seat_policy(ROUND.setup({}), "bayes")
    with pytest.raises(UsageError):
        seat_policy(ROUND.setup({}), "threshold:99:1")


@pytest.mark.parametrize("opts", [{}, {"players": 7, "deck": "french52", "poroli": True},
                                  {"players": 2, "deck": "spanish48"}])
def test_descriptor_sizes_and_bounds(opts) -> None:
    """The observation has the declared size for every seat at every step; returns stay
    within the utility range; games stay within max_game_length; codes are keep and pass."""
    rng = random.Random(1)
    for game, extra in ((ROUND, {}), (GAME, {"lives": 2})):
        setup = game.setup({**opts, **extra})
        n = game.n_players(setup)
        size = game.observation_size(setup)
        lo, hi = game.utility(setup)
        for g in range(5):
            cursor = Cursor(game.new_state(setup))
            codes = 0
            while True:
                cursor.deal(rng)
                for p in range(n):
                    obs = cursor.state.observation(p)
                    assert obs.shape == (size,) and obs.dtype == np.float32
                if cursor.state.is_terminal():
                    break
                assert cursor.legal_codes() == [KEEP, PASS]
                cursor.step(rng.choice(cursor.legal_codes()))
                codes += 1
            assert codes <= game.max_game_length(setup)
            assert all(lo <= r <= hi for r in cursor.state.returns())
            assert cursor.state.infos(g % n)
            assert cursor.state.render()
    assert [ROUND.action_text(c) for c in (KEEP, PASS)] == ["keep", "pass"]
    assert ROUND.observation_size(ROUND.setup({})) == 111
    assert GAME.observation_size(GAME.setup({})) == 123
