"""The ``bayes`` policy (rule S4): the exact best reply, for one round, to declared policies.

At every decision a ``bayes`` player takes the action (keep or pass; the dealer: keep or cut)
with the smaller exact expected loss this round, given everything he knows (S4) and the
policies the other players are declared to play. Against threshold or informed players no rule
loses a round less often from his seat: any rule maps the same information to an action, and
this one takes the best action for every piece of information.

The decisions are computed once per (rules, table size, other players' policies) by
:func:`simcards.ronco.bayes_kernel.build_table` and handed to the kernels as a sorted table of
lookup keys (:func:`simcards.ronco.round_kernel.bayes_key`). Tables are kept on disk beside numba's
cache, keyed by the kernel sources and the question, so a report builds each one once.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from simcards.core.errors import UsageError
from simcards.core.fingerprint import kernel_fingerprint, numba_cache_dir
from simcards.ronco.bayes_kernel import build_table
from simcards.ronco.codes import BAYES, CHART
from simcards.ronco.kernel_state import Seats
from simcards.ronco.policies import BAYES_TABLE, THRESHOLD_KINDS, Policy
from simcards.ronco.rules import RoncoRules

MAX_BAYES_PLAYERS = 10
"""The largest table whose decisions are computed: the exact computation's states grow about
five-fold with each player (10 players with a Spanish deck take a minute and a few GB)."""

FIELD_KINDS = THRESHOLD_KINDS
"""The kinds ``bayes`` replies to: the fixed rules on (T, Td) the exact solver evaluates
(declared :data:`~simcards.ronco.policies.THRESHOLD_RULE`)."""
NO_TABLE = (np.empty(0, np.int64), np.empty(0, np.int8))
"""An empty decision table, for the field's seats (``build_table`` reads only their rules)."""


def _table_seats(policies: Sequence[Policy]) -> list[int]:
    """The seats whose kind needs the decision table (``bayes``, S4)."""
    return [i for i, p in enumerate(policies) if BAYES_TABLE in p.declared.needs]


