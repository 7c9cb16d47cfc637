"""The one result type of every game's Python API, and the one per-seat policy parser that
every game's ``--policies`` goes through."""

from __future__ import annotations

import inspect
from importlib import import_module

import pandas as pd
import pytest

from simcards.core.errors import UsageError
from simcards.core.policyspec import Param, PolicyKind, PolicyKinds, PolicySpec
from simcards.core.results import Result


def _frame(d: dict) -> pd.DataFrame:
    return pd.DataFrame({"seat": range(len(d["rates"])), "rate": d["rates"]})


def test_result_to_dict_is_a_deep_copy_and_to_frame_is_the_commands_table() -> None:
    res = Result({"command": "x", "rates": [0.25, 0.75], "nested": {"a": [1]}}, "raw", _frame)
    out = res.to_dict()
    assert out == {"command": "x", "rates": [0.25, 0.75], "nested": {"a": [1]}}
    out["nested"]["a"].append(2)
    assert res["nested"] == {"a": [1]} and res.raw == "raw"
    assert res.to_frame().to_dict("list") == {"seat": [0, 1], "rate": [0.25, 0.75]}
    with pytest.raises(TypeError, match="the y command has no table"):
        Result({"command": "y"}).to_frame()


@pytest.mark.parametrize("game", ["ronco", "ronda", "romi"])
def test_every_command_of_every_game_returns_the_core_result(game) -> None:
    """One shape for every game: no game defines a result class of its own, and every
    command function is annotated to return the core :class:`Result`."""
    package = import_module(f"simcards.{game}")
    api = import_module(f"simcards.{game}.api")
    own = [name for name, obj in vars(api).items()
           if inspect.isclass(obj) and obj.__module__ == api.__name__
           and name.endswith("Result")]
    assert own == []
    for command in package.COMMANDS:
        assert inspect.signature(getattr(api, command)).return_annotation == "Result", command


KINDS = PolicyKinds("toy", [
    PolicyKind("plain", 0),
    PolicyKind("bold", 1, (Param("K", int, 1, "top", 3),)),
])


def test_parse_list_gives_one_entry_to_every_seat_or_one_per_seat() -> None:
    assert [s.text() for s in KINDS.parse_list("bold:2", 3)] == ["bold:2"] * 3
    assert [s.text() for s in KINDS.parse_list(" plain , bold ", 2)] == ["plain", "bold:3"]
    assert [s.text() for s in KINDS.parse_list(["plain", PolicySpec("bold", (4,))], 2)] \
        == ["plain", "bold:4"]
    assert [s.text() for s in KINDS.parse_list(None, 2, default="plain")] == ["plain"] * 2
    assert KINDS.parse_list("bold", 1, defaults={"K": 5})[0].values == (5,)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: KINDS.parse_list("plain,bold,plain", 2),
     "--policies needs 1 or 2 entries (one per player), got 3"),
    (lambda: KINDS.parse_list("plain,bold:9", 2, {"top": 6}, flag="--seats"),
     "--seats: policy bold: K must be between 1 and 6, got 9"),
    (lambda: KINDS.parse_list("plain,", 2), "--policies 'plain,': entry 2 of 2 is empty "
     "(one policy per seat, comma-separated, or one for all)"),
    (lambda: KINDS.parse_list(None, 2), "--policies is missing"),
])
def test_parse_list_refuses_in_one_line_naming_the_flag(call, message) -> None:
    with pytest.raises(UsageError) as info:
        call()
    assert str(info.value) == message


def test_parse_list_reads_each_entry_and_cuts_the_text_as_the_game_asks() -> None:
    """A game's own check of one policy (``entry``) and its own words for an empty list
    (``entries``) replace the defaults, and the count check still applies."""
    def entry(item: str | PolicySpec) -> PolicySpec:
        spec = KINDS.parse(str(item))
        if spec.kind == "bold":
            raise UsageError("no bold here")
        return spec

    def entries(policies, flag: str) -> list:
        if not str(policies).strip():
            raise UsageError(f"{flag} says nothing")
        return str(policies).split("/")

    assert [s.text() for s in KINDS.parse_list("plain/plain", 2, entries=entries)] \
        == ["plain", "plain"]
    with pytest.raises(UsageError, match=r"^no bold here$"):
        KINDS.parse_list("plain,bold", 2, entry=entry)
    with pytest.raises(UsageError, match=r"^--policies says nothing$"):
        KINDS.parse_list(" ", 2, entries=entries)
    with pytest.raises(UsageError, match="needs 1 or 2 entries"):
        KINDS.parse_list("plain/plain/plain", 2, entries=entries)
