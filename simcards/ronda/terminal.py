"""``simcards ronda play``: a person plays Ronda in the terminal against chosen policies.

The point is to let a player feel what the bots do, so everything runs on the reference
engine (:mod:`simcards.ronda.reference`): its states decide legality and scoring, and its
policies (:func:`reference.choose`) play the bots, each from its own observation and its own
random stream (I3). The board the person sees is drawn from *his* observation only (I1), so
the game shows him nothing the rules hide (I2); the bots' plays are public and each is told
in one line.

Chance, for a given ``seed``:

* ``random.Random(seed)`` draws the first dealer when none is given (D3), then each hand's
  deck as ``rng.sample(range(40), 40)``, top card first (D5), hand after hand;
* the bot at seat ``p`` draws from ``random.Random(f"simcards-ronda-play:{seed}:{p}")``
  (:func:`bot_rng`), for the whole match.

So a hand can be replayed exactly with the reference engine from the seed and the person's
decisions (the tests do).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from simcards.core.cards import get_deck, parse_card
from simcards.core.console import make_console
from simcards.core.errors import UsageError
from simcards.core.userpolicy import UserPolicy, is_user_spec
from simcards.core.userpolicy import load as load_user
from simcards.ronda import reference as ref
from simcards.ronda.policies import check_legal
from simcards.ronda.rules import RondaRules

HUMAN = "human"
"""The policy entry that may stand at the person's seat (any entry there is ignored)."""

SUIT_STYLES = ("yellow", "red", "blue", "green")
"""Oros, copas, espadas, bastos: the colours of the cards' names on screen."""
VALUE_NAMES = {1: "As", 10: "Sota", 11: "Caballo", 12: "Rey"}
"""D1: the named values; the others are read as their number."""
SOURCE_LABELS = {"ronda": "Ronda", "tringla": "Tringla", "derba": "Derba", "missa": "Missa",
                 "last_card": "last card", "cards": "cards"}
VALUE_WORDS = {name.lower(): str(v) for v, name in VALUE_NAMES.items()}
QUIT_WORDS = ("q", "quit")
HINT_WORDS = ("h", "hint", "?")
SAVE_WORDS = ("s", "save")
SAVE_FILE = "ronda-position.json"
"""Where ``s`` writes the person's position unless a file is named (``s FILE``)."""
HINT_ITERATIONS = 1000
"""The search's iterations behind ``ronda play``'s hint (``ronda advise``'s default)."""


def bot_rng(seed: int, seat: int) -> random.Random:
    """I3: the bot at ``seat`` gets its own stream, derived from the seed and the seat only."""
    return random.Random(f"simcards-ronda-play:{seed}:{seat}")


def options_of(rules: RondaRules | ref.RondaOptions) -> ref.RondaOptions:
    """The reference engine's options for the same rule switches."""
    if isinstance(rules, ref.RondaOptions):
        return rules
    if not isinstance(rules, RondaRules):
        raise UsageError(f"rules must be RondaRules, got {rules!r}")
    return ref.RondaOptions(**rules.summary())


def card_label(card: int) -> str:
    """D1: ``7o`` style, coloured by suit (rich markup)."""
    return f"[bold {SUIT_STYLES[ref.suit_index(card)]}]{ref.card_name(card)}[/]"


def card_long_name(card: int) -> str:
    """The card in words, e.g. ``Sota de copas``, ``7 de oros``."""
    v = ref.card_value(card)
    return f"{VALUE_NAMES.get(v, str(v))} de {ref.SUITS[ref.suit_index(card)]}"


def cards_label(cards: Sequence[int]) -> str:
    return " ".join(card_label(c) for c in cards) if cards else "[dim]none[/]"


def numbers(k: int) -> str:
    """The numbers a hand of ``k`` cards offers: ``1-4``, or ``1`` alone for one card."""
    return "1" if k == 1 else f"1-{k}"


