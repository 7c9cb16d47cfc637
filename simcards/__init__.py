"""simcards: Monte Carlo strategy analysis for traditional card games.

The shared machinery lives in :mod:`simcards.core` (decks, random streams, the chunked batch
runner, the run store, the cluster backend, statistics, the CLI and report skeleton) and knows
no game. Each game is one sub-package (``simcards.ronco``, ...) that registers itself through
:mod:`simcards.core.registry`; :mod:`simcards.games` lists them.
"""

__version__ = "0.1.0"

from simcards.core.fingerprint import configure_numba_cache as _configure_numba_cache
from simcards.core.interrupts import hold_during_start as _hold_during_start

_hold_during_start()  # a Ctrl-C while the command imports its modules is one line too
_configure_numba_cache()
