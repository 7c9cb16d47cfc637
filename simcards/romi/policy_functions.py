"""The built-in policies as functions of the observation (Q9): ``greedy(obs, legal)``,
``rummy(obs, legal)``, ``threshold(obs, legal)`` and ``expert(obs, legal)`` return the code the
built-in plays, so that a player's own rule can start from one::

    from simcards.romi.observation_kernel import DRAW_DISCARD, DRAW_STOCK, i_opened
    from simcards.romi.policy_functions import expert

    def no_early_discard(obs, legal):
        move = expert(obs, legal)
        return DRAW_STOCK if move == DRAW_DISCARD and not i_opened(obs) else move

Each answer is planned from the observation alone, with the compiled engine's planner
(:func:`simcards.romi.policies_kernel.choose_draw` and ``plan_turn``, Q2-Q5): the draw, or
the next move of the turn's plan (for an opening, the next code of its path after the shapes
already named). The table engine's seat (:class:`~simcards.romi.table.KernelPolicy`) plans a
turn once, at its first decision after the draw, and then plays that plan move by move;
planning afresh after each move would sometimes choose otherwise (after a swap, say, the
freed joker laid in a new meld rather than added where the plan put it). So these functions
do the same: the plan made at the turn's first decision after the draw is kept, keyed by
what the observation shows of the turn (its number, the stock, the discard pile, the cut
card, the other hands' sizes and opened flags), and answers the turn's later decisions while
the hand and the table (its melds' number, the cards on it) are those the plan leads to; a
turn that left the plan (a rule of your own played another move) is planned afresh from where
it stands. That is the only thing
kept between calls: the answer is the seat's whatever the function was asked before, since
every turn's first decision after the draw is asked. A code the mask ``legal`` does not allow
is never returned (the turn planned afresh, else the lowest legal code).

Where the observation holds what the seat reads, the code is the seat's: a test plays the
seats and the functions side by side. Two things it does not hold (:func:`missing`):

* The rules' ``open_min`` and ``ace_low_value`` (O1, M6): keyword arguments, defaulting to
  the rules' defaults (51 and 1), as :func:`functools.partial` or a wrapper can set them.
* The order in which an opening's melds were put down (M5): the observation numbers table
  melds as the rules do, an opening's melds by their cards, while the engine's policies read
  the table in the order the melds were laid ("the first meld in table order", Q2). Where
  the two orders differ, an addition to "the first meld" may go to another meld.

Card copies (D1) are not told apart in the observation; the planner is given one id per copy,
table melds first, then the hand, the top discard and the cut card.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from simcards.romi import codes
from simcards.romi import observation_kernel as ob
from simcards.romi import table_codes as T
from simcards.romi.actions import (
    NO_JOKER,
    Add,
    Discard,
    DrawCut,
    DrawDiscard,
    DrawStock,
    Lay,
    Open,
    Swap,
)
from simcards.romi.kernel_state import View

OPEN_MIN = 51
"""O1's default least value of an opening (``--open-min``)."""
ACE_LOW = 1
"""M6's default value of an As below the 2 (``--ace-low-value``)."""
RUMMY_K = 3
"""Q3's default K."""
THRESHOLD_X = 70
"""Q4's default X."""


def missing() -> str:
    """What the observation lacks of what the table engine's built-in seats read."""
    return ("the rules' open_min and ace_low_value (keyword arguments here), and the order "
            "an opening's melds were put down in (the observation orders them by their cards)")


@lru_cache(maxsize=1)
def _work() -> tuple[Any, Any, Any, Any]:
    """This process's planner state: a workspace (its table arrays), a solver, a scratch and a
    hand row (the planner's arrays, reused call after call)."""
    from simcards.romi import policies_kernel, round_kernel
    from simcards.romi.melds_kernel import new_solver

    ws = round_kernel.new_workspace(5)
    return ws, new_solver(), round_kernel.new_scratch(), policies_kernel


HW = 20
"""The planner's hand row (``round_kernel.HW``: a hand holds at most 16 cards)."""


