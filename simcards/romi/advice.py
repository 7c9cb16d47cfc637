"""The ranked moves of ``simcards romi advise`` (Q10 of ``seeds/romi.md``): every turn the seat
can play from a position, each with its expected round score (its *penalty*, G2-G5) and a 95%
interval, from the play-outs of the Römi search player (Q7).

A *move* is a draw, a plan for the melding and a discard:

* for each draw whose card is known (the top discard when T3 or T4 allows it, the cut card when
  T5 does; or the card drawn from the stock when the position gives it, ``--drawn``),
  ``expert``'s plan (Q5) with each card of its hand thrown (one copy of each card: its own
  discard first), or, when the plan goes out, that plan alone (*close now*); and, before
  opening, Q3's holding plan (open only to go out) the same way when it differs from
  ``expert``'s: the *waiting* moves. A plan that does not meld the top discard taken under T4,
  or does not go out with the cut card, is left out (its draw is then not played, T4, T5).
* for the stock when its card is not given: ``expert``'s whole turn, and before opening the
  holding plan's, each with its own discard (the card drawn differs from sample to sample).

Every move is played on the same samples (``advise_kernel``): the cards the seat has not seen
(I2) dealt at random into the other hands, which keep their sizes, and then the stock, as Q7's
search deals them; after the move every seat plays ``greedy`` (Q2) to the end of the round, as
in Q7's play-outs. The cards under the top discard are not part of the position: the samples
deal them into the stock *(project decision)*. A move's penalty is the mean of the seat's round
score over the samples (-10 or -20 when it goes out, G2-G3; 100 when it never opens, G5; else
its cards, G4), with :func:`simcards.core.stats.mean_ci`'s interval. ``budget`` doubles the
samples until the best two moves' intervals part or the budget would be passed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simcards.core.stats import json_ci, mean_ci
from simcards.romi import advise_kernel as K
from simcards.romi import cards as C
from simcards.romi import position as AD
from simcards.romi.codes import MV_DRAW_CUT, MV_DRAW_DISCARD, MV_DRAW_STOCK
from simcards.romi.records import position as kernel_position
from simcards.romi.round_kernel import HW
from simcards.romi.rules import RomiRules

NO_DRAW = -1
"""The move's card is already in hand (``--drawn``) or the turn has no draw (D4)."""
DRAWS = {"stock": MV_DRAW_STOCK, "discard": MV_DRAW_DISCARD, "cut": MV_DRAW_CUT}


@dataclass(frozen=True)
class Move:
    """One move: the draw (``source`` and its ``card``; ``None`` for the stock's unknown card or
    no draw), the plan (``expert`` or ``hold``), the discard (``None``: the plan's own, which
    varies with the stock's card), whether it goes out this turn (``None``: it depends on the
    stock's card), and its row for the kernel."""

    source: str | None
    card: int | None
    plan: str
    discard: int | None
    closes: bool | None
    row: tuple[int, int, int]


@dataclass
class Ranked:
    """The moves ranked, and how they were valued."""

    moves: list[dict[str, Any]]
    samples: int
    separated: bool
    notes: list[str] = field(default_factory=list)


def kernel_state(p: AD.Position, rules: RomiRules) -> tuple:
    """The position as the engine's workspace, the seat to move as seat 0 and the others
    1 .. n-1 from its left (D2), the unseen cards placed anywhere (the samples deal them
    again). Table melds belong to the first other player who has opened (G3 needs only that
    they are not the seat's own before it opens)."""
    n = p.players
    used = set(p.hand) | {c for c in (p.discard, p.cut, p.drawn) if c is not None}
    table = AD.reference_table(p.table, used)
    unseen = [c for c in range(C.N_CARDS) if c not in used]
    hands = [[*p.hand, *([] if p.drawn is None else [p.drawn])]]
    at = 0
    for size in p.others:
        hands.append(unseen[at:at + size])
        at += size
    owner = next((k for k, o in enumerate(p.others_opened, 1) if o), 0)
    starter = (1 - p.turn) % n
    played = [p.turns_played] + [AD._turns_of_other(p.turn, n, k) for k in range(1, n)]
    drawn = [played[k] - (1 if k == starter else 0) >= 1 for k in range(n)]
    return kernel_position(
        rules, hands, dealer=(starter - 1) % n, to_move=0,
        table=[(owner, m.cards, m.stands_for) for m in table],
        pile=[] if p.discard is None else [p.discard], stock=unseen[at:],
        cut=-1 if p.cut is None else p.cut, opened=[p.opened, *p.others_opened], drawn=drawn,
        played=played, turns=p.turn - 1)


def _plan(ws: tuple, rules: RomiRules, choice: int, hold: bool
          ) -> tuple[list[int], int, bool, int]:
    """A plan's hand after its discard, its discard, whether it goes out, its T4 card."""
    hand = np.full(HW, -1, np.int64)
    nh, own, out, must = K.plan(rules.kernel, ws, 0, choice, hold, hand)
    return [int(c) for c in hand[:nh]], int(own), bool(out), int(must)


