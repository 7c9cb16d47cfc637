"""Local process pools that work from a plain script or a notebook, without a main guard.

Worker processes are spawned (see :func:`simcards.core.runner.local_executor`). A spawned child
normally imports the parent's main script again (as ``__mp_main__``) before it runs anything;
a script that calls the Python API at its top level, without ``if __name__ == "__main__":``,
would then start the whole computation again inside every child, which fails and breaks the
pool.

The chunks need nothing from the main script: they are functions and configurations of this
package. So while the API runs, :func:`main_not_reimported` gives the main module the
``__spec__`` that a ``python -m`` run would have (name ``__main__``); multiprocessing then tells
each child not to import it (exactly as for ``python -m pkg`` or an interactive session). The
attribute is restored afterwards. Nothing changes when the main module already has a spec or no
file (the ``simcards`` command, ``python -m``, notebooks, the interactive prompt).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.machinery import ModuleSpec

_MISSING = object()


@contextmanager
def main_not_reimported() -> Iterator[None]:
    """While inside, spawned children skip importing the main script (see the module doc)."""
    main = sys.modules.get("__main__")
    if (main is None or getattr(main, "__spec__", None) is not None
            or not getattr(main, "__file__", None)):
        yield
        return
    saved = main.__dict__.get("__spec__", _MISSING)
    main.__spec__ = ModuleSpec("__main__", None)
    try:
        yield
    finally:
        if saved is _MISSING:
            del main.__spec__
        else:
            main.__spec__ = saved
