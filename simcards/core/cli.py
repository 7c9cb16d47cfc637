"""The ``simcards`` command: one sub-command group per game.

Bad input never produces a traceback: :class:`~simcards.core.errors.UsageError` and click's own
usage errors become one line on stderr and exit status 2.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from simcards import __version__
from simcards.core.cli_options import (
    DEFAULT_SEED,
    SchedulerOpt,
    SeedOpt,
    StoreOpt,
    WorkersOpt,
    check_out_dir,
)
from simcards.core.errors import Interrupted, UsageError, caused_by_interrupt
from simcards.core.montecarlo import executor_for
from simcards.core.registry import games
from simcards.core.runner import check_workers

app = typer.Typer(
    name="simcards",
    help="Monte Carlo strategy analysis for traditional card games.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
for _game in games():
    app.add_typer(_game.app(), name=_game.name, help=_game.help)
runs_app = typer.Typer(help="What the run store keeps: list runs, remove old ones.",
                       no_args_is_help=True)
app.add_typer(runs_app, name="runs", help="What the run store keeps: list runs, remove old ones.")


def _print_version(value: bool) -> None:
    if value:
        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", is_eager=True,
                                          callback=_print_version,
                                          help="Print the package version and exit.")] = False,
) -> None:
    """Monte Carlo strategy analysis for traditional card games."""


@app.command()
def report(
    only: Annotated[str | None, typer.Option("--only", help="Comma-separated studies "
                                             "(default: all).")] = None,
    out: Annotated[Path, typer.Option("--out", help="Folder to write.")] = Path("reports"),
    seed: SeedOpt = DEFAULT_SEED,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
    quick: Annotated[bool, typer.Option("--quick", help="Tiny samples: checks the pipeline "
                                        "in seconds; the figures mean nothing.")] = False,
    store: StoreOpt = None,
) -> None:
    """Run the headline studies and write their figures and pages under --out."""
    from simcards.core.registry import all_studies
    from simcards.core.reports.make_all import build_all
    from simcards.core.store import store_root

    studies = all_studies()
    names = [s.strip() for s in only.split(",")] if only else None
    for name in names or []:
        if name not in studies:
            raise UsageError(f"unknown study {name!r} (known: {', '.join(studies)})")
    check_out_dir(out)
    cap, workers = workers, check_workers(workers)  # on a cluster only a cap, if given
    root = store_root(store)
    with executor_for(scheduler, cap, False) as ex:
        for page in build_all(out, seed=seed, workers=workers, only=names,
                              quick=quick, executor=ex, store=root):
            typer.echo(f"wrote {page}")


@runs_app.command("list")
def runs_list(store: StoreOpt = None) -> None:
    """One line per run: name, game, command, status, chunks, size, age."""
    from simcards.core.runs import format_runs, list_runs
    from simcards.core.store import store_root

    root = store_root(store)
    if root is None:
        raise UsageError("no run store (--store none)")
    for line in format_runs(list(list_runs(root)), root):
        typer.echo(line)


@runs_app.command("clean")
def runs_clean(
    older_than: Annotated[str | None, typer.Option(
        "--older-than", help="Remove runs untouched for this long: 7d, 12h, 30m.")] = None,
    command: Annotated[str | None, typer.Option(
        "--command", help="Remove runs of this command (rounds, games, best-threshold, "
        "report, or GAME-COMMAND).")] = None,
    everything: Annotated[bool, typer.Option("--all", help="Remove every run.")] = False,
    store: StoreOpt = None,
) -> None:
    """Remove runs (all the given filters must hold); says what went and the space freed."""
    from simcards.core.runs import human_size, parse_age, remove_runs, select_runs
    from simcards.core.store import store_root

    root = store_root(store)
    if root is None:
        raise UsageError("no run store (--store none)")
    age = parse_age(older_than) if older_than is not None else None
    chosen, busy = select_runs(root, older_than=age, command=command, everything=everything)
    for run in busy:
        typer.echo(f"kept {run.name}: its run is still going")
    for run in chosen:
        typer.echo(f"removed {run.name} ({run.game} {run.command}, {run.status}, "
                   f"{human_size(run.size)})")
    freed = remove_runs(chosen)
    typer.echo(f"removed {len(chosen)} run{'s' if len(chosen) != 1 else ''}, freed "
               f"{human_size(freed)} in {root}")


@app.command()
def version() -> None:
    """Print the package version."""
    typer.echo(__version__)


def _fail(message: str) -> int:
    sys.stderr.write(f"simcards: error: {message}\n")
    return 2


def _tidy_flags(cmd: object) -> None:
    """Flags take no value: show no value type (``<bool>``) beside them, nor beside --help."""
    for param in getattr(cmd, "params", []):
        if getattr(param, "is_flag", False) and getattr(param, "metavar", "") is None:
            param.metavar = ""
    try:
        help_option = cmd.get_help_option(typer.Context(cmd))  # type: ignore[attr-defined]
    except Exception:  # another typer version: leave its help option as it is
        help_option = None
    if help_option is not None and getattr(help_option, "metavar", "") is None:
        help_option.metavar = ""
    for sub in getattr(cmd, "commands", {}).values():
        _tidy_flags(sub)


def command() -> object:
    """The click command behind :data:`app`, with tidy flags in its help."""
    cmd = typer.main.get_command(app)
    _tidy_flags(cmd)
    return cmd


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status instead of raising for bad input.

    Usage errors are recognised by shape (``format_message`` and ``exit_code``) because typer
    raises either click's exception classes or its own copies of them, depending on version.
    """
    try:
        code = command()(args=argv, standalone_mode=False)  # type: ignore[operator]
        if code == 130:  # typer turns Ctrl-C outside any run store into a returned 130
            raise KeyboardInterrupt
    except UsageError as exc:
        return _fail(str(exc).splitlines()[0])
    except Interrupted as exc:
        _fail(str(exc))
        return 130
    except FileNotFoundError as exc:
        return _fail(f"file not found: {exc.filename}")
    except KeyboardInterrupt:
        _fail("interrupted")
        return 130
    except Exception as exc:
        if caused_by_interrupt(exc):
            _fail("interrupted")
            return 130
        name = type(exc).__name__
        if name == "NoArgsIsHelpError":
            return 0
        if name == "Abort":
            return _fail("interrupted")
        if name in ("KilledWorker", "CancelledError", "CommClosedError", "TimeoutError"):
            return _fail(f"cluster run failed ({name}): {' '.join(str(exc).split())[:300]}; "
                         "finished chunks are kept in the run store")
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):
            return _fail(" ".join(exc.format_message().split()))
        if name == "Exit" and hasattr(exc, "exit_code"):
            return int(exc.exit_code)
        raise
    return 0


def run() -> None:
    code = main()
    if code == 130:
        # Interrupted: the workers are stopped and the finished chunks saved, so end now rather
        # than spend a second or more tearing down numba and the interpreter.
        import threading
        from multiprocessing.util import _exit_function

        threading.excepthook = lambda args: None  # ending now: no thread's last words
        _exit_function()  # release the pool's semaphores and queues, as a normal exit would
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    run()
