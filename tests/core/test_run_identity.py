"""A run's identity: named statistics that merge exactly, named random streams, and run keys
that change whenever the code or a policy parameter does, so no stale number is ever served."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from simcards.core import fingerprint
from simcards.core.cli import main
from simcards.core.runner import Batch, merge, named_stats, run_batch, stream_id
from simcards.core.store import RunStore

PACKAGE = Path(fingerprint.__file__).resolve().parent.parent


class _Pair(NamedTuple):
    counts: np.ndarray
    sums: np.ndarray


def test_merge_adds_by_name_and_keeps_each_dtype() -> None:
    a = named_stats(_Pair(np.array([1, 2], np.int64), np.array([0.5], np.float64)))
    b = named_stats({"counts": np.array([3, 4], np.int64), "sums": np.array([0.25])})
    m = merge([a, b])
    assert list(m) == ["counts", "sums"]
    assert m["counts"].dtype == np.int64 and m["counts"].tolist() == [4, 6]
    assert m["sums"].dtype == np.float64 and m["sums"].tolist() == [0.75]
    big = named_stats({"n": np.array([2**63 + 5], np.uint64)})
    assert merge([big, big])["n"].dtype == np.uint64


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.float32, np.uint8])
def test_merge_refuses_what_it_cannot_add_exactly(dtype) -> None:
    with pytest.raises(TypeError, match="merged exactly"):
        named_stats({"x": np.zeros(3, dtype)})


def test_merge_refuses_chunks_of_different_runs() -> None:
    a = {"wins": np.zeros(2, np.int64)}
    with pytest.raises(ValueError, match="cannot merge"):
        merge([a, {"losses": np.zeros(2, np.int64)}])
    with pytest.raises(ValueError, match="cannot merge"):
        merge([a, {"wins": np.zeros(3, np.int64)}])


def test_a_chunk_must_name_its_statistics() -> None:
    with pytest.raises(TypeError, match="named statistics"):
        named_stats((np.zeros(2, np.int64),))


def test_the_store_keeps_the_names_and_dtypes(tmp_path) -> None:
    store = RunStore(tmp_path, {"game": "ronco", "command": "t"})
    store.open()
    stats = {"wins": np.array([2**62, 3], np.int64), "n": np.array([2**64 - 1], np.uint64),
             "mean": np.array([[0.1, 0.2]], np.float64)}
    store.save_chunk((0, 0), stats)
    back = RunStore(tmp_path, {"game": "ronco", "command": "t"}).open()[(0, 0)]
    assert list(back) == list(stats)
    for k, v in stats.items():
        assert back[k].dtype == v.dtype and back[k].shape == v.shape
        np.testing.assert_array_equal(back[k], v)


def test_stream_ids_are_a_stable_hash_of_the_name() -> None:
    name = "ronco.rounds"
    expected = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")
    assert stream_id(name) == expected
    assert stream_id("ronco.games") != stream_id("ronco.rounds")
    batch = Batch(lambda s, n, c: {"x": np.zeros(1, np.int64)}, None, 1, 10, 5, name)
    assert {c.stream for c in batch.chunks()} == {expected}


def _toy_chunk(state, size, cfg):
    return {"first": np.array([state[0]], np.uint64)}


def test_different_stream_names_draw_different_numbers() -> None:
    a = run_batch(_toy_chunk, None, seed=1, total=1, chunk_size=1, stream="a", workers=1)
    b = run_batch(_toy_chunk, None, seed=1, total=1, chunk_size=1, stream="b", workers=1)
    assert a["first"][0] != b["first"][0]


def test_changing_a_kernel_source_file_changes_the_run_key(tmp_path, monkeypatch) -> None:
    copy = tmp_path / "simcards"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(fingerprint, "PACKAGE_ROOT", copy)
    manifest = {"game": "ronco", "command": "rounds", "seed": 1}

    def key() -> Path:
        fingerprint.package_fingerprint.cache_clear()
        return RunStore(tmp_path / "runs", manifest).path

    before = key()
    assert key() == before
    kernel = copy / "ronco" / "round_kernel.py"
    kernel.write_text(kernel.read_text().replace("lost[i] = hit", "lost[i] = hit  # changed"))
    after = key()
    fingerprint.package_fingerprint.cache_clear()
    assert after != before


def test_two_policy_parameters_never_share_a_run_key(tmp_path, capsys) -> None:
    store = tmp_path / "runs"
    for p in ("0.1234567", "0.1234571"):
        assert main(["ronco", "rounds", "--policy", "random", "--keep-prob", p, "--rounds",
                     "1000", "--workers", "1", "--json", "--store", str(store)]) == 0
    outs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [o["policies"][0] for o in outs] == ["random:0.1234567", "random:0.1234571"]
    assert len(list(store.iterdir())) == 2


_PROBE = textwrap.dedent("""
    import numpy as np
    from simcards.core.rng import chunk_state
    from simcards.ronco.round_kernel import record_deals
    cards, us = record_deals(chunk_state(3, 0), 4, 3, np.full(3, 2, np.int64), 40)
    print(float(us[0, 0]))
""")


def test_numba_cache_never_serves_a_kernel_built_from_an_older_inlined_helper(tmp_path) -> None:
    """``record_deals`` (round_kernel.py) inlines ``uniform`` (rng_kernel.py). Change only
    rng_kernel.py: numba's own cache, which watches round_kernel.py alone, would serve the old
    machine code."""
    root = tmp_path / "src"
    shutil.copytree(PACKAGE, root / "simcards", ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PYTHONPATH": str(root), "SIMCARDS_CACHE": str(tmp_path / "cache"),
           "PATH": "/usr/bin:/bin"}

    def probe() -> float:
        out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                             env=env, cwd=tmp_path, timeout=300)
        assert out.returncode == 0, out.stderr
        return float(out.stdout)

    first = probe()
    assert 0.0 <= first < 1.0
    assert probe() == first  # served from the cache
    rng = root / "simcards" / "core" / "rng_kernel.py"
    text = rng.read_text()
    old = "return np.float64(next_u64(s) >> uint64(11)) * (1.0 / 9007199254740992.0)"
    assert old in text
    rng.write_text(text.replace(old, "next_u64(s)\n    return np.float64(0.25)"))
    assert probe() == 0.25