def read_choice(text: str, hand: Sequence[int]) -> int | None:
    """The card the person typed: its number in ``hand`` (1-based) or its name.

    Returns None for ``q`` (quit); raises :class:`UsageError` with the one-line reason when
    the text names no card of the hand. Names may be ``7o``, ``7 o``, ``7 oros``,
    ``12 de oros`` or ``rey de oros`` (As, Sota, Caballo, Rey by name), in any case.
    """
    t = " ".join(text.strip().lower().split())
    k = len(hand)
    if t in QUIT_WORDS:
        return None
    if not t:
        raise UsageError(f"type a card: its number {numbers(k)} or its name, such as 7o")
    if t.isdigit():
        i = int(t)
        if not 1 <= i <= k:
            hint = f", or name the card with its suit ({i}o)" if i in ref.VALUES else ""
            raise UsageError(f"there is no card number {i} in your hand: choose {numbers(k)}"
                             f"{hint}")
        return hand[i - 1]
    words = t.replace(" de ", " ").split()
    if len(words) == 2:
        words[0] = VALUE_WORDS.get(words[0], words[0])
        if words[1] in ref.SUITS:
            words[1] = ref.SUIT_LETTERS[ref.SUITS.index(words[1])]
    try:
        card = card_of_text("".join(words))
    except ValueError:
        raise UsageError(
            f"cannot read {text.strip()!r}: type the card's number {numbers(k)} or its name "
            "(value + suit letter o, c, e, b: 7o, 10c, 12e)"
        ) from None
    if card not in hand:
        raise UsageError(f"{ref.card_name(card)} is not in your hand")
    return card


_DECK = get_deck("spanish40")


def card_of_text(text: str) -> int:
    """The card ``text`` names as players write it (``7o``, ``7 oros``), read as every game
    reads one (:func:`simcards.core.cards.parse_card`), as Ronda's card id (D1); a
    ``ValueError`` for a text that names no card."""
    i = parse_card(_DECK, text)
    return ref.card_id(_DECK.values[i], _DECK.suit_names[_DECK.suits[i]])


class SeatNames:
    """Names of seats and sides for the person at ``seat``."""

    def __init__(self, options: ref.RondaOptions, policies: Sequence[str], seat: int) -> None:
        self.options = options
        self.policies = policies
        self.seat = seat

    def partner(self, p: int) -> bool:
        """D2: whether seat ``p`` is the person's partner (teams only)."""
        return p != self.seat and self.options.side_of(p) == self.options.side_of(self.seat)

    def player(self, p: int) -> str:
        """``You``, ``Seat 1 (greedy)``, or ``Seat 2 (greedy, your partner)``, as markup:
        the policy is data, escaped so that it prints as typed."""
        if p == self.seat:
            return "You"
        policy = escape(self.policies[p])
        return f"Seat {p} ({policy}{', your partner' if self.partner(p) else ''})"

    def short(self, p: int) -> str:
        """The seat in a word or two, for the compact lines: ``you``, ``seat 1``,
        ``partner 2``."""
        if p == self.seat:
            return "you"
        return f"{'partner' if self.partner(p) else 'seat'} {p}"

    def side_of(self, p: int) -> int:
        return self.options.side_of(p)

    def verb(self, p: int, verb: str) -> str:
        """``You lay`` but ``Seat 1 (greedy) lays``."""
        return f"{self.player(p)} {verb if p == self.seat else verb + 's'}"

    def side(self, s: int) -> str:
        """``seat 1``, ``seat 0 (you)``; with teams ``team 1 (seats 1 and 3)`` and the
        person's own ``team 0 (you and seat 2)``."""
        mine = s == self.options.side_of(self.seat)
        if self.options.teams != "on":
            return f"seat {s}" + (" (you)" if mine else "")
        if mine:
            partner = next(p for p in (s, s + 2) if p != self.seat)
            return f"team {s} (you and seat {partner})"
        return f"team {s} (seats {s} and {s + 2})"


def _credit_text(names: SeatNames, credits: Sequence[tuple[int, int, str]]) -> str:
    return ", ".join(f"{names.side(s)} {p:+d} {SOURCE_LABELS[src]}" for s, p, src in credits)


