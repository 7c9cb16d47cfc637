"""Slow, obviously-correct reference engine for Ronda.

This module is a *test oracle*: it is written only from the rules text
(``seeds/ronda.md``) and plays a hand the way the text tells it -- deal by
deal, card by card, one credit after the other in the S3 order -- so that a
fast implementation can be checked against it move by move. Clarity beats
speed everywhere; every rule is cited by its id (D5, X4, M1, A4, S5, Q3, ...)
where it is implemented.

The state is shaped like OpenSpiel's: :class:`HandState` (one hand) and
:class:`MatchState` (a match) offer ``current_player()``, ``legal_actions()``,
``apply(action)``, ``observation(player)``, ``is_terminal()`` and
``returns()``. Chance is explicit: each hand is played from a permutation of
the 40 card ids given by the caller (D5), and the first dealer is an argument
(D3). Policies (Q2 .. Q7) are functions of one observation only.

Only the Python standard library is used.

It repeats on purpose what the project's rules module and kernels also say (the option checks,
small helpers such as the number of sides): an oracle that shared that code with the engine it
checks would hold the engine to itself.

Decisions where the rules text leaves a detail open (each also stated where it
is implemented):

* X5b: the pile closed because it holds four cards of one value goes to the
  re-hitter's side right after his card lands, before the re-hit's points.
* M1: the Missa flag of a play is recorded in classic mode too; only the points
  depend on the mode.
* A4/A5: an announcement's points are booked under its own source (``ronda`` or
  ``tringla``) even when ``highest_takes_all`` gives them to another side.
* C2: ``HandState.returns()`` in classic mode is 1 for the hand's winning side
  and 0 for the others (all 0 when the hand has no winner).
* S4/C3: ``hands_to_win`` other than 1 is refused in points mode (the option is
  "classic only").
* Q1: a consistent sample constrains the other players' holdings whenever the
  current deal was an announcing deal, including players who announced nothing
  (their holding as dealt then has no pair).
* Q2: the random policy maps one uniform ``u`` in [0, 1) to the card of rank
  ``floor(u * k)`` in card order among the k cards of the hand.
* Q3: the stretch of a single play stops before the next deal (which moves no
  card and brings only announcement points, left out of V); when the play is
  the last of the hand it includes X5c, U1 and S1.
* S5: every deal is a check point under ``immediate``, also a deal without
  announcements (the scores have not changed since the previous check, so this
  never decides anything). A match that ends mid-hand leaves that hand
  unfinished: no X5c, Ultima or S1 is credited.
* I1: an observation covers the hand in progress (plays, captured cards,
  announcements of this hand) plus the match scores, hand index and hands won;
  earlier hands are not repeated in it.
* S1: sides with no card beyond the share get no (zero) credit in the log.
* Q7: a consistent assignment gives each other player a *set* of cards, so
  assignments that differ only in the order of cards within a hand are one
  assignment. Samples handed to ``lookahead`` or ``rollout`` (``drawn``) are
  ignored once the stock is empty: the last deal is never sampled.

Example: two players; seat 1 deals, so seat 0 plays first (D3) and the cards come one at a time,
seat 0 first (D5). Seat 0 lays 5o, seat 1 lays 6c, seat 0 lays 1o (P3); then seat 1's 5c
captures the 5o and runs on to the 6c (P2). The previous play laid a 1, not a 5, so this is a
plain capture (X1, P5); the 1o stays on the table, so it is no Missa (M1), and captured cards
score only at the end of the hand (S1):

>>> top = parse_cards("5o 6c 1o 5c 7o 12c 10o 3c")
>>> deck = top + [c for c in range(N_CARDS) if c not in top]
>>> state = HandState(RondaOptions(players=2), 1, deck)
>>> [card_name(c) for c in state.hand(0)], [card_name(c) for c in state.hand(1)]
(['1o', '5o', '7o', '10o'], ['3c', '5c', '6c', '12c'])
>>> for name in ("5o", "6c", "1o"):
...     _ = state.apply(parse_card(name))
>>> play = state.apply(parse_card("5c"))
>>> play.action, [card_name(c) for c in play.taken], play.missa
('capture', ['5o', '6c'], False)
>>> [card_name(c) for c in state.table_cards()], [card_name(c) for c in state.captured_cards(1)]
(['1o'], ['5o', '5c', '6c'])
>>> state.hand_points(), state.current_player()
((0, 0), 0)
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction

from simcards.core.errors import UsageError

# --------------------------------------------------------------------------
# Cards (D1)
# --------------------------------------------------------------------------

VALUES: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
"""D1: the card values in sequence order; ``VALUES[value_index]``."""
SUITS: tuple[str, ...] = ("oros", "copas", "espadas", "bastos")
"""D1: the suits, in the card order of Q1 (oros, copas, espadas, bastos)."""
SUIT_LETTERS: tuple[str, ...] = ("o", "c", "e", "b")
N_CARDS = 40
AS = 0  # value index of the As (1)
REY = 9  # value index of the Rey (12), last of the sequence: nothing follows it

TERMINAL = -4
"""``current_player()`` of a finished state (OpenSpiel's convention)."""

RONDA_POINTS = 1  # A2
TRINGLA_POINTS = 5  # A2
TIER_POINTS = (1, 5, 10)  # X7: first, second, third hit of a chain
LAST_CARD_POINTS = 10  # L1 .. L3

SOURCES: tuple[str, ...] = ("ronda", "tringla", "derba", "missa", "last_card", "cards")
"""S2: every source of points. Re-hits are booked under ``derba`` (X4: they
score as a Derba); Ultima has no source of its own (U1: its cards count in
``cards``)."""
ANNOUNCE_SOURCES = frozenset({"ronda", "tringla"})

DEAL_SIZES: dict[int, tuple[int, ...]] = {2: (4, 4, 4, 4, 4), 3: (4, 4, 4, 1), 4: (4, 4, 2)}
"""D4: cards per player at each deal, by number of players."""


def value_index(card: int) -> int:
    """D1: position of the card's value in the sequence (0 = As .. 9 = Rey)."""
    return card // 4


def suit_index(card: int) -> int:
    """D1: 0 oros, 1 copas, 2 espadas, 3 bastos."""
    return card % 4


def card_value(card: int) -> int:
    """D1: the printed value (1..7, 10, 11, 12)."""
    return VALUES[card // 4]


def card_id(value: int, suit: str) -> int:
    """The id of the card of printed ``value`` and ``suit`` (a name or its letter)."""
    if value not in VALUES:
        raise UsageError(f"no card of value {value!r} in the 40-card deck (D1)")
    if suit in SUITS:
        s = SUITS.index(suit)
    elif suit in SUIT_LETTERS:
        s = SUIT_LETTERS.index(suit)
    else:
        raise UsageError(f"unknown suit {suit!r}; expected one of {SUITS} or {SUIT_LETTERS}")
    return VALUES.index(value) * 4 + s


def card_name(card: int) -> str:
    """The text form of the examples: value + suit letter, e.g. ``7o``, ``12b``."""
    _check_card_id(card)
    return f"{VALUES[card // 4]}{SUIT_LETTERS[card % 4]}"


def parse_card(name: str) -> int:
    """Inverse of :func:`card_name`: ``"10c"`` -> the id of the Sota de copas."""
    text = name.strip()
    if len(text) < 2 or not text[:-1].isdigit():
        raise UsageError(f"cannot read card {name!r}; expected value + suit letter, e.g. 7o")
    return card_id(int(text[:-1]), text[-1])


def parse_cards(names: str) -> list[int]:
    """``"4o 6c 7b"`` -> list of ids (blank-separated names)."""
    return [parse_card(n) for n in names.split()]


def _check_card_id(card: object) -> int:
    if type(card) is not int or not 0 <= card < N_CARDS:
        raise UsageError(f"card id {card!r} outside 0..39")
    return card


# --------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------

_CHOICES: dict[str, tuple] = {
    "teams": ("off", "on"),
    "derba_chain": ("flat", "tiers"),
    "announce": ("first_deal", "every_deal"),
    "announce_conflict": ("text", "highest_takes_all"),
    "target_check": ("end_of_hand", "immediate"),
    "mode": ("points", "classic"),
}
MAX_TARGET = 1000
"""S4: targets are any integer from 1 to this (usually 21, 11 or 41)."""


@dataclass(frozen=True)
class RondaOptions:
    """Every rule switch of ``seeds/ronda.md`` (defaults first in its table).

    ``players`` is 2, 3 or 4 (D2); ``teams='on'`` needs 4 players (D2);
    ``hands_to_win`` (C3) is an integer >= 1 and only classic mode may change it
    from 1 *(decision: the option is "classic only")*. Any other value raises
    :class:`UsageError` with a one-line message.
    """

    players: int = 2
    teams: str = "off"
    derba_chain: str = "flat"
    announce: str = "first_deal"
    announce_conflict: str = "text"
    target: int = 21
    target_check: str = "end_of_hand"
    mode: str = "points"
    hands_to_win: int = 1

    def __post_init__(self) -> None:
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise UsageError(f"players={self.players!r} must be an integer 2, 3 or 4 (D2)")
        if not 2 <= self.players <= 4:
            raise UsageError(f"players={self.players}: Ronda is for 2, 3 or 4 players (D2)")
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if isinstance(value, bool) or value not in allowed:
                shown = "|".join(str(a) for a in allowed)
                raise UsageError(f"unknown {name}={value!r}; expected one of {shown}")
        if self.teams == "on" and self.players != 4:
            raise UsageError(f"teams=on needs 4 players (D2), got players={self.players}")
        t = self.target
        if isinstance(t, bool) or not isinstance(t, int) or not 1 <= t <= MAX_TARGET:
            raise UsageError(f"target={t!r} must be an integer from 1 to {MAX_TARGET} (S4)")
        h = self.hands_to_win
        if isinstance(h, bool) or not isinstance(h, int) or h < 1:
            raise UsageError(f"hands_to_win={h!r} must be an integer >= 1 (C3)")
        if self.mode == "points" and h != 1:
            raise UsageError(f"hands_to_win={h} applies only to mode=classic (C3)")

    @property
    def n_sides(self) -> int:
        """D2: the sides :meth:`side_of` makes of the seats (a player alone, or two
        partnerships with ``teams=on``)."""
        return len({self.side_of(p) for p in range(self.players)})

    @property
    def share(self) -> int:
        """S1: 40 // number of sides (20, 13 or 10)."""
        return N_CARDS // self.n_sides

    @property
    def scoring(self) -> bool:
        """C1: nothing scores in classic mode."""
        return self.mode == "points"

    @property
    def deal_sizes(self) -> tuple[int, ...]:
        """D4."""
        return DEAL_SIZES[self.players]

    def side_of(self, player: int) -> int:
        """D2: the side of a seat; with teams {0, 2} is side 0 and {1, 3} side 1."""
        return player % 2 if self.teams == "on" else player

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


# --------------------------------------------------------------------------
# Announcements (A2 .. A5)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Announcement:
    """A1: public, with the announcer, kind and value, and which deal (0-based)."""

    deal: int
    player: int
    kind: str  # "ronda" | "tringla"
    value: int  # value index 0..9


def holding_announcements(cards: Sequence[int]) -> list[tuple[str, int]]:
    """A2: the announcements of one holding as dealt, by value index ascending.

    Every value held exactly twice is a Ronda; a value held three or four times
    is one Tringla and not also a Ronda. A one-card holding announces nothing.
    """
    counts = Counter(c // 4 for c in cards)
    found: list[tuple[str, int]] = []
    for v in sorted(counts):
        if counts[v] == 2:
            found.append(("ronda", v))
        elif counts[v] >= 3:
            found.append(("tringla", v))
    return found


def holding_counts(cards: Sequence[int]) -> tuple[int, int]:
    """(Rondas, Tringlas) held in one holding, whether or not they score (A2).

    Two pairs count two Rondas; four of a value counts as one Tringla.
    """
    found = holding_announcements(cards)
    return (
        sum(1 for kind, _ in found if kind == "ronda"),
        sum(1 for kind, _ in found if kind == "tringla"),
    )


def _announcement_points(a: Announcement) -> int:
    return RONDA_POINTS if a.kind == "ronda" else TRINGLA_POINTS


def _strength(a: Announcement) -> tuple[int, int]:
    """A3: Tringla beats Ronda; within a kind the higher value is stronger."""
    return (1 if a.kind == "tringla" else 0, a.value)


def resolve_announcements(
    made: Sequence[Announcement], options: RondaOptions
) -> list[tuple[int, int, str]]:
    """A4/A5: the credits ``(side, points, source)`` of the announcements of one deal.

    ``made`` are all announcements of one deal (A3: different deals never
    conflict). Credits come in the order of ``made``.

    * ``text`` (A4): (a) Rondas of one value held by two different sides cancel
      (both partners' Rondas of one value score); (b) when Tringlas are held by
      two or more sides, only the single lowest Tringla scores; Tringlas all held
      by one side all score. Rondas and Tringlas never affect each other.
    * ``highest_takes_all`` (A5): the side holding the strongest announcement
      (A3) scores every announcement of the deal; if the strongest is held by two
      different sides nothing scores; partners holding it are one side.
      *(decision: each announcement is booked under its own kind as source.)*
    """
    side = options.side_of
    credits: list[tuple[int, int, str]] = []
    if not made:
        return credits
    if options.announce_conflict == "text":
        ronda_sides: dict[int, set[int]] = {}
        for a in made:
            if a.kind == "ronda":
                ronda_sides.setdefault(a.value, set()).add(side(a.player))
        tringlas = [a for a in made if a.kind == "tringla"]
        tringla_sides = {side(a.player) for a in tringlas}
        lowest_tringla = min(tringlas, key=lambda a: a.value) if tringlas else None
        for a in made:
            if a.kind == "ronda":
                if len(ronda_sides[a.value]) == 1:  # A4a
                    credits.append((side(a.player), RONDA_POINTS, "ronda"))
            else:
                if len(tringla_sides) == 1 or a is lowest_tringla:  # A4b
                    credits.append((side(a.player), TRINGLA_POINTS, "tringla"))
        return credits
    # A5 highest_takes_all
    best = max(_strength(a) for a in made)
    holders = {side(a.player) for a in made if _strength(a) == best}
    if len(holders) != 1:
        return credits  # A5: tied between two different sides, nothing scores
    (winner,) = holders
    for a in made:
        credits.append((winner, _announcement_points(a), a.kind))
    return credits


# --------------------------------------------------------------------------
# Event log
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """One step of the game, in the order it happened (S3).

    kind:
      * ``deal`` -- ``player`` received ``cards`` (hidden information, D5);
      * ``announce`` -- ``player`` announced ``source`` (ronda/tringla) of ``value``;
      * ``close`` -- the pile in play (``cards``) went to ``side``; ``rule`` is
        X5a, X5b or X5c;
      * ``capture`` / ``derba`` -- ``player`` played ``cards[0]`` and took
        ``cards[1:]`` from the table, in run order (P2, X1);
      * ``rehit`` -- ``player`` put ``cards[0]`` on the pile (X4);
      * ``lay`` -- ``player`` laid ``cards[0]`` on the table (P3);
      * ``points`` -- ``side`` gained ``points`` (may be negative, X7) from ``source``;
      * ``ultima`` -- the table's last ``cards`` went to ``side`` (U1).
    """

    kind: str
    player: int | None = None
    side: int | None = None
    cards: tuple[int, ...] = ()
    points: int = 0
    source: str = ""
    value: int | None = None
    rule: str = ""


@dataclass(frozen=True)
class PlayRecord:
    """What one play did (P1 .. L5), for move-by-move comparison.

    ``action`` is ``capture`` (plain, P5), ``derba`` (X1), ``rehit`` (X4) or
    ``lay`` (P3). ``taken``: cards taken from the table, in run order.
    ``closed``: the pile closed by X5a before the card acted (and ``closed_to``
    its side). ``hit``: 0, or the hit number in the chain (1 = the Derba).
    ``chain_closed``: X5b fired. ``credits``: ``(side, points, source)`` in S3
    order. ``events``: every event of the play.
    """

    player: int
    card: int
    action: str
    taken: tuple[int, ...]
    closed: tuple[int, ...]
    closed_to: int | None
    hit: int
    chain_closed: bool
    missa: bool
    last_card: bool
    credits: tuple[tuple[int, int, str], ...]
    events: tuple[Event, ...]


# --------------------------------------------------------------------------
# One hand
# --------------------------------------------------------------------------


def _check_permutation(deck: Sequence[int]) -> list[int]:
    cards = list(deck)
    if sorted(cards) != list(range(N_CARDS)) or any(isinstance(c, bool) for c in cards):
        raise UsageError("the deck must be a permutation of the 40 card ids 0..39 (D5)")
    return cards


class HandState:
    """One hand (D4: all 40 cards, from an empty table), dealt from ``deck``.

    ``deck`` is the shuffled deck, top card first (D5): with 3 players
    ``deck[0]`` goes face up on the table; each deal then gives cards from the
    top one at a time, first player first, dealer last. ``dealer`` is the
    dealer's seat (D3). ``start_scores`` are the sides' scores carried over from
    earlier hands (S2).

    ``apply(card)`` plays a card and then, when every holding is empty, makes
    the next deal (with its announcements) or ends the hand (X5c, U1, S1).
    :class:`MatchState` uses the finer steps ``_play``, ``_deal_next`` and
    ``_finish`` so that it can check the target between them (S5).
    """

    # ------------------------------------------------------------ building

    def __init__(
        self,
        options: RondaOptions,
        dealer: int,
        deck: Sequence[int],
        *,
        start_scores: Sequence[int] | None = None,
    ) -> None:
        self._init_empty(options, dealer, start_scores)
        stock = _check_permutation(deck)
        if self.n == 3:
            # D4/D5: with 3 players the top card goes face up on the table first.
            self.face_up = stock.pop(0)
            self.table[self.face_up // 4] = self.face_up
        self.stock = stock
        self._deal_next()

    def _init_empty(
        self, options: RondaOptions, dealer: int, start_scores: Sequence[int] | None
    ) -> None:
        if not isinstance(options, RondaOptions):
            raise UsageError(f"options must be RondaOptions, got {options!r}")
        self.options = options
        self.n = options.players
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < self.n:
            raise UsageError(f"dealer={dealer!r} outside 0..{self.n - 1} (D3)")
        self.dealer = dealer
        self.first_player = (dealer + 1) % self.n  # D3
        self.n_sides = options.n_sides
        if start_scores is None:
            start_scores = [0] * self.n_sides
        if len(start_scores) != self.n_sides:
            raise UsageError(f"{len(start_scores)} start scores for {self.n_sides} sides")
        self.start_scores = tuple(int(s) for s in start_scores)
        self.hands: list[list[int]] = [[] for _ in range(self.n)]
        self.stock: list[int] = []
        self.table: dict[int, int] = {}  # value index -> card (P4: one card per value)
        self.face_up: int | None = None
        self.pile: list[int] = []  # X3: bottom .. top
        self.pile_hitter: int | None = None
        self.captured: list[list[int]] = [[] for _ in range(self.n_sides)]
        self.last_laid: int | None = None  # the card laid by the previous play (X1)
        self.last_capturer: int | None = None  # U1
        self.deal_index = -1
        self.plays: list[tuple[int, int, int]] = []  # (player, card, deal)
        self.announcements: list[Announcement] = []
        self.dealt: list[tuple[int, int, tuple[int, ...]]] = []  # (deal, player, holding)
        self.points: list[dict[str, int]] = [dict.fromkeys(SOURCES, 0) for _ in range(self.n_sides)]
        self.events: list[Event] = []
        self.records: list[PlayRecord] = []
        self.finished = False
        self._turn = self.first_player

    @classmethod
    def from_position(
        cls,
        options: RondaOptions,
        dealer: int,
        hands: Sequence[Sequence[int]],
        *,
        table: Sequence[int] = (),
        stock: Sequence[int] = (),
        face_up: int | None = None,
        pile: Sequence[int] = (),
        pile_hitter: int | None = None,
        captured: Sequence[Sequence[int]] | None = None,
        last_laid: int | None = None,
        last_capturer: int | None = None,
        start_scores: Sequence[int] | None = None,
        points: Sequence[dict[str, int]] | None = None,
        announcements: Sequence[Announcement] = (),
        plays: Sequence[tuple[int, int, int]] = (),
    ) -> HandState:
        """Build a mid-hand position directly (for tests and the policies' samples).

        Every one of the 40 cards must lie in exactly one of ``hands``,
        ``table``, ``stock`` (top first), ``pile`` (bottom first) and
        ``captured`` (by side). The deal in progress follows from the stock size
        (D4) and the player to move from the hand sizes (D3: those who have
        played this round hold one card fewer). ``last_laid`` is the card the
        previous play laid (it must be on the table), None when the previous play
        captured or there was none. ``points`` are the hand's points so far by
        side and source. Raises :class:`UsageError` on an impossible position.
        """
        self = cls.__new__(cls)
        self._init_empty(options, dealer, start_scores)
        n = self.n
        if len(hands) != n:
            raise UsageError(f"{len(hands)} hands for {n} players")
        self.hands = [[_check_card_id(c) for c in h] for h in hands]
        for c in table:
            v = _check_card_id(c) // 4
            if v in self.table:
                raise UsageError("two cards of one value on the table (P4)")
            self.table[v] = c
        self.stock = [_check_card_id(c) for c in stock]
        self.pile = [_check_card_id(c) for c in pile]
        if captured is None:
            captured = [[] for _ in range(self.n_sides)]
        if len(captured) != self.n_sides:
            raise UsageError(f"{len(captured)} captured piles for {self.n_sides} sides")
        self.captured = [[_check_card_id(c) for c in side] for side in captured]
        everything = [*(c for h in self.hands for c in h), *self.table.values(), *self.stock]
        everything += [*self.pile, *(c for side in self.captured for c in side)]
        if sorted(everything) != list(range(N_CARDS)):
            raise UsageError("a position must hold each of the 40 cards exactly once")
        if face_up is not None:
            if n != 3:
                raise UsageError("only 3 players have a face-up card (D4)")
            self.face_up = _check_card_id(face_up)
        # D4: the deal in progress follows from the number of cards dealt so far.
        dealt = N_CARDS - len(self.stock) - (1 if n == 3 else 0)
        total = 0
        for k, size in enumerate(options.deal_sizes):
            total += size * n
            if total == dealt:
                self.deal_index = k
        if self.deal_index < 0:
            raise UsageError(f"a stock of {len(self.stock)} cards does not fit the deals (D4)")
        # D3: in play order, those who have played this round hold one card fewer.
        order = self._play_order()
        sizes = [len(self.hands[p]) for p in order]
        k = max(sizes)
        movers = [i for i, s in enumerate(sizes) if s == k]
        if k == 0 or k > options.deal_sizes[self.deal_index]:
            raise UsageError(f"hand sizes {sizes} do not fit deal {self.deal_index} (D4)")
        if any(s not in (k, k - 1) for s in sizes) or movers != list(range(movers[0], n)):
            raise UsageError(f"hand sizes {sizes} (in play order) are not a round of play (D3)")
        self._turn = order[movers[0]]
        if self.pile:
            if pile_hitter != (self._turn - 1) % n:
                raise UsageError("a pile in play belongs to the previous player (X3, X4)")
            self.pile_hitter = pile_hitter
            if last_laid is not None:
                raise UsageError("a pile in play means the previous play captured (X2d)")
        if last_laid is not None and self.table.get(last_laid // 4) != last_laid:
            raise UsageError("the card laid by the previous play must be on the table (X1)")
        self.last_laid = last_laid
        self.last_capturer = last_capturer
        if points is not None:
            if len(points) != self.n_sides:
                raise UsageError(f"{len(points)} point tables for {self.n_sides} sides")
            for side, table_of in enumerate(points):
                for source, value in table_of.items():
                    if source not in SOURCES:
                        raise UsageError(f"unknown source of points {source!r} (S2)")
                    self.points[side][source] = int(value)
        self.announcements = list(announcements)
        self.plays = [tuple(p) for p in plays]
        return self

    def clone(self) -> HandState:
        """An independent copy (logs are copied shallowly: their items are immutable)."""
        other = HandState.__new__(HandState)
        other.__dict__.update(self.__dict__)
        other.hands = [list(h) for h in self.hands]
        other.stock = list(self.stock)
        other.table = dict(self.table)
        other.pile = list(self.pile)
        other.captured = [list(c) for c in self.captured]
        other.plays = list(self.plays)
        other.announcements = list(self.announcements)
        other.dealt = list(self.dealt)
        other.points = [dict(p) for p in self.points]
        other.events = list(self.events)
        other.records = list(self.records)
        return other

    # ------------------------------------------------------------ helpers

    def _play_order(self) -> list[int]:
        """D3: first player first, dealer last."""
        return [(self.first_player + i) % self.n for i in range(self.n)]

    def side_of(self, player: int) -> int:
        return self.options.side_of(player)

    def _credit(self, side: int, points: int, source: str, rule: str) -> tuple[int, int, str]:
        """S2: add ``points`` from ``source`` to ``side`` and log it."""
        self.points[side][source] += points
        self.events.append(Event("points", side=side, points=points, source=source, rule=rule))
        return (side, points, source)

    def _close_pile(self, rule: str) -> int:
        """X5: the pile in play goes to its last hitter's side; returns that side."""
        side = self.side_of(self.pile_hitter)
        cards = tuple(self.pile)
        self.captured[side].extend(cards)
        self.events.append(
            Event("close", player=self.pile_hitter, side=side, cards=cards, rule=rule)
        )
        self.pile = []
        self.pile_hitter = None
        return side

    def _take_run(self, v: int) -> tuple[int, ...]:
        """P2: take the card of value v, then the next values while present, Rey last."""
        taken = []
        while v <= REY and v in self.table:
            taken.append(self.table.pop(v))
            v += 1
        return tuple(taken)

    def _is_last_play(self) -> bool:
        """After removing the played card: no stock and every holding empty."""
        return not self.stock and all(not h for h in self.hands)

    # ------------------------------------------------------------ deals (D5, A1)

    def _deal_next(self) -> None:
        """D5: the next deal, one card at a time from the top, first player first.

        A1: in points mode, the announcements follow the first deal of the hand
        (``first_deal``) or every deal (``every_deal``), before its first play.
        """
        if any(self.hands):
            raise UsageError("the next deal is made only when every holding is empty (D5)")
        self.deal_index += 1
        size = self.options.deal_sizes[self.deal_index]
        order = self._play_order()
        for _ in range(size):
            for p in order:
                self.hands[p].append(self.stock.pop(0))
        for p in order:
            holding = tuple(self.hands[p])
            self.dealt.append((self.deal_index, p, holding))
            self.events.append(Event("deal", player=p, cards=holding))
        self._turn = self.first_player
        announcing = self.deal_index == 0 or self.options.announce == "every_deal"
        if self.options.scoring and announcing:
            self._announce()

    def _announce(self) -> None:
        """A1 .. A5: every holding as dealt announces; conflicts settled per deal."""
        made: list[Announcement] = []
        for p in self._play_order():
            for kind, v in holding_announcements(self.hands[p]):
                a = Announcement(deal=self.deal_index, player=p, kind=kind, value=v)
                made.append(a)
                self.events.append(
                    Event("announce", player=p, side=self.side_of(p), source=kind, value=v)
                )
        self.announcements.extend(made)
        for side, points, source in resolve_announcements(made, self.options):
            rule = "A4" if self.options.announce_conflict == "text" else "A5"
            self._credit(side, points, source, rule)

    # ------------------------------------------------------------ a play

    def _play(self, card: int) -> PlayRecord:
        """Play ``card`` for the player to move: P1 .. P5, X1 .. X7, M1, L1 .. L5.

        Credits follow S3: (1) closing a pile by X5a, (2) the capture, re-hit or
        laying, (3) Derba or re-hit points (with the X7 deduction), (4) Missa,
        (5) the dealer's last card. The next deal or the end of the hand is not
        part of the play (see :meth:`apply`).
        """
        if self.finished:
            raise UsageError("the hand is over")
        if self._needs_deal():
            raise UsageError("every holding is empty: the next deal comes first (D5)")
        p = self._turn
        if card not in self.hands[p]:
            shown = card_name(card) if isinstance(card, int) and 0 <= card < N_CARDS else card
            raise UsageError(f"card {shown!r} is not in player {p}'s hand (P1)")
        first_event = len(self.events)
        self.hands[p].remove(card)
        self.plays.append((p, card, self.deal_index))
        side = self.side_of(p)
        v = card // 4
        last_card = self._is_last_play()
        scoring = self.options.scoring
        credits: list[tuple[int, int, str]] = []

        # (1) X5a: another value closes the pile in play before the card acts.
        closed: tuple[int, ...] = ()
        closed_to = None
        if self.pile and self.pile[-1] // 4 != v:
            closed = tuple(self.pile)
            closed_to = self._close_pile("X5a")

        # (2) The card acts: re-hit (X4), capture run (P2, X1) or laying (P3).
        taken: tuple[int, ...] = ()
        hit = 0
        chain_closed = False
        previous_hitter = None
        if self.pile:
            # X4: same value as the pile's top: the card goes on the pile, which
            # moves to this player's side; it takes nothing from the table.
            action = "rehit"
            previous_hitter = self.pile_hitter
            self.pile.append(card)
            self.pile_hitter = p
            hit = sum(1 for c in self.pile if c // 4 == v) - 1
            self.last_capturer = p
            self.last_laid = None
            self.events.append(Event("rehit", player=p, side=side, cards=(card,)))
            if hit + 1 == 4:
                # X5b: all four cards of the value: the pile closes at once
                # (decision: right after the card lands, before the hit's points).
                self._close_pile("X5b")
                chain_closed = True
        elif v in self.table:
            taken = self._take_run(v)
            if self.last_laid is not None and self.last_laid // 4 == v:
                # X1: the previous play laid a v and this play is a v: Derba; its
                # cards form the pile in play (X3), the Derba card on top.
                action = "derba"
                self.pile = [*taken, card]
                self.pile_hitter = p
                hit = 1
            else:
                # P5: a plain capture goes to the side's captured cards at once.
                action = "capture"
                self.captured[side].extend((card, *taken))
            self.last_capturer = p
            self.last_laid = None
            self.events.append(Event(action, player=p, side=side, cards=(card, *taken)))
        else:
            # P3: laid; P4 guarantees no card of its value lies on the table.
            action = "lay"
            self.table[v] = card
            self.last_laid = card
            self.events.append(Event("lay", player=p, side=side, cards=(card,)))

        # (3) X6/X7: Derba and re-hit points.
        if hit and scoring:
            if self.options.derba_chain == "flat":
                credits.append(self._credit(side, 1, "derba", "X6"))
            else:
                credits.append(self._credit(side, TIER_POINTS[hit - 1], "derba", "X7"))
                if hit > 1:
                    # X7: the previous hit's side loses what that hit had earned.
                    loser = self.side_of(previous_hitter)
                    credits.append(self._credit(loser, -TIER_POINTS[hit - 2], "derba", "X7"))

        # (4) M1: took at least one card from the table and left it empty.
        missa = bool(taken) and not self.table
        if missa and scoring:
            credits.append(self._credit(side, 1, "missa", "M1"))

        # (5) L1 .. L5: the dealer's last card of the hand.
        if last_card and scoring:
            captures = action != "lay"
            if v == REY and captures:
                credits.append(self._credit(side, LAST_CARD_POINTS, "last_card", "L1"))
            elif v in (REY, AS):
                rule = "L2" if v == REY else "L3"
                for other in range(self.n_sides):
                    if other != side:
                        credits.append(self._credit(other, LAST_CARD_POINTS, "last_card", rule))

        self._turn = (p + 1) % self.n
        record = PlayRecord(
            player=p,
            card=card,
            action=action,
            taken=taken,
            closed=closed,
            closed_to=closed_to,
            hit=hit,
            chain_closed=chain_closed,
            missa=missa,
            last_card=last_card,
            credits=tuple(credits),
            events=tuple(self.events[first_event:]),
        )
        self.records.append(record)
        return record

    def _needs_deal(self) -> bool:
        return not self.finished and not any(self.hands) and bool(self.stock)

    def _needs_finish(self) -> bool:
        return not self.finished and not any(self.hands) and not self.stock

    def _finish(self) -> None:
        """End of the hand: X5c, then U1 (Ultima), then S1 for all sides at once."""
        if not self._needs_finish():
            raise UsageError("the hand ends only when the last card has been played")
        if self.pile:
            self._close_pile("X5c")
        if self.table:
            if self.last_capturer is None:
                raise UsageError("no capture in the whole hand: impossible by P4")
            side = self.side_of(self.last_capturer)
            cards = tuple(sorted(self.table.values()))
            self.captured[side].extend(cards)
            self.table.clear()
            self.events.append(Event("ultima", player=self.last_capturer, side=side, cards=cards))
        if self.options.scoring:
            share = self.options.share
            for side in range(self.n_sides):
                extra = max(0, len(self.captured[side]) - share)  # S1
                if extra:
                    self._credit(side, extra, "cards", "S1")
        self.finished = True
        self._turn = TERMINAL

    def _advance(self) -> None:
        """D5: the next deal once every holding is empty, or the end of the hand."""
        if self._needs_deal():
            self._deal_next()
        elif self._needs_finish():
            self._finish()

    # ------------------------------------------------------------ OpenSpiel-like API

    def current_player(self) -> int:
        """The seat to play, or :data:`TERMINAL` once the hand is over."""
        return TERMINAL if self.finished else self._turn

    def legal_actions(self) -> list[int]:
        """P1: any card of the mover's hand, sorted by id (= card order, Q1)."""
        if self.finished:
            return []
        return sorted(self.hands[self._turn])

    def apply(self, action: int) -> PlayRecord:
        """Play a card (P1), then deal or end the hand when every holding is empty."""
        record = self._play(action)
        self._advance()
        return record

    def is_terminal(self) -> bool:
        return self.finished

    def hand_points(self) -> tuple[int, ...]:
        """Points scored in this hand so far, by side (all sources)."""
        return tuple(sum(p.values()) for p in self.points)

    def scores(self) -> tuple[int, ...]:
        """S2: carried scores plus this hand's points, by side."""
        return tuple(s + h for s, h in zip(self.start_scores, self.hand_points(), strict=True))

    def points_by_source(self, side: int) -> dict[str, int]:
        """This hand's points of ``side`` by source (S2)."""
        return dict(self.points[side])

    def captured_cards(self, side: int) -> list[int]:
        """The cards ``side`` has captured (Ultima cards included once the hand is over)."""
        return sorted(self.captured[side])

    def hand(self, player: int) -> tuple[int, ...]:
        """``player``'s holding, sorted (hidden from the others, I2)."""
        return tuple(sorted(self.hands[player]))

    def ultima(self) -> tuple[int, tuple[int, ...]] | None:
        """U1: ``(side, cards)`` of the Ultima once the hand is over, or None."""
        for e in self.events:
            if e.kind == "ultima":
                return (e.side, e.cards)
        return None

    def cards_held(self, side: int) -> int:
        """Q1: captured cards, plus an open pile in play for its last hitter's side."""
        held = len(self.captured[side])
        if self.pile and self.side_of(self.pile_hitter) == side:
            held += len(self.pile)
        return held

    def table_cards(self) -> list[int]:
        return sorted(self.table.values())

    def hand_winner(self) -> int | None:
        """C2: the side with strictly more captured cards than every other side."""
        counts = [len(c) for c in self.captured]
        best = max(counts)
        return counts.index(best) if counts.count(best) == 1 else None

    def returns(self) -> tuple[int, ...]:
        """Points mode: the points scored in the hand by side (so far, if not over).

        Classic mode *(decision)*: 1 for the hand's winning side (C2), 0 for the
        others; all 0 before the end or when the hand has no winner.
        """
        if self.options.scoring:
            return self.hand_points()
        winner = self.hand_winner() if self.finished else None
        return tuple(1 if s == winner else 0 for s in range(self.n_sides))

    def holding_counters(self) -> list[tuple[int, int, int, int]]:
        """``(deal, player, rondas, tringlas)`` for every 4-card holding dealt so far.

        Counted whether or not they score (classic mode, later deals under
        ``first_deal``); two pairs are two Rondas, four of a value one Tringla.
        """
        out = []
        for deal, player, holding in self.dealt:
            if len(holding) == 4:
                rondas, tringlas = holding_counts(holding)
                out.append((deal, player, rondas, tringlas))
        return out

    def observation(self, player: int) -> dict:
        """I1: exactly what ``player`` may see; never another hand nor the stock order (I2).

        Keys: seat, side, players, dealer, first_player, options, turn, deal
        (0-based index of the deal in progress), hand, hand_sizes, stock_size,
        table, face_up, pile (bottom to top), pile_hitter, previous_laid (the card
        the previous play laid, else None), last_capturer, plays ((player, card,
        deal) in order), captured (by side), announcements, scores (totals),
        hand_points, points_by_source (by side), finished.
        """
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.n:
            raise UsageError(f"player={player!r} outside 0..{self.n - 1}")
        hand_points = self.hand_points()
        return {
            "seat": player,
            "side": self.side_of(player),
            "players": self.n,
            "dealer": self.dealer,
            "first_player": self.first_player,
            "options": self.options,
            "turn": self.current_player(),
            "deal": self.deal_index,
            "hand": tuple(sorted(self.hands[player])),
            "hand_sizes": tuple(len(h) for h in self.hands),
            "stock_size": len(self.stock),
            "table": tuple(sorted(self.table.values())),
            "face_up": self.face_up,
            "pile": tuple(self.pile),
            "pile_hitter": self.pile_hitter,
            "previous_laid": self.last_laid,
            "last_capturer": self.last_capturer,
            "plays": tuple(self.plays),
            "captured": tuple(tuple(sorted(c)) for c in self.captured),
            "announcements": tuple(self.announcements),
            "scores": tuple(s + h for s, h in zip(self.start_scores, hand_points, strict=True)),
            "start_scores": self.start_scores,
            "hand_points": hand_points,
            "points_by_source": tuple(tuple(sorted(p.items())) for p in self.points),
            "finished": self.finished,
        }

    @classmethod
    def from_observation(
        cls, obs: dict, hidden_hands: dict[int, Sequence[int]], stock: Sequence[int]
    ) -> HandState:
        """Rebuild a state from an observation plus an assignment of its unseen cards.

        ``hidden_hands`` gives every other player's hand, ``stock`` the stock
        order; used by the policies (Q1 samples, Q3 single plays).
        """
        n = obs["players"]
        hands = [list(obs["hand"]) if p == obs["seat"] else list(hidden_hands[p]) for p in range(n)]
        points = [dict(p) for p in obs["points_by_source"]]
        return cls.from_position(
            obs["options"],
            obs["dealer"],
            hands,
            table=obs["table"],
            stock=stock,
            face_up=obs["face_up"],
            pile=obs["pile"],
            pile_hitter=obs["pile_hitter"],
            captured=obs["captured"],
            last_laid=obs["previous_laid"],
            last_capturer=obs["last_capturer"],
            start_scores=obs["start_scores"],
            points=points,
            announcements=obs["announcements"],
            plays=obs["plays"],
        )


# --------------------------------------------------------------------------
# The match (S4, S5, C2, C3)
# --------------------------------------------------------------------------


def draw_first_dealer(rng: random.Random, players: int) -> int:
    """D3: the first dealer of a match, drawn uniformly by the caller's stream."""
    if players not in DEAL_SIZES:
        raise UsageError(f"players={players}: Ronda is for 2, 3 or 4 players (D2)")
    return rng.randrange(players)


def target_winner(totals: Sequence[int], target: int) -> int | None:
    """S4/S5: the winning side when a side has reached ``target`` and one side alone
    has the highest total; None otherwise (nobody there, or a tie at the top)."""
    top = max(totals)
    if top < target:
        return None
    leaders = [s for s, t in enumerate(totals) if t == top]
    return leaders[0] if len(leaders) == 1 else None


class MatchState:
    """A match: hands until the target (points mode) or ``hands_to_win`` (classic).

    ``decks`` gives the deck of each hand (a permutation of 0..39, top first):
    either a callable ``decks(hand_index)`` or a sequence indexed by hand.
    ``first_dealer`` is drawn by the caller (D3); later dealers follow D3.
    ``start_scores`` / ``hands_won`` / ``hand`` start the match from a given
    position (for tests): ``hand`` replaces the first hand (its own start scores
    are the match scores) and no check is made before its first play.
    """

    def __init__(
        self,
        options: RondaOptions,
        first_dealer: int,
        decks: Callable[[int], Sequence[int]] | Sequence[Sequence[int]],
        *,
        start_scores: Sequence[int] | None = None,
        hands_won: Sequence[int] | None = None,
        hand: HandState | None = None,
    ) -> None:
        if not isinstance(options, RondaOptions):
            raise UsageError(f"options must be RondaOptions, got {options!r}")
        self.options = options
        self._decks = decks
        n_sides = options.n_sides
        self.hands_won = list(hands_won) if hands_won is not None else [0] * n_sides
        self.hand_index = 0
        self.winner: int | None = None
        self.finished_hands: list[HandState] = []
        self.check_points: list[tuple[str, tuple[int, ...]]] = []  # (where, totals), S5
        if hand is not None:
            if start_scores is not None:
                raise UsageError("give start_scores either to the match or to its hand")
            if hand.options != options:
                raise UsageError("the given hand was built with other options")
            self.hand = hand
            self.dealer = hand.dealer
        else:
            self.dealer = first_dealer
            self.hand = HandState(options, first_dealer, self._deck(0), start_scores=start_scores)
            self._check("deal")

    def _deck(self, hand_index: int) -> Sequence[int]:
        if callable(self._decks):
            return self._decks(hand_index)
        if hand_index >= len(self._decks):
            raise UsageError(f"no deck given for hand {hand_index}")
        return self._decks[hand_index]

    def _immediate(self) -> bool:
        return self.options.scoring and self.options.target_check == "immediate"

    def _check(self, where: str) -> bool:
        """S5: a check point of ``target_check=immediate`` (announcements, play)."""
        if not self._immediate():
            return False
        return self._check_target(where)

    def _check_target(self, where: str) -> bool:
        totals = self.hand.scores()
        self.check_points.append((where, totals))
        self.winner = target_winner(totals, self.options.target)
        return self.winner is not None

    def _hand_over(self) -> None:
        """S4 (points) or C2/C3 (classic) after a finished hand; else D3 and a new hand."""
        self.finished_hands.append(self.hand)
        if self.options.scoring:
            if self._check_target("end"):  # S4 and S5: after U1 and the S1 count
                return
        else:
            w = self.hand.hand_winner()  # C2
            if w is not None:
                self.hands_won[w] += 1
                if self.hands_won[w] >= self.options.hands_to_win:  # C3
                    self.winner = w
                    return
        # D3: the deal passes to the first player of the hand just played.
        self.dealer = (self.dealer + 1) % self.options.players
        self.hand_index += 1
        scores = self.hand.scores()
        self.hand = HandState(
            self.options, self.dealer, self._deck(self.hand_index), start_scores=scores
        )
        self._check("deal")

    def current_player(self) -> int:
        return TERMINAL if self.winner is not None else self.hand.current_player()

    def legal_actions(self) -> list[int]:
        return [] if self.winner is not None else self.hand.legal_actions()

    def apply(self, action: int) -> PlayRecord:
        """Play a card; with ``immediate`` the target is checked after the play, after
        the next deal's announcements and after the end of the hand (S5)."""
        if self.winner is not None:
            raise UsageError("the match is over")
        h = self.hand
        record = h._play(action)
        if self._check("play"):
            return record
        if h._needs_deal():
            h._deal_next()
            self._check("deal")
        elif h._needs_finish():
            h._finish()
            self._hand_over()
        return record

    def is_terminal(self) -> bool:
        return self.winner is not None

    def scores(self) -> tuple[int, ...]:
        return self.hand.scores()

    def returns(self) -> tuple[float, ...]:
        """1.0 for the winning side, 0.0 for the others (all 0.0 before the end)."""
        return tuple(1.0 if s == self.winner else 0.0 for s in range(self.options.n_sides))

    def observation(self, player: int) -> dict:
        """The hand's observation (I1) plus the match's public state."""
        obs = self.hand.observation(player)
        obs["turn"] = self.current_player()
        obs["hand_index"] = self.hand_index
        obs["hands_won"] = tuple(self.hands_won)
        obs["match_over"] = self.winner is not None
        return obs


# --------------------------------------------------------------------------
# Policies (Q1 .. Q5)
# --------------------------------------------------------------------------


def unseen_cards(obs: dict) -> list[int]:
    """I2: the 40 cards minus everything in the observation (other hands + stock)."""
    seen = set(obs["hand"]) | set(obs["table"]) | set(obs["pile"])
    for side in obs["captured"]:
        seen |= set(side)
    return [c for c in range(N_CARDS) if c not in seen]


def _placeholder_state(obs: dict) -> HandState:
    """The observed position with the unseen cards placed arbitrarily.

    A single play's result (Q3) does not depend on the hidden cards: the play
    itself, and the end of the hand if it is the last play, use public facts
    only. The next deal is never made here.
    """
    unseen = unseen_cards(obs)
    hidden: dict[int, list[int]] = {}
    for p in range(obs["players"]):
        if p != obs["seat"]:
            size = obs["hand_sizes"][p]
            hidden[p], unseen = unseen[:size], unseen[size:]
    return HandState.from_observation(obs, hidden, unseen)


def score_without_announcements(state: HandState, side: int) -> int:
    """Q1's P of ``side``: the hand's points so far, announcements left out."""
    points = state.points[side]
    return points["derba"] + points["missa"] + points["last_card"] + points["cards"]


def stretch_value(before: HandState, after: HandState, side: int) -> int:
    """Q1: V(s) = 100 * (dP(s) - sum of dP(t) over the other sides) + dK(s).

    dP leaves announcement points out; dK counts an open pile in play for its
    last hitter's side.
    """
    dp = [
        score_without_announcements(after, t) - score_without_announcements(before, t)
        for t in range(before.n_sides)
    ]
    dk = after.cards_held(side) - before.cards_held(side)
    return 100 * (dp[side] - sum(d for t, d in enumerate(dp) if t != side)) + dk


def _play_alone(state: HandState, card: int) -> tuple[HandState, PlayRecord]:
    """One play and, if it is the last of the hand, the end of the hand (Q1)."""
    after = state.clone()
    record = after._play(card)
    if after._needs_finish():
        after._finish()
    return after, record


def derba_risk(obs: dict, record: PlayRecord, unseen: Sequence[int] | None = None) -> float:
    """Q1: the chance that the next player holds the candidate's value v when he plays.

    0 when the play captures from the table without a Derba, closes a chain
    (X5b) or is the last play of the hand. Otherwise (laid, or a pile in play of
    top value v is left): 1 if the next player's announcements at the current
    deal prove he still holds a v (2 for a Ronda or 3 for a Tringla of v, minus
    the v's he has played since, above 0), else the hypergeometric
    1 - C(U-u, h) / C(U, h): U unseen cards, u of them of value v, h his hand
    size at his next play (the next deal's size if his hand is empty).
    ``unseen`` may pass :func:`unseen_cards` of ``obs`` when already known.
    """
    if record.action == "capture" or record.chain_closed or record.last_card:
        return 0.0
    v = record.card // 4
    n = obs["players"]
    nxt = (obs["seat"] + 1) % n
    deal = obs["deal"]
    for a in obs["announcements"]:
        if a.deal == deal and a.player == nxt and a.value == v:
            held = 2 if a.kind == "ronda" else 3
            played = sum(1 for q, c, d in obs["plays"] if q == nxt and d == deal and c // 4 == v)
            if held - played > 0:
                return 1.0
    if unseen is None:
        unseen = unseen_cards(obs)
    big_u = len(unseen)
    u = sum(1 for c in unseen if c // 4 == v)
    h = obs["hand_sizes"][nxt]
    if h == 0:
        h = obs["options"].deal_sizes[deal + 1]
    return 1.0 - math.comb(big_u - u, h) / math.comb(big_u, h)


def random_policy(obs: dict, uniform: float | random.Random) -> int:
    """Q2: each card of the hand with equal probability, one draw per decision.

    ``uniform`` is one number in [0, 1) (or a ``random.Random`` to draw it
    from); the card of rank floor(u * k) in card order is played.
    """
    hand = obs["hand"]
    if not hand:
        raise UsageError("no card to play")
    u = uniform.random() if isinstance(uniform, random.Random) else float(uniform)
    if not 0.0 <= u < 1.0:
        raise UsageError(f"uniform {u!r} outside [0, 1)")
    return hand[min(int(u * len(hand)), len(hand) - 1)]


def greedy_scores(obs: dict) -> list[tuple[int, int, float]]:
    """Q3: ``(card, V, Derba risk)`` of each card of the hand, in card order."""
    base = _placeholder_state(obs)
    side = obs["side"]
    unseen = unseen_cards(obs)
    out = []
    for card in obs["hand"]:
        after, record = _play_alone(base, card)
        out.append((card, stretch_value(base, after, side), derba_risk(obs, record, unseen)))
    return out


def _best(candidates: Sequence[tuple[int, float, float]]) -> int:
    """Highest value, then lowest Derba risk, then card order (Q1, Q3)."""
    return min(candidates, key=lambda t: (-t[1], t[2], t[0]))[0]


def greedy_policy(obs: dict) -> int:
    """Q3: the card whose single play has the highest V(own side); ties go to the
    lowest Derba risk, then to card order."""
    return _best(greedy_scores(obs))


def _current_deal_announcing(obs: dict) -> bool:
    options = obs["options"]
    return options.scoring and (obs["deal"] == 0 or options.announce == "every_deal")


def _other_players(obs: dict) -> list[int]:
    """Every seat but the observer's, in seat order."""
    return [p for p in range(obs["players"]) if p != obs["seat"]]


def _announcement_constraints(
    obs: dict,
) -> tuple[dict[int, list[tuple[str, int]]], dict[int, list[int]]]:
    """Q1/Q7: what the current deal's announcements say about the other hands.

    Returns ``(wanted, played)``: for every other player, the sorted
    ``(kind, value)`` announcements he made at the current deal and the cards he
    has played since it; a hand ``h`` is consistent for him when
    ``holding_announcements(h + played[p])`` sorts to ``wanted[p]``. Both are
    empty when the current deal did not announce (A1, C1): nothing constrains.
    """
    wanted: dict[int, list[tuple[str, int]]] = {}
    played: dict[int, list[int]] = {}
    if _current_deal_announcing(obs):
        deal = obs["deal"]
        for p in _other_players(obs):
            wanted[p] = sorted(
                (a.kind, a.value) for a in obs["announcements"] if a.deal == deal and a.player == p
            )
            played[p] = [c for q, c, d in obs["plays"] if q == p and d == deal]
    return wanted, played


def consistent_sample(
    obs: dict, rng: random.Random, *, max_tries: int = 1_000_000
) -> tuple[dict[int, list[int]], list[int]]:
    """Q1: a uniformly random assignment of the unseen cards to the other hands and
    to the stock (in an order) consistent with the current deal's announcements.

    A sample is consistent when every other player's holding as dealt (his cards
    plus those he has played since the deal) gives exactly the announcements he
    made at that deal. When the deal was an announcing deal, a player who
    announced nothing must have held no pair *(decision)*.

    Exact rejection sampling in two stages: each constrained player's hand is
    drawn uniformly among the hands that satisfy his own constraint (rejection
    on random subsets of the unseen cards); the draw is kept only if these
    hands are disjoint, which leaves every consistent tuple equally likely.
    The remaining cards are then shuffled into the unconstrained hands (seat
    order) and the stock. Raises RuntimeError after ``max_tries`` draws.
    """
    unseen = unseen_cards(obs)
    others = _other_players(obs)
    sizes = obs["hand_sizes"]
    wanted, played = _announcement_constraints(obs)
    tries = 0

    def own_hand(p: int) -> list[int]:
        nonlocal tries
        while tries < max_tries:
            tries += 1
            hand = rng.sample(unseen, sizes[p])
            if sorted(holding_announcements(hand + played[p])) == wanted[p]:
                return hand
        raise RuntimeError("no consistent sample found (Q1)")

    while True:
        hands = {p: own_hand(p) for p in wanted}
        used = [c for h in hands.values() for c in h]
        if len(set(used)) == len(used):
            break
        tries += 1
        if tries >= max_tries:
            raise RuntimeError("no consistent sample found (Q1)")
    taken = set(used)
    rest = [c for c in unseen if c not in taken]
    rng.shuffle(rest)
    for p in others:
        if p not in hands:
            hands[p], rest = rest[: sizes[p]], rest[sizes[p] :]
    return {p: hands[p] for p in others}, rest


def _max_n(state: HandState, plays_left: int) -> HandState:
    """Q4: each mover picks the card maximising his own side's V from his play to
    the horizon (``plays_left`` plays, or the end of the hand); ties by card order."""
    if plays_left == 0 or state.finished:
        return state
    mover = state.current_player()
    side = state.side_of(mover)
    best_final = None
    best_value = None
    for card in state.legal_actions():
        child = state.clone()
        child.apply(card)
        final = _max_n(child, plays_left - 1)
        value = stretch_value(state, final, side)
        if best_value is None or value > best_value:
            best_value, best_final = value, final
    return best_final


Sample = tuple[dict[int, list[int]], list[int]]
"""A consistent sample: the other players' hands by seat, and the stock, top first."""

Assignment = dict[int, tuple[int, ...]]
"""Q7: the other players' hands by seat (each sorted); the stock is empty."""


def in_last_deal(obs: dict) -> bool:
    """Q7: the stock is empty, so the hand is in its last deal (D4) and every unseen
    card is in another player's hand (I2)."""
    return obs["stock_size"] == 0


def consistent_assignments(obs: dict) -> list[Assignment]:
    """Q7: every consistent assignment of the unseen cards to the other hands, once each.

    Only once the stock is empty (:func:`in_last_deal`): the unseen cards are
    then exactly the other players' hands, and an assignment gives each other
    player a set of cards of his hand size (the order within a hand does not
    matter, so each set is counted once). If the last deal announced (A1:
    ``announce=every_deal`` in points mode), every other player's holding as
    dealt -- his cards plus those he has played since the deal -- must give
    exactly the announcements he made then, as in a Q1 consistent sample
    (nothing announced: no pair). Without announcements the count is the
    multinomial U! / prod(h_p!) over the other players' hand sizes h_p.

    Assignments come in a fixed order: seats ascending, each hand's cards in
    lexicographic order of the combinations of the sorted unseen cards.
    """
    if not in_last_deal(obs):
        raise UsageError("consistent assignments are enumerated only once the stock is empty (Q7)")
    unseen = sorted(unseen_cards(obs))
    others = _other_players(obs)
    sizes = obs["hand_sizes"]
    if sum(sizes[p] for p in others) != len(unseen):
        raise UsageError("the unseen cards do not fill the other hands exactly (I2)")
    wanted, played = _announcement_constraints(obs)
    out: list[Assignment] = []

    def place(i: int, left: list[int], hands: Assignment) -> None:
        if i == len(others):
            out.append(dict(hands))
            return
        p = others[i]
        for hand in itertools.combinations(left, sizes[p]):
            if p in wanted and sorted(holding_announcements([*hand, *played[p]])) != wanted[p]:
                continue
            hands[p] = hand
            place(i + 1, [c for c in left if c not in hand], hands)
        hands.pop(p, None)

    place(0, unseen, {})
    return out


def solve_to_end(state: HandState) -> HandState:
    """Q7: max-n to the end of the hand (U1 and S1 included), every hand known;
    each mover maximises his own side's V from his play to the end, ties by card
    order. Returns the final state of the principal line."""
    return _max_n(state, N_CARDS)


def last_deal_values(obs: dict) -> dict[int, Fraction]:
    """Q7: each candidate card's value, V(own side) from the candidate to the end
    of the hand under max-n play, averaged over :func:`consistent_assignments`
    (each counted once). Exact fractions, so that ties are ties."""
    assignments = consistent_assignments(obs)
    if not assignments:
        raise UsageError("no consistent assignment of the unseen cards (Q7)")
    side = obs["side"]
    totals = dict.fromkeys(obs["hand"], 0)
    for hidden in assignments:
        base = HandState.from_observation(obs, hidden, [])
        for card in obs["hand"]:
            child = base.clone()
            child.apply(card)
            totals[card] += stretch_value(base, solve_to_end(child), side)
    return {card: Fraction(total, len(assignments)) for card, total in totals.items()}


def last_deal_policy(obs: dict) -> int:
    """Q7: the candidate of highest :func:`last_deal_values`; ties by Derba risk,
    then card order. Draws nothing from any random stream."""
    values = last_deal_values(obs)
    risks = {card: risk for card, _, risk in greedy_scores(obs)}
    return _best([(c, values[c], risks[c]) for c in obs["hand"]])


def lookahead_policy(obs: dict, rng: random.Random, depth: int = 1, samples: int = 32,
                     drawn: Sequence[Sample] | None = None) -> int:
    """Q4 ``lookahead:D``: for each of ``samples`` consistent samples (the same for
    every candidate) the candidate is played, then the next ``depth`` plays by
    max-n search; the candidate's value is the mean V(own side) over those plays.
    Highest wins, ties by Derba risk, then card order.

    Once the stock is empty the last deal is solved exactly instead (Q7,
    :func:`last_deal_policy`): no sample is drawn and ``depth`` no longer
    applies. ``drawn`` gives the samples instead of drawing them from ``rng``
    (to play another engine's samples); it is ignored in the last deal."""
    if depth < 1 or samples < 1:
        raise UsageError("lookahead needs depth >= 1 and samples >= 1 (Q4)")
    return _sampled_choice(obs, rng, samples, drawn, lambda child: _max_n(child, depth))


def rollout_policy(obs: dict, rng: random.Random, k: int = 32,
                   drawn: Sequence[Sample] | None = None) -> int:
    """Q5 ``rollout:K``: for each of K consistent samples (the same for every
    candidate) the candidate is played, then every player plays ``greedy`` from
    his own observation to the end of the hand; the candidate's value is the mean
    V(own side). Highest wins, ties by Derba risk, then card order.

    Once the stock is empty the last deal is solved exactly instead (Q7,
    :func:`last_deal_policy`): no sample is drawn. ``drawn`` gives the samples
    instead of drawing them from ``rng``; it is ignored in the last deal."""
    if k < 1:
        raise UsageError("rollout needs K >= 1 (Q5)")
    return _sampled_choice(obs, rng, k, drawn, _greedy_to_end)


def _greedy_to_end(sim: HandState) -> HandState:
    """Q5: every player plays ``greedy`` from his own observation to the end of the hand."""
    while not sim.finished:
        sim.apply(greedy_policy(sim.observation(sim.current_player())))
    return sim


def _sampled_choice(obs: dict, rng: random.Random, samples: int,
                    drawn: Sequence[Sample] | None,
                    play_on: Callable[[HandState], HandState]) -> int:
    """Q4, Q5: every candidate played on each of ``samples`` consistent samples (the same for
    every candidate; ``drawn`` gives them instead), then ``play_on`` from there; the
    candidate's value is the mean V(own side) of the positions it reaches. Highest wins, ties
    by Derba risk, then card order. In the last deal, Q7 instead (no sample drawn)."""
    if in_last_deal(obs):
        return last_deal_policy(obs)
    side = obs["side"]
    if drawn is None:
        drawn = [consistent_sample(obs, rng) for _ in range(samples)]
    risks = {card: risk for card, _, risk in greedy_scores(obs)}
    totals = dict.fromkeys(obs["hand"], 0)
    for hidden, stock in drawn:
        base = HandState.from_observation(obs, hidden, stock)
        for card in obs["hand"]:
            child = base.clone()
            child.apply(card)
            totals[card] += stretch_value(base, play_on(child), side)
    return _best([(c, totals[c] / len(drawn), risks[c]) for c in obs["hand"]])


ISMCTS_ITERATIONS = 1000
"""Q8: the default N of ``ismcts``."""
ISMCTS_C = 0.5
"""Q8: the default exploration constant C of ``ismcts``."""


class _IsmctsNode:
    """Q8: one node of the tree, the sequence of values played since the decision: n (visits),
    n' (availability), W (sum of the values V of ``side``, the side of the player whose play
    leads here) and the children by value."""

    __slots__ = ("avail", "children", "side", "total", "value", "visits")

    def __init__(self, side: int, value: int = -1) -> None:
        self.side = side
        self.value = value  # the value index whose play leads here (-1: the root)
        self.visits = 0
        self.avail = 0
        self.total = 0
        self.children: dict[int, _IsmctsNode] = {}


def _first_of_value(hand: Sequence[int], v: int) -> int:
    """The first card of value index ``v`` in card order (D1: which one is played changes
    nothing)."""
    return min(c for c in hand if c // 4 == v)


def match_result(obs: dict, base: HandState, final: HandState) -> int | None:
    """Q10: the side that wins the match when the hand ends as ``final`` (a playout from the
    decision's position ``base``, seen from ``obs``, a match's observation), or None. Points
    mode, S4: the totals are the scores at the decision plus the points scored after it,
    announcements of later deals left out as Q1's V leaves them; classic mode, C3: the
    hand's winner (C2) with one more hand won than ``obs["hands_won"]``."""
    options = obs["options"]
    if options.scoring:
        totals = [s + score_without_announcements(final, t)
                  - score_without_announcements(base, t) for t, s in enumerate(obs["scores"])]
        return target_winner(totals, options.target)
    w = final.hand_winner()
    if w is None or obs["hands_won"][w] + 1 < options.hands_to_win:
        return None
    return w


def match_weight(options: RondaOptions) -> int:
    """Q10: what a match won adds to V (and a match lost takes from it): 100 points a target
    point in points mode (V counts a point as 100), 40 cards in classic mode."""
    return 100 * options.target if options.scoring else 40


def ismcts_policy(obs: dict, rng: random.Random, n: int = ISMCTS_ITERATIONS,
                  c: float = ISMCTS_C, drawn: Sequence[Sample] | None = None,
                  match: bool = False,
                  record: Callable[[int, HandState, HandState], None] | None = None) -> int:
    """Q8 ``ismcts:N:C``: N iterations of single-observer information-set Monte Carlo tree
    search, written from the rule text; with ``match`` (Q10 ``ismcts-match:N:C``, ``obs`` a
    match's observation) a playout that ends the match adds :func:`match_weight` to its
    winner's value and takes it from every other side's (:func:`match_result`).

    A hand of one value plays its first card and draws nothing. Otherwise each iteration
    draws a consistent sample (Q1), descends the tree of value sequences on it (the first
    untried value available to the mover is expanded, else UCB1 with availability counts
    picks among the available values, ties to the lower value), plays ``greedy`` to the end
    of the hand from the new node, and adds V(side) from the decision to the end of the hand
    to every node of its path, ``side`` being the node's. The root child with the most visits
    wins; ties by the higher mean, then Derba risk, then card order. ``drawn`` gives the
    samples (one per iteration, N of them) instead of drawing them from ``rng``; unlike Q4 and
    Q5, Q7 does not apply: the last deal is searched the same way. ``record(v, base, final)``,
    when given, is told each iteration's root value ``v`` (the value index played at the
    decision), its sampled position and where its playout ended (the advisor's statistics);
    it changes nothing the search does."""
    if n < 1 or not c >= 0:
        raise UsageError("ismcts needs N >= 1 and C >= 0 (Q8)")
    hand = obs["hand"]
    if len({card // 4 for card in hand}) == 1:
        return hand[0]
    n_sides = obs["options"].n_sides
    root = _IsmctsNode(obs["side"])
    lo = hi = 0  # least and greatest V seen so far, any side, any iteration
    first = True
    if drawn is None:
        drawn = (consistent_sample(obs, rng) for _ in range(n))
    for hidden, stock in drawn:
        base = HandState.from_observation(obs, hidden, stock)
        state = base.clone()
        node = root
        path = []
        span = hi - lo
        while not state.is_terminal():
            mover = state.current_player()
            available = sorted({card // 4 for card in state.hand(mover)})
            untried = [v for v in available if v not in node.children]
            if untried:
                v = untried[0]
                node.children[v] = _IsmctsNode(state.side_of(mover), v)
            else:  # UCB1 with availability counts, ties to the lower value
                v, best = -1, 0.0
                for w in available:
                    ch = node.children[w]
                    mean = ch.total / ch.visits
                    score = (mean - lo) / span if span > 0 else 0.0
                    score += c * math.sqrt(math.log(ch.avail) / ch.visits)
                    if v < 0 or score > best:
                        v, best = w, score
            for w in available:
                if w in node.children:
                    node.children[w].avail += 1
            node = node.children[v]
            path.append(node)
            state.apply(_first_of_value(state.hand(mover), v))
            if untried:  # the playout: greedy to the end of the hand
                while not state.is_terminal():
                    state.apply(greedy_policy(state.observation(state.current_player())))
                break
        if record is not None:
            record(path[0].value, base, state)
        values = [stretch_value(base, state, t) for t in range(n_sides)]
        if match:
            w = match_result(obs, base, state)
            if w is not None:
                values = [v + (1 if t == w else -1) * match_weight(obs["options"])
                          for t, v in enumerate(values)]
        for nd in path:
            nd.visits += 1
            nd.total += values[nd.side]
        if first:
            lo, hi, first = min(values), max(values), False
        else:
            lo, hi = min(lo, *values), max(hi, *values)
    risks = {card: risk for card, _, risk in greedy_scores(obs)}
    best = None
    for card in hand:
        v = card // 4
        if card != _first_of_value(hand, v):
            continue
        ch = root.children.get(v)
        visits, total = (ch.visits, ch.total) if ch else (0, 0)
        key = (visits, Fraction(total, visits) if visits else Fraction(0), -risks[card])
        if best is None or key > best[0]:
            best = (key, card)
    return best[1]


def seeing_policy(state: HandState, n: int = ISMCTS_ITERATIONS, c: float = ISMCTS_C) -> int:
    """Q9 ``seeing:N:C``, the card the player to move in ``state`` plays: Q8's search
    (:func:`ismcts_policy`) with every iteration's sample the true position, the other hands
    and the stock of ``state`` itself. Not a legal policy (it reads hidden cards, I2), so it
    takes the whole state, not an observation, and :func:`choose` does not play it."""
    p = state.current_player()
    truth = ({q: list(state.hands[q]) for q in range(state.n) if q != p}, list(state.stock))
    return ismcts_policy(state.observation(p), None, n=n, c=c, drawn=[truth] * n)


def parse_policy(spec: str) -> tuple[str, int | None] | tuple[str, int, float]:
    """``random``, ``greedy``, ``lookahead:D`` (default 1), ``rollout:K`` (default 32),
    ``ismcts:N:C`` or ``ismcts-match:N:C`` (defaults 1000 and :data:`ISMCTS_C`): the name, then
    its parameters."""
    name, _, arg = spec.partition(":")
    if name in ("random", "greedy") and not arg:
        return name, None
    if name in ("lookahead", "rollout"):
        default = 1 if name == "lookahead" else 32
        if not arg:
            return name, default
        if arg.isdigit() and int(arg) >= 1:
            return name, int(arg)
    if name == "seeing":
        raise UsageError(f"{spec}: seeing sees hidden cards (Q9), so it is no policy that plays "
                         "from an observation (seeing_policy plays it from the whole state)")
    if name in ("ismcts", "ismcts-match"):
        n_text, _, c_text = arg.partition(":")
        try:
            n = int(n_text) if n_text else ISMCTS_ITERATIONS
            c = float(c_text) if c_text else ISMCTS_C
        except ValueError:
            n, c = 0, 0.0
        if n >= 1 and math.isfinite(c) and c >= 0 and ":" not in c_text:
            return name, n, c
    raise UsageError(f"unknown policy {spec!r}; expected random, greedy, lookahead:D, rollout:K, "
                     "ismcts:N:C or ismcts-match:N:C")


def choose(spec: str, obs: dict, rng: random.Random) -> int:
    """Q6: play one decision of the policy ``spec`` from ``obs`` with its own stream."""
    parsed = parse_policy(spec)
    name, arg = parsed[0], parsed[1]
    if name == "random":
        return random_policy(obs, rng)
    if name == "greedy":
        return greedy_policy(obs)
    if name == "lookahead":
        return lookahead_policy(obs, rng, depth=arg)
    if name == "ismcts":
        return ismcts_policy(obs, rng, n=arg, c=parsed[2])
    if name == "ismcts-match":  # Q10: the match result where a match is played (MatchState)
        return ismcts_policy(obs, rng, n=arg, c=parsed[2], match="hands_won" in obs)
    return rollout_policy(obs, rng, k=arg)


def play_hand(
    options: RondaOptions,
    dealer: int,
    deck: Sequence[int],
    policies: Sequence[str],
    rngs: Sequence[random.Random],
    *,
    start_scores: Sequence[int] | None = None,
) -> HandState:
    """Play a whole hand with one policy and one random stream per seat (Q6, I3)."""
    state = HandState(options, dealer, deck, start_scores=start_scores)
    while not state.is_terminal():
        p = state.current_player()
        state.apply(choose(policies[p], state.observation(p), rngs[p]))
    return state
