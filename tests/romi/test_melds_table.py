"""The meld solver with melds on the table (V5 of ``seeds/romi.md``): the lay-down it gives, the
additions and joker swaps it lists (T6, J1-J3, M4), and ``simcards romi melds --table``.

The lay-downs are checked by playing them out on a table kept here as plain lists of cards in
meld order, with a meld checker written again from M1-M4 (sharing nothing with the solver):
every move must leave a valid meld, a swap must give the card the joker stands for (J1) and a
set's joker only once the set has three real suits (J2), every freed joker must be laid again
(J3), the cards must be the hand's, and the value of what is laid, counted at the places the
cards take at the end, must be ``best_value``. On small positions (jokers on the table in
about half), V5's numbers and the swaps listed are checked against every sequence of moves
played on that same plain table.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import combinations

import pytest

from simcards.core.cli import main
from simcards.core.errors import UsageError
from simcards.romi import cards as C
from simcards.romi import melds_exact as M
from simcards.romi.rules import RomiRules
from simcards.romi.table_melds_exact import (
    Addition,
    JokerSwap,
    NewMeld,
    TableMeld,
    answer_with_table,
    solve_with_table,
)

J = C.JOKER_KIND

# ---------------------------------------------------------------- M1-M4 written again
# A meld is a list of tokens in meld order (a run from its low end): (kind, by_hand), the kind
# J for a joker. by_hand marks what the player laid in this lay-down (it counts in V5).


def rank_value(r: int) -> int:
    return 10 if r == 1 or r > 10 else r


def run_places(meld: list[tuple[int, bool]]) -> tuple[int, int] | None:
    """(suit, lowest place) if the tokens are a run (M2, M4), places 1 .. 14 (1 and 14 the
    As), else None. An As is below the 2 when it comes first, above the King otherwise."""
    real = [(i, k) for i, (k, _) in enumerate(meld) if k != J]
    if len({k // 13 for _, k in real}) != 1:
        return None
    s = real[0][1] // 13
    i, k = real[0]
    r = k % 13 + 1
    place = (1 if i == 0 else 14) if r == 1 else r
    lo = place - i
    if lo < 1 or lo + len(meld) - 1 > 14 or len(meld) > 13:
        return None
    for j, (k2, _) in enumerate(meld):
        p = lo + j
        if k2 != J and k2 != s * 13 + (p - 1) % 13:
            return None
    return s, lo


def check_meld(meld: list[tuple[int, bool]]) -> str:
    """'set' or 'run' if the tokens are a valid meld (M1-M4); AssertionError otherwise."""
    kinds = [k for k, _ in meld]
    real = [k for k in kinds if k != J]
    assert len(kinds) >= 3 and len(kinds) - len(real) <= 1 and len(real) >= 2, kinds
    ranks = {k % 13 for k in real}
    if len(ranks) == 1 and len({k // 13 for k in real}) == len(real) and len(kinds) <= 4:
        return "set"
    assert run_places(meld) is not None, [C.kind_text(k) for k in kinds]
    return "run"


def laid_value(meld: list[tuple[int, bool]], ace_low: int) -> int:
    """M6 of the tokens the player laid, at the places they take in the finished meld."""
    if check_meld(meld) == "set":
        r = next(k for k, _ in meld if k != J) % 13 + 1
        return rank_value(r) * sum(by_hand for _, by_hand in meld)
    _, lo = run_places(meld)
    return sum((ace_low if lo + j == 1 else rank_value((lo + j - 1) % 13 + 1))
               for j, (_, by_hand) in enumerate(meld) if by_hand)


def joker_stands_for(meld: list[tuple[int, bool]]) -> int | None:
    """What the joker of a run stands for (its place), or of a set with three real suits (the
    fourth); None for a set of two real cards and a joker (J2: not to be taken)."""
    j = next(i for i, (k, _) in enumerate(meld) if k == J)
    if check_meld(meld) == "run":
        s, lo = run_places(meld)
        return s * 13 + (lo + j - 1) % 13
    real = [k for k, _ in meld if k != J]
    if len(real) < 3:
        return None
    return next(s for s in range(4) if s not in {k // 13 for k in real}) * 13 + real[0] % 13


def tokens(text: str) -> list[tuple[int, bool]]:
    """Table meld text (jokers ``X`` or ``X=card``) as tokens in the order written."""
    return [(J if t.upper().startswith("X") else C.kind(C.parse_hand(t)[0]), False)
            for t in text.split()]


def play_out(hand: list[int], table: list[str], a, ace_low: int = 1) -> list[list]:
    """Plays the lay-down ``a.laydown`` on the table move by move, checking every move (T6,
    J1-J3, M1-M4) and the cards used; returns the table after it."""
    melds = [tokens(t) for t in table]
    pool = Counter(C.kind(c) for c in hand)
    freed = 0
    joker_to: list[int] = []
    for step in a.laydown:
        if isinstance(step, JokerSwap):
            meld = melds[step.meld]
            assert joker_stands_for(meld) == step.card == step.joker_as  # J1, J2
            assert pool[step.card] > 0
            pool[step.card] -= 1
            j = next(i for i, (k, _) in enumerate(meld) if k == J)
            meld[j] = (step.card, True)
            freed += 1
            joker_to.append(step.joker_to)
            check_meld(meld)
            continue
        if isinstance(step, Addition):
            cards = [step.card]
            target = step.meld
        else:
            assert isinstance(step, NewMeld) and step.meld == len(melds)
            cards = list(step.cards)
            target = None
        for k in cards:
            if k == J and freed:
                freed -= 1  # a freed joker is laid first (J3)
            else:
                assert pool[k] > 0, C.kind_text(k)
                pool[k] -= 1
        if target is None:
            melds.append([(k, True) for k in step.cards])
            check_meld(melds[-1])
            if step.joker_as is not None:
                j = step.cards.index(J)
                if check_meld(melds[-1]) == "run":
                    s, lo = run_places(melds[-1])
                    assert step.joker_as == s * 13 + (lo + j - 1) % 13
            continue
        meld = melds[target]
        if step.place == "low":
            meld.insert(0, (step.card, True))
        else:
            meld.append((step.card, True))
        assert check_meld(meld) == ("set" if step.place == "set" else "run")
        if step.card == J and step.place != "set":
            s, lo = run_places(meld)
            at = lo if step.place == "low" else lo + len(meld) - 1
            assert step.stands_for == s * 13 + (at - 1) % 13
    assert freed == 0  # J3: every freed joker laid again
    for to in joker_to:
        assert any(k == J and by for k, by in melds[to])
    left = Counter(a.left)
    assert +pool == left, (pool, left)
    assert left[J] <= Counter(C.kind(c) for c in hand)[J]  # a freed joker is never left
    return melds


def check_answer(hand: list[int], table: list[str], ace_low: int = 1):
    """The witness of V5 is legal, worth best_value, and leaves penalty_left >= min_penalty;
    the additions listed are every card that fits a table meld on its own (T6); the swaps
    listed give the joker's card (J1, J2) and include those of the witness. Returns the
    answer."""
    rules = RomiRules.make(ace_low_value=ace_low)
    a = answer_with_table(hand, table, rules)
    assert a.numbers() == solve_with_table(hand, table, rules)
    melds = play_out(hand, table, a, ace_low)
    assert sum(laid_value(m, ace_low) for m in melds) == a.best_value, \
        (C.format_hand(hand), table, a.laydown)
    pen = sum(20 if k == J else rank_value(k % 13 + 1) for k in a.left)
    assert pen == a.penalty_left >= a.min_penalty
    if a.can_go_out:
        assert a.min_penalty <= max(20 if C.is_joker(c) else rank_value(C.rank(c)) for c in hand)
    # T6: the single additions, by trying every card of the hand at every place
    want = set()
    held = {C.kind(c) for c in hand}
    for m, text in enumerate(table):
        for k in held:
            for place in ("low", "high", "set"):
                meld = tokens(text)
                if place == "low":
                    meld.insert(0, (k, True))
                else:
                    meld.append((k, True))
                try:
                    kind = check_meld(meld)
                except AssertionError:
                    continue
                if (kind == "set") == (place == "set"):
                    want.add((k, m, place))
    assert {(x.card, x.meld, x.place) for x in a.additions} == want
    # J1, J2: a swap listed gives the card the joker stands for; a set of two real cards and
    # a joker only once the hand has added its third suit
    for s in a.swaps:
        meld = tokens(table[s.meld])
        stands = joker_stands_for(meld)
        assert s.card in held and s.card == s.joker_as
        if stands is None:
            real = [k for k, _ in meld if k != J]
            third = [k % 13 + 13 * x for x in range(4) for k in real[:1]
                     if x not in {r // 13 for r in real} and k % 13 + 13 * x != s.card]
            assert len(third) == 1 and third[0] in held and s.card % 13 == real[0] % 13
        else:
            assert stands == s.card
    listed = {(s.meld, s.card) for s in a.swaps}
    assert all((s.meld, s.card) in listed for s in a.laydown if isinstance(s, JokerSwap))
    return a


# ---------------------------------------------------------------- hand-written situations


def answer(hand: str, table: list[str], ace_low: int = 1):
    return check_answer(C.parse_hand(hand), table, ace_low)


def steps(a) -> list[str]:
    """The lay-down as short lines: ``+8h>0 high``, ``6h<>X 0 to 1``, ``new 2: 4c 5c X=6c``."""
    out = []
    for s in a.laydown:
        if isinstance(s, Addition):
            out.append(f"+{s.card_text()}>{s.meld} {s.place}")
        elif isinstance(s, JokerSwap):
            out.append(f"{C.kind_text(s.card)}<>X {s.meld} to {s.joker_to}")
        else:
            out.append(f"new {s.meld}: {s.text()}")
    return out


@pytest.mark.parametrize(("hand", "table", "ace_low", "want", "lay"), [
    ("4h 2c", ["5h 6h 7h"], 1, (4, 2, True), ["+4h>0 low"]),
    ("8h 2c", ["5h 6h 7h"], 1, (8, 2, True), ["+8h>0 high"]),
    ("4h 8h 2c", ["5h 6h 7h"], 1, (12, 2, True), ["+4h>0 low", "+8h>0 high"]),
    ("Ah 2c", ["2h 3h 4h"], 1, (1, 2, True), ["+Ah>0 low"]),  # the As below the 2 (M6)
    ("Ah 2c", ["2h 3h 4h"], 5, (5, 2, True), ["+Ah>0 low"]),
    ("Ah 2c", ["Jh Qh Kh"], 1, (10, 2, True), ["+Ah>0 high"]),  # the As above the King
    # 2 .. K takes the As at either end; above the King it is worth 10
    ("Ah 2c", ["2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh"], 1, (10, 2, True), ["+Ah>0 high"]),
    ("X 2c", ["5h 6h 7h"], 1, (8, 2, True), ["+X=8h>0 high"]),  # M4: the joker where it is best
])
def test_T6_a_card_added_at_either_end_of_a_run(hand, table, ace_low, want, lay) -> None:
    a = answer(hand, table, ace_low)
    assert (a.best_value, a.min_penalty, a.can_go_out) == want
    assert steps(a) == lay


def test_T6_every_end_a_run_takes_is_listed() -> None:
    a = answer("Ah 4h 8h X 9c", ["2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh", "5h 6h 7h"])
    assert [(x.card_text(), x.meld, x.place) for x in a.additions] == [
        ("Ah", 0, "low"), ("X=Ah", 0, "low"),  # the As at either end of 2 .. K
        ("Ah", 0, "high"), ("X=Ah", 0, "high"),
        ("4h", 1, "low"), ("X=4h", 1, "low"), ("8h", 1, "high"), ("X=8h", 1, "high")]


def test_T6_M1_a_set_takes_its_fourth_suit_and_no_fifth() -> None:
    a = answer("7s 2c", ["7h 7d 7c"])
    assert (a.best_value, a.min_penalty, a.can_go_out) == (7, 2, True)
    assert steps(a) == ["+7s>0 set"]
    assert [(x.card_text(), x.meld, x.place) for x in a.additions] == [("7s", 0, "set")]
    a = answer("X 2c", ["7h 7d 7c"])  # a joker as the fourth suit
    assert steps(a) == ["+X=7s>0 set"] and a.best_value == 7
    a = answer("7s X 2c", ["7s 7h 7d 7c"])  # four suits: full (M1)
    assert (a.best_value, a.min_penalty, a.additions) == (0, 29, ())


def test_M4_a_meld_holding_a_joker_takes_no_second_one() -> None:
    a = answer("X 2c", ["5h X 7h", "7s 7h 7d X"])
    assert (a.best_value, a.min_penalty, a.can_go_out, a.additions) == (0, 22, False, ())
    a = answer("X 4h 2c", ["5h X 7h"])  # a real card still fits
    assert steps(a) == ["+4h>0 low"]


def test_J1_a_joker_is_swapped_out_of_a_run_and_laid_again() -> None:
    a = answer("6h 9c", ["5h X 7h"])
    assert (a.best_value, a.min_penalty, a.can_go_out) == (14, 9, True)  # 6h, then X as 8h
    assert steps(a) == ["6h<>X 0 to 0", "+X=8h>0 high"]
    assert [(s.meld, C.kind_text(s.card), C.kind_text(s.joker_as)) for s in a.swaps] == \
        [(0, "6h", "6h")]
    a = answer("Ah", ["Qh Kh X=Ah"])  # the As takes the joker's place, the joker goes below
    assert steps(a) == ["Ah<>X 0 to 0", "+X=Jh>0 low"] and a.best_value == 20


def test_J2_the_joker_of_a_set_of_three_is_refused() -> None:
    """``7h 7d X``: the X could stand for 7s, but two real suits keep it on the table. 7s is
    only added (X is then 7c); taking the X for 5c 6c X would be worth 25."""
    a = answer("7s 5c 6c", ["7h 7d X"])
    assert (a.best_value, a.min_penalty, a.can_go_out) == (7, 11, False)
    assert steps(a) == ["+7s>0 set"] and a.swaps == ()


def test_J2_the_joker_of_a_set_with_three_real_suits_is_taken() -> None:
    a = answer("7c 5c 6c 2d", ["7s 7h 7d X"])
    assert (a.best_value, a.min_penalty, a.can_go_out) == (25, 2, True)  # 7c + 5c 6c X=7c
    assert steps(a) == ["7c<>X 0 to 1", "new 1: 5c 6c X=7c"]
    assert [(s.meld, C.kind_text(s.card)) for s in a.swaps] == [(0, "7c")]


def test_J2_a_set_given_its_third_suit_then_gives_up_its_joker() -> None:
    a = answer("7s 7h 4c 5c", ["7c 7d X"])
    assert (a.best_value, a.min_penalty, a.can_go_out) == (29, 0, False)
    assert steps(a) == ["+7s>0 set", "7h<>X 0 to 1", "new 1: 4c 5c X=6c"]
    # either missing suit may come first and the other take the joker
    assert sorted(C.kind_text(s.card) for s in a.swaps) == ["7h", "7s"]


def test_J3_a_freed_joker_must_be_laid_again() -> None:
    """7c could take the X of the full set, but nothing could take the X back: no swap."""
    a = answer("7c 2d 9s", ["7s 7h 7d X"])
    assert (a.best_value, a.min_penalty, a.can_go_out) == (0, 18, False)
    assert a.laydown == () and a.swaps == ()
    a = answer("7c 2d 9s", ["7s 7h 7d X", "4h 5h 6h"])  # now the run takes it, as 7h
    assert (a.best_value, a.min_penalty, a.can_go_out) == (14, 11, False)
    assert steps(a) == ["7c<>X 0 to 1", "+X=7h>1 high"]
    assert [(s.meld, C.kind_text(s.card)) for s in a.swaps] == [(0, "7c")]


def test_V5_going_out_only_through_the_table() -> None:
    hand = "8h 2c 3s"
    assert not M.can_go_out(hand)
    a = answer(hand, ["5h 6h 7h", "2s 2h 2d"])
    assert (a.best_value, a.min_penalty, a.can_go_out) == (10, 3, True)
    assert steps(a) == ["+8h>0 high", "+2c>1 set"] and a.left == (C.kind(C.parse_hand("3s")[0]),)


def test_V5_the_lay_down_reaching_best_value_leaves_the_least_penalty() -> None:
    """``Ts Th Td`` takes Tc or a joker standing for Tc, 10 points either way: the lay-down
    given lays the joker and keeps Tc (10 left, not 20)."""
    a = answer("X Tc", ["Ts Th Td"])
    assert (a.best_value, a.min_penalty, a.can_go_out) == (10, 10, True)
    assert steps(a) == ["+X=Tc>0 set"] and a.penalty_left == 10
    assert a.left == (C.kind(C.parse_hand("Tc")[0]),)


# ---------------------------------------------------------------- random positions


def _meld_text(m: M.Meld) -> str:
    return " ".join("X=" + C.kind_text(m.joker_as) if C.is_joker(c) else C.card_text(c)
                    for c in m.cards)


def random_position(rng: random.Random) -> tuple[list[int], list[str]]:
    """A shuffled deck: the whole deck, or both copies of two suits and the four jokers (so
    that table and hand meet often). Table melds are the best lay-downs of 16-card chunks
    (V4), 0 to 6 of them; the hand the next 1 to 16 cards."""
    if rng.random() < 0.5:
        deck = list(range(C.N_CARDS))
    else:
        suits = rng.sample(range(4), 2)
        deck = [cp * 52 + s * 13 + r for cp in (0, 1) for s in suits for r in range(13)]
        deck += [C.JOKER0 + j for j in range(C.N_JOKERS)]
    rng.shuffle(deck)
    want = rng.randint(0, 6)
    table: list[str] = []
    pos = 0
    while len(table) < want and pos + 16 + 16 <= len(deck):
        table += [_meld_text(m) for m in M.melds(deck[pos:pos + 16])]
        pos += 16
    return deck[pos:pos + rng.randint(1, 16)], table[:want]


def test_V5_witness_lay_downs_are_legal_and_reach_best_value() -> None:
    """300 positions from random decks: the witness, played out, leaves valid melds (M1-M4)
    after every move, respects J1-J3, uses the hand's cards and is worth best_value; the
    additions listed are exactly those found by trying every card at every place (T6)."""
    rng = random.Random(20261130)
    swaps = adds = 0
    for _ in range(300):
        hand, table = random_position(rng)
        a = check_answer(hand, table, ace_low=rng.choice((1, 1, 5)))
        swaps += any(isinstance(s, JokerSwap) for s in a.laydown)
        adds += any(isinstance(s, Addition) for s in a.laydown)
    assert swaps >= 30 and adds >= 100  # the positions do exercise the table


def valid(meld: tuple[tuple[int, bool], ...]) -> bool:
    try:
        check_meld(list(meld))
    except AssertionError:
        return False
    return True


def orders(pick: tuple[int, ...]) -> set[tuple[int, ...]]:
    """The orders in which cards could make a meld: the real cards by rank (the As first or
    last), a joker at any point among them; which are melds ``valid`` decides. None with two
    jokers (M4)."""
    real = [k for k in pick if k != J]
    out: set[tuple[int, ...]] = set()
    if len(pick) - len(real) > 1:
        return out
    for ace in (1, 14):
        line = sorted(real, key=lambda k: ace if k % 13 == 0 else k % 13 + 1)
        if len(real) == len(pick):
            out.add(tuple(line))
        else:
            out |= {(*line[:i], J, *line[i:]) for i in range(len(line) + 1)}
    return out


def every_move_sequence(hand: list[int], table: list[str], ace_low: int = 1
                        ) -> tuple[tuple[int, int, bool], set[tuple[int, int]]]:
    """V5 and the possible swaps by playing every sequence of moves on small positions: add a
    card of the hand (or a freed joker) at either end of any meld, swap a joker that was on the
    table for the card it stands for (J1, J2), lay any valid new meld of 3 to 5 cards. A final
    position counts when every freed joker is laid again (J3); its value is what was laid, at
    the places the cards end in. Returns (best_value, min_penalty, can_go_out) and every
    (meld, card) swap made on the way to a final position."""
    start = (tuple(tuple(tokens(t)) for t in table), tuple(sorted(C.kind(c) for c in hand)),
             0, frozenset())
    seen = set()
    best_v, least, out = -1, 10**9, False
    swaps: set[tuple[int, int]] = set()
    stack = [start]
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        melds, held, freed, done = state
        if freed == 0:
            best_v = max(best_v, sum(laid_value(list(m), ace_low) for m in melds))
            least = min(least, sum(20 if k == J else rank_value(k % 13 + 1) for k in held))
            out |= len(held) == 1
            swaps |= done
        for k in set(held) | ({J} if freed else set()):
            rest, free2 = held, freed
            if k == J and freed:
                free2 -= 1  # the jokers are alike: a freed one is laid first
            else:
                rest = list(held)
                rest.remove(k)
                rest = tuple(rest)
            for i, m in enumerate(melds):
                for grown in (((k, True), *m), (*m, (k, True))):
                    if valid(grown):
                        stack.append(((*melds[:i], grown, *melds[i + 1:]), rest, free2, done))
        for i, m in enumerate(melds[:len(table)]):
            if any(k == J and not by for k, by in m):
                card = joker_stands_for(list(m))
                if card is not None and card in held:
                    rest = list(held)
                    rest.remove(card)
                    swapped = tuple((card, True) if k == J else (k, by) for k, by in m)
                    stack.append(((*melds[:i], swapped, *melds[i + 1:]), tuple(rest),
                                  freed + 1, done | {(i, card)}))
        pool = list(held) + [J] * freed
        for size in (3, 4, 5):
            for pick in set(combinations(sorted(pool), size)):
                rest, free2 = list(held), freed
                for k in pick:
                    if k == J and free2:
                        free2 -= 1
                    else:
                        rest.remove(k)
                for order in orders(pick):
                    new = tuple((k, True) for k in order)
                    if valid(new):
                        stack.append(((*melds, new), tuple(rest), free2, done))
    return (best_v, least, out), swaps


def test_V5_J1_J3_numbers_and_swaps_equal_every_sequence_of_moves() -> None:
    """600 small positions (1 to 6 cards, 1 to 3 table melds, jokers on the table in about
    half) from decks of two suits and the jokers: V5's numbers and the swaps listed equal those
    of every sequence of moves."""
    rng = random.Random(12)
    with_swaps = 0
    for _ in range(600):
        suits = rng.sample(range(4), 2)
        deck = [cp * 52 + s * 13 + r for cp in (0, 1) for s in suits for r in range(13)]
        deck += [C.JOKER0 + j for j in range(C.N_JOKERS)]
        rng.shuffle(deck)
        table = [_meld_text(m) for m in M.melds(deck[:16])]
        rng.shuffle(table)
        table = table[:rng.randint(1, 3)]
        hand = deck[16:16 + rng.randint(1, 6)]
        a = answer_with_table(hand, table)
        want, swaps = every_move_sequence(hand, table)
        assert (a.best_value, a.min_penalty, a.can_go_out) == want, (C.format_hand(hand), table)
        assert {(s.meld, s.card) for s in a.swaps} == swaps, (C.format_hand(hand), table)
        with_swaps += bool(swaps)
    assert with_swaps >= 30


def test_V5_with_an_empty_table_the_witness_is_a_V4_lay_down() -> None:
    rng = random.Random(7)
    for _ in range(100):
        hand = rng.sample(range(C.N_CARDS), rng.randint(3, 14))
        a = answer_with_table(hand, [])
        assert a.numbers() == M.solve(hand)
        assert all(isinstance(s, NewMeld) for s in a.laydown)
        assert sum(s.value for s in a.laydown) == a.best_value


# ---------------------------------------------------------------- the command


TABLE = "5h X 7h; 7c 7d 7s X; Qh Kh X=Ah"


def _json(capsys, argv: list[str]) -> dict:
    assert main(["romi", "melds", "--json", *argv]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_V5_command_with_hand_and_table(capsys) -> None:
    out = _json(capsys, ["--hand", "6h 7h Ah 4c 5c 2d", "--table", TABLE])
    assert out["table"] == ["5h X=6h 7h", "7s 7d 7c X=7h", "Qh Kh X=Ah"]
    (row,) = out["hands"]
    a = answer_with_table("6h 7h Ah 4c 5c 2d", [t.strip() for t in TABLE.split(";")])
    assert (row["best_value"], row["min_penalty"], row["can_go_out"]) == \
        (a.best_value, a.min_penalty, a.can_go_out)
    # 6h, 7h and Ah each take a joker (23); the three jokers go as 8h (8), as 6c with 4c 5c
    # (15) and as Jh (10); 2d is left
    assert (row["best_value"], row["min_penalty"], row["can_go_out"]) == (56, 2, True)
    assert row["swaps"] == [{"meld": 0, "card": "6h", "joker_as": "6h"},
                            {"meld": 1, "card": "7h", "joker_as": "7h"},
                            {"meld": 2, "card": "Ah", "joker_as": "Ah"}]
    assert row["additions"] == []  # the runs' ends are 4h, 8h, Jh; the set is full
    actions = [s["action"] for s in row["melds"]]
    assert actions.count("swap") == 3 and "lay" in actions
    lay = next(s for s in row["melds"] if s["action"] == "lay")
    assert lay["meld"] == 3 and lay["cards"] == "4c 5c X=6c"
    assert {s["joker_to"] for s in row["melds"] if s["action"] == "swap"} <= {0, 1, 2, 3}


def test_V5_command_with_a_file_and_a_table(tmp_path, capsys) -> None:
    hands = ["8h 2c", "Ah", "7c 5c 6c 2d", "9s"]
    path = tmp_path / "hands.txt"
    path.write_text("# hands\n" + "\n".join(hands) + "\n")
    table = ["5h 6h 7h", "7s 7h 7d X", "Jh Qh Kh"]
    out = _json(capsys, ["--file", str(path), "--table", "; ".join(table)])
    assert [r["hand"] for r in out["hands"]] == hands
    for h, row in zip(hands, out["hands"], strict=True):
        a = answer_with_table(h, table)
        assert (row["best_value"], row["min_penalty"], row["can_go_out"]) == \
            (a.best_value, a.min_penalty, a.can_go_out)
        assert set(row) == {"hand", "best_value", "min_penalty", "can_go_out", "melds",
                            "additions", "swaps"}
    assert out["hands"][0]["melds"] == [{"action": "add", "card": "8h", "meld": 0,
                                         "place": "high"}]
    assert out["hands"][1]["additions"] == [{"card": "Ah", "meld": 2, "place": "high"}]
    assert out["hands"][2]["melds"] == [
        {"action": "swap", "card": "7c", "meld": 1, "joker_as": "7c", "joker_to": 3},
        {"action": "lay", "meld": 3, "cards": "5c 6c X=7c"}]
    assert out["hands"][3] == {"hand": "9s", "best_value": 0, "min_penalty": 9,
                               "can_go_out": True, "melds": [], "additions": [], "swaps": []}


def test_V5_command_table_view_shows_the_new_columns(capsys) -> None:
    assert main(["romi", "melds", "--hand", "6h 9c", "--table", "5h X 7h"]) == 0
    text = capsys.readouterr().out
    assert "additions" in text and "swaps" in text and "V5" in text


@pytest.mark.parametrize(("argv", "fragment"), [
    (["--hand", "7s", "--table", ""], "--table is empty"),
    (["--hand", "7s", "--table", "  "], "--table is empty"),
    (["--hand", "7s", "--table", "5h 6h 7h;"], "meld 2 is empty"),
    (["--hand", "7s", "--table", "5h 6h 7h; 5h Zz 7h"], "malformed card 'Zz'"),
    (["--hand", "7s", "--table", "5h 6s 7h"], "no meld (M1-M4)"),
    (["--hand", "7s", "--table", "9s X X"], "no meld (M1-M4)"),  # M4: one joker
    (["--hand", "7s", "--table", "9s X"], "no meld (M1-M4)"),  # M4: three cards
    (["--hand", "7s", "--table", "Kh Ah 2h"], "no meld (M1-M4)"),  # M2: no wrap
    (["--hand", "7s", "--table", "Qh Kh X"], "say which card"),
    (["--hand", "7c 7c", "--table", "7c 7d 7h"], "more than two of one card"),
    (["--hand", "X X X", "--table", "5h X 7h; 7c 7d X"], "more than four jokers"),
])
def test_V5_command_bad_table_is_one_line_and_exit_2(capsys, argv, fragment) -> None:
    assert main(["romi", "melds", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert fragment in err


def test_V5_command_names_the_file_line_that_clashes_with_the_table(tmp_path, capsys) -> None:
    path = tmp_path / "hands.txt"
    path.write_text("Ah 2h 3h\n7c 7c\n")
    assert main(["romi", "melds", "--file", str(path), "--table", "7c 7d 7h"]) == 2
    err = capsys.readouterr().err.strip()
    assert "line 2" in err and "more than two" in err and "\n" not in err


def test_V5_table_melds_read_back_their_canonical_text() -> None:
    for text in ("2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh X=Ah",
                 "X=Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh", "7c 7d X", "Qh Kh X=Ah"):
        m = TableMeld.parse(text)
        assert TableMeld.parse(m.text()) == m
    assert TableMeld.parse("2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh X=Ah").joker == 14
    assert TableMeld.parse("X=Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh").joker == 1
    with pytest.raises(UsageError):
        answer_with_table("7c 7c", ["7c 7d 7h"])