def describe_play(record: ref.PlayRecord, names: SeatNames) -> str:
    """One line saying what a play did: capture of which cards, Derba, re-hit, Missa, the
    dealer's last card, and every point it scored (S3 order)."""
    p = record.player
    parts = []
    if record.closed:
        parts.append(f"The pile in play ({cards_label(record.closed)}) goes to "
                     f"{names.side(record.closed_to)}")
    card = card_label(record.card)
    if record.action == "lay":
        parts.append(f"{names.verb(p, 'lay')} {card} on the table")
    elif record.action == "capture":
        take = "take" if p == names.seat else "takes"
        parts.append(f"{names.verb(p, 'play')} {card} and {take} {cards_label(record.taken)}")
    elif record.action == "derba":
        parts.append(f"{names.verb(p, 'play')} {card}: [bold]Derba[/], taking "
                     f"{cards_label(record.taken)} into a pile in play")
    else:
        parts.append(f"{names.verb(p, 'play')} {card}: [bold]re-hit[/] (hit {record.hit} of "
                     f"the chain), the pile in play moves to {names.side(names.side_of(p))}")
    if record.chain_closed:
        parts.append("the pile holds all four and is closed (X5b)")
    if record.missa:
        parts.append("[bold]Missa[/]: the table is empty")
    if record.last_card:
        v = ref.card_value(record.card)
        if v == 12 and record.action != "lay":
            parts.append("the dealer's last card is a Rey that captures")
        elif v == 12:
            parts.append("the dealer's last card is a Rey that captures nothing")
        elif v == 1:
            parts.append("the dealer's last card is an As")
    line = "; ".join(parts)
    if record.credits:
        line += f" [green]({_credit_text(names, record.credits)})[/]"
    return line


def _announcements_line(announcements: Sequence[ref.Announcement], names: SeatNames) -> str:
    """The announcements in one line (A1, I1): the latest announcing deal's by seat, and how
    many earlier deals made (under ``every_deal`` a full list would grow deal by deal;
    announcements of different deals never conflict, A3)."""
    last = max(a.deal for a in announcements)
    by_seat: dict[int, list[str]] = {}
    for a in announcements:
        if a.deal == last:
            v = ref.VALUES[a.value]
            kind = "Ronda" if a.kind == "ronda" else "Tringla"
            by_seat.setdefault(a.player, []).append(f"{kind} {VALUE_NAMES.get(v, str(v))}")
    earlier = sum(1 for a in announcements if a.deal != last)
    return (f"Announced at deal {last + 1}: "
            + "; ".join(f"{names.short(p)} {', '.join(kinds)}" for p, kinds in by_seat.items())
            + (f" ({earlier} more at earlier deals)" if earlier else ""))


def _played_text(record: ref.PlayRecord) -> str:
    """A play in a few characters: ``6b`` laid, ``6b (6e 7o)`` with the cards it took,
    ``5c (5o, Derba)``, ``11b (re-hit)``."""
    card = card_label(record.card)
    if record.action == "capture":
        return f"{card} ({cards_label(record.taken)})"
    if record.action == "derba":
        return f"{card} ({cards_label(record.taken)}, Derba)"
    if record.action == "rehit":
        return f"{card} (re-hit)"
    return card


def _deal_history(records: Sequence[ref.PlayRecord], names: SeatNames) -> Table:
    """What each seat has played this deal, with what each card took: one row per seat, in
    play order (the deal's first player first)."""
    t = Table.grid(padding=(0, 1))
    t.add_column("seat", style="dim")
    t.add_column("cards")
    by_seat: dict[int, list[str]] = {}
    for r in records:
        by_seat.setdefault(r.player, []).append(_played_text(r))
    for p, plays in by_seat.items():
        t.add_row(names.short(p), ", ".join(plays))
    return t


