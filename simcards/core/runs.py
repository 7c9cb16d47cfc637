"""``simcards runs list`` and ``simcards runs clean``: what the run store holds, and removing it.

A run is a folder of the store root with a ``manifest.json`` (see :mod:`simcards.core.store`);
everything nested in it (a search's stages, a report's batch sets) belongs to it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simcards.core.errors import UsageError
from simcards.core.progress import human_seconds

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
        out.append(RunInfo(child, str(manifest.get("game", "?")),
                           str(manifest.get("command", "?")), status, chunks, size, latest))
    return iter(sorted(out, key=lambda r: r.modified))


def format_runs(runs: list[RunInfo], root: Path) -> list[str]:
    """The lines of ``runs list``: a header, one line per run, a total."""
    if not runs:
        return [f"no runs in {root}"]
    now = time.time()
    rows = [("name", "game", "command", "status", "chunks", "size", "age")]
    rows += [(r.name, r.game, r.command, r.status, str(r.chunks), human_size(r.size),
              human_seconds(r.age(now))) for r in runs]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) if i < 4 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip()
             for row in rows]
    total = sum(r.size for r in runs)
    lines.append(f"{len(runs)} run{'s' if len(runs) != 1 else ''}, {human_size(total)} in {root}")
    return lines


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
