"""simcards: Monte Carlo strategy analysis for traditional card games.

Each game lives in its own sub-package (``simcards.ronco``, ...). The shared pieces are the
decks (:mod:`simcards.cards`), the counter-based random streams (:mod:`simcards.rng`), the chunked
batch runner (:mod:`simcards.runner`) and the interval statistics (:mod:`simcards.stats`).
"""

__version__ = "0.1.0"
