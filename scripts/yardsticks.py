"""The hand-specialised yardstick kernels the benchmarks time beside the project's own.

They are kept outside the project (``../shared/bench/`` from the repository root) and loaded at
run time from their file, so the project never depends on them: a benchmark without the file
times the project alone and prints no ratio.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / ".." / "shared" / "bench"


def load_limit(path: Path) -> ModuleType | None:
    """The yardstick module at ``path``, or None when the file is not there."""
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
