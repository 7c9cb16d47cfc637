"""Steps per second of every PettingZoo environment, by PettingZoo's own
``performance_benchmark`` (random legal codes, about 5 s of play each, one core).

    .venv/bin/python scripts/bench_envs.py            # every environment, default options
    .venv/bin/python scripts/bench_envs.py ronda_v0   # some of them

Needs ``pip install 'simcards[rl]'``.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import re
import sys
import warnings


def steps_per_second(name: str) -> dict[str, float]:
    from pettingzoo.test import performance_benchmark

    env = importlib.import_module(f"simcards.envs.{name}").env()
    out = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out):
        warnings.simplefilter("ignore")
        performance_benchmark(env)
    text = out.getvalue()
    turns = float(re.search(r"([\d.]+) turns per second", text).group(1))
    cycles = float(re.search(r"([\d.]+) cycles per second", text).group(1))
    return {"steps_per_second": round(turns), "cycles_per_second": round(cycles)}


def main() -> None:
    from simcards.core.envs import table_refs

    names = sys.argv[1:] or sorted(table_refs())
    rows = {name: steps_per_second(name) for name in names}
    print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
