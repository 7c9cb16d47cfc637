"""Römi's batch commands played on the table engine, for tables with a ``random`` seat (Q6)
or a user's own function (Q9, :mod:`simcards.romi.users`).

Why this exists. The compiled engine (:mod:`simcards.romi.round_kernel`) decides a whole turn
at once: the draw, then every meld and the discard as one plan. ``random`` is a move-by-move
player: at each decision it picks uniformly among the legal moves of that moment (a draw, one
meld, one addition, the discard), as the table environments (``seat_env``, OpenSpiel) seat it.
A compiled "random" that drew a random whole turn would be another player under the same name.
A user's function (Q9) is such a player too: it picks one action code of the environment at a
time. So when any seat of ``rounds``, ``games``, ``compare`` or ``ladder`` is ``random`` or a
user's function, the whole run is played here, on :class:`~simcards.romi.table.RomiTable`,
the engine the environments use, with every seat through
:func:`~simcards.romi.table._seat_policy`: ``random`` as there, ``greedy``, ``rummy:K``,
``threshold:X`` and ``expert`` as
:class:`~simcards.romi.table.KernelPolicy` (the compiled engine's plan of each turn, played one
move at a time), a user's function as :class:`~simcards.romi.users.UserSeat`. The table engine
has no searching seat, so ``search`` and ``seeing`` (Q7, Q8) cannot share a run with ``random``
or a user's function (:func:`on_table` refuses them).

The chunks return the very statistics of the compiled chunks (:mod:`simcards.romi.rounds_batch`,
:mod:`simcards.romi.compare_batch`), so the summaries, the JSON keys, the tables, the run store,
resume, ``--workers`` and dask are those of the compiled runs. A run says so: its JSON carries
``"engine": "table"``, which is part of its manifest (a compiled run is never resumed as a
table run), and one line on stderr says it before the run (:func:`with_notice`).

Chance. A chunk's randomness comes from its own stream (the 4-word state the runner derives
from the seed and the chunk index, :func:`simcards.core.rng.chunk_state`), so the same seed
gives the same numbers for any number of workers. ``rounds`` and ``games`` draw the deals and
the random seats' moves from one :class:`random.Random` seeded from that state. ``compare``
draws each deal set's first dealer and seed from it; each round of a set is dealt from a
generator seeded from (set seed, round) alone, independent of the policies, so every rotation
plays the same decks (a T8 reshuffle orders the same pile the same way; the piles differ only
where the policies played differently before it), and the random seats draw from a separate
generator seeded from (set seed, round, rotation).

The table engine is slow beside the compiled one: some 15,000 moves a second on one core,
some 130 to 200 rounds a second with a ``random`` seat where the compiled engine plays
thousands (a ``random`` seat seldom opens, so its rounds run long; the stall rule, T8 and T9,
ends the longest). Chunks are therefore small (:func:`rounds_per_chunk`).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np

from simcards.core.errors import UsageError
from simcards.core.policyspec import PolicySpec
from simcards.core.table import CHANCE, TERMINAL
from simcards.core.userpolicy import UserPolicy
from simcards.romi import compare_batch as RC
from simcards.romi import rounds_batch as R
from simcards.romi.codes import STALL_TURNS
from simcards.romi.policies import KINDS, SEARCH_KERNEL, TABLE_ENGINE
from simcards.romi.rules import RomiRules

ENGINE = "table"
"""The value of the ``engine`` key of a run played here (absent from compiled runs)."""
ROUNDS_PER_SECOND = {2: 200, 3: 170, 4: 150, 5: 130}
"""Rounds a second on one core with a ``random`` seat among ``greedy`` ones, by table size
(measured; a table of several ``random`` seats is slower): the notice's estimate."""
CHUNK_ROUNDS = {2: 120, 3: 80, 4: 60, 5: 40}
"""Rounds a chunk plays, by table size: small, so that progress moves and an interrupted run
keeps most of its work. A chunk draws its rounds from its own generator, so these sizes are
part of what a seed means: they stay as they are when the engine gets faster."""

