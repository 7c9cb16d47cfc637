"""Q11: a player's own function as a Ronda policy, ``PATH.py:FUNCTION``.

The function reads the ``ronda_v0`` observation; the compiled hand kernel keeps that
observation up to date itself, play by play, and the Python engine asks the environments' table
for it. The tests hold the two engines to each other on the same hands (every number of the
answer), a function to the built-in it imitates, and every bad input to one line and exit
status 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from simcards.core.cli import main
from tests.ronda.user_functions import CHECKSUM, ILLEGAL
from tests.ronda.user_functions import write as _write

ROOT = Path(__file__).resolve().parents[2]
LOWEST = (ROOT / "scripts" / "strategies" / "ronda_lowest.py").read_text()

UNCOMPILED = '''
class Memo:
    pick = 0


def by_class(obs, legal):
    """A class instance: numba cannot compile it."""
    for c in range(40):
        if legal[c]:
            return c + Memo.pick
    return -1
'''


def _run(capsys, *args: str) -> tuple[int, dict | None, str]:
    code = main(["ronda", "hands", "--store", "none", "--json", *args])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else None), out.err


def _numbers(out: dict) -> dict:
    return {k: v for k, v in out.items()
            if k not in ("policies", "engine", "user_policies", "timing", "run", "store")}


PARITY_TABLES = [
    ("2", "{f},greedy", []),
    ("2", "random,{f}", ["--announce", "every_deal"]),
    ("3", "{f},random,{f}", []),
    ("3", "greedy,{f},greedy", ["--derba-chain", "tiers", "--dealer", "1"]),
    ("4", "{f},greedy,random,{f}", []),
    ("4", "{f},{f},greedy,random", ["--teams", "on", "--announce-conflict",
                                    "highest_takes_all"]),
    ("4", "greedy,{f},random,greedy", ["--mode", "classic"]),
]


@pytest.mark.parametrize(("players", "table", "flags"), PARITY_TABLES,
                         ids=[f"{p}p-{'-'.join(f) or 'default'}" for p, _, f in PARITY_TABLES])
def test_Q11_the_compiled_and_python_engines_agree_on_every_observation(tmp_path, capsys,
                                                                         players, table, flags):
    """The kernel's observation, kept up to date play by play, is the table engine's (the
    checksum policy would play another card otherwise), with random seats drawing the same
    uniforms and greedy seats deciding alike; every number of the two answers is the same,
    for 2, 3 and 4 players and under the switches that change what a seat sees (teams,
    announcements, chains, classic mode)."""
    f = _write(tmp_path, "checksum.py", CHECKSUM) + ":checksum"
    got = {}
    for engine in ("compiled", "python"):
        code, out, err = _run(capsys, "--players", players, "--policies", table.format(f=f),
                              "--hands", "120", "--seed", "11", "--engine", engine, *flags)
        assert code == 0, err
        assert out["engine"] == engine and out["violations"] == 0
        got[engine] = _numbers(out)
    assert got["compiled"] == got["python"]



def test_Q11_the_python_engine_plays_the_compiled_chunks_hands_in_finer_chunks(
        tmp_path, capsys, monkeypatch):
    """The Python engine's chunks are a 64th of the compiled engine's (its progress moves and
    its finished chunks are kept every second or so); each plays the hands of its place in the
    compiled chunk that holds them, so the answers agree across many chunks of both sizes."""
    from simcards.ronda import hands_batch

    monkeypatch.setattr(hands_batch, "chunk_size", lambda specs: 128)
    f = _write(tmp_path, "checksum.py", CHECKSUM) + ":checksum"
    got = []
    for engine in ("compiled", "python"):
        code, out, err = _run(capsys, "--players", "3", "--policies", f"{f},random,greedy",
                              "--hands", "700", "--seed", "4", "--engine", engine,
                              "--workers", "1")
        assert code == 0, err
        got.append(_numbers(out))
    assert got[0] == got[1]
    assert hands_batch.chunk_plan([], "python")[1] == 2  # 700 hands: 6 and 350 chunks

def test_Q11_any_worker_count_gives_the_same_answer(tmp_path, capsys):
    f = _write(tmp_path, "low.py", LOWEST) + ":lowest"
    answers = []
    for workers in ("1", "2"):
        code, out, err = _run(capsys, "--policies", f"{f},greedy", "--hands", "70k",
                              "--workers", workers)
        assert code == 0, err
        answers.append(_numbers(out))
    assert answers[0] == answers[1]


def test_Q11_a_function_numba_cannot_compile_plays_on_the_python_engine(tmp_path, capsys):
    """One line on stderr says why and which engine runs; the JSON says which engine ran;
    ``--engine compiled`` refuses it."""
    f = _write(tmp_path, "memo.py", UNCOMPILED) + ":by_class"
    code, out, err = _run(capsys, "--policies", f"{f},greedy", "--hands", "30")
    assert code == 0, err
    assert out["engine"] == "python"
    notice = [line for line in err.splitlines() if "Python engine" in line]
    assert len(notice) == 1 and "numba cannot compile" in notice[0] and "by_class" in notice[0]
    code, _, err = _run(capsys, "--policies", f"{f},greedy", "--hands", "30", "--engine",
                        "compiled")
    assert code == 2
    assert err.strip().startswith("simcards: error: --engine compiled: numba cannot compile")
    assert len(err.strip().splitlines()) == 1


def test_Q11_the_python_engine_seats_no_searching_policy(tmp_path, capsys):
    f = _write(tmp_path, "low.py", LOWEST) + ":lowest"
    code, _, err = _run(capsys, "--policies", f"{f},lookahead:1", "--hands", "10",
                        "--engine", "python")
    assert code == 2
    assert err.strip() == ("simcards: error: --engine python plays random, greedy and your own "
                           "functions (PATH.py:FUNCTION); lookahead:1 searches in the kernel "
                           "only (use --engine compiled)")


def test_Q11_the_run_key_follows_the_file(tmp_path, capsys):
    """The function's digest (its file's text and name) is in the answer and the run's key:
    an edited file is a new run, never the old one resumed."""
    path = _write(tmp_path, "low.py", LOWEST)
    store = str(tmp_path / "runs")
    args = ["ronda", "hands", "--policies", f"{path}:lowest,greedy", "--hands", "2000",
            "--store", store, "--json"]
    main(args)
    first = json.loads(capsys.readouterr().out)
    Path(path).write_text(LOWEST.replace("range(40)", "range(39, -1, -1)"))
    main(args)
    second = json.loads(capsys.readouterr().out)
    assert first["user_policies"] != second["user_policies"]
    assert first["points_mean"] != second["points_mean"]


BAD = [
    ("missing.py:f", "--policies: {tmp}/missing.py: no such file"),
    ("low.py:nope", "--policies: {tmp}/low.py has no function 'nope' (it defines lowest)"),
    ("syntax.py:f", "--policies: {tmp}/syntax.py, line 1: syntax error: expected ':'"),
    ("args.py:f", "--policies: {tmp}/args.py:f must take two arguments (obs, legal); it takes "
                  "(obs)"),
]


@pytest.mark.parametrize(("entry", "message"), BAD, ids=[b[0] for b in BAD])
def test_Q11_a_bad_function_is_refused_in_one_line_before_any_deal(tmp_path, capsys, entry,
                                                                    message):
    _write(tmp_path, "low.py", LOWEST)
    _write(tmp_path, "syntax.py", "def f(obs, legal)\n    return 0\n")
    _write(tmp_path, "args.py", "def f(obs):\n    return 0\n")
    code, _, err = _run(capsys, "--policies", f"{tmp_path}/{entry},greedy", "--hands", "10")
    assert code == 2
    assert err.strip() == "simcards: error: " + message.format(tmp=tmp_path)



@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_Q11_a_card_not_held_stops_the_run_in_one_line(tmp_path, capsys, engine):
    """A card the seat does not hold is never played: the run stops with one line naming the
    function, the seat and the card (the function returns 40 from its second play on)."""
    f = _write(tmp_path, "bad.py", ILLEGAL) + ":bad"
    code, _, err = _run(capsys, "--policies", f"greedy,{f}", "--hands", "10", "--engine",
                        engine, "--dealer", "0")
    assert code == 2
    assert err.strip() == (f"simcards: error: {f} returned 40 at seat 1: not a legal action "
                           "(a card id 0..39 of the seat's hand)")


@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_Q11_a_function_that_raises_stops_the_run_in_one_line(tmp_path, capsys, engine):
    f = _write(tmp_path, "boom.py", "def boom(obs, legal):\n    raise ValueError('no')\n")
    code, _, err = _run(capsys, "--policies", f"{f}:boom,greedy", "--hands", "10",
                        "--engine", engine)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and f"{f}:boom" in err


def test_Q11_a_seat_sees_only_its_observation() -> None:
    """The function is called with the observation vector and its mask, nothing else: no
    engine state is passed, so hidden cards cannot be read; the mask is the seat's hand."""
    from simcards.core.policyspec import PolicySpec
    from simcards.core.runner import chunk_state
    from simcards.core.userpolicy import UserPolicy
    from simcards.ronda.observation_kernel import HAND, SIZE
    from simcards.ronda.rules import RondaRules
    from simcards.ronda.users import python_hands

    seen = []
    source = ("def f(obs, legal):\n    SEEN.append((obs.copy(), legal.copy()))\n"
              "    return int(legal.argmax())\n")
    policy = UserPolicy("mem.py", "f", source)
    policy.function().__globals__["SEEN"] = seen
    rules = RondaRules.make(players=2)
    specs = [PolicySpec("user", (), policy), PolicySpec("greedy", ())]
    python_hands(chunk_state(1, 0), 2, -1, rules, specs)
    assert len(seen) == 40
    for obs, legal in seen:
        assert obs.dtype == np.float32 and obs.shape == (SIZE,) and legal.dtype == np.int8
        assert list(legal) == [int(x) for x in obs[HAND:HAND + 40]]


