"""The one answer type of every game's Python API (``simcards.<game>.<command>(...)``).

A command's answer is its JSON object (what ``--json`` prints) plus the statistics it was
computed from. Every game returns a :class:`Result`, so that a caller who knows one command
knows them all: ``to_dict()`` is the ``--json`` object, ``res["key"]`` one of its values,
``to_frame()`` a tidy pandas table. What a row of that table is (a position, a side, a policy)
differs per command, so each command passes its own frame function, which reads only the JSON
object: the table then never disagrees with what the command prints.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas is imported by the frame functions, not by this module
    import pandas as pd

Frame = Callable[[dict[str, Any]], "pd.DataFrame"]
"""A command's table: the JSON object in, one row per position, side, player or policy out."""


@dataclass(frozen=True)
class Result:
    """A command's answer: ``to_dict()`` is its JSON object, ``to_frame()`` a tidy table."""

    data: dict[str, Any]
    """The JSON object, as ``--json`` prints it."""
    raw: Any = field(default=None, repr=False, compare=False)
    """The underlying statistics (counts), when the command computed any."""
    frame: Frame | None = field(default=None, repr=False, compare=False)
    """The command's table (see :data:`Frame`); None for a command that has no table."""

    def to_dict(self) -> dict[str, Any]:
        """The same keys and values as the command's ``--json`` output, as a copy, so that
        changing it does not change the result."""
        return copy.deepcopy(self.data)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def to_frame(self) -> pd.DataFrame:
        """The command's tidy table (one row per position, side, player or policy)."""
        if self.frame is None:
            raise TypeError(f"the {self.data.get('command', '?')} command has no table; use "
                            ".to_dict()")
        return self.frame(self.data)
