"""Every function of every game's Python API takes the types its command line takes, as Python
values, and refuses anything else with a one-line ``UsageError`` naming the argument, before
any work.

The functions are those each game package exports (its ``COMMANDS``), so a new command is
swept as soon as it exists; each argument is tried with values of the wrong type for its kind,
the kinds being declared here by argument name, the same in every game. No call computes: the
entry points of every command's work are replaced by one that stops the call
(:func:`no_work`), so a value that got past the checks fails the test at once.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simcards.ronco
from simcards.core.errors import UsageError
from simcards.games import GAMES

FUNCTIONS = [(module.rsplit(".", 1)[1], name) for module in GAMES
             for name in importlib.import_module(module).COMMANDS]
"""(game, function) for every command of every game."""

KIND = {
    "players": "int", "lives": "int", "threshold": "int", "dealer_threshold": "int",
    "first_dealer": "int", "dealer": "int", "max_iterations": "int", "target": "int",
    "hands_to_win": "int", "open_min": "int", "ace_low_value": "int", "seed": "int",
    "workers": "int",
    "rounds": "count", "games": "count", "hands": "count", "matches": "count",
    "deals": "count", "first_stage": "count", "max_games": "count", "min_games": "count",
    "gain_games": "count",
    "keep_prob": "number", "z_drop": "number",
    "poroli": "bool", "exact": "bool", "openspiel": "bool", "swap_keeps_romi": "bool",
    "mixed": "bool",
    "progress": "bool",
    "teams": "switch",
    "policy": "text", "deck": "text", "cut_king": "text", "ties": "text",
    "absolute_tie": "text", "field": "text", "family": "text", "payoff": "text",
    "start": "text", "derba_chain": "text", "announce": "text", "announce_conflict": "text",
    "mode": "text", "target_check": "text", "scheduler": "text", "engine": "text",
    "card": "text", "dealt": "text", "before": "actions",
    "a": "policy", "b": "policy", "policies": "policies",
    "thresholds": "integers", "hand": "cards", "table": "melds", "file": "path",
    "store": "path", "out": "path",
    "seat": "int", "last_capturer": "int", "iterations": "int", "budget": "int", "c": "number",
    "pile": "cards", "previous": "text", "face_up": "text", "captured": "card groups",
    "position": "path", "announcements": "card groups", "deal_plays": "cards",
    "scores": "integers", "hands_won": "integers",
    "discard": "text", "cut": "text", "opened": "bool", "others": "integers",
    "others_opened": "text", "turn": "int", "drawn": "text", "samples": "int",
}
"""The kind of each argument, by name: the same name takes the same types everywhere."""

KIND_OF = {
    ("ronco", "best_threshold", "players"): "sizes",
    ("ronco", "equilibrium", "players"): "sizes",
    ("ronco", "advise", "lives"): "integers",
    ("ronda", "ladder", "players"): "sizes",
    ("romi", "ladder", "players"): "sizes",
    ("romi", "games", "rounds"): "int",
    ("romi", "compare", "rounds"): "int",
    ("romi", "ladder", "rounds"): "int",
    ("ronda", "compare", "progress"): "progress",
    ("ronda", "advise", "table"): "cards",
    ("romi", "compare", "progress"): "progress",
}
"""Where an argument's name means something else: table sizes (one or a list), Römi's rounds
per game (not a count of rounds to simulate), a compare's progress (a ladder's bar too), the
cards on a Ronda table (Römi's table holds melds)."""

OBJECT = object()

WRONG: dict[str, list[Any]] = {
    "int": [OBJECT, 4.0, 4.5, "4", [4], True, np.float64(4.0)],
    "count": [OBJECT, 4.5, float("nan"), 1e300, [1000], True, b"1000"],
    "number": [OBJECT, "0.5", [0.5], True],
    "bool": [OBJECT, "yes", "on", 1, 0, [True]],
    "switch": [OBJECT, 1, 0, 4.0, ["on"]],
    "text": [OBJECT, 1, 2.5, ["x"], True, b"x"],
    "policy": [OBJECT, 1, ["greedy"], True, b"greedy"],
    "policies": [OBJECT, 1, [1], ["greedy", 2.5], True, b"greedy", {"greedy"}],
    "sizes": [OBJECT, 4.5, 4.0, [3, 4.5], ["3"], True],
    "integers": [OBJECT, 5, 5.5, [5.5, 5, 5], ["5", "5"], True],
    "cards": [OBJECT, 1, ["Ah", 2], [["Ah"]], True],
    "actions": [OBJECT, 1, ["keep", 2], [["keep"]], True, b"keep"],
    "melds": [OBJECT, 1, [["5h", "X", "7h"]], True],
    "card groups": [OBJECT, 1, [["1o", "2c"]], True],
    "path": [OBJECT, 1, True, ["hands.txt"], b"hands.txt"],
    "progress": [OBJECT, "yes", 1],
}
"""Values of the wrong type for each kind: of no type at all, a float where an int goes
(integral or not; a count takes a whole float such as 1e6), text where an int goes, a list
where one value goes, a bool where a number goes, and so on; ``None`` is added where the
argument does not take it."""

POSITIONAL = {"a": 0, "b": 1}
"""The arguments given by position (``compare(a, b)``), and where."""

OTHER = {"ronda": "random", "romi": "expert"}
"""A valid policy B of each game's ``compare``."""

BASE = {("ronda", "ladder"): {"policies": "greedy,random"},
        ("romi", "ladder"): {"policies": "greedy,expert"},
        ("ronco", "equilibrium"): {"players": 3},
        ("ronco", "advise"): {"seat": 0, "card": "4o"}}
"""What a call needs besides the argument tried, so that a value that passes is not refused
for another reason (a ladder without policies, two-player equilibria without ``exact``)."""

NAMES = {"a": "policy A", "b": "policy B"}
"""How a message names an argument that is no flag."""


def _function(game: str, name: str) -> Callable[..., Any]:
    return getattr(importlib.import_module(f"simcards.{game}"), name)


def _kind(game: str, name: str, param: str) -> str:
    return KIND_OF.get((game, name, param), KIND.get(param, "undeclared"))


def _label(value: Any) -> str:
    return "object()" if value is OBJECT else f"{type(value).__name__}:{value!r}"


def _cases() -> Iterator[Any]:
    for game, name in FUNCTIONS:
        for param in inspect.signature(_function(game, name)).parameters.values():
            values = list(WRONG.get(_kind(game, name, param.name), []))
            if param.default is not None:
                values.append(None)
            for value in values:
                yield pytest.param(game, name, param.name, value,
                                   id=f"{game}.{name}-{param.name}-{_label(value)}")


class Reached(Exception):
    """A call got past every check to the work of its command (what :func:`no_work` stops)."""

    def __init__(self, what: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(f"the call reached {what}")
        self.kwargs_given = kwargs
        self.data = ([a for a in args if not callable(a)],
                     {k: v for k, v in kwargs.items() if not callable(v)})
        """What the work was given, but its functions (new closures at every call)."""


@pytest.fixture
def no_work(monkeypatch) -> None:
    """Every command's work raises :class:`Reached` instead of starting: the Monte Carlo and
    search runners (after their own first check, of the seed), the exact solvers, the ladder's
    pairings and the meld solver."""
    from simcards.core.cli_options import check_seed

    targets = [("simcards.core.montecarlo", "monte_carlo"),
               ("simcards.core.montecarlo", "search_command"),
               ("simcards.core.ladder", "run_pairings"),
               ("simcards.ronco.rounds_batch", "exact"),
               ("simcards.ronco.games_exact", "exact_game"),
               ("simcards.ronco.equilibrium_exact", "solve"),
               ("simcards.ronco.behaviour_exact", "solve"),
               ("simcards.romi.melds_kernel", "solve_batch"),
               ("simcards.romi.table_melds_exact", "answer_with_table")]
    for module, attr in targets:
        def stop(*args: Any, _what: str = f"{module}.{attr}", **kwargs: Any) -> None:
            if "seed" in kwargs:
                check_seed(kwargs["seed"])
            raise Reached(_what, *args, **kwargs)

        monkeypatch.setattr(importlib.import_module(module), attr, stop)


def _call(game: str, name: str, **kwargs: Any) -> Any:
    """The function called with ``kwargs`` over its :data:`BASE`, ``a`` and ``b`` by
    position (defaults given)."""
    kwargs = {**BASE.get((game, name), {}), **kwargs}
    args = [kwargs.pop("a", "greedy"), kwargs.pop("b", OTHER[game])] \
        if "a" in inspect.signature(_function(game, name)).parameters else []
    return _function(game, name)(*args, **kwargs)


def _refused(game: str, name: str, param: str, **kwargs: Any) -> str:
    """The message of the ``UsageError`` the call raises; it must name ``param`` (its flag)
    and be one line."""
    with pytest.raises(UsageError) as err:
        _call(game, name, **kwargs)
    message = str(err.value)
    assert NAMES.get(param, "--" + param.replace("_", "-")) in message
    assert "\n" not in message
    return message


def test_every_argument_of_every_function_has_a_declared_kind() -> None:
    """A new argument must say which values it takes here, or it is not swept."""
    undeclared = [f"{game}.{name}({param})" for game, name in FUNCTIONS
                  for param in inspect.signature(_function(game, name)).parameters
                  if _kind(game, name, param) not in WRONG]
    assert not undeclared
    assert {"rounds", "games", "best_threshold", "equilibrium", "hands", "matches",
            "compare", "ladder", "melds"} <= {name for _game, name in FUNCTIONS}


@pytest.mark.parametrize(("game", "name", "param", "value"), list(_cases()))
def test_a_wrong_type_is_a_usage_error_naming_the_argument(no_work, game, name, param,
                                                           value) -> None:
    _refused(game, name, param, **{param: value})


# --- the calls that misbehaved, one by one -----------------------------------------------------

def test_lives_as_float_is_a_usage_error(no_work) -> None:
    """A float reached the numba kernel, whose typing error said nothing of --lives."""
    _refused("ronco", "games", "lives", lives=7.5)
    _refused("ronco", "games", "lives", lives=7.0)


def test_lives_as_text_is_a_usage_error(no_work) -> None:
    _refused("ronco", "games", "lives", lives="7")


@pytest.mark.parametrize("players", ["4", 4.0, 4.5, None])
def test_players_not_an_int_is_a_usage_error(no_work, players) -> None:
    _refused("ronco", "rounds", "players", players=players)


def test_workers_as_text_is_a_usage_error(no_work) -> None:
    _refused("ronco", "rounds", "workers", workers="2")


def test_policies_as_a_number_is_a_usage_error(no_work) -> None:
    _refused("ronda", "hands", "policies", policies=123)


def test_store_as_a_number_is_a_usage_error(no_work) -> None:
    _refused("ronco", "rounds", "store", store=123)


def test_a_hand_as_a_list_of_cards_is_the_hand_as_text() -> None:
    import simcards.romi

    as_list = simcards.romi.melds(hand=["Ah", "2h", "3h"]).to_dict()
    assert as_list == simcards.romi.melds(hand="Ah 2h 3h").to_dict()
    assert as_list["hands"][0]["best_value"] > 0


def test_a_non_integral_threshold_is_refused_not_truncated(no_work) -> None:
    _refused("ronco", "rounds", "threshold", threshold=5.5)
    _refused("ronco", "rounds", "thresholds", thresholds=[5.5, 5, 5, 5])
    _refused("ronco", "exact", "thresholds", thresholds=[5.0, 5, 5, 5])


@pytest.mark.parametrize(("game", "name"), [("ronco", "rounds"), ("ronda", "hands"),
                                            ("romi", "rounds")])
def test_players_as_text_is_refused_by_every_game(no_work, game, name) -> None:
    _refused(game, name, "players", players="3")


def _reached(game: str, name: str, **kwargs: Any) -> Reached:
    """What a valid call hands to its command's work (with :func:`no_work`)."""
    with pytest.raises(Reached) as got:
        _call(game, name, **kwargs)
    return got.value


@pytest.mark.parametrize(("switch", "word"), [(True, "on"), (False, "off")])
def test_teams_takes_a_bool_as_its_word(no_work, switch, word) -> None:
    for name in ("hands", "matches", "compare"):
        as_bool = _reached("ronda", name, players=4, teams=switch)
        as_word = _reached("ronda", name, players=4, teams=word)
        assert as_bool.data == as_word.data
        assert as_bool.data[0][0]["rules"]["teams"] == word
    _refused("ronda", "hands", "teams", players=2, teams=True)


def test_the_list_forms_are_the_text_forms(no_work) -> None:
    """A list of thresholds, of policies or of table sizes is what its text says."""
    pairs = [
        ("ronco", "rounds", {"thresholds": [5, 4, 6, 3]}, {"thresholds": "5,4,6,3"}),
        ("ronco", "rounds", {"policies": ["threshold:5:4", "random:0.3"] * 2},
         {"policies": "threshold:5:4,random:0.3,threshold:5:4,random:0.3"}),
        ("ronco", "games", {"policies": ["informed", "threshold:4:4", "random"], "players": 3},
         {"policies": "informed,threshold:4:4,random", "players": 3}),
        ("ronco", "best_threshold", {"players": [3, 4]}, {"players": "3,4"}),
        ("ronco", "equilibrium", {"players": [3, 4]}, {"players": "3-4"}),
        ("romi", "rounds", {"policies": ["greedy", "rummy:4"], "players": 2},
         {"policies": "greedy,rummy:4", "players": 2}),
    ]
    for game, name, given, text in pairs:
        assert _reached(game, name, **given).data == _reached(game, name, **text).data


def test_numpy_integers_and_paths_are_taken(no_work, tmp_path) -> None:
    """What a script computes with (a numpy integer, a ``pathlib.Path``) needs no converting."""
    as_numpy = _reached("ronco", "rounds", players=np.int64(5), rounds=np.int32(1000),
                        seed=np.uint16(7), store=tmp_path / "runs")
    as_int = _reached("ronco", "rounds", players=5, rounds=1000, seed=7,
                      store=str(tmp_path / "runs"))
    assert as_numpy.data == as_int.data
    assert as_numpy.kwargs_given["seed"] == 7 and as_numpy.kwargs_given["store"] == str(
        tmp_path / "runs")
    hands = tmp_path / "hands.txt"
    hands.write_text("Ah 2h 3h\n")
    from_file = _reached("romi", "melds", file=Path(hands)).data[0]
    assert np.array_equal(from_file[0], _reached("romi", "melds", hand="Ah 2h 3h").data[0][0])


def test_a_count_takes_a_whole_float_as_python_writes_1e6(no_work) -> None:
    """``rounds=1e6`` is the command line's ``--rounds 1e6`` in Python: taken as 1,000,000."""
    from simcards.core.apiargs import COUNT

    assert COUNT("rounds", 1e6) == 1_000_000
    assert COUNT("rounds", "1M") == "1M"


def test_a_misspelled_keyword_is_a_usage_error_naming_the_arguments() -> None:
    """Python's own TypeError said nothing of what the function takes."""
    with pytest.raises(UsageError, match=r"players_.*it takes .*players"):
        simcards.ronco.rounds(players_=4)
