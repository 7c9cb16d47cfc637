"""Römi's report studies: the questions study's kernel against the engine and the reference
engine, the sentences its page and the policies page generate from small constructed tables,
and both readings of G3 (``swap_keeps_romi``) in both engines on a hand-built turn."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simcards.core.rng import chunk_state
from simcards.romi import cards as C
from simcards.romi import question_kernel as QK
from simcards.romi import reference as ref
from simcards.romi import round_kernel as E
from simcards.romi.actions import (
    NO_JOKER,
    Add,
    Discard,
    DrawCut,
    DrawDiscard,
    DrawStock,
    Meld,
    Open,
    Swap,
)
from simcards.romi.kernel_state import Seats
from simcards.romi.melds_exact import solve
from simcards.romi.records import engine_args, play_one_turn, position, record_rounds
from simcards.romi.reports import policies as P
from simcards.romi.reports import questions as Q
from simcards.romi.reports import search as SR
from simcards.romi.rules import PLAYERS, RomiRules

R4 = RomiRules.make(players=4)


# ---------------------------------------------------------------- the questions kernel


def _state(i: int) -> np.ndarray:
    return chunk_state(2026, i, 77)


def test_question_rounds_play_the_rounds_of_simulate_rounds() -> None:
    """Same stream, same rounds: scores and who went out equal ``simulate_rounds``'s, and the
    stream is left where ``simulate_rounds`` leaves it."""
    rl, kinds, params = engine_args(R4, ["greedy"] * 4)
    s1, s2 = _state(1), _state(1)
    want = E.simulate_rounds(s1, 40, rl, Seats(kinds, params), 0)
    got = QK.question_rounds(s2, 40, rl, Seats(kinds, params), 0)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert np.array_equal(s1, s2)


def _reference_notes(rules: RomiRules, rec) -> dict:
    """Replays an engine record in the reference engine and reads, from the reference's state
    after every move, what the questions kernel notes."""
    n = rules.players
    st = ref.RoundState(rules, rec.dealer, list(rec.deck),
                        shuffler=ref.ReplayShuffler(rec.stock_orders))
    draws = [0] * n
    first = [0] * n
    later = [0] * n
    open_draw = [0] * n
    cut = 0
    for move in rec.moves:
        p = st.current_player()
        was_open = st.opened[p]
        if isinstance(move, DrawStock | DrawDiscard | DrawCut):
            draws[p] += 1
            if isinstance(move, DrawDiscard):
                if draws[p] == 1:
                    first[p] = 1
                else:
                    later[p] += 1
            cut |= isinstance(move, DrawCut)
        st.apply(move)
        if not was_open and st.opened[p]:
            open_draw[p] = draws[p]
    other = ref.RoundState(RomiRules.make(players=n, swap_keeps_romi=not rules.swap_keeps_romi),
                           rec.dealer, list(rec.deck),
                           shuffler=ref.ReplayShuffler(rec.stock_orders))
    for move in rec.moves:
        other.apply(move)
    return {"scores": st.scores(), "draws": draws, "first": first, "later": later,
            "open": open_draw, "cut": int(cut), "alt": int(other.romi)}


@pytest.mark.parametrize("policy", ["greedy", "expert"])
def test_question_notes_agree_with_the_reference_engine(policy: str) -> None:
    """Cut card, opening draw, discard draws (T3, T4), the other reading's -20 and the dealt
    hands' best_value, round by round, from the reference engine replaying the same rounds."""
    rl, kinds, params = engine_args(R4, [policy] * 4)
    recs = record_rounds(_state(2), 25, rl, kinds, params, 0)
    got = QK.question_rounds(_state(2), 25, rl, Seats(kinds, params), 0)
    (scores, _out, value, jokers, open_draw, first, later, draws, flags, _f, _s, _a) = got
    for i, rec in enumerate(recs):
        want = _reference_notes(R4, rec)
        assert list(scores[i]) == want["scores"], i
        assert list(draws[i]) == want["draws"], i
        assert list(first[i]) == want["first"], i
        assert list(later[i]) == want["later"], i
        assert list(open_draw[i]) == want["open"], i
        assert flags[i, 0] == want["cut"] and flags[i, 1] == want["alt"], i
        start = ref.RoundState(R4, rec.dealer, list(rec.deck))
        for p in range(4):
            hand = start.hands[p]
            assert value[i, p] == solve(hand).best_value, (i, p)
            assert jokers[i, p] == sum(C.is_joker(c) for c in hand)
    assert flags[:, 0].any(), "the sample holds a round ended by the cut card"


