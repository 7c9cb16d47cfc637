"""The advisor's exact computations: a seat's two actions valued in one concrete position.

For a round (S4b) each action's expected lives lost, conditional on the position, given the
others' policies: the ``bayes`` decision table's row for the position
(:func:`simcards.ronco.bayes_exact.round_table`) when the others play threshold or informed
policies, else :func:`outcomes`, which walks every deal leading to the position position by
position and asks each other seat's policy what it does (any deterministic policy: a user's
function and a keep chart included, tabulated per situation by
:func:`simcards.ronco.charts.decisions_of`, S5, S6).

For a game (``--lives``) each action's probability of winning it: the round's outcomes after
the action (who loses how many lives, R8-R10, or an absolute tie, R9), each followed by the
exact game chain from the lives it leaves (:func:`simcards.ronco.games_exact.win_values`), the
seat then playing as the others do.

:func:`outcomes` shares no code with the ``bayes`` kernel beyond the policies' decisions, so the
two are checked against each other (tests/ronco/test_advise.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from simcards.core.errors import UsageError
from simcards.ronco.policies import THRESHOLD_KINDS, Policy
from simcards.ronco.rules import RoncoRules
from simcards.ronco.seat import KEEP, REFUSED, SWAP, Seat

Decide = Callable[[int, int, int, int], bool]
"""``decide(position, history, card class, dealt class or -1)``: whether that seat keeps."""
Outcomes = dict[tuple[tuple[int, ...], bool], float]
"""``(lives lost by position, absolute tie)`` -> probability, conditional on the position."""


def field_decider(rules: RoncoRules, policies: Sequence[Policy]) -> tuple[Decide, bool]:
    """``policies``' decisions (by position) as a function, and whether any of them reads the
    history (the threshold kinds read only the card, the swap and the dealt card: S1, S2)."""
    from simcards.ronco.charts import decisions_of

    n = len(policies)
    reads = any(p.kind not in THRESHOLD_KINDS for p in policies)
    table: dict[tuple[int, int, int, int], bool] = {}
    done: dict[str, tuple] = {}
    for pos, pol in enumerate(policies):
        key = pol.spec()
        if key not in done:
            done[key] = decisions_of(rules, n, pol, pol)
        sit, keep = done[key]
        rows, cols = np.nonzero(sit.possible & (sit.pos == pos)[:, None])
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            table[(pos, int(sit.hist[r]), c, _cls_of(sit, int(sit.dealt[r])))] = bool(keep[r, c])

    def decide(pos: int, hist: int, card: int, dealt: int) -> bool:
        return table[(pos, hist, card, dealt)]

    return decide, reads


def _cls_of(sit, strength: int) -> int:
    return -1 if strength < 0 else int(np.searchsorted(sit.strengths, strength))


def outcomes(rules: RoncoRules, seat: Seat, keep: bool, decide: Decide, reads_history: bool, *,
             seat_only: bool = False) -> tuple[Outcomes, float]:
    """Every outcome of the round after the seat at ``seat`` keeps (or passes, cuts), with its
    probability conditional on the position, and the position's own probability (card
    included; 0 when the others' policies never lead to it).

    Deals are walked position by position, merging the partial deals that share a state: the
    final cards of the positions that acted, the card the acting position holds, the card it
    was dealt and the history (only its last action when no policy reads it). With
    ``seat_only`` only the seat's relation to the others' final cards is kept (the earlier
    positions' and the later positions' cards sorted), enough for its own loss."""
    cls = rules.classes
    strength = cls.strength.tolist()
    count = cls.count.tolist()
    n_cls, n_cards, top = len(strength), int(cls.n_cards), int(cls.top)
    n, h = seat.players, seat.position
    card = strength.index(seat.card)
    dealt = -1 if seat.dealt < 0 else strength.index(seat.dealt)
    states: dict[tuple, float] = {((), x, -1, 0): count[x] / n_cards
                                  for x in range(n_cls) if count[x]}

    def canon(finals: tuple[int, ...]) -> tuple[int, ...]:
        if not seat_only:
            return finals
        if len(finals) <= h:
            return tuple(sorted(finals))
        return finals[:h + 1] + tuple(sorted(finals[h + 1:]))

    for j in range(n - 1):
        nxt: dict[tuple, float] = {}
        left = n_cards - j - 1
        for (finals, carry, d, hist), p in states.items():
            if j == h:
                if carry != card or d != dealt or hist != seat.hist:
                    continue
                keeps = keep
            else:
                keeps = decide(j, hist if reads_history or j < h else hist % 3, carry, d)
            want = seat.before[j] if j < h else None
            rem = list(count)
            for f in finals:
                rem[f] -= 1
            rem[carry] -= 1
            mem = hist * 3 if reads_history or j < h else 0
            for x in range(n_cls):
                if not rem[x]:
                    continue
                q = p * rem[x] / left
                if keeps:
                    act, key = KEEP, (canon((*finals, carry)), x, -1, mem)
                elif x == top:
                    act, key = REFUSED, (canon((*finals, carry)), x, -1, mem + REFUSED)
                else:
                    act, key = SWAP, (canon((*finals, x)), carry, x, mem + SWAP)
                if want is not None and act != want:
                    continue
                nxt[key] = nxt.get(key, 0.0) + q
        states = nxt
    out: Outcomes = {}
    total = 0.0
    poroli = [2 if s == 0 else 1 for s in strength]
    cut_king = rules.cut_king
    left = n_cards - n
    for (finals, carry, d, hist), p in states.items():
        if h == n - 1:
            if carry != card or d != dealt or hist != seat.hist:
                continue
            keeps = keep
        else:
            keeps = decide(n - 1, hist if reads_history else hist % 3, carry, d)
        total += p
        if keeps:
            _add(out, (*finals, carry), p, poroli, rules.ties)
            continue
        rem = list(count)
        for f in finals:
            rem[f] -= 1
        rem[carry] -= 1
        for z in range(n_cls):
            if not rem[z]:
                continue
            q = p * rem[z] / left
            if z == top and cut_king == "loses":  # R7: the dealer alone loses
                key = (tuple([0] * (n - 1) + [1]), False)
                out[key] = out.get(key, 0.0) + q
            else:
                final = carry if z == top and cut_king == "blocked" else z
                _add(out, (*finals, final), q, poroli, rules.ties)
    if total <= 0:
        return {}, 0.0
    return {k: v / total for k, v in out.items()}, total


def _add(out: Outcomes, finals: tuple[int, ...], p: float, lives: list[int], ties: str) -> None:
    """R8-R10: the losers of final cards ``finals`` (classes, by position)."""
    low = min(finals)
    lost = [lives[f] if f == low else 0 for f in finals]
    if ties == "first":
        first = finals.index(low)
        lost = [v if i == first else 0 for i, v in enumerate(lost)]
    key = (tuple(lost), all(f == low for f in finals))
    out[key] = out.get(key, 0.0) + p


def seat_loss(dist: Outcomes, position: int) -> float:
    """The seat's expected lives lost this round (S4b; an absolute tie keeps its losers)."""
    return sum(p * lost[position] for (lost, _), p in dist.items())


