"""Ronco policies as data (rules S1-S4).

A policy is a kind plus a few numbers. Kernels receive a policy table (one row per position or
player) of plain arrays and dispatch on the integer kind, which keeps them free of Python objects
and lets numba cache them on disk.
"""

from __future__ import annotations

from dataclasses import dataclass

from simcards.core.policyspec import Param, PolicyKind, PolicyKinds, PolicySpec
from simcards.ronco.codes import BAYES, INFORMED, RANDOM, THRESHOLD

DEFAULT_T = 5
DEFAULT_TD = 5
DEFAULT_P = 0.5

_THRESHOLDS = (
    Param("T", int, 0, "max_threshold", DEFAULT_T, "non-dealers keep at or above T"),
    Param("Td", int, 0, "max_threshold", DEFAULT_TD, "the dealer cuts below Td"),
)
KINDS = PolicyKinds("ronco", [
    PolicyKind("threshold", THRESHOLD, _THRESHOLDS, "S1: keep at or above a threshold"),
    PolicyKind("informed", INFORMED, _THRESHOLDS, "S2: threshold, plus what is certain"),
    PolicyKind("random", RANDOM, (Param("p", float, 0.0, 1.0, DEFAULT_P, "keep probability"),),
               "S3: keep with probability p"),
    PolicyKind("bayes", BAYES, (), "S4: the exact best reply to the other players' policies"),
])
"""Ronco's policy kinds (S1-S4): what ``--policies`` accepts, with ranges and defaults."""
KIND_CODE = {name: KINDS.code(name) for name in KINDS.names}


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

    @property
    def code(self) -> int:
        return KINDS.code(self.kind)

    @property
    def deterministic(self) -> bool:
        return self.kind != "random" or self.p in (0.0, 1.0)

    def as_spec(self) -> PolicySpec:
        if self.kind == "random":
            return PolicySpec("random", (float(self.p),))
        if self.kind == "bayes":
            return PolicySpec("bayes", ())
        return PolicySpec(self.kind, (int(self.T), int(self.Td)))

    @classmethod
    def from_spec(cls, spec: PolicySpec, default: Policy | None = None) -> Policy:
        base = default or cls()
        if spec.kind == "random":
            return cls("random", base.T, base.Td, float(spec.values[0]))
        if spec.kind == "bayes":
            return cls("bayes", base.T, base.Td, base.p)
        return cls(spec.kind, int(spec.values[0]), int(spec.values[1]), base.p)

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
    spec = KINDS.parse(text, bounds(top) if top is not None else None,
                       {"T": base.T, "Td": base.Td, "p": base.p})
    return Policy.from_spec(spec, base)
