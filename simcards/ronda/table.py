"""Ronda as a game-AI state (:mod:`simcards.core.table`): a hand (``ronda_v0``,
OpenSpiel ``simcards_ronda``) and a match (``ronda_match_v0``, ``simcards_ronda_match``).

The states drive the reference engine (:class:`~simcards.ronda.reference.HandState`,
:class:`~simcards.ronda.reference.MatchState`), the engine the compiled kernels are checked
against, so an agent trained or searched here plays exactly the rules of ``seeds/ronda.md``.

Actions. A move is one card: action ``c`` plays card id ``c`` (0 .. 39, value-major as in the
reference: ``c // 4`` is the value index of 1 .. 7, 10 .. 12, ``c % 4`` the suit of oros, copas,
espadas, bastos). Only the cards of the hand are legal (P1).

Chance. The first dealer (D3) is a chance node of ``players`` outcomes unless ``dealer`` is
given; a hand's deck (D5) is drawn one card at a time, top first, each of the cards not yet
drawn equally likely. In a match the deck of the *next* hand is drawn as soon as a hand is
dealt (a hand's end is not known before its last play, and an OpenSpiel chance node has to
come before the decision it feeds); nobody sees it until it is dealt, and a match that ends
first simply never uses it.

Rewards. A hand pays each seat its side's points of the hand at its end (points mode, S1-S3;
in classic mode, C2, 1 to each seat of the side that won the hand); a match pays 1 to each seat
of the side that won it (S4, C3) and 0 to the others.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from io import StringIO
from typing import Any

import numpy as np

from simcards.core.switches import RuleSet
from simcards.core.table import CHANCE, Param, TableGame, TableState
from simcards.ronda import codes
from simcards.ronda import reference as ref
from simcards.ronda.policies import check_legal
from simcards.ronda.rules import RondaRules

N_CARDS = ref.N_CARDS
MAX_SEATS = codes.OBS_MAX_SEATS
MAX_DEALS = codes.OBS_MAX_DEALS
"""D4: at most five deals in a hand (two players deal 4 cards five times)."""

OBSERVATION_FIELDS = """\
The observation of seat ``p`` is a float32 vector; *relative* seats and sides count from
``p`` (``0`` is ``p`` himself or his side), so one network serves every seat. In order:

* ``hand`` (40): 1 for each card id in ``p``'s hand.
* ``table`` (40): the cards lying on the table (P4).
* ``pile`` (40): the cards of the open pile in play (X3).
* ``previous`` (40): the card laid by the previous play, if any (X1: a capture of the same
  value is a Missa or a Derba).
* ``played`` (4 x 40): for each relative seat, the cards it has played in this hand.
* ``captured`` (4 x 40): for each relative side, the cards it has captured.
* ``hand_sizes`` (4): cards held by each relative seat, divided by 4.
* ``announced`` (4 x 2): Rondas and Tringlas announced by each relative seat this hand (A2).
* ``seat_marks`` (4 x 4): one-hots over relative seats of the dealer, the first player, the
  pile's last hitter and the last capturer.
* ``scores`` (4): each relative side's match score, divided by the target (S2).
* ``hand_points`` (4): each relative side's points of this hand, divided by the target.
* ``deal`` (5): one-hot of the deal in progress (D4).
* ``stock`` (1): cards left in the stock, divided by 40.
* ``to_play`` (1): 1 when ``p`` is to play.
* ``hands_won`` (4): each relative side's won hands (classic mode, C2), divided by
  ``hands_to_win``; zeros in a single hand.

