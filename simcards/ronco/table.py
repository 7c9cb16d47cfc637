"""Ronco as a game-AI state (:mod:`simcards.core.table`): one round (``ronco_v0``, OpenSpiel
``simcards_ronco``) and a whole game with lives (``ronco_game_v0``, ``simcards_ronco_game``).

The engine here is a step-by-step Ronco written from ``seeds/ronco.md`` (rule ids cited where
each rule is applied); ``tests/ronco/test_table.py`` holds it to the reference engine
(:mod:`simcards.ronco.reference`) deal by deal. The fixed-seat policies use the reference's own
decision rule (S1-S3), fed with what the acting player knows.

Actions. ``KEEP`` (0) and ``PASS`` (1); every move is one code. A non-dealer who passes offers
to swap with the next position (R2); a refusal (R4) is automatic, not a choice. For the dealer
``PASS`` means *cut* (R6). Both codes are always legal.

Chance. Each round's cards are drawn one at a time, each of the deck's cards not yet drawn
equally likely (T3): first the n cards dealt, position 0 first. The cut card is drawn only
when the dealer cuts, as one more such draw: the card under the n dealt ones is then exactly
as random as the (n+1)-th card of the shuffle, and until the dealer cuts it does not exist in
the state, so nothing can leak it. In a game the first dealer (G4) is a chance node of
``players`` equally likely seats unless ``first_dealer`` is fixed; every round is a new
shuffle, replayed rounds (G6 ``replay``) included.

What a player sees (R11). Every action is public: keeps, passes, refusals (which show that the
refuser holds the top rank, R4), the dealer's cut and the cut card, shown when he cuts (also
when ``cut_king=blocked`` leaves it on the deck: it has to be seen to be refused). After a swap
the two players involved know both cards. The rules say nothing of the end of the round; here
the cards are turned up when the round ends ("cartas arriba": the losers, R8, are found by
comparing every final card in the open), so at the end every final card is public. The
dealer's card discarded for the cut card stays hidden (from all but him, and the one who
swapped it to him).

Rewards. A round pays each position minus the lives it loses in it (G1): -1 for a loser, -2
for a Poroli double loss (R10), 0 otherwise, and 0 for everybody in an absolute tie (R9),
which costs no lives under either ``absolute_tie`` option (G6; the round still has its losers
in ``infos``, as R9 says). A game pays 1 to its winner (G7) and 0 to everybody else; a game
without a winner (G6 void, or all out in one round, G7) pays 0 to all.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from simcards.core.cards import Deck
from simcards.core.cli_options import check_seat, rule_integer
from simcards.core.errors import UsageError
from simcards.core.policyspec import flag_message
from simcards.core.switches import HAND, MATCH, MATCH_LEVEL, RuleSet
from simcards.core.table import CHANCE, TERMINAL, Param, Path, TableGame, TableState
from simcards.ronco import reference as ref
from simcards.ronco.policies import BAYES_TABLE, KINDS, UNIFORMS, parse_policy
from simcards.ronco.rules import MAX_PLAYERS, RoncoRules, check_players

KEEP = 0
"""Keep the card ("me planto", R2; the dealer: "cartas arriba", R6)."""
PASS = 1
"""Offer a swap to the next position (R2); for the dealer: cut (R6)."""
N_ACTIONS = 2

# A position's public action (R11), in the order of the observation's four action slots.
KEPT = 0
"""Kept (R2, R6)."""
PASSED = 1
"""Passed and the swap took place (R3), or, for the dealer, cut (R6)."""
REFUSED = 2
"""Passed and the next position refused (R4): he holds the top rank."""
TO_ACT = 3
"""Has not acted yet."""

MAX_ROUNDS = 100_000
"""A game longer than this many rounds is an error, as in the reference engine (only endless
G6 replays could get there)."""

_ACT_WORDS = {KEPT: "keep", PASSED: "swap", REFUSED: "refused"}
"""The reference's names of the public actions (its ``_View.history``, S4a)."""

ROUND_OBSERVATION_FIELDS = """\
The observation of position ``p`` in a round of ``n`` players is a float32 vector. ``C`` is the
number of strength classes of the deck (C2): 10 (``spanish40``), 12 (``spanish48``) or 13
(``french52``), one more under ``poroli`` (the Poroli card is a class of its own, strength 0,
C4); a card is a one-hot over the classes, weakest first (suits do not rank, C2). In order:

* ``card`` (C): the card ``p`` holds now (zeros before it is dealt).
* ``position`` (n): one-hot of ``p``'s position (0 acts first, n-1 is the dealer, T2).
* ``dealer`` (1): 1 when ``p`` is the dealer.
* ``actions`` (4 x n): for each position, one-hot of its public action (R11): kept; passed
  and the swap took place (R3) -- for the dealer: cut (R6); passed and refused by the next
  position (R4, who thereby shows the top rank); not acted yet.
* ``dealt`` (C): when the previous position swapped with ``p``, the card ``p`` was dealt (it is
  now that position's final card, R3, R5); zeros otherwise.
* ``gave`` (C): when ``p`` passed and the swap took place, the card ``p`` handed to the next
  position; zeros otherwise.
* ``cut`` (C): the cut card, once the dealer has cut (R6, shown to everybody; under
  ``cut_king=blocked`` a top-rank cut card is shown and not taken, R7).
* ``final`` (n x C): at the end of the round, every position's final card (cards are turned up
  to find the losers, R8); zeros before.
* ``lost`` (n): at the end, 1 for every loser of the round (R7, R8; an absolute tie keeps its
  losers, R9).
* ``lives_lost`` (n): at the end, the lives each position loses: 1, 2 for a Poroli double loss
  (R10), 0 in an absolute tie (G6).
* ``absolute_tie`` (1): at the end, 1 when the round is an absolute tie (R9).
* ``players`` (1): the number of players in the round, divided by 20 (T1's largest table).

Size ``C * (n + 4) + 7 * n + 3``: 111 for the default four players with ``spanish40``. Nobody
else's card is in it until the end, except those ``p`` took part in swapping (R11).
"""

