"""A Ronda strategy of one's own (rule Q11): play as ``greedy`` (Q3), but as the dealer keep a
Rey for the hand's last card, which is the dealer's (D3, D4): a Rey that captures with it earns
the dealer's side 10 points (L1). In the last deal (the stock is empty) the dealer plays a Rey
only as his last card, or when he holds nothing else; otherwise he plays greedy's choice among
his other cards.

Play it in any seat with ``--policies``::

    simcards ronda hands --policies scripts/strategies/ronda_hold_rey.py:hold_rey,greedy

The function reads the ``ronda_v0`` observation through the readers of
:mod:`simcards.ronda.observation_kernel`, and leaves every other decision to its ``greedy``.
Like every policy of this kind it keeps no memory between decisions.

Measured against ``greedy`` (two players, the dealer drawn, 1M hands, the same seed, so the
same deals: a seat of one's own draws nothing from a hand's chance, as greedy)::

    simcards ronda hands --policies scripts/strategies/ronda_hold_rey.py:hold_rey,greedy \
        --hands 1M --seed 20261204
    simcards ronda hands --policies greedy --hands 1M --seed 20261204

it makes 7.845 [7.833, 7.856] points per hand where greedy in its seat made 7.840 [7.829,
7.851], but the other seat's rise from 7.841 [7.830, 7.851] to 8.616 [8.604, 8.627], and its
hand win rate falls from 0.478 [0.477, 0.479] to 0.448 [0.447, 0.449] (95% intervals): a Rey
kept to the end often captures nothing there, and then pays every other side 10 (L2).
"""

from simcards.ronda.observation_kernel import (
    HAND,
    MARK_DEALER,
    greedy,
    last_card_of_hand,
    mark,
    stock_left,
)

REY = 36
"""The first card id of the value 12 (Rey): ids 36 .. 39."""


def hold_rey(obs, legal):
    """The card id to play."""
    card = greedy(obs, legal)
    if card < REY or mark(obs, MARK_DEALER) != 0 or stock_left(obs) > 0 \
            or last_card_of_hand(obs):
        return card
    others = legal.copy()
    seen = obs.copy()
    for c in range(REY, REY + 4):
        others[c] = 0
        seen[HAND + c] = 0.0
    for c in range(REY):
        if others[c]:
            return greedy(seen, others)
    return card
