"""The one exception type that means "the user asked for something impossible".

The CLI turns it into a one-line message and exit status 2; library callers get a ValueError
subclass they can catch like any other bad-argument error.
"""


class UsageError(ValueError):
    """Bad input from the user: unknown name, value out of range, missing file."""


def read_text(path: str, where: str) -> str:
    """The text of a file the user named (a policy's, a chart's); a missing or unreadable
    file refused in one line that starts with ``where`` (the flag and the path)."""
    from pathlib import Path

    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{where}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{where}: cannot read it ({exc})") from None


def caused_by_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is, or was raised because of, a Ctrl-C.

    A Ctrl-C that lands while a numba kernel calls back into Python (loading a cached function,
    say) surfaces as a ``SystemError`` whose cause is the ``KeyboardInterrupt``.
    """
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


class Interrupted(Exception):
    """A run stopped by the user; the message says where its finished chunks are kept."""
