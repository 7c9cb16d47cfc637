"""Römi húngaro as a game-AI state (:mod:`simcards.core.table`): a round (``romi_v0``,
OpenSpiel ``simcards_romi``) and a game of ``rounds`` rounds (``romi_game_v0``,
``simcards_romi_game``). Rule ids are those of ``seeds/romi.md``.

The states drive the reference engine (:class:`~simcards.romi.reference.RoundState`), the
engine the numba kernels are checked against move by move, so an agent trained or searching
here plays exactly the rules the simulations play. Their legal moves are the reference's, found
by :mod:`simcards.romi.table_legal` without most of its searches; after the draw, the paths of
those moves come from compiled code on the hand's kinds and a path's move is made only when it
is played (:mod:`simcards.romi.table_paths`).

Actions. The numbering is :mod:`simcards.romi.table_codes`: draws, discards by card kind, one
code per meld *shape* (Lay, and the parts of an opening, which is the path of its shapes in
increasing order then ``OPEN_DONE``), Add by (table meld, kind, joker end) and Swap by table
meld. Moves that differ only in which copy of a card they use (D1: the two copies are
interchangeable) share a path, and the state keeps one of them: the one using the most cards
whose place the other players know (the card taken from the discard pile under T4, a joker
freed by a swap under J3, any card taken from the discard pile or the cut card), then the lowest
card ids. A copy that carries an obligation is never worse to play than its twin (after playing
the twin the same cards are held and the obligation is still there), and playing a publicly
known copy first keeps "the cards known to be in a hand" a function of public events only: a
player who lays a 7h while a 7h he took from the pile is in his hand is taken to lay that one.

Chance. The first dealer (D3) is a chance node of ``players`` outcomes unless ``dealer`` is
given (``simcards romi rounds`` draws one for every round, ``games`` one for every game). A
round's deck is drawn one card at a time, top first (``RoundState``: the starter's 15, 14 for
each next player, the stock, the cut card last), each card not yet drawn equally likely; in a
game each round's deck is drawn when that round starts, and the deal moves one seat to the left
every round (D5). When a player draws from an empty stock (T8), the cards under the top discard
are drawn one at a time into the new stock's order (top first) before the draw is made (one
card under the top needs no chance node; with none the round is stopped, T8). Nobody sees the
deck or the new stock's order; each player sees his own hand once it is dealt (I2).

Information. The observation (``OBSERVATION_FIELDS``) and both texts name cards by kind only.
The information text is the round's (the game's) log: every public event (I1) and the seat's
own dealt hand and stock draws (I2). :meth:`RomiTable.resample` deals the hidden cards again.

Rewards. A round pays each seat minus its round score (G2-G5) at its end; a game pays 1 to the
player with the lowest total (G6), shared equally by equal lowest totals, 0 to the others.

Seat policies (one-seat environments): ``random``, and the engine's own ``greedy``,
``rummy:K``, ``threshold:X`` and ``expert`` (Q2-Q5), planned by the numba kernels from the
seat's view (:class:`KernelPolicy`); on the engine's deals they make the engine's moves.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from simcards.core.cli_options import check_seat
from simcards.core.errors import UsageError
from simcards.core.switches import HAND, MATCH
from simcards.core.table import CHANCE, TERMINAL, Param, Path, TableGame, TableState
from simcards.core.userpolicy import is_user_spec
from simcards.romi import cards as C
from simcards.romi import codes
from simcards.romi import reference as ref
from simcards.romi import table_codes as T
from simcards.romi.actions import (
    NO_JOKER,
    Action,
    Add,
    Discard,
    DrawCut,
    DrawDiscard,
    DrawStock,
    Lay,
    Meld,
    Open,
    Swap,
)
from simcards.romi.codes import STALL_TURNS
from simcards.romi.kernel_state import View
from simcards.romi.rules import GAME_SWITCHES, ROUND_SWITCHES, RomiRules
from simcards.romi.table_legal import legal_actions
from simcards.romi.table_observation_kernel import SEPARATOR, fill
from simcards.romi.table_paths import after_draw_moves, cards_of, copy_key

N_KINDS = T.N_KINDS
MAX_MELDS = T.MAX_MELDS
MAX_SEATS = 5
"""D2: at most five players."""

# ---------------------------------------------------------------- the observation


OBSERVATION_FIELDS = f"""\
The observation of seat ``p`` is a float32 vector. Kinds are the 52 cards (rank and suit:
As .. K of spades, hearts, diamonds, clubs, kind = suit * 13 + rank - 1) and, at 52, the joker
(D1: the two copies of a card are not told apart). *Relative* seats count from ``p`` in play
order (``0`` is ``p``, ``1`` the player on his left who plays after him), so one network serves
every seat; ``n`` is the number of players. Counts are raw numbers, not scaled. In order:

* ``hand`` (53): copies of each kind in ``p``'s hand (0 .. 2, jokers 0 .. 4).
* ``phase`` (5): one-hot: not ``p``'s decision (another seat's, a chance node); ``p``'s first
  turn as the starter, only a discard (D4); ``p`` to draw (T2); ``p`` melding or discarding
  (T6, T7); the round (the game) is over.
* ``opening`` ({T.N_SHAPES}): the meld shapes ``p`` has named so far of an opening he is
  composing (the pending codes of his path, O1), a count per shape (0 .. 2).
* ``must_place`` (53): one-hot of the kind of the card the player in turn took from the
  discard pile and must still meld this turn (T4); zeros if none.
* ``turn_flags`` (4): for the player in turn: jokers he freed by a swap and must lay again
  (J3); 1 when he took the cut card and must go out (T5); 1 when he opened this turn; 1 when
  something he did this turn already rules out a Römi (G3: a card added to another player's
  meld, or a swap).
* ``may_open`` (1): 1 when O2 lets ``p`` open (he has played a turn of this round).
* ``table`` ({MAX_MELDS} x (53 + 52 + n)): each table meld slot in the order the melds were
  laid (M5), empty slots zero: the kinds it holds (1 each, the joker at 52), one-hot of the
  kind its joker stands for (M4), and one-hot of the relative seat that laid it (G3).
* ``pile`` (53): copies of each kind in the discard pile (I1).
* ``top`` (53): one-hot of the kind on top of the discard pile.
* ``cut`` (53): one-hot of the cut card's kind (D3, T5).
* ``cut_taken`` (1): 1 once the cut card was taken.
* ``hand_sizes`` (n): cards held by each relative seat (I1).
* ``opened`` (n): 1 for each relative seat that has opened (O1).
* ``has_drawn`` (n): 1 for each relative seat that has drawn this round (T3: its next draw
  from the pile must be melded, T4).
* ``known`` ((n - 1) x 53): for relative seats 1 .. n-1, copies of each kind known to be in
  their hand: cards they took from the discard pile or the cut card, and jokers they freed by
  a swap (I1), less as many copies of the kind as they have laid or discarded since.
