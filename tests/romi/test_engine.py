"""Römi's numba engine (``simcards.romi.round_kernel``, ``kernel``) and its policies (Q2-Q4), by
rule id of ``seeds/romi.md``.

Three kinds of checks:

- hand-built positions, one turn played by the engine, for the rules of a turn (opening,
  adding, joker swaps, going out, the cut card, the reshuffle, the stall) and the policies'
  defining choices;
- every simulated round replayed here card by card from its record (deck, stock orders, moves)
  by a small tracker written from the rules' card movements only: the replay must end in the
  engine's final state, every card must be accounted for (D1), every table meld valid (M1-M4,
  checked by ``table.TableMeld``) and in canonical form, the scores must be G2-G5 of the final
  hands, and the policies' defining behaviour must hold turn by turn;
- I3: exchanging hidden cards (other hands, the stock) leaves every decision unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest

from simcards.core.errors import UsageError
from simcards.core.rng import chunk_state
from simcards.core.rng_kernel import randbelow, seed_state
from simcards.romi import cards as C
from simcards.romi import round_kernel as E
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
from simcards.romi.kernel_state import Seats
from simcards.romi.melds_exact import solve
from simcards.romi.policies import KINDS
from simcards.romi.records import (
    RoundRecord,
    engine_args,
    play_one_turn,
    play_prefix,
    position,
    record_from_seed,
    record_rounds,
)
from simcards.romi.rules import RomiRules
from simcards.romi.table_melds_kernel import add_place, swap_kind
from tests import sizes

# ---------------------------------------------------------------- helpers


class Ids:
    """Card ids for texts, each physical card used once across a whole position (D1)."""

    def __init__(self) -> None:
        self.used: set[int] = set()

    def __call__(self, text: str) -> list[int]:
        out = []
        for tok in text.split():
            k = C.kind(C.parse_hand(tok)[0])
            cands = list(range(104, 108)) if k == C.JOKER_KIND else [k, k + 52]
            c = next(c for c in cands if c not in self.used)
            self.used.add(c)
            out.append(c)
        return out

    def one(self, text: str) -> int:
        return self(text)[0]


def kinds_text(cards) -> str:
    return " ".join(C.card_text(c) for c in cards)


def rank_value(r: int) -> int:
    return 10 if r == 1 or r > 10 else r


def meld_value(meld: Meld, ace_low: int = 1) -> int:
    """M6 of a canonical meld, written here from the rules."""
    real = [c for c in meld.cards if c < 104]
    if len({c % 13 for c in real}) == 1 and len(meld.cards) <= 4 and len(
            {(c % 52) // 13 for c in real}) == len(real):
        return rank_value(real[0] % 13 + 1) * len(meld.cards)
    first = next(i for i, c in enumerate(meld.cards) if c < 104)
    r = meld.cards[first] % 13 + 1
    lo = ((1 if first == 0 else 14) if r == 1 else r) - first
    return sum(ace_low if p == 1 else rank_value(1 if p == 14 else p)
               for p in range(lo, lo + len(meld.cards)))


def check_canonical(meld: Meld) -> None:
    """M1-M4 written again from the rules, and the canonical form of the common conventions
    (a run low to high with the joker at its place, a set by suit with the joker last, a set's
    joker standing for its first missing suit)."""
    cards = list(meld.cards)
    real = [c for c in cards if c < 104]
    assert len(cards) >= 3 and len(real) >= 2 and len(cards) - len(real) <= 1, "M4"
    ranks = {c % 13 for c in real}
    suits = [(c % 52) // 13 for c in real]
    if len(ranks) == 1:  # M1, M3: cards of one rank are a set
        assert len(set(suits)) == len(real) and len(cards) <= 4, "M1"
        assert suits == sorted(suits)
        if len(real) < len(cards):
            assert cards[-1] >= 104
            missing = [s for s in range(4) if s not in suits]
            assert meld.stands_for == missing[0] * 13 + real[0] % 13
        else:
            assert meld.stands_for == NO_JOKER
        return
    assert len(set(suits)) == 1, "M2: one suit"
    s = suits[0]
    first = next(i for i, c in enumerate(cards) if c < 104)
    r = cards[first] % 13 + 1
    lo = ((1 if first == 0 else 14) if r == 1 else r) - first
    hi = lo + len(cards) - 1
    assert lo >= 1 and hi <= 14 and hi - lo <= 12, "M2: no wrap, one As"
    for i, c in enumerate(cards):
        k = s * 13 + (lo + i - 1) % 13
        if c >= 104:
            assert meld.stands_for == k
        else:
            assert c % 52 == k, "M2: consecutive"
    if len(real) == len(cards):
        assert meld.stands_for == NO_JOKER


def penalty(cards) -> int:
    return sum(20 if c >= 104 else rank_value(c % 13 + 1) for c in cards)


def turn(ws, rules: RomiRules, policies, seed: int = 0):
    rl, kinds, params = engine_args(rules, policies)
    return play_one_turn(ws, rl, kinds, params, seed)


def scores_of(ws, rules: RomiRules) -> list[int]:
    rl, _, _ = engine_args(rules, ["greedy"] * rules.players)
    out = np.zeros(rules.players, np.int64)
    E.score_round(rl, ws, out)
    return [int(x) for x in out]


ROUNDS = 2000 if sizes.FULL else 150
"""Rounds replayed per player count (2,000 with ``pytest --full``)."""

R2 = RomiRules.make(players=2)
R3 = RomiRules.make(players=3)
R4 = RomiRules.make(players=4)

# ---------------------------------------------------------------- deal (D3, D4)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_D4_deal_layout(n: int) -> None:
    rules = RomiRules.make(players=n)
    rl, kinds, params = engine_args(rules, ["greedy"] * n)
    dealer = n - 1
    rec = record_from_seed(12345 + n, dealer, rl, kinds, params, max_turns=0)
    deck = rec.deck
    assert sorted(deck) == list(range(108))
    starter = (dealer + 1) % n
    assert rec.hands[starter] == deck[:15]
    for i in range(1, n):
        p = (starter + i) % n
        assert rec.hands[p] == deck[15 + 14 * (i - 1):15 + 14 * i]
    assert rec.stock == deck[15 + 14 * (n - 1):107]
    assert rec.cut == deck[107]
    assert rec.pile == () and rec.table == () and rec.moves == ()


def test_D3_records_follow_the_simulation_stream() -> None:
    """record_rounds plays the rounds simulate_rounds plays from the same stream (same dealers,
    decks, results)."""
    rl, kinds, params = engine_args(R3, ["greedy", "rummy:2", "threshold:60"])
    sim = E.simulate_rounds(chunk_state(5, 0), 6, rl, Seats(kinds, params), -1)
    recs = record_rounds(chunk_state(5, 0), 6, rl, kinds, params)
    scores, went_out, romi, never, turns, stalled, dealers = sim
    for r, rec in enumerate(recs):
        assert rec.dealer == dealers[r]
        assert list(rec.scores) == list(scores[r])
        assert rec.went_out == went_out[r] and rec.romi == bool(romi[r])
        assert rec.turns == turns[r] and rec.stalled == bool(stalled[r])
        assert list(rec.never_opened) == [bool(x) for x in never[r]]
    # a fixed dealer is kept; a drawn one (-1, passed as the commands pass it: the kernel is
    # compiled once for an int64 dealer) is uniform over the seats
    fixed = E.simulate_rounds(chunk_state(5, 1), 4, rl, Seats(kinds, params), 2)
    assert list(fixed[6]) == [2, 2, 2, 2]
    drawn = E.simulate_rounds(chunk_state(5, 2), 40, rl, Seats(kinds, params), -1)
    assert set(drawn[6]) == {0, 1, 2}


# ---------------------------------------------------------------- every round, replayed


class Tracker:
    """Replays a round record card by card (D4, T2-T8, O1, T6, J1, T7), from the rules' card
    movements alone, checking the turn structure on the way and the policies' rules."""

    def __init__(self, rec: RoundRecord, rules: RomiRules, policies: list[str]) -> None:
        self.rec = rec
        self.rules = rules
        self.policies = [KINDS.parse(p, {"open_min": rules.open_min}) for p in policies]
        n = rules.players
        deck = list(rec.deck)
        starter = (rec.dealer + 1) % n
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.hands[starter] = deck[:15]
        for i in range(1, n):
            self.hands[(starter + i) % n] = deck[15 + 14 * (i - 1):15 + 14 * i]
        self.stock = deck[15 + 14 * (n - 1):107]
        self.cut = deck[107]
        self.pile: list[int] = []
        self.table: list[tuple[int, list[int]]] = []
        self.opened = [False] * n
        self.drawn = [False] * n
        self.played = [0] * n
        self.orders = list(rec.stock_orders)
        self.starter = starter
        self.open_value = 0

    def turns(self):
        """The record's actions split into turns."""
        cur: list = []
        for a in self.rec.moves:
            cur.append(a)
            if isinstance(a, Discard):
                yield cur
                cur = []
        assert cur == [], "a turn ends with its discard (T7)"

    def run(self) -> None:
        n = self.rules.players
        p = self.starter
        turns = list(self.turns())
        for t, actions in enumerate(turns):
            self.play(p, t, actions)
            if not self.hands[p]:
                assert t == len(turns) - 1, "G1: going out ends the round"
                assert self.rec.went_out == p
                break
            p = (p + 1) % n
        assert len(turns) == self.rec.turns, "T9: every turn counted"
        assert self.orders == [], "every recorded stock order was used (T8)"

    def play(self, p: int, t: int, actions: list) -> None:
        hand = self.hands[p]
        spec = self.policies[p]
        sizes_before = [len(h) for h in self.hands]
        first = actions[0]
        must = None
        if t == 0:
            assert not isinstance(first, DrawStock | DrawDiscard | DrawCut), "D4"
            assert len(actions) == 1
        else:
            assert isinstance(first, DrawStock | DrawDiscard | DrawCut), "T1"
            if isinstance(first, DrawStock):
                if not self.stock:
                    new = list(self.orders.pop(0))
                    assert sorted(new) == sorted(self.pile[:-1]), "T8"
                    self.pile = self.pile[-1:]
                    self.stock = new
                hand.append(self.stock.pop(0))
            elif isinstance(first, DrawDiscard):
                c = self.pile.pop()
                hand.append(c)
                if self.drawn[p]:
                    must = c
            else:
                hand.append(self.cut)
                self.cut = -1
            self.drawn[p] = True
        was_open = self.opened[p]
        after_draw = list(hand)
        placed: list[int] = []
        opened_now = False
        for a in actions[1:] if t > 0 else actions:
            if isinstance(a, Open):
                assert not self.opened[p] and self.played[p] >= 1, "O1, O2"
                assert sum(meld_value(m, self.rules.ace_low_value) for m in a.melds) \
                    >= self.rules.open_min, "O1"
                for m in a.melds:
                    self.lay(p, m, placed)
                self.opened[p] = True
                opened_now = True
                self.open_value = sum(meld_value(m, self.rules.ace_low_value) for m in a.melds)
            elif isinstance(a, Lay):
                assert self.opened[p], "O3"
                self.lay(p, a.meld, placed)
            elif isinstance(a, Add):
                assert self.opened[p], "O3"
                hand.remove(a.card)
                self.table[a.target][1].append(a.card)
                placed.append(a.card)
            elif isinstance(a, Swap):
                assert self.opened[p], "O3, J1"
                hand.remove(a.card)
                cards = self.table[a.target][1]
                j = next(c for c in cards if c >= 104)
                cards.remove(j)
                cards.append(a.card)
                hand.append(j)
                placed.append(a.card)
            elif isinstance(a, Discard):
                assert a.card in hand
                hand.remove(a.card)
                self.pile.append(a.card)
                assert a.card < 104 or all(
                    not isinstance(b, Swap) for b in actions), "J3: no freed joker discarded"
            else:
                raise AssertionError(f"unexpected {a}")
        if must is not None:
            assert must in placed, "T4: a later draw from the discard pile is melded"
        if isinstance(first, DrawCut):
            assert not hand, "T5: the cut card only to go out"
        if not hand:
            own = all(not isinstance(a, Swap) for a in actions) and all(
                self.table[a.target][0] == p for a in actions if isinstance(a, Add))
            assert self.rec.romi == (opened_now and own), "G3"
        self.check_policy(p, spec, was_open, opened_now, after_draw, sizes_before, t)
        self.played[p] += 1

    def lay(self, p: int, meld: Meld, placed: list[int]) -> None:
        for c in meld.cards:
            self.hands[p].remove(c)
            placed.append(c)
        self.table.append((p, list(meld.cards)))

    def check_policy(self, p, spec, was_open, opened_now, after_draw, sizes, t) -> None:
        """Q2-Q4: greedy and threshold open at their first legal chance with a lay-down worth
        open_min / X; rummy opens only to go out while every opponent holds more than K."""
        if was_open or t == 0:
            return
        x = self.rules.open_min
        if spec.kind == "threshold":
            x = int(spec.values[0])
        if spec.kind == "rummy":
            k = int(spec.values[0])
            others = [sizes[q] for q in range(len(sizes)) if q != p]
            if opened_now and min(others) > k:
                assert not self.hands[p], "Q3: rummy opens only to go out"
            return
        chance = self.played[p] >= 1 and any(
            solve([c for j, c in enumerate(after_draw) if j != i],
                  self.rules).best_value >= x for i in range(len(after_draw)))
        assert opened_now == chance, f"Q2/Q4: opening chance {chance}, opened {opened_now}"
        if opened_now:
            assert self.open_value >= x, "Q4: the opening is worth X or more"


