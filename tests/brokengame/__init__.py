"""A game built to break the contract (``tests/core/test_contract.py``): the toy game, but its
chunks draw from an unseeded generator instead of the stream the runner hands them."""

from simcards.core.gameapi import command_functions
from simcards.core.registry import Game

GAME = Game(
    name="broken",
    help="A game that breaks the contract (tests only).",
    cli="brokengame.cli:app",
    example=("deals", "--players", "3", "--deals", "200k"),
    example_long=("deals", "--players", "3", "--deals", "2G"),
)

COMMANDS = ("deals",)

__getattr__, __dir__ = command_functions(__name__, COMMANDS)