GAME_OBSERVATION_FIELDS = """\
The observation of seat ``s`` in a game of ``N`` players is a float32 vector: first the
current round's fields exactly as in ``ronco_v0`` (see below) laid out for ``N`` positions
(a round has as many positions as surviving players, G3; the positions it lacks stay zero, and
a seat that is out has no own card or position), then, with seats counted from ``s`` (relative
seat ``j`` is seat ``(s + j) % N``, so one network serves every seat):

* ``lives`` (N): each relative seat's lives left, divided by the starting ``lives`` (G1).
* ``alive`` (N): 1 for each relative seat still in the game (G2).
* ``dealer`` (N): one-hot of the relative seat dealing the current round (G4, G5); zeros
  before the first dealer is drawn.

Size ``C * (N + 4) + 10 * N + 3``: 123 for the default four players with ``spanish40``. The
round's fields:

""" + ROUND_OBSERVATION_FIELDS


@dataclass(frozen=True)
class RoncoSetup:
    """A table: the rules, the number of players, and for a game the starting lives (G1) and
    the first dealer (None: drawn by chance, G4). A round ignores ``lives`` and
    ``first_dealer``."""

    rules: RoncoRules
    players: int
    lives: int = 7
    first_dealer: int | None = None

    @cached_property
    def table(self) -> CardTable:
        return CardTable.build(self.rules)


@dataclass(frozen=True)
class CardTable:
    """The deck as the states read it, one tuple entry per card index of
    :mod:`simcards.core.cards` (the same order as ``reference.deck_cards``)."""

    rules: RoncoRules
    deck: Deck
    n_cards: int
    values: tuple[int, ...]
    strengths: tuple[int, ...]
    classes: tuple[int, ...]
    """The card's strength class: its rank among the deck's distinct strengths (C2, C4)."""
    n_classes: int
    top: int
    """C3: the top rank (the blocking card)."""
    poroli_card: int | None
    """C4: the Poroli card's index under ``poroli``, else None."""
    ref_cards: tuple[ref.Card, ...]

    @classmethod
    def build(cls, rules: RoncoRules) -> CardTable:
        deck = rules.deck_obj
        strengths = tuple(int(s) for s in rules.strengths)
        distinct = sorted(set(strengths))
        rank = {s: i for i, s in enumerate(distinct)}
        poroli_card = strengths.index(0) if rules.poroli else None
        return cls(rules, deck, len(deck), tuple(deck.values), strengths,
                   tuple(rank[s] for s in strengths), len(distinct), int(rules.top), poroli_card,
                   tuple(deck.card(i) for i in range(len(deck))))

    def label(self, card: int) -> str:
        """``12-oros``; the Poroli card says so (C4)."""
        text = self.deck.label(card)
        return f"{text} (Poroli)" if card == self.poroli_card else text

    def round_size(self, slots: int) -> int:
        """The length of a round's observation laid out for ``slots`` positions."""
        return self.n_classes * (slots + 4) + 7 * slots + 3


def _seen_tokens(dealt: list[int], acts: list[int], n: int, done: bool, cut_taken: bool,
                 position: int | None) -> set[int]:
    """The dealt slots (``j``: the card dealt to position ``j``) whose card ``position`` (None:
    an onlooker) has seen (R11): his own, both cards of every swap he took part in (R3), and at
    the end every final card (cards up). The cards are followed as they move, so a card that
    travels down a chain of swaps keeps its slot."""
    held = list(range(len(dealt)))
    seen: set[int] = set()
    if position is not None and position < len(dealt):
        seen.add(position)
    for i, act in enumerate(acts[: n - 1]):
        if act == PASSED:
            if position in (i, i + 1):
                seen.update((held[i], held[i + 1]))
            held[i], held[i + 1] = held[i + 1], held[i]
    if done:
        # Cards up: every final card; a dealer who took the cut card (R6) shows the cut card,
        # and the card he discarded stays unseen.
        seen.update(held[: n - 1] if cut_taken else held)
    return seen


