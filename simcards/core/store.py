"""Run store: every batch's chunks and results as Parquet, beside a JSON manifest.

Where: ``--store DIR``, else ``$SIMCARDS_STORE``, else the user's data folder
(``$XDG_DATA_HOME/simcards/runs``, by default ``~/.local/share/simcards/runs``); never the
folder a command happens to be run from.

A run's folder is named by a hash of its manifest (game, command, rules, policies, seed, counts,
chunk size, package version, and the fingerprint of the code's sources), so running the same
command again finds the same folder, loads the chunks that finished, and computes only the
others; a run made by changed code gets a folder of its own. A run made of several batch sets (a
search's stages, a report's studies) keeps them in folders nested inside its own.

Chunks are written atomically (to a temporary name, then renamed), so a run killed at any moment
leaves only whole chunks behind. Each chunk file says what it is in its Parquet key-value
metadata (run key, batch and chunk index, seed, stream, size) with a SHA-256 checksum of its
statistics; on resume a chunk that cannot be read, fails its checksum or belongs elsewhere is
reported on one line, removed and computed again, never merged. The resumed run merges the
chunks in chunk order and ends with exactly the uninterrupted result.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import sys
from collections.abc import Callable, Sequence
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
from simcards.core.runner import Batch, Chunk, ChunkKey, Stats, chunk_size_at, stream_id

ENV_STORE = "SIMCARDS_STORE"
CHUNK_META = b"simcards.chunk"
"""The Parquet key-value metadata key under which a chunk says what it is."""


def default_root() -> Path:
    """The per-user home of the store: ``$XDG_DATA_HOME/simcards/runs``, by default
    ``~/.local/share/simcards/runs``."""
    data = os.environ.get("XDG_DATA_HOME", "").strip()
    base = Path(data) if data else Path.home() / ".local" / "share"
    return base / "simcards" / "runs"


def store_root(option: str | None) -> Path | None:
    """The store folder: the option, else ``$SIMCARDS_STORE``, else :func:`default_root`;
    ``none`` disables."""
    value = option if option is not None else os.environ.get(ENV_STORE)
    if value is None:
        return default_root()
    if value.strip().lower() in ("", "none", "off"):
        return None
    return Path(value).expanduser()


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def stats_checksum(stats: Stats) -> str:
    """SHA-256 of named statistics: names, dtypes, shapes and values, in name order."""
    h = hashlib.sha256()
    for name in sorted(stats):
        a = np.ascontiguousarray(stats[name])
        h.update(f"{name}|{a.dtype.str}|{list(a.shape)}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _stats_table(stats: Stats) -> pa.Table:
    """One row per named array: its name, dtype, shape and flattened values (unsigned counts
    are kept as their int64 bit pattern and restored by dtype)."""
    arrays = list(stats.values())
    return pa.table({
        "name": pa.array(list(stats), pa.string()),
        "dtype": pa.array([str(a.dtype) for a in arrays], pa.string()),
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


def finished_chunks(n: int) -> str:
    """``"1 finished chunk"``, ``"21 finished chunks"``: the count in the run store's
    messages."""
    return f"{n} finished chunk{'' if n == 1 else 's'}"


def _chunk_name(key: ChunkKey) -> str:
    return f"b{key[0]:05d}-c{key[1]:06d}.parquet"


class BadChunk(Exception):
    """A chunk file that must not be merged; the message says why, in a few words."""


def read_failure(exc: Exception, path: Path) -> str:
    """Why ``path`` could not be read, as one whole line: pyarrow names the file by its whole
    path, which the message around this one already names, so only its name is kept here
    (nothing is cut: a message cut short hid the cause)."""
    text = str(exc).replace(f" '{path}'", "").replace(str(path), path.name)
    return " ".join(text.split()) or type(exc).__name__


@dataclass
class RunStore:
    """The folder of one run; see the module docstring."""

    root: Path
    manifest: dict[str, Any]
    resumed: int = 0
    computed: int = 0
    rejected: int = 0
    was_complete: bool = field(default=False, init=False)
    """Whether the run had already been completed when this store opened it: its chunks are
    then only read back."""
    path: Path = field(init=False)
    key: str = field(init=False)
    """The run key: the hash of the manifest that names the folder."""

    def __post_init__(self) -> None:
        game = self.manifest.get("game")
        module = game_module(game) if isinstance(game, str) else None
        self.manifest = {**self.manifest, "package_version": __version__,
                         "code": code_fingerprint(module)}
        blob = json.dumps(self.manifest, sort_keys=True, default=str).encode()
        self.key = hashlib.sha256(blob).hexdigest()[:16]
        name = f"{self.manifest.get('game', 'run')}-{self.manifest.get('command', 'batch')}"
        self.path = self.root / f"{name}-{self.key}"
        self._opened = False

    @property
    def chunk_dir(self) -> Path:
        return self.path / "chunks"

    def create(self) -> None:
        """Create the folder (or find it) and mark the run as running in this process."""
        try:
            self.chunk_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(self._unmakeable(exc)) from None
        manifest_file = self.path / "manifest.json"
        previous: dict[str, Any] = {}
        if manifest_file.exists():
            try:
                previous = json.loads(manifest_file.read_text())
            except (OSError, ValueError):
                previous = {}
        self.was_complete = previous.get("status") == "complete"
        if not self.was_complete:
            _atomic_write_bytes(manifest_file, json.dumps(
                {**self.manifest, "status": "running", "pid": os.getpid()}, indent=2,
                default=str).encode())
        for tmp in self.chunk_dir.glob(".*.tmp-*"):  # left by a killed run
            tmp.unlink(missing_ok=True)
        self._opened = True

    def _unmakeable(self, exc: OSError) -> str:
        """Why the run's folders cannot be made, naming what is in the way: a file where a
        folder of the store belongs says so (the operating system's "File exists" does not say
        which, nor that it is not a folder)."""
        for folder in (*reversed(self.chunk_dir.parents), self.chunk_dir):
            if folder.exists() and not folder.is_dir():
                return (f"run store {self.path}: {folder} is a file where the store needs a "
                        "folder; remove it or choose another --store")
        return f"cannot create run store {self.path}: {exc.strerror or exc}"

    def open(self) -> dict[ChunkKey, Stats]:
        """Create the folder (or find it) and return the chunks already finished, each checked
        to be whole and this run's own."""
        return self.resume(None)

    def resume(self, batches: Sequence[Batch] | None) -> dict[ChunkKey, Stats]:
        """The finished chunks, checked (against ``batches`` when given: seed, stream, size);
        a bad one is reported on one line on stderr, removed, and left to be computed again."""
        self.create()
        done: dict[ChunkKey, Stats] = {}
        bad: list[str] = []
        for f in sorted(self.chunk_dir.glob("b*-c*.parquet")):
            try:
                key, stats = self._load(f, batches)
            except BadChunk as exc:
                bad.append(f"{f.name} ({exc})")
                f.unlink(missing_ok=True)
                continue
            done[key] = stats
        self.resumed = len(done)
        self.rejected = len(bad)
        if bad:
            shown = "; ".join(bad[:3]) + (f"; and {len(bad) - 3} more" if len(bad) > 3 else "")
            sys.stderr.write(f"simcards: run store {self.chunk_dir}: {len(bad)} damaged or "
                             f"foreign chunk{'s' if len(bad) > 1 else ''} removed, computing "
                             f"again: {shown}\n")
        return done

    def _load(self, f: Path, batches: Sequence[Batch] | None) -> tuple[ChunkKey, Stats]:
        try:
            b, c = (int(x) for x in f.stem[1:].split("-c"))
        except ValueError:
            raise BadChunk("not a chunk name") from None
        try:
            table = pq.read_table(f)
            stats = _table_stats(table)
        except Exception as exc:  # any failure to read means a damaged file
            raise BadChunk(f"unreadable: {read_failure(exc, f)}") from None
        raw = (table.schema.metadata or {}).get(CHUNK_META)
        if raw is None:
            raise BadChunk("no chunk record")
        try:
            meta = json.loads(raw)
        except ValueError:
            raise BadChunk("chunk record unreadable") from None
        if meta.get("run") != self.key:
            raise BadChunk(f"belongs to run {meta.get('run')}, not {self.key}")
        if (meta.get("batch"), meta.get("chunk")) != (b, c):
            raise BadChunk(f"is chunk {meta.get('batch')}/{meta.get('chunk')}, not {b}/{c}")
        if meta.get("checksum") != stats_checksum(stats):
            raise BadChunk("checksum mismatch")
        if batches is not None:
            if not (0 <= b < len(batches) and 0 <= c < batches[b].n_chunks):
                raise BadChunk("outside the run's plan")
            want = _identity(batches[b], c)
            got = {k: meta.get(k) for k in want}
            if got != want:
                diff = ", ".join(f"{k} {got[k]} not {want[k]}" for k in want
                                 if got[k] != want[k])
                raise BadChunk(diff)
        return (b, c), stats

    def save(self, key: ChunkKey, chunk: Chunk, stats: Stats) -> None:
        """Keep one finished chunk, with its record and checksum."""
        self.save_chunk(key, stats, chunk)

    def save_chunk(self, key: ChunkKey, stats: Stats, chunk: Chunk | None = None) -> None:
        if not self._opened:
            self.create()
        meta: dict[str, Any] = {"run": self.key, "batch": key[0], "chunk": key[1]}
        if chunk is not None:
            meta.update(seed=chunk.seed, stream=chunk.stream, size=chunk.size)
        meta["checksum"] = stats_checksum(stats)
        table = _stats_table(stats).replace_schema_metadata(
            {CHUNK_META: json.dumps(meta).encode()})
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        _atomic_write_bytes(self.chunk_dir / _chunk_name(key), sink.getvalue().to_pybytes())
        self.computed += 1

    def finish(self, result: pd.DataFrame, summary: dict[str, Any]) -> None:
        """Write the merged result (Parquet) and mark the manifest complete."""
        if not self._opened:
            self.create()
        sink = pa.BufferOutputStream()
        pq.write_table(pa.Table.from_pandas(result, preserve_index=False), sink)
        _atomic_write_bytes(self.path / "result.parquet", sink.getvalue().to_pybytes())
        manifest = {**self.manifest, "status": "complete", "chunks_resumed": self.resumed,
                    "chunks_computed": self.computed, "summary": summary}
        _atomic_write_bytes(self.path / "manifest.json",
                            json.dumps(manifest, indent=2, default=str).encode())

    def batch_options(self) -> dict[str, Any]:
        """``store=`` for a :func:`~simcards.core.runner.run_batches` call."""
        return {"store": self}


