"""``make report``: every headline study, written under ``reports/``."""

from __future__ import annotations

from pathlib import Path

from simcards.cli_common import DEFAULT_SEED
from simcards.reports import ronco_rounds

STUDIES = {
    "ronco-rounds": ronco_rounds.build,
}


def build_all(root: Path = Path("reports"), *, seed: int = DEFAULT_SEED,
              rounds: int = 1_000_000, workers: int | None = None,
              only: list[str] | None = None, progress: bool = True) -> list[Path]:
    pages = []
    for name, build in STUDIES.items():
        if only and name not in only:
            continue
        pages.append(build(root, seed=seed, rounds=rounds, workers=workers, progress=progress))
    return pages


if __name__ == "__main__":
    for page in build_all():
        print(f"wrote {page}")
