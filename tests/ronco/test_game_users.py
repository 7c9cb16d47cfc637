"""S5 and S6 in whole games: a player's own function sees the ``ronco_game_v0`` observation,
kept up to date by the game kernel, and a keep chart plays its round chart in every round.

A function deciding as a built-in gives the built-in's numbers at the same seed; a chart
written from a policy gives the policy's; a function may read the lives (and its numbers then
move with them); the game kernel writes, entry for entry, the observation the environment
gives; the readers read a round's and a game's observation of one position alike, and tell
the two layouts apart at every table size and deck.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from simcards.core.cli import main
from tests.ronco.test_user_policies import UNCOMPILED

# numba calls the first-class functions a user's function is passed as experimental
pytestmark = pytest.mark.filterwarnings("ignore:First-class function type")

T74 = '''
from simcards.ronco.observation_kernel import card, classes, is_dealer


def t74(obs, legal):
    """threshold:7:4 under spanish40, with or without Poroli (then every class is one up)."""
    up = classes(obs) - 10
    if is_dealer(obs):
        return 0 if card(obs) >= 3 + up else 1
    return 0 if card(obs) >= 6 + up else 1
'''

LAST_LIFE = '''
from simcards.ronco.observation_kernel import card, is_dealer, my_lives


def last_life(obs, legal):
    """threshold:7:4, but with a seventh of its lives or less left it keeps from a 4."""
    if is_dealer(obs):
        return 0 if card(obs) >= 3 else 1
    return 0 if card(obs) >= (3 if my_lives(obs) < 0.15 else 6) else 1
'''

HEADER = ("policies", "engine", "user_policies", "charts", "timing", "run", "store")


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _games(capsys, policies: str, *flags: str) -> dict:
    players = str(policies.count(",") + 1)
    code = main(["ronco", "games", "--players", players, "--policies", policies, "--games",
                 "3000", "--seed", "7", "--workers", "1",
                 "--store", "none", "--json", *flags])
    out = capsys.readouterr()
    assert code == 0, out.err
    return {k: v for k, v in json.loads(out.out).items() if k not in HEADER}


@pytest.mark.parametrize(("players", "flags"), [(4, ()), (5, ()), (4, ("--poroli",))])
def test_S5_a_function_deciding_like_threshold_7_4_gives_the_builtins_games(
        tmp_path, capsys, players, flags):
    f = _write(tmp_path, "mine.py", T74) + ":t74"
    rest = ",".join(["threshold:7:4"] * (players - 1))
    built = _games(capsys, f"threshold:7:4,{rest}", *flags)
    assert _games(capsys, f"{f},{rest}", *flags) == built
    assert _games(capsys, ",".join([f] * players), *flags) == built
    if not flags:  # --policy: the function at every seat, as in rounds
        code = main(["ronco", "games", "--players", str(players), "--policy", f, "--games",
                     "3000", "--seed", "7", "--workers", "1", "--store", "none", "--json"])
        out = capsys.readouterr()
        assert code == 0, out.err
        assert {k: v for k, v in json.loads(out.out).items() if k not in HEADER} == built


def test_S5_a_function_reading_its_lives_plays_by_them(tmp_path, capsys):
    """With one life each, ``my_lives`` is always 1 and the function is threshold:7:4; with
    seven, it keeps more on its last life, and the numbers move."""
    f = _write(tmp_path, "last.py", LAST_LIFE) + ":last_life"
    rest = ",".join(["threshold:7:4"] * 3)
    assert (_games(capsys, f"{f},{rest}", "--lives", "1")
            == _games(capsys, f"threshold:7:4,{rest}", "--lives", "1"))
    mine = _games(capsys, f"{f},{rest}")
    built = _games(capsys, f"threshold:7:4,{rest}")
    assert mine["win_rate"] != built["win_rate"]
    assert mine["games"] == built["games"] == 3000


def test_S5_an_action_that_is_not_legal_stops_a_game_in_one_line(tmp_path, capsys):
    f = _write(tmp_path, "two.py", "def two(obs, legal):\n    return 2\n") + ":two"
    code = main(["ronco", "games", "--policies", f"threshold,{f},threshold", "--players", "3",
                 "--games", "100", "--store", "none"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip() == (f"simcards: error: {f} returned 2 at player 1: not a legal action "
                           "(0 keep, 1 pass)")


def test_S6_a_chart_for_every_table_size_plays_games_as_its_policy(tmp_path, capsys):
    """Charts of informed:7:4 at 2, 3 and 4 players in one file (as ``simcards ronco chart``
    writes each): in a game of 4 the chart seat plays each round's chart, and the answer is
    informed:7:4's. A chart of one table size is refused in games of more."""
    from simcards.ronco import charts
    from simcards.ronco.policies import Policy
    from simcards.ronco.rules import RoncoRules

    rules = RoncoRules.make()
    informed = Policy("informed", 7, 4)
    parts = []
    for n in (4, 3, 2):
        text = charts.to_csv(*charts.decisions_of(rules, n, informed, informed), rules)
        lines = text.splitlines(keepends=True)
        parts.extend(lines if not parts else lines[1:])
        if n == 4:
            _write(tmp_path, "c4.csv", text)
    chart = _write(tmp_path, "all.csv", "".join(parts))
    rest = ",".join(["informed:7:4"] * 3)
    assert _games(capsys, f"chart:{chart},{rest}") == _games(capsys, f"informed:7:4,{rest}")
    code = main(["ronco", "games", "--policies", f"chart:{tmp_path}/c4.csv,{rest}",
                 "--games", "10", "--store", "none"])
    err = capsys.readouterr().err
    assert code == 2 and "needs rows for every table size from 4 down to 2" in err
    assert "it has none for 2, 3" in err and len(err.strip().splitlines()) == 1


