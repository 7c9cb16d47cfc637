"""Every declared policy kind of every game is played by its own code, and what the code asks
of a kind comes from its declaration (``simcards/core/policyspec.py``).

- Kernel: the kinds' codes are exactly the kernel's ``codes.POLICY_*`` (Römi's ``random``,
  which needs the table engine, has none), and the kernel plays each kind its own way: seat 0
  on each kind in turn, on the same deals, gives results that differ for every pair of kinds,
  so no kind falls back on another's player. Ronco's kernel also makes, deal by deal, the
  reference's decisions of every kind.
- Reference: every kind is played by the reference engine's player of that name (Ronda:
  ``reference.choose`` reaches each kind's own function; ``seeing`` is played from the whole
  state by ``seeing_policy``, never from an observation). Römi's reference engine is a rules
  oracle and plays no policy: its policies' Python players are the table engine's
  (``random``; ``greedy``, ``rummy``, ``threshold`` and ``expert`` planning with the engine's
  own turn planner), and ``search`` and ``seeing`` have none (thousands of play-outs a turn:
  their turns are checked in the kernel, ``tests/romi/test_search.py``), so the table refuses
  them with the declared reasons.
- Facts: legality, cost and needs are read from the declaration: a kind declared illegal is
  refused by the play command and every table environment with its declared reason, a kind's
  declared cost sizes the chunks (the sizes are pinned: they are part of every run's
  identity), and a kind's needs choose its engine and what refuses it.
"""

from __future__ import annotations

import dataclasses
import random
import re
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from simcards.core.errors import UsageError
from simcards.core.policyspec import Param, PolicyKind, PolicyKinds, PolicySpec, SeatColumn
from simcards.core.rng import chunk_state


def _all_distinct(results: dict[str, tuple]) -> None:
    """Every pair of kinds played differently (some statistic differs)."""
    for a, b in combinations(results, 2):
        same = all(np.array_equal(x, y) for x, y in zip(results[a], results[b], strict=True))
        assert not same, f"{a} and {b} played alike: one falls back on the other's player"


def _declared(kinds: PolicyKinds, specs: dict[str, str]) -> None:
    assert list(specs) == list(kinds.names), (
        "every declared kind needs a short spec here, to be played by kernel and reference")


# ---------------------------------------------------------------- the declarations


def test_the_facts_default_to_a_legal_cheap_kind_that_needs_nothing() -> None:
    k = PolicyKind("plain", 0)
    assert k.legal and k.illegal == "" and k.needs == frozenset() and k.traits == frozenset()
    assert k.cost_of((), 4) == 1.0
    assert PolicyKind("n", 1, (Param("N", int, 1, 9, 2),), cost=lambda v, n: v[0] * n
                      ).cost_of((3,), 4) == 12
    with pytest.raises(ValueError, match="no reason"):
        PolicyKind("peek", 2, legal=False)


def test_check_legal_refuses_a_kind_declared_illegal_with_its_reason() -> None:
    kinds = PolicyKinds("toy", [PolicyKind("plain", 0),
                                PolicyKind("peek", 1, (Param("N", int, 1, 9, 2),),
                                           legal=False, illegal="sees the deck: a bound")])
    kinds.check_legal(kinds.parse("plain"))
    kinds.check_legal("nonesuch:3")  # not a kind: parsing refuses it, not this
    with pytest.raises(UsageError) as err:
        kinds.check_legal(kinds.parse("peek:3"), "seat 2")
    assert str(err.value) == "seat 2: peek:3 sees the deck: a bound"
    with pytest.raises(UsageError, match=r"^--policies: Peek:4 sees the deck"):
        kinds.check_legal(" Peek:4 ")


