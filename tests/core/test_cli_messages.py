"""What the commands print is what was meant: data verbatim (never read as markup or emoji
codes), and for bad input one whole line on stderr, exit status 2, before any work.

Most checks run the command line in this process (:func:`simcards.core.cli.main`); a command's
figures, where a check needs them, are replayed from the recorded ``--json`` of
``fixed_commands`` instead of being computed, so no kernel runs. Subprocesses are used only
where an environment variable must be set before the package is imported.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest

from simcards.core import runner
from simcards.core.cli import main
from simcards.core.cli_options import parse_count
from simcards.core.errors import UsageError
from simcards.core.store import RunStore

REPO = Path(__file__).resolve().parents[2]
RECORDED = json.loads((REPO / "tests" / "core" / "fixed_commands" / "expected.json")
                      .read_text())
"""The ``--json`` of every command of ``fixed_commands``: real outputs to print again."""
EMOJI_PRONE = "ismcts:100:0.5"
"""A policy name that rich would print as ``ismcts💯0.5`` (``:100:`` is an emoji code)."""
HINT = "pip install -e '.[rl]'"
"""Data with square brackets, which rich would read as a markup tag and drop."""


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], *parts: str) -> str:
    """``simcards ARGV`` exits with 2 and prints one line on stderr, nothing on stdout; the
    line contains every one of ``parts``. Returns the line."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("simcards: error: "), lines[0]
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


def _replay(monkeypatch: pytest.MonkeyPatch, api: Any, name: str, recorded: str,
            **changes: Any) -> None:
    """Make ``api.<name>`` answer the recorded JSON of command ``recorded``, with ``changes``
    to its keys, instead of computing."""
    out = {**RECORDED[recorded], **changes}

    def answer(*args: Any, **kwargs: Any) -> SimpleNamespace:
        return SimpleNamespace(to_dict=lambda: out, data=out)

    monkeypatch.setattr(api, name, answer)


def _simcards(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m simcards ARGS`` with ``env`` added, this checkout first on the path."""
    path = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "simcards", *args], capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": path, **env},
                          timeout=300, cwd=REPO)


# ------------------------------------------------------------------ data printed verbatim


def test_ronco_tables_print_policy_names_and_bracketed_data_verbatim(capsys, monkeypatch):
    from simcards.ronco import api

    recorded = "ronco rounds --players 4 --rounds 20k --workers 1"
    _replay(monkeypatch, api, "rounds", recorded,
            policies=[EMOJI_PRONE] * 4, rules={**RECORDED[recorded]["rules"], "deck": HINT})
    assert main(["ronco", "rounds", "--rounds", "20k", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count(EMOJI_PRONE) == 4 and HINT in out, out
    assert "💯" not in out


def test_ronda_tables_print_policy_names_verbatim(capsys, monkeypatch):
    from simcards.ronda import api

    _replay(monkeypatch, api, "hands", "ronda hands --hands 20k --workers 1",
            policies=[EMOJI_PRONE, "greedy"])
    assert main(["ronda", "hands", "--hands", "20k", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert f"{EMOJI_PRONE} " in out and "💯" not in out, out
    _replay(monkeypatch, api, "compare", "ronda compare lookahead:1 greedy --deals 500 "
            "--workers 1", policy_a=EMOJI_PRONE, policy_b=HINT)
    assert main(["ronda", "compare", "lookahead:1", "greedy", "--deals", "500"]) == 0
    out = capsys.readouterr().out
    assert f"{EMOJI_PRONE} (A) against {HINT} (B)" in " ".join(out.split()), out


def test_ronda_play_prints_a_bot_policy_name_verbatim(capsys, monkeypatch):
    """``ronda play`` writes markup of its own (the suits' colours): the policies it shows
    are escaped, and no emoji code is read."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    assert main(["ronda", "play", "--policies", "human,ismcts-match:100", "--seed", "1",
                 "--dealer", "1"]) == 0
    out = capsys.readouterr().out
    assert "Seat 1 (ismcts-match:100:" in out and "💯" not in out, out


def test_romi_tables_print_policy_names_and_bracketed_data_verbatim(capsys, monkeypatch):
    from simcards.romi import api

    _replay(monkeypatch, api, "compare", "romi compare expert greedy --players 3 --rounds 2 "
            "--deals 100 --workers 1", a=EMOJI_PRONE, b=HINT)
    assert main(["romi", "compare", "expert", "greedy", "--deals", "100"]) == 0
    out = capsys.readouterr().out
    assert f"{EMOJI_PRONE} (A) v {HINT} (B)" in " ".join(out.split()), out
    assert "💯" not in out