Seat = Callable[[Any, random.Random], Any]
"""A seat of the table engine: ``(state, rng) -> move``."""
SeatSpec = str | UserPolicy
"""A seat's policy in a chunk's configuration: a built-in's text, or a user's function."""


@dataclass(frozen=True)
class TableConfig:
    """What a ``rounds`` or ``games`` chunk needs (pickled to workers): the rules, each seat's
    policy (a built-in as text, a user's function as its
    :class:`~simcards.core.userpolicy.UserPolicy`, which carries its file's text to the
    workers), and the dealer of every round (-1: drawn for each round, D3)."""

    rules: RomiRules
    seats: tuple[SeatSpec, ...]
    dealer: int


@dataclass(frozen=True)
class TableCompareConfig:
    """What a ``compare`` chunk needs: the rules (their ``rounds`` a game), A's and B's policy
    as text, and the first dealer of every set (-1: drawn for each set)."""

    rules: RomiRules
    a: SeatSpec
    b: SeatSpec
    dealer: int


# ---------------------------------------------------------------- which engine


def on_table(specs: Sequence[PolicySpec], flag: str = "--policies") -> bool:
    """Whether a run seating ``specs`` plays on the table engine: when one of them needs it
    (``random``, Q6; a user's function, Q9). A seat that needs the search kernel (Q7, Q8)
    cannot join it there: refused in one line under ``flag``."""
    if not any(TABLE_ENGINE in KINDS.kind(s.kind).needs for s in specs):
        return False
    search = [s.text() for s in specs if SEARCH_KERNEL in KINDS.kind(s.kind).needs]
    if search:
        what = who(specs)
        verb = "play" if " and " in what else "plays"
        raise UsageError(f"{flag}: {what} {verb} on the table engine, which has no search "
                         f"seat: {', '.join(dict.fromkeys(search))} cannot play with it (rules "
                         f"Q6-Q{9 if any(s.user for s in specs) else 8})")
    return True


