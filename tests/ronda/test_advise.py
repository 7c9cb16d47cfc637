"""``ronda advise``: one position, every card ranked.

- Where nothing is hidden (two players, the last deal) the advice is exact: each card's V and
  point margin equal a plain minimax written apart from the engine's search
  (``test_reference_q7``), on 60 positions reached by real play (200 with ``--full``).
- Elsewhere it is ``ismcts`` (Q8): the search's choice is the policy's own, its visits add up
  to its iterations, and ``--budget`` doubles them until the best two cards part.
- In a match each card also gets its side's match win probability: the end of the hand its
  iterations (or its exact line) reach, its points on the scores (S4) or in classic mode its
  winner by captured cards on the hands won (C2, C3), then the rest of the match drawn from
  pools of greedy hands, checked against ``ronda matches``.
- The notation: flags, a JSON file and a TOML file give the same advice; a position that
  cannot happen is refused in one line naming the contradiction, exit status 2.
"""

from __future__ import annotations

import json
import random

import pytest

from simcards.core.cli import main
from simcards.core.errors import UsageError
from simcards.ronda import advice as adv
from simcards.ronda import api
from simcards.ronda import reference as ref
from simcards.ronda.advice import margin
from simcards.ronda.match_odds import rest_of_match
from simcards.ronda.rules import RondaRules
from simcards.ronda.terminal import position_fields
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
    """The position as the API's text fields, written from what the mover sees (``ronda
    play``'s own writer: the deal's announcements and plays where the deal announced)."""
    return position_fields(state.observation(state.current_player()))


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
    (["--hand", "1o 7x"], "--hand: cannot read card '7x': no suit 'x' in the spanish40 deck "
                          "(suits o, c, e, b)"),
    (["--hand", "1o 8o"], "--hand: no card '8o' in the spanish40 deck (values 1 2 3 4 5 6 7 "
                          "10 11 12)"),
    (["--hand", "1o 7c 12e 5o", "--captured", "2o; 3o; 4o"],
     "--captured gives 3 sides; this table has 2"),
    (["--hand", "1o 7c 12e 5o", "--position", "{tmp}/p.json"],
     "--position gives the whole position; --hand cannot be given with it"),
    (["--position", "{tmp}/none.json"], "--position: {tmp}/none.json: no such file"),
    (["--position", "{tmp}/bad.json"], "--position: {tmp}/bad.json is not JSON: "),
    (["--position", "{tmp}/field.json"],
     "--position: {tmp}/field.json: unknown field 'stock' (known: announcements, captured, "
     "deal_plays, dealer, face_up, hand, hands_won, last_capturer, pile, previous, scores, seat, "
     "table)"),
    (["--hand", "1o 1c 12e 5o", "--announcements", "1:ronda 7"],
     "--announcements: seat 0's holding as dealt (1o 1c 5o 12e) announces a Ronda of 1 (A2), "
     "not what is given"),
    (["--hand", "1o 12c 12e 5o", "--announcements", "0:ronda 12; 1:tringla 12"],
     "--announcements: seat 1 cannot have announced a Tringla of 12: 0 played since the deal "
     "and 2 unseen (A2)"),
    (["--hand", "1o 7c 12e", "--table", "3o 5c", "--captured", "2o 2c 4e 4o; 6b 6o 10c 11c",
      "--dealer", "1", "--announcements", ""],
     "--announcements: deal 2 announces nothing under --announce first_deal (A1: only the "
     "first deal of a hand does)"),
    (["--hand", "1o 7c 12e", "--table", "3o 5c", "--announcements", "", "--dealer", "1"],
     "--announcements needs --deal-plays, the cards played since the deal"),
    (["--hand", "1o 7c 12e", "--table", "3o 5c", "--deal-plays", "3o", "--dealer", "1"],
     "--deal-plays gives 1 cards, but 2 have been played since deal 1 gave 4 cards each"),
    (["--hand", "1o 7c 12e 5o", "--scores", "20,3,4"],
     "--scores gives 3 scores; this table has 2 sides, each score 0 or more (S2)"),
    (["--hand", "1o 7c 12e 5o", "--announcements", "1:ronda 5; 1:ronda 7", "--scores", "3,1"],
     "--scores: side 1's 1 is below the 2 points its announcements of this deal scored"),
    (["--hand", "1o 7c 12e 5o", "--target", "11"],
     "--target 11: only advice in a match reads it (rules S4, S5, C3): add --scores "
     "(--hands-won in --mode classic), or leave it out"),
    (["--hand", "1o 7c 12e 5o", "--scores", "22,3", "--target-check", "immediate"],
     "--scores: side 0 is alone at the top at or past --target 21: under --target-check "
     "immediate the match is already over (S5)"),
    (["--hand", "1o 7c 12e 5o", "--hands-won", "0,0"],
     "--hands-won: a points match counts points, not hands won (S4); give --scores, or add "
     "--mode classic (C3)"),
    (["--hand", "1o 7c 12e 5o", "--mode", "classic", "--scores", "0,0"],
     "--scores: a classic match counts hands won, not points (C3); give --hands-won"),
    (["--hand", "1o 7c 12e 5o", "--mode", "classic", "--hands-to-win", "2", "--hands-won",
      "2,0"],
     "--hands-won gives 2, 0; this table has 2 sides, each with 0 to 1 hands won (C3: 2 win "
     "the match, --hands-to-win)"),
    (["--hand", "1o 7c 12e 5o", "--mode", "classic", "--hands-won", "0,0,0"],
     "--hands-won gives 0, 0, 0; this table has 2 sides, each with 0 to 0 hands won"),
    (["--hand", "1o 7c 12e 5o", "--mode", "classic", "--hands-won", "x"],
     "--hands-won must be integers apart by commas, one a side, got 'x'"),
    (["--hand", "1o 7c 12e 5o", "--mode", "classic", "--hands-won", "0,0", "--scores", "0,0"],
     "--hands-won and --scores: a match counts points (S4) or, in --mode classic, hands won "
     "(C3); give one"),
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


