"""Policy specs: ``kind:param:param`` text, parsed and validated the same way for every game.

Each game declares its policy kinds once, as data (:class:`PolicyKind` with typed, bounded
:class:`Param` entries); :class:`PolicyKinds` then parses ``--policies`` entries, checks every
value against its range, fills missing trailing parameters from defaults, explains the syntax
in ``--help``, and writes a spec back as text that parses to the same values. Floats are written
with the shortest text that reads back exactly, so two different parameters never print alike
(run keys are built from that text).

A kind's declaration also holds the facts the rest of the code asks of it, so that no command
tests a kind's name: whether it is a legal player (:attr:`PolicyKind.legal`; a kind that sees
hidden cards is a bound, refused by :meth:`PolicyKinds.check_legal` with its declared reason),
its cost per decision relative to the game's cheapest play (:attr:`PolicyKind.cost`, which sizes
chunks: part of a run's identity), what it needs (:attr:`PolicyKind.needs`: another engine, an
exact solver's table) and what it is (:attr:`PolicyKind.traits`). The kernels' per-seat arrays
are built from specs one way for every game (:meth:`PolicyKinds.seat_arrays`), by the layout the
game declares once (:class:`SeatColumn`: which parameter goes in which array, int or float).

Adding a built-in policy kind to a game touches three places:

1. Its declaration in the game's ``policies.py``: a new :class:`PolicyKind` in ``KINDS`` with
   its kernel code (a new ``codes.POLICY_*``, or the game's kind code), its parameters (each
   named in one of the game's :class:`SeatColumn` entries, so that the seat arrays carry it), its
   help text, and its facts: ``legal=False`` with the ``illegal`` reason if it sees what a
   player may not, ``cost`` if it is dearer than the game's cheapest play (where the game sizes
   chunks by cost), ``needs`` and ``traits`` from the game's own words for them.
2. Its kernel code: the branch of the kernel's dispatch on its code.
3. Its reference code: the reference engine's (or table engine's) player of that name.

Everything else (parsing, ``--help``, seat arrays, chunk sizes, which engine plays it, the
refusals of environments and commands) reads the declaration. ``tests/core/test_policy_kinds.py``
then asks for a short spec of the new kind (its ``*_SPECS`` table lists every declared kind)
and checks that the kernel and the reference each play it their own way.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simcards.core.cli_options import flag_name
from simcards.core.errors import UsageError
from simcards.core.userpolicy import UserPolicy, is_user_spec
from simcards.core.userpolicy import load as load_user

USER_KIND = "user"
"""The kind of a user's own function, ``PATH.py:FUNCTION``, in the games that declare it."""

Number = int | float
Bound = Number | str
"""A range end: a number, or the name of a bound the rules supply (a deck's top rank, say)."""
Cost = Callable[[tuple[Number, ...], int], float]
"""A kind's cost per decision as a function of its parameter values and the number of players
(:attr:`PolicyKind.cost`)."""


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

    def describe(self, default: bool = False) -> str:
        """``K in 0..14 (what K is)``; with ``default``, ``K 0..14, default 3: what K is``. A
        bound that another option sets is named by its flag (``--open-min``)."""
        low = flag_name(self.low) if isinstance(self.low, str) else self.low
        if default:
            return (f"{self.name} {low}..{self.high}, default {format_value(self.default)}"
                    + (f": {self.doc}" if self.doc else ""))
        return f"{self.name} in {low}..{self.high}" + (f" ({self.doc})" if self.doc else "")