class RoundState(TableState):
    """One Ronco round (R1-R10), positions 0 .. n-1, the dealer last (T2).

    ``dealt`` (chance outcomes, card indices by position), ``decisions`` (the players' codes,
    in order) and ``cut`` (the cut card, once drawn) say everything; the rest follows from them.
    """

    def __init__(self, table: CardTable, n: int) -> None:
        self.table = table
        self.n_players = n
        self.dealt: list[int] = []
        self.cards: list[int] = []
        """What each position holds now (final once he has acted, R5)."""
        self.acts: list[int] = []
        """Each position's public action (KEPT, PASSED, REFUSED), in order (R1)."""
        self.decisions: list[int] = []
        self.swapped_in = [False] * n
        """Position i-1 passed to i and the swap took place (R3)."""
        self.gave: list[int | None] = [None] * n
        """The card position i handed on in his swap (R3)."""
        self.cut: int | None = None
        self.awaiting_cut = False
        self.cut_taken = False
        self.cut_king_fired = False
        self.done = False
        self.losers: tuple[bool, ...] = ()
        self.double: tuple[bool, ...] = ()
        self.absolute_tie = False

    # -- chance

    def _drawn(self) -> set[int]:
        return set(self.dealt)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.current_player() != CHANCE:
            raise ValueError("not a chance node")
        drawn = self._drawn()
        left = [c for c in range(self.table.n_cards) if c not in drawn]
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def apply_chance(self, outcome: int) -> None:
        if self.current_player() != CHANCE:
            raise ValueError("not a chance node")
        outcome = int(outcome)
        if not 0 <= outcome < self.table.n_cards or outcome in self._drawn():
            raise ValueError(f"card {outcome} is not in the deck any more")
        if len(self.dealt) < self.n_players:
            self.dealt.append(outcome)  # T3: position len(dealt) receives it
            self.cards.append(outcome)
            return
        self.cut = outcome
        self.awaiting_cut = False
        top_cut = self.table.values[outcome] == self.table.top
        cut_king = self.table.rules.cut_king
        if top_cut and cut_king == "blocked":
            pass  # R7 blocked: the top-rank cut card is not taken; the dealer keeps his card.
        else:
            # R6: he takes the cut card and must keep it; R7 none: no special effect; R7 loses:
            # he is the sole loser (in _finish).
            self.cards[self.n_players - 1] = outcome
            self.cut_taken = True
            self.cut_king_fired = top_cut and cut_king == "loses"
        self._finish()

    # -- decisions

    def current_player(self) -> int:
        if len(self.dealt) < self.n_players or self.awaiting_cut:
            return CHANCE
        if self.done:
            return TERMINAL
        return len(self.acts)  # R1: positions in order, the dealer last

    def moves(self) -> Mapping[Path, Any]:
        if self.current_player() < 0:
            return {}
        return {(KEEP,): KEEP, (PASS,): PASS}

    def play(self, move: Any) -> None:
        i = self.current_player()
        if i < 0:
            raise ValueError("no player is to act")
        if move not in (KEEP, PASS):
            raise ValueError(f"move {move!r} is neither KEEP (0) nor PASS (1)")
        n = self.n_players
        self.decisions.append(int(move))
        if i == n - 1:
            if move == KEEP:  # R6 "cartas arriba"
                self.acts.append(KEPT)
                self._finish()
            else:  # R6: he cuts; the cut card is the next chance outcome
                self.acts.append(PASSED)
                self.awaiting_cut = True
            return
        if move == KEEP:  # R2 "me planto": final (R5)
            self.acts.append(KEPT)
        elif self.table.values[self.cards[i + 1]] == self.table.top:
            self.acts.append(REFUSED)  # R4: the top rank refuses; both keep their cards (R5)
        else:  # R3: the exchange; the passer's card is final (R5)
            self.acts.append(PASSED)
            self.gave[i] = self.cards[i]
            self.cards[i], self.cards[i + 1] = self.cards[i + 1], self.cards[i]
            self.swapped_in[i + 1] = True

    def _finish(self) -> None:
        """R7-R10 once every card is final."""
        n = self.n_players
        strengths = [self.table.strengths[c] for c in self.cards]
        if self.cut_king_fired:
            losers = [i == n - 1 for i in range(n)]  # R7 loses: the dealer alone
            self.absolute_tie = False  # R9: not when R7 loses applied
        else:
            lowest = min(strengths)  # R8
            tied = [s == lowest for s in strengths]
            if self.table.rules.ties == "all":
                losers = tied
            else:
                first = tied.index(True)
                losers = [i == first for i in range(n)]
            self.absolute_tie = all(s == strengths[0] for s in strengths)  # R9
        self.losers = tuple(losers)
        self.double = tuple(lost and self.cards[i] == self.table.poroli_card
                            for i, lost in enumerate(losers))  # R10
        self.done = True

    def lives_lost(self, position: int) -> int:
        """G1, R10, G6: the lives ``position`` loses in this (finished) round."""
        if not self.done or self.absolute_tie or not self.losers[position]:
            return 0
        return 2 if self.double[position] else 1

    def returns(self) -> list[float]:
        return [float(-self.lives_lost(i)) for i in range(self.n_players)]

    def infos(self, player: int) -> dict[str, Any]:
        if not self.done:
            return {}
        return {"lost": self.losers[player], "lives_lost": self.lives_lost(player),
                "final_card": self.table.ref_cards[self.cards[player]],
                "dealer_cut": self.acts[-1] == PASSED}

    def decision_view(self) -> ref._View:
        """What the player to act knows, as the reference's decision rule reads it (S2, S4a)."""
        i = self.current_player()
        if i < 0:
            raise ValueError("no player is to act")
        cards = self.table.ref_cards
        return ref._View(position=i, n=self.n_players, current=cards[self.cards[i]],
                         dealt_card=cards[self.dealt[i]],
                         swapped_with_previous=self.swapped_in[i],
                         history=tuple(_ACT_WORDS[a] for a in self.acts))

    def action_name(self, code: int) -> str:
        """``keep``, ``pass``, or for the dealer ``cut`` (R6)."""
        if code == KEEP:
            return "keep"
        return "cut" if self.current_player() == self.n_players - 1 else "pass"

    # -- what a player sees

    def seen_slots(self, position: int | None) -> set[int]:
        """The positions whose dealt card ``position`` (None: an onlooker) has seen (R11)."""
        return _seen_tokens(self.dealt, self.acts, self.n_players, self.done, self.cut_taken,
                            position)

    def _check(self, player: int) -> None:
        if not 0 <= player < self.n_players:
            raise ValueError(f"player {player} outside 0..{self.n_players - 1}")

    def observation(self, player: int, pending: Path = ()) -> np.ndarray:
        self._check(player)
        out = np.zeros(self.table.round_size(self.n_players), dtype=np.float32)
        self.encode(out, 0, player, self.n_players)
        return out

    def encode(self, out: np.ndarray, at: int, me: int | None, slots: int) -> int:
        """Write the round's fields (``ROUND_OBSERVATION_FIELDS``) for position ``me`` (None: a
        seat out of the game) into ``out[at:]``, laid out for ``slots`` positions; returns the
        offset after them."""
        t = self.table
        c = t.n_classes
        n = self.n_players
        if me is not None and me < len(self.cards):
            out[at + t.classes[self.cards[me]]] = 1.0
        at += c
        if me is not None:
            out[at + me] = 1.0
            out[at + slots] = float(me == n - 1)
        at += slots + 1
        for pos in range(n):
            act = self.acts[pos] if pos < len(self.acts) else TO_ACT
            out[at + 4 * pos + act] = 1.0
        at += 4 * slots
        if me is not None and self.swapped_in[me]:
            out[at + t.classes[self.dealt[me]]] = 1.0
        at += c
        given = None if me is None else self.gave[me]
        if given is not None:
            out[at + t.classes[given]] = 1.0
        at += c
        if self.cut is not None:
            out[at + t.classes[self.cut]] = 1.0
        at += c
        if self.done:
            for pos, card in enumerate(self.cards):
                out[at + pos * c + t.classes[card]] = 1.0
        at += slots * c
        if self.done:
            for pos in range(n):
                out[at + pos] = float(self.losers[pos])
                out[at + slots + pos] = float(self.lives_lost(pos))
            out[at + 2 * slots] = float(self.absolute_tie)
        at += 2 * slots + 1
        out[at] = n / MAX_PLAYERS
        return at + 1

    def observation_text(self, player: int, pending: Path = ()) -> str:
        return self._text(player, self._view_lines)

    def _text(self, player: int, lines: Callable[[int], list[str]]) -> str:
        """The lines ``lines`` makes for ``player`` (checked first), one text."""
        self._check(player)
        return "\n".join(lines(player))

    def _view_lines(self, me: int | None) -> list[str]:
        t = self.table
        n = self.n_players
        lines = []
        if me is not None:
            role = " (dealer)" if me == n - 1 else ""
            card = t.label(self.cards[me]) if me < len(self.cards) else "not dealt yet"
            lines.append(f"position {me} of {n}{role}; your card: {card}")
            if self.swapped_in[me]:
                lines.append(f"you were dealt {t.label(self.dealt[me])} (now position "
                             f"{me - 1}'s final card)")
            given = self.gave[me]
            if given is not None:
                lines.append(f"you gave {t.label(given)} to position {me + 1}")
        words = {KEPT: "kept", PASSED: "swapped", REFUSED: "refused", TO_ACT: "to act"}
        acts = [words[self.acts[p] if p < len(self.acts) else TO_ACT] for p in range(n)]
        if len(self.acts) == n and self.acts[-1] == PASSED:
            acts[-1] = "cut"
        lines.append("actions: " + ", ".join(f"{p} {a}" for p, a in enumerate(acts)))
        if self.cut is not None:
            lines.append(f"cut card: {t.label(self.cut)}" + self._cut_note())
        if self.done:
            lines.extend(self._result_lines())
        return lines

    def _cut_note(self) -> str:
        if not self.cut_taken:
            return " (top rank, not taken: R7 blocked)"
        return " (taken; top rank: the dealer loses, R7)" if self.cut_king_fired else " (taken)"

    def _result_lines(self) -> list[str]:
        t = self.table
        lines = ["cards up: " + ", ".join(f"{p} {t.label(c)}" for p, c in enumerate(self.cards))]
        lost = [p for p in range(self.n_players) if self.losers[p]]
        note = " (absolute tie, R9: no lives lost)" if self.absolute_tie else ""
        lines.append("losers: " + ", ".join(
            f"{p}" + (" (double, R10)" if self.double[p] else "") for p in lost) + note)
        return lines

    def information_text(self, player: int, pending: Path = ()) -> str:
        return self._text(player, self.information_lines)

    def information_lines(self, me: int | None) -> list[str]:
        """Everything ``me`` (None: an onlooker) has seen in the round, in order (R11)."""
        t = self.table
        n = self.n_players
        who = "an onlooker" if me is None else (
            f"position {me}" + (" (dealer)" if me == n - 1 else ""))
        lines = [f"round of {n}; you are {who}"]
        for j, card in enumerate(self.dealt):
            lines.append(f"you are dealt {t.label(card)}" if j == me
                         else f"position {j} is dealt a card")
        for i, act in enumerate(self.acts):
            if i == n - 1:
                lines.append(f"position {i} (dealer) " + ("cuts" if act == PASSED else "keeps"))
            elif act == KEPT:
                lines.append(f"position {i} keeps")
            elif act == REFUSED:
                lines.append(f"position {i} passes; position {i + 1} refuses (top rank, R4)")
            else:
                line = f"position {i} passes and swaps with position {i + 1}"
                given = self.gave[i]
                assert given is not None
                if me == i:
                    line += f": you give {t.label(given)}, you get {t.label(self.cards[i])}"
                elif me == i + 1:
                    line += f": you give {t.label(self.dealt[i + 1])}, you get {t.label(given)}"
                lines.append(line)
        if self.cut is not None:
            lines.append(f"cut card: {t.label(self.cut)}" + self._cut_note())
        if self.done:
            lines.extend(self._result_lines())
        return lines

    def resample(self, player: int | None, rng: random.Random) -> RoundState:
        """Redraw every dealt card ``player`` has not seen (R11), uniformly among the deals that
        give the same public history: a refusal (R4) says the refuser was dealt a top-rank card,
        a swap that took place says the receiver was not (R3); keeps and passes say nothing to
        someone who does not know the policies. The cut card, once drawn, is public."""
        if player is not None:
            self._check(player)
        seen = self.seen_slots(player)
        fixed = {self.dealt[j] for j in seen}
        if self.cut is not None:
            fixed.add(self.cut)
        hidden = [j for j in range(len(self.dealt)) if j not in seen]
        pool = [c for c in range(self.table.n_cards) if c not in fixed]
        tops = [c for c in pool if self.table.values[c] == self.table.top]
        others = [c for c in pool if self.table.values[c] != self.table.top]

        def need(j: int) -> bool | None:
            if j == 0 or j - 1 >= len(self.acts):
                return None
            return {REFUSED: True, PASSED: False}.get(self.acts[j - 1])

        groups: dict[bool | None, list[int]] = {True: [], False: [], None: []}
        for j in hidden:
            groups[need(j)].append(j)
        deal = list(self.dealt)
        top_pick = rng.sample(tops, len(groups[True]))
        other_pick = rng.sample(others, len(groups[False]))
        used = set(top_pick) | set(other_pick)
        rest = [c for c in pool if c not in used]
        free_pick = rng.sample(rest, len(groups[None]))
        for slots, picks in ((groups[True], top_pick), (groups[False], other_pick),
                             (groups[None], free_pick)):
            for j, card in zip(slots, picks, strict=True):
                deal[j] = card
        return self.replay(deal)

    def replay(self, deal: list[int]) -> RoundState:
        """The same round (decisions, cut card) on another deal; the public actions must come
        out the same (ValueError otherwise)."""
        other = type(self)(self.table, self.n_players)
        for card in deal:
            other.apply_chance(card)
        for move in self.decisions:
            other.play(move)
        if self.cut is not None:
            other.apply_chance(self.cut)
        if other.acts != self.acts:
            raise ValueError("the deal does not give the same public actions")
        return other

    def render(self) -> str:
        return "\n".join(self.render_lines())

    def render_lines(self, seats: list[int] | None = None) -> list[str]:
        """The whole table, every card shown; ``seats`` names each position's seat in a game."""
        t = self.table
        n = self.n_players
        r = t.rules
        lines = [f"Ronco round: {n} players, {r.deck}, cut_king={r.cut_king}, "
                 f"ties={r.ties}" + (", poroli" if r.poroli else "")]
        for p in range(n):
            name = f"position {p}" + (f" (seat {seats[p]})" if seats else "")
            if p == n - 1:
                name += " dealer"
            if p >= len(self.dealt):
                lines.append(f"{name}: not dealt yet")
                continue
            text = f"{name}: dealt {t.label(self.dealt[p])}"
            received = self.gave[p - 1] if self.swapped_in[p] else None
            if received is not None:
                text += f", gets {t.label(received)} from position {p - 1} (R3)"
            if p < len(self.acts):
                act = self.acts[p]
                text += ", " + ({KEPT: "keeps", REFUSED: "passes, refused (R4)",
                                 PASSED: "cuts" if p == n - 1 else "passes, swaps (R3)"}[act])
                if self.done or p < n - 1:
                    text += f"; final {t.label(self.cards[p])}"
            elif p == len(self.acts) and len(self.dealt) == n:
                text += ", to act"
            lines.append(text)
        if self.awaiting_cut:
            lines.append("the dealer cuts: cut card to draw")
        if self.cut is not None:
            lines.append(f"cut card: {t.label(self.cut)}" + self._cut_note())
        if self.done:
            lost = [p for p in range(n) if self.losers[p]]
            tie = "; absolute tie (R9)" if self.absolute_tie else ""
            lines.append("losers: " + ", ".join(
                f"position {p}" + (f" (seat {seats[p]})" if seats else "")
                + f" -{self.lives_lost(p)}" for p in lost) + tie)
        return lines

    def clone(self) -> RoundState:
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        for name in ("dealt", "cards", "acts", "decisions", "swapped_in", "gave"):
            setattr(other, name, list(getattr(self, name)))
        return other

    def history_text(self) -> str:
        cut = [] if self.cut is None else [f"cut {self.cut}"]
        return " ".join([f"deal {' '.join(map(str, self.dealt))}",
                         f"moves {' '.join(map(str, self.decisions))}", *cut])

    def __repr__(self) -> str:
        return f"RoundState({self.history_text()})"


