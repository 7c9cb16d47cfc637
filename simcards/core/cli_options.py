"""Options and output helpers shared by every game's commands."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from simcards.core.errors import UsageError

SeedOpt = Annotated[int, typer.Option("--seed", help="Random seed: the same seed gives "
                                      "bit-identical results for any --workers.")]
WorkersOpt = Annotated[int | None, typer.Option("--workers", help="Worker processes "
                                                "(default: all cores).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and "
                                       "nothing else.")]
StoreOpt = Annotated[str | None, typer.Option(
    "--store", help="Folder that keeps every run's chunks and results (Parquet) for resuming: "
    "default $SIMCARDS_STORE, else ~/.local/share/simcards/runs; 'none' keeps nothing.")]
SchedulerOpt = Annotated[str | None, typer.Option(
    "--scheduler", help="Run the chunks on a dask cluster at this address (e.g. "
    "tcp://10.0.0.5:8786; default $SIMCARDS_SCHEDULER); results are identical to a local run.")]
DEFAULT_SEED = 20261129


def emit_json(payload: dict[str, Any]) -> None:
    """The whole answer as one JSON object on stdout."""
    sys.stdout.write(json.dumps(payload, sort_keys=False) + "\n")
    sys.stdout.flush()


def parse_int_list(text: str, what: str) -> list[int]:
    """``"5,5,4"`` -> ``[5, 5, 4]``, naming the bad item on error."""
    out = []
    for item in text.split(","):
        item = item.strip()
        try:
            out.append(int(item))
        except ValueError:
            raise UsageError(f"{what}: {item!r} is not an integer") from None
    return out


def parse_range(text: str, what: str) -> list[int]:
    """``"3-10"`` or ``"3,5,7"`` or ``"4"`` -> list of ints."""
    text = text.strip()
    if "-" in text and "," not in text:
        lo, _, hi = text.partition("-")
        a, b = parse_int_list(lo, what)[0], parse_int_list(hi, what)[0]
        if a > b:
            raise UsageError(f"{what}: empty range {text!r}")
        return list(range(a, b + 1))
    return parse_int_list(text, what)


_SUFFIX = {"k": 10**3, "m": 10**6, "g": 10**9}


def parse_count(text: str, what: str) -> int:
    """A positive count written as ``1000000``, ``1_000_000``, ``1e6`` or ``1M``."""
    raw = text.strip().lower().replace("_", "")
    scale = 1
    if raw and raw[-1] in _SUFFIX:
        scale, raw = _SUFFIX[raw[-1]], raw[:-1]
    try:
        value = float(raw) * scale if ("e" in raw or "." in raw) else int(raw) * scale
    except ValueError:
        raise UsageError(f"{what} must be a count such as 1000000, 1e6 or 1M, got {text!r}")\
            from None
    if value != int(value):
        raise UsageError(f"{what} must be a whole number, got {text!r}")
    if value < 1:
        raise UsageError(f"{what} must be positive, got {text!r}")
    return int(value)
