"""The integer codes Ronda's kernels dispatch on, declared once.

Rule switches, policy kinds, sources of points and the kinds of play reach numba as plain
integers; the rules, the kernels and their tests take them from here, so a code can never mean
one thing in the kernel and another in the configuration. Module-level ints are compile-time
constants to numba. The values are part of the kernels' calling convention.
"""

# ---------------------------------------------------------------- options (seeds/ronda.md)

# D2: sides.
TEAMS_OFF = 0
TEAMS_ON = 1

# X6/X7: points of the hits of a chain.
CHAIN_FLAT = 0
CHAIN_TIERS = 1

# A1: which deals announce.
ANNOUNCE_FIRST_DEAL = 0
ANNOUNCE_EVERY_DEAL = 1

# A4/A5: conflicts between announcements of one deal.
CONFLICT_TEXT = 0
CONFLICT_HIGHEST_TAKES_ALL = 1

# S4/S5: when the target is checked (a match-level switch; one hand ignores it).
TARGET_CHECK_END_OF_HAND = 0
TARGET_CHECK_IMMEDIATE = 1

# C1: what scores.
MODE_POINTS = 0
MODE_CLASSIC = 1

MAX_DEALS = 5  # D4: two players deal five times
MAX_HAND = 4  # D4: at most four cards per deal

# ---------------------------------------------------------------- policies (Q2 .. Q5, Q8 .. Q10)
# Every kind from POLICY_LOOKAHEAD on searches, and its seat gets its own stream for the hand
# (I3); all but POLICY_SEEING draw from it. POLICY_SEEING (Q9) is no legal player: it reads
# the hidden cards (I2) from the kernel's full state.

POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_LOOKAHEAD = 2
POLICY_ROLLOUT = 3
POLICY_ISMCTS = 4
POLICY_SEEING = 5
POLICY_ISMCTS_MATCH = 6  # Q10: Q8 backing up the match result where the match is at stake
POLICY_USER = -1  # Q11: a player's own function of the observation; below POLICY_RANDOM so
# that, as greedy, it draws nothing from a hand's chance (no uniform, no stream of its own)

# ---------------------------------------------------------------- sources of points (S2)
# Same order as the reference engine's SOURCES. Re-hits are booked under SRC_DERBA (X4);
# Ultima has no source of its own (U1).

SRC_RONDA = 0
SRC_TRINGLA = 1
SRC_DERBA = 2
SRC_MISSA = 3
SRC_LAST_CARD = 4
SRC_CARDS = 5
N_SOURCES = 6
SOURCES = ("ronda", "tringla", "derba", "missa", "last_card", "cards")

# A2: kinds of announcement (strength: Tringla beats Ronda, A3).
KIND_RONDA = 0
KIND_TRINGLA = 1

# ---------------------------------------------------------------- what one play did

ACT_CAPTURE = 0  # P2/P5: plain capture
ACT_DERBA = 1  # X1: Derba, opens a pile in play
ACT_REHIT = 2  # X4: re-hit on the pile in play
ACT_LAY = 3  # P3: laid on the table
ACTIONS = ("capture", "derba", "rehit", "lay")

# Fields of one row of replay's play log.
F_PLAYER = 0
F_CARD = 1
F_ACTION = 2  # ACT_*
F_TAKEN = 3  # bit mask of the cards taken from the table (P2 run)
F_N_TAKEN = 4
F_CLOSED = 5  # cards of the pile closed by X5a before the card acted (0: none)
F_CLOSED_TO = 6  # side the X5a pile went to, -1 if none
F_HIT = 7  # 0, or the hit number in the chain (1 = the Derba)
F_CHAIN_CLOSED = 8  # X5b fired
F_MISSA = 9  # M1 (flagged in classic mode too)
F_LAST = 10  # the last play of the hand
N_FIELDS = 11


# ---------------------------------------------------------------- the observation (I1)

# The offsets of the ronda_v0 / ronda_match_v0 observation's fields
# (simcards.ronda.table.OBSERVATION_FIELDS), read by the table engine that writes it for the
# environments and by the kernels that keep it up to date for a player's own function (Q11).
OBS_CARDS = 40
OBS_MAX_SEATS = 4
OBS_MAX_DEALS = 5
OBS_HAND = 0
OBS_TABLE = 40
OBS_PILE = 80
OBS_PREVIOUS = 120
OBS_PLAYED = 160
OBS_CAPTURED = OBS_PLAYED + OBS_MAX_SEATS * OBS_CARDS
OBS_SIZES = OBS_CAPTURED + OBS_MAX_SEATS * OBS_CARDS
OBS_ANNOUNCED = OBS_SIZES + OBS_MAX_SEATS
OBS_MARKS = OBS_ANNOUNCED + 2 * OBS_MAX_SEATS
OBS_SCORES = OBS_MARKS + 4 * OBS_MAX_SEATS
OBS_POINTS = OBS_SCORES + OBS_MAX_SEATS
OBS_DEAL = OBS_POINTS + OBS_MAX_SEATS
OBS_STOCK = OBS_DEAL + OBS_MAX_DEALS
OBS_TO_PLAY = OBS_STOCK + 1
OBS_WON = OBS_TO_PLAY + 1
OBS_SIZE = OBS_WON + OBS_MAX_SEATS
