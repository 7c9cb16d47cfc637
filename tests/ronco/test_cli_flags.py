"""Contradictory or meaningless flag combinations are refused with one line naming both flags;
nothing is quietly changed or ignored."""

from __future__ import annotations

import pytest

from simcards.core.cli import main

REFUSED = [
    (["rounds", "--keep-prob", "0.3"], ("--keep-prob", "--policy threshold")),
    (["exact", "--keep-prob", "0.3", "--policy", "informed"], ("--keep-prob", "--policy")),
    (["rounds", "--policy", "random", "--thresholds", "5,5,5,5"],
     ("--thresholds", "--policy random")),
    (["rounds", "--policy", "random", "--threshold", "3"], ("--threshold", "--policy random")),
    (["rounds", "--thresholds", "5,5,5,5", "--dealer-threshold", "4"],
     ("--dealer-threshold", "--thresholds")),
    (["games", "--exact", "--games", "1000"], ("--games", "--exact")),
    (["games", "--exact", "--store", "none"], ("--store", "--exact")),
    (["games", "--exact", "--scheduler", "tcp://127.0.0.1:1"], ("--scheduler", "--exact")),
    (["games", "--policy", "informed", "--policies", "threshold"], ("--policy", "--policies")),
    (["games", "--policies", "threshold:5:5", "--threshold", "4"], ("--threshold",
                                                                    "--policies")),
    (["games", "--players", "2", "--policies", "random:0.2,threshold", "--keep-prob", "0.4"],
     ("--keep-prob", "--policies")),
    (["games", "--keep-prob", "0.4"], ("--keep-prob", "--policy threshold")),
    (["best-threshold", "--first-stage", "1M", "--max-games", "100k"],
     ("--first-stage", "--max-games")),
    (["best-threshold", "--min-games", "1M", "--max-games", "100k"],
     ("--min-games", "--max-games")),
    (["best-threshold", "--players", "4,4"], ("--players", "4 is listed twice")),
    (["best-threshold", "--z-drop", "nan"], ("--z-drop must be a finite number",)),
    (["best-threshold", "--z-drop", "inf"], ("--z-drop must be a finite number",)),
    (["rounds", "--policy", "random", "--keep-prob", "nan"], ("--keep-prob", "finite")),
    (["games", "--policy", "random", "--keep-prob", "-inf"], ("--keep-prob", "finite")),
    (["rounds", "--rounds", "1e15"], ("--rounds must be at most 1e12",)),
    (["rounds", "--rounds", "1e19"], ("--rounds must be at most 1e12",)),
    (["rounds", "--rounds", "1e30"], ("--rounds must be at most 1e12",)),
    (["games", "--games", "1e15"], ("--games must be at most 1e10",)),
    (["best-threshold", "--max-games", "1e10"], ("--max-games must be at most 1e9",)),
    (["rounds", "--deck", "rummy108", "--rounds", "1000"],
     ("--deck must be one of spanish40|spanish48|french52 (rule C1), got 'rummy108'",)),
    (["games", "--deck", "tarot78"], ("one of spanish40|spanish48|french52",)),
]


@pytest.mark.parametrize(("args", "parts"), REFUSED, ids=lambda a: " ".join(a)
                         if isinstance(a, list) else None)
def test_contradictory_or_out_of_range_flags_are_one_line_naming_them(capsys, args,
                                                                      parts) -> None:
    assert main(["ronco", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simcards: error: "), captured.err
    for part in parts:
        assert part in lines[0], lines[0]
    assert "rummy108" not in lines[0] or "--deck must be one of" in lines[0]


def test_defaults_below_a_smaller_max_games_follow_it(capsys) -> None:
    import json

    assert main(["ronco", "best-threshold", "--players", "3", "--lives", "1", "--max-games",
                 "2048", "--gain-games", "0", "--max-iterations", "0", "--workers", "1",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["first_stage"], out["min_games"], out["max_games"]) == (2048, 2048, 2048)


def test_games_reads_threshold_flags_for_entries_that_leave_them_out(capsys) -> None:
    import json

    assert main(["ronco", "games", "--players", "3", "--games", "2000", "--workers", "1",
                 "--policies", "threshold,random:0.5,informed:4", "--threshold", "6",
                 "--dealer-threshold", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["policies"] == ["threshold:6:3", "random:0.5", "informed:4:3"]


@pytest.mark.parametrize("command", ["rounds", "exact", "games"])
def test_deck_help_lists_only_ronco_decks(capsys, command) -> None:
    assert main(["ronco", command, "--help"]) == 0
    out = capsys.readouterr().out
    assert "spanish40" in out and "rummy108" not in out


def test_games_help_explains_the_policies_syntax(capsys) -> None:
    assert main(["ronco", "games", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.replace("│", " ").split())
    for part in ("kind:param:param", "threshold:T:Td", "random:p", "max_threshold"):
        assert part in out, part