def test_seat_arrays_follow_the_declared_layout() -> None:
    cols = (SeatColumn("ints", int, ("K", "N")), SeatColumn("reals", float, ("C",)))
    kinds = PolicyKinds("toy", [
        PolicyKind("plain", 0), PolicyKind("deep", 1, (Param("K", int, 1, 9, 2),)),
        PolicyKind("tree", 2, (Param("N", int, 1, 99, 5), Param("C", float, 0, 9, 0.5)))],
        cols)
    codes, ints, reals = kinds.seat_arrays([kinds.parse(s) for s in ("tree:7", "plain",
                                                                     "deep:3")])
    assert codes.dtype == ints.dtype == np.int64 and reals.dtype == np.float64
    assert codes.tolist() == [2, 0, 1] and ints.tolist() == [7, 0, 3]
    assert reals.tolist() == [0.5, 0.0, 0.0]
    _, ints, reals = kinds.seat_arrays([kinds.parse("plain"), kinds.parse("deep:4")],
                                       [{"ints": 8, "reals": 2.5}, {"ints": 9, "reals": 1}])
    assert ints.tolist() == [8, 4] and reals.tolist() == [2.5, 1.0]  # its own value first
    with pytest.raises(ValueError, match="held by 0 seat arrays"):
        PolicyKinds("toy", [PolicyKind("x", 0, (Param("Q", int, 0, 1, 0),))], cols)
    with pytest.raises(ValueError, match="two parameters"):
        PolicyKinds("toy", [PolicyKind("x", 0, (Param("K", int, 0, 1, 0),
                                                Param("N", int, 0, 1, 0)))], cols)


def _constants(module, prefix: str) -> set[int]:
    return {v for k, v in vars(module).items() if k.startswith(prefix) and isinstance(v, int)}


def test_every_kind_has_a_kernel_code_and_every_kernel_code_a_kind() -> None:
    from simcards.romi import codes as romi_codes
    from simcards.romi.policies import KINDS as ROMI
    from simcards.romi.policies import TABLE_ENGINE
    from simcards.ronco import codes as ronco_codes
    from simcards.ronco.policies import KINDS as RONCO
    from simcards.ronda import codes as ronda_codes
    from simcards.ronda.policies import KINDS as RONDA

    assert {RONDA.code(n) for n in RONDA.names} == _constants(ronda_codes, "POLICY_")
    compiled = [n for n in ROMI.names if TABLE_ENGINE not in ROMI.kind(n).needs]
    assert {ROMI.code(n) for n in compiled} == _constants(romi_codes, "POLICY_")
    assert ROMI.needing(TABLE_ENGINE) == ("random", "user")
    assert [RONCO.code(n) for n in RONCO.names] == [
        ronco_codes.THRESHOLD, ronco_codes.INFORMED, ronco_codes.RANDOM, ronco_codes.BAYES,
        ronco_codes.USER, ronco_codes.CHART]


# ---------------------------------------------------------------- Ronda

RONDA_SPECS = {"random": "random", "greedy": "greedy", "lookahead": "lookahead:1",
               "rollout": "rollout:4", "ismcts": "ismcts:16", "ismcts-match": "ismcts-match:16",
               "seeing": "seeing:16"}
RONDA_PLAYERS = {"random": "random_policy", "greedy": "greedy_policy",
                 "lookahead": "lookahead_policy", "rollout": "rollout_policy",
                 "ismcts": "ismcts_policy", "ismcts-match": "ismcts_policy"}
"""The reference's player of each kind ``reference.choose`` plays (``seeing`` is played from
the whole state, :func:`simcards.ronda.reference.seeing_policy`)."""


def test_ronda_kernel_plays_every_kind_its_own_way() -> None:
    """Matches, so that ``ismcts-match`` (which is ``ismcts`` outside a match, Q10) parts from
    ``ismcts``."""
    from simcards.ronda.match_kernel import simulate_matches
    from simcards.ronda.matches_batch import max_hands
    from simcards.ronda.policies import KINDS, policy_arrays
    from simcards.ronda.rules import RondaRules

    # Q11, a player's own function, is held to the Python table engine (itself held to the
    # reference) on the same hands in tests/ronda/test_user_policies.py
    assert KINDS.names == (*RONDA_SPECS, "user")
    rules = RondaRules.make(players=2)
    out = {}
    for name, spec in RONDA_SPECS.items():
        seats = policy_arrays([spec, "greedy"])
        assert int(seats.kinds[0]) == KINDS.code(name)
        out[name] = simulate_matches(chunk_state(11, 0), 3, -1, seats, rules.kernel,
                                     max_hands(rules))
    _all_distinct(out)


