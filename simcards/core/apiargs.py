"""The argument types of every game's Python API, checked in one place before any work.

A command's function (``simcards.<game>.rounds(...)``) takes what its command line takes, as
Python values: an option the command reads as an integer takes an ``int`` (not a ``str``, a
``float`` or a ``bool``); a count (``--rounds``, ``--games``, ``--deals``) an ``int``, a whole
``float`` (``1e6``) or the command line's text (``"1M"``); a number an ``int`` or a
``float``; a switch that is on or off ``True`` or ``False`` (and a word switch such as
``--teams`` its words too); a word such as ``--deck`` a ``str``; ``--policies`` its text or
a list of policies; a path a ``str`` or an ``os.PathLike``. Anything else is a
:class:`~simcards.core.errors.UsageError` naming the flag, as the command line would print it,
instead of whatever the first use of the value raises (a ``TypeError``, a numba typing error,
or a silent truncation of ``5.5`` to ``5``).

Each function declares how each of its parameters is checked with :func:`checked`; the checks
here are about types only (and turn the accepted forms into the one the function reads, such as
a list of cards into the text of a hand). Each function still checks the values (ranges, known
words) itself, with the command line's messages.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import os
import reprlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from simcards.core.cli_options import RUN_OPTIONS, flag_name, inject_options
from simcards.core.errors import UsageError
from simcards.core.policyspec import PolicySpec
from simcards.core.progress import Progress

F = TypeVar("F", bound=Callable[..., Any])


class _Wrong(Exception):
    """Raised by a conversion for a value of a type the argument does not take."""


_REPR = reprlib.Repr()
_REPR.maxstring = 40
_REPR.maxother = 40
_REPR.maxlist = _REPR.maxtuple = 6


class Arg:
    """How one argument is checked: ``convert`` returns the value as the function reads it or
    raises :class:`_Wrong`; ``None`` passes only where the argument is ``optional``. The
    message says what the argument takes (``words``) and names it by its flag, or by
    ``flag`` where it has none (``policy A``)."""

    def __init__(self, kind: str, words: str, convert: Callable[[object], object],
                 optional: bool = False, flag: str | None = None) -> None:
        self.kind = kind
        self.words = words
        self.convert = convert
        self.optional = optional
        self.flag = flag

    def or_none(self) -> Arg:
        """The same argument, where ``None`` means "not given"."""
        return Arg(self.kind, self.words, self.convert, True, self.flag)

    def named(self, flag: str) -> Arg:
        """The same argument, named ``flag`` in its message (an argument that is no flag)."""
        return Arg(self.kind, self.words, self.convert, self.optional, flag)

    def __call__(self, name: str, value: object) -> object:
        if value is None and self.optional:
            return None
        try:
            if value is None:
                raise _Wrong
            return self.convert(value)
        except _Wrong:
            flag = self.flag or flag_name(name)
            raise UsageError(f"{flag} must be {self.words}, got {_REPR.repr(value)}") from None

    def __repr__(self) -> str:
        return f"Arg({self.kind!r}{', optional' if self.optional else ''})"


def _integer(value: object) -> int:
    """An ``int`` (a numpy integer too); not a ``bool``, whose ``True`` is no number of
    players."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise _Wrong
    return int(value)


def _count(value: object) -> int | str:
    """An ``int``, the command line's text of a count (its value is checked by
    :func:`~simcards.core.cli_options.parse_count`), or a whole ``float`` such as ``1e6``,
    which is how Python writes the command line's ``1e6``; a fraction (``2.5``) is refused
    rather than rounded, and so is a float past 2**53, where floats skip integers."""
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        if not (value.is_integer() and abs(value) <= 2**53):
            raise _Wrong
        return int(value)
    return _integer(value)


def _number(value: object) -> float:
    """An ``int`` or a ``float``; NaN and infinities are refused later, naming the flag."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _Wrong
    return float(value)


def _bool(value: object) -> bool:
    """``True`` or ``False``: the command line's flags without a value."""
    if not isinstance(value, bool):
        raise _Wrong
    return value