Sides and seats that a table does not have stay 0. Nothing of another hand or of the stock's
order is in it (I1, I2).
"""

_HAND, _TABLE, _PILE, _PREV = codes.OBS_HAND, codes.OBS_TABLE, codes.OBS_PILE, codes.OBS_PREVIOUS
_PLAYED = codes.OBS_PLAYED
_CAPTURED = codes.OBS_CAPTURED
_SIZES = codes.OBS_SIZES
_ANNOUNCED = codes.OBS_ANNOUNCED
_MARKS = codes.OBS_MARKS
_SCORES = codes.OBS_SCORES
_POINTS = codes.OBS_POINTS
_DEAL = codes.OBS_DEAL
_STOCK = codes.OBS_STOCK
_TO_PLAY = codes.OBS_TO_PLAY
_WON = codes.OBS_WON
OBSERVATION_SIZE = codes.OBS_SIZE


def observation_vector(h: ref.HandState, player: int, options: ref.RondaOptions,
                       to_play: bool, hands_won: Sequence[int] | None = None) -> np.ndarray:
    """Seat ``player``'s observation (:data:`OBSERVATION_FIELDS`) of the hand ``h``:
    ``to_play`` whether the seat is to play, ``hands_won`` the sides' hands won in a match
    (C2; None outside one). The environments' observation, and what ``ronda play`` gives a
    player's own function (Q11)."""
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    n = options.players
    ones = [_HAND + c for c in h.hands[player]]
    ones += [_TABLE + c for c in h.table.values()]
    ones += [_PILE + c for c in h.pile]
    if h.last_laid is not None:
        ones.append(_PREV + h.last_laid)
    ones += [_PLAYED + ((seat - player) % n) * N_CARDS + card for seat, card, _ in h.plays]
    side_of = options.side_of
    n_sides = options.n_sides
    mine = side_of(player)
    for side, cards in enumerate(h.captured):
        at = _CAPTURED + ((side - mine) % n_sides) * N_CARDS
        ones += [at + c for c in cards]
    marks = (h.dealer, h.first_player, h.pile_hitter if h.pile else None, h.last_capturer)
    for k, seat in enumerate(marks):
        if seat is not None:
            ones.append(_MARKS + 4 * k + (seat - player) % n)
    if 0 <= h.deal_index < MAX_DEALS:
        ones.append(_DEAL + h.deal_index)
    out[ones] = 1.0
    for seat in range(n):
        out[_SIZES + (seat - player) % n] = len(h.hands[seat]) / 4.0
    for a in h.announcements:
        if a.deal == h.deal_index:
            r = (a.player - player) % n
            out[_ANNOUNCED + 2 * r + (0 if a.kind == "ronda" else 1)] += 1.0
    target = float(options.target)
    points = h.hand_points()
    for side, score in enumerate(h.scores()):
        r = (side - mine) % n_sides
        out[_SCORES + r] = score / target
        out[_POINTS + r] = points[side] / target
    out[_STOCK] = len(h.stock) / N_CARDS
    out[_TO_PLAY] = 1.0 if to_play else 0.0
    if hands_won is not None:
        for side, won in enumerate(hands_won):
            out[_WON + (side - mine) % n_sides] = won / options.hands_to_win
    return out


@dataclass(frozen=True)
class RondaSetup:
    """A table: the rules (as the reference engine takes them), the first dealer (None: drawn
    by chance, D3) and whether a whole match is played."""

    options: ref.RondaOptions
    dealer: int | None
    match: bool


def _make(match: bool):
    def make(opts: dict[str, Any]) -> RondaSetup:
        rules = RondaRules.from_options(opts)
        options = ref.RondaOptions(**rules.summary())
        dealer = opts.get("dealer")
        if dealer is not None:
            from simcards.core.cli_options import check_seat

            dealer = check_seat(dealer, rules.players)
        return RondaSetup(options, dealer, match)
    return make