def test_Q11_the_layout_is_the_environments() -> None:
    from simcards.ronda import observation_kernel as ob
    from simcards.ronda import table

    assert ob.SIZE == table.OBSERVATION_SIZE
    assert (ob.PLAYED, ob.CAPTURED, ob.SIZES, ob.ANNOUNCED, ob.MARKS, ob.SCORES, ob.POINTS,
            ob.DEAL, ob.STOCK, ob.TO_PLAY, ob.WON) == (
        table._PLAYED, table._CAPTURED, table._SIZES, table._ANNOUNCED, table._MARKS,
        table._SCORES, table._POINTS, table._DEAL, table._STOCK, table._TO_PLAY, table._WON)


def _random_decisions(options: dict, hands: int, seed: int):
    """Every decision of ``hands`` random hands on the environments' table (seats mostly
    greedy, now and then a random card): ``(table, seat, observation vector, mask)``."""
    import random

    from simcards.ronda import reference as ref
    from simcards.ronda.rules import RondaRules
    from simcards.ronda.table import RondaSetup, RondaTable

    rules = RondaRules.make(**options)
    opts = ref.RondaOptions(**rules.summary())
    rng = random.Random(seed)
    for _ in range(hands):
        t = RondaTable(RondaSetup(opts, rng.randrange(rules.players), False))
        t.deal(rng)
        while t.current_player() >= 0:
            p = t.current_player()
            legal = np.zeros(40, np.int8)
            legal[t.hand.hands[p]] = 1
            want = ref.greedy_policy(t.hand.observation(p))
            yield t, p, t.observation(p), legal, want
            t.play(want if rng.random() < 0.8 else rng.choice(sorted(t.hand.hands[p])))


