"""The two-player round over every behavioural strategy (rule E7 of ``seeds/ronco.md``, with
E1-E3 for the families it is compared with).

The solver builds its game from the E1 deal classes and solves two exact linear programs; the
checks here recompute what it claims another way: the game card by card from the reference
engine (every dealt pair and every cut card, no strength classes), scipy's float LP of the
whole sequence form (every dealer information set, none eliminated), exact best replies on that
card-by-card game, and textbook linear programs for the simplex.
"""

from __future__ import annotations

import functools
import json
from fractions import Fraction

import numpy as np
import pytest
from scipy.optimize import linprog

from simcards.core.cli import main
from simcards.core.errors import UsageError
from simcards.ronco import api
from simcards.ronco import behaviour_exact as beh
from simcards.ronco import equilibrium_exact as eqm
from simcards.ronco import reference as ref
from simcards.ronco.rules import RoncoRules
from tests.cli_checks import assert_one_line_error

TIES_FIRST = RoncoRules.make(ties="first")
POROLI_FIRST = RoncoRules.make(poroli=True, ties="first")
FRENCH_BLOCKED = RoncoRules.make(deck="french52", cut_king="blocked", ties="first")
SPANISH48_NONE = RoncoRules.make(deck="spanish48", cut_king="none", ties="first")
MEASURED = [TIES_FIRST, POROLI_FIRST, FRENCH_BLOCKED, SPANISH48_NONE]

Key = tuple[int, bool, beh.DealerSet, bool]
"""(position 0's class, position 0 keeps?, the dealer's set, the dealer keeps?)."""


@functools.cache
def _solution(rules: RoncoRules) -> beh.Solution:
    return beh.solve(rules)


@functools.cache
def _card_by_card(rules: RoncoRules) -> tuple[dict[Key, Fraction], dict[Key, Fraction]]:
    """The round card by card from the reference engine (R1-R8, R11): for every ordered pair of
    dealt cards and every action pair, each position's loss, averaged over every cut card when
    the dealer cuts, summed per (position 0's class, its action, the dealer's information set as
    R3, R4 and R11 define it, his action) with the exact probability of the deal."""
    opts = {"deck": rules.deck, "ties": rules.ties, "cut_king": rules.cut_king,
            "poroli": rules.poroli}
    cards = ref.deck_cards(rules.deck)
    top = ref.top_rank(rules.deck)
    n = len(cards)
    keep0 = {True: ref.RefPolicy("threshold", 0, 0), False: ref.RefPolicy("threshold", top + 1)}
    keep_d = {True: ref.RefPolicy("threshold", 0, 0),
              False: ref.RefPolicy("threshold", 0, top + 1)}
    counts: tuple[dict[Key, int], dict[Key, int]] = ({}, {})
    for a in cards:
        for b in cards:
            if a == b:
                continue
            sa, sb = ref.strength(a, poroli=rules.poroli), ref.strength(b, poroli=rules.poroli)
            rest = [c for c in cards if c not in (a, b)]
            for k0 in (True, False):
                dset: beh.DealerSet = (("kept", sb) if k0 else ("refused", sb) if b[0] == top
                                       else ("swap", sa, sb))
                for kd in (True, False):
                    key = (sa, k0, dset, kd)
                    cuts = rest[:1] if kd else rest
                    scale = n - 2 if kd else 1  # one cut card stands for all when he keeps
                    for c in cuts:
                        out = ref.play_round([a, b], c, [keep0[k0], keep_d[kd]], **opts)
                        for pos in range(2):
                            counts[pos][key] = (counts[pos].get(key, 0)
                                                + scale * int(out.losers[pos]))
    denom = n * (n - 1) * (n - 2)
    lose0 = {k: Fraction(v, denom) for k, v in counts[0].items()}
    lose1 = {k: Fraction(v, denom) for k, v in counts[1].items()}
    return lose0, lose1


def _reach(p: dict[int, Fraction], s: int, k0: bool) -> Fraction:
    return p[s] if k0 else 1 - p[s]