MATCH_POSITION = {"seat": 0, "dealer": 1, "hand": "3e 5c 5e 12b", "table": "3c 6c 10b 11b",
                  "previous": "11b", "last_capturer": 0,
                  "captured": "4c 4b 6o 6e 7b 10c 11c 11e 12o 12c; 1o 1c 1e 1b 2c 2e 3o 3b 4o "
                              "4e 5o 5b 6b 7e 10o 10e 11o 12e"}
"""Two players in the last deal, the seat 20 to 14 in a match to 21."""


def test_Q12_S4_in_a_match_the_card_that_wins_it_is_not_the_best_margin(tmp_path) -> None:
    """Needing one point, the seat's best card for the hand's margin (5c, -3 exact) leaves the
    match open, while 3e (-4) takes the points that win it now: probability exactly 1, no
    interval, as the minimax line's totals say (S4); the open ones have intervals that hold
    their estimate and lie below 1. A JSON file with the scores as a list says the same."""
    out = api.advise(players=2, scores="20,14", **MATCH_POSITION).data
    (tmp_path / "p.json").write_text(json.dumps({**MATCH_POSITION, "scores": [20, 14]}))
    assert api.advise(players=2, position=tmp_path / "p.json").data == out
    assert out["exact"] and [m["card"] for m in out["moves"]] == ["5c", "3e", "12b"]
    assert [m["margin"] for m in out["moves"]] == [-3, -4, -6]
    assert out["match_best"] == "3e" and "Q7's minimax" in out["match_method"]
    assert out["position"]["scores"] == [20, 14]
    pos = adv.Position(seat=0, dealer=1, hand=tuple(ref.parse_cards("3e 5c 5e 12b")),
                       table=tuple(ref.parse_cards("3c 6c 10b 11b")),
                       previous=ref.parse_card("11b"), last_capturer=0,
                       captured=tuple(tuple(ref.parse_cards(g)) for g in
                                      MATCH_POSITION["captured"].split(";")))
    state = adv.build_state(pos, ref.RondaOptions(players=2))
    for m in out["moves"]:
        line = ref.solve_to_end(child(state, ref.parse_card(m["card"])))
        totals = [s + p for s, p in zip((20, 14), line.hand_points(), strict=True)]
        won = ref.target_winner(totals, 21)
        if won is not None:
            assert m["match"] == float(won == 0) and m["match_ci"] is None
        else:
            lo, hi = m["match_ci"]
            assert lo <= m["match"] <= hi < 1
    assert out["moves"][1]["match"] == 1.0


