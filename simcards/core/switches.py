"""Rule switches, declared once on a game's rules dataclass, and every surface derived from it.

A game's rules are a frozen dataclass (``RondaRules``, ``RoncoRules``, ``RomiRules``) whose
fields are declared with :func:`switch`: the default, the rule ids it implements, its help
line, its words (each with the kernels' integer code) or its integer range, and whether it acts
on a single hand (a round) or only on a whole match (a game). From that one declaration come:

- the validated constructor ``Rules.make(**values)`` (one-line
  :class:`~simcards.core.errors.UsageError` naming the flag for any bad value);
- the kernels' integer codes (:meth:`Rules.codes`) and the plain summary that run keys and
  JSON answers record (:meth:`Rules.summary`);
- the command line's options (:meth:`RuleSet.options` writes them into a command's signature,
  which is what typer reads), the Python API's keywords and their type checks
  (:meth:`RuleSet.keywords`, :attr:`RuleSet.args`), the environments' and OpenSpiel's
  parameters (:meth:`RuleSet.params`) and the help tables (:meth:`Switch.describe`).

Adding a switch is one :func:`switch` field on the rules dataclass (with
``keyed_when_changed=True``, so that the runs stored before it keep their keys), its row in the
options table of ``seeds/<game>.md``, and the code that implements the rule;
``tests/core/test_switches.py`` holds every surface to the declaration.

Every game spells a word switch the same way: a plain ``str`` among the declared words, which
map to the kernels' codes (``codes.py``); integers are ``int`` in a declared range; an on/off
rule with no words is a ``bool``.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, TypeVar

import typer

from simcards.core.cli_options import (
    check_choice,
    check_range,
    flag_name,
    inject_options,
    rule_integer,
    switch_option,
)
from simcards.core.errors import UsageError

HAND = "hand"
"""A switch that a single hand (Ronda), round (Ronco, Römi) reads."""
MATCH = "match"
"""A switch that only a whole match (Ronda) or game (Ronco, Römi) reads. As a level to select
switches by, every switch: a match reads them all."""
MATCH_LEVEL = "match-level"
"""To select the switches that only a match reads (the match-level ones alone)."""

_KEY = "simcards.switch"
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Switch:
    """One rule switch as declared on its rules dataclass (see the module docstring)."""

    name: str
    """The field's name, which is also the Python API's keyword and the table parameter."""
    default: Any
    rules: str
    """The rule ids it implements, as ``seeds/<game>.md`` numbers them (``"A4, A5"``)."""
    help: str
    """One line for ``--help``, without the choices and rule ids (added from the fields)."""
    words: Mapping[str, int] | None = None
    """Word -> kernel code, for a switch that takes words."""
    low: int | None = None
    high: int | None = None
    level: str = HAND
    implied: str | None = None
    """The word a flag given alone means (``--teams`` is ``--teams on``)."""
    preset: Callable[[Mapping[str, Any]], Any] | None = None
    """For a switch whose default depends on others (Ronco's ``cut_king`` under ``poroli``):
    the default from the other values; the API and the command line then default to None."""
    preset_help: str = ""
    keyed_when_changed: bool = False
    """For a switch added after runs were stored: the summary (and so the run key) names it
    only at a value other than its default, so that every run stored before it still resumes
    (its rules are the default's)."""

    @property
    def flag(self) -> str:
        return flag_name(self.name)

    @property
    def kind(self) -> str:
        """``word``, ``integer`` or ``bool``."""
        if self.words is not None:
            return "word"
        return "bool" if isinstance(self.default, bool) else "integer"

    @property
    def api_default(self) -> Any:
        """The default the command line and the API show: None where a preset decides."""
        return None if self.preset is not None else self.default

    def choices(self) -> str:
        """``flat | tiers``, ``1 .. 1000``, or ``true | false``."""
        if self.kind == "word":
            return " | ".join(self.words or ())
        if self.kind == "bool":
            return "true | false"
        return f"{self.low} .. {self.high}"

    def describe(self) -> str:
        """The help line: what it does, its choices, its rule ids (the default is shown
        beside it by every surface)."""
        preset = f"; {self.preset_help}" if self.preset_help else ""
        choices = "" if self.kind == "bool" else f" {self.choices()}{preset}"
        return f"{self.help}.{choices} (rule {self.rules})."

    @staticmethod
    def value_text(value: Any) -> str:
        """A value as the seeds' tables and the table parameters write it (``false``)."""
        return str(value).lower() if isinstance(value, bool) else str(value)

    def check(self, value: Any) -> Any:
        """The value, validated: a one-line :class:`UsageError` naming the flag otherwise."""
        if self.kind == "word":
            return check_choice(self.name, value, self.words or {}, self.rules)
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise UsageError(f"{self.flag} must be true or false (rule {self.rules}), got "
                                 f"{value!r}")
            return value
        n = rule_integer(self.name, value)
        return check_range(self.name, n, self.low, self.high, self.rules)  # type: ignore[arg-type]

    def code(self, value: Any) -> int:
        """The kernels' integer for a checked value."""
        if self.kind == "word":
            return (self.words or {})[value]
        return int(value)

    def option(self) -> Any:
        """The command line's option: an annotated type typer reads."""
        if self.implied is not None:
            info = switch_option(self.flag, tuple(self.words or ()), self.implied,
                                 help=self.describe())
        else:
            info = typer.Option(self.flag, help=self.describe())
        kind = {"word": str, "bool": bool, "integer": int}[self.kind]
        return Annotated[kind | None if self.preset is not None else kind, info]

    def python_type(self) -> Any:
        """The type the Python API takes (a word switch that may be given alone also takes
        ``True``/``False``)."""
        kind: Any = {"word": str, "bool": bool, "integer": int}[self.kind]
        if self.implied is not None:
            kind = kind | bool
        return kind | None if self.preset is not None else kind

    def arg(self) -> Any:
        """How the Python API checks the keyword's type (:mod:`simcards.core.apiargs`)."""
        from simcards.core import apiargs

        arg = {"word": apiargs.SWITCH if self.implied else apiargs.TEXT,
               "bool": apiargs.BOOL, "integer": apiargs.INT}[self.kind]
        return arg.or_none() if self.preset is not None else arg

    def param(self) -> Any:
        """The environments' and OpenSpiel's parameter."""
        from simcards.core.table import Param

        return Param(self.name, self.api_default, self.describe(),
                     **({"none": ""} if self.preset is not None else {}))


def switch(default: Any, *, rules: str, help: str, words: Mapping[str, int] | None = None,
           low: int | None = None, high: int | None = None, level: str = HAND,
           implied: str | None = None, preset: Callable[[Mapping[str, Any]], Any] | None = None,
           preset_help: str = "", keyed_when_changed: bool = False) -> Any:
    """A rules dataclass field declaring a switch (see :class:`Switch` for each argument)."""
    if (words is None) == (low is None) and not isinstance(default, bool):
        raise TypeError("a switch takes words, or an integer range low .. high")
    if level not in (HAND, MATCH):
        raise TypeError(f"level must be {HAND!r} or {MATCH!r}")
    meta = {"default": default, "rules": rules, "help": help, "words": words, "low": low,
            "high": high, "level": level, "implied": implied, "preset": preset,
            "preset_help": preset_help, "keyed_when_changed": keyed_when_changed}
    return dataclasses.field(default=default, metadata={_KEY: meta})


R = TypeVar("R", bound="Rules")


class Rules:
    """What every game's rules dataclass inherits: construction, codes and summary from its
    :func:`switch` fields."""

    TOGETHER: ClassVar[str] = ""

    @classmethod
    def switches(cls, level: str | None = None) -> tuple[Switch, ...]:
        """The declared switches in declaration order; with ``level``, those it reads (a hand
        reads the hand switches, a match all of them; :data:`MATCH_LEVEL` the match's own)."""
        if level == MATCH_LEVEL:
            return tuple(s for s in _switches(cls) if s.level == MATCH)
        return tuple(s for s in _switches(cls) if level in (None, MATCH) or s.level == level)

    @classmethod
    def make(cls: type[R], **given: Any) -> R:
        """Validated constructor: every value checked as declared (a one-line
        :class:`UsageError` naming the flag), presets applied, then :meth:`check_together`."""
        known = {s.name: s for s in cls.switches()}
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise UsageError(f"unknown rule switch {unknown[0]!r} (expected "
                             f"{' | '.join(known)})")
        values: dict[str, Any] = {}
        for s in known.values():
            value = given.get(s.name, s.api_default)
            if value is not None or s.preset is None:
                values[s.name] = s.check(value)
        for s in known.values():
            if s.name not in values:
                values[s.name] = s.check(s.preset(values))  # type: ignore[misc]
        cls.check_together(values)
        return cls(**values)

    @classmethod
    def from_options(cls: type[R], options: Mapping[str, Any], level: str | None = None) -> R:
        """:meth:`make` from a mapping that holds every switch of ``level`` among other
        options (a table game's parameters)."""
        return cls.make(**{s.name: options[s.name] for s in cls.switches(level)})

    @classmethod
    def check_together(cls, values: Mapping[str, Any]) -> None:
        """Constraints between switches (a one-line :class:`UsageError`); none by default."""

    @functools.cached_property
    def codes(self) -> dict[str, int]:
        """Every switch as the kernels' integer code (``codes.py``)."""
        return {s.name: s.code(getattr(self, s.name)) for s in self.switches()}

    def summary(self, level: str | None = None) -> dict[str, object]:
        """The switches as plain data, for run keys, manifests and JSON answers (a switch
        ``keyed_when_changed`` only at another value than its default)."""
        return {s.name: getattr(self, s.name) for s in self.switches(level)
                if not (s.keyed_when_changed and getattr(self, s.name) == s.default)}


@functools.cache
def _switches(cls: type) -> tuple[Switch, ...]:
    out = []
    for f in dataclasses.fields(cls):
        meta = f.metadata.get(_KEY)
        if meta is None:
            raise TypeError(f"{cls.__name__}.{f.name} is not declared with switch()")
        out.append(Switch(f.name, **meta))
    return tuple(out)


@dataclass(frozen=True)
class RuleSet:
    """The switches one command or API function reads, and how it builds its rules.

    ``build`` turns the switches' values into the rules object (a game may refuse a switch
    that has no effect there); without it (``as_values``) a function receives the values as
    given, under ``switches`` (a ladder builds one rules object per table size from them).
    ``names`` are the switches, in the order the command shows them.
    """

    names: tuple[str, ...]
    switches: tuple[Switch, ...]
    build: Callable[..., Any] | None

    @classmethod
    def of(cls, rules_type: type[Rules], level: str | None = None, *,
           only: Sequence[str] | None = None, exclude: Sequence[str] = (),
           build: Callable[..., Any] | None = None, as_values: bool = False) -> RuleSet:
        chosen = tuple(s for s in rules_type.switches(level)
                       if (only is None or s.name in only) and s.name not in exclude)
        return cls(tuple(s.name for s in chosen), chosen,
                   None if as_values else build or rules_type.make)

    @property
    def args(self) -> dict[str, Any]:
        """The API keywords' type checks, for :func:`~simcards.core.apiargs.checked`."""
        return {s.name: s.arg() for s in self.switches}

    def params(self) -> tuple[Any, ...]:
        """The environments' and OpenSpiel's parameters."""
        return tuple(s.param() for s in self.switches)

    def keywords(self, fn: F) -> F:
        """An API function ``fn(..., rules, ...)`` taking the switches as keywords instead:
        the keywords appear in its signature (``help()`` shows them, with their defaults) and
        the function receives the rules built from them (with ``as_values``,
        ``fn(..., switches, ...)`` receives the values given)."""
        params = [inspect.Parameter(s.name, inspect.Parameter.KEYWORD_ONLY,
                                    default=s.api_default, annotation=s.python_type())
                  for s in self.switches]
        if self.build is None:
            return inject_options("switches", params, eval_str=False)(fn)
        return inject_options("rules", params, convert=self.build, eval_str=False)(fn)

    def options(self, fn: F) -> F:
        """A command ``fn(..., switches, ...)`` taking the switches as command-line options
        instead, written into its signature at the place of ``switches``, which receives them
        as one dict of keywords for the API."""
        return inject_options("switches", [
            inspect.Parameter(s.name, inspect.Parameter.KEYWORD_ONLY, default=s.api_default,
                              annotation=s.option()) for s in self.switches])(fn)
