"""Q11 in whole matches: a player's own function in ``matches``, ``compare`` and ``ladder``.

The match kernel keeps each user seat's observation up to date as the hand kernel does, with
what the ``ronda_match_v0`` observation adds in a match: the scores carried from earlier hands
(S2) and the hands each side has won (C2). The tests replay the kernel's matches on the
reference's :class:`MatchState` asking the same function with the environment's observation
(a checksum of every entry: one entry off and it plays another card), hold a function that
plays as ``greedy`` to the built-in's answers number for number, and check the one-line
refusals and the run keys.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from simcards.core.cli import main
from tests.ronda.user_functions import CHECKSUM, ILLEGAL
from tests.ronda.user_functions import write as _write

GREEDY = '''
from simcards.ronda.observation_kernel import greedy_under


def g(obs, legal):
    """greedy (Q3) in classic mode, where nothing is announced (C1)."""
    return greedy_under(obs, legal, False, False, True)


def gt(obs, legal):
    """The same with teams (D2)."""
    return greedy_under(obs, legal, True, False, True)
'''


def _cli(capsys, *args: str) -> tuple[int, dict | None, str]:
    code = main(["ronda", *args, "--json"] + ([] if "--store" in args else ["--store", "none"]))
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else None), out.err


def _numbers(out: dict) -> dict:
    return {k: v for k, v in out.items()
            if k not in ("policies", "policy_a", "policy_b", "engine", "user_policies",
                         "timing", "run", "store")}


MATCH_TABLES = [
    ("2", "{f}:g,greedy", ["--hands-to-win", "3"]),
    ("3", "greedy,{f}:g,{f}:g", ["--hands-to-win", "2"]),
    ("4", "{f}:gt,greedy,greedy,{f}:gt", ["--teams", "on", "--hands-to-win", "2"]),
]


@pytest.mark.parametrize(("players", "table", "flags"), MATCH_TABLES,
                         ids=[f"{p}p-{'-'.join(f)}" for p, _, f in MATCH_TABLES])
def test_Q11_a_function_that_plays_greedy_plays_greedys_matches(tmp_path, capsys, players,
                                                                 table, flags):
    """In classic mode greedy through the observation is Q3 at every decision and draws
    nothing, so its matches are the built-in's: every number of the answer is the same."""
    f = _write(tmp_path, "g.py", GREEDY)
    args = ["--players", players, "--mode", "classic", "--matches", "300", "--seed", "5",
            *flags]
    code, mine, err = _cli(capsys, "matches", "--policies", table.format(f=f), *args)
    assert code == 0, err
    assert mine["engine"] == "compiled" and list(mine["user_policies"]) == [
        e for e in dict.fromkeys(table.format(f=f).split(",")) if e != "greedy"]
    code, built, err = _cli(capsys, "matches", "--policies", "greedy", *args)
    assert code == 0, err
    assert _numbers(mine) == _numbers(built)


@pytest.mark.parametrize(("players", "a", "b"), [("2", "{f}:g", "random"),
                                                 ("3", "random", "{f}:g")])
def test_Q11_compare_seats_a_function_in_every_seating(tmp_path, capsys, players, a, b):
    """compare rotates the function through the seats of a deal set as it rotates a
    built-in: the function that plays as greedy gives greedy's duplicate answer."""
    f = _write(tmp_path, "g.py", GREEDY)
    args = ["--players", players, "--mode", "classic", "--hands-to-win", "2", "--deals", "150",
            "--seed", "6"]
    code, mine, err = _cli(capsys, "compare", a.format(f=f), b.format(f=f), *args)
    assert code == 0, err
    code, built, err = _cli(capsys, "compare", a.replace("{f}:g", "greedy"),
                            b.replace("{f}:g", "greedy"), *args)
    assert code == 0, err
    assert _numbers(mine) == _numbers(built)
    assert mine["user_policies"] == {f"{f}:g": mine["user_policies"][f"{f}:g"]}