def test_ronda_reference_plays_every_kind_with_its_own_player(monkeypatch) -> None:
    from simcards.ronda import reference as ref
    from simcards.ronda.policies import KINDS
    from simcards.ronda.rules import RondaRules

    assert KINDS.names == (*RONDA_SPECS, "user")  # Q11: tests/ronda/test_user_policies.py
    calls: list[tuple[str, bool]] = []
    depth = [0]

    def spy(name: str, fn):
        def played(*args, **kwargs):
            if depth[0] == 0:  # the player choose() called, not one it plays out with
                calls.append((name, "match" in kwargs))
            depth[0] += 1
            try:
                return fn(*args, **kwargs)
            finally:
                depth[0] -= 1
        return played

    for fn in set(RONDA_PLAYERS.values()):
        monkeypatch.setattr(ref, fn, spy(fn, getattr(ref, fn)))
    options = ref.RondaOptions(**RondaRules.make(players=2).summary())
    deck = list(range(40))
    random.Random(3).shuffle(deck)
    for name, spec in RONDA_SPECS.items():
        if name == "seeing":
            continue
        calls.clear()
        ref.play_hand(options, 0, deck, [spec, spec], [random.Random(1), random.Random(2)])
        assert {c[0] for c in calls} == {RONDA_PLAYERS[name]}, name
        assert {c[1] for c in calls} == {name == "ismcts-match"}, name  # Q10: the match
    # seeing (Q9): no player from an observation; from the whole state, a legal card
    state = ref.HandState(options, 0, deck)
    with pytest.raises(UsageError, match="sees hidden cards"):
        ref.parse_policy(RONDA_SPECS["seeing"])
    assert ref.seeing_policy(state, n=8) in state.legal_actions()


# ---------------------------------------------------------------- Römi

ROOT = Path(__file__).resolve().parents[2]
"""The repository, whose example strategy plays the ``user`` kind (Q9)."""
ROMI_SPECS = {"greedy": "greedy", "rummy": "rummy:3", "threshold": "threshold:70",
              "expert": "expert", "search": "search:2", "seeing": "seeing:2", "random": "random",
              "user": f"{ROOT}/scripts/strategies/romi_no_early_discard.py:no_early_discard"}


def test_romi_kernel_plays_every_compiled_kind_its_own_way() -> None:
    from simcards.romi import rounds_batch as R
    from simcards.romi import table_batch as TB
    from simcards.romi.policies import KINDS, TABLE_ENGINE, policy_arrays
    from simcards.romi.rules import RomiRules

    _declared(KINDS, ROMI_SPECS)
    rules = RomiRules.make(players=3)
    bound = {"open_min": rules.open_min}
    out = {}
    for name, spec in ROMI_SPECS.items():
        specs = [KINDS.parse(spec, bound), KINDS.parse("greedy", bound),
                 KINDS.parse("greedy", bound)]
        if TABLE_ENGINE in KINDS.kind(name).needs:  # no kernel player: the table engine's
            assert TB.on_table(specs)
            with pytest.raises(UsageError, match="table engine"):
                policy_arrays(specs, rules)
            continue
        assert not TB.on_table(specs)
        seats = policy_arrays(specs, rules)
        assert int(seats.kinds[0]) == KINDS.code(name)
        out[name] = R.simulator(seats)(chunk_state(12, 0), 4, rules.kernel, seats, -1)
    _all_distinct(out)


def test_romi_table_engine_seats_every_kind_it_plays_and_refuses_the_rest() -> None:
    from simcards.romi.policies import KINDS, SEARCH_KERNEL
    from simcards.romi.table import ROUND, KernelPolicy, _random_choice
    from simcards.romi.users import UserSeat

    _declared(KINDS, ROMI_SPECS)
    setup = ROUND.setup({"players": 3})
    for name, spec in ROMI_SPECS.items():
        kind = KINDS.kind(name)
        if not kind.legal:
            with pytest.raises(UsageError) as err:
                ROUND.seat_policy(setup, spec)  # type: ignore[misc]
            assert str(err.value).endswith(kind.illegal)
            continue
        if SEARCH_KERNEL in kind.needs:
            with pytest.raises(UsageError, match="rounds, games, compare and ladder only"):
                ROUND.seat_policy(setup, spec)  # type: ignore[misc]
            continue
        chooser = ROUND.seat_policy(setup, spec)  # type: ignore[misc]
        if name == "random":
            assert chooser is _random_choice
        elif name == "user":
            assert isinstance(chooser, UserSeat) and chooser.user.name == "no_early_discard"
        else:
            assert isinstance(chooser, KernelPolicy) and chooser.kind == kind.code
        state = ROUND.new_state(setup)
        state.deal(random.Random(4))
        assert chooser(state, random.Random(5)) in state.moves().values()


