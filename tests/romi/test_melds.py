"""Römi's exact meld solver (V1-V4 of ``seeds/romi.md``), its cards (D1) and rules (options).

The solver (``simcards.romi.melds_exact``) is checked against two exhaustive searches written here
from the rules alone, in pure Python, sharing nothing with it:

- ``brute``: every partition of the hand into blocks, each block kept only if it is a valid
  meld, the meld judged by trying the joker as each of the 52 cards (M1-M4). Slow; hands of up
  to 10 cards.
- ``by_patterns``: every meld that can exist in the deck is listed once from the definitions
  (sets by rank and suits, runs by suit, first and last place, joker place); a hand's lay-downs
  are the multisets of listed melds that fit in it, searched with a memo. Fast enough for 13-16
  cards. It is checked against ``brute`` on small hands too.

Hands come from two sources: uniform deals from the 108 cards, and dense deals (a few suits, a
narrow band of ranks, both copies, a chosen number of jokers) so that duplicates, jokers and
competing melds are common. The default run checks about 2,000 hands; ``pytest --full``
(``make test-full``) checks 15,000.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import combinations

import numpy as np
import pytest

from simcards.core.errors import UsageError
from simcards.romi import cards as C
from simcards.romi import melds_exact as M
from simcards.romi.melds_kernel import solve_batch
from simcards.romi.rules import RomiRules
from simcards.romi.table_melds_exact import TableMeld, solve_with_table
from tests import sizes

FULL = sizes.FULL
JOKER = "X"

# ---------------------------------------------------------------- the rules, written again


def rank_value(r: int) -> int:
    """M6/M7 outside a low run: numbers face value, J Q K 10, As 10."""
    return 10 if r == 1 or r > 10 else r


def penalty(card) -> int:
    """M7: a joker 20, any other card its rank value."""
    return 20 if card == JOKER else rank_value(card[0])


def plain_value(real: list[tuple[int, int]], ace_low: int) -> int | None:
    """The value of a meld of real (rank, suit) cards, or None if they are no meld (M1, M2)."""
    n = len(real)
    ranks = [r for r, _ in real]
    suits = [s for _, s in real]
    best = None
    if 3 <= n <= 4 and len(set(ranks)) == 1 and len(set(suits)) == n:
        best = n * rank_value(ranks[0])
    if n >= 3 and len(set(suits)) == 1 and len(set(ranks)) == n:
        for ace_place in (1, 14):
            places = sorted(ace_place if r == 1 else r for r in ranks)
            if places[-1] - places[0] == n - 1:
                v = sum(ace_low if p == 1 else rank_value(p) for p in places)
                best = v if best is None else max(best, v)
    return best


@cache
def meld_value(block: tuple, ace_low: int) -> int | None:
    """The value of a block of cards as a meld (M1-M4, M6), or None. A joker is tried as every
    one of the 52 cards; two jokers are never a meld."""
    real = [c for c in block if c != JOKER]
    jokers = len(block) - len(real)
    if jokers > 1:
        return None
    if jokers == 0:
        return plain_value(real, ace_low)
    best = None
    for r in range(1, 14):
        for s in range(4):
            v = plain_value([*real, (r, s)], ace_low)
            if v is not None and (best is None or v > best):
                best = v
    return best


def as_cards(ids) -> list:
    return [JOKER if C.is_joker(int(c)) else (C.rank(int(c)), C.suit(int(c))) for c in ids]


def answers(best_v: int, most_laid: int, used: set[int], cards: list) -> tuple[int, int, bool]:
    total = sum(penalty(c) for c in cards)
    return best_v, total - most_laid, len(cards) - 1 in used


def brute(ids, ace_low: int = 1) -> tuple[int, int, bool]:
    """V1-V3 by trying every partition of the hand into blocks."""
    cards = as_cards(ids)

    def search(rest: tuple) -> tuple[int, int, set[int]]:
        if not rest:
            return 0, 0, {0}
        first, others = rest[0], rest[1:]
        best_v, most, used = search(others)  # the first card left
        used = set(used)
        for size in range(2, min(len(others), 12) + 1):
            for pick in combinations(range(len(others)), size):
                block = (first, *(others[i] for i in pick))
                v = meld_value(tuple(sorted(block, key=str)), ace_low)
                if v is None:
                    continue
                left = tuple(others[i] for i in range(len(others)) if i not in pick)
                bv, bp, bu = search(left)
                best_v = max(best_v, bv + v)
                most = max(most, bp + sum(penalty(c) for c in block))
                used |= {u + len(block) for u in bu}
        return best_v, most, used

    return answers(*search(tuple(cards)), cards)


@cache
def all_melds(ace_low: int) -> list[tuple[tuple[tuple[int, int], ...], int, int, int]]:
    """Every meld the deck allows, as (real cards sorted, jokers, value, penalty laid); one
    entry per multiset of cards with its best value (the joker where it is worth most)."""
    found: dict[tuple, int] = {}

    def add(real: list[tuple[int, int]], jokers: int, value: int) -> None:
        key = (tuple(sorted(real)), jokers)
        found[key] = max(found.get(key, -1), value)

    for r in range(1, 14):  # sets (M1) with at most one joker (M4)
        for size in (2, 3, 4):
            for suits in combinations(range(4), size):
                real = [(r, s) for s in suits]
                if size >= 3:
                    add(real, 0, size * rank_value(r))
                if size <= 3:
                    add(real, 1, (size + 1) * rank_value(r))
    for s in range(4):  # runs (M2): places lo .. hi, 1 and 14 both the As, never both
        for lo in range(1, 13):
            for hi in range(lo + 2, min(14, lo + 12) + 1):
                places = list(range(lo, hi + 1))
                value = sum(ace_low if p == 1 else rank_value(p) for p in places)
                real = [(1 if p == 14 else p, s) for p in places]
                add(real, 0, value)
                for j in range(len(places)):
                    add(real[:j] + real[j + 1:], 1, value)
    return [(real, jk, v, sum(rank_value(r) for r, _ in real) + 20 * jk)
            for (real, jk), v in found.items()]


def by_patterns(ids, ace_low: int = 1) -> tuple[int, int, bool]:
    """V1-V3 by searching the multisets of listed melds that fit in the hand."""
    cards = as_cards(ids)
    have = Counter(c for c in cards if c != JOKER)
    jokers = len(cards) - sum(have.values())
    kinds = sorted(have)
    fits = []
    for real, jk, v, pen in all_melds(ace_low):
        need = Counter(real)
        if jk <= jokers and all(have[c] >= n for c, n in need.items()):
            fits.append((tuple(need.get(c, 0) for c in kinds), jk, v, pen, len(real) + jk))

    @cache
    def search(i: int, counts: tuple[int, ...], jk: int) -> tuple[int, int, int]:
        """(best value, most penalty laid, bit mask of cards used) with melds i, i+1, ..."""
        if i == len(fits):
            return 0, 0, 1
        best_v, most, used = search(i + 1, counts, jk)
        need, mj, v, pen, size = fits[i]
        if mj <= jk and all(c >= n for c, n in zip(counts, need, strict=True)):
            left = tuple(c - n for c, n in zip(counts, need, strict=True))
            bv, bp, bu = search(i, left, jk - mj)  # meld i again, or later ones
            best_v = max(best_v, bv + v)
            most = max(most, bp + pen)
            used |= bu << size
        return best_v, most, used

    best_v, most, used_mask = search(0, tuple(have[c] for c in kinds), jokers)
    used = {u for u in range(len(cards) + 1) if used_mask >> u & 1}
    return answers(best_v, most, used, cards)


# ---------------------------------------------------------------- hands


def uniform_hands(rng: np.random.Generator, n: int, sizes: tuple[int, int]) -> list[list[int]]:
    out = []
    for _ in range(n):
        size = int(rng.integers(sizes[0], sizes[1] + 1))
        out.append([int(c) for c in rng.choice(C.N_CARDS, size, replace=False)])
    return out


def dense_hands(rng: np.random.Generator, n: int, sizes: tuple[int, int]) -> list[list[int]]:
    """Hands from a few suits and a narrow band of ranks (the As often in it, at either end),
    both copies of every card, and 0 to 4 jokers: many melds compete for the same cards."""
    out = []
    for _ in range(n):
        size = int(rng.integers(sizes[0], sizes[1] + 1))
        suits = rng.choice(4, int(rng.integers(1, 5)), replace=False)
        width = int(rng.integers(3, 9))
        lo = int(rng.integers(1, 16 - width))  # places lo .. lo+width-1 within 1 .. 14
        ranks = {1 if p == 14 else p for p in range(lo, lo + width)}
        pool = [C.card_id(r, int(s), copy) for r in ranks for s in suits for copy in (0, 1)]
        jk = min(int(rng.integers(0, 5)), size)
        real = min(size - jk, len(pool))
        hand = [int(c) for c in rng.choice(pool, real, replace=False)]
        out.append(hand + [C.JOKER0 + j for j in range(jk)])
    return out


def solver(hands: list[list[int]], ace_low: int = 1) -> np.ndarray:
    width = max(1, max(len(h) for h in hands))
    arr = np.full((len(hands), width), -1, np.int64)
    for i, h in enumerate(hands):
        arr[i, :len(h)] = h
    return solve_batch(arr, ace_low)


def check_all(hands: list[list[int]], oracle, ace_low: int = 1) -> None:
    got = solver(hands, ace_low)
    for h, row in zip(hands, got, strict=True):
        want = oracle(h, ace_low)
        assert (int(row[0]), int(row[1]), bool(row[2])) == want, C.format_hand(h)


# ---------------------------------------------------------------- V1-V3 against the searches


N_SMALL = {"uniform_hands": 4000 if FULL else 250, "dense_hands": 4000 if FULL else 700}
N_LARGE = {"uniform_hands": 3000 if FULL else 400, "dense_hands": 3000 if FULL else 200}


@pytest.mark.parametrize("source", [uniform_hands, dense_hands])
def test_V1_V2_V3_equal_every_partition_on_small_hands(source) -> None:
    """Hands of 0-10 cards (dense: up to 9): the solver equals the partition search."""
    rng = np.random.default_rng(11 if source is uniform_hands else 12)
    hands = source(rng, N_SMALL[source.__name__], (0, 10) if source is uniform_hands else (3, 9))
    check_all(hands, brute)


def test_V1_V2_V3_the_two_searches_agree_on_small_hands() -> None:
    """The pattern search, used for large hands, equals the partition search where both run."""
    rng = np.random.default_rng(13)
    hands = dense_hands(rng, 300 if FULL else 100, (3, 8))
    for h in hands:
        assert by_patterns(h) == brute(h), C.format_hand(h)


@pytest.mark.parametrize("source", [uniform_hands, dense_hands])
def test_V1_V2_V3_equal_every_lay_down_on_13_to_16_cards(source) -> None:
    rng = np.random.default_rng(21 if source is uniform_hands else 22)
    hands = source(rng, N_LARGE[source.__name__], (13, 16))
    check_all(hands, by_patterns)


@pytest.mark.parametrize("ace_low", [10, 5])
def test_M6_ace_low_value_option_against_every_partition(ace_low: int) -> None:
    rng = np.random.default_rng(30 + ace_low)
    hands = dense_hands(rng, 400 if FULL else 100, (3, 8))
    check_all(hands, brute, ace_low)
    hands = dense_hands(rng, 100 if FULL else 30, (13, 16))
    check_all(hands, by_patterns, ace_low)


# ---------------------------------------------------------------- rules by hand


def answer(hand: str, ace_low: int = 1) -> tuple[int, int, bool]:
    a = M.solve(hand, RomiRules.make(ace_low_value=ace_low))
    return a.best_value, a.min_penalty, a.can_go_out


ALL_HEARTS = "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh"


@pytest.mark.parametrize(("hand", "want"), [
    ("Ah 2h 3h", (6, 0, False)),  # As below the 2: 1 + 2 + 3
    ("Qh Kh Ah", (30, 0, False)),  # As above the King: 10
    ("Kh Ah 2h", (0, 22, False)),  # no wrap
    ("Ah 2h 3h 4h", (10, 0, True)),  # leave Ah or 4h
    (ALL_HEARTS, (94, 0, True)),  # 2 .. A (54 + 40) is worth more than A .. K (85)
    ("Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh", (75, 0, True)),  # A .. Q: 1 + 54 + 20
    # one As per run: A-2-3 and 4 .. A (6 + 89) take every card
    (ALL_HEARTS + " Ah", (95, 0, True)),
    ("5h 6h 7h 5h 6h 7h", (36, 0, False)),  # duplicates in two runs
    ("5h 6s 7h", (0, 18, False)),  # one suit only
])
def test_M2_runs_ace_low_or_high_never_wrapping(hand: str, want) -> None:
    assert answer(hand) == want


@pytest.mark.parametrize(("hand", "want"), [
    ("9s 9h 9d", (27, 0, False)),
    ("9s 9h 9d 9c", (36, 0, True)),
    ("9s 9s 9h", (0, 27, False)),  # two identical cards are never in one set
    ("9s 9s 9h 9d", (27, 9, True)),  # one 9s left
    ("9s 9s 9h 9h 9d 9d", (54, 0, False)),  # two sets of three
    ("As Ah Ad", (30, 0, False)),  # an As in a set is 10
    ("9s 9h", (0, 18, False)),
])
def test_M1_sets_of_distinct_suits(hand: str, want) -> None:
    assert answer(hand) == want


@pytest.mark.parametrize(("hand", "want"), [
    ("9s X X", (0, 49, False)),  # two jokers are never in one meld
    ("9s 9h X X", (27, 20, True)),  # one joker melds, the other is left
    ("5h X X 8h", (0, 53, False)),  # a run needs 5h 6h 7h 8h: two jokers
    ("9s 9h X 5c 6c X", (45, 0, False)),  # one joker in each meld
    ("9s 9h 9d X", (36, 0, True)),  # the joker as the fourth suit
    ("5h 7h X", (18, 0, False)),  # the joker inside a run is the card of its place
])
def test_M4_one_joker_per_meld(hand: str, want) -> None:
    assert answer(hand) == want


@pytest.mark.parametrize(("hand", "ace_low", "value"), [
    ("5h 6h X", 1, 18),  # X as 7h (as 4h: 15)
    ("2h 3h X", 1, 9),  # X as 4h (as the As below: 6)
    ("2h 3h X", 10, 15),  # with ace_low_value 10 the As below is worth more
    ("Ah 2h X", 1, 6),  # X can only be the 3h
    ("Qh Kh X", 1, 30),  # X as Jh or Ah: 10 either way
    ("Ah 2h 3h 4h 7c 7d 7s X 9s", 1, 38),  # E6: X as the fourth 7 (7), not as 5h (5)
    ("Th Jh X 5c 5d", 1, 30),  # X in the run (as 9h or Qh: 30) beats X in the 5s (15 + 20)
])
def test_M6_jokers_stand_where_they_are_worth_most(hand: str, ace_low: int, value: int) -> None:
    assert answer(hand, ace_low)[0] == value


@pytest.mark.parametrize(("hand", "want"), [
    ("Ah 7c Kd X", (0, 47, False)),  # M7: 10 + 7 + 10 + 20
    ("Ah 2h 3h 4h 7c 7d 7s X 9s", (38, 9, True)),  # E6
    # V1 and V2 from different lay-downs: 4h 5h X is worth 15 but leaves As 2s (12);
    # As 2s X is worth 6 and leaves 4h 5h (9).
    ("4h 5h As 2s X", (15, 9, False)),
    ("", (0, 0, False)),
    ("X", (0, 20, True)),  # V3: a one-card hand goes out with its discard
])
def test_M7_V1_V2_V3_penalties_and_values_by_hand(hand: str, want) -> None:
    assert answer(hand) == want


def test_V3_going_out_leaves_exactly_one_card() -> None:
    """E5: 7h 8h 9h Qs Qh Qd 2c goes out (2c discarded); a hand of two melds of three cannot
    (leaving any card breaks a meld), but one more card can be the discard."""
    assert M.can_go_out("7h 8h 9h Qs Qh Qd 2c")
    assert not M.can_go_out("7h 8h 9h Qs Qh Qd")
    assert M.can_go_out("7h 8h 9h Qs Qh Qd Qc")
    assert not M.can_go_out("7h 8h 9h Qs Qh Qd 2c 3c")


def _check_laydown(ids: list[int], laid: list[M.Meld], ace_low: int) -> int:
    """Every meld valid with the value it claims, the joker standing for a card that fits,
    the melds disjoint and from the hand; returns the total value."""
    used: list[int] = []
    total = 0
    for meld in laid:
        block = tuple(sorted(as_cards(meld.cards), key=str))
        assert meld_value(block, ace_low) == meld.value, meld.text()
        jokers = [c for c in meld.cards if C.is_joker(c)]
        if jokers:
            stand = (C.rank(meld.joker_as), C.suit(meld.joker_as))
            real = [c for c in as_cards(meld.cards) if c != JOKER]
            assert plain_value([*real, stand], ace_low) == meld.value, meld.text()
        else:
            assert meld.joker_as is None
        used.extend(meld.cards)
        total += meld.value
    assert len(used) == len(set(used)) and set(used) <= set(ids)
    return total


def test_V4_melds_is_a_lay_down_reaching_best_value() -> None:
    rng = np.random.default_rng(41)
    hands = dense_hands(rng, 150, (3, 16)) + uniform_hands(rng, 50, (10, 16))
    for ace_low in (1, 10):
        rules = RomiRules.make(ace_low_value=ace_low)
        for h in hands:
            laid = M.melds(h, rules)
            assert _check_laydown(h, laid, ace_low) == M.best_value(h, rules), C.format_hand(h)


def test_V4_melds_text_shows_the_joker() -> None:
    assert [m.text() for m in M.melds("5h 7h X")] == ["5h X 7h (X=6h)"]
    assert [m.text() for m in M.melds("Qh Kh Ah")] == ["Qh Kh Ah"]
    assert [m.text() for m in M.melds("Ah 2h 3h")] == ["Ah 2h 3h"]


def test_V1_hands_of_more_than_16_cards_are_refused() -> None:
    with pytest.raises(UsageError, match="at most 16"):
        M.solve(ALL_HEARTS + " 2s 3s 4s 5s")


# ---------------------------------------------------------------- cards (D1) and rules


def test_D1_card_ids_follow_the_shared_rummy108_deck() -> None:
    deck = C.DECK
    assert len(deck) == C.N_CARDS == 108
    for card in range(104):
        assert deck.values[card] == C.rank(card)
        assert deck.suit_names[deck.suits[card]][0] == C.SUIT_CHARS[C.suit(card)]
    assert all(deck.suit_names[deck.suits[c]] == "joker" for c in range(104, 108))
    counts = Counter(C.kind(c) for c in range(108))
    assert counts[C.JOKER_KIND] == 4 and all(counts[k] == 2 for k in range(52))


def test_D1_parse_and_format_round_trip() -> None:
    ids = C.parse_hand("Ah 2h 3h 7c 7d 7s X")
    assert C.format_hand(ids) == "Ah 2h 3h 7c 7d 7s X"
    ten = C.parse_hand("10h tH")
    assert ten == [C.card_id(10, 1, 0), C.card_id(10, 1, 1)]
    assert C.parse_hand("x X") == [104, 105]
    assert C.parse_hand("ah AH") == [C.card_id(1, 1, 0), C.card_id(1, 1, 1)]
    assert C.parse_hand("  ") == []
    every = list(range(108))
    assert C.parse_hand(C.format_hand(every)) == every


@pytest.mark.parametrize(("text", "message"), [
    ("Ah 2h 1h", "malformed card '1h'"),
    ("Ahh", "malformed card 'Ahh'"),
    ("Zs", "malformed card 'Zs'"),
    ("Ah 2", "malformed card '2'"),
    ("7c 7c 7C", "more than two of 7c"),
    ("X X X X X", "more than 4 jokers"),
    ("Th 10h tH", "more than two of Th"),
])
def test_D1_malformed_hands_are_one_line_errors(text: str, message: str) -> None:
    with pytest.raises(UsageError) as err:
        C.parse_hand(text)
    assert message in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(UsageError):
        M.solve(text)


def test_D1_card_ids_are_checked() -> None:
    with pytest.raises(UsageError, match="appears twice"):
        M.solve([3, 3, 4])
    with pytest.raises(UsageError, match="outside"):
        M.solve([108])


def test_options_defaults_and_validation() -> None:
    r = RomiRules.make()
    assert (r.players, r.rounds, r.open_min, r.ace_low_value) == (4, 7, 51, 1)
    assert RomiRules.make(players="5", rounds="3", open_min=70, ace_low_value=10).players == 5
    assert r.hand_sizes(dealer=3) == (15, 14, 14, 14)  # D4: the seat on the dealer's left
    for bad in ({"players": 6}, {"players": 1}, {"rounds": 0}, {"open_min": 0},
                {"ace_low_value": 0}, {"ace_low_value": 11}, {"players": "four"}):
        with pytest.raises(UsageError) as err:
            RomiRules.make(**bad)
        assert "\n" not in str(err.value)


# ---------------------------------------------------------------- V5: with melds on the table


def brute_with_table(ids, table: list[list[int]], ace_low: int = 1) -> tuple[int, int, bool]:
    """V5 for table melds without jokers, by trying every destination of every hand card: left,
    added to a table meld, or in a new block. A table meld with additions must still be a meld;
    what the additions are worth is the meld's value after minus before."""
    cards = as_cards(ids)
    tables = [tuple(as_cards(t)) for t in table]
    before = [meld_value(tuple(sorted(t, key=str)), ace_low) for t in tables]

    def search(rest: tuple, added: tuple) -> tuple[int, int, set[int]]:
        if not rest:
            gained = 0
            for t, a, b in zip(tables, added, before, strict=True):
                if a:
                    v = meld_value(tuple(sorted(t + a, key=str)), ace_low)
                    if v is None:
                        return -1, -1, set()
                    gained += v - b
            return gained, 0, {0}
        first, others = rest[0], rest[1:]
        best_v, most, used = search(others, added)
        used = set(used)
        for i in range(len(tables)):
            grown = tuple((*a, first) if j == i else a for j, a in enumerate(added))
            bv, bp, bu = search(others, grown)
            if bv >= 0:
                best_v = max(best_v, bv)
                most = max(most, bp + penalty(first))
                used |= {u + 1 for u in bu}
        for size in range(2, min(len(others), 12) + 1):
            for pick in combinations(range(len(others)), size):
                block = (first, *(others[i] for i in pick))
                v = meld_value(tuple(sorted(block, key=str)), ace_low)
                if v is None:
                    continue
                left = tuple(others[i] for i in range(len(others)) if i not in pick)
                bv, bp, bu = search(left, added)
                if bv >= 0:
                    best_v = max(best_v, bv + v)
                    most = max(most, bp + sum(penalty(c) for c in block))
                    used |= {u + len(block) for u in bu}
        return best_v, most, used

    return answers(*search(tuple(cards), tuple(() for _ in tables)), cards)


