"""Options, input checks and output helpers shared by every game's commands.

Every check here raises :class:`~simcards.core.errors.UsageError` with one line naming the
flag, so the command line prints it and exits with status 2, and the Python API raises it
(a ``ValueError``) before anything is computed.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from simcards.core.errors import UsageError

DEFAULT_SEED = 20261129
"""The seed of every command and of the Python API when none is given."""
MAX_SEED = 2**63 - 1
"""Seeds are integers 0 .. 2**63-1 (they feed :class:`numpy.random.SeedSequence`)."""


def flag_name(name: str) -> str:
    """The command-line flag of an option named as a keyword (``open_min`` -> ``--open-min``):
    every message names the flag, which the Python API's keyword mirrors."""
    return name if name.startswith("--") else "--" + name.replace("_", "-")


def check_range(name: str, n: int, low: int, high: int, rule: str | None = None) -> int:
    """An integer option in ``low`` .. ``high``, worded alike in every game and command:
    ``--rounds must be between 1 and 100 (rule D5), got 0``."""
    if not low <= n <= high:
        why = f" (rule {rule})" if rule else ""
        raise UsageError(f"{flag_name(name)} must be between {low} and {high}{why}, got {n}")
    return n


def check_seat(seat: object, players: int, flag: str = "--dealer") -> int | None:
    """A seat 0 .. players-1 given as ``flag`` (a dealer, the human's seat), or None (not
    given: drawn at random, D3 in every game): ``--dealer must be a seat 0..3, got 4``."""
    if seat is None:
        return None
    s = rule_integer(flag, seat)
    if not 0 <= s < players:
        raise UsageError(f"{flag_name(flag)} must be a seat 0..{players - 1}, got {s}")
    return s


def check_players(n: int, low: int, high: int, rule: str) -> int:
    """A number of players in ``low`` .. ``high`` (the game's ``rule``):
    ``--players must be between 2 and 5 (rule D2), got 7``."""
    return check_range("--players", n, low, high, rule)


def check_seed(seed: int, what: str = "--seed") -> int:
    """A seed in 0 .. 2**63-1."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise UsageError(f"{what} must be an integer 0 .. 2**63-1, got {seed!r}")
    if not 0 <= seed <= MAX_SEED:
        raise UsageError(f"{what} must be between 0 and 2**63-1 ({MAX_SEED}), got {seed}")
    return seed


def check_finite(value: float | None, what: str) -> float | None:
    """A real number: NaN and infinities are refused (None passes: the option was not given)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UsageError(f"{what} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise UsageError(f"{what} must be a finite number, got {value}")
    return float(value)


def _seed_callback(ctx: Any, param: Any, value: int | None) -> int | None:
    return value if value is None else check_seed(value, _flag(param, "--seed"))


def _finite_callback(ctx: Any, param: Any, value: float | None) -> float | None:
    return check_finite(value, _flag(param, "value"))


def _flag(param: Any, default: str) -> str:
    opts = getattr(param, "opts", None) or []
    return next((o for o in opts if o.startswith("--")), default)


def finite_float(*decls: str, help: str, **kwargs: Any) -> Any:
    """A ``typer.Option`` for a float that refuses NaN and infinities with one line.

    Every float option of every command is declared with it.
    """
    return typer.Option(*decls, help=help, callback=_finite_callback, **kwargs)


def option(flag: str, help: str, kind: Any = str | None, **kwargs: Any) -> Any:
    """An option's type for a command's signature, ``Annotated[kind, typer.Option(flag,
    help=help, ...)]``: the flag and its help line, declared in one expression."""
    return Annotated[kind, typer.Option(flag, help=help, **kwargs)]


def engine_option(played: str, kernel: str) -> Any:
    """``--engine``: where a run with users' own functions is played (:mod:`simcards.core.engines`),
    worded for the ``played`` things (``rounds``, ``hands``) and the game's ``kernel``."""
    return option("--engine", f"Where the {played} are played: compiled ({kernel}) or python "
                  "(the environments' table engine, slower). Default: compiled, unless a function "
                  "of yours (PATH.py:FUNCTION) does not compile; both play the same deals.")


SeedOpt = option("--seed", "Random seed, 0 .. 2**63-1: the same seed gives bit-identical "
                 "results for any --workers.", int, callback=_seed_callback)
WorkersOpt = option("--workers", "Worker processes (default: all cores).", int | None)
JsonOpt = option("--json", "Print one JSON object on stdout and nothing else.", bool)
StoreOpt = option("--store", "Folder that keeps every run's chunks and results (Parquet) for "
                  "resuming: default $SIMCARDS_STORE, else ~/.local/share/simcards/runs; 'none' "
                  "keeps nothing.")
SchedulerOpt = option("--scheduler", "Run the chunks on a dask cluster at this address (e.g. "
                      "tcp://10.0.0.5:8786; default $SIMCARDS_SCHEDULER); results are "
                      "identical to a local run.")


F = TypeVar("F", bound=Callable[..., Any])


def inject_options(name: str, params: Sequence[inspect.Parameter],
                   convert: Callable[..., Any] = dict, eval_str: bool = True
                   ) -> Callable[[F], F]:
    """A function's parameter ``name`` replaced by ``params`` in its signature (which is what
    typer reads, and ``help()`` shows), their given values passed to it under ``name`` as
    ``convert(**values)``: one dict by default.

    Options that many commands share (the rule switches, the run options) are so declared once
    and written into each command, rather than listed again in every signature; the API's rule
    keywords are written in the same way, ``convert`` building the rules from them. A command
    module's annotations are evaluated (``eval_str``) because typer reads their types."""
    def decorate(fn: F) -> F:
        signature = replace_parameter(fn, name, params, eval_str=eval_str)
        names = [p.name for p in params]

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            values = {n: kwargs.pop(n) for n in names if n in kwargs}
            return fn(*args, **{name: convert(**values)}, **kwargs)

        run.__signature__ = signature  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation
                               for p in signature.parameters.values()}
        return run  # type: ignore[return-value]

    return decorate


