"""The integer codes Römi's kernels and Python share, declared once.

Scores, the turn limit, policy kinds, the rule vector and the slots of the engine's workspace,
table melds, move rows and expert view reach numba as plain integers; the rules, the engines,
the records and the tests take them from here, so a code can never mean one thing in the kernel
and another in Python. Module-level ints are compile-time constants to numba. The values are
part of the kernels' calling convention.
"""

# ---------------------------------------------------------------- scores and limits (seeds/romi.md)

GO_OUT = -10
"""G2: the score of going out."""
ROMI = -20
"""G3: the score of opening and going out in one turn with one's own melds."""
NEVER_OPENED = 100
"""G5: the score of a player who has not opened when the round ends."""
STALL_TURNS = 1000
"""T9: a round reaching this many turns is stopped and scored as it stands."""

# ---------------------------------------------------------------- policy kinds (Q2-Q5)
# A seat's kind code, with its one parameter (:func:`simcards.romi.policies.policy_arrays`).

POLICY_GREEDY = 0  # Q2
POLICY_RUMMY = 1  # Q3: parameter K
POLICY_THRESHOLD = 2  # Q4: parameter X
POLICY_EXPERT = 3  # Q5
POLICY_SEARCH = 4  # Q7: parameter N, samples per candidate
POLICY_SEEING = 5  # Q8: parameter N; sees the hidden cards, no legal player

# ---------------------------------------------------------------- scalars of the workspace's ``st``

S_DEALER = 0
S_TURN = 1  # player to move
S_TURNS = 2  # turns played (T9)
S_POS = 3  # stock[pos:end] is the stock, top first
S_END = 4
S_PN = 5  # cards in the discard pile
S_CUT = 6  # the cut card (D3), -1 once taken
S_NM = 7  # melds on the table
S_OUT = 8  # player who went out, -1
S_ROMI = 9  # 1 when he went out for -20 (G3)
S_STALLED = 10  # 1 when the round was stopped (T8, T9)
S_SHUF = 11  # reshuffles (T8)
S_SIZE = 12

# ---------------------------------------------------------------- table meld fields (``tm[m]``)

TM_OWNER = 0
TM_RUN = 1  # 1 run, 0 set
TM_SUIT = 2  # run: its suit
TM_RANK = 3  # set: its rank 1 .. 13
TM_LO = 4  # run: lowest place (1 = As below the 2)
TM_HI = 5  # run: highest place (14 = As above the King)
TM_JP = 6  # run: the joker's place, 0 none
TM_JID = 7  # the joker's card id, -1 none
TM_MASK = 8  # set: bit mask of its real suits
TM_SIZE = 9
TC_SIZE = 15  # ``tc[m]``: the real card at each place 1 .. 14 of a run, or of each suit of a set

# ---------------------------------------------------------------- move rows (records and plans)
# One row per move; :func:`simcards.romi.records.decode_moves` reads them as actions.

MV_P = 0  # the player
MV_CODE = 1  # what he does: one of the MV_* codes below
MV_TARGET = 2  # the table meld laid, added to or swapped in (its number), -1 none
MV_CARD = 3  # the card added, swapped in or discarded, -1 none
MV_STANDS = 4  # the kind a joker stands for, -1 none
MV_N = 5  # cards of a laid meld
MV_C0 = 6  # MV_C0 .. MV_C0 + 13: a laid meld's cards, in meld order
MW = MV_C0 + 14  # width of a row

MV_DRAW_STOCK = 0  # T2
MV_DRAW_DISCARD = 1  # T2-T4
MV_DRAW_CUT = 2  # D3
MV_OPEN = 3  # O1: one row per meld of the opening; consecutive rows form one Open
MV_LAY = 4  # T6
MV_ADD = 5  # T6
MV_SWAP = 6  # J1
MV_DISCARD = 7  # T7, G1

# ---------------------------------------------------------------- the expert's view (Q5), ``ps[8]``
# Set by the engine's turn from public information only.

X_ON = 0  # 1 when the player to move plays expert
X_NEXT_OPEN = 1  # 1 when the next player in play order has opened
X_PILE = 2  # X_PILE + kind: copies of each kind (52 = joker) in the discard pile
X_SEEN = 64  # X_SEEN + kind: scratch, the copies seen outside the hand (pile and table)
X_CAND = 128  # scratch per candidate discard: its kind,
X_BV0 = 192  # best_value of the hand without it,
X_MP0 = 256  # min_penalty of the hand without it,
X_PRO = 320  # its prospect from the cards d in no meld of the hand with d,
X_LIVE = 384  # and from the others (a bound above it while X_EXACT is 0),
X_EXACT = 448  # 1 when that is exact, 0 a bound, -1 out of the running (it feeds, another not)
X_D = 512  # X_D + X_DW * i: the i-th card d in a meld of the hand with d: kind, unseen copies,
X_DW = 5  # first row and rows of its melds (``expert_kernel.XR_*``), 1 when it fits the table
X_CTX = 784  # scratch of one discard: jokers held, memo key and stamp of the hand, its penalty
X_TS = 792  # four slots: the other cards of a meld being listed
X_FITS = 800  # X_FITS + kind: 1 when a card of that kind can be added to a table meld (T6)
X_SIZE = 852