def test_joker_exchange_moves_one_joker_between_the_focus_hand_and_the_rest() -> None:
    rng = np.random.default_rng(5)
    rs = _state(3)
    for _ in range(200):
        deck = rng.permutation(108).astype(np.int64)
        dealer, focus = int(rng.integers(4)), int(rng.integers(4))
        i = (focus - (dealer + 1)) % 4
        lo = 0 if i == 0 else 15 + 14 * (i - 1)
        hi = lo + (15 if i == 0 else 14)
        before = int((deck[lo:hi] >= 104).sum())
        new = deck.copy()
        sign = QK._exchange(new, dealer, 4, focus, rs)
        assert sorted(new) == list(range(108))
        assert int((new[lo:hi] >= 104).sum()) == before + sign
        assert sign == (-1 if before else 1)
        assert int((new != deck).sum()) == 2


# ---------------------------------------------------------------- page sentences


def _seats(diffs: list[tuple[float, float, float]]) -> pd.DataFrame:
    rows = [(0, 0, 24.4, 23.0, 25.8, 0.0, 0.0, 0.0)]
    for k, (d, lo, hi) in enumerate(diffs, start=1):
        rows.append((k, k, 24.4 + d, 23.0 + d, 25.8 + d, d, lo, hi))
    return pd.DataFrame(rows, columns=["seat", "after_dealer", "score", "score_lo",
                                       "score_hi", "minus_dealer", "minus_dealer_lo",
                                       "minus_dealer_hi"])


def test_seat_sentence_says_not_separated_where_the_interval_covers_zero() -> None:
    text = Q.seat_sentence(_seats([(-2.8, -3.9, -1.7), (0.4, -0.6, 1.4)]))
    assert "seat 0 (the dealer) 24.40 [23.00, 25.80]" in text
    assert "seat 1 -2.80 [-3.90, -1.70] (fewer)" in text
    assert "seat 2 +0.40 [-0.60, +1.40] (not separated)" in text


def test_joker_sentence_states_the_measured_worth_or_not_separated() -> None:
    j = pd.Series({"worth": -6.5, "worth_lo": -7.5, "worth_hi": -5.5})
    assert Q.joker_sentence(j) == ("one dealt joker more means 6.50 points fewer a round "
                                   "(-6.50 [-7.50, -5.50])")
    j = pd.Series({"worth": 0.3, "worth_lo": -0.5, "worth_hi": 1.1})
    assert "not separated from 0" in Q.joker_sentence(j)


def _row(a: str, n: int, score: tuple, win: tuple, **kw) -> dict:
    row = {"players": n, "a": a, "b": "greedy", "deal_sets": 10,
           "score_diff": score[0], "score_diff_lo": score[1], "score_diff_hi": score[2],
           "win_diff": win[0], "win_diff_lo": win[1], "win_diff_hi": win[2],
           "never_opened_rate_a": 0.12, "never_opened_rate_b": 0.2, "go_out_rate_a": 0.3,
           "go_out_rate_b": 0.23, "turns_mean": 25.0}
    row.update(kw)
    return row


def test_policy_verdict_is_stated_per_measure() -> None:
    r = pd.Series(_row("rummy:4", 4, (0.86, 0.17, 1.55), (-0.014, -0.049, 0.022)))
    assert P.verdict(r) == ("concedes more points than greedy; its win rate is not "
                            "separated from greedy's")
    r = pd.Series(_row("expert", 4, (-7.63, -8.62, -6.65), (0.208, 0.161, 0.256)))
    assert P.verdict(r) == "concedes fewer points than greedy and wins more often"
    r = pd.Series(_row("x", 4, (0.1, -0.5, 0.7), (0.0, -0.02, 0.02)))
    assert P.verdict(r) == "is not separated from greedy in points or in win rate"


