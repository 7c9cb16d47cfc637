"""The one exception type that means "the user asked for something impossible".

The CLI turns it into a one-line message and exit status 2; library callers get a ValueError
subclass they can catch like any other bad-argument error.
"""


class UsageError(ValueError):
    """Bad input from the user: unknown name, value out of range, missing file."""


class Interrupted(Exception):
    """A run stopped by the user; the message says where its finished chunks are kept."""
