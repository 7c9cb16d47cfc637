"""The shape of the code, measured: lines per game, each game's files, and the compiled
functions' parameter counts (how much state a kernel receives by position).

    python scripts/code_shape.py            # a table on stdout
    python scripts/code_shape.py --json     # the same as one JSON object

A compiled function is one decorated with numba's ``njit``/``jit`` (also through an alias such
as ``kernel``); its parameter count is its positional and keyword parameters as written.
"""

from __future__ import annotations

import argparse
import ast
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "simcards"
COMPILERS = {"njit", "jit", "generated_jit", "vectorize", "guvectorize", "cfunc"}


def _is_compiled(node: ast.FunctionDef) -> bool:
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in COMPILERS or name.endswith("njit") or name.endswith("jit"):
            return True
    return False


def compiled_functions(root: Path = ROOT) -> list[tuple[str, str, int]]:
    """(file, function, parameter count) of every compiled function under ``root``."""
    out = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and _is_compiled(node):
                a = node.args
                n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                out.append((str(path.relative_to(root.parent)), node.name, n))
    return out


def lines_of_code(path: Path) -> int:
    """Lines that are neither blank nor comments (docstrings count: they are read)."""
    return sum(1 for line in path.read_text().splitlines()
               if line.strip() and not line.strip().startswith("#"))


def shape(root: Path = ROOT) -> dict:
    parts = ["core", *sorted(p.name for p in root.iterdir()
                             if p.is_dir() and (p / "__init__.py").exists() and p.name != "core")]
    per_part = {}
    for part in parts:
        files = sorted((root / part).rglob("*.py"))
        per_part[part] = {"loc": sum(lines_of_code(f) for f in files),
                          "files": [str(f.relative_to(root / part)) for f in files]}
    fns = compiled_functions(root)
    wide = sorted((f for f in fns if f[2] > 8), key=lambda f: -f[2])
    return {"parts": per_part, "compiled": len(fns),
            "compiled_8_or_more": sum(1 for f in fns if f[2] >= 8),
            "compiled_over_8": len(wide),
            "widest": [{"file": f, "function": n, "params": k} for f, n, k in wide[:10]]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the package folder to measure (e.g. an older checkout's)")
    args = parser.parse_args()
    s = shape(args.root.resolve())
    if args.json:
        print(json.dumps(s, indent=1))
        return
    print(f"compiled functions: {s['compiled']}; with 8 or more parameters: "
          f"{s['compiled_8_or_more']}; with more than 8: {s['compiled_over_8']}")
    for w in s["widest"]:
        print(f"  {w['params']:3d}  {w['file']}:{w['function']}")
    for part, info in s["parts"].items():
        print(f"{part}: {info['loc']} lines in {len(info['files'])} files")
        print("  " + " ".join(info["files"]))


if __name__ == "__main__":
    main()
