"""A position given as a small file (``--position FILE``): JSON or TOML, one table of named
fields, the same names as the command's flags (without the dashes, ``-`` read as ``_``).

Games' advisors read their positions through :func:`read_position`, so every advisor takes
the same two formats and refuses a bad file in the same one line."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable
from typing import Any

from simcards.core.errors import UsageError, read_text


def read_position(path: str, fields: Iterable[str], flag: str = "--position") -> dict[str, Any]:
    """The fields of the position file ``path`` (``.toml``, else JSON), keyed by the API's
    names; a missing file, a file that does not parse, a value that is not a table or a
    field not in ``fields`` refused in one line naming the file."""
    text = read_text(path, f"{flag}: {path}")
    try:
        data = tomllib.loads(text) if path.endswith(".toml") else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        kind = "TOML" if path.endswith(".toml") else "JSON"
        raise UsageError(f"{flag}: {path} is not {kind}: {exc}") from None
    if not isinstance(data, dict):
        raise UsageError(f"{flag}: {path} must hold one table of fields, not "
                         f"{type(data).__name__}")
    known = set(fields)
    out = {}
    for key, value in data.items():
        name = str(key).replace("-", "_")
        if name not in known:
            raise UsageError(f"{flag}: {path}: unknown field {key!r} (known: "
                             f"{', '.join(sorted(known))})")
        out[name] = value
    return out
