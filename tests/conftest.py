"""Keep every test's run store in a temporary folder, never in the working tree."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from simcards.core.store import RunStore

# The toy game (``tests/toygame``) is a top-level package, as a user's own game would be: it is
# loaded by name (``SIMCARDS_GAMES=toygame``) from a folder on the path, never from simcards.
sys.path.insert(0, str(Path(__file__).resolve().parent))

EXTRA_WARMUPS = ("tests.kernel_warmups:warm_romi_search",
                 "tests.kernel_warmups:warm_romi_records",
                 "tests.kernel_warmups:warm_romi_advise",
                 "tests.kernel_warmups:warm_ronco_race_users")
"""Kernels some tests compile that no game warms (:mod:`tests.kernel_warmups`)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--full", action="store_true", default=False,
                     help="run every cross-check at full size (make test-full; tests/sizes.py)")


def pytest_configure(config: pytest.Config) -> None:
    """Set :data:`tests.sizes.FULL` from ``--full`` (in the workers too, which collect the
    test modules themselves). Then, for a parallel run (``-n``, as ``make test`` runs the
    suite), compile every registered game's kernels, and those of :data:`EXTRA_WARMUPS`, into
    numba's disk cache before any test runs, the warm-ups spread over the machine's cores: on a
    fresh checkout compilation is most of the suite's time, and one interpreter compiles on one
    core only. Test workers and the processes tests start then load the kernels from the cache
    instead of each compiling the same ones at the same time. Skipped in the workers themselves
    (their controller has done it), when tests are only collected, and in a plain run (one file
    while editing), which loads only the kernels of the games it tests
    (:func:`_kernels_compiled_once`)."""
    from tests import sizes

    sizes.FULL = bool(config.getoption("full"))
    if hasattr(config, "workerinput") or config.option.collectonly:
        return
    if not getattr(config.option, "numprocesses", None):
        return
    from simcards.core.registry import compile_warmups, games

    compile_warmups([g.name for g in games()], EXTRA_WARMUPS)


def _games_tested(items: list[pytest.Item], names: set[str]) -> set[str]:
    """The games whose kernels the selected tests need: a test in a game's folder
    (``tests/ronda/``) needs that game's; any other (``tests/core/``: the CLI, the cluster, the
    reports, the contract suite) may touch every game."""
    out: set[str] = set()
    for item in items:
        folder = item.path.parent.name
        if folder not in names:
            return names
        out.add(folder)
    return out


@pytest.fixture(scope="session", autouse=True)
def _kernels_compiled_once(request: pytest.FixtureRequest) -> None:
    """Load the tested games' kernels in this process (compiled by ``pytest_configure`` in a
    parallel run) before any test starts worker processes or a cluster."""
    from simcards.core.registry import games, resolve

    wanted = _games_tested(request.session.items, {g.name for g in games()})
    for game in games():
        if game.name in wanted:
            for ref in game.warmups:
                resolve(ref)()


@pytest.fixture(autouse=True)
def _isolated_store(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMCARDS_STORE", str(tmp_path / "runs"))


@pytest.fixture
def interrupt_after_chunks(monkeypatch) -> Callable[[int | None], None]:
    """``arm(k)``: the run store raises KeyboardInterrupt (as a user's Ctrl-C would) right
    after saving its k-th chunk from now on; ``arm(None)`` stops interrupting."""
    real_save = RunStore.save_chunk

    def arm(k: int | None) -> None:
        if k is None:
            monkeypatch.setattr(RunStore, "save_chunk", real_save)
            return
        saved: list = []

        def save_then_interrupt(self, key, stats, *rest):
            real_save(self, key, stats, *rest)
            saved.append(key)
            if len(saved) == k:
                raise KeyboardInterrupt

        monkeypatch.setattr(RunStore, "save_chunk", save_then_interrupt)

    return arm