def _next_alive(seat: int, alive: list[bool]) -> int:
    """G3/G5: the next surviving seat after ``seat`` in play order."""
    n = len(alive)
    for step in range(1, n + 1):
        if alive[(seat + step) % n]:
            return (seat + step) % n
    raise ValueError("no surviving player")


class GameState(TableState):
    """A whole Ronco game with lives (G1-G7): seats 0 .. N-1 in play order (G3)."""

    def __init__(self, setup: RoncoSetup) -> None:
        self.setup = setup
        self.table = setup.table
        self.n_players = setup.players
        self.lives = [setup.lives] * setup.players  # G1
        self.alive = [True] * setup.players
        self.eliminated_in_round: list[int | None] = [None] * setup.players
        self.dealer: int | None = None
        self.rounds: list[tuple[list[int], RoundState]] = []
        """Every round so far, with its seats by position; the last is the current one."""
        self.over = False
        self.void = False
        self.winner: int | None = None
        if setup.first_dealer is not None:
            self._start(setup.first_dealer)  # G4 fixed

    @property
    def round(self) -> RoundState:
        return self.rounds[-1][1]

    @property
    def order(self) -> list[int]:
        return self.rounds[-1][0]

    def _start(self, dealer: int) -> None:
        """G3: position 0 is the next surviving seat after the dealer, who acts last."""
        if len(self.rounds) >= MAX_ROUNDS:
            raise ValueError(f"game exceeded {MAX_ROUNDS} rounds")
        self.dealer = dealer
        order = []
        seat = dealer
        while True:
            seat = _next_alive(seat, self.alive)
            order.append(seat)
            if seat == dealer:
                break
        self.rounds.append((order, RoundState(self.table, len(order))))

    def _settle(self) -> None:
        """G1, G2, G5-G7 once the current round is over."""
        rnd = self.round
        order = self.order
        if rnd.absolute_tie:
            if self.table.rules.absolute_tie == "void":
                self.over = self.void = True  # G6 void: no winner, no lives lost
            else:
                self._start(order[-1])  # G6 replay: no lives lost, the same dealer
            return
        for pos, seat in enumerate(order):
            self.lives[seat] = max(0, self.lives[seat] - rnd.lives_lost(pos))  # G1, R10
        for seat in order:
            if self.lives[seat] == 0:  # G2: out at the end of the round
                self.alive[seat] = False
                self.eliminated_in_round[seat] = len(self.rounds)
        survivors = [s for s in range(self.n_players) if self.alive[s]]
        if len(survivors) <= 1:  # G7
            self.over = True
            self.winner = survivors[0] if survivors else None
            return
        first = order[0]  # G5
        self._start(first if self.alive[first] else _next_alive(first, self.alive))

    # -- chance

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.current_player() != CHANCE:
            raise ValueError("not a chance node")
        if self.dealer is None:  # G4: every seat equally likely
            return [(s, 1.0 / self.n_players) for s in range(self.n_players)]
        return self.round.chance_outcomes()

    def apply_chance(self, outcome: int) -> None:
        if self.current_player() != CHANCE:
            raise ValueError("not a chance node")
        if self.dealer is None:
            if not 0 <= int(outcome) < self.n_players:
                raise ValueError(f"first dealer {outcome} is not a seat")
            self._start(int(outcome))
            return
        self.round.apply_chance(outcome)
        if self.round.done:
            self._settle()

    # -- decisions

    def current_player(self) -> int:
        if self.over:
            return TERMINAL
        if self.dealer is None:
            return CHANCE
        p = self.round.current_player()
        return p if p < 0 else self.order[p]

    def moves(self) -> Mapping[Path, Any]:
        return self.round.moves() if self.current_player() >= 0 else {}

    def play(self, move: Any) -> None:
        if self.current_player() < 0:
            raise ValueError("no player is to act")
        self.round.play(move)
        if self.round.done:
            self._settle()

    def returns(self) -> list[float]:
        return [float(self.over and s == self.winner) for s in range(self.n_players)]

    def infos(self, player: int) -> dict[str, Any]:
        if not self.over:
            return {}
        return {"winner": self.winner, "rounds": len(self.rounds), "lives": list(self.lives),
                "void": self.void}

    # -- what a player sees

    def _check(self, player: int) -> None:
        if not 0 <= player < self.n_players:
            raise ValueError(f"player {player} outside 0..{self.n_players - 1}")

    def _position(self, seat: int, order: list[int]) -> int | None:
        return order.index(seat) if seat in order else None

    def observation(self, player: int, pending: Path = ()) -> np.ndarray:
        self._check(player)
        n = self.n_players
        out = np.zeros(self.table.round_size(n) + 3 * n, dtype=np.float32)
        at = self.table.round_size(n)
        if self.rounds:
            self.rounds[-1][1].encode(out, 0, self._position(player, self.order), n)
        for j in range(n):
            seat = (player + j) % n
            out[at + j] = self.lives[seat] / self.setup.lives
            out[at + n + j] = float(self.alive[seat])
        if self.dealer is not None:
            out[at + 2 * n + (self.dealer - player) % n] = 1.0
        return out

    def _status_line(self) -> str:
        return "lives: " + ", ".join(
            f"seat {s} {self.lives[s]}" + ("" if self.alive[s] else " (out)")
            for s in range(self.n_players))

    def observation_text(self, player: int, pending: Path = ()) -> str:
        self._check(player)
        lines = [f"seat {player}; " + self._status_line()]
        if self.rounds:
            order = self.order
            lines.append(f"round {len(self.rounds)}: dealer seat {order[-1]}, seats by "
                         f"position {order}")
            pos = self._position(player, order)
            lines.extend(self.round._view_lines(pos))
        if self.over:
            lines.append(self._end_line())
        return "\n".join(lines)

    def _end_line(self) -> str:
        if self.void:
            return "game over: absolute tie, no winner (G6 void)"
        return ("game over: no winner (G7)" if self.winner is None
                else f"game over: seat {self.winner} wins (G7)")

    def information_text(self, player: int, pending: Path = ()) -> str:
        self._check(player)
        s = self.setup
        lines = [f"Ronco game: {s.players} players, {s.lives} lives; you are seat {player}"]
        if self.dealer is not None:
            how = "fixed" if s.first_dealer is not None else "drawn"
            lines.append(f"first dealer ({how}): seat {self.rounds[0][0][-1]}")
        for r, (order, rnd) in enumerate(self.rounds, 1):
            lines.append(f"round {r}: dealer seat {order[-1]}, seats by position {order}")
            lines.extend("  " + line
                         for line in rnd.information_lines(self._position(player, order)))
        lines.append(self._status_line())
        if self.over:
            lines.append(self._end_line())
        return "\n".join(lines)

    def resample(self, player: int, rng: random.Random) -> GameState:
        """Every round redrawn as :meth:`RoundState.resample` does for ``player``'s position in
        it (an onlooker's in a round he is out of). Rounds are independent shuffles and a
        finished round's result is public (cards up), so the game's course stays the same."""
        self._check(player)
        other = self.clone()
        other.rounds = [(order, rnd.resample(self._position(player, order), rng))
                        for order, rnd in self.rounds]
        return other

    def render(self) -> str:
        s = self.setup
        lines = [f"Ronco game: {s.players} players, {s.lives} lives; " + self._status_line()]
        if self.rounds:
            lines.append(f"round {len(self.rounds)}, dealer seat {self.order[-1]}")
            lines.extend(self.round.render_lines(self.order))
        elif not self.over:
            lines.append("first dealer to draw (G4)")
        if self.over:
            lines.append(self._end_line())
        return "\n".join(lines)

    def clone(self) -> GameState:
        other = GameState.__new__(GameState)
        other.__dict__.update(self.__dict__)
        other.lives = list(self.lives)
        other.alive = list(self.alive)
        other.eliminated_in_round = list(self.eliminated_in_round)
        # Finished rounds never change again: only the current one is copied.
        other.rounds = list(self.rounds)
        if self.rounds:
            order, rnd = self.rounds[-1]
            other.rounds[-1] = (order, rnd.clone())
        return other

    def history_text(self) -> str:
        first = "" if self.dealer is None else f"first dealer {self.rounds[0][0][-1]}; "
        return first + "; ".join(rnd.history_text() for _, rnd in self.rounds)

    def __repr__(self) -> str:
        return f"GameState({self.history_text()})"


