"""Progress on stderr for every long run: a bar in a terminal, a plain line now and then elsewhere.

A run that ends within a second shows nothing. After that, a terminal gets a rich progress bar
(erased when the run ends); anything else (a CI log, a pipe, a file) gets one plain line two
seconds in and then about every ten seconds, with the rate and the time left::

    Ronco rounds: 41.9M/600M (7%), 2.10M/s, 4m 26s left

stdout is never touched, so ``--json`` output stays one clean object.

A run that will last longer than a few minutes says so once, early, even where no progress is
shown (a ``--json`` run of the command line): once the first chunks are done (and
:data:`ESTIMATE_AFTER` seconds have passed), if the work left at the rate measured so far
would take more than :data:`ESTIMATE_OVER` seconds, one line goes to stderr::

    about 12 minutes to go (2.10M/s)

so that whoever started it can decide to wait, or to stop it and ask for less.
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
ESTIMATE_AFTER = 5.0
"""Seconds of work (at least one chunk done) before the rate is trusted for an estimate."""
ESTIMATE_OVER = 180.0
"""A run whose work left would take longer than this says how long, once."""
_ESTIMATE_WHEN_QUIET = [False]
"""Whether a run that shows no progress still gives its estimate (the command line's
``--json`` runs; a Python caller who asked for no progress gets none)."""


def estimate_when_quiet(on: bool) -> None:
    """Give the duration estimate even in runs that show no progress (set by the command
    line, whose ``--json`` runs show none but whose user still wants to know how long)."""
    _ESTIMATE_WHEN_QUIET[0] = bool(on)


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
    from simcards.core.console import make_console

    return make_console(stderr=True).is_terminal


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
        self._estimated = False
        """Whether the duration estimate has been decided (given or not needed): once a run."""

    # -- counting ---------------------------------------------------------------------------
    def advance(self, n: int) -> None:
        self.done += n
        self._estimate()
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

    def estimate(self) -> str | None:
        """The estimate line (``about 12 minutes to go (2.10M/s)``) when the work left would
        take more than :data:`ESTIMATE_OVER` seconds at the rate so far, else None."""
        rate = self.rate()
        if rate <= 0:
            return None
        left = (self.total - self.done) / rate
        if left <= ESTIMATE_OVER:
            return None
        minutes = round(left / 60)
        when = (f"about {minutes} minutes" if minutes < 120
                else f"about {human_seconds(left)}")
        return f"{when} to go ({human_count(rate)}/s)"

    def _estimate(self) -> None:
        """Decide once, after :data:`ESTIMATE_AFTER` seconds, whether to give the estimate."""
        if self._estimated or not (self.enabled or _ESTIMATE_WHEN_QUIET[0]):
            return
        if time.monotonic() - self.start < ESTIMATE_AFTER:
            return
        self._estimated = True
        line = self.estimate()
        if line is not None:
            sys.stderr.write(f"{self.label}: {line}\n")
            sys.stderr.flush()

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
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import (
                Progress as RichProgress,
            )

            from simcards.core.console import make_console

            # The label names policies (ismcts:100): shown as text, never read as markup.
            self._bar = RichProgress(
                TextColumn("{task.description}", style="progress.description", markup=False),
                BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                console=make_console(stderr=True), transient=True,
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