POLICY_MIXES = {
    2: ["expert", "rummy:3"],
    3: ["threshold:70", "greedy", "rummy:2"],
    4: ["greedy", "expert", "threshold:60", "rummy:4"],
    5: ["greedy", "rummy:3", "expert", "threshold:80", "greedy"],
}


@pytest.mark.parametrize("n, open_min, ace_low", [(2, 51, 1), (3, 51, 1), (4, 51, 1),
                                                   (5, 51, 1), (3, 30, 10), (4, 80, 5)])
def test_D1_G4_G5_every_round_replayed_accounted_valid_and_scored(n: int, open_min: int,
                                                                   ace_low: int) -> None:
    """Every round replayed from its record (D4, T1-T9, O1-O3, J1-J3, G1-G5, Q2-Q4), also with
    other values of the rule switches open_min (O1) and ace_low_value (M6)."""
    rules = RomiRules.make(players=n, open_min=open_min, ace_low_value=ace_low)
    policies = [p if not p.startswith("threshold") else f"threshold:{max(open_min, 60)}"
                for p in POLICY_MIXES[n]]
    rl, kinds, params = engine_args(rules, policies)
    recs = record_rounds(chunk_state(2026, n), ROUNDS, rl, kinds, params)
    for rec in recs:
        tr = Tracker(rec, rules, policies)
        tr.run()
        # the replay ends in the engine's final state
        assert [sorted(h) for h in tr.hands] == [sorted(h) for h in rec.hands]
        assert tr.pile == list(rec.pile)
        assert tr.stock == list(rec.stock)
        assert tr.cut == rec.cut
        assert [sorted(c) for _, c in tr.table] == [sorted(m.cards) for _, m in rec.table]
        assert [o for o, _ in tr.table] == [o for o, _ in rec.table]
        # D1: 108 cards, each once
        every = [c for h in rec.hands for c in h] + [c for _, m in rec.table for c in m.cards]
        every += list(rec.pile) + list(rec.stock) + ([rec.cut] if rec.cut >= 0 else [])
        assert sorted(every) == list(range(108))
        # M1-M4, M5: every table meld valid and canonical
        for _, m in rec.table:
            check_canonical(m)
        # G2-G5
        for p in range(n):
            if p == rec.went_out:
                assert rec.scores[p] in (-10, -20)
                assert rec.hands[p] == ()
            elif rec.never_opened[p]:
                assert rec.scores[p] == 100
            else:
                assert rec.scores[p] == penalty(rec.hands[p])
        assert rec.stalled == (rec.went_out < 0)
        assert rec.romi == (rec.went_out >= 0 and rec.scores[rec.went_out] == -20)


