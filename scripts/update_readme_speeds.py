"""Rewrite the README's speed figures from the benchmarks' committed results.

Usage: python scripts/update_readme_speeds.py [--check]

Every speed the README states sits in a block between ``<!-- speeds:NAME -->`` and
``<!-- /speeds:NAME -->``, written here from a results file and never by hand, so a figure can
only change when the benchmark that measures it is run again:

* ``ronda``: ``scripts/bench_results/ronda.json``, written by
  ``python scripts/bench_ronda.py --readme`` (two-player hands per second, one core);
* ``cluster``: ``scripts/bench_results/cluster.json``, written by
  ``python scripts/bench_cluster.py --readme`` (per-chunk cost, inline and on a loopback
  cluster);
* ``ronco-bayes``: ``scripts/bench_results/ronco_bayes.json``, written by
  ``python scripts/bench_ronco_bayes.py --readme`` (the seconds the ``bayes`` decision tables
  take to compute).

Each block says which command measured it, when and on what machine. ``--check`` changes
nothing and exits with status 1 when the README is not what this script would write (the test
suite runs the same comparison). The benchmarks call :func:`save_results` to write their file.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
RESULTS = ROOT / "scripts" / "bench_results"

BLOCK = re.compile(r"(<!-- speeds:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /speeds:(?P=name) -->)",
                   re.S)


def machine() -> dict[str, Any]:
    """What the figures were measured on: the CPU, its cores, and how busy it was (the load
    average over the last minute, which on a shared machine says how far to trust them)."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {"cpu": cpu, "cores": os.cpu_count(), "load": None if load is None else round(load, 1)}


def save_results(name: str, command: str, figures: dict[str, Any],
                 load: float | None = None) -> Path:
    """Write ``scripts/bench_results/NAME.json``: the figures, the command that measured them,
    the date and the machine. ``load`` is the load average seen when the measurement began
    (default: now)."""
    info = machine()
    if load is not None:
        info["load"] = round(load, 1)
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    record = {"command": command, "measured": datetime.date.today().isoformat(),
              "machine": info, "figures": figures}
    path.write_text(json.dumps(record, indent=2) + "\n")
    return path


def _load(name: str) -> dict[str, Any]:
    return json.loads((RESULTS / f"{name}.json").read_text())


def _sig(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant figures, with thousands separators: timings on a shared
    machine are not worth more."""
    if x == 0:
        return "0"
    from math import floor, log10

    places = digits - 1 - floor(log10(abs(x)))
    value = round(x, places)
    return f"{value:,.{max(places, 0)}f}"


def _where(record: dict[str, Any]) -> str:
    m = record["machine"]
    cores = m.get("cores")
    load = m.get("load")
    text = f"{m['cpu']}, {cores} cores"
    if load is not None and cores and load >= 0.5 * cores:
        text += (f", shared: load average {load} when it began, which lowers the figures "
                 "against an idle machine")
    return f"measured {record['measured']} on {text}"


def _wrap(paragraph: str) -> str:
    """One paragraph in the README's line width."""
    return textwrap.fill(paragraph.strip(), width=96, break_long_words=False,
                         break_on_hyphens=False) + "\n"


def ronda_block() -> str:
    r = _load("ronda")
    f = r["figures"]
    greedy = f["greedy"]
    parts = []
    for spec in ("random", "greedy"):
        if spec not in f:
            continue
        part = f"`{spec}` in every seat {_sig(f[spec])} hands a second"
        limit = f.get(f"{spec} yardstick")
        if limit:
            ratio = f.get(f"{spec} ratio", f[spec] / limit)
            part += f" ({_sig(ratio, 2)} of the yardstick's {_sig(limit)})"
        parts.append(part)
    for spec in ("lookahead:1", "rollout:32"):
        parts.append(f"one `{spec}` seat against `greedy` {_sig(f[spec])} "
                     f"({_sig(greedy / f[spec], 2)} times slower)")
    yardstick = (" The yardstick is a hand-specialised two-player kernel for random play,"
                 " timed in the same run." if "random yardstick" in f else "")
    if "random ratio" in f:
        yardstick += (" Each ratio is the median of seven runs' ratios to the yardstick's run"
                      " beside it.")
        how = "CPU time, best of seven (of three for a searching seat)"
    else:
        how = "CPU time, best of three"
    return (f"Two players, default rules, one core: {'; '.join(parts)} "
            f"(`{r['command']}`, {how}; {_where(r)}).{yardstick}\n")


def cluster_block() -> str:
    r = _load("cluster")
    f = r["figures"]
    per = [c * 1e3 for c in f["cluster_seconds_per_chunk"]]
    lo, hi = min(per), max(per)
    span = _sig(lo, 2) if _sig(lo, 2) == _sig(hi, 2) else f"{_sig(lo, 2)}-{_sig(hi, 2)}"
    return (f"Each chunk costs about {span} ms of scheduling on the cluster path (a loopback "
            f"cluster of 1 and 2 workers) against {_sig(f['inline_seconds_per_chunk'] * 1e3, 2)} "
            f"ms locally (`{r['command']}`; {_where(r)}).\n")


def bayes_block() -> str:
    r = _load("ronco_bayes")
    by_n = r["figures"]["seconds_by_players"]
    cells = [f"{n} players {_sig(sec, 2)} s" for n, sec in sorted(by_n.items(),
                                                                 key=lambda kv: int(kv[0]))]
    return ("Seconds to compute the tables a game of n players needs (every table size 2 .. n, "
            f"against `{r['figures']['field']}`, CPU time of one thread): " + ", ".join(cells)
            + f" (`{r['command']}`; {_where(r)}).\n")


BLOCKS: dict[str, Callable[[], str]] = {
    "ronda": ronda_block,
    "cluster": cluster_block,
    "ronco-bayes": bayes_block,
}


def render(text: str, *, strict: bool = True) -> str:
    """``text`` with every speeds block rewritten from its results; an unknown block name is an
    error (a block nobody keeps current would go stale), and so is a missing results file
    unless ``strict`` is false (then that block is left as it is)."""
    def body(m: re.Match[str]) -> str:
        name = m.group("name")
        if name not in BLOCKS:
            raise KeyError(f"README block speeds:{name} has no results to be written from")
        try:
            return m.group(1) + _wrap(BLOCKS[name]()) + m.group(4)
        except FileNotFoundError as exc:
            if strict:
                raise
            print(f"speeds:{name} left as it is: {exc.filename} not found", file=sys.stderr)
            return m.group(0)

    return BLOCK.sub(body, text)


def main_update() -> None:
    """Rewrite the README's blocks in place (only they change), each from the results that
    exist."""
    text = README.read_text()
    new = render(text, strict=False)
    if new != text:
        README.write_text(new)
        print("README.md: speed blocks rewritten")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="change nothing; exit 1 when the README's speeds are not current")
    args = ap.parse_args()
    if not args.check:
        main_update()
        return 0
    text = README.read_text()
    if render(text) != text:
        print("README.md: speed blocks differ from the benchmark results; run "
              "python scripts/update_readme_speeds.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
