"""Slow, obviously-correct reference engine for Römi húngaro (``seeds/romi.md``).

This module is a *test oracle*: it is written from the rules page alone and shares no code with
the numba engine or the meld solvers (the ``*_kernel.py`` modules, ``melds_exact.py``,
``table_melds_exact.py``), so that the two can be checked against each other move by move: the
move types of :mod:`simcards.romi.actions` are the one thing both sides speak, and where this module
repeats what the engine's modules also say, it does so on purpose (an oracle sharing that code
would hold the engine to itself). Clarity beats speed everywhere: melds are recognised by trying
the definitions (M1-M4) on the cards, and every "can he still do it this turn" question is a
plain depth-first search over the legal moves themselves. Every rule is cited by its id.

The state is shaped like the game states of reinforcement-learning libraries:
:class:`RoundState` (one round) and :class:`GameState` (a game of ``rounds`` rounds) offer
``current_player()``, ``legal_actions()``, ``is_legal(action)``, ``apply(action)``,
``observation(player)``, ``is_over()``, ``scores()``, ``returns()`` and ``clone()``. Chance is
explicit: each round is dealt from a permutation of the 108 card ids given by the caller (top
first, cut card ``deck[107]``), and every reshuffle of the discard pile (T8) goes through a
``shuffler`` callable given by the caller. The moves are those of :mod:`simcards.romi.actions`.

Decisions where the rules page leaves a detail open (each also stated where it is implemented):

* Finishing the turn. A melding move (``Open``, ``Lay``, ``Add``, ``Swap``) is legal only when
  the turn can still be finished legally after it: one card kept for the discard (T6), the card
  taken under T4 on the table, every joker freed by a swap laid again (J3) and, after the cut
  card, going out (T5). Without this a player could reach a state with no legal move.
* T4. The card taken from the discard pile counts as melded once it is on the table, also when
  it went there by a swap for a joker (a swap puts it into a table meld, as G3 reads it).
* The As (or a joker standing for it) added to the run 2 .. K could go below the 2 or above the
  King; the reference puts it above the King (the reading worth most, M6). ``canonical`` settles
  the same choice (and a joker at either end of consecutive real cards) the same way when no
  ``stands_for`` decides it.
* ``Open`` lists its melds sorted by their card tuples; ``legal_actions`` holds only that order.
* T8. DrawStock on an empty stock reshuffles the discard pile under its top card; with one card
  or none in the pile the round is stopped there and counted as stalled (as in T9).
* Scores before the round is over: ``scores()`` and ``returns()`` are zeros; the observation's
  ``scores`` is ``None``.

Example: two players dealt from the deck in id order (As .. K of spades, then hearts ...); seat
1 deals, so seat 0 is the starter with 15 cards, and his first turn is only a discard (D4). Seat
1 then draws (T2), but may not open on his first turn (O2), so a discard is all he can do next:

>>> state = RoundState(RomiRules.make(players=2), dealer=1, deck=list(range(C.N_CARDS)))
>>> state.current_player(), len(state.hands[0]), len(state.hands[1])
(0, 15, 14)
>>> {type(a).__name__ for a in state.legal_actions()}
{'Discard'}
>>> C.card_text(14)
'2h'
>>> state.apply(Discard(14))
>>> state.current_player(), state.legal_actions()
(1, [DrawStock(), DrawDiscard()])
>>> state.apply(DrawStock())
>>> len(state.hands[1]), C.card_text(state.hands[1][-1])
(15, '4d')
>>> {type(a).__name__ for a in state.legal_actions()}
{'Discard'}
>>> state.observation(1)["discards"], state.scores()
((14,), [0, 0])
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import combinations, product

from simcards.core.errors import UsageError
from simcards.romi import cards as C
from simcards.romi.actions import (
    NO_JOKER,
    Action,
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
from simcards.romi.codes import GO_OUT, NEVER_OPENED, ROMI, STALL_TURNS
from simcards.romi.rules import HAND_SIZE, STARTER_SIZE, RomiRules

Shuffler = Callable[[list[int]], None]
"""Reorders a list in place (``random.Random(seed).shuffle``). T8 hands it the discard pile
under its top card, bottom first; what it leaves in the list is the new stock, top first."""

class ReplayShuffler:
    """A shuffler that hands out recorded stock orders one after the other (T8): each call
    checks that the next order holds exactly the pile's cards and writes it into the list (top
    first), so a round can be replayed with another engine's reshuffles."""

    def __init__(self, orders: Sequence[Sequence[int]]) -> None:
        self.orders = [[int(c) for c in o] for o in orders]
        self.used = 0

    def __call__(self, pile: list[int]) -> None:
        if self.used >= len(self.orders):
            raise UsageError(f"T8: reshuffle {self.used + 1} was not recorded")
        order = self.orders[self.used]
        if sorted(order) != sorted(pile):
            raise UsageError(f"T8: recorded reshuffle {self.used + 1} does not hold the "
                             "discard pile's cards")
        pile[:] = order
        self.used += 1


# ---------------------------------------------------------------- cards and values (M6, M7)


def _is_joker(c: int) -> bool:
    return c >= C.JOKER0


def _rank(c: int) -> int:
    return c % 13 + 1


def _suit(c: int) -> int:
    return (c % 52) // 13


def _pos_kind(suit: int, pos: int) -> int:
    """The kind at run position ``pos`` (1 = As below the 2, 2 .. 13, 14 = As above the K)."""
    return suit * 13 + (0 if pos == 14 else pos - 1)


def _positions(c: int) -> tuple[int, ...]:
    """Run positions a real card may take: the As below the 2 or above the King (M2)."""
    r = _rank(c)
    return (1, 14) if r == 1 else (r,)