GREEDY_TABLES = [{"players": 2}, {"players": 3}, {"players": 4},
                 {"players": 4, "teams": "on"}, {"players": 2, "derba_chain": "tiers"},
                 {"players": 3, "mode": "classic"}, {"players": 2, "announce": "every_deal"}]


@pytest.mark.parametrize("options", GREEDY_TABLES, ids=lambda o: "-".join(map(str, o.values())))
def test_Q11_greedy_from_the_observation_is_Q3_wherever_the_next_seat_announced_nothing(
        options):
    """``greedy_under`` (``greedy`` under the default rules) plays the reference's Q3 card at
    every decision where the next seat announced nothing at this deal; where it did, the
    observation does not say of which value, and the two may differ (in a tie of V only)."""
    from simcards.ronda.observation_kernel import ANNOUNCED, greedy, greedy_under

    teams = options.get("teams") == "on"
    tiers = options.get("derba_chain") == "tiers"
    classic = options.get("mode") == "classic"
    default = not (teams or tiers or classic)
    decisions = differ = 0
    for _, _, obs, legal, want in _random_decisions(options, 6, 3):
        got = greedy_under(obs, legal, teams, tiers, classic)
        if default:
            assert greedy(obs, legal) == got
        decisions += 1
        if got != want:
            assert obs[ANNOUNCED + 2] + obs[ANNOUNCED + 3] > 0
            differ += 1
    assert decisions > 200 and differ <= decisions // 50


