"""Römi as a game-AI state (``simcards.romi.table``, ``table_codes``): the action numbering
covers every legal move of the reference engine (T1-T7, O1, J1) with one path each, random play
through action codes ends as the reference ends the same moves (G1-G5), chance is explicit and
sums to 1 (D3, D4, T8), a player's views do not depend on the cards he cannot see (I1-I3, with a
leaky encoder caught), resampling keeps what he has seen, the engine's policies play the
engine's rounds (Q2-Q5) and a game pays its winner (G6).

The reference's legal-move search is slow, so rounds are few and short where they are
enumerated in full; the whole file runs in a few seconds once the engine is compiled.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest

from simcards.core.errors import UsageError
from simcards.core.table import CHANCE, TERMINAL, Cursor, TableState
from simcards.romi import cards as C
from simcards.romi import records as K
from simcards.romi import reference as ref
from simcards.romi import table_codes as T
from simcards.romi.actions import Action, Add, Discard, DrawStock, Lay, Open, Swap
from simcards.romi.table import GAME, ROUND, Layout, RomiSetup, RomiTable, kind_signature

# ---------------------------------------------------------------- helpers


def _state(options: dict, game: bool = False) -> RomiTable:
    g = GAME if game else ROUND
    state = g.new_state(g.setup(options))
    assert isinstance(state, RomiTable)
    return state


def _random_play(options: dict, seed: int, game: bool = False,
                 keep_every: int = 0) -> tuple[RomiTable, list[RomiTable]]:
    """A round (or game) played to its end by uniformly random *codes* (Cursor), chance
    resolved by ``deal``; every ``keep_every``-th decision state is kept (clones)."""
    state = _state(options, game)
    cursor = Cursor(state)
    rng = random.Random(seed)
    kept: list[RomiTable] = []
    steps = 0
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            cursor.deal(rng)
            continue
        if keep_every and steps % keep_every == 0 and not cursor.pending:
            kept.append(state.clone())
        cursor.step(rng.choice(cursor.legal_codes()))
        steps += 1
    return state, kept


def _copy_key(move: Action, known: set[int]) -> tuple:
    """Publicly known copies first (most of them), then the lowest ids."""
    if isinstance(move, Add | Swap | Discard):
        cards: tuple[int, ...] = (move.card,)
    elif isinstance(move, Lay):
        cards = move.meld.cards
    elif isinstance(move, Open):
        cards = tuple(c for m in move.melds for c in m.cards)
    else:
        cards = ()
    return (-sum(c in known for c in cards), tuple(sorted(cards)))


def _views(state: RomiTable, player: int) -> tuple[bytes, str, str]:
    return (state.observation(player).tobytes(), state.observation_text(player),
            state.information_text(player))


def _exchange_hidden(state: RomiTable, player: int, rng: random.Random) -> RomiTable:
    """The state with every card ``player`` cannot see permuted at random (other hands less
    their publicly known cards, the stock order), together with the other seats' records."""
    other = state.clone()
    hidden = other.hidden_cards(player)
    moved = list(hidden)
    rng.shuffle(moved)
    other.relabel(player, dict(zip(hidden, moved, strict=True)))
    return other


def _leaks(states: list[RomiTable], seed: int) -> int:
    """How many (state, player) pairs see a difference after their hidden cards moved."""
    rng = random.Random(seed)
    found = 0
    for state in states:
        for p in range(state.n_players):
            if _views(state, p) != _views(_exchange_hidden(state, p, rng), p):
                found += 1
    return found


def _sample_states() -> list[RomiTable]:
    out: list[RomiTable] = []
    for options, seed in (({"players": 4}, 1), ({"players": 3, "open_min": 30}, 2),
                          ({"players": 2, "open_min": 140}, 3)):
        _, kept = _random_play(options, seed, keep_every=7)
        out += kept[:40]
    return out


@pytest.fixture(scope="module")
def sample_states() -> list[RomiTable]:
    return _sample_states()


# ---------------------------------------------------------------- the numbering


def test_m1_m4_meld_shapes_are_exactly_the_melds_of_the_rules() -> None:
    """Every canonical meld the reference can make from one card of each kind and a joker
    (M1-M4: sets of 3-4 suits, runs of 3-13 with at most one As, one joker at most, two real
    cards at least) has its own shape, and every shape is one of them."""
    hand = (*range(C.N_KINDS), C.JOKER0)
    melds = ref._hand_melds(hand)
    shapes = [T.meld_shape(m) for m in melds]
    assert len(set(shapes)) == len(melds) == T.N_SHAPES == 2527
    for m, s in zip(melds, shapes, strict=True):
        shape = T.SHAPES[s]
        assert T.shape_kinds(shape) == tuple(C.kind(c) for c in m.cards)
        assert T.shape_stands_for(shape) == m.stands_for
    assert sum(s.run for s in T.SHAPES) == 2332


