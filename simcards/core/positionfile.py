"""A position given as a small file (``--position FILE``): JSON or TOML, one table of named
fields, the same names as the command's flags (without the dashes, ``-`` read as ``_``).

Games' advisors read their positions through :func:`read_position`, so every advisor takes
the same two formats and refuses a bad file in the same one line."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Iterable, Mapping
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


def position_fields(position: str | None, flags: Mapping[str, Any],
                    kinds: Mapping[str, Callable[[str, Any], Any]] | None = None,
                    flag: str = "--position") -> dict[str, Any]:
    """An advisor's position, from its flags or from the file ``position`` (one of the two):
    ``flags`` (each field's flag value, None when not given) when there is no file; else the
    file's fields (:func:`read_position`, known fields the names of ``flags``), after refusing
    any flag given beside it, every field it leaves out None. ``kinds`` converts and checks a
    file's values as the flags' are (``kind(name, value)``, a refusal named after the file).
    One place for this, so every advisor refuses the same mistakes in the same words."""
    if position is None:
        return dict(flags)
    given = [name for name, value in flags.items() if value is not None]
    if given:
        raise UsageError(f"{flag} gives the whole position; --{given[0].replace('_', '-')} "
                         "cannot be given with it (not both)")
    if not str(position).strip():
        raise UsageError(f"{flag} is empty: give a .json or .toml file")
    data = read_position(str(position), flags, flag)
    if kinds:
        for name, value in data.items():
            if name in kinds:
                try:
                    data[name] = kinds[name](name, value)
                except UsageError as exc:
                    raise UsageError(f"{flag}: {position}: {exc}") from None
    return {**dict.fromkeys(flags), **data}