def _standing(state: ref.HandState | ref.MatchState, names: SeatNames) -> str:
    """Where the game stands, for a person who leaves: the match score (points, or in
    classic mode hands won, C3), or the unfinished hand's points (cards in classic mode)."""
    options = state.options
    hand = state.hand if isinstance(state, ref.MatchState) else state
    sides = range(options.n_sides)
    if isinstance(state, ref.MatchState):
        if options.scoring:
            totals = ", ".join(f"{names.side(s)} {state.scores()[s]}" for s in sides)
            return (f"Match score: {totals} (match to {options.target} points; hand "
                    f"{state.hand_index + 1} unfinished)")
        won = ", ".join(f"{names.side(s)} {state.hands_won[s]}" for s in sides)
        return (f"Hands won: {won} (first to {options.hands_to_win}; hand "
                f"{state.hand_index + 1} unfinished)")
    if options.scoring:
        return "Points so far: " + ", ".join(f"{names.side(s)} {hand.hand_points()[s]}"
                                             for s in sides)
    return "Cards captured so far: " + ", ".join(f"{names.side(s)} {hand.cards_held(s)}"
                                                 for s in sides)


def _announcement_text(a: ref.Announcement, names: SeatNames) -> str:
    kind = "Ronda" if a.kind == "ronda" else "Tringla"
    v = ref.VALUES[a.value]
    return f"{names.player(a.player)}: {kind} of {VALUE_NAMES.get(v, str(v))} (deal {a.deal + 1})"


def _scores_table(hand: ref.HandState, names: SeatNames, title: str) -> Table:
    """Points of this hand by side and source, cards captured, and the running totals."""
    t = Table(title=title, title_justify="left")
    t.add_column("side")
    for src in ref.SOURCES:
        t.add_column(SOURCE_LABELS[src], justify="right")
    t.add_column("hand", justify="right")
    t.add_column("total", justify="right")
    t.add_column("captured", justify="right")
    scores = hand.scores()
    for s in range(hand.n_sides):
        pts = hand.points_by_source(s)
        t.add_row(names.side(s), *(str(pts[src]) for src in ref.SOURCES),
                  str(hand.hand_points()[s]), str(scores[s]), str(hand.cards_held(s)))
    return t


def draw_board(console: Console, obs: dict, names: SeatNames, match_line: str = "",
               history: Sequence[ref.PlayRecord] = ()) -> None:
    """The person's view (I1): table, pile in play, his numbered hand, the other hands'
    sizes, the stock, scores by side and source, the announcements, and ``history``, the
    plays of this deal (public, I1)."""
    n = obs["players"]
    head = (f"[bold]Deal {obs['deal'] + 1}[/] of {len(obs['options'].deal_sizes)}, "
            f"dealer {names.player(obs['dealer'])}; stock {obs['stock_size']} cards")
    console.rule()
    console.print(head + (f"; {match_line}" if match_line else ""))
    console.print(f"Table: {cards_label(obs['table'])}")
    if obs["pile"]:
        console.print(f"Pile in play: {cards_label(obs['pile'])} (top "
                      f"{card_label(obs['pile'][-1])}), last hitter "
                      f"{names.player(obs['pile_hitter'])}")
    others = ", ".join(f"{names.player(p)} holds {obs['hand_sizes'][p]}"
                       for p in range(n) if p != obs["seat"])
    console.print(f"Other hands: {others}")
    if obs["announcements"]:
        console.print(_announcements_line(obs["announcements"], names), no_wrap=True,
                      overflow="ellipsis")
    if history:
        console.print("Played this deal (cards taken), in play order:")
        console.print(_deal_history(history, names))
    points = [dict(p) for p in obs["points_by_source"]]
    lines = []
    for s in range(len(obs["scores"])):
        by_source = ", ".join(f"{SOURCE_LABELS[src]} {points[s][src]}" for src in ref.SOURCES
                              if points[s][src])
        total = obs["scores"][s]
        lines.append(f"{names.side(s)}: {total} point{'' if abs(total) == 1 else 's'}"
                     + (f" ({by_source} this hand)" if by_source else "")
                     + f", {len(obs['captured'][s])} cards captured")
    console.print("Scores: " + "; ".join(lines))
    hand_table = Table(title="Your hand", title_justify="left", show_edge=False)
    hand_table.add_column("#", justify="right")
    hand_table.add_column("card")
    hand_table.add_column("name")
    for i, card in enumerate(obs["hand"], 1):
        hand_table.add_row(str(i), card_label(card), card_long_name(card))
    console.print(hand_table)


