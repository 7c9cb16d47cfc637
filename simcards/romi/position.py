"""One Römi position, as the seat to play sees it, checked and answered exactly.

A position is what the seat knows when its turn comes, before it draws (I1, I2): its hand, the
melds on the table, the top of the discard pile, the cut card, whether it has opened, the other
players' hand sizes (in playing order from the seat's left) and whether each has opened, and the
round's turn (1 for the starter's first turn, a discard only, D4; each player's turn adds one).

:func:`check` refuses a position that no deal and no play can reach, with one line naming the
contradiction (:class:`~simcards.core.errors.UsageError`): a card more times than the deck holds
(D1), a hand size that the deal (D4) and the turns played cannot give, an opening that O2 does
not allow yet, melds on a table where nobody has opened (or an opened player and an empty table,
M5), a discard before anybody has discarded.

:func:`draws` answers the draw (T2-T5) exactly: for each source, whether it is legal (T3: a first
draw takes the discard freely; T4: later only when the turn can place it; T5: the cut card only
to go out) and whether and for how much the seat goes out with it (G2, G3); for the stock, the
chance that the card drawn lets the seat go out, the unseen cards being equally likely to be on
top (Q7's reading of the observation). The turn questions (T4, T5 and going out before having
opened) are asked of the reference engine's search over the legal melding moves
(:mod:`simcards.romi.reference`), after the exact solvers have ruled out every hand that cannot
go out at all. Under ``swap_keeps_romi`` (G3's other reading) the same search, kept from adding
any card to the melds already on the table, says whether a close after joker swaps keeps the -20.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from simcards.core.errors import UsageError
from simcards.romi import cards as C
from simcards.romi import melds_kernel
from simcards.romi import reference as REF
from simcards.romi import table_melds_exact as T
from simcards.romi.actions import NO_JOKER, Add, Meld
from simcards.romi.rules import HAND_SIZE, STARTER_SIZE, RomiRules

GO_OUT, ROMI = -10, -20
"""G2 and G3: the score of going out, and of going out in the turn one opens, own melds only."""


@dataclass(frozen=True)
class Position:
    """A checked position: card ids (the table's given ids of their own, distinct from the
    hand's), the seat's count of players and what its turn allows."""

    hand: tuple[int, ...]
    table: tuple[T.TableMeld, ...]
    discard: int | None
    cut: int | None
    opened: bool
    others: tuple[int, ...]
    others_opened: tuple[bool, ...]
    turn: int
    drawn: int | None = None
    """The card the seat has drawn from the stock this turn, when it gives one (the advice is
    then for the rest of its turn, Q10)."""

    @property
    def players(self) -> int:
        return len(self.others) + 1

    @property
    def turns_played(self) -> int:
        """The seat's turns before this one: it plays every ``players``-th turn."""
        return (self.turn - 1) // self.players

    @property
    def starter(self) -> bool:
        """D4: the seat played the round's first turn."""
        return (self.turn - 1) % self.players == 0

    @property
    def discard_only(self) -> bool:
        """D4: the starter's first turn is only a discard."""
        return self.turn == 1

    @property
    def first_draw(self) -> bool:
        """T3: the seat has not drawn yet this round."""
        return self.turns_played == (1 if self.starter else 0)

    @property
    def may_open(self) -> bool:
        """O2: never on the seat's very first turn."""
        return self.turns_played >= 1


def one_card(text: str, flag: str) -> int:
    """A single card (``--discard``, ``--cut``), in the notation of ``--hand``."""
    try:
        ids = C.parse_hand(text)
    except UsageError as exc:
        raise UsageError(f"{flag}: {exc}") from None
    if len(ids) != 1:
        raise UsageError(f"{flag} {text!r}: give one card, e.g. Qd")
    return ids[0]


def make(hand: Sequence[int], table: Sequence[T.TableMeld], discard: int | None,
         cut: int | None, opened: bool, others: Sequence[int], others_opened: Sequence[bool],
         turn: int, rules: RomiRules, drawn: int | None = None) -> Position:
    """The position checked (:func:`check`), the discard, the cut card and the card drawn
    given ids of their own: read apart, each is copy 0 of its card, which the hand may hold too
    (D1)."""
    seen = Counter(C.kind(c) for c in hand)
    for m in table:
        seen.update(m.kinds())
        seen[C.JOKER_KIND] += m.jokers()
    for c in (discard, cut, drawn):
        if c is not None:
            seen[C.kind(c)] += 1
    for k, count in sorted(seen.items()):
        most = C.N_JOKERS if k == C.JOKER_KIND else 2
        if count > most:
            name = "jokers" if k == C.JOKER_KIND else f"times {C.kind_text(k)}"
            where = ("the discard, the cut and the card drawn" if drawn is not None
                     else "the discard and the cut")
            raise UsageError(f"{count} {name} between the hand, the table, {where}: the deck "
                             f"holds {most} (D1)")
    used = set(hand)
    ids = []
    for c in (discard, cut, drawn):
        if c is not None:
            c = _free_id(C.kind(c), used)
            used.add(c)
        ids.append(c)
    p = Position(tuple(hand), tuple(table), ids[0], ids[1], opened, tuple(others),
                 tuple(others_opened), turn, ids[2])
    check(p, rules)
    return p


def _max_after_opening(open_min: int) -> int:
    """The most cards a player can hold once he has opened: 15 after his draw, less the fewest
    cards of melds worth ``open_min`` (M6: no card counts more than 10; a meld holds 3 or more),
    less his discard."""
    fewest = max(3, -(-open_min // 10))
    return STARTER_SIZE - fewest - 1


def _turns_of_other(turn: int, players: int, k: int) -> int:
    """Turns played before ``turn`` by the player ``k`` seats to the seat's left: he plays the
    turns ``turn + k - players``, ``turn + k - 2 players``, ... from 1 on."""
    return (turn + k - 1) // players


def check(p: Position, rules: RomiRules) -> None:
    """Every contradiction a position can hold, the first found as a one-line ``UsageError``."""
    n = p.players
    if not 2 <= n <= 5:
        raise UsageError(f"--others gives {n} players: Römi is played by 2 to 5 (D2)")
    if len(p.others_opened) != len(p.others):
        raise UsageError(f"--others-opened has {len(p.others_opened)} entries for "
                         f"{len(p.others)} other players (--others)")
    if p.turn < 1:
        raise UsageError(f"--turn {p.turn}: the round's turns count from 1 (the starter's)")
    top = _max_after_opening(rules.open_min)
    if p.opened:
        if p.turns_played < 2:
            raise UsageError(f"--opened at turn {p.turn} with {n} players: the seat has played "
                             f"{p.turns_played} turn(s), and nobody opens on his first (O2)")
        if not 1 <= len(p.hand) <= top:
            raise UsageError(f"a hand of {len(p.hand)} cards after opening: an opened player "
                             f"holds 1 to {top} (D4, O1: 15 at most after a draw, melds worth "
                             f"{rules.open_min} laid, one discarded)")
    else:
        want = STARTER_SIZE if p.discard_only else HAND_SIZE
        if len(p.hand) != want:
            raise UsageError(f"a hand of {len(p.hand)} cards before opening at turn {p.turn}: "
                             f"it holds {want} (D4; a turn draws one card and discards one)")
    for k, (size, opened) in enumerate(zip(p.others, p.others_opened, strict=True), 1):
        played = _turns_of_other(p.turn, n, k)
        if opened and played < 2:
            raise UsageError(f"other player {k} opened but has played {played} turn(s) by "
                             f"turn {p.turn}: nobody opens on his first turn (O2)")
        if opened and not 1 <= size <= top:
            raise UsageError(f"other player {k} holds {size} cards after opening: an opened "
                             f"player holds 1 to {top} (D4, O1)")
        if not opened and size != HAND_SIZE:
            raise UsageError(f"other player {k} holds {size} cards before opening: he holds "
                             f"{HAND_SIZE} between his turns (D4)")
    anyone = p.opened or any(p.others_opened)
    if p.table and not anyone:
        raise UsageError("melds on the table but nobody has opened: only an opening lays the "
                         "first melds (O1, O3)")
    if anyone and not p.table:
        raise UsageError("a player has opened but the table is empty: melds stay on the table "
                         "until the round ends (M5)")
    if p.discard_only and p.discard is not None:
        raise UsageError("a discard at turn 1: the starter's first discard is the round's "
                         "first (D4)")
    if p.discard_only and p.drawn is not None:
        raise UsageError("--drawn at turn 1: the starter's first turn is a discard only, "
                         "without a draw (D4)")
    if p.discard_only and any(p.others_opened):
        raise UsageError("turn 1 and an opened player: nobody has played yet (D4)")
    known = (len(p.hand) + sum(len(m.kinds()) + m.jokers() for m in p.table)
             + sum(c is not None for c in (p.discard, p.cut, p.drawn)) + sum(p.others))
    if known > C.N_CARDS:
        raise UsageError(f"{known} cards between the hand, the table, the discard, the cut and "
                         f"the other hands: the deck holds {C.N_CARDS} (D1)")


def unseen(p: Position) -> tuple[np.ndarray, int]:
    """Copies of each kind (53, jokers last) the seat has not seen: in the other hands or the
    stock, and (hidden under the top) the rest of the discard pile."""
    out = np.array([2] * C.N_KINDS + [C.N_JOKERS], np.int64)
    for c in (*p.hand, *(c for c in (p.discard, p.cut, p.drawn) if c is not None)):
        out[C.kind(c)] -= 1
    for m in p.table:
        for k in m.kinds():
            out[k] -= 1
        out[C.JOKER_KIND] -= m.jokers()
    return out, int(out.sum())


def _free_id(k: int, used: set[int]) -> int:
    """An id of kind ``k`` (a joker for ``C.JOKER_KIND``) not in ``used``; copies are
    interchangeable (D1), so which one does not matter."""
    ids = range(C.JOKER0, C.N_CARDS) if k == C.JOKER_KIND else (k, k + C.N_KINDS)
    return next(i for i in ids if i not in used)


def reference_table(table: Sequence[T.TableMeld], used: set[int]) -> tuple[Meld, ...]:
    """The table melds as the reference engine's canonical melds, with ids not in ``used``
    (which it extends)."""
    out = []
    for m in table:
        ids = []
        for k in [*m.kinds(), *([C.JOKER_KIND] * m.jokers())]:
            i = _free_id(k, used)
            used.add(i)
            ids.append(i)
        stands = m.joker_as()
        out.append(REF.canonical(ids, NO_JOKER if stands is None else stands))
    return tuple(out)


@dataclass(frozen=True)
class Draw:
    """One source of the draw: its card (``None`` for the stock), whether it is legal, the rule
    that decides it, and the score of going out with it this turn (``None`` when the seat
    cannot); for the stock ``go_out_chance`` instead, over the unseen cards."""

    source: str
    card: int | None
    legal: bool
    rule: str
    go_out: int | None = None
    go_out_chance: float | None = None


class Turn:
    """The exact questions of one turn from a position: going out with a card added, and T4."""

    def __init__(self, p: Position, rules: RomiRules) -> None:
        self.p, self.rules = p, rules
        self.used = set(p.hand) | {c for c in (p.discard, p.cut, p.drawn) if c is not None}
        self.table = reference_table(p.table, self.used)

    def _search(self, hand: Sequence[int], table: tuple[Meld, ...], must: int | None,
                go_out: bool) -> bool:
        s = REF._Search(self.rules, self.p.may_open, must, go_out)
        return s.can_finish(tuple(sorted(hand)), table, self.p.opened, frozenset())

    def go_out(self, card: int, must_place: bool = False) -> int | None:
        """The score (G2, G3) of going out this turn with ``card`` drawn; ``None`` if the seat
        cannot. ``must_place``: the card came from the pile after a first draw (T4)."""
        hand = [*self.p.hand, card]
        must = card if must_place else None
        if self.p.opened:
            if not T.answer_with_table(hand, list(self.p.table), self.rules).can_go_out:
                return None
            return GO_OUT if self._search(hand, self.table, must, True) else None
        if not self.p.may_open:
            return None
        own = melds_kernel.solve_batch(np.array([hand], np.int64), self.rules.ace_low_value)
        if own[0][2] and self._search(hand, (), must, True):
            return ROMI
        if not (self.p.table and T.answer_with_table(hand, list(self.p.table),
                                                    self.rules).can_go_out):
            return None
        if self.rules.swap_keeps_romi and any(m.jokers() for m in self.p.table):
            # G3 read as "the melds he laid": swaps on the table keep the -20, adds do not.
            s = _OwnMeldsSearch(self.rules, self.p.may_open, must, len(self.table))
            if s.can_finish(tuple(sorted(hand)), self.table, False, frozenset()):
                return ROMI
        return GO_OUT if self._search(hand, self.table, must, True) else None

    def can_place(self, card: int) -> bool:
        """T4: some legal sequence of melding moves this turn puts ``card`` on the table. Before
        opening it must open, so the hand with the card must be worth ``open_min`` in melds of
        its own (O1), which the solver settles at once for most hands."""
        if not self.p.opened:
            if not self.p.may_open:
                return False
            own = melds_kernel.solve_batch(np.array([[*self.p.hand, card]], np.int64),
                                           self.rules.ace_low_value)
            if own[0][0] < self.rules.open_min:
                return False
        return self._search([*self.p.hand, card], self.table, card, False)


class _OwnMeldsSearch(REF._Search):
    """The reference's turn search (going out) over the moves that keep a Römi under
    ``swap_keeps_romi`` (G3): the opening, the seat's own new melds, cards added to those and
    joker swaps anywhere, but no card added to one of the first ``others`` table melds (the
    melds on the table when the turn began, laid by other players since the seat has not
    opened). Moves keep the table's order (``_melding_moves`` appends, or replaces in place),
    so those melds stay first; the memo keeps the two parts of the table apart."""

    def __init__(self, rules: RomiRules, may_open: bool, must_place: int | None,
                 others: int) -> None:
        super().__init__(rules, may_open, must_place, True)
        self.others = others

    def can_finish(self, hand: tuple[int, ...], table: tuple[Meld, ...], opened: bool,
                   freed: frozenset[int]) -> bool:
        freed = freed.intersection(hand)
        if self.done(hand, freed):
            return True
        parts = tuple(tuple(sorted(ms, key=lambda m: (m.cards, m.stands_for)))
                      for ms in (table[:self.others], table[self.others:]))
        key = (hand, parts, opened, freed)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = False
        result = False
        if not self.hopeless(hand, (*parts[0], *parts[1])):
            for action, h2, t2, o2, f2 in REF._melding_moves(hand, table, opened, self.may_open,
                                                             self.rules, minimal=True):
                if isinstance(action, Add) and action.target < self.others:
                    continue
                if self.can_finish(h2, t2, o2, freed | f2):
                    result = True
                    break
        self.memo[key] = result
        return result


def draws(p: Position, rules: RomiRules) -> list[Draw]:
    """The draw's sources (T2-T5), each answered exactly; none at the starter's first turn;
    only the stock, with its card, when the seat has drawn it (``drawn``)."""
    if p.discard_only:
        return []
    turn = Turn(p, rules)
    if p.drawn is not None:  # the draw is made: the stock's card is known (Q10)
        return [Draw("stock", p.drawn, True, "T2", turn.go_out(p.drawn))]
    counts, total = unseen(p)
    chance = 0.0
    for k in np.flatnonzero(counts):
        card = _free_id(int(k), turn.used | set(c for m in turn.table for c in m.cards))
        if turn.go_out(card) is not None:
            chance += counts[k] / total
    out = [Draw("stock", None, True, "T2", go_out_chance=float(chance))]
    if p.discard is not None:
        if p.first_draw:
            out.append(Draw("discard", p.discard, True, "T3", turn.go_out(p.discard)))
        else:
            legal = turn.can_place(p.discard)
            out.append(Draw("discard", p.discard, legal, "T4",
                            turn.go_out(p.discard, must_place=True) if legal else None))
    if p.cut is not None:
        score = turn.go_out(p.cut)
        out.append(Draw("cut", p.cut, score is not None, "T5", score))
    return out
