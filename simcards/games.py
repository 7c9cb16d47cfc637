"""The games this package ships: one module per line, each defining ``GAME``.

Adding a game means adding its sub-package and one line here; nothing else in the shared code
changes (see :mod:`simcards.core.registry`).
"""

GAMES: tuple[str, ...] = (
    "simcards.ronco",
    "simcards.ronda",
    "simcards.romi",
)