def _dealer_guarantee_card_by_card(rules: RoncoRules, p: dict[int, Fraction]) -> Fraction:
    """Position 0's loss when it plays ``p`` and the dealer picks, at every one of his
    information sets, the action that loses least *for him*: the best of all his pure
    strategies, since each set is his only move on the deals that reach it."""
    lose0, lose1 = _card_by_card(rules)
    own: dict[tuple[beh.DealerSet, bool], Fraction] = {}
    theirs: dict[tuple[beh.DealerSet, bool], Fraction] = {}
    for (s, k0, dset, kd), v in lose1.items():
        r = _reach(p, s, k0)
        own[(dset, kd)] = own.get((dset, kd), Fraction(0)) + r * v
        theirs[(dset, kd)] = theirs.get((dset, kd), Fraction(0)) + r * lose0[(s, k0, dset, kd)]
    sets = {d for d, _ in own}
    return sum((theirs[(d, own[(d, True)] <= own[(d, False)])] for d in sets), Fraction(0))


def _position0_guarantee_card_by_card(rules: RoncoRules, q: dict[beh.DealerSet, Fraction]
                                      ) -> Fraction:
    """Position 0's loss from its best pure reply to the dealer's behaviour ``q``: per class,
    the action that loses less."""
    lose0, _ = _card_by_card(rules)
    act: dict[tuple[int, bool], Fraction] = {}
    for (s, k0, dset, kd), v in lose0.items():
        qa = q[dset] if kd else 1 - q[dset]
        act[(s, k0)] = act.get((s, k0), Fraction(0)) + qa * v
    classes = {s for s, _ in act}
    return sum((min(act[(s, True)], act[(s, False)]) for s in classes), Fraction(0))


# ---------------------------------------------------------------- E7: the solution


@pytest.mark.parametrize("rules", MEASURED, ids=["spanish40", "poroli", "french52-blocked",
                                                 "spanish48-none"])
def test_e7_exact_certificate_both_best_pure_replies_give_the_value(rules) -> None:
    """E7: position 0's best pure reply to the dealer's strategy and the dealer's best pure
    reply to position 0's both leave position 0 losing exactly the value; the two losses add
    up to one (E3: one loser per round); every probability is an exact fraction in [0, 1]."""
    sol = _solution(rules)
    assert sol.position0_best_reply == sol.value == sol.dealer_best_reply
    assert sol.total == 1
    d = sol.to_dict()
    assert d["certificate"]["holds"] is True
    assert Fraction(d["value"][0]["fraction"]) + Fraction(d["value"][1]["fraction"]) == 1
    for p in (*sol.position0.values(), *sol.dealer.values()):
        assert isinstance(p, Fraction) and 0 <= p <= 1
    game = beh.build_game(rules)
    assert beh.expected_loss(game, sol.position0, sol.dealer, 0) == sol.value
    assert beh.expected_loss(game, sol.position0, sol.dealer, 1) == 1 - sol.value


def test_e7_information_sets_are_the_ones_r3_r4_r11_define() -> None:
    """E7 (R3, R4, R11): 40 cards, 10 classes: position 0 has 10 sets; the dealer 10 after a
    keep, 10 x 9 after a swap (he gave a card below the top rank, else R4 refuses) and one
    after a refusal (holding the top rank): 101. Under Poroli (C4) the Poroli card is a class
    of its own and cannot be both dealt cards: 11 + 11 x 10 - 1 + 1 = 121."""
    for rules, n0, nd in ((TIES_FIRST, 10, 101), (POROLI_FIRST, 11, 121)):
        d = _solution(rules).to_dict()
        assert d["information_sets"]["position0"] == n0
        assert d["information_sets"]["dealer"] == nd
        refused = [m for m in d["dealer"] if m["after"] == "refused"]
        assert refused == [{"after": "refused", "card": rules.top, "keep": "1", "decimal": 1.0}]
        assert all(m["gave"] != rules.top for m in d["dealer"] if m["after"] == "swap")