def _ask_card(console: Console, ask: Callable[[str], str], obs: dict,
              hint: Callable[[], None] | None = None,
              save: Callable[[str], None] | None = None) -> int | None:
    """Ask until the answer names a card of the hand (None: the person quits); ``h`` shows
    ``hint``'s advice and asks again; ``s [FILE]`` writes the position with ``save`` (to
    :data:`SAVE_FILE` unless a file is named) and asks again."""
    hand = obs["hand"]
    prompt = (f"Your card ({numbers(len(hand))} or a name such as {ref.card_name(hand[0])}; "
              f"{'h hints, ' if hint else ''}{'s saves the position, ' if save else ''}"
              "q quits): ")
    while True:
        try:
            text = ask(prompt)
        except EOFError:
            return None
        if hint is not None and text.strip().lower() in HINT_WORDS:
            hint()
            continue
        words = text.split(maxsplit=1)
        if save is not None and words and words[0].lower() in SAVE_WORDS:
            save(words[1].strip() if len(words) > 1 else SAVE_FILE)
            continue
        try:
            return read_choice(text, hand)
        except UsageError as e:
            console.print(f"[red]{escape(str(e))}[/]")


def _hand_winner(hand: ref.HandState) -> int | None:
    """Classic mode: C2. Points mode: the side that scored strictly the most in the hand."""
    if not hand.options.scoring:
        return hand.hand_winner()
    pts = hand.hand_points()
    best = max(pts)
    return pts.index(best) if pts.count(best) == 1 else None


def _end_of_hand(console: Console, hand: ref.HandState, names: SeatNames) -> None:
    """Points by source for each side, captured cards, Ultima and the hand's winner."""
    console.rule("[bold]End of the hand[/]")
    for e in hand.events:
        if e.kind == "close" and e.rule == "X5c":
            console.print(f"The pile in play {cards_label(e.cards)} goes to {names.side(e.side)}")
    ultima = hand.ultima()
    if ultima is not None:
        console.print(f"Ultima: {cards_label(ultima[1])} go to {names.side(ultima[0])}")
    console.print(_scores_table(hand, names, "Points of the hand"))
    for s in range(hand.n_sides):
        console.print(f"{names.side(s)} captured {len(hand.captured[s])}: "
                      f"{cards_label(hand.captured_cards(s))}")
    w = _hand_winner(hand)
    console.print("Winner of the hand: " + (names.side(w) if w is not None else "nobody (tie)"))


def _hand_summary(hand: ref.HandState) -> dict:
    return {
        "scores": hand.scores(),
        "hand_points": hand.hand_points(),
        "points_by_source": [hand.points_by_source(s) for s in range(hand.n_sides)],
        "captured": [[ref.card_name(c) for c in hand.captured_cards(s)]
                     for s in range(hand.n_sides)],
        "winner": _hand_winner(hand) if hand.finished else None,
        "finished": hand.finished,
    }


def _ask_user(user: UserPolicy, hand: ref.HandState, p: int, options: ref.RondaOptions,
              state: ref.HandState | ref.MatchState) -> int:
    """Q11: seat ``p``'s card by a function of the player's own, from the environments'
    observation of the seat (the match's, with scores and hands won, in a match) and its
    hand as the action mask; a function that raises or names a card the seat does not hold
    stops the game in one line."""
    from simcards.core.engines import ask
    from simcards.ronda.table import observation_vector
    from simcards.ronda.users import ACTIONS, seat_name

    legal = np.zeros(ref.N_CARDS, np.int8)
    legal[hand.hands[p]] = 1
    won = state.hands_won if isinstance(state, ref.MatchState) else None
    obs = observation_vector(hand, p, options, True, won)
    return ask(user.function(), user, obs, legal, seat_name(p), ACTIONS)