def win_probability(rules: RoncoRules, field: Policy, seat: Seat, dist: Outcomes,
                    lives: Sequence[int]) -> float:
    """P(the seat wins the game) after a round whose outcomes are ``dist``, from ``lives`` (by
    position, this round's dealer last): each outcome leaves lives (G1, G2), a next dealer
    (G5) or the game's end (G7); an absolute tie ends it without a winner or replays the
    round from the same lives (G6). Later rounds are the exact game chain with every player,
    the seat included, playing ``field``."""
    from simcards.ronco.games_exact import win_values

    n, h = seat.players, seat.position
    top_lives = max(lives)
    states: list[tuple[tuple[int, ...], int]] = []
    weights: list[float] = []
    win = 0.0
    replay = rules.absolute_tie == "replay"
    for (lost, tie), p in dist.items():
        if tie:
            if replay:
                states.append((tuple(lives), n - 1))
                weights.append(p)
            continue
        after = [max(v - x, 0) for v, x in zip(lives, lost, strict=True)]
        alive = [i for i in range(n) if after[i] > 0]
        if len(alive) <= 1:
            win += p if alive == [h] else 0.0
            continue
        dealer = next(i % n for i in range(n) if after[i % n] > 0)  # G5: position 0 first
        states.append((tuple(after), dealer))
        weights.append(p)
    if states:
        values = win_values(rules, [field] * n, top_lives, states)
        win += float(np.dot(weights, values[:, h]))
    return win


def check_lives(lives: Sequence[int], n: int) -> list[int]:
    """One positive number of lives per position."""
    if len(lives) != n:
        raise UsageError(f"--lives gives {len(lives)} numbers; the table has {n} positions "
                         "(position 0's first, the dealer's last)")
    if any(v < 1 for v in lives):
        raise UsageError("--lives: every player at the table has at least 1 life (G2: a "
                         "player with none is out)")
    return list(lives)


MAX_ENUMERATED_PLAYERS = 8
"""The largest table :func:`outcomes` walks (the others' decisions are tabulated per
situation, some 40,000 at 8 players, as a keep chart's, S6)."""


def check_chain(n: int, lives: int) -> None:
    """The game chain's limit (:data:`simcards.ronco.games_exact.MAX_STATES`), in one line."""
    from simcards.ronco.games_exact import MAX_STATES

    size = (lives + 1) ** n * n
    if size > MAX_STATES:
        raise UsageError(f"--lives: the exact game chain of {n} players with up to {lives} "
                         f"lives has {size:,} states, over its limit of {MAX_STATES:,} (4 "
                         "players with 7 lives, 6 with 3, 8 with 2)")


def table_losses(rules: RoncoRules, seat: Seat, field: Policy) -> tuple[float, float, float]:
    """The seat's expected lives lost if it keeps and if it passes (cuts), and the position's
    probability, from the row of ``bayes``'s decision table at the seat's position when the
    others play ``field`` (S4; 0 when they never lead there)."""
    from simcards.ronco.bayes_exact import round_table

    n = seat.players
    table = round_table(rules, [Policy("bayes") if i == seat.position else field
                                for i in range(n)])
    at = np.flatnonzero((table.pos == seat.position) & (table.hist == seat.hist)
                        & (table.card == seat.card) & (table.dealt == seat.dealt))
    if at.size == 0 or table.weight[at[0]] <= 0:
        return 0.0, 0.0, 0.0
    r = int(at[0])
    return float(table.loss_keep[r]), float(table.loss_pass[r]), float(table.weight[r])