class RondaTable(TableState):
    """A Ronda hand or match in progress (see the module text)."""

    def __init__(self, setup: RondaSetup) -> None:
        self.setup = setup
        self.options = setup.options
        self.n_players = setup.options.players
        self.dealer = setup.dealer
        self.decks: list[list[int]] = []
        """Every deck drawn so far, by hand; the last may still be incomplete."""
        self.game: ref.HandState | ref.MatchState | None = None
        self.finished: list[ref.HandState] = []
        self._pending = True
        """Whether a chance node is next (kept up to date: asked at every step)."""

    # -- chance

    def _decks_wanted(self) -> int:
        if self.game is None:
            return 1 if not self.setup.match else 2
        if not self.setup.match or self.game.is_terminal():
            return len(self.decks)
        return self.game.hand_index + 2

    def _update(self) -> None:
        self._pending = self._chance_pending()

    def _chance_pending(self) -> bool:
        if self.dealer is None:
            return True
        if self.decks and len(self.decks[-1]) < N_CARDS:
            return True
        return len(self.decks) < self._decks_wanted()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.dealer is None:
            n = self.n_players
            return [(d, 1.0 / n) for d in range(n)]
        deck = self.decks[-1] if self.decks and len(self.decks[-1]) < N_CARDS else []
        left = sorted(set(range(N_CARDS)) - set(deck))
        return [(c, 1.0 / len(left)) for c in left]

    def apply_chance(self, outcome: int) -> None:
        if self.dealer is None:
            self.dealer = int(outcome)
        else:
            if not self.decks or len(self.decks[-1]) == N_CARDS:
                self.decks.append([])
            self.decks[-1].append(int(outcome))
            if len(self.decks[-1]) == N_CARDS and self.game is None:
                self._start()
        self._update()

    def deal(self, rng: random.Random) -> None:
        """Every pending chance node at once: a whole deck is one shuffle of what is left."""
        while self._chance_pending():
            if self.dealer is None:
                self.dealer = rng.randrange(self.n_players)
                continue
            deck = self.decks[-1] if self.decks and len(self.decks[-1]) < N_CARDS else None
            if deck is None:
                deck = []
                self.decks.append(deck)
            left = sorted(set(range(N_CARDS)) - set(deck))
            rng.shuffle(left)
            deck.extend(left)
            if self.game is None and len(self.decks) == self._decks_wanted():
                self._start()
        self._update()

    def _start(self) -> None:
        if self._chance_pending():
            return
        if self.setup.match:
            self.game = ref.MatchState(self.options, self.dealer, self._deck)
        else:
            self.game = ref.HandState(self.options, self.dealer, self.decks[0])

    def _deck(self, index: int) -> list[int]:
        return self.decks[index]

    # -- decisions

    def current_player(self) -> int:
        if self._pending:
            return CHANCE
        return self.game.current_player()

    @property
    def hand(self) -> ref.HandState:
        assert self.game is not None
        return self.game.hand if self.setup.match else self.game

    def moves(self) -> dict[tuple[int, ...], int]:
        return {(c,): c for c in self.game.legal_actions()}

    def play(self, move: int) -> None:
        before = self.hand
        self.game.apply(move)
        if self.setup.match and self.hand is not before:
            self.finished.append(before)
            self._update()

    def returns(self) -> list[float]:
        """Zeros until the end (only the end pays); then each seat's side's figure."""
        if self.game is None or self._pending or not self.game.is_terminal():
            return [0.0] * self.n_players
        by_side = self.game.returns()
        return [float(by_side[self.options.side_of(p)]) for p in range(self.n_players)]

    def infos(self, player: int) -> dict[str, Any]:
        if self.game is None or not self.game.is_terminal():
            return {}
        side = self.options.side_of(player)
        hand = self.hand
        out = {"side": side, "points": hand.hand_points()[side],
               "points_by_source": hand.points_by_source(side)}
        if self.setup.match:
            out["scores"] = list(self.game.scores())
            out["winner_side"] = self.game.winner
        return out

    # -- what a seat sees

    def observation(self, player: int, pending: tuple[int, ...] = ()) -> np.ndarray:
        if self.game is None:
            return np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        to_play = self.hand.current_player() == player and not self._pending
        return observation_vector(self.hand, player, self.options, to_play,
                                  self.game.hands_won if self.setup.match else None)

    def _obs(self, player: int) -> dict:
        obs = self.game.observation(player)
        obs.pop("options")
        return obs

    def observation_text(self, player: int, pending: tuple[int, ...] = ()) -> str:
        if self.game is None:
            return f"seat {player}: dealing"
        obs = self._obs(player)
        return " ".join(f"{k}={v}" for k, v in obs.items())

    def information_text(self, player: int, pending: tuple[int, ...] = ()) -> str:
        """The observation already holds the whole hand's public history and the seat's own
        plays (so every card he held); a match adds the finished hands' plays and
        announcements, and the dealer drawn (D3)."""
        if self.game is None:
            return f"seat {player}: dealing"
        past = " | ".join(f"hand plays={h.plays} announcements={tuple(h.announcements)} "
                          f"points={h.hand_points()}" for h in self.finished)
        return (past + " || " if past else "") + self.observation_text(player)

    def resample(self, player: int, rng: random.Random) -> RondaTable:
        """Q1's consistent sample (announcements respected) for the hand in play; decks of
        later hands drawn afresh."""
        if self.game is None or self.game.is_terminal():
            return self.clone()
        other = RondaTable.__new__(RondaTable)
        other.__dict__.update(self.__dict__)
        obs = self.hand.observation(player)
        hidden, stock = ref.consistent_sample(obs, rng)
        hand = ref.HandState.from_observation(obs, hidden, stock)
        other.finished = list(self.finished)
        other.decks = [list(d) for d in self.decks]
        if self.setup.match:
            m = ref.MatchState(self.options, self.game.dealer, other._deck,
                               hands_won=self.game.hands_won, hand=hand)
            m.hand_index = self.game.hand_index
            m.finished_hands = list(self.game.finished_hands)
            m.check_points = list(self.game.check_points)
            m.dealer = self.game.dealer
            other.game = m
            # Later decks are unknown to everybody: draw them again.
            for k in range(self.game.hand_index + 1, len(other.decks)):
                deck = list(range(N_CARDS))
                rng.shuffle(deck)
                other.decks[k] = deck
        else:
            other.game = hand
        return other

    def render(self) -> str:
        """The board as ``simcards ronda play`` shows it to the seat to play."""
        from simcards.core.console import make_console
        from simcards.ronda.terminal import SeatNames, draw_board

        if self.game is None:
            return "dealing\n"
        seat = self.current_player()
        if seat < 0:
            h = self.hand
            return (f"hand over: points by side {h.hand_points()}, scores {h.scores()}"
                    + (f", match winner side {self.game.winner}" if self.setup.match else "")
                    + "\n")
        buf = StringIO()
        console = make_console(markup=True, file=buf, width=100, color_system=None,
                               force_terminal=False)
        names = SeatNames(self.options, ["agent"] * self.n_players, seat)
        line = ""
        if self.setup.match:
            line = f"hand {self.game.hand_index + 1}"
        draw_board(console, self.game.observation(seat), names, line)
        return buf.getvalue()

    def clone(self) -> RondaTable:
        other = RondaTable.__new__(RondaTable)
        other.__dict__.update(self.__dict__)
        other.decks = [list(d) for d in self.decks]
        other.finished = list(self.finished)
        if self.game is not None:
            if self.setup.match:
                m = self.game
                copy = ref.MatchState.__new__(ref.MatchState)
                copy.__dict__.update(m.__dict__)
                copy.hand = m.hand.clone()
                copy.hands_won = list(m.hands_won)
                copy.finished_hands = list(m.finished_hands)
                copy.check_points = list(m.check_points)
                copy._decks = other._deck
                other.game = copy
            else:
                other.game = self.game.clone()
        return other

    def history_text(self) -> str:
        plays = self.hand.plays if self.game is not None else ()
        return f"dealer={self.dealer} decks={self.decks} plays={plays}"