def test_action_numbering_is_fixed_and_every_code_has_its_own_text() -> None:
    assert T.N_ACTIONS == ROUND.n_actions == GAME.n_actions == 4600
    assert (T.DRAW_STOCK, T.DRAW_DISCARD, T.DRAW_CUT, T.DISCARD0, T.OPEN_DONE, T.SHAPE0,
            T.ADD0, T.SWAP0) == (0, 1, 2, 3, 56, 57, 2584, 4564)
    assert T.MAX_MELDS == 36
    texts = [T.action_text(a) for a in range(T.N_ACTIONS)]
    assert len(set(texts)) == T.N_ACTIONS
    with pytest.raises(ValueError):
        T.action_text(T.N_ACTIONS)


def test_t1_o1_every_legal_move_has_one_path_and_no_path_begins_another() -> None:
    """On every decision of twelve random rounds (2 to 4 players, low and default opening
    values; melding moves preferred so that turns go deep: adds, swaps, the cut card): each
    legal move of the reference has a path of codes below ``N_ACTIONS``; moves sharing a path
    differ only in which copies they use (D1), and the state keeps the one using the most
    publicly known copies, then the lowest ids; no path is a prefix of another."""
    checked = Counter[str]()
    configs = ([({"players": 4, "open_min": 30}, s) for s in range(4)]
               + [({"players": 2}, s) for s in range(4)]
               + [({"players": 3, "open_min": 40, "ace_low_value": 10}, s) for s in range(4)])
    for options, seed in configs:
        state = _state(options)
        rng = random.Random(seed)
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.deal(rng)
                continue
            r = state.round
            assert r is not None
            known = state.known[r.player]
            groups: dict[tuple[int, ...], list[Action]] = {}
            for a in r.legal_actions():
                path = state.path(a)
                assert all(0 <= code < T.N_ACTIONS for code in path)
                groups.setdefault(path, []).append(a)
                checked[type(a).__name__] += 1
            moves = state.moves()
            assert set(moves) == set(groups)
            for path, group in groups.items():
                assert len({kind_signature(a) for a in group}) == 1, group
                chosen = moves[path]
                assert chosen in group
                assert _copy_key(chosen, known) == min(_copy_key(a, known) for a in group)
            for a, b in itertools.pairwise(sorted(moves)):
                assert b[:len(a)] != a, (a, b)
            values = list(moves.values())
            melding = [m for m in values if not isinstance(m, Discard)]
            state.play(rng.choice(melding if melding and rng.random() < 0.7 else values))
    assert set(checked) == {"DrawStock", "DrawDiscard", "DrawCut", "Open", "Lay", "Add", "Swap",
                            "Discard"}


def test_o1_an_opening_is_composed_code_by_code_and_made_by_open_done() -> None:
    """The cursor offers the meld shapes of some legal opening and OPEN_DONE only once the
    shapes named make a whole opening (O1); the move is then the Open of those shapes."""
    for seed in range(40):
        state = _state({"players": 2, "open_min": 20})
        cursor = Cursor(state)
        rng = random.Random(seed)
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                cursor.deal(rng)
                continue
            opens = [p for p in state.moves() if p[-1] == T.OPEN_DONE]
            if opens:
                path = rng.choice(opens)
                for code in path[:-1]:
                    assert T.SHAPE0 <= code < T.ADD0
                    assert cursor.step(code) is None
                    assert cursor.pending[-1] == code
                    obs = state.observation(state.current_player(), cursor.pending)
                    at = state.layout.at["opening"]
                    assert obs[at:at + T.N_SHAPES].sum() == len(cursor.pending)
                assert T.OPEN_DONE in cursor.legal_codes()
                move = cursor.step(T.OPEN_DONE)
                assert isinstance(move, Open)
                assert tuple(sorted(T.SHAPE0 + T.meld_shape(m) for m in move.melds)) == path[:-1]
                return
            cursor.step(rng.choice(cursor.legal_codes()))
    pytest.fail("no opening in 40 rounds")


# ---------------------------------------------------------------- playing through codes


@pytest.mark.parametrize("options,seed", [
    ({"players": 4}, 21), ({"players": 5, "open_min": 80}, 22),
    ({"players": 2, "open_min": 140}, 23), ({"players": 3, "swap_keeps_romi": True}, 24)])
