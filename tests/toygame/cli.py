"""``simcards toy deals``: written only against the shared machinery's public pieces."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import typer
from toygame import api

from simcards.core.cli_options import (
    DEFAULT_SEED,
    JsonOpt,
    SchedulerOpt,
    SeedOpt,
    StoreOpt,
    WorkersOpt,
    emit_json,
)
from simcards.core.results import Result


def command_app(deals_fn: Callable[..., Result], help: str) -> typer.Typer:
    """The game's typer app: its one command, ``deals``, over ``deals_fn`` (the API's)."""
    app = typer.Typer(help=help, no_args_is_help=True)

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
        out = deals_fn(players=players, deals=n_deals, seed=seed, workers=workers,
                       scheduler=scheduler, store=store, progress=not as_json).to_dict()
        if as_json:
            emit_json(out)
        else:
            typer.echo(out)

    return app


app = command_app(api.deals, "High card (toy).")
