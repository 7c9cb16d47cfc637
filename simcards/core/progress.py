"""Progress on stderr for every long run: a bar in a terminal, a plain line now and then elsewhere.

A run that ends within a second shows nothing. After that, a terminal gets a rich progress bar
(erased when the run ends); anything else (a CI log, a pipe, a file) gets one plain line two
seconds in and then about every ten seconds, with the rate and the time left::

    Ronco rounds: 41.9M/600M (7%), 2.10M/s, 4m 26s left

stdout is never touched, so ``--json`` output stays one clean object.
"""

from __future__ import annotations

import sys
import time
from typing import Any

SHOW_AFTER = 1.0
"""Seconds before a terminal bar appears."""
FIRST_LINE = 2.0
"""Seconds before the first plain line (not a terminal)."""
LINE_EVERY = 10.0
"""Seconds between plain lines."""


def human_count(x: float) -> str:
    """``41_943_040`` -> ``41.9M``; small numbers as they are."""
    for scale, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            v = x / scale
            return f"{v:.3g}{suffix}" if v < 100 else f"{v:.0f}{suffix}"
    return f"{x:.3g}" if x != int(x) else str(int(x))


def human_seconds(s: float) -> str:
    """``266`` -> ``4m 26s``."""
    s = max(0, round(s))
    if s >= 3600:
        return f"{s // 3600}h {s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s}s"


def _stderr_is_terminal() -> bool:
    from rich.console import Console

    return Console(stderr=True).is_terminal


class Progress:
    """Progress of ``total`` units of work, shown on stderr once the run has lasted a second.

    ``advance(n)`` counts work done now (it sets the rate); ``skip(n)`` counts work found done
    (resumed chunks), which moves the bar but not the rate. ``update(total=..., label=...)``
    changes the goal or the description (a search whose budget shrinks, a report's study).
    """

    def __init__(self, total: int, label: str, enabled: bool = True) -> None:
        self.total = max(int(total), 0)
        self.label = label
        self.enabled = enabled
        self.start = time.monotonic()
        self.done = 0
        self.skipped = 0
        self._terminal: bool | None = None
        self._bar: Any = None
        self._task: Any = None
        self._next_line = self.start + FIRST_LINE

    # -- counting ---------------------------------------------------------------------------
    def advance(self, n: int) -> None:
        self.done += n
        self._show()

    def skip(self, n: int) -> None:
        self.done += n
        self.skipped += n
        self._show()

    def update(self, *, total: int | None = None, label: str | None = None) -> None:
        if total is not None:
            self.total = max(int(total), self.done)
        if label is not None:
            self.label = label
        self._show()

    # -- showing ----------------------------------------------------------------------------
    def rate(self) -> float:
        elapsed = time.monotonic() - self.start
        return (self.done - self.skipped) / elapsed if elapsed > 0 else 0.0

    def line(self) -> str:
        """The plain progress line."""
        rate = self.rate()
        pct = 100.0 * self.done / self.total if self.total else 100.0
        left = (f"{human_seconds((self.total - self.done) / rate)} left" if rate > 0
                else "time left unknown")
        return (f"{self.label}: {human_count(self.done)}/{human_count(self.total)} "
                f"({pct:.0f}%), {human_count(rate)}/s, {left}")

    def _show(self) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < SHOW_AFTER:
            return
        if self._terminal is None:
            self._terminal = _stderr_is_terminal()
        if not self._terminal:
            if now >= self._next_line:
                sys.stderr.write(self.line() + "\n")
                sys.stderr.flush()
                self._next_line = now + LINE_EVERY
            return
        if self._bar is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import (
                Progress as RichProgress,
            )

            self._bar = RichProgress(
                "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                TimeElapsedColumn(), TimeRemainingColumn(),
                console=Console(stderr=True), transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=self.total)
        self._bar.update(self._task, completed=self.done, total=self.total,
                         description=self.label)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        self.enabled = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def as_progress(progress: bool | Progress, total: int, label: str) -> tuple[Progress, bool]:
    """A :class:`Progress` for a run of ``total`` units: the caller's own (shared across several
    runs, which then add their totals to it), or a new one. Returns it and whether it is new (the
    caller closes only what it opened)."""
    if isinstance(progress, Progress):
        return progress, False
    return Progress(total, label, bool(progress)), True