def test_e7_value_matches_scipys_float_lp_of_the_whole_sequence_form_card_by_card() -> None:
    """E7 against an independent solve: the sequence-form LP of the whole round (position 0's
    realisation plan, one value per dealer information set, none eliminated) built card by
    card from the reference engine and solved in floats by HiGHS."""
    rules = TIES_FIRST
    lose0, _ = _card_by_card(rules)
    classes = sorted({k[0] for k in lose0})
    sets = sorted({k[2] for k in lose0}, key=repr)
    col_x = {(s, k0): 2 * i + (0 if k0 else 1) for i, s in enumerate(classes) for k0 in
             (True, False)}
    nx = len(col_x)
    col_v = {d: nx + j for j, d in enumerate(sets)}
    n_var = nx + len(sets)
    # min sum_I v_I  s.t.  sum_{s,k0} x(s,k0) L0(s,k0,I,a) - v_I <= 0 for each I and action a.
    rows = {(d, kd): np.zeros(n_var) for d in sets for kd in (True, False)}
    for (s, k0, d, kd), v in lose0.items():
        rows[(d, kd)][col_x[(s, k0)]] += float(v)
    for (d, _), row in rows.items():
        row[col_v[d]] = -1.0
    a_eq = np.zeros((len(classes), n_var))
    for i, s in enumerate(classes):
        a_eq[i, col_x[(s, True)]] = a_eq[i, col_x[(s, False)]] = 1.0
    c = np.r_[np.zeros(nx), np.ones(len(sets))]
    res = linprog(c, A_ub=np.array(list(rows.values())), b_ub=np.zeros(len(rows)), A_eq=a_eq,
                  b_eq=np.ones(len(classes)),
                  bounds=[(0, None)] * nx + [(None, None)] * len(sets), method="highs")
    assert res.status == 0
    assert abs(res.fun - float(_solution(rules).value)) < 1e-12


def test_e7_optimal_strategies_guarantee_the_value_against_every_pure_reply_card_by_card(
) -> None:
    """E7: on the card-by-card game, position 0's optimal strategy holds its loss to the value
    whatever the dealer does (his best reply over all 2**101 pure strategies, set by set), and
    the dealer's holds it there whatever position 0 does: exactly, in fractions."""
    rules = TIES_FIRST
    sol = _solution(rules)
    assert _dealer_guarantee_card_by_card(rules, sol.position0) == sol.value
    assert _position0_guarantee_card_by_card(rules, sol.dealer) == sol.value


def test_e7_after_a_swap_or_a_refusal_the_dealers_best_action_ignores_position0() -> None:
    """E7 (R3, R4, R11): only the dealer's sets after "position 0 kept" are coupled to position
    0's strategy; after a swap he knows both cards, after a refusal he holds the top rank and
    keeps. His best reply there is the same against any strategy of position 0."""
    sol = _solution(TIES_FIRST)
    assert sol.coupled and all(s[0] == "kept" for s in sol.coupled)
    game = beh.build_game(TIES_FIRST)
    rng = np.random.default_rng(7)
    replies = []
    for _ in range(5):  # random strategies, with every class passing sometimes
        p = {s: Fraction(int(rng.integers(0, 4)), 4) for s in game.classes}
        br = beh.best_reply_dealer(game, p)
        replies.append({s: v for s, v in br.items() if s[0] != "kept"})
    assert all(r == replies[0] for r in replies)
    # After a swap with ties=first he keeps exactly when position 0's final card (the one he
    # gave) is not above his (S2a's certain safety), and after a refusal he keeps.
    for s, v in replies[0].items():
        if s[0] == "swap":
            assert v == int(s[2] <= s[1]), s
        else:
            assert v == 1


# ---------------------------------------------------------------- E7 against the families (E1)


@pytest.mark.parametrize("rules", MEASURED, ids=["spanish40", "poroli", "french52-blocked",
                                                 "spanish48-none"])
def test_e7_restricting_to_a_family_is_consistent_with_every_strategy(rules) -> None:
    """E7 (E1, E3): a family's optimal mixes, read as behavioural strategies, can do no better
    against an unrestricted opponent than the value: position 0's mix lets the dealer push its
    loss to at least the value and the family's value, the dealer's lets position 0 pull it to
    at most both; when both guarantees meet, the family's value is the value and it reaches."""
    sol = _solution(rules)
    for fam in eqm.FAMILIES:
        chk = sol.families[fam]
        assert chk.value == eqm.solve(rules, fam).value[0]
        assert chk.dealer_guarantee <= sol.value <= chk.position0_guarantee
        assert chk.dealer_guarantee <= chk.value <= chk.position0_guarantee
        assert chk.reaches == (chk.value == sol.value)
        if chk.position0_guarantee == chk.dealer_guarantee:
            assert chk.reaches


