"""One Python API shape for every game: ``simcards.<game>.<command>`` is the function of that
name in ``simcards.<game>.api``, whatever modules of the game were imported before, and
importing the package alone imports no command, kernel or numba."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from simcards.core.registry import games


def _game_names() -> list[str]:
    return [g.name for g in games() if g.name != "toy"]


@pytest.mark.parametrize("game", _game_names())
def test_every_command_is_the_api_function_after_every_module_is_imported(game):
    code = f"""
import importlib, json, pkgutil
import simcards.{game} as pkg
for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
    importlib.import_module(info.name)
api = importlib.import_module("simcards.{game}.api")
print(json.dumps({{c: getattr(pkg, c) is getattr(api, c) for c in pkg.COMMANDS}}))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    same = json.loads(proc.stdout)
    assert same and all(same.values()), same


@pytest.mark.parametrize("game", _game_names())
def test_importing_a_game_package_is_light(game):
    code = (f"import sys, simcards.{game} as pkg; "
            f"print(sorted(m for m in sys.modules if m.startswith('simcards.{game}.') "
            "or m == 'numba'), sorted(set(pkg.COMMANDS) - set(dir(pkg))))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["[]", "[]"]
