"""The meld solver's questions with melds on the table (V5 of ``seeds/romi.md``), in Python.

For a player who has opened, a lay-down may, besides new melds from his hand, add cards of his
hand to table melds (T6) and swap table jokers (J1, J2), provided every joker so freed is laid
again in the same lay-down (J3). The answers:

- ``best_value``: the greatest value (M6) of the cards laid: hand cards at the place they take
  (in a new meld or a table meld), each joker laid (his own or a freed one) as the card it
  stands for;
- ``min_penalty``: the smallest penalty (M7) of the hand cards left;
- ``can_go_out``: whether a lay-down leaves exactly one card (the discard, never a freed joker);

and with an empty table they equal V1-V3 of :mod:`simcards.romi.melds`.

How. Each table meld is turned, one after the other, into every final form it can take: the
cards added (a run grows at either end, a set takes missing suits, at most one joker in all),
and its joker kept or swapped for the real card it stands for (a set's joker only when the set
has three real suits, the swap card being the fourth). A swap frees a joker, an added joker uses
one; the jokers are interchangeable, so the count of jokers in play may run below zero while
melds are visited and must be back at zero or more before the new melds are searched, and the
new melds must leave no more jokers than the hand brought. The hand left after the table is
searched as in ``melds`` (pivot card left or put in a meld containing it), in Python with a
memo. Exact; slower than the kernel (milliseconds a hand), meant for play and tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations

from simcards.core.errors import UsageError
from simcards.romi import cards as C
from simcards.romi.melds import MAX_HAND, MeldAnswer
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
        stands for; needed only for a joker at the end of a run). ``UsageError`` if it is no
        valid meld (M1-M4)."""
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
                    for q in ends:
                        if _kind_at(s, q) == want:
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

    def outcomes(self, ace_low: int) -> list[tuple[tuple[int, ...], int, int]]:
        """Every way the player can change this meld (T6, J1, J2): (hand kinds laid into it,
        jokers freed minus jokers added, value of what he laid into it). The first is leaving
        it alone."""
        out: list[tuple[tuple[int, ...], int, int]] = [((), 0, 0)]
        if self.is_run:
            s, lo, hi, q = self.suit, self.lo, self.hi, self.joker
            swaps = (False, True) if q else (False,)
            for swap in swaps:
                base = (_kind_at(s, q),) if swap else ()
                base_value = _place_value(q, ace_low) if swap else 0
                joker_free = not q or swap  # may the final run take a joker from the pool?
                for lo2 in range(max(1, hi - 12), lo + 1):
                    for hi2 in range(hi, min(14, lo2 + 12) + 1):
                        new = [*range(lo2, lo), *range(hi + 1, hi2 + 1)]
                        if not new and not swap:
                            continue
                        for jp in [0, *new] if joker_free else [0]:
                            kinds = tuple(sorted(
                                base + tuple(_kind_at(s, p) for p in new if p != jp)))
                            value = base_value + sum(_place_value(p, ace_low) for p in new)
                            out.append((kinds, int(swap) - (1 if jp else 0), value))
            return out
        r, suits = self.rank, self.suits
        missing = [s for s in range(4) if s not in suits]
        rv = _rank_value(r)
        for n in range(len(missing) + 1):
            for add in combinations(missing, n):
                real = len(suits) + n
                kinds = tuple(s * 13 + r - 1 for s in add)
                if self.has_joker:
                    if n and real + 1 <= 4:
                        out.append((kinds, 0, rv * n))
                    if real == 3:  # J2: the swap card is the fourth suit
                        fourth = next(s for s in missing if s not in add)
                        out.append((tuple(sorted((*kinds, fourth * 13 + r - 1))), 1,
                                    rv * (n + 1)))
                else:
                    if n and real <= 4:
                        out.append((kinds, 0, rv * n))
                    if real + 1 <= 4:
                        out.append((kinds, -1, rv * (n + 1)))
        return out