* ``stock`` (1): cards in the stock.
* ``turn`` (1): turns played in the round (T9 stops it at {STALL_TURNS}).
* ``dealer`` (n): one-hot of the relative seat of the dealer (D3).
* ``to_play`` (n): one-hot of the relative seat to play (zeros at chance nodes and at the end).
* game only, ``round`` (1): rounds finished before this one (D5).
* game only, ``totals`` (n): each relative seat's total score of the finished rounds (G6).

Nothing of another player's hidden cards or of the stock's order is in it (I2, I3).
"""

_FIXED = (("hand", N_KINDS), ("phase", 5), ("opening", T.N_SHAPES), ("must_place", N_KINDS),
          ("turn_flags", 4), ("may_open", 1))


class Layout:
    """The offsets of the observation's fields (``OBSERVATION_FIELDS``) for ``n`` players."""

    def __init__(self, n: int, game: bool) -> None:
        self.n = n
        self.slot = N_KINDS + C.N_KINDS + n
        fields: list[tuple[str, int]] = [
            *_FIXED, ("table", MAX_MELDS * self.slot), ("pile", N_KINDS), ("top", N_KINDS),
            ("cut", N_KINDS), ("cut_taken", 1), ("hand_sizes", n), ("opened", n),
            ("has_drawn", n), ("known", (n - 1) * N_KINDS), ("stock", 1), ("turn", 1),
            ("dealer", n), ("to_play", n)]
        if game:
            fields += [("round", 1), ("totals", n)]
        self.at: dict[str, int] = {}
        at = 0
        for name, size in fields:
            self.at[name] = at
            at += size
        self.fields = tuple(fields)
        self.size = at
        self.kernel_at = np.array(
            [self.at["table"], self.slot, self.at["hand_sizes"], n, self.at["hand"],
             self.at["pile"], *(self.at["known"] + rel * N_KINDS for rel in range(n - 1)),
             *(self.at["table"] + m * self.slot for m in range(MAX_MELDS))], dtype=np.intp)
        """The layout's numbers :func:`~simcards.romi.table_observation_kernel.fill` reads,
        with where each segment of the counted cards starts (hand, pile, the known cards of
        relative seats 1 .. n-1, the table meld slots: the order :meth:`RomiTable.observation`
        lists them in)."""


PH_OTHER, PH_FIRST, PH_DRAW, PH_MELD, PH_OVER = range(5)
_PHASE = {ref.FIRST: PH_FIRST, ref.DRAW: PH_DRAW}
_SEPARATOR = bytes([SEPARATOR])

# ---------------------------------------------------------------- setups


@dataclass(frozen=True)
class RomiSetup:
    """A table: the rules, the first dealer (None: drawn by chance, D3) and whether a whole game
    (``rules.rounds`` rounds) is played or one round."""

    rules: RomiRules
    dealer: int | None
    game: bool

    @property
    def layout(self) -> Layout:
        return Layout(self.rules.players, self.game)


def _make(game: bool) -> Callable[[dict[str, Any]], RomiSetup]:
    def make(opts: dict[str, Any]) -> RomiSetup:
        rules = RomiRules.from_options(opts, MATCH if game else HAND)
        return RomiSetup(rules, check_seat(opts.get("dealer"), rules.players), game)
    return make


# ---------------------------------------------------------------- helpers


def _kinds_text(cards: Iterable[int]) -> str:
    """Cards as kinds in kind order (never their copy, D1): ``7h 7h X``."""
    return " ".join(C.kind_text(k) for k in sorted(C.kind(c) for c in cards)) or "-"


def _meld_text(meld: Meld) -> str:
    return T.shape_text(T.meld_shape(meld))


def _no_shuffle(pile: list[int]) -> None:
    raise AssertionError("T8: the new stock's order comes from chance nodes")


def kind_signature(move: Action) -> tuple:
    """A move with its cards as kinds and an opening's melds in no particular order: two
    moves with one signature differ only in the copies they use (D1) and the order an opening
    is put down."""
    if isinstance(move, Open):
        return ("open", tuple(sorted((tuple(C.kind(c) for c in m.cards), m.stands_for)
                                     for m in move.melds)))
    if isinstance(move, Lay):
        return ("lay", tuple(C.kind(c) for c in move.meld.cards), move.meld.stands_for)
    if isinstance(move, Add):
        return ("add", move.target, C.kind(move.card), move.stands_for)
    if isinstance(move, Swap):
        return ("swap", move.target, C.kind(move.card))
    if isinstance(move, Discard):
        return ("discard", C.kind(move.card))
    return (type(move).__name__,)


@dataclass(frozen=True)
class RoundResult:
    """One finished round: G2-G5 scores, who went out (-1 none), Römi, stall (T8, T9), and per
    seat whether he never opened and the penalty (M7, G4) his cards cost him."""

    scores: tuple[int, ...]
    went_out: int
    romi: bool
    stalled: bool
    never_opened: tuple[bool, ...]
    penalty: tuple[int, ...]


class _Private:
    """A log entry only ``seat`` sees (I2): his dealt hand or a card he drew from the stock.
    Cards are ids, so that the hidden cards can be relabelled together with the hands
    (:meth:`RomiTable.relabel`); ``frozen`` are the positions of cards that were discarded in
    public and shuffled into a new stock since (T8): the entry is about their earlier life,
    which stays as it was. Entries are never changed in place (clones share them)."""

    __slots__ = ("cards", "frozen", "label", "seat")

    def __init__(self, seat: int, label: str, cards: tuple[int, ...],
                 frozen: frozenset[int] = frozenset()) -> None:
        self.seat = seat
        self.label = label
        self.cards = cards
        self.frozen = frozen

    def text(self) -> str:
        return f"{self.label} {_kinds_text(self.cards)}"

    def freeze(self, pile: set[int]) -> _Private:
        more = frozenset(j for j, c in enumerate(self.cards) if c in pile)
        if more <= self.frozen:
            return self
        return _Private(self.seat, self.label, self.cards, self.frozen | more)

    def relabel(self, mapping: dict[int, int]) -> _Private:
        cards = tuple(c if j in self.frozen else mapping.get(c, c)
                      for j, c in enumerate(self.cards))
        return _Private(self.seat, self.label, cards, self.frozen)


# ---------------------------------------------------------------- the state


