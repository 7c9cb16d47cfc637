"""Ronco policies as data (rules S1-S6).

A policy is a kind plus a few numbers. Kernels receive a policy table (one row per position or
player) of plain arrays and dispatch on the integer kind, which keeps them free of Python objects
and lets numba cache them on disk (:class:`~simcards.ronco.kernel_state.Seats`, laid out by
:data:`COLUMNS`; every seat carries its policy's T, Td and p, read or not).

What the code asks of a kind is declared with it: ``threshold`` and ``informed`` are
:data:`THRESHOLD_RULE` kinds, fixed rules on (T, Td) that the exact solvers evaluate (``bayes``
replies to them, ``best-threshold`` and ``equilibrium`` search their grids); ``random`` needs
:data:`UNIFORMS`, one uniform number per decision (S3); ``bayes`` needs the :data:`BAYES_TABLE`,
the exact solver's decisions against the other players' declared policies (S4); ``user``
calls a player's own function (S5) and ``chart`` plays a keep chart read from a file (S6).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from simcards.core.policyspec import (
    USER_KIND,
    Param,
    PolicyKind,
    PolicyKinds,
    PolicySpec,
    SeatColumn,
)
from simcards.core.userpolicy import UserPolicy
from simcards.ronco.codes import BAYES, CHART, INFORMED, RANDOM, THRESHOLD, USER

DEFAULT_T = 5
DEFAULT_TD = 5
DEFAULT_P = 0.5

THRESHOLD_RULE = "threshold rule"
"""A trait: a fixed, deterministic rule on (T, Td) (S1, S2) that the exact solvers evaluate:
``bayes`` replies to a field of them, ``best-threshold`` and ``equilibrium`` search their
grids."""
UNIFORMS = "uniforms"
"""A need: the kind draws one uniform number per decision (S3)."""
USER_FUNCTION = "user function"
"""A need: the seat calls the user's function (S5) with its observation; the compiled rounds
engine calls it as a first-class function, the Python engine (``--engine python``) as Python."""
BAYES_TABLE = "bayes table"
"""A need: the kind plays the exact solver's table of best replies to the other players'
declared policies (S4, :mod:`simcards.ronco.bayes_exact`); a fixed seat, which declares no
other players, cannot play it."""
CHART_TABLE = "chart table"
"""A need: the kind plays a keep chart, a decision table read from a file (S6,
:mod:`simcards.ronco.charts`), looked up by the round kernel as ``bayes``'s is."""
COLUMNS = (SeatColumn("T", int, ("T",)), SeatColumn("Td", int, ("Td",)),
           SeatColumn("p", float, ("p",)))
"""The kernels' seat arrays (:class:`~simcards.ronco.kernel_state.Seats` after the kind codes
and before the ``bayes`` table): S1/S2's T and Td, S3's p."""

_THRESHOLDS = (
    Param("T", int, 0, "max_threshold", DEFAULT_T, "non-dealers keep at or above T"),
    Param("Td", int, 0, "max_threshold", DEFAULT_TD, "the dealer cuts below Td"),
)
KINDS = PolicyKinds("ronco", [
    PolicyKind("threshold", THRESHOLD, _THRESHOLDS, "S1: keep at or above a threshold",
               traits=frozenset({THRESHOLD_RULE})),
    PolicyKind("informed", INFORMED, _THRESHOLDS, "S2: threshold, plus what is certain",
               traits=frozenset({THRESHOLD_RULE})),
    PolicyKind("random", RANDOM, (Param("p", float, 0.0, 1.0, DEFAULT_P, "keep probability"),),
               "S3: keep with probability p", needs=frozenset({UNIFORMS})),
    PolicyKind("bayes", BAYES, (), "S4: the exact best reply to the other players' policies",
               needs=frozenset({BAYES_TABLE})),
    PolicyKind(USER_KIND, USER, (), "S5: your own function f(obs, legal) -> 0 keep, 1 pass "
               "(the dealer: cut), of the ronco_v0 observation", needs=frozenset({USER_FUNCTION})),
    PolicyKind("chart", CHART, (), "S6: a keep chart, a CSV file (simcards ronco chart writes "
               "one)", needs=frozenset({CHART_TABLE}), reads="simcards.ronco.charts:read"),
], COLUMNS)
"""Ronco's policy kinds (S1-S6): what ``--policies`` accepts, with ranges and defaults."""
KIND_CODE = {name: KINDS.code(name) for name in KINDS.names}
THRESHOLD_KINDS = KINDS.having(THRESHOLD_RULE)
"""The :data:`THRESHOLD_RULE` kinds, in declaration order (``threshold``, ``informed``)."""


def bounds(top: int) -> dict[str, int]:
    """The rule-dependent ranges of the policy parameters: thresholds lie in 0 .. top+1."""
    return {"max_threshold": top + 1}


@dataclass(frozen=True)
class Policy:
    """One player's way of playing.

    ``threshold`` and ``informed`` use ``T`` (a non-dealer keeps at strength >= T) and ``Td``
    (the dealer cuts below Td); ``random`` keeps with probability ``p``; ``bayes`` reads none of
    them: it keeps or passes by the exact loss its decision table gives (S4).
    """

    kind: str = "threshold"
    T: int = DEFAULT_T
    Td: int = DEFAULT_TD
    p: float = DEFAULT_P
    user: UserPolicy | None = None
    """S5: the user's function (the ``user`` kind only)."""
    chart: Any = None
    """S6: the keep chart played (a :class:`~simcards.ronco.charts.Chart`; ``chart`` only)."""

    @property
    def code(self) -> int:
        return KINDS.code(self.kind)

    @property
    def declared(self) -> PolicyKind:
        """The kind's declaration: its parameters and facts."""
        return KINDS.kind(self.kind)

    @property
    def deterministic(self) -> bool:
        return UNIFORMS not in self.declared.needs or self.p in (0.0, 1.0)

    def fields(self) -> dict[str, int | float]:
        """Every number of the policy by parameter name, its kind's or not."""
        return {"T": self.T, "Td": self.Td, "p": self.p}

    def as_spec(self) -> PolicySpec:
        return PolicySpec(self.kind, tuple(p.type(self.fields()[p.name])
                                           for p in self.declared.params), self.user,
                          self.chart)

    @classmethod
    def from_spec(cls, spec: PolicySpec, default: Policy | None = None) -> Policy:
        base = default or cls()
        given = {p.name: p.type(v)
                 for p, v in zip(KINDS.kind(spec.kind).params, spec.values, strict=True)}
        return cls(spec.kind, **{**base.fields(), **given}, user=spec.user, chart=spec.source)

    def spec(self) -> str:
        """The text form that :func:`parse_policy` reads back to exactly this policy."""
        return self.as_spec().text()

    def validate(self, top: int) -> Policy:
        """Thresholds lie in 0 .. top+1 (S1); probabilities in [0, 1] (S3)."""
        KINDS.check(self.as_spec(), bounds(top))
        return self


def parse_policy(text: str, default: Policy | None = None, top: int | None = None) -> Policy:
    """Read ``threshold:T:Td``, ``informed:T:Td``, ``random:p`` or a bare kind name.

    Missing numbers come from ``default`` (or the package defaults). With ``top`` the
    thresholds are range-checked here; without it, :meth:`Policy.validate` does it later.
    """
    base = default or Policy()
    spec = KINDS.parse(text, bounds(top) if top is not None else None, base.fields())
    return Policy.from_spec(spec, base)
