"""Every game's environments and OpenSpiel games, checked by those libraries' own test suites
(PettingZoo's ``api_test`` and ``seed_test``, Gymnasium's ``check_env``, OpenSpiel's
``random_sim_test``) and by the hidden-information check, for a spread of each game's
options. A contract: a new game's tables are checked here without a line of its own."""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("pyspiel")

import pyspiel
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import simcards.openspiel  # noqa: F401  (registers the games)
from simcards.core.envs import table_game, table_refs
from simcards.core.errors import UsageError
from simcards.envs import seat_env

from .table_checks import hidden_information_leaks

CASES = {
    "ronda_v0": [{}, {"players": 3}, {"players": 4, "teams": "on", "mode": "classic"}],
    "ronda_match_v0": [{"target": 11}, {"players": 4, "teams": "on",
                                        "target_check": "immediate", "target": 11}],
    "ronco_v0": [{}, {"players": 2, "poroli": True}, {"players": 7, "deck": "french52",
                                                      "ties": "first"}],
    "ronco_game_v0": [{"players": 3, "lives": 2}, {"players": 4, "lives": 1,
                                                   "absolute_tie": "replay"}],
    "ronco_duel_v0": [{}, {"poroli": True, "deck": "french52", "cut_king": "blocked"}],
    "romi_v0": [{"players": 2}, {"players": 4}],
    "romi_game_v0": [{"players": 2, "rounds": 2}],
}
"""Options per environment: defaults and a spread of rules and table sizes."""

SLOW = {"romi_v0", "romi_game_v0", "ronda_match_v0"}
"""Environments whose games are long: fewer cycles."""

PARAMS = [(name, opts) for name, cases in CASES.items() for opts in cases]


def _ids(p: tuple[str, dict]) -> str:
    return p[0] + "".join(f"-{k}={v}" for k, v in p[1].items())


def test_every_registered_table_is_checked_here():
    assert set(CASES) == set(table_refs())


@pytest.fixture(params=PARAMS, ids=[_ids(p) for p in PARAMS])
def case(request):
    return request.param


def _module(name: str):
    return importlib.import_module(f"simcards.envs.{name}")


def test_pettingzoo_api_test(case):
    name, opts = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(_module(name).env(**opts), num_cycles=60 if name in SLOW else 400)


def test_pettingzoo_seed_test(case):
    name, opts = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: _module(name).env(**opts), num_cycles=60 if name in SLOW else 300)


def test_gymnasium_check_env_of_one_seat(case):
    name, opts = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(seat_env(name, **opts), skip_render_check=True)


def test_openspiel_random_sim_test(case):
    name, opts = case
    table = table_game(name)
    game = pyspiel.load_game(table.openspiel_name, opts)
    pyspiel.random_sim_test(game, num_sims=1 if name in SLOW else 4, serialize=False,
                            verbose=False)


def test_no_observation_carries_a_hidden_card(case):
    """I1/I2 (Ronda), R11 (Ronco), I3 (Römi): redealing every card a seat cannot see changes
    nothing in its observation vector, observation text or information text."""
    name, opts = case
    table = table_game(name)
    small = name in SLOW
    problems = hidden_information_leaks(table, table.setup(opts), random.Random(7),
                                        games=2 if small else 5, stops=2 if small else 4)
    assert problems == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_hidden_information_check_catches_a_leaky_observation(name, monkeypatch):
    """The check above is not blind: an observation that also shows the next seat's own
    observation (so his hidden cards) is caught."""
    table = table_game(name)
    setup = table.setup(CASES[name][0])
    cls = type(table.new_state(setup))
    honest = cls.observation

    def leaky(self, player, pending=()):
        mine = honest(self, player, pending)
        nxt = honest(self, (player + 1) % self.n_players)
        return np.concatenate([mine, nxt])

    monkeypatch.setattr(cls, "observation", leaky)
    problems = hidden_information_leaks(table, setup, random.Random(3), games=8, stops=2)
    assert any("observation vector changed" in p for p in problems)


@pytest.mark.parametrize("name", sorted(CASES))
def test_render_ansi_shows_the_table(name):
    env = _module(name).env(render_mode="ansi", **CASES[name][0])
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and len(text.splitlines()) >= 2


def test_unknown_environment_option_is_one_line_naming_it():
    with pytest.raises(UsageError, match="unknown option 'player'"):
        _module("ronda_v0").env(player=3)
    with pytest.raises(UsageError, match="players"):
        _module("ronda_v0").env(players=5)
    with pytest.raises(UsageError, match="unknown environment 'ronda_v9'"):
        seat_env("ronda_v9")


def test_commands_work_without_the_rl_extra():
    """The optional libraries are imported only by the environments and OpenSpiel modules:
    a command runs with all three made unimportable."""
    code = ("import sys\n"
            "for m in ('pettingzoo', 'gymnasium', 'pyspiel', 'open_spiel'):\n"
            "    sys.modules[m] = None\n"
            "from simcards.core.cli import run\n"
            "sys.argv = ['simcards', 'ronco', 'rounds', '--players', '3', '--rounds', '2000',"
            " '--json', '--store', 'none']\n"
            "run()\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert '"rounds"' in out.stdout
