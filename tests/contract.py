"""The contract every game passes without a line of its own: the checks behind
``tests/core/test_contract.py``, written as plain functions of a game so that a test can also
hold them against a game built to break them.

A game takes part by naming, in its :class:`~simcards.core.registry.Game`, an ``example``
Monte Carlo command that runs in a few seconds and several chunks, and a long form of it
(``example_long``). Each check raises ``AssertionError`` saying what the game got wrong.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from importlib import import_module
from pathlib import Path
from typing import Any

from simcards.core.cli import main
from simcards.core.registry import Game, game_module, games
from simcards.core.store import RunStore


def game_named(name: str) -> Game:
    return next(g for g in games() if g.name == name)


def with_cli(game: Game) -> Game:
    """``game`` with its command group in this process's CLI. The CLI adds every game
    registered when it is imported; a game loaded later through ``SIMCARDS_GAMES`` (as a test
    loads one) is added here, as the CLI would have added it at start."""
    from simcards.core import cli

    if all(group.name != game.name for group in cli.app.registered_groups):
        cli.app.add_typer(game.app(), name=game.name, help=game.help)
    return game


def run(argv: list[str]) -> tuple[int, str, str]:
    """``simcards ARGV`` in this process: exit status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _json(game: Game, extra: list[str]) -> dict[str, Any]:
    code, out, err = run([game.name, *game.example, *extra, "--json"])
    assert code == 0, f"{game.name} {' '.join(game.example)} failed: {err.strip()[-500:]}"
    return json.loads(out)


def same_numbers_any_workers(game: Game) -> None:
    """The same seed gives the same numbers with 1 and 2 worker processes."""
    one = _json(game, ["--workers", "1", "--store", "none"])
    two = _json(game, ["--workers", "2", "--store", "none"])
    assert one == two, f"{game.name}: 1 and 2 workers disagree"


def resumed_equals_uninterrupted(game: Game, store: Path) -> None:
    """A run interrupted after its first chunk and run again gives the uninterrupted answer,
    and computes only the chunks it had not kept."""
    whole = _json(game, ["--workers", "1", "--store", "none"])
    real_save = RunStore.save_chunk

    def save_then_interrupt(self, *args, **kwargs):
        real_save(self, *args, **kwargs)
        raise KeyboardInterrupt

    RunStore.save_chunk = save_then_interrupt
    try:
        code, _, err = run([game.name, *game.example, "--workers", "1", "--store", str(store),
                            "--json"])
    finally:
        RunStore.save_chunk = real_save
    assert code == 130, f"{game.name}: the interrupted run exited {code}: {err.strip()[-300:]}"
    assert len(err.strip().splitlines()) == 1, f"{game.name}: interrupt said {err!r}"
    again = _json(game, ["--workers", "1", "--store", str(store)])
    assert again == whole, f"{game.name}: the resumed run differs from the uninterrupted one"
    (manifest,) = store.glob("*/manifest.json")
    m = json.loads(manifest.read_text())
    assert m["status"] == "complete" and m["chunks_resumed"] == 1, m


def api_arguments(words: tuple[str, ...]) -> tuple[list[str], dict[str, Any]]:
    """``("compare", "a", "b", "--players", "3", "--deals", "2k")`` as the API call's
    positional and keyword arguments (the command word dropped; whole numbers as ints)."""
    args: list[str] = []
    kwargs: dict[str, Any] = {}
    rest = list(words[1:])
    while rest:
        word = rest.pop(0)
        if word.startswith("--"):
            value = rest.pop(0)
            kwargs[word[2:].replace("-", "_")] = int(value) if re.fullmatch(r"\d+", value) \
                else value
        else:
            args.append(word)
    return args, kwargs


def api_equals_json(game: Game) -> None:
    """``simcards.<game>.<command>(...)`` gives a result whose ``to_dict()`` is the command's
    ``--json`` and whose ``to_frame()`` is a non-empty table."""
    package = import_module(game_module(game.name) or "")
    command = game.example[0].replace("-", "_")
    assert command in getattr(package, "COMMANDS", ()), \
        f"{game.name}: {command} is not in the package's COMMANDS"
    args, kwargs = api_arguments(game.example)
    result = getattr(package, command)(*args, **kwargs, workers=1, store="none")
    cli = _json(game, ["--workers", "1", "--store", "none"])
    assert result.to_dict() == cli, f"{game.name}: the API's to_dict() differs from --json"
    frame = result.to_frame()
    assert len(frame) > 0 and len(frame.columns) > 1, f"{game.name}: empty to_frame()"


BAD_VALUES: list[tuple[list[str], str]] = [
    (["--seed", "-1"], "--seed"),
    (["--seed", "x"], "--seed"),
    (["--workers", "0"], "--workers"),
    (["--workers", "99999999999999999999"], "--workers"),
]
"""Flag values every Monte Carlo command refuses, and the flag its error line must name."""


def bad_values_are_one_line(game: Game) -> None:
    """A bad flag value is one error line naming the flag, exit status 2, nothing on stdout."""
    for extra, flag in BAD_VALUES:
        code, out, err = run([game.name, *game.example, *extra, "--json"])
        lines = err.strip().splitlines()
        assert code == 2 and out == "", f"{game.name} {extra}: exit {code}, stdout {out!r}"
        assert len(lines) == 1 and lines[0].startswith("simcards: error: "), \
            f"{game.name} {extra}: {err!r}"
        assert flag in lines[0], f"{game.name} {extra}: the error does not name {flag}"


def ctrl_c_stops_in_time(game: Game, store: Path) -> None:
    """Ctrl-C during the long form of the example stops it within 2 s with exit status 130 and
    one line, leaving no process behind (the harness of :mod:`tests.interrupting`)."""
    from tests.interrupting import interrupt

    seconds, messages, _ = interrupt([game.name, *game.example_long, "--workers", "2"], store,
                                     chunks=1)
    assert seconds < 2.0
    assert len(messages) == 1, messages


def extra_games_env(module: str) -> dict[str, str]:
    """The environment that loads a game living outside the package, in this process and in
    the processes it starts."""
    from simcards.games import GAMES

    if module in GAMES:
        return {}
    current = [m for m in os.environ.get("SIMCARDS_GAMES", "").split(",") if m]
    tests = str(Path(__file__).resolve().parent)  # where the outside games of the tests live
    path = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return {"SIMCARDS_GAMES": ",".join(dict.fromkeys([*current, module])),
            "PYTHONPATH": os.pathsep.join(dict.fromkeys([tests, *path]))}
