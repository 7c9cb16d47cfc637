"""The README names every command, states only speeds that a benchmark measured (in blocks
written from its saved results), and every example it shows runs (at a tiny size), so that none
can go stale unnoticed. What the README leaves to other places is checked there: every JSON key
each command prints is explained in its game's ``api`` module docstring, and every count's
maximum is stated in its ``--help``."""

from __future__ import annotations

import ast
import io
import itertools
import re
import shlex
import shutil
from pathlib import Path

import pytest

import simcards.ronco
import simcards.ronda

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def _api_doc(game: str) -> str:
    """The docstring of ``simcards.<game>.api``, where the keys of its commands' answers are
    explained."""
    import importlib

    doc = importlib.import_module(f"simcards.{game}.api").__doc__
    assert doc
    return doc


def _keys(d: dict) -> set[str]:
    return set(d) - {"cluster"}


def test_the_api_docstring_explains_every_json_key_of_every_ronco_command(tmp_path) -> None:
    chart = simcards.ronco.chart(players=3, policy="threshold", out=str(tmp_path / "c.csv"))
    advice = simcards.ronco.advise(players=3, seat=2, card="4c", before="keep,swap",
                                   dealt="4o", lives=[1, 1, 2])
    outputs = [
        chart.to_dict(), *chart.data["positions"], advice.to_dict(), *advice.data["moves"],
        simcards.ronco.rounds(rounds=1000, workers=1, store="none").to_dict(),
        simcards.ronco.exact(players=3).to_dict(),
        simcards.ronco.games(players=3, lives=2, games=1000, workers=1, store="none").to_dict(),
        simcards.ronco.games(players=3, lives=2, exact=True).to_dict(),
    ]
    best = simcards.ronco.best_threshold(players="3", lives=1, first_stage=2048,
                                         max_games=2048, max_iterations=0, gain_games=2048,
                                         workers=1, store="none").to_dict()
    keys = set().union(*(_keys(o) for o in outputs), _keys(best), best["rows"][0])
    doc = _api_doc("ronco")
    missing = sorted(k for k in keys if f"``{k}``" not in doc)
    assert not missing, missing


def _nested_keys(d: dict) -> set[str]:
    """Every key of a JSON object, at any depth, less the quantile labels (``5%``)."""
    keys: set[str] = set()
    for k, v in d.items():
        if k != "cluster" and not k.endswith("%"):
            keys.add(k)
            if isinstance(v, dict):
                keys |= _nested_keys(v)
    return keys


def test_the_api_docstring_explains_every_json_key_of_every_ronda_command() -> None:
    common = {"workers": 1, "store": "none"}
    outputs = [
        simcards.ronda.hands(hands=500, **common).to_dict(),
        simcards.ronda.matches(matches=200, **common).to_dict(),
        simcards.ronda.compare("greedy", "random", deals=100, **common).to_dict(),
    ]
    keys = set().union(*(_nested_keys(o) for o in outputs))
    doc = _api_doc("ronda")
    missing = sorted(k for k in keys if f"``{k}``" not in doc)
    assert not missing, missing


def test_the_api_docstring_explains_every_json_key_of_every_romi_command() -> None:
    from simcards.romi import api

    out = api.melds(hand="Ah 2h 3h X 9s").to_dict()
    keys = _nested_keys(out) | set(out["hands"][0])
    keys |= _nested_keys(api.advise(hand="Ah 2h 3h 4h Ks Kh Kd 7c 8c 9c Tc Jc Qc 5s",
                                    discard="2d", cut="5h", opened=False, others="14",
                                    others_opened="no", turn=4).to_dict())
    common = {"workers": 1, "store": "none"}
    keys |= _nested_keys(api.rounds(players=2, rounds=4, **common).to_dict())
    keys |= _nested_keys(api.games(players=2, rounds=1, games=2, **common).to_dict())
    keys |= _nested_keys(api.compare("rummy:4", "greedy", players=2, rounds=1, deals=2,
                                     **common).to_dict())
    doc = _api_doc("romi")
    missing = sorted(k for k in keys if f"``{k}``" not in doc)
    assert not missing, missing


def _python_example(game: str) -> str:
    """The README's Python example of ``game``: from its ``import simcards.<game>`` line to the
    next blank line after its calls (the end of the block or the next game's import)."""
    block = re.search(r"```python\n(.*?)```", README, re.S)
    assert block is not None
    text = block.group(1)
    start = text.index(f"import simcards.{game}\n")
    end = text.find("\nimport simcards.", start + 1)
    return text[start:] if end < 0 else text[start:end]


