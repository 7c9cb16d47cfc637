"""How large the cross-checks run: one switch for every test module.

``make test`` runs each exact and reference cross-check at a size that keeps the suite within a
quarter of an hour on two cores; ``make test-full`` (``pytest --full``) runs the same checks at
full size: Ronda's engines on 10,000 hands per configuration and its searches on ten times the
hands, Römi's solver on 15,300 hands and its engines on ten times the rounds (2,000 per player
count for the turn-by-turn replay), thirty random Ctrl-Cs instead of six. ``tests/conftest.py``
sets :data:`FULL` from the option before any test module is imported, so a module reads it
when it is collected."""

FULL = False
"""Whether this run is ``pytest --full``."""
