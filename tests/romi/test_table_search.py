"""The compiled turn search (``table_legal.can_finish``, :mod:`simcards.romi.table_legal_kernel`)
answers as the reference's ``_Search.can_finish`` (T4, T5, J3, T6 with O1's openings, M6's
values, J1-J2's swaps), on searches drawn from random play of ``romi_v0`` under three rule
sets: at every draw, the top discard taken under T4 and the cut card under T5 (asked whether or
not the engine would ask); at every melding step, each move the engine checks under an
obligation and, once opened, going out from the hand as it stands. The hand's melds enumerated
by compiled code are the reference's ``_hand_melds`` on the same hands."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numpy as np

from simcards.envs import romi_v0
from simcards.romi import reference as ref
from simcards.romi import table_legal as TL
from simcards.romi.actions import Meld
from simcards.romi.rules import RomiRules

ROUNDS = 21
"""Random rounds played (seed ``i``, ``2 + i % 4`` players, the rules of ``RULES[i % 3]``)."""
RULES = ({}, {"open_min": 45, "ace_low_value": 10}, {"open_min": 60, "ace_low_value": 4})
"""The default rules, and openings easier or harder with the As below the 2 worth more (O1, M6)."""
STEPS = 160
"""Steps of each round at most."""

Question = tuple[bool, int | None, bool, tuple[int, ...], tuple[Meld, ...], bool, frozenset[int]]
"""(may_open, must, go_out, hand, table, opened, freed): a ``_Search`` and its question."""


def _questions(r: ref.RoundState) -> Iterator[Question]:
    p = r.player
    table = tuple(r.table)
    opened = r.opened[p]
    may = r._may_open()
    if r.phase == ref.DRAW:
        if r.discards:
            top = r.discards[-1]
            yield may, top, False, tuple(sorted([*r.hands[p], top])), table, opened, frozenset()
        if r.cut is not None:
            yield may, None, True, tuple(sorted([*r.hands[p], r.cut])), table, opened, frozenset()
        return
    if r.phase != ref.MELD:
        return
    hand = tuple(sorted(r.hands[p]))
    freed = frozenset(r.freed)
    for _, h, t, o, f in TL._melding_moves(hand, table, opened, may, r.rules):
        f = f | freed
        must = r.must_place if r.must_place in h else None
        if must is not None or r.must_go_out or f.intersection(h):
            yield may, must, r.must_go_out, h, t, o, f
    if opened:
        must = r.must_place if r.must_place in hand else None
        yield may, must, True, hand, table, opened, freed


def _played() -> Iterator[tuple[RomiRules, Question]]:
    for seed in range(ROUNDS):
        env = romi_v0.env(players=2 + seed % 4, **RULES[seed % 3])
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for steps, _ in enumerate(env.agent_iter()):
            obs, _, term, trunc, _ = env.last()
            if term or trunc or steps >= STEPS:
                break
            r = env.unwrapped.cursor.state.round
            for q in _questions(r):
                yield r.rules, q
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_the_compiled_turn_search_answers_as_the_reference() -> None:
    seen: Counter[str] = Counter()
    for rules, (may, must, go_out, hand, table, opened, freed) in _played():
        want = ref._Search(rules, may, must, go_out).can_finish(hand, table, opened, freed)
        got = TL.can_finish(rules, may, must, go_out, hand, table, opened, freed)
        assert got == want, (may, must, go_out, hand, table, opened, freed)
        seen[f"{want}"] += 1
        seen[f"go_out {want}"] += go_out
        seen[f"T4 {want}"] += must is not None
        seen[f"J3 {want}"] += bool(freed.intersection(hand))
        seen[f"opening {want}"] += not opened and may
    assert seen["True"] + seen["False"] > 2_000
    for kind in ("", "go_out ", "T4 ", "J3 ", "opening "):
        assert seen[f"{kind}True"] >= 10 and seen[f"{kind}False"] >= 10, seen


def test_the_compiled_hand_melds_are_the_reference_s() -> None:
    rng = np.random.default_rng(44)
    for _ in range(100):
        suit = int(rng.integers(4))
        pool = [suit * 13 + k % 13 + 52 * (k // 13) for k in range(26)] + [104, 105, 106]
        hand = rng.choice(pool, int(rng.integers(3, 17)), replace=False).tolist()
        hand += rng.choice(104, 4, replace=False).tolist()
        hand = tuple(sorted(set(hand)))
        assert TL._melds_of(hand) == ref._hand_melds(hand), hand