def test_Q11_a_ladder_with_a_function_ranks_it_as_the_builtin_it_plays(tmp_path, capsys):
    """Each pairing of the function is compare with the pairing's seed, and gives the
    built-in's duplicate numbers at that seed; the standings are the built-in ladder's."""
    f = _write(tmp_path, "g.py", GREEDY) + ":g"
    args = ["--mode", "classic", "--deals", "40", "--seed", "7"]
    code, mine, err = _cli(capsys, "ladder", "--policies", f"random,{f},lookahead:1", *args)
    assert code == 0, err
    code, built, err = _cli(capsys, "ladder", "--policies", "random,greedy,lookahead:1", *args)
    assert code == 0, err
    (table,) = mine["tables"]
    assert [p.replace(f, "greedy") for p in table["order"]] == built["tables"][0]["order"]
    for q in table["pairings"]:
        a, b = (x.replace(f, "greedy") for x in (q["a"], q["b"]))
        code, again, err = _cli(capsys, "compare", a, b, "--mode", "classic", "--deals", "40",
                                "--seed", str(q["seed"]))
        assert code == 0, err
        assert {k: q[k] for k in ("win_rate_diff", "points_diff", "plays", "hands_mean")} == {
            k: again[k] for k in ("win_rate_diff", "points_diff", "plays", "hands_mean")}


MATCH_OBSERVATIONS = [
    {"players": 2, "target": 11, "target_check": "immediate"},
    {"players": 3, "target": 21, "announce": "every_deal"},
    {"players": 4, "teams": "on", "target": 11, "derba_chain": "tiers"},
    {"players": 2, "mode": "classic", "hands_to_win": 3},
    {"players": 3, "mode": "classic", "hands_to_win": 2},
]


@pytest.mark.parametrize("options", MATCH_OBSERVATIONS,
                         ids=lambda o: "-".join(map(str, o.values())))
def test_Q11_S2_C2_a_seat_sees_the_match_as_ronda_match_v0_shows_it(tmp_path, options):
    """The kernel's matches, replayed on the reference's MatchState with the same decks, ask
    the checksum function with the environment's match observation (scores carried, hands
    won) and play exactly the kernel's cards: the same winner, hands and scores."""
    from simcards.core.rng import chunk_state
    from simcards.core.userpolicy import load
    from simcards.ronda import reference as ref
    from simcards.ronda.match_kernel import record_matches
    from simcards.ronda.policies import policy_arrays
    from simcards.ronda.rules import RondaRules
    from simcards.ronda.table import observation_vector
    from simcards.ronda.users import user_seats

    user = load(_write(tmp_path, "checksum.py", CHECKSUM) + ":checksum")
    fn = user.function()
    rules = RondaRules.make(**options)
    n = rules.players
    specs = ["greedy" if p == 1 else user.text() for p in range(n)]
    seats = policy_arrays(specs)
    users = [None if p == 1 else user for p in range(n)]
    matches = 40
    rec = record_matches(chunk_state(31, 0, stream=5), matches, -1, seats, rules.kernel, 60,
                         user_seats(users, rules.kernel))
    _, first, results, scores, decks, _, _, _, _ = rec
    ropts = ref.RondaOptions(**rules.summary())
    legal = np.zeros(40, np.int8)
    for i in range(matches):
        winner, n_hands = int(results[i, 0]), int(results[i, 1])
        m = ref.MatchState(ropts, int(first[i]),
                           [[int(c) for c in decks[i, h]] for h in range(n_hands)])
        while not m.is_terminal():
            p = m.current_player()
            if users[p] is None:
                card = ref.greedy_policy(m.observation(p))
            else:
                legal[:] = 0
                legal[m.hand.hands[p]] = 1
                card = int(fn(observation_vector(m.hand, p, ropts, True, m.hands_won), legal))
            m.apply(card)
        assert (m.winner, m.hand_index + 1, list(m.scores())) == (
            winner, n_hands, scores[i].tolist()), f"match {i}"
    assert results[:, 1].max() > 1  # S2: some match carried its scores into a later hand


def test_Q11_a_card_not_held_stops_matches_and_compare_in_one_line(tmp_path, capsys):
    f = _write(tmp_path, "bad.py", ILLEGAL) + ":bad"
    line = f"simcards: error: {f} returned 40 at seat 1: not a legal action"
    code, _, err = _cli(capsys, "matches", "--policies", f"greedy,{f}", "--matches", "10",
                        "--dealer", "0")
    assert code == 2 and err.strip().startswith(line) and len(err.strip().splitlines()) == 1
    code, _, err = _cli(capsys, "compare", "greedy", f, "--deals", "10", "--dealer", "0")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"{f} returned 40 at seat" in err


