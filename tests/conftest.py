"""Keep every test's run store in a temporary folder, never in the working tree."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_store(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMCARDS_STORE", str(tmp_path / "runs"))