def _rank_value(r: int) -> int:
    """M6 outside the low end of a run, and M7 for real cards: numbers at face value, J Q K 10,
    the As 10."""
    return 10 if r == 1 or r >= 10 else r


def _pos_value(pos: int, ace_low_value: int) -> int:
    """M6 in a run: the As below the 2 is worth ``ace_low_value``, above the King 10."""
    if pos == 1:
        return ace_low_value
    return 10 if pos >= 10 else pos


def penalty(cards: Sequence[int]) -> int:
    """M7: what cards left in hand cost: numbers at face value, J Q K and the As 10, a joker 20."""
    return sum(20 if _is_joker(c) else _rank_value(_rank(c)) for c in cards)


# ---------------------------------------------------------------- melds (M1-M4)


def _real(cards: Sequence[int]) -> list[int]:
    return [c for c in cards if not _is_joker(c)]


@lru_cache(maxsize=200_000)
def _readings(cards: tuple[int, ...]) -> tuple[Meld, ...]:
    """Every canonical meld the cards (a sorted tuple of ids) form, by the definitions.

    M1 set: 3 or 4 cards of one rank, suits all different. M2 run: 3 or more cards of one suit
    at consecutive positions 1 .. 14 (the As at 1 or 14), never both 1 and 14. M3: no two
    identical cards. M4: one joker at most and two real cards at least; in a run the joker
    takes the one missing place, or either end when the real cards are consecutive; in a set it
    stands for the first missing suit (the canonical choice of ``actions.Meld``)."""
    n = len(cards)
    jokers = [c for c in cards if _is_joker(c)]
    real = _real(cards)
    if n < 3 or len(jokers) > 1 or len(real) < 2:
        return ()
    kinds = [c % 52 for c in real]
    if len(set(kinds)) != len(kinds):
        return ()
    ranks = {_rank(c) for c in real}
    suits = {_suit(c) for c in real}
    out: list[Meld] = []
    if len(ranks) == 1:
        if n <= 4:
            ordered = tuple(sorted(real, key=_suit))
            if jokers:
                missing = next(s for s in range(4) if s not in suits)
                out.append(Meld((*ordered, jokers[0]), missing * 13 + (real[0] % 13)))
            else:
                out.append(Meld(ordered))
        return tuple(out)
    if len(suits) != 1 or n > 13:
        return ()
    suit = _suit(real[0])
    aces = [c for c in real if _rank(c) == 1]
    for ace_pos in ((1, 14) if aces else (0,)):
        at: dict[int, int] = {}
        for c in real:
            at[ace_pos if _rank(c) == 1 else _rank(c)] = c
        lo, hi = min(at), max(at)
        span = hi - lo + 1
        places: list[tuple[int, int]] = []  # (lo, joker position or 0)
        if not jokers:
            if span == n:
                places.append((lo, 0))
        elif span == n:
            gap = next(p for p in range(lo, hi + 1) if p not in at)
            places.append((lo, gap))
        elif span == n - 1:
            if lo - 1 >= 1:
                places.append((lo - 1, lo - 1))
            if hi + 1 <= 14:
                places.append((lo, hi + 1))
        for start, jpos in places:
            seq = []
            for p in range(start, start + n):
                seq.append(jokers[0] if p == jpos else at[p])
            stands = _pos_kind(suit, jpos) if jpos else NO_JOKER
            m = Meld(tuple(seq), stands)
            if m not in out:
                out.append(m)
    return tuple(out)


@lru_cache(maxsize=200_000)
def _is_set(meld: Meld) -> bool:
    return len({_rank(c) for c in _real(meld.cards)}) == 1


def _run_start(meld: Meld) -> int:
    """Position (1 .. 14) of a canonical run's first card: its rank, the As (real or the joker's
    card) counting 1 there, since an As above the King is always last."""
    first = meld.cards[0]
    if _is_joker(first):
        return meld.stands_for % 13 + 1
    return _rank(first)


def is_valid_meld(meld: Meld | Sequence[int]) -> bool:
    """M1-M4. For a :class:`Meld`: whether it is a valid meld in canonical form (cards in meld
    order, the joker's ``stands_for`` right). For a sequence of card ids: whether the cards, in
    any order, form a valid meld."""
    if isinstance(meld, Meld):
        return meld in _readings(tuple(sorted(meld.cards)))
    return bool(_readings(tuple(sorted(int(c) for c in meld))))


def meld_value(meld: Meld, ace_low_value: int = 1) -> int:
    """M6: the sum of the meld's card values, each joker as the card it stands for and an As
    below the 2 worth ``ace_low_value``. ``UsageError`` for an invalid meld."""
    if not is_valid_meld(meld):
        raise UsageError(f"{meld.text()!r} is not a valid canonical meld (M1-M4)")
    if _is_set(meld):
        return len(meld.cards) * _rank_value(_rank(_real(meld.cards)[0]))
    start = _run_start(meld)
    return sum(_pos_value(p, ace_low_value) for p in range(start, start + len(meld.cards)))


def _preferred(readings: Sequence[Meld]) -> Meld:
    """Of several readings of the same cards, the one worth most (M6 with the As below the 2
    worth 1), ties to the joker's higher place: the fixed choice where nothing else decides."""
    def key(m: Meld) -> tuple[int, int]:
        return meld_value(m, 1), _run_start(m) if not _is_set(m) else 0
    return max(readings, key=key)


