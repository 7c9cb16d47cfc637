"""The ``simcards`` command: one sub-command group per game.

Bad input never produces a traceback: :class:`~simcards.core.errors.UsageError` and click's own
usage errors become one line on stderr and exit status 2.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Annotated

import typer

from simcards import __version__
from simcards.core import interrupts
from simcards.core.cli_options import (
    DEFAULT_SEED,
    SchedulerOpt,
    SeedOpt,
    StoreOpt,
    WorkersOpt,
    check_out_dir,
    expand_switches,
    plain_integer_options,
)
from simcards.core.errors import Interrupted, UsageError, caused_by_interrupt
from simcards.core.montecarlo import executor_for, runs_locally
from simcards.core.progress import estimate_when_quiet
from simcards.core.registry import games
from simcards.core.runner import check_workers

app = typer.Typer(
    name="simcards",
    help="Monte Carlo strategy analysis for traditional card games.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
try:
    _GAMES = games()
    _LOAD_ERROR: UsageError | None = None
except UsageError as _exc:  # a bad $SIMCARDS_GAMES: main() says so in one line
    _GAMES, _LOAD_ERROR = (), _exc
for _game in _GAMES:
    app.add_typer(_game.app(), name=_game.name, help=_game.help)
runs_app = typer.Typer(help="What the run store keeps: list runs, show one, remove old ones.",
                       no_args_is_help=True)
app.add_typer(runs_app, name="runs",
              help="What the run store keeps: list runs, show one, remove old ones.")


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
    long: Annotated[bool, typer.Option(
        "--long", help="Also the long studies (Ronda's and Römi's search players: about six "
        "minutes and an hour on two cores).")] = False,
    store: StoreOpt = None,
) -> None:
    """Run the headline studies and write their figures and pages under --out."""
    from simcards.core.registry import all_studies
    from simcards.core.reports.make_all import build_all
    from simcards.core.store import store_root

    studies = all_studies(long=True)
    names = _only_studies(only, list(studies)) if only is not None else None
    check_out_dir(out)
    # On a cluster only a cap, if given; local workers must fit in memory.
    cap, workers = workers, check_workers(workers, local=runs_locally(scheduler))
    root = store_root(store)
    with executor_for(scheduler, cap, False) as ex:
        for page in build_all(out, seed=seed, workers=workers, only=names,
                              quick=quick, executor=ex, store=root, long=long):
            typer.echo(f"wrote {page}")


def _only_studies(only: str, known: list[str]) -> list[str]:
    """``--only``'s studies, each known and named once. An empty list is refused rather than
    read as "every study": a mistyped or empty ``--only`` must not start an hour of work."""
    names = [s.strip() for s in only.split(",")]
    if not any(names):
        raise UsageError(f"--only is empty: name one study or more, comma-separated "
                         f"(known: {', '.join(known)})")
    if not all(names):
        raise UsageError(f"--only {only!r} has an empty entry (two commas in a row, or one "
                         "at either end)")
    for name in names:
        if name not in known:
            raise UsageError(f"unknown study {name!r} (known: {', '.join(known)})")
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise UsageError(f"--only names {', '.join(twice)} twice: each study runs once")
    return names


@runs_app.command("list")
def runs_list(store: StoreOpt = None) -> None:
    """One line per run: name, game, command, status, players, policies, counts, chunks, size,
    age."""
    from simcards.core.runs import format_runs, list_runs
    from simcards.core.store import store_root

    root = store_root(store)
    if root is None:
        raise UsageError("no run store (--store none)")
    for line in format_runs(list(list_runs(root)), root):
        typer.echo(line)


@runs_app.command("show")
def runs_show(
    run: Annotated[str, typer.Argument(help="The run's name as runs list shows it (or the "
                                       "start of one name alone).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    store: StoreOpt = None,
) -> None:
    """One run in full: its manifest (what was asked) and its result (what came out)."""
    import json

    from simcards.core.runs import find_run, format_show, show_run
    from simcards.core.store import store_root

    root = store_root(store)
    if root is None:
        raise UsageError("no run store (--store none)")
    shown = show_run(find_run(root, run))
    typer.echo(json.dumps(shown, ensure_ascii=False, default=str) if as_json
               else format_show(shown))


def _known_commands(root: Path) -> dict[str, list[str]]:
    """What ``runs clean --command`` takes, each command with the games that have it: every
    game's commands, ``report``, and whatever command the store's runs name."""
    from simcards.core.runs import list_runs

    group = command()
    known: dict[str, list[str]] = {"report": [game.name for game in games()]}
    for game in games():
        sub = getattr(group, "commands", {}).get(game.name)  # type: ignore[attr-defined]
        for name in getattr(sub, "commands", {}):
            known.setdefault(name, []).append(game.name)
    for run in list_runs(root):
        known.setdefault(run.command, []).append(run.game)
    return known


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
    from simcards.core.runs import (
        check_command,
        human_size,
        parse_age,
        remove_runs,
        select_runs,
    )
    from simcards.core.store import store_root

    root = store_root(store)
    if root is None:
        raise UsageError("no run store (--store none)")
    age = parse_age(older_than) if older_than is not None else None
    if command is not None:
        check_command(command, _known_commands(root))
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


def _command_opts(cmd: object) -> list[str]:
    """Every long option of a click command, ``--help`` included."""
    opts = [o for p in getattr(cmd, "params", [])
            for o in (*getattr(p, "opts", ()), *getattr(p, "secondary_opts", ()))]
    return [o for o in opts if o.startswith("--")] + ["--help"]


def _no_such_option(exc: Exception) -> str:
    """click's "No such option" with a hint that helps.

    click proposes whatever option looks a little alike (``--target`` on ``ronda hands``
    drew "Possible options: --store"); here the sibling commands that do take the flag are
    named, else a near-certain typo is proposed, else the command's help.
    """
    from difflib import get_close_matches

    opt = str(getattr(exc, "option_name", ""))
    msg = f"No such option: {opt}"
    ctx = getattr(exc, "ctx", None)
    cmd = getattr(ctx, "command", None)
    if ctx is None or cmd is None:
        return msg
    chain = []
    c = ctx
    while c is not None and c.parent is not None:
        chain.append(c.info_name)
        c = c.parent
    where = " ".join(reversed(chain))
    group = getattr(getattr(ctx, "parent", None), "command", None)
    siblings = [name for name, sub in getattr(group, "commands", {}).items()
                if sub is not cmd and opt in _command_opts(sub)]
    close = get_close_matches(opt, _command_opts(cmd), n=1, cutoff=0.8)
    if siblings and where:
        group_path = " ".join(reversed(chain[1:]))  # "ronda" for "ronda hands"
        names = (siblings[0] if len(siblings) == 1
                 else ", ".join(siblings[:-1]) + " and " + siblings[-1])
        if close:  # a near-certain typo first (--hand on hands), then who takes the flag
            return (f"{msg} (did you mean {close[0]}? {opt} is an option of {group_path} "
                    f"{names})").replace("  ", " ")
        verb = "does" if len(siblings) == 1 else "do"
        return f"{msg} ({where} does not take it; {group_path} {names} {verb})".replace("  ", " ")
    if close:
        return f"{msg} (did you mean {close[0]}?)"
    return f"{msg} (see simcards {where + ' ' if where else ''}--help)"


def command() -> object:
    """The click command behind :data:`app`, with tidy flags in its help."""
    cmd = typer.main.get_command(app)
    _tidy_flags(cmd)
    plain_integer_options(cmd)
    return cmd


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status instead of raising for bad input.

    Usage errors are recognised by shape (``format_message`` and ``exit_code``) because typer
    raises either click's exception classes or its own copies of them, depending on version.
    """
    estimate_when_quiet(True)  # --json runs too say early when they will take minutes
    try:
        if _LOAD_ERROR is not None:
            raise _LOAD_ERROR
        args = expand_switches(sys.argv[1:] if argv is None else list(argv))
        code = command()(args=args, standalone_mode=False)  # type: ignore[operator]
        if code == 130:  # typer turns Ctrl-C outside any run store into a returned 130
            raise KeyboardInterrupt
    except UsageError as exc:  # one line, but the whole message
        return _fail(" ".join(line.strip() for line in str(exc).splitlines() if line.strip()))
    except Interrupted as exc:
        interrupts.report(str(exc))
        return 130
    except FileNotFoundError as exc:
        return _fail(f"file not found: {exc.filename}")
    except KeyboardInterrupt:
        interrupts.report("interrupted")
        return 130
    except Exception as exc:
        if caused_by_interrupt(exc):
            interrupts.report("interrupted")
            return 130
        name = type(exc).__name__
        if name == "NoArgsIsHelpError":
            return 0
        if name == "Abort":
            return _fail("interrupted")
        if name in ("KilledWorker", "CancelledError", "CommClosedError", "TimeoutError"):
            return _fail(f"cluster run failed ({name}): {' '.join(str(exc).split())[:300]}; "
                         "finished chunks are kept in the run store")
        if name == "NoSuchOption":
            return _fail(_no_such_option(exc))
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):
            return _fail(" ".join(exc.format_message().split()))
        if name == "Exit" and hasattr(exc, "exit_code"):
            return int(exc.exit_code)
        raise
    return 0


def run() -> None:
    """The ``simcards`` command. Ctrl-C ends it within two seconds with one line and exit
    status 130, whatever its workers are doing (:mod:`simcards.core.interrupts`)."""
    interrupts.arm()
    code = main()
    if code == 130:
        # Interrupted: the finished chunks are saved; stop every worker (terminated, killed
        # after a short grace) and end now rather than wait on a pool or spend a second or more
        # tearing down numba and the interpreter.
        interrupts.end_now(code)
    # Done: a Ctrl-C during the interpreter's teardown just ends it, without a traceback.
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(code)


if __name__ == "__main__":
    run()
