"""One switch sizes the long cross-checks: ``pytest --full`` (``make test-full``), read from
:mod:`tests.sizes`, not one environment variable per test module."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests import sizes

TESTS = Path(__file__).resolve().parents[1]


def test_the_size_switch_follows_the_full_option_in_every_worker(
        request: pytest.FixtureRequest) -> None:
    """In a parallel run each worker collects the modules itself: the option must reach it
    before they are imported."""
    assert sizes.FULL is bool(request.config.getoption("full"))


def test_no_test_module_sizes_itself_from_the_environment() -> None:
    """The five variables that once switched the long runs are gone, and no new one reads a
    size or a full switch from the environment."""
    pattern = re.compile(r"os\.environ(?:\.get)?[\[(]\s*[\"'][A-Z_]*(FULL|ROUNDS|HANDS)")
    found = [str(p.relative_to(TESTS)) for p in TESTS.rglob("*.py")
             if pattern.search(p.read_text("utf-8"))]
    assert not found, found


def test_make_test_full_is_the_suite_with_the_full_option() -> None:
    makefile = (TESTS.parent / "Makefile").read_text("utf-8")
    recipe = makefile.split("test-full:", 1)[1].split("\n\n", 1)[0]
    assert "--full" in recipe and "=1" not in recipe
