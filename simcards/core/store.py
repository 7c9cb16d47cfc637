"""Run store: every batch's chunks and results as Parquet, beside a JSON manifest.

A run's folder is named by a hash of its manifest (game, command, rules, policies, seed, counts,
chunk size, package version, and the fingerprint of the code's sources), so running the same
command again finds the same folder, loads the chunks that finished, and computes only the
others; a run made by changed code gets a folder of its own. Chunks are written atomically (to a
temporary name, then renamed), so a run killed at any moment leaves only whole chunks behind;
the resumed run merges them in chunk order and ends with exactly the uninterrupted result.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from simcards import __version__
from simcards.core.errors import UsageError
from simcards.core.fingerprint import code_fingerprint
from simcards.core.registry import game_module
from simcards.core.runner import ChunkKey, Stats

ENV_STORE = "SIMCARDS_STORE"
DEFAULT_ROOT = "runs"


def store_root(option: str | None) -> Path | None:
    """The store folder: the option, else ``$SIMCARDS_STORE``, else ``runs/``; ``none`` disables."""
    value = option if option is not None else os.environ.get(ENV_STORE, DEFAULT_ROOT)
    if value.strip().lower() in ("", "none", "off"):
        return None
    return Path(value)


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _stats_table(stats: Stats) -> pa.Table:
    """One row per named array: its name, dtype, shape and flattened values (unsigned counts
    are kept as their int64 bit pattern and restored by dtype)."""
    arrays = list(stats.values())
    return pa.table({
        "name": pa.array(list(stats)),
        "dtype": pa.array([str(a.dtype) for a in arrays]),
        "shape": pa.array([list(a.shape) for a in arrays], pa.list_(pa.int64())),
        "int_values": pa.array([a.ravel().view(np.int64).tolist() if a.dtype.kind in "iu"
                                else [] for a in arrays], pa.list_(pa.int64())),
        "float_values": pa.array([a.ravel().tolist() if a.dtype.kind == "f" else []
                                  for a in arrays], pa.list_(pa.float64())),
    })


def _table_stats(table: pa.Table) -> Stats:
    out: Stats = {}
    for r in table.to_pylist():
        dtype = np.dtype(r["dtype"])
        if dtype.kind in "iu":
            values = np.asarray(r["int_values"], dtype=np.int64).view(dtype)
        else:
            values = np.asarray(r["float_values"], dtype=dtype)
        out[r["name"]] = values.reshape(r["shape"])
    return out


@dataclass
class RunStore:
    """The folder of one run; see the module docstring."""

    root: Path
    manifest: dict[str, Any]
    resumed: int = 0
    computed: int = 0
    path: Path = field(init=False)

    def __post_init__(self) -> None:
        game = self.manifest.get("game")
        module = game_module(game) if isinstance(game, str) else None
        self.manifest = {**self.manifest, "package_version": __version__,
                         "code": code_fingerprint(module)}
        blob = json.dumps(self.manifest, sort_keys=True, default=str).encode()
        digest = hashlib.sha256(blob).hexdigest()[:16]
        name = f"{self.manifest.get('game', 'run')}-{self.manifest.get('command', 'batch')}"
        self.path = self.root / f"{name}-{digest}"

    @property
    def chunk_dir(self) -> Path:
        return self.path / "chunks"

    def open(self) -> dict[ChunkKey, Stats]:
        """Create the folder (or find it) and return the chunks already finished."""
        try:
            self.chunk_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create run store {self.path}: {exc.strerror}") from None
        manifest_file = self.path / "manifest.json"
        if not manifest_file.exists():
            _atomic_write_bytes(manifest_file, json.dumps(
                {**self.manifest, "status": "running"}, indent=2, default=str).encode())
        done: dict[ChunkKey, Stats] = {}
        for f in sorted(self.chunk_dir.glob("b*-c*.parquet")):
            b, c = f.stem[1:].split("-c")
            done[(int(b), int(c))] = _table_stats(pq.read_table(f))
        self.resumed = len(done)
        return done

    def save_chunk(self, key: ChunkKey, stats: Stats) -> None:
        sink = pa.BufferOutputStream()
        pq.write_table(_stats_table(stats), sink)
        _atomic_write_bytes(self.chunk_dir / f"b{key[0]:05d}-c{key[1]:06d}.parquet",
                            sink.getvalue().to_pybytes())
        self.computed += 1

    def finish(self, result: pd.DataFrame, summary: dict[str, Any]) -> None:
        """Write the merged result (Parquet) and mark the manifest complete."""
        sink = pa.BufferOutputStream()
        pq.write_table(pa.Table.from_pandas(result, preserve_index=False), sink)
        _atomic_write_bytes(self.path / "result.parquet", sink.getvalue().to_pybytes())
        manifest = {**self.manifest, "status": "complete", "chunks_resumed": self.resumed,
                    "chunks_computed": self.computed, "summary": summary}
        _atomic_write_bytes(self.path / "manifest.json",
                            json.dumps(manifest, indent=2, default=str).encode())

    def batch_options(self) -> dict[str, Any]:
        """``done``/``on_chunk`` for a :func:`~simcards.core.runner.run_batches` call of one
        batch."""
        return multi_batch_options([self])


def multi_batch_options(stores: list[RunStore | None]) -> dict[str, Any]:
    """``done``/``on_chunk`` for one :func:`~simcards.core.runner.run_batches` call whose batches
    each have their own store (or none): batch b's chunk c is chunk (0, c) of ``stores[b]``."""
    done: dict[ChunkKey, Stats] = {}
    for b, st in enumerate(stores):
        if st is not None:
            for (_, c), stats in st.open().items():
                done[(b, c)] = stats

    def on_chunk(key: ChunkKey, stats: Stats) -> None:
        st = stores[key[0]]
        if st is not None:
            st.save_chunk((0, key[1]), stats)

    return {"done": done, "on_chunk": on_chunk}
