"""Ronda's report pages say what their numbers show: every round-robin cell is the run its
caption names, the answers are per table size, and the figures and seat section read right."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from simcards.core.cli import main
from simcards.ronda import compare_batch
from simcards.ronda.policies import KINDS
from simcards.ronda.reports import game, policies
from simcards.ronda.rules import RondaRules

SEED = 7


@pytest.fixture(scope="module")
def three_player_pair() -> pd.DataFrame:
    """Both orders of greedy and lookahead:1 at three players, as the study runs them."""
    jobs = [p for p in policies.pairings()
            if p.table == "3 players" and {p.a, p.b} == {"greedy", "lookahead:1"}]
    assert [(p.a, p.b) for p in jobs] == [("lookahead:1", "greedy"), ("greedy", "lookahead:1")]
    return policies.run_pairings(jobs, seed=SEED, workers=1, quick=True)


def test_three_player_cell_is_win_rate_a_of_the_run_its_caption_names(
        three_player_pair, tmp_path, monkeypatch, capsys) -> None:
    """"greedy v lookahead:1" at 3 players is one greedy against lookahead:1 in both other
    seats: ``win_rate_a`` of ``compare greedy lookahead:1``, not B's rate in the reverse run,
    and the command the page prints gives it."""
    got = policies.cell(three_player_pair, "3 players", "greedy", "lookahead:1")
    run = compare_batch.simulate(RondaRules.make(players=3), KINDS.parse("greedy"),
                           KINDS.parse("lookahead:1"), 8, seed=SEED, workers=1).to_dict()
    assert got.value == run["win_rate_a"]
    assert [got.low, got.high] == run["win_ci_a"]
    reverse = policies._run(three_player_pair, "lookahead:1", "greedy")
    assert policies.cell(three_player_pair, "3 players", "lookahead:1", "greedy").value \
        == reverse.a_win
    row = policies._run(three_player_pair, "greedy", "lookahead:1")
    cmd = policies.command(row, SEED)
    assert cmd == f"simcards ronda compare greedy lookahead:1 --players 3 --deals 8 " \
                  f"--seed {SEED} --json"
    monkeypatch.setenv("SIMCARDS_STORE", str(tmp_path))
    capsys.readouterr()
    assert main([*cmd.split()[1:], "--workers", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["win_rate_a"] == got.value


def test_two_sided_cells_come_from_the_pairs_one_run() -> None:
    """With two sides one run answers both cells; with 3 or 4 players alone both orders run."""
    jobs = policies.pairings()
    extra = len(policies.SEARCH) * len(policies.SEARCH_OPPONENTS) + 1  # and the bound
    for table, n in (("2 players", 6), ("3 players", 12), ("4 players", 12),
                     ("teams (2 v 2)", 6)):
        assert sum(j.table == table for j in jobs) == n + extra, table


def test_three_and_four_player_pairings_get_the_two_player_deal_sets() -> None:
    """Every round-robin pairing without rollout:32 gets as many deal sets at every table
    size; a search player's run gets its own number."""
    for job in policies.pairings():
        if job.a in policies.SEARCH:
            assert policies.deal_sets(job, quick=False) == policies.SEARCH_SETS, job
        elif job.a == policies.BOUND:
            assert (job.b, policies.deal_sets(job, quick=False)) == ("greedy",
                                                                     policies.BOUND_SETS), job
        elif "rollout" not in job.a + job.b:
            assert policies.deal_sets(job, quick=False) == 1_000, job


def _row(table: str, a: str, b: str, diff: tuple[float, float, float], a_win: float = 0.4,
         b_win: float = 0.3) -> dict:
    players = {"2 players": 2, "3 players": 3, "4 players": 4}[table]
    return {"table": table, "players": players, "teams": False, "a": a, "b": b,
            "deal_sets": 300, "a_win": a_win, "a_win_lo": a_win - 0.03,
            "a_win_hi": a_win + 0.03, "b_win": b_win, "b_win_lo": b_win - 0.03,
            "b_win_hi": b_win + 0.03, "win_diff": diff[0], "win_diff_lo": diff[1],
            "win_diff_hi": diff[2], "points_diff": 0.1, "points_diff_lo": -0.1,
            "points_diff_hi": 0.3, "unfinished": 0, "violations": 0}