def test_points_fewer_than_greedy_is_not_a_double_negative() -> None:
    r = pd.Series(_row("expert", 2, (-7.18, -9.04, -5.33), (0.367, 0.263, 0.470)))
    text = P.points_phrase(r)
    assert text == "7.18 [5.33, 9.04] points a round fewer than greedy"
    assert "-" not in text
    r = pd.Series(_row("rummy:4", 4, (0.86, 0.17, 1.55), (0.0, 0.0, 0.0)))
    assert P.points_phrase(r) == "0.86 [0.17, 1.55] points a round more than greedy"


def _ladder_frames(n: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The tournament's runs against greedy and the ladder's other pairs at ``n`` players:
    expert well above greedy, rummy:4 not separated from it, threshold:70 below."""
    df = pd.DataFrame([_row("rummy:4", n, (0.4, -0.7, 1.5), (0.006, -0.047, 0.060)),
                       _row("threshold:70", n, (19.0, 17.4, 20.7), (-0.31, -0.36, -0.27)),
                       _row("expert", n, (-7.1, -8.3, -5.8), (0.19, 0.12, 0.26))])
    pairs = pd.DataFrame([_row("threshold:70", n, (19, 18, 20), (-0.30, -0.35, -0.25),
                               b="rummy:4"),
                          _row("expert", n, (-9, -10, -8), (0.15, 0.1, 0.2), b="rummy:4"),
                          _row("expert", n, (-31, -32, -30), (0.3, 0.25, 0.35),
                               b="threshold:70")])
    return df, pairs


def test_romi_ladder_rates_the_round_robin_with_greedy_at_zero() -> None:
    """The page's ladder reads every pair once (three against greedy, three between the
    others): six pairings for four ratings, so the fit has three degrees of freedom, and the
    order follows the paired results."""
    df, pairs = _ladder_frames(3)
    rated = P.table_ladder(df, pairs, 3)
    assert rated["order"] == ["expert", "greedy", "rummy:4", "threshold:70"]
    assert rated["fit"]["dof"] == 6 - 3
    by = {r["policy"]: r for r in rated["ratings"]}
    assert by["greedy"]["rating"] == 0.0
    assert by["expert"]["ci95"][0] > 0 > by["threshold:70"]["ci95"][1]
    assert rated["unseparated"] == [["rummy:4", "greedy"]]


def test_romi_ladder_sentence_quotes_the_best_against_greedy_per_table_size() -> None:
    """One plain sentence per table: with two players the best policy's game win rate above
    greedy's, with more one seat of it among greedy players; then the unseparated pairs."""
    for n, what in ((2, "its game win rate is +0.190 [+0.120, +0.260] above `greedy`'s"),
                    (4, "one `expert` among `greedy` players has a game win rate per seat "
                        "+0.190 [+0.120, +0.260] above theirs")):
        df, pairs = _ladder_frames(n)
        text = P.ladder_sentence(df, n, P.table_ladder(df, pairs, n))
        assert text == (f"**{n} players: play `expert`**: {what}, and it concedes 7.10 "
                        "[5.80, 8.30] points a round fewer than greedy (10 deal sets). Not "
                        "separated (a paired interval includes 0): `greedy` and `rummy:4`.")


def test_a_ladder_says_when_one_rating_per_policy_fits_its_pairings_poorly() -> None:
    """At 4 and 5 players the Römi runs of one A among Bs depend on the field (chi-square
    about 200 on 3 degrees of freedom): below p = 0.01 the fit's sentence says so."""
    from simcards.core import ladder as lad

    good = lad.fit_sentence({"chi2": 3.67, "dof": 3, "p_value": 0.3}, "`greedy`")
    assert "poorly" not in good and good.endswith("is worth)")
    poor = lad.fit_sentence({"chi2": 201.3, "dof": 3, "p_value": 2.2e-43}, "`greedy`")
    assert poor.endswith("describes these pairings poorly (p below 0.01): where a rating and "
                         "a paired run disagree, the run is the measurement")
    assert "poorly" not in lad.fit_sentence({"chi2": 0.0, "dof": 0, "p_value": None}, "x")