def replace_parameter(fn: Callable[..., Any], name: str, params: Sequence[inspect.Parameter],
                      eval_str: bool = False) -> inspect.Signature:
    """``fn``'s signature with ``params`` in the place of its parameter ``name``; the
    parameters after it become keyword-only, as the generated ones are."""
    sig = inspect.signature(fn, eval_str=eval_str)
    if name not in sig.parameters:
        raise TypeError(f"{fn.__qualname__} takes no {name!r} parameter")
    out: list[inspect.Parameter] = []
    after = False
    for p in sig.parameters.values():
        if p.name == name:
            out.extend(params)
            after = True
        elif after and p.kind in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY):
            out.append(p.replace(kind=p.KEYWORD_ONLY))
        else:
            out.append(p)
    return sig.replace(parameters=out)


def parameter(name: str, annotated: Any, default: Any) -> inspect.Parameter:
    """A keyword parameter ``name`` of type ``annotated`` (an :func:`option`) and its default:
    options that several commands take, declared once and written into each signature with
    :func:`inject_options`."""
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=annotated)


RUN_OPTIONS = {"seed": parameter("seed", SeedOpt, DEFAULT_SEED),
               "workers": parameter("workers", WorkersOpt, None),
               "scheduler": parameter("scheduler", SchedulerOpt, None),
               "store": parameter("store", StoreOpt, None),
               "as_json": parameter("as_json", JsonOpt, False)}
"""The options of every Monte Carlo command: where and how it runs, and ``--json``."""


def run_options(*names: str) -> Callable[[F], F]:
    """A command's ``run`` parameter replaced by the run options (all of
    :data:`RUN_OPTIONS`, or those named); :func:`api_run` turns their dict into the API's
    keywords."""
    return inject_options("run", [RUN_OPTIONS[n] for n in names or RUN_OPTIONS])


def api_run(run: dict[str, Any]) -> dict[str, Any]:
    """The run options as the Python API takes them: ``--json`` shows no progress."""
    out = {k: v for k, v in run.items() if k != "as_json"}
    out["progress"] = not run.get("as_json", False)
    return out


IMPLIED_VALUES: dict[str, tuple[str, tuple[str, ...]]] = {}
"""Switches that may be given alone: flag -> (the value it then means, the values it takes)."""


def switch_option(flag: str, values: tuple[str, ...], implied: str, help: str) -> Any:
    """A ``typer.Option`` for an on/off style switch that, like every flag, may also be given
    alone (``--teams`` means ``--teams on``); ``--teams on`` and ``--teams off`` still work.

    The parser cannot take an option whose value is optional, so :func:`expand_switches`
    writes the implied value in before parsing; registering here is what tells it to."""
    IMPLIED_VALUES[flag] = (implied, values)
    return typer.Option(flag, help=help, metavar="[" + "|".join(values) + "]")