# -- fixed-seat policies (S1-S3)


def _acting_round(state: TableState) -> RoundState:
    if isinstance(state, GameState):
        return state.round
    if isinstance(state, RoundState):
        return state
    raise TypeError(f"not a Ronco state: {state!r}")


def seat_policy(setup: RoncoSetup, spec: str) -> Callable[[TableState, random.Random], int]:
    """A chooser for ``spec`` as ``--policies`` writes one entry (``threshold:T:Td``,
    ``informed:T:Td``, ``random:p``; missing values take the commands' defaults) deciding by
    the reference's rule from what the player to act knows (S1-S3). ``random`` draws one
    uniform number from the chooser's generator per decision (S3). ``bayes`` (S4) is refused:
    it is a best reply to the other players' declared policies, which one seat's spec lacks."""
    try:
        policy = parse_policy(spec, top=setup.rules.top)
    except UsageError as exc:
        raise UsageError(flag_message("policy", str(exc))) from None
    KINDS.check_legal(policy.as_spec(), "policy")
    if policy.user is not None:
        raise UsageError(f"policy {policy.user}: a fixed seat of the environments plays the "
                         "built-in policies (S1-S3); a function of yours plays in rounds")
    if BAYES_TABLE in policy.declared.needs:
        raise UsageError("policy 'bayes' cannot play a fixed seat: it is the best reply to the "
                         "other players' declared policies (S4); use threshold, informed or "
                         "random")
    chosen = ref.RefPolicy(policy.kind, policy.T, policy.Td, policy.p)
    rules = setup.rules
    draws = UNIFORMS in policy.declared.needs

    def choose(state: TableState, rng: random.Random) -> int:
        view = _acting_round(state).decision_view()
        u = rng.random() if draws else None
        keeps = ref._decide_keep(chosen, view, u, deck=rules.deck, ties=rules.ties,
                                 cut_king=rules.cut_king, poroli=rules.poroli)
        return KEEP if keeps else PASS

    return choose