def _table_deal(rng: np.random.Generator) -> tuple[list[int], list[list[int]]]:
    """One or two jokerless table melds and a hand of 1-7 cards around them."""
    s = int(rng.integers(4))
    lo = int(rng.integers(1, 11))
    run = [C.card_id(1 if p == 14 else p, s) for p in range(lo, lo + 3)]
    r = int(rng.integers(1, 14))
    suits = rng.choice([x for x in range(4) if x != s], 3, replace=False)  # no card twice
    group = [C.card_id(r, int(x)) for x in suits]
    table = [run, group] if rng.random() < 0.6 else [run]
    used = {c % 52 for t in table for c in t}
    pool = [C.card_id(p, s2, 1) for s2 in range(4) for p in range(1, 14)
            if (s2 == s and ((p <= lo + 4 and p + 2 >= lo) or p == 1)) or p == r]
    pool += [C.card_id(p, s2) for s2 in range(4) for p in range(1, 14)
             if C.card_id(p, s2) % 52 not in used and (s2 == s or p == r)]
    n = int(rng.integers(1, 8))
    hand = [int(c) for c in rng.choice(pool, min(n, len(pool)), replace=False)]
    hand += [C.JOKER0 + j for j in range(int(rng.integers(0, 3)))]
    return hand[:7], table


