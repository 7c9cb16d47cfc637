"""Configurations that span Ronco's rule switches and policies, shared by the agreement tests."""

from __future__ import annotations

from dataclasses import dataclass

from simcards.ronco.policies import Policy
from simcards.ronco.rules import RoncoRules


@dataclass(frozen=True)
class Config:
    name: str
    rules: RoncoRules
    policies: tuple[Policy, ...]


def _table(n: int, kind: str = "threshold", t: int = 5, td: int = 5) -> tuple[Policy, ...]:
    return (Policy(kind, t, td),) * n


CONFIGS: list[Config] = [
    Config("default-4p", RoncoRules.make(), _table(4)),
    Config("spanish48-5p-blocked", RoncoRules.make(deck="spanish48", cut_king="blocked"),
           _table(5, t=6, td=6)),
    Config("french52-3p-none-first", RoncoRules.make(deck="french52", cut_king="none",
                                                     ties="first"), _table(3, t=7, td=6)),
    Config("poroli-4p-informed", RoncoRules.make(poroli=True), _table(4, "informed")),
    Config("informed-6p-first", RoncoRules.make(ties="first"), _table(6, "informed", 4, 5)),
    Config("informed-2p-loses", RoncoRules.make(), _table(2, "informed", 6, 6)),
    Config("poroli-3p-first-mixed", RoncoRules.make(poroli=True, ties="first"),
           (Policy("informed", 3, 4), Policy("threshold", 6, 6), Policy("informed", 5, 7))),
    Config("french52-5p-informed-blocked", RoncoRules.make(deck="french52", cut_king="blocked"),
           _table(5, "informed", 6, 6)),
    Config("per-position-thresholds-4p", RoncoRules.make(),
           (Policy("threshold", 3, 3), Policy("threshold", 10, 10), Policy("threshold", 0, 0),
            Policy("threshold", 13, 13))),
    Config("spanish48-2p-first-informed", RoncoRules.make(deck="spanish48", ties="first"),
           _table(2, "informed", 7, 7)),
]

RANDOM_CONFIGS: list[Config] = [
    Config("random-4p", RoncoRules.make(), _table(4, "random")),
    Config("random-mixed-poroli-5p", RoncoRules.make(poroli=True),
           (Policy("random", p=0.3), Policy("informed", 5, 5), Policy("random", p=0.8),
            Policy("threshold", 6, 6), Policy("random", p=0.5))),
]
