"""``make report``: every headline study, written under ``reports/``.

Each study is a run of the store like any command's (``<game>-report-<hash>/``, named by the
study, seed and quick mode): its batches are kept in folders nested inside it as they finish, so
an interrupted report started again picks up where it was. A study's builder receives that
folder as ``store`` (None when nothing is stored) and passes it on, e.g. through
:func:`simcards.core.store.batch_set_store`.
"""

from __future__ import annotations

import inspect
import sys
import time
from concurrent.futures import Executor
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pandas as pd

from simcards.core.cli_options import DEFAULT_SEED
from simcards.core.errors import Interrupted
from simcards.core.registry import Warmups, all_studies
from simcards.core.runner import check_workers, local_executor


def build_all(root: Path = Path("reports"), *, seed: int = DEFAULT_SEED,
              workers: int | None = None, only: list[str] | None = None,
              progress: bool = True, quick: bool = False,
              executor: Executor | None = None, store: Path | None = None,
              long: bool = False) -> list[Path]:
    """Build the studies (``only``: those named, long ones included; else every study, and
    with ``long`` the long studies too); returns their pages."""
    pages = []
    chosen = [(name, game) for name, (game, _) in all_studies(long or bool(only)).items()
              if not only or name in only]
    warm = None
    if executor is None:  # a cluster's workers run the warm-ups themselves when they join
        if progress:
            sys.stderr.write(f"report 0/{len(chosen)}: compiling the kernels (or loading them "
                             "from numba's cache), every game at once; each study starts as "
                             "soon as its game's are ready\n")
            sys.stderr.flush()
        warm = Warmups(sorted({game.name for _, game in chosen}))
    # One pool for every study: its workers start once and load each game's kernels once.
    pool_of = (local_executor(check_workers(workers)) if executor is None
               else nullcontext(executor))
    try:
        with pool_of as pool:
            for i, (name, game) in enumerate(chosen, 1):
                if warm is not None:
                    _wait_compiled(i, len(chosen), game.name, warm, progress)
                pages.append(_study(i, len(chosen), name, game, root, seed=seed,
                                    workers=workers, progress=progress, quick=quick,
                                    executor=pool, store=store))
    finally:
        if warm is not None:
            warm.stop()
    _index(root)
    return pages


def _wait_compiled(i: int, n: int, game: str, warm: Warmups, progress: bool) -> None:
    """Wait until ``game``'s kernels are compiled (they compile while earlier studies run)."""
    started = time.perf_counter()
    try:
        warm.wait(game)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted while compiling the {game} kernels") from None
    if progress and time.perf_counter() - started >= 1:
        sys.stderr.write(f"report {i}/{n}: waited {time.perf_counter() - started:.0f} s for the "
                         f"{game} kernels to compile\n")
        sys.stderr.flush()


def _study(i: int, n: int, name: str, game: Any, root: Path, *, seed: int,
           workers: int | None, progress: bool, quick: bool, executor: Executor | None,
           store: Path | None) -> Path:
    """Run study ``name`` (the ``i``-th of ``n``), in a run of the store when one is given."""
    from simcards.core.store import RunStore

    build = game.study(name)
    if progress:
        sys.stderr.write(f"report {i}/{n}: {name}\n")
        sys.stderr.flush()
    run = (RunStore(store, {"game": game.name, "command": "report", "study": name,
                            "seed": seed, "quick": quick}) if store is not None else None)
    options = {}
    stored_before: dict[Path, tuple[int, int]] = {}
    if run is not None:
        run.create()
        stored_before = _chunk_files(run.path)
        if _accepts_store(build):
            options["store"] = run.path / "batches"
    started = time.perf_counter()
    try:
        page = build(root, seed=seed, workers=workers, progress=progress, quick=quick,
                     executor=executor, **options)
    except KeyboardInterrupt:
        where = (f"; finished chunks kept in {run.path}, run the same command again to "
                 "resume" if run is not None else "")
        raise Interrupted(f"interrupted during study {name}{where}") from None
    if run is not None:
        _say_resumed(run, stored_before)
        run.finish(pd.DataFrame({"page": [str(page)]}), {"page": str(page)})
    if progress:
        _done(i, n, name, started)
    return page


def _chunk_files(path: Path) -> dict[Path, tuple[int, int]]:
    """Every chunk file kept under a study's run (its batches and stages, at any depth), with
    its size and modification time: the ones still the same after the study were resumed."""
    out = {}
    for f in path.rglob("chunks/*.parquet"):
        try:
            st = f.stat()
        except OSError:
            continue
        out[f] = (st.st_size, st.st_mtime_ns)
    return out


def _say_resumed(run: Any, before: dict[Path, tuple[int, int]]) -> None:
    """A study that reused stored chunks says so as every command does (the chunks found before
    it ran and left untouched by it were resumed; the others it computed)."""
    from simcards.core.montecarlo import say_resumed

    after = _chunk_files(run.path)
    resumed = sum(1 for f, key in after.items() if before.get(f) == key)
    say_resumed(run.path, resumed, len(after) - resumed, run.was_complete)


def _done(i: int, n: int, what: str, started: float) -> None:
    """The step's wall time, so that a user sees where a report's minutes go."""
    sys.stderr.write(f"report {i}/{n}: {what} done in {time.perf_counter() - started:.0f} s\n")
    sys.stderr.flush()


def _accepts_store(build: object) -> bool:
    try:
        params = inspect.signature(build).parameters  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return "store" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _index(root: Path) -> None:
    """``reports/README.md``: a table of contents of the pages present."""
    pages = sorted(root.glob("*/*.md"))
    lines = ["# simcards reports", "", "Generated by `make report` (`simcards report`).", ""]
    for page in pages:
        title = page.read_text().splitlines()[0].lstrip("# ").strip()
        lines.append(f"- [{title}]({page.relative_to(root).as_posix()})")
    (root / "README.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    for page in build_all():
        print(f"wrote {page}")
