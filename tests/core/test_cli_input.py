"""Bad input costs one line on stderr and exit status 2, never a traceback, memory or time;
the help shows what each command accepts."""

from __future__ import annotations

import math

import pytest

from simcards import __version__
from simcards.core.cli import main
from simcards.core.cli_options import (
    MAX_SEED,
    check_finite,
    check_seed,
    parse_count,
    parse_range,
)
from simcards.core.errors import UsageError


def _one_line_error(capsys, argv: list[str], message: str) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("simcards: error: ") and message in lines[0], lines[0]


@pytest.mark.parametrize("text", ["1", "1000", "1_000", "1e6", "1M", "1.5k", "2G", "1e12"])
def test_parse_count_reads_plain_scientific_and_suffixed_counts(text) -> None:
    expected = {"1": 1, "1000": 1000, "1_000": 1000, "1e6": 10**6, "1M": 10**6,
                "1.5k": 1500, "2G": 2 * 10**9, "1e12": 10**12}[text]
    assert parse_count(text, "--n") == expected


@pytest.mark.parametrize(("text", "message"), [
    ("1e13", "--n must be at most 1e12"),
    ("1e19", "--n must be at most 1e12"),
    ("1e30", "--n must be at most 1e12"),
    ("1e400", "--n must be at most 1e12"),
    ("nan", "--n must be a count"),
    ("inf", "--n must be a count"),
    ("1e999999999999", "--n must be a count"),
    ("1.5", "whole number"),
    ("0", "positive"),
])
def test_parse_count_refuses_counts_past_the_maximum_and_non_counts(text, message) -> None:
    with pytest.raises(UsageError, match=message):
        parse_count(text, "--n")


def test_parse_count_applies_a_per_command_maximum() -> None:
    assert parse_count("1e10", "--games", 10**10) == 10**10
    with pytest.raises(UsageError, match="--games must be at most 1e10, got '2e10'"):
        parse_count("2e10", "--games", 10**10)
    with pytest.raises(UsageError, match="at most 1e10"):
        parse_count(10**11, "--games", 10**10)


def test_seeds_are_0_to_2_pow_63_minus_1() -> None:
    assert check_seed(0) == 0 and check_seed(MAX_SEED) == 2**63 - 1
    for bad in (-1, 2**63, 1.5, True):
        with pytest.raises(UsageError, match="--seed"):
            check_seed(bad)


def test_nan_and_infinities_are_refused_as_numbers() -> None:
    assert check_finite(0.5, "--x") == 0.5 and check_finite(None, "--x") is None
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(UsageError, match="--x must be a finite number"):
            check_finite(bad, "--x")


def test_parse_range_refuses_a_value_listed_twice() -> None:
    assert parse_range("3-5", "--players") == [3, 4, 5]
    with pytest.raises(UsageError, match="--players: 4 is listed twice"):
        parse_range("4,4", "--players")


@pytest.mark.parametrize("command", [["ronco", "rounds", "--rounds", "1000"],
                                     ["ronco", "exact"],
                                     ["ronco", "games", "--games", "1000"],
                                     ["ronco", "best-threshold"],
                                     ["report"]])
def test_negative_or_huge_seed_is_one_line_for_every_command(capsys, command) -> None:
    _one_line_error(capsys, [*command, "--seed", "-1"], "--seed must be between 0 and 2**63-1")
    _one_line_error(capsys, [*command, "--seed", str(2**63)], "--seed must be between 0")


def test_report_refuses_an_out_that_is_a_file_before_computing(capsys, tmp_path,
                                                               monkeypatch) -> None:
    import simcards.core.reports.make_all as make_all

    def computing(*args, **kwargs):
        raise AssertionError("the report started computing")

    monkeypatch.setattr(make_all, "build_all", computing)
    existing = tmp_path / "a-file"
    existing.write_text("x")
    _one_line_error(capsys, ["report", "--quick", "--out", str(existing)],
                    "exists and is not a folder")
    _one_line_error(capsys, ["report", "--quick", "--out", "/proc/x"], "--out /proc/x")
    blocked = tmp_path / "read-only"
    blocked.mkdir()
    blocked.chmod(0o500)
    try:
        import os
        if os.access(blocked, os.W_OK):  # root writes anywhere: nothing to check there
            return
        _one_line_error(capsys, ["report", "--quick", "--out", str(blocked / "sub")],
                        "cannot write there")
    finally:
        blocked.chmod(0o700)


def test_version_flag_and_command_print_the_version(capsys) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == __version__
    assert main(["version"]) == 0
    assert capsys.readouterr().out.strip() == __version__