@dataclass(frozen=True)
class BayesTable:
    """Every information state of the ``bayes`` player, with its exact losses.

    One row per state: table size ``k``, position ``pos``, public ``hist`` (base 3, keep 0,
    swap 1, refused 2, position 0 the most significant digit), current card and the card dealt
    to him when the previous position swapped with him (strengths; ``dealt`` -1 otherwise),
    the state's probability ``weight`` and the expected lives lost if he keeps and if he passes
    (cuts), conditional on the state. ``keep`` is the decision (ties keep).
    """

    k: np.ndarray
    pos: np.ndarray
    hist: np.ndarray
    card: np.ndarray
    dealt: np.ndarray
    weight: np.ndarray
    loss_keep: np.ndarray
    loss_pass: np.ndarray
    seconds: float

    @property
    def keep(self) -> np.ndarray:
        return self.loss_keep <= self.loss_pass + 1e-12

    @property
    def size(self) -> int:
        return int(self.k.shape[0])

    def kernel_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``(bkeys, bvals)``: sorted lookup keys and decisions (1 keep, 0 pass)."""
        from simcards.ronco.charts import lookup_keys

        keys = lookup_keys(self.k, self.pos, self.hist, self.card, self.dealt)
        order = np.argsort(keys, kind="stable")
        return keys[order], self.keep[order].astype(np.int8)

    def replies(self) -> dict[tuple, bool]:
        """The decisions keyed as the reference engine asks for them (``RefPolicy.replies``):
        ``(k, pos, actions of positions 0 .. pos-1, card, dealt or None)``."""
        names = ("keep", "swap", "refused")
        out: dict[tuple, bool] = {}
        for i in range(self.size):
            pos = int(self.pos[i])
            h = int(self.hist[i])
            digits = []
            for _ in range(pos):
                h, r = divmod(h, 3)
                digits.append(names[r])
            dealt = int(self.dealt[i])
            out[(int(self.k[i]), pos, tuple(reversed(digits)), int(self.card[i]),
                 None if dealt < 0 else dealt)] = bool(self.keep[i])
        return out

    def expected_loss(self) -> np.ndarray:
        """Expected lives lost by position for each table size, playing the table: rows of
        ``(k, pos, loss)``; only for a table built for one seat (the probabilities of the
        states of one position add up to one)."""
        out = []
        for k in np.unique(self.k):
            for pos in np.unique(self.pos[self.k == k]):
                m = (self.k == k) & (self.pos == pos)
                loss = np.where(self.keep[m], self.loss_keep[m], self.loss_pass[m])
                out.append((int(k), int(pos), float(np.sum(self.weight[m] * loss))))
        return np.array(out)


def _check_field(rules: RoncoRules, field: Sequence[Policy]) -> None:
    for pol in field:
        if pol.kind not in FIELD_KINDS:
            raise UsageError(f"bayes needs every other player on a threshold or informed policy "
                             f"(its decisions are exact replies to them), got {pol.spec()}")
        pol.validate(rules.top)


def _build(rules: RoncoRules, k: int, policies: Sequence[Policy],
           heroes: Sequence[bool]) -> BayesTable:
    cls = rules.classes
    cls_strength = cls.strength
    field = Seats.from_policies(policies, NO_TABLE)  # the heroes' own rows are not read
    _compiled()
    start = time.perf_counter()
    pos, hist, card, dealt, w, lk, lp = build_table(k, field, cls, rules.kernel,
                                                    np.array(heroes, np.bool_))
    seconds = time.perf_counter() - start
    safe = np.where(w > 0, w, 1.0)
    return BayesTable(np.full(pos.shape[0], k, np.int64), pos, hist, cls_strength[card],
                      np.where(dealt >= 0, cls_strength[np.maximum(dealt, 0)], -1), w,
                      lk / safe, lp / safe, seconds)


@functools.cache
def _compiled() -> None:
    """Compile (or load) the kernel on a two-player table first, so that the seconds a
    table reports are the computation's, not numba's."""
    rules = RoncoRules.make()
    field = Seats.from_policies([Policy()] * 2)
    build_table(2, field, rules.classes, rules.kernel, np.ones(2, np.bool_))


def _concat(tables: Sequence[BayesTable]) -> BayesTable:
    cols = {f: np.concatenate([getattr(t, f) for t in tables])
            for f in ("k", "pos", "hist", "card", "dealt", "weight", "loss_keep", "loss_pass")}
    return BayesTable(**cols, seconds=sum(t.seconds for t in tables))


_COLUMNS = ("k", "pos", "hist", "card", "dealt", "weight", "loss_keep", "loss_pass")
_MEMO: dict[str, BayesTable] = {}
_LOCKS: dict[str, threading.Lock] = {}
_GUARD = threading.Lock()


def _cached(question: dict, make: Callable[[], BayesTable]) -> BayesTable:
    """``make()``, kept in memory and on disk under a key naming the kernel sources and
    ``question``; one thread computes a table while others asking for it wait."""
    text = json.dumps({"kernel": kernel_fingerprint(), **question}, sort_keys=True)
    name = hashlib.sha256(text.encode()).hexdigest()[:24]
    with _GUARD:
        lock = _LOCKS.setdefault(name, threading.Lock())
    with lock:
        if name in _MEMO:
            return _MEMO[name]
        path = numba_cache_dir().parent / "bayes" / f"{name}.npz"
        if path.exists():
            with np.load(path) as z:
                table = BayesTable(**{f: z[f] for f in _COLUMNS}, seconds=float(z["seconds"]))
        else:
            table = make()
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{name}.{os.getpid()}.{threading.get_ident()}.tmp.npz")
            np.savez(tmp, **{f: getattr(table, f) for f in _COLUMNS}, seconds=table.seconds)
            tmp.replace(path)
        _MEMO[name] = table
        return table


def prebuild(rules: RoncoRules, n: int, field: Policy) -> None:
    """Start computing :func:`game_table` in a background thread (the kernel releases the
    GIL), so that it is ready, or nearly, when a race needs it. Errors are left for the
    caller's own call to raise."""
    def work() -> None:
        with contextlib.suppress(Exception):  # the foreground call reports it
            game_table(rules, n, field)

    threading.Thread(target=work, name="bayes-tables", daemon=True).start()