def expand_switches(argv: list[str]) -> list[str]:
    """``argv`` with the implied value after every switch of :func:`switch_option` given
    alone (followed by nothing or by another option); untouched after ``--``.

    A word after a switch that is none of its values is refused here, naming the switch: left
    to the parser it would be taken as the switch's value, and ``compare --teams lookahead:1
    greedy`` would then report a missing policy B rather than the switch's wrong value."""
    out: list[str] = []
    for i, arg in enumerate(argv):
        if arg == "--":
            return out + argv[i:]
        out.append(arg)
        if arg in IMPLIED_VALUES:
            implied, values = IMPLIED_VALUES[arg]
            if i + 1 == len(argv) or argv[i + 1].startswith("-"):
                out.append(implied)
            elif argv[i + 1] not in values:
                raise UsageError(f"{arg} must be one of {'|'.join(sorted(values))}, got "
                                 f"{argv[i + 1]!r} (the word after {arg} is read as its value; "
                                 f"{arg} alone means {implied})")
    return out


def emit_json(payload: dict[str, Any]) -> None:
    """The whole answer as one JSON object on stdout."""
    sys.stdout.write(json.dumps(payload, sort_keys=False) + "\n")
    sys.stdout.flush()


PLAIN_INTEGER = re.compile(r"-?[0-9]+(?:_[0-9]+)*\Z")
"""The one way an integer is written anywhere on the command line: ASCII digits, single
underscores between groups of them (``1_000``), a minus sign in front. Python's ``int`` also
reads ``١٠``, ``１０``, ``+10``, `` 10 `` and ``1__0``; refusing them keeps every option, count
and list item read alike (what one accepts, all accept)."""
PLAIN_COUNT = re.compile(r"-?[0-9]+(?:_[0-9]+)*(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?\Z")
"""A count before its suffix: a plain integer (:data:`PLAIN_INTEGER`), a decimal fraction
(``1.5`` of ``1.5k``) and a power of ten (``1e6``), in ASCII."""


def parse_integer(text: str, what: str) -> int:
    """``text`` read as a plain integer (:data:`PLAIN_INTEGER`), else a one-line error naming
    ``what`` (a flag)."""
    if not PLAIN_INTEGER.match(text):
        raise UsageError(f"{what} must be an integer written in ASCII digits (such as 3 or "
                         f"1_000), got {text!r}")
    return int(text)


def plain_integer_options(cmd: object) -> None:
    """Make every integer option of click command ``cmd`` and its sub-commands read its value
    as :func:`parse_integer` does, before the parser's own conversion (which would take
    ``１０`` or ``1__0``): one rule for integer options, counts and lists.

    The integer type is recognised by its class name: typer builds on click in some versions
    and on a copy of click of its own in others, and click need not be installed at all."""
    for param in getattr(cmd, "params", []):
        annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
        if annotation is not int and type(getattr(param, "type", None)).__name__ != (
                "IntParamType"):
            continue
        convert = param.process_value

        def process_value(ctx: Any, value: Any, _convert: Any = convert,
                          _param: Any = param) -> Any:
            if isinstance(value, str):
                try:
                    value = parse_integer(value, "")
                except UsageError:
                    raise typer.BadParameter(
                        f"{value!r} is not an integer written in ASCII digits (such as 3 or "
                        "1_000)", ctx=ctx, param=_param) from None
            return _convert(ctx, value)

        param.process_value = process_value
    for sub in getattr(cmd, "commands", {}).values():
        plain_integer_options(sub)