def run_play(rules: RondaRules, policies: Sequence[str], seat: int = 0, seed: int = 0,
             dealer: int | None = None, match: bool = False,
             console: Console | None = None,
             ask: Callable[[str], str] | None = None) -> dict:
    """Play one hand (or, with ``match``, a whole match) with a person at ``seat``.

    ``policies`` has one entry per seat (Q6); the person's entry is ignored (it may be
    ``human``), the others are reference policies (``random``, ``greedy``,
    ``lookahead:D``, ``rollout:K``, ``ismcts:N:C``, ``ismcts-match:N:C``) or functions of
    one's own (``PATH.py:FUNCTION``, Q11, played in Python from the seat's observation).
    ``ask(prompt)`` returns the person's answer (default: ``console.input``); a card is
    chosen by its number
    in the hand (as shown, in card order) or by its name; bad input is refused in one line and
    asked again; ``q`` quits.

    Returns a summary: ``seed``, ``dealer`` (the first dealer), ``quit``, ``finished``,
    ``plays`` (``(seat, card name)`` in order, every hand), ``hands`` (one
    :func:`_hand_summary`-shaped dict per hand played or begun), and, for the last hand,
    ``scores`` (totals by side), ``points_by_source`` (that hand's, by side),
    ``captured`` and ``winner`` (the hand's winner, or with ``match`` the match's:
    None until it is decided). With ``match`` also ``hands_won`` (C2/C3) and
    ``match_points_by_source`` (every hand's points added up, by side and source).
    """
    options = options_of(rules)
    n = options.players
    specs = [str(p) for p in policies]
    if len(specs) != n:
        raise UsageError(f"policies needs one entry per player: got {len(specs)} for {n}")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise UsageError(f"seat={seat!r} outside 0..{n - 1}")
    users: dict[int, UserPolicy] = {}
    for p, spec in enumerate(specs):
        if p == seat:
            continue
        if spec == HUMAN:
            raise UsageError(f"seat {p} is a bot: only seat {seat} is played by a person")
        if is_user_spec(spec):  # Q11: a function of the player's own
            users[p] = load_user(spec, f"seat {p}")
            continue
        check_legal(spec, f"seat {p}")  # Q9
        ref.parse_policy(spec)
    specs[seat] = HUMAN
    if dealer is not None and (isinstance(dealer, bool) or not isinstance(dealer, int)
                               or not 0 <= dealer < n):
        raise UsageError(f"dealer={dealer!r} outside 0..{n - 1} (D3)")
    # Markup colours the suits; emoji codes stay off (a policy such as ismcts-match:100 is
    # data, not an emoji), see simcards.core.console.
    console = console if console is not None else make_console(markup=True)
    ask = ask if ask is not None else console.input

    deal_rng = random.Random(seed)
    first_dealer = ref.draw_first_dealer(deal_rng, n) if dealer is None else dealer
    decks: list[list[int]] = []

    def deck(i: int) -> list[int]:
        while len(decks) <= i:
            decks.append(deal_rng.sample(range(ref.N_CARDS), ref.N_CARDS))
        return decks[i]

    rngs = {p: bot_rng(seed, p) for p in range(n) if p != seat}
    names = SeatNames(options, specs, seat)
    if match:
        state: ref.HandState | ref.MatchState = ref.MatchState(options, first_dealer, deck)
    else:
        state = ref.HandState(options, first_dealer, deck(0))

    def hand_of() -> ref.HandState:
        return state.hand if isinstance(state, ref.MatchState) else state

    def match_line() -> str:
        if not isinstance(state, ref.MatchState):
            return ""
        if options.scoring:
            return f"hand {state.hand_index + 1}, match to {options.target}"
        return f"hand {state.hand_index + 1}, hands won {tuple(state.hands_won)}"

    hands: list[ref.HandState] = []
    plays: list[tuple[int, str]] = []
    quit_ = False
    console.print(f"[bold]Ronda[/], {n} players; you are seat {seat}. Suits: "
                  + ", ".join(f"[{SUIT_STYLES[i]}]{ref.SUIT_LETTERS[i]} {ref.SUITS[i]}[/]"
                              for i in range(4)))
    current = hand_of()
    hands.append(current)
    announced = 0
    dealt = -1
    this_deal: list[ref.PlayRecord] = []
    while not state.is_terminal():
        hand = hand_of()
        if hand is not current:  # a new hand of the match (D3)
            current = hand
            hands.append(hand)
            announced, dealt = 0, -1
            console.rule(f"[bold]Hand {len(hands)}[/]")
        if hand.deal_index != dealt:
            dealt = hand.deal_index
            this_deal = []
            if dealt == 0 and hand.face_up is not None:  # D4/D5: 3 players
                console.print(f"Face up on the table: {card_label(hand.face_up)}")
            size = options.deal_sizes[dealt]
            console.print(f"[dim]Deal {dealt + 1}: {size} card{'s' if size > 1 else ''} each, "
                          f"dealer {names.player(hand.dealer)}[/]")
        if len(hand.announcements) > announced:
            for a in hand.announcements[announced:]:
                console.print(f"Announcement: {_announcement_text(a, names)}")
            announced = len(hand.announcements)
        p = state.current_player()
        obs = state.observation(p)
        if p == seat:
            draw_board(console, obs, names, match_line(), this_deal)
            card = _ask_card(console, ask, obs,
                             lambda obs=obs: show_hint(console, rules, obs, seed),
                             lambda path, obs=obs: save_position(console, rules, obs, seed,
                                                                 path))
            if card is None:
                quit_ = True
                console.print("You leave the table. " + _standing(state, names))
                break
        elif p in users:
            card = _ask_user(users[p], hand, p, options, state)
        elif console.is_terminal:  # a search (rollout:32) may take a second or two
            with console.status(f"{names.player(p)} is thinking..."):
                card = ref.choose(specs[p], obs, rngs[p])
        else:
            card = ref.choose(specs[p], obs, rngs[p])
        record = state.apply(card)
        this_deal.append(record)
        plays.append((p, ref.card_name(card)))
        console.print(describe_play(record, names))
        if hand.finished:
            _end_of_hand(console, hand, names)
        if isinstance(state, ref.MatchState) and state.is_terminal() and not hand.finished:
            console.print("The target is reached during the hand (S5).")

    last = hands[-1]
    summary = {
        "seed": seed,
        "seat": seat,
        "dealer": first_dealer,
        "policies": specs,
        "match": match,
        "quit": quit_,
        "finished": state.is_terminal(),
        "plays": plays,
        "hands": [_hand_summary(h) for h in hands],
    }
    summary.update({k: v for k, v in _hand_summary(last).items() if k != "finished"})
    if isinstance(state, ref.MatchState):
        summary["winner"] = state.winner
        summary["hands_won"] = tuple(state.hands_won)
        summary["match_points_by_source"] = [
            {src: sum(h.points_by_source(side)[src] for h in hands) for src in ref.SOURCES}
            for side in range(options.n_sides)
        ]
        summary["scores"] = state.scores()
        if state.winner is not None:
            console.print(f"[bold]{names.side(state.winner)} wins the match[/] "
                          f"with {state.scores()[state.winner]} points"
                          if options.scoring else
                          f"[bold]{names.side(state.winner)} wins the match[/]")
    return summary


