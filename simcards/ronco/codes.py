"""The integer codes Ronco's kernels dispatch on, declared once.

Rule switches and policy kinds reach numba as plain integers; every module (rules, policies,
kernels, exact solvers) takes its codes from here, so a code can never mean one thing in the
kernel and another in the configuration. Module-level ints are compile-time constants to numba.
The values are part of the kernels' calling convention: changing one changes the code
fingerprint, and so every run key.
"""

# R7: what a top-rank cut card does to the dealer.
CUT_KING_LOSES = 0
CUT_KING_BLOCKED = 1
CUT_KING_NONE = 2

# R8: who loses a tie for lowest.
TIES_ALL = 0
TIES_FIRST = 1

# G6: what an absolute tie does to the game.
ABSOLUTE_TIE_VOID = 0
ABSOLUTE_TIE_REPLAY = 1

# S1-S6: policy kinds.
THRESHOLD = 0
INFORMED = 1
RANDOM = 2
BAYES = 3
USER = 4
CHART = 5

# S4: the span of the public history's base-3 code in a bayes lookup key (up to 20 players).
BAYES_HIST_SPAN = 3**19

# Flags returned by the round's resolution.
FLAG_ALL_TIE = 1
FLAG_CUT_KING_FIRED = 2
FLAG_CUT = 4

# How a game ended (G6, G7, and the guard against endless replays).
ENDING_WON = 0
ENDING_VOID = 1
ENDING_ALL_OUT = 2
ENDING_STALLED = 3