def test_Q12_S4_a_lead_no_hand_can_overturn_wins_every_iteration() -> None:
    """Mid-hand, 60 to 0 in a match to 21: every iteration's hand ends the match won, so every
    card searched is worth 1 with the interval [1, 1]."""
    fields = {"hand": "1o 7c 12e", "table": "3o 5c", "captured": "2o 2c 4e 4o; 6b 6o 10c 11c",
              "dealer": 1}
    out = api.advise(players=2, iterations=64, seed=1, scores="60,0", **fields)
    for m in out.data["moves"]:
        assert m["match"] == 1.0 and m["match_ci"] == [1.0, 1.0]
    assert list(out.to_frame()["match"]) == [1.0] * len(out.data["moves"])
    assert "the search's own iterations" in out.data["match_method"]


def test_Q12_the_rest_of_the_match_agrees_with_the_compiled_greedy_matches() -> None:
    """The rest of a match drawn from pools of greedy hands is the match greedy seats play:
    from 0 to 0 after a hand dealt by seat 1, side 0 wins as often as in ``ronda matches``
    (greedy, first dealer 0) within their errors, with two players and with three."""
    for players in (2, 3):
        rules = RondaRules.make(players=players, target=11)
        p = float(rest_of_match(rules, [[0] * players], players - 1, 0, 7, k=4000)[0])
        run = api.matches(players=players, target=11, policies="greedy", matches=4000,
                          dealer=0, seed=3, workers=1).data
        q = run["win_rate"][0]
        se = ((p * (1 - p) + q * (1 - q)) / 4000) ** 0.5
        assert abs(p - q) < 4 * se, (players, p, q)


