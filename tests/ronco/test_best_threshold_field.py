"""best-threshold against a field of the user's: a function (S5) or a keep chart (S6), played
as ``games`` plays them, raced by the grid's candidates on the same common games.

A field that decides like a built-in one gives the built-in's answer at the same seed, number
for number: the best response, its interval, the ties, the informed gain and the equilibrium
iteration. What differs is what names the field (its text, the digest of its file) and what a
field off the grid cannot have: a T:Td pair at the head of the best-response path, and the
exact ``bayes`` reply (which needs a threshold or informed field). A function numba cannot
compile races on the Python table engine, which plays the race kernel's very games.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from simcards.core.cli import main
from tests.ronco.test_game_users import PARITY
from tests.ronco.test_user_policies import UNCOMPILED

# numba calls the first-class functions a user's function is passed as experimental
pytestmark = pytest.mark.filterwarnings("ignore:First-class function type")

T55 = '''
from simcards.ronco.observation_kernel import card, is_dealer


def t55(obs, legal):
    """threshold:5:5 under spanish40 (the value 5 is class 4), at every seat and dealer."""
    return 0 if card(obs) >= 4 else 1
'''

SEARCH = ["--players", "3", "--lives", "2", "--first-stage", "512", "--max-games", "1024",
          "--min-games", "512", "--gain-games", "512", "--max-iterations", "1", "--seed", "9",
          "--workers", "1", "--json"]
NAMING = ("field", "engine", "user_policies", "charts", "timing", "run", "store", "rows")
BAYES = ("bayes_gain", "bayes_gain_ci", "bayes_win_rate")


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _search(capsys, field: str, *flags: str, store: str = "none") -> dict:
    code = main(["ronco", "best-threshold", *SEARCH, "--field", field, "--store", store, *flags])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def _same_race(mine: dict, built: dict, field: str) -> None:
    """``mine`` (a field of the user's, ``field``) is ``built`` but for what names the field,
    the field's pair at the head of the path and the bayes gain."""
    assert mine["field"] == field
    strip = {k: v for k, v in mine.items() if k not in NAMING}
    assert strip == {k: v for k, v in built.items() if k not in NAMING}
    for row, ref in zip(mine["rows"], built["rows"], strict=True):
        assert row["field"] == field and ref["field"] == [int(v) for v in
                                                          built["field"].split(":")[1:]]
        assert row["best_response_path"] == ref["best_response_path"][1:]
        assert all(k in ref and k not in row for k in BAYES)
        drop = ("field", "best_response_path", *BAYES)
        assert ({k: v for k, v in row.items() if k not in drop}
                == {k: v for k, v in ref.items() if k not in drop})


def test_S5_a_function_deciding_like_threshold_5_5_as_the_field_gives_its_race(tmp_path,
                                                                              capsys):
    f = _write(tmp_path, "mine.py", T55) + ":t55"
    built = _search(capsys, "threshold:5:5")
    assert _search(capsys, "5:5") == built  # the family's pair, as before
    mine = _search(capsys, f)
    assert mine["engine"] == "compiled" and list(mine["user_policies"]) == [f]
    _same_race(mine, built, f)
    assert built["rows"][0]["best_T"] != 5  # the path's head is not the best response


def test_S6_a_chart_exported_from_the_function_or_from_informed_gives_their_race(tmp_path,
                                                                               capsys):
    """The function's chart (``simcards ronco chart``, one file for 3 and 2 players, as a
    game of 3 meets both) races as threshold:5:5 does; informed:7:4's as informed:7:4."""
    from simcards.ronco import charts
    from simcards.ronco.policies import Policy
    from simcards.ronco.rules import RoncoRules

    f = _write(tmp_path, "mine.py", T55) + ":t55"
    parts = []
    for n in (3, 2):
        out = str(tmp_path / f"c{n}.csv")
        assert main(["ronco", "chart", "--players", str(n), "--policy", f, "--out", out]) == 0
        lines = Path(out).read_text().splitlines(keepends=True)
        parts.extend(lines if not parts else lines[1:])
    capsys.readouterr()
    chart = "chart:" + _write(tmp_path, "t55.csv", "".join(parts))
    mine = _search(capsys, chart)
    assert list(mine["charts"]) == [chart[len("chart:"):]]
    _same_race(mine, _search(capsys, "threshold:5:5"), chart)

    rules = RoncoRules.make()
    informed = Policy("informed", 7, 4)
    parts = []
    for n in (3, 2):
        lines = charts.to_csv(*charts.decisions_of(rules, n, informed, informed),
                              rules).splitlines(keepends=True)
        parts.extend(lines if not parts else lines[1:])
    chart = "chart:" + _write(tmp_path, "i74.csv", "".join(parts))
    _same_race(_search(capsys, chart, "--policy", "informed"),
               _search(capsys, "7:4", "--policy", "informed"), chart)


def test_S5_an_edited_function_never_resumes_the_older_runs_chunks(tmp_path, capsys):
    """The run's key holds the function's digest (its file's text and name): the same file
    resumes its run, an edited one is a run of its own."""
    store = str(tmp_path / "store")
    path = _write(tmp_path, "mine.py", T55)
    first = _search(capsys, path + ":t55", store=store)
    again = _search(capsys, path + ":t55", store=store)
    assert again["rows"] == first["rows"] and len(list(Path(store).iterdir())) == 1
    _write(tmp_path, "mine.py", T55 + "\n# edited\n")
    edited = _search(capsys, path + ":t55", store=store)
    assert edited["user_policies"][path + ":t55"] != first["user_policies"][path + ":t55"]
    assert edited["rows"] == first["rows"]  # it decides the same
    assert len(list(Path(store).iterdir())) == 2


@pytest.mark.parametrize(("body", "says"), [
    ("return 2", r"returned 2 at player [12]: not a legal action \(0 keep, 1 pass\)"),
    ("raise ValueError('no')",
     r"raised an exception at player [12] \(--engine python shows the exception, "
     r"where the command takes it\)"),
])
def test_S5_a_field_function_that_plays_no_legal_action_stops_in_one_line(tmp_path, capsys,
                                                                         body, says):
    f = _write(tmp_path, "bad.py", f"def bad(obs, legal):\n    {body}\n") + ":bad"
    code = main(["ronco", "best-threshold", *SEARCH, "--field", f, "--store", "none"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].startswith(f"simcards: error: {f} ")
    assert re.fullmatch(says, err[0][len(f"simcards: error: {f} "):])


@pytest.mark.parametrize(("field", "message"), [
    ("random:0.5", "--field: random:0.5 cannot be the field here"),
    ("bayes", "--field: bayes cannot be the field here"),
    ("missing.py:f", "--field: missing.py"),
    ("chart:missing.csv", "--field"),
    ("threshold:99:5", "--field"),
])
def test_best_threshold_refuses_a_field_it_cannot_race_in_one_line(capsys, field, message):
    assert main(["ronco", "best-threshold", "--players", "3", "--field", field]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


def test_S6_a_chart_without_every_table_size_is_refused_before_any_game(tmp_path, capsys):
    f = _write(tmp_path, "mine.py", T55) + ":t55"
    out = str(tmp_path / "c3.csv")
    assert main(["ronco", "chart", "--players", "3", "--policy", f, "--out", out]) == 0
    capsys.readouterr()
    assert main(["ronco", "best-threshold", "--players", "3", "--field", f"chart:{out}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("simcards: error: --field: ")
    assert "needs rows for every table size from 3 down to 2" in err[0]


@pytest.mark.parametrize("start", ["mine.py:keep", "chart:mine.csv"])
def test_equilibrium_takes_no_field_and_says_where_a_function_or_chart_is_raced(capsys, start):
    """equilibrium's strategies are the family's T:Td pairs and its field is their mix: a
    function or a chart given as --start is refused, pointing to best-threshold --field."""
    assert main(["ronco", "equilibrium", "--players", "3", "--start", start]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"simcards: error: --start takes T:Td pairs of the family; {start} is no "
                   "point of its grid (best-threshold --field races the grid against it)"]


SMALL = ["--players", "3", "--lives", "1", "--first-stage", "64", "--max-games", "128",
         "--min-games", "64", "--gain-games", "64", "--max-iterations", "1", "--seed", "9",
         "--workers", "1", "--json"]
"""A search small enough for the Python engine (100 candidates at the start)."""


@pytest.mark.parametrize("switches", [{}, {"poroli": True, "absolute_tie": "replay"}])
def test_S5_the_python_race_plays_the_compiled_races_games(tmp_path, switches):
    """The Python engine's race draws each game's seed and every candidate's replay of it as
    the race kernel does: wins and discordant pairs are the same, number for number, against
    a function that decides by a checksum of its whole observation."""
    from simcards.core.engines import COMPILED
    from simcards.core.rng_kernel import seed_state
    from simcards.ronco import best_threshold_batch as bt
    from simcards.ronco.policies import KINDS, Policy, bounds
    from simcards.ronco.rules import RoncoRules
    from simcards.ronco.users import python_race

    rules = RoncoRules.make(**switches)
    f = _write(tmp_path, "parity.py", PARITY) + ":parity"
    field = Policy.from_spec(KINDS.parse(f, bounds(rules.top)))
    cands = [Policy("threshold", t, td) for t, td in ((3, 3), (5, 5), (7, 4), (12, 12))]
    cands.append(Policy("informed", 7, 4))
    got = []
    for play in (lambda st: bt.race_chunk(st, 200, bt._config(rules, 3, 2, field, cands,
                                                              COMPILED)),
                 lambda st: python_race(st, 200, 3, 2, rules, field, cands)):
        state = np.zeros(4, np.uint64)
        seed_state(state, 12345)
        wins, beats, games = play(state)
        got.append((wins.tolist(), beats.tolist(), games.tolist(), state.tolist()))
    assert got[0] == got[1]
    assert got[0][2] == [200] and len(set(got[0][0])) > 1


def test_S5_both_engines_give_the_same_best_threshold_answer_and_runs_of_their_own(
        tmp_path, capsys):
    """``--engine python`` races a function numba compiles on the Python engine: the answer is
    the compiled one but for the engine it names; the engine is part of the run's key, and a
    stored Python run resumes."""
    f = _write(tmp_path, "parity.py", PARITY) + ":parity"
    store = str(tmp_path / "store")
    got = {}
    for engine in ("compiled", "python", "again"):
        if engine == "again":  # a search killed in its last stage: that stage's chunk is lost
            runs = [p for p in Path(store).iterdir()
                    if '"engine": "python"' in (p / "manifest.json").read_text()]
            chunks = sorted(runs[0].glob("stages/*/chunks/*.parquet"),
                            key=lambda c: c.stat().st_mtime_ns)
            chunks[-1].unlink()
        code = main(["ronco", "best-threshold", *SMALL, "--field", f, "--store", store,
                     "--engine", "python" if engine == "again" else engine])
        out = capsys.readouterr()
        assert code == 0 and "Python engine" not in out.err, out.err
        assert ("resumed" in out.err) == (engine == "again"), out.err
        got[engine] = json.loads(out.out)
    strip = ("engine", "timing", "run", "store")
    assert ({k: v for k, v in got["compiled"].items() if k not in strip}
            == {k: v for k, v in got["python"].items() if k not in strip})
    assert [got[e]["engine"] for e in got] == ["compiled", "python", "python"]
    assert got["python"]["rows"][0]["gain_games"] == 64
    assert got["again"]["rows"] == got["python"]["rows"]
    assert len(list(Path(store).iterdir())) == 2


def test_S5_a_field_function_numba_cannot_compile_races_on_the_python_engine(tmp_path, capsys):
    """One line on stderr says why and which engine runs, the JSON says which engine ran;
    ``--engine compiled`` refuses the function, and a built-in field has no Python race."""
    f = _write(tmp_path, "memo.py", UNCOMPILED) + ":by_class"
    code = main(["ronco", "best-threshold", *SMALL, "--field", f, "--store", "none"])
    out = capsys.readouterr()
    assert code == 0, out.err
    answer = json.loads(out.out)
    assert answer["engine"] == "python" and answer["field"] == f
    row = answer["rows"][0]
    assert row["field"] == f and row["games"] == 128 and row["gain_games"] == 64
    assert row["best_response_path"][0] == [row["best_T"], row["best_Td"]]
    notice = [line for line in out.err.splitlines() if line.strip()]
    assert len(notice) == 1 and "Python engine" in notice[0]
    assert f"numba cannot compile {f}" in notice[0]
    for field, extra, message in (
            (f, "compiled", f"--engine compiled: numba cannot compile {f}"),
            ("5:5", "python", "--engine python races against a --field function of yours")):
        code = main(["ronco", "best-threshold", "--players", "3", "--field", field,
                     "--engine", extra])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and message in err[0], err
