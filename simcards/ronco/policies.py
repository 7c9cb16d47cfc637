"""Ronco policies as data (rules S1-S3).

A policy is a kind plus a few numbers. Kernels receive a policy table (one row per position or
player) of plain arrays and dispatch on the integer kind, which keeps them free of Python objects
and lets numba cache them on disk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from simcards.errors import UsageError

THRESHOLD, INFORMED, RANDOM = 0, 1, 2
KIND_CODE = {"threshold": THRESHOLD, "informed": INFORMED, "random": RANDOM}
DEFAULT_T = 5
DEFAULT_TD = 5
DEFAULT_P = 0.5


@dataclass(frozen=True)
class Policy:
    """One player's way of playing.

    ``threshold`` and ``informed`` use ``T`` (a non-dealer keeps at strength >= T) and ``Td``
    (the dealer cuts below Td); ``random`` keeps with probability ``p``.
    """

    kind: str = "threshold"
    T: int = DEFAULT_T
    Td: int = DEFAULT_TD
    p: float = DEFAULT_P

    @property
    def code(self) -> int:
        return KIND_CODE[self.kind]

    @property
    def deterministic(self) -> bool:
        return self.kind != "random" or self.p in (0.0, 1.0)

    def spec(self) -> str:
        """The text form that :func:`parse_policy` reads back."""
        if self.kind == "random":
            return f"random:{self.p:g}"
        return f"{self.kind}:{self.T}:{self.Td}"

    def validate(self, top: int) -> Policy:
        """Thresholds lie in 0 .. top+1 (S1); probabilities in [0, 1] (S3)."""
        if self.kind not in KIND_CODE:
            raise UsageError(f"unknown policy {self.kind!r} (expected threshold|informed|random)")
        if self.kind == "random":
            if not 0.0 <= self.p <= 1.0:
                raise UsageError(f"keep probability must be in [0, 1], got {self.p}")
        else:
            for name, t in (("threshold", self.T), ("dealer threshold", self.Td)):
                if not 0 <= t <= top + 1:
                    raise UsageError(f"{name} must be between 0 and {top + 1}, got {t}")
        return self


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"{what} must be an integer, got {text!r}") from None


def parse_policy(text: str, default: Policy | None = None) -> Policy:
    """Read ``threshold:T:Td``, ``informed:T:Td``, ``random:p`` or a bare kind name.

    Missing numbers come from ``default`` (or the package defaults).
    """
    base = default or Policy()
    parts = text.strip().split(":")
    kind = parts[0].strip().lower()
    if kind not in KIND_CODE:
        raise UsageError(f"unknown policy {parts[0]!r} (expected threshold|informed|random)")
    if kind == "random":
        if len(parts) > 2:
            raise UsageError(f"policy {text!r}: random takes one number, random:p")
        p = base.p
        if len(parts) == 2:
            try:
                p = float(parts[1])
            except ValueError:
                raise UsageError(f"keep probability must be a number, got {parts[1]!r}") from None
        return Policy("random", base.T, base.Td, p)
    if len(parts) > 3:
        raise UsageError(f"policy {text!r}: expected {kind}:T:Td")
    t = _int(parts[1], "threshold") if len(parts) > 1 else base.T
    td = _int(parts[2], "dealer threshold") if len(parts) > 2 else base.Td
    return Policy(kind, t, td, base.p)


@dataclass(frozen=True)
class PolicyTable:
    """Policies as kernel arrays: one row per position (rounds) or per player (games)."""

    kind: np.ndarray
    T: np.ndarray
    Td: np.ndarray
    p: np.ndarray

    def args(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(kind, T, Td, p)``: the kernels' policy arguments."""
        return (self.kind, self.T, self.Td, self.p)

    @classmethod
    def from_policies(cls, policies: Sequence[Policy]) -> PolicyTable:
        return cls(
            kind=np.array([p.code for p in policies], dtype=np.int64),
            T=np.array([p.T for p in policies], dtype=np.int64),
            Td=np.array([p.Td for p in policies], dtype=np.int64),
            p=np.array([p.p for p in policies], dtype=np.float64),
        )
