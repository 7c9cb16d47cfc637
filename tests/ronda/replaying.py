"""Playing recorded kernel hands again in the reference engine, decision by decision: the
loop that the search players' agreement tests (``test_search.py``, ``test_ismcts.py``,
``test_seeing.py``) share.

Each configuration names its rules and one policy per seat; the kernel records its hands
(``record_hands``) and plays them, then :func:`replay_in_reference` walks the same hands in
``reference.HandState``, asks the reference for every decision (``random`` from the kernel's
uniform, ``greedy`` by Q3, a searching seat through the test's own ``search``) and requires
the kernel's card each time, every card legal (P1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from simcards.ronda import codes, search_kernel
from simcards.ronda import reference as ref
from simcards.ronda.rules import RondaRules


@dataclass(frozen=True)
class Config:
    """One agreement configuration: its id, ``RondaRules.make`` options and seat policies."""

    name: str
    options: dict
    specs: tuple[str, ...]


Search = Callable[[int, int, int, dict, "ref.HandState"], int]
"""``search(hand, play, seat, observation, state)``: the reference's card for a searching
seat."""


def replay_in_reference(rules: RondaRules, decks, dealers, us, plays, kinds,
                        search: Search) -> None:
    """Replay the kernel's ``plays`` (``record_hands``'s ``decks``, ``dealers`` and uniforms
    ``us``) in the reference engine, requiring its card at every decision."""
    options = ref.RondaOptions(**rules.summary())
    for h in range(len(decks)):
        state = ref.HandState(options, int(dealers[h]), [int(c) for c in decks[h]])
        k = 0
        while not state.is_terminal():
            p = state.current_player()
            obs = state.observation(p)
            kernel_card = int(plays[h, k, codes.F_CARD])
            assert int(plays[h, k, codes.F_PLAYER]) == p
            assert kernel_card in state.legal_actions()  # P1
            if kinds[p] == codes.POLICY_RANDOM:
                card = ref.random_policy(obs, float(us[h, k]))
            elif kinds[p] == codes.POLICY_GREEDY:
                card = ref.greedy_policy(obs)
            else:
                card = search(h, k, p, obs, state)
            assert card == kernel_card, (h, k, ref.card_name(card), ref.card_name(kernel_card))
            state.apply(card)
            k += 1


def mask_cards(mask: int) -> list[int]:
    """The cards (ids 0..39, ascending) of a 40-bit card mask."""
    return [c for c in range(40) if (int(mask) >> c) & 1]


def drawn_samples(meta_row, hands, stock, players: int, seat: int) -> list:
    """The samples one searching decision drew, as the kernel recorded them
    (``replay_searched``: its meta row, sampled hands as card masks, and stocks), in the
    reference's form: ``(other hands by seat, stock)`` per sample."""
    out = []
    first, count = int(meta_row[search_kernel.REC_FIRST]), int(meta_row[search_kernel.REC_COUNT])
    for k in range(first, first + count):
        hidden = {q: mask_cards(hands[k, q]) for q in range(players) if q != seat}
        out.append((hidden, [int(c) for c in stock[k] if c >= 0]))
    return out
