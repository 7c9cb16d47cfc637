"""High card: a one-card toy game that plugs into simcards without touching its shared code.

Each player is dealt one card of the 40-card Spanish deck; the single highest rank wins, a tie
for highest is a draw. It exists to prove that a game is one package plus one registration: it
gets a CLI group (``simcards toy deals``), a run store with resume, cluster runs and a report
study from the shared machinery alone. Load it with ``SIMCARDS_GAMES=toygame``.

Exact answer: with n players, P(tie for highest) has a closed form (see
:func:`toygame.deal_kernel.exact_win`).
"""

from simcards.core.gameapi import command_functions
from simcards.core.registry import Game

GAME = Game(
    name="toy",
    help="High card: the toy game of the tests.",
    cli="toygame.cli:app",
    studies={"toy-highcard": "toygame.reports.highcard:build"},
    warmups=("toygame.deal_kernel:warm",),
    policy_kinds="toygame.deal_kernel:KINDS",
    example=("deals", "--players", "3", "--deals", "200k"),
    example_long=("deals", "--players", "3", "--deals", "2G"),
)

COMMANDS = ("deals",)
"""The commands, each a function of ``toygame.api``."""

__getattr__, __dir__ = command_functions(__name__, COMMANDS)