# ---------------------------------------------------------------- opening (O1-O3, Q2, Q4)

OPEN57 = "Js Jh Jd 8c 9c Tc"  # E3: 30 + 27 = 57


def opening_position(ids: Ids, extra: str, played: int = 1, rules: RomiRules = R2,
                     opp: str = "2s 5h 9d Kc 4c 6d 3h Qs 7s 8d 2h 5c Td Ks"):
    hand = ids(OPEN57 + " " + extra)
    other = ids(opp)
    stock = ids("4d 3c")
    return position(rules, [hand, other], dealer=1, to_move=0, stock=stock,
                    played=[played, 1]), hand, stock


def test_O1_Q2_greedy_opens_at_first_chance() -> None:
    ids = Ids()
    ws, _hand, _stock = opening_position(ids, "2c 5s Kh Ah 6c 3d Qd 9h")
    status, actions, _ = turn(ws, R2, ["greedy", "greedy"])
    assert status == 0
    assert actions[0] == DrawStock()
    opens = [a for a in actions if isinstance(a, Open)]
    assert len(opens) == 1
    assert {kinds_text(m.cards) for m in opens[0].melds} == {"Js Jh Jd", "8c 9c Tc"}
    assert isinstance(actions[-1], Discard)
    assert ws[3][0] == 1 and ws[2][0] == 15 - 6 - 1