def test_readme_romi_python_example_runs_and_gives_a_result_of_every_kind() -> None:
    """The Römi example, run as written with its counts made small (one worker, no store)."""
    import pandas as pd

    code = _python_example("romi")
    small = {'rounds="20k"': 'rounds=200, workers=1, store="none"',
             'deals="2k"': 'deals=20, workers=1, store="none"'}
    for big, tiny in small.items():
        assert big in code, big
        code = code.replace(big, tiny)
    namespace: dict = {}
    values = []
    for statement in ast.parse(code).body:  # the import, then one call a statement
        if isinstance(statement, ast.Expr):
            values.append(eval(compile(ast.Expression(statement.value), "README", "eval"),
                               namespace))
        else:
            exec(compile(ast.Module([statement], []), "README", "exec"), namespace)
    assert len(values) == 3
    rounds, score_diff, melds = values
    assert isinstance(rounds, pd.DataFrame) and len(rounds) == 4
    assert list(rounds["policy"]) == ["greedy", "rummy:4", "threshold:70", "greedy"]
    assert set(score_diff) == {"mean", "ci"}
    assert list(melds["best_value"]) == [34] and list(melds["can_go_out"]) == [True]


def _leaf_commands(cmd=None, path=()):
    """Every command of the ``simcards`` command line as ``(path, click command)``."""
    from simcards.core.cli import command

    cmd = command() if cmd is None else cmd
    subs = getattr(cmd, "commands", None)
    if not subs:
        yield path, cmd
        return
    for name, sub in subs.items():
        yield from _leaf_commands(sub, (*path, name))


def _readme_command_names(text: str = README) -> set[tuple[str, ...]]:
    """The commands the README's table of commands names: ``simcards ronda compare`` /
    ``ladder`` in one row names ``ronda compare`` and ``ronda ladder``."""
    names: set[tuple[str, ...]] = set()
    for row in (line for line in text.splitlines() if line.startswith("| `simcards ")):
        cell = row.split("|")[1]
        first = re.match(r"\s*`simcards ((?:[\w-]+ )*)([\w-]+)`", cell)
        assert first is not None, row
        group = tuple(first.group(1).split())
        names.add((*group, first.group(2)))
        names |= {(*group, more) for more in re.findall(r"/ `([\w-]+)`", cell)}
    return names


def test_the_readme_names_every_command() -> None:
    """The package's own commands: a game plugged in by another test in the same process (the
    toy game, the broken one) is not the README's to name."""
    plugged = {"toy", "broken"}  # tests/toygame, tests/brokengame (tests/contract.py)
    commands = {path for path, _ in _leaf_commands() if path[0] not in plugged}
    named = _readme_command_names() | ({("version",)} if "simcards --version" in README else set())
    assert commands <= named, sorted(commands - named)
    assert named <= commands, sorted(named - commands)


def test_readme_documents_the_seed_range_and_count_suffixes() -> None:
    for text in ("0 .. 2**63-1", "`k` = 1,000", "`M` = 1,000,000", "`G` = 1,000,000,000",
                 "Ronda", "simcards --version", "simcards.ronco.rounds(", "--help"):
        assert text in README, text


COUNT_MAXIMA = {
    ("ronco", "rounds", "--rounds"): "at most 1e12",
    ("ronco", "games", "--games"): "at most 1e10",
    ("ronco", "best-threshold", "--first-stage"): "at most 1e9",
    ("ronco", "best-threshold", "--max-games"): "at most 1e9",
    ("ronco", "best-threshold", "--gain-games"): "at most 1e9",
    ("ronda", "hands", "--hands"): "at most 1e10",
    ("ronda", "matches", "--matches"): "at most 1e9",
    ("ronda", "compare", "--deals"): "at most 1e9",
    ("ronda", "ladder", "--deals"): "at most 1e9",
    ("romi", "rounds", "--rounds"): "at most 1e9",
    ("romi", "games", "--games"): "at most 1e8",
    ("romi", "games", "--rounds"): "1 .. 100",
    ("romi", "compare", "--deals"): "at most 1e8",
    ("romi", "compare", "--rounds"): "1 .. 100",
    ("romi", "ladder", "--deals"): "at most 1e8",
    ("romi", "ladder", "--rounds"): "1 .. 100",
}
"""The maximum of each count, as its ``--help`` states it (``--min-games`` may not exceed
``--max-games``). The README says only that each count has one, stated in ``--help``."""


def test_every_count_states_its_maximum_in_its_help() -> None:
    commands = dict(_leaf_commands())
    for (game, name, flag), text in COUNT_MAXIMA.items():
        (param,) = [p for p in commands[(game, name)].params if flag in p.opts]
        assert text in (param.help or ""), (game, name, flag, param.help)
    # Every count flag the commands take is in the table (a count's help gives the suffixes).
    counts = {(*path, o) for path, cmd in commands.items() for p in cmd.params
              if "k = 1,000" in (getattr(p, "help", None) or "") for o in p.opts}
    assert counts <= set(COUNT_MAXIMA), sorted(counts - set(COUNT_MAXIMA))