def _plan_moves(source: str | None, card: int | None, choice: int, name: str, hold: bool,
                plan: tuple[list[int], int, bool, int]) -> list[Move]:
    """A known draw's moves under one plan: close now, or its own discard and each other
    card of its hand (one copy of each card)."""
    hand, own, out, _ = plan
    if out:
        return [Move(source, card, name, own, True, (choice, int(hold), -1))]
    moves = [Move(source, card, name, own, False, (choice, int(hold), -1))]
    kinds = {C.kind(own)}
    for c in sorted(hand, key=lambda c: (C.kind(c), c)):
        if C.kind(c) not in kinds:
            kinds.add(C.kind(c))
            moves.append(Move(source, card, name, c, False, (choice, int(hold), c)))
    return moves


def moves(p: AD.Position, rules: RomiRules, draws: list[AD.Draw], ws: tuple
          ) -> tuple[list[Move], list[str]]:
    """The position's moves (module docstring), and a note for each legal draw left out."""
    out: list[Move] = []
    notes: list[str] = []
    wait = not p.opened and p.may_open
    known: list[tuple[str | None, int | None, int]] = []
    if p.discard_only:
        known.append((None, None, NO_DRAW))
    elif p.drawn is not None:
        known.append(("stock", p.drawn, NO_DRAW))
    for d in draws:
        if not d.legal or p.drawn is not None:
            continue
        if d.source == "stock":
            out.append(Move("stock", None, "expert", None, None, (MV_DRAW_STOCK, 0, -1)))
            if wait:
                out.append(Move("stock", None, "hold", None, None, (MV_DRAW_STOCK, 1, -1)))
        else:
            known.append((d.source, d.card, DRAWS[d.source]))
    for source, card, choice in known:
        plan = _plan(ws, rules, choice, False)
        hand, _, goes, must = plan
        if must >= 0 and must in hand:
            notes.append(f"draw {source} {C.card_text(must)}: expert's plan does not meld it "
                         "(T4), so it is not weighed")
            continue
        if source == "cut" and not goes:
            notes.append(f"draw cut {C.card_text(card)}: expert's plan does not go out with it "
                         "(T5), so it is not weighed")
            continue
        out += _plan_moves(source, card, choice, "expert", False, plan)
        if wait and must < 0 and source != "cut":
            held = _plan(ws, rules, choice, True)
            if held != plan:
                out += _plan_moves(source, card, choice, "hold", True, held)
    return out, notes


def _parted(rows: list[dict[str, Any]]) -> bool:
    """Whether the best move's interval lies wholly below the second's (lower is better)."""
    if len(rows) < 2:
        return True
    a, b = rows[0]["penalty_ci"], rows[1]["penalty_ci"]
    return a is not None and b is not None and a[1] < b[0]


WEIGH_BATCH = 32
"""Samples per call of the compiled play-outs: a compiled call cannot be interrupted, so the
samples go in batches of well under a second, and Ctrl-C stops the advice at the next one.
The sums add sample by sample in the same order whatever the batches."""


def rank(p: AD.Position, rules: RomiRules, draws: list[AD.Draw], *, samples: int,
         budget: int, seed: int) -> Ranked:
    """Every move's penalty over ``samples`` samples, doubled until the best two part or
    ``budget`` would be passed; the samples' seeds are the first of one stream of ``seed``,
    so a larger budget extends the samples of a smaller one."""
    rules = dataclasses.replace(rules, players=p.players)
    ws = kernel_state(p, rules)
    found, notes = moves(p, rules, draws, ws)
    if not found:
        return Ranked([], 0, True, notes)
    rows = np.array([m.row for m in found], np.int64)
    seeds = np.random.default_rng(seed).integers(0, 2**63, size=budget, dtype=np.uint64)
    sums = np.zeros(len(found), np.float64)
    squares = np.zeros(len(found), np.float64)
    done, n = 0, samples
    while True:
        for at in range(done, n, WEIGH_BATCH):  # Ctrl-C is answered between batches
            K.weigh(rules.kernel, ws, 0, seeds[at:min(n, at + WEIGH_BATCH)], rows, sums,
                    squares)
        done = n
        ranked = []
        for i, m in enumerate(found):
            mean, lo, hi = mean_ci(float(sums[i]), float(squares[i]), n)
            ranked.append({"draw": m.source, "card": None if m.card is None
                           else C.card_text(m.card), "plan": m.plan,
                           "discard": None if m.discard is None else C.card_text(m.discard),
                           "closes": m.closes, "penalty": mean,
                           "penalty_ci": json_ci(lo, hi), "order": i})
        ranked.sort(key=lambda r: (r["penalty"], r["order"]))
        separated = _parted(ranked)
        if separated or 2 * n > budget:
            break
        n *= 2
    for r in ranked:
        del r["order"]
    return Ranked(ranked, n, separated, notes)