@pytest.mark.parametrize("command", [[], ["ronco", "rounds"], ["ronco", "games"],
                                     ["ronco", "best-threshold"], ["report"]])
def test_help_shows_no_value_type_beside_flags(capsys, command) -> None:
    assert main([*command, "--help"]) == 0
    out = capsys.readouterr().out
    assert "--help" in out
    assert "<bool>" not in out, out


@pytest.mark.parametrize("text", ["1m", "2g", "1K", "1.5m"])
def test_parse_count_refuses_suffixes_the_readme_does_not_list(text) -> None:
    """Only k, M and G, as written: ``1m`` is not read as a million."""
    with pytest.raises(UsageError, match=f"--n: unknown suffix '{text[-1]}'"):
        parse_count(text, "--n")


@pytest.mark.parametrize(("text", "message"), [
    ("greedy,", "entry 2 of 2 is empty"),
    ("greedy,,random", "entry 2 of 3 is empty"),
    (",greedy", "entry 1 of 2 is empty"),
    (" , ", "--policies is empty"),
])
def test_per_seat_policy_lists_refuse_empty_entries(text, message) -> None:
    from simcards.core.policyspec import split_entries

    with pytest.raises(UsageError, match=message):
        split_entries(text)
    assert split_entries(" greedy , random ") == ["greedy", "random"]


def test_workers_unknown_options_and_policy_errors_read_well(capsys) -> None:
    _one_line_error(capsys, ["ronda", "hands", "--workers", "0"],
                    "--workers must be at least 1, got 0")
    _one_line_error(capsys, ["ronda", "hands", "--target", "41"],
                    "No such option: --target (ronda hands does not take it; ronda matches, "
                    "compare, ladder, play and advise do)")
    _one_line_error(capsys, ["ronda", "hands", "--hand", "3"],
                    "No such option: --hand (did you mean --hands? --hand is an option of "
                    "ronda advise)")
    _one_line_error(capsys, ["ronda", "compare", "lookahead:0", "greedy"],
                    "policy A: lookahead: D must be between 1 and")
    assert main(["ronda", "hands", "--target", "41"]) == 2
    assert "Possible options" not in capsys.readouterr().err


@pytest.mark.parametrize(("only", "message"), [
    ("", "--only is empty: name one study or more"),
    (" , ", "--only is empty"),
    ("ronco-rounds,", "has an empty entry"),
    ("ronco-rounds,ronco-rounds", "--only names ronco-rounds twice"),
    ("ronco-rounds,ronda-game, ronco-rounds", "--only names ronco-rounds twice"),
])
def test_report_refuses_an_empty_or_repeated_only_before_computing(capsys, tmp_path,
                                                                   monkeypatch, only,
                                                                   message) -> None:
    """An empty ``--only`` used to run every study; a study named twice ran twice."""
    import simcards.core.reports.make_all as make_all

    def computing(*args, **kwargs):
        raise AssertionError("the report started computing")

    monkeypatch.setattr(make_all, "build_all", computing)
    _one_line_error(capsys, ["report", "--quick", "--only", only, "--out",
                             str(tmp_path / "out")], message)
    assert not (tmp_path / "out").exists()


def test_equilibrium_refuses_a_start_pair_given_twice(capsys, monkeypatch) -> None:
    """A pair given twice used to be dropped silently."""
    from simcards.ronco import equilibrium_batch

    def computing(*args, **kwargs):
        raise AssertionError("the search started")

    monkeypatch.setattr(equilibrium_batch, "search", computing)
    _one_line_error(capsys, ["ronco", "equilibrium", "--players", "3", "--start", "5:5,5:5"],
                    "--start names 5:5 twice")
    _one_line_error(capsys, ["ronco", "equilibrium", "--players", "3", "--start",
                             "6:6, 5:4,6:6"], "--start names 6:6 twice")


@pytest.mark.parametrize("command", ["bogus", "round", "ronda-rounds", ""])
def test_runs_clean_refuses_a_command_no_game_has_and_lists_the_known(capsys, tmp_path,
                                                                     command) -> None:
    """An unknown ``--command`` used to match nothing and report "removed 0 runs"."""
    _one_line_error(capsys, ["runs", "clean", "--command", command, "--store",
                             str(tmp_path / "store")],
                    f"--command {command!r} is no command (known: report, rounds, ")
    main(["runs", "clean", "--command", "ronco-rounds", "--store", str(tmp_path / "store")])
    assert "removed 0 runs" in capsys.readouterr().out