def _speeds_module():
    """``scripts/update_readme_speeds.py``, loaded by path (``scripts`` is not a package)."""
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "scripts" / "update_readme_speeds.py"
    spec = importlib.util.spec_from_file_location("update_readme_speeds", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_RATE = re.compile(r"\d[\d,.]*\s*(?:k|M)?\s+(?:[\w`:,()-]+\s+){0,5}?(?:a|per)\s+second"
                   r"|\d[\d,.]*\s*(?:k|M)?\s*(?:\w+)?/s\b")
_DURATION = re.compile(r"\b\d[\d,.]*(?:\s*ms|\s+(?:s|seconds?|minutes?))\b")
SETTINGS = {"60 s", "0.5 s"}
"""Durations the README states that are settings or advice, not measurements: the scheduler
wait and the chunk length to aim for."""


def speed_figures(text: str) -> list[str]:
    """Every measured speed or duration stated outside a generated speeds block."""
    outside = _speeds_module().BLOCK.sub("", text)
    flat = " ".join(outside.split())
    found = [m.group(0) for m in _RATE.finditer(flat)]
    found += [m.group(0) for m in _DURATION.finditer(flat) if m.group(0) not in SETTINGS]
    return found


def test_every_speed_in_the_readme_is_in_a_block_written_from_benchmark_results() -> None:
    assert speed_figures(README) == []
    # The check sees figures as the README used to state them.
    assert speed_figures("one core: about 35,000 greedy hands\na second, about 290 with one") \
        == ["35,000 greedy hands a second"]
    assert speed_figures("under a second up to 7 players, about 3\ns at 8") == ["3 s"]
    assert speed_figures("the kernel: 539,000 hands/s") == ["539,000 hands/s"]


def test_readme_speed_blocks_are_what_the_saved_benchmark_results_give() -> None:
    speeds = _speeds_module()
    names = [m.group("name") for m in speeds.BLOCK.finditer(README)]
    assert names and set(names) <= set(speeds.BLOCKS), names
    assert speeds.render(README) == README, "run python scripts/update_readme_speeds.py"
    for name in names:
        block = next(m.group("body") for m in speeds.BLOCK.finditer(README)
                     if m.group("name") == name)
        assert "scripts/bench_" in block and "measured 20" in block, block


# Every example the README shows, run: the ``simcards`` lines of its command blocks at a tiny
# size, its documented error lines exactly, and its Python blocks with their counts made small.

BLOCKS = re.compile(r"```(\w*)\n(.*?)```", re.S)

TINY_COUNTS = {
    ("ronco", "rounds"): {"--rounds": "1000"},
    ("ronco", "games"): {"--games": "8"},
    ("ronco", "best-threshold"): {"--first-stage": "256", "--max-games": "256",
                                  "--min-games": "256", "--gain-games": "0",
                                  "--max-iterations": "0"},
    ("ronda", "hands"): {"--hands": "50"},
    ("ronda", "matches"): {"--matches": "4"},
    ("ronda", "compare"): {"--deals": "2"},
    ("ronda", "ladder"): {"--deals": "2"},
    ("romi", "rounds"): {"--rounds": "4"},
    ("romi", "games"): {"--games": "2", "--rounds": "1"},
    ("romi", "compare"): {"--deals": "2", "--rounds": "1"},
    ("romi", "ladder"): {"--deals": "2", "--rounds": "1"},
}
"""Per command, the count flags set (replaced, or added where the README leaves the default)
to a size that runs in a moment; the rest of each command is run as written."""


SHELL = {"", "sh", "bash", "shell", "console"}
"""The languages of the README's command blocks (a Python block is run apart)."""

PREFIXES = ("$ ", ".venv/bin/", "python -m ", "python3 -m ")
"""What may stand before ``simcards`` on a command line of a block: a prompt, the
environment's path, ``python -m``."""


def _command_line(line: str) -> str | None:
    """``line`` as ``simcards ...`` when it is a command line of ``simcards``, else None
    (its output, another program); a trailing comment is left off."""
    command = re.split(r"\s+#", line)[0].strip()
    changed = True
    while changed:
        changed = False
        for prefix in PREFIXES:
            if command.startswith(prefix):
                command, changed = command[len(prefix):], True
    return " ".join(command.split()) if command.startswith("simcards ") else None


def documented_errors(text: str = README) -> list[tuple[str, str]]:
    """Each ``$ simcards ...`` line of a block with the error line the README shows under it."""
    pairs = []
    for lang, body in BLOCKS.findall(text):
        lines = body.splitlines()
        for line, after in itertools.pairwise(lines):
            command = _command_line(line)
            if lang in SHELL and command and after.startswith("simcards: "):
                pairs.append((command, after))
    return pairs


def readme_commands(text: str = README) -> list[str]:
    """Every ``simcards`` command line of the README's shell blocks (``simcards ...``,
    ``$ simcards ...``, ``python -m simcards ...``), its comment left off, except the ones
    shown with the error they print (:func:`documented_errors` runs those)."""
    errors = {command for command, _ in documented_errors(text)}
    out = []
    for lang, body in BLOCKS.findall(text):
        for line in body.splitlines():
            command = _command_line(line)
            if lang in SHELL and command and command not in errors:
                out.append(command)
    return out


def _takes(argv: list[str]) -> set[str]:
    """The long options of the command ``argv`` names."""
    from simcards.core.cli import command

    cmd = command()
    for word in argv:
        sub = getattr(cmd, "commands", {}).get(word)
        if sub is None:
            break
        cmd = sub
    return {o for p in getattr(cmd, "params", []) for o in p.opts if o.startswith("--")}


def tiny(command: str) -> list[str]:
    """``command`` as argv at a tiny size: its counts from :data:`TINY_COUNTS`, one worker."""
    argv = shlex.split(command)[1:]
    counts = {} if "--exact" in argv else TINY_COUNTS.get(tuple(argv[:2]), {})
    for flag, value in counts.items():
        if flag in argv:
            argv[argv.index(flag) + 1] = value
        else:
            argv += [flag, value]
    if "--workers" in _takes(argv) and "--workers" not in argv:
        argv += ["--workers", "1"]
    return argv


def test_the_readme_command_list_is_what_the_blocks_show() -> None:
    commands = readme_commands()
    assert len(commands) >= 6, commands
    assert "simcards ronda compare lookahead:1 greedy --players 2 --deals 2k" in commands
    # One command of each game, at least, in the tour.
    assert {c.split()[1] for c in commands} >= {"ronco", "ronda", "romi"}, commands
    assert _command_line("$ python -m simcards ronco exact --players 3  # exact") == \
        "simcards ronco exact --players 3"
    assert _command_line("make test") is None
    assert tiny("simcards romi games --players 3 --rounds 7 --games 2k --json") == \
        ["romi", "games", "--players", "3", "--rounds", "1", "--games", "2", "--json",
         "--workers", "1"]


@pytest.mark.parametrize("command", readme_commands())
def test_every_readme_command_runs_as_written_at_a_tiny_size(command: str, tmp_path, monkeypatch,
                                                             capsys) -> None:
    """Exit status 0, run in-process on one worker with the run store in a temporary folder;
    an interactive command plays from a scripted terminal that quits at once."""
    from simcards.core.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "hands.txt").write_text("Ah 2h 3h 7c 7d 7s X\n# a comment\n6h 7h 8h 9h\n")
    shutil.copytree(ROOT / "scripts" / "strategies", tmp_path / "scripts" / "strategies")
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    argv = tiny(command)
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 0, f"{' '.join(argv)}: exit {code}\n{captured.err[-2000:]}"
    assert captured.out.strip(), "printed nothing"