# ---------------------------------------------------------------- Ronco

RONCO_SPECS = {"threshold": "threshold:5:5", "informed": "informed:5:5", "random": "random:0.5",
               "bayes": "bayes"}


def test_ronco_kernel_and_reference_play_every_kind_its_own_way() -> None:
    """Position 1 of 3 on each kind (the others on ``threshold``): the kernel's losers and
    final cards are the reference's on every deal, and differ between every two kinds."""
    from simcards.ronco import reference as ref
    from simcards.ronco.bayes_exact import round_table
    from simcards.ronco.policies import BAYES_TABLE, KINDS, Policy, parse_policy
    from simcards.ronco.round_kernel import record_deals, replay_rounds
    from simcards.ronco.rounds_batch import KernelConfig
    from simcards.ronco.rules import RoncoRules

    # S5, a user's function, is held to the Python table engine (itself held to the reference)
    # on the same deals in tests/ronco/test_user_policies.py; S6, a keep chart, to the policy
    # it was written from in tests/ronco/test_charts.py
    assert KINDS.names == (*RONCO_SPECS, "user", "chart")
    assert KINDS.names[:-2] == ref.POLICY_KINDS
    rules = RoncoRules.make()
    deck = rules.deck_obj
    deals = 300
    out = {}
    for name, spec in RONCO_SPECS.items():
        policies = [Policy(), parse_policy(spec), Policy()]
        kc = KernelConfig.build(rules, policies)
        assert int(kc.policies.kind[1]) == KINDS.code(name)
        cards, us = record_deals(chunk_state(13, 0), deals, 3, kc.policies.kind,
                                 kc.rules.n_cards)
        lost, _, finals = replay_rounds(cards, us, *kc.args())
        out[name] = (lost, finals)
        replies = (round_table(rules, policies).replies()
                   if BAYES_TABLE in KINDS.kind(name).needs else None)
        refs = [ref.RefPolicy(p.kind, p.T, p.Td, p.p, replies=replies) for p in policies]
        for r in range(deals):
            got = ref.play_round([deck.card(int(c)) for c in cards[r, :3]],
                                 deck.card(int(cards[r, 3])), refs, deck=rules.deck,
                                 cut_king=rules.cut_king, ties=rules.ties,
                                 poroli=rules.poroli, uniforms=[float(x) for x in us[r]])
            assert got.losers == tuple(bool(x) for x in lost[r] > 0), (name, r)
            assert [ref.strength(c, poroli=rules.poroli) for c in got.final_cards] == \
                finals[r].tolist(), (name, r)
    _all_distinct(out)


# ---------------------------------------------------------------- facts from the declaration


def _tables():
    """Each game's table environment (a table game and a setup) and its kinds."""
    from simcards.romi import table as romi_table
    from simcards.romi.policies import KINDS as ROMI
    from simcards.ronco import table as ronco_table
    from simcards.ronco.policies import KINDS as RONCO
    from simcards.ronda import table as ronda_table
    from simcards.ronda.policies import KINDS as RONDA

    return [("ronda", RONDA, ronda_table.HAND, ronda_table.HAND.setup({"players": 2}),
             RONDA_SPECS),
            ("romi", ROMI, romi_table.ROUND, romi_table.ROUND.setup({"players": 3}), ROMI_SPECS),
            ("ronco", RONCO, ronco_table.ROUND, ronco_table.ROUND.setup({"players": 3}),
             RONCO_SPECS)]


def test_every_table_environment_refuses_the_kinds_declared_illegal() -> None:
    for game, kinds, table, setup, specs in _tables():
        for name, spec in specs.items():
            if kinds.kind(name).legal:
                continue
            with pytest.raises(UsageError) as err:
                table.seat_policy(setup, spec)
            assert str(err.value).endswith(f"{spec} {kinds.kind(name).illegal}"), game