def test_e7_threshold_family_guarantees_match_the_card_by_card_game() -> None:
    """E7 (S1): the threshold family's mixes as behaviour, built here from E1's mix alone
    (S1 reads nothing but the player's current card: position 0 keeps class s with probability
    P(T <= s), the dealer keeps at a set holding class s with probability P(Td <= s)), give
    the guarantees the solver reports, recomputed card by card."""
    rules = TIES_FIRST
    sol = _solution(rules)
    mix0, mix1 = eqm.solve(rules, "threshold").mix
    p = {s: sum((pr for t, pr, _ in mix0 if t <= s), Fraction(0)) for s in sol.position0}
    q = {d: sum((pr for t, pr, _ in mix1 if t <= d[1]), Fraction(0)) for d in sol.dealer}
    chk = sol.families["threshold"]
    assert _dealer_guarantee_card_by_card(rules, p) == chk.position0_guarantee
    assert _position0_guarantee_card_by_card(rules, q) == chk.dealer_guarantee


def test_e7_spanish40_ties_first_the_informed_family_reaches_the_value(capsys) -> None:
    """E7 measured (R7 loses, R8 first): the value 1828/3705 is the informed family's (E3),
    not the threshold family's 7367/16055; position 0 keeps from the 6 up, the dealer after a
    keep keeps from the 7 up."""
    sol = _solution(TIES_FIRST)
    assert sol.value == Fraction(1828, 3705)
    assert sol.families["informed"].reaches and not sol.families["threshold"].reaches
    assert sol.families["threshold"].value == Fraction(7367, 16055)
    assert sol.verdict == "the informed family reaches the value"
    assert {s: int(v) for s, v in sol.position0.items()} == {s: int(s >= 6) for s in
                                                             sol.position0}
    kept = {s[1]: v for s, v in sol.dealer.items() if s[0] == "kept"}
    assert kept == {s: Fraction(int(s >= 7)) for s in kept}


def test_e7_verdict_names_the_nearest_family_when_none_reaches() -> None:
    sol = _solution(TIES_FIRST)
    far = beh.FamilyCheck(Fraction(1, 3), False, Fraction(1), Fraction(0))
    near = beh.FamilyCheck(Fraction(1, 2), False, Fraction(1), Fraction(0))
    alt = beh.Solution(sol.payoff, sol.total, sol.value, sol.position0, sol.dealer,
                       sol.coupled, sol.value, sol.value, {"threshold": far, "informed": near})
    assert alt.verdict.startswith("no threshold family reaches it: best is informed at 1/2")


# ---------------------------------------------------------------- the exact simplex


def test_simplex_does_not_cycle_on_beales_degenerate_program() -> None:
    """Bland's rule: Beale's example cycles under the largest-coefficient rule."""
    f = Fraction
    c = [f(-3, 4), f(20), f(-1, 2), f(6)]
    a = [[f(1, 4), f(-8), f(-1), f(9)], [f(1, 2), f(-12), f(-1, 2), f(3)],
         [f(0), f(0), f(1), f(0)]]
    x, v = beh.simplex_min(c, a, [f(0), f(0), f(1)])
    assert v == f(-5, 4) and x == [f(1), f(0), f(1), f(0)]


def test_simplex_phase_one_handles_negative_right_hand_sides() -> None:
    f = Fraction
    # min x + 2y  s.t.  x + y >= 3/2, x <= 1: x = 1, y = 1/2.
    x, v = beh.simplex_min([f(1), f(2)], [[f(-1), f(-1)], [f(1), f(0)]], [f(-3, 2), f(1)])
    assert x == [f(1), f(1, 2)] and v == 2


def test_simplex_matches_highs_on_random_programs() -> None:
    rng = np.random.default_rng(11)
    for _ in range(20):
        m, n = 6, 5
        a = rng.integers(-5, 6, size=(m, n))
        b = rng.integers(-2, 8, size=m)
        c = rng.integers(-4, 5, size=n)
        a = np.vstack([a, np.eye(n, dtype=int)])  # x <= 3 keeps it bounded
        b = np.r_[b, np.full(n, 3)]
        res = linprog(c, A_ub=a, b_ub=b, bounds=[(0, None)] * n, method="highs")
        fa = [[Fraction(int(v)) for v in row] for row in a]
        if res.status == 2:  # infeasible
            with pytest.raises(RuntimeError, match="infeasible"):
                beh.simplex_min([Fraction(int(v)) for v in c], fa,
                                [Fraction(int(v)) for v in b])
            continue
        x, v = beh.simplex_min([Fraction(int(v)) for v in c], fa, [Fraction(int(v)) for v in b])
        assert abs(float(v) - res.fun) < 1e-9
        assert all(sum(r * xi for r, xi in zip(row, x, strict=True)) <= bi
                   for row, bi in zip(fa, b, strict=True))


