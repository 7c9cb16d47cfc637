"""The warm-ups' processes (:class:`simcards.core.registry.Warmups`): extra warm-ups compile
in an interpreter of their own, at a lower priority than the games'."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from simcards.core.registry import EXTRA_NICE, Warmups

PROBE_ENV = "SIMCARDS_WARMUP_PROBE"


def record_probe() -> None:
    """An extra warm-up that writes its process id and scheduling priority to a file."""
    Path(os.environ[PROBE_ENV]).write_text(f"{os.getpid()} {os.nice(0)}")


def fail_probe() -> None:
    raise SystemExit(3)


def test_extra_warmups_run_apart_at_a_lower_priority(tmp_path, monkeypatch) -> None:
    out = tmp_path / "probe"
    monkeypatch.setenv(PROBE_ENV, str(out))
    warm = Warmups([], ("tests.core.test_warmups:record_probe",))
    warm.wait("extra")
    pid, nice = map(int, out.read_text().split())
    assert pid != os.getpid()
    assert nice == min(19, os.nice(0) + EXTRA_NICE)


def test_a_failing_extra_warmup_is_reported_by_name() -> None:
    warm = Warmups([], ("tests.core.test_warmups:fail_probe",))
    with pytest.raises(RuntimeError, match="test_warmups:fail_probe failed"):
        warm.wait("extra")