def test_V5_additions_equal_every_destination_of_every_card() -> None:
    """Jokerless table melds: the table search equals trying every card in every place."""
    rng = np.random.default_rng(51)
    for _ in range(400 if FULL else 120):
        hand, table = _table_deal(rng)
        got = solve_with_table(hand, [C.format_hand(t) for t in table])
        want = brute_with_table(hand, table)
        assert (got.best_value, got.min_penalty, got.can_go_out) == want, \
            (C.format_hand(hand), [C.format_hand(t) for t in table])


def test_V5_an_empty_table_gives_V1_V3() -> None:
    rng = np.random.default_rng(52)
    hands = dense_hands(rng, 150, (3, 12)) + uniform_hands(rng, 50, (13, 16))
    for h in hands:
        assert solve_with_table(h, []) == M.solve(h), C.format_hand(h)


@pytest.mark.parametrize(("hand", "table", "want"), [
    ("8h 2c", ["5h 6h 7h"], (8, 2, True)),  # T6: added at the top of a run
    ("Ah 3c", ["Jh Qh Kh"], (10, 3, True)),  # the As above the King
    ("Ah", ["2h 3h 4h"], (1, 0, True)),  # the As below the 2
    ("Ah 3c", ["2h 3h 4h", "Jh Qh Kh"], (10, 3, True)),  # either end: the higher value
    ("7s 2c", ["7c 7d X"], (7, 2, True)),  # a set of three with a joker takes a fourth card
    # J2: the joker of a set with two real cards stays; 4c 5c cannot use it
    ("7s 4c 5c", ["7c 7d X"], (7, 9, False)),
    # add 7h (three real suits), then swap the X for 7s and lay it with 4c 5c (X as 6c)
    ("7s 7h 4c 5c", ["7c 7d X"], (29, 0, False)),
    # J1: the X of a run is taken with 6h and must be laid again: only the run itself takes it
    ("6h 2c 9d", ["5h X 7h"], (14, 11, False)),
    # J3: 7s would free the X, which no meld could take: no swap, 7s stays
    ("7s 2c 9d", ["7c 7d 7h X"], (0, 18, False)),
    ("Jh", ["Qh Kh X=Ah"], (10, 0, True)),
    ("Ah", ["Qh Kh X=Ah"], (20, 0, True)),  # swap, then the X below as Jh
])
def test_V5_additions_and_joker_swaps_by_hand(hand: str, table: list[str], want) -> None:
    got = solve_with_table(hand, table)
    assert (got.best_value, got.min_penalty, got.can_go_out) == want


