"""S5: a player's own function as a Ronco policy, ``PATH.py:FUNCTION``.

The function reads the ``ronco_v0`` observation; the compiled round kernel keeps that
observation up to date itself, and the Python engine asks the environments' table for it. The
tests hold the two engines to each other on the same deals (every number of the answer), a
function to the built-in it imitates, and every bad input to one line and exit status 2.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from simcards.core.cli import main

# numba calls the first-class functions a user's function is passed as experimental
pytestmark = pytest.mark.filterwarnings("ignore:First-class function type")

T74 = '''
from simcards.ronco.observation_kernel import card, is_dealer


def t74(obs, legal):
    """threshold:7:4 under spanish40 (the value 7 is class 6, the value 4 class 3)."""
    if is_dealer(obs):
        return 0 if card(obs) >= 3 else 1
    return 0 if card(obs) >= 6 else 1
'''

PARITY = '''
def parity(obs, legal):
    """Decides by a checksum of the whole observation: two engines that agree on every
    decision of this function agree on every entry of every observation it was shown."""
    s = 0
    for k in range(obs.shape[0] - 1):
        if obs[k] > 0.5:
            s += (k * 7 + 3) * (k % 5 + 1)
    return (s // 3) % 2
'''

UNCOMPILED = '''
class Memo:
    limit = 5


def by_class(obs, legal):
    """A class instance: numba cannot compile it."""
    for k in range(10):
        if obs[k] > 0.5:
            return 0 if k >= Memo.limit else 1
    return 1
'''


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _run(capsys, *args: str) -> tuple[int, dict | None, str]:
    code = main(["ronco", "rounds", "--store", "none", "--json", *args])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else None), out.err


def _numbers(out: dict) -> dict:
    return {k: v for k, v in out.items()
            if k not in ("policies", "engine", "user_policies", "timing", "run", "store")}


def test_S5_a_function_deciding_like_threshold_7_4_gives_the_builtin_answer(tmp_path, capsys):
    """Deals do not depend on the policies: the function's answer is the built-in's, number
    for number, at the same seed."""
    path = _write(tmp_path, "mine.py", T74)
    code, mine, _ = _run(capsys, "--policy", f"{path}:t74", "--rounds", "100k", "--seed", "7")
    assert code == 0
    code, built, _ = _run(capsys, "--thresholds", "7,7,7,4", "--rounds", "100k", "--seed", "7")
    assert code == 0
    assert _numbers(mine) == _numbers(built)
    assert mine["policies"] == [f"{path}:t74"] * 4 and mine["engine"] == "compiled"
    assert list(mine["user_policies"]) == [f"{path}:t74"]


@pytest.mark.parametrize("table", [
    "{f},{f},{f},{f}",
    "{f},threshold:3:7,{f},{f},{f}",
    "random:0.3,{f},informed:6:4,{f}",
    "{f},threshold:4:6,random:0.7",
    "{f},{f},threshold,{f},{f},{f},{f},{f},{f}",
    "{f},random:0.6,{f},{f},{f},{f},{f},{f},{f}",
])
def test_S5_the_compiled_and_python_engines_agree_on_every_observation(tmp_path, capsys, table):
    """The kernel's decisions are the table engine's (the checksum policy would decide
    differently otherwise), with random seats drawing the same uniforms; every number of the
    two answers is the same. Up to 8 players the kernel reads each function's action in a
    table of every situation, asked once with the observation written for it; at 9 it asks
    the function at every decision, the observation kept up to date decision by decision."""
    f = _write(tmp_path, "parity.py", PARITY) + ":parity"
    spec = table.format(f=f)
    players = str(spec.count(",") + 1)
    got = {}
    for engine in ("compiled", "python"):
        code, out, err = _run(capsys, "--players", players, "--policies", spec,
                              "--rounds", "3000", "--seed", "11", "--engine", engine)
        assert code == 0, err
        assert out["engine"] == engine
        got[engine] = _numbers(out)
    assert got["compiled"] == got["python"]


def test_S5_the_engines_agree_under_other_decks_and_the_poroli_variant(tmp_path, capsys):
    f = _write(tmp_path, "parity.py", PARITY) + ":parity"
    for flags in (["--deck", "french52"], ["--poroli"], ["--deck", "spanish48",
                                                         "--ties", "first"]):
        answers = []
        for engine in ("compiled", "python"):
            code, out, err = _run(capsys, "--players", "5", "--policy", f, "--rounds", "2000",
                                  "--engine", engine, *flags)
            assert code == 0, err
            answers.append(_numbers(out))
        assert answers[0] == answers[1], flags


def test_S5_any_worker_count_gives_the_same_answer(tmp_path, capsys):
    f = _write(tmp_path, "mine.py", T74) + ":t74"
    answers = []
    for workers in ("1", "2"):
        code, out, err = _run(capsys, "--policy", f, "--rounds", "5M", "--workers", workers)
        assert code == 0, err
        answers.append(_numbers(out))
    assert answers[0] == answers[1]


def test_S5_a_function_numba_cannot_compile_plays_on_the_python_engine(tmp_path, capsys):
    """One line on stderr says why and which engine runs; the JSON says which engine ran;
    ``--engine compiled`` refuses it."""
    f = _write(tmp_path, "memo.py", UNCOMPILED) + ":by_class"
    code, out, err = _run(capsys, "--policy", f, "--rounds", "2000")
    assert code == 0
    assert out["engine"] == "python"
    notice = [line for line in err.splitlines() if "Python engine" in line]
    assert len(notice) == 1 and "numba cannot compile" in notice[0] and "by_class" in notice[0]
    code, _, err = _run(capsys, "--policy", f, "--rounds", "2000", "--engine", "compiled")
    assert code == 2
    assert err.strip().startswith("simcards: error: --engine compiled: numba cannot compile")
    assert len(err.strip().splitlines()) == 1


def test_S5_the_run_key_follows_the_file(tmp_path, capsys):
    """The function's digest (its file's text and name) is in the answer and the run's key:
    an edited file is a new run, never the old one resumed."""
    path = _write(tmp_path, "mine.py", T74)
    store = str(tmp_path / "runs")
    _, first, _ = _run(capsys, "--policy", f"{path}:t74", "--rounds", "20k")
    Path(path).write_text(T74.replace(">= 6", ">= 5"))
    main(["ronco", "rounds", "--policy", f"{path}:t74", "--rounds", "20k", "--store", store,
          "--json"])
    second = json.loads(capsys.readouterr().out)
    assert first["user_policies"] != second["user_policies"]
    assert first["p_lose"] != second["p_lose"]


BAD = [
    ("missing.py:f", "--policy: {tmp}/missing.py: no such file"),
    ("mine.py:nope", "--policy: {tmp}/mine.py has no function 'nope' (it defines t74)"),
    ("syntax.py:f", "--policy: {tmp}/syntax.py, line 1: syntax error: expected ':'"),
    ("args.py:f", "--policy: {tmp}/args.py:f must take two arguments (obs, legal); it takes "
                  "(obs)"),
    ("imports.py:f", "--policy: {tmp}/imports.py, line 1: ModuleNotFoundError: No module named "
                     "'nosuchmodule'"),
]


@pytest.mark.parametrize(("entry", "message"), BAD, ids=[b[0] for b in BAD])
def test_S5_a_bad_function_is_refused_in_one_line_before_any_deal(tmp_path, capsys, entry,
                                                                   message):
    _write(tmp_path, "mine.py", T74)
    _write(tmp_path, "syntax.py", "def f(obs, legal)\n    return 0\n")
    _write(tmp_path, "args.py", "def f(obs):\n    return 0\n")
    _write(tmp_path, "imports.py", "import nosuchmodule\n")
    code, _, err = _run(capsys, "--policy", f"{tmp_path}/{entry}", "--rounds", "1000")
    assert code == 2
    assert err.strip() == "simcards: error: " + message.format(tmp=tmp_path)


@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_S5_an_action_that_is_not_legal_stops_the_run_in_one_line(tmp_path, capsys, engine):
    f = _write(tmp_path, "two.py", "def two(obs, legal):\n    return 2\n") + ":two"
    code, _, err = _run(capsys, "--policy", f, "--rounds", "1000", "--engine", engine)
    assert code == 2
    assert err.strip() == (f"simcards: error: {f} returned 2 at position 0: not a legal "
                           "action (0 keep, 1 pass)")


IMPOSSIBLE = '''
from simcards.ronco.observation_kernel import REFUSED, action, card, position, top_class


def odd(obs, legal):
    """Not legal only where no seat can be: after a refusal, holding less than the top rank."""
    p = position(obs)
    if p > 0 and action(obs, p - 1) == REFUSED and card(obs) != top_class(obs):
        return 7
    return 0 if card(obs) >= 4 else 1
'''


def test_S5_an_action_is_refused_where_it_is_met_not_where_it_is_asked(tmp_path, capsys):
    """The table of every situation asks the function in situations no deal reaches: what it
    answers there is never played, so never refused."""
    f = _write(tmp_path, "odd.py", IMPOSSIBLE) + ":odd"
    code, out, err = _run(capsys, "--policy", f, "--rounds", "200k", "--seed", "3")
    assert code == 0, err
    code, built, _ = _run(capsys, "--policy", "threshold", "--rounds", "200k", "--seed", "3")
    assert _numbers(out) == _numbers(built)


def test_S5_a_function_and_flags_it_would_ignore_are_refused(tmp_path, capsys):
    f = _write(tmp_path, "mine.py", T74) + ":t74"
    code, _, err = _run(capsys, "--policy", f, "--threshold", "6")
    assert code == 2 and "--threshold" in err and "the function decides every position" in err
    code = main(["ronco", "exact", "--policies", f"{f},threshold,threshold,threshold"])
    err = capsys.readouterr().err
    assert code == 2 and "exact plays built-in policies only for now" in err
    code = main(["ronco", "games", "--exact", "--policies", f"{f},threshold,threshold,threshold"])
    err = capsys.readouterr().err
    assert code == 2 and "games --exact plays built-in policies only for now" in err


def test_S5_the_readers_read_the_environments_observation() -> None:
    """The readers of :mod:`simcards.ronco.observation_kernel`, in plain Python, against what
    the table engine knows, at every decision of random rounds of every size."""
    from simcards.ronco import observation_kernel as ob
    from simcards.ronco.rules import RoncoRules
    from simcards.ronco.table import CardTable, RoundState

    rng = random.Random(3)
    for rules in (RoncoRules.make(), RoncoRules.make(poroli=True),
                  RoncoRules.make(deck="french52")):
        table = CardTable.build(rules)
        for _ in range(60):
            n = rng.randint(2, 9)
            st = RoundState(table, n)
            for c in rng.sample(range(table.n_cards), n):
                st.apply_chance(c)
            while not st.done:
                i = st.current_player()
                if i < 0:
                    left = [c for c in range(table.n_cards) if c not in st.dealt]
                    st.apply_chance(rng.choice(left))
                    continue
                obs = st.observation(i)
                assert ob.players(obs) == n and ob.classes(obs) == table.n_classes
                assert ob.card(obs) == table.classes[st.cards[i]]
                assert ob.position(obs) == i and ob.is_dealer(obs) == (i == n - 1)
                assert [ob.action(obs, j) for j in range(n)] == [
                    *st.acts, *[ob.TO_ACT] * (n - len(st.acts))]
                dealt = table.classes[st.dealt[i]] if st.swapped_in[i] else -1
                assert ob.dealt(obs) == dealt and ob.cut(obs) == -1
                assert ob.refused_before(obs) == (ob.REFUSED in st.acts)
                st.play(rng.randint(0, 1))


def test_S5_a_seat_sees_only_its_observation() -> None:
    """The function is called with the observation vector and the mask, nothing else: no
    engine state is passed, so hidden cards cannot be read."""
    from simcards.core.userpolicy import UserPolicy

    seen = []
    source = "def f(obs, legal):\n    SEEN.append((obs, legal))\n    return 0\n"
    policy = UserPolicy("mem.py", "f", source)
    fn = policy.function()
    fn.__globals__["SEEN"] = seen
    from simcards.core.runner import chunk_state
    from simcards.ronco.policies import Policy
    from simcards.ronco.rules import RoncoRules
    from simcards.ronco.users import python_rounds

    rules = RoncoRules.make()
    pols = [Policy("user", user=policy)] * 3
    python_rounds(chunk_state(1, 0), 5, 3, np.full(3, 4, np.int64), rules, pols)
    assert seen and all(isinstance(o, np.ndarray) and o.dtype == np.float32
                        and list(m) == [1, 1] for o, m in seen)


def test_S5_the_python_api_takes_the_function_itself(tmp_path) -> None:
    """``simcards.ronco.rounds(policy=fn)`` and ``policies=[fn, ...]`` as the command line's
    ``PATH.py:FUNCTION``: the same answer; a function not defined in a file is refused."""
    import importlib.util

    import simcards.ronco
    from simcards.core.errors import UsageError

    path = _write(tmp_path, "mine.py", T74)
    spec = importlib.util.spec_from_file_location("mine_for_api", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    by_text = simcards.ronco.rounds(policy=f"{path}:t74", rounds="20k", store="none").to_dict()
    by_fn = simcards.ronco.rounds(policy=module.t74, rounds="20k", store="none").to_dict()
    assert _numbers(by_fn) == _numbers(by_text) and by_fn["policies"] == by_text["policies"]
    mixed = simcards.ronco.rounds(policies=[module.t74, "threshold", "threshold", "threshold"],
                                  rounds="20k", store="none").to_dict()
    assert mixed["policies"][0] == f"{path}:t74"
    with pytest.raises(UsageError, match=r"must be defined at the top level of a \.py file"):
        simcards.ronco.rounds(policy=lambda obs, legal: 0, rounds="1k", store="none")


def test_S5_the_python_engine_plays_the_compiled_chunks_deals_in_finer_chunks(
        tmp_path, capsys, monkeypatch):
    """The Python engine's chunks are a 64th of the compiled engine's (its progress moves and
    its finished chunks are kept every few seconds); each plays the deals of its place in the
    compiled chunk that holds them, so the answers agree across many chunks of both sizes."""
    from simcards.ronco import rounds_batch

    monkeypatch.setattr(rounds_batch, "ROUNDS_CHUNK", 4096)
    monkeypatch.setattr(rounds_batch, "PYTHON_CHUNK", 4096 // 64)
    f = _write(tmp_path, "parity.py", PARITY) + ":parity"
    got = []
    for engine in ("compiled", "python"):
        code, out, err = _run(capsys, "--policies", f"{f},random:0.4,{f}", "--players", "3",
                              "--rounds", "13000", "--seed", "2", "--engine", engine,
                              "--workers", "1")
        assert code == 0, err
        got.append(_numbers(out))
    assert got[0] == got[1]


RAISES = '''
def sometimes(obs, legal):
    """Compiles, and raises in some situations."""
    if obs.sum() > 3.0:
        raise ValueError("too many")
    return 0
'''


@pytest.mark.parametrize("players", ["6", "9"])
def test_S5_a_compiled_function_that_raises_stops_the_run_in_one_line(tmp_path, capsys, players):
    """A compiled function cannot raise into the kernel (numba would print the exception and
    answer 0, a keep): the exception is an answer no action has, refused where it is met,
    whether the function is asked once per situation (6 players) or at every decision (9)."""
    f = _write(tmp_path, "raises.py", RAISES) + ":sometimes"
    code, _, err = _run(capsys, "--policy", f, "--players", players, "--rounds", "1000")
    assert code == 2
    assert err.strip() == (f"simcards: error: {f} raised an exception at position 0 "
                           "(--engine python shows the exception, where the command takes it)")
    code, _, err = _run(capsys, "--policy", f, "--players", players, "--rounds", "1000",
                        "--engine", "python")
    assert code == 2
    assert err.strip() == f"simcards: error: {f} raised ValueError at position 0: too many"