class RomiTable(TableState):
    """A Römi round or game in progress (see the module text)."""

    def __init__(self, setup: RomiSetup) -> None:
        self.setup = setup
        self.rules = setup.rules
        self.n_players = setup.rules.players
        self.layout = setup.layout
        self.first_dealer: int | None = setup.dealer
        self.round_index = 0
        self.round: ref.RoundState | None = None
        """The round in play (None while its deck is drawn)."""
        self.deck: list[int] = []
        """The cards of the current round's deck drawn so far, top first."""
        self.left: list[int] = list(range(C.N_CARDS))
        """The cards not yet drawn, sorted."""
        self.results: list[RoundResult] = []
        self.totals = [0] * self.n_players
        self.known: list[set[int]] = [set() for _ in range(self.n_players)]
        """Per seat, the ids in his hand whose place everybody knows (module text)."""
        self.log: list[str | _Private] = []
        """Everything that happened, public lines and private entries (perfect recall)."""
        self.history: list[str | tuple[int, Action]] = []
        """Chance outcomes (as text) and moves (seat, move), for :meth:`history_text`; a move
        is written only when the text is asked for."""
        self.reshuffling: list[int] | None = None
        """T8 in progress: the new stock's order drawn so far (the pile's cards left are
        ``left``)."""
        self.reshuffle_kinds: Counter[int] | None = None
        """The kinds of the last T8 pile of this round (resample: the stock comes from it)."""
        self.reshuffle_log = 0
        """The log's length when the last T8 of the round was made (the draws since are in
        the log after it)."""
        self.turn_log: list[Action] = []
        """The moves of the turn in progress (the seat policies' plans follow it)."""
        self.round_moves: list[Action] = []
        """The moves of the current round as the reference played them (replays, tests)."""
        self.lay_hint: tuple[int, ...] | None = None
        """Meld shapes in the order the next ``Open`` puts its melds down (see :meth:`play`);
        any move clears it."""
        self.laid: list[int] = []
        """The table melds (their numbers) in the order they were put down: the reference
        numbers an opening's melds by their cards, but its player puts them down in an order
        of his own, which everybody sees (M5). The engine's policies read the table in this
        order (Q2: "the first meld in table order")."""
        self.turn_cards: tuple[int, ...] = ()
        """The hand of the player in turn once he has drawn (his plan's key is its kinds,
        :attr:`turn_hand`)."""
        self.turn_table: tuple[Meld, ...] = ()
        """The table melds when the player in turn drew (his plan's key with ``turn_hand``: two
        states of one deal, a ``compare``'s rotations, can reach the same turn with the same
        hand and another table)."""
        self.round_key = 0
        """A number for each dealt round, the hash of its deck (seat policies key their plans
        by it)."""
        self._moves: dict[Path, Action] | None = None
        self._table_kept: tuple[list[Meld], list[int], bytes] | None = None
        """The table melds and owners the observation last read, and their bytes."""

    # -- chance

    def _dealer(self) -> int:
        assert self.first_dealer is not None
        return (self.first_dealer + self.round_index) % self.n_players

    def _chance_kind(self) -> str | None:
        if self.first_dealer is None:
            return "dealer"
        if self.round is None:
            return "deck"
        if self.reshuffling is not None:
            return "pile"
        return None

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The dealer (D3), or the next card of the deck or of the new stock (T8), uniform."""
        what = self._chance_kind()
        if what is None:
            return []
        if what == "dealer":
            p = 1.0 / self.n_players
            return [(d, p) for d in range(self.n_players)]
        p = 1.0 / len(self.left)
        return [(c, p) for c in self.left]

    def apply_chance(self, outcome: int) -> None:
        what = self._chance_kind()
        outcome = int(outcome)
        if what == "dealer":
            if not 0 <= outcome < self.n_players:
                raise ValueError(f"chance outcome {outcome} is no seat")
            self.first_dealer = outcome
            self.history.append(f"dealer {outcome}")
            self.log.append(f"first dealer: seat {outcome} (D3)")
            return
        if what is None or outcome not in self.left:
            raise ValueError(f"chance outcome {outcome} is not possible now")
        self.left.remove(outcome)
        self.history.append(f"card {outcome}")
        if what == "deck":
            self.deck.append(outcome)
            if len(self.left) == 1:
                self.deck.append(self.left.pop())
                self._start_round()
        else:
            assert self.reshuffling is not None
            self.reshuffling.append(outcome)
            if len(self.left) == 1:
                self.reshuffling.append(self.left.pop())
                self._finish_reshuffle()

    def _pick(self, u: float) -> int:
        """The outcome the core's ``deal`` picks for ``u`` among ``left``, uniform: the same sum
        of the same floats, so that a fast deal is the same deal."""
        p = 1.0 / len(self.left)
        acc = 0.0
        for i in range(len(self.left)):
            acc += p
            if u < acc:
                return i
        return len(self.left) - 1

    def deal(self, rng: random.Random) -> None:
        """Every chance node up to the next decision, as :meth:`TableState.deal` resolves them
        (same generator calls, same deal) but without building each node's outcome list."""
        while True:
            what = self._chance_kind()
            if what is None:
                break
            if what == "dealer":
                u = rng.random()
                p = 1.0 / self.n_players
                acc = 0.0
                pick = self.n_players - 1
                for d in range(self.n_players):
                    acc += p
                    if u < acc:
                        pick = d
                        break
                self.apply_chance(pick)
                continue
            target = self.deck if what == "deck" else self.reshuffling
            assert target is not None
            while len(self.left) > 1:
                c = self.left.pop(self._pick(rng.random()))
                target.append(c)
                self.history.append(f"card {c}")
            target.append(self.left.pop())
            if what == "deck":
                self._start_round()
            else:
                self._finish_reshuffle()

    def _start_round(self) -> None:
        """D3, D4: the round dealt from the drawn deck."""
        dealer = self._dealer()
        r = ref.RoundState(self.rules, dealer, self.deck, shuffler=_no_shuffle)
        self.round = r
        self.round_key = hash((self.round_index, *self.deck))
        self.known = [set() for _ in range(self.n_players)]
        self.reshuffle_log = 0
        self.reshuffle_kinds = None
        self.round_moves = []
        self.laid = []
        self.turn_log = []
        self.turn_cards = ()
        self._moves = None
        title = f"round {self.round_index + 1}" + (f" of {self.rules.rounds}"
                                                   if self.setup.game else "")
        self.log.append(f"{title}: seat {dealer} deals, seat {r.starter} starts (D3, D4)")
        for p in range(self.n_players):
            self.log.append(_Private(p, "you are dealt", tuple(r.hands[p])))
        self.log.append(f"cut card {C.card_text(r.cut_card)} (D3)")
        self._note_turn_start()

    def _finish_reshuffle(self) -> None:
        """T8: the drawn order becomes the stock, then the draw that needed it is made."""
        r = self.round
        assert r is not None and self.reshuffling is not None
        order = self.reshuffling
        self.reshuffling = None
        self.left = []
        self.reshuffle_kinds = Counter(C.kind(c) for c in order)
        # What the private entries say of these cards is about their life before they were
        # discarded in public; a relabelling of the hidden cards leaves it alone.
        pile = set(order)
        self.log = [e.freeze(pile) if isinstance(e, _Private) else e for e in self.log]
        self.reshuffle_log = len(self.log)
        r.shuffler = ref.ReplayShuffler([order])
        self._apply(DrawStock())

    # -- decisions

    def current_player(self) -> int:
        r = self.round
        if r is None or self.first_dealer is None or self.reshuffling is not None:
            return CHANCE  # _chance_kind(), asked several times a step
        return TERMINAL if r.is_over() else r.player

    def path(self, move: Action) -> Path:
        """The action path of a legal move of the player in turn (``table_codes``)."""
        if isinstance(move, DrawStock | DrawDiscard | DrawCut):
            return (T.DRAW_CODES[move],)
        if isinstance(move, Discard):
            return (T.discard_code(move),)
        if isinstance(move, Open):
            return (*sorted(T.SHAPE0 + T.meld_shape(m) for m in move.melds), T.OPEN_DONE)
        if isinstance(move, Lay):
            return (T.SHAPE0 + T.meld_shape(move.meld),)
        assert self.round is not None
        if isinstance(move, Add):
            if not 0 <= move.target < len(self.round.table):
                raise ValueError(f"T6: there is no table meld {move.target}")
            return (T.ADD0 + move.target * T.ADD_VARIANTS
                    + T.add_variant(self.round.table[move.target], move),)
        if isinstance(move, Swap):
            return (T.SWAP0 + move.target,)
        raise ValueError(f"{move!r} is not a Römi move")

    def moves(self) -> dict[Path, Action]:
        """The reference's legal moves (:func:`~simcards.romi.table_legal.legal_actions`)
        keyed by path, one per path (module text: the copy whose place is public first, then
        the lowest ids), in path order: the mapping :meth:`all_moves` makes, each move made
        when it is looked up (:class:`~simcards.romi.table_paths.LazyMoves`)."""
        if self._moves is None:
            if self.current_player() < 0:
                self._moves = {}
            else:
                r = self.round
                assert r is not None
                if r.phase == ref.DRAW:  # no cards named: each draw is its own path
                    self._moves = {(T.DRAW_CODES[a],): a for a in legal_actions(r)}
                else:
                    self._moves = after_draw_moves(r, self.known[r.player], self.all_moves)
        return self._moves

    def all_moves(self) -> dict[Path, Action]:
        """:meth:`moves` from the whole list of the reference's legal moves: every path's
        move made at once (a draw's three, or every move of a seat that looks at them all)."""
        r = self.round
        assert r is not None
        known = self.known[r.player]
        best: dict[Path, tuple[tuple[int, tuple[int, ...]], Action]] = {}
        for a in legal_actions(r):
            key = copy_key(a, known)
            p = self.path(a)
            if p not in best or key < best[p][0]:
                best[p] = (key, a)
        return {p: best[p][1] for p in sorted(best)}

    def play(self, move: Action) -> None:
        """Make the move of ``moves()`` with the path of ``move`` (its copy as the state keeps
        it). The melds of an ``Open`` are put down (``laid``) in the order given, or in the
        order of the shapes in ``lay_hint`` when it names the same melds (a seat policy's way
        of putting down the value of ``moves()`` it returns in its own order). A draw from an
        empty stock opens T8's chance nodes first."""
        moves = self.moves()
        given = move
        try:
            move = moves[self.path(move)]
        except (KeyError, ValueError):
            raise ValueError(f"illegal move {move!r}") from None
        order = None
        if isinstance(move, Open) and isinstance(given, Open):
            shapes = [T.meld_shape(m) for m in given.melds]
            hint = self.lay_hint
            if hint is not None and sorted(hint) == sorted(shapes):
                shapes = list(hint)
            free = [T.meld_shape(m) for m in move.melds]
            order = []
            for shape in shapes:
                i = free.index(shape)
                free[i] = -1
                order.append(i)
        self.lay_hint = None
        r = self.round
        assert r is not None
        if isinstance(move, DrawStock) and not r.stock and len(r.discards) > 1:
            self.log.append(f"[t{r.turn}] seat {r.player} draws from the empty stock: the "
                            f"{len(r.discards) - 1} cards under the top discard are shuffled "
                            "into a new stock (T8)")
            self.history.append((r.player, move))
            self.turn_log.append(move)
            self.reshuffling = []
            self.left = sorted(r.discards[:-1])
            self._moves = None
            if len(self.left) == 1:  # one card: no chance in its order
                self.reshuffling.append(self.left.pop())
                self._finish_reshuffle()
            return
        self.history.append((r.player, move))
        self.turn_log.append(move)
        self._apply(move, order)

    def _apply(self, move: Action, order: list[int] | None = None) -> None:
        """Play ``move`` in the reference round, keeping the log, the known cards and the
        order the melds were put down (``order``: an opening's melds, by their place in
        ``move.melds``)."""
        r = self.round
        assert r is not None
        q = r.player
        known = self.known[q]
        self.round_moves.append(move)
        head = f"[t{r.turn}] seat {q}"
        line: str | None = None
        if isinstance(move, DrawStock):
            r.apply(move)
            if r.is_over():
                line = f"{head} cannot draw: the stock and the pile are empty; round stopped (T8)"
            else:
                card = r.hands[q][-1]
                line = f"{head} draws from the stock"
                self.log.append(line)
                line = None
                self.log.append(_Private(q, f"[t{r.turn}] you draw", (card,)))
        elif isinstance(move, DrawDiscard):
            card = r.discards[-1]
            r.apply(move)
            known.add(card)
            line = f"{head} takes {C.card_text(card)} from the discard pile (T3, T4)"
        elif isinstance(move, DrawCut):
            card = r.cut
            assert card is not None
            r.apply(move)
            known.add(card)
            line = f"{head} takes the cut card {C.card_text(card)} (T5)"
        elif isinstance(move, Open):
            base = len(r.table)
            r.apply(move)
            known.difference_update(cards_of(move))
            if order is None:
                order = list(range(len(move.melds)))
            self.laid += [base + i for i in order]
            line = f"{head} opens (O1): " + "; ".join(
                f"meld {base + i}: {_meld_text(move.melds[i])}" for i in order)
        elif isinstance(move, Lay):
            r.apply(move)
            self.laid.append(len(r.table) - 1)
            known.difference_update(move.meld.cards)
            line = f"{head} lays meld {len(r.table) - 1}: {_meld_text(move.meld)}"
        elif isinstance(move, Add):
            r.apply(move)
            known.discard(move.card)
            line = (f"{head} adds {C.card_text(move.card)} to meld {move.target}: "
                    f"{_meld_text(r.table[move.target])}")
        elif isinstance(move, Swap):
            joker = next(c for c in r.table[move.target].cards if C.is_joker(c))
            r.apply(move)
            known.discard(move.card)
            known.add(joker)
            line = (f"{head} puts {C.card_text(move.card)} in meld {move.target} and takes "
                    "its joker (J1)")
        elif isinstance(move, Discard):
            r.apply(move)
            known.discard(move.card)
            line = f"{head} discards {C.card_text(move.card)}"
        if line is not None:
            self.log.append(line)
        self._moves = None
        if r.is_over():
            self._end_round()
            return
        if isinstance(move, Discard):
            self.turn_log = []
            self._note_turn_start()
        elif isinstance(move, DrawStock | DrawDiscard | DrawCut):
            self.turn_cards = tuple(r.hands[q])
            self.turn_table = tuple(r.table)

    def _note_turn_start(self) -> None:
        r = self.round
        assert r is not None
        self.turn_log = []
        self.turn_cards = tuple(r.hands[r.player])
        self.turn_table = tuple(r.table)

    @property
    def turn_hand(self) -> tuple[int, ...]:
        """Kinds in the hand of the player in turn once he has drawn, sorted (his plan's key);
        made when a seat asks, not at every draw."""
        return tuple(sorted(C.kind(c) for c in self.turn_cards))

    def _end_round(self) -> None:
        """G1-G6: the round's result; in a game the next round's deck is drawn next."""
        r = self.round
        assert r is not None
        scores = tuple(r.scores())
        never = tuple(not o for o in r.opened)
        penalty = tuple(0 if (p == r.went_out or never[p]) else scores[p]
                        for p in range(self.n_players))
        result = RoundResult(scores, r.went_out, bool(r.romi), bool(r.stalled), never, penalty)
        self.results.append(result)
        self.totals = [a + b for a, b in zip(self.totals, scores, strict=True)]
        how = ("stalled (T8, T9)" if r.stalled else
               f"seat {r.went_out} goes out" + (" with a Römi (G3)" if r.romi else " (G2)"))
        self.log.append(f"round {self.round_index + 1} over: {how}; scores {list(scores)}; "
                        f"totals {self.totals}")
        self.turn_log = []
        if self.setup.game and self.round_index < self.rules.rounds - 1:
            self.round_index += 1
            self.round = None
            self.deck = []
            self.left = list(range(C.N_CARDS))
            self.known = [set() for _ in range(self.n_players)]

    def is_over(self) -> bool:
        return self.current_player() == TERMINAL

    def returns(self) -> list[float]:
        """Zeros until the end. A round: minus each seat's score (G2-G5). A game: 1 shared by
        the seats with the lowest total (G6), 0 to the others."""
        n = self.n_players
        if not self.is_over():
            return [0.0] * n
        if not self.setup.game:
            return [-float(s) for s in self.results[-1].scores]
        low = min(self.totals)
        winners = [p for p in range(n) if self.totals[p] == low]
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]

    def infos(self, player: int) -> dict[str, Any]:
        """At the end: the seat's points by source (a game: summed over its rounds)."""
        if not self.is_over():
            return {}
        res = self.results
        if not self.setup.game:
            last = res[-1]
            return {"score": last.scores[player], "went_out": last.went_out == player,
                    "romi": last.romi and last.went_out == player, "stalled": last.stalled,
                    "penalty": last.penalty[player],
                    "never_opened": last.never_opened[player]}
        return {"score": self.totals[player], "win": self.returns()[player],
                "round_scores": [x.scores[player] for x in res],
                "went_out": sum(x.went_out == player for x in res),
                "romi": sum(x.romi and x.went_out == player for x in res),
                "stalled": sum(x.stalled for x in res),
                "penalty": sum(x.penalty[player] for x in res),
                "never_opened": sum(x.never_opened[player] for x in res)}

    # -- what a seat sees

    def _phase(self, player: int, cp: int | None = None) -> int:
        """``player``'s phase field; ``cp`` is :meth:`current_player` when the caller has it."""
        cp = self.current_player() if cp is None else cp
        if cp == TERMINAL:
            return PH_OVER
        if cp != player or self.round is None:
            return PH_OTHER
        return _PHASE.get(self.round.phase, PH_MELD)

    def observation(self, player: int, pending: Path = ()) -> np.ndarray:
        """The vector of ``OBSERVATION_FIELDS``. The fields of many entries (hand, pile,
        the other seats' known cards, the table melds, the per-seat ones) are filled by one
        compiled pass over the state's numbers (:func:`~simcards.romi.table_observation_kernel.
        fill`), the rest are single entries."""
        lay = self.layout
        at = lay.at
        n = self.n_players
        out = np.zeros(lay.size, dtype=np.float32)
        cp = self.current_player()
        r = self.round
        out[at["phase"] + self._phase(player, cp)] = 1.0
        for code in pending:
            if T.SHAPE0 <= code < T.ADD0:
                out[at["opening"] + code - T.SHAPE0] += 1.0
        if self.setup.game:
            out[at["round"]] = self.round_index
            for q in range(n):
                out[at["totals"] + (q - player) % n] = self.totals[q]
        if self.first_dealer is not None:
            out[at["dealer"] + (self._dealer() - player) % n] = 1.0
        if r is None:
            return out
        known = self.known
        kept = self._table_kept
        if kept is None or kept[0] != r.table or kept[1] != r.owners:
            kept = self._keep_table(r)
        data = _SEPARATOR.join([bytes(r.hands[player]), bytes(r.discards),
                                *map(bytes, known[player + 1:]), *map(bytes, known[:player]),
                                kept[2], bytes(map(len, r.hands)), bytes(r.opened),
                                bytes(r.has_drawn)])
        fill(out, np.frombuffer(data, dtype=np.uint8), lay.kernel_at, player, len(kept[0]))
        hand = r.hands[r.player]
        if not r.is_over():  # (a T8 chance node too: the turn's flags stand)
            if r.must_place is not None and r.must_place in hand:
                out[at["must_place"] + C.kind(r.must_place)] = 1.0
            f = at["turn_flags"]
            out[f] = len(r.freed.intersection(hand))
            out[f + 1] = r.must_go_out
            out[f + 2] = r.opened_this_turn
            out[f + 3] = r.touched_others
            if cp >= 0:
                out[at["to_play"] + (r.player - player) % n] = 1.0
        out[at["may_open"]] = r.turns_played[player] >= 1
        if r.discards:
            out[at["top"] + C.kind(r.discards[-1])] = 1.0
        out[at["cut"] + C.kind(r.cut_card)] = 1.0
        out[at["cut_taken"]] = r.cut is None
        out[at["stock"]] = len(r.stock)
        out[at["turn"]] = r.turn
        return out

    def _keep_table(self, r: ref.RoundState) -> tuple[list[Meld], list[int], bytes]:
        """The table's segments of the observation's data (each meld's cards, the owners, the
        kinds the jokers stand for plus one), kept with the table and owners they are made
        of: melds are immutable, so while those lists are equal the bytes stand (a clone
        shares them)."""
        data = _SEPARATOR.join([*(bytes(meld.cards) for meld in r.table), bytes(r.owners),
                                bytes([meld.stands_for + 1 for meld in r.table])])
        self._table_kept = (list(r.table), list(r.owners), data)
        return self._table_kept

    def observation_text(self, player: int, pending: Path = ()) -> str:
        """What ``player`` sees now (I1, I2), card kinds only."""
        n = self.n_players
        lines = [f"seat {player} of {n}"]
        if self.setup.game:
            lines.append(f"round {self.round_index + 1} of {self.rules.rounds}; totals "
                         f"{self.totals}")
        if self.first_dealer is not None:
            lines.append(f"dealer: seat {self._dealer()}")
        r = self.round
        if r is None:
            lines.append("dealing" if not self.is_over() else "over")
            return "\n".join(lines)
        phase = ["waits", "first turn: discard only (D4)", "to draw", "melding",
                 "over"][self._phase(player)]
        lines.append(f"turn {r.turn}; " + ("round over" if r.is_over() else
                                           f"seat {r.player} in turn; you: {phase}"))
        lines.append(f"hand: {_kinds_text(r.hands[player])}")
        if pending:
            lines.append("opening so far: " + " | ".join(
                T.shape_text(c - T.SHAPE0) for c in pending))
        hand = r.hands[r.player]
        if not r.is_over():
            flags = []
            if r.must_place is not None and r.must_place in hand:
                flags.append(f"must meld {C.card_text(r.must_place)} (T4)")
            freed = len(r.freed.intersection(hand))
            if freed:
                flags.append(f"{freed} freed joker(s) to lay (J3)")
            if r.must_go_out:
                flags.append("must go out (T5)")
            if r.opened_this_turn:
                flags.append("opened this turn")
            if r.touched_others:
                flags.append("no Römi this turn (G3)")
            if flags:
                lines.append(f"seat {r.player}: " + "; ".join(flags))
        lines.append(f"may open: {'yes' if r.turns_played[player] >= 1 else 'no (O2)'}")
        for m, (meld, owner) in enumerate(zip(r.table, r.owners, strict=True)):
            lines.append(f"meld {m} (seat {owner}): {_meld_text(meld)}")
        pile = " ".join(C.card_text(c) for c in r.discards) or "-"
        lines.append(f"discard pile (bottom first): {pile}")
        lines.append(f"cut card: {C.card_text(r.cut_card)}"
                     + (" (taken)" if r.cut is None else ""))
        lines.append("hand sizes: " + " ".join(str(len(h)) for h in r.hands))
        lines.append("opened: " + " ".join("1" if o else "0" for o in r.opened))
        lines.append("has drawn: " + " ".join("1" if d else "0" for d in r.has_drawn))
        for q in range(n):
            if q != player and self.known[q]:
                lines.append(f"seat {q} holds at least: {_kinds_text(self.known[q])}")
        lines.append(f"stock: {len(r.stock)} cards")
        if r.is_over():
            lines.append(f"round over: scores {r.scores()}")
        return "\n".join(lines)

    def information_text(self, player: int, pending: Path = ()) -> str:
        """The whole log as ``player`` saw it (public lines, his own dealt hand and stock
        draws, I1, I2), then what he sees now."""
        lines = []
        for e in self.log:
            if isinstance(e, str):
                lines.append(e)
            elif e.seat == player:
                lines.append(e.text())
        if self.reshuffling is not None:
            lines.append(f"(T8: {len(self.reshuffling)} cards of the new stock shuffled)")
        lines.append("-- now --")
        lines.append(self.observation_text(player, pending))
        return "\n".join(lines)

    # -- hidden cards

    def hidden_cards(self, player: int) -> list[int]:
        """The ids whose place ``player`` does not know: the other hands' cards not known to
        be there (``known``) and the stock; while a deck is drawn, the cards drawn so far. (The
        order of a new stock being drawn under T8 is hidden too, but its cards are the pile's:
        :meth:`resample` draws it again among them.)"""
        r = self.round
        if r is None:
            return list(self.deck)
        out = [c for q in range(self.n_players) if q != player
               for c in r.hands[q] if c not in self.known[q]]
        out += r.stock
        return out

    def relabel(self, player: int, mapping: dict[int, int]) -> None:
        """Put card ``mapping[c]`` where every hidden card ``c`` of ``player`` lies (a
        permutation of :meth:`hidden_cards`): in the other hands, the stock and the other
        seats' private log entries, so that each seat's record still says how he came by the
        cards he holds. What ``player`` saw is untouched. (The round's ``deck`` and the
        reference's record of past stock orders keep what really happened.)"""
        hidden = set(self.hidden_cards(player))
        if set(mapping) != hidden or set(mapping.values()) != hidden:
            raise ValueError("relabel: the mapping must permute the hidden cards")
        r = self.round
        if r is None:
            self.deck = [mapping[c] for c in self.deck]
            return
        for q in range(self.n_players):
            if q != player:
                r.hands[q] = [mapping.get(c, c) if c not in self.known[q] else c
                              for c in r.hands[q]]
        r.stock = [mapping[c] for c in r.stock]
        if r.drawn is not None and r.player != player:
            r.drawn = mapping.get(r.drawn, r.drawn)
        self.log = [e.relabel(mapping) if isinstance(e, _Private) and e.seat != player else e
                    for e in self.log]
        r._cache = {}
        r._searches = {}
        self._moves = None

    def resample(self, player: int, rng: random.Random) -> RomiTable:
        """Another state with ``player``'s information text: his hidden cards (the other
        hands less the cards known to be there, the stock) dealt again at random, hand sizes
        kept. After a reshuffle (T8) the stock is drawn from the hidden cards whose kinds were
        in that pile and were not drawn by ``player`` since (the stock cannot hold a card
        that was not in it); otherwise every hidden card may go anywhere. A partly drawn deck
        or new stock order is drawn again. The other players' choices are not taken as
        evidence about their cards (a determinization, not the exact posterior)."""
        other = self.clone()
        r = other.round
        if r is None or r.is_over():
            if r is None and self.deck:
                other.deck = rng.sample(range(C.N_CARDS), len(self.deck))
                other.left = sorted(set(range(C.N_CARDS)) - set(other.deck))
            return other
        hidden = self.hidden_cards(player)
        stock_slots = len(r.stock)
        pool = list(hidden)
        rng.shuffle(pool)
        new_stock: list[int] = []
        if stock_slots and self.reshuffle_kinds is not None:
            room = Counter(self.reshuffle_kinds)
            for e in self.log[self.reshuffle_log:]:
                if isinstance(e, _Private) and e.seat == player:
                    for c in e.cards:
                        room[C.kind(c)] -= 1
            fits = []
            rest = []
            for c in pool:
                k = C.kind(c)
                if room[k] > 0:
                    room[k] -= 1
                    fits.append(c)
                else:
                    rest.append(c)
            new_stock = fits[:stock_slots]
            pool = fits[stock_slots:] + rest
            rng.shuffle(pool)
        else:
            new_stock = pool[:stock_slots]
            pool = pool[stock_slots:]
        hand_slots = [c for q in range(self.n_players) if q != player
                      for c in r.hands[q] if c not in self.known[q]]
        mapping = dict(zip(hand_slots + list(r.stock), pool[:len(hand_slots)] + new_stock,
                           strict=True))
        other.relabel(player, mapping)
        if self.reshuffling is not None:
            pile = self.reshuffling + self.left
            rng.shuffle(pile)
            other.reshuffling = pile[:len(self.reshuffling)]
            other.left = sorted(pile[len(self.reshuffling):])
        return other

    # -- text

    def render(self) -> str:
        """The whole table as text, every hand shown (for a person watching, not a seat)."""
        n = self.n_players
        r = self.round
        head = (f"Römi, {n} players" + (f", round {self.round_index + 1} of "
                                        f"{self.rules.rounds}, totals {self.totals}"
                                        if self.setup.game else ""))
        if r is None:
            return head + ("\ndealing\n" if not self.is_over() else "\nover\n")
        lines = [head, f"dealer seat {r.dealer}, turn {r.turn}, "
                 + (f"seat {r.player} to play ({r.phase})" if not r.is_over() else "over")]
        for m, (meld, owner) in enumerate(zip(r.table, r.owners, strict=True)):
            lines.append(f"  meld {m:2d} [seat {owner}]: {meld.text()}")
        lines.append("  pile: " + (" ".join(C.card_text(c) for c in r.discards) or "-"))
        lines.append(f"  cut card: {C.card_text(r.cut_card)}"
                     + (" (taken)" if r.cut is None else ""))
        lines.append(f"  stock: {len(r.stock)} cards")
        for p in range(n):
            mark = "*" if p == r.player and not r.is_over() else " "
            state = "opened" if r.opened[p] else "not opened"
            lines.append(f"{mark} seat {p} ({state}, {len(r.hands[p])}): "
                         f"{C.format_hand(sorted(r.hands[p], key=C.kind))}")
        if r.is_over():
            lines.append(f"scores {r.scores()}")
        return "\n".join(lines) + "\n"

    def history_text(self) -> str:
        return "; ".join(e if isinstance(e, str) else f"seat {e[0]}: {e[1]!r}"
                         for e in self.history)

    def clone(self) -> RomiTable:
        other = RomiTable.__new__(RomiTable)
        other.__dict__.update(self.__dict__)
        other.round = self.round.clone() if self.round is not None else None
        other.deck = list(self.deck)
        other.left = list(self.left)
        other.results = list(self.results)
        other.totals = list(self.totals)
        other.known = [set(k) for k in self.known]
        other.log = list(self.log)
        other.history = list(self.history)
        other.reshuffling = list(self.reshuffling) if self.reshuffling is not None else None
        other.turn_log = list(self.turn_log)
        other.round_moves = list(self.round_moves)
        other.laid = list(self.laid)
        other._moves = None  # made from this state's round, when looked up
        return other