def test_O2_nobody_opens_on_his_first_turn() -> None:
    ids = Ids()
    ws, _, _ = opening_position(ids, "2c 5s Kh Ah 6c 3d Qd 9h", played=0)
    _, actions, _ = turn(ws, R2, ["greedy", "greedy"])
    assert not any(isinstance(a, Open | Lay | Add) for a in actions)
    assert ws[3][0] == 0


def test_O1_below_open_min_no_opening() -> None:
    ids = Ids()
    hand = ids("Tc Jc Qc 5s 5h 5d 2h 7d 9s Kd 4c 6h 8s Ah")  # E3: 45
    ws = position(R2, [hand, ids("2s 5c 9d Kc 4s 6d 3h Qs 7s 8d 2d 3c Td Ks")], dealer=1,
                  to_move=0, stock=ids("4d"))
    _, actions, _ = turn(ws, R2, ["greedy", "greedy"])
    assert not any(isinstance(a, Open) for a in actions)


@pytest.mark.parametrize("x, opens", [(57, True), (58, False), (70, False)])
def test_Q4_threshold_opens_only_with_X(x: int, opens: bool) -> None:
    ids = Ids()
    ws, _, _ = opening_position(ids, "2c 5s Kh Ah 6c 3d Qd 9h")
    _, actions, _ = turn(ws, R2, [f"threshold:{x}", "greedy"])
    assert any(isinstance(a, Open) for a in actions) == opens