def _decisions(rules, players: int, lives: int, seed: int):
    """Every decision of random games on the environments' engine: the game and the seat."""
    from simcards.ronco.table import GameState, RoncoSetup

    rng = random.Random(seed)
    for _ in range(6):
        game = GameState(RoncoSetup(rules, players, lives))
        while not game.over:
            p = game.current_player()
            if p < 0:
                game.apply_chance(rng.choice(game.chance_outcomes())[0])
                continue
            yield game, p
            game.play(rng.choice([0, 0, 1]))


@pytest.mark.parametrize(("players", "lives", "poroli"), [(4, 3, False), (6, 2, True)])
def test_S5_the_game_kernel_writes_the_environments_game_observation(players, lives, poroli):
    """The game kernel's writers (``observe``, then ``observe_seats`` once per seat and round),
    kept up to date decision by decision as the kernel keeps them, against
    ``GameState.observation`` at every decision of random games: equal entry for entry."""
    from simcards.ronco.observation_kernel import observe, observe_seats
    from simcards.ronco.rules import RoncoRules

    rules = RoncoRules.make(poroli=poroli)
    counts = np.asarray(rules.kernel.counts)
    cls = (np.cumsum(counts > 0) - 1).astype(np.int64)
    c = int(np.count_nonzero(counts))
    obs = np.zeros(c * (players + 4) + 10 * players + 3, np.float32)
    mark = np.array([0, -1, -1, -1, -1], np.int64)
    seen = None
    checked = 0
    for game, seat in _decisions(rules, players, lives, 11):
        rnd, order = game.round, game.order
        if seen is not rnd:  # a new round: as _seat_users marks it
            seen = rnd
            mark[0] = mark[4] = -1
        i = order.index(seat)
        k = len(order)
        hist = 0
        for a in rnd.acts:
            hist = hist * 3 + a
        strength = game.table.strengths
        given = strength[rnd.dealt[i]] if rnd.swapped_in[i] else -1
        observe(obs, cls, c, mark, i, k, players, strength[rnd.cards[i]], i == k - 1,
                bool(rnd.swapped_in[i]), given, hist)
        if mark[4] != seat:
            observe_seats(obs, c * (players + 4) + 7 * players + 3, players, seat,
                          np.array(game.lives, np.int64), lives, order[-1])
            mark[4] = seat
        assert np.array_equal(obs, game.observation(seat)), (seat, game.observation_text(seat))
        checked += 1
    assert checked > 100