@pytest.mark.parametrize("game", ["ronda", "romi", "ronco"])
def test_legality_is_read_from_the_declaration(game, monkeypatch) -> None:
    """Declare a game's first kind illegal: its table environment refuses it with the declared
    reason (and Ronda's play command too)."""
    [(_, kinds, table, setup, specs)] = [t for t in _tables() if t[0] == game]
    name = kinds.names[0] if game != "ronco" else "threshold"
    why = "reads every card (declared so by this test): not a player"
    monkeypatch.setitem(kinds.kinds, name, dataclasses.replace(kinds.kind(name), legal=False,
                                                               illegal=why))
    with pytest.raises(UsageError) as err:
        table.seat_policy(setup, specs[name])
    assert str(err.value).endswith(f"{specs[name]} {why}")
    if game == "ronda":
        from simcards.ronda.rules import RondaRules
        from simcards.ronda.terminal import run_play

        with pytest.raises(UsageError, match=re.escape(why)):
            run_play(RondaRules.make(), ["human", specs[name]], seed=1)
        seeing = kinds.kind("seeing")
        monkeypatch.setitem(kinds.kinds, "seeing", dataclasses.replace(seeing, legal=True))
        kinds.check_legal(specs["seeing"])


RONDA_CHUNKS = [
    (("greedy", "greedy"), 32768), (("random", "greedy"), 32768),
    (("lookahead:1", "greedy"), 256), (("lookahead:3", "greedy"), 64),
    (("rollout:32", "greedy"), 32), (("rollout:32", "rollout:32", "greedy"), 16),
    (("ismcts:1000", "greedy"), 64), (("ismcts-match:200", "greedy"), 256),
    (("seeing:1000", "greedy"), 64), (("lookahead:1", "greedy", "greedy", "greedy"), 128),
]
"""Ronda's hands per chunk for some lineups, as the declared costs give them: part of every
run's identity (a change moves seeds and numbers), so pinned."""


@pytest.mark.parametrize("lineup,chunk", RONDA_CHUNKS, ids=lambda x: str(x))
def test_ronda_chunk_sizes_come_from_the_declared_costs(lineup, chunk) -> None:
    from simcards.ronda.hands_batch import chunk_size
    from simcards.ronda.policies import KINDS

    specs = [KINDS.parse(s) for s in lineup]
    assert chunk_size(specs) == chunk
    assert chunk_size(specs) == chunk_size(specs, 1 << 15)


def test_ronda_chunk_sizes_follow_a_changed_cost(monkeypatch) -> None:
    from simcards.ronda.hands_batch import chunk_size, seat_cost
    from simcards.ronda.policies import KINDS

    specs = [KINDS.parse("greedy")] * 2
    monkeypatch.setitem(KINDS.kinds, "greedy", dataclasses.replace(
        KINDS.kind("greedy"), cost=lambda v, n: 100.0 * n))
    assert seat_cost(specs[0], 2) == 200.0
    assert chunk_size(specs) == 128


def test_romi_engines_follow_the_declared_needs(monkeypatch) -> None:
    """Declare ``expert`` to need the search kernel and ``greedy`` the table engine: the
    rounds go to the search kernel in its small chunks, the table environments refuse expert,
    and a greedy seat takes the whole table to the table engine."""
    from simcards.romi import rounds_batch as R
    from simcards.romi import table_batch as TB
    from simcards.romi.policies import (
        KINDS,
        SEARCH_KERNEL,
        TABLE_ENGINE,
        check_table_seat,
        policy_arrays,
        searching,
    )
    from simcards.romi.rules import RomiRules

    rules = RomiRules.make(players=2)
    seats = policy_arrays(["expert", "greedy"], rules)
    assert not searching(seats.kinds) and R.chunk_sizes(seats) == (R.ROUNDS_CHUNK,
                                                                   R.GAMES_CHUNK)
    expert = KINDS.parse("expert")
    check_table_seat(expert)
    monkeypatch.setitem(KINDS.kinds, "expert", dataclasses.replace(
        KINDS.kind("expert"), needs=frozenset({SEARCH_KERNEL})))
    assert searching(seats.kinds)
    assert R.chunk_sizes(seats) == (R.SEARCH_ROUNDS_CHUNK, R.SEARCH_GAMES_CHUNK)
    with pytest.raises(UsageError, match="rounds, games, compare and ladder only"):
        check_table_seat(expert)
    greedy = KINDS.parse("greedy", {"open_min": rules.open_min})
    assert not TB.on_table([greedy, greedy])
    monkeypatch.setitem(KINDS.kinds, "greedy", dataclasses.replace(
        KINDS.kind("greedy"), needs=frozenset({TABLE_ENGINE})))
    assert TB.on_table([greedy, greedy])
    with pytest.raises(UsageError, match="plays on the table engine"):
        policy_arrays([greedy, greedy], rules)
    with pytest.raises(UsageError, match="cannot play with it"):
        TB.on_table([greedy, expert])