def _three_player_frame() -> pd.DataFrame:
    """The three-player pattern of the issue: lookahead:1 loses to greedy, rollout:32 is not
    separated from greedy, random loses to everything."""
    diffs = {("lookahead:1", "greedy"): (-0.06, -0.09, -0.03),
             ("greedy", "lookahead:1"): (0.05, 0.02, 0.08),
             ("rollout:32", "greedy"): (0.03, -0.02, 0.08),
             ("greedy", "rollout:32"): (0.00, -0.04, 0.04),
             ("rollout:32", "lookahead:1"): (0.08, 0.02, 0.14),
             ("lookahead:1", "rollout:32"): (-0.05, -0.10, -0.01)}
    rows = [_row("3 players", a, b, d) for (a, b), d in diffs.items()]
    for p in ("greedy", "lookahead:1", "rollout:32"):
        rows.append(_row("3 players", p, "random", (0.7, 0.65, 0.75), 0.8, 0.09))
        rows.append(_row("3 players", "random", p, (-0.6, -0.65, -0.55), 0.05, 0.45))
    return pd.DataFrame(rows)


def test_three_player_runs_name_the_unbeaten_policies_without_a_second_answer() -> None:
    text = "\n".join(policies.table_answer(_three_player_frame(), "3 players"))
    assert text.startswith("**3 players, the round robin's 4 policies alone:** no run among "
                           "them shows `greedy` and `rollout:32` measurably worse than another "
                           "of them; of these, `greedy` costs the least")
    assert "One `lookahead:1` among `greedy` players loses to them" in text
    assert "One `rollout:32` among `greedy` players is not separated from them" in text
    assert "`random` does measurably worse than every other policy in every run" in text


def _two_player_frame() -> pd.DataFrame:
    rows = [_row("2 players", "greedy", "random", (0.86, 0.84, 0.88)),
            _row("2 players", "lookahead:1", "random", (0.97, 0.96, 0.98)),
            _row("2 players", "rollout:32", "random", (0.97, 0.96, 0.98)),
            _row("2 players", "lookahead:1", "greedy", (0.48, 0.45, 0.51)),
            _row("2 players", "rollout:32", "greedy", (0.55, 0.52, 0.59)),
            _row("2 players", "rollout:32", "lookahead:1", (0.04, 0.02, 0.07)),
            _row("2 players", "ismcts:1000", "greedy", (0.60, 0.55, 0.65)),
            _row("2 players", "ismcts:1000", "rollout:32", (0.08, 0.03, 0.13))]
    return pd.DataFrame(rows)


def test_two_player_runs_name_the_one_unbeaten_round_robin_policy() -> None:
    sub = _two_player_frame()
    field = sub.a.isin(policies.POLICIES) & sub.b.isin(policies.POLICIES)
    text = "\n".join(policies.table_answer(sub[field], "2 players"))
    assert text.startswith("**2 players, the round robin's 4 policies alone:** no run among "
                           "them shows `rollout:32` measurably worse than another of them.")
    assert "`rollout:32` beats `lookahead:1`" in text


def test_the_page_gives_one_answer_per_table_and_restricts_the_runs_section(
        monkeypatch) -> None:
    """The ladder names the policy to play (here the search player, above `rollout:32`);
    the section over the round robin's runs says it is restricted to those policies and
    names no other policy to play, so the page does not answer twice."""
    sub = _two_player_frame()
    rated = policies.table_ladder(sub)
    ladder = policies.ladder_sentence(sub, "2 players", rated)
    assert ladder.startswith("**2 players: play `ismcts:1000`**")
    monkeypatch.setattr(policies, "TABLES", (("2 players", {"players": 2}),))
    lines = policies._answer(sub)
    text = "\n".join(lines)
    assert lines[0] == "## The runs behind the ladder"
    assert "restricted to the round robin's policies" in text
    assert "**2 players: play" not in text and "play `rollout:32`" not in text
    assert "**2 players, the round robin's 4 policies alone:**" in text


def test_round_robin_figure_has_a_colour_legend_and_one_x_scale(monkeypatch) -> None:
    figs = []
    monkeypatch.setattr(policies, "save_figure", lambda fig, path: figs.append(fig) or "x.png")
    frames = [_three_player_frame()]
    for table in ("2 players", "4 players", "teams (2 v 2)"):
        f = _three_player_frame().assign(table=table)
        frames.append(f)
    policies._figure(pd.concat(frames, ignore_index=True), None)
    fig = figs[0]
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert labels == list(policies.VERDICT_LEGEND.values())
    axes = fig.axes
    assert all(ax.get_xlim() == axes[0].get_xlim() for ax in axes)


