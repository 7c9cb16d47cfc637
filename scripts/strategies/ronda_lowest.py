"""The simplest Ronda strategy of one's own (rule Q11): play the lowest card of the hand, in
card order (the ``ronda_v0`` card ids). It reads nothing but the action mask, so it is the
floor of what a seat of one's own costs in the hand kernel: the benchmark
``scripts/bench_ronda_users.py`` times it against ``greedy``, and the tests run it on both
engines::

    simcards ronda hands --policies scripts/strategies/ronda_lowest.py:lowest,greedy
"""


def lowest(obs, legal):
    """The lowest card of the hand (card order)."""
    for c in range(40):
        if legal[c]:
            return c
    return -1
