"""Q9: a player's own function as a Römi policy, ``PATH.py:FUNCTION``.

The function reads the ``romi_v0`` observation and action mask and is asked for each action
code on the table engine. The tests hold a function that returns what a built-in would to that
built-in's answer (every number), the readers to the state they read, any worker count to one
answer, and every bad input to one line and exit status 2.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from simcards.core.cli import main
from simcards.romi import table_batch as TB
from tests.cli_checks import assert_one_line_error

BUILTINS = '''
from simcards.romi.policy_functions import expert, greedy


def g(obs, legal):
    return greedy(obs, legal)


def e(obs, legal):
    return expert(obs, legal)
'''

NO_EARLY = '''
from simcards.romi.observation_kernel import DRAW_DISCARD, DRAW_STOCK, i_opened
from simcards.romi.policy_functions import expert


def no_early(obs, legal):
    move = expert(obs, legal)
    return DRAW_STOCK if move == DRAW_DISCARD and not i_opened(obs) else move
'''


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _run(capsys, *args: str) -> tuple[int, dict | None, str]:
    code = main(["romi", *args, "--store", "none", "--json"])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else None), out.err


def _numbers(out: dict) -> dict:
    return {k: v for k, v in out.items()
            if k not in ("policies", "a", "b", "user_policies", "timing", "run", "store")}


@pytest.mark.parametrize(("fn", "builtin", "run"), [
    ("g", "greedy", ["rounds", "--rounds", "16", "--seed", "3"]),
    ("e", "expert", ["rounds", "--rounds", "16", "--seed", "2"]),
    ("g", "greedy", ["games", "--games", "3", "--rounds", "2", "--seed", "1"]),
], ids=["rounds-greedy", "rounds-expert", "games-greedy"])
def test_Q9_a_function_returning_the_builtins_code_gives_the_builtins_answer(
        tmp_path, capsys, fn, builtin, run):
    """``random,user.py:g`` (g returns ``greedy(obs, legal)``) and ``random,greedy`` at the same
    seed: every number of the answer is the same; the JSON says the table engine played it and
    carries the function's digest; one line on stderr says so before the run."""
    f = _write(tmp_path, "mine.py", BUILTINS) + f":{fn}"
    base = [*run, "--players", "2"]
    code, mine, err = _run(capsys, *base, "--policies", f"random,{f}")
    assert code == 0, err
    code, built, _ = _run(capsys, *base, "--policies", f"random,{builtin}")
    assert code == 0
    assert _numbers(mine) == _numbers(built)
    assert mine["policies"] == ["random", f] and mine["engine"] == "table"
    assert list(mine["user_policies"]) == [f]
    assert [line for line in err.splitlines() if "table engine" in line] == [
        f"romi: random and {f} play on the table engine (about 200 rounds a second), not the "
        "compiled one"]


def test_Q9_the_builtin_functions_play_the_table_seats_codes() -> None:
    """At every decision of the built-in seats (``KernelPolicy``) of 32 random 3-player rounds,
    ``greedy``, ``rummy``, ``threshold`` and ``expert`` of :mod:`simcards.romi.policy_functions`
    return the first code of the seat's move, given the seat's observation alone, wherever the
    table's melds lie in the observation's order. (An opening's melds are put down by the
    engine's seats in an order of their own, which the observation does not hold: there the
    first table meld an addition goes to may differ.)"""
    from simcards.core.table import CHANCE, TERMINAL
    from simcards.romi import policy_functions as PF
    from simcards.romi.rules import RomiRules
    from simcards.romi.table import RomiSetup, RomiTable

    rules = RomiRules.make(players=3)
    specs = ["random", "greedy", "expert", "rummy:4", "threshold:60"]
    fns = {"greedy": PF.greedy, "expert": PF.expert,
           "rummy:4": lambda o, m: PF.rummy(o, m, 4),
           "threshold:60": lambda o, m: PF.threshold(o, m, 60)}
    checked = 0
    for i in range(32):
        rng = random.Random(i)
        names = [specs[0], specs[1 + i % 4], specs[1 + (i + 1) % 4]]
        seats = TB.seats_for(rules, names)
        st = RomiTable(RomiSetup(rules, None, False))
        while (p := st.current_player()) != TERMINAL:
            if p == CHANCE:
                st.deal(rng)
                continue
            move = seats[p](st, rng)
            if p and st.laid == sorted(st.laid):
                got = fns[names[p]](st.observation(p), None)
                assert got == st.path(move)[0], (i, names[p], st.round.turn)
                checked += 1
            st.play(move)
    assert checked > 500


