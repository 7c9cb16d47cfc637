"""``simcards runs list``, ``runs show`` and ``runs clean``: what the run store holds, one run
in full, and removing runs.

A run is a folder of the store root with a ``manifest.json`` (see :mod:`simcards.core.store`);
everything nested in it (a search's stages, a report's batch sets) belongs to it. ``runs list``
reads from each manifest what tells runs of one command apart (players, policies, counts), so
that the right one can be found among many without opening them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simcards.core.errors import UsageError
from simcards.core.progress import human_count, human_seconds

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_age(text: str, what: str = "--older-than") -> float:
    """``"7d"``, ``"12h"``, ``"30m"``, ``"2w"``, ``"90s"`` (or plain seconds) -> seconds."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*", text.lower())
    if not m:
        raise UsageError(f"{what} must be a duration such as 7d, 12h or 30m, got {text!r}")
    return float(m.group(1)) * _UNITS[m.group(2) or "s"]


def human_size(n: int) -> str:
    for scale, unit in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "kB")):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class RunInfo:
    """One run of the store, as ``runs list`` shows it."""

    path: Path
    game: str
    command: str
    status: str
    """complete, running (its process is alive), or interrupted."""
    chunks: int
    size: int
    modified: float
    manifest: dict[str, Any] = field(default_factory=dict)
    """The run's manifest as read (empty when unreadable)."""

    @property
    def name(self) -> str:
        return self.path.name

    def age(self, now: float | None = None) -> float:
        return (now if now is not None else time.time()) - self.modified


def _scan(path: Path) -> tuple[int, int, float]:
    """Chunk files, bytes and the latest modification time of everything under ``path``."""
    chunks = size = 0
    latest = 0.0
    for dirpath, _, files in os.walk(path):
        for name in files:
            try:
                st = os.stat(os.path.join(dirpath, name))
            except OSError:
                continue
            size += st.st_size
            latest = max(latest, st.st_mtime)
            if name.endswith(".parquet") and os.path.basename(dirpath) == "chunks":
                chunks += 1
    return chunks, size, latest


def list_runs(root: Path) -> Iterator[RunInfo]:
    """Every run under ``root``, oldest first."""
    if not root.is_dir():
        return iter(())
    out = []
    for child in root.iterdir():
        manifest_file = child / "manifest.json"
        if not manifest_file.is_file():
            continue
        try:
            manifest = json.loads(manifest_file.read_text())
        except (OSError, ValueError):
            manifest = {}
        status = manifest.get("status", "unknown")
        if status == "running" and not _alive(manifest.get("pid")):
            status = "interrupted"
        chunks, size, latest = _scan(child)
        if not isinstance(manifest, dict):
            manifest = {}
        out.append(RunInfo(child, str(manifest.get("game", "?")),
                           str(manifest.get("command", "?")), status, chunks, size, latest,
                           manifest))
    return iter(sorted(out, key=lambda r: r.modified))


COUNT_KEYS = ("rounds", "games", "hands", "matches", "deals")
"""The manifest keys that hold a run's count of work (one per command)."""


def _text(value: Any) -> str:
    """A manifest value in a cell: lists comma-joined, nothing as ``-``."""
    if value is None:
        return "-"
    if isinstance(value, list):
        return ",".join(_text(v) for v in value) or "-"
    return str(value)


def run_players(manifest: dict[str, Any]) -> str:
    """The table size (or sizes, for a search or a ladder over several)."""
    return _text(manifest.get("players"))


def run_policies(manifest: dict[str, Any]) -> str:
    """Who plays: one policy for every seat shown once, else one per seat; the two sides of a
    comparison; a search's policy and field or family; a report's study."""
    m = manifest
    if isinstance(m.get("policies"), list) and m["policies"]:
        names = [_text(p) for p in m["policies"]]
        return names[0] if m.get("command") != "ladder" and len(set(names)) == 1 \
            else ",".join(names)
    for a, b in (("a", "b"), ("policy_a", "policy_b")):
        if a in m and b in m:
            return f"{_text(m[a])} vs {_text(m[b])}"
    if "policy" in m:
        return _text(m["policy"]) + (f" in {_text(m['field'])}" if "field" in m else "")
    if "family" in m:
        return _text(m["family"])
    if "study" in m:
        return f"study {_text(m['study'])}"
    return "-"


def run_counts(manifest: dict[str, Any]) -> str:
    """The work asked for: ``100k games``, ``2k deals``; a search's budget; ``-`` if none."""
    parts = [f"{human_count(manifest[k])} {k}" for k in COUNT_KEYS
             if isinstance(manifest.get(k), int)]
    if not parts and isinstance(manifest.get("max_games"), int):
        parts.append(f"up to {human_count(manifest['max_games'])} games")
    if manifest.get("quick") is True:
        parts.append("quick")
    return ", ".join(parts) or "-"