def test_romi_page_ladder_plays_both_orders_with_seats_alone() -> None:
    """With two players one run per pair of the other policies (their runs against greedy are
    the tournament's); with 3 or more every pair in both orders, greedy included (one greedy
    among each other policy's players), each order on half a pair's deal sets."""
    jobs = P.ladder_jobs()
    others = [p for p in P.field() if p != P.BASE]
    k = len(others)
    two = [j for j in jobs if j.players == 2]
    assert len(two) == k * (k - 1) // 2 and all(P.BASE not in (j.a, j.b) for j in two)
    for n in PLAYERS:
        if n == 2:
            continue
        ordered = {(j.a, j.b) for j in jobs if j.players == n}
        assert len(ordered) == len([j for j in jobs if j.players == n])
        headline = {(a, P.BASE) for a in others}
        for a in P.field():
            for b in P.field():
                if a != b:
                    assert ((a, b) in ordered) != ((a, b) in headline), (n, a, b)


def test_ladder_orders_split_a_pairs_deal_sets_but_at_the_headline_table() -> None:
    """A pair's 120 deal sets are split between its two orders with 3 or 5 seats alone, so
    the page's ladder costs what one order on all of them did; at 4 players, the headline
    table, each order keeps the 400 of every comparison there (each run within +-1 point)."""
    assert P.ladder_sets(2, False) == P.LADDER_SETS == 120
    assert P.ladder_sets(4, False) == P.FOUR_PLAYER_SETS == 400
    assert {P.ladder_sets(n, False) for n in PLAYERS if n not in (2, 4)} == {60}
    assert P.ladder_sets(4, True) == 2


def test_threshold_sentence_says_what_was_not_tried() -> None:
    thr = pd.DataFrame([_row(f"threshold:{x}", 4, (d, d - 1 if x > 51 else 0.0,
                                                    d + 1 if x > 51 else 0.0), (0, 0, 0))
                        for x, d in ((51, 0.0), (60, 8.67), (70, 21.99))])
    thr.insert(0, "value", [51, 60, 70])
    text = P.threshold_sentence(thr, tried=(51, 60, 70))
    assert "`threshold:51` is greedy itself" in text
    assert "every X tried above 51 concedes more" in text
    assert "Between 51 and 60 nothing was tried" in text
    assert "{51}" not in text


def test_rummy_k_rows_from_8_to_13_are_explained_by_the_opening_size() -> None:
    """An opening worth 51 lays at least 6 cards (5 cards are worth 50 at most: 10 J Q K A),
    so a player holds 14 cards before his opening turn and at most 8 after it: nobody ever
    holds 9 to 13, and ``rummy:K`` for K = 8 .. 13 stops waiting at the same moment."""
    lo, hi = P.unreachable_counts()
    assert (lo, hi) == (9, 13)
    assert "9 to 13 cards" in P.unreachable_sentence()


# ---------------------------------------------------------------- G3: the two readings


def _ids(text: str, used: set[int]) -> list[int]:
    out = []
    for tok in text.split():
        k = C.kind(C.parse_hand(tok)[0])
        cands = list(range(104, 108)) if k == C.JOKER_KIND else [k, k + 52]
        c = next(c for c in cands if c not in used)
        used.add(c)
        out.append(c)
    return out