# ---------------------------------------------------------------- seat policies


def _random_choice(state: TableState, rng: random.Random) -> Action:
    """``random``: uniform over the whole legal moves (one per path; the path is drawn, then
    only its move is made)."""
    moves = state.moves()
    return moves[rng.choice(list(moves))]


class KernelPolicy:
    """A seat playing one of the numba engine's policies (Q2-Q5: ``greedy``, ``rummy:K``,
    ``threshold:X``, ``expert``) from its own observation (I3).

    The engine plans from a :class:`~simcards.romi.kernel_state.View` (its hand, the table,
    the top discard, the cut card, its flags) and, for the expert, the discard pile's kinds and
    whether the next player has opened; this builds them from the reference state. The draw is
    ``policies_kernel.choose_draw``; once drawn, ``policies_kernel.plan_turn`` plans the whole
    turn's melding and discard, exactly as the engine's ``play_turn`` does, and the planned
    moves are then played one per call. Plans are kept by (round, turn, seat, hand after the
    draw, table at the draw) and followed while the turn's moves so far are the plan's; a state
    reached otherwise (a search trying other moves mid-turn) is planned afresh from where it
    stands, and a planned move that is not legal there is replaced by a uniformly random legal
    move."""

    def __init__(self, rules: RomiRules, kind: int, param: int) -> None:
        from simcards.romi import policies_kernel, round_kernel
        from simcards.romi.melds_kernel import new_solver

        self.rules = rules
        self.kind = kind
        self.param = param
        self.policies = policies_kernel
        self.ws = round_kernel.new_workspace(rules.players)
        self.sv = new_solver()
        self.ps = round_kernel.new_scratch()
        self.hand = np.full(round_kernel.HW, -1, np.int64)
        self.plans: dict[tuple, list[Action]] = {}

    def _view(self, state: RomiTable) -> View:
        """The seat's view as the engine's ``play_turn`` builds it (I3: its hand in
        ``self.hand``, public facts only), the table in the order it was put down; the expert's
        pile counts go to the scratch."""
        from simcards.romi.records import put_meld

        r = state.round
        assert r is not None
        p = r.player
        n = self.rules.players
        for k, m in enumerate(state.laid):
            put_meld(self.ws, k, r.owners[m], r.table[m].cards, r.table[m].stands_for)
        x = self.param if self.kind == codes.POLICY_THRESHOLD else self.rules.open_min
        hold = (self.kind == codes.POLICY_RUMMY
                and all(len(r.hands[q]) > self.param for q in range(n) if q != p))
        xs = self.ps.xs
        xs[codes.X_ON] = 1 if self.kind == codes.POLICY_EXPERT else 0
        xs[codes.X_NEXT_OPEN] = int(r.opened[(p + 1) % n])
        xs[codes.X_PILE:codes.X_PILE + N_KINDS] = 0
        for c in r.discards:
            xs[codes.X_PILE + C.kind(c)] += 1
        hand = r.hands[p]
        self.hand[:] = -1
        self.hand[:len(hand)] = hand
        top = r.discards[-1] if r.discards else -1
        cut = r.cut if r.cut is not None else -1
        if r.phase == ref.FIRST:
            return View(p, False, False, False, x, False, top, cut, self.rules.ace_low_value,
                        self.ws.tm, self.ws.tc, len(r.table))
        return View(p, bool(r.opened[p]), r.turns_played[p] >= 1, not r.has_drawn[p], x, hold,
                    top, cut, self.rules.ace_low_value, self.ws.tm, self.ws.tc, len(r.table))

    def _plan(self, state: RomiTable) -> list[Action]:
        """The engine's plan of the rest of the turn, as moves of the reference: table melds
        renumbered from the engine's order (``laid``) to the reference's, an opening's melds
        in the order the engine puts them down."""
        from simcards.romi.records import decode_moves

        r = state.round
        assert r is not None
        view = self._view(state)
        must = r.must_place if r.must_place in r.hands[r.player] else -1
        nmv = self.policies.plan_turn(self.hand, len(r.hands[r.player]), must, view, self.sv,
                                      self.ps)[0]
        rows = self.ps.mv[:nmv]
        laid = state.laid
        nm = len(laid)
        opening = tuple(Meld(tuple(int(c) for c in row[codes.MV_C0:codes.MV_C0 + row[codes.MV_N]]),
                             int(row[codes.MV_STANDS]) if row[codes.MV_STANDS] >= 0 else NO_JOKER)
                        for row in rows if row[codes.MV_CODE] == codes.MV_OPEN)
        out: list[Action] = []
        for a in decode_moves(rows):
            if isinstance(a, Open):
                a = Open(opening)
            elif isinstance(a, Add) and a.target < nm:
                a = Add(laid[a.target], a.card, a.stands_for)
            elif isinstance(a, Swap) and a.target < nm:
                a = Swap(laid[a.target], a.card)
            out.append(a)
        return out

    def __call__(self, state: TableState, rng: random.Random) -> Action:
        if not isinstance(state, RomiTable) or state.round is None:
            raise UsageError("a Römi seat policy plays Römi table states")
        r = state.round
        moves = state.moves()
        if r.phase == ref.DRAW:
            view = self._view(state)
            code = self.policies.choose_draw(self.hand, len(r.hands[r.player]), view, self.sv,
                                             self.ps)
            move: Action = {codes.MV_DRAW_STOCK: DrawStock(), codes.MV_DRAW_DISCARD: DrawDiscard(),
                            codes.MV_DRAW_CUT: DrawCut()}[int(code)]
        else:
            key = (state.round_key, r.turn, r.player, state.turn_hand, state.turn_table)
            done = [kind_signature(a) for a in state.turn_log]
            plan = self.plans.get(key)
            if (plan is None or len(plan) <= len(done)
                    or [kind_signature(a) for a in plan[:len(done)]] != done):
                plan = list(state.turn_log) + self._plan(state)
                if len(self.plans) > 64:
                    self.plans.clear()
                self.plans[key] = plan
            move = plan[len(done)]
            if isinstance(move, Open):
                state.lay_hint = tuple(T.meld_shape(m) for m in move.melds)
        path = state.path(move)
        if path in moves:
            return moves[path]
        return rng.choice(list(moves.values()))