def test_ronco_needs_and_traits_are_read_from_the_declaration(monkeypatch) -> None:
    """Declare ``informed`` to need the bayes table: its seats want the table and a fixed
    seat refuses it; ``random``'s uniforms make it random unless p is 0 or 1; the threshold
    rules are the kinds bayes replies to and equilibrium searches."""
    from simcards.ronco import bayes_exact, equilibrium_exact
    from simcards.ronco import table as ronco_table
    from simcards.ronco.kernel_state import Seats
    from simcards.ronco.policies import BAYES_TABLE, KINDS, THRESHOLD_KINDS, Policy

    assert bayes_exact.FIELD_KINDS == equilibrium_exact.FAMILIES == THRESHOLD_KINDS \
        == ("threshold", "informed")
    assert not Policy("random", p=0.5).deterministic and Policy("random", p=1.0).deterministic
    assert Policy("informed").deterministic
    setup = ronco_table.ROUND.setup({"players": 3})
    ronco_table.seat_policy(setup, "informed")
    Seats.from_policies([Policy("informed")])
    monkeypatch.setitem(KINDS.kinds, "informed", dataclasses.replace(
        KINDS.kind("informed"), needs=frozenset({BAYES_TABLE})))
    with pytest.raises(ValueError, match="decision table"):
        Seats.from_policies([Policy("informed")])
    with pytest.raises(UsageError, match="cannot play a fixed seat"):
        ronco_table.seat_policy(setup, "informed")


def test_every_games_seats_are_built_by_the_declared_layout() -> None:
    """One builder for every game: each Seats array is the declaration's seat array."""
    from simcards.romi.policies import KINDS as ROMI
    from simcards.romi.policies import policy_arrays as romi_arrays
    from simcards.romi.rules import RomiRules
    from simcards.ronco.kernel_state import Seats as RoncoSeats
    from simcards.ronco.policies import KINDS as RONCO
    from simcards.ronco.policies import Policy
    from simcards.ronda.policies import KINDS as RONDA
    from simcards.ronda.policies import policy_arrays as ronda_arrays

    ronda = ronda_arrays(["ismcts:300:0.25", "greedy", "rollout"])
    assert [c.name for c in RONDA.columns] == list(ronda._fields[1:])
    assert ronda.params.tolist() == [300, 0, 32] and ronda.explore.tolist() == [0.25, 0, 0]
    rules = RomiRules.make(players=3)
    romi = romi_arrays(["threshold:60", "search:4", "expert"], rules)
    assert [c.name for c in ROMI.columns] == list(romi._fields[1:])
    assert romi.params.tolist() == [60, 4, 0]
    policies = [Policy("random", 3, 4, 0.25), Policy("informed", 6, 7), Policy("threshold")]
    ronco = RoncoSeats.from_policies(policies)
    assert [c.name for c in RONCO.columns] == list(ronco._fields[1:4])
    assert ronco.T.tolist() == [3, 6, 5] and ronco.Td.tolist() == [4, 7, 5]  # every seat's own
    assert ronco.p.tolist() == [0.25, 0.5, 0.5]
    for a, b in zip(ronco[:4], RONCO.seat_arrays([p.as_spec() for p in policies],
                                                 [p.fields() for p in policies]), strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert ronco.bkeys.size == 0
    assert PolicySpec("bayes") == Policy("bayes").as_spec()