def test_g1_g5_random_codes_end_as_the_reference_replays_the_same_moves(options, seed) -> None:
    """A round played by random codes is replayed in a fresh reference round from its deck,
    its T8 stock orders and its moves: same end, same scores (G2-G5), returns minus them."""
    state, _ = _random_play(options, seed)
    r = state.round
    assert r is not None and state.current_player() == TERMINAL
    fresh = ref.RoundState(state.rules, r.dealer, state.deck,
                           shuffler=ref.ReplayShuffler(r.reshuffles))
    for move in state.round_moves:
        fresh.apply(move)
    assert fresh.is_over()
    assert fresh.scores() == r.scores() == list(state.results[-1].scores)
    assert state.returns() == [-float(s) for s in r.scores()]
    info = [state.infos(p) for p in range(state.n_players)]
    assert [i["score"] for i in info] == r.scores()
    assert sum(i["went_out"] for i in info) == (0 if r.stalled else 1)
    for p, i in enumerate(info):
        assert i["never_opened"] == (not r.opened[p])
        assert i["penalty"] == (0 if i["went_out"] or i["never_opened"] else i["score"])
        assert set(i) >= {"score", "went_out", "romi", "stalled", "penalty"}
    if options.get("open_min") == 140:  # nobody opens: T8 reshuffles, then T9
        assert r.stalled and r.reshuffles and r.turn == 1000


def test_d3_d4_t8_chance_outcomes_are_uniform_and_sum_to_one() -> None:
    """Every chance node (the dealer, each card of the deck, each card of a new stock under
    T8) lists increasing outcomes below ``max_chance_outcomes`` summing to 1."""
    kinds = Counter[str]()
    state = _state({"players": 2, "open_min": 140})
    rng = random.Random(5)
    while not state.is_terminal() and state.round_index == 0:
        if state.current_player() == CHANCE:
            out = state.chance_outcomes()
            values = [o for o, _ in out]
            assert values == sorted(set(values)) and values[-1] < ROUND.max_chance_outcomes
            assert abs(sum(p for _, p in out) - 1.0) < 1e-9
            assert len({p for _, p in out}) == 1
            what = state._chance_kind()
            assert what is not None
            kinds[what] += 1
            state.apply_chance(rng.choice(values))
            continue
        if state.round is not None and state.round.turn > 200:
            break
        state.play(random.Random(rng.random()).choice(list(state.moves().values())))
    assert kinds["dealer"] == 1 and kinds["deck"] == C.N_CARDS - 1 and kinds["pile"] > 0


def test_the_fast_deal_is_the_core_deal_card_for_card() -> None:
    """``deal`` resolves chance without building outcome lists, with the same generator calls:
    the same seed gives the same dealer and deck as the core's node-by-node ``deal``."""
    for seed in range(3):
        a = _state({"players": 3})
        b = _state({"players": 3})
        a.deal(random.Random(seed))
        TableState.deal(b, random.Random(seed))
        assert a.deck == b.deck and a.first_dealer == b.first_dealer
        assert a.information_text(0) == b.information_text(0)


def test_d5_g6_a_game_moves_the_deal_and_pays_the_lowest_total() -> None:
    state, _ = _random_play({"players": 2, "rounds": 3, "open_min": 30}, 31, game=True)
    assert len(state.results) == 3 and state.round_index == 2
    totals = [sum(x.scores[p] for x in state.results) for p in range(2)]
    assert state.totals == totals
    low = min(totals)
    winners = [p for p in range(2) if totals[p] == low]
    assert state.returns() == [1.0 / len(winners) if p in winners else 0.0 for p in range(2)]
    assert state.infos(0)["round_scores"] == [x.scores[0] for x in state.results]
    assert state.round is not None and state.round.dealer == (state.first_dealer + 2) % 2
    text = state.information_text(1)
    assert text.count("deals, seat") == 3 and "round 3 of 3" in text


