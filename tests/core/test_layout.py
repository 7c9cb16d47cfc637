"""The package's module layout is what it says it is (``simcards/core/registry.py``, the README's
"Every game package has the same layout"), checked on the sources themselves.

Why: a reader finds a game's rules, its compiled code and its commands by the modules' names
alone, and numba's cache, the warm-ups and the cost of an edit follow the same split (an edit to
a ``*_kernel.py`` recompiles, an edit elsewhere does not). A name that says one thing while the
module holds another misleads all of them, and layouts drift one convenient edit at a time, so
each rule here is a test.

The rules, each a test below:

1. every game package has the skeleton modules all three games share (:data:`SKELETON`), with
   at least one ``*_kernel.py`` and one ``*_batch.py``;
2. a module under ``simcards/`` defines compiled code (a numba decorator or compiling call,
   :data:`COMPILERS`) exactly when it is named ``*_kernel.py``;
3. a ``*_kernel.py`` holds compiled code, constants and at most thin Python: each function
   that is not compiled either builds a constant at import (it is called in a module-level
   assignment) or is a *thin wrapper*: it calls compiled code, has at most
   :data:`WRAPPER_STATEMENTS` statements (its docstring aside, nested ones counted) and no
   loop, ``with``, ``try`` or nested definition; no class that is not compiled;
4. no module under ``simcards/`` is longer than :data:`MAX_LINES` lines.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

import simcards

PACKAGE = Path(simcards.__file__).resolve().parent
GAMES = ("ronco", "ronda", "romi")
SKELETON = ("__init__.py", "rules.py", "codes.py", "policies.py", "kernel_state.py", "api.py",
            "cli.py", "table.py", "reference.py", "warmups.py", "reports/__init__.py")
"""The modules every game package has (the registry's layout): what the three games share."""
COMPILERS = frozenset({"njit", "jit", "cfunc", "vectorize", "guvectorize", "stencil",
                       "generated_jit", "intrinsic", "overload", "overload_method",
                       "overload_attribute", "register_jitable"})
"""numba's decorators and calls that compile (or register for compiling) a function."""
WRAPPER_STATEMENTS = 8
"""The most statements a thin wrapper has (the largest today: ``replay_searched``'s 5)."""
MAX_LINES = 1_800
"""The longest module allowed. Today's longest: the reference engines, ``ronda/reference.py``
(1,753 lines) and ``romi/reference.py`` (1,123), written from the rules text alone and kept
whole on purpose; then ``romi/table.py`` (1,169), ``ronda/search_kernel.py`` (1,044) and
``ronco/table.py`` (1,041). Every kernel module is under 1,100 lines."""
MAX_KERNEL_LINES = 1_100
"""The longest ``*_kernel.py`` allowed: a kernel module past it wants splitting by its sections
(``ronda/search_kernel.py``, 1,044 lines, is the longest)."""


def modules() -> list[Path]:
    """Every Python module of the package."""
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def name(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


@cache
def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text("utf-8"), str(path))


def numba_names(module: ast.Module) -> tuple[set[str], set[str]]:
    """The module's names for numba's compilers (``from numba import njit as nj`` gives
    ``nj``) and its aliases of numba itself (``import numba`` gives ``numba``)."""
    names: set[str] = set()
    aliases: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "numba":
            names.update(a.asname or a.name for a in node.names if a.name in COMPILERS)
        elif isinstance(node, ast.Import):
            aliases.update(a.asname or a.name for a in node.names
                           if a.name.split(".")[0] == "numba")
    return names, aliases


def is_compiler(expr: ast.expr, names: set[str], aliases: set[str]) -> bool:
    """Whether ``expr`` names one of numba's compilers, called or not (``njit``,
    ``njit(cache=True)``, ``numba.njit``, ``numba.extending.intrinsic``)."""
    if isinstance(expr, ast.Call):
        expr = expr.func
    if isinstance(expr, ast.Name):
        return expr.id in names
    if isinstance(expr, ast.Attribute) and expr.attr in COMPILERS:
        root = expr.value
        while isinstance(root, ast.Attribute):
            root = root.value
        return isinstance(root, ast.Name) and root.id in aliases
    return False


def compiled_defs(module: ast.Module) -> set[str]:
    """The module's top-level functions and classes compiled by a numba decorator."""
    names, aliases = numba_names(module)
    return {node.name for node in module.body
            if isinstance(node, (ast.FunctionDef, ast.ClassDef))
            and any(is_compiler(d, names, aliases) for d in node.decorator_list)}


def compiles(module: ast.Module) -> bool:
    """Whether the module defines compiled code: a function under a numba decorator, or a
    numba compiler called anywhere (``f = njit(g)``, ``vectorize([...])(h)``)."""
    names, aliases = numba_names(module)
    if compiled_defs(module):
        return True
    return any(isinstance(node, ast.Call) and is_compiler(node.func, names, aliases)
               for node in ast.walk(module))


def statements(body: list[ast.stmt]) -> int:
    """Statements of a body, nested ones counted."""
    count = 0
    for stmt in body:
        count += 1
        for field in ("body", "orelse", "finalbody"):
            count += statements(getattr(stmt, field, []) or [])
    return count


def kernel_imports(module: ast.Module) -> set[str]:
    """Names the module imports from the package's ``*_kernel`` modules."""
    return {a.asname or a.name for node in module.body if isinstance(node, ast.ImportFrom)
            and (node.module or "").startswith("simcards.")
            and node.module.endswith("_kernel") for a in node.names}


def constant_builders(module: ast.Module) -> set[str]:
    """Functions called in a module-level assignment (``COMB = comb_table()``): they build a
    constant of the compiled code once, at import."""
    out: set[str] = set()
    for node in module.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            out.update(c.func.id for c in ast.walk(node.value)
                       if isinstance(c, ast.Call) and isinstance(c.func, ast.Name))
    return out


def thick_python(module: ast.Module) -> list[str]:
    """What a kernel module holds beyond compiled code, constants and thin Python (rule 3)."""
    compiled = compiled_defs(module)
    callable_kernels = compiled | kernel_imports(module) | numba_names(module)[0]
    builders = constant_builders(module)
    out = []
    for node in module.body:
        if isinstance(node, ast.ClassDef) and node.name not in compiled:
            out.append(f"class {node.name}")
        if not isinstance(node, ast.FunctionDef) or node.name in compiled:
            continue
        if node.name in builders:
            continue
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        inner = [n for stmt in body for n in ast.walk(stmt)]
        heavy = [type(n).__name__ for n in inner
                 if isinstance(n, (ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef,
                                   ast.ClassDef, ast.AsyncFunctionDef))]
        calls = {n.func.id for n in inner
                 if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        size = statements(body)
        if heavy or size > WRAPPER_STATEMENTS or not calls & callable_kernels:
            why = (f"{', '.join(sorted(set(heavy)))} inside" if heavy else
                   f"{size} statements" if size > WRAPPER_STATEMENTS else
                   "calls no compiled code")
            out.append(f"def {node.name} ({why})")
    return out


def test_every_game_package_has_the_shared_skeleton() -> None:
    """Rule 1: the modules the registry's layout names are in every game, so that a reader
    (and the shared machinery: the registry, the table environments, the doctests of
    ``rules.py`` and ``reference.py``) finds each game's parts under the same names."""
    for game in GAMES:
        folder = PACKAGE / game
        missing = [m for m in SKELETON if not (folder / m).is_file()]
        assert not missing, f"{game}: no {', '.join(missing)}"
        assert list(folder.glob("*_kernel.py")), f"{game}: no *_kernel.py"
        assert list(folder.glob("*_batch.py")), f"{game}: no *_batch.py"


def test_every_game_package_is_listed() -> None:
    """The games rule 1 checks are the games the package ships (``simcards/games.py``)."""
    from simcards.games import GAMES as SHIPPED

    assert tuple(m.rpartition(".")[2] for m in SHIPPED) == GAMES


@pytest.mark.parametrize("path", modules(), ids=name)
def test_compiled_code_lives_only_in_kernel_modules(path: Path) -> None:
    """Rule 2: a module defines compiled code exactly when it is named ``*_kernel.py``: the
    name tells a reader, and whoever edits it, that it is numba code (edits recompile, Python
    objects and exceptions do not work as usual inside), and a kernel module that compiles
    nothing is misnamed."""
    if path.name.endswith("_kernel.py"):
        assert compiles(tree(path)), f"{name(path)} is named a kernel and compiles nothing"
    else:
        assert not compiles(tree(path)), (
            f"{name(path)} defines compiled code: move it to a *_kernel.py module")


@pytest.mark.parametrize("path", [p for p in modules() if p.name.endswith("_kernel.py")],
                         ids=name)
def test_kernel_modules_hold_at_most_thin_python(path: Path) -> None:
    """Rule 3: beside its compiled code and constants, a kernel module holds only thin
    wrappers (a call into compiled code, or to a numba compiler, with a little conversion
    around it) and functions that build a constant at import. Python logic (loops, classes,
    validation, statistics' names, drivers choosing between kernels) belongs to a module named
    for it, a ``*_batch.py`` or the game's Python API, where it is read, tested and edited as
    Python."""
    assert thick_python(tree(path)) == [], f"{name(path)}: move to a Python module"


def test_no_module_is_too_long() -> None:
    """Rule 4: a module past :data:`MAX_LINES` lines (a kernel module past
    :data:`MAX_KERNEL_LINES`) wants splitting along its own sections, as Römi's round was
    (melds, table melds, the expert, the policies, the round)."""
    lengths = {name(p): len(p.read_text("utf-8").splitlines()) for p in modules()}
    assert {m: n for m, n in lengths.items() if n > MAX_LINES} == {}
    assert {m: n for m, n in lengths.items()
            if m.endswith("_kernel.py") and n > MAX_KERNEL_LINES} == {}


def test_the_rules_see_what_they_check() -> None:
    """The checks are not vacuous: they find the compiled code, the thin wrappers and the
    constant builders where they are, and would catch a Python loop in a kernel module."""
    assert compiles(tree(PACKAGE / "core" / "rng_kernel.py"))
    assert compiles(tree(PACKAGE / "core" / "bits_kernel.py"))  # numba intrinsics
    assert not compiles(tree(PACKAGE / "core" / "rng.py"))
    assert "comb_table" in constant_builders(tree(PACKAGE / "ronda" / "value_rules_kernel.py"))
    probe = ast.parse("from numba import njit\n\n@njit\ndef k(x):\n    return x\n\n"
                      "def thin(x):\n    return k(int(x))\n\n"
                      "def loop(xs):\n    for x in xs:\n        k(x)\n\n"
                      "def plain(x):\n    return x + 1\n\nclass Row:\n    pass\n")
    assert thick_python(probe) == ["def loop (For inside)", "def plain (calls no compiled code)",
                                   "class Row"]