def rule_integer(name: str, value: object) -> int:
    """A rule switch's integer: an int, or a plain integer string (as a command line gives
    it, :data:`PLAIN_INTEGER`); a one-line error naming the switch's flag otherwise. Games'
    ``Rules.make`` share it."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and PLAIN_INTEGER.match(value):
        return int(value)
    raise UsageError(f"{flag_name(name)} must be an integer, got {value!r}")


def check_choice(name: str, value: object, choices: Iterable[str], rule: str) -> str:
    """A rule switch's word, one of ``choices``: ``--mode must be one of points|classic
    (rule C1), got 'x'``."""
    names = list(choices)
    if not isinstance(value, str) or value not in names:
        raise UsageError(f"{flag_name(name)} must be one of {'|'.join(names)} (rule {rule}), "
                         f"got {value!r}")
    return value


def parse_int_list(text: str, what: str) -> list[int]:
    """``"5,5,4"`` -> ``[5, 5, 4]``, naming the bad item on error."""
    out = []
    for item in text.split(","):
        item = item.strip()  # "5, 5, 4": spaces after the commas
        if not PLAIN_INTEGER.match(item):
            raise UsageError(f"{what}: {item!r} is not an integer")
        out.append(int(item))
    return out


def parse_range(text: str, what: str) -> list[int]:
    """``"3-10"`` or ``"3,5,7"`` or ``"4"`` -> list of ints; a value listed twice is refused."""
    text = text.strip()
    if "-" in text and "," not in text:
        lo, _, hi = text.partition("-")
        a, b = parse_int_list(lo, what)[0], parse_int_list(hi, what)[0]
        if a > b:
            raise UsageError(f"{what}: empty range {text!r}")
        return list(range(a, b + 1))
    values = parse_int_list(text, what)
    for v in values:
        if values.count(v) > 1:
            raise UsageError(f"{what}: {v} is listed twice in {text!r}")
    return values


_SUFFIX = {"k": 10**3, "M": 10**6, "G": 10**9}
"""Count suffixes, case as written: ``m`` and ``g`` are refused (``1m`` reads as a million to
some and as a thousandth, or a minute, to others), and so is ``K``."""
MAX_COUNT = 10**12
"""The largest count any command accepts (each command may set a lower one)."""


def format_count(n: int) -> str:
    """``10**12`` -> ``"1e12"``; other numbers with thousands separators."""
    if n >= 10 and str(n).rstrip("0") == "1":
        return f"1e{len(str(n)) - 1}"
    return f"{n:,}"


def parse_count(text: str | int, what: str, maximum: int = MAX_COUNT) -> int:
    """A positive count written as ``1000000``, ``1_000_000``, ``1e6`` or ``1M`` (k = 10**3,
    M = 10**6, G = 10**9, in that case only), at most ``maximum``; an int is checked the same
    way. Digits are ASCII, underscores single and between digits (:data:`PLAIN_COUNT`)."""
    if isinstance(text, bool):
        raise UsageError(f"{what} must be a count such as 1000000, 1e6 or 1M, got {text!r}")
    if isinstance(text, int):
        value = Decimal(text)
    else:
        raw = str(text)
        scale = 1
        if raw and raw[-1] in _SUFFIX:
            scale, raw = _SUFFIX[raw[-1]], raw[:-1]
        elif raw[-1:] in ("m", "g", "K"):
            raise UsageError(f"{what}: unknown suffix {raw[-1]!r} in {text!r}; counts take k = "
                             "1,000, M = 1,000,000, G = 1,000,000,000 (as written)")
        try:
            if not PLAIN_COUNT.match(raw):
                raise InvalidOperation
            value = Decimal(raw.replace("_", "")) * scale
        except ArithmeticError:  # decimal's InvalidOperation, Overflow, ...
            raise UsageError(f"{what} must be a count such as 1000000, 1_000_000, 1e6 or 1M "
                             f"(ASCII digits), got {text!r}") from None
    if value != value.to_integral_value():
        raise UsageError(f"{what} must be a whole number, got {text!r}")
    if value < 1:
        raise UsageError(f"{what} must be positive, got {text!r}")
    if value > maximum:
        raise UsageError(f"{what} must be at most {format_count(maximum)}, got {text!r}")
    return int(value)


@dataclass(frozen=True)
class Count:
    """A count option declared once: its flag, default and most. The API reads it with
    :meth:`parse`, and the command line writes its help from it (:meth:`help`), so the two
    cannot disagree on what a run may ask for."""

    flag: str
    """The flag, ``--hands``; the API's keyword is its name without the dashes."""
    default: str
    """The default, as written on the command line (``100k``)."""
    maximum: int
    """The most one run may ask for."""
    what: str
    """The help line's opening, ``Hands to simulate``."""

    @property
    def keyword(self) -> str:
        """The API's keyword for this count."""
        return self.flag[2:].replace("-", "_")

    def parse(self, value: str | int | None) -> int:
        """``value`` (None: the default) as a count, checked against :attr:`maximum`."""
        return parse_count(self.default if value is None else value, self.flag, self.maximum)

    def help(self, what: str | None = None) -> str:
        """The help line: ``Hands to simulate: 100000, 1e5 or 100k (k = 1,000, ...); at most
        1e10.``, with the suffixes that :attr:`maximum` can use."""
        n = self.parse(self.default)
        digits = len(str(n)) - 1
        power = f"{n // 10**digits}e{digits}"
        suffixes = ", ".join(f"{s} = {v:,}" for s, v in _SUFFIX.items() if v <= self.maximum)
        return (f"{what or self.what}: {n}, {power} or {self.default} ({suffixes}); at most "
                f"{format_count(self.maximum)}.")


def check_out_dir(path: Path, what: str = "--out") -> Path:
    """A folder that exists (it is created if missing) and takes new files: checked before
    anything is computed, so a bad ``--out`` costs nothing."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise UsageError(f"{what} {path}: exists and is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot write there ({exc.strerror or exc})") from None
    return path
