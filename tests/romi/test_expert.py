"""Römi's ``expert`` discard (Q5 of ``seeds/romi.md``): the engine held to an independent oracle.

``simcards.romi.expert_rule`` writes Q5's discard again from the rules page alone, in plain
Python (unseen copies, the prospect of each card, feeding, the tie order), using only the exact
meld solver for ``best_value`` and ``min_penalty``. Two kinds of checks:

- engine rounds with expert seats among greedy, rummy and threshold seats (2 to 5 players, one
  or two experts, non-default ``open_min`` and ``ace_low_value``) are replayed through the
  reference engine; before every discard of an expert seat holding two cards or more, the
  oracle, given only that seat's observation (I3), must name the kind the engine threw;
- hand-made positions, one for each clause of Q5, whose answers are worked out by hand below;
  those that can arise in play are also played by the engine (one turn from a built position:
  draw from the stock, discard), twice with the hidden cards (other hands, the stock under
  the drawn card) exchanged, which must not change the discard (I3).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from functools import cache

import pytest

from simcards.core.errors import UsageError
from simcards.core.rng import chunk_state
from simcards.romi import cards as C
from simcards.romi import records as K
from simcards.romi import reference as ref
from simcards.romi.actions import Discard, DrawStock
from simcards.romi.expert_rule import (
    JOKER,
    can_add,
    expert_candidates,
    expert_discard,
    in_some_meld,
    unseen_copies,
)
from simcards.romi.rules import RomiRules

P = C.parse_hand
DEFAULT = RomiRules.make()


def _kind(text: str) -> int:
    return C.kind(P(text)[0])


# ---------------------------------------------------------------- engine rounds, replayed

CONFIGS = [
    # name, rule options, policies, rounds, least expert discards checked
    ("2p-expert-greedy", {"players": 2}, ["expert", "greedy"], 20, 150),
    ("3p-expert-rummy-threshold", {"players": 3}, ["rummy:3", "expert", "threshold:70"], 28,
     200),
    ("4p-two-experts", {"players": 4}, ["expert", "greedy", "threshold:60", "expert"], 24, 250),
    ("5p-two-experts", {"players": 5}, ["greedy", "expert", "rummy:5", "expert", "greedy"], 30,
     250),
    ("4p-open30-acelow10", {"players": 4, "open_min": 30, "ace_low_value": 10},
     ["threshold:40", "expert", "greedy", "rummy:2"], 40, 200),
]
"""Sized so that the file checks about 1,300 expert discards in under a minute."""

LEVELS = ("feeding", "prospect before opening", "prospect once opened", "lower penalty",
          "lower min_penalty of the rest", "higher penalty", "card order")
"""Which clause of Q5's choice separates the card thrown from the next best one."""


def _deciding_clause(cands: list, opened: bool) -> str:
    """Feeding when the best card without the feeding test would feed; else the first term of
    the choice key where the best two candidates differ."""
    if min(cands, key=lambda c: c.key[1:]).kind != cands[0].kind:
        return LEVELS[0]
    a, b = cands[0].key, cands[1].key
    i = next(i for i in range(len(a)) if a[i] != b[i])
    if i == 1:
        return LEVELS[2] if opened else LEVELS[1]
    return LEVELS[0] if i == 0 else LEVELS[i + 1]


@dataclass
class Replayed:
    """What the replay of one configuration found."""

    checked: int = 0
    wrong: list[str] = field(default_factory=list)
    clauses: Counter = field(default_factory=Counter)


def _expert_checks(rules: RomiRules, policies: list[str], rec: K.RoundRecord,
                   out: Replayed) -> None:
    """Replays one recorded round through the reference engine; before each discard of an
    expert seat with two cards or more, asks the oracle with that seat's observation only and
    adds to ``out`` the check, any disagreement, and which clause decided."""
    state = ref.RoundState(rules, rec.dealer, list(rec.deck),
                           shuffler=ref.ReplayShuffler(rec.stock_orders))
    n = rules.players
    for move in rec.moves:
        p = state.current_player()
        if isinstance(move, Discard) and policies[p] == "expert":
            obs = state.observation(p)
            if len(obs["hand"]) > 1:
                table = [m["cards"] for m in obs["table"]]
                opened, next_opened = obs["opened"][p], obs["opened"][(p + 1) % n]
                cands = expert_candidates(obs["hand"], table, obs["discards"], next_opened,
                                          opened, rules)
                out.checked += 1
                if len(cands) > 1:
                    out.clauses[_deciding_clause(cands, opened)] += 1
                if cands[0].kind != C.kind(move.card):
                    out.wrong.append(_position_text(obs, table, p, n, cands, move.card))
        state.apply(move)
    assert state.is_over()
    assert tuple(state.scores()) == rec.scores