def _switch(value: object) -> str:
    """A switch written ``on``/``off`` on the command line (``--teams``): those words, which
    the function checks, or ``True``/``False`` for them."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, str):
        return value
    raise _Wrong


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise _Wrong
    return value


def _items(value: object) -> list[object]:
    """The entries of a list or a tuple (any sequence but text)."""
    if isinstance(value, str | bytes | bytearray) or not isinstance(value, Sequence):
        raise _Wrong
    return list(value)


def _policy(value: object) -> str | PolicySpec:
    if callable(value) and not isinstance(value, PolicySpec):
        return _function_text(value)
    if not isinstance(value, str | PolicySpec):
        raise _Wrong
    return value


def _function_text(fn: Callable[..., object]) -> str:
    """A function given as a policy (a user's own, S5 of Ronco), as the command line names it:
    ``PATH.py:FUNCTION`` (:func:`simcards.core.userpolicy.from_function`)."""
    from simcards.core.userpolicy import from_function

    return from_function(fn).text()


def _policy_text(value: object) -> str:
    """A policy the function reads as text: a str, or a function of the user's."""
    if callable(value):
        return _function_text(value)
    return _text(value)


def _policies(value: object) -> str | list[str | PolicySpec]:
    """``--policies``: its text, or a list of policies (text or :class:`PolicySpec`)."""
    if isinstance(value, str):
        return value
    return [_policy(item) for item in _items(value)]


def _policies_text(value: object) -> str:
    """``--policies`` for a game that reads only its text: a list is written as that text."""
    if isinstance(value, str):
        return value
    texts = [p if isinstance(p, str) else p.text() for p in map(_policy, _items(value))]
    if any("," in t for t in texts):
        raise _Wrong
    return ",".join(texts)


def _sizes(value: object) -> int | str:
    """Table sizes: one ``int``, the command line's text (``"2,4"``, ``"3-10"``), or a list
    of ``int``, written as that text."""
    if isinstance(value, str):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return ",".join(str(_integer(n)) for n in _items(value))


def _integers(value: object) -> str | list[int]:
    """A list of integers: the command line's text (``"5,5,4"``) or a list of ``int``."""
    if isinstance(value, str):
        return value
    return [_integer(n) for n in _items(value)]


def _joined(separator: str) -> Callable[[object], str]:
    """Text, or a list of texts written as one text with ``separator`` between them."""
    def convert(value: object) -> str:
        if isinstance(value, str):
            return value
        return separator.join(_text(item) for item in _items(value))

    return convert


def _path(value: object) -> str:
    """A ``str`` or an ``os.PathLike`` (``pathlib.Path``), as text."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    return _text(value)


def _progress_bar(value: object) -> bool | Progress:
    """``True``/``False``, or the :class:`Progress` of a caller that counts into it."""
    if isinstance(value, Progress):
        return value
    return _bool(value)


INT = Arg("int", "an int", _integer)
COUNT = Arg("count", "a count such as 1000000, 1e6 or \"1M\" (an int, a whole float or "
            "the command line's text)", _count)
NUMBER = Arg("number", "a number (an int or a float)", _number)
BOOL = Arg("bool", "True or False", _bool)
SWITCH = Arg("switch", "on or off (or True or False)", _switch)
TEXT = Arg("text", "text (a str)", _text)
POLICY = Arg("policy", "a policy such as \"greedy\" (a str or a PolicySpec)", _policy)
POLICY_TEXT = Arg("policy", "a policy such as \"threshold\" (a str, or a function of yours)",
                  _policy_text)
POLICIES = Arg("policies", "the --policies text or a list of policies (str or PolicySpec)",
               _policies)
POLICIES_TEXT = Arg("policies", "the --policies text or a list of policies, one an entry",
                    _policies_text)
SIZES = Arg("sizes", "a table size, the --players text (\"2,4\", \"3-10\") or a list of ints",
            _sizes)
INTEGERS = Arg("integers", "the text of integers (\"5,5,4\") or a list of ints", _integers)
CARDS = Arg("cards", "a hand as text (\"Ah 2h 3h X\") or a list of cards (str)", _joined(" "))
MELDS = Arg("melds", "melds as text (\"5h X 7h; 7c 7d 7s X\") or a list of melds (str)",
            _joined("; "))
CARD_GROUPS = Arg("card groups", "groups of cards as text (\"1o 2c; 7e\", \"\" for an empty "
                  "group) or a list of texts", _joined("; "))
ACTIONS = Arg("actions", "the text of actions (\"keep,swap\") or a list of actions (str)",
              _joined(","))
PATH = Arg("path", "a path (a str or an os.PathLike)", _path)
STORE = Arg("store", "a folder (a str or an os.PathLike) or \"none\"", _path).or_none()
PROGRESS = BOOL
PROGRESS_BAR = Arg("progress", "True, False or a Progress", _progress_bar)

RUN = {"seed": INT, "workers": INT.or_none(), "scheduler": TEXT.or_none(), "store": STORE,
       "progress": PROGRESS}
"""The options of every Monte Carlo command: where and how it runs."""


def _keyword(name: str, default: Any, annotation: str) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=annotation)


RUN_KEYWORDS = tuple(_keyword(name, RUN_OPTIONS[name].default, annotation)
                     for name, annotation in (("seed", "int"), ("workers", "int | None"),
                                              ("scheduler", "str | None"),
                                              ("store", "str | None")))
"""The keywords of :data:`RUN` but ``progress``, as every Monte Carlo function takes them,
with the command line's defaults."""


def run_keywords(bar: bool = False) -> Callable[[F], F]:
    """A function's parameter ``run`` replaced by the keywords of :data:`RUN` (``seed``,
    ``workers``, ``scheduler``, ``store``, ``progress``), which it receives as one dict, for
    :func:`~simcards.core.montecarlo.monte_carlo`'s ``**run``: declared once, as the command
    line's :func:`~simcards.core.cli_options.run_options`, and checked as :data:`RUN` by
    :func:`checked`. With ``bar``, ``progress`` may also be a
    :class:`~simcards.core.progress.Progress` the run counts into (:data:`PROGRESS_BAR`)."""
    params = [*RUN_KEYWORDS, _keyword("progress", False, "bool | Progress" if bar else "bool")]
    defaults = {p.name: p.default for p in params}
    inject = inject_options("run", params, convert=lambda **given: {**defaults, **given},
                            eval_str=False)

    def decorate(fn: F) -> F:
        wrapped = inject(fn)
        wrapped.run_checks = {**RUN, "progress": PROGRESS_BAR if bar else PROGRESS}  # type: ignore[attr-defined]
        return wrapped

    return decorate


def checked(*groups: Mapping[str, Arg], **named: Arg) -> Callable[[F], F]:
    """Check every argument of the decorated function as declared, in ``groups`` (shared
    declarations such as :data:`RUN`) and ``named`` (later ones win), before the function
    runs (a :class:`~simcards.core.errors.UsageError` naming the flag), and pass it on in the
    form the function reads. Every parameter must be declared, and nothing else, so that no
    argument of a new function reaches its first use unchecked; the checks are in
    ``fn.arguments``. The keywords that :func:`run_keywords` wrote come declared with it."""
    declared: dict[str, Arg] = {}
    for group in groups:
        declared.update(group)
    declared.update(named)

    def decorate(fn: F) -> F:
        args = {**getattr(fn, "run_checks", {}), **declared}
        signature = inspect.signature(fn)
        if set(signature.parameters) != set(args):
            raise TypeError(f"{fn.__qualname__}: declared {sorted(args)}, "
                            f"parameters {sorted(signature.parameters)}")

        @functools.wraps(fn)
        def run(*call_args: Any, **call_kwargs: Any) -> Any:
            try:
                bound = signature.bind(*call_args, **call_kwargs)
            except TypeError as exc:  # a misspelled keyword, a positional argument too many
                raise UsageError(f"{fn.__name__}(): {exc} (it takes "
                                 f"{', '.join(signature.parameters)})") from None
            for name, value in bound.arguments.items():
                bound.arguments[name] = args[name](name, value)
            return fn(*bound.args, **bound.kwargs)

        run.arguments = dict(args)  # type: ignore[attr-defined]
        return run  # type: ignore[return-value]

    return decorate
