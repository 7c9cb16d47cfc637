"""numba's cache folder is keyed on the kernel sources only (``core/fingerprint.py``): every
module that imports numba and every package module those import. A changed kernel, rule step,
constant or random generator compiles afresh; an edited command, report or reference engine
keeps the compiled kernels (while still changing the key of the runs it makes)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from simcards.core import fingerprint

PACKAGE = Path(fingerprint.__file__).resolve().parent.parent


@pytest.fixture
def tree(tmp_path, monkeypatch) -> Path:
    copy = tmp_path / "simcards"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(fingerprint, "PACKAGE_ROOT", copy)
    yield copy
    fingerprint.kernel_fingerprint.cache_clear()
    fingerprint.package_fingerprint.cache_clear()


def _keys() -> tuple[str, str]:
    fingerprint.kernel_fingerprint.cache_clear()
    fingerprint.package_fingerprint.cache_clear()
    return fingerprint.kernel_fingerprint(), fingerprint.package_fingerprint()


def _touch(path: Path) -> None:
    path.write_text(path.read_text() + "\n# edited\n")


def test_every_module_that_compiles_or_feeds_a_kernel_is_a_kernel_source(tree) -> None:
    names = {p.relative_to(tree).as_posix() for p in fingerprint._kernel_sources(tree)}
    for kernel in ("ronco/round_kernel.py", "ronda/hand_kernel.py", "ronda/search_kernel.py",
                   "romi/round_kernel.py", "romi/melds_kernel.py", "core/rng_kernel.py",
                   "core/bits_kernel.py"):
        assert kernel in names
    # constants the kernels read as globals, through their imports
    for feeder in ("ronco/codes.py", "ronda/codes.py", "romi/codes.py", "romi/kernel_state.py",
                   "ronda/policies.py"):
        assert feeder in names
    for outside in ("romi/reference.py", "ronda/reference.py", "romi/api.py", "ronda/cli.py",
                    "romi/reports/policies.py", "core/runner.py", "romi/table_melds_exact.py",
                    "romi/melds_exact.py", "romi/records.py", "romi/policies.py",
                    "ronda/hands_batch.py", "core/rng.py"):
        assert outside not in names


@pytest.mark.parametrize("edited", ["romi/round_kernel.py", "romi/codes.py",
                                    "core/rng_kernel.py", "ronda/codes.py", "ronco/__init__.py"])
def test_editing_a_kernel_source_changes_the_cache_folder(tree, edited) -> None:
    before = _keys()
    _touch(tree / edited)
    after = _keys()
    assert after[0] != before[0] and after[1] != before[1]


@pytest.mark.parametrize("edited", ["romi/reports/policies.py", "romi/reference.py",
                                    "ronda/cli.py", "romi/table_melds_exact.py"])
def test_editing_a_command_report_or_reference_keeps_the_cache_but_not_the_run_key(
        tree, edited) -> None:
    before = _keys()
    _touch(tree / edited)
    after = _keys()
    assert after[0] == before[0]
    assert after[1] != before[1]


def test_the_cache_folder_is_named_by_the_kernel_fingerprint(tree, monkeypatch,
                                                             tmp_path) -> None:
    monkeypatch.setenv(fingerprint.CACHE_ENV, str(tmp_path / "cache"))
    fingerprint.kernel_fingerprint.cache_clear()
    assert fingerprint.numba_cache_dir() == (tmp_path / "cache"
                                             / f"numba-{fingerprint.kernel_fingerprint()}")
