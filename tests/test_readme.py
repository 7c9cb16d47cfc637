"""The README lists every JSON key each command prints, and the documented limits."""

from __future__ import annotations

from pathlib import Path

import simcards.ronco
import simcards.ronda

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


def _nested_keys(d: dict) -> set[str]:
    """Every key of a JSON object, at any depth, less the quantile labels (``5%``)."""
    keys: set[str] = set()
    for k, v in d.items():
        if k != "cluster" and not k.endswith("%"):
            keys.add(k)
            if isinstance(v, dict):
                keys |= _nested_keys(v)
    return keys


def test_readme_lists_every_json_key_of_every_ronda_command() -> None:
    common = {"workers": 1, "store": "none"}
    outputs = [
        simcards.ronda.hands(hands=500, **common).to_dict(),
        simcards.ronda.matches(matches=200, **common).to_dict(),
        simcards.ronda.compare("greedy", "random", deals=100, **common).to_dict(),
    ]
    keys = set().union(*(_nested_keys(o) for o in outputs))
    missing = sorted(k for k in keys if f"`{k}`" not in README)
    assert not missing, missing
    for command in ("simcards ronda hands", "simcards ronda matches", "simcards ronda compare",
                    "simcards ronda play", "simcards.ronda.hands("):
        assert command in README, command


def test_readme_lists_every_json_key_of_every_romi_command() -> None:
    from simcards.romi import api
    from simcards.romi.cli import melds_report

    out = melds_report(hand="Ah 2h 3h X 9s")
    keys = _nested_keys(out) | set(out["hands"][0])
    common = {"workers": 1, "store": "none"}
    keys |= _nested_keys(api.rounds(players=2, rounds=4, **common))
    keys |= _nested_keys(api.games(players=2, rounds=1, games=2, **common))
    keys |= _nested_keys(api.compare("rummy:4", "greedy", players=2, rounds=1, deals=2,
                                     **common))
    missing = sorted(k for k in keys if f"`{k}`" not in README)
    assert not missing, missing
    for command in ("simcards romi melds", "simcards romi rounds", "simcards romi games",
                    "simcards romi compare"):
        assert command in README, command


def test_readme_documents_count_maxima_seed_range_and_suffixes() -> None:
    for text in ("at most 1e12", "at most 1e10", "at most 1e9", "0 .. 2**63-1", "`k` = 1,000",
                 "`--hands` at most 1e10", "`--matches` and `--deals` at most 1e9",
                 "Ronda", "simcards --version", "simcards.ronco.rounds("):
        assert text in README, text
