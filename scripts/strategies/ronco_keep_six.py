"""A Ronco strategy of one's own (rule S5): keep a 6 or better, but once a refusal has shown
that an earlier player holds a Rey (R4), keep only a 7 or better; as the dealer, cut below 5.

Play it in any seat with ``--policies``, or at every seat with ``--policy``::

    simcards ronco rounds --players 4 \\
        --policies scripts/strategies/ronco_keep_six.py:keep_six,threshold,threshold,threshold

The function reads the ``ronco_v0`` observation through the readers of
:mod:`simcards.ronco.observation_kernel`; strengths are classes, weakest first (under
``spanish40`` the values 1-7, 10, 11, 12 are the classes 0-9).
"""

from simcards.ronco.observation_kernel import KEEP, PASS, card, is_dealer, refused_before

SIX = 5
"""The class of the value 6 (spanish40)."""


def keep_six(obs, legal):
    """0 keep, 1 pass (the dealer: cut)."""
    c = card(obs)
    if is_dealer(obs):
        return KEEP if c >= SIX - 1 else PASS
    if refused_before(obs):
        return KEEP if c >= SIX + 1 else PASS
    return KEEP if c >= SIX else PASS
