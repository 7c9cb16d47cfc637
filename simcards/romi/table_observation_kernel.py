"""The table engine's observation (:meth:`simcards.romi.table.RomiTable.observation`): its
counted and per-seat fields filled in one compiled pass, so that building it costs no Python
loop over cards, melds or seats.

The state's numbers come as one byte string of *segments* separated by the byte
:data:`SEPARATOR` (card ids are 0 .. 107, every other number here is below 255 too), in this
order:

* the counted segments, one per ``starts`` entry in use: the player's hand, the discard pile,
  the cards known to be in the hands of relative seats 1 .. n-1, then the cards of each table
  meld (``n_melds`` of them, in table order); each card adds one to ``out[start + kind]`` (M3,
  M4: no kind twice in one meld, so a meld's kinds are ones);
* the table melds' owners (absolute seats), and the kind each meld's joker stands for plus one
  (0: no joker);
* the hand sizes, ``opened`` and ``has_drawn`` of the absolute seats 0 .. n-1.

``at`` holds the layout's numbers (:data:`TABLE_AT` ..): the table's offset, a table slot's
length, the offset of ``hand_sizes`` (``opened`` and ``has_drawn`` follow it, ``n`` entries
each), ``n``, then the start of each counted segment. An empty segment is two separators in a
row."""

from __future__ import annotations

import numpy as np
from numba import njit

SEPARATOR = 255
"""The byte between two segments (no number of the state reaches it)."""

N_KINDS = 53
"""Card kinds, the joker's included (:data:`simcards.romi.table_codes.N_KINDS`)."""
JOKER0 = 104
"""The first joker's id (:data:`simcards.romi.cards.JOKER0`); a card's kind is its id modulo
52 below it, 52 from it on (:func:`simcards.romi.cards.kind`)."""

TABLE_AT, SLOT, SIZES_AT, PLAYERS, STARTS = range(5)
"""The entries of ``at`` (the counted segments' starts from ``STARTS`` on)."""


@njit(cache=True)
def fill(out, data, at, player, n_melds):
    """Write the fields the module text lists into ``out`` (zeros there) from ``data``
    (uint8)."""
    n = at[PLAYERS]
    counted = 2 + (n - 1) + n_melds
    seg = 0
    j = 0
    one = np.float32(1.0)
    for i in range(data.shape[0]):
        c = data[i]
        if c == SEPARATOR:
            seg += 1
            j = 0
            continue
        if seg < counted:
            kind = N_KINDS - 1 if c >= JOKER0 else c % (N_KINDS - 1)
            out[at[STARTS + seg] + kind] += one
        elif seg == counted:  # owner of meld j
            out[at[TABLE_AT] + j * at[SLOT] + 2 * N_KINDS - 1 + (c - player + n) % n] = one
        elif seg == counted + 1:  # the kind meld j's joker stands for, plus one
            if c > 0:
                out[at[TABLE_AT] + j * at[SLOT] + N_KINDS + c - 1] = one
        else:  # hand sizes, opened, has_drawn of seat j
            out[at[SIZES_AT] + (seg - counted - 2) * n + (j - player + n) % n] = c
        j += 1