def _position_text(obs: dict, table: list, p: int, n: int, cands: list, thrown: int) -> str:
    """A disagreement, with everything needed to reproduce it."""
    return (f"turn {obs['turn']} seat {p}: hand {C.format_hand(obs['hand'])}; table "
            f"{[C.format_hand(m) for m in table]}; pile {C.format_hand(obs['discards'])}; "
            f"opened {obs['opened'][p]}, next opened {obs['opened'][(p + 1) % n]}; engine threw "
            f"{C.card_text(thrown)}, Q5 says {C.kind_text(cands[0].kind)}; "
            + "; ".join(c.text() for c in cands))


@cache
def _replay(name: str) -> Replayed:
    """Records the configuration's rounds with the engine and replays them (once per run)."""
    _, options, policies, rounds, _ = next(c for c in CONFIGS if c[0] == name)
    rules = RomiRules.make(**options)
    rl, kinds, params = K.engine_args(rules, policies)
    out = Replayed()
    for rec in K.record_rounds(chunk_state(2026, 5, sum(map(ord, name))), rounds, rl, kinds,
                               params):
        _expert_checks(rules, policies, rec, out)
    return out


@pytest.mark.parametrize("name,least", [(c[0], c[4]) for c in CONFIGS],
                         ids=[c[0] for c in CONFIGS])
def test_q5_engine_expert_discards_follow_the_rule(name: str, least: int) -> None:
    """Q5, T7, I3: every discard of an engine expert seat (two cards or more in hand) is the
    kind the oracle names from that seat's observation: its hand, the table, the discard pile
    and the opened flags of the seat and of the next one in play order."""
    got = _replay(name)
    assert not got.wrong, (f"{len(got.wrong)} of {got.checked} expert discards differ:\n"
                           + "\n".join(got.wrong))
    assert got.checked >= least, got.checked


def test_q5_replayed_discards_reach_every_clause() -> None:
    """The replayed discards are decided by each clause of Q5's choice, so that every clause
    was held to the engine in play: feeding, the prospect before and after opening, the lower
    penalty before opening and card order many times each; the lower ``min_penalty`` of the
    rest rarely (a few times). The higher penalty value never decides in these rounds (once
    opened, equal prospects with equal ``min_penalty`` of the rest almost always mean equal
    penalties); the hand-made positions cover the other clauses by name."""
    total: Counter = Counter()
    for c in CONFIGS:
        total += _replay(c[0]).clauses
    assert sum(_replay(c[0]).checked for c in CONFIGS) >= 1_000
    for clause in ("feeding", "prospect before opening", "prospect once opened",
                   "lower penalty", "card order"):
        assert total[clause] >= 5, (clause, dict(total))


# ---------------------------------------------------------------- the helpers, by definition


def test_unseen_copies_count_hand_pile_and_table_jokers_as_jokers() -> None:
    """Q5 unseen copies: 2 less the copies in hand, pile and table; a table joker is a joker
    whatever card it stands for, so 6h is still 2 unseen beside ``5h X 7h``."""
    u = unseen_copies(P("Kd 9s"), [P("5h X 7h"), P("Kd Kc X")], P("9s X"))
    assert u[_kind("Kd")] == 0 and u[_kind("9s")] == 0
    assert u[_kind("6h")] == 2 and u[_kind("5h")] == 1 and u[_kind("Kc")] == 1
    assert u[JOKER] == 1
    assert sum(u) == 108 - 2 - 6 - 2
    with pytest.raises(UsageError):
        unseen_copies(P("Kd"), [P("Kd Kc Ks")], P("Kd"))