def test_every_documented_error_line_is_what_the_command_prints(capsys) -> None:
    from simcards.core.cli import main

    pairs = documented_errors()
    assert pairs, "the README shows no error example"
    for command, line in pairs:
        assert main(shlex.split(command)[1:]) == 2, command
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err == line + "\n", (command, captured.err)


PYTHON_SMALL = {
    'rounds="10M")': 'rounds=1000, workers=1, store="none")',
    'hands="1M")': 'hands=50, workers=1, store="none")',
    'deals="20k")': 'deals=2, workers=1, store="none")',
    'rounds="20k")': 'rounds=4, workers=1, store="none")',
    'deals="2k")': 'deals=2, rounds=1, workers=1, store="none")',
}
"""The counts of the README's Python calls, made small; every one must still be in the text."""


def _python_blocks() -> list[str]:
    return [body for lang, body in BLOCKS.findall(README) if lang == "python"]


def test_the_readme_python_api_block_runs_with_its_counts_made_small(tmp_path,
                                                                     monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code = _python_blocks()[0]
    assert "import simcards.ronco" in code
    for big, small in PYTHON_SMALL.items():
        assert big in code, big
        code = code.replace(big, small)
    exec(compile(code, "README", "exec"), {})


def test_the_readme_environment_block_runs_as_written(capsys) -> None:
    """As written, OpenSpiel included; PettingZoo keeps an agent's last info only until it
    removes the agent, so the block reads it from ``env.last()``."""
    pytest.importorskip("pettingzoo")
    pytest.importorskip("pyspiel")
    code = next(b for b in _python_blocks() if "seat_env" in b)
    namespace: dict = {}
    exec(compile(code, "README", "exec"), namespace)
    printed = capsys.readouterr().out
    assert "points_by_source" in printed, printed
    assert namespace["game"].num_players() == 3
