"""High card: a one-card toy game that plugs into simcards without touching its shared code.

Each player is dealt one card of the 40-card Spanish deck; the single highest rank wins, a tie
for highest is a draw. It exists to prove that a game is one package plus one registration: it
gets a CLI group (``simcards toy deals``), a run store with resume, cluster runs and a report
study from the shared machinery alone. Load it with ``SIMCARDS_GAMES=toygame``.

Exact answer: with n players, P(tie for highest) has a closed form (see :func:`exact_win`).
"""

from simcards.core.registry import Game

GAME = Game(
    name="toy",
    help="High card: the toy game of the tests.",
    cli="toygame.cli:app",
    studies={"toy-highcard": "toygame.report:build"},
    warmups=("toygame.kernel:warm",),
    policy_kinds="toygame.kernel:KINDS",
)