def test_Q4_threshold_below_open_min_is_refused() -> None:
    with pytest.raises(UsageError):
        engine_args(R2, ["threshold:50", "greedy"])


def test_Q3_rummy_holds_back_then_plays_greedy_when_an_opponent_is_low() -> None:
    ids = Ids()
    ws, _, _ = opening_position(ids, "2c 5s Kh Ah 6c 3d Qd 9h")
    _, actions, _ = turn(ws, R2, ["rummy:3", "greedy"])
    assert not any(isinstance(a, Open) for a in actions)
    ids = Ids()
    ws, _, _ = opening_position(ids, "2c 5s Kh Ah 6c 3d Qd 9h", opp="2s 5h 9d")
    _, actions, _ = turn(ws, R2, ["rummy:3", "greedy"])
    assert any(isinstance(a, Open) for a in actions)


def test_G3_rummy_opens_and_goes_out_for_minus_20() -> None:
    ids = Ids()
    hand = ids("Js Jh Jd 8c 9c Tc 2h 3h 4h 5h Kd Ks Kc")
    stock = ids("6s")
    ws = position(R2, [hand, ids("2s 5c 9d Kh 4s 6d 3c Qs 7s 8d 2d 3d Td")], dealer=1,
                  to_move=0, stock=stock)
    status, actions, _ = turn(ws, R2, ["rummy:3", "greedy"])
    assert status == 1
    assert isinstance(actions[1], Open) and len(actions[1].melds) == 4
    assert actions[-1] == Discard(stock[0])
    assert scores_of(ws, R2)[0] == -20


# ---------------------------------------------------------------- going out (G1-G5, E5)


def test_E5_G2_going_out_after_opening_earlier_scores_minus_10() -> None:
    ids = Ids()
    a = ids("7h 8h 9h Qs Qh Qd")
    b = ids("3s 4d 6c 9s Js")
    c = ids("X Ah 9c")
    table = [(0, ids("2s 3s 4s"), NO_JOKER), (2, ids("Kc Kd Kh"), NO_JOKER)]
    stock = ids("2c")
    ws = position(R3, [a, b, c], dealer=2, to_move=0, table=table, stock=stock,
                  opened=[True, False, True])
    status, actions, _ = turn(ws, R3, ["greedy"] * 3)
    assert status == 1
    lays = {kinds_text(x.meld.cards) for x in actions if isinstance(x, Lay)}
    assert lays == {"7h 8h 9h", "Qs Qh Qd"}
    assert actions[-1] == Discard(stock[0])
    assert scores_of(ws, R3) == [-10, 100, 39]


def test_E5_G3_opening_and_going_out_in_one_turn_scores_minus_20() -> None:
    ids = Ids()
    a = ids("7h 8h 9h Qs Qh Qd")
    stock = ids("2c")
    ws = position(R2, [a, ids("3s 4d 6c 9s Js")], dealer=1, to_move=0, stock=stock)
    status, actions, _ = turn(ws, R2, ["greedy", "greedy"])
    assert status == 1
    assert isinstance(actions[1], Open)
    assert scores_of(ws, R2) == [-20, 100]