def format_runs(runs: list[RunInfo], root: Path) -> list[str]:
    """The lines of ``runs list``: a header, one line per run, a total."""
    if not runs:
        return [f"no runs in {root}"]
    now = time.time()
    rows = [("name", "game", "command", "status", "players", "policies", "counts", "chunks",
             "size", "age")]
    rows += [(r.name, r.game, r.command, r.status, run_players(r.manifest),
              run_policies(r.manifest), run_counts(r.manifest), str(r.chunks),
              human_size(r.size), human_seconds(r.age(now))) for r in runs]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) if i < 7 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip()
             for row in rows]
    total = sum(r.size for r in runs)
    lines.append(f"{len(runs)} run{'s' if len(runs) != 1 else ''}, {human_size(total)} in {root}")
    return lines


def find_run(root: Path, name: str) -> RunInfo:
    """The run called ``name`` (its folder's name, or the start of one name alone), or a
    one-line error saying what there is instead."""
    runs = list(list_runs(root))
    wanted = name.strip().rstrip("/").split("/")[-1]
    exact = [r for r in runs if r.name == wanted]
    if exact:
        return exact[0]
    matches = [r for r in runs if wanted and r.name.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        names = ", ".join(r.name for r in matches[:5]) + (", ..." if len(matches) > 5 else "")
        raise UsageError(f"run {name!r} names {len(matches)} runs: {names}; give more of the "
                         "name")
    raise UsageError(f"no run {name!r} in {root} (simcards runs list shows the runs)")


def show_run(run: RunInfo) -> dict[str, Any]:
    """One run in full: where it is, its manifest and its result (the rows of
    ``result.parquet``, or None while the run has not completed)."""
    import pandas as pd

    from simcards.core.store import read_failure

    result_file = run.path / "result.parquet"
    rows: list[dict[str, Any]] | None = None
    if result_file.is_file():
        try:
            frame = pd.read_parquet(result_file)
        except Exception as exc:  # any failure to read: one whole line
            raise UsageError(f"cannot read {result_file}: "
                             f"{read_failure(exc, result_file)}") from None
        rows = json.loads(frame.to_json(orient="records"))
    return {"name": run.name, "path": str(run.path), "status": run.status,
            "chunks": run.chunks, "size": run.size, "manifest": run.manifest, "result": rows}


def format_show(shown: dict[str, Any]) -> str:
    """``runs show`` as text: the run, its manifest (JSON) and its result as a table."""
    import pandas as pd

    chunks = f"{shown['chunks']} chunk{'' if shown['chunks'] == 1 else 's'}"
    lines = [f"run {shown['name']} ({shown['status']}, {chunks}, {human_size(shown['size'])})",
             f"folder: {shown['path']}", "manifest:",
             json.dumps(shown["manifest"], indent=2, ensure_ascii=False, default=str)]
    rows = shown["result"]
    if rows is None:
        lines.append(f"result: none yet (the run is {shown['status']}; run the same command "
                     "again to finish it)")
    else:
        lines.append(f"result ({len(rows)} row{'s' if len(rows) != 1 else ''}):")
        with pd.option_context("display.width", 1000, "display.max_columns", None,
                               "display.max_colwidth", 80):
            lines.append(pd.DataFrame(rows).to_string(index=False))
    return "\n".join(lines)


def check_command(command: str, known: dict[str, list[str]]) -> str:
    """``runs clean --command``: a command some game has (``rounds``, or ``ronco-rounds``),
    ``report``, or one found in the store; anything else is refused rather than matching
    nothing, so that a typo does not read as "no such runs". ``known`` maps each command to
    the games that have it."""
    qualified = {f"{game}-{name}" for name, owners in known.items() for game in owners}
    if command not in known and command not in qualified:
        raise UsageError(f"--command {command!r} is no command (known: {', '.join(known)}; "
                         "or GAME-COMMAND, such as ronco-rounds)")
    return command


def select_runs(root: Path, *, older_than: float | None, command: str | None,
                everything: bool) -> tuple[list[RunInfo], list[RunInfo]]:
    """The runs ``runs clean`` removes with these filters (all must hold), and the ones it
    spares because their process is still running."""
    if not everything and older_than is None and command is None:
        raise UsageError("say what to remove: --older-than AGE, --command NAME, or --all")
    now = time.time()
    chosen, busy = [], []
    for run in list_runs(root):
        if older_than is not None and run.age(now) < older_than:
            continue
        if command is not None and command not in (run.command, f"{run.game}-{run.command}"):
            continue
        (busy if run.status == "running" else chosen).append(run)
    return chosen, busy


def remove_runs(runs: list[RunInfo]) -> int:
    """Delete the runs' folders; returns the bytes freed."""
    freed = 0
    for run in runs:
        shutil.rmtree(run.path, ignore_errors=True)
        freed += run.size
    return freed