def test_Q9_any_worker_count_gives_the_same_answer(tmp_path, capsys, monkeypatch) -> None:
    """The chunks made small, so that the run has several: two workers give the one worker's
    JSON byte for byte, for rounds and compare."""
    monkeypatch.setattr(TB, "CHUNK_ROUNDS", dict.fromkeys(range(2, 6), 4))
    f = _write(tmp_path, "mine.py", BUILTINS) + ":g"
    for args in (["rounds", "--players", "2", "--policies", f"random,{f}", "--rounds", "12"],
                 ["compare", f, "random", "--players", "2", "--rounds", "1", "--deals", "4"]):
        answers = []
        for workers in ("1", "2"):
            code, out, err = _run(capsys, *args, "--workers", workers, "--seed", "5")
            assert code == 0, err
            answers.append(json.dumps(out | {"timing": None, "run": None}))
        assert answers[0] == answers[1]


def test_Q9_the_run_key_follows_the_file(tmp_path, capsys) -> None:
    """The function's digest (its file's text and name) is in the answer and the run's key: an
    edited file is a new run, never the old one resumed."""
    path = _write(tmp_path, "mine.py", BUILTINS)
    store = str(tmp_path / "runs")
    argv = ["romi", "rounds", "--players", "2", "--policies", f"random,{path}:g", "--rounds",
            "4", "--store", store, "--json"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    Path(path).write_text(BUILTINS + "\n# edited\n")
    assert main(argv) == 0
    second = json.loads(capsys.readouterr().out)
    assert first["user_policies"] != second["user_policies"]
    assert len(list(Path(store).glob("romi-rounds-*"))) == 2


def test_Q9_compare_and_ladder_seat_a_function(tmp_path, capsys) -> None:
    """compare A B with A a function returning expert's code is expert against B, number for
    number; the ladder's pairings play on the table engine with the function's digest."""
    f = _write(tmp_path, "mine.py", BUILTINS) + ":e"
    base = ["--players", "2", "--rounds", "1", "--deals", "3", "--seed", "4"]
    code, mine, err = _run(capsys, "compare", f, "random", *base)
    assert code == 0, err
    code, built, _ = _run(capsys, "compare", "expert", "random", *base)
    assert code == 0
    assert _numbers(mine) == _numbers(built) and mine["a"] == f
    code, lad, err = _run(capsys, "ladder", "--policies", f"random,{f}", "--players", "2",
                          "--rounds", "1", "--deals", "2")
    assert code == 0, err
    assert [p["engine"] for p in lad["tables"][0]["pairings"]] == ["table"]
    assert err.count("table engine") == 1



def test_Q9_an_edited_function_is_another_ladder(tmp_path, capsys) -> None:
    """The ladder's own record is keyed by each function's digest as well as its text: the
    same command after an edit keeps a second record beside the first."""
    path = _write(tmp_path, "mine.py", BUILTINS)
    store = str(tmp_path / "runs")
    argv = ["romi", "ladder", "--policies", f"random,{path}:e", "--players", "2", "--rounds",
            "1", "--deals", "2", "--store", store, "--json"]
    assert main(argv) == 0
    capsys.readouterr()
    Path(path).write_text(BUILTINS + "\n# edited\n")
    assert main(argv) == 0
    capsys.readouterr()
    assert len(list(Path(store).glob("romi-ladder-*"))) == 2


BAD = [
    ("missing.py:f", "--policies: {tmp}/missing.py: no such file"),
    ("mine.py:nope", "--policies: {tmp}/mine.py has no function 'nope' (it defines g, e)"),
    ("syntax.py:f", "--policies: {tmp}/syntax.py, line 1: syntax error: expected ':'"),
    ("args.py:f", "--policies: {tmp}/args.py:f must take two arguments (obs, legal); it takes "
                  "(obs)"),
]


@pytest.mark.parametrize(("entry", "message"), BAD, ids=[b[0] for b in BAD])
def test_Q9_a_bad_function_is_refused_in_one_line_before_any_deal(tmp_path, capsys, entry,
                                                                   message) -> None:
    _write(tmp_path, "mine.py", BUILTINS)
    _write(tmp_path, "syntax.py", "def f(obs, legal)\n    return 0\n")
    _write(tmp_path, "args.py", "def f(obs):\n    return 0\n")
    code, _, err = _run(capsys, "rounds", "--players", "2", "--policies",
                        f"greedy,{tmp_path}/{entry}", "--rounds", "10")
    assert code == 2
    assert err.strip() == "simcards: error: " + message.format(tmp=tmp_path)
    code, _, err = _run(capsys, "compare", f"{tmp_path}/{entry}", "greedy", "--deals", "2")
    assert code == 2
    assert err.strip() == "simcards: error: " + message.format(tmp=tmp_path).replace(
        "--policies", "policy A")


def test_Q9_an_illegal_code_or_a_raise_stops_the_run_in_one_line(tmp_path, capsys) -> None:
    """After the table engine's notice, one line naming the function, the seat and the code
    (or the exception), exit status 2; a search seat cannot join a table-engine run."""
    path = _write(tmp_path, "bad.py", "def swap35(obs, legal):\n    return 4599\n\n\n"
                                      "def oops(obs, legal):\n    return 1 // 0\n")
    base = ["romi", "rounds", "--players", "2", "--rounds", "4", "--store", "none",
            "--dealer", "0", "--policies"]
    for fn, line in (("swap35", "returned 4599 at seat 1: not a legal action (an action code "
                                "of romi_v0 whose action_mask entry is 1)"),
                     ("oops", "raised ZeroDivisionError at seat 1: integer division or modulo "
                              "by zero")):
        assert main([*base, f"greedy,{path}:{fn}"]) == 2
        out = capsys.readouterr()
        assert out.out == ""
        assert out.err.splitlines() == [
            f"romi: {path}:{fn} plays on the table engine (about 200 rounds a second), not the "
            "compiled one", f"simcards: error: {path}:{fn} {line}"]
    assert_one_line_error(capsys, [*base, f"search:2,{path}:oops"],
                          f"--policies: {path}:oops plays on the table engine, which has no "
                          "search seat: search:2 cannot play with it (rules Q6-Q9)")


def test_Q9_the_readers_read_the_environments_observation() -> None:
    """The readers of :mod:`simcards.romi.observation_kernel`, in plain Python, against the table
    state, at every decision of random rounds of 2 to 5 players (and a game's observation)."""
    from simcards.core.table import CHANCE, TERMINAL
    from simcards.romi import cards as C
    from simcards.romi import observation_kernel as ob
    from simcards.romi import reference as ref
    from simcards.romi import table_codes as T
    from simcards.romi.actions import NO_JOKER, Discard
    from simcards.romi.rules import RomiRules
    from simcards.romi.table import RomiSetup, RomiTable

    rng = random.Random(5)
    seen = 0
    for n in (2, 3, 4, 5):
        for game in (False, True):
            rules = RomiRules.make(players=n)
            st = RomiTable(RomiSetup(rules, None, game))
            for _ in range(120):
                p = st.current_player()
                if p == TERMINAL:
                    break
                if p == CHANCE:
                    st.deal(rng)
                    continue
                r = st.round
                obs = st.observation(p)
                assert ob.players(obs) == n and bool(ob.is_game(obs)) == game
                kinds = np.zeros(53, np.int64)
                for c in r.hands[p]:
                    kinds[C.kind(c)] += 1
                assert list(ob.hand(obs)) == list(kinds) and ob.hand_size(obs) == len(r.hands[p])
                assert ob.phase(obs) == {ref.FIRST: ob.FIRST, ref.DRAW: ob.DRAW}.get(
                    r.phase, ob.MELD)
                assert bool(ob.is_drawing(obs)) == (r.phase == ref.DRAW)
                assert ob.top(obs) == (C.kind(r.discards[-1]) if r.discards else -1)
                assert ob.cut(obs) == C.kind(r.cut_card)
                assert bool(ob.cut_taken(obs)) == (r.cut is None)
                assert list(ob.hand_sizes(obs)) == [len(r.hands[(p + q) % n]) for q in range(n)]
                assert [bool(ob.has_opened(obs, q)) for q in range(n)] == [
                    bool(r.opened[(p + q) % n]) for q in range(n)]
                assert ob.i_opened(obs) == bool(r.opened[p])
                assert ob.others_opened(obs) == sum(bool(r.opened[q]) for q in range(n) if q != p)
                assert ob.stock(obs) == len(r.stock) and ob.turn(obs) == r.turn
                assert ob.dealer(obs) == (st._dealer() - p) % n
                assert ob.table_melds(obs) == len(r.table)
                for m, meld in enumerate(r.table):
                    assert {k for k in range(53) if ob.meld_kinds(obs, m)[k]} == {
                        C.kind(c) for c in meld.cards}
                    assert ob.meld_owner(obs, m) == (r.owners[m] - p) % n
                    stands = meld.stands_for if meld.stands_for != NO_JOKER else -1
                    assert ob.meld_joker_as(obs, m) == stands
                assert bool(ob.may_open(obs)) == (r.turns_played[p] >= 1)
                assert bool(ob.is_melding(obs)) == (r.phase != ref.DRAW)
                assert [bool(ob.has_drawn(obs, q)) for q in range(n)] == [
                    bool(r.has_drawn[(p + q) % n]) for q in range(n)]
                for q in range(1, n):
                    held = np.zeros(53, np.int64)
                    for c in st.known[(p + q) % n]:
                        held[C.kind(c)] += 1
                    assert list(ob.known(obs, q)) == list(held)
                must = r.must_place if r.must_place in r.hands[p] else None
                assert ob.must_place(obs) == (-1 if must is None else C.kind(must))
                pile = np.zeros(53, np.int64)
                for c in r.discards:
                    pile[C.kind(c)] += 1
                assert list(ob.pile(obs)) == list(pile)
                seen += 1
                st.play(rng.choice(list(st.moves().values())))
    assert seen > 500
    for k in range(53):
        assert ob.discard(k) == T.discard_code(Discard(k if k < 52 else C.JOKER0))
        assert ob.discarded_kind(ob.discard(k)) == k
        assert k == 52 or ob.kind(ob.rank_of(k), ob.suit_of(k)) == k
    assert T.action_text(ob.add(3, ob.JOKER_HIGH)) == "add X at the high end of meld 3"
    assert T.action_text(ob.swap(2)) == "swap the joker of meld 2"
    assert T.action_text(ob.meld(0)) == "meld As 2s 3s"


def test_Q9_the_python_api_takes_the_function_itself(tmp_path) -> None:
    """``simcards.romi.rounds(policies=[..., fn])`` reads the function as ``PATH.py:FUNCTION``:
    the same answer as the text."""
    import importlib.util

    import simcards.romi

    path = _write(tmp_path, "mine.py", NO_EARLY)
    spec = importlib.util.spec_from_file_location("mine_for_romi_api", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    by_text = simcards.romi.rounds(players=2, policies=f"greedy,{path}:no_early", rounds=4,
                                   store="none").to_dict()
    by_fn = simcards.romi.rounds(players=2, policies=["greedy", module.no_early], rounds=4,
                                 store="none").to_dict()
    assert _numbers(by_fn) == _numbers(by_text)
    assert by_fn["policies"] == by_text["policies"] == ["greedy", f"{path}:no_early"]


def test_Q9_the_chunks_finished_before_a_failing_decision_are_kept(tmp_path, monkeypatch) -> None:
    """A function that raises late in a run (past turn 40 of a round) stops it with its one
    line, and the chunks played before are in the store."""
    import simcards.romi
    from simcards.core.errors import UsageError

    monkeypatch.setattr(TB, "CHUNK_ROUNDS", dict.fromkeys(range(2, 6), 2))
    path = _write(tmp_path, "late.py", "from simcards.romi.observation_kernel import turn\n"
                                       "from simcards.romi.policy_functions import greedy\n\n\n"
                                       "def late(obs, legal):\n"
                                       "    if turn(obs) > 40:\n"
                                       "        raise RuntimeError('too long')\n"
                                       "    return greedy(obs, legal)\n")
    store = tmp_path / "runs"
    with pytest.raises(UsageError, match=f"^{path}:late raised RuntimeError at seat 1: too long$"):
        simcards.romi.rounds(players=2, policies=f"random,{path}:late", rounds=40, seed=1,
                             store=str(store), workers=1)
    [run] = list(store.glob("romi-rounds-*"))
    assert len(list((run / "chunks").glob("*.parquet"))) == 5


def test_Q9_a_seat_never_follows_the_plan_of_another_rotations_table(monkeypatch) -> None:
    """compare replays each deck once per rotation; a near copy of expert against expert makes
    the same turn, hand and deck recur on another table. The table engine's seats key their
    plans by the table at the draw too: this chunk (which once played a plan made for another
    rotation's table, adding to a meld that was not there) gives the statistics of seats that
    forget every plan at each new round."""
    from simcards.core.rng import chunk_state
    from simcards.core.runner import stream_id
    from simcards.romi import api
    from simcards.romi import compare_batch as RC
    from simcards.romi.rules import RomiRules
    from simcards.romi.table import KernelPolicy

    root = Path(__file__).resolve().parents[2]
    rules = RomiRules.make(players=4, rounds=1)
    a = api.compare_policy(f"{root}/scripts/strategies/romi_no_early_discard.py:no_early_discard",
                           "policy A", rules)
    fn, cfg, _ = TB.compare_batch(rules, a, api.compare_policy("expert", "policy B", rules), None)
    state = chunk_state(1, 1, stream_id(RC.STREAM))
    kept = fn(state, 15, cfg)
    played = KernelPolicy.__call__

    def forgetful(self, st, rng):
        if getattr(self, "_round", None) is not st.round:
            self.plans.clear()
            self._round = st.round
        return played(self, st, rng)

    monkeypatch.setattr(KernelPolicy, "__call__", forgetful)
    fresh = fn(state, 15, cfg)
    assert int(kept["rounds"][0]) == 60
    assert {k: v.tolist() for k, v in kept.items()} == {k: v.tolist() for k, v in fresh.items()}