@dataclass(frozen=True)
class PolicyKind:
    """A policy kind: its name, the integer code the kernels dispatch on, its parameters, and
    the facts the code asks of it (module docstring)."""

    name: str
    code: int
    params: tuple[Param, ...] = ()
    doc: str = ""
    note: str = ""
    """What every help text that lists the kind must say of it (a kind that is no legal
    player, say); empty for most."""
    legal: bool = True
    """Whether it is a legal player: False for a kind that reads hidden cards, a bound that the
    play commands and the table environments refuse (:meth:`PolicyKinds.check_legal`)."""
    illegal: str = ""
    """Why it is no legal player, as the refusal says it after the spec (``seeing:1000 sees
    hidden cards (...)``); required where ``legal`` is False."""
    cost: float | Cost = 1.0
    """Its cost per decision relative to the game's cheapest play: a number, or a function of
    the parameter values and the number of players. A game that sizes its chunks by cost
    (Ronda) reads it, so it is part of every run's identity: change it and chunk sizes, and
    so run keys and numbers, change."""
    needs: frozenset[str] = frozenset()
    """What it needs beyond the game's compiled engine, in the game's own words (Römi's
    ``"search kernel"``, Ronco's ``"bayes table"``); the code asks for a need, never a name."""
    traits: frozenset[str] = frozenset()
    """What else the game's code asks of it, in the game's own words (Ronco's ``"threshold
    rule"``: a fixed rule on T and Td that the exact solvers evaluate)."""
    reads: str | None = None
    """For a kind played from a file (Ronco's ``chart:FILE.csv``): the function, named
    ``"package.module:function"`` and imported when a spec names the kind (so that the modules
    the kernels import never import it), that reads the path written after the colon into
    what the seat plays, checked (one line when it cannot). The spec keeps it as
    :attr:`PolicySpec.source`; it has a ``path`` (what the spec's text shows) and a
    ``digest`` (what run keys hold)."""

    def __post_init__(self) -> None:
        if not self.legal and not self.illegal:
            raise ValueError(f"policy kind {self.name}: no legal player, but no reason given")

    def syntax(self) -> str:
        if self.name == USER_KIND:
            return "PATH.py:FUNCTION"
        if self.reads is not None:
            return f"{self.name}:FILE"
        return ":".join([self.name, *(p.name for p in self.params)])

    def cost_of(self, values: Sequence[Number], players: int) -> float:
        """The cost of one decision with parameter ``values`` at a table of ``players``."""
        return self.cost(tuple(values), players) if callable(self.cost) else float(self.cost)


@dataclass(frozen=True)
class SeatColumn:
    """One parameter array of a game's kernel seats: its name, its type (int arrays are int64,
    float arrays float64) and the parameters, by name, that go in it (a kind has at most one of
    them; a seat whose kind has none holds 0, or the value given for the array by name)."""

    name: str
    type: type[int] | type[float]
    params: tuple[str, ...]

    @property
    def dtype(self) -> type[np.generic]:
        return np.int64 if self.type is int else np.float64