def canonical(cards: Sequence[int], stands_for: int = NO_JOKER) -> Meld:
    """The canonical :class:`Meld` of ``cards`` (any order): a run low to high with the joker at
    its place, a set by suit with the joker last (M1-M4, ``actions.Meld``).

    ``stands_for`` picks the joker's card in a run where two readings exist (either end); for a
    set it may name any missing suit's card, and the canonical first missing suit is used.
    Where the cards still allow two readings (no ``stands_for``, or the run A .. K whose As may
    sit at either end) the one worth most is taken, ties to the joker's higher place.
    ``UsageError`` when the cards form no meld or ``stands_for`` fits none of its readings."""
    ids = tuple(sorted(int(c) for c in cards))
    found = _readings(ids)
    if not found:
        raise UsageError(f"{C.format_hand(ids)!r} is no meld (M1-M4)")
    if stands_for != NO_JOKER:
        if _is_set(found[0]):
            real = _real(ids)
            r, suits = _rank(real[0]), {_suit(c) for c in real}
            if len(real) == len(ids) or stands_for % 13 != r - 1 or stands_for // 13 in suits:
                raise UsageError(f"the joker of {C.format_hand(ids)!r} cannot stand for "
                                 f"{C.kind_text(stands_for)} (M4)")
        else:
            found = tuple(m for m in found if m.stands_for == stands_for)
            if not found:
                raise UsageError(f"the joker of {C.format_hand(ids)!r} cannot stand for "
                                 f"{C.kind_text(stands_for)} (M4)")
    return _preferred(found)


@lru_cache(maxsize=200_000)
def _add_results(meld: Meld, card: int) -> tuple[tuple[int, Meld], ...]:
    """T6: the ways ``card`` can be added to table meld ``meld``, as (``Add.stands_for``, the
    canonical meld after it). A run grows at one end and its joker keeps its card (M5); a set
    takes a missing suit and its joker's card is recomputed. Two readings of one addition (the
    As, or a joker as the As, on the run 2 .. K) keep the one worth most: the As above the K."""
    if _is_joker(card) and any(_is_joker(c) for c in meld.cards):
        return ()  # M4: one joker per meld
    found: dict[int, list[Meld]] = {}
    for m in _readings(tuple(sorted((*meld.cards, card)))):
        if _is_set(meld):
            if not _is_set(m):
                continue
            key = NO_JOKER
        else:
            if _is_set(m):
                continue
            if m.cards[1:] != meld.cards and m.cards[:-1] != meld.cards:
                continue
            if meld.stands_for != NO_JOKER and m.stands_for != meld.stands_for:
                continue
            key = m.stands_for if _is_joker(card) else NO_JOKER
        found.setdefault(key, []).append(m)
    return tuple((key, _preferred(ms)) for key, ms in sorted(found.items()))


def _swap_result(meld: Meld, card: int) -> Meld | None:
    """J1, J2: the meld with the real ``card`` in its joker's place, or None when that swap is
    not allowed (no joker, not its card, or a set with only two real cards)."""
    if _is_joker(card) or meld.stands_for == NO_JOKER or card % 52 != meld.stands_for:
        return None
    if _is_set(meld) and len(_real(meld.cards)) < 3:
        return None  # J2
    cards = tuple(card if _is_joker(c) else c for c in meld.cards)
    if _is_set(meld):
        cards = tuple(sorted(cards, key=_suit))
    return Meld(cards)


def _joker_of(meld: Meld) -> int:
    return next(c for c in meld.cards if _is_joker(c))


