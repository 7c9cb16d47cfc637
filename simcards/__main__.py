"""``python -m simcards`` runs the command line."""

from simcards.cli import run

run()