def _new_melds(have: dict[int, int], jokers: int, ace_low: int
               ) -> list[tuple[tuple[int, ...], int, int, int]]:
    """Every new meld (M1-M4) the cards could form: (kinds, jokers, value at its best joker
    place, penalty of its cards), one entry per multiset of cards."""
    found: dict[tuple[tuple[int, ...], int], int] = {}

    def add(kinds: tuple[int, ...], jk: int, value: int) -> None:
        if jk > jokers or any(have.get(k, 0) == 0 for k in kinds):
            return
        key = (tuple(sorted(kinds)), jk)
        found[key] = max(found.get(key, -1), value)

    for r in range(1, 14):
        held = [s for s in range(4) if have.get(s * 13 + r - 1, 0)]
        for n in (2, 3, 4):
            for suits in combinations(held, n):
                kinds = tuple(s * 13 + r - 1 for s in suits)
                if n >= 3:
                    add(kinds, 0, n * _rank_value(r))
                if n <= 3:
                    add(kinds, 1, (n + 1) * _rank_value(r))
    for s in range(4):
        for lo in range(1, 13):
            for hi in range(lo + 2, min(14, lo + 12) + 1):
                places = list(range(lo, hi + 1))
                value = sum(_place_value(p, ace_low) for p in places)
                missing = [p for p in places if not have.get(_kind_at(s, p), 0)]
                if len(missing) > 1:
                    continue
                kinds = [_kind_at(s, p) for p in places]
                if not missing:
                    add(tuple(kinds), 0, value)
                for j in range(len(places)) if not missing else [places.index(missing[0])]:
                    add(tuple(kinds[:j] + kinds[j + 1:]), 1, value)
    return [(kinds, jk, v, sum(_rank_value(k % 13 + 1) for k in kinds) + JOKER_PENALTY * jk)
            for (kinds, jk), v in found.items()]


Result = tuple[int, int, int] | None
"""(best value, least penalty left, reachable counts of cards left in {0, 1} as bits), or None
when no lay-down exists (a freed joker could not be laid again)."""


def _better(a: Result, b: Result) -> Result:
    if a is None:
        return b
    if b is None:
        return a
    return max(a[0], b[0]), min(a[1], b[1]), a[2] | b[2]


def solve_with_table(hand: str | Sequence[int], table: Sequence[str | TableMeld],
                     rules: RomiRules | None = None) -> MeldAnswer:
    """V5: best_value, min_penalty and can_go_out for a player who has opened, given the melds
    on the table (text such as ``"5h X 7h"``, ``"7c 7d 7s X"``, ``"Qh Kh X=Ah"``)."""
    ace_low = 1 if rules is None else rules.ace_low_value
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
    outcomes = []
    for m in melds:
        usable = []
        for ks, dj, v in m.outcomes(ace_low):
            need = [0] * len(kinds)
            ok = True
            for k in ks:
                if k not in index:
                    ok = False
                    break
                need[index[k]] += 1
            if ok and all(n <= have[k] for n, k in zip(need, kinds, strict=True)):
                usable.append((tuple(need), len(ks), dj, v, sum(_rank_value(k % 13 + 1)
                                                                 for k in ks)))
        outcomes.append(usable)
    fresh = []
    for ks, jk, v, pen in _new_melds(have, jokers + sum(m.jokers() for m in melds), ace_low):
        need = [0] * len(kinds)
        for k in ks:
            need[index[k]] += 1
        fresh.append((tuple(need), jk, v, pen))

    @cache
    def new_melds(counts: tuple[int, ...], jk: int) -> Result:
        """New melds from the cards left; no more jokers may stay than the hand brought."""
        i = next((i for i, c in enumerate(counts) if c), None)
        if i is None:
            if jk > jokers:
                return None
            return 0, JOKER_PENALTY * jk, (1 << jk) & 3
        c = counts[i]
        rest = list(counts)
        rest[i] = 0
        r = new_melds(tuple(rest), jk)
        best = None if r is None else (r[0], r[1] + c * _rank_value(kinds[i] % 13 + 1),
                                       (r[2] << c) & 3)
        for need, mj, v, _pen in fresh:
            if need[i] == 0 or mj > jk or any(n > h for n, h in zip(need, counts, strict=True)):
                continue
            left = tuple(h - n for n, h in zip(need, counts, strict=True))
            r = new_melds(left, jk - mj)
            if r is not None:
                best = _better(best, (r[0] + v, r[1], r[2]))
        return best

    @cache
    def on_table(m: int, counts: tuple[int, ...], jk: int) -> Result:
        """Table melds m, m+1, ... changed in every way, then the new melds."""
        if m == len(melds):
            return new_melds(counts, jk) if jk >= 0 else None
        best: Result = None
        for need, _, dj, v, _pen in outcomes[m]:
            if any(n > h for n, h in zip(need, counts, strict=True)):
                continue
            left = tuple(h - n for n, h in zip(need, counts, strict=True))
            r = on_table(m + 1, left, jk + dj)
            if r is not None:
                best = _better(best, (r[0] + v, r[1], r[2]))
        return best

    res = on_table(0, tuple(have[k] for k in kinds), jokers)
    assert res is not None  # laying nothing is always a lay-down
    return MeldAnswer(res[0], res[1], bool(res[2] & 2))