def test_match_length_series_starts_at_the_shortest_possible_match() -> None:
    x, share = game.length_series(np.array([0, 5, 3, 0, 0]))
    assert x.tolist() == [1, 2]
    assert share.tolist() == [5 / 8, 3 / 8]


def test_options_sentence_says_it_measured_two_players() -> None:
    options = pd.DataFrame({"option": ["default", "target=11"], "win_diff": [0.4, 0.3],
                            "win_diff_lo": [0.35, 0.25], "win_diff_hi": [0.45, 0.35]})
    text = game.options_sentence(options)
    assert text.startswith("- In two-player matches `lookahead:1` beats `greedy` under every "
                           "option value measured")
    assert "two-player only" in text


def _sources() -> pd.DataFrame:
    base = {"table": "2 players", "cards_mean": 20.0, "hand_win_rate": 0.5, "ronda": 0.41,
            "tringla": 0.08}
    first = {**base, "side": 0, "role": "first player", "points_mean": 6.43, "points_lo": 6.39,
             "points_hi": 6.47, "cards": 1.04, "derba": 2.76, "missa": 0.67, "last_card": 1.47,
             "cards_mean": 18.06, "hand_win_rate": 0.3355}
    dealer = {**base, "side": 1, "role": "dealer", "points_mean": 9.23, "points_lo": 9.18,
              "points_hi": 9.28, "cards": 2.97, "derba": 3.75, "missa": 1.18, "last_card": 0.84,
              "cards_mean": 21.94, "hand_win_rate": 0.6224}
    return pd.DataFrame([first, dealer])


def test_seat_paragraph_says_why_the_dealer_gains_citing_the_rules() -> None:
    text = game.seat_paragraph(_sources())
    assert "dealer's side scores 9.23 [9.18, 9.28] points to 6.43 [6.39, 6.47]" in text
    cards = text.index("S1 card points")
    assert "U1" in text[cards:] and "D3" in text[cards:]
    assert cards < text.index("Derbas (X1, X6)") < text.index("Missas (M1)")
    other = text.index("Going the other way")
    assert "the dealer's last card (L1-L3" in text[other:]
    assert "-0.63 points" in text[other:]


def test_seat_win_rates_are_measured_with_intervals_not_checked() -> None:
    lengths = pd.DataFrame({"sides": [2, 3], "seat_win_lo": ["0.5036 0.4768",
                                                             "0.3200 0.3300 0.3250"],
                            "seat_win_hi": ["0.5232 0.4964", "0.3400 0.3500 0.3450"]})
    text = game.seat_check(lengths)
    assert "2 of 5 seat intervals exclude the fair share" in text
    assert "about 0.2 expected at 95%" in text


def test_seat_paragraph_gives_no_reason_for_sources_that_barely_differ() -> None:
    text = game.seat_paragraph(_sources())
    assert "`ronda`, `tringla` differ by less than 0.05 points" in text
    assert "announcements" not in text


def test_first_player_sentence_says_not_separated_when_the_interval_covers_zero() -> None:
    r = pd.Series({"first_adv": -0.042, "first_adv_lo": -0.085, "first_adv_hi": 0.002})
    text = game.first_player_sentence(r)
    assert "not separated from a fair start" in text and "dealer plays last" not in text
    r = pd.Series({"first_adv": -0.044, "first_adv_lo": -0.054, "first_adv_hi": -0.034})
    assert "worth -0.044 in match win rate" in game.first_player_sentence(r)


