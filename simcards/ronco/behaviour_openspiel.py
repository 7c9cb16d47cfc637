"""The second, independent solve of rule E7: OpenSpiel's sequence-form linear program on the
registered game ``simcards_ronco_duel`` (:data:`simcards.ronco.table.DUEL`).

:mod:`simcards.ronco.behaviour_exact` builds the round from strength classes and solves it in
fractions; here OpenSpiel walks the registered game's tree itself (every card of the deck dealt
by explicit chance, information sets from the game's information-state strings) and solves
Koller, Megiddo and von Stengel's sequence-form program in floats (cvxpy with ECOS). Nothing is
shared but the rules: agreement of the two values checks the game tree, the information
structure and both solvers at once. The walk visits every deal of three cards (about 60,000
with a 40-card deck) in Python, copying a state per child (``Cursor.__deepcopy__``: the
table state's own clone), so it takes about fifteen seconds.
"""

from __future__ import annotations

import time
from collections import defaultdict
from fractions import Fraction
from typing import Any

from simcards.core.errors import UsageError
from simcards.ronco.rules import RoncoRules

AGREEMENT = 1e-6
"""How close OpenSpiel's float value must come to the exact one (ECOS's default tolerances
are about 1e-8)."""

MISSING = ("--openspiel needs OpenSpiel, which is not installed: install the rl extra from the "
           "clone (pip install -e '.[rl]')")
"""Why ``--openspiel`` is refused where OpenSpiel (or the linear-program solver it uses) is
missing."""


def require() -> None:
    """Refuse ``--openspiel`` (:data:`MISSING`) before anything is solved when OpenSpiel
    cannot be imported: like every flag a command could not honour, it is bad input, not a
    notice after the work."""
    try:
        import pyspiel  # noqa: F401
        from open_spiel.python.algorithms import sequence_form_lp  # noqa: F401

        import simcards.openspiel  # noqa: F401  (registers the games)
    except ImportError:
        raise UsageError(MISSING) from None


def _mean_by(groups: dict[Any, list[float]]) -> list[dict[str, Any]]:
    out = []
    for key in sorted(groups, key=lambda k: tuple(-1 if x is None else x for x in k)):
        probs = groups[key]
        out.append({"key": key, "keep": float(sum(probs) / len(probs)),
                    "same_for_every_suit": bool(max(probs) - min(probs) < 1e-6)})
    return out


def solve(rules: RoncoRules, exact_value: Fraction) -> dict[str, Any]:
    """OpenSpiel's value of the two-player round (position 0's probability of losing), its
    agreement with ``exact_value``, and both positions' keep probabilities by card value (and,
    for the dealer, what he saw), averaged over the suits. Without OpenSpiel,
    :func:`require`'s :class:`UsageError`."""
    require()
    import pyspiel
    from open_spiel.python.algorithms import sequence_form_lp

    start = time.perf_counter()
    game = pyspiel.load_game("simcards_ronco_duel", {
        "deck": rules.deck, "cut_king": rules.cut_king, "ties": rules.ties,
        "poroli": rules.poroli})
    v0, _v1, pol0, pol1 = sequence_form_lp.solve_zero_sum_game(game)
    p_lose = (1.0 - float(v0)) / 2.0
    pos0: dict[Any, list[float]] = defaultdict(list)
    dealer: dict[Any, list[float]] = defaultdict(list)
    for pol, player, into in ((pol0, 0, pos0), (pol1, 1, dealer)):
        for state in pol.states:
            if state.current_player() != player:
                continue
            probs = pol.action_probabilities(state)
            keep = float(probs.get(0, 0.0))
            rs = state.cursor.state
            values = rs.table.values
            if player == 0:
                into[(int(values[rs.cards[0]]),)].append(keep)
            else:
                after = ("kept", "swap", "refused")[rs.acts[0]]
                gave = int(values[rs.dealt[1]]) if after == "swap" else None
                into[(after, int(values[rs.cards[1]]), gave)].append(keep)
    return {
        "game": "simcards_ronco_duel",
        "solver": "open_spiel.python.algorithms.sequence_form_lp (cvxpy, ECOS)",
        "value": p_lose,
        "agrees": bool(abs(p_lose - float(exact_value)) < AGREEMENT),
        "difference": p_lose - float(exact_value),
        "position0": [{"card": k[0], "keep": round(v["keep"], 9),
                       "same_for_every_suit": v["same_for_every_suit"]}
                      for v in _mean_by(pos0) for k in [v["key"]]],
        "dealer": [{"after": k[0], "card": k[1], "gave": k[2], "keep": round(v["keep"], 9),
                    "same_for_every_suit": v["same_for_every_suit"]}
                   for v in _mean_by(dealer) for k in [v["key"]]],
        "seconds": round(time.perf_counter() - start, 1),
    }
