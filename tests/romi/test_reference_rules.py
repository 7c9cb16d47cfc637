"""The Römi reference engine (``simcards.romi.reference``) checked rule by rule against
``seeds/romi.md``: each test is named for the rule ids it checks (D, M, T, O, J, G, I) and the
worked examples E1-E5 are played out. Positions come from stacked decks (``stacked_deck``) or,
for mid-round situations, from ``position``, which deals every one of the 108 cards to a place
(hands, table, discard pile, stock, cut card) and sets who has opened. A seeded random legal
play over many rounds checks the invariants: every card accounted for, every table meld valid,
the scores those of the cards left (G4, G5), ``is_legal`` agreeing with ``legal_actions``."""

from __future__ import annotations

import random

import pytest

from simcards.core.errors import UsageError
from simcards.romi import cards as C
from simcards.romi import reference as R
from simcards.romi.actions import (
    NO_JOKER,
    Add,
    Discard,
    DrawCut,
    DrawDiscard,
    DrawStock,
    Lay,
    Meld,
    Open,
    Swap,
)
from simcards.romi.rules import RomiRules

# ---------------------------------------------------------------- building positions


class Pool:
    """Card ids handed out by text: each card takes the first of its copies still free, each
    ``X`` the first free joker, so texts given one after the other never collide."""

    def __init__(self) -> None:
        self.free = set(range(C.N_CARDS))

    def take(self, text: str) -> list[int]:
        out = []
        for token in text.split():
            first = C.parse_hand(token)[0]
            options = range(C.JOKER0, C.N_CARDS) if C.is_joker(first) else (first, first + 52)
            card = next(c for c in options if c in self.free)
            self.free.remove(card)
            out.append(card)
        return out

    def filler(self, hand: list[int], size: int) -> list[int]:
        """Cards to complete ``hand`` to ``size`` that meld with nothing in it when possible:
        no third card of a rank, no card of a suit within two places of another (M1, M2)."""
        hand = list(hand)
        order = sorted((c for c in self.free if not C.is_joker(c)),
                       key=lambda c: ((c % 13) * 5 + (c % 52) // 13 * 7) % 52 + c // 52 * 52)
        for c in order:
            if len(hand) >= size:
                break
            same_rank = sum(1 for h in hand if not C.is_joker(h) and h % 13 == c % 13)
            near = any(not C.is_joker(h) and h % 52 // 13 == c % 52 // 13
                       and min(abs(a - b) for a in R._positions(h) for b in R._positions(c)) <= 2
                       for h in hand)
            if same_rank < 2 and not near:
                hand.append(c)
                self.free.remove(c)
        for c in sorted(self.free):
            if len(hand) >= size:
                break
            if not C.is_joker(c):
                hand.append(c)
                self.free.remove(c)
        return hand


def stacked_deck(n: int, dealer: int, hands: dict[int, str] | None = None, stock: str = "",
                 cut: str | None = None) -> list[int]:
    """A deck (top first) dealing ``hands[p]`` (completed with cards that meld with nothing) to
    player p (D4), with ``stock`` on top of the stock and ``cut`` as the cut card (D3)."""
    hands = hands or {}
    pool = Pool()
    given = {p: pool.take(t) for p, t in hands.items()}
    top = pool.take(stock)
    cut_id = pool.take(cut) if cut else []
    rules = RomiRules.make(players=n)
    sizes = rules.hand_sizes(dealer)
    starter = (dealer + 1) % n
    deck: list[int] = []
    for i in range(n):
        p = (starter + i) % n
        deck += pool.filler(given.get(p, []), sizes[p])
    deck += top
    if not cut_id:
        cut_id = [max(c for c in pool.free if not C.is_joker(c))]
        pool.free.remove(cut_id[0])
    deck += sorted(pool.free) + cut_id
    assert sorted(deck) == list(range(C.N_CARDS))
    return deck


def position(hands: dict[int, str], player: int = 0, table: tuple = (), discards: str = "",
             opened: tuple[int, ...] = (), cut: str = "Kc", stock: str = "",
             rules: RomiRules | None = None, first_turn: bool = False) -> R.RoundState:
    """A mid-round position, player ``player`` to draw: each player holds exactly ``hands[p]``,
    ``table`` holds melds as (layer, text, stands_for text or None), ``discards`` is the pile
    bottom first, ``stock`` the top of the stock (every other card under it), ``cut`` the cut
    card. Every player has played and drawn before (T3 is behind them) unless ``first_turn``."""
    rules = rules or RomiRules.make(players=len(hands))
    n = rules.players
    pool = Pool()
    st = R.RoundState(rules, (player - 1) % n, list(range(C.N_CARDS)))
    st.hands = [pool.take(hands[p]) for p in range(n)]
    st.table, st.owners = [], []
    for owner, text, stands in table:
        ids = pool.take(text)
        sf = NO_JOKER if stands is None else C.parse_hand(stands)[0] % 52
        st.table.append(R.canonical(ids, sf))
        st.owners.append(owner)
    st.discards = pool.take(discards)
    st.cut = st.cut_card = pool.take(cut)[0]
    st.stock = pool.take(stock) + sorted(pool.free)
    st.opened = [p in opened for p in range(n)]
    done = 0 if first_turn else 1
    st.turns_played = [done] * n
    st.has_drawn = [bool(done)] * n
    st.turn = done * n
    st.player = player
    st.phase = R.DRAW
    st._new_turn_state()
    return st


def ids(text: str) -> list[int]:
    """Card ids of a text, each card's first copy (as ``position`` hands them out first)."""
    return C.parse_hand(text)


def meld(text: str, stands: str | None = None) -> Meld:
    return R.canonical(ids(text), NO_JOKER if stands is None else ids(stands)[0] % 52)


def card(text: str) -> int:
    return ids(text)[0]


def opening(*melds: Meld) -> Open:
    """An ``Open`` in canonical form: its melds sorted by card tuple."""
    return Open(tuple(sorted(melds, key=lambda m: m.cards)))


def play(st: R.RoundState, *actions) -> None:
    for a in actions:
        st.apply(a)


def refused(st: R.RoundState, action, rule: str) -> None:
    """The move is illegal, absent from legal_actions, and ``apply`` names ``rule``."""
    assert not st.is_legal(action)
    assert action not in st.legal_actions()
    with pytest.raises(ValueError, match=rule):
        st.apply(action)


def accounted(st: R.RoundState) -> list[int]:
    cards = [c for h in st.hands for c in h] + [c for m in st.table for c in m.cards]
    cards += st.discards + st.stock + ([st.cut] if st.cut is not None else [])
    return sorted(cards)


# ---------------------------------------------------------------- D: deck, seats and deal


def test_D1_deck_is_a_permutation_of_108_cards():
    rules = RomiRules.make(players=3)
    with pytest.raises(UsageError, match="D1"):
        R.RoundState(rules, 0, list(range(107)))
    with pytest.raises(UsageError, match="D1"):
        R.RoundState(rules, 0, [0, *range(107)])
    st = R.RoundState(rules, 0, list(range(108)))
    assert accounted(st) == list(range(108))


@pytest.mark.parametrize("n, dealer", [(2, 1), (4, 2), (5, 4)])
def test_D2_D4_deal_layout_and_D3_cut_card(n, dealer):
    deck = list(range(108))
    random.Random(n).shuffle(deck)
    st = R.RoundState(RomiRules.make(players=n), dealer, deck)
    starter = (dealer + 1) % n
    assert st.current_player() == starter
    assert st.hands[starter] == deck[0:15]
    for i in range(1, n):
        p = (starter + i) % n
        assert st.hands[p] == deck[15 + 14 * (i - 1):15 + 14 * i]
    assert st.stock == deck[15 + 14 * (n - 1):107]
    assert st.cut == deck[107]
    obs = st.observation(starter)
    assert obs["cut"] == deck[107] and obs["discards"] == ()
    assert obs["hand_sizes"] == tuple(15 if p == starter else 14 for p in range(n))


def test_D4_starter_first_turn_is_only_a_discard():
    deck = stacked_deck(2, 0, {1: "Js Jh Jd 8c 9c Tc"})
    st = R.RoundState(RomiRules.make(players=2), 0, deck)
    assert st.current_player() == 1
    assert st.legal_actions() == [Discard(c) for c in sorted(st.hands[1])]
    refused(st, DrawStock(), "D4")
    refused(st, Open((meld("Js Jh Jd"), meld("8c 9c Tc"))), "D4")
    st.apply(Discard(st.hands[1][-1]))
    assert st.current_player() == 0 and st.legal_actions()[0] == DrawStock()
    assert st.turn == 1  # T9 counts the starter's discard


def test_D5_G6_game_deal_moves_left_and_totals_add_up():
    rules = RomiRules.make(players=3, rounds=3)
    rng = random.Random(5)
    decks = []
    for _ in range(3):
        d = list(range(108))
        rng.shuffle(d)
        decks.append(d)
    g = R.GameState(rules, 2, decks, random.Random(1).shuffle)
    dealers = [g.round.dealer]
    while not g.is_over():
        before = g.round_index
        g.apply(rng.choice(g.legal_actions()))
        if g.round_index != before:
            dealers.append(g.round.dealer)
            assert g.round.hands[(g.round.dealer + 1) % 3] == decks[g.round_index][:15]
    assert dealers == [2, 0, 1]
    assert len(g.round_scores) == 3
    assert g.scores() == [sum(s[p] for s in g.round_scores) for p in range(3)]
    assert g.returns() == [-t for t in g.scores()]
    assert g.winners() == [p for p in range(3) if g.totals[p] == min(g.totals)]
    g.totals = [5, -10, -10]
    assert g.winners() == [1, 2]  # G6: equal lowest totals share the win


# ---------------------------------------------------------------- M: melds, E1, E2


def test_E1_M1_M2_M3_M4_melds():
    for text in ["9s 9h 9d", "9s 9h 9d 9c", "5h 6h 7h", "Ah 2h 3h", "Qh Kh Ah", "5h X 7h",
                 "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh",
                 "2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah"]:
        assert R.is_valid_meld(ids(text)), text
    for text in ["9s 9s 9h", "Kh Ah 2h", "9s X X", "9s X", "5h 5h 6h 7h", "9s 9h 9d 9c X",
                 "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh X", "5h X X 8h", "5h 6h 8h",
                 "9s 9h 9h", "5h 6h 7c", "Qh Kh Ah 2h"]:
        assert not R.is_valid_meld(ids(text)), text
    # M2: at most one As, so at most 13 cards: A .. K plus an As above the King is refused.
    assert not R.is_valid_meld(C.parse_hand("Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah"))
    assert meld("5h X 7h").stands_for == card("6h")
    assert meld("5h X 7h").cards == tuple(ids("5h X 7h"))


def brute_is_meld(cards: list[int]) -> bool:
    """M1-M4 straight from the definitions, the joker tried as each of the 52 cards."""
    real = [c for c in cards if not C.is_joker(c)]
    jokers = len(cards) - len(real)
    if jokers > 1 or len(real) < 2 or len(cards) < 3:
        return False
    for sub in ([None] if jokers == 0 else range(52)):
        kinds = [c % 52 for c in real] + ([] if sub is None else [sub])
        if len(set(kinds)) != len(kinds):
            continue
        if len({k % 13 for k in kinds}) == 1 and len(kinds) <= 4:
            return True
        if len({k // 13 for k in kinds}) == 1:
            for ace in (1, 14):
                pos = sorted(ace if k % 13 == 0 else k % 13 + 1 for k in kinds)
                if pos == list(range(pos[0], pos[0] + len(pos))):
                    return True
    return False


def dense_hand(rng: random.Random, size: int) -> list[int]:
    """Cards of two suits and a narrow band of ranks (both copies, up to two jokers), so that
    melds, duplicates and jokers are common."""
    suits = rng.sample(range(4), 2)
    low = rng.randrange(0, 10)
    kinds = [s * 13 + (low + d) % 13 for s in suits for d in range(5)]
    pool = [k + 52 * copy for k in kinds for copy in (0, 1)] + [104, 105]
    return rng.sample(pool, size)


def test_M1_M4_meld_recognition_matches_the_definitions():
    rng = random.Random(7)
    for _ in range(3000):
        cards = dense_hand(rng, rng.randrange(1, 8))
        assert R.is_valid_meld(cards) == brute_is_meld(cards), C.format_hand(cards)
        for m in R._readings(tuple(sorted(cards))):
            assert R.is_valid_meld(m)
            if m.stands_for != NO_JOKER:  # the joker's card fits its place
                plain = [m.stands_for if C.is_joker(c) else c for c in m.cards]
                assert brute_is_meld(plain)
                if not R._is_set(m):
                    assert R.canonical(plain).cards == tuple(plain)


def test_M1_M4_every_meld_of_a_hand_is_listed():
    """``_hand_melds`` (built by rank and by run interval) against every subset of the hand."""
    rng = random.Random(8)
    for _ in range(40):
        hand = sorted(dense_hand(rng, rng.randrange(6, 11)))
        subsets = set()
        for mask in range(1, 1 << len(hand)):
            sub = tuple(c for i, c in enumerate(hand) if mask >> i & 1)
            if len(sub) >= 3:
                subsets.update(R._readings(sub))
        assert set(R._hand_melds(tuple(hand))) == subsets


def test_M4_canonical_joker_places():
    # A set's joker stands for the first missing suit (s, h, d, c), recomputed with the cards.
    assert meld("9h 9c X").stands_for == card("9s")
    assert meld("9s 9h 9c X").stands_for == card("9d")
    assert meld("X 9c 9s").cards == tuple(ids("9s 9c X"))
    # A run's joker at either end of consecutive cards: stands_for decides, else the place
    # worth most.
    assert meld("5h 6h X").stands_for == card("7h")
    assert meld("5h 6h X", "4h").cards == tuple(ids("X 5h 6h"))
    assert meld("Ah 2h X").stands_for == card("3h")  # no place below the As
    assert meld("X Kh Ah").stands_for == card("Qh")
    with pytest.raises(UsageError, match="M4"):
        meld("5h 6h X", "9h")
    with pytest.raises(UsageError, match="M1-M4"):
        meld("Kh Ah 2h")
    # The canonical form is the only valid Meld of its cards.
    assert R.is_valid_meld(Meld(tuple(ids("X 5h 6h")), card("4h")))
    assert not R.is_valid_meld(Meld(tuple(ids("X 5h 6h")), card("7h")))
    assert not R.is_valid_meld(Meld(tuple(ids("6h 5h 7h"))))
    assert not R.is_valid_meld(Meld(tuple(ids("9h 9c X")), card("9d")))


def test_E2_M6_M7_values():
    assert R.meld_value(meld("Ah 2h 3h")) == 6
    assert R.meld_value(meld("Qh Kh Ah")) == 30
    assert R.meld_value(meld("As Ah Ad")) == 30
    assert R.meld_value(meld("5h 6h X", "7h")) == 18
    assert R.meld_value(meld("5h 6h X", "4h")) == 15
    assert R.meld_value(meld("Ah 2h X")) == 6
    assert R.meld_value(meld("X 2h 3h", "Ah")) == 6
    assert R.meld_value(meld("Ah 2h 3h"), ace_low_value=5) == 10
    assert R.meld_value(meld("Jh Qh Kh Ah")) == 40
    assert R.meld_value(meld("9s 9h X")) == 27
    for text, pen in [("Ah", 10), ("7c", 7), ("Kd", 10), ("X", 20), ("X Ah 9c", 39), ("", 0)]:
        assert R.penalty(ids(text)) == pen


def test_M5_table_melds_keep_their_number_and_layer():
    st = position({0: "8h 2c 5d", 1: "Kd Qs"}, table=[(1, "5h 6h 7h", None), (0, "9s 9h 9d", None)],
                  opened=(0,), stock="4h")
    play(st, DrawStock(), Add(0, card("8h")), Add(0, card("4h")))
    assert st.table[0] == meld("4h 5h 6h 7h 8h") and st.owners == [1, 0]
    obs = st.observation(1)
    assert [(m["cards"], m["layer"]) for m in obs["table"]] == [
        (tuple(ids("4h 5h 6h 7h 8h")), 1), (tuple(ids("9s 9h 9d")), 0)]


def test_M2_As_added_to_two_to_king_goes_above_the_king():
    st = position({0: "Ah 3c 7d", 1: "Kd Qs"}, opened=(0,),
                  table=[(1, "2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh", None)])
    play(st, DrawStock(), Add(0, card("Ah")))
    assert st.table[0].cards[-1] == card("Ah") and len(st.table[0].cards) == 13


# ---------------------------------------------------------------- T: a turn


def test_T2_draw_choices_and_T1_order():
    st = position({0: "2c 6d Kh", 1: "Kd Qs"}, discards="9s", opened=(0,))
    assert st.legal_actions() == [DrawStock()]  # 9s cannot be melded (T4)
    refused(st, Discard(card("2c")), "T1")
    refused(st, DrawDiscard(), "T4")
    top = st.stock[0]
    st.apply(DrawStock())
    assert top in st.hands[0] and st.observation(0)["drawn"] == top
    assert st.observation(1)["drawn"] is None  # I2: only the drawer sees it
    refused(st, DrawStock(), "T2")


def test_T3_first_draw_from_the_discard_pile_is_kept_freely():
    deck = stacked_deck(2, 1, {0: "2s"})
    st = R.RoundState(RomiRules.make(players=2), 1, deck)
    st.apply(Discard(card("2s")))
    assert st.legal_actions() == [DrawStock(), DrawDiscard()]
    st.apply(DrawDiscard())
    assert st.must_place is None
    assert st.observation(0)["discard_draws"] == ((1, 1, card("2s")),)
    st.apply(Discard(card("2s")))  # kept or thrown back: no obligation
    assert st.current_player() == 0


def test_T4_later_draw_only_when_the_card_can_be_melded():
    table = [(1, "5h 6h 7h", None)]
    st = position({0: "8h 8s 8d 2c 5d", 1: "Kd Qs"}, table=table, discards="9h", opened=(0,))
    assert st.legal_actions() == [DrawStock(), DrawDiscard()]  # 9h fits after 8h (chain)
    st.apply(DrawDiscard())
    assert st.must_place == card("9h")
    legal = st.legal_actions()
    assert Add(0, card("8h")) in legal
    assert not any(isinstance(a, Discard) for a in legal)
    refused(st, Discard(card("2c")), "T4")
    # Laying the 8h in a set leaves the 9h nowhere to go.
    refused(st, Lay(meld("8s 8h 8d")), "T4")
    play(st, Add(0, card("8h")), Add(0, card("9h")))
    assert Discard(card("2c")) in st.legal_actions()
    assert Lay(meld("8s 8h 8d")) not in st.legal_actions()  # only 8s 8d left

    st = position({0: "8s 8d 2c 5d", 1: "Kd Qs"}, table=table, discards="9h", opened=(0,))
    assert st.legal_actions() == [DrawStock()]


def test_T4_draw_placed_by_opening():
    hands = {0: "Js Jh 8c 9c Tc 2d 5h", 1: "Kd Qs"}
    st = position(hands, discards="Jd")
    assert DrawDiscard() in st.legal_actions()
    st.apply(DrawDiscard())
    legal = st.legal_actions()
    assert Open((meld("Js Jh Jd"), meld("8c 9c Tc"))) in legal
    assert all(isinstance(a, Open) and any(card("Jd") in m.cards for m in a.melds)
               for a in legal)
    st = position(hands, discards="2h")
    assert st.legal_actions() == [DrawStock()]
    # O1 is still needed: without 8c 9c Tc the Js Jh Jd set (30) opens nothing.
    st = position({0: "Js Jh 2d 5h 9s", 1: "Kd Qs"}, discards="Jd")
    assert st.legal_actions() == [DrawStock()]


def test_T4_swap_counts_as_melding_the_card():
    st = position({0: "2c 3c 9d", 1: "Kd Qs"}, table=[(1, "5h X 7h", None)], discards="6h",
                  opened=(0,))
    assert DrawDiscard() in st.legal_actions()
    st.apply(DrawDiscard())
    assert st.legal_actions() == [Swap(0, card("6h"))]
    play(st, Swap(0, card("6h")), Lay(meld("2c 3c X", "4c")))
    assert st.legal_actions() == [Discard(card("9d"))]


def test_T5_cut_card_only_to_go_out():
    st = position({0: "5c 6c 2d", 1: "Kd Qs"}, opened=(0,), cut="7c")
    assert st.legal_actions() == [DrawStock(), DrawCut()]
    st.apply(DrawCut())
    assert st.legal_actions() == [Lay(meld("5c 6c 7c"))]
    refused(st, Discard(card("2d")), "T5")
    play(st, Lay(meld("5c 6c 7c")), Discard(card("2d")))
    assert st.is_over() and st.went_out == 0 and not st.romi
    assert st.scores() == [-10, 100]  # G5: player 1 never opened
    st = position({0: "5c 6c 2d", 1: "Kd Qs"}, opened=(0,), cut="Kh")
    assert st.legal_actions() == [DrawStock()]
    refused(st, DrawCut(), "T5")


def test_T5_moves_that_make_going_out_impossible_are_illegal():
    st = position({0: "5c 6c 7c 7d 7s 2d", 1: "Kd Qs"}, opened=(0,), cut="X")
    st.apply(DrawCut())
    # Going out: 5c 6c 7c with 7s 7d X, or 5c 6c X (as 4c or 7c) with 7s 7d 7c, or the joker
    # laid for 5c or 6c, then swapped for that card and laid with 7s 7d; 2d discarded.
    assert set(st.legal_actions()) == {
        Lay(meld("5c 6c 7c")), Lay(meld("7s 7d X")), Lay(meld("5c 6c X", "4c")),
        Lay(meld("5c 6c X", "7c")), Lay(meld("7s 7d 7c")), Lay(meld("5c X 7c")),
        Lay(meld("X 6c 7c", "5c"))}
    refused(st, Lay(meld("5c 6c 7c X", "8c")), "T5")
    refused(st, Lay(meld("7s 7d 7c X")), "T5")
    play(st, Lay(meld("7s 7d X")), Lay(meld("5c 6c 7c")), Discard(card("2d")))
    assert st.went_out == 0


def test_T5_O2_cut_card_and_opening_Romi():
    hands = {0: "Js Jh Jd 8c 9c Tc 2d", 1: "Kd Qs"}
    st = position(hands, cut="Jc", first_turn=True)
    assert st.legal_actions() == [DrawStock()]  # O2: no opening, so no going out
    st = position(hands, cut="Jc")
    assert st.legal_actions() == [DrawStock(), DrawCut()]
    st.apply(DrawCut())
    # Every opening of Js Jh Jd Jc 8c 9c Tc can be followed by going out (the fourth Jack or
    # the 8c added afterwards); nothing else is legal.
    legal = st.legal_actions()
    assert len(legal) == 7 and all(isinstance(a, Open) for a in legal)
    play(st, opening(meld("Js Jh Jd Jc"), meld("8c 9c Tc")), Discard(card("2d")))
    assert st.romi and st.scores() == [-20, 100]  # G3, G5


def test_T6_keep_one_card_for_the_discard():
    st = position({0: "5c 6c", 1: "Kd Qs"}, opened=(0,), stock="7c")
    st.apply(DrawStock())
    assert st.legal_actions() == [Discard(c) for c in sorted(ids("5c 6c 7c"))]
    refused(st, Lay(meld("5c 6c 7c")), "T6")
    st = position({0: "5c 6c 2d", 1: "Kd Qs"}, opened=(0,), stock="7c",
                  table=[(1, "8c 9c Tc", None)])
    st.apply(DrawStock())
    legal = st.legal_actions()
    assert Lay(meld("5c 6c 7c")) in legal and Add(0, card("7c")) in legal
    play(st, Add(0, card("7c")), Add(0, card("6c")))  # T6: another player's meld too
    assert st.legal_actions() == [Add(0, card("5c")), *(Discard(c) for c in sorted(ids("5c 2d")))]
    st.apply(Add(0, card("5c")))
    assert st.table[0] == meld("5c 6c 7c 8c 9c Tc") and st.legal_actions() == [
        Discard(card("2d"))]


def test_T7_any_card_may_be_discarded_a_joker_included():
    st = position({0: "X 5c Kd", 1: "Kh Qs"}, opened=(0,), stock="2s")
    st.apply(DrawStock())
    assert Discard(card("X")) in st.legal_actions()
    st.apply(Discard(card("X")))
    assert st.discards[-1] == card("X") and st.current_player() == 1


def test_T8_reshuffle_through_the_shuffler():
    st = position({0: "2c 6d Kh", 1: "Kd Qs"}, discards="2s 3d 4h 5s")
    st.hands[1] += st.stock
    st.stock = []
    seen = []

    def reverse(pile: list[int]) -> None:
        seen.append(list(pile))
        pile.reverse()

    st.shuffler = reverse
    st.apply(DrawStock())
    assert seen == [ids("2s 3d 4h")]
    assert st.hands[0][-1] == card("4h") and st.stock == ids("3d 2s")
    assert st.discards == ids("5s") and st.reshuffles == [ids("4h 3d 2s")]
    assert accounted(st) == list(range(108))


def test_T8_replayed_reshuffles():
    st = position({0: "2c 6d Kh", 1: "Kd Qs"}, discards="2s 3d 4h 5s")
    st.hands[1] += st.stock
    st.stock = []
    st.shuffler = R.ReplayShuffler([ids("3d 4h 2s")])
    st.apply(DrawStock())
    assert st.hands[0][-1] == card("3d") and st.stock == ids("4h 2s")
    st = position({0: "2c 6d Kh", 1: "Kd Qs"}, discards="2s 3d 4h 5s")
    st.hands[1] += st.stock
    st.stock = []
    st.shuffler = R.ReplayShuffler([ids("3d 4h 5s")])
    with pytest.raises(UsageError, match="T8"):
        st.apply(DrawStock())


def test_T8_stop_when_the_pile_held_one_card():
    st = position({0: "2c 6d Kh", 1: "Kd Qs 9h"}, discards="5s", opened=(1,))
    st.stock = []
    st.apply(DrawStock())
    assert st.is_over() and st.stalled and st.went_out == -1
    assert st.scores() == [100, 10 + 10 + 9]
    assert st.current_player() == -1 and st.legal_actions() == []


def test_T9_stall_after_1000_turns():
    st = R.RoundState(RomiRules.make(players=2), 0, stacked_deck(2, 0), random.Random(3).shuffle)
    st.apply(Discard(st.hands[1][0]))
    while not st.is_over():
        st.apply(DrawStock())
        st.apply(Discard(st.drawn))
    assert st.turn == 1000 and st.stalled and st.went_out == -1
    assert st.scores() == [100, 100] and st.returns() == [-100, -100]
    assert len(st.reshuffles) > 0


# ---------------------------------------------------------------- O: opening, E3


def test_E3_O1_opening_worth_open_min():
    st = position({0: "Js Jh Jd 8c 9c 2d 5h", 1: "Kd Qs"}, stock="Tc")
    st.apply(DrawStock())
    good = Open((meld("Js Jh Jd"), meld("8c 9c Tc")))
    assert R.meld_value(good.melds[0]) + R.meld_value(good.melds[1]) == 57
    assert good in st.legal_actions()
    refused(st, Open((meld("8c 9c Tc"), meld("Js Jh Jd"))), "O1")  # melds sorted by cards
    st = position({0: "Ah 2h 3h Qs Ks As 7c 7d 7s 4d", 1: "Kd Qs"}, stock="9h")
    st.apply(DrawStock())
    three = opening(meld("Ah 2h 3h"), meld("Qs Ks As"), meld("7s 7d 7c"))
    assert sum(R.meld_value(m) for m in three.melds) == 57
    assert three in st.legal_actions()
    refused(st, opening(meld("Ah 2h 3h"), meld("Qs Ks As")), "O1")  # 36
    st = position({0: "Tc Jc Qc 5s 5h 5d 2h", 1: "Kd Qs"}, stock="9d")
    st.apply(DrawStock())
    assert not any(isinstance(a, Open) for a in st.legal_actions())
    refused(st, opening(meld("5s 5h 5d"), meld("Tc Jc Qc")), "O1")  # 45


def test_O1_open_min_and_ace_low_value_options():
    # Ah 2h 3h 4h 5h: 24 with the low As worth 10, 15 with it worth 1 (M6); open_min 20.
    run = meld("Ah 2h 3h 4h 5h")
    for ace_low, opens in [(10, [opening(run)]), (1, [])]:
        rules = RomiRules.make(players=2, open_min=20, ace_low_value=ace_low)
        st = position({0: "Ah 2h 3h 4h 5h 9s", 1: "Kd Qs"}, rules=rules, stock="Kc")
        st.apply(DrawStock())
        assert [a for a in st.legal_actions() if isinstance(a, Open)] == opens


def test_O1_opening_lists_every_lay_down_and_melding_goes_on():
    st = position({0: "Js Jh Jd Jc 8c 9c Tc 2d", 1: "Kd Qs"}, stock="3h",
                  table=[(1, "5d 6d 7d", None)], opened=(1,))
    st.apply(DrawStock())
    opens = [a for a in st.legal_actions() if isinstance(a, Open)]
    # Alone the Jacks (30, 40) and the clubs (27, 37, 29) fall short; together: any three
    # Jacks or all four with 8c 9c Tc (57, 67), Js Jh Jd with 8c 9c Tc Jc (67) or 9c Tc Jc (59).
    expected = [
        opening(meld("Js Jh Jd"), meld("8c 9c Tc")), opening(meld("Js Jh Jc"), meld("8c 9c Tc")),
        opening(meld("Js Jd Jc"), meld("8c 9c Tc")), opening(meld("Jh Jd Jc"), meld("8c 9c Tc")),
        opening(meld("Js Jh Jd Jc"), meld("8c 9c Tc")),
        opening(meld("Js Jh Jd"), meld("8c 9c Tc Jc")),
        opening(meld("Js Jh Jd"), meld("9c Tc Jc")),
    ]
    assert sorted(opens, key=lambda a: [m.cards for m in a.melds]) == opens
    assert set(opens) == set(expected) and len(opens) == 7
    st.apply(opening(meld("Js Jh Jd"), meld("8c 9c Tc")))
    assert st.opened[0] and st.opened_this_turn
    assert st.table[1:] == [meld("Js Jh Jd"), meld("8c 9c Tc")]  # laid in the order given
    legal = st.legal_actions()
    assert Add(1, card("Jc")) in legal and Add(2, card("Jc")) in legal  # O1: melding goes on


def test_O2_nobody_opens_on_his_first_turn():
    st = position({0: "Js Jh Jd 8c 9c Tc 2d", 1: "Kd Qs"}, first_turn=True, stock="5h")
    st.apply(DrawStock())
    assert st.legal_actions() == [Discard(c) for c in sorted(st.hands[0])]
    refused(st, Open((meld("Js Jh Jd"), meld("8c 9c Tc"))), "O2")


def test_O3_nothing_before_opening():
    st = position({0: "5c 6c 7c 9h 6h 2d", 1: "Kd Qs"}, opened=(1,), stock="4s",
                  table=[(1, "7h 8h X", "9h")])
    st.apply(DrawStock())
    refused(st, Lay(meld("5c 6c 7c")), "O3")
    refused(st, Add(0, card("6h")), "O3")
    refused(st, Swap(0, card("9h")), "O3")
    assert st.legal_actions() == [Discard(c) for c in sorted(st.hands[0])]


# ---------------------------------------------------------------- J: joker swaps, E4


def test_E4_J1_J2_joker_swaps():
    st = position({0: "7h 7s 2d 3d 9c", 1: "Kd Qs"}, opened=(0,), stock="4c",
                  table=[(1, "7c 7d X", None), (1, "5h X 7h", None)])
    assert st.table[0].stands_for == card("7s")  # first missing suit
    st.apply(DrawStock())
    refused(st, Swap(0, card("7s")), "J2")
    refused(st, Swap(0, card("7h")), "J2")
    refused(st, Swap(1, card("7h")), "J1")
    st.apply(Add(0, card("7h")))
    assert st.table[0] == meld("7h 7d 7c X") and st.table[0].stands_for == card("7s")
    assert Swap(0, card("7s")) in st.legal_actions()
    st.apply(Swap(0, card("7s")))
    joker = next(c for c in st.hands[0] if C.is_joker(c))
    assert st.table[0] == meld("7s 7h 7d 7c") and st.freed == {joker}
    assert st.touched_others
    refused(st, Discard(card("9c")), "J3")
    refused(st, Discard(joker), "J3")
    assert not any(isinstance(a, Discard) for a in st.legal_actions())
    st.apply(Lay(Meld((card("2d"), card("3d"), joker), card("4d"))))
    assert not st.freed and Discard(card("9c")) in st.legal_actions()

    st = position({0: "6h 2d 8s", 1: "Kd Qs"}, opened=(0,), table=[(1, "5h X 7h", None)])
    st.apply(DrawStock())
    play(st, Swap(0, card("6h")))
    assert st.table[0] == meld("5h 6h 7h")
    # The freed joker may go back to the same run, at an end.
    assert Add(0, card("X"), card("8h")) in st.legal_actions()
    assert Add(0, card("X"), card("4h")) in st.legal_actions()


def test_J3_swap_illegal_when_the_joker_cannot_be_laid_again():
    st = position({0: "7s 2d", 1: "Kd Qs"}, opened=(0,), table=[(1, "7h 7d 7c X", None)],
                  stock="9c")
    st.apply(DrawStock())
    refused(st, Swap(0, card("7s")), "J3")
    st = position({0: "7s 2d 3d", 1: "Kd Qs"}, opened=(0,), table=[(1, "7h 7d 7c X", None)],
                  stock="9c")
    st.apply(DrawStock())
    assert Swap(0, card("7s")) in st.legal_actions()


# ---------------------------------------------------------------- G: going out and scores, E5


def _e5(opened_before: bool) -> R.RoundState:
    return position({0: "7h 8h 9h Qs Qh Qd", 1: "2s 5d 8c Jh", 2: "X Ah 9c"}, stock="2c",
                    opened=(0, 2) if opened_before else (2,))


def test_E5_G1_G2_G4_G5_going_out():
    st = _e5(True)
    play(st, DrawStock(), Lay(meld("7h 8h 9h")), Lay(meld("Qs Qh Qd")))
    assert st.legal_actions() == [Discard(card("2c"))]
    st.apply(Discard(card("2c")))
    assert st.is_over() and st.went_out == 0 and not st.romi and not st.stalled
    assert st.scores() == [-10, 100, 39] and st.returns() == [10, -100, -39]
    assert st.observation(1)["scores"] == (-10, 100, 39)


def test_E5_G3_Romi():
    st = _e5(False)
    st.apply(DrawStock())
    first = opening(meld("7h 8h 9h"), meld("Qs Qh Qd"))
    assert sum(R.meld_value(m) for m in first.melds) == 54
    play(st, first, Discard(card("2c")))
    assert st.romi and st.scores() == [-20, 100, 39]


def test_G3_no_Romi_after_adding_to_another_players_meld_or_a_swap():
    hands = {0: "7h 8h 9h Qs Qh Qd 4c", 1: "2s 5d 8c Jh", 2: "X Ah 9c"}
    table = [(2, "5c 6c X", "7c"), (2, "Ks Kh Kd X", None)]
    first = opening(meld("7h 8h 9h"), meld("Qs Qh Qd"))  # table melds 2 (Qs Qh Qd) and 3
    st = position(hands, stock="2c", opened=(2,), table=table)
    play(st, DrawStock(), first, Add(0, card("4c")), Discard(card("2c")))
    assert st.went_out == 0 and not st.romi and st.scores()[0] == -10
    st = position({**hands, 0: "7h 8h 9h Qs Qh Qd 7c"}, stock="2c", opened=(2,), table=table)
    play(st, DrawStock(), first, Swap(0, card("7c")))
    joker = next(c for c in st.hands[0] if C.is_joker(c))
    play(st, Add(3, joker, card("Th")), Discard(card("2c")))
    assert st.went_out == 0 and not st.romi and st.scores()[0] == -10
    # Adding to one's own new meld keeps the Römi.
    st = position({**hands, 0: "7h 8h 9h Qs Qh Qd Th"}, stock="2c", opened=(2,), table=table)
    play(st, DrawStock(), first, Add(3, card("Th")), Discard(card("2c")))
    assert st.romi and st.scores()[0] == -20


# ---------------------------------------------------------------- I: information


def test_I1_I2_observations_do_not_depend_on_hidden_cards():
    n, dealer = 3, 2
    deck = list(range(108))
    random.Random(11).shuffle(deck)
    other = list(deck)
    # Exchange a card of player 1's hand (deck[15]) with the bottom of the stock (deck[106]).
    other[15], other[106] = other[106], other[15]
    rules = RomiRules.make(players=n)
    a = R.RoundState(rules, dealer, deck)
    b = R.RoundState(rules, dealer, other)
    starter = a.current_player()
    assert starter == 0
    for p in (0, 2):
        assert a.observation(p) == b.observation(p)
    assert a.observation(1) != b.observation(1)
    for st in (a, b):
        st.apply(Discard(st.hands[0][0]))
        st.apply(DrawStock())
        st.apply(Discard(st.drawn))
    for p in (0, 2):
        assert a.observation(p) == b.observation(p)
    obs = a.observation(0)
    assert set(obs) >= {"hand", "table", "discards", "cut", "hand_sizes", "opened",
                        "discard_draws", "dealer", "turn", "scores"}
    assert obs["dealer"] == dealer and obs["turn"] == 2 and obs["hand"] == tuple(
        sorted(a.hands[0]))


# ---------------------------------------------------------------- random legal play


def _check_round_end(st: R.RoundState) -> None:
    """G1-G5: the scores are those of the cards left."""
    for p in range(st.n):
        if p == st.went_out:
            assert st.scores()[p] == (-20 if st.romi else -10)
        elif not st.opened[p]:
            assert st.scores()[p] == 100
        else:
            assert st.scores()[p] == R.penalty(st.hands[p])
    assert st.returns() == [-s for s in st.scores()]
    assert st.stalled == (st.went_out == -1)


class _PlainSearch(R._Search):
    """The turn search without its shortcut: every move sequence explored."""

    def hopeless(self, hand, table) -> bool:
        return False


def test_T4_T5_search_shortcut_changes_no_answer():
    """The "can he still" search cuts hopeless states short (``_could_ever_place``); on the
    draw-phase questions of random play (hands of up to 8 cards after the draw) it answers as
    the plain search does."""
    rng = random.Random(99)
    asked = {"T4": 0, "T5": 0, "yes": 0}
    for r in range(25):
        n = 2 + r % 4
        deck = list(range(108))
        rng.shuffle(deck)
        st = R.RoundState(RomiRules.make(players=n), rng.randrange(n), deck,
                          random.Random(r).shuffle)
        while not st.is_over():
            p = st.player
            if st.phase == R.DRAW and len(st.hands[p]) <= 7:
                table = tuple(st.table)
                extra = []
                if st.discards and st.has_drawn[p]:
                    extra.append(("T4", st.discards[-1], st._can_take_discard()))
                if st.cut is not None:
                    extra.append(("T5", st.cut, st._can_take_cut()))
                for question, c, answer in extra:
                    hand = tuple(sorted([*st.hands[p], c]))
                    plain = _PlainSearch(st.rules, st._may_open(),
                                         c if question == "T4" else None, question == "T5")
                    assert plain.can_finish(hand, table, st.opened[p], frozenset()) == answer
                    asked[question] += 1
                    asked["yes"] += answer
            st.apply(rng.choice(st.legal_actions()))
    assert asked["T4"] > 50 and asked["T5"] > 50 and asked["yes"] > 0


ROUNDS_OF_RANDOM_PLAY = 60
"""Rounds of random legal play, 15 at each table size from 2 to 5 players: 6,947 moves from 41
to 298 a round, every one checked."""


def test_random_legal_play_keeps_the_invariants():
    rng = random.Random(2024)
    outcomes = {"out": 0, "stalled": 0, "romi": 0}
    clones = 0
    for r in range(ROUNDS_OF_RANDOM_PLAY):
        n = 2 + r % 4
        deck = list(range(108))
        rng.shuffle(deck)
        st = R.RoundState(RomiRules.make(players=n), rng.randrange(n), deck,
                          random.Random(r).shuffle)
        while not st.is_over():
            legal = st.legal_actions()
            assert legal and len(set(legal)) == len(legal)
            if rng.random() < 0.05:
                probe = [DrawStock(), DrawDiscard(), DrawCut(),
                         *(Discard(c) for c in st.hands[st.player])]
                if st.table:
                    probe += [Add(len(st.table) - 1, c) for c in st.hands[st.player]]
                for a in probe + legal[:20]:
                    assert st.is_legal(a) == (a in legal), a
                twin = st.clone()
            else:
                twin = None
            action = rng.choice(legal)
            st.apply(action)
            if twin is not None:  # a clone plays on alike and independently
                twin.apply(action)
                assert all(twin.observation(p) == st.observation(p) for p in range(n))
                clones += 1
            assert accounted(st) == list(range(108))
            assert all(R.is_valid_meld(m) for m in st.table)
            assert len(st.owners) == len(st.table)
        _check_round_end(st)
        outcomes["out"] += st.went_out >= 0
        outcomes["stalled"] += st.stalled
        outcomes["romi"] += st.romi
    assert outcomes["out"] + outcomes["stalled"] == ROUNDS_OF_RANDOM_PLAY
    assert clones > 0