def test_setup_checks_the_options_and_sizes_the_observation() -> None:
    setup = ROUND.setup({"players": 3, "dealer": 2})
    assert isinstance(setup, RomiSetup) and setup.dealer == 2 and not setup.game
    assert ROUND.observation_size(setup) == Layout(3, False).size
    assert GAME.observation_size(GAME.setup({})) == Layout(4, True).size
    for name, _ in Layout(3, True).fields:
        assert f"``{name}``" in ROUND.observation_fields, name
    with pytest.raises(UsageError):
        ROUND.setup({"players": 6})
    with pytest.raises(UsageError):
        ROUND.setup({"dealer": 4})
    with pytest.raises(UsageError):
        ROUND.setup({"rounds": 3})
    with pytest.raises(UsageError):
        ROUND.seat_policy(setup, "telepath")  # type: ignore[misc]
    state = ROUND.new_state(setup)
    assert state.current_player() == CHANCE  # the deck, the dealer being fixed
    state.deal(random.Random(0))
    obs = state.observation(0)
    assert obs.dtype == np.float32 and obs.shape == (Layout(3, False).size,)
    at = state.layout.at
    assert obs[at["hand"]:at["hand"] + 53].sum() == 15  # seat 0 starts (D4)
    assert obs[at["phase"] + 1] == 1.0  # his first turn: a discard only
    assert obs[at["dealer"] + 2] == 1.0
    assert ROUND.utility(setup) == (-150.0, 20.0)
    assert GAME.utility(GAME.setup({})) == (0.0, 1.0)
    assert ROUND.max_game_length(setup) >= 1999


# ---------------------------------------------------------------- what a player sees (I1-I3)


def test_i3_hidden_cards_change_nothing_a_player_sees(sample_states) -> None:
    """Permuting every card a seat cannot see (the other hands less the cards known to be
    there, the stock's order, with the other seats' private records) leaves his observation
    vector, observation text and information text unchanged; the permutations do move cards."""
    assert len(sample_states) >= 60
    assert _leaks(sample_states, 7) == 0
    rng = random.Random(8)
    moved = 0
    for state in sample_states:
        r = state.round
        assert r is not None
        for p in range(state.n_players):
            hidden = state.hidden_cards(p)
            seen = set(r.hands[p]) | set(r.discards) | {c for m in r.table for c in m.cards}
            assert not seen & set(hidden)
            others = sum(len(r.hands[q]) - len(state.known[q])
                         for q in range(state.n_players) if q != p)
            assert len(hidden) == others + len(r.stock)
            for q, k in enumerate(state.known):
                assert k <= set(r.hands[q])
                # a card taken from the pile is known while held, unless it was discarded
                # and came back to a hand through the stock (T8)
                taken = {c for _, who, c in r.public_draws if who == q}
                taken -= {c for order in r.reshuffles for c in order}
                assert taken & set(r.hands[q]) <= k
            other = _exchange_hidden(state, p, rng)
            if other.round is not None and other.round.hands != r.hands:
                moved += 1
    assert moved > len(sample_states)


def test_i3_the_check_catches_an_encoder_that_leaks_the_stock(sample_states,
                                                              monkeypatch) -> None:
    """The same check fails on an observation that shows the top of the stock, and on an
    information text that shows the other seats' stock draws."""
    plain_obs = RomiTable.observation

    def leaky_obs(self: RomiTable, player: int, pending: tuple[int, ...] = ()) -> np.ndarray:
        out = plain_obs(self, player, pending)
        if self.round is not None and self.round.stock:
            out[0] += C.kind(self.round.stock[0]) + 1
        return out

    monkeypatch.setattr(RomiTable, "observation", leaky_obs)
    assert _leaks(sample_states[:20], 9) > 0
    monkeypatch.setattr(RomiTable, "observation", plain_obs)
    assert _leaks(sample_states[:20], 9) == 0
    plain_info = RomiTable.information_text

    def leaky_info(self: RomiTable, player: int, pending: tuple[int, ...] = ()) -> str:
        private = [e.text() for e in self.log if not isinstance(e, str) and e.seat != player]
        return plain_info(self, player, pending) + "\n".join(private)

    monkeypatch.setattr(RomiTable, "information_text", leaky_info)
    assert _leaks(sample_states[:20], 9) > 0


