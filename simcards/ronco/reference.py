"""Slow, obviously-correct reference engine for Ronco (and Poroli).

This module is a *test oracle*: it is written only from the rules text
(``seeds/ronco.md``) and deliberately models a round the way the text tells
it -- players acting one after the other, offering swaps, refusing them, the
dealer cutting -- so that a fast implementation can be checked against it.
Clarity beats speed everywhere; every rule is cited by its id (C1, R4, S2b,
G5, ...) where it is implemented.

Only the Python standard library is used.

It repeats on purpose what the project's rules module and kernels also say (the option checks,
small helpers such as the number of sides): an oracle that shared that code with the engine it
checks would hold the engine to itself.

Example: three players, all playing thresholds of 6 (S1). Position 0 holds a 3 and passes,
but position 1 holds the Rey and refuses the swap (R4), so the 3 stays with position 0;
position 1 keeps; the dealer's 5 is below 6, so he cuts and must take the As (R6), the lowest
card of the round: he alone loses (R8).

>>> threshold = RefPolicy("threshold", T=6, Td=6)
>>> out = play_round([(3, "oros"), (12, "copas"), (5, "espadas")], (1, "bastos"),
...                  [threshold] * 3)
>>> out.final_cards
((3, 'oros'), (12, 'copas'), (1, 'bastos'))
>>> out.losers, out.dealer_cut, out.cut_king_fired
((False, False, True), True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

Card = tuple[int, str]
"""A card is ``(value, suit)``; suits are those of rule C1."""

# --------------------------------------------------------------------------
# Cards (C1 .. C4)
# --------------------------------------------------------------------------

SPANISH_SUITS: tuple[str, ...] = ("oros", "copas", "espadas", "bastos")
FRENCH_SUITS: tuple[str, ...] = ("spades", "hearts", "diamonds", "clubs")

# C1: the values of each deck (Sota 10, Caballo 11, Rey 12; J 11, Q 12, K 13).
_DECK_VALUES: dict[str, tuple[int, ...]] = {
    "spanish40": (1, 2, 3, 4, 5, 6, 7, 10, 11, 12),
    "spanish48": (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12),
    "french52": tuple(range(1, 14)),
}
_DECK_SUITS: dict[str, tuple[str, ...]] = {
    "spanish40": SPANISH_SUITS,
    "spanish48": SPANISH_SUITS,
    "french52": FRENCH_SUITS,
}

# C4: the Poroli card is the As de bastos, or the ace of clubs in french52.
POROLI_CARDS: frozenset[Card] = frozenset({(1, "bastos"), (1, "clubs")})

CUT_KING_OPTIONS: tuple[str, ...] = ("loses", "blocked", "none")  # R7
TIES_OPTIONS: tuple[str, ...] = ("all", "first")  # R8
ABSOLUTE_TIE_OPTIONS: tuple[str, ...] = ("void", "replay")  # G6
POLICY_KINDS: tuple[str, ...] = ("threshold", "informed", "random", "bayes")  # S1 .. S4

MIN_PLAYERS = 2  # T1
MAX_PLAYERS = 20  # T1


def deck_cards(deck: str) -> list[Card]:
    """Return every card of ``deck`` (rule C1), suit by suit, values ascending.

    The order is irrelevant to the rules (the deck is shuffled, T3); it is fixed
    only so that callers get a reproducible list. Raises ValueError for a deck
    name that C1 does not define, because silently falling back to a default
    deck would hide a caller's mistake.
    """
    if deck not in _DECK_VALUES:
        raise ValueError(f"unknown deck {deck!r}; expected one of {sorted(_DECK_VALUES)}")
    return [(value, suit) for suit in _DECK_SUITS[deck] for value in _DECK_VALUES[deck]]


def top_rank(deck: str) -> int:
    """C3: the highest value of the deck (Rey 12 Spanish, King 13 french52).

    A card of this value is the *blocking card*: its holder refuses swaps (R4)
    and, cut by the dealer, it triggers R7.
    """
    return max(_DECK_VALUES[_checked_deck(deck)])


def is_poroli_card(card: Card) -> bool:
    """C4: whether ``card`` is the Poroli card (As de bastos / ace of clubs)."""
    return tuple(card) in POROLI_CARDS


def strength(card: Card, *, poroli: bool) -> int:
    """Return the card's strength (C2), with the Poroli override (C4).

    C2: the strength is the value, suits do not rank. C4: under the Poroli
    variant the As de bastos (ace of clubs in french52) has strength 0, below
    every other card including the other aces. Without ``poroli`` that card is
    an ordinary ace of strength 1.
    """
    value, suit = card
    if suit not in SPANISH_SUITS and suit not in FRENCH_SUITS:
        raise ValueError(f"unknown suit {suit!r} in card {card!r}")
    if poroli and is_poroli_card(card):
        return 0
    return value


def _checked_deck(deck: str) -> str:
    """Validate a deck name (C1) and return it."""
    if deck not in _DECK_VALUES:
        raise ValueError(f"unknown deck {deck!r}; expected one of {sorted(_DECK_VALUES)}")
    return deck


# --------------------------------------------------------------------------
# Policies (S1 .. S4)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RefPolicy:
    """A keep/pass (non-dealer) and keep/cut (dealer) decision rule.

    kind:
      * ``"threshold"`` (S1): a non-dealer keeps when strength >= T; the dealer
        cuts when strength < Td.
      * ``"informed"`` (S2): S1 overridden by certain safety (S2a) or certain
        loss (S2b).
      * ``"random"`` (S3): keeps (dealer: keeps rather than cuts) with
        probability p, using one uniform number per decision.
      * ``"bayes"`` (S4): looks its decision up in ``replies``, keyed by
        ``(n, position, history, current strength, dealt strength or None)``
        where ``history`` holds the earlier positions' public actions
        ("keep", "swap", "refused") in order; a state missing there keeps.
    Refusals are not a policy choice (R4): they are automatic.
    """

    kind: str  # "threshold" | "informed" | "random" | "bayes"  (rules S1 .. S4)
    T: int = 0  # non-dealer keep threshold
    Td: int = 0  # dealer threshold (cuts when strength < Td)
    p: float = 0.5  # random: keep probability
    replies: Mapping[tuple, bool] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class _View:
    """What a player knows when he acts (S2, R11), as far as S2 uses it.

    ``swapped_with_previous`` is True when the previous position passed to him
    and the swap took place (R3); then ``dealt_card`` -- the card he was dealt --
    is known to be the previous position's final card.
    """

    position: int
    n: int
    current: Card
    dealt_card: Card
    swapped_with_previous: bool
    history: tuple[str, ...] = ()  # the earlier positions' public actions (R11)

    @property
    def is_dealer(self) -> bool:
        """T2: position n-1 is the dealer."""
        return self.position == self.n - 1


def _validate_policy(policy: RefPolicy, deck: str) -> None:
    """Reject a policy S1 .. S4 do not define.

    S1 says both thresholds lie in 0 .. top+1 (0 always keeps, top+1 always
    passes or cuts); S3's p is a probability.
    """
    if not isinstance(policy, RefPolicy):
        raise ValueError(f"policy must be a RefPolicy, got {policy!r}")
    if policy.kind not in POLICY_KINDS:
        raise ValueError(f"unknown policy kind {policy.kind!r}; expected one of {POLICY_KINDS}")
    if policy.kind in ("threshold", "informed"):
        upper = top_rank(deck) + 1
        for name, value in (("T", policy.T), ("Td", policy.Td)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= upper:
                raise ValueError(f"policy {name}={value!r} outside 0..{upper} (S1)")
    elif policy.kind == "bayes":
        if policy.replies is None:
            raise ValueError("a bayes policy (S4) needs its replies")
    else:
        if not 0.0 <= policy.p <= 1.0:
            raise ValueError(f"random policy p={policy.p!r} outside [0, 1] (S3)")


def _threshold_keeps(policy: RefPolicy, view: _View, *, poroli: bool) -> bool:
    """S1: a non-dealer keeps when strength >= T; the dealer cuts when strength < Td.

    Returns True for "keep" (for the dealer: keep rather than cut).
    """
    s = strength(view.current, poroli=poroli)
    if view.is_dealer:
        return not (s < policy.Td)
    return s >= policy.T


def _certain_safety(view: _View, *, ties: str, poroli: bool) -> bool:
    """S2a: after a swap with the previous position, keeping cannot lose when
    the card he was dealt (now the previous position's final card) is strictly
    lower than his current card -- or equal to it under ties=first, because the
    previous position acted earlier and loses that tie (R8).
    """
    if not view.swapped_with_previous:
        return False
    prev_final = strength(view.dealt_card, poroli=poroli)
    mine = strength(view.current, poroli=poroli)
    if prev_final < mine:
        return True
    return ties == "first" and prev_final == mine


def _certain_loss(view: _View, *, deck: str, ties: str, cut_king: str, poroli: bool) -> bool:
    """S2b: whether keeping is proven to lose (S2a having not applied).

    *unseen* is every card of the deck except his current card and, when he
    swapped with the previous position, the card he was dealt. Keeping is
    proven to lose when no unseen card is strictly lower than his card, and
    moreover:
      * ties=first, not the dealer: no unseen card equals his card, or no
        earlier position has a final card he does not know (he is position 0,
        or position 1 and swapped with position 0);
      * ties=first, the dealer: no unseen card equals his card;
      * not the dealer and cut_king=loses: never proven (a cut Rey would save
        him, R7).
    """
    if not view.is_dealer and cut_king == "loses":
        return False
    excluded = {tuple(view.current)}
    if view.swapped_with_previous:
        excluded.add(tuple(view.dealt_card))
    unseen = [c for c in deck_cards(deck) if c not in excluded]
    mine = strength(view.current, poroli=poroli)
    unseen_strengths = [strength(c, poroli=poroli) for c in unseen]
    if any(s < mine for s in unseen_strengths):
        return False
    if ties == "first":
        no_equal_unseen = not any(s == mine for s in unseen_strengths)
        if view.is_dealer:
            return no_equal_unseen
        no_unknown_earlier = view.position == 0 or (
            view.position == 1 and view.swapped_with_previous
        )
        return no_equal_unseen or no_unknown_earlier
    return True


def _decide_keep(
    policy: RefPolicy,
    view: _View,
    uniform: float | None,
    *,
    deck: str,
    ties: str,
    cut_king: str,
    poroli: bool,
) -> bool:
    """Return True when the player keeps (the dealer: keeps rather than cuts).

    Dispatches to S1 (threshold), S2 (informed: S2a, then S2b, then S2c = S1)
    or S3 (random: keep when u < p).
    """
    if policy.kind == "threshold":
        return _threshold_keeps(policy, view, poroli=poroli)  # S1
    if policy.kind == "informed":
        if _certain_safety(view, ties=ties, poroli=poroli):  # S2a
            return True
        if _certain_loss(view, deck=deck, ties=ties, cut_king=cut_king, poroli=poroli):  # S2b
            return False
        return _threshold_keeps(policy, view, poroli=poroli)  # S2c
    if policy.kind == "random":
        if uniform is None:
            raise ValueError(f"random policy at position {view.position} needs a uniform (S3)")
        return uniform < policy.p  # S3
    if policy.kind == "bayes":
        assert policy.replies is not None
        dealt = (strength(view.dealt_card, poroli=poroli) if view.swapped_with_previous
                 else None)
        key = (view.n, view.position, view.history, strength(view.current, poroli=poroli),
               dealt)
        return policy.replies.get(key, True)  # S4
    raise ValueError(f"unknown policy kind {policy.kind!r}")


# --------------------------------------------------------------------------
# A round (R1 .. R10)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundOutcome:
    """The result of one round, by position (T2: 0 acts first, n-1 deals)."""

    losers: tuple[bool, ...]  # by position (0 acts first, n-1 is the dealer)
    double: tuple[bool, ...]  # True for a loser holding the Poroli card (R10)
    absolute_tie: bool  # R9
    final_cards: tuple[Card, ...]  # by position, after the round
    dealer_cut: bool  # the dealer chose to cut (R6), whatever R7 then did
    cut_king_fired: bool  # R7 'loses' made the dealer the sole loser


def _check_options(deck: str, cut_king: str, ties: str) -> None:
    """Reject option values that C1, R7 and R8 do not define."""
    _checked_deck(deck)
    if cut_king not in CUT_KING_OPTIONS:
        raise ValueError(f"unknown cut_king {cut_king!r}; expected one of {CUT_KING_OPTIONS}")
    if ties not in TIES_OPTIONS:
        raise ValueError(f"unknown ties {ties!r}; expected one of {TIES_OPTIONS}")


def _check_card(card: Card, deck: str, what: str) -> Card:
    """Return ``card`` as a tuple, raising ValueError when it is not in the deck."""
    try:
        as_tuple = (card[0], card[1])
        if len(card) != 2:
            raise TypeError
    except (TypeError, IndexError, KeyError):
        raise ValueError(f"{what} {card!r} is not a (value, suit) pair") from None
    if as_tuple not in deck_cards(deck):
        raise ValueError(f"{what} {card!r} is not a card of deck {deck!r} (C1)")
    return as_tuple


def play_round(
    dealt: Sequence[Card],
    cut_card: Card,
    policies: Sequence[RefPolicy],
    *,
    deck: str = "spanish40",
    cut_king: str = "loses",
    ties: str = "all",
    poroli: bool = False,
    uniforms: Sequence[float] | None = None,
) -> RoundOutcome:
    """Play one round exactly as rules R1 .. R10 tell it.

    ``dealt[i]`` is the card dealt to position i (T3); ``cut_card`` is the next
    card of the deck, used only if the dealer cuts (R6). ``policies[i]`` is
    position i's policy; a random policy (S3) at position i uses
    ``uniforms[i]``. ``cut_king`` is taken exactly as given (the P1 preset is
    the caller's business). Raises ValueError for inconsistent input: wrong
    lengths, unknown options, cards outside the deck or dealt twice.
    """
    _check_options(deck, cut_king, ties)
    n = len(dealt)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ValueError(f"{n} players; T1 allows {MIN_PLAYERS}..{MAX_PLAYERS}")
    if len(policies) != n:
        raise ValueError(f"{len(policies)} policies for {n} positions")
    if uniforms is not None and len(uniforms) != n:
        raise ValueError(f"{len(uniforms)} uniforms for {n} positions")
    cards: list[Card] = [_check_card(c, deck, f"dealt[{i}]") for i, c in enumerate(dealt)]
    cut: Card = _check_card(cut_card, deck, "cut_card")
    # T3: the n dealt cards and the cut card are n+1 distinct cards of one deck.
    if len(set([*cards, cut])) != n + 1:
        raise ValueError("dealt cards and cut card must be distinct cards of the deck (T3)")
    for policy in policies:
        _validate_policy(policy, deck)
    if uniforms is None and any(p.kind == "random" for p in policies):
        raise ValueError("a random policy (S3) needs uniforms")

    top = top_rank(deck)
    original = list(cards)  # what each position was dealt (S2 knowledge)
    # swapped_in[i]: position i-1 passed to i and the swap took place (R3, S2).
    swapped_in = [False] * n
    history: list[str] = []  # public actions so far (R11), for S4

    def uniform_for(i: int) -> float | None:
        return None if uniforms is None else uniforms[i]

    def view_for(i: int) -> _View:
        return _View(
            position=i,
            n=n,
            current=cards[i],
            dealt_card=original[i],
            swapped_with_previous=swapped_in[i],
            history=tuple(history),
        )

    def decides_to_keep(i: int) -> bool:
        return _decide_keep(policies[i], view_for(i), uniform_for(i), deck=deck, ties=ties,
                            cut_king=cut_king, poroli=poroli)

    # R1: positions 0 .. n-2 act once each, in order.
    for i in range(n - 1):
        if decides_to_keep(i):
            # R2 "me planto": his card is final (R5).
            history.append("keep")
            continue
        # R2 "paso": he offers to swap with position i+1 (possibly the dealer).
        receiver_card = cards[i + 1]
        if receiver_card[0] == top:
            # R4 ronquido: the holder of the top rank (C3) refuses; both keep
            # their cards and the passer's card is final (R5).
            history.append("refused")
            continue
        history.append("swap")
        # R3: the exchange takes place; the passer's card is final (R5) and
        # position i+1 now acts with the passer's former card.
        cards[i], cards[i + 1] = cards[i + 1], cards[i]
        swapped_in[i + 1] = True

    # R1, R6: then the dealer acts -- keeps ("cartas arriba") or cuts.
    dealer = n - 1
    dealer_cut = not decides_to_keep(dealer)
    cut_king_fired = False
    if dealer_cut:
        if cut[0] == top and cut_king == "blocked":
            # R7 blocked: the top-rank cut card is not taken.
            pass
        else:
            # R6: he takes the cut card in place of his card and must keep it.
            # R7 none: no special effect. R7 loses: he takes it and is the
            # sole loser (below).
            cards[dealer] = cut
            if cut[0] == top and cut_king == "loses":
                cut_king_fired = True

    strengths = [strength(c, poroli=poroli) for c in cards]
    if cut_king_fired:
        # R7 loses: the dealer is the sole loser, whatever the other cards.
        losers = [i == dealer for i in range(n)]
        absolute_tie = False  # R9: not an absolute tie when R7 'loses' applied
    else:
        # R8: the loser holds the lowest strength.
        lowest = min(strengths)
        tied = [s == lowest for s in strengths]
        if ties == "all":
            losers = tied
        else:
            first = tied.index(True)  # earliest position among the tied
            losers = [i == first for i in range(n)]
        # R9: every final card has the same strength.
        absolute_tie = all(s == strengths[0] for s in strengths)

    # R10: under Poroli a loser holding the Poroli card loses twice.
    double = [losers[i] and poroli and is_poroli_card(cards[i]) for i in range(n)]

    return RoundOutcome(
        losers=tuple(losers),
        double=tuple(double),
        absolute_tie=absolute_tie,
        final_cards=tuple(cards),
        dealer_cut=dealer_cut,
        cut_king_fired=cut_king_fired,
    )


# --------------------------------------------------------------------------
# A game (G1 .. G7)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class GameOutcome:
    """The result of a whole game, by player number (G3)."""

    winner: int | None  # player number, None when there is no winner (G6 void or G7 all out)
    void: bool  # ended by an absolute tie under absolute_tie='void'
    rounds: int  # rounds played, replayed (void) rounds included
    lives_left: tuple[int, ...]  # by player, never below 0
    eliminated_in_round: tuple[int | None, ...]  # by player: 1-based round he went out in


def _next_surviving_after(player: int, alive: Sequence[bool]) -> int:
    """G3/G5: the next surviving player after ``player`` in play order (k -> k+1 mod n)."""
    n = len(alive)
    for step in range(1, n + 1):
        candidate = (player + step) % n
        if alive[candidate]:
            return candidate
    raise ValueError("no surviving player")


def _round_order(dealer: int, alive: Sequence[bool]) -> list[int]:
    """G3: surviving players by round position; position 0 is the next
    surviving player after the dealer, and the dealer is the last position (T2)."""
    order: list[int] = []
    player = dealer
    while True:
        player = _next_surviving_after(player, alive)
        order.append(player)
        if player == dealer:
            return order


def play_game(
    n_players: int,
    lives: int,
    policies: Sequence[RefPolicy],
    first_dealer: int,
    next_deal: Callable[[int], tuple[Sequence[Card], Card, Sequence[float]]],
    *,
    deck: str = "spanish40",
    cut_king: str = "loses",
    ties: str = "all",
    poroli: bool = False,
    absolute_tie: str = "void",
    max_rounds: int = 100_000,
) -> GameOutcome:
    """Play a whole game (G1 .. G7) with rounds from :func:`play_round`.

    ``policies[k]`` belongs to player k. Before each round the surviving
    players are put in round-position order (G3) and ``next_deal(k)`` (k = the
    number of survivors) returns the k dealt cards by position, the cut card
    and k uniforms. ``first_dealer`` fixes G4. Raises ValueError on
    inconsistent input or when more than ``max_rounds`` rounds would be needed.
    """
    _check_options(deck, cut_king, ties)
    if absolute_tie not in ABSOLUTE_TIE_OPTIONS:
        raise ValueError(
            f"unknown absolute_tie {absolute_tie!r}; expected one of {ABSOLUTE_TIE_OPTIONS}"
        )
    if not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
        raise ValueError(f"{n_players} players; T1 allows {MIN_PLAYERS}..{MAX_PLAYERS}")
    if lives < 1:
        raise ValueError(f"lives={lives} must be at least 1 (G1)")
    if len(policies) != n_players:
        raise ValueError(f"{len(policies)} policies for {n_players} players")
    if not 0 <= first_dealer < n_players:
        raise ValueError(f"first_dealer={first_dealer} outside 0..{n_players - 1} (G4)")
    if max_rounds < 0:
        raise ValueError("max_rounds must be non-negative")

    lives_left = [lives] * n_players  # G1
    alive = [True] * n_players
    eliminated_in_round: list[int | None] = [None] * n_players
    dealer = first_dealer  # G4
    rounds = 0

    while True:
        if rounds >= max_rounds:
            raise ValueError(f"game exceeded max_rounds={max_rounds}")
        order = _round_order(dealer, alive)  # G3
        k = len(order)
        deal = next_deal(k)
        if len(deal) != 3:
            raise ValueError("next_deal must return (dealt, cut_card, uniforms)")
        dealt, cut_card, uniforms = deal
        if len(dealt) != k or len(uniforms) != k:
            raise ValueError(
                f"next_deal({k}) returned {len(dealt)} cards, {len(uniforms)} uniforms"
            )
        outcome = play_round(
            dealt,
            cut_card,
            [policies[player] for player in order],
            deck=deck,
            cut_king=cut_king,
            ties=ties,
            poroli=poroli,
            uniforms=uniforms,
        )
        rounds += 1

        if outcome.absolute_tie:
            if absolute_tie == "void":
                # G6 void: the game ends with no winner and no lives lost.
                return GameOutcome(
                    winner=None,
                    void=True,
                    rounds=rounds,
                    lives_left=tuple(lives_left),
                    eliminated_in_round=tuple(eliminated_in_round),
                )
            # G6 replay: no lives lost, dealt again by the same dealer.
            continue

        # G1, R10: each loser loses one life, two when holding the Poroli.
        for position, player in enumerate(order):
            if outcome.losers[position]:
                cost = 2 if outcome.double[position] else 1
                lives_left[player] = max(0, lives_left[player] - cost)
        # G2: every player with no lives left is eliminated at the end of the round.
        for player in order:
            if lives_left[player] == 0:
                alive[player] = False
                eliminated_in_round[player] = rounds

        survivors = [p for p in range(n_players) if alive[p]]
        if len(survivors) <= 1:
            # G7: the last survivor wins; nobody left means no winner.
            return GameOutcome(
                winner=survivors[0] if survivors else None,
                void=False,
                rounds=rounds,
                lives_left=tuple(lives_left),
                eliminated_in_round=tuple(eliminated_in_round),
            )

        # G5: the next dealer is this round's position 0, or, if he is out, the
        # next surviving player in play order after him.
        first_actor = order[0]
        dealer = first_actor if alive[first_actor] else _next_surviving_after(first_actor, alive)
