"""Policy specs: ``kind:param:param`` text, parsed and validated the same way for every game.

Each game declares its policy kinds once, as data (:class:`PolicyKind` with typed, bounded
:class:`Param` entries); :class:`PolicyKinds` then parses ``--policies`` entries, checks every
value against its range, fills missing trailing parameters from defaults, explains the syntax
in ``--help``, and writes a spec back as text that parses to the same values. Floats are written
with the shortest text that reads back exactly, so two different parameters never print alike
(run keys are built from that text).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from simcards.core.errors import UsageError

Number = int | float
Bound = Number | str
"""A range end: a number, or the name of a bound the rules supply (a deck's top rank, say)."""


@dataclass(frozen=True)
class Param:
    """One numeric parameter of a policy kind, with its type, range and default."""

    name: str
    type: type[int] | type[float]
    low: Bound
    high: Bound
    default: Number
    doc: str = ""

    def bounds(self, named: Mapping[str, Number]) -> tuple[float, float]:
        """The range, with named ends looked up in ``named``; an end not supplied there is
        left open (it is checked later, once the rules are known)."""
        def value(b: Bound, open_end: float) -> float:
            if isinstance(b, str):
                return named.get(b, open_end)
            return b

        return value(self.low, -math.inf), value(self.high, math.inf)

    def read(self, text: str, kind: str) -> Number:
        """The value written in ``text``; one line naming the problem if it is malformed."""
        what = f"policy {kind}: {self.name}"
        raw = text.strip()
        if self.type is int:  # written as every integer of the command line is
            from simcards.core.cli_options import PLAIN_INTEGER

            if not PLAIN_INTEGER.match(raw):
                raise UsageError(f"{what} must be an integer, got {text!r}")
            return int(raw)
        try:
            x = float(raw)
        except ValueError:
            raise UsageError(f"{what} must be a number, got {text!r}") from None
        if not math.isfinite(x):
            raise UsageError(f"{what} must be a finite number, got {text!r}")
        return x

    def check(self, value: Number, kind: str, named: Mapping[str, Number]) -> Number:
        lo, hi = self.bounds(named)
        if isinstance(value, float) and not math.isfinite(value):
            raise UsageError(f"policy {kind}: {self.name} must be a finite number, got {value}")
        if not lo <= value <= hi:
            raise UsageError(f"policy {kind}: {self.name} must be between {lo} and {hi}, "
                             f"got {format_value(value)}")
        return value

    def describe(self) -> str:
        return f"{self.name} in {self.low}..{self.high}" + (f" ({self.doc})" if self.doc else "")


@dataclass(frozen=True)
class PolicyKind:
    """A policy kind: its name, the integer code the kernels dispatch on, its parameters."""

    name: str
    code: int
    params: tuple[Param, ...] = ()
    doc: str = ""
    note: str = ""
    """What every help text that lists the kind must say of it (a kind that is no legal
    player, say); empty for most."""

    def syntax(self) -> str:
        return ":".join([self.name, *(p.name for p in self.params)])


@dataclass(frozen=True)
class PolicySpec:
    """A parsed policy: a kind and one value per parameter, in the kind's order."""

    kind: str
    values: tuple[Number, ...] = ()

    def text(self) -> str:
        """The text that parses back to exactly this spec."""
        return ":".join([self.kind, *(format_value(v) for v in self.values)])

    def __str__(self) -> str:
        return self.text()


def split_entries(text: str, flag: str = "--policies") -> list[str]:
    """The comma-separated entries of a per-seat list such as ``--policies``, stripped.

    An empty entry (``greedy,``, ``greedy,,random``) is refused rather than dropped: dropping it
    would silently shift every later seat's policy, or turn a list meant for three seats into
    one for two."""
    items = [item.strip() for item in text.split(",")]
    if not any(items):
        raise UsageError(f"{flag} is empty")
    empty = [i + 1 for i, item in enumerate(items) if not item]
    if empty:
        which = ", ".join(str(i) for i in empty)
        raise UsageError(f"{flag} {text.strip()!r}: entry {which} of {len(items)} is empty "
                         "(one policy per seat, comma-separated, or one for all)")
    return items


def flag_message(flag: str, message: str) -> str:
    """``message`` (from :meth:`PolicyKinds.parse`) under the flag or argument it came from,
    without saying "policy" twice (``policy A: lookahead: D must be ...``)."""
    if flag.startswith("policy ") and message.startswith("policy "):
        message = message[len("policy "):]
    return message if message.startswith(flag) else f"{flag}: {message}"


def format_value(v: Number) -> str:
    """Ints as digits; floats as the shortest text that reads back to the same float."""
    return str(v) if isinstance(v, int) else repr(float(v))


class PolicyKinds:
    """The policy kinds of one game; see the module docstring."""

    def __init__(self, game: str, kinds: Sequence[PolicyKind]) -> None:
        self.game = game
        self.kinds = {k.name: k for k in kinds}
        codes = [k.code for k in kinds]
        if len(set(codes)) != len(codes):
            raise ValueError(f"{game}: two policy kinds share a kernel code")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.kinds)

    def code(self, kind: str) -> int:
        return self.kind(kind).code

    def kind(self, name: str) -> PolicyKind:
        try:
            return self.kinds[name]
        except KeyError:
            raise UsageError(f"unknown {self.game} policy {name!r} (expected "
                             f"{' | '.join(self.kinds)})") from None

    def parse(self, text: str, bounds: Mapping[str, Number] | None = None,
              defaults: Mapping[str, Number] | None = None) -> PolicySpec:
        """Read ``kind[:v1[:v2...]]``: missing trailing values come from ``defaults`` (by
        parameter name), else from the kind's own defaults; every value is range-checked."""
        parts = text.strip().split(":")
        kind = self.kind(parts[0].strip().lower())
        given = parts[1:]
        if len(given) > len(kind.params):
            raise UsageError(f"policy {text.strip()!r}: {kind.name} takes at most "
                             f"{len(kind.params)} parameter(s): {kind.syntax()}")
        values = []
        for i, p in enumerate(kind.params):
            if i < len(given):
                v = p.read(given[i], kind.name)
            else:
                v = (defaults or {}).get(p.name, p.default)
            values.append(v)
        return self.check(PolicySpec(kind.name, tuple(values)), bounds)

    def check(self, spec: PolicySpec, bounds: Mapping[str, Number] | None = None) -> PolicySpec:
        """Validate a spec built in code (not parsed) exactly as a parsed one."""
        kind = self.kind(spec.kind)
        if len(spec.values) != len(kind.params):
            raise UsageError(f"policy {spec.kind} needs {len(kind.params)} value(s): "
                             f"{kind.syntax()}")
        for p, v in zip(kind.params, spec.values, strict=True):
            p.check(v, kind.name, bounds or {})
        return spec

    def parse_list(self, policies: str | Sequence[str | PolicySpec] | None, players: int,
                   bounds: Mapping[str, Number] | None = None,
                   defaults: Mapping[str, Number] | None = None, *,
                   flag: str = "--policies", default: str | None = None,
                   entry: Callable[[str | PolicySpec], PolicySpec] | None = None,
                   entries: Callable[[str | Sequence[str | PolicySpec], str],
                                     list[str | PolicySpec]] | None = None,
                   ) -> list[PolicySpec]:
        """One policy per seat from a per-seat list such as ``--policies``: one entry for
        every seat, or one per seat in seat order. Every game reads its ``--policies`` here.

        ``policies`` is the flag's text or a list of entries (text or specs); ``None`` means
        the flag was not given and gives ``default`` to every seat (refused if there is no
        default). Each entry is read by ``entry`` (default: :meth:`parse`, or :meth:`check` for
        a spec, with ``bounds`` and ``defaults``, its errors under ``flag``), so that a game can
        add its own check of one policy; ``entries`` cuts the text into entries (default:
        :func:`split_entries`; a list is taken as it is). Checks that look at the whole table
        (a game's "at most one of this kind") stay in the game, after this returns."""
        if policies is None:
            if default is None:
                raise UsageError(f"{flag} is missing")
            policies = default
        read = entry or (lambda item: self._flagged(item, flag, bounds, defaults))
        if entries is not None:
            items = entries(policies, flag)
        else:
            items = split_entries(policies, flag) if isinstance(policies, str) else list(policies)
        if len(items) == 1:
            return [read(items[0])] * players
        if len(items) != players:
            raise UsageError(f"{flag} needs 1 or {players} entries (one per player), "
                             f"got {len(items)}")
        return [read(item) for item in items]

    def _flagged(self, item: str | PolicySpec, flag: str, bounds: Mapping[str, Number] | None,
                 defaults: Mapping[str, Number] | None) -> PolicySpec:
        """One entry of a per-seat list, parsed (or, as a spec, checked), errors under
        ``flag``."""
        try:
            if isinstance(item, PolicySpec):
                return self.check(item, bounds)
            return self.parse(str(item), bounds, defaults)
        except UsageError as exc:
            raise UsageError(flag_message(flag, str(exc))) from None

    def help(self) -> str:
        """The syntax of every kind, for ``--policies`` help texts."""
        parts = []
        for k in self.kinds.values():
            params = "; ".join(p.describe() for p in k.params)
            parts.append(f"{k.syntax()}" + (f" ({params})" if params else "")
                         + (f": {k.note}" if k.note else ""))
        return ("kind:param:param, one per player (comma-separated) or one for all; missing "
                "trailing parameters take their defaults. Kinds: " + " | ".join(parts))
