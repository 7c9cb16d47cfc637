"""The toy game's report study: one page."""

from __future__ import annotations

from concurrent.futures import Executor
from pathlib import Path

from toygame.deal_kernel import chunk, exact_win

from simcards.core.reports.common import out_dir, page_footer
from simcards.core.runner import run_batch


def build(root: Path, *, seed: int, workers: int | None = None, progress: bool = False,
          quick: bool = False, executor: Executor | None = None) -> Path:
    deals = 20_000 if quick else 1_000_000
    stats = run_batch(chunk, 2, seed=seed, total=deals, chunk_size=10_000,
                      stream="toy.report", workers=workers, executor=executor)
    page = out_dir(root, "toy") / "highcard.md"
    page.write_text(f"# High card\n\nSeat 0 wins {stats['wins'][0] / deals:.4f} of {deals} "
                    f"deals (exact {exact_win(2):.4f}).\n" + page_footer("toy-highcard", seed,
                                                                        quick))
    return page