# -- the descriptors


def _make(game: bool) -> Callable[[dict[str, Any]], RoncoSetup]:
    def make(opts: dict[str, Any]) -> RoncoSetup:
        players = check_players(rule_integer("players", opts["players"]))
        rules = RoncoRules.from_options(opts, MATCH if game else HAND)
        if not game:
            return RoncoSetup(rules, players)
        from simcards.ronco.games_batch import check_lives

        lives = check_lives(rule_integer("lives", opts["lives"]))
        first = check_seat(opts["first_dealer"], players, "--first-dealer")
        return RoncoSetup(rules, players, lives, first)

    return make


def _action_text(code: int) -> str:
    """The dealer's ``pass`` is his cut (R6); :meth:`RoundState.action_name` tells them apart."""
    return {KEEP: "keep", PASS: "pass"}[code]


def _game_length(setup: RoncoSetup) -> int:
    """At most one decision per surviving player per round. Every round that is not an absolute
    tie costs at least one life (R8), so with G6 void at most ``players * lives`` such rounds
    and one void one; G6 replay bounds nothing, so the reference's round limit counts."""
    n = setup.players
    rounds = n * setup.lives + 1
    if setup.rules.absolute_tie == "replay":
        rounds = MAX_ROUNDS
    return n * rounds


_RULE_PARAMS = (
    Param("players", 4, "players at the table (2-20, T1)"),
    *RuleSet.of(RoncoRules, HAND).params(),
)