UNCOMPILED = """
class Memo:
    pick = 0


def by_class(obs, legal):
    \"\"\"A class instance: numba cannot compile it.\"\"\"
    return int(legal.argmax()) + Memo.pick
"""


@pytest.mark.parametrize(("command", "args"), [
    ("matches", ["--policies", "{f},random", "--matches", "12", "--target", "11",
                 "--target-check", "immediate"]),
    ("matches", ["--players", "3", "--policies", "random,{f},{f}", "--matches", "6",
                 "--mode", "classic", "--hands-to-win", "2"]),
    ("compare", ["{f}", "random", "--deals", "5", "--target", "11"]),
], ids=["matches-2p-immediate", "matches-3p-classic", "compare-2p"])
def test_Q11_the_compiled_and_python_engines_play_the_same_matches(tmp_path, capsys, command,
                                                                  args):
    """The checksum function, compiled in the match kernel or asked by the reference's
    ``MatchState`` with the ``ronda_match_v0`` observation, plays the same matches from the
    same draws: every number of the answer is the same."""
    f = _write(tmp_path, "checksum.py", CHECKSUM) + ":checksum"
    got = {}
    for engine in ("compiled", "python"):
        code, out, err = _cli(capsys, command, *[a.format(f=f) for a in args], "--seed", "3",
                              "--workers", "1", "--engine", engine)
        assert code == 0, err
        assert out["engine"] == engine
        got[engine] = _numbers(out)
    assert got["compiled"] == got["python"]


def test_Q11_a_function_numba_cannot_compile_plays_matches_on_the_python_engine(
        tmp_path, capsys):
    """matches, compare and ladder play it on the Python engine, saying why in one line on
    stderr (once for a whole ladder); the JSON says which engine ran. That engine seats
    random, greedy and players' functions: a searching policy beside it is refused in one
    line, and ``--engine compiled`` refuses the function."""
    f = _write(tmp_path, "cls.py", UNCOMPILED) + ":by_class"
    for args in (["matches", "--policies", f"{f},greedy", "--matches", "4"],
                 ["compare", f, "greedy", "--deals", "3"],
                 ["ladder", "--policies", f"greedy,{f},random", "--deals", "3"]):
        code, out, err = _cli(capsys, *args, "--workers", "1")
        assert code == 0, err
        notice = [line for line in err.splitlines() if "Python engine" in line]
        assert len(notice) == 1 and f"numba cannot compile {f}" in notice[0]
        if args[0] == "ladder":
            assert len(out["tables"][0]["pairings"]) == 3
        else:
            assert out["engine"] == "python"
    for args in (["compare", f, "lookahead:1", "--deals", "3"],
                 ["ladder", "--policies", f"greedy,{f},lookahead:1", "--deals", "3"],
                 ["matches", "--policies", f"{f},greedy", "--engine", "compiled"]):
        code, _, err = _cli(capsys, *args)
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert (f"numba cannot compile {f}" in err
                and ("lookahead:1 searches in the kernel only" in err or "compiled" in err))


def test_Q11_a_card_not_held_stops_python_engine_matches_in_one_line(tmp_path, capsys):
    f = _write(tmp_path, "bad.py", ILLEGAL) + ":bad"
    for args in (["matches", "--policies", f"greedy,{f}", "--matches", "10"],
                 ["compare", "greedy", f, "--deals", "10"]):
        code, _, err = _cli(capsys, *args, "--dealer", "0", "--engine", "python")
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert err.startswith(f"simcards: error: {f} returned 40 at seat ")
        assert err.strip().endswith("not a legal action (a card id 0..39 of the seat's hand)")


def test_Q11_compare_run_key_follows_the_file(tmp_path, capsys):
    """The function's digest is in compare's answer and run key (and so in every ladder
    pairing's): an edited file is a new run, never the old chunks resumed."""
    path = _write(tmp_path, "g.py", GREEDY)
    store = str(tmp_path / "runs")
    args = ["compare", f"{path}:g", "random", "--mode", "classic", "--deals", "100",
            "--seed", "3", "--store", store]
    code, first, err = _cli(capsys, *args)
    assert code == 0, err
    Path(path).write_text(GREEDY.replace("greedy_under(obs, legal, False, False, True)",
                                         "int(legal.argmax())", 1))
    code, second, err = _cli(capsys, *args)
    assert code == 0, err
    assert first["user_policies"] != second["user_policies"]
    assert _numbers(first) != _numbers(second)
