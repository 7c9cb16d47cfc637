"""``simcards romi melds``: the solver's answers (V1-V4 of ``seeds/romi.md``) through the command
line, for one hand and for a file of hands in order, and one line with exit status 2 for every
kind of bad input (D1)."""

from __future__ import annotations

import json
import random

import pytest

from simcards.core.cli import main
from simcards.romi import cards as C
from simcards.romi import melds_exact as M
from tests.cli_checks import assert_one_line_error

MELDS = ["romi", "melds", "--json"]


def _json(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _laid_value(texts: list[str], ace_low: int) -> int:
    """M6 of a lay-down given as the command prints it (``X=7h`` for a joker)."""
    total = 0
    for text in texts:
        cards = text.split()
        kinds = [C.kind(C.parse_hand(c[2:] if c.startswith("X=") else c)[0]) for c in cards]
        ranks = [k % 13 + 1 for k in kinds]
        is_set = len(set(ranks)) == 1
        low_run = not is_set and 1 in ranks and 2 in ranks
        for r in ranks:
            total += ace_low if (r == 1 and low_run) else (10 if r == 1 or r > 10 else r)
    return total


def test_v1_v4_worked_example_e6_through_the_command(capsys) -> None:
    out = _json(capsys, [*MELDS, "--hand", "Ah 2h 3h 4h 7c 7d 7s X 9s"])
    assert out["command"] == "melds" and out["rules"] == {"ace_low_value": 1}
    (row,) = out["hands"]
    assert (row["best_value"], row["min_penalty"], row["can_go_out"]) == (38, 9, True)
    assert sorted(row["melds"]) == ["7s 7d 7c X=7h", "Ah 2h 3h 4h"]
    assert _laid_value(row["melds"], 1) == 38


def test_m6_ace_low_value_changes_best_value(capsys) -> None:
    out = _json(capsys, [*MELDS, "--hand", "Ah 2h 3h", "--ace-low-value", "10"])
    assert out["hands"][0]["best_value"] == 15  # 10 + 2 + 3
    assert out["rules"] == {"ace_low_value": 10}


def test_file_of_hands_answers_every_hand_in_order(tmp_path, capsys) -> None:
    """300 random hands of 1-16 cards (duplicates and jokers included) in a file: the command's
    numbers equal the solver's, hand by hand and in order, and every printed lay-down is made
    of the hand's cards and is worth best_value."""
    rng = random.Random(4)
    deck = list(range(C.N_CARDS))
    hands = []
    for _ in range(300):
        hands.append(rng.sample(deck, rng.randint(1, 16)))
    path = tmp_path / "hands.txt"
    path.write_text("# hands\n\n" + "\n".join(C.format_hand(h) for h in hands) + "\n")
    out = _json(capsys, [*MELDS, "--file", str(path)])
    assert len(out["hands"]) == len(hands)
    for h, row in zip(hands, out["hands"], strict=True):
        a = M.solve(h)
        assert (row["best_value"], row["min_penalty"], row["can_go_out"]) == \
            (a.best_value, a.min_penalty, a.can_go_out)
        assert sorted(C.parse_hand(row["hand"])) == sorted(C.parse_hand(C.format_hand(h)))
        laid = [c if not c.startswith("X=") else "X" for m in row["melds"] for c in m.split()]
        pool = [C.kind(c) for c in h]
        for c in C.parse_hand(" ".join(laid)):
            pool.remove(C.kind(c))  # raises if the lay-down uses a card the hand lacks
        assert _laid_value(row["melds"], 1) == row["best_value"]


@pytest.mark.parametrize("argv, fragment", [
    (["--hand", "Ah 2h 1h"], "1h"),
    (["--hand", "Ah Ah Ah"], "more than two"),
    (["--hand", "X X X X X"], "joker"),
    (["--hand", " ".join(["2s"] * 2 + ["3s"] * 2 + ["4s"] * 2 + ["5s"] * 2 + ["6s"] * 2
                         + ["7s"] * 2 + ["8s"] * 2 + ["9s"] * 2 + ["Ts"])], "at most 16"),
    ([], "exactly one of --hand and --file"),
    (["--hand", "Ah", "--file", "x.txt"], "exactly one of --hand and --file"),
    (["--file", "no/such/file.txt"], "no such file"),
    (["--hand", "Ah 2h 3h", "--ace-low-value", "11"],
     "--ace-low-value must be between 1 and 10 (rule M6), got 11"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, fragment) -> None:
    assert main(["romi", "melds", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert fragment in err


def test_bad_line_in_a_file_names_the_line(tmp_path, capsys) -> None:
    path = tmp_path / "hands.txt"
    path.write_text("Ah 2h 3h\n7c 7d Zz\n")
    assert main(["romi", "melds", "--file", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "line 2" in err and "\n" not in err


@pytest.mark.parametrize("argv, fragment", [
    (["--hand", ""], "holds no card"),
    (["--hand", ",,,"], "holds no card"),
    (["--file", ""], "--file is empty"),
])
def test_an_empty_hand_or_file_name_is_one_line_and_exit_2(capsys, argv, fragment) -> None:
    assert_one_line_error(capsys, ["romi", "melds", *argv], fragment)


def test_a_file_line_of_separators_only_is_refused_naming_the_line(tmp_path, capsys) -> None:
    path = tmp_path / "hands.txt"
    path.write_text("Ah 2h 3h\n,,,\n")
    assert_one_line_error(capsys, ["romi", "melds", "--file", str(path)], "line 2")


def test_a_file_with_a_byte_order_mark_is_read(tmp_path, capsys) -> None:
    path = tmp_path / "hands.txt"
    path.write_bytes("\ufeffAh 2h 3h\n7c 7d 7s\n".encode())
    out = _json(capsys, [*MELDS, "--file", str(path)])
    assert [h["hand"] for h in out["hands"]] == ["Ah 2h 3h", "7c 7d 7s"]
    assert [h["best_value"] for h in out["hands"]] == [6, 21]


def test_the_table_printout_keeps_whole_headings_in_a_narrow_terminal(capsys,
                                                                      monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    assert main(["romi", "melds", "--hand", "Ah 2h 3h 4h 7c 7d 7s X 9s"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["hand", "best_value", "min_penalty", "can_go_out", "melds"]
    cells = lines[3].split("  ")
    assert [c.strip() for c in cells if c.strip()][:4] == [
        "Ah 2h 3h 4h 7c 7d 7s X 9s", "38", "9", "yes"]


def test_the_help_gives_policy_defaults_and_ranges_and_breaks_no_sentence() -> None:
    """``threshold`` alone is threshold:70 and ``rummy`` alone rummy:3, and --help says so with
    the ranges (K 0..14, X --open-min..1000, --open-min 1 .. 140), written from the kinds'
    declaration; every command's
    line in ``romi --help`` is its docstring's first paragraph, one line, so that no sentence
    is broken where the source text was."""
    from simcards.core.cli import command
    from simcards.romi.policies import KINDS

    assert KINDS.parse("threshold").values == (70,) and KINDS.parse("rummy").values == (3,)
    romi = command().commands["romi"]  # type: ignore[attr-defined]
    helps = {p.name: p.help for p in romi.commands["games"].params}
    assert "rummy:K (Q3: " in helps["policies"] and "K 0..14, default 3" in helps["policies"]
    assert "X --open-min..1000, default 70" in helps["policies"]
    assert "1 .. 140" in helps["open_min"] and "1 .. 100" in helps["rounds"]
    compare = {p.name: p.help for p in romi.commands["compare"].params}
    assert "X --open-min..1000, default 70" in compare["policy_a"]
    for name, cmd in romi.commands.items():
        first = cmd.help.strip().split("\n\n")[0]
        assert "\n" not in first, (name, first)


@pytest.mark.parametrize("argv", [
    ["romi", "rounds", "--players", "2", "--policies", "random", "--rounds", "4"],
    ["romi", "games", "--players", "3", "--policies", "greedy,random,greedy", "--rounds", "1",
     "--games", "2"],
    ["romi", "compare", "random", "greedy", "--players", "2", "--rounds", "1", "--deals", "2"],
    ["romi", "ladder", "--policies", "greedy,random", "--players", "2", "--rounds", "1",
     "--deals", "2"],
], ids=["rounds", "games", "compare", "ladder"])
def test_random_is_played_by_the_batch_commands_on_the_table_engine(capsys, argv) -> None:
    """Q6: ``random`` picks one legal move at a time; the compiled engine decides whole turns
    and has no such player, so the batch commands play a run with a random seat on the table
    engine, and say so."""
    assert main([*argv, "--workers", "1", "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    engines = [p["engine"] for t in out["tables"] for p in t["pairings"]] \
        if out["command"] == "ladder" else [out["engine"]]
    assert engines == ["table"] * len(engines)
    assert "random plays on the table engine" in captured.err


def test_random_stays_a_seat_of_the_table_environments() -> None:
    from simcards.envs import seat_env

    env = seat_env("romi_v0", policies="random", players=2)
    obs, _ = env.reset(seed=3)
    mask = obs["action_mask"] if isinstance(obs, dict) else None
    assert obs is not None and (mask is None or mask.any())
