"""A reshaping of the code changes no number: the ``--json`` of every command in
``fixed_commands/commands.txt`` (every command of the three games, with rule options and
policies) equals what was recorded in ``fixed_commands/expected.json``.

When a number is meant to change, record again with ``python scripts/record_fixed_commands.py``
and say in the commit which commands moved and why."""

from __future__ import annotations

import contextlib
import io
import json
import shlex
from pathlib import Path

import pytest

from simcards.core.cli import main

HERE = Path(__file__).resolve().parent / "fixed_commands"


def commands() -> list[str]:
    """The command lines of the list, comments and blank lines skipped."""
    lines = (HERE / "commands.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def run(line: str) -> tuple[int, dict | None, str]:
    """Exit status, parsed ``--json`` and stderr of one command, run in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*shlex.split(line), "--json"])
    text = out.getvalue()
    return code, (json.loads(text) if code == 0 and text.strip() else None), err.getvalue()


def expected() -> dict[str, dict]:
    return json.loads((HERE / "expected.json").read_text())


def test_the_list_covers_every_command_of_every_game():
    played = {tuple(line.split()[:2]) for line in commands()}
    assert played == {("ronco", c) for c in ("rounds", "exact", "games", "best-threshold",
                                             "equilibrium")} | {
        ("ronda", c) for c in ("hands", "matches", "compare")} | {
        ("romi", c) for c in ("melds", "rounds", "games", "compare")}
    assert len(commands()) >= 30
    assert set(expected()) == set(commands())


@pytest.mark.parametrize("line", commands())
def test_command_json_is_unchanged(line):
    code, got, err = run(line)
    assert code == 0, err
    assert got == expected()[line]
