"""One Python API shape for every game: ``simcards.<game>.<command>`` is the function of that
name in ``simcards.<game>.api``, whatever modules of the game were imported before, and
importing the package alone imports no command, kernel or numba. Each check runs in a fresh
interpreter, for all games at once."""

from __future__ import annotations

import json
import subprocess
import sys

from simcards.core.registry import games

GAMES = [g.name for g in games() if g.name != "toy"]


def _python(code: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_every_command_is_the_api_function_after_every_module_is_imported():
    same = _python(f"""
import importlib, json, pkgutil
out = {{}}
for game in {GAMES!r}:
    pkg = importlib.import_module("simcards." + game)
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        importlib.import_module(info.name)
    api = importlib.import_module(pkg.__name__ + ".api")
    out[game] = {{c: getattr(pkg, c) is getattr(api, c) for c in pkg.COMMANDS}}
print(json.dumps(out))
""")
    assert set(same) == set(GAMES)
    for game, commands in same.items():
        assert commands and all(commands.values()), (game, commands)


def test_importing_a_game_package_is_light():
    loaded = _python(f"""
import importlib, json, sys
out = {{}}
for game in {GAMES!r}:
    pkg = importlib.import_module("simcards." + game)
    out[game] = [sorted(m for m in sys.modules if m.startswith(pkg.__name__ + ".")
                        or m == "numba"), sorted(set(pkg.COMMANDS) - set(dir(pkg)))]
print(json.dumps(out))
""")
    assert loaded == {game: [[], []] for game in GAMES}