def test_Q11_return_greedy_gives_the_builtin_greedy_answer_in_classic_mode(tmp_path, capsys):
    """Nothing is announced in classic mode (C1), so greedy through the observation is the
    built-in greedy at every decision: the same answer, number for number, at the same seed
    (a user seat draws nothing from the hands' chance, as greedy)."""
    f = _write(tmp_path, "g.py", "from simcards.ronda.observation_kernel import greedy_under\n\n"
               "\ndef g(obs, legal):\n    return greedy_under(obs, legal, False, False, True)\n")
    args = ["--players", "3", "--mode", "classic", "--hands", "20k", "--seed", "5"]
    code, mine, err = _run(capsys, "--policies", f"{f}:g,greedy,{f}:g", *args)
    assert code == 0, err
    code, built, err = _run(capsys, "--policies", "greedy", *args)
    assert code == 0, err
    assert _numbers(mine) == _numbers(built)


def test_Q11_the_readers_read_the_environments_observation() -> None:
    """The readers of :mod:`simcards.ronda.observation_kernel`, in plain Python, against what
    the table engine knows, at every decision of random hands of every size."""
    from simcards.ronda import observation_kernel as ob

    for options in ({"players": 2}, {"players": 3}, {"players": 4, "teams": "on"}):
        for t, p, obs, _mask, _ in _random_decisions(options, 3, 5):
            h = t.hand
            n = h.n
            assert list(ob.hand_cards(obs)) == sorted(h.hands[p])
            assert list(ob.hand_values(obs)) == [ob.VALUES[c // 4] for c in sorted(h.hands[p])]
            assert ob.lowest_card(obs) == min(h.hands[p])
            assert ob.highest_card(obs) == max(h.hands[p])
            assert list(ob.table_cards(obs)) == sorted(h.table.values())
            for v in range(10):
                assert ob.on_table(obs, v) == h.table.get(v, -1)
            assert list(ob.pile_cards(obs)) == sorted(h.pile)
            assert ob.previous_card(obs) == (-1 if h.last_laid is None else h.last_laid)
            assert ob.players(obs) == n
            assert ob.deal(obs) == h.deal_index and ob.stock_left(obs) == len(h.stock)
            for r in range(n):
                q = (p + r) % n
                assert ob.cards_held(obs, r) == len(h.hands[q])
                assert list(ob.played_cards(obs, r)) == sorted(c for s, c, _ in h.plays
                                                                if s == q)
            assert ob.mark(obs, ob.MARK_DEALER) == (h.dealer - p) % n
            mine = h.side_of(p)
            for r in range(h.n_sides):
                side = (mine + r) % h.n_sides
                assert list(ob.captured_cards(obs, r)) == sorted(h.captured[side])
                assert ob.hand_points(obs, r) == np.float32(h.hand_points()[side]
                                                            / t.options.target)
            assert ob.last_card_of_hand(obs) == (len(h.plays) + 1 == (39 if n == 3 else 40))


@pytest.mark.parametrize("match", [False, True])
def test_Q11_ronda_play_seats_a_function_as_an_opponent(tmp_path, match):
    """``ronda play`` plays a function of one's own at a bot's seat, from the seat's
    observation: with ``greedy`` through the observation it plays the hand (classic mode:
    nothing announced, so Q3's card at every decision) exactly as the built-in greedy."""
    import io

    from rich.console import Console

    from simcards.ronda.rules import RondaRules
    from simcards.ronda.terminal import run_play

    f = _write(tmp_path, "g.py", "from simcards.ronda.observation_kernel import greedy_under\n\n"
               "\ndef g(obs, legal):\n    return greedy_under(obs, legal, False, False, True)\n")
    rules = RondaRules.make(players=3, mode="classic", hands_to_win=2 if match else 1)
    got = {}
    for policy in (f"{f}:g", "greedy"):
        console = Console(file=io.StringIO(), width=120, color_system=None)
        got[policy] = run_play(rules, ["human", policy, "greedy"], seed=4, match=match,
                               console=console, ask=lambda prompt: "1")
    assert got[f"{f}:g"]["plays"] == got["greedy"]["plays"]
    assert got["greedy"]["finished"]


def test_Q11_ronda_play_refuses_a_card_not_held_in_one_line(tmp_path):
    import io

    from rich.console import Console

    from simcards.core.errors import UsageError
    from simcards.ronda.rules import RondaRules
    from simcards.ronda.terminal import run_play

    f = _write(tmp_path, "bad.py", ILLEGAL) + ":bad"
    console = Console(file=io.StringIO(), width=120, color_system=None)
    with pytest.raises(UsageError, match=r"returned 40 at seat 1: not a legal action"):
        run_play(RondaRules.make(), ["human", f], seed=4, dealer=1, console=console,
                 ask=lambda prompt: "1")


def test_Q11_the_python_api_takes_the_function_itself(tmp_path) -> None:
    """``simcards.ronda.hands(policies=[fn, ...])`` as the command line's
    ``PATH.py:FUNCTION``: the same answer, with ``engine=``; a function not defined in a file
    is refused."""
    import importlib.util

    import simcards.ronda
    from simcards.core.errors import UsageError

    path = _write(tmp_path, "low.py", LOWEST)
    spec = importlib.util.spec_from_file_location("low_for_api", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    by_text = simcards.ronda.hands(policies=f"{path}:lowest,greedy", hands=300,
                                   store="none").to_dict()
    by_fn = simcards.ronda.hands(policies=[module.lowest, "greedy"], hands=300,
                                 store="none").to_dict()
    in_python = simcards.ronda.hands(policies=[module.lowest, "greedy"], hands=300,
                                     engine="python", store="none").to_dict()
    assert by_fn == by_text and by_fn["policies"] == [f"{path}:lowest", "greedy"]
    assert _numbers(in_python) == _numbers(by_fn) and in_python["engine"] == "python"
    with pytest.raises(UsageError, match=r"must be defined at the top level of a \.py file"):
        simcards.ronda.hands(policies=[lambda obs, legal: 0, "greedy"], hands=10, store="none")