@pytest.mark.parametrize(("meld", "message"), [
    ("Qh Kh X", "say which card"),
    ("5h 6s 7h", "no meld"),
    ("X X 5h", "no meld"),
    ("7c 7d X=7c", "missing suit"),
    ("Ah 2h X=Kh", "cannot stand for Kh"),
])
def test_V5_table_melds_are_checked(meld: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        TableMeld.parse(meld)


@pytest.mark.parametrize(("meld", "lo", "hi", "joker"), [
    ("3h 4h 5h 6h 7h 8h 9h Th Jh Qh X=Kh Ah", 3, 14, 13),  # the As above the King
    ("Ah X 3h", 1, 3, 2),  # the As below the 2
    ("Qh Kh X=Ah", 12, 14, 14),
])
def test_M2_M4_table_runs_read_the_as_low_or_high_whichever_fits(meld, lo, hi, joker) -> None:
    m = TableMeld.parse(meld)
    assert (m.is_run, m.lo, m.hi, m.joker) == (True, lo, hi, joker)


def test_V5_hand_and_table_share_the_deck() -> None:
    with pytest.raises(UsageError, match="more than two"):
        solve_with_table("7c 7c", ["7c 7d 7h"])


# ---------------------------------------------------------------- worked examples


@pytest.mark.parametrize(("hand", "value"), [
    ("Js Jh Jd 8c 9c Tc", 57),
    ("Ah 2h 3h Qs Ks As 7c 7d 7s", 57),
    ("Tc Jc Qc 5s 5h 5d", 45),
    ("7h 8h 9h Qs Qh Qd", 54),  # E5
])
def test_E3_E5_opening_values(hand: str, value: int) -> None:
    """O1 counts M6 values: these hands open with 51 exactly when their value is 51 or more."""
    assert M.best_value(hand) == value


def test_E6_solver_example() -> None:
    assert answer("Ah 2h 3h 4h 7c 7d 7s X 9s") == (38, 9, True)
    assert answer("Kh Ah 2h") == (0, 22, False)
    assert sorted(m.text() for m in M.melds("Ah 2h 3h 4h 7c 7d 7s X 9s")) == \
        ["7s 7d 7c X (X=7h)", "Ah 2h 3h 4h"]
