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
so it reads in points; in classic mode, where nothing scores (C1) and the most cards win the
hand (C2), it is the cards its side takes minus every other side's, and reads in cards.
``value`` is Q1's V itself (a hundred a point, plus the cards).

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

The position may state the announcements of the deal in progress (A1, A2) with the cards
played since that deal: the search's samples are then Q1's consistent samples, held to them,
and announcements that no holding can give are refused (:func:`_announcements`). Not stated,
the samples are uniform (:func:`samples`).

In a match (the scores now given, or in classic mode each side's hands won) each card also
gets its side's match win probability: its iterations' (or its exact line's) ends of the
hand, their points added to the scores or their winner by captured cards (C2) to the hands
won, followed by the rest of the match drawn with greedy seats
(:mod:`simcards.ronda.match_odds`), a mean with a 95% interval. Under
``target_check=immediate`` the hand in progress is checked at each of its check points after
the decision (S5, :meth:`Match.check_points`); later hands at their ends.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simcards.core.errors import UsageError
from simcards.core.stats import json_ci, mean_ci
from simcards.ronda import reference as ref
from simcards.ronda.match_odds import CONTINUATIONS, POOL_HANDS, classic, decided, rest_of_match
from simcards.ronda.rules import RondaRules


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
    announcements: tuple[tuple[int, str, int], ...] | None = None
    """The announcements of the deal in progress, ``(seat, kind, value index)`` (A1, A2); None:
    not stated (the samples are then not held to any)."""
    deal_plays: tuple[int, ...] | None = None
    """The cards played since the deal in progress was dealt, in play order (its first
    player's first); None: not stated."""
    scores: tuple[int, ...] | None = None
    """In a match: each side's score now (carried from earlier hands plus this hand's points
    so far, announcements included: the scores the table shows, S2); None: one hand alone."""
    hands_won: tuple[int, ...] | None = None
    """In a classic match (C3): the hands each side has won so far; None: one hand alone."""


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
    match_best: int | None = None
    """In a match: the card of the highest match win probability."""
    match_method: str | None = None
    """How the match win probabilities were made (None: one hand alone, no scores given)."""


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
    deal = totals.index(dealt)
    plays = _deal_plays(pos, options, deal, order, sizes, seen)
    announcements = _announcements(pos, options, deal, plays, sizes, unseen)
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
        last_capturer=pos.last_capturer, announcements=announcements,
        plays=[(p, c, deal) for p, c in plays])
    if state.current_player() != pos.seat:  # pragma: no cover - the sizes make it so
        raise UsageError(f"it is seat {state.current_player()}'s turn, not seat {pos.seat}'s")
    return state


def _deal_plays(pos: Position, options: ref.RondaOptions, deal: int, order: list[int],
                sizes: dict[int, int], seen: dict[int, str]) -> list[tuple[int, int]]:
    """``(player, card)`` of each card played since the deal in progress (``--deal-plays``):
    as many as the hand sizes say were played (D3, D4), each in sight and not in the hand,
    the j-th played by the j-th player in play order, round after round."""
    if pos.deal_plays is None:
        return []
    size = options.deal_sizes[deal]
    expected = sum(size - k for k in sizes.values())
    if len(pos.deal_plays) != expected:
        raise UsageError(f"--deal-plays gives {len(pos.deal_plays)} cards, but {expected} "
                         f"have been played since deal {deal + 1} gave {size} cards each "
                         "(the hand sizes say so, D3, D4)")
    out = []
    for j, c in enumerate(pos.deal_plays):
        if c in pos.deal_plays[:j]:
            raise UsageError(f"--deal-plays gives {ref.card_name(c)} twice: each card exists "
                             "once (D1)")
        if seen.get(c, "--hand") == "--hand" or c == pos.face_up:
            raise UsageError(f"--deal-plays {ref.card_name(c)} is not on the table, in the "
                             "pile or among the captured cards, where a card played lies")
        out.append((order[j % len(order)], c))
    return out


KINDS = ("ronda", "tringla")
"""A2: the announcements' kinds, as ``--announcements`` writes them."""


def _kind_name(kind: str, v: int) -> str:
    return f"a {kind.capitalize()} of {ref.VALUES[v]}"


def _announcements(pos: Position, options: ref.RondaOptions, deal: int,
                   plays: list[tuple[int, int]], sizes: dict[int, int], unseen: list[int],
                   ) -> list[ref.Announcement]:
    """The announcements of the deal in progress (``--announcements``), refused in one line
    where no holding can give them (A1, A2): the seat's own must be exactly what its holding
    as dealt (hand plus its cards played since the deal) announces; every other player's,
    together with what he has played since, must leave him a holding of his size among the
    unseen cards (a player who announced nothing held no pair), and the others' together must
    fit the unseen cards of each value."""
    if pos.announcements is None:
        return []
    if not options.scoring:
        raise UsageError("--announcements: nothing is announced in --mode classic (C1)")
    if deal > 0 and options.announce != "every_deal":
        raise UsageError(f"--announcements: deal {deal + 1} announces nothing under --announce "
                         "first_deal (A1: only the first deal of a hand does)")
    if pos.deal_plays is None and any(options.deal_sizes[deal] != k for k in sizes.values()):
        raise UsageError("--announcements needs --deal-plays, the cards played since the "
                         "deal: an announcer's holding as dealt is his hand plus what he has "
                         "played since (A2)")
    n = options.players
    said: dict[int, list[tuple[str, int]]] = {p: [] for p in range(n)}
    for p, kind, v in pos.announcements:
        if not 0 <= p < n:
            raise UsageError(f"--announcements: seat {p} is not a seat of {n} players "
                             f"(0 .. {n - 1})")
        if any(w == v for _, w in said[p]):
            raise UsageError(f"--announcements gives seat {p} two announcements of "
                             f"{ref.VALUES[v]}: a value is one Ronda or one Tringla (A2)")
        said[p].append((kind, v))
    played = {p: [c for q, c in plays if q == p] for p in range(n)}
    mine = sorted(ref.holding_announcements([*pos.hand, *played[pos.seat]]))
    if sorted(said[pos.seat]) != mine:
        dealt = " ".join(ref.card_name(c) for c in sorted([*pos.hand, *played[pos.seat]]))
        what = ", ".join(_kind_name(k, v) for k, v in mine) or "nothing"
        raise UsageError(f"--announcements: seat {pos.seat}'s holding as dealt ({dealt}) "
                         f"announces {what} (A2), not what is given")
    counts = [0] * len(ref.VALUES)
    for c in unseen:
        counts[c // 4] += 1
    least = [0] * len(ref.VALUES)
    for p in range(n):
        if p == pos.seat:
            continue
        kinds = dict((v, k) for k, v in said[p])
        lo_sum = hi_sum = 0
        for v in range(len(ref.VALUES)):
            c = sum(1 for x in played[p] if x // 4 == v)
            want = {"ronda": (2, 2), "tringla": (3, 4)}.get(kinds.get(v, ""), (0, 1))
            lo, hi = max(0, want[0] - c), min(counts[v], want[1] - c)
            if lo > hi:
                name = ref.VALUES[v]
                if v not in kinds:
                    raise UsageError(f"--announcements: seat {p} played {c} {name}s since the "
                                     f"deal but announced no Ronda or Tringla of {name} (A2)")
                raise UsageError(f"--announcements: seat {p} cannot have announced "
                                 f"{_kind_name(kinds[v], v)}: {c} played since the deal and "
                                 f"{counts[v]} unseen (A2)")
            least[v] += lo
            lo_sum, hi_sum = lo_sum + lo, hi_sum + hi
        if not lo_sum <= sizes[p] <= hi_sum:
            raise UsageError(f"--announcements: no holding of seat {p}'s {sizes[p]} cards "
                             "gives what he announced (A2)")
    for v, need in enumerate(least):
        if need > counts[v]:
            raise UsageError(f"--announcements: the others' announcements need {need} "
                             f"{ref.VALUES[v]}s, and only {counts[v]} are unseen (A2)")
    first = (pos.dealer + 1) % n
    return [ref.Announcement(deal, p, kind, v) for p in ((first + j) % n for j in range(n))
            for kind, v in sorted(said[p], key=lambda a: a[1])]


def margin(before: ref.HandState, after: ref.HandState, side: int) -> int:
    """Points ``side`` scored from ``before`` to ``after`` minus every other side's
    (announcements left out, Q1); in classic mode, where nothing scores (C1) and the hand goes
    to the most cards (C2), the cards it took minus every other side's (an open pile counted
    for its last hitter, as Q1's V counts it)."""
    if before.options.mode == "classic":
        d = [after.cards_held(t) - before.cards_held(t) for t in range(before.n_sides)]
    else:
        d = [ref.score_without_announcements(after, t)
             - ref.score_without_announcements(before, t) for t in range(before.n_sides)]
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


@dataclass(frozen=True)
class Match:
    """A match in progress: the scores now, by side (S4), or in classic mode the hands each
    side has won (C3), and the random seed of the rest of the match's draws
    (:mod:`simcards.ronda.match_odds`)."""

    rules: RondaRules
    scores: tuple[int, ...]
    """Points mode: each side's score now; classic mode: each side's hands won so far."""
    seed: int

    def totals(self, base: ref.HandState, final: ref.HandState) -> list[int]:
        """The match's count at the end of the hand ``final`` reached from ``base``: every
        point scored after the decision (later deals' announcements included) on the scores
        now; in classic mode the hands won, plus one for the hand's winner by captured cards
        (C2: strictly the most, else no one)."""
        if classic(self.rules):
            w = final.hand_winner()
            return [h + (t == w) for t, h in enumerate(self.scores)]
        now, end = base.hand_points(), final.hand_points()
        return [s + e - b for s, e, b in zip(self.scores, end, now, strict=True)]

    def immediate(self) -> bool:
        """S5: a points match checked at every check point (``target_check=immediate``)."""
        return not classic(self.rules) and self.rules.target_check == "immediate"

    def check_points(self, base: ref.HandState, final: ref.HandState) -> list[list[int]]:
        """S5: the scores at each check point of this hand after the decision, in order: after
        every play (its credits done), after every later deal's announcements, and at the
        hand's end (U1 and S1). A play's events are a stretch of the hand's log (its record
        holds them), so the check points fall before and after each play's stretch."""
        new = final.events[len(base.events):]
        at = {id(e): i for i, e in enumerate(new)}
        marks: set[int] = set()
        for k, record in enumerate(final.records[len(base.records):]):
            if k:  # before a later play: after the play before it, or a deal's announcements
                marks.add(at[id(record.events[0])])
            marks.add(at[id(record.events[-1])] + 1)
        totals = list(self.scores)
        out = []
        for i, e in enumerate(new):
            if i in marks:
                out.append(list(totals))
            if e.kind == "points":
                totals[e.side] += e.points
        out.append(totals)
        return out

    def ended(self, base: ref.HandState, final: ref.HandState, totals: list[int]) -> int:
        """The side that has won the match by the end of the hand ``final`` (``totals`` its
        count there), else -1: at the hand's end (S4, C3), or under ``immediate`` at the
        first of its check points with a winner (S5)."""
        if self.immediate():
            for point in self.check_points(base, final):
                w = ref.target_winner(point, self.rules.target)
                if w is not None:
                    return w
            return -1
        return int(decided(np.asarray([totals]), self.rules)[0])

    def method(self, exact: bool) -> str:
        draws = CONTINUATIONS_EXACT if exact else CONTINUATIONS
        if classic(self.rules):
            won = f"the first to {self.rules.hands_to_win} hands won wins (C3)"
            hand = ("this hand's winner by captured cards (C2) by Q7's minimax" if exact
                    else "this hand's winner by captured cards (C2) by the search's own "
                    "iterations")
            each = "each hand's winner"
        elif self.immediate():
            won = (f"target {self.rules.target} checked at every check point of this hand "
                   "(S5), at each later hand's end only")
            hand = ("this hand by Q7's minimax" if exact
                    else "this hand by the search's own iterations")
            each = "each hand"
        else:
            won = f"target {self.rules.target} checked at each hand's end"
            hand = ("this hand by Q7's minimax" if exact
                    else "this hand by the search's own iterations")
            each = "each hand"
        rest = (f"the rest of the match greedy at every seat ({draws} draws per end of the "
                f"hand, {each} from {POOL_HANDS} greedy hands by its dealer; {won})")
        return f"{hand}, then {rest}"


CONTINUATIONS_EXACT = 4096
"""Where the hand is exact, its one end is followed by this many draws of the rest of the
match."""


def _match_column(rows: list[dict[str, Any]], values: dict[int, list[float]]) -> None:
    """Each row's ``match`` (its side's match win probability, the mean of ``values`` of its
    value) and ``match_ci`` (95%, null for a single value)."""
    for row in rows:
        got = values.get(row["card"] // 4, [])
        if not got:
            row.update(match=None, match_ci=None)
            continue
        total, sq = float(sum(got)), float(sum(x * x for x in got))
        mean, lo, hi = mean_ci(total, sq, len(got))
        row.update(match=mean, match_ci=json_ci(max(0.0, lo), min(1.0, hi)))


def _match_best(rows: Sequence[dict[str, Any]]) -> int | None:
    """The card of the highest match win probability (ties: the margin's order)."""
    scored = [r for r in rows if r.get("match") is not None]
    return max(scored, key=lambda r: r["match"])["card"] if scored else None


def exact_advice(state: ref.HandState, match: Match | None = None) -> Advice:
    """Every move's margin and V under Q7's minimax of the rest of the hand; in a match, its
    side's probability of winning the match from the hand's end (:mod:`match_odds`)."""
    p = state.current_player()
    side = state.side_of(p)
    rows = []
    for card, same in _moves(state.hands[p]):
        child = state.clone()
        child.apply(card)
        final = ref.solve_to_end(child)
        row = {"card": card, "same": same, "margin": margin(state, final, side),
               "value": ref.stretch_value(state, final, side)}
        if match is not None:
            totals = match.totals(state, final)
            ended = match.ended(state, final, totals)
            if ended >= 0:
                row.update(match=float(ended == side), match_ci=None)
            else:
                won = rest_of_match(match.rules, [totals], state.dealer, side, match.seed,
                                    k=CONTINUATIONS_EXACT, draws=True)[0]
                mean, lo, hi = mean_ci(float(won.sum()), float(won.sum()), len(won))
                row.update(match=mean, match_ci=json_ci(max(0.0, lo), min(1.0, hi)))
        rows.append(row)
    rows.sort(key=lambda r: (-r["value"], r["card"]))
    return Advice("exact: Q7 minimax of the last deal (two players: nothing hidden)", True,
                  rows, rows[0]["card"], match_best=_match_best(rows),
                  match_method=None if match is None else match.method(True))


def samples(obs: dict, rng: random.Random, n: int, stated: bool) -> Iterator[ref.Sample]:
    """``n`` samples of the unseen cards for Q8's search: held to the deal's announcements
    (Q1's consistent samples) where the position states them, else uniform (the unseen cards
    shuffled, the other hands then the stock in seat order: a consistent sample's draw when
    nothing constrains it)."""
    if stated:
        for _ in range(n):
            try:
                yield ref.consistent_sample(obs, rng, max_tries=200_000)
            except RuntimeError:
                raise UsageError("--announcements: no deal of the unseen cards gives every "
                                 "announcement at once (A2)") from None
        return
    unseen = ref.unseen_cards(obs)
    sizes = obs["hand_sizes"]
    for _ in range(n):
        rest = list(unseen)
        rng.shuffle(rest)
        hands = {}
        for p in range(obs["players"]):
            if p != obs["seat"]:
                hands[p], rest = rest[:sizes[p]], rest[sizes[p]:]
        yield hands, rest


def search_advice(state: ref.HandState, iterations: int, c: float, budget: int,
                  seed: int, *, stated: bool = False, match: Match | None = None) -> Advice:
    """Every move's margin under ``ismcts:iterations:c`` (Q8), doubled until the two best
    moves' intervals part or ``budget`` iterations would be passed; the samples held to the
    deal's announcements when ``stated``; in a match, each move's match win probability from
    the ends of the hand its iterations reached (:mod:`match_odds`)."""
    p = state.current_player()
    side = state.side_of(p)
    obs = state.observation(p)
    moves = _moves(obs["hand"])
    rng = random.Random(seed)
    n = iterations
    while True:
        tallies = {card // 4: _Tally() for card, _ in moves}
        ends: list[tuple[int, list[int], int]] = []

        def record(v: int, base: ref.HandState, final: ref.HandState,
                   tallies: dict[int, _Tally] = tallies,
                   ends: list[tuple[int, list[int], int]] = ends) -> None:
            tallies[v].add(margin(base, final, side), ref.stretch_value(base, final, side))
            if match is not None:
                totals = match.totals(base, final)
                ends.append((v, totals, match.ended(base, final, totals)))

        choice = ref.ismcts_policy(obs, rng, n=n, c=c, record=record,
                                   drawn=samples(obs, rng, n, stated))
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
    if match is not None:
        won = rest_of_match(match.rules, [t for _, t, _ in ends], state.dealer, side,
                            match.seed)
        values: dict[int, list[float]] = {}
        for (v, _, ended), x in zip(ends, won, strict=True):
            # a hand that ends the match (at its end: as rest_of_match says; S5: inside it)
            values.setdefault(v, []).append(float(x) if ended < 0 else float(ended == side))
        _match_column(rows, values)
    return Advice(f"ismcts:{n}:{c:g} (Q8), seed {seed}", False, rows, choice, n, separated,
                  match_best=_match_best(rows),
                  match_method=None if match is None else match.method(False))


def _parted(rows: Sequence[dict[str, Any]]) -> bool:
    """Whether the best move's interval lies wholly above the second's."""
    if len(rows) < 2:
        return True
    a, b = rows[0], rows[1]
    if a["margin_ci"] is None or b["margin_ci"] is None:
        return False
    return a["margin_ci"][0] > b["margin_ci"][1]


def advise(state: ref.HandState, *, iterations: int, c: float, budget: int,
           seed: int, stated: bool = False, match: Match | None = None) -> Advice:
    """The advice for the player to move in ``state``: exact where nothing is hidden, else
    the search's (module docstring), its samples held to the deal's announcements when
    ``stated``; in a ``match``, each card's match win probability too. A hand of one value
    has one move."""
    p = state.current_player()
    moves = _moves(state.hands[p])
    if len(moves) == 1:
        card, same = moves[0]
        row: dict[str, Any] = {"card": card, "same": same, "margin": None, "value": None}
        if match is not None:
            row.update(match=None, match_ci=None)
        return Advice("one move: every card of the hand has one value (D1)", True, [row], card)
    if nothing_hidden(state):
        return exact_advice(state, match)
    return search_advice(state, iterations, c, budget, seed, stated=stated, match=match)
