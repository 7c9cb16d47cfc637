"""The meld solver's questions with melds on the table (V5 of ``seeds/romi.md``), in Python.

For a player who has opened, a lay-down may, besides new melds from his hand, add cards of his
hand to table melds (T6) and swap table jokers (J1, J2), provided every joker so freed is laid
again in the same lay-down (J3). The answers:

- ``best_value``: the greatest value (M6) of the cards laid: hand cards at the place they take
  (in a new meld or a table meld), each joker laid (his own or a freed one) as the card it
  stands for;
- ``min_penalty``: the smallest penalty (M7) of the hand cards left;
- ``can_go_out``: whether a lay-down leaves exactly one card (the discard, never a freed joker);

and with an empty table they equal V1-V3 of :mod:`simcards.romi.melds_exact`. For play,
:func:`answer_with_table` adds one lay-down reaching ``best_value`` (new melds, additions with
the place each card takes, swaps with where each freed joker is laid), the cards of the hand
that each table meld takes on its own, and the table jokers the hand can take
(:class:`TableAnswer`).

How. Each table meld is turned, one after the other, into every final form it can take: the
cards added (a run grows at either end, a set takes missing suits, at most one joker in all),
and its joker kept or swapped for the real card it stands for (a set's joker only when the set
has three real suits, the swap card being the fourth). A swap frees a joker, an added joker uses
one; the jokers are interchangeable, so the count of jokers in play may run below zero while
melds are visited and must be back at zero or more before the new melds are searched, and the
new melds must leave no more jokers than the hand brought. The hand left after the table is
searched as in ``melds`` (pivot card left or put in a meld containing it), in Python with a
memo; the hand's cards are a packed multiset (3 bits a kind) so that taking a meld out is one
subtraction. Exact; slower than the kernel (milliseconds a hand, a second at worst for 16
cards against many table melds), meant for play and tests. The lay-down is rebuilt from the
memo by walking the same recursion and taking, at every step, a branch that gave the optimum;
a swap is possible when one of the states the search reached at its meld goes on to a
lay-down.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import NamedTuple

from simcards.core.errors import UsageError
from simcards.romi import cards as C
from simcards.romi.melds_exact import MAX_HAND, MeldAnswer
from simcards.romi.rules import RomiRules

JOKER_PENALTY = 20


def _rank_value(r: int) -> int:
    """M6/M7 outside a low run: numbers face value, figures and As 10."""
    return 10 if r == 1 or r > 10 else r


def _place_value(p: int, ace_low: int) -> int:
    """M6 at place p of a run (1: As below the 2; 14: As above the King)."""
    return ace_low if p == 1 else _rank_value(1 if p == 14 else p)


def _kind_at(s: int, p: int) -> int:
    return s * 13 + (p - 1) % 13


@dataclass(frozen=True)
class TableMeld:
    """A meld on the table. A set: ``rank``, the real ``suits`` and whether it holds a joker. A
    run: ``suit``, its places ``lo`` .. ``hi`` (1 = As below the 2, 14 = As above the King)
    and the joker's place ``joker`` (0 for none)."""

    is_run: bool
    rank: int = 0
    suits: frozenset[int] = frozenset()
    has_joker: bool = False
    suit: int = 0
    lo: int = 0
    hi: int = 0
    joker: int = 0

    @classmethod
    def parse(cls, text: str) -> TableMeld:
        """A table meld from text: its cards, the joker written ``X`` or ``X=7h`` (the card it
        stands for; needed only for a joker at the end of a run; ``X=Ah`` with ``2h .. Kh``
        is the As below the 2 when written first, above the King otherwise). ``UsageError`` if
        it is no valid meld (M1-M4)."""
        tokens = text.replace(",", " ").split()
        stand: int | None = None
        plain: list[str] = []
        for t in tokens:
            if t.upper().startswith("X="):
                if stand is not None:
                    raise UsageError(f"table meld {text!r}: two jokers (M4)")
                stand = C.kind(C.parse_hand(t[2:])[0]) if t[2:] else -1
                if stand == C.JOKER_KIND or stand == -1:
                    raise UsageError(f"table meld {text!r}: a joker stands for a real card")
                plain.append("X")
            else:
                plain.append(t)
        ids = C.parse_hand(" ".join(plain))
        real = [C.kind(c) for c in ids if not C.is_joker(c)]
        jokers = len(ids) - len(real)
        if jokers > 1 or len(ids) < 3 or len(real) < 2:
            raise UsageError(f"table meld {text!r} is no meld (M1-M4)")
        ranks = {k % 13 + 1 for k in real}
        suits = {k // 13 for k in real}
        size = len(ids)
        if len(ranks) == 1 and len(suits) == len(real) and size <= 4:
            r = ranks.pop()
            if stand is not None and (stand % 13 + 1 != r or stand // 13 in suits):
                raise UsageError(f"table meld {text!r}: the joker must stand for a missing suit")
            return cls(is_run=False, rank=r, suits=frozenset(suits), has_joker=jokers == 1)
        problem = f"table meld {text!r} is no meld (M1-M4)"
        if len(suits) == 1 and len(ranks) == len(real):
            s = suits.pop()
            for ace in (1, 14):  # an As below the 2, then above the King: the first that fits
                places = sorted(ace if k % 13 == 0 else k % 13 + 1 for k in real)
                span = places[-1] - places[0] + 1
                if jokers == 0 and span == size:
                    return cls(is_run=True, suit=s, lo=places[0], hi=places[-1])
                if jokers == 0:
                    continue
                holes = [p for p in range(places[0], places[-1] + 1) if p not in places]
                if span == size and len(holes) == 1:
                    q = holes[0]
                    if stand is not None and stand != _kind_at(s, q):
                        problem = (f"table meld {text!r}: the joker's place is "
                                   f"{C.kind_text(_kind_at(s, q))}")
                        continue
                    return cls(is_run=True, suit=s, lo=places[0], hi=places[-1], joker=q)
                if span == size - 1 and not holes:
                    ends = [p for p in (places[0] - 1, places[-1] + 1) if 1 <= p <= 14
                            and not (p == 14 and places[0] == 1)
                            and not (p == 1 and places[-1] == 14)]
                    want = stand
                    if want is None:
                        if len(ends) == 1:
                            want = _kind_at(s, ends[0])
                        else:
                            raise UsageError(f"table meld {text!r}: say which card the end "
                                             "joker stands for (X=..)")
                    fit = [q for q in ends if _kind_at(s, q) == want]
                    if len(fit) == 2:  # an As at either end of 2 .. K: as written
                        fit = fit[:1] if plain[0].upper() == "X" else fit[1:]
                    for q in fit:
                        return cls(is_run=True, suit=s, lo=min(q, places[0]),
                                   hi=max(q, places[-1]), joker=q)
                    problem = (f"table meld {text!r}: the joker cannot stand for "
                               f"{C.kind_text(want)}")
        raise UsageError(problem)

    def kinds(self) -> list[int]:
        """Kinds of its real cards."""
        if self.is_run:
            return [_kind_at(self.suit, p) for p in range(self.lo, self.hi + 1) if p != self.joker]
        return [s * 13 + self.rank - 1 for s in sorted(self.suits)]

    def jokers(self) -> int:
        return int(self.has_joker) if not self.is_run else int(self.joker > 0)

    def joker_as(self) -> int | None:
        """The kind its joker stands for (``None`` without one): a run's joker the card of its
        place, a set's the first suit, in suit order, missing among its real cards (the
        canonical choice of ``actions.Meld``)."""
        if self.is_run:
            return _kind_at(self.suit, self.joker) if self.joker else None
        if not self.has_joker:
            return None
        return _first_missing(self.suits) * 13 + self.rank - 1

    def text(self) -> str:
        """Canonical text, read back by :meth:`parse`: a run from its low end to its high end,
        a set by suit with the joker last, the joker written ``X=card``."""
        if self.is_run:
            return " ".join("X=" + C.kind_text(_kind_at(self.suit, p)) if p == self.joker
                            else C.kind_text(_kind_at(self.suit, p))
                            for p in range(self.lo, self.hi + 1))
        parts = [C.kind_text(k) for k in self.kinds()]
        if self.has_joker:
            parts.append("X=" + C.kind_text(self.joker_as()))
        return " ".join(parts)

    def changes(self, ace_low: int, held: Collection[int] | None = None) -> list[_Change]:
        """Every way the player can change this meld (T6, J1, J2), the first leaving it alone.
        Each says which hand kinds go into it, the jokers freed minus the jokers laid there,
        the value of what he lays into it (M6), the card given for its joker and the cards
        laid at its ends or among its suits, in an order in which they can be laid. With
        ``held`` (the kinds of a hand), only the changes whose real cards are among them."""
        out = [_Change((), 0, 0, -1, ())]
        if self.is_run:
            s, lo, hi, q = self.suit, self.lo, self.hi, self.joker

            def has(p: int) -> bool:
                return held is None or _kind_at(s, p) in held

            for swap in (False, True) if q else (False,):
                if swap and not has(q):
                    continue
                base = (_kind_at(s, q),) if swap else ()
                base_value = _place_value(q, ace_low) if swap else 0
                joker_free = not q or swap  # may the final run take a joker from the pool?

                def reach(places: range, joker_free: bool = joker_free) -> list[int]:
                    """The places an end can grow to, outwards: one may lack its card (the
                    joker's place) when the run may take a joker."""
                    out, gaps = [], 0
                    for p in places:
                        gaps += not has(p)
                        if gaps > joker_free:
                            break
                        out.append(p)
                    return out

                low_all = reach(range(lo - 1, max(1, hi - 12) - 1, -1))
                high_all = reach(range(hi + 1, min(14, lo + 12) + 1))
                for a in range(len(low_all) + 1):
                    for b in range(len(high_all) + 1):
                        if hi - lo + 1 + a + b > 13:  # M2: 13 cards at most
                            break
                        low, high = low_all[:a], high_all[:b]  # outwards from the meld
                        if not low and not high and not swap:
                            continue
                        gaps = [p for p in (*low, *high) if not has(p)]
                        if len(gaps) > 1:
                            continue
                        value = base_value + sum(_place_value(p, ace_low)
                                                 for p in (*low, *high))
                        jps = gaps or ([0, *low, *high] if joker_free else [0])
                        for jp in jps:
                            adds = tuple(
                                (C.JOKER_KIND if p == jp else _kind_at(s, p), end,
                                 _kind_at(s, p))
                                for end, side in (("low", low), ("high", high)) for p in side)
                            kinds = tuple(sorted(base + tuple(k for k, _, _ in adds
                                                              if k != C.JOKER_KIND)))
                            out.append(_Change(kinds, int(swap) - (1 if jp else 0), value,
                                               base[0] if swap else -1, adds))
            return out
        r, suits = self.rank, self.suits
        missing = [s for s in range(4) if s not in suits]
        rv = _rank_value(r)
        for n in range(len(missing) + 1):
            for add in combinations(missing, n):
                real = len(suits) + n
                kinds = tuple(s * 13 + r - 1 for s in add)
                adds = tuple((k, "set", k) for k in kinds)
                if self.has_joker:
                    if n and real + 1 <= 4:
                        out.append(_Change(kinds, 0, rv * n, -1, adds))
                    if real == 3:  # J2: the swap card is the fourth suit
                        fourth = next(s for s in missing if s not in add) * 13 + r - 1
                        out.append(_Change(tuple(sorted((*kinds, fourth))), 1, rv * (n + 1),
                                           fourth, adds))
                else:
                    if n and real <= 4:
                        out.append(_Change(kinds, 0, rv * n, -1, adds))
                    if real + 1 <= 4:
                        stand = _first_missing(suits | set(add)) * 13 + r - 1
                        out.append(_Change(kinds, -1, rv * (n + 1), -1,
                                           (*adds, (C.JOKER_KIND, "set", stand))))
        return out

    def outcomes(self, ace_low: int) -> list[tuple[tuple[int, ...], int, int]]:
        """:meth:`changes` without the details: (hand kinds laid into it, jokers freed minus
        jokers added, value of what he laid into it)."""
        return [(c.kinds, c.dj, c.value) for c in self.changes(ace_low)]

    def single_additions(self, have: dict[int, int], jokers: int) -> list[tuple[int, str, int]]:
        """The hand's cards that this meld takes on their own (T6): (kind or ``JOKER_KIND``,
        place, the kind it stands for), one entry per kind and place. A run takes the card
        just below or above it (13 cards at most, never two Ases), or a joker there when it
        holds none; a set of three takes its fourth suit, or a joker when it holds none."""
        out: list[tuple[int, str, int]] = []
        if self.is_run:
            if self.hi - self.lo + 1 >= 13:
                return out
            for end, p in (("low", self.lo - 1), ("high", self.hi + 1)):
                if not 1 <= p <= 14:
                    continue
                k = _kind_at(self.suit, p)
                if have.get(k, 0):
                    out.append((k, end, k))
                if jokers and not self.joker:
                    out.append((C.JOKER_KIND, end, k))
            return out
        if len(self.suits) + self.has_joker >= 4:
            return out
        for s in range(4):
            k = s * 13 + self.rank - 1
            if s not in self.suits and have.get(k, 0):
                out.append((k, "set", k))
        if jokers and not self.has_joker:
            out.append((C.JOKER_KIND, "set", _first_missing(self.suits) * 13 + self.rank - 1))
        return out


def _first_missing(suits: frozenset[int] | set[int]) -> int:
    return next(s for s in range(4) if s not in suits)


class _Change(NamedTuple):
    """One way to change a table meld: the hand's real kinds laid into it (sorted), jokers
    freed minus jokers laid, the value laid (M6), the kind given for its joker (-1: no swap),
    and the cards laid at its ends or among its suits as (kind or ``JOKER_KIND``, place,
    kind it stands for), a run's outwards from the meld."""

    kinds: tuple[int, ...]
    dj: int
    value: int
    swap: int
    adds: tuple[tuple[int, str, int], ...]


class _Fresh(NamedTuple):
    """A new meld the hand's cards could form, with its joker where it is worth most: real
    kinds (sorted), jokers, value (M6), the cards in canonical order (``JOKER_KIND`` at the
    joker's place) and the kind its joker stands for (-1 for none)."""

    kinds: tuple[int, ...]
    jokers: int
    value: int
    is_run: bool
    order: tuple[int, ...]
    joker_as: int


def _new_melds(have: dict[int, int], jokers: int, ace_low: int) -> list[_Fresh]:
    """Every new meld (M1-M4) the cards could form, one entry per multiset of cards, its joker
    at the place worth most."""
    found: dict[tuple[tuple[int, ...], int], _Fresh] = {}

    def add(kinds: tuple[int, ...], jk: int, value: int, is_run: bool, order: tuple[int, ...],
            joker_as: int) -> None:
        if jk > jokers or any(have.get(k, 0) == 0 for k in kinds):
            return
        key = (tuple(sorted(kinds)), jk)
        if key not in found or found[key].value < value:
            found[key] = _Fresh(key[0], jk, value, is_run, order, joker_as)

    for r in range(1, 14):
        held = [s for s in range(4) if have.get(s * 13 + r - 1, 0)]
        for n in (2, 3, 4):
            for suits in combinations(held, n):
                kinds = tuple(s * 13 + r - 1 for s in suits)
                if n >= 3:
                    add(kinds, 0, n * _rank_value(r), False, kinds, -1)
                if n <= 3:
                    add(kinds, 1, (n + 1) * _rank_value(r), False, (*kinds, C.JOKER_KIND),
                        _first_missing(set(suits)) * 13 + r - 1)
    for s in range(4):
        for lo in range(1, 13):
            missing: list[int] = []
            value = 0
            for hi in range(lo, min(14, lo + 12) + 1):
                value += _place_value(hi, ace_low)
                if not have.get(_kind_at(s, hi), 0):
                    missing.append(hi)
                    if len(missing) > min(1, jokers):
                        break
                if hi - lo < 2:
                    continue
                places = list(range(lo, hi + 1))
                kinds = [_kind_at(s, p) for p in places]
                if not missing:
                    add(tuple(kinds), 0, value, True, tuple(kinds), -1)
                for j in range(len(places)) if not missing else [places.index(missing[0])]:
                    add(tuple(kinds[:j] + kinds[j + 1:]), 1, value, True,
                        (*kinds[:j], C.JOKER_KIND, *kinds[j + 1:]), kinds[j])
    return list(found.values())


# ---------------------------------------------------------------- the answer


@dataclass(frozen=True)
class Addition:
    """A card of the hand laid onto table meld number ``meld`` (T6). ``card`` is its kind
    (``cards.JOKER_KIND`` for a joker, the player's own or one freed by a swap); ``place`` is
    ``"low"`` or ``"high"`` for the end of a run it extends, ``"set"`` for a set; ``stands_for``
    is the kind it stands for there (a real card its own; a joker the card of its place in a
    run, the first missing suit in a set, as ``actions.Meld`` has it)."""

    card: int
    meld: int
    place: str
    stands_for: int

    def card_text(self) -> str:
        """``8h``, or ``X=8h`` for a joker."""
        if self.card == C.JOKER_KIND:
            return "X=" + C.kind_text(self.stands_for)
        return C.kind_text(self.card)


@dataclass(frozen=True)
class JokerSwap:
    """J1: the hand's real card ``card`` (a kind) takes the place of the joker of table meld
    number ``meld``, which stood for ``joker_as`` (the same card: a run's joker the card of its
    place, a set's the fourth suit, J2). In a lay-down, ``joker_to`` is the number of the meld
    where the freed joker is laid again (J3): a table meld, or a new one (numbered after the
    table's); ``None`` in the list of possible swaps."""

    meld: int
    card: int
    joker_as: int
    joker_to: int | None = None


@dataclass(frozen=True)
class NewMeld:
    """A new meld laid from the hand (freed jokers included), number ``meld`` on the table:
    the melds already there keep 0 .. n-1 and the new ones follow in the order laid. ``cards``
    are kinds in canonical order (a run from its low end, a set by suit, ``JOKER_KIND`` at the
    joker's place), ``joker_as`` the kind the joker stands for (``None`` without one),
    ``value`` its M6 value."""

    meld: int
    is_run: bool
    cards: tuple[int, ...]
    joker_as: int | None
    value: int

    def text(self) -> str:
        """E.g. ``4c 5c X=6c``: the form :meth:`TableMeld.parse` reads."""
        return " ".join("X=" + C.kind_text(self.joker_as) if k == C.JOKER_KIND
                        and self.joker_as is not None else C.kind_text(k) for k in self.cards)


Step = Addition | JokerSwap | NewMeld
"""One move of a lay-down with the table (T6, J1)."""


@dataclass(frozen=True)
class TableAnswer:
    """V5 for one hand and one table, with what a player at the table asks besides.

    ``best_value``, ``min_penalty`` and ``can_go_out`` are V5's numbers. ``laydown`` is one
    lay-down reaching ``best_value`` (of those, one leaving the least penalty), as moves in an
    order in which they can be played (T6): real cards added to table melds whose additions
    need no joker, then the swaps (J1; a set's swap after the addition that gives it three real
    suits, J2), then the new melds, then the additions that lay a joker (a run's cards from the
    meld outwards). Every freed joker is laid again in it (J3). ``left`` are the hand's kinds
    it leaves (``JOKER_KIND`` for a joker); ``penalty_left`` their penalty (M7).

    ``additions`` lists each card of the hand that a table meld takes on its own (T6), one
    entry per kind, meld and place, by meld then card. ``swaps`` lists each joker of the table
    the hand can take (J1): the hand holds the card it stands for, a set's joker only once the
    set has three real suits (J2; the third may come from the hand, so with both missing suits
    in hand either can be the card given), and some lay-down lays the freed joker again (J3).
    Like V5's lay-downs these do not keep a card back for the discard."""

    best_value: int
    min_penalty: int
    can_go_out: bool
    laydown: tuple[Step, ...]
    left: tuple[int, ...]
    penalty_left: int
    additions: tuple[Addition, ...]
    swaps: tuple[JokerSwap, ...]

    def numbers(self) -> MeldAnswer:
        """The three numbers alone, as :func:`solve_with_table` gives them."""
        return MeldAnswer(self.best_value, self.min_penalty, self.can_go_out)


# ---------------------------------------------------------------- the search


Result = tuple[int, int, int, int] | None
"""(best value, least penalty left, reachable counts of cards left in {0, 1} as bits, least
penalty left by a lay-down reaching the best value), or None when no lay-down exists (a freed
joker could not be laid again)."""


def _better(a: Result, b: Result) -> Result:
    if a is None:
        return b
    if b is None:
        return a
    tie = min(a[3], b[3]) if a[0] == b[0] else (a[3] if a[0] > b[0] else b[3])
    return max(a[0], b[0]), min(a[1], b[1]), a[2] | b[2], tie


_BITS = 3
"""Bits of one kind's count in a packed multiset: the count (0 .. 2) and a guard bit."""


def _pack(counts: Sequence[int]) -> int:
    """A multiset of the hand's kinds (counts 0 .. 2, in kind order) as one integer, 3 bits a
    kind, so that taking a meld's cards out is one subtraction (see :meth:`_Search.minus`)."""
    return sum(c << (_BITS * i) for i, c in enumerate(counts))


class _Search:
    """The exact search over one hand and table, memoised. ``changes[m]`` are the ways table
    meld m may change (with the packed hand kinds each needs); ``fresh[i]`` the new melds whose
    lowest kind is the hand's i-th (the pivot when they are tried)."""

    def __init__(self, kinds: list[int], jokers: int,
                 changes: list[list[tuple[int, _Change]]],
                 fresh: list[list[tuple[int, _Fresh]]]) -> None:
        self.kinds = kinds
        self.jokers = jokers
        self.changes = changes
        self.fresh = fresh
        self.pen = [_rank_value(k % 13 + 1) for k in kinds]
        self.guard = sum(4 << (_BITS * i) for i in range(len(kinds)))
        self.new_memo: dict[tuple[int, int], Result] = {}
        self.table_memo: dict[tuple[int, int, int], Result] = {}

    def minus(self, counts: int, need: int) -> int | None:
        """``counts`` less ``need`` (packed, every count of ``need`` 0 or 1), or None when
        ``counts`` lacks a card: a field that borrows clears its guard bit."""
        diff = (counts | self.guard) - need
        return diff - self.guard if diff & self.guard == self.guard else None

    @staticmethod
    def pivot(counts: int) -> tuple[int, int]:
        """The first kind held (its index) and its count; (-1, 0) for no card."""
        if not counts:
            return -1, 0
        i = ((counts & -counts).bit_length() - 1) // _BITS
        return i, (counts >> (_BITS * i)) & 7

    def new_melds(self, counts: int, jk: int) -> Result:
        """New melds from the cards left; no more jokers may stay than the hand brought."""
        key = (counts, jk)
        if key in self.new_memo:
            return self.new_memo[key]
        i, c = self.pivot(counts)
        if i < 0:
            best: Result = None
            if jk <= self.jokers:
                p = JOKER_PENALTY * jk
                best = 0, p, (1 << jk) & 3, p
        else:
            r = self.new_melds(counts - (c << (_BITS * i)), jk)
            p = c * self.pen[i]
            best = None if r is None else (r[0], r[1] + p, (r[2] << c) & 3, r[3] + p)
            for need, f in self.fresh[i]:
                left = self.minus(counts, need)
                if f.jokers > jk or left is None:
                    continue
                r = self.new_melds(left, jk - f.jokers)
                if r is not None:
                    best = _better(best, (r[0] + f.value, r[1], r[2], r[3]))
        self.new_memo[key] = best
        return best

    def on_table(self, m: int, counts: int, jk: int) -> Result:
        """Table melds m, m+1, ... changed in every way, then the new melds. ``jk``: jokers in
        play, the hand's plus those freed minus those laid on the table, below zero while a
        later swap may still free one."""
        if m == len(self.changes):
            return self.new_melds(counts, jk) if jk >= 0 else None
        key = (m, counts, jk)
        if key in self.table_memo:
            return self.table_memo[key]
        best: Result = None
        for need, ch in self.changes[m]:
            left = self.minus(counts, need)
            if left is None:
                continue
            r = self.on_table(m + 1, left, jk + ch.dj)
            if r is not None:
                best = _better(best, (r[0] + ch.value, r[1], r[2], r[3]))
        self.table_memo[key] = best
        return best

    def swap_possible(self, m: int, card: int) -> bool:
        """Whether some lay-down swaps the joker of table meld m for ``card`` (J1-J3). Run after
        the search from the start: the memo then holds every state that the changes of melds
        0 .. m-1 reach, so the swap is possible when one of them goes on to a lay-down."""
        for (mm, counts, jk) in list(self.table_memo):
            if mm != m:
                continue
            for need, ch in self.changes[m]:
                if ch.swap != card:
                    continue
                left = self.minus(counts, need)
                if left is not None and self.on_table(m + 1, left, jk + ch.dj) is not None:
                    return True
        return False

    def witness(self, counts: int) -> tuple[list[_Change], list[_Fresh], list[int], int]:
        """Walks the search again choosing, at every step, a branch that gave the optimum
        (best value, then least penalty left): the change of every table meld, the new melds,
        the hand kinds left and the jokers left."""
        jk = self.jokers
        target = self.on_table(0, counts, jk)
        assert target is not None
        chosen: list[_Change] = []
        for m in range(len(self.changes)):
            for need, ch in self.changes[m]:
                left = self.minus(counts, need)
                if left is None:
                    continue
                r = self.on_table(m + 1, left, jk + ch.dj)
                if r is not None and (r[0] + ch.value, r[3]) == (target[0], target[3]):
                    chosen.append(ch)
                    counts, jk, target = left, jk + ch.dj, r
                    break
            else:
                raise AssertionError("table search: no change reaches its optimum")
        laid: list[_Fresh] = []
        kept: list[int] = []
        while True:
            i, c = self.pivot(counts)
            if i < 0:
                return chosen, laid, kept, jk
            target = self.new_melds(counts, jk)
            rest = counts - (c << (_BITS * i))
            r = self.new_melds(rest, jk)
            if r is not None and (r[0], r[3] + c * self.pen[i]) == (target[0], target[3]):
                kept += [self.kinds[i]] * c
                counts = rest
                continue
            for need, f in self.fresh[i]:
                left = self.minus(counts, need)
                if f.jokers > jk or left is None:
                    continue
                r = self.new_melds(left, jk - f.jokers)
                if r is not None and (r[0] + f.value, r[3]) == (target[0], target[3]):
                    laid.append(f)
                    counts, jk = left, jk - f.jokers
                    break
            else:
                raise AssertionError("table search: no new meld reaches its optimum")


def _prepare(hand: str | Sequence[int], table: Sequence[str | TableMeld], ace_low: int
             ) -> tuple[_Search, int, list[TableMeld], dict[int, int]]:
    """Checks the hand and the table (D1) and sets the search up."""
    ids = C.as_ids(hand)
    if len(ids) > MAX_HAND:
        raise UsageError(f"a hand of {len(ids)} cards: the meld solver takes at most {MAX_HAND}")
    melds = [m if isinstance(m, TableMeld) else TableMeld.parse(m) for m in table]
    have: dict[int, int] = {}
    for c in ids:
        k = C.kind(c)
        have[k] = have.get(k, 0) + 1
    jokers = have.pop(C.JOKER_KIND, 0)
    seen = dict(have)
    seen_jokers = jokers
    for m in melds:
        for k in m.kinds():
            seen[k] = seen.get(k, 0) + 1
        seen_jokers += m.jokers()
    if any(n > 2 for n in seen.values()) or seen_jokers > C.N_JOKERS:
        raise UsageError("hand and table hold more than two of one card or more than four jokers")
    kinds = sorted(have)
    index = {k: i for i, k in enumerate(kinds)}

    def need_of(ks: tuple[int, ...]) -> int | None:
        """The packed kinds a meld or change needs (each kind once), None if not held."""
        assert len(set(ks)) == len(ks)
        if any(k not in index for k in ks):
            return None
        return _pack([int(k in ks) for k in kinds])

    changes = []
    for m in melds:
        usable = []
        for ch in m.changes(ace_low, index):
            need = need_of(ch.kinds)
            if need is not None:
                usable.append((need, ch))
        changes.append(usable)
    fresh: list[list[tuple[int, _Fresh]]] = [[] for _ in kinds]
    for f in _new_melds(have, jokers + sum(m.jokers() for m in melds), ace_low):
        need = need_of(f.kinds)
        assert need is not None
        fresh[min(index[k] for k in f.kinds)].append((need, f))
    search = _Search(kinds, jokers, changes, fresh)
    return search, _pack([have[k] for k in kinds]), melds, have


def solve_with_table(hand: str | Sequence[int], table: Sequence[str | TableMeld],
                     rules: RomiRules | None = None) -> MeldAnswer:
    """V5: best_value, min_penalty and can_go_out for a player who has opened, given the melds
    on the table (text such as ``"5h X 7h"``, ``"7c 7d 7s X"``, ``"Qh Kh X=Ah"``)."""
    search, counts, _, _ = _prepare(hand, table, 1 if rules is None else rules.ace_low_value)
    res = search.on_table(0, counts, search.jokers)
    assert res is not None  # laying nothing is always a lay-down
    return MeldAnswer(res[0], res[1], bool(res[2] & 2))


def answer_with_table(hand: str | Sequence[int], table: Sequence[str | TableMeld],
                      rules: RomiRules | None = None) -> TableAnswer:
    """V5 with a lay-down reaching ``best_value`` and the additions and swaps the hand allows
    (see :class:`TableAnswer`); the table as in :func:`solve_with_table`."""
    search, counts, melds, have = _prepare(hand, table,
                                           1 if rules is None else rules.ace_low_value)
    res = search.on_table(0, counts, search.jokers)
    assert res is not None
    chosen, laid, left, left_jokers = search.witness(counts)
    n = len(melds)
    news = [NewMeld(n + j, f.is_run, f.order, f.joker_as if f.jokers else None, f.value)
            for j, f in enumerate(laid)]
    # Where jokers are laid, in play order: additions (by meld) then new melds. The freed
    # jokers take the first of these places (the jokers are interchangeable).
    joker_places = [m for m, ch in enumerate(chosen) for k, _, _ in ch.adds
                    if k == C.JOKER_KIND] + [nm.meld for nm in news if nm.joker_as is not None]
    swaps_made = [(m, ch) for m, ch in enumerate(chosen) if ch.swap >= 0]
    assert len(joker_places) >= len(swaps_made)  # J3
    first: list[Step] = []
    last: list[Step] = []
    for m, ch in enumerate(chosen):
        adds = [Addition(k, m, place, stand) for k, place, stand in ch.adds]
        (last if any(k == C.JOKER_KIND for k, _, _ in ch.adds) else first).extend(adds)
    swaps_laid = [JokerSwap(m, ch.swap, ch.swap, joker_places[i])
                  for i, (m, ch) in enumerate(swaps_made)]
    left_all = tuple(left) + (C.JOKER_KIND,) * left_jokers
    penalty_left = sum(_rank_value(k % 13 + 1) for k in left) + JOKER_PENALTY * left_jokers
    assert penalty_left == res[3]

    additions = tuple(Addition(k, m, place, stand) for m, meld in enumerate(melds)
                      for k, place, stand in meld.single_additions(have, search.jokers))
    possible = [JokerSwap(m, card, card) for m in range(n)
                for card in sorted({ch.swap for _, ch in search.changes[m] if ch.swap >= 0})
                if search.swap_possible(m, card)]
    return TableAnswer(res[0], res[1], bool(res[2] & 2),
                       (*first, *swaps_laid, *news, *last), left_all, penalty_left,
                       additions, tuple(possible))
