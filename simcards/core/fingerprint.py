"""The fingerprint of the code that produces the numbers, and a numba cache keyed by it.

Two guarantees rest on it:

* The run store's key includes :func:`code_fingerprint`, so a run made by changed code is never
  resumed from chunks an older version computed (:mod:`simcards.core.store`).
* numba's on-disk cache checks only the source file of the function it compiles: a kernel that
  inlines a helper from another file (the random generator, a shared rule step) would be served
  compiled from the helper's old source after the helper changed. :func:`configure_numba_cache`
  points numba's cache at a folder named by the fingerprint of the *kernel sources*
  (:func:`kernel_fingerprint`): every module of the package that imports numba, and every package
  module those import, directly or not, with the packages that hold them. A compiled function
  can only reach code and constants through those imports, so a changed kernel source always
  compiles afresh, while an edit to a command, a report or a reference engine keeps the cache.
  It runs from ``simcards/__init__.py``, before any kernel is decorated.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
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


def _module_path(root: Path, name: str) -> Path | None:
    """The source of package module ``name`` (``simcards.x.y``) under ``root``, if any."""
    parts = name.split(".")[1:]
    base = root.joinpath(*parts)
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


_FROM = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n]*)", re.M)


def _imported_names(text: str) -> set[str]:
    """Dotted names of modules (or of names in modules) that ``import`` lines of ``text`` name,
    wherever they stand; read line by line, which is cheaper than parsing every file."""
    names: set[str] = set()
    for m in _FROM.finditer(text):
        module = m.group(1)
        names.add(module)
        for item in m.group(2).strip("()").split(","):
            item = item.split("#")[0].split(" as ")[0].strip()
            if item.isidentifier():
                names.add(f"{module}.{item}")
    for m in _IMPORT.finditer(text):
        for item in m.group(1).split("#")[0].split(","):
            names.add(item.split(" as ")[0].strip())
    return names


def _imports_numba(text: str) -> bool:
    return any(n.split(".")[0] == "numba" for n in _imported_names(text))


def _package_imports(root: Path, text: str) -> set[Path]:
    """The package's modules that ``text`` imports (``from simcards.a import b`` may name a
    module ``b`` or a name in ``a``: both are taken when they exist), with the ``__init__.py``
    of every package on the way."""
    out: set[Path] = set()
    for name in _imported_names(text):
        parts = name.split(".")
        if parts[0] != root.name:
            continue
        for i in range(1, len(parts) + 1):
            found = _module_path(root, ".".join(parts[:i]))
            if found is not None:
                out.add(found)
    return out


def _kernel_sources(root: Path) -> list[Path]:
    """Every module under ``root`` that imports numba, and the package modules it imports,
    transitively, with the ``__init__.py`` of each package holding one of them."""
    texts = {p: p.read_text("utf-8") for p in sorted(root.rglob("*.py"))
             if "__pycache__" not in p.parts}
    todo = [p for p, text in texts.items() if _imports_numba(text)]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        todo += _package_imports(root, texts[path])
        parent = path.parent
        while parent != root.parent:
            init = parent / "__init__.py"
            if init.is_file():
                todo.append(init)
            parent = parent.parent
    return sorted(seen)


@cache
def kernel_fingerprint() -> str:
    """SHA-256 (16 hex digits) of the kernel sources (module docstring), names included: the
    key of numba's cache folder."""
    h = hashlib.sha256()
    for path in _kernel_sources(PACKAGE_ROOT):
        h.update(path.relative_to(PACKAGE_ROOT).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
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


def default_cache_root() -> Path:
    """``$XDG_CACHE_HOME/simcards``, by default ``~/.cache/simcards``."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "simcards"


def cache_root() -> Path:
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit)
    return default_cache_root()


def _unusable(path: Path) -> str | None:
    """Why ``path`` cannot hold the caches (None when it is a folder, made if missing, that
    takes new files)."""
    if path.exists() and not path.is_dir():
        return "it exists and is not a folder"
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        return f"cannot write there: {exc.strerror or exc}"
    return None


def check_cache_env() -> None:
    """An unusable ``$SIMCARDS_CACHE`` (a file, a folder that takes no files) is said once,
    on one line of stderr, and replaced by the default folder: otherwise numba would quietly
    fall back to caching beside the package's sources, in folders not keyed by
    :func:`kernel_fingerprint`. The replacement is written to the environment, so the worker
    processes this one starts use it without saying so again."""
    explicit = os.environ.get(CACHE_ENV)
    if not explicit:
        return
    why = _unusable(Path(explicit))
    if why is None:
        return
    instead = default_cache_root()
    sys.stderr.write(f"simcards: warning: {CACHE_ENV}={explicit} is not usable ({why}); "
                     f"caching in {instead} instead\n")
    os.environ[CACHE_ENV] = str(instead)


def numba_cache_dir() -> Path:
    return cache_root() / f"numba-{kernel_fingerprint()}"


def configure_numba_cache() -> None:
    """Send numba's cache to :func:`numba_cache_dir` (see the module docstring).

    Sets ``NUMBA_CACHE_DIR`` for this process and the processes it starts, and numba's live
    configuration too when numba is already imported. numba is not imported here.
    """
    check_cache_env()
    path = str(numba_cache_dir())
    os.environ["NUMBA_CACHE_DIR"] = path
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.config.CACHE_DIR = path
