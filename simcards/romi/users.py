"""Users' own functions at a Römi table (Q9): a seat of the table engine that asks the
function for each action code, exactly as the ``romi_v0`` environment would.

Why the table engine. The compiled engine (:mod:`simcards.romi.round_kernel`) plans a whole
turn at once; a user's function, like an agent of the environment, picks one action code at a
time (a draw, a discard, one meld shape of an opening being composed, ``OPEN_DONE``, one
addition or swap). So a run with a user seat plays every seat on
:class:`~simcards.romi.table.RomiTable` (:mod:`simcards.romi.table_batch`), and the user seat
is asked with the seat's observation (:meth:`~simcards.romi.table.RomiTable.observation`, with
the codes of an opening named so far) and the environment's action mask: the codes that
continue a legal move. Nothing else is passed (I3), and the function keeps no memory between
decisions. A function that raises or returns a code the mask does not allow stops the run in
one line (:func:`simcards.core.engines.ask`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from simcards.core.engines import ask
from simcards.core.policyspec import PolicySpec
from simcards.core.userpolicy import UserPolicy
from simcards.romi import table_codes as T

ACTIONS = "an action code of romi_v0 whose action_mask entry is 1"
"""What the legal actions of a Römi seat are, as an illegal action's error names them."""


def legal_codes(moves: Any, pending: tuple[int, ...]) -> list[int]:
    """The codes that continue a legal move's path after ``pending`` (the environment's
    :meth:`~simcards.core.table.Cursor.legal_codes`), sorted."""
    k = len(pending)
    if k == 0:
        return sorted({p[0] for p in moves})
    return sorted({p[k] for p in moves if len(p) > k and p[:k] == pending})


class UserSeat:
    """A table-engine seat (``(state, rng) -> move``) that asks a user's function (Q9) for
    each code of its move and returns the whole move once its path is complete."""

    def __init__(self, user: UserPolicy) -> None:
        self.user = user
        self.fn = user.function()

    def __call__(self, state: Any, rng: random.Random) -> Any:
        seat = state.current_player()
        moves = state.moves()
        pending: tuple[int, ...] = ()
        while True:
            mask = np.zeros(T.N_ACTIONS, np.int8)
            mask[legal_codes(moves, pending)] = 1
            code = ask(self.fn, self.user, state.observation(seat, pending), mask,
                       f"seat {seat}", ACTIONS)
            path = (*pending, code)
            if path in moves:
                return moves[path]
            pending = path


def user_digests(specs: Sequence[PolicySpec]) -> dict[str, str]:
    """Each user function of ``specs`` (by its ``PATH.py:FUNCTION``) and its digest, for the
    answer's header and so the run's key: an edited file is a new run."""
    return {s.user.text(): s.user.digest for s in specs if s.user is not None}