def test_S5_the_readers_read_a_games_observation_as_the_rounds() -> None:
    """At every decision of random games, the round readers give on the ``ronco_game_v0``
    observation what they give on the ``ronco_v0`` observation of the same round position, and
    the game readers give the lives, the survivors and the dealer the environment holds."""
    from simcards.envs import ronco_game_v0
    from simcards.ronco import observation_kernel as ob
    from simcards.ronco.rules import RoncoRules

    rules = RoncoRules.make()
    checked = 0
    for game, seat in _decisions(rules, 5, 2, 5):
        pos = game.order.index(seat)
        g = game.observation(seat)
        r = game.round.observation(pos)
        for read in (ob.players, ob.classes, ob.card, ob.position, ob.is_dealer, ob.dealt,
                     ob.cut, ob.refused_before, ob.top_class):
            assert read(g) == read(r), read
        k = ob.players(r)
        assert [ob.action(g, j) for j in range(k)] == [ob.action(r, j) for j in range(k)]
        assert ob.in_game(g) and not ob.in_game(r) and ob.seats(g) == 5
        for j in range(5):
            other = (seat + j) % 5
            assert ob.lives(g, j) == pytest.approx(game.lives[other] / 2)
            assert ob.alive(g, j) == game.alive[other]
        assert ob.my_lives(g) * 2 == pytest.approx(game.lives[seat])
        assert ob.dealer_seat(g) == (game.order[-1] - seat) % 5
        assert ob.lives(r, 0) == 1.0 and ob.dealer_seat(r) == k - 1 - pos
        checked += 1
    assert checked > 50
    env = ronco_game_v0.env(players=4, lives=3)  # the environment itself, after a loss
    env.reset(seed=2)
    state = env.unwrapped.cursor.state
    while min(state.lives) == 3:
        env.step(1)
        state = env.unwrapped.cursor.state
    agent = env.agent_selection
    me = env.possible_agents.index(agent)
    obs = env.observe(agent)["observation"]
    assert [round(ob.lives(obs, j) * 3) for j in range(4)] == [
        state.lives[(me + j) % 4] for j in range(4)]
    assert round(ob.my_lives(obs) * 3) == state.lives[me] and ob.seats(obs) == 4
    assert ob.players(obs) == sum(state.alive)


CLASSES = (10, 11, 12, 13, 14)
"""Every deck's strength classes: spanish40, 48 and french52, each with and without Poroli."""


def _game_vector(big: int, c: int, k: int, rng: random.Random) -> np.ndarray:
    """A ``ronco_game_v0`` observation of ``big`` players at a decision of a round of ``k``,
    written by the kernel's writers, with lives shares chosen to look like other entries
    (``j / 20``) as often as they can."""
    from simcards.ronco.observation_kernel import observe, observe_seats

    obs = np.zeros(c * (big + 4) + 10 * big + 3, np.float32)
    cls = np.arange(c, dtype=np.int64)
    i = rng.randrange(k)
    hist = 0
    for _ in range(i):
        hist = hist * 3 + rng.randrange(3)
    swapped = i > 0 and hist % 3 == 1
    mark = np.array([-1, -1, -1, -1, -1], np.int64)
    observe(obs, cls, c, mark, i, k, big, rng.randrange(c), i == k - 1, swapped,
            rng.randrange(c) if swapped else -1, hist)
    seat = rng.randrange(big)
    out = rng.sample([s for s in range(big) if s != seat], big - k)
    lives = np.array([0 if s in out else rng.randint(1, 20) for s in range(big)], np.int64)
    dealer = rng.choice([s for s in range(big) if s not in out])
    observe_seats(obs, c * (big + 4) + 7 * big + 3, big, seat, lives, 20, dealer)
    return obs


