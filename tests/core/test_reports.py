"""The report pipeline end to end, in quick mode: every page and figure is written, each page
states the command that made it."""

from __future__ import annotations

import numpy as np
import pytest

from simcards.core.cli import main


def test_report_quick_writes_every_page_with_its_command(tmp_path, capsys) -> None:
    assert main(["report", "--quick", "--out", str(tmp_path), "--workers", "1"]) == 0
    ronco = tmp_path / "ronco"
    for name in ("rounds_by_threshold.png", "game_length.png", "elimination_order_6p.png",
                 "seat_effects.png", "poroli_vs_ronco.png", "win_rate_by_threshold.png",
                 "win_rate_heatmap_7p.png", "bayes_chart_4p.png", "bayes_chart_6p.png"):
        assert (ronco / name).stat().st_size > 10_000, name
    for page in ("rounds.md", "games.md", "best_threshold.md", "bayes.md"):
        text = (ronco / page).read_text()
        assert "simcards report --only" in text
        assert "```\nsimcards ronco" in text
        for line in text.splitlines():
            if line.startswith("!["):
                target = line.split("(")[1].rstrip(")")
                assert (ronco / target).exists(), target
    assert "best_threshold.md" in (tmp_path / "README.md").read_text()
    ronda = tmp_path / "ronda"
    for name in ("policies_round_robin.png", "points_by_source.png", "match_length.png",
                 "first_player_advantage.png", "options.png"):
        assert (ronda / name).stat().st_size > 10_000, name
    for page in ("policies.md", "game.md"):
        text = (ronda / page).read_text()
        assert "simcards report --only" in text
        assert "```\nsimcards ronda" in text
        for line in text.splitlines():
            if line.startswith("!["):
                assert (ronda / line.split("(")[1].rstrip(")")).exists(), line
    assert "ronda/policies.md" in (tmp_path / "README.md").read_text()
    romi = tmp_path / "romi"
    for name in ("tournament.png", "rummy_sweep.png", "threshold_sweep.png",
                 "round_length.png", "round_endings.png"):
        assert (romi / name).stat().st_size > 10_000, name
    for page in ("policies.md", "rounds.md"):
        text = (romi / page).read_text()
        assert "simcards report --only romi-" in text
        assert "```\nsimcards romi" in text
        assert text.index("## ") == text.index("## The ladder" if page == "policies.md"
                                               else "## In short")  # the answer comes first
        for line in text.splitlines():
            if line.startswith("!["):
                assert (romi / line.split("(")[1].rstrip(")")).exists(), line
    assert "romi/policies.md" in (tmp_path / "README.md").read_text()
    assert (romi / "questions.png").stat().st_size > 10_000
    text = (romi / "questions.md").read_text()
    assert "simcards report --only romi-questions" in text
    assert "```\nsimcards romi rounds --players 4 --policies greedy --dealer 0" in text
    assert "romi/questions.md" in (tmp_path / "README.md").read_text()
    assert not (romi / "search.md").exists()  # a long study: only when asked (--long, --only)
    # the command a page gives reproduces its numbers exactly
    import json

    import pandas as pd

    capsys.readouterr()
    assert main(["ronco", "rounds", "--players", "5", "--threshold", "5", "--dealer-threshold",
                 "5", "--rounds", "20000", "--json", "--workers", "1", "--store", "none"]) == 0
    cli = json.loads(capsys.readouterr().out)["p_lose"]
    csv = pd.read_csv(ronco / "rounds_by_threshold.csv")
    rows = csv[(csv.players == 5) & (csv.threshold == 5)].sort_values("position")
    assert rows.p_lose.tolist() == cli
    # the Römi page's compare command reproduces its row (quick mode: 2 deal sets)
    command = next(line for line in (romi / "policies.md").read_text().splitlines()
                   if line.startswith("simcards romi compare rummy:4"))
    assert main([*command.split()[1:], "--workers", "1", "--store", "none"]) == 0
    out = json.loads(capsys.readouterr().out)
    row = pd.read_csv(romi / "policy_compare.csv").query("players == 4 and a == 'rummy:4'")
    assert row.score_diff.iloc[0] == pytest.approx(out["score_diff"]["mean"], rel=1e-12)
    assert row.win_a.iloc[0] == pytest.approx(out["win_rate"]["a"]["mean"], rel=1e-12)
    # and its ladder pairing command reproduces its row of ladder_pairings.csv
    command = next(line for line in (romi / "policies.md").read_text().splitlines()
                   if line.startswith("simcards romi compare threshold:70 rummy:4"))
    assert main([*command.split()[1:], "--workers", "1", "--store", "none"]) == 0
    out = json.loads(capsys.readouterr().out)
    row = pd.read_csv(romi / "ladder_pairings.csv").query(
        "players == 4 and a == 'threshold:70' and b == 'rummy:4'")
    assert row.win_diff.iloc[0] == pytest.approx(out["win_rate_diff"]["mean"], rel=1e-12)
    assert row.score_diff.iloc[0] == pytest.approx(out["score_diff"]["mean"], rel=1e-12)


