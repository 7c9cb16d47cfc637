"""The ``simcards ronco`` commands as a user meets them: JSON answers, reproducibility, and
one-line errors with exit status 2 for bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from simcards.core.cli import main


def _json(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1, "--json prints exactly one line on stdout"
    return json.loads(out)


def test_rounds_json_has_the_documented_keys(capsys) -> None:
    out = _json(capsys, ["ronco", "rounds", "--players", "5", "--rounds", "50000", "--json",
                         "--workers", "1"])
    for key in ("p_lose", "ci_low", "ci_high", "p_all_tie", "rounds"):
        assert key in out
    assert len(out["p_lose"]) == 5
    bounds = zip(out["ci_low"], out["p_lose"], out["ci_high"], strict=True)
    assert all(lo <= p <= hi for lo, p, hi in bounds)


def test_same_seed_gives_identical_json_for_one_and_two_workers(capsys) -> None:
    args = ["ronco", "rounds", "--players", "6", "--policy", "informed", "--rounds",
            "5000000", "--seed", "42", "--json"]
    one = _json(capsys, [*args, "--workers", "1"])
    two = _json(capsys, [*args, "--workers", "2"])
    assert one == two
    other = _json(capsys, [*args[:-3], "--seed", "43", "--json", "--workers", "1"])
    assert other["p_lose"] != one["p_lose"]


def test_exact_json_matches_rounds_within_4_standard_errors(capsys) -> None:
    base = ["ronco", "--players", "4", "--poroli", "--policy", "informed", "--json"]
    exact = _json(capsys, [base[0], "exact", *base[1:]])
    mc = _json(capsys, [base[0], "rounds", *base[1:], "--rounds", "1000000", "--workers", "1"])
    for p, q in zip(exact["p_lose"], mc["p_lose"], strict=True):
        assert abs(p - q) < 4 * (p * (1 - p) / 1_000_000) ** 0.5


BAD_INPUT = [
    (["--players", "1"], "--players must be between 2 and 20 (rule T1)"),
    (["--players", "21"], "--players must be between 2 and 20 (rule T1)"),
    (["--policy", "bold"], "unknown ronco policy 'bold'"),
    (["--threshold", "x"], "--threshold"),
    (["--rounds", "many"], "--rounds must be a count"),
    (["--threshold", "14"], "threshold: T must be between 0 and 13, got 14"),
    (["--dealer-threshold", "-1"], "threshold: Td must be between 0 and 13, got -1"),
    (["--thresholds", "5,5,5"], "--thresholds needs 4 values"),
    (["--thresholds", "5,5,a,5"], "'a' is not an integer"),
    (["--deck", "tarot78"], "--deck must be one of spanish40|spanish48|french52"),
    (["--rounds", "-5"], "--rounds must be positive"),
    (["--workers", "0"], "workers must be at least 1"),
    (["--cut-king", "sometimes"], "--cut-king must be one of loses|blocked|none (rule R7)"),
    (["--ties", "none"], "--ties must be one of all|first (rule R8), got 'none'"),
    (["--keep-prob", "1.5", "--policy", "random"],
     "random: p must be between 0.0 and 1.0, got 1.5"),
]


@pytest.mark.parametrize(("args", "message"), BAD_INPUT, ids=lambda a: " ".join(a)
                         if isinstance(a, list) else None)
def test_bad_input_is_one_line_and_exit_status_2(capsys, args, message) -> None:
    assert main(["ronco", "rounds", *args, "--rounds", "1000"] if "--rounds" not in args
                else ["ronco", "rounds", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], captured.err


def test_exact_rejects_random_policy_with_one_line(capsys) -> None:
    assert main(["ronco", "exact", "--policy", "random"]) == 2
    assert "deterministic" in capsys.readouterr().err


def test_real_process_exit_status_and_no_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "simcards", "ronco", "rounds", "--players", "99"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip() == ("simcards: error: --players must be between 2 and 20 (rule T1), "
                                   "got 99")


def test_local_cli_run_never_imports_dask() -> None:
    code = ("import sys; from simcards.core.cli import main; "
            "main(['ronco', 'games', '--games', '2000', '--json', '--workers', '1', "
            "'--store', 'none']); "
            "assert 'distributed' not in sys.modules and 'dask' not in sys.modules")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={k: v for k, v in os.environ.items()
                                            if k != "SIMCARDS_SCHEDULER"})
    assert proc.returncode == 0, proc.stderr


def test_table_output_gives_an_interval_for_every_rate(capsys) -> None:
    """The absolute-tie, cut and cut-king line of ``rounds`` and the first-out column and
    no-winner line of ``games`` carry 95% intervals, like the loss rates."""
    import re

    interval = r"\d\.\d+ \[\d\.\d+, \d\.\d+\]"
    assert main(["ronco", "rounds", "--rounds", "20000", "--workers", "1", "--store",
                 "none"]) == 0
    out = capsys.readouterr().out
    for label in ("absolute tie", "dealer cuts", "cut-king"):
        assert re.search(rf"{label}: {interval}", out), out
    assert main(["ronco", "games", "--players", "3", "--lives", "2", "--games", "5000",
                 "--workers", "1", "--store", "none"]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"no winner: {interval}", out), out
    rows = [x for x in out.splitlines() if "threshold:5:5" in x]
    assert len(rows) == 3 and all(len(re.findall(interval, r)) == 1 for r in rows), rows