def test_ladder_sentence_names_the_best_rated_and_its_margin_over_greedy() -> None:
    """The page opens with one ladder per table: with two sides the best-rated policy's
    sentence quotes its run against greedy, and a pair whose interval covers 0 is named."""
    rows = [_row("2 players", "greedy", "random", (0.86, 0.84, 0.88)),
            _row("2 players", "lookahead:1", "random", (0.97, 0.96, 0.98)),
            _row("2 players", "rollout:32", "random", (0.97, 0.96, 0.98)),
            _row("2 players", "lookahead:1", "greedy", (0.48, 0.45, 0.51)),
            _row("2 players", "rollout:32", "greedy", (0.55, 0.52, 0.59)),
            _row("2 players", "rollout:32", "lookahead:1", (0.01, -0.02, 0.04))]
    sub = pd.DataFrame(rows)
    rated = policies.table_ladder(sub)
    assert rated["order"][0] == "rollout:32"
    assert rated["order"][-1] == "random"
    greedy = next(r for r in rated["ratings"] if r["policy"] == "greedy")
    assert greedy["rating"] == 0.0
    text = policies.ladder_sentence(sub, "2 players", rated)
    assert text.startswith("**2 players: play `rollout:32`**: its match win rate is +0.550 "
                           "[+0.520, +0.590] above `greedy`'s (300 deal sets).")
    assert text.endswith("Not separated (a paired interval includes 0): `lookahead:1` and "
                         "`rollout:32`.")


def test_three_player_ladder_reads_both_orders_and_can_put_greedy_first() -> None:
    """With 3 players alone both orders of a pair are pairings of one Luce fit; in the
    issue's pattern (lookahead:1 loses to greedy, rollout:32 not separated) greedy tops it
    and lookahead:1 rates below it, each pair named once."""
    sub = _three_player_frame()
    rated = policies.table_ladder(sub)
    assert len(rated["fit"]) == 3 and rated["fit"]["dof"] == 12 - 3
    by = {r["policy"]: r for r in rated["ratings"]}
    assert by["lookahead:1"]["ci95"][1] < 0 < by["rollout:32"]["ci95"][1]
    text = policies.ladder_sentence(sub, "3 players", rated)
    assert text.count("`greedy` and `rollout:32`") == 1


def test_lookahead_replies_summary_means_declined_captures_over_their_count() -> None:
    """The study's summary: declined captures are greedy's capture, Derba or re-hit against
    lookahead's lay, and its card and point figures are their means per seat."""
    from simcards.ronda.reports import lookahead_replies as lr

    kinds = np.zeros((4, 4), np.int64)
    diff = np.zeros((4, 4, 8), np.int64)
    cap, derba, lay = (lr.ACTIONS.index(a) for a in ("capture", "derba", "lay"))
    kinds[cap, lay], kinds[derba, lay], kinds[lay, lay] = 3, 1, 5
    diff[cap, lay, 4:7] = (-9, 3, 2)  # cards of seats 0..2 over the 3 declines
    diff[derba, lay, 4:7] = (-3, 1, 2)
    diff[cap, lay, 1] = -2  # points of seat 1
    s = {"decisions": np.array([40]), "kinds": kinds, "diff": diff}
    out = lr.summary(3, 10, s)
    assert (out["decisions"], out["disagreements"], out["declined"]) == (40, 9, 4)
    assert out["declined_cards"] == [-3.0, 1.0, 1.0]
    assert out["declined_points"] == [0.0, -0.5, 0.0]


def test_lookahead_replies_round_starts_on_an_empty_table_with_a_lay() -> None:
    """One round from the first play of a two-player hand (D4: an empty table): every card of
    seat 0 is a lay (P3) that takes nothing, and the reply either takes nothing or takes the
    laid card with its own (P2: two cards or more), scoring a Derba (X1) when it does."""
    from simcards.ronda import reference as R
    from simcards.ronda.reports import lookahead_replies as lr

    hand = R.HandState(R.RondaOptions(players=2), 1, list(range(40)))
    assert hand.current_player() == 0 and hand.table_cards() == []
    for card in hand.observation(0)["hand"]:
        kind, d = lr._round(hand, card, 2)
        assert kind == "lay"
        assert d[2] == 0  # seat 0's cards
        assert d[3] == 0 or d[3] >= 2  # seat 1's cards
        assert (d[3] >= 2) == (d[1] >= 1)  # a capture of the laid card is a Derba


