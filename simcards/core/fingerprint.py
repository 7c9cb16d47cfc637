"""The fingerprint of the code that produces the numbers, and a numba cache keyed by it.

Two guarantees rest on it:

* The run store's key includes :func:`code_fingerprint`, so a run made by changed code is never
  resumed from chunks an older version computed (:mod:`simcards.core.store`).
* numba's on-disk cache checks only the source file of the function it compiles: a kernel that
  inlines a helper from another file (the random generator, a shared rule step) would be served
  compiled from the helper's old source after the helper changed. :func:`configure_numba_cache`
  points numba's cache at a folder named by the package fingerprint, so changed sources always
  compile afresh. It runs from ``simcards/__init__.py``, before any kernel is decorated.
"""

from __future__ import annotations

import hashlib
import os
import sys
from functools import cache
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
"""The ``simcards`` package folder."""

CACHE_ENV = "SIMCARDS_CACHE"
"""Folder for simcards' caches (default ``$XDG_CACHE_HOME/simcards`` or ``~/.cache/simcards``)."""


def _hash_tree(root: Path, h: hashlib._Hash) -> None:
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")


@cache
def package_fingerprint() -> str:
    """SHA-256 (16 hex digits) of every Python source file of the package, names included."""
    h = hashlib.sha256()
    _hash_tree(PACKAGE_ROOT, h)
    return h.hexdigest()[:16]


def module_fingerprint(module_name: str) -> str:
    """The fingerprint of a module's sources: its whole package folder, or its one file."""
    module = sys.modules.get(module_name)
    file = getattr(module, "__file__", None)
    if file is None:
        return "unknown"
    path = Path(file).resolve()
    h = hashlib.sha256()
    if path.name == "__init__.py":
        _hash_tree(path.parent, h)
    else:
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def code_fingerprint(game_module: str | None = None) -> str:
    """The package's fingerprint, combined with a game's own when it lives outside the package
    (a plug-in game's sources change its runs' keys too)."""
    base = package_fingerprint()
    if game_module is None or game_module.startswith("simcards."):
        return base
    extra = module_fingerprint(game_module)
    return hashlib.sha256(f"{base}:{extra}".encode()).hexdigest()[:16]


def cache_root() -> Path:
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "simcards"


def numba_cache_dir() -> Path:
    return cache_root() / f"numba-{package_fingerprint()}"


def configure_numba_cache() -> None:
    """Send numba's cache to :func:`numba_cache_dir` (see the module docstring).

    Sets ``NUMBA_CACHE_DIR`` for this process and the processes it starts, and numba's live
    configuration too when numba is already imported. numba is not imported here.
    """
    path = str(numba_cache_dir())
    os.environ["NUMBA_CACHE_DIR"] = path
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.config.CACHE_DIR = path