def test_progress_bar_shows_its_label_verbatim(capsys):
    from rich.console import Console

    from simcards.core.progress import Progress

    bar = Progress(10, f"Ronda hands {EMOJI_PRONE} {HINT}")
    bar._terminal = True  # the bar a terminal gets
    bar.start -= 60  # past the second before it shows
    buf = io.StringIO()
    try:
        bar.advance(1)
        Console(file=buf, width=200).print(bar._bar.get_renderable())
    finally:
        bar.close()
    assert f"{EMOJI_PRONE} {HINT}" in buf.getvalue(), buf.getvalue()


# ------------------------------------------------------------------ bad input, one line


def test_an_unknown_game_module_in_the_environment_is_one_line_and_exit_2():
    done = _simcards({"SIMCARDS_GAMES": "no.such.module"}, "ronco", "rounds")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simcards: error: "), done.stderr
    assert "'no.such.module'" in lines[0] and "SIMCARDS_GAMES" in lines[0]


@pytest.mark.parametrize("text", ["1__000", "_1000", "1000_", "١٠٠٠", "１０００", " 1000", "+1000"])
def test_a_count_in_any_but_the_plain_form_is_refused(text):
    with pytest.raises(UsageError, match=f"--rounds must be a count .*got {re.escape(repr(text))}"):
        parse_count(text, "--rounds")


@pytest.mark.parametrize("text", ["1_000", "1000", "1e3", "1k", "0.001M"])
def test_the_plain_forms_of_a_count_are_read(text):
    assert parse_count(text, "--rounds") == 1000


@pytest.mark.parametrize("text", ["1__000", "١٠٠٠", "１０００"])
def test_a_count_option_refuses_non_plain_digits_on_the_command_line(capsys, text):
    # --workers 0 is refused later, so that the old reading would stop there, not compute.
    _one_line_error(capsys, ["ronco", "rounds", "--rounds", text, "--workers", "0"],
                    "--rounds must be a count", repr(text))


@pytest.mark.parametrize(("argv", "flag"), [
    (["ronda", "hands", "--players", "３"], "--players"),
    (["ronda", "hands", "--players", " 3"], "--players"),
    (["ronda", "hands", "--players", "+3"], "--players"),
    (["ronda", "hands", "--players", "0_3"], None),
    (["ronco", "games", "--lives", "1__0"], "--lives"),
    (["ronco", "rounds", "--seed", "١٢"], "--seed"),
    (["romi", "rounds", "--players", "٣"], "--players"),
])
def test_integer_options_take_the_same_plain_form_as_counts(capsys, argv, flag):
    """``--players ３`` was refused while ``--rounds １０００`` was taken: every integer option
    now reads ASCII digits with single underscores, as counts do (``0_3`` is 3)."""
    # --workers 0 is refused after the options are read: a value the old parser took stops
    # there instead of computing.
    if flag is None:
        _one_line_error(capsys, [*argv, "--workers", "0"], "--workers must be at least 1")
    else:
        _one_line_error(capsys, [*argv, "--workers", "0"], f"Invalid value for '{flag}'",
                        "ASCII digits")


def test_a_policy_parameter_takes_the_same_plain_integer_form(capsys):
    _one_line_error(capsys, ["ronda", "hands", "--policies", "ismcts:١٠٠", "--workers", "0"],
                    "policy ismcts: N must be an integer, got '١٠٠'")


@pytest.mark.parametrize("blocker", ["file", "under-a-file"])
def test_an_unusable_cache_folder_is_said_once_on_stderr(tmp_path, blocker):
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    cache = a_file if blocker == "file" else a_file / "sub"
    done = _simcards({"SIMCARDS_CACHE": str(cache), "XDG_CACHE_HOME": str(tmp_path / "xdg")},
                     "--version")
    assert done.returncode == 0 and done.stdout.strip(), done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"SIMCARDS_CACHE={cache}" in lines[0] and "not usable" in lines[0]
    assert f"{tmp_path / 'xdg' / 'simcards'} instead" in lines[0]