def _table(obs: np.ndarray, ws: Any, ids: np.ndarray) -> int:
    """The table melds of ``obs`` written into ``ws`` (the planner's form), card ids drawn from
    ``ids`` (the next copy of each kind); returns their number."""
    tm, tc = ws.tm, ws.tc
    nm = int(ob.table_melds(obs))
    for m in range(nm):
        kinds = ob.meld_kinds(obs, m)
        stands = int(ob.meld_joker_as(obs, m))
        real = [k for k in range(52) if kinds[k]]
        jid = _next(ids, ob.JOKER) if kinds[ob.JOKER] else -1
        tm[m, :] = 0
        tc[m, :] = -1
        tm[m, codes.TM_OWNER] = int(ob.meld_owner(obs, m))
        tm[m, codes.TM_JID] = jid
        if len({k % 13 for k in real}) == 1 and len(real) >= 2 and (
                len({k // 13 for k in real}) == len(real)):
            tm[m, codes.TM_RUN] = 0
            tm[m, codes.TM_RANK] = real[0] % 13 + 1
            for k in real:
                tc[m, k // 13] = _next(ids, k)
                tm[m, codes.TM_MASK] |= 1 << (k // 13)
            continue
        suit = real[0] // 13
        ranks = {k % 13 + 1 for k in real}
        if jid >= 0 and stands % 13 + 1 != 1:
            ranks.add(stands % 13 + 1)
        high = 13 in ranks
        places = {(14 if high else 1) if r == 1 else r for r in ranks}
        jp = 0
        if jid >= 0:
            r = stands % 13 + 1
            jp = r if r != 1 else (1 if 2 in places else 14)
            places.add(jp)
        tm[m, codes.TM_RUN] = 1
        tm[m, codes.TM_SUIT] = suit
        tm[m, codes.TM_LO] = min(places)
        tm[m, codes.TM_HI] = max(places)
        tm[m, codes.TM_JP] = jp
        for k in real:
            r = k % 13 + 1
            p = (14 if high else 1) if r == 1 else r
            tc[m, p] = _next(ids, k)
    return nm


def _next(ids: np.ndarray, k: int) -> int:
    """The id of the next copy of kind ``k`` (``ids`` counts the copies handed out)."""
    c = int(ids[k])
    ids[k] += 1
    if k == ob.JOKER:
        return 104 + c % 4
    return k + 52 * (c % 2)


def _legal(obs: np.ndarray, legal: np.ndarray | None, kind: int, param: int, open_min: int,
           ace_low: int) -> int:
    """:func:`_decide`'s code when ``legal`` (the mask, or None) allows it. Otherwise (the table
    is not the one the plan of the turn was made for) the rest of the turn planned afresh,
    and when even that code is not allowed, the lowest legal code: the table engine's seat
    plays a random legal move there."""
    code = _decide(obs, kind, param, open_min, ace_low)
    if legal is None or legal[code]:
        return code
    _PLANS.pop(_turn_sign(obs, kind, param, open_min, ace_low), None)
    code = _decide(obs, kind, param, open_min, ace_low)
    return code if legal[code] else int(np.flatnonzero(legal)[0])


def _decide(obs: np.ndarray, kind: int, param: int, open_min: int, ace_low: int) -> int:
    """The code the built-in ``kind`` (its parameter ``param``) plays at ``obs``."""
    ws, sv, ps, policies = _work()
    phase = int(ob.phase(obs))
    if phase not in (ob.FIRST, ob.DRAW, ob.MELD):
        raise ValueError("not this seat's decision: the observation's phase is "
                         f"{('other', '', '', '', 'over')[phase]}")
    ids = np.zeros(ob.N_KINDS, np.int64)
    nm = _table(obs, ws, ids)
    counts = ob.hand(obs)
    hand = np.full(HW, -1, np.int64)
    n = 0
    must = -1
    must_kind = int(ob.must_place(obs))
    for k in range(ob.N_KINDS):
        for _ in range(int(counts[k])):
            hand[n] = _next(ids, k)
            if k == must_kind and must < 0:
                must = int(hand[n])
            n += 1
    top_kind = int(ob.top(obs))
    top = _next(ids, top_kind) if top_kind >= 0 else -1
    cut_kind = int(ob.cut(obs))
    cut = _next(ids, cut_kind) if cut_kind >= 0 and not ob.cut_taken(obs) else -1
    x = param if kind == codes.POLICY_THRESHOLD else open_min
    sizes = ob.hand_sizes(obs)
    hold = kind == codes.POLICY_RUMMY and all(int(s) > param for s in sizes[1:])
    xs = ps.xs
    xs[codes.X_ON] = 1 if kind == codes.POLICY_EXPERT else 0
    xs[codes.X_NEXT_OPEN] = int(ob.has_opened(obs, 1))
    xs[codes.X_PILE:codes.X_PILE + ob.N_KINDS] = ob.pile(obs)
    if phase == ob.FIRST:
        view = View(0, False, False, False, x, False, top, cut, ace_low, ws.tm, ws.tc, nm)
    else:
        view = View(0, bool(ob.i_opened(obs)), bool(ob.may_open(obs)),
                    not ob.has_drawn(obs, 0), x, hold, top, cut, ace_low, ws.tm, ws.tc, nm)
    if phase == ob.DRAW:
        code = int(policies.choose_draw(hand, n, view, sv, ps))
        return {codes.MV_DRAW_STOCK: T.DRAW_STOCK, codes.MV_DRAW_DISCARD: T.DRAW_DISCARD,
                codes.MV_DRAW_CUT: T.DRAW_CUT}[code]
    from simcards.romi.records import decode_moves

    sign = _turn_sign(obs, kind, param, open_min, ace_low)
    where = _step(obs, _PLANS.get(sign))
    if where is None:
        nmv = policies.plan_turn(hand, n, must, view, sv, ps)[0]
        plan = _Plan(decode_moves(ps.mv[:nmv]), counts, nm, _on_table(obs, nm))
        if len(_PLANS) > 64:
            _PLANS.clear()
        _PLANS[sign] = plan
        where = (plan, 0)
    plan, j = where
    return _code(plan.moves[j], obs)


class _Plan:
    """The plan of a turn's melding and discard, and the hand (kind counts) and the number of
    table melds before each of its moves."""

    def __init__(self, moves: list[Any], counts: np.ndarray, nm: int, table: np.ndarray
                 ) -> None:
        self.moves = moves
        self.before: list[tuple[bytes, int, bytes]] = []
        hand = counts.copy()
        table = table.copy()
        for move in moves:
            self.before.append((hand.tobytes(), nm, table.tobytes()))
            if isinstance(move, Open):
                for m in move.melds:
                    _move(hand, table, m.cards)
                nm += len(move.melds)
            elif isinstance(move, Lay):
                _move(hand, table, move.meld.cards)
                nm += 1
            elif isinstance(move, Add):
                _move(hand, table, (move.card,))
            elif isinstance(move, Swap):
                _move(hand, table, (move.card,))
                hand[ob.JOKER] += 1
                table[ob.JOKER] -= 1


def _move(hand: np.ndarray, table: np.ndarray, cards: Any) -> None:
    """``cards`` from the hand to the table (kind counts)."""
    for c in cards:
        k = ob.JOKER if c >= 104 else c % 52
        hand[k] -= 1
        table[k] += 1


def _on_table(obs: np.ndarray, nm: int) -> np.ndarray:
    """Copies of each kind on the table (53 counts)."""
    out = np.zeros(ob.N_KINDS, np.int64)
    for m in range(nm):
        out += ob.meld_kinds(obs, m)
    return out


_PLANS: dict[bytes, _Plan] = {}
"""The plans of the turns in progress, by :func:`_turn_sign`: as the table engine's seat
(:class:`~simcards.romi.table.KernelPolicy`) plans a turn once, after its draw, and plays
that plan move by move, a built-in function plans at the turn's first decision after the draw
and answers the later decisions of the same turn from that plan (while the hand and the
table are the plan's: a turn played otherwise is planned afresh from where it stands)."""


def _turn_sign(obs: np.ndarray, *key: int) -> bytes:
    """What stays the same through a seat's melding and discard, and tells its turns apart:
    the turn number, the stock, the discard pile, the cut card, the other players' hands and
    opened flags (and the policy asking)."""
    n = int(ob.players(obs))
    sizes = ob._sizes_at(n)
    head = np.array([*key, ob.turn(obs), ob.stock(obs), ob.cut(obs), ob.cut_taken(obs), n],
                    np.int64)
    return (head.tobytes() + obs[ob._pile_at(n):ob._pile_at(n) + 2 * ob.N_KINDS].tobytes()
            + obs[sizes + 1:sizes + n].tobytes() + obs[sizes + n + 1:sizes + 2 * n].tobytes())


def _step(obs: np.ndarray, plan: _Plan | None) -> tuple[_Plan, int] | None:
    """The plan and the index of its move that comes next at ``obs``, or None when ``obs`` is
    at no step of the plan."""
    if plan is None:
        return None
    nm = int(ob.table_melds(obs))
    here = (ob.hand(obs).tobytes(), nm, _on_table(obs, nm).tobytes())
    for j, before in enumerate(plan.before):
        if before == here:
            return plan, j
    return None


def _code(move: Any, obs: np.ndarray) -> int:
    """The code of the planned ``move`` at ``obs`` (an opening: the next code of its path)."""
    if isinstance(move, Discard):
        return T.DISCARD0 + (ob.JOKER if move.card >= 104 else move.card % 52)
    if isinstance(move, Open):
        path = [*sorted(T.SHAPE0 + T.meld_shape(m) for m in move.melds), T.OPEN_DONE]
        return path[int(ob.opening_named(obs).sum())]
    if isinstance(move, Lay):
        return T.SHAPE0 + T.meld_shape(move.meld)
    if isinstance(move, Add):
        return T.ADD0 + move.target * T.ADD_VARIANTS + _variant(obs, move)
    if isinstance(move, Swap):
        return T.SWAP0 + move.target
    return T.DRAW_CODES[move] if isinstance(move, DrawStock | DrawDiscard | DrawCut) else -1


def _variant(obs: np.ndarray, move: Add) -> int:
    """The ``v`` of an addition's code: the real card's kind, or where a joker goes."""
    if move.card < 104:
        return move.card % 52
    kinds = ob.meld_kinds(obs, move.target)
    real = [k for k in range(52) if kinds[k]]
    if len({k % 13 for k in real}) == 1:
        return T.JOKER_SET
    suit = real[0] // 13
    ranks = {k % 13 + 1 for k in real}
    stands = int(ob.meld_joker_as(obs, move.target))
    if stands >= 0:
        ranks.add(stands % 13 + 1)
    high = 13 in ranks
    places = {(14 if high else 1) if r == 1 else r for r in ranks}
    hi = max(places)
    if hi < 14 and move.stands_for != NO_JOKER and move.stands_for == T.place_kind(suit, hi + 1):
        return T.JOKER_HIGH
    return T.JOKER_LOW


def greedy(obs: np.ndarray, legal: np.ndarray, *, open_min: int = OPEN_MIN,
           ace_low: int = ACE_LOW) -> int:
    """Q2 ``greedy``'s code at ``obs``: opens at once, lays and adds all it can, keeps the
    lowest penalty."""
    return _legal(obs, legal, codes.POLICY_GREEDY, 0, open_min, ace_low)


def rummy(obs: np.ndarray, legal: np.ndarray, K: int = RUMMY_K, *, open_min: int = OPEN_MIN,
          ace_low: int = ACE_LOW) -> int:
    """Q3 ``rummy:K``'s code at ``obs``: opens only to go out in the same turn until an
    opponent holds K cards or fewer."""
    return _legal(obs, legal, codes.POLICY_RUMMY, K, open_min, ace_low)


def threshold(obs: np.ndarray, legal: np.ndarray, X: int = THRESHOLD_X, *,
              open_min: int = OPEN_MIN, ace_low: int = ACE_LOW) -> int:
    """Q4 ``threshold:X``'s code at ``obs``: greedy, but opens only with X points or more."""
    return _legal(obs, legal, codes.POLICY_THRESHOLD, X, open_min, ace_low)


def expert(obs: np.ndarray, legal: np.ndarray, *, open_min: int = OPEN_MIN,
           ace_low: int = ACE_LOW) -> int:
    """Q5 ``expert``'s code at ``obs``: greedy's draws and melds, the discard weighed over the
    unseen cards, never feeding the next player."""
    return _legal(obs, legal, codes.POLICY_EXPERT, 0, open_min, ace_low)
