"""One concrete Ronco position, as the advisor reads it (``simcards ronco advise``).

A seat's position in a round is everything it knows when it acts (S4a, R11): the table size,
its position, the card it holds, the public action of every earlier position (``keep``,
``swap`` or ``refused``, R2-R4) and, when the previous position swapped with it, the card it was
dealt (R3). It is one situation of a keep chart (S6) plus the card held.

:func:`read_seat` checks the position against the rules and refuses, in one line naming the
contradiction, a position no deal can lead to; whether the *others' policies* can lead to it
is the advisor's question (:mod:`simcards.ronco.advise_exact`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from simcards.core.cards import parse_card
from simcards.core.errors import UsageError
from simcards.ronco.charts import ACTIONS
from simcards.ronco.rules import RoncoRules, check_players

KEEP, SWAP, REFUSED = range(3)
"""The public actions by digit, as the decision tables number them (charts.ACTIONS)."""


@dataclass(frozen=True)
class Seat:
    """A position: strengths (C2, C4) for the cards, -1 for no dealt card."""

    players: int
    position: int
    card: int
    before: tuple[int, ...]
    dealt: int
    card_text: str
    dealt_text: str | None

    @property
    def hist(self) -> int:
        """The history as the decision tables key it (base 3, position 0 first)."""
        h = 0
        for d in self.before:
            h = h * 3 + d
        return h

    @property
    def dealer(self) -> bool:
        return self.position == self.players - 1

    def text(self) -> str:
        role = "the dealer" if self.dealer else f"seat {self.position}"
        seen = " ".join(ACTIONS[d] for d in self.before) or "nothing yet"
        dealt = f", dealt {self.dealt_text}" if self.dealt_text else ""
        return f"{role} of {self.players} holding {self.card_text}, seen {seen}{dealt}"


def _card(rules: RoncoRules, text: str, flag: str) -> tuple[int, int, str]:
    """``(card index, strength, card as written back)`` of ``text``: the suit is read (the
    same card cannot be named twice, and the Poroli card is a suit's ace, C4) and otherwise
    ignored, since suits do not rank (C2)."""
    deck = rules.deck_obj
    try:
        i = parse_card(deck, text)
    except ValueError as exc:
        raise UsageError(f"{flag}: {exc}") from None
    return i, int(rules.strengths[i]), deck.text(i)


def _actions(before: str | Sequence[str] | None) -> list[str]:
    if before is None:
        return []
    words = before.replace(",", " ").split() if isinstance(before, str) else list(before)
    return [str(w).strip().lower() for w in words]


def read_seat(rules: RoncoRules, players: int, position: int, card: str,
              before: str | Sequence[str] | None = None, dealt: str | None = None) -> Seat:
    """The position, checked against the rules (T1, R2-R4, C1-C4)."""
    check_players(players)
    if not 0 <= position < players:
        raise UsageError(f"--seat {position}: a table of {players} has seats 0 to "
                         f"{players - 1} in the round's order (the dealer is {players - 1})")
    words = _actions(before)
    for w in words:
        if w not in ACTIONS:
            raise UsageError(f"--before: {w!r} is not {', '.join(ACTIONS)} (a pass is public as "
                             "swap, or refused when the next position holds the top rank, R4)")
    if len(words) != position:
        raise UsageError(f"--before gives {len(words)} actions; seat {position} has seen "
                         f"{position} (one per earlier seat, seat 0's first)")
    digits = tuple(ACTIONS.index(w) for w in words)
    held, strength, card_text = _card(rules, card, "--card")
    top = rules.top
    top_cards = int(rules.strength_counts[top])
    last = digits[-1] if digits else None
    if last == REFUSED and strength != top:
        raise UsageError(f"--card {card_text}: seat {position - 1}'s pass was refused, so "
                         f"you hold the top rank {top} (R4)")
    refusals = digits.count(REFUSED)
    if refusals > top_cards:
        raise UsageError(f"--before: {refusals} refusals, but each refuser holds the top rank "
                         f"and the deck has {top_cards} such cards (R4)")
    if strength == top and last != REFUSED and refusals + 1 > top_cards:
        raise UsageError(f"--card {card_text}: {refusals} earlier refusals hold the top rank "
                         f"(R4) and the deck has {top_cards} such cards, none left for you")
    dealt_strength, dealt_text = -1, None
    if last == SWAP:
        if dealt is None:
            raise UsageError(f"--dealt is needed: seat {position - 1} swapped with you, so "
                             "you know the card you were dealt (R3)")
        given, dealt_strength, dealt_text = _card(rules, dealt, "--dealt")
        if given == held:
            raise UsageError(f"--dealt {dealt_text}: the card you hold; a card cannot be "
                             "dealt twice")
        if dealt_strength == top:
            raise UsageError(f"--dealt {dealt_text}: a top-rank card refuses every swap (R4), "
                             "so it cannot have been swapped away")
    elif dealt is not None:
        why = ("nobody acts before seat 0" if position == 0 else
               f"seat {position - 1} {'kept' if last == KEEP else 'was refused'}")
        raise UsageError(f"--dealt: only a swap by the previous seat deals you a card you "
                         f"no longer hold (R3), and {why}")
    return Seat(players, position, strength, digits, dealt_strength, card_text, dealt_text)
