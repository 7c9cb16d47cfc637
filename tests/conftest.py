"""Keep every test's run store in a temporary folder, never in the working tree."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from simcards.core.store import RunStore


@pytest.fixture(scope="session", autouse=True)
def _kernels_compiled_once() -> None:
    """Compile (or load) every registered game's kernels once, here, before any test starts
    worker processes or a cluster: the workers then load them from numba's disk cache instead
    of each compiling the same kernels at the same time, which on a fresh checkout costs
    minutes per process."""
    from simcards.core.registry import all_warmups, resolve

    for ref in all_warmups():
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
