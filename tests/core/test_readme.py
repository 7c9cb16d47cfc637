"""The README lists every JSON key each command prints, the documented limits, and only speeds
that a benchmark measured (in blocks written from its saved results)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import simcards.ronco
import simcards.ronda

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


def _keys(d: dict) -> set[str]:
    return set(d) - {"cluster"}


def test_readme_lists_every_json_key_of_every_command() -> None:
    outputs = [
        simcards.ronco.rounds(rounds=1000, workers=1, store="none").to_dict(),
        simcards.ronco.exact(players=3).to_dict(),
        simcards.ronco.games(players=3, lives=2, games=1000, workers=1, store="none").to_dict(),
        simcards.ronco.games(players=3, lives=2, exact=True).to_dict(),
    ]
    best = simcards.ronco.best_threshold(players="3", lives=1, first_stage=2048,
                                         max_games=2048, max_iterations=0, gain_games=2048,
                                         workers=1, store="none").to_dict()
    keys = set().union(*(_keys(o) for o in outputs), _keys(best), best["rows"][0])
    missing = sorted(k for k in keys if f"`{k}`" not in README)
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


def test_readme_lists_every_json_key_of_every_ronda_command() -> None:
    common = {"workers": 1, "store": "none"}
    outputs = [
        simcards.ronda.hands(hands=500, **common).to_dict(),
        simcards.ronda.matches(matches=200, **common).to_dict(),
        simcards.ronda.compare("greedy", "random", deals=100, **common).to_dict(),
    ]
    keys = set().union(*(_nested_keys(o) for o in outputs))
    missing = sorted(k for k in keys if f"`{k}`" not in README)
    assert not missing, missing
    for command in ("simcards ronda hands", "simcards ronda matches", "simcards ronda compare",
                    "simcards ronda play", "simcards.ronda.hands("):
        assert command in README, command


def test_readme_lists_every_json_key_of_every_romi_command() -> None:
    from simcards.romi import api

    out = api.melds(hand="Ah 2h 3h X 9s").to_dict()
    keys = _nested_keys(out) | set(out["hands"][0])
    common = {"workers": 1, "store": "none"}
    keys |= _nested_keys(api.rounds(players=2, rounds=4, **common).to_dict())
    keys |= _nested_keys(api.games(players=2, rounds=1, games=2, **common).to_dict())
    keys |= _nested_keys(api.compare("rummy:4", "greedy", players=2, rounds=1, deals=2,
                                     **common).to_dict())
    missing = sorted(k for k in keys if f"`{k}`" not in README)
    assert not missing, missing
    for command in ("simcards romi melds", "simcards romi rounds", "simcards romi games",
                    "simcards romi compare"):
        assert command in README, command


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


def test_readme_documents_count_maxima_seed_range_and_suffixes() -> None:
    for text in ("at most 1e12", "at most 1e10", "at most 1e9", "0 .. 2**63-1", "`k` = 1,000",
                 "`--hands` at most 1e10", "`--matches` and `--deals` at most 1e9",
                 "Ronda", "simcards --version", "simcards.ronco.rounds("):
        assert text in README, text


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