def test_S5_the_readers_tell_a_rounds_layout_from_a_games_at_every_size_and_deck() -> None:
    """Lengths alone collide (a round of 3 with Poroli and a game of 2 under spanish48 both
    have 101 entries; so do games of 4 and 3 with other decks): the readers look at the
    entries. For every deck and every table size, a round's observation reads as that round,
    and a game's, at every round size it can reach, as that game."""
    from simcards.ronco.observation_kernel import MAX_PLAYERS, layout

    lengths: dict[int, set] = {}
    rng = random.Random(1)
    for c in CLASSES:
        for n in range(2, MAX_PLAYERS + 1):
            lengths.setdefault(c * (n + 4) + 7 * n + 3, set()).add(("round", n, c))
            lengths.setdefault(c * (n + 4) + 10 * n + 3, set()).add(("game", n, c))
            obs = np.zeros(c * (n + 4) + 7 * n + 3, np.float32)
            obs[rng.randrange(c)] = obs[c + n - 1] = obs[c + n] = obs[-1] = 1.0
            obs[-1] = np.float32(n / 20)
            assert layout(obs) == (n, n, c)
            for k in range(2, n + 1):
                for _ in range(3):
                    assert layout(_game_vector(n, c, k, rng)) == (n, k, c), (n, k, c)
    assert len(lengths[101]) == 3 and len(lengths[131]) == 2


PARITY = '''
def parity(obs, legal):
    """Decides by a checksum of the whole game observation (the lives, who is in and the
    dealer included): two engines that agree on every decision of this function agree on
    every entry of every observation it was shown."""
    s = 0
    for k in range(obs.shape[0]):
        if obs[k] > 0.01:
            s += (k * 7 + 3) * (k % 5 + 1) + int(obs[k] * 20)
    return (s // 3) % 2
'''



@pytest.mark.parametrize(("policies", "lives", "flags"), [
    ("{f},random:0.4,informed:5:5", "3", ()),
    ("{f},threshold:7:4,{f},random:0.6", "4", ("--poroli", "--absolute-tie", "replay")),
])
def test_S5_the_compiled_and_python_engines_play_the_same_games(
        tmp_path, capsys, policies, lives, flags):
    """A compiled function gives the same answer, every number of it, on the game kernel and
    on the environments' ``GameState`` (the same games drawn, the same decisions)."""
    f = _write(tmp_path, "parity.py", PARITY) + ":parity"
    got = {}
    for engine in ("compiled", "python"):
        code = main(["ronco", "games", "--players", str(policies.count(",") + 1), "--policies",
                     policies.format(f=f), "--lives", lives, "--games", "300", "--seed", "5",
                     "--workers", "1", "--store", "none", "--json", "--engine", engine, *flags])
        out = capsys.readouterr()
        assert code == 0, out.err
        answer = json.loads(out.out)
        assert answer["engine"] == engine
        got[engine] = {k: v for k, v in answer.items() if k not in HEADER}
    assert got["compiled"] == got["python"]
    assert got["python"]["games"] == 300


def test_S5_a_function_numba_cannot_compile_plays_games_on_the_python_engine(tmp_path, capsys):
    """One line on stderr says why and which engine runs, the JSON says which engine ran;
    ``--engine compiled`` refuses the function, and the Python engine seats no decision
    table."""
    f = _write(tmp_path, "memo.py", UNCOMPILED) + ":by_class"
    code = main(["ronco", "games", "--players", "3", "--policy", f, "--games", "200",
                 "--workers", "1", "--store", "none", "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    answer = json.loads(out.out)
    assert answer["engine"] == "python" and answer["games"] == 200
    assert sum(answer["win_rate"]) + answer["draw_rate"] == pytest.approx(1.0)
    notice = [line for line in out.err.splitlines() if "Python engine" in line]
    assert len(notice) == 1 and "numba cannot compile" in notice[0] and "by_class" in notice[0]
    for extra, message in ((("--engine", "compiled"), "--engine compiled: numba cannot compile"),
                           (("--policies", f"bayes,{f},threshold"), "bayes is a decision table")):
        args = ["ronco", "games", "--players", "3", "--games", "200", "--store", "none", *extra]
        code = main(args if "--policies" in extra else [*args, "--policy", f])
        err = capsys.readouterr().err
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_S5_an_action_that_is_not_legal_stops_a_python_engine_game_in_one_line(
        tmp_path, capsys):
    f = _write(tmp_path, "two.py", "def two(obs, legal):\n    return 2\n") + ":two"
    code = main(["ronco", "games", "--policies", f"threshold,{f},threshold", "--players", "3",
                 "--games", "100", "--store", "none", "--engine", "python"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip() == (f"simcards: error: {f} returned 2 at player 1: not a legal action "
                           "(0 keep, 1 pass)")