def test_i2_resample_keeps_the_information_text_and_deals_the_rest_again(
        sample_states) -> None:
    """``resample`` gives a state the seat cannot tell from this one (same information text),
    with the same hand sizes and known cards, all 108 cards once, the hidden cards moved, a
    stock after T8 made of the reshuffled pile's kinds only, and a round that still plays."""
    rng = random.Random(10)
    differ = 0
    for i, state in enumerate(sample_states):
        r = state.round
        assert r is not None
        p = i % state.n_players
        other = state.resample(p, rng)
        o = other.round
        assert o is not None
        assert other.information_text(p) == state.information_text(p)
        assert np.array_equal(other.observation(p), state.observation(p))
        assert [len(h) for h in o.hands] == [len(h) for h in r.hands]
        assert o.hands[p] == r.hands[p] and other.known == state.known
        everything = [c for h in o.hands for c in h] + o.stock + o.discards + [
            c for m in o.table for c in m.cards] + ([o.cut] if o.cut is not None else [])
        assert sorted(everything) == list(range(C.N_CARDS))
        if state.reshuffle_kinds is not None:
            room = Counter(state.reshuffle_kinds)
            assert not Counter(C.kind(c) for c in o.stock) - room
        differ += o.hands != r.hands
        if i % 10 == 0:
            play = random.Random(i)
            while not other.is_terminal() and other.round is not None and other.round.turn < (
                    r.turn + 6):
                if other.current_player() == CHANCE:
                    other.deal(play)
                else:
                    other.play(play.choice(list(other.moves().values())))
    assert differ > len(sample_states) // 2


def _iter_private(state: RomiTable) -> Iterator[tuple[int, str]]:
    for e in state.log:
        if not isinstance(e, str):
            yield e.seat, e.text()


def test_i1_i2_information_text_has_own_draws_and_public_moves_only() -> None:
    state, kept = _random_play({"players": 3}, 41, keep_every=15)
    for s in [*kept, state]:
        for p in range(3):
            text = s.information_text(p)
            mine = [t for q, t in _iter_private(s) if q == p]
            assert all(t in text for t in mine)
            assert text.count("you are dealt") == 1
    assert "discards" in state.information_text(0) and "Römi" in state.render()


# ---------------------------------------------------------------- seat policies (Q2-Q5)


@pytest.mark.parametrize("options,policies", [
    ({"players": 4}, ["greedy", "greedy", "expert", "rummy:3"]),
    ({"players": 3, "open_min": 30}, ["expert", "threshold:40", "greedy"])])
def test_q2_q5_seat_policies_play_the_engines_rounds(options, policies) -> None:
    """Every seat played by ``seat_policy`` (the engine's policies planning from the seat's
    view) makes, on the engine's deals and reshuffles, the engine's moves (by kind) and
    scores; ``random`` picks legal moves. The engine reads the table in the order the melds
    were put down (Q2: "the first meld in table order"), which within an opening is not the
    reference's numbering: the first configuration's rounds include such an opening."""
    setup = ROUND.setup({**options, "dealer": 1})
    rl, kinds, params = K.engine_args(setup.rules, policies)
    reordered = False
    for seed in range(3):
        rec = K.record_from_seed(500 + seed, 1, rl, kinds, params)
        state = ROUND.new_state(setup)
        assert isinstance(state, RomiTable)
        for c in rec.deck[:-1]:
            state.apply_chance(c)
        choosers = [ROUND.seat_policy(setup, p) for p in policies]  # type: ignore[misc]
        orders = list(rec.stock_orders)
        rng = random.Random(0)
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                for c in orders.pop(0)[:-1]:
                    state.apply_chance(c)
                continue
            state.play(choosers[state.current_player()](state, rng))
        played = [kind_signature(a) for a in state.round_moves]
        assert played == [kind_signature(a) for a in rec.moves]
        assert state.results[-1].scores == rec.scores
        reordered |= state.laid != sorted(state.laid)
    assert reordered or options["players"] != 4
    pick = ROUND.seat_policy(setup, "random")  # type: ignore[misc]
    state = ROUND.new_state(setup)
    state.deal(random.Random(1))
    assert pick(state, random.Random(2)) in state.moves().values()


def test_t8_a_pile_of_one_card_under_the_top_is_the_stock_and_an_empty_one_stops() -> None:
    """T8 without chance: with one card under the top discard the new stock is that card (no
    chance node), with none the round is stopped and counted as stalled."""
    state = _state({"players": 2, "dealer": 1})
    state.deal(random.Random(0))
    r = state.round
    assert r is not None
    state.play(next(iter(state.moves().values())))  # the starter's first discard (D4)
    state.play(DrawStock())  # seat 1 draws and discards: two cards in the pile
    state.play(next(m for m in state.moves().values() if isinstance(m, Discard)))
    under = r.discards[0]
    r.stock = []
    state.play(DrawStock())
    assert state.current_player() == r.player and r.hands[r.player][-1] == under
    assert len(r.discards) == 1 and not r.stock and len(r.reshuffles) == 1
    state.play(next(m for m in state.moves().values() if isinstance(m, Discard)))
    r.discards = r.discards[-1:]
    r.stock = []
    state.play(DrawStock())
    assert state.is_terminal() and r.stalled and state.results[-1].stalled