def test_bound_sentence_gives_each_legal_players_share_of_the_distance_to_the_bound() -> None:
    """The all-seeing bound is rated with the others but never named as the policy to play;
    its sentence gives its margin over the best legal player and each one's share."""
    rows = [_row("2 players", "greedy", "random", (0.86, 0.84, 0.88)),
            _row("2 players", "rollout:32", "random", (0.97, 0.96, 0.98)),
            _row("2 players", "rollout:32", "greedy", (0.55, 0.52, 0.59)),
            _row("2 players", policies.BOUND, "greedy", (0.95, 0.93, 0.97))]
    sub = pd.DataFrame(rows)
    rated = policies.table_ladder(sub)
    assert rated["order"][0] == policies.BOUND
    assert policies.ladder_sentence(sub, "2 players", rated).startswith(
        "**2 players: play `rollout:32`**")
    by = {r["policy"]: r["rating"] for r in rated["ratings"]}
    text = policies.bound_sentence(rated)
    assert f"{by[policies.BOUND] - by['rollout:32']:.0f} above the best legal player" in text
    assert f"`rollout:32` {by['rollout:32'] / by[policies.BOUND]:.0%}" in text
    assert 0 < by["rollout:32"] / by[policies.BOUND] < 1


# ---------------------------------------------------------------- the search study (long)


def test_ronda_search_is_a_long_study_built_only_when_asked() -> None:
    from simcards.core.registry import all_studies

    assert "ronda-search" not in all_studies()
    assert "ronda-search" in all_studies(long=True)


def test_search_runs_are_sized_for_the_interval_they_promise() -> None:
    """Every run between the two legal players has deal sets for +-0.03 at the SD the sizes
    were read from (the docstring's SDs), with 3 or 4 players alone in both orders; the
    bound plays each legal player once per table."""
    from simcards.ronda.reports import search as S

    jobs = S.jobs()
    sd = {("2 players", S.SEARCH): 0.56, ("3 players", S.SEARCH): 0.34,
          ("3 players", S.ROLLOUT): 0.31, ("4 players", S.SEARCH): 0.22,
          ("4 players", S.ROLLOUT): 0.25, ("teams (2 v 2)", S.SEARCH): 0.60}
    legal = [j for j in jobs if j.a != S.BOUND]
    assert {(j.table, j.a) for j in legal} == set(sd)
    for j in legal:
        assert 1.96 * sd[(j.table, j.a)] / S.sets(j, False) ** 0.5 < S.WIN_HALF_WIDTH
    bound = [(j.table, j.b) for j in jobs if j.a == S.BOUND]
    assert sorted(bound) == sorted((t, p) for t, _ in policies.TABLES
                                   for p in (S.ROLLOUT, S.SEARCH))


def _search_frame(table: str, search: tuple, rollout: tuple | None = None) -> pd.DataFrame:
    from simcards.ronda.reports import search as S

    rows = [_row(table, S.SEARCH, S.ROLLOUT, search)]
    if rollout is not None:
        rows.append(_row(table, S.ROLLOUT, S.SEARCH, rollout))
    rows += [_row(table, S.BOUND, S.ROLLOUT, (0.60, 0.55, 0.65)),
             _row(table, S.BOUND, S.SEARCH, (0.50, 0.45, 0.55))]
    df = pd.DataFrame(rows)
    df["deal_sets"] = [*[650, 550][:len(rows) - 2], 200, 200]
    return df


def test_search_sentence_plays_the_search_where_both_orders_favour_it() -> None:
    """With 3 players alone the search is the one to play when one of it among rollouts
    wins more and one rollout among searches wins fewer; the bound is read against it."""
    from simcards.ronda.reports import search as S

    sub = _search_frame("3 players", (0.05, 0.02, 0.08), (-0.04, -0.07, -0.01))
    assert S.best_legal(sub) == [S.SEARCH]
    assert S.sentence(sub, "3 players") == (
        "**3 players: play `ismcts:1000`**, which does measurably better than `rollout:32`: "
        "one `ismcts:1000` among `rollout:32` players wins 0.050 [0.020, 0.080] more of the "
        "matches per seat than they do on 650 deal sets; one `rollout:32` among `ismcts:1000` "
        "players wins 0.040 [0.010, 0.070] fewer of the matches per seat than they do on 550 "
        "deal sets. The all-seeing bound: one `seeing:1000` among `ismcts:1000` players wins "
        "0.500 [0.450, 0.550] more of the matches per seat than they do on 200 deal sets. That "
        "is what the hidden cards are worth to Q8's search over the best legal play measured.")


