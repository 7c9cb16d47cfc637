"""``ronda advise``: one position, every card ranked.

- Where nothing is hidden (two players, the last deal) the advice is exact: each card's V and
  point margin equal a plain minimax written apart from the engine's search
  (``test_reference_q7``), on 60 positions reached by real play (200 with ``--full``).
- Elsewhere it is ``ismcts`` (Q8): the search's choice is the policy's own, its visits add up
  to its iterations, and ``--budget`` doubles them until the best two cards part.
- The notation: flags, a JSON file and a TOML file give the same advice; a position that
  cannot happen is refused in one line naming the contradiction, exit status 2.
"""

from __future__ import annotations

import json
import random

import pytest

from simcards.core.cli import main
from simcards.ronda import api
from simcards.ronda import reference as ref
from simcards.ronda.advice import margin
from tests import sizes
from tests.ronda.test_reference_q7 import child, minimax, utility

LAST_DEAL_POSITIONS = 200 if sizes.FULL else 60


def _reach(rng: random.Random, players: int, last_deal: bool) -> ref.HandState:
    """A position of real play (greedy and random moves) whose mover holds two values or
    more: in the last deal (the stock empty) or before it."""
    options = ref.RondaOptions(players=players)
    while True:
        state = ref.HandState(options, rng.randrange(players), rng.sample(range(40), 40))
        stop = rng.randrange(40)
        for k in range(40):
            if state.is_terminal():
                break
            p = state.current_player()
            hand = state.hands[p]
            wanted = (not state.stock) if last_deal else (k >= stop and state.stock)
            if wanted and len({c // 4 for c in hand}) > 1:
                return state
            obs = state.observation(p)
            state.apply(ref.greedy_policy(obs) if rng.random() < 0.7 else rng.choice(hand))


def _fields(state: ref.HandState) -> dict:
    """The position as the API's text fields, written from what the mover sees."""
    p = state.current_player()
    name = ref.card_name

    def text(cards) -> str:
        return " ".join(name(c) for c in cards)

    return {"seat": p, "dealer": state.dealer, "hand": text(sorted(state.hands[p])),
            "table": text(sorted(state.table.values())), "pile": text(state.pile),
            "previous": None if state.last_laid is None else name(state.last_laid),
            "last_capturer": state.last_capturer,
            "captured": "; ".join(text(sorted(c)) for c in state.captured),
            "face_up": None if state.face_up is None else name(state.face_up)}


def test_Q12_last_deal_with_two_players_is_exact_and_equals_a_plain_minimax() -> None:
    """Each card's V (Q1) is the minimax utility after it minus the utility now; its margin
    the points of the principal line; the first card is a minimax move."""
    rng = random.Random(45)
    for _ in range(LAST_DEAL_POSITIONS):
        state = _reach(rng, 2, last_deal=True)
        side = state.side_of(state.current_player())
        out = api.advise(players=2, **_fields(state)).data
        assert out["exact"] and out["iterations"] == 0
        now = utility(state, side)
        values = {}
        for move in out["moves"]:
            card = ref.parse_card(move["card"])
            values[card] = minimax(child(state, card), side) - now
            assert move["value"] == values[card], (_fields(state), move)
            line = ref.solve_to_end(child(state, card))
            assert move["margin"] == margin(state, line, side)
        assert values[ref.parse_card(out["moves"][0]["card"])] == max(values.values())
        assert out["choice"] == out["moves"][0]["card"]


def test_Q12_the_search_advice_is_ismcts_own_choice_and_counts_every_iteration() -> None:
    """The advisor listens to Q8's search without changing it: the card it names is the one
    ``ismcts_policy`` plays from the same seed, and every iteration counts for one card."""
    rng = random.Random(7)
    for players in (2, 3, 4):
        state = _reach(rng, players, last_deal=False)
        out = api.advise(players=players, iterations=150, seed=3, **_fields(state)).data
        assert not out["exact"] and out["iterations"] == 150
        assert sum(m["visits"] for m in out["moves"]) == 150
        obs = state.observation(state.current_player())
        plays = ref.ismcts_policy(obs, random.Random(3), n=150)
        assert out["choice"] == ref.card_name(plays)
        for m in out["moves"]:
            if m["visits"] > 1:
                lo, hi = m["margin_ci"]
                assert lo <= m["margin"] <= hi
        means = [m["margin"] for m in out["moves"] if m["margin"] is not None]
        assert means == sorted(means, reverse=True)


def test_Q12_budget_doubles_the_search_until_the_best_two_cards_part() -> None:
    """A 2-player opening position where 64 iterations leave the best two cards' intervals
    overlapping: the budget doubles them until they part, or to the budget."""
    fields = {"hand": "1o 7c 12e", "table": "3o 5c", "captured": "2o 2c 4e 4o; 6b 6o 10c 11c",
              "dealer": 1}
    short = api.advise(players=2, iterations=64, seed=1, **fields).data
    assert not short["separated"]
    longer = api.advise(players=2, iterations=64, budget=512, seed=1, **fields).data
    assert longer["iterations"] in (128, 256, 512)
    assert longer["separated"] or longer["iterations"] == 512


def test_Q12_flags_a_json_file_and_a_toml_file_give_the_same_advice(tmp_path, capsys) -> None:
    flags = ["--hand", "1o 7c 12e", "--table", "3o 5c", "--captured",
             "2o 2c 4e 4o; 6b 6o 10c 11c", "--dealer", "1", "--iterations", "60"]
    (tmp_path / "p.json").write_text(json.dumps(
        {"hand": ["1o", "7c", "12e"], "table": "3o 5c", "dealer": 1,
         "captured": ["2o 2c 4e 4o", "6b 6o 10c 11c"]}))
    (tmp_path / "p.toml").write_text('hand = "1o 7c 12e"\ntable = "3o 5c"\ndealer = 1\n'
                                     'captured = ["2o 2c 4e 4o", "6b 6o 10c 11c"]\n')
    answers = []
    for extra in (flags, ["--position", str(tmp_path / "p.json"), "--iterations", "60"],
                  ["--position", str(tmp_path / "p.toml"), "--iterations", "60"]):
        assert main(["ronda", "advise", "--json", *extra]) == 0
        answers.append(json.loads(capsys.readouterr().out))
    assert answers[0] == answers[1] == answers[2]
    assert answers[0]["position"]["deal"] == 1 and answers[0]["position"]["stock"] == 24


BAD = [
    (["--hand", "1o 7c 1o"], "1o is both in --hand and in --hand: each card exists once (D1)"),
    (["--hand", "1o 7c", "--table", "7c"],
     "7c is both in --hand and in --table: each card exists once (D1)"),
    (["--hand", "1o 7c 12e", "--table", "3o"],
     "4 cards in sight and 3 in the other hands make 7 cards dealt, which no deal gives "
     "(D4: 8, 16, 24, 32, 40 with 2 players)"),
    (["--hand", "1o 7c 12e 5o", "--table", "3o", "--previous", "5c"],
     "--previous 5c is not on the table: the card the previous play laid lies there (X1)"),
    (["--hand", "1o 7c 12e 5o", "--face-up", "3o"],
     "--face-up: only 3 players have a face-up card (D5)"),
    (["--hand", "1o 7c 12e 5o", "--seat", "2"], "--seat must be a seat 0..1, got 2"),
    (["--hand", "1o 7x"], "--hand: unknown suit 'x'; expected one of ('oros', 'copas', "
                          "'espadas', 'bastos') or ('o', 'c', 'e', 'b')"),
    (["--hand", "1o 8o"], "--hand: "),
    (["--hand", "1o 7c 12e 5o", "--captured", "2o; 3o; 4o"],
     "--captured gives 3 sides; this table has 2"),
    (["--hand", "1o 7c 12e 5o", "--position", "{tmp}/p.json"],
     "--position gives the whole position; --hand cannot be given with it"),
    (["--position", "{tmp}/none.json"], "--position: {tmp}/none.json: no such file"),
    (["--position", "{tmp}/bad.json"], "--position: {tmp}/bad.json is not JSON: "),
    (["--position", "{tmp}/field.json"],
     "--position: {tmp}/field.json: unknown field 'stock' (known: captured, dealer, face_up, "
     "hand, last_capturer, pile, previous, seat, table)"),
]


@pytest.mark.parametrize(("args", "line"), BAD, ids=[str(i) for i in range(len(BAD))])
def test_Q12_a_position_that_cannot_happen_is_refused_in_one_line(tmp_path, capsys, args,
                                                              line) -> None:
    (tmp_path / "p.json").write_text('{"hand": "1o 7c 12e 5o"}')
    (tmp_path / "bad.json").write_text('{"hand": ')
    (tmp_path / "field.json").write_text('{"hand": "1o 7c 12e 5o", "stock": 32}')
    argv = ["ronda", "advise", *(a.format(tmp=tmp_path) for a in args)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert err.startswith("simcards: error: " + line.format(tmp=tmp_path))
