"""``simcards toy deals``: written only against the shared machinery's public pieces."""

from __future__ import annotations

from typing import Annotated

import pandas as pd
import typer
from toygame.kernel import chunk

from simcards.core.cli_options import (
    DEFAULT_SEED,
    JsonOpt,
    SchedulerOpt,
    SeedOpt,
    StoreOpt,
    WorkersOpt,
    emit_json,
    parse_count,
)
from simcards.core.errors import UsageError
from simcards.core.montecarlo import batch_run
from simcards.core.runner import check_workers, run_batch
from simcards.core.stats import wilson

app = typer.Typer(help="High card (toy).", no_args_is_help=True)
CHUNK = 50_000


@app.command()
def deals(
    players: Annotated[int, typer.Option("--players")] = 2,
    n_deals: Annotated[str, typer.Option("--deals")] = "100k",
    seed: SeedOpt = DEFAULT_SEED,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Win rate by seat."""
    if not 2 <= players <= 10:
        raise UsageError(f"players must be between 2 and 10, got {players}")
    total = parse_count(n_deals, "--deals")
    cap, workers = workers, check_workers(workers)
    manifest = {"game": "toy", "command": "deals", "players": players, "seed": seed,
                "deals": total, "chunk_size": CHUNK}
    with batch_run(scheduler, cap, store, manifest, as_json) as run:
        stats = run_batch(chunk, players, seed=seed, total=total, chunk_size=CHUNK,
                          stream="toy.deals", workers=workers, progress=not as_json,
                          **run.options())
    lo, hi = wilson(stats["wins"], total)
    out = {"players": players, "deals": total, "seed": seed,
           "win_rate": (stats["wins"] / total).tolist(), "ci_low": lo.tolist(),
           "ci_high": hi.tolist(), "draw_rate": float(stats["draws"][0]) / total}
    if run.store is not None:
        run.store.finish(pd.DataFrame({"seat": range(players), "wins": stats["wins"]}),
                         {"draw_rate": out["draw_rate"]})
    if as_json:
        emit_json(out)
    else:
        typer.echo(out)