# ---------------------------------------------------------------- command line and API


def test_e7_cli_json_is_the_api_answer(capsys) -> None:
    assert main(["ronco", "equilibrium", "--players", "2", "--exact", "--family", "all",
                 "--ties", "first", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == api.equilibrium(players=2, exact=True, family="all", ties="first").to_dict()
    assert out["family"] == "all" and out["round"] == "constant-sum"
    assert out["value"][0] == {"fraction": "1828/3705", "decimal": 1828 / 3705}
    assert out["position0"][0] == {"card": 1, "keep": "0", "decimal": 0.0}
    assert {"after": "swap", "card": 3, "gave": 7, "keep": "0", "decimal": 0.0} in out["dealer"]
    assert out["families"]["informed"]["reaches"] is True
    assert out["families"]["threshold"]["value"] == "7367/16055"
    assert out["verdict"] == "the informed family reaches the value"
    frame = api.equilibrium(players=2, exact=True, family="all", ties="first").to_frame()
    assert len(frame) == 10 + 101 and set(frame["position"]) == {0, 1}


def test_e7_cli_table_prints_value_certificate_and_verdict(capsys) -> None:
    assert main(["ronco", "equilibrium", "--exact", "--family", "all", "--ties", "first",
                 "--poroli"]) == 0
    text = capsys.readouterr().out
    assert "687/1235" in text and "certificate (holds)" in text
    assert "the informed family reaches the value" in text


@pytest.mark.parametrize(("args", "part"), [
    (["--exact", "--ties", "all"], "--family all needs a constant-sum round (--payoff lose "
     "--ties first)"),
    (["--exact"], "--family all needs a constant-sum round"),
    (["--exact", "--ties", "first", "--payoff", "lives"], "with payoff lives and ties=first"),
    (["--players", "3"], "--family all solves one two-player round exactly"),
    (["--players", "3", "--exact"], "--family all solves one two-player round exactly"),
    (["--players", "2", "--ties", "first"], "--family all solves one two-player round"),
])
def test_e7_cli_refusals_are_one_line_errors_with_exit_2(capsys, args, part) -> None:
    """E7: a rule set that is not constant-sum (E3), or a table that is not two players with
    --exact, is refused with one line and exit status 2."""
    assert_one_line_error(capsys, ["ronco", "equilibrium", "--family", "all", *args], part)


def test_e7_unknown_family_lists_all() -> None:
    with pytest.raises(UsageError, match=r"expected threshold\|informed\|all"):
        api.equilibrium(players=2, exact=True, family="every")


def test_e7_api_refuses_a_rule_set_that_is_not_constant_sum() -> None:
    with pytest.raises(UsageError, match="not zero-sum"):
        beh.solve(RoncoRules.make(ties="all"))


def test_e7_openspiel_sequence_form_lp_agrees_with_the_exact_value():
    """E7: OpenSpiel's sequence-form linear program, walking the registered game
    ``simcards_ronco_duel`` card by card, finds the exact value (1828/3705 for the default
    rules with ties=first) to within its float tolerance."""
    pytest.importorskip("pyspiel")
    out = api.equilibrium(players=2, exact=True, family="all", ties="first",
                          openspiel=True).to_dict()
    assert out["value"][0]["fraction"] == "1828/3705"
    json.dumps(out)  # plain JSON, as --json prints it (no numpy scalars)
    spiel = out["openspiel"]
    assert spiel["agrees"] and abs(spiel["value"] - 1828 / 3705) < 1e-7
    # Position 0 keeps from the 6 up in the exact solution; OpenSpiel's optimum is the same
    # rule, whatever the suit.
    keep = {m["card"]: m["keep"] for m in spiel["position0"]}
    assert all(m["same_for_every_suit"] for m in spiel["position0"])
    assert all(abs(keep[c] - (1.0 if c >= 6 else 0.0)) < 1e-4 for c in keep)


def test_e7_openspiel_flag_needs_family_all():
    with pytest.raises(UsageError, match="--openspiel"):
        api.equilibrium(players=2, exact=True, family="threshold", openspiel=True)