@dataclass(frozen=True)
class PolicySpec:
    """A parsed policy: a kind and one value per parameter, in the kind's order; for the
    ``user`` kind, the user's function (:mod:`simcards.core.userpolicy`)."""

    kind: str
    values: tuple[Number, ...] = ()
    user: UserPolicy | None = None
    source: Any = None
    """What a kind played from a file read from it (:attr:`PolicyKind.reads`)."""

    def text(self) -> str:
        """The text that parses back to exactly this spec."""
        if self.user is not None:
            return self.user.text()
        if self.source is not None:
            return f"{self.kind}:{self.source.path}"
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

    def __init__(self, game: str, kinds: Sequence[PolicyKind],
                 columns: Sequence[SeatColumn] = ()) -> None:
        self.game = game
        self.kinds = {k.name: k for k in kinds}
        self.columns = tuple(columns)
        """The layout of the kernels' seat arrays (:meth:`seat_arrays`)."""
        codes = [k.code for k in kinds]
        if len(set(codes)) != len(codes):
            raise ValueError(f"{game}: two policy kinds share a kernel code")
        if self.columns:
            for k in kinds:
                for p in k.params:
                    held = [c.name for c in self.columns if p.name in c.params]
                    if len(held) != 1:
                        raise ValueError(f"{game}: parameter {p.name} of {k.name} is held by "
                                         f"{len(held)} seat arrays, not one")
                for c in self.columns:
                    if sum(p.name in c.params for p in k.params) > 1:
                        raise ValueError(f"{game}: {k.name} has two parameters in the seat "
                                         f"array {c.name}")

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

    def by_code(self, code: int) -> PolicyKind:
        """The kind of kernel code ``code``."""
        for k in self.kinds.values():
            if k.code == code:
                return k
        raise ValueError(f"no {self.game} policy kind has the code {code}")

    def needing(self, need: str) -> tuple[str, ...]:
        """The names of the kinds that need ``need``, in declaration order."""
        return tuple(k.name for k in self.kinds.values() if need in k.needs)

    def having(self, trait: str) -> tuple[str, ...]:
        """The names of the kinds with the trait ``trait``, in declaration order."""
        return tuple(k.name for k in self.kinds.values() if trait in k.traits)

    def cost(self, spec: PolicySpec, players: int) -> float:
        """One decision of ``spec`` at a table of ``players``, in the game's cheapest plays
        (:attr:`PolicyKind.cost`)."""
        return self.kind(spec.kind).cost_of(spec.values, players)

    def check_legal(self, spec: PolicySpec | str, where: str = "--policies") -> None:
        """Refuse a kind that is no legal player (:attr:`PolicyKind.legal`) where only legal
        players may sit (a play command, the table environments): one line under ``where``,
        the spec, then the kind's declared reason. A name that is no kind passes (parsing
        refuses it)."""
        name = spec.kind if isinstance(spec, PolicySpec) else str(spec).partition(":")[0].strip()
        kind = self.kinds.get(name.lower())
        if kind is not None and not kind.legal:
            text = spec.text() if isinstance(spec, PolicySpec) else str(spec).strip()
            raise UsageError(f"{where}: {text} {kind.illegal}")

    def seat_arrays(self, specs: Sequence[PolicySpec],
                    rest: Sequence[Mapping[str, Number]] | None = None
                    ) -> tuple[np.ndarray, ...]:
        """The kernels' per-seat arrays of ``specs``: the kind codes (int64), then one array per
        :class:`SeatColumn` of the game's layout, each seat's parameter in the array that holds
        it. A seat whose kind has no parameter for an array holds 0 there, or ``rest[seat]``'s
        value for the array's name (a game whose seats carry values their kind does not read).
        The specs are not checked here."""
        n = len(specs)
        codes = np.zeros(n, np.int64)
        arrays = [np.zeros(n, c.dtype) for c in self.columns]
        for i, spec in enumerate(specs):
            kind = self.kind(spec.kind)
            codes[i] = kind.code
            given = dict(zip((p.name for p in kind.params), spec.values, strict=True))
            for c, a in zip(self.columns, arrays, strict=True):
                held = [given[name] for name in c.params if name in given]
                if held:
                    a[i] = c.type(held[0])
                elif rest is not None and c.name in rest[i]:
                    a[i] = c.type(rest[i][c.name])
        return (codes, *arrays)

    def parse(self, text: str, bounds: Mapping[str, Number] | None = None,
              defaults: Mapping[str, Number] | None = None) -> PolicySpec:
        """Read ``kind[:v1[:v2...]]``: missing trailing values come from ``defaults`` (by
        parameter name), else from the kind's own defaults; every value is range-checked. A
        game that declares the ``user`` kind also reads ``PATH.py:FUNCTION``
        (:func:`simcards.core.userpolicy.load`)."""
        if USER_KIND in self.kinds and is_user_spec(text):
            return PolicySpec(USER_KIND, (), load_user(text, ""))
        parts = text.strip().split(":")
        if parts[0].strip().lower() == USER_KIND and USER_KIND in self.kinds:
            raise UsageError(f"policy {text.strip()!r}: name your function as PATH.py:FUNCTION "
                             "(a .py file, a colon, the function's name)")
        kind = self.kind(parts[0].strip().lower())
        if kind.reads is not None:
            path = text.strip().split(":", 1)[1].strip() if len(parts) > 1 else ""
            if not path:
                raise UsageError(f"policy {text.strip()!r}: {kind.name} needs a file: "
                                 f"{kind.syntax()}")
            from simcards.core.registry import resolve

            return PolicySpec(kind.name, (), None, resolve(kind.reads)(path))
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

    def help(self, docs: bool = False) -> str:
        """The syntax of every kind, for ``--policies`` help texts; with ``docs``, each kind's
        own line too (its rule id and what it does) and its parameters' defaults."""
        return ("kind:param:param, one per player (comma-separated) or one for all; missing "
                "trailing parameters take their defaults. Kinds: " + self.kinds_help(docs))

    def kinds_help(self, docs: bool = False) -> str:
        """Every kind's syntax, its parameters' ranges and its note, ``|`` between kinds (the
        help of an option that takes one policy); ``docs`` as in :meth:`help`."""
        parts = []
        for k in self.kinds.values():
            params = [p.describe(default=docs) for p in k.params]
            inner = "; ".join([k.doc, *params] if docs and k.doc else params)
            parts.append(f"{k.syntax()}" + (f" ({inner})" if inner else "")
                         + (f": {k.note}" if k.note else ""))
        return " | ".join(parts)