ROUND = TableGame(
    name="ronco_v0",
    openspiel_name="simcards_ronco",
    long_name="One Ronco round",
    params=_RULE_PARAMS,
    make=_make(game=False),
    new_state=lambda setup: RoundState(setup.table, setup.players),
    n_players=lambda setup: setup.players,
    n_actions=N_ACTIONS,
    action_text=_action_text,
    observation_size=lambda setup: setup.table.round_size(setup.players),
    observation_fields=ROUND_OBSERVATION_FIELDS,
    reward="minus the lives lost in the round: -1 for a loser, -2 for a Poroli double loss "
           "(R10), 0 otherwise and 0 for all in an absolute tie (R9, G6)",
    utility=lambda setup: (-2.0 if setup.rules.poroli else -1.0, 0.0),
    zero_sum=lambda setup: False,
    max_chance_outcomes=52,
    max_game_length=lambda setup: setup.players,
    seat_policy=seat_policy,
    default_opponent="threshold",
    players_range=(2, MAX_PLAYERS),
)
"""One round (``ronco_v0``); see the module text."""

GAME = TableGame(
    name="ronco_game_v0",
    openspiel_name="simcards_ronco_game",
    long_name="A Ronco game with lives",
    params=(*_RULE_PARAMS,
            Param("lives", 7, "lives (or chips) per player (G1)"),
            *RuleSet.of(RoncoRules, MATCH_LEVEL).params(),
            Param("first_dealer", None, "the seat that deals first (None: drawn, G4)")),
    players_range=(2, MAX_PLAYERS),
    make=_make(game=True),
    new_state=GameState,
    n_players=lambda setup: setup.players,
    n_actions=N_ACTIONS,
    action_text=_action_text,
    observation_size=lambda setup: setup.table.round_size(setup.players) + 3 * setup.players,
    observation_fields=GAME_OBSERVATION_FIELDS,
    reward="1 to the winner (the last player with lives, G7), 0 to everybody else; 0 to all "
           "in a game without a winner (G6 void, G7)",
    utility=lambda setup: (0.0, 1.0),
    zero_sum=lambda setup: False,
    max_chance_outcomes=52,
    max_game_length=_game_length,
    seat_policy=seat_policy,
    default_opponent="threshold",
)
"""A whole game (``ronco_game_v0``); see the module text."""


