"""The ``bayes`` policy (rule S4): exact, optimal for one round, and played alike by every engine.

* Optimality: from every seat of 14 configurations (2-6 players, the three decks, every
  ``cut_king`` and ``ties`` option, Poroli, threshold, informed and mixed fields), the
  ``bayes`` player's exact expected loss is at most that of every threshold and every informed
  policy of the grid at that seat.
* Exactness: the decision table's own numbers are checked against the exact enumerator
  (:mod:`simcards.ronco.rounds_exact`), an independent computation over every deal: the loss of
  ``bayes`` itself, and the loss of other policies evaluated from the table.
* Agreement: the numba round and game kernels and the pure-Python reference engine, fed the
  table's decisions keyed by the reference's own view of the history, play the same deals and
  games alike.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from simcards.core.errors import UsageError
from simcards.core.rng import chunk_state
from simcards.core.rng_kernel import randbelow
from simcards.ronco import bayes_exact
from simcards.ronco import reference as ref
from simcards.ronco.game_kernel import ALL_OUT, VOID, WON, detail_games
from simcards.ronco.games_batch import GameConfig
from simcards.ronco.kernel_state import Decision, Seats
from simcards.ronco.policies import Policy
from simcards.ronco.round_kernel import deal, field_keeps, record_deals, replay_rounds
from simcards.ronco.rounds_batch import KernelConfig
from simcards.ronco.rounds_exact import exact_round
from simcards.ronco.rules import RoncoRules

TOL = 1e-10
"""Floating-point slack: the enumerator and the table add millions of terms in other orders."""


def _field(n: int, kind: str = "threshold", t: int = 5, td: int = 5) -> tuple[Policy, ...]:
    return (Policy(kind, t, td),) * n


# name, rules, field by position, whether every alternative is also enumerated exactly
CONFIGS = [
    ("spanish40-2p", RoncoRules.make(), _field(2), True),
    ("spanish40-3p-6:6", RoncoRules.make(), _field(3, t=6, td=6), True),
    ("spanish40-4p-informed", RoncoRules.make(), _field(4, "informed"), True),
    ("spanish40-5p-first-5:4", RoncoRules.make(ties="first"), _field(5, t=5, td=4), False),
    ("spanish40-6p", RoncoRules.make(), _field(6), False),
    ("spanish48-3p-blocked-informed", RoncoRules.make(deck="spanish48", cut_king="blocked"),
     _field(3, "informed", 6, 6), True),
    ("spanish48-4p-first-7:6", RoncoRules.make(deck="spanish48", ties="first"),
     _field(4, t=7, td=6), True),
    ("spanish48-5p-none-mixed", RoncoRules.make(deck="spanish48", cut_king="none"),
     (Policy("threshold", 4, 4), Policy("informed", 6, 6), Policy("threshold", 8, 8),
      Policy("informed", 3, 9), Policy("threshold", 6, 7)), False),
    ("french52-2p-first-informed", RoncoRules.make(deck="french52", ties="first"),
     _field(2, "informed", 7, 7), True),
    ("french52-3p-blocked", RoncoRules.make(deck="french52", cut_king="blocked"),
     _field(3, t=7, td=7), True),
    ("french52-4p-none-first-informed", RoncoRules.make(deck="french52", cut_king="none",
                                                        ties="first"),
     _field(4, "informed", 8, 8), False),
    ("poroli-3p", RoncoRules.make(poroli=True), _field(3), True),
    ("poroli-4p-first-informed", RoncoRules.make(poroli=True, ties="first"),
     _field(4, "informed"), True),
    ("poroli-french52-2p", RoncoRules.make(deck="french52", poroli=True), _field(2, t=7, td=7),
     True),
]


def _with(field: tuple[Policy, ...], seat: int, pol: Policy) -> list[Policy]:
    out = list(field)
    out[seat] = pol
    return out


def _lives(rules: RoncoRules, policies: list[Policy], seat: int) -> float:
    """Exact expected lives lost at ``seat`` by the enumerator: losses plus Poroli doubles."""
    res = exact_round(rules, policies)
    return float(res.p_lose[seat] + res.p_double[seat])


def _alternatives(rules: RoncoRules) -> list[Policy]:
    """Every threshold and informed policy of the grid at one seat: a non-dealer reads only T
    and the dealer only Td (E1), so one value per distinct behaviour covers every pair."""
    values = sorted({int(s) for s in rules.strengths} | {rules.top + 1})
    return [Policy(kind, v, v) for kind in ("threshold", "informed") for v in values]


def _table_loss(rules: RoncoRules, table: bayes_exact.BayesTable, pol: Policy) -> float:
    """Expected lives lost by ``pol`` at the table's seat, from the table's exact
    per-state losses: the states' probabilities do not depend on the seat's own policy."""
    ra = rules.kernel
    one = Seats.from_policies([pol])
    n = int(table.k[0])
    total = 0.0
    for i in range(table.size):
        pos = int(table.pos[i])
        sw = int(table.dealt[i]) >= 0
        keep = field_keeps(one, 0, Decision(int(table.card[i]), pos, pos == n - 1, sw,
                                            int(table.dealt[i]), 0), ra)
        total += table.weight[i] * (table.loss_keep[i] if keep else table.loss_pass[i])
    return float(total)


@pytest.mark.parametrize("case", CONFIGS, ids=lambda c: c[0])
def test_S4_bayes_loses_no_more_than_any_grid_policy_from_every_seat(case) -> None:
    _, rules, field, enumerate_all = case
    n = len(field)
    for seat in range(n):
        policies = _with(field, seat, Policy("bayes"))
        table = bayes_exact.round_table(rules, policies)
        own = _lives(rules, policies, seat)
        # the table's own expectation is the enumerator's, and its states add up to one
        assert float(np.sum(table.weight)) == pytest.approx(1.0, abs=TOL)
        assert float(table.expected_loss()[0, 2]) == pytest.approx(own, abs=TOL)
        alts = _alternatives(rules)
        checked = alts if enumerate_all else [alts[1], field[seat], alts[-2]]
        for pol in alts:
            by_table = _table_loss(rules, table, pol)
            assert own <= by_table + TOL, f"seat {seat}: {pol.spec()} beats bayes"
            if pol in checked:
                exact = _lives(rules, _with(field, seat, pol), seat)
                assert by_table == pytest.approx(exact, abs=TOL), f"seat {seat}: {pol.spec()}"


def test_S4_bayes_strictly_beats_the_best_threshold_somewhere() -> None:
    """Not a vacuous optimum: at 4 players against 5:5 the dealer loses 0.3427 of rounds
    playing bayes and 0.3480 at best with any threshold or informed policy (the rule uses what
    the field's passes and keeps reveal)."""
    rules = RoncoRules.make()
    field = _field(4)
    policies = _with(field, 3, Policy("bayes"))
    table = bayes_exact.round_table(rules, policies)
    best = min(_table_loss(rules, table, p) for p in _alternatives(rules))
    assert _lives(rules, policies, 3) == pytest.approx(0.342709511, abs=1e-9)
    assert best == pytest.approx(0.348012790, abs=1e-9)


def test_S4_bayes_keeps_a_low_card_after_seeing_the_earlier_players_pass() -> None:
    """A situation where the best reply is no threshold: at 4 players against 5:5, position 2
    holding a 4 keeps when both earlier players passed (each swap hands on a card below 5, so
    lower cards are on the table) but passes a 4 when both kept."""
    rules = RoncoRules.make()
    table = bayes_exact.round_table(rules, _with(_field(4), 2, Policy("bayes")))
    rep = table.replies()
    assert rep[(4, 2, ("swap", "swap"), 4, 3)] is True
    assert rep[(4, 2, ("keep", "keep"), 4, None)] is False


def _ref_policy(p: Policy, replies: dict | None) -> ref.RefPolicy:
    if p.kind == "bayes":
        return ref.RefPolicy("bayes", replies=replies)
    return ref.RefPolicy(p.kind, p.T, p.Td, p.p)


@pytest.mark.parametrize("case", [CONFIGS[2], CONFIGS[4], CONFIGS[7], CONFIGS[10], CONFIGS[12]],
                         ids=lambda c: c[0])
def test_S4_round_kernel_matches_reference_on_every_deal(case) -> None:
    _, rules, field, _ = case
    n = len(field)
    deck = rules.deck_obj
    for seat in range(n):
        policies = _with(field, seat, Policy("bayes"))
        kc = KernelConfig.build(rules, policies)
        replies = bayes_exact.round_table(rules, policies).replies()
        cards, us = record_deals(chunk_state(3, seat, stream=98), 3000, n, kc.policies.kind,
                                 kc.rules.n_cards)
        lost, _, finals = replay_rounds(cards, us, *kc.args())
        ref_pols = [_ref_policy(p, replies) for p in policies]
        for r in range(cards.shape[0]):
            out = ref.play_round([deck.card(int(c)) for c in cards[r, :n]],
                                 deck.card(int(cards[r, n])), ref_pols, deck=rules.deck,
                                 cut_king=rules.cut_king, ties=rules.ties,
                                 poroli=rules.poroli)
            got = [ref.strength(c, poroli=rules.poroli) for c in out.final_cards]
            assert list(finals[r]) == got, f"seat {seat}, deal {r}"
            assert [int(x) > 0 for x in lost[r]] == list(out.losers), f"seat {seat}, deal {r}"


@pytest.mark.parametrize("case", [
    ("default-5p-3lives", RoncoRules.make(), 5, Policy("threshold", 5, 5), 3, 300),
    ("poroli-4p-informed-first", RoncoRules.make(poroli=True, ties="first"), 4,
     Policy("informed", 6, 5), 2, 300),
    ("french52-3p-blocked", RoncoRules.make(deck="french52", cut_king="blocked"), 3,
     Policy("threshold", 7, 7), 3, 300),
], ids=lambda c: c[0])
def test_S4_game_kernel_matches_reference_game_by_game(case) -> None:
    """In games the table covers every table size and position the player passes through."""
    _, rules, n, field, lives, games = case
    policies = [field] * n
    policies[1] = Policy("bayes")
    cfg = GameConfig.build(rules, policies, lives, None)
    out, lives_left, _ = detail_games(chunk_state(5, 1, stream=78), games, *cfg.args())
    replies = bayes_exact.game_table(rules, n, field).replies()
    ref_pols = [_ref_policy(p, replies) for p in policies]
    state = chunk_state(5, 1, stream=78)
    perm = np.arange(cfg.rules.n_cards)
    deck = rules.deck_obj

    def next_deal(k: int):
        deal(state, perm, k + 1)
        return [deck.card(int(c)) for c in perm[:k]], deck.card(int(perm[k])), [0.0] * k

    for g in range(games):
        d0 = int(randbelow(state, n))
        res = ref.play_game(n, lives, ref_pols, d0, next_deal, deck=rules.deck,
                            cut_king=rules.cut_king, ties=rules.ties,
                            poroli=rules.poroli, absolute_tie=rules.absolute_tie)
        ending = VOID if res.void else (WON if res.winner is not None else ALL_OUT)
        assert (int(out[g, 0]), int(out[g, 1]), int(out[g, 2])) == (
            ending, -1 if res.winner is None else res.winner, res.rounds), f"game {g}"
        assert tuple(int(x) for x in lives_left[g]) == res.lives_left, f"game {g}"


def test_S4_bayes_refuses_what_it_cannot_reply_to() -> None:
    rules = RoncoRules.make()
    with pytest.raises(UsageError, match="threshold or informed"):
        bayes_exact.round_table(rules, [Policy("bayes"), Policy("random", p=0.5), Policy()])
    with pytest.raises(UsageError, match="at most one player"):
        bayes_exact.round_table(rules, [Policy("bayes"), Policy("bayes"), Policy()])
    with pytest.raises(UsageError, match="at most 10 players"):
        bayes_exact.game_table(rules, 11, Policy())
    with pytest.raises(UsageError, match="same threshold or informed policy"):
        bayes_exact.game_field([Policy("bayes"), Policy("threshold", 5, 5),
                                Policy("threshold", 6, 6)])


def test_S4_exact_and_rounds_take_bayes_by_position(capsys) -> None:
    """``--policies`` gives each position its own policy; the exact loss of the bayes seat is
    the table's, and the Monte Carlo rounds agree with it."""
    from simcards.core.cli import main

    spec = "threshold:5:5,bayes,threshold:5:5,threshold:5:5"
    assert main(["ronco", "exact", "--players", "4", "--policies", spec, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["policies"] == spec.split(",")
    assert out["p_lose"][1] == pytest.approx(0.25554623449360553, abs=TOL)
    assert main(["ronco", "rounds", "--players", "4", "--policies", spec, "--rounds", "400k",
                 "--workers", "1", "--json"]) == 0
    mc = json.loads(capsys.readouterr().out)
    assert mc["ci_low"][1] <= out["p_lose"][1] <= mc["ci_high"][1]


@pytest.mark.parametrize("args, message", [
    (["rounds", "--players", "3", "--policies", "bayes,random:0.5,threshold"],
     "threshold or informed"),
    (["exact", "--players", "2", "--policy", "bayes"], "at most one player"),
    (["exact", "--players", "2", "--policies", "bayes,threshold", "--thresholds", "5,5"],
     "--thresholds"),
    (["games", "--players", "3", "--policies", "bayes,threshold:5:5,threshold:6:6"],
     "same threshold or informed"),
    (["games", "--players", "11", "--policies", "bayes" + ",threshold" * 10],
     "at most 10 players"),
])
def test_S4_bad_bayes_tables_give_one_line_and_exit_2(args, message, capsys) -> None:
    from simcards.core.cli import main

    assert main(["ronco", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_S4_exact_games_and_monte_carlo_games_agree_with_a_bayes_player() -> None:
    """The exact game solver (a Markov chain whose rounds are enumerated with the round table
    of each table size) and the game kernel (one table for every size) give the same win
    rates, within 4.5 standard errors of 200,000 games."""
    from simcards.ronco import api

    spec = "bayes,threshold:5:5,threshold:5:5"
    ex = api.games(players=3, lives=2, policies=spec, exact=True).to_dict()
    mc = api.games(players=3, lives=2, policies=spec, games="200k", workers=1).to_dict()
    assert ex["win_rate"][0] == pytest.approx(0.3162529557699861, abs=1e-12)
    for p, q in zip(ex["win_rate"], mc["win_rate"], strict=True):
        assert abs(p - q) < 4.5 * np.sqrt(p * (1 - p) / 200_000)


def test_bayes_page_gives_the_race_rate_beside_the_shared_games_and_says_they_differ() -> None:
    """The page's "its games won" for the best pair (3 players: 0.2498) is its rate on the
    games it shares with ``bayes``; the best-threshold page gives the same pair 0.2473
    [0.2449, 0.2497] from the race's own games. The bayes page shows both and says they are
    different samples, so a reader comparing the two pages is not left with two answers."""
    from pathlib import Path

    import pandas as pd

    from simcards.ronco.reports import bayes as page

    reports = Path(__file__).resolve().parents[2] / "reports" / "ronco"
    frame = pd.read_csv(reports / "bayes.csv")
    best = pd.read_csv(reports / "best_threshold.csv")
    race = {int(r.players): (r.win_rate, r.ci_low, r.ci_high, int(r.games))
            for r in best.itertuples()}
    text = page._page(frame, pd.DataFrame(), Policy("threshold", 5, 5), seed=1, quick=False,
                      command="simcards ronco best-threshold", race=race)
    row = next(line for line in text.splitlines() if line.startswith("| 3 | "))
    assert "| 0.2498 |" in row
    assert row.endswith("| 0.2473 [0.2449, 0.2497] (122,880 games) |")
    assert "a different sample from the games it shares with `bayes` here" in text
