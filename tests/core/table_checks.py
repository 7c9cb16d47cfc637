"""Checks that every game's table (:mod:`simcards.core.table`) must pass, used by the contract
tests of the environments and OpenSpiel games."""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np

from simcards.core.table import Cursor, TableGame, TableState


def random_states(game: TableGame, setup: object, rng: random.Random, games: int,
                  stops: int) -> Iterator[tuple[TableState, int]]:
    """States met in ``games`` random games (``stops`` stops at random decisions each), with
    the seat to act."""
    for _ in range(games):
        c = Cursor(game.new_state(setup))
        c.deal(rng)
        decisions = 0
        while not c.state.is_terminal():
            if c.state.current_player() < 0:
                c.deal(rng)
                continue
            decisions += 1
            c.step(rng.choice(c.legal_codes()))
        at = sorted(rng.sample(range(decisions), min(stops, decisions)))
        c = Cursor(game.new_state(setup))
        replay = random.Random(rng.random())
        c.deal(replay)
        k = 0
        while not c.state.is_terminal() and at:
            p = c.state.current_player()
            if p < 0:
                c.deal(replay)
                continue
            if k == at[0]:
                at.pop(0)
                yield c.state.clone(), p
            k += 1
            c.step(replay.choice(c.legal_codes()))


def hidden_information_leaks(game: TableGame, setup: object, rng: random.Random,
                             games: int = 6, stops: int = 4, worlds: int = 3) -> list[str]:
    """What changes in a seat's observation when every card he cannot see is dealt again.

    For states met in random games, every seat's observation (vector, text, information text)
    is compared with the same seat's in ``worlds`` states drawn by the game's ``resample`` for
    that seat: the hidden cards change, what he sees must not. Returns one line per difference
    (empty when nothing leaks), and also requires that resampling does change something another
    seat sees (else it would hide nothing and prove nothing)."""
    problems: list[str] = []
    changed_elsewhere = False
    for state, _ in random_states(game, setup, rng, games, stops):
        n = state.n_players
        for seat in range(n):
            vec = state.observation(seat)
            text = state.observation_text(seat)
            info = state.information_text(seat)
            for _ in range(worlds):
                other = state.resample(seat, rng)
                if not np.array_equal(other.observation(seat), vec):
                    problems.append(f"seat {seat}: observation vector changed")
                if other.observation_text(seat) != text:
                    problems.append(f"seat {seat}: observation text changed")
                if other.information_text(seat) != info:
                    problems.append(f"seat {seat}: information text changed")
                for q in range(n):
                    if q != seat and not np.array_equal(other.observation(q),
                                                        state.observation(q)):
                        changed_elsewhere = True
    if not changed_elsewhere:
        problems.append("resample never changed what another seat sees: nothing was hidden")
    return problems
