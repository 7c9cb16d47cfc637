"""The broken game's Python API: the toy game's command over the broken chunk."""

from __future__ import annotations

from brokengame.deal_kernel import chunk
from toygame.api import play_deals

from simcards.core.cli_options import DEFAULT_SEED
from simcards.core.results import Result


def deals(*, players: int = 2, deals: int | str = "100k", seed: int = DEFAULT_SEED,
          workers: int | None = None, scheduler: str | None = None, store: str | None = None,
          progress: bool = False) -> Result:
    return play_deals(chunk, "broken", players=players, deals=deals, seed=seed,
                      workers=workers, scheduler=scheduler, store=store, progress=progress)