def position_fields(obs: dict) -> dict:
    """The ``ronda advise`` position of an observation (Q12's fields, cards as text): what
    the seat sees and nothing else (I1)."""
    def text(cards) -> str:
        return " ".join(ref.card_name(c) for c in cards)

    def one(card: int | None) -> str | None:
        return None if card is None else ref.card_name(card)

    fields = {"seat": obs["seat"], "dealer": obs["dealer"], "hand": text(obs["hand"]),
              "table": text(obs["table"]), "pile": text(obs["pile"]),
              "previous": one(obs["previous_laid"]), "last_capturer": obs["last_capturer"],
              "captured": "; ".join(text(c) for c in obs["captured"]),
              "face_up": one(obs["face_up"])}
    options, deal = obs["options"], obs["deal"]
    if options.scoring and (deal == 0 or options.announce == "every_deal"):  # A1
        fields["announcements"] = "; ".join(
            f"{a.player}:{a.kind} {ref.VALUES[a.value]}" for a in obs["announcements"]
            if a.deal == deal)
        fields["deal_plays"] = text(c for _, c, d in obs["plays"] if d == deal)
    if "hands_won" in obs:  # a match's observation: its scores (S2) or hands won (C3)
        if options.scoring:
            fields["scores"] = ",".join(map(str, obs["scores"]))
        else:
            fields["hands_won"] = ",".join(map(str, obs["hands_won"]))
    return fields


