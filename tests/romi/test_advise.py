"""``simcards romi advise``: one position's exact answers (the arrangement by the meld solver,
V1-V5; opening, O1-O2; the draw, T3-T5; going out now and its score, G2-G3), its moves ranked
by their expected penalty from the search player's play-outs (Q10), and one line with exit
status 2 for every impossible position (D1, D2, D4, O2, M5) or bad search setting."""

from __future__ import annotations

import json

import numpy as np
import pytest

from simcards.core.cli import main
from simcards.romi import api, melds_kernel
from simcards.romi import cards as C
from simcards.romi import reference as ref
from simcards.romi.actions import NO_JOKER, Discard, DrawCut, Lay, Meld, Open, Swap
from simcards.romi.rules import RomiRules
from tests.cli_checks import assert_one_line_error
from tests.romi.test_cli import _laid_value
from tests.romi.test_melds import by_patterns, uniform_hands
from tests.romi.test_reports import _ids

ADVISE = ["romi", "advise", "--json", "--samples", "0"]
"""The exact answers only (Q10's play-outs are tested apart)."""
NOT_OPENED = {"opened": False, "others": "14,14,14", "others_opened": "no,no,no", "turn": 6}
"""A seat of four that has not opened at its second turn, nobody opened."""


def _json(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _flags(**fields: object) -> list[str]:
    out = []
    for key, value in fields.items():
        if key == "opened":
            out.append("--opened" if value else "--not-opened")
        else:
            out += ["--" + key.replace("_", "-"), str(value)]
    return out


def test_V1_V4_the_arrangement_is_the_solver_s_and_every_lay_down_s() -> None:
    """500 uniform deals of 14 cards, as a seat that has not opened:
    value, penalty and going out equal the solver's and the search over every lay-down's
    (itself checked against every partition in test_melds), and the melds shown are worth the
    value."""
    hands = uniform_hands(np.random.default_rng(41), 500, (14, 14))
    solved = melds_kernel.solve_batch(np.array(hands, np.int64), 1)
    for h, row in zip(hands, solved, strict=True):
        arr = api.advise(hand=C.format_hand(h), samples=0, **NOT_OPENED).data["arrangement"]
        got = (arr["value"], arr["min_penalty"], arr["can_go_out"])
        assert got == (int(row[0]), int(row[1]), bool(row[2])) == by_patterns(h), \
            C.format_hand(h)
        assert _laid_value(arr["melds"], 1) == arr["value"]
        assert arr["opens"] == (arr["value"] >= 51)


ROMI_HAND = "Ah 2h 3h 4h Ks Kh Kd 7c 8c 9c Tc Jc Qc 5s"
"""Worth 94 in melds (Ah .. 4h, three Kings, 7c .. Qc); with the 5h it goes out, the 5s
 discarded."""


def test_G3_closing_now_with_the_cut_card_scores_minus_20(capsys) -> None:
    """T5 and G3: the cut card 5h lets the seat open and go out in one turn, own melds only;
    the discard 2d would not (after a first draw, T4 only lets it be taken to be melded)."""
    out = _json(capsys, [*ADVISE, *_flags(hand=ROMI_HAND, discard="2d", cut="5h",
                                          **NOT_OPENED)])
    assert out["arrangement"]["value"] == 94 and out["arrangement"]["opens"]
    assert out["draws"][1:] == [
        {"source": "discard", "card": "2d", "legal": False, "rule": "T4", "go_out": None},
        {"source": "cut", "card": "5h", "legal": True, "rule": "T5", "go_out": -20}]
    assert out["close_now"] == {"source": "cut", "score": -20}


def test_G2_closing_now_after_opening_scores_minus_10_and_the_stock_rarely_allows_it(
        capsys) -> None:
    """An opened seat, 7h 8h to add below 9h Th Jh, Qs Qd: the discard Qc (T4: it is melded)
    makes the set and the seat goes out for -10 (G2); the cut 3s does not; from the stock the
    cards that do are the 4 unseen Queens of hearts and clubs, 2 jokers... counted exactly."""
    pos = {"hand": "7h 8h Qs Qd 2c", "table": "9h Th Jh; 5s 5d 5c", "discard": "Qc",
           "cut": "3s", "opened": True, "others": "14,8", "others_opened": "no,yes",
           "turn": 7}
    out = _json(capsys, [*ADVISE, *_flags(**pos)])
    assert out["position"]["first_draw"] is False and out["position"]["may_open"] is True
    assert out["arrangement"] == {"melds": [{"action": "add", "card": "8h", "meld": 0,
                                             "place": "low"},
                                            {"action": "add", "card": "7h", "meld": 0,
                                             "place": "low"}],
                                  "value": 15, "min_penalty": 22, "opens": None,
                                  "can_go_out": False}
    assert out["draws"][1:] == [
        {"source": "discard", "card": "Qc", "legal": True, "rule": "T4", "go_out": -10},
        {"source": "cut", "card": "3s", "legal": False, "rule": "T5", "go_out": None}]
    assert out["close_now"] == {"source": "discard", "score": -10}
    # going out from the stock: a Queen of hearts or clubs (Qh twice, Qc once more: 3), a
    # joker (4), a 2 of another suit for a set of 2s? no: one 2 only. 2c's run: no.
    unseen = 108 - 5 - 6 - 2
    assert out["draws"][0]["go_out_chance"] == pytest.approx(7 / unseen)


def test_no_close_now_when_no_known_card_goes_out(capsys) -> None:
    """Waiting is all there is: neither the discard nor the cut lets the seat go out, so the
    advice opens (94 >= 51) and has no close now."""
    out = _json(capsys, [*ADVISE, *_flags(hand=ROMI_HAND, discard="9d", cut="2d",
                                          **NOT_OPENED)])
    assert out["close_now"] is None
    assert [d["go_out"] for d in out["draws"]] == [None, None, None]


def test_the_position_file_reads_as_the_flags(capsys, tmp_path) -> None:
    pos = {"hand": ROMI_HAND, "discard": "2d", "cut": "5h", **NOT_OPENED}
    flags = _json(capsys, [*ADVISE, *_flags(**pos)])
    (tmp_path / "p.json").write_text(json.dumps({**pos, "others": [14, 14, 14],
                                                 "others_opened": [False] * 3}))
    (tmp_path / "p.toml").write_text(
        "\n".join(f"{k} = {json.dumps(v)}" for k, v in pos.items()))
    for name in ("p.json", "p.toml"):
        assert _json(capsys, [*ADVISE, "--position", str(tmp_path / name)]) == flags


GOOD = {"hand": ROMI_HAND, "discard": "2d", "cut": "5h", **NOT_OPENED}


@pytest.mark.parametrize(("change", "part"), [
    ({"discard": "Ah", "cut": "Ah"}, "3 times Ah"),  # D1 over hand, discard and cut
    ({"hand": "X X X X Ks Kh Kd 7c 8c 9c Tc Jc Qc 5s", "table": "7s 7d X",
      "others": "14,14,8", "others_opened": "no,no,yes"}, "5 jokers"),
    ({"hand": ROMI_HAND + " 6d"}, "a hand of 15 cards before opening"),  # D4
    ({"others": "14,14,13"}, "other player 3 holds 13 cards before opening"),
    ({"others": "14,14,14,14,14", "others_opened": "no,no,no,no,no"}, "6 players"),  # D2
    ({"others_opened": "no,no"}, "--others-opened has 2 entries"),
    ({"table": "9h Th Jh"}, "nobody has opened"),  # O1, O3
    ({"others_opened": "no,no,yes", "others": "14,14,8"}, "the table is empty"),  # M5
    ({"others_opened": "yes,no,no", "others": "8,14,14", "table": "9h Th Jh"},
     "other player 1 opened but has played 1 turn(s)"),  # O2
    ({"table": "9h Th 2c", "others_opened": "yes,no,no"}, "no meld"),  # M1-M4
    ({"opened": True, "hand": "Ah 2h 3h"}, "nobody opens on his first"),  # O2
    ({"turn": 1, "hand": ROMI_HAND + " 6d"}, "a discard at turn 1"),  # D4
    ({"opened": True, "turn": 9, "hand": ROMI_HAND, "table": "9h Th Jh"},
     "a hand of 14 cards after opening"),  # O1: 15 after the draw less six laid
    ({"turn": 0}, "--turn 0"),
    ({"discard": "Zz"}, "--discard"),
    ({"cut": "5h 6h"}, "--cut"),
    ({"others": "14,x"}, "--others"),
    ({"others_opened": "no,maybe,no"}, "--others-opened"),
    ({"hand": None}, "--hand is missing"),
])
def test_an_impossible_position_is_one_line_and_exit_2(capsys, change, part) -> None:
    pos = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    assert_one_line_error(capsys, ["romi", "advise", *_flags(**pos)], part)


def test_the_flags_and_a_position_file_are_not_both_given(capsys, tmp_path) -> None:
    assert_one_line_error(capsys, ["romi", "advise", "--position", str(tmp_path / "p.json"),
                                   "--turn", "3"], "not both")
    assert_one_line_error(capsys, ["romi", "advise", "--position",
                                   str(tmp_path / "none.json")], "no such file")
    (tmp_path / "bad.toml").write_text("hand = [")
    assert_one_line_error(capsys, ["romi", "advise", "--position",
                                   str(tmp_path / "bad.toml")], "is not TOML")
    (tmp_path / "extra.json").write_text('{"hands": "Ah"}')
    assert_one_line_error(capsys, ["romi", "advise", "--position",
                                   str(tmp_path / "extra.json")], "unknown field 'hands'")


# ---------------------------------------------------------------- Q10: the ranked moves

WAIT_HAND = "Ah 2h 3h 4h Qs Qh Qd 5c 6c 7c 8c X 7s Kd"
"""Two players, the seat not opened at its third turn, the other opened (8s 9s Ts, Kh Kc Ks).
With the 2d drawn the seat goes out now for -10 (G2): it opens with Ah-4h, the Queens and 5c-8c
(the joker in one of them), adds 7s and Kd to the other's melds and throws the 2d. Holding
instead (Q3), it keeps a joker, a 7s and a Kd beside 11 melded cards: some nineteen of the
unseen cards (5s-9s, 7h 7d 7c with the 7s and the joker, Jd Qd Ad Ks Kh Kc with the Kd) let it
open and go out with its own melds alone next turn, for -20 (G3)."""
WAIT = {"hand": WAIT_HAND, "drawn": "2d", "table": "8s 9s Ts; Kh Kc Ks", "opened": False,
        "others_opened": "yes", "turn": 6}


def _moves(others: str, samples: int, seed: int = 0) -> list[dict]:
    return api.advise(**WAIT, others=others, samples=samples, seed=seed).data["moves"]


def test_Q10_waiting_for_a_one_turn_romi_beats_closing_now() -> None:
    """The other holds 8 cards, so he rarely goes out before the seat's next turn: throwing the
    2d and holding (Q3) wins -20 often enough to beat the -10 of closing now, whose score is
    exact (no spread: it ends the round, G1, G2). 100 samples, seed 0: -12.52 [-13.55, -11.49]
    against -10 (400 samples: -12.67 [-13.40, -11.94])."""
    moves = _moves("8", 100)
    best = moves[0]
    assert (best["draw"], best["card"], best["plan"], best["discard"], best["closes"]) == \
        ("stock", "2d", "hold", "2d", False)
    assert best["penalty_ci"][1] < -10
    close = [m for m in moves if m["closes"]]
    assert close == [{"draw": "stock", "card": "2d", "plan": "expert", "discard": "2d",
                      "closes": True, "penalty": -10.0, "penalty_ci": [-10.0, -10.0]}]
    # every card of the 15 is a waiting discard, once (Q10: one copy of each card)
    held = sorted(m["discard"] for m in moves if m["plan"] == "hold")
    assert held == sorted((WAIT_HAND + " 2d").split())
    assert [m["penalty"] for m in moves] == sorted(m["penalty"] for m in moves)


def test_Q10_closing_now_beats_waiting_when_the_other_is_about_to_go_out() -> None:
    """The same hand, but the other holds one card: waiting gives him turns to go out first,
    and a seat that never opened scores 100 (G5). Closing now (-10) is first and every waiting
    move's interval lies above it (the best, throwing the 2d: 0.70 [-6.92, 8.32] at 100
    samples, 1.48 [-2.37, 5.32] at 400); throwing the 7s or the Kd hands him the card he goes
    out with, 100 on every sample."""
    moves = _moves("1", 100)
    assert moves[0]["closes"] and moves[0]["penalty"] == -10.0
    waits = [m for m in moves if m["plan"] == "hold"]
    assert waits and all(m["penalty_ci"][0] > -10 for m in waits)
    assert {m["discard"]: m["penalty_ci"] for m in waits if m["penalty"] == 100} == \
        {"7s": [100.0, 100.0], "Kd": [100.0, 100.0], "X": [100.0, 100.0]}


def test_Q10_the_same_seed_gives_the_same_advice_and_the_budget_doubles(capsys) -> None:
    """Reproducible at one seed (the text and the JSON); another seed plays other samples; a
    budget doubles the samples until the best two moves part, extending the same samples."""
    argv = ["romi", "advise", *_flags(**WAIT, others="8"), "--samples", "16", "--seed", "3"]
    first = _json(capsys, [*argv, "--json"])
    assert _json(capsys, [*argv, "--json"]) == first
    assert first["search"] == {"method": "Q10: 16 samples a move, each played out by greedy "
                                         "seats (Q7's play-outs), seed 3",
                               "samples": 16, "budget": 16, "seed": 3,
                               "separated": first["search"]["separated"]}
    other = _json(capsys, [*argv[:-1], "4", "--json"])
    assert [m["penalty"] for m in other["moves"]] != [m["penalty"] for m in first["moves"]]
    grown = _json(capsys, [*argv, "--budget", "256", "--json"])["search"]
    assert grown["samples"] in (16, 32, 64, 128, 256) and grown["budget"] == 256
    assert grown["separated"] or grown["samples"] == 256
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert main(argv) == 0 and capsys.readouterr().out == text
    assert "moves by expected penalty" in text and "go out, discard 2d" in text


def test_Q10_a_known_close_is_exact_and_the_frame_holds_the_moves() -> None:
    """G2 with the discard Qc (T4): the close's penalty is -10 with no spread; the stock's
    expert turn is weighed beside it; the frame is the moves, best first."""
    pos = {"hand": "7h 8h Qs Qd 2c", "table": "9h Th Jh; 5s 5d 5c", "discard": "Qc",
           "cut": "3s", "opened": True, "others": "14,8", "others_opened": "no,yes",
           "turn": 7}
    res = api.advise(**pos, samples=32, seed=1)
    frame = res.to_frame()
    assert list(frame.columns) == api.ADVISE_MOVE_COLUMNS
    assert frame.iloc[0][["draw", "card", "discard", "closes", "penalty"]].tolist() == \
        ["discard", "Qc", "2c", True, -10.0]
    stock = res.data["moves"][1]
    assert (stock["draw"], stock["card"], stock["plan"], stock["closes"]) == \
        ("stock", None, "expert", None)
    assert len(frame) == 2 and frame.iloc[1]["penalty"] == stock["penalty"] > -10


@pytest.mark.parametrize(("argv", "part"), [
    (["--samples", "-1"], "--samples"),
    (["--samples", "8", "--budget", "4"], "--budget (4)"),
    (["--budget", "x"], "--budget"),
    (["--samples", "1e9"], "--samples"),
    (["--seed", "-2"], "--seed"),
    (["--drawn", "Zz"], "--drawn"),
    (["--drawn", "X X"], "--drawn"),
])
def test_Q10_a_bad_search_setting_is_one_line_and_exit_2(capsys, argv, part) -> None:
    assert_one_line_error(capsys, ["romi", "advise", *_flags(**GOOD), *argv], part)


def test_Q10_a_card_drawn_at_the_starter_s_first_turn_or_a_third_copy_is_refused(
        capsys) -> None:
    """D4: the starter's first turn has no draw; D1: the card drawn counts with the others."""
    first = {k: v for k, v in GOOD.items() if k != "discard"}
    assert_one_line_error(capsys, ["romi", "advise", *_flags(**{
        **first, "turn": 1, "hand": ROMI_HAND + " 6d"}), "--drawn", "5h"], "--drawn at turn 1")
    assert_one_line_error(capsys, ["romi", "advise", *_flags(**{**GOOD, "discard": "Ah"}),
                                   "--drawn", "Ah"], "and the card drawn")


# ---------------------------------------------------------------- G3 read as "the melds he laid"

SWAP_POSITION = {"hand": "Ks Kh Kd Qs Qh Qd 9c Tc Jc 7c 4h 5h 6h 2s",
                 "table": "7s 7h 7d X; 8d 8h 8s 8c", "cut": "3h", "opened": False,
                 "others": "5", "others_opened": "yes", "turn": 6}
"""Two players; the seat has not opened. With the cut card 3h it opens with Ks Kh Kd, Qs Qh Qd
and 3h .. 6h, takes the joker of the other's set with its 7c (J1), lays 9c Tc Jc and the joker
as a meld of its own and throws the 2s (the other's full set of 8s takes no card)."""


def _reference_swap_close(keeps: bool) -> int:
    """The seat's score when it plays that turn in the reference engine, the state built by
    hand as the position gives it (seat 0 to move, seat 1 opened with the table)."""
    rules = RomiRules.make(players=2, swap_keeps_romi=keeps)
    used: set[int] = set()
    hand = _ids(SWAP_POSITION["hand"], used)
    table = [_ids(m, used) for m in SWAP_POSITION["table"].split("; ")]
    cut = _ids("3h", used)[0]
    other = _ids("2c 3c 4c 5c 6c", used)
    st = ref.RoundState(rules, 1, list(range(C.N_CARDS)))
    st.hands = [list(hand), other]
    st.table = [ref.canonical(m, NO_JOKER) for m in table]
    st.owners = [1, 1]
    st.discards = []
    st.stock = sorted(set(range(C.N_CARDS)) - used - {cut})
    st.cut = st.cut_card = cut
    st.opened = [False, True]
    st.turns_played, st.has_drawn, st.turn, st.player = [2, 3], [True, True], 5, 0
    st.phase = ref.DRAW
    st._new_turn_state()
    kings, queens, hearts = (Meld(tuple(sorted(cs))) for cs in (hand[:3], hand[3:6],
                                                                 [cut, *hand[10:13]]))
    st.apply(DrawCut())
    st.apply(Open(tuple(sorted((kings, queens, hearts), key=lambda m: m.cards))))
    st.apply(Swap(0, hand[9]))
    joker = next(c for c in st.hands[0] if C.is_joker(c))
    st.apply(Lay(ref.canonical([*hand[6:9], joker], NO_JOKER)))
    st.apply(Discard(hand[13]))
    assert st.is_over() and st.went_out == 0
    return st.scores()[0]


@pytest.mark.parametrize(("keeps", "score"), [(False, -10), (True, -20)])
def test_G3_a_swap_into_the_seat_s_own_melds_scores_as_the_reference_engine(
        capsys, keeps: bool, score: int) -> None:
    """Going out with the cut card after swapping a joker out of the other's set: -20 under
    ``--swap-keeps-romi`` (the freed joker goes into the seat's own new meld), -10 under the
    default reading (a swap cancels the Römi), as the reference engine scores the same turn.
    ``expert``'s plan plays that close (Q10): its penalty is the same score, exactly."""
    assert _reference_swap_close(keeps) == score
    flag = ["--swap-keeps-romi"] if keeps else []
    out = _json(capsys, [*ADVISE, *_flags(**SWAP_POSITION), *flag])
    assert out["rules"]["swap_keeps_romi"] is keeps
    assert out["draws"][1] == {"source": "cut", "card": "3h", "legal": True, "rule": "T5",
                               "go_out": score}
    assert out["close_now"] == {"source": "cut", "score": score}
    assert out["draws"][0]["go_out_chance"] == pytest.approx(0.165, abs=5e-4)
    moves = api.advise(**SWAP_POSITION, swap_keeps_romi=keeps, samples=4).data["moves"]
    assert [m for m in moves if m["closes"]] == [
        {"draw": "cut", "card": "3h", "plan": "expert", "discard": "2s", "closes": True,
         "penalty": float(score), "penalty_ci": [float(score), float(score)]}]