def _seat_policy(setup: RondaSetup, spec: str):
    """A fixed seat playing a reference policy (Q2-Q5, Q8: random, greedy, lookahead:D,
    rollout:K, ismcts:N:C) from its own observation; ``seeing`` (Q9) sees hidden cards and is
    refused."""
    check_legal(spec, "seat policy")
    ref.parse_policy(spec)

    def choose(state: RondaTable, rng: random.Random) -> int:
        return ref.choose(spec, state.hand.observation(state.current_player()), rng)
    return choose


def _players(setup: RondaSetup) -> int:
    return setup.options.players


def _utility(setup: RondaSetup) -> tuple[float, float]:
    if setup.match:
        return (0.0, 1.0)
    if not setup.options.scoring:
        return (0.0, 1.0)
    return (0.0, 100.0)


_PARAMS = (
    *RuleSet.of(RondaRules).params(),
    Param("dealer", None, "the first dealer's seat; drawn by chance when not given (D3)"),
)


def _game(name: str, openspiel: str, long: str, match: bool, reward: str) -> TableGame:
    return TableGame(
        name=name, openspiel_name=openspiel, long_name=long, params=_PARAMS,
        make=_make(match), new_state=RondaTable, n_players=_players, n_actions=N_CARDS,
        action_text=lambda a: ref.card_name(a), observation_size=lambda s: OBSERVATION_SIZE,
        observation_fields=OBSERVATION_FIELDS, reward=reward, utility=_utility,
        zero_sum=lambda s: False, max_chance_outcomes=N_CARDS,
        max_game_length=lambda s: (max(400, 10 * s.options.target) if match else 40),
        seat_policy=_seat_policy,
        default_opponent="greedy", players_range=(2, 4))


HAND = _game("ronda_v0", "simcards_ronda", "simcards Ronda: one hand", False,
             "At the end of the hand each seat receives its side's points of the hand (S1-S3; "
             "classic mode: 1 to each seat of the side that won the hand, C2).")
MATCH = _game("ronda_match_v0", "simcards_ronda_match", "simcards Ronda: a match", True,
              "At the end of the match each seat of the winning side receives 1, the others 0 "
              "(S4, C3).")


__all__ = ["HAND", "MATCH", "OBSERVATION_FIELDS", "OBSERVATION_SIZE", "RondaSetup",
           "RondaTable", "observation_vector"]