def who(specs: Sequence[PolicySpec]) -> str:
    """The seats of ``specs`` that need the table engine, as the notice names them:
    ``random``, the users' functions as written, or both (``random and PATH.py:f``)."""
    names = [s.text() for s in specs if TABLE_ENGINE in KINDS.kind(s.kind).needs]
    names = list(dict.fromkeys(names))
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def rounds_per_chunk(players: int, command: str, rounds_per_game: int = 1) -> int:
    """Rounds (``rounds``), games (``games``) or deal sets (``compare``) per chunk: about
    :data:`CHUNK_ROUNDS` rounds, at least one."""
    per_chunk = CHUNK_ROUNDS[players]
    if command == "rounds":
        return per_chunk
    if command == "games":
        return max(1, per_chunk // rounds_per_game)
    return max(1, per_chunk // (players * rounds_per_game))


_QUIET: ContextVar[bool] = ContextVar("romi_table_notice_quiet", default=False)


def notice(players: int, what: str = "random") -> str:
    """The line a table-engine run writes on stderr before it starts; ``what`` names the seats
    that need the table engine (:func:`who`)."""
    verb = "play" if " and " in what else "plays"
    return (f"romi: {what} {verb} on the table engine (about {ROUNDS_PER_SECOND[players]} "
            "rounds a second), not the compiled one\n")


def announce(players: int, what: str = "random") -> None:
    """Write the :func:`notice` on stderr, unless inside :func:`quiet`."""
    if not _QUIET.get():
        sys.stderr.write(notice(players, what))


def with_notice(run: Callable[..., Any], players: int, what: str = "random"
                ) -> Callable[..., Any]:
    """``run`` preceded by :func:`announce`: after the run's own checks, before its chunks."""
    def noted(**options: Any) -> Any:
        announce(players, what)
        return run(**options)

    return noted


@contextmanager
def quiet() -> Iterator[None]:
    """No notice from the runs inside (a ladder says it once for all its pairings)."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


# ---------------------------------------------------------------- playing a round


def _generator(entropy: Iterable[int], *key: int) -> random.Random:
    """A generator seeded from ``entropy`` (a chunk's stream state, a set's seed) and ``key``,
    through :class:`numpy.random.SeedSequence` as the chunks' own streams are."""
    seq = np.random.SeedSequence([int(w) for w in entropy], spawn_key=key)
    return random.Random(int.from_bytes(seq.generate_state(4, np.uint64).tobytes(), "little"))


def seats_for(rules: RomiRules, specs: Sequence[SeatSpec]) -> list[Seat]:
    """One table-engine seat per policy (``table._seat_policy``: ``random`` or a
    :class:`~simcards.romi.table.KernelPolicy`; a user's function as a
    :class:`~simcards.romi.users.UserSeat`)."""
    from simcards.romi.table import RomiSetup, _seat_policy
    from simcards.romi.users import UserSeat

    setup = RomiSetup(rules, None, False)
    return [UserSeat(s) if isinstance(s, UserPolicy) else _seat_policy(setup, s)
            for s in specs]


def seat_spec(spec: PolicySpec) -> SeatSpec:
    """A seat's policy as a chunk's configuration holds it (:data:`SeatSpec`)."""
    return spec.user if spec.user is not None else spec.text()


def play_round(rules: RomiRules, dealer: int | None, seats: Sequence[Seat],
               deal: random.Random, moves: random.Random) -> tuple[Any, int]:
    """One round on the table engine: the deck (and the dealer when ``dealer`` is None, D3)
    and any T8 reshuffle drawn from ``deal``, each seat's moves from ``seats`` with ``moves``.
    Returns its :class:`~simcards.romi.table.RoundResult` and the turns played."""
    from simcards.romi.table import RomiSetup, RomiTable

    state = RomiTable(RomiSetup(rules, dealer, False))
    while True:
        p = state.current_player()
        if p == TERMINAL:
            break
        if p == CHANCE:
            state.deal(deal)
        else:
            state.play(seats[p](state, moves))
    assert state.round is not None
    return state.results[-1], state.round.turn


def _as_kernel_rounds(played: Sequence[tuple[Any, int]], n: int) -> tuple:
    """Rounds as the compiled kernels' per-round arrays (``rounds_batch._add_rounds``)."""
    k = len(played)
    scores = np.zeros((k, n), np.int64)
    went_out = np.full(k, -1, np.int64)
    romi = np.zeros(k, np.int64)
    never = np.zeros((k, n), np.int64)
    turns = np.zeros(k, np.int64)
    stalled = np.zeros(k, np.int64)
    for i, (res, t) in enumerate(played):
        scores[i] = res.scores
        went_out[i] = res.went_out
        romi[i] = int(res.romi)
        never[i] = res.never_opened
        turns[i] = min(t, STALL_TURNS)
        stalled[i] = int(res.stalled)
    return scores, went_out, romi, never, turns, stalled, None


# ---------------------------------------------------------------- the chunks


def rounds_chunk(state: np.ndarray, size: int, cfg: TableConfig) -> dict[str, np.ndarray]:
    """One chunk of rounds on the table engine: the statistics of
    :func:`simcards.romi.rounds_batch.rounds_chunk`."""
    rng = _generator(state, 0)
    seats = seats_for(cfg.rules, cfg.seats)
    dealer = None if cfg.dealer < 0 else cfg.dealer
    played = [play_round(cfg.rules, dealer, seats, rng, rng) for _ in range(size)]
    acc = R._empty(cfg.rules.players)
    R._add_rounds(acc, _as_kernel_rounds(played, cfg.rules.players))
    return acc


def games_chunk(state: np.ndarray, size: int, cfg: TableConfig) -> dict[str, np.ndarray]:
    """One chunk of games on the table engine (D5, G6): the statistics of
    :func:`simcards.romi.rounds_batch.games_chunk`, the first dealer drawn, the deal moving one
    seat left each round, the lowest total winning and equal lowest totals sharing the win."""
    rng = _generator(state, 0)
    seats = seats_for(cfg.rules, cfg.seats)
    n = cfg.rules.players
    acc = R._empty(n)
    for _ in range(size):
        d0 = rng.randrange(n)
        played = [play_round(cfg.rules, (d0 + r) % n, seats, rng, rng)
                  for r in range(cfg.rules.rounds)]
        out = _as_kernel_rounds(played, n)
        R._add_rounds(acc, out)
        R.add_game(acc, out[0].sum(axis=0))
    return acc


def compare_chunk(state: np.ndarray, size: int, cfg: TableCompareConfig
                  ) -> dict[str, np.ndarray]:
    """One chunk of deal sets on the table engine: the statistics of
    :func:`simcards.romi.compare_batch.compare_chunk` (A in seat r and B elsewhere, r = 0 ..
    n-1, on the same decks and dealers; see the module text for the chance)."""
    rules = cfg.rules
    n, rounds = rules.players, rules.rounds
    sets = _generator(state, 0)
    a_seat = seats_for(rules, [cfg.a])[0]
    b_seats = seats_for(rules, [cfg.b] * n)
    acc = RC._empty()
    for _ in range(size):
        d0 = cfg.dealer if cfg.dealer >= 0 else sets.randrange(n)
        set_seed = sets.getrandbits(64)
        sa = sb = wa = wb = 0
        for r in range(n):
            seats = [a_seat if p == r else b_seats[p] for p in range(n)]
            totals = np.zeros(n, np.int64)
            for k in range(rounds):
                deal = _generator([set_seed], k)
                moves = _generator([set_seed], k, r + 1)
                res, turns = play_round(rules, (d0 + k) % n, seats, deal, moves)
                totals += np.asarray(res.scores, np.int64)
                acc["rounds"][0] += 1
                acc["turns_hist"][min(turns, STALL_TURNS)] += 1
                acc["stalled"][0] += int(res.stalled)
                if res.went_out >= 0:
                    side = 0 if res.went_out == r else 1
                    acc["went_out"][side] += 1
                    acc["romi"][side] += int(res.romi)
                never = [int(x) for x in res.never_opened]
                acc["never_opened"][0] += never[r]
                acc["never_opened"][1] += sum(never) - never[r]
            sa, sb, wa, wb = RC.seat_game(totals, r, (sa, sb, wa, wb))
        RC.add_set(acc, n, sa, sb, wa, wb)
    return acc


# ---------------------------------------------------------------- what the commands run


def batch(command: str, rules: RomiRules, specs: Sequence[PolicySpec], dealer: int | None
          ) -> tuple[Callable[..., dict[str, np.ndarray]], TableConfig, int]:
    """``rounds`` or ``games`` on the table engine: the chunk function, its configuration and
    the chunk size."""
    cfg = TableConfig(rules, tuple(seat_spec(s) for s in specs),
                      -1 if dealer is None else dealer)
    if command == "rounds":
        return rounds_chunk, cfg, rounds_per_chunk(rules.players, "rounds")
    return games_chunk, cfg, rounds_per_chunk(rules.players, "games", rules.rounds)


def compare_batch(rules: RomiRules, a: PolicySpec, b: PolicySpec, dealer: int | None
                  ) -> tuple[Callable[..., dict[str, np.ndarray]], TableCompareConfig, int]:
    """``compare`` on the table engine: the chunk function, its configuration, the chunk size
    (deal sets)."""
    cfg = TableCompareConfig(rules, seat_spec(a), seat_spec(b), -1 if dealer is None else dealer)
    return compare_chunk, cfg, rounds_per_chunk(rules.players, "compare", rules.rounds)
