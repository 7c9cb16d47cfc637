"""Römi húngaro: the two-deck rummy with jokers (rules in seeds/romi.md); cards, rules and the
exact meld solver. Not registered as a game yet."""