@pytest.mark.parametrize("keeps,score", [(False, -10), (True, -20)])
def test_G3_swap_into_own_new_melds_under_both_readings_numba_engine(keeps: bool,
                                                                     score: int) -> None:
    """Player 0 opens with 7h 8h 9h and Qs Qh Qd, takes the joker of player 1's set 7c 7d 7h X
    with his 7s (J1), lays it on his own new run and goes out with 2c: -10 when any swap
    cancels the Römi (the default), -20 under ``swap_keeps_romi``."""
    rules = RomiRules.make(players=2, swap_keeps_romi=keeps)
    used: set[int] = set()
    hand = _ids("7h 8h 9h Qs Qh Qd 7s", used)
    table = [(1, _ids("7c 7d 7h X", used), NO_JOKER)]
    other = _ids("3s 4d 6c 9s Js", used)
    ws = position(rules, [hand, other], dealer=1, to_move=0, stock=_ids("2c", used),
                  table=table, opened=[False, True])
    rl, kinds, params = engine_args(rules, ["greedy", "greedy"])
    status, actions, _ = play_one_turn(ws, rl, kinds, params)
    assert status == 1
    assert isinstance(actions[1], Open) and any(isinstance(a, Swap) for a in actions)
    assert all(a.target != 0 for a in actions if isinstance(a, Add)), "joker on his own meld"
    out = np.zeros(2, np.int64)
    E.score_round(rl, ws, out)
    assert int(out[0]) == score


@pytest.mark.parametrize("keeps,score", [(False, -10), (True, -20)])
def test_G3_swap_into_own_new_melds_under_both_readings_reference_engine(keeps: bool,
                                                                         score: int) -> None:
    """The same turn in the reference engine; a card added to another player's meld cancels
    the -20 under both readings."""
    rules = RomiRules.make(players=2, swap_keeps_romi=keeps)
    used: set[int] = set()
    hands = [_ids("7h 8h 9h Qs Qh Qd 7s", used), _ids("3s 4d 6c 9s Js", used)]
    table = _ids("7c 7d 7h X", used)
    stock = _ids("2c", used)
    st = ref.RoundState(rules, 1, list(range(C.N_CARDS)))
    st.hands = [list(h) for h in hands]
    st.table, st.owners = [ref.canonical(table, NO_JOKER)], [1]
    st.discards = []
    st.stock = stock + sorted(set(range(C.N_CARDS)) - used)
    st.cut = st.cut_card = st.stock.pop()
    st.opened = [False, True]
    st.turns_played, st.has_drawn, st.turn, st.player = [1, 1], [True, True], 2, 0
    st.phase = ref.DRAW
    st._new_turn_state()
    h = hands[0]
    run, quads = Meld(tuple(sorted(h[:3]))), Meld(tuple(sorted(h[3:6])))
    for a in (DrawStock(), Open(tuple(sorted((run, quads), key=lambda m: m.cards))),
              Swap(0, h[6])):
        st.apply(a)
    joker = next(c for c in st.hands[0] if C.is_joker(c))
    own_run = next(i for i, m in enumerate(st.table) if set(h[:3]) <= set(m.cards))
    ten = C.parse_hand("Th")[0] % 52
    st.apply(Add(own_run, joker, ten))
    st.apply(Discard(stock[0]))
    assert st.is_over() and st.went_out == 0 and st.romi == keeps
    assert st.scores()[0] == score


def test_questions_page_command_gives_the_same_seat_scores_and_minus_20_rate() -> None:
    """The page's `simcards romi rounds ... --dealer 0` run is the study's sample."""
    from simcards.core.runner import run_batches
    from simcards.romi import api

    (s,) = run_batches([Q.questions_batch(11, 600)], workers=1, progress=False)
    tabs = Q.answers(s)
    out = api.rounds(players=4, policies="greedy", dealer=0, rounds=600, seed=11, workers=1,
                     store="none")
    assert tabs["seats"].score.tolist() == pytest.approx(out["score_mean"], rel=1e-12)
    romi = tabs["endings"].set_index("what").loc["the round ended in a -20 (G3)", "rate"]
    assert romi == pytest.approx(sum(out["rummy_rate"]), rel=1e-12)


def test_identical_rummy_rows_are_explained_and_checked() -> None:
    rows = [_row(f"rummy:{k}", 4, (d, d - 0.5, d + 0.5), (0.0, -0.03, 0.03), score_a=22.1,
                 win_a=0.25, go_out_rate_a=0.25, rummy_rate_a=0.01)
            for k, d in ((6, -0.27), (8, -0.09), (10, -0.09))]
    rows.append(_row("rummy:14", 4, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), score_a=21.97,
                     win_a=0.25, go_out_rate_a=0.25, rummy_rate_a=0.003))
    rows[0].update(score_a=22.27)
    df = pd.DataFrame(rows)
    df.insert(0, "value", [6, 8, 10, 14])
    text = P._identical_note(df)
    assert "no opponent ever holds 9 to 13 cards" in text
    assert "Here K = 8 and K = 10 give identical rows, as they must." in text
    assert "K = 14 equals greedy exactly." in text