@lru_cache(maxsize=50_000)
def _hand_melds(hand: tuple[int, ...]) -> tuple[Meld, ...]:
    """Every valid canonical meld made of cards of ``hand`` (a sorted tuple of ids), each copy
    of a card and each joker giving its own meld, sorted by card tuple. Built by rank (sets) and
    by suit and interval of positions (runs), each candidate checked with ``_readings``."""
    jokers = [c for c in hand if _is_joker(c)]
    by_kind: dict[int, list[int]] = {}
    for c in _real(hand):
        by_kind.setdefault(c % 52, []).append(c)
    out: set[Meld] = set()

    def keep(cards: tuple[int, ...], stands: int) -> None:
        m = Meld(cards, stands)
        if is_valid_meld(m):
            out.add(m)

    for r in range(1, 14):  # M1 sets
        suits = [s for s in range(4) if s * 13 + r - 1 in by_kind]
        for size in range(2, len(suits) + 1):
            for chosen in combinations(suits, size):
                for ids in product(*(by_kind[s * 13 + r - 1] for s in chosen)):
                    if size >= 3:
                        keep(ids, NO_JOKER)
                    if size <= 3:
                        missing = next(s for s in range(4) if s not in chosen)
                        for j in jokers:
                            keep((*ids, j), missing * 13 + r - 1)
    for s in range(4):  # M2 runs
        if sum(1 for k in by_kind if k // 13 == s) < 2:
            continue
        for lo in range(1, 13):
            slots: list[list[int]] = []
            empty: list[int] = []
            for hi in range(lo, min(lo + 12, 14) + 1):
                ids_here = by_kind.get(_pos_kind(s, hi), [])
                if not ids_here:
                    empty.append(hi - lo)
                    if len(empty) > (1 if jokers else 0):
                        break
                slots.append(ids_here)
                if len(slots) < 3:
                    continue
                for jp in (empty if empty else [None, *range(len(slots))]):
                    if jp is not None and not jokers:
                        continue
                    choices = [[None] if i == jp else ids for i, ids in enumerate(slots)]
                    for ids in product(*choices):
                        if jp is None:
                            keep(ids, NO_JOKER)
                        else:
                            for j in jokers:
                                cards = tuple(j if i == jp else c for i, c in enumerate(ids))
                                keep(cards, _pos_kind(s, lo + jp))
    return tuple(sorted(out, key=lambda m: m.cards))


def _openings(hand: tuple[int, ...], rules: RomiRules, minimal: bool) -> list[tuple[Meld, ...]]:
    """O1: every collection of disjoint melds of ``hand`` worth ``open_min`` or more together
    that leaves at least one card for the discard (T6), melds sorted by card tuple. With
    ``minimal`` a collection is not extended once it reaches ``open_min`` (enough for the
    "can he still" searches: the rest can be laid after opening, T6)."""
    melds = _hand_melds(hand)
    values = [meld_value(m, rules.ace_low_value) for m in melds]
    out: list[tuple[Meld, ...]] = []

    def grow(start: int, chosen: list[int], used: frozenset[int], total: int) -> None:
        for i in range(start, len(melds)):
            cards = melds[i].cards
            if used.intersection(cards) or len(used) + len(cards) >= len(hand):
                continue
            t = total + values[i]
            chosen.append(i)
            now = used.union(cards)
            if t >= rules.open_min:
                out.append(tuple(melds[k] for k in chosen))
                if not minimal:
                    grow(i + 1, chosen, now, t)
            else:
                grow(i + 1, chosen, now, t)
            chosen.pop()

    grow(0, [], frozenset(), 0)
    return out


# ---------------------------------------------------------------- the "can he still" search


def _could_ever_place(card: int, hand: Sequence[int], table: Sequence[Meld]) -> bool:
    """A necessary condition for a real card of ``hand`` to reach the table this turn, used only
    to cut the search short (jokers always pass):

    - a table set of its rank lacks its suit (added, or swapped for the joker, J1);
    - a table run of its suit has its place free inside (the joker's, J1) or outside, with
      every place between them held by a card of the hand except one at most (a joker);
    - or another real card of the hand has its rank, or its suit within two places: a new meld
      holds each real card's neighbour at most one joker away (M1, M2, M4)."""
    if _is_joker(card):
        return True
    k, r, s = card % 52, _rank(card), _suit(card)
    kinds = {c % 52 for c in hand if not _is_joker(c)}
    for m in table:
        real = _real(m.cards)
        held = {c % 52 for c in real}
        if k in held:
            continue
        if _is_set(m):
            if _rank(real[0]) == r:
                return True
            continue
        if _suit(real[0]) != s:
            continue
        lo = _run_start(m)
        hi = lo + len(m.cards) - 1
        for p in _positions(card):
            if lo <= p <= hi:
                return True
            gap = range(p + 1, lo) if p < lo else range(hi + 1, p)
            missing = sum(1 for q in gap if _pos_kind(s, q) not in kinds)
            if missing <= 1 and max(hi, p) - min(lo, p) + 1 <= 13:
                return True
    for c in hand:
        if _is_joker(c) or c % 52 == k:
            continue
        if _rank(c) == r:
            return True
        if _suit(c) == s and min(abs(a - b) for a in _positions(c) for b in _positions(card)) <= 2:
            return True
    return False


class _Search:
    """Depth-first search over the melding moves of one turn (T6, O1, J1): can the player reach
    a state where he may discard (or go out) with every obligation of the turn met?

    The goal: at least one card in hand (T6, G1), the card taken under T4 (``must_place``) no
    longer in hand, no joker freed by a swap in hand (J3), and with the cut card (T5) exactly one
    card left, the one he discards to go out. Moves are generated by ``_melding_moves``, the same
    generator the engine offers, except that openings stop growing at ``open_min`` (a larger
    opening is that one followed by ``Lay`` moves). States are memoised."""

    def __init__(self, rules: RomiRules, may_open: bool, must_place: int | None, go_out: bool):
        self.rules = rules
        self.may_open = may_open
        self.must_place = must_place
        self.go_out = go_out
        self.memo: dict[tuple, bool] = {}

    def done(self, hand: tuple[int, ...], freed: frozenset[int]) -> bool:
        if not hand or freed.intersection(hand):
            return False
        if self.must_place is not None and self.must_place in hand:
            return False
        return not self.go_out or len(hand) == 1

    def hopeless(self, hand: tuple[int, ...], table: tuple[Meld, ...]) -> bool:
        """Cheap necessary conditions (``_could_ever_place``): the T4 card must be placeable,
        and when going out every card but one."""
        must = self.must_place
        if must is not None and must in hand and not _could_ever_place(must, hand, table):
            return True
        if self.go_out:
            dead = sum(1 for c in hand if not _could_ever_place(c, hand, table))
            return dead > 1
        return False

    def can_finish(self, hand: tuple[int, ...], table: tuple[Meld, ...], opened: bool,
                   freed: frozenset[int]) -> bool:
        freed = freed.intersection(hand)
        if self.done(hand, freed):
            return True
        tkey = tuple(sorted(table, key=lambda m: (m.cards, m.stands_for)))
        key = (hand, tkey, opened, freed)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = False
        result = False
        if not self.hopeless(hand, tkey):
            for _, h2, t2, o2, f2 in _melding_moves(hand, table, opened, self.may_open,
                                                    self.rules, minimal=True):
                if self.can_finish(h2, t2, o2, freed | f2):
                    result = True
                    break
        self.memo[key] = result
        return result


def _melding_moves(hand: tuple[int, ...], table: tuple[Meld, ...], opened: bool,
                   may_open: bool, rules: RomiRules, minimal: bool = False):
    """Every melding move from this state, with its effect, ignoring the turn's obligations:
    yields (action, hand after, table after, opened after, jokers freed). Before opening only
    the opening (O1, O2, O3); after it ``Lay``, ``Add`` and ``Swap`` (T6, J1, J2). Every move
    keeps one card in hand (T6)."""
    if not opened:
        if may_open:
            for melds in _openings(hand, rules, minimal):
                used = {c for m in melds for c in m.cards}
                rest = tuple(c for c in hand if c not in used)
                yield Open(melds), rest, table + melds, True, frozenset()
        return
    for m in _hand_melds(hand):
        if len(m.cards) < len(hand):
            rest = tuple(c for c in hand if c not in m.cards)
            yield Lay(m), rest, (*table, m), True, frozenset()
    if len(hand) >= 2:
        for t, meld in enumerate(table):
            for c in sorted(set(hand)):
                for stands, new in _add_results(meld, c):
                    rest = tuple(x for x in hand if x != c)
                    yield (Add(t, c, stands), rest, (*table[:t], new, *table[t + 1:]), True,
                           frozenset())
    for t, meld in enumerate(table):
        for c in sorted(set(hand)):
            new = _swap_result(meld, c)
            if new is not None:
                j = _joker_of(meld)
                h2 = tuple(sorted([x for x in hand if x != c] + [j]))
                yield Swap(t, c), h2, (*table[:t], new, *table[t + 1:]), True, frozenset((j,))


# ---------------------------------------------------------------- one round


DRAW, MELD, FIRST = "draw", "meld", "first"
"""Phases of a turn: the draw (T2), melding and discarding (T6, T7), and the starter's first
turn, only a discard (D4)."""


class RoundState:
    """One round of Römi (D3-D4, T1-T9, O1-O3, J1-J3, G1-G5), played move by move.

    ``deck`` is a permutation of the 108 ids, top first: the starter (dealer + 1) gets
    ``deck[0:15]``, each following player in play order the next 14, the stock is the rest but
    the last card, top first, and ``deck[107]`` is the cut card (D3). ``shuffler`` reorders the
    discard pile when the stock runs out (T8); by default ``random.Random(0).shuffle``."""

    def __init__(self, rules: RomiRules, dealer: int, deck: Sequence[int],
                 shuffler: Shuffler | None = None) -> None:
        if not isinstance(rules, RomiRules):
            raise UsageError("rules must be a RomiRules (RomiRules.make(...))")
        n = rules.players
        sizes = rules.hand_sizes(dealer)
        ids = [int(c) for c in deck]
        if sorted(ids) != list(range(C.N_CARDS)):
            raise UsageError("deck must be a permutation of the 108 card ids 0 .. 107 (D1)")
        self.rules = rules
        self.n = n
        self.dealer = dealer
        self.starter = (dealer + 1) % n
        self.shuffler: Shuffler = shuffler if shuffler is not None else random.Random(0).shuffle
        # D4: the starter's 15 cards, then 14 to each following player in play order.
        self.hands: list[list[int]] = [[] for _ in range(n)]
        at = 0
        for i in range(n):
            p = (self.starter + i) % n
            self.hands[p] = ids[at:at + sizes[p]]
            at += sizes[p]
        assert sizes[self.starter] == STARTER_SIZE and at == STARTER_SIZE + HAND_SIZE * (n - 1)
        self.stock: list[int] = ids[at:C.N_CARDS - 1]
        self.cut: int | None = ids[C.N_CARDS - 1]
        self.cut_card = self.cut
        self.discards: list[int] = []
        self.table: list[Meld] = []
        self.owners: list[int] = []
        self.opened = [False] * n
        self.has_drawn = [False] * n
        self.turns_played = [0] * n
        self.turn = 0
        self.player = self.starter
        self.phase = FIRST
        self.public_draws: list[tuple[int, int, int]] = []
        """(turn, player, card) for every draw from the discard pile (I1)."""
        self.reshuffles: list[list[int]] = []
        self.stalled = False
        self.went_out = -1
        self.romi = False
        self._over = False
        self._scores = [0] * n
        self._new_turn_state()

    # -- per-turn bookkeeping

    def _new_turn_state(self) -> None:
        self.drawn: int | None = None
        self.must_place: int | None = None  # T4
        self.freed: set[int] = set()  # J3
        self.must_go_out = False  # T5
        self.opened_this_turn = False  # G3
        self.touched_others = False  # G3: Add to another's meld, or a Swap (see apply)
        self._cache: dict = {}
        """Answers that hold until the next move: the legal moves, the T4 and T5 questions."""
        self._searches: dict[tuple[int | None, bool], _Search] = {}
        """The turn's searches (their memos hold for the whole turn)."""

    def _may_open(self) -> bool:
        """O2: not on the player's very first turn."""
        return self.turns_played[self.player] >= 1

    def _search(self, must_place: int | None, go_out: bool) -> _Search:
        key = (must_place, go_out)
        if key not in self._searches:
            self._searches[key] = _Search(self.rules, self._may_open(), must_place, go_out)
        return self._searches[key]

    def _finishable(self, hand: tuple[int, ...], table: tuple[Meld, ...], opened: bool,
                    freed: frozenset[int]) -> bool:
        """Whether the turn can still be finished from this melding state (see _Search)."""
        must = self.must_place if self.must_place in hand else None
        if must is None and not self.must_go_out and not freed.intersection(hand):
            return len(hand) >= 1
        return self._search(must, self.must_go_out).can_finish(hand, table, opened, freed)

    # -- the interface

    def current_player(self) -> int:
        return -1 if self._over else self.player

    def is_over(self) -> bool:
        return self._over

    def _hand_key(self) -> tuple[int, ...]:
        return tuple(sorted(self.hands[self.player]))

    def _can_take_discard(self) -> bool:
        """T3, T4: the top discard; after the player's first draw only when some legal sequence
        of melding moves this turn puts it on the table."""
        if not self.discards:
            return False
        if not self.has_drawn[self.player]:
            return True
        key = "T4"
        if key not in self._cache:
            top = self.discards[-1]
            hand = tuple(sorted([*self.hands[self.player], top]))
            s = _Search(self.rules, self._may_open(), top, False)
            self._cache[key] = s.can_finish(hand, tuple(self.table), self.opened[self.player],
                                            frozenset())
        return self._cache[key]

    def _can_take_cut(self) -> bool:
        """T5: only when the player can go out with the cut card this turn (O2 applies)."""
        if self.cut is None:
            return False
        if "T5" not in self._cache:
            hand = tuple(sorted([*self.hands[self.player], self.cut]))
            s = _Search(self.rules, self._may_open(), None, True)
            self._cache["T5"] = s.can_finish(hand, tuple(self.table), self.opened[self.player],
                                             frozenset())
        return self._cache["T5"]

    def legal_actions(self) -> list[Action]:
        """Every legal move now, in a fixed order: draws (stock, discard, cut); or openings,
        lays, adds, swaps (each sorted) and discards by card id."""
        if self._over:
            return []
        if "legal" in self._cache:
            return list(self._cache["legal"])
        out: list[Action] = []
        if self.phase == DRAW:
            out.append(DrawStock())
            if self._can_take_discard():
                out.append(DrawDiscard())
            if self._can_take_cut():
                out.append(DrawCut())
        else:
            if self.phase == MELD:
                moves = [a for a, h, t, o, f in self._moves() if self._finishable(h, t, o, f)]
                opens = sorted((a for a in moves if isinstance(a, Open)),
                               key=lambda a: tuple(m.cards for m in a.melds))
                lays = sorted((a for a in moves if isinstance(a, Lay)), key=lambda a: a.meld.cards)
                adds = sorted((a for a in moves if isinstance(a, Add)),
                              key=lambda a: (a.target, a.card, a.stands_for))
                swaps = sorted((a for a in moves if isinstance(a, Swap)),
                               key=lambda a: (a.target, a.card))
                out += opens + lays + adds + swaps
            out += [Discard(c) for c in sorted(self.hands[self.player])
                    if self._discard_problem(c) is None]
        self._cache["legal"] = tuple(out)
        return out

    def _moves(self):
        """The melding moves of the player in turn, with their effects (no obligations checked);
        jokers freed earlier this turn are carried along."""
        freed = frozenset(self.freed)
        for a, h, t, o, f in _melding_moves(self._hand_key(), tuple(self.table),
                                            self.opened[self.player], self._may_open(),
                                            self.rules):
            yield a, h, t, o, f | freed

    def _discard_problem(self, card: int) -> str | None:
        hand = self.hands[self.player]
        if card not in hand:
            return f"T7: card {card!r} is not in the hand of player {self.player}"
        if self.freed.intersection(hand):
            return "J3: a joker taken from the table must be laid again before the discard"
        if self.must_place is not None and self.must_place in hand:
            return (f"T4: {C.card_text(self.must_place)}, taken from the discard pile, must be "
                    "melded before the discard")
        if self.must_go_out and len(hand) != 1:
            return "T5: after taking the cut card the player must go out this turn"
        return None

    def is_legal(self, action: Action) -> bool:
        """Whether ``action`` is legal now: the same answer as ``action in legal_actions()``."""
        return self._problem(action) is None

    def _obligation_rule(self, hand: tuple[int, ...], freed: frozenset[int]) -> str:
        """The rule a melding move breaks when the turn cannot be finished after it."""
        if not hand:
            return "T6: the player must keep one card for the discard"
        if self.must_go_out:
            return "T5: after the cut card every move must keep going out this turn possible"
        if self.must_place is not None and self.must_place in hand:
            return (f"T4: the move leaves no way to meld {C.card_text(self.must_place)} "
                    "(taken from the discard pile) this turn")
        if freed.intersection(hand):
            return "J3: the move leaves no way to lay the freed joker again this turn"
        return "T6: the player must keep one card for the discard"

    def _problem(self, action: Action) -> str | None:
        """None when ``action`` is legal, else why not, naming the rule."""
        if self._over:
            return "G1: the round is over"
        p = self.player
        self.hands[p]
        if isinstance(action, DrawStock | DrawDiscard | DrawCut):
            if self.phase == FIRST:
                return "D4: the starter's first turn is only a discard"
            if self.phase != DRAW:
                return "T2: one draw per turn, at its start"
            if isinstance(action, DrawDiscard):
                if not self.discards:
                    return "T2: the discard pile is empty"
                if not self._can_take_discard():
                    return (f"T4: {C.card_text(self.discards[-1])} cannot be melded this turn, "
                            "so it cannot be taken from the discard pile")
            if isinstance(action, DrawCut):
                if self.cut is None:
                    return "T5: the cut card was taken"
                if not self._can_take_cut():
                    return "T5: the cut card only when the player can go out with it this turn"
            return None
        if isinstance(action, Discard):
            if self.phase == DRAW:
                return "T1: the turn starts with a draw"
            return self._discard_problem(action.card)
        if not isinstance(action, Open | Lay | Add | Swap):
            return f"T1: {action!r} is not a Römi move"
        if self.phase == DRAW:
            return "T1: the turn starts with a draw"
        if self.phase == FIRST:
            return "D4: the starter's first turn is only a discard"
        effect = self._effect(action)
        if isinstance(effect, str):
            return effect
        h, t, o, f = effect
        if not h or not self._finishable(h, t, o, f):
            return self._obligation_rule(h, f)
        return None

    def _effect(self, action: Action):
        """(hand, table, opened, freed) after a melding move, or why it is illegal."""
        p = self.player
        hand = self._hand_key()
        table = tuple(self.table)
        freed = frozenset(self.freed)
        opened = self.opened[p]
        if isinstance(action, Open):
            if opened:
                return "O1: the player has already opened"
            if not self._may_open():
                return "O2: nobody opens on his very first turn"
            melds = action.melds
            if not melds:
                return "O1: an opening lays at least one meld"
            for m in melds:
                if not isinstance(m, Meld) or not is_valid_meld(m):
                    return f"M1-M4: {m!r} is not a valid canonical meld"
            keys = [m.cards for m in melds]
            if keys != sorted(keys):
                return "O1: an opening lists its melds sorted by card tuple"
            used = [c for m in melds for c in m.cards]
            if len(set(used)) != len(used) or not set(used) <= set(hand):
                return "O1: the melds must be disjoint and from the player's hand"
            total = sum(meld_value(m, self.rules.ace_low_value) for m in melds)
            if total < self.rules.open_min:
                return f"O1: the opening is worth {total} < open_min {self.rules.open_min}"
            rest = tuple(c for c in hand if c not in used)
            return rest, table + tuple(melds), True, freed
        if not opened:
            return "O3: nothing is laid, added or swapped before opening"
        if isinstance(action, Lay):
            m = action.meld
            if not isinstance(m, Meld) or not is_valid_meld(m):
                return f"M1-M4: {m!r} is not a valid canonical meld"
            if not set(m.cards) <= set(hand):
                return "T6: a new meld is made of cards from the player's hand"
            rest = tuple(c for c in hand if c not in m.cards)
            return rest, (*table, m), True, freed
        if not 0 <= action.target < len(table):
            return f"T6: there is no table meld {action.target}"
        if action.card not in hand:
            return f"T6: {action.card} is not in the player's hand"
        meld = table[action.target]
        if isinstance(action, Add):
            results = dict(_add_results(meld, action.card))
            if action.stands_for not in results:
                return (f"M1-M4: {C.card_text(action.card)} cannot be added to {meld.text()!r}"
                        + (" as " + C.kind_text(action.stands_for)
                           if action.stands_for != NO_JOKER else ""))
            rest = tuple(c for c in hand if c != action.card)
            t = action.target
            return rest, (*table[:t], results[action.stands_for], *table[t + 1:]), True, freed
        if isinstance(action, Swap):
            new = _swap_result(meld, action.card)
            if new is None:
                if meld.stands_for != NO_JOKER and _is_set(meld) and len(_real(meld.cards)) < 3:
                    return "J2: a joker in a set with two real cards cannot be taken"
                return (f"J1: {C.card_text(action.card)} is not the card the joker of "
                        f"{meld.text()!r} stands for")
            j = _joker_of(meld)
            h2 = tuple(sorted([x for x in hand if x != action.card] + [j]))
            t = action.target
            return h2, (*table[:t], new, *table[t + 1:]), True, freed | {j}
        raise AssertionError(action)

    def apply(self, action: Action) -> None:
        """Play ``action``; ``ValueError`` (``UsageError``) naming the rule if it is illegal."""
        problem = self._problem(action)
        if problem is not None:
            raise UsageError(f"illegal move {action!r}: {problem}")
        p = self.player
        hand = self.hands[p]
        if isinstance(action, DrawStock):
            if not self.stock:
                # T8: the discard pile under its top card becomes the new stock.
                if len(self.discards) <= 1:
                    self._finish(stalled=True)
                    return
                pile = self.discards[:-1]
                self.shuffler(pile)
                self.reshuffles.append(list(pile))
                self.stock = pile
                self.discards = self.discards[-1:]
            card = self.stock.pop(0)
            hand.append(card)
            self._after_draw(card)
        elif isinstance(action, DrawDiscard):
            card = self.discards.pop()
            if self.has_drawn[p]:
                self.must_place = card  # T4
            self.public_draws.append((self.turn, p, card))
            hand.append(card)
            self._after_draw(card)
        elif isinstance(action, DrawCut):
            card = self.cut
            assert card is not None
            self.cut = None
            self.must_go_out = True  # T5
            hand.append(card)
            self._after_draw(card)
        elif isinstance(action, Open):
            for m in action.melds:
                self._lay(m)
            self.opened[p] = True
            self.opened_this_turn = True
        elif isinstance(action, Lay):
            self._lay(action.meld)
        elif isinstance(action, Add):
            results = dict(_add_results(self.table[action.target], action.card))
            self.table[action.target] = results[action.stands_for]
            hand.remove(action.card)
            self.freed.discard(action.card)
            if self.owners[action.target] != p:
                self.touched_others = True
        elif isinstance(action, Swap):
            meld = self.table[action.target]
            j = _joker_of(meld)
            new = _swap_result(meld, action.card)
            assert new is not None
            self.table[action.target] = new
            hand.remove(action.card)
            hand.append(j)
            self.freed.add(j)
            # G3: the swap puts a card into a table meld; with ``swap_keeps_romi`` only what
            # is added to another player's meld counts (the freed joker included, by Add).
            if not self.rules.swap_keeps_romi:
                self.touched_others = True
        elif isinstance(action, Discard):
            hand.remove(action.card)
            self.discards.append(action.card)
            self.turns_played[p] += 1
            self.turn += 1
            if not hand:
                self.went_out = p  # G1
                self.romi = self.opened_this_turn and not self.touched_others  # G3
                self._finish(stalled=False)
                return
            if self.turn >= STALL_TURNS:
                self._finish(stalled=True)  # T9
                return
            self.player = (p + 1) % self.n
            self.phase = DRAW
            self._new_turn_state()
            return
        self._cache = {}

    def _after_draw(self, card: int) -> None:
        self.has_drawn[self.player] = True
        self.drawn = card
        self.phase = MELD
        self._cache = {}

    def _lay(self, meld: Meld) -> None:
        for c in meld.cards:
            self.hands[self.player].remove(c)
            self.freed.discard(c)
        self.table.append(meld)
        self.owners.append(self.player)

    def _finish(self, stalled: bool) -> None:
        """G2-G5: -10 (or -20 for a Römi) for going out, 100 for never opened, else the penalty
        of the cards left."""
        self._over = True
        self.stalled = stalled
        self._cache = {}
        for q in range(self.n):
            if q == self.went_out:
                self._scores[q] = ROMI if self.romi else GO_OUT
            elif not self.opened[q]:
                self._scores[q] = NEVER_OPENED
            else:
                self._scores[q] = penalty(self.hands[q])

    def scores(self) -> list[int]:
        """G2-G5: each player's points for the round (lower is better); zeros until it is over."""
        return list(self._scores)

    def returns(self) -> list[int]:
        """Minus each player's round score once the round is over (higher is better)."""
        return [-s for s in self._scores] if self._over else [0] * self.n

    def observation(self, player: int) -> dict:
        """I1 and I2 for ``player``: everything public plus his own hand and the card he drew
        this turn. Never another hand or the stock (I3)."""
        if not 0 <= player < self.n:
            raise UsageError(f"player={player} must be a seat 0 .. {self.n - 1}")
        mine = player == self.player and not self._over
        return {
            "player": player,
            "to_play": self.current_player(),
            "phase": None if self._over else self.phase,
            "hand": tuple(sorted(self.hands[player])),
            "drawn": self.drawn if mine else None,
            "table": tuple({"cards": m.cards, "stands_for": m.stands_for, "layer": o}
                           for m, o in zip(self.table, self.owners, strict=True)),
            "discards": tuple(self.discards),
            "cut": self.cut_card,
            "cut_taken": self.cut is None,
            "hand_sizes": tuple(len(h) for h in self.hands),
            "opened": tuple(self.opened),
            "discard_draws": tuple(self.public_draws),
            "must_place": self.must_place if self.must_place in self.hands[self.player] else None,
            "freed": tuple(sorted(self.freed.intersection(self.hands[self.player]))),
            "must_go_out": self.must_go_out,
            "stock_size": len(self.stock),
            "dealer": self.dealer,
            "turn": self.turn,
            "scores": tuple(self._scores) if self._over else None,
        }

    def clone(self) -> RoundState:
        """An independent copy (the shuffler too, when it can be copied)."""
        other = copy.copy(self)
        other.hands = [list(h) for h in self.hands]
        other.stock = list(self.stock)
        other.discards = list(self.discards)
        other.table = list(self.table)
        other.owners = list(self.owners)
        other.opened = list(self.opened)
        other.has_drawn = list(self.has_drawn)
        other.turns_played = list(self.turns_played)
        other.public_draws = list(self.public_draws)
        other.reshuffles = [list(r) for r in self.reshuffles]
        other._scores = list(self._scores)
        other.freed = set(self.freed)
        other._cache = {}
        other._searches = {}
        try:
            other.shuffler = copy.deepcopy(self.shuffler)
        except Exception:  # a shuffler that cannot be copied is shared
            other.shuffler = self.shuffler
        return other


# ---------------------------------------------------------------- a game


class GameState:
    """A game of ``rules.rounds`` rounds (D5, G6): round k is dealt from ``decks[k]`` by
    ``(dealer + k) % players`` (the deal moves one seat to the left: the starter of one round
    deals the next). Scores add up; the lowest total wins, equal lowest totals share."""

    def __init__(self, rules: RomiRules, dealer: int, decks: Sequence[Sequence[int]],
                 shuffler: Shuffler | None = None) -> None:
        if len(decks) < rules.rounds:
            raise UsageError(f"{rules.rounds} rounds need {rules.rounds} decks, got {len(decks)}")
        self.rules = rules
        self.first_dealer = dealer
        self.decks = [list(d) for d in decks]
        self.shuffler: Shuffler = shuffler if shuffler is not None else random.Random(0).shuffle
        self.round_index = 0
        self.totals = [0] * rules.players
        self.round_scores: list[list[int]] = []
        self.stalled_rounds: list[bool] = []
        self.round = RoundState(rules, dealer, self.decks[0], self.shuffler)

    @property
    def dealer(self) -> int:
        return (self.first_dealer + self.round_index) % self.rules.players

    def current_player(self) -> int:
        return self.round.current_player()

    def is_over(self) -> bool:
        return self.round.is_over() and self.round_index == self.rules.rounds - 1

    def legal_actions(self) -> list[Action]:
        return self.round.legal_actions()

    def is_legal(self, action: Action) -> bool:
        return self.round.is_legal(action)

    def apply(self, action: Action) -> None:
        """Play ``action`` in the current round; a finished round adds its scores (G6) and,
        unless it was the last, the next round is dealt."""
        self.round.apply(action)
        if self.round.is_over():
            s = self.round.scores()
            self.round_scores.append(s)
            self.stalled_rounds.append(self.round.stalled)
            self.totals = [a + b for a, b in zip(self.totals, s, strict=True)]
            if self.round_index < self.rules.rounds - 1:
                self.round_index += 1
                self.round = RoundState(self.rules, self.dealer, self.decks[self.round_index],
                                        self.shuffler)

    def scores(self) -> list[int]:
        """G6: each player's total so far."""
        return list(self.totals)

    def returns(self) -> list[int]:
        """Minus each player's total once the game is over (zeros before)."""
        return [-t for t in self.totals] if self.is_over() else [0] * self.rules.players

    def winners(self) -> list[int]:
        """G6: the players with the lowest total (all of them share the win)."""
        best = min(self.totals)
        return [p for p, t in enumerate(self.totals) if t == best]

    def observation(self, player: int) -> dict:
        obs = self.round.observation(player)
        obs["round"] = self.round_index
        obs["totals"] = tuple(self.totals)
        obs["round_scores"] = tuple(tuple(s) for s in self.round_scores)
        return obs

    @property
    def stalled(self) -> bool:
        return self.round.stalled

    @property
    def went_out(self) -> int:
        return self.round.went_out

    @property
    def romi(self) -> bool:
        return self.round.romi

    def clone(self) -> GameState:
        other = copy.copy(self)
        other.totals = list(self.totals)
        other.round_scores = [list(s) for s in self.round_scores]
        other.stalled_rounds = list(self.stalled_rounds)
        other.round = self.round.clone()
        other.shuffler = other.round.shuffler
        return other