def test_search_sentence_says_not_separated_and_reads_the_bound_against_both() -> None:
    """An interval that covers 0 (two sides: one run) leaves both legal players, and the
    bound's margin is given over each."""
    from simcards.ronda.reports import search as S

    sub = _search_frame("2 players", (-0.01, -0.035, 0.015))
    assert S.best_legal(sub) == [S.SEARCH, S.ROLLOUT]
    text = S.sentence(sub, "2 players")
    assert text.startswith(
        "**2 players: `ismcts:1000` and `rollout:32` are not separated**: `ismcts:1000` is not "
        "separated from `rollout:32`: win-rate difference -0.010 [-0.035, +0.015] on 650 deal "
        "sets. Either may be played; `rollout:32` costs far less to compute.")
    assert ("`seeing:1000` wins 0.500 [0.450, 0.550] more of the matches than `ismcts:1000` "
            "on 200 deal sets; `seeing:1000` wins 0.600 [0.550, 0.650] more of the matches than "
            "`rollout:32`") in text


def test_search_sentence_leaves_both_where_the_two_orders_disagree() -> None:
    """With 3 players alone, a search that wins among rollouts while a rollout among searches
    also wins is better in no plain sense: neither is named the one to play."""
    from simcards.ronda.reports import search as S

    sub = _search_frame("3 players", (0.05, 0.02, 0.08), (0.04, 0.01, 0.07))
    assert S.best_legal(sub) == [S.SEARCH, S.ROLLOUT]


def test_search_sentence_with_one_order_separated_recommends_only_for_that_field() -> None:
    """Four players: one rollout among searches loses, one search among rollouts is not
    separated from them. The sentence states what each order measured and names the search
    only for a table of searches, never "measurably better" outright."""
    from simcards.ronda.reports import search as S

    sub = _search_frame("4 players", (0.018, -0.008, 0.044), (-0.030, -0.054, -0.005))
    text = S.sentence(sub, "4 players")
    assert text.startswith(
        "**4 players: play `ismcts:1000` among `ismcts:1000` players**: one `rollout:32` among "
        "`ismcts:1000` players wins 0.030 [0.005, 0.054] fewer of the matches per seat than "
        "they do on 550 deal sets. Among `rollout:32` players the runs do not separate the "
        "two: one `ismcts:1000` among `rollout:32` players is not separated from them: "
        "win-rate difference +0.018 [-0.008, +0.044] on 650 deal sets; there either may be "
        "played, and `rollout:32` costs far less to compute.")
    assert "measurably better" not in text


def test_search_page_names_the_runs_wider_than_the_interval_they_were_sized_for() -> None:
    from simcards.ronda.reports import search as S

    df = _search_frame("3 players", (0.05, 0.019, 0.081), (-0.04, -0.0695, -0.0105))
    assert S.wide(df) == ["`ismcts:1000` v `rollout:32` (3 players)"]


def test_search_page_figures_are_those_of_its_command(tmp_path, monkeypatch) -> None:
    """The study (two players, quick sizes, small searches for speed) writes the runs the
    page's command gives: each row is ``simcards ronda compare A B`` with the same seed."""
    from simcards.ronda import api
    from simcards.ronda.reports import search as S

    monkeypatch.setattr(S, "TABLES", (("2 players", {"players": 2}),))
    monkeypatch.setattr(S, "SEARCH", "ismcts:20")
    monkeypatch.setattr(S, "ROLLOUT", "rollout:2")
    monkeypatch.setattr(S, "BOUND", "seeing:20")
    page = S.build(tmp_path, seed=SEED, workers=1, progress=False, quick=True)
    df = pd.read_csv(tmp_path / "ronda" / "search_compare.csv")
    assert [(r.a, r.b) for r in df.itertuples()] == [
        ("ismcts:20", "rollout:2"), ("seeing:20", "rollout:2"), ("seeing:20", "ismcts:20")]
    out = api.compare("seeing:20", "ismcts:20", players=2, deals=2, seed=SEED, workers=1,
                      store="none").to_dict()
    row = df.iloc[2]
    assert row.win_diff == pytest.approx(out["win_rate_diff"], rel=1e-12)
    assert row.points_diff == pytest.approx(out["points_diff"], rel=1e-12)
    text = page.read_text()
    assert "Quick mode" in text and "**2 players: " in text
    assert ("simcards ronda compare ismcts:20 rollout:2 --players 2 --deals 2 --seed 7 --json"
            in text)