def test_report_csv_files_parse_as_plain_numbers(tmp_path) -> None:
    """Intervals are two numeric columns and thresholds integers, not Python reprs."""
    import pandas as pd

    from simcards.ronco.reports.best_threshold import _csv

    rows = [{"players": 3, "best_T": 6, "best_Td": 6, "tied_with": [[6, 7], [7, 6]],
             "equilibrium_T": 6, "equilibrium_Td": 5, "field": [5, 5],
             "informed_gain": np.float64(0.02), "informed_gain_ci": [np.float64(0.01),
                                                                     np.float64(0.03)]},
            {"players": 5, "best_T": 6, "best_Td": 6, "tied_with": [], "equilibrium_T": None,
             "equilibrium_Td": None, "field": [5, 5], "informed_gain": 0.03,
             "informed_gain_ci": [0.02, 0.04]}]
    path = tmp_path / "t.csv"
    _csv(rows).to_csv(path, index=False)
    text = path.read_text()
    assert "np.float64" not in text and "6.0" not in text
    back = pd.read_csv(path)
    assert back.informed_gain_ci_low.tolist() == [0.01, 0.02]
    assert back.informed_gain_ci_high.dtype.kind == "f"
    assert back.equilibrium_T.iloc[0] == 6 and pd.isna(back.equilibrium_T.iloc[1])
    assert back.tied_with.iloc[0] == "6:7 7:6"


def test_round_findings_quote_the_exact_value_where_one_exists() -> None:
    """The Monte Carlo minimum (T=7 here) must not override the exact one (T=6)."""
    import pandas as pd

    from simcards.ronco.reports.rounds import _finding

    rows = []
    exact = {5: 0.2847, 6: 0.27359, 7: 0.27409}
    mc = {5: 0.2843, 6: 0.2741, 7: 0.2734}
    for t in (5, 6, 7):
        for pos, (e, m) in enumerate(((exact[t], mc[t]), (0.37, 0.37), (0.46, 0.46))):
            rows.append({"players": 3, "threshold": t, "position": pos, "p_lose": m,
                         "ci_low": m - 0.001, "ci_high": m + 0.001, "exact": e})
    text = _finding(pd.DataFrame(rows), 3)
    assert "plays T=6: 0.27359 (exact)" in text
    assert "next best T=7: 0.27409 (exact)" in text
    assert "dealer loses least at T=1" not in text


def test_round_findings_without_exact_values_name_the_thresholds_they_cannot_separate() -> None:
    import pandas as pd

    from simcards.ronco.reports.rounds import _finding

    rows = []
    for t, m in ((4, 0.0930), (5, 0.0932), (6, 0.0990)):
        for pos, p in enumerate((m, 0.20)):
            rows.append({"players": 2, "threshold": t, "position": pos, "p_lose": p,
                         "ci_low": p - 0.0006, "ci_high": p + 0.0006, "exact": float("nan")})
    text = _finding(pd.DataFrame(rows), 2)
    assert "plays T=4: 0.0930 [0.0924, 0.0936]" in text
    assert "Not separated from T=4 at this sample size: T=5." in text


def test_bayes_results_do_not_change_with_the_seconds_a_table_took(tmp_path, monkeypatch) -> None:
    """Timings are not results: ``bayes.csv`` and ``bayes.md`` are the same whatever the
    decision tables took to compute (a cold or warm cache, a busy machine), and the seconds
    go to ``bayes_timings.csv`` alone."""
    import dataclasses

    import pandas as pd

    from simcards.ronco import bayes_exact
    from simcards.ronco.policies import Policy
    from simcards.ronco.reports import bayes as page
    from simcards.ronco.rules import RoncoRules

    rules = RoncoRules.make()
    field = Policy("threshold", 5, 5)
    rows = [{"players": n, "best_T": 6, "best_Td": 6, "bayes_gain": 0.02,
             "bayes_gain_ci": [0.01, 0.03], "bayes_win_rate": 0.3, "threshold_win_rate": 0.28,
             "gain_games": 1000} for n in (3, 4)]
    real = bayes_exact.game_table
    outputs = []
    for seconds in (0.25, 61.0):
        monkeypatch.setattr(bayes_exact, "game_table", lambda r, n, f, s=seconds:
                            dataclasses.replace(real(r, n, f), seconds=s * n))
        out = tmp_path / f"s{seconds}"
        out.mkdir()
        page.write(out, rules, field, rows, seed=1, quick=True, command="simcards ronco")
        text = (out / "bayes.md").read_text()
        outputs.append(((out / "bayes.csv").read_bytes(),
                        (out / "bayes_situations.csv").read_bytes(),
                        text[:text.index("Generated by simcards")]))
        timings = pd.read_csv(out / page.TIMINGS)
        assert timings.players.tolist() == [3, 4]
        assert timings.table_seconds.tolist() == [3 * seconds, 4 * seconds]
    assert outputs[0] == outputs[1]
    assert "seconds" not in outputs[0][0].decode().splitlines()[0]