def _identity(batch: Batch, index: int) -> dict[str, int]:
    """What chunk ``index`` of ``batch`` records about itself."""
    return {"seed": batch.seed, "stream": stream_id(batch.stream),
            "size": chunk_size_at(batch.total, batch.chunk_size, index)}


def stage_stores(root: Path | None) -> tuple[Callable[[Any], RunStore | None], list[RunStore]]:
    """``store_for`` for :func:`~simcards.core.plans.run_plans`: each stage kept as its own run
    under ``root``, keyed by the stage's manifest (nothing kept when ``root`` is None), and the
    list of those runs, to count what was resumed and computed."""
    made: list[RunStore] = []

    def store_for(request: Any) -> RunStore | None:
        if root is None:
            return None
        store = RunStore(root, request.manifest)
        made.append(store)
        return store

    return store_for, made


def describe_batch(batch: Batch) -> dict[str, Any]:
    """What identifies a batch's numbers: its chunk function, a hash of its configuration, seed,
    size, chunking and stream."""
    fn = f"{batch.fn.__module__}:{batch.fn.__qualname__}"
    config = hashlib.sha256(pickle.dumps(batch.config, protocol=4)).hexdigest()[:16]
    return {"fn": fn, "config": config, "seed": batch.seed, "total": batch.total,
            "chunk_size": batch.chunk_size, "stream": batch.stream}


class BatchSetStore:
    """A store for a :func:`~simcards.core.runner.run_batches` call known only by its batches
    (a report study's): the run is named by ``command`` and the description of every batch,
    in a folder under ``root``."""

    def __init__(self, root: Path, game: str, command: str) -> None:
        self.root, self.game, self.command = root, game, command
        self.run: RunStore | None = None

    def resume(self, batches: Sequence[Batch]) -> dict[ChunkKey, Stats]:
        self.run = RunStore(self.root, {"game": self.game, "command": self.command,
                                        "batches": [describe_batch(b) for b in batches]})
        return self.run.resume(batches)

    def save(self, key: ChunkKey, chunk: Chunk, stats: Stats) -> None:
        assert self.run is not None
        self.run.save(key, chunk, stats)


def batch_set_store(root: Path | None, game: str = "report",
                    command: str = "batches") -> BatchSetStore | None:
    """A :class:`BatchSetStore` under ``root``, or None when nothing is stored."""
    return BatchSetStore(Path(root), game, command) if root is not None else None