def test_G3_adding_to_another_players_meld_is_not_romi() -> None:
    ids = Ids()
    a = ids("7h 8h 9h Qs Qh Qd 5c")
    table = [(1, ids("2c 3c 4c"), NO_JOKER)]
    stock = ids("Kd")
    ws = position(R2, [a, ids("3s 4d 6c 9s Js")], dealer=1, to_move=0, stock=stock,
                  table=table, opened=[False, True])
    status, actions, _ = turn(ws, R2, ["greedy", "greedy"])
    assert status == 1
    assert Add(0, a[6]) in actions
    assert scores_of(ws, R2)[0] == -10


# ---------------------------------------------------------------- adding and swaps (T6, J1-J3)


def test_T6_adds_to_table_runs_and_sets() -> None:
    ids = Ids()
    a = ids("5c 6h 9d Ks")
    table = [(1, ids("2c 3c 4c"), NO_JOKER), (1, ids("9s 9h 9c"), NO_JOKER)]
    ws = position(R2, [a, ids("3s 4d 6c 9s Js")], dealer=1, to_move=0, stock=ids("Ac"),
                  table=table, opened=[True, True])
    status, actions, _ = turn(ws, R2, ["greedy", "greedy"])
    adds = [x for x in actions if isinstance(x, Add)]
    assert Add(0, a[0]) in adds  # 5c above the 4c
    assert Add(1, a[2]) in adds  # 9d, the missing suit
    assert any(x.target == 0 and C.card_text(x.card) == "Ac" for x in adds)  # As below the 2
    assert status == 0 and ws[2][0] == 1  # 6h kept or Ks kept, one card discarded


def test_T6_an_as_added_to_the_run_2_to_k_goes_above_the_king() -> None:
    """T6, M6: the As fits the run 2 .. K at both ends; it is placed above the King (worth 10,
    not 1), as the reference engine places it, so both tables end alike."""
    ids = Ids()
    run = ids("2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks")
    ws = position(R2, [[], []], table=[(0, run, NO_JOKER), (0, ids("2h 3h 4h"), NO_JOKER)])
    ace = ids.one("As")
    assert add_place(ws[8], 0, ace) == 14
    assert add_place(ws[8], 1, ids.one("Ah")) == 1  # only below the 2 when the King is absent


def test_E4_J1_swap_in_a_run_and_the_joker_laid_again() -> None:
    ids = Ids()
    a = ids("6h Kc 2d")
    joker = ids.one("X")
    table = [(1, [*ids("5h"), joker, *ids("7h")], C.kind(ids.one("6h")))]
    ws = position(R2, [a, ids("3s 4d 6c 9s Js")], dealer=1, to_move=0, stock=ids("Qd"),
                  table=table, opened=[True, True])
    status, actions, _ = turn(ws, R2, ["greedy", "greedy"])
    i = actions.index(Swap(0, a[0]))
    # J1, J3: the joker is laid again at once, here at the run's high end (8h)
    assert actions[i + 1] == Add(0, joker, C.kind(C.parse_hand("8h")[0]))
    assert status == 0


def test_J2_set_of_three_joker_cannot_be_taken_but_of_four_can() -> None:
    ids = Ids()
    ws = position(R2, [[], []], table=[(0, [*ids("7d 7c"), ids.one("X")], NO_JOKER),
                                       (0, [*ids("7s 7h 7d"), ids.one("X")], NO_JOKER)])
    assert swap_kind(ws[8], 0) == -1
    assert swap_kind(ws[8], 1) == C.kind(C.parse_hand("7c")[0])


def test_J2_played_swap_needs_the_fourth_suit() -> None:
    ids = Ids()
    a = ids("7s 7h 2d")
    joker = ids.one("X")
    table = [(1, [*ids("7d 7c"), joker], NO_JOKER), (1, ids("3s 4s 5s"), NO_JOKER)]
    ws = position(R2, [a, ids("3c 4d 6c 9s Js")], dealer=1, to_move=0, stock=ids("Kd"),
                  table=table, opened=[True, True])
    _, actions, _ = turn(ws, R2, ["greedy", "greedy"])
    # 7s is added (set of three real cards and the joker), then 7h takes the joker (J2),
    # which is laid again at once on the spade run (J3)
    assert actions[1] == Add(0, a[0])
    assert actions[2] == Swap(0, a[1])
    assert actions[3].card == joker and actions[3].target == 1


