"""The contract every registered game passes, the toy game included, without a test of its
own: the same seed gives the same numbers for 1 and 2 workers; an interrupted and resumed
run equals an uninterrupted one; ``--json`` equals the API's ``.to_dict()``; a bad flag value
is one line and exit status 2; Ctrl-C stops within 2 s. A new game passes it by naming its
``example`` command in its ``Game``. The checks are in ``tests/contract.py``; the last test
holds them against a game built to break the contract."""

from __future__ import annotations

import pytest

from simcards.games import GAMES
from tests import contract

MODULES = [*GAMES, "toygame"]


@pytest.fixture(params=MODULES)
def game(request, monkeypatch):
    """Each game, loaded as a user would load it (an outside game through SIMCARDS_GAMES)."""
    for key, value in contract.extra_games_env(request.param).items():
        monkeypatch.setenv(key, value)
    from importlib import import_module

    return contract.with_cli(import_module(request.param).GAME)


def test_every_game_names_an_example_command(game):
    assert game.example and game.example_long
    assert game.example[0] == game.example_long[0]


def test_same_seed_same_numbers_for_one_and_two_workers(game):
    contract.same_numbers_any_workers(game)


def test_interrupted_and_resumed_run_equals_the_uninterrupted_one(game, tmp_path):
    contract.resumed_equals_uninterrupted(game, tmp_path / "store")


def test_json_equals_the_api_result(game):
    contract.api_equals_json(game)


def test_a_bad_flag_value_is_one_line_and_exit_2(game):
    contract.bad_values_are_one_line(game)


def test_ctrl_c_stops_within_two_seconds(game, tmp_path):
    contract.ctrl_c_stops_in_time(game, tmp_path / "store")


@pytest.fixture
def broken(monkeypatch):
    """A game whose chunks draw from an unseeded generator: a real slip (``default_rng()``
    instead of the chunk's own stream) that makes its numbers change from run to run."""
    for key, value in contract.extra_games_env("brokengame").items():
        monkeypatch.setenv(key, value)
    from brokengame import GAME

    return contract.with_cli(GAME)


def test_the_contract_catches_a_game_whose_numbers_are_not_reproducible(broken, tmp_path):
    with pytest.raises(AssertionError, match="1 and 2 workers disagree"):
        contract.same_numbers_any_workers(broken)
    with pytest.raises(AssertionError, match="resumed run differs"):
        contract.resumed_equals_uninterrupted(broken, tmp_path / "store")
    contract.bad_values_are_one_line(broken)  # what it does not break still passes