def test_workers_beyond_what_memory_holds_are_refused_before_any_work(capsys, monkeypatch,
                                                                       tmp_path):
    monkeypatch.setattr(runner, "total_memory", lambda: 8 * 2**30, raising=False)
    blocked = tmp_path / "store-is-a-file"  # the old code stops at the store, not computing
    blocked.write_text("x")
    _one_line_error(capsys, ["ronco", "rounds", "--rounds", "1000", "--workers", "1024",
                             "--store", str(blocked)],
                    "--workers 1024 needs about", "this machine has 8 GiB",
                    "use at most --workers 44")


def test_workers_on_a_cluster_stay_a_cap_whatever_this_machine_holds(monkeypatch):
    monkeypatch.setattr(runner, "total_memory", lambda: 8 * 2**30, raising=False)
    assert runner.check_workers(1024, local=False) == 1024
    assert runner.check_workers(44, local=True) == 44
    assert runner.check_workers(None, local=True) <= 44
    with pytest.raises(UsageError, match="use at most --workers 44"):
        runner.check_workers(45, local=True)


def test_openspiel_flag_without_openspiel_is_refused_naming_the_extra(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel now fails

    def solving(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the round was solved before --openspiel was checked")

    from simcards.ronco import behaviour_exact

    monkeypatch.setattr(behaviour_exact, "solve", solving)
    _one_line_error(capsys, ["ronco", "equilibrium", "--players", "2", "--exact", "--family",
                             "all", "--ties", "first", "--openspiel"],
                    "--openspiel", "pip install -e '.[rl]'")


def test_install_hints_name_the_clone_not_an_unpublished_package():
    offending = [f"{path.relative_to(REPO)}:{n}"
                 for path in sorted((REPO / "simcards").rglob("*.py"))
                 for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
                 if "simcards[rl]" in line or "simcards[cluster]" in line]
    assert offending == []


def test_a_switch_followed_by_a_policy_says_the_switch_takes_a_value(capsys):
    line = _one_line_error(capsys, ["ronda", "compare", "--players", "4", "--teams",
                                    "lookahead:1", "greedy"],
                           "--teams must be one of off|on, got 'lookahead:1'")
    assert "Missing argument" not in line


def test_a_store_whose_chunks_folder_is_a_file_says_so_naming_it(tmp_path):
    store = RunStore(tmp_path / "runs", {"game": "ronco", "command": "rounds", "seed": 1})
    store.path.mkdir(parents=True)
    (store.path / "chunks").write_text("not a folder")
    with pytest.raises(UsageError) as caught:
        store.create()
    message = str(caught.value)
    assert f"{store.path / 'chunks'} is a file" in message and "File exists" not in message
    assert len(message.splitlines()) == 1


def test_a_damaged_chunk_is_reported_whole_on_one_line(tmp_path, capsys):
    deep = tmp_path.joinpath(*["a-rather-long-folder-name"] * 4)
    store = RunStore(deep, {"game": "ronco", "command": "rounds", "seed": 1})
    store.create()
    store.save_chunk((0, 0), {"n": np.arange(3, dtype=np.int64)})
    chunk = next(store.chunk_dir.glob("b*.parquet"))
    chunk.write_bytes(b"garbage")
    try:
        pq.read_table(chunk)
    except Exception as exc:
        reason = str(exc).rsplit("': ", 1)[-1]  # pyarrow's why, after the file's path
    capsys.readouterr()
    assert store.resume(None) == {}
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert f"{chunk.name} (unreadable: " in lines[0] and lines[0].endswith(f"{reason})"), lines[0]


def test_a_usage_error_of_several_lines_is_printed_whole_on_one(capsys, monkeypatch):
    from simcards.ronco import api

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise UsageError("--rounds is wrong\nbecause of this")

    monkeypatch.setattr(api, "rounds", refuse)
    _one_line_error(capsys, ["ronco", "rounds"], "--rounds is wrong because of this")


def test_the_command_line_runs_without_click_installed() -> None:
    """The package's own dependencies are all a user has (``pip install -e .``): typer there
    brings its own copy of click, not click itself, so nothing may import ``click``. Here
    ``import click`` is made to fail, as it does in such an environment, and an integer option
    is still read and refused in the one plain form."""
    code = ("import sys; sys.modules['click'] = None\n"
            "from simcards.core.cli import main\n"
            "raise SystemExit(main(['ronco', 'rounds', '--players', '\\uff13']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("simcards: error: ") and "ASCII digits" in done.stderr
