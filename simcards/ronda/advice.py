"""``simcards ronda advise``: what to play in one position, every card of the hand ranked by
its expected point margin over the rest of the hand.

The position is what the seat to move sees (I1): its hand, the table, an open pile and who
hit it last, the card the previous play laid (a Derba's target, X1), who captured last (U1),
the cards each side has captured, the dealer and the options. Everything else (the other
hands, the stock) is unseen (I2); the deal in progress and every hand size follow from the
cards (D3, D4), so a position that cannot happen is refused in one line by the reference
engine's own checks (:meth:`simcards.ronda.reference.HandState.from_position`) or by
:func:`build_state`.

A card's *margin* is the points its side scores over the rest of the hand minus the points
every other side scores (announcements left out, as Q1's V leaves them; U1 and S1 included),
so it reads in points; ``value`` is Q1's V itself (a hundred a point, plus the cards).

Two ways to value the cards, both run on the reference engine, the engine ``ronda play``
plays on:

* *exact* when nothing is hidden: two players in the last deal (the stock is empty), where
  the unseen cards are the other hand and Q7's minimax plays the rest optimally. No interval.
* otherwise the strongest legal search, ``ismcts:N:C`` (Q8), sampling only what the seat
  cannot see. A card's margin is the mean over the search's iterations that began with it,
  with a 95% interval from their spread (iterations are samples of the hidden cards played
  out by the search's own tree and playout policy, so the interval is the search's, not an
  oracle's). ``budget`` doubles the iterations until the two best cards' intervals part or
  the budget is spent. Cards of one value are one move (D1: which one is played changes
  nothing); the search's choice is the card ``ismcts`` itself plays.

Announcements of the deal in progress (A1, A2) are not part of the position: the samples do
not hold them to what the others announced, which Q8's samples would.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from simcards.core.errors import UsageError
from simcards.core.stats import json_ci, mean_ci
from simcards.ronda import reference as ref


@dataclass(frozen=True)
class Position:
    """What the seat to move sees (module docstring), as card ids (:func:`ref.parse_card`)."""

    seat: int
    dealer: int
    hand: tuple[int, ...]
    table: tuple[int, ...] = ()
    pile: tuple[int, ...] = ()
    """An open pile in play, bottom first (X3); its last hitter is the previous player."""
    previous: int | None = None
    """The card the previous play laid on the table (a Derba's target, X1), if it laid one."""
    last_capturer: int | None = None
    """The seat that captured last in the hand (U1: the table left at the end is his)."""
    captured: tuple[tuple[int, ...], ...] = ()
    """The cards each side has captured so far (empty: none yet)."""
    face_up: int | None = None
    """Three players: the card turned face up at the deal (D5)."""


@dataclass
class _Tally:
    """One root move's iterations: how many, and the sums of their margins and values."""

    n: int = 0
    margin: float = 0.0
    margin_sq: float = 0.0
    value: float = 0.0

    def add(self, margin: int, value: int) -> None:
        self.n += 1
        self.margin += margin
        self.margin_sq += margin * margin
        self.value += value


@dataclass(frozen=True)
class Advice:
    """The ranked moves of a position and how they were valued."""

    method: str
    exact: bool
    moves: list[dict[str, Any]]
    choice: int
    iterations: int = 0
    separated: bool = True


def build_state(pos: Position, options: ref.RondaOptions) -> ref.HandState:
    """The reference state of ``pos``, the unseen cards placed anywhere (the observation of
    ``pos.seat`` does not depend on where, I2). The others' hand sizes follow from the seat's:
    in play order from the dealer's left, the players before the seat in this round have
    played and hold one card fewer (D3)."""
    n = options.players
    for what, seat in (("--seat", pos.seat), ("--dealer", pos.dealer)):
        if not 0 <= seat < n:
            raise UsageError(f"{what} {seat} is not a seat of {n} players (0 .. {n - 1})")
    if not pos.hand:
        raise UsageError("--hand is empty: the seat to move holds at least one card")
    seen: dict[int, str] = {}
    groups = [("--hand", pos.hand), ("--table", pos.table), ("--pile", pos.pile)]
    groups += [(f"--captured (side {t})", cards) for t, cards in enumerate(pos.captured)]
    for where, cards in groups:
        for c in cards:
            if c in seen:
                raise UsageError(f"{ref.card_name(c)} is both in {seen[c]} and in {where}: "
                                 "each card exists once (D1)")
            seen[c] = where
    if pos.previous is not None and pos.previous not in pos.table:
        raise UsageError(f"--previous {ref.card_name(pos.previous)} is not on the table: the "
                         "card the previous play laid lies there (X1)")
    if pos.face_up is not None and n != 3:
        raise UsageError("--face-up: only 3 players have a face-up card (D5)")
    if pos.last_capturer is not None and not 0 <= pos.last_capturer < n:
        raise UsageError(f"--last-capturer {pos.last_capturer} is not a seat of {n} players")
    captured = list(pos.captured) or [() for _ in range(options.n_sides)]
    if len(captured) != options.n_sides:
        raise UsageError(f"--captured gives {len(captured)} sides; this table has "
                         f"{options.n_sides}")
    first = (pos.dealer + 1) % n
    order = [(first + j) % n for j in range(n)]
    k = len(pos.hand)
    before = order.index(pos.seat)
    sizes = {p: (k - 1 if j < before else k) for j, p in enumerate(order)}
    unseen = [c for c in range(ref.N_CARDS) if c not in seen]
    need = sum(sizes[p] for p in range(n) if p != pos.seat)
    if need > len(unseen):
        raise UsageError(f"the other hands need {need} cards but only {len(unseen)} are "
                         f"unseen: too many cards in sight for a hand of {k} (D4)")
    dealt = ref.N_CARDS - (len(unseen) - need) - (1 if n == 3 else 0)
    totals = [n * sum(options.deal_sizes[:j + 1]) for j in range(len(options.deal_sizes))]
    if dealt not in totals:
        raise UsageError(f"{len(seen)} cards in sight and {need} in the other hands make "
                         f"{dealt} cards dealt{' besides the face-up card' if n == 3 else ''}, "
                         f"which no deal gives (D4: {', '.join(map(str, totals))} with {n} "
                         "players)")
    hands: list[list[int]] = []
    at = 0
    for p in range(n):
        if p == pos.seat:
            hands.append(list(pos.hand))
        else:
            hands.append(unseen[at:at + sizes[p]])
            at += sizes[p]
    hitter = (pos.seat - 1) % n if pos.pile else None
    state = ref.HandState.from_position(
        options, pos.dealer, hands, table=pos.table, stock=unseen[at:], face_up=pos.face_up,
        pile=pos.pile, pile_hitter=hitter, captured=captured, last_laid=pos.previous,
        last_capturer=pos.last_capturer)
    if state.current_player() != pos.seat:  # pragma: no cover - the sizes make it so
        raise UsageError(f"it is seat {state.current_player()}'s turn, not seat {pos.seat}'s")
    return state


def margin(before: ref.HandState, after: ref.HandState, side: int) -> int:
    """Points ``side`` scored from ``before`` to ``after`` minus every other side's
    (announcements left out, Q1)."""
    d = [ref.score_without_announcements(after, t) - ref.score_without_announcements(before, t)
         for t in range(before.n_sides)]
    return d[side] - sum(x for t, x in enumerate(d) if t != side)


def _moves(hand: Sequence[int]) -> list[tuple[int, list[int]]]:
    """The hand's moves: the first card of each value in card order, and the others of it."""
    by_value: dict[int, list[int]] = {}
    for c in sorted(hand):
        by_value.setdefault(c // 4, []).append(c)
    return [(cards[0], cards[1:]) for cards in by_value.values()]


def nothing_hidden(state: ref.HandState) -> bool:
    """Two players in the last deal: the unseen cards are the other hand (Q7)."""
    return state.n == 2 and not state.stock


def exact_advice(state: ref.HandState) -> Advice:
    """Every move's margin and V under Q7's minimax of the rest of the hand."""
    p = state.current_player()
    side = state.side_of(p)
    rows = []
    for card, same in _moves(state.hands[p]):
        child = state.clone()
        child.apply(card)
        final = ref.solve_to_end(child)
        rows.append({"card": card, "same": same, "margin": margin(state, final, side),
                     "value": ref.stretch_value(state, final, side)})
    rows.sort(key=lambda r: (-r["value"], r["card"]))
    return Advice("exact: Q7 minimax of the last deal (two players: nothing hidden)", True,
                  rows, rows[0]["card"])


def search_advice(state: ref.HandState, iterations: int, c: float, budget: int,
                  seed: int) -> Advice:
    """Every move's margin under ``ismcts:iterations:c`` (Q8), doubled until the two best
    moves' intervals part or ``budget`` iterations would be passed."""
    p = state.current_player()
    side = state.side_of(p)
    obs = state.observation(p)
    moves = _moves(obs["hand"])
    rng = random.Random(seed)
    n = iterations
    while True:
        tallies = {card // 4: _Tally() for card, _ in moves}

        def record(v: int, base: ref.HandState, final: ref.HandState,
                   tallies: dict[int, _Tally] = tallies) -> None:
            tallies[v].add(margin(base, final, side), ref.stretch_value(base, final, side))

        choice = ref.ismcts_policy(obs, rng, n=n, c=c, record=record)
        rows = []
        for card, same in moves:
            t = tallies[card // 4]
            row: dict[str, Any] = {"card": card, "same": same, "visits": t.n}
            if t.n:  # one iteration gives no interval (null)
                mean, lo, hi = mean_ci(t.margin, t.margin_sq, t.n)
                row.update(margin=mean, margin_ci=json_ci(lo, hi), value=t.value / t.n)
            else:
                row.update(margin=None, margin_ci=None, value=None)
            rows.append(row)
        rows.sort(key=lambda r: (r["margin"] is None, -(r["margin"] or 0.0), r["card"]))
        separated = _parted(rows)
        if separated or 2 * n > budget:
            break
        n *= 2
    return Advice(f"ismcts:{n}:{c:g} (Q8), seed {seed}", False, rows, choice, n, separated)


def _parted(rows: Sequence[dict[str, Any]]) -> bool:
    """Whether the best move's interval lies wholly above the second's."""
    if len(rows) < 2:
        return True
    a, b = rows[0], rows[1]
    if a["margin_ci"] is None or b["margin_ci"] is None:
        return False
    return a["margin_ci"][0] > b["margin_ci"][1]


def advise(state: ref.HandState, *, iterations: int, c: float, budget: int,
           seed: int) -> Advice:
    """The advice for the player to move in ``state``: exact where nothing is hidden, else
    the search's (module docstring). A hand of one value has one move."""
    p = state.current_player()
    moves = _moves(state.hands[p])
    if len(moves) == 1:
        card, same = moves[0]
        return Advice("one move: every card of the hand has one value (D1)", True,
                      [{"card": card, "same": same, "margin": None, "value": None}], card)
    if nothing_hidden(state):
        return exact_advice(state)
    return search_advice(state, iterations, c, budget, seed)