@pytest.mark.parametrize("card,meld,fits", [
    ("4s", "5s 6s 7s", True), ("8s", "5s 6s 7s", True), ("9s", "5s 6s 7s", False),
    ("8s", "5s 6s X", True),       # X is 7s: 8s goes above it
    ("4s", "5s 6s X", True), ("9s", "5s 6s X", False),
    ("4s", "X 5s 6s", False),      # X is 4s: 3s or 7s only
    ("3s", "X 5s 6s", True),
    ("As", "Js Qs Ks", True),      # above the King
    ("As", "2s 3s 4s", True),      # below the 2
    ("As", "Qs Ks X", False),      # X is the As above the King: no second As (M2)
    ("As", "X Qs Ks", True),       # X is Js
    ("Ks", "As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs", True),
    ("As", "2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks", True),
    ("As", "As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks", False),  # 13 cards: two Ases (M2)
    ("5h", "5s 6s 7s", False),
    ("7h", "7c 7d X", True),       # the joker's suit is recomputed (M4)
    ("7s", "7c 7d X", True),
    ("7c", "7c 7d X", False),      # two identical cards (M1)
    ("7h", "7s 7d 7c X", False),   # four cards already
    ("7h", "7s 7d 7c", True),
    ("8h", "7s 7d 7c", False),
])
def test_t6_can_add_to_a_table_meld(card: str, meld: str, fits: bool) -> None:
    """T6 with M1-M4: a run grows at either end (the joker keeps its place, M5), a set takes
    a missing suit up to four cards."""
    assert can_add(_kind(card), P(meld)) is fits


@pytest.mark.parametrize("card,cards,inside", [
    ("9s", "9s 9h 9d", True), ("9s", "9s 9h X", True), ("9s", "9s X X", False),
    ("9s", "9s 9s 9h", False),     # two identical cards are never in one set (M1)
    ("9s", "9s 9s 9h X", True),
    ("5h", "4h 5h 6h", True), ("5h", "5h 7h X", True), ("5h", "5h 8h X", False),
    ("Ah", "Ah 2h 3h", True), ("Ah", "Qh Kh Ah", True), ("Ah", "Kh Ah 2h", False),
    ("Ah", "Kh Ah X", True),       # X as Qh
    ("2h", "Kh Ah 2h", False),     # no wrap (M2)
    ("Kc", "Kc 3h 9d Kd", False),
])
def test_m1_m4_card_in_some_meld(card: str, cards: str, inside: bool) -> None:
    """Q5's "lies in some valid meld of the cards": a set of its rank or a run of its suit
    through it, with at most one joker and two real cards (M1-M4)."""
    assert in_some_meld(_kind(card), [C.kind(c) for c in P(cards)]) is inside