def _seat_policy(setup: RomiSetup, spec: str) -> Callable[[TableState, random.Random], Any]:
    """``random`` (uniform over the legal moves), an engine policy, ``greedy``,
    ``rummy:K``, ``threshold:X`` or ``expert`` (Q2-Q5, :class:`KernelPolicy`), or a user's
    function ``PATH.py:FUNCTION`` (Q9, :class:`~simcards.romi.users.UserSeat`)."""
    text = spec.strip().lower()
    if text == "random":
        return _random_choice
    from simcards.romi.policies import KINDS, check_table_seat

    parsed = KINDS.parse(spec.strip() if is_user_spec(spec) else text,
                         {"open_min": setup.rules.open_min})
    if parsed.user is not None:
        from simcards.romi.users import UserSeat

        return UserSeat(parsed.user)
    check_table_seat(parsed)  # Q7, Q8: the searching seats play in batches only
    param = int(parsed.values[0]) if parsed.values else 0
    return KernelPolicy(setup.rules, KINDS.code(parsed.kind), param)


# ---------------------------------------------------------------- the games

MOVES_PER_ROUND = 2 * STALL_TURNS + 3 * C.N_CARDS + MAX_SEATS
"""An upper bound on the codes of one round: a draw and a discard per turn (T9: 1,000 turns at
most), and at most 321 melding codes: each Open meld, Lay or Add puts a card on the table (the
104 real cards once each, M5, and a joker each time it is laid, at most 4 + one per swap), each
swap puts a real card on the table (104 at most), and one OPEN_DONE per player."""