# ---------------------------------------------------------------- draws (T3-T5)


def test_T5_cut_card_taken_only_to_go_out() -> None:
    ids = Ids()
    a = ids("7h 8h Qs Qh Qd 2c")
    cut = ids.one("9h")
    ws = position(R2, [a, ids("3s 4d 6c 9s Js")], dealer=1, to_move=0, stock=ids("Kd"),
                  cut=cut, opened=[True, False])
    status, actions, _ = turn(ws, R2, ["greedy", "greedy"])
    assert actions[0] == DrawCut() and status == 1 and ws[0][E.S_CUT] == -1
    ids = Ids()
    a = ids("7h 8h Qs Qh Qd 2c Kc")
    cut = ids.one("9h")
    ws = position(R2, [a, ids("3s 4d 6c 9s Js")], dealer=1, to_move=0, stock=ids("Kd"),
                  cut=cut, opened=[True, False])
    _, actions, _ = turn(ws, R2, ["greedy", "greedy"])
    assert actions[0] == DrawStock() and ws[0][E.S_CUT] == cut


def test_T3_T4_discard_draws() -> None:
    ids = Ids()
    a = ids("7h 8h 2c Kd 5s")
    top = ids.one("9h")
    # first draw (T3): kept because it raises best_value
    ws = position(R2, [a, ids("3s 4d 6c 9s Js")], dealer=1, to_move=0, stock=ids("Qc"),
                  pile=[*ids("4c"), top], drawn=[False, True], played=[1, 1])
    _, actions, _ = turn(ws, R2, ["greedy", "greedy"])
    assert actions[0] == DrawDiscard()
    # a later draw (T4) by a player who cannot open: the card cannot be melded, so the stock
    ids = Ids()
    a = ids("7h 8h 2c Kd 5s")
    top = ids.one("9h")
    ws = position(R2, [a, ids("3s 4d 6c 9s Js")], dealer=1, to_move=0, stock=ids("Qc"),
                  pile=[*ids("4c"), top])
    _, actions, _ = turn(ws, R2, ["greedy", "greedy"])
    assert actions[0] == DrawStock()
    # a later draw by an opened player who can meld it: taken and laid
    ids = Ids()
    a = ids("7h 8h 2c Kd 5s")
    top = ids.one("9h")
    ws = position(R2, [a, ids("3s 4d 6c 9s Js")], dealer=1, to_move=0, stock=ids("Qc"),
                  pile=[*ids("4c"), top], opened=[True, False])
    _, actions, _ = turn(ws, R2, ["greedy", "greedy"])
    assert actions[0] == DrawDiscard()
    assert any(isinstance(x, Lay) and top in x.meld.cards for x in actions)


# ---------------------------------------------------------------- discard (Q2)


@pytest.mark.parametrize("hand, discard", [
    ("2s 3s 4s Kh 5d 9c", "Kh"),  # leaves 5 + 9 = 14 (9c would leave 15)
    ("2s 3s 4s Kh Qd 9c", "Qd"),  # Kh and Qd both leave 19: equal penalty, card order Q < K
    ("2s 3s 4s 5s 8d", "8d"),
])
def test_Q2_discard_rule(hand: str, discard: str) -> None:
    ids = Ids()
    a = ids(hand)
    ws = position(R2, [a, ids("3c 4d 6c 9s Js")], dealer=1, to_move=0, turns=0)
    _, actions, _ = turn(ws, R2, ["greedy", "greedy"])
    assert len(actions) == 1 and C.card_text(actions[0].card) == discard


# ---------------------------------------------------------------- reshuffle and stall (T8, T9)


def test_T8_reshuffle_of_the_pile_but_its_top() -> None:
    ids = Ids()
    a = ids("7h 8h 2c Kd 5s")
    pile = ids("4c 9d Qs Jd 3h")
    ws = position(R2, [a, ids("3c 4d 6c 9s Js")], dealer=1, to_move=0, pile=pile,
                  opened=[True, False])
    status, actions, order = turn(ws, R2, ["greedy", "greedy"], seed=99)
    assert status == 0 and actions[0] == DrawStock()
    # the engine's order: Fisher-Yates of the pile bottom first, from the round's stream
    rs = np.zeros(4, np.uint64)
    seed_state(rs, np.uint64(99))
    expect = pile[:-1]
    for j in range(len(expect) - 1):
        r = j + int(randbelow(rs, len(expect) - j))
        expect[j], expect[r] = expect[r], expect[j]
    assert list(order) == expect
    st = ws[0]
    assert st[E.S_PN] == 2 and ws[7][0] == pile[-1]
    assert list(ws[6][st[E.S_POS]:st[E.S_END]]) == list(order[1:])


