"""Find Ronco positions where the lives left change the advice (``simcards ronco advise
--lives``): for every situation and card of a small table, against the field, the action that
loses the round least (S4) and the one that wins the game most, over a few lives vectors.

    PYTHONPATH=$PWD .venv/bin/python scripts/ronco_advise_search.py [players] [max lives]

Prints each position where they differ, with both actions' probabilities, largest game gain
first. tests/ronco/test_advise.py pins one of them.
"""

from __future__ import annotations

import itertools
import sys

import numpy as np

from simcards.core.errors import UsageError
from simcards.ronco import advise
from simcards.ronco.charts import ACTIONS, situations
from simcards.ronco.rules import RoncoRules


def card_text(rules: RoncoRules, strength: int, avoid: str | None = None) -> str:
    deck = rules.deck_obj
    for i in range(len(deck)):
        if int(rules.strengths[i]) == strength and deck.text(i) != avoid:
            return deck.text(i)
    raise ValueError(strength)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    top_lives = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    rules = RoncoRules.make()
    sit = situations(rules, n)
    found = []
    for lives in itertools.product(range(1, top_lives + 1), repeat=n):
        for r in range(sit.size):
            pos, hist, dealt = sit.key(r)
            before = ",".join(ACTIONS[(hist // 3**(pos - 1 - j)) % 3] for j in range(pos))
            dealt_text = card_text(rules, dealt) if dealt >= 0 else None
            for j in np.flatnonzero(sit.possible[r]):
                card = card_text(rules, int(sit.strengths[j]), dealt_text)
                try:
                    out = advise(players=n, seat=pos, card=card, before=before or None,
                                 dealt=dealt_text, lives=list(lives)).to_dict()
                except UsageError:
                    continue  # the field never leads there
                if out["game_differs"]:
                    found.append((out["by_game"], lives, out))
    found.sort(key=lambda f: -f[0])
    for gain, lives, out in found[:20]:
        moves = "; ".join(f"{m['action']} p_lose {m['p_lose']:.6f} p_win {m['p_win']:.6f}"
                          for m in out["moves"])
        print(f"lives {lives}: {out['situation']}: round {out['best']}, game "
              f"{out['best_game']} (+{gain:.6f}): {moves}")
    print(f"{len(found)} positions differ")


if __name__ == "__main__":
    main()