def _check_size(k: int) -> None:
    if k > MAX_BAYES_PLAYERS:
        raise UsageError(f"bayes decisions are computed exactly for at most "
                         f"{MAX_BAYES_PLAYERS} players, got {k}")


def round_table(rules: RoncoRules, policies: Sequence[Policy]) -> BayesTable:
    """The decision table of the one ``bayes`` position of a round, whose other positions play
    ``policies`` (S4)."""
    seats = _table_seats(policies)
    if len(seats) != 1:
        raise UsageError("bayes replies to the others' declared policies: at most one player "
                         "at the table may play it")
    k = len(policies)
    _check_size(k)
    _check_field(rules, [p for i, p in enumerate(policies) if i not in seats])
    question = {"what": "round", "rules": rules.summary(),
                "policies": [p.spec() for p in policies]}
    return _cached(question, lambda: _build(rules, k, policies,
                                            [i == seats[0] for i in range(k)]))


def game_table(rules: RoncoRules, n: int, field: Policy) -> BayesTable:
    """The decision table of a ``bayes`` player in games of ``n`` players whose others all play
    ``field``: every table size the game passes through (2 .. n) and every position."""
    _check_size(n)
    _check_field(rules, [field])
    tables = []
    for k in range(2, n + 1):
        question = {"what": "game-round", "rules": rules.summary(), "players": k,
                    "field": field.spec()}
        tables.append(_cached(question, lambda k=k: _build(rules, k, [field] * k,
                                                           [True] * k)))
    return _concat(tables)


def game_field(policies: Sequence[Policy]) -> Policy | None:
    """The one policy every non-``bayes`` player of a game plays (None without a ``bayes``
    player); a game whose others differ is refused, since the table is built per table size
    and position, not per set of survivors."""
    seats = _table_seats(policies)
    if not seats:
        return None
    if len(seats) > 1:
        raise UsageError("bayes replies to the others' declared policies: at most one player "
                         "at the table may play it")
    field = [p for i, p in enumerate(policies) if i not in seats]
    others = {(p.kind, p.T, p.Td) for p in field}
    if len(others) != 1:
        raise UsageError("bayes in games needs every other player on the same threshold or "
                         "informed policy")
    return field[0]


def policy_table(rules: RoncoRules, policies: Sequence[Policy], *,
                 game: bool = False) -> Seats:
    """The kernels' arrays for ``policies`` (by position in a round, by player in a game),
    with the decision table when one of them plays ``bayes`` or a keep chart (S6: a round's
    chart positions, :func:`simcards.ronco.charts.seat_table`; a game's every table size,
    :func:`simcards.ronco.charts.game_seat_table`). The kernel looks both up one
    way, so a chart seat is handed to it as a table seat."""
    charts = any(p.chart is not None for p in policies)
    if not _table_seats(policies) and not charts:
        return Seats.from_policies(policies)
    if game and charts:
        from simcards.ronco.charts import game_seat_table

        seats = Seats.from_policies(policies, game_seat_table(rules, policies))
        return seats._replace(kind=np.where(seats.kind == CHART, BAYES, seats.kind))
    if game:
        field = game_field(policies)
        assert field is not None
        table = game_table(rules, len(policies), field).kernel_arrays()
    else:
        table = round_table(rules, policies).kernel_arrays() if _table_seats(policies) else None
        if charts:
            from simcards.ronco.charts import seat_table

            table = seat_table(rules, policies, table)
    seats = Seats.from_policies(policies, table)
    return seats._replace(kind=np.where(seats.kind == CHART, BAYES, seats.kind))