def test_T8_round_stops_when_the_pile_cannot_make_a_stock() -> None:
    ids = Ids()
    a = ids("7h 8h 2c Kd 5s")
    ws = position(R2, [a, ids("3c 4d 6c 9s Js")], dealer=1, to_move=0, pile=ids("4c"))
    status, actions, _ = turn(ws, R2, ["greedy", "greedy"])
    assert status == 2 and actions == []


def test_T9_stall_after_1000_turns_scores_as_it_stands() -> None:
    rules = RomiRules.make(players=2)
    rl, kinds, params = engine_args(rules, ["threshold:1000", "threshold:1000"])
    rec = record_from_seed(7, 0, rl, kinds, params)
    assert rec.stalled and rec.went_out == -1 and rec.turns == 1000
    assert rec.scores == (100, 100) and rec.never_opened == (True, True)
    assert len(rec.stock_orders) > 0  # T8 happened on the way


# ---------------------------------------------------------------- information (I3)


def hidden_exchange(ws, me: int, rng: np.random.Generator, keep_top: bool) -> tuple:
    """A copy of ``ws`` with the hidden cards (other hands, the stock, its top too unless
    ``keep_top``) dealt again at random into the same places."""
    ws2 = tuple(a.copy() for a in ws)
    st, hand, hn, stock = ws2[0], ws2[1], ws2[2], ws2[6]
    slots = []
    for p in range(len(hn)):
        if p != me:
            slots += [(1, p, i) for i in range(hn[p])]
    start = st[E.S_POS] + (1 if keep_top else 0)
    slots += [(6, 0, i) for i in range(start, st[E.S_END])]
    cards = [hand[p, i] if a == 1 else stock[i] for a, p, i in slots]
    rng.shuffle(cards)
    for (a, p, i), c in zip(slots, cards, strict=True):
        if a == 1:
            hand[p, i] = c
        else:
            stock[i] = c
    return ws2


@pytest.mark.parametrize("n", [2, 4])
def test_I3_hidden_cards_do_not_change_decisions(n: int) -> None:
    rules = RomiRules.make(players=n)
    policies = POLICY_MIXES[n]
    rl, kinds, params = engine_args(rules, policies)
    rng = np.random.default_rng(3)
    checked = 0
    for seed in range(12):
        for turns in (3, 9, 17, 26):
            ws = play_prefix(seed, seed % n, rl, kinds, params, turns)
            if ws[0][E.S_OUT] >= 0:
                continue
            me = int(ws[0][E.S_TURN])
            base = play_one_turn(tuple(a.copy() for a in ws), rl, kinds, params, 1)
            for _ in range(2):
                other = play_one_turn(hidden_exchange(ws, me, rng, True), rl, kinds, params, 1)
                assert other[1] == base[1]
                draw = play_one_turn(hidden_exchange(ws, me, rng, False), rl, kinds, params, 1)
                assert draw[1][:1] == base[1][:1]
            checked += 1
    assert checked >= 20


# ---------------------------------------------------------------- games (D5, G6)


def test_D5_G6_games_add_rounds_with_the_deal_moving_left() -> None:
    """simulate_games against its rounds played one by one from the same stream: the first
    dealer drawn per game, the deal moving one seat left each round, totals added, the lowest
    total winning, equal lowest totals sharing the win."""
    from simcards.core.rng_kernel import next_u64

    rules = RomiRules.make(players=3, rounds=4)
    policies = ["greedy", "threshold:60", "rummy:2"]
    rl, kinds, params = engine_args(rules, policies)
    totals, winners = E.simulate_games(chunk_state(11, 0), 5, rl, Seats(kinds, params))
    state = chunk_state(11, 0)
    for g in range(5):
        d0 = int(randbelow(state, 3))
        expect = [0, 0, 0]
        for r in range(4):
            seed = int(next_u64(state))
            rec = record_from_seed(seed, (d0 + r) % 3, rl, kinds, params)
            assert rec.dealer == (d0 + r) % 3
            expect = [a + b for a, b in zip(expect, rec.scores, strict=True)]
        assert list(totals[g]) == expect
        low = min(expect)
        assert list(winners[g]) == [int(t == low) for t in expect]
