"""The rich consoles every command prints with.

What the commands print is mostly data: policy names (``ismcts:100``), rule values, file
names, install hints (``pip install -e '.[rl]'``). rich reads ``[...]`` in a printed string as
markup and ``:name:`` as an emoji code, so a policy ``ismcts:100:0.5`` would show as
``ismcts💯0.5`` and a hint's ``[rl]`` would vanish. The consoles made here therefore:

* never replace emoji codes (nothing this package prints is meant as one);
* read no markup, unless a caller that writes its own markup asks for it (``ronda play``
  colours the cards' suits), and that caller escapes the data it mixes in (:func:`escape`);
* highlight nothing: rich's highlighter would colour numbers and words inside the data.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape as _escape

TABLE_WIDTH = 120
"""Columns for tables printed anywhere but a terminal (a pipe, a log file): at 80 rich would
cut every interval in two."""


def make_console(*, markup: bool = False, **kwargs: Any) -> Console:
    """A :class:`~rich.console.Console` that prints data as it is (see the module docstring);
    ``kwargs`` go to the console (``stderr``, ``file``, ``width``...)."""
    return Console(markup=markup, emoji=False, highlight=False, **kwargs)


def table_console() -> Console:
    """The console for a command's tables: a terminal's own width, else
    :data:`TABLE_WIDTH` columns."""
    probe = make_console()
    return probe if probe.is_terminal else make_console(width=TABLE_WIDTH)


def escape(text: object) -> str:
    """``text`` as a string that a console with markup prints verbatim (its ``[`` escaped)."""
    return _escape(str(text))
