"""The report pipeline end to end, in quick mode: every page and figure is written, each page
states the command that made it."""

from __future__ import annotations

from simcards.core.cli import main


def test_report_quick_writes_every_page_with_its_command(tmp_path, capsys) -> None:
    assert main(["report", "--quick", "--out", str(tmp_path), "--workers", "1"]) == 0
    ronco = tmp_path / "ronco"
    for name in ("rounds_by_threshold.png", "game_length.png", "elimination_order_6p.png",
                 "seat_effects.png", "poroli_vs_ronco.png", "win_rate_by_threshold.png",
                 "win_rate_heatmap_7p.png"):
        assert (ronco / name).stat().st_size > 10_000, name
    for page in ("rounds.md", "games.md", "best_threshold.md"):
        text = (ronco / page).read_text()
        assert "simcards report --only" in text
        assert "```\nsimcards ronco" in text
        for line in text.splitlines():
            if line.startswith("!["):
                target = line.split("(")[1].rstrip(")")
                assert (ronco / target).exists(), target
    assert "best_threshold.md" in (tmp_path / "README.md").read_text()
