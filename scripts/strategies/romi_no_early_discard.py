"""A Römi strategy of one's own (rule Q9): play as ``expert`` (Q5), but never take the top
discard before opening; draw from the stock instead.

Play it in any seat with ``--policies``, or against ``expert`` with ``compare``::

    simcards romi compare scripts/strategies/romi_no_early_discard.py:no_early_discard \\
        expert --players 2 --rounds 1 --deals 2000 --seed 1

gives (4,000 rounds, about two minutes on one core): A minus B, paired over deal sets, score
per round +6.21 [+5.23, +7.19] and game win rate -0.107 [-0.132, -0.081]. Scores are points
against a player, so refusing the top discard before opening concedes some six points a round
more than ``expert`` at two players: the discard ``expert`` takes at its first draw (T3) or to
meld it (T4) is worth having. At four players (``--players 4 --deals 300``, 1,200 rounds,
about a minute) the gap is wider: +11.19 [+9.18, +13.19] points per round, game win rate per
seat -0.071 [-0.095, -0.047], and the seat never opens in 0.24 of its rounds (expert: 0.14).

It runs on the table engine, the ``romi_v0`` environment's engine, asked for each action
code with the seat's observation and action mask; :mod:`simcards.romi.observation_kernel` reads the
observation and names the codes, :mod:`simcards.romi.policy_functions` gives the built-in
policies' codes.
"""

from simcards.romi.observation_kernel import DRAW_DISCARD, DRAW_STOCK, i_opened
from simcards.romi.policy_functions import expert


def no_early_discard(obs, legal):
    """Expert's code, with the stock in place of the top discard until this seat opens."""
    move = expert(obs, legal)
    if move == DRAW_DISCARD and not i_opened(obs):
        return DRAW_STOCK
    return move
