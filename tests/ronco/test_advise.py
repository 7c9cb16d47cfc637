"""``simcards ronco advise``: one concrete position, its two actions valued exactly.

The round's values (S4b) come from ``bayes``'s decision table; they are checked against an
independent walk over every deal leading to the position (advise_exact.outcomes), and the
advice against ``bayes``'s decision, at every information set of a 4-player round (and of a
6-player one with ``--full``, a sample without). With ``--lives`` the advice is for the game:
one position where it differs from the round's is pinned. A position no deal can lead to is
refused in one line, exit status 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from simcards.core.cli import main
from simcards.core.errors import UsageError
from simcards.ronco import advise
from simcards.ronco import advise_exact as ax
from simcards.ronco.bayes_exact import round_table
from simcards.ronco.charts import ACTIONS, decisions_of, situations, to_csv
from simcards.ronco.games_exact import exact_game, win_values
from simcards.ronco.policies import Policy
from simcards.ronco.rules import RoncoRules
from simcards.ronco.seat import read_seat
from tests import sizes

FIELD = Policy("threshold", 5, 5)


def _cli(capsys, *args: str) -> tuple[int, dict | None, str]:
    code = main(["ronco", "advise", *args, "--json"])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else None), out.err


def _card(rules: RoncoRules, strength: int, avoid: str | None = None) -> str:
    """A card of ``strength`` as players write it, other than ``avoid``."""
    deck = rules.deck_obj
    return next(deck.text(i) for i in range(len(deck))
                if int(rules.strengths[i]) == strength and deck.text(i) != avoid)


def _cells(rules: RoncoRules, n: int):
    """Every information set of a table of ``n`` (S6's situations and the card held), as
    advise's arguments."""
    sit = situations(rules, n)
    for r in range(sit.size):
        pos, hist, dealt = sit.key(r)
        before = [ACTIONS[(hist // 3**(pos - 1 - j)) % 3] for j in range(pos)]
        dealt_text = _card(rules, dealt) if dealt >= 0 else None
        for j in np.flatnonzero(sit.possible[r]):
            yield dict(players=n, seat=pos, before=before, dealt=dealt_text,
                       card=_card(rules, int(sit.strengths[j]), dealt_text))


def _sweep(n: int, every: int = 1) -> int:
    """advise at every ``every``-th information set: its better action is bayes's decision,
    its two values those of the walk over the deals; a set the field never leads to is
    refused. Returns how many sets were advised."""
    rules = RoncoRules.make()
    table = round_table(rules, [FIELD] * (n - 1) + [Policy("bayes")])  # noqa: F841 (warm)
    decide, reads = ax.field_decider(rules, [FIELD] * n)
    advised = 0
    for i, cell in enumerate(_cells(rules, n)):
        if i % every:
            continue
        seat = read_seat(rules, cell["players"], cell["seat"], cell["card"], cell["before"],
                         cell["dealt"])
        walked = [ax.outcomes(rules, seat, keep, decide, reads, seat_only=True)
                  for keep in (True, False)]
        if walked[0][1] == 0:
            with pytest.raises(UsageError, match="never leads here"):
                advise(**cell)
            continue
        out = advise(**cell).to_dict()
        bayes = round_table(rules, [Policy("bayes") if p == seat.position else FIELD
                                    for p in range(n)])
        decision = bayes.replies()[(n, seat.position, tuple(cell["before"]), seat.card,
                                    None if seat.dealt < 0 else seat.dealt)]
        assert (out["best"] == "keep") == decision
        for move, (dist, weight) in zip(out["moves"], walked, strict=True):
            assert move["p_lose"] == pytest.approx(ax.seat_loss(dist, seat.position),
                                                   abs=1e-11)
            assert out["p_situation"] == pytest.approx(weight, abs=1e-11)
        advised += 1
    return advised


def test_S4_advice_at_every_information_set_of_4_players_is_bayes_and_exact() -> None:
    assert _sweep(4) == 339  # the others, the rest, are refused: the field never leads there


@pytest.mark.skipif(not sizes.FULL, reason="the 6-player sweep runs with --full")
def test_S4_advice_at_every_information_set_of_6_players_is_bayes_and_exact() -> None:
    assert _sweep(6) > 0


def test_S4_advice_at_a_sample_of_6_player_sets_is_bayes_and_exact() -> None:
    assert _sweep(6, every=997) > 0


def test_S4_the_command_line_prints_the_pinned_position(capsys) -> None:
    code, out, err = _cli(capsys, "--players", "4", "--seat", "2", "--card", "4o",
                          "--before", "keep,swap", "--dealt", "7c")
    assert code == 0, err
    assert out["best"] == "pass"
    assert [m["action"] for m in out["moves"]] == ["keep", "pass"]
    assert out["moves"][0]["p_lose"] == pytest.approx(0.830787309048, abs=1e-11)
    assert out["moves"][1]["p_lose"] == pytest.approx(0.495821908865, abs=1e-11)
    assert out["by"] == pytest.approx(0.334965400183, abs=1e-11)
    assert out["moves"][0]["difference"] == out["by"]


def test_S4_the_suit_is_read_and_ignored(capsys) -> None:
    """C2: another 4 and another 7 give the same answer, but for the text of the cards."""
    a = advise(players=4, seat=2, card="4o", before="keep,swap", dealt="7c").to_dict()
    b = advise(players=4, seat=2, card="4e", before=["keep", "swap"],
               dealt="7 bastos").to_dict()
    assert (a["card"], a["dealt"], b["card"], b["dealt"]) == ("4o", "7c", "4e", "7b")
    assert a["moves"] == b["moves"]


def test_C1_cards_are_read_in_the_rules_deck() -> None:
    """French cards by their suit letters (s, h, d, c); 13 is the French top rank (C3), no
    Spanish card; 8 is a card of spanish48 only."""
    out = advise(players=3, seat=1, card="13h", before="refused", deck="french52")
    assert (out["card"], out["best"]) == ("13h", "keep")
    with pytest.raises(UsageError, match="no card '13o'"):
        advise(players=3, seat=0, card="13o")
    assert advise(players=3, seat=0, card="8e", deck="spanish48")["card"] == "8e"


def test_S4_a_position_file_reads_as_the_flags(tmp_path: Path, capsys) -> None:
    flags = advise(players=4, seat=2, card="4o", before="keep,swap", dealt="7c").to_dict()
    js = tmp_path / "p.json"
    js.write_text(json.dumps({"players": 4, "seat": 2, "card": "4o",
                              "before": ["keep", "swap"], "dealt": "7c"}))
    toml = tmp_path / "p.toml"
    toml.write_text('players = 4\nseat = 2\ncard = "4o"\nbefore = "keep,swap"\n'
                    'dealt = "7c"\n')
    for path in (js, toml):
        code, out, err = _cli(capsys, "--position", str(path))
        assert code == 0, err
        assert out == flags


def test_S5_S6_a_chart_of_the_field_advises_as_the_field(tmp_path: Path) -> None:
    """The others on a chart written from threshold:5:5 (walked over the deals, S6) give the
    values of the threshold field (from bayes's table), at a few positions."""
    rules = RoncoRules.make()
    path = tmp_path / "field.csv"
    path.write_text(to_csv(*decisions_of(rules, 4, FIELD, FIELD), rules))
    for cell in (dict(seat=0, card="5o"), dict(seat=2, card="4o", before="keep,swap",
                                                     dealt="7c"),
                 dict(seat=3, card="6c", before="keep,keep,keep")):
        a = advise(players=4, **cell).to_dict()
        b = advise(players=4, field=f"chart:{path}", **cell).to_dict()
        for x, y in zip(a["moves"], b["moves"], strict=True):
            assert x["p_lose"] == pytest.approx(y["p_lose"], abs=1e-12)
        assert a["best"] == b["best"]


T55 = '''
from simcards.ronco.observation_kernel import card


def t55(obs, legal):
    """threshold:5:5 under spanish40 (the value 5 is class 4)."""
    return 0 if card(obs) >= 4 else 1
'''


@pytest.mark.filterwarnings("ignore:First-class function type")
def test_S5_a_function_of_the_field_advises_as_the_field(tmp_path: Path) -> None:
    """The others on a function of theirs that plays threshold:5:5 (tabulated per situation,
    S5, and walked over the deals) give the threshold field's values."""
    path = tmp_path / "t55.py"
    path.write_text(T55)
    cell = dict(players=4, seat=2, card="4o", before="keep,swap", dealt="7c")
    a = advise(**cell).to_dict()
    b = advise(field=f"{path}:t55", **cell).to_dict()
    assert b["field"].endswith("t55.py:t55")
    for x, y in zip(a["moves"], b["moves"], strict=True):
        assert x["p_lose"] == pytest.approx(y["p_lose"], abs=1e-12)


def test_R10_under_poroli_the_loss_counts_a_double_loss_twice() -> None:
    out = advise(players=3, seat=0, card="1b", poroli=True).to_dict()
    keep, pas = out["moves"]
    assert keep["p_lose"] == pytest.approx(1.0)  # the Poroli card is the lowest (C4)
    assert keep["lives_lost"] == pytest.approx(2.0)
    assert out["best"] == "pass"
    assert pas["lives_lost"] > pas["p_lose"]  # a swap refused keeps the Poroli card


def test_G1_G7_the_chain_values_are_the_exact_games_win_rates() -> None:
    """win_values at the start (every dealer, equally likely) is exact_game's answer."""
    rules = RoncoRules.make()
    values = win_values(rules, [FIELD] * 3, 2, [((2, 2, 2), d) for d in range(3)])
    game = exact_game(rules, [FIELD] * 3, 2)
    assert values.mean(axis=0) == pytest.approx(game.win, abs=1e-12)


def test_G1_lives_change_the_advice_at_a_pinned_position(capsys) -> None:
    """Found by scripts/ronco_advise_search.py: the dealer of 3 with a 4, position 1 having
    swapped him another 4, position 1 on his last life. Cutting loses the round less often,
    but keeping takes position 1 out with him (ties all lose, R8) and wins the game more."""
    code, out, err = _cli(capsys, "--players", "3", "--seat", "2", "--card", "4c",
                          "--before", "keep,swap", "--dealt", "4o", "--lives", "1,1,2")
    assert code == 0, err
    keep, cut = out["moves"]
    assert (out["best"], out["best_game"], out["game_differs"]) == ("cut", "keep", True)
    assert keep["p_lose"] == pytest.approx(1.0, abs=1e-12)
    assert cut["p_lose"] == pytest.approx(0.481982, abs=1e-6)
    assert keep["p_win"] == pytest.approx(0.525236, abs=1e-6)
    assert cut["p_win"] == pytest.approx(0.512291, abs=1e-6)
    assert out["by_game"] == pytest.approx(keep["p_win"] - cut["p_win"], abs=1e-12)
    # the round's values from the walk that keeps every position's card (for the lives) are
    # those of bayes's table
    rnd = advise(players=3, seat=2, card="4c", before="keep,swap", dealt="4o").to_dict()
    for x, y in zip(rnd["moves"], out["moves"], strict=True):
        assert x["p_lose"] == pytest.approx(y["p_lose"], abs=1e-12)
    code, out, err = _cli(capsys, "--players", "3", "--seat", "2", "--card", "4c",
                          "--before", "keep,swap", "--dealt", "4o", "--lives", "2,2,2")
    assert code == 0, err
    assert (out["best"], out["best_game"], out["game_differs"]) == ("cut", "cut", False)


BAD = [
    (["--players", "4", "--seat", "4", "--card", "4o"], "--seat 4"),
    (["--players", "1", "--seat", "0", "--card", "4o"], "--players"),
    (["--players", "21", "--seat", "0", "--card", "4o"], "--players"),
    (["--players", "11", "--seat", "0", "--card", "4o"], "at most 10 players"),
    (["--seat", "1", "--card", "4o", "--before", "keep,keep"], "--before gives 2"),
    (["--seat", "2", "--card", "4o", "--before", "keep"], "--before gives 1"),
    (["--seat", "1", "--card", "4o", "--before", "pass"], "'pass' is not"),
    (["--seat", "0", "--card", "8o"], "no card '8o'"),
    (["--seat", "0", "--card", "13o"], "no card '13o'"),
    (["--seat", "0", "--card", "4x"], "no suit 'x'"),
    (["--seat", "0", "--card", "4"], "cannot read card"),
    (["--seat", "2", "--card", "4o", "--before", "keep,refused"], "top rank 12"),
    (["--seat", "2", "--card", "4o", "--before", "keep,swap"], "--dealt is needed"),
    (["--seat", "2", "--card", "4o", "--before", "keep,keep", "--dealt", "7c"],
     "seat 1 kept"),
    (["--seat", "0", "--card", "4o", "--dealt", "7c"], "nobody acts before seat 0"),
    (["--seat", "1", "--card", "4o", "--before", "swap", "--dealt", "4o"],
     "a card cannot be dealt twice"),
    (["--seat", "1", "--card", "4o", "--before", "swap", "--dealt", "12c"],
     "refuses every swap"),
    (["--players", "6", "--seat", "5", "--card", "12o", "--before",
      "refused,refused,refused,refused,keep"], "4 such cards, none left"),
    (["--players", "7", "--seat", "6", "--card", "12o", "--before",
      "refused,refused,refused,refused,refused,refused"], "6 refusals"),
    (["--seat", "1", "--card", "7o", "--before", "swap", "--dealt", "4c"],
     "never leads here"),
    (["--seat", "0", "--card", "4o", "--field", "random:0.5"], "decides by chance"),
    (["--seat", "0", "--card", "4o", "--field", "bayes"], "--field bayes"),
    (["--seat", "0", "--card", "4o", "--lives", "1,2,3"], "--lives gives 3"),
    (["--seat", "0", "--card", "4o", "--lives", "1,0,3,3"], "at least 1 life"),
    (["--players", "6", "--seat", "0", "--card", "4o", "--lives", "5,5,5,5,5,5"],
     "over its limit"),
    (["--seat", "0", "--card", "4o", "--lives", "3,x,2,2"], "--lives"),
    (["--card", "4o"], "--seat is needed"),
    (["--position", "p.json", "--seat", "1"], "--seat cannot be given with it"),
    (["--position", "nofile.json"], "--position"),
]


@pytest.mark.parametrize(("args", "part"), BAD, ids=[p for _a, p in BAD])
def test_an_impossible_position_is_refused_in_one_line(capsys, args, part) -> None:
    code, out, err = _cli(capsys, *args)
    assert code == 2
    assert out is None
    assert err.count("\n") == 1 and err.startswith("simcards: error: ")
    assert part in err