def hint_seed(seed: int, obs: dict) -> int:
    """The hint's search seed: the game's seed and the plays so far, so that a replay shows
    the same hint."""
    return (seed + len(obs["plays"])) % 2**63


def show_hint(console: Console, rules: RondaRules, obs: dict, seed: int) -> None:
    """``ronda play``'s hint: ``ronda advise`` on the person's position (Q12), its search
    seeded by :func:`hint_seed`; in a match, with each card's match win probability."""
    from simcards.ronda.api import advice_answer

    with console.status("Thinking about your cards..."):
        out = advice_answer(rules, position_fields(obs), iterations=HINT_ITERATIONS,
                            c=ref.ISMCTS_C, budget=None, seed=hint_seed(seed, obs)).data
    console.print(advice_table(out))
    best = out["moves"][0]["card"]
    if out.get("match_best") not in (None, best):
        console.print(f"For the match, {out['match_best']} is best; for the hand's margin, "
                      f"{best}.")


def save_position(console: Console, rules: RondaRules, obs: dict, seed: int,
                  path: str) -> None:
    """``s``: the person's position (:func:`position_fields`) written to ``path`` as the JSON
    ``ronda advise --position`` reads, and the command that gives the hint's advice from it
    (the rule flags that differ from their defaults, the hint's seed)."""
    import json

    fields = {k: v for k, v in position_fields(obs).items() if v is not None}
    try:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(fields, f, indent=1)
            f.write("\n")
    except OSError as exc:
        console.print(f"[red]{escape(f'cannot write {path}: {exc.strerror}')}[/]")
        return
    flags = [f"{sw.flag} {getattr(rules, sw.name)}" for sw in RondaRules.switches()
             if getattr(rules, sw.name) != sw.default
             and ("scores" in fields or "hands_won" in fields or sw.level != "match")]
    command = " ".join(["simcards ronda advise --position", path, *flags,
                        f"--seed {hint_seed(seed, obs)}"])
    console.print(f"Position saved to {escape(path)}; the hint's advice: {escape(command)}",
                  soft_wrap=True)


def advice_table(out: dict) -> Table:
    """``ronda advise``'s answer as a table, best card first."""
    table = Table(title=f"Ronda advice ({out['method']})")
    match = "match_method" in out
    unit = "cards" if out["rules"]["mode"] == "classic" else "points"  # C1: nothing scores
    cols = ["card", "same value", f"margin ({unit})", "95% interval", "V (Q1)", "visits"]
    for col in cols + (["match win", "95% interval"] if match else []):
        table.add_column(col)
    for m in out["moves"]:
        ci = m.get("margin_ci")
        cells = [m["card"], " ".join(m["same"]),
                 "n/a" if m["margin"] is None else f"{m['margin']:+.3f}",
                 "exact" if out["exact"] else
                 ("n/a" if ci is None else f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"),
                 "n/a" if m["value"] is None else f"{m['value']:.1f}",
                 str(m.get("visits", ""))]
        if match:
            mci = m.get("match_ci")
            cells += ["n/a" if m.get("match") is None else f"{m['match']:.3f}",
                      "n/a" if m.get("match") is None else
                      ("decided" if mci is None else f"[{mci[0]:.3f}, {mci[1]:.3f}]")]
        table.add_row(*cells)
    return table
