"""Record the ``--json`` of every command in ``tests/fixed_commands/commands.txt``.

The file it writes, ``tests/fixed_commands/expected.json``, is what
``tests/core/test_fixed_commands.py`` holds the code to: a reshaping of the code changes no
number. Record again only when a number is meant to change (a rule fixed, a policy improved),
and say in the commit which commands moved and why.

    python scripts/record_fixed_commands.py            # record every command
    python scripts/record_fixed_commands.py --check    # compare only; exit 1 on a change
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests" / "core"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare only, write nothing")
    args = parser.parse_args()
    os.environ["SIMCARDS_STORE"] = tempfile.mkdtemp(prefix="simcards-fixed-")  # none resumed
    sys.path.insert(0, str(TESTS))
    from test_fixed_commands import HERE, commands, run

    path = HERE / "expected.json"
    before = json.loads(path.read_text()) if path.exists() else {}
    got, changed = {}, 0
    for line in commands():
        start = time.perf_counter()
        code, value, err = run(line)
        if code != 0:
            sys.stderr.write(f"exit {code}: {line}\n{err}")
            return 2
        got[line] = value
        same = before.get(line) == value
        changed += not same
        sys.stderr.write(f"{time.perf_counter() - start:6.1f} s "
                         f"{'same   ' if same else 'CHANGED'} {line}\n")
    if args.check:
        return 1 if changed or set(before) != set(got) else 0
    path.write_text(json.dumps(got, indent=1) + "\n")
    sys.stderr.write(f"wrote {path} ({len(got)} commands, {changed} changed)\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
