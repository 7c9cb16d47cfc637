"""S6: keep charts. A chart written from a policy plays back as that policy, decision for
decision (the same JSON at the same seed); every situation the rules allow is a row; a chart
that does not fit the table, or says something that is not an action, is refused in one line.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from simcards.core.cli import main

# a chart of a user's function compiles it (numba calls the feature it uses experimental)
pytestmark = pytest.mark.filterwarnings("ignore:First-class function type")

FIELD = "threshold:5:5"

T74 = '''
from simcards.ronco.observation_kernel import card, is_dealer


def t74(obs, legal):
    """threshold:7:4 under spanish40 (the value 7 is class 6, the value 4 class 3)."""
    if is_dealer(obs):
        return 0 if card(obs) >= 3 else 1
    return 0 if card(obs) >= 6 else 1
'''


def _cli(capsys, *args: str) -> tuple[int, dict | None, str]:
    code = main(["ronco", *args, "--json"])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else None), out.err


def _rounds(capsys, policies: str, *flags: str) -> dict:
    code, out, err = _cli(capsys, "rounds", "--policies", policies, "--rounds", "200k",
                          "--seed", "5", "--store", "none", *flags)
    assert code == 0, err
    return {k: v for k, v in out.items() if k not in ("policies", "charts", "timing", "run",
                                                      "store")}


def _chart(capsys, tmp_path: Path, policy: str, players: int, *flags: str) -> tuple[str, dict]:
    path = str(tmp_path / "chart.csv")
    code, out, err = _cli(capsys, "chart", "--players", str(players), "--policy", policy,
                          "--out", path, *flags)
    assert code == 0, err
    return path, out


@pytest.mark.parametrize("position", [0, 2, 3])
def test_S6_a_chart_written_from_bayes_plays_as_bayes(tmp_path, capsys, position):
    """bayes at one position against the field, and its chart in its place: every number of
    the answer is the same at the same seed."""
    path, out = _chart(capsys, tmp_path, "bayes", 4)
    assert Path(out["picture"]).stat().st_size > 10_000  # the PNG beside the CSV
    seats = [FIELD] * 4
    seats[position] = "bayes"
    built = _rounds(capsys, ",".join(seats))
    seats[position] = f"chart:{path}"
    assert _rounds(capsys, ",".join(seats)) == built


@pytest.mark.parametrize("flags", [(), ("--poroli",), ("--deck", "spanish48", "--ties",
                                                         "first")])
def test_S6_a_threshold_chart_at_every_position_plays_as_the_threshold(tmp_path, capsys,
                                                                         flags):
    """A chart covers every situation, not only those the field leads to: played at every
    position (whose earlier positions play the chart too) it is threshold:7:4 itself."""
    path, _ = _chart(capsys, tmp_path, "informed:7:4", 5, *flags)
    built = _rounds(capsys, "informed:7:4", "--players", "5", *flags)
    assert _rounds(capsys, f"chart:{path}", "--players", "5", *flags) == built


def test_S6_a_chart_of_your_own_function_plays_as_the_function(tmp_path, capsys):
    mine = tmp_path / "mine.py"
    mine.write_text(T74)
    path, _ = _chart(capsys, tmp_path, f"{mine}:t74", 4)
    assert _rounds(capsys, f"chart:{path}") == _rounds(capsys, "threshold:7:4")


def test_S6_every_situation_the_rules_allow_is_a_row(tmp_path, capsys):
    """At 4 players: position 0 has seen nothing (1 row); each later position has seen, from
    the position before it, a keep (1 row), a refusal (1 row: it holds the top rank) or a swap
    with each card but the top rank dealt (9 rows), after each history of the positions
    before: 1 + 11 * (1 + 3 + 9) = 144 rows."""
    path, out = _chart(capsys, tmp_path, "threshold:5:5", 4)
    assert out["situations"] == 144
    lines = Path(path).read_text().splitlines()
    assert lines[0] == "players,position,seen,dealt,1,2,3,4,5,6,7,10,11,12"
    assert len(lines) == 145
    assert lines[1] == "4,0,,,pass,pass,pass,pass,keep,keep,keep,keep,keep,keep"
    refused = [line for line in lines if line.split(",")[2].endswith("refused")]
    assert refused and all(line.endswith(",,,,,,,,,,keep") for line in refused)
    # position 0 keeps 24 of the 40 cards (5 and above, S1)
    assert out["positions"][0]["p_keep"] == pytest.approx(24 / 40, abs=1e-12)


def test_S6_the_dealer_keeps_or_cuts_and_a_field_leads_to_each_situation_as_often_as_exact(
        tmp_path, capsys):
    """The dealer's cells are keep or cut; the keep shares of the answer are the exact
    frequencies of the field: with everybody on threshold:5:5 at 2 players, the dealer keeps
    (does not cut) with probability P(card >= 5) after the first position's play."""
    path, out = _chart(capsys, tmp_path, "threshold:5:5", 2)
    cells = {c for line in Path(path).read_text().splitlines()[1:]
             if line.split(",")[1] == "1" for c in line.split(",")[4:]}
    assert cells <= {"keep", "cut", ""}
    # position 0 passes 16/40; then the dealer holds position 0's old card (a swap unless the
    # dealer held a Rey) ... the dealer's exact keep share, by enumeration:
    cards = np.repeat([1, 2, 3, 4, 5, 6, 7, 10, 11, 12], 4)
    keep = 0
    total = 0
    for a in range(40):
        for b in range(40):
            if a == b:
                continue
            mine = b
            if cards[a] < 5 and cards[b] != 12:
                mine = a
            keep += cards[mine] >= 5
            total += 1
    assert out["positions"][1]["p_keep"] == pytest.approx(keep / total, abs=1e-12)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda t: t.replace("4,0,,,pass", "4,0,,,maybe", 1), "'maybe' is not keep or pass"),
    (lambda t: "\n".join(t.splitlines()[:-1]) + "\n", "no row for the dealer"),
    (lambda t: t.replace("players,position,seen,dealt", "players,pos,seen,dealt", 1),
     "a chart's columns are players,position,seen,dealt"),
    (lambda t: t.replace("\n4,1,keep,", "\n4,1,kept,", 1), "'kept' is not keep, swap, refused"),
])
def test_S6_a_chart_that_says_something_else_is_refused_in_one_line(tmp_path, capsys, edit,
                                                                     message):
    path, _ = _chart(capsys, tmp_path, "threshold:5:5", 4)
    Path(path).write_text(edit(Path(path).read_text()))
    code, _, err = _cli(capsys, "rounds", "--policies", f"chart:{path}", "--rounds", "1000",
                        "--store", "none")
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_S6_a_chart_for_another_table_or_deck_and_the_commands_that_do_not_play_charts(
        tmp_path, capsys):
    path, _ = _chart(capsys, tmp_path, "threshold:5:5", 4)
    cases = [
        (["rounds", "--policies", f"chart:{path}", "--players", "5"], "for 4 players"),
        (["rounds", "--policies", f"chart:{path}", "--deck", "french52"],
         "this deck's are 1 2 3"),
        (["rounds", "--policies", f"chart:{tmp_path}/none.csv"], "none.csv: no such file"),
        (["rounds", "--policies", f"chart:{path}", "--engine", "python"],
         "is a decision table"),
        (["games", "--policies", f"chart:{path}", "--games", "10"],
         "needs rows for every table size from 4 down to 2"),
        (["games", "--policies", f"chart:{path}", "--exact"], "is a keep chart"),
        (["exact", "--policies", f"chart:{path}"], "is a keep chart"),
        (["chart", "--policy", "random:0.5", "--out", str(tmp_path / "r.csv")],
         "random decides by chance"),
        (["chart", "--out", str(tmp_path / "r.txt")], "--out must name a .csv file"),
        (["chart", "--players", "9", "--out", str(tmp_path / "r.csv")], "at most 8 players"),
        (["chart", "--field", "random:0.5", "--out", str(tmp_path / "r.csv")],
         "--field must be a threshold or informed policy"),
    ]
    for args, message in cases:
        code, _, err = _cli(capsys, *args, *(["--store", "none"]
                                              if args[0] in ("rounds", "games") else []))
        assert code == 2, args
        assert message in err and len(err.strip().splitlines()) == 1, (args, err)
