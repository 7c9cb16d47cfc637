"""The toy game's Python API: ``toygame.deals(...)`` runs ``simcards toy deals``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
from toygame.deal_kernel import chunk

from simcards.core.cli_options import DEFAULT_SEED, parse_count
from simcards.core.errors import UsageError
from simcards.core.montecarlo import monte_carlo
from simcards.core.results import Result
from simcards.core.runner import Stats, run_batch
from simcards.core.stats import wilson

CHUNK = 50_000
"""Deals per chunk."""


def deals_frame(d: dict[str, Any]) -> pd.DataFrame:
    """One row per seat: its win rate and Wilson interval."""
    return pd.DataFrame({"seat": range(d["players"]), "win_rate": d["win_rate"],
                         "ci_low": d["ci_low"], "ci_high": d["ci_high"]})


def deals(*, players: int = 2, deals: int | str = "100k", seed: int = DEFAULT_SEED,
          workers: int | None = None, scheduler: str | None = None, store: str | None = None,
          progress: bool = False) -> Result:
    """Win rate by seat over ``deals`` deals of one card each."""
    return play_deals(chunk, "toy", players=players, deals=deals, seed=seed, workers=workers,
                      scheduler=scheduler, store=store, progress=progress)


def play_deals(chunk_fn: Callable[..., Any], game: str, *, players: int, deals: int | str,
               seed: int, workers: int | None, scheduler: str | None, store: str | None,
               progress: bool) -> Result:
    """The ``deals`` command of the game ``game`` over the chunk function ``chunk_fn``."""
    if not 2 <= players <= 10:
        raise UsageError(f"--players must be between 2 and 10, got {players}")
    total = parse_count(deals, "--deals")

    def answer(stats: Stats) -> dict[str, Any]:
        lo, hi = wilson(stats["wins"], total)
        return {"deals": total, "win_rate": (stats["wins"] / total).tolist(), "ci_low": lo.tolist(),
                "ci_high": hi.tolist(), "draw_rate": float(stats["draws"][0]) / total}

    return monte_carlo(
        {"game": game, "command": "deals", "players": players}, {"deals": total,
                                                                 "chunk_size": CHUNK},
        lambda **run: run_batch(chunk_fn, players, seed=seed, total=total, chunk_size=CHUNK,
                                stream=f"{game}.deals", **run),
        answer=answer, frame=deals_frame, summary=("draw_rate",), seed=seed, workers=workers,
        scheduler=scheduler, store=store, progress=progress)