def test_A2_Q12_samples_are_held_to_the_stated_announcements() -> None:
    """Seat 1 announced a Tringla of 12 at the first deal: every sample gives him three or
    four Reyes among the cards he holds and has played since; not stated, the samples are
    not held to any (some give him none)."""
    pos = adv.Position(seat=0, dealer=1, hand=tuple(ref.parse_cards("1o 7c 11e 5o")),
                       announcements=((1, "tringla", 9),))
    state = adv.build_state(pos, ref.RondaOptions(players=2))
    obs = state.observation(0)
    held = [sum(c // 4 == 9 for c in hidden[1])
            for hidden, _ in adv.samples(obs, random.Random(1), 200, True)]
    assert min(held) >= 3
    free = [sum(c // 4 == 9 for c in hidden[1])
            for hidden, _ in adv.samples(obs, random.Random(1), 200, False)]
    assert min(free) == 0
    out = api.advise(players=2, hand="1o 7c 11e 5o", dealer=1, announcements="1:tringla 12",
                     iterations=40).data
    assert out["position"]["announcements"] == ["1:tringla 12"]
    assert out["position"]["announcement_points"] == [0, 5]


CLASSIC_POSITION = {"seat": 0, "dealer": 1, "hand": "3o 6e 10o 11o", "table": "2b 3e 5e 7o 10b",
                    "last_capturer": 1,
                    "captured": "1o 1b 2o 2c 2e 3c 3b 4c 4b 5b 10c 10e 11c 11e 11b; 1c 1e 4o "
                                "4e 6c 6b 7c 7b 12o 12c 12e 12b"}
"""Two players in the last deal of a classic hand, 15 cards captured to 12: the minimax line
after 6e takes 21 cards (the hand), after 3o or 10o 17 or 19 (the other side's), after 11o 20
to 20 (no one's)."""


def test_Q12_C2_C3_the_card_that_wins_the_hand_wins_a_classic_match_exactly(tmp_path) -> None:
    """A classic match to one hand won, 0 to 0: the exact line decides the hand and so the
    match, 1 for 6e and 0 for 3o and 10o, no interval, as the lines' captured cards say (C2);
    11o ties the hand and leaves the match to the next ones, with an interval inside (0, 1).
    To two hands, from 1 to 0, a lost hand leaves 1 to 1, which is the first match again from
    the same next dealer (the same draws: the same estimate). A JSON file with the hands won
    as a list says the same."""
    out = api.advise(players=2, mode="classic", hands_won="0,0", **CLASSIC_POSITION).data
    (tmp_path / "p.json").write_text(json.dumps({**CLASSIC_POSITION, "hands_won": [0, 0]}))
    assert api.advise(players=2, mode="classic", position=tmp_path / "p.json").data == out
    got = {m["card"]: (m["match"], m["match_ci"]) for m in out["moves"]}
    assert got["6e"] == (1.0, None) and got["3o"] == (0.0, None) and got["10o"] == (0.0, None)
    tie, (lo, hi) = got["11o"]
    assert 0 < lo <= tie <= hi < 1
    assert out["match_best"] == "6e" and "captured cards (C2)" in out["match_method"]
    assert out["position"]["hands_won"] == [0, 0] and out["position"]["scores"] is None
    pos = adv.Position(seat=0, dealer=1, hand=tuple(ref.parse_cards(CLASSIC_POSITION["hand"])),
                       table=tuple(ref.parse_cards(CLASSIC_POSITION["table"])),
                       last_capturer=1,
                       captured=tuple(tuple(ref.parse_cards(g)) for g in
                                      CLASSIC_POSITION["captured"].split(";")))
    state = adv.build_state(pos, ref.RondaOptions(players=2, mode="classic"))
    for card, won in (("6e", 0), ("3o", 1), ("10o", 1), ("11o", None)):
        assert ref.solve_to_end(child(state, ref.parse_card(card))).hand_winner() == won
    two = api.advise(players=2, mode="classic", hands_to_win=2, hands_won="1,0",
                     **CLASSIC_POSITION).data
    got2 = {m["card"]: (m["match"], m["match_ci"]) for m in two["moves"]}
    assert got2["6e"] == (1.0, None) and got2["3o"] == got2["10o"] == got["11o"]
    assert got2["11o"][0] > got["11o"][0]


def test_Q12_C1_a_classic_margin_is_in_cards_and_ranks_the_moves() -> None:
    """Nothing scores in classic mode (C1), so there the margin is the cards a side takes
    minus the other's: of the 13 cards left in play 6e's line takes 6 (15 to 21 against 12 to
    19: -1), 11o's 5 (-3), 10o's 4 (-5), 3o's 2 (-9); V is the cards taken. The moves rank by
    the margin, best first, as points mode ranks by points."""
    out = api.advise(players=2, mode="classic", **CLASSIC_POSITION).data
    assert [(m["card"], m["margin"], m["value"]) for m in out["moves"]] == [
        ("6e", -1, 6), ("11o", -3, 5), ("10o", -5, 4), ("3o", -9, 2)]


def test_Q12_C3_mid_hand_each_card_gets_its_classic_match_win_probability() -> None:
    """Mid-hand, searched: every card gets a probability with its interval, the iterations'
    hand winners followed by the rest of the match; one hand from winning a match to two the
    seat's chances are higher than one hand from losing it, card by card."""
    fields = {"hand": "1o 7c 12e", "table": "3o 5c", "captured": "2o 2c 4e 4o; 6b 6o 10c 11c",
              "dealer": 1}
    ahead = api.advise(players=2, mode="classic", hands_to_win=2, hands_won="1,0",
                       iterations=64, seed=1, **fields).data
    behind = api.advise(players=2, mode="classic", hands_to_win=2, hands_won="0,1",
                        iterations=64, seed=1, **fields).data
    assert "the search's own iterations" in ahead["match_method"]
    for a, b in zip(ahead["moves"], behind["moves"], strict=True):
        assert a["card"] == b["card"] and a["visits"] == b["visits"]
        assert a["match_ci"][0] <= a["match"] <= a["match_ci"][1]
        assert b["match"] < a["match"]


def test_Q12_C3_the_rest_of_a_classic_match_agrees_with_the_compiled_greedy_matches() -> None:
    """Hands won drawn from pools of greedy hands' winners (C2) are the classic match greedy
    seats play: from 0 to 0 hands won after a hand dealt by the last seat, side 0 wins a match
    to three hands as often as in ``ronda matches --mode classic`` (first dealer 0) within
    their errors, with two players and with three."""
    for players in (2, 3):
        rules = RondaRules.make(players=players, mode="classic", hands_to_win=3)
        p = float(rest_of_match(rules, [[0] * players], players - 1, 0, 7, k=4000)[0])
        run = api.matches(players=players, mode="classic", hands_to_win=3, policies="greedy",
                          matches=4000, dealer=0, seed=3, workers=1).data
        q = run["win_rate"][0]
        se = ((p * (1 - p) + q * (1 - q)) / 4000) ** 0.5
        assert abs(p - q) < 4 * se, (players, p, q)


def test_S5_Q12_the_check_points_of_a_playout_are_the_match_engines() -> None:
    """Under ``target_check=immediate`` the scores at each check point after the decision
    (after every play, every later deal's announcements, the hand's end) are those the
    reference's match records, on greedy playouts from positions of real play with two,
    three and four players; with a low target the first winner among them is the match's."""
    for k, players in enumerate((2, 3, 4) * 4):
        for target in (1000, 12):
            rules = RondaRules.make(players=players, target_check="immediate",
                                    announce="every_deal", target=target)
            options = ref.RondaOptions(**rules.summary())
            rng = random.Random(k)
            state = ref.HandState(options, rng.randrange(players), rng.sample(range(40), 40),
                                  start_scores=[rng.randrange(8)
                                                for _ in range(options.n_sides)])
            for _ in range(rng.randrange(12)):
                state.apply(ref.greedy_policy(state.observation(state.current_player())))
            final = state.clone()
            while not final.is_terminal():
                final.apply(ref.greedy_policy(final.observation(final.current_player())))
            match = adv.Match(rules, tuple(state.scores()), 0)
            ours = match.check_points(state, final)
            assert ours[-1] == match.totals(state, final)
            m = ref.MatchState(options, state.dealer, [], hand=state.clone())
            try:
                for r in final.records[len(state.records):]:
                    m.apply(r.card)
                    if m.is_terminal():
                        break
            except UsageError:  # no deck for the next hand: this one ended undecided
                pass
            theirs = [list(t) for _, t in m.check_points]
            assert ours[:len(theirs)] == theirs
            assert match.ended(state, final, ours[-1]) == (-1 if m.winner is None
                                                           else m.winner)
            if target == 1000:
                assert len(theirs) == len(ours)


IMMEDIATE_POSITION = {"seat": 0, "dealer": 1, "hand": "2e 4o 4e 7e", "table": "5o 7o",
                      "previous": "5o", "last_capturer": 0,
                      "captured": "1c 1e 2o 2c 2b 3c 3b 4c 4b 5c 5e 10o 10c 10e 10b 11o 12c; "
                                  "1o 1b 3o 3e 6c 6e 6b 7b 11c 11b 12o 12e 12b"}
"""Two players in the last deal: after 7e the other side's reply scores 1 point at once and
the seat's side 5 at the hand's end; after 4o or 4e the seat's side 5 at the end alone."""


def test_S5_Q12_under_immediate_a_point_scored_inside_the_hand_ends_the_match() -> None:
    """16 to 20 in a match to 21. At the hand's end (S4) 4o wins the match (21 to 20) and 7e
    ties it at 21 (the match goes on: an interval); under ``target_check=immediate`` (S5)
    7e loses it exactly, as the other side reaches 21 alone after the next play, while 4o
    still wins it at the end."""
    end = api.advise(players=2, scores="16,20", **IMMEDIATE_POSITION).data
    now = api.advise(players=2, scores="16,20", target_check="immediate",
                     **IMMEDIATE_POSITION).data
    at_end = {m["card"]: (m["match"], m["match_ci"]) for m in end["moves"]}
    inside = {m["card"]: (m["match"], m["match_ci"]) for m in now["moves"]}
    assert at_end["4o"] == inside["4o"] == (1.0, None)
    assert at_end["7e"][1] is not None and 0 < at_end["7e"][0] < 1
    assert inside["7e"] == (0.0, None)
    assert "every check point of this hand (S5)" in now["match_method"]
