"""The README lists every JSON key each command prints, and the documented limits."""

from __future__ import annotations

from pathlib import Path

import simcards.ronco

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def _keys(d: dict) -> set[str]:
    return set(d) - {"cluster"}


def test_readme_lists_every_json_key_of_every_command() -> None:
    outputs = [
        simcards.ronco.rounds(rounds=1000, workers=1, store="none").to_dict(),
        simcards.ronco.exact(players=3).to_dict(),
        simcards.ronco.games(players=3, lives=2, games=1000, workers=1, store="none").to_dict(),
        simcards.ronco.games(players=3, lives=2, exact=True).to_dict(),
    ]
    best = simcards.ronco.best_threshold(players="3", lives=1, first_stage=2048,
                                         max_games=2048, max_iterations=0, gain_games=2048,
                                         workers=1, store="none").to_dict()
    keys = set().union(*(_keys(o) for o in outputs), _keys(best), best["rows"][0])
    missing = sorted(k for k in keys if f"`{k}`" not in README)
    assert not missing, missing


def test_readme_documents_count_maxima_seed_range_and_suffixes() -> None:
    for text in ("at most 1e12", "at most 1e10", "at most 1e9", "0 .. 2**63-1", "`k` = 1,000",
                 "Ronda", "simcards --version", "simcards.ronco.rounds("):
        assert text in README, text