def _utility(setup: RomiSetup) -> tuple[float, float]:
    """A round: at worst -150 (an opened player keeps at most 11 cards: 15 after the draw of
    his opening turn, 3 laid at least and one discarded, and the hand never grows after; four
    jokers and seven tens cost 150, more than the 100 of G5), at best +20 (a Römi, G3). A
    game: 0 or 1."""
    return (0.0, 1.0) if setup.game else (-150.0, 20.0)


def _length(setup: RomiSetup) -> int:
    return MOVES_PER_ROUND * (setup.rules.rounds if setup.game else 1)


ROUND_PARAMS = (*ROUND_SWITCHES.params(),
                Param("dealer", None, "the dealer's seat; drawn by chance when not given (D3)"))
GAME_PARAMS = (*GAME_SWITCHES.params(),
               Param("dealer", None, "the first dealer's seat; drawn by chance when not given "
                     "(D3)"))


def _game(name: str, openspiel: str, long: str, game: bool, params: tuple[Param, ...],
          reward: str) -> TableGame:
    return TableGame(
        name=name, openspiel_name=openspiel, long_name=long, params=params,
        make=_make(game), new_state=RomiTable, n_players=lambda s: s.rules.players,
        n_actions=T.N_ACTIONS, action_text=T.action_text,
        observation_size=lambda s: s.layout.size, observation_fields=OBSERVATION_FIELDS,
        reward=reward, utility=_utility, zero_sum=lambda s: False,
        max_chance_outcomes=C.N_CARDS, max_game_length=_length, seat_policy=_seat_policy,
        default_opponent="greedy")


ROUND = _game("romi_v0", "simcards_romi", "simcards Römi húngaro: one round", False,
              ROUND_PARAMS, "At the end of the round each seat receives minus its round score "
              "(G2-G5: +10 or +20 for going out, -100 for never opening, else minus the "
              "cards left in hand).")
GAME = _game("romi_game_v0", "simcards_romi_game", "simcards Römi húngaro: a game", True,
             GAME_PARAMS, "At the end of the game the seat with the lowest total (G6) receives "
             "1, shared equally by equal lowest totals; the others 0.")


__all__ = ["GAME", "GAME_PARAMS", "MOVES_PER_ROUND", "OBSERVATION_FIELDS", "ROUND", "ROUND_PARAMS",
           "KernelPolicy", "Layout", "RomiSetup", "RomiTable", "RoundResult", "kind_signature"]