def _dense_hands(n: int, seed: int) -> list[tuple[int, ...]]:
    """Hands of 6 to 9 cards from two suits, a band of ranks that reaches an As at one end or
    the other, both copies and up to two jokers: melds and near-melds everywhere."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        suits = rng.sample(range(4), 2)
        lo = rng.choice([1, 5, 9])
        pool = [copy * 52 + s * 13 + (r - 1) % 13 for copy in (0, 1) for s in suits
                for r in range(lo, lo + 6)]
        pool += [104, 105]
        out.append(tuple(sorted(rng.sample(pool, rng.randint(6, 9)))))
    return out


def test_m1_m4_t6_helpers_agree_with_the_reference_engine() -> None:
    """The two small meld questions Q5 asks, against the reference engine's own meld lists
    (``_hand_melds``: every valid canonical meld of a hand) and additions (``_add_results``),
    written separately from the rules: a kind lies in some meld of the hand exactly when one of
    the listed melds holds it; a kind can be added to a listed meld laid on the table exactly
    when the reference finds an addition for a real card of that kind."""
    checked_in, checked_add = 0, 0
    for hand in _dense_hands(150, 7):
        melds = ref._hand_melds(hand)
        kinds = [C.kind(c) for c in hand]
        for k in set(kinds) - {JOKER}:
            want = any(k in {C.kind(c) for c in m.cards if not C.is_joker(c)} for m in melds)
            assert in_some_meld(k, kinds) is want, (C.format_hand(hand), C.kind_text(k))
            checked_in += 1
        for m in melds[:12]:
            for k in range(52):
                card = k if k not in m.cards else k + 52
                want = bool(ref._add_results(m, card))
                assert can_add(k, m.cards) is want, (m.text(), C.kind_text(k))
                checked_add += 1
    assert checked_in > 500 and checked_add > 10_000


# ---------------------------------------------------------------- hand-made positions

JOKERS_SEEN = P("X X X X")
"""A discard pile holding the four jokers: u(X) = 0, so that the sums below stay short."""


def test_q5_dead_card_thrown_before_a_live_one() -> None:
    """Q5 prospect before opening (open_min 51, nothing melds beyond three cards here).

    Hand 4s 4h Kd Kc, the four jokers in the pile (u(X) = 0). H - c + d melds only when d
    completes the other pair's set:
    - throw Kd: rest 4s 4h Kc, melds with 4d or 4c (set of 4s, 12): prospect
      12 * (u(4d) + u(4c)) = 12 * 4 = 48; Kc likewise;
    - throw 4s: rest 4h Kd Kc, melds with Ks or Kh (30): prospect 30 * (u(Ks) + u(Kh)).
    Kings live (nothing else seen): 30 * 4 = 120 > 48, a 4 goes (4s before 4h in card order).
    Both copies of Ks and Kh in the pile (the Kings are dead): 0 < 48, a King goes, Kd
    before Kc (equal prospect, penalty and rest; card order by suit)."""
    hand = P("4s 4h Kd Kc")
    assert expert_discard(hand, [], JOKERS_SEEN, False, False, DEFAULT) == _kind("4s")
    dead = P("X X X X Ks Kh Ks Kh")
    cands = expert_candidates(hand, [], dead, False, False, DEFAULT)
    assert [c.kind for c in cands] == [_kind(t) for t in ("Kd", "Kc", "4s", "4h")]
    assert [c.prospect for c in cands] == [48, 48, 0, 0]


def test_q5_prospect_tie_before_opening_throws_the_lower_penalty() -> None:
    """Q5 before opening, ties by the lower penalty value of c (before the lower
    ``min_penalty`` of the rest, which would name 9s).

    Hand Kc Kd 5h 9s, nothing seen: throwing 5h or 9s leaves Kc Kd plus one card, a set (30)
    with Ks, Kh or a joker: 30 * (2 + 2 + 4) = 240 each; throwing a King leaves two single
    cards and one card never makes a meld of them: 0. So 5h (penalty 5 < 9)."""
    hand = P("Kc Kd 5h 9s")
    cands = expert_candidates(hand, [], [], False, False, DEFAULT)
    assert [(C.kind_text(c.kind), c.prospect) for c in cands] == [
        ("5h", 240), ("9s", 240), ("Kd", 0), ("Kc", 0)]
    assert expert_discard(hand, [], [], True, False, DEFAULT) == _kind("5h")


def test_q5_prospect_once_opened_counts_penalties() -> None:
    """Q5 once opened: the prospect is minus the unseen-weighted penalty the rest is left with
    after one more card, so the same hand Kc Kd 5h 9s (empty table, empty pile, U = 104 unseen
    cards, T = sum of u(d) * penalty(d) over all d) now throws 9s:
    - throw 9s: rest Kc Kd 5h (25); Ks, Kh (2 each) make the set and leave 5h: m = 5; a joker
      (4) does too: m = 5; every other d leaves 25 + penalty(d). Sum = 104 * 25 + T - 2 * 30
      - 2 * 30 - 4 * 40 = 2,600 + T - 280 = 2,320 + T;
    - throw 5h: rest Kc Kd 9s (29): 104 * 29 + T - 280 = 2,736 + T;
    - throw Kd: rest Kc 5h 9s (24), nothing melds: 104 * 24 + T = 2,496 + T.
    Highest prospect (lowest sum): 9s."""
    hand = P("Kc Kd 5h 9s")
    cands = expert_candidates(hand, [], [], False, True, DEFAULT)
    t = _weighted_penalty(hand)
    got = {C.kind_text(c.kind): c.prospect for c in cands}
    assert got == {"9s": -(2320 + t), "5h": -(2736 + t), "Kd": -(2496 + t),
                   "Kc": -(2496 + t)}
    assert expert_discard(hand, [], [], False, True, DEFAULT) == _kind("9s")


def _weighted_penalty(hand: list[int]) -> int:
    """T = the sum over every card d of u(d) * penalty(d) (M7), for an empty table and pile."""
    total = 0
    for k, u in enumerate(unseen_copies(hand, [], [])):
        if k == JOKER:
            total += 20 * u
        else:
            r = k % 13 + 1
            total += u * (10 if r == 1 or r > 10 else r)
    return total


def test_q5_once_opened_equal_prospects_throw_the_higher_penalty() -> None:
    """Q5's last clauses once opened. Hand 5h 6h 7h 8h, the other 5h and 8h in the pile
    (u = 0), table 4s 4d 4c and 9s 9d 9c (seat 2's), next player not opened. Throwing 5h or
    8h leaves a run (min_penalty 0); m(d) differs from the plain penalty of d only for:
    - throw 5h (rest 6h 7h 8h): 9h and X extend the run (0); 4h lies in no meld of
      4h 6h 7h 8h but fits 4s 4d 4c (0); 6h and 7h lie in the run (their own penalty);
    - throw 8h (rest 5h 6h 7h): 4h and X extend it (0); 9h fits 9s 9d 9c (0); 6h, 7h as above.
    So both sums are equal: equal prospect, equal min_penalty of the rest, and the higher
    penalty value throws 8h. Without the two sets, 4h (for 5h) and 9h (for 8h) cost their
    penalty, 2 * 4 = 8 against 2 * 9 = 18: throwing 5h has the better prospect (by 10).
    Throwing 6h or 7h leaves 19 or 20 in hand: far worse."""
    ids = P("5h 6h 7h 8h 4s 4d 4c 9s 9d 9c 5h 8h")
    hand, table, pile = ids[:4], [ids[4:7], ids[7:10]], ids[10:]
    cands = expert_candidates(hand, table, pile, False, True, DEFAULT)
    assert [C.kind_text(c.kind) for c in cands] == ["8h", "5h", "7h", "6h"]
    assert cands[0].prospect == cands[1].prospect
    assert cands[0].rest_penalty == cands[1].rest_penalty == 0
    cands = expert_candidates(hand, [], pile, False, True, DEFAULT)
    assert [C.kind_text(c.kind) for c in cands[:2]] == ["5h", "8h"]
    assert cands[0].prospect - cands[1].prospect == 10


def test_q5_a_card_that_feeds_is_kept_when_the_next_player_has_opened() -> None:
    """Q5 feeding, once opened, table Ts Js Qs, hand Ks 8d 4c (nothing melds in hand).

    For isolated cards every d gives the same extra term whatever c is (d fits the table, or
    costs its own penalty), so the prospect only weighs min_penalty(H - c): throwing the
    dearest card is best, Ks (10) before 8d (8) before 4c (4). Ks can be added to Ts Js Qs.
    Next player not opened: nothing feeds, Ks is thrown. Next player opened: Ks feeds and goes
    last; 8d is thrown."""
    hand, table = P("Ks 8d 4c"), [P("Ts Js Qs")]
    assert expert_discard(hand, table, [], False, True, DEFAULT) == _kind("Ks")
    cands = expert_candidates(hand, table, [], True, True, DEFAULT)
    assert [(C.kind_text(c.kind), c.feeds) for c in cands] == [
        ("8d", False), ("4c", False), ("Ks", True)]


def test_q5_a_joker_feeds_when_the_next_player_has_opened() -> None:
    """Q5 feeding: a joker feeds whenever the next player has opened (it fits anywhere). Hand
    X Kd 4c with no table, opened: the joker is the dearest single card (20), so its prospect
    is best (as in the test above) and it goes while the next player has not opened; once he
    has, it is kept and Kd goes."""
    hand = P("X Kd 4c")
    assert expert_discard(hand, [], [], False, True, DEFAULT) == JOKER
    assert expert_discard(hand, [], [], True, True, DEFAULT) == _kind("Kd")


def test_q5_bad_input_is_a_usage_error() -> None:
    """One card (it simply goes out, G1), or a hand with one id twice."""
    with pytest.raises(UsageError):
        expert_discard(P("Kd"), [], [], False, False, DEFAULT)
    with pytest.raises(UsageError):
        expert_discard([5, 5, 7], [], [], False, False, DEFAULT)


# ---------------------------------------------------------------- the same positions in the engine

FILLER = "2d 6c Td 3c 7h Jc 8s Qh 9h 6d Jd Qs 2c 7c 3d 8c"
"""Cards for the hidden places (other hands, the stock under the drawn card): none of them
melds with the positions' cards, and which of them sits where must not matter (I3)."""


def _engine_discard(rules: RomiRules, hand: str, drawn: str, *, table: str = "",
                    pile: str = "", opened: bool = False, next_opened: bool = False,
                    hidden: str = FILLER) -> int:
    """The kind the engine's expert throws in a hand-made position: seat 0 to move, holding
    ``hand``, draws ``drawn`` from the stock (the discard pile's top card never melds and the
    cut card is gone, so the draw is the stock's, Q2), cannot open (far below ``open_min``) or,
    opened, has nothing to lay or add, and discards. ``table`` is one meld laid by the last seat
    (opened); ``hidden`` fills the other hands and the stock under the drawn card. The turn
    played must be exactly the draw and the discard."""
    n = rules.players
    texts = [hand, drawn, table, pile, hidden]
    groups, at = [], 0
    ids = P(" ".join(t for t in texts if t))
    for t in texts:
        k = len(P(t)) if t else 0
        groups.append(ids[at:at + k])
        at += k
    h, d, tb, pl, hid = groups
    others = [hid[i::n - 1] for i in range(n - 1)]
    stock = d + others[0][-2:]
    hands = [h, *[o[:-2] if i == 0 else o for i, o in enumerate(others)]]
    flags = [opened, next_opened] + [True] * (n - 2)
    melds = [(n - 1, tb, -1)] if tb else []
    ws = K.position(rules, hands, dealer=n - 1, to_move=0, table=melds, pile=pl, stock=stock,
                    opened=flags)
    rl, kinds, params = K.engine_args(rules, ["expert"] + ["greedy"] * (n - 1))
    status, actions, _ = K.play_one_turn(ws, rl, kinds, params)
    assert status == 0 and len(actions) == 2, actions
    assert actions[0] == DrawStock() and isinstance(actions[1], Discard), actions
    return C.kind(actions[1].card)


HIDDEN_AGAIN = " ".join(reversed(FILLER.split()))


@pytest.mark.parametrize("hidden", [FILLER, HIDDEN_AGAIN], ids=["hidden", "hidden-exchanged"])
def test_q5_engine_dead_card_thrown_before_a_live_one(hidden: str) -> None:
    """The position of ``test_q5_dead_card_thrown_before_a_live_one`` in the engine (hand
    4s 4h Kd, Kc drawn): Kings live, 4s goes; both Ks and Kh in the pile, Kd goes."""
    r2 = RomiRules.make(players=2)
    assert _engine_discard(r2, "4s 4h Kd", "Kc", pile="X X X X", hidden=hidden) == _kind("4s")
    assert _engine_discard(r2, "4s 4h Kd", "Kc", pile="Ks Kh Ks Kh X X X X",
                           hidden=hidden) == _kind("Kd")


def test_i3_q5_engine_counts_only_seen_cards_as_seen() -> None:
    """I3: the partners the expert cannot see do not make a card dead. Both Ks and Kh in the
    opponent's hand instead of the pile: to the expert they are unseen (u = 2 each), so the
    Kings are live and 4s goes, as with nothing seen; only the pile makes them dead."""
    r2 = RomiRules.make(players=2)
    hidden = "Ks Kh Ks Kh " + " ".join(FILLER.split()[:10])
    assert _engine_discard(r2, "4s 4h Kd", "Kc", pile="X X X X", hidden=hidden) == _kind("4s")
    assert expert_discard(P("4s 4h Kd Kc"), [], JOKERS_SEEN, False, False,
                          DEFAULT) == _kind("4s")


@pytest.mark.parametrize("hidden", [FILLER, HIDDEN_AGAIN], ids=["hidden", "hidden-exchanged"])
def test_q5_engine_prospect_before_and_after_opening(hidden: str) -> None:
    """Hand Kc Kd 5h, 9s drawn: before opening 5h (equal prospect 240 with 9s, lower
    penalty); once opened 9s (``test_q5_prospect_once_opened_counts_penalties``). Greedy's
    discard rule (Q1) would throw a King in both."""
    r2 = RomiRules.make(players=2)
    assert _engine_discard(r2, "Kc Kd 5h", "9s", hidden=hidden) == _kind("5h")
    assert _engine_discard(r2, "Kc Kd 5h", "9s", opened=True, hidden=hidden) == _kind("9s")


@pytest.mark.parametrize("hidden", [FILLER, HIDDEN_AGAIN], ids=["hidden", "hidden-exchanged"])
def test_q5_engine_feeding(hidden: str) -> None:
    """Feeding in play. Once opened, greedy's melding (Q2 step 2) adds every card that fits
    the table before the discard, so a card that feeds the next player through the table is
    held only by an expert who has not opened: 3 players, table 2s 3s 4s (seat 2's), hand
    9d Kc, 5s drawn. No d makes a meld of two of these cards, so every prospect is 0 and the
    lower penalty names 5s; when seat 1 has opened 5s feeds and 9d goes. A joker feeds
    without any table: opened, hand X Kd, 4c drawn (``test_q5_a_joker_feeds...``): X goes
    while the next player has not opened, Kd once he has."""
    r3 = RomiRules.make(players=3)
    for next_opened, want in ((False, "5s"), (True, "9d")):
        assert _engine_discard(r3, "9d Kc", "5s", table="2s 3s 4s", next_opened=next_opened,
                               hidden=hidden) == _kind(want)
        assert expert_discard(P("9d Kc 5s"), [P("2s 3s 4s")], [], next_opened, False,
                              r3) == _kind(want)
    r2 = RomiRules.make(players=2)
    assert _engine_discard(r2, "X Kd", "4c", opened=True, hidden=hidden) == JOKER
    assert _engine_discard(r2, "X Kd", "4c", opened=True, next_opened=True,
                           hidden=hidden) == _kind("Kd")


def _full_hand_positions(n: int, seed: int) -> list[tuple[list[int], int, list[int], list[int]]]:
    """Positions of a full hand before opening: 14 cards (one or two jokers in most, the rest
    from two or three suits, so that melds and near-melds abound, runs through an As
    included), the card drawn, a discard pile and the cards left (hidden). Returns (hand,
    drawn, pile, hidden) as card ids."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        deck = list(range(108))
        rng.shuffle(deck)
        suits = rng.sample(range(4), rng.choice([2, 3]))
        lo = rng.choice([1, 4, 8, 10])
        near = [c for c in deck if c < 104 and c % 52 // 13 in suits
                and (c % 13 + 1 - lo) % 13 < 7]
        jokers = [c for c in deck if c >= 104][:rng.choice([0, 1, 1, 2])]
        hand = jokers + near[:10 - len(jokers)]
        hand += [c for c in deck if c not in hand][:4]
        rest = [c for c in deck if c not in hand]
        pile = rest[1:1 + rng.randint(0, 20)]
        out.append((hand, rest[0], pile, rest[1 + len(pile):]))
    return out


def test_q5_engine_full_hands_before_opening_follow_the_rule() -> None:
    """Full hands with jokers before opening, where the engine weighs the most cards against
    the most unseen ones: the engine's expert, playing one turn (O2 does not let it open yet:
    it draws from the stock and discards), throws the kind the oracle names, under three
    ``open_min`` and both As values."""
    checked = 0
    for i, (hand, drawn, pile, hidden) in enumerate(_full_hand_positions(36, 5)):
        rules = RomiRules.make(players=2, open_min=(30, 51, 80)[i % 3],
                               ace_low_value=(1, 10)[i // 3 % 2])
        ws = K.position(rules, [hand, hidden[:14]], dealer=1, to_move=0, pile=pile,
                        stock=[drawn, *hidden[14:16]], played=[0, 1])
        rl, kinds, params = K.engine_args(rules, ["expert", "greedy"])
        status, actions, _ = K.play_one_turn(ws, rl, kinds, params)
        assert status == 0 and actions[0] == DrawStock() and len(actions) == 2, actions
        want = expert_discard([*hand, drawn], [], pile, False, False, rules)
        assert C.kind(actions[1].card) == want, (C.format_hand([*hand, drawn]), pile)
        checked += 1
    assert checked == 36