class DuelState(RoundState):
    """The two-player round as the zero-sum game of rule E3: with ``ties=first`` exactly one
    position loses (R7, R8), and the round pays +1 to the other and -1 to the loser, so that
    position 0's return is 1 - 2 P(position 0 loses). OpenSpiel's zero-sum solvers (its
    sequence-form linear program) take it as it is (E7)."""

    def returns(self) -> list[float]:
        if not self.done:
            return [0.0, 0.0]
        lost = [bool(x) for x in self.losers]
        if lost.count(True) != 1:
            raise AssertionError(f"a duel round with losers {lost}: E3 needs exactly one")
        return [-1.0 if lost[0] else 1.0, -1.0 if lost[1] else 1.0]


def _make_duel(opts: dict[str, Any]) -> RoncoSetup:
    setup = _make(game=False)({**opts, "players": 2})
    if setup.rules.ties != "first":
        raise UsageError("--ties must be first in the duel: only then does exactly one position "
                         "lose every round (E3)")
    return setup


DUEL = TableGame(
    name="ronco_duel_v0",
    openspiel_name="simcards_ronco_duel",
    long_name="One two-player Ronco round as a zero-sum game (E3)",
    params=tuple(Param(p.name, "first", "first: the duel's only tie rule, the one that leaves "
                       "exactly one loser a round (R8, E3)", p.none) if p.name == "ties" else p
                 for p in _RULE_PARAMS if p.name != "players"),
    make=_make_duel,
    new_state=lambda setup: DuelState(setup.table, 2),
    n_players=lambda setup: 2,
    n_actions=N_ACTIONS,
    action_text=_action_text,
    observation_size=lambda setup: setup.table.round_size(2),
    observation_fields=ROUND_OBSERVATION_FIELDS,
    reward="+1 to the position that does not lose the round, -1 to the one that does (E3: "
           "ties=first, exactly one loser)",
    utility=lambda setup: (-1.0, 1.0),
    zero_sum=lambda setup: True,
    max_chance_outcomes=52,
    max_game_length=lambda setup: 2,
    seat_policy=seat_policy,
    default_opponent="threshold",
    utility_sum=0.0,
    players_range=(2, 2),
)
"""The two-player round as a zero-sum game (``ronco_duel_v0``, OpenSpiel
``simcards_ronco_duel``): what ``ronco equilibrium --family all`` hands to OpenSpiel's
sequence-form linear program."""