def _rummy_sweep() -> pd.DataFrame:
    """The 4-player sweep as measured: K = 8 and K = 10 bit-identical, K = 14 greedy."""
    same = {"score_a": 22.79, "win_a": 0.247, "go_out_rate_a": 0.251, "rummy_rate_a": 0.010}
    rows = [_row("rummy:0", 4, (60.75, 59.79, 61.72), (-0.330, -0.333, -0.327), score_a=80.6,
                 win_a=0.003, go_out_rate_a=0.161, rummy_rate_a=0.161),
            _row("rummy:6", 4, (0.61, 0.26, 0.95), (-0.010, -0.028, 0.009), score_a=23.12,
                 win_a=0.243, go_out_rate_a=0.250, rummy_rate_a=0.020),
            _row("rummy:8", 4, (0.14, -0.10, 0.39), (-0.004, -0.021, 0.013), **same),
            _row("rummy:10", 4, (0.14, -0.10, 0.39), (-0.004, -0.021, 0.013), **same),
            _row("rummy:14", 4, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), score_a=22.61,
                 win_a=0.250, go_out_rate_a=0.250, rummy_rate_a=0.003)]
    df = pd.DataFrame(rows)
    df.insert(0, "value", [0, 6, 8, 10, 14])
    return df


def test_wait_sentence_says_which_k_play_the_same_rounds_and_claims_no_trend() -> None:
    """``rummy:8`` and ``rummy:10`` have identical rows (no opponent ever holds 9 to 13
    cards): the answer says so, and no longer says "the larger K, the sooner it stops
    waiting", which is not true between them."""
    text = P._wait_sentence(_rummy_sweep())
    assert "the larger K" not in text and "sooner" not in text
    assert ("K in {8, 10, 14} are not separated from greedy in points (K = 8 and K = 10 play "
            "the same rounds, their rows identical, since no opponent holds 9 to 13 cards at "
            "the start of a turn; K = 14 never waits and is greedy exactly)") in text


# ---------------------------------------------------------------- the search study (long)


def _search_rows(n: int, search: tuple, more: tuple) -> list[dict]:
    """Runs against an ``expert`` field at ``n`` players: the two searches (score, win rate
    each), the bound and greedy."""
    return [_row("search:16", n, *search, b="expert", deal_sets=200),
            _row("search:48", n, *more, b="expert", deal_sets=100),
            _row("seeing:16", n, (-25.73, -27.00, -24.47), (0.990, 0.970, 1.010), b="expert"),
            _row("greedy", n, (9.10, 8.12, 10.09), (-0.431, -0.488, -0.374), b="expert")]


S16 = ((-0.51, -1.02, 0.01), (0.020, -0.030, 0.070))
S48 = ((-1.82, -2.53, -1.11), (0.120, 0.045, 0.195))


def test_search_page_shares_the_greedy_to_bound_distance_in_points() -> None:
    """expert sits at 0 on the scale of runs against expert: greedy +9.10, the bound -25.73,
    so expert covers 9.10 / 34.83 of the way and search:16 at -0.51 covers 9.61 / 34.83."""
    df = pd.DataFrame(_search_rows(2, S16, S48))
    sh = SR.shares(df, 2)
    assert sh["expert"] == pytest.approx(9.10 / 34.83)
    assert sh["search:16"] == pytest.approx(9.61 / 34.83)
    assert sh["search:48"] == pytest.approx(10.92 / 34.83)


