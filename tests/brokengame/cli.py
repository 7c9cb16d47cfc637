"""``simcards broken deals``: the toy game's command over the broken chunk."""

from brokengame import api
from toygame.cli import command_app

app = command_app(api.deals, "A game that breaks the contract (tests only).")
