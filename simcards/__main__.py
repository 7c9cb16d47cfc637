"""``python -m simcards`` runs the command line."""

from simcards.core.cli import run

run()