def test_search_sentence_plays_the_search_that_concedes_fewest_where_it_separates() -> None:
    """The search to play concedes fewer points than expert (interval below 0), the fewest of
    those; none when no interval is below 0."""
    level = ((-0.30, -0.90, 0.30), (0.030, 0.010, 0.050))
    df = pd.DataFrame(_search_rows(2, S16, S48) + _search_rows(4, level, level))
    assert SR.best(df, 2) == ["search:48"]
    assert SR.sentence(df, 2) == (
        "**2 players: play `search:48`**. `search:16` is not separated from `expert` in "
        "points (-0.51 [-1.02, +0.01] a round), and its game win rate per seat is not "
        "separated from expert's (200 deal sets); `search:48` concedes 1.82 [1.11, 2.53] "
        "points a round fewer than `expert`, and its game win rate per seat differs from "
        "expert's by +0.120 "
        "[+0.045, +0.195] (100 deal sets). The all-seeing bound concedes 25.73 points a round "
        "fewer than `expert`: that is what the hidden cards are worth to this search. Of the "
        "distance from `greedy` to the bound, `expert` covers 26%, `search:16` 28%, "
        "`search:48` 31%.")
    assert SR.best(df, 4) == []
    text = SR.sentence(df, 4)
    assert text.startswith("**4 players: no search separates from `expert`**. `search:16` is "
                           "not separated from `expert` in points (-0.30 [-0.90, +0.30] a "
                           "round), and its game win rate per seat differs from expert's by "
                           "+0.030 [+0.010, +0.050]")



def test_search_sentence_names_every_search_whose_interval_overlaps_the_best() -> None:
    df = pd.DataFrame(_search_rows(4, ((-0.88, -1.40, -0.35), (0.045, 0.013, 0.077)),
                                   ((-1.13, -1.83, -0.43), (0.040, -0.012, 0.092))))
    assert SR.best(df, 4) == ["search:48", "search:16"]
    assert SR.sentence(df, 4).startswith(
        "**4 players: play `search:48` or `search:16`** (their intervals overlap: which of "
        "them is better is not measured here). `search:16` concedes 0.88 [0.35, 1.40] points")


def test_search_page_names_the_runs_wider_than_the_interval_they_were_sized_for() -> None:
    """Runs whose game-win interval is wider than +-0.03 are named (a half-width of 0.0305 is
    wider; 0.0295 is not); the bound and greedy are not searches and are never named."""
    narrow = ((-1.60, -1.90, -1.30), (0.103, 0.0735, 0.1325))
    just_over = ((-0.62, -0.93, -0.31), (0.045, 0.0145, 0.0755))
    df = pd.DataFrame(_search_rows(2, just_over, narrow) + _search_rows(4, narrow, S48))
    assert SR.wide(df) == ["`search:16` with 2 players", "`search:48` with 4 players"]
    assert SR.wide(pd.DataFrame(_search_rows(2, narrow, narrow))) == []


def test_romi_search_is_a_long_study_built_only_when_asked() -> None:
    from simcards.core.registry import all_studies

    assert "romi-search" not in all_studies()
    assert "romi-search" in all_studies(long=True)
    assert "romi-policies" in all_studies(long=True)


def test_search_page_figures_are_those_of_its_command(tmp_path, monkeypatch) -> None:
    """The study (two players, quick sizes, searches of 2 and 4 samples for speed) writes the
    runs the page's command gives: one deal set a chunk with a searching seat, as ``simcards
    romi compare`` cuts them."""
    from simcards.romi import api

    monkeypatch.setattr(SR, "PLAYERS", (2,))
    monkeypatch.setattr(SR, "SEARCHES", ("search:2", "search:4"))
    monkeypatch.setattr(SR, "BOUND", "seeing:2")
    page = SR.build(tmp_path, seed=5, workers=1, progress=False, quick=True)
    df = pd.read_csv(tmp_path / "romi" / "search_compare.csv")
    assert list(df.a) == ["search:2", "search:4", "seeing:2", "greedy"]
    out = api.compare(a="search:4", b="expert", players=2, deals=2, seed=5, workers=1,
                      store="none")
    row = df.iloc[1]
    assert row.score_diff == pytest.approx(out["score_diff"]["mean"], rel=1e-12)
    assert row.win_diff == pytest.approx(out["win_rate_diff"]["mean"], rel=1e-12)
    text = page.read_text()
    assert "Quick mode" in text and "`expert` covers" in text
