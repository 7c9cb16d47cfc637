"""Ronda's Python API: the ``simcards ronda`` commands as functions.

::

    import simcards.ronda

    res = simcards.ronda.hands(players=2, policies="greedy,random", hands="1M")
    res.to_dict()    # the same keys as `simcards ronda hands --json`
    res.to_frame()   # one row per side

Each function takes keyword arguments named after the command's flags (``--derba-chain`` is
``derba_chain``), with the same defaults, the same checks and the same seed
(:data:`~simcards.core.cli_options.DEFAULT_SEED`), and returns a
:class:`~simcards.core.results.Result` (every game's) with ``.to_dict()`` and ``.to_frame()``.
Counts may be ints or the command line's text (``"1M"``, ``"1e6"``);
``policies`` may be the ``--policies`` text or a list of specs, ``teams`` ``"on"``/``"off"``
or ``True``/``False``. Every argument takes the types of :mod:`simcards.core.apiargs` (an
integer option an ``int``, never its text or a ``float``). Bad arguments, of a wrong type or
value, raise :class:`~simcards.core.errors.UsageError` (a ``ValueError``) naming the flag,
before anything is computed. Runs are kept in the run store as the commands keep them
(``store`` as ``--store``), and run on a dask cluster with ``scheduler`` as ``--scheduler``.

The command line (:mod:`simcards.ronda.cli`) is a thin layer over these functions.

The keys of each answer
-----------------------
``.to_dict()`` is the command's ``--json`` object; its keys, in order. Intervals are 95%
(Wilson's for rates, normal for means and paired differences), each ``[low, high]``; an
interval the data cannot give (a mean over one hand, one deal set) is one ``null`` (``n/a`` in
the command's table). Every answer run on a dask cluster also has ``cluster``.

``hands``: ``game`` (``"ronda"``), ``command``, ``players``, ``rules`` (``players``,
``teams``, ``derba_chain``, ``announce``, ``announce_conflict``, ``mode``: the switches a hand
reads), ``sides`` (each side's seats, e.g. ``[[0, 2], [1, 3]]``), ``policies`` (one spec per
seat), ``dealer`` (null: drawn), ``seed``, ``hands``; then, by side: ``points_mean`` (points
per hand) with ``points_ci``, ``points_by_source`` (``ronda``, ``tringla``, ``derba``
(re-hits included), ``missa``, ``cards`` (S1), ``last_card`` (L1-L3); each a list by side,
points per hand) with ``points_by_source_ci``, ``cards_mean`` (captured cards per hand) with
``cards_ci``, ``hand_win_rate`` (strictly most points in the hand; in classic mode strictly
most cards, C2) with ``hand_win_ci``; ``hand_tie_rate`` (hands without a winner) with
``hand_tie_ci``; ``derbas_mean``, ``rehits_mean``, ``missas_mean`` (per hand, by side; Missas
are counted in classic mode too); ``holdings`` (4-card holdings dealt), ``ronda_rate`` and
``tringla_rate`` (Rondas and Tringlas held per dealt 4-card holding, scoring or not, A2) with
``ronda_ci`` and ``tringla_ci``; ``violations`` (hands that broke an invariant of the engine:
0). In classic mode nothing scores (C1): the points keys are 0.

``matches``: ``game``, ``command``, ``players``, ``rules`` (every switch: also ``target``,
``target_check``, ``hands_to_win``), ``sides``, ``policies``, ``dealer`` (the first dealer),
``max_hands`` (a match still undecided after that many hands, 200 or more for long classic
matches, is stopped and counted as unfinished), ``seed``, ``matches``, ``win_rate`` (by side)
with ``win_ci``, ``unfinished``, ``first_player_win_rate`` (matches won by the side of the
first hand's first player) with ``first_player_win_ci``, ``first_player_advantage`` (that rate
minus the fair share 1/sides; with the dealer drawn and the same policy everywhere, the value
of playing first in the first hand) with ``first_player_advantage_ci``, ``hands_mean`` (match
length in hands) with ``hands_ci``, ``hands_sd`` (the sample standard deviation; null for one
match), ``hands_quantiles`` (5, 25, 50, 75, 95%), ``score_mean`` (final match score by side)
with ``score_ci``, ``points_per_hand`` (by side) and ``points_by_source`` (per hand, by source
and side), ``cards_per_hand`` (captured cards per hand, by side), ``hand_wins_per_match``
(hands won by most cards, C2, per match, by side: a classic match's score), ``hands_played``
(hands played to their end), ``violations``. In classic mode (C1) scores and points are 0; the
``rules`` switches classic ignores stay at their defaults (others are refused).

``compare``: ``game``, ``command``, ``players``, ``rules``, ``sides``, ``policy_a``,
``policy_b``, ``dealer``, ``max_hands``, ``seed``, ``deals``, ``plays`` (matches played),
``win_rate_a`` with ``win_ci_a`` and ``win_rate_b`` with ``win_ci_b`` (each policy's match win
rate; B's per side), ``win_rate_diff`` (A's minus B's, paired over deal sets) with
``win_rate_diff_ci``, ``points_diff`` (points per hand, A's side minus B's) with
``points_diff_ci``, ``cards_diff`` (captured cards per hand) with ``cards_diff_ci``,
``unfinished``, ``hands_mean`` (hands per match), ``hands_played``, ``violations``. A
deterministic policy against itself gives exactly 0.

``ladder``: ``game``, ``command`` (``"ladder"``), ``policies`` (as listed, canonical),
``players`` (the table sizes), ``anchor`` (the first listed, rated 0), ``dealer``, ``seed``,
``deals`` (deal sets per pairing), and ``tables``, one per table size, each with ``players``,
``rules``, ``sides``, ``ratings`` (in the listed order, each ``policy``, ``rating`` with
``ci95`` and ``se``; the anchor's ``[0, 0]`` and 0), ``order`` (best first), ``fit``
(``chi2``, the Pearson chi-square of the pairings about the fitted probabilities, on ``dof`` =
pairings - (policies - 1) degrees of freedom, and its ``p_value``, null without any: a small
one says no single rating per policy describes the pairings, as when the policies beat one
another in a circle), ``unseparated`` (every pair ``[A, B]`` whose paired win-rate interval
includes 0, or has none), ``pairings``, ``summary`` and ``separation``. A pairing has ``a``,
``b``, ``seed`` (with which ``compare A B`` gives the same numbers), compare's ``plays``,
``win_rate_a``, ``win_ci_a``, ``win_rate_b``, ``win_ci_b``, ``win_rate_diff``,
``win_rate_diff_ci``, ``points_diff``, ``points_diff_ci``, ``cards_diff``, ``cards_diff_ci``,
``unfinished``, ``hands_mean`` and ``violations``, then ``p_a`` (A's probability of beating B,
:mod:`simcards.core.ladder`) with ``p_a_ci``, ``n_eff`` and ``p_a_fit`` (the fitted ratings'
probability). ``summary`` is one plain sentence on the best policy and the next best, from
their own pairing (``with 2 players play lookahead:1: it wins 0.413 [0.355, 0.472] more
matches than greedy, the next best.``; with 3 or 4 players alone, more matches per seat);
``separation`` names the pairs that do not separate, or says ``no policy separates from
another`` or ``every pair separates``. ``.to_frame()`` has one row per policy and table size,
best first: ``players``, ``rank``, ``policy``, ``rating``, ``ci_low``, ``ci_high``, ``se``.
The ladder's own record is kept in the run store beside its pairings' compare runs
(``ronda-ladder-<hash>/``, its ``result.parquet`` one row per policy).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pandas as pd

from simcards.core.apiargs import (
    BOOL,
    CARD_GROUPS,
    CARDS,
    COUNT,
    INT,
    INTEGERS,
    NUMBER,
    PATH,
    POLICIES,
    POLICY,
    SIZES,
    TEXT,
    checked,
    run_keywords,
)
from simcards.core.cli_options import Count, check_seat
from simcards.core.engines import PYTHON, engine_for, notice
from simcards.core.errors import UsageError
from simcards.core.policyspec import PolicySpec, flag_message
from simcards.core.results import Result
from simcards.core.switches import HAND, MATCH, RuleSet
from simcards.ronda.policies import KINDS
from simcards.ronda.rules import RondaRules

HANDS = Count("--hands", "100k", 10**10, "Hands to simulate")
"""How many hands one ``hands`` run simulates."""
MATCHES = Count("--matches", "100k", 10**9, "Matches to simulate")
"""How many matches one ``matches`` run simulates."""
DEALS = Count("--deals", "50k", 10**9, "Deal sets, each one match per seating of A and B")
"""How many deal sets one ``compare`` run plays (each is a match per seating), and a ladder
per pairing."""



def _bound(ci: list[float] | None, i: int) -> float:
    """One end of a JSON interval; ``nan`` where the data cannot give one (``null``)."""
    return math.nan if ci is None else ci[i]


def _side_frame(d: dict[str, Any]) -> pd.DataFrame:
    sides = d["sides"]
    return pd.DataFrame({"side": range(len(sides)),
                         "seats": [",".join(str(p) for p in s) for s in sides],
                         "policies": [",".join(d["policies"][p] for p in s) for s in sides]})


def hands_frame(d: dict[str, Any]) -> pd.DataFrame:
    """``hands``, one row per side: its seats and policies, mean points with their 95%
    interval, mean points by source, mean cards and the hand win rate with its Wilson
    interval."""
    frame = _side_frame(d)
    frame["points_mean"] = d["points_mean"]
    frame["points_ci_low"] = [_bound(c, 0) for c in d["points_ci"]]
    frame["points_ci_high"] = [_bound(c, 1) for c in d["points_ci"]]
    for source, values in d["points_by_source"].items():
        frame[f"points_{source}"] = values
    frame["cards_mean"] = d["cards_mean"]
    frame["hand_win_rate"] = d["hand_win_rate"]
    frame["hand_win_ci_low"] = [c[0] for c in d["hand_win_ci"]]
    frame["hand_win_ci_high"] = [c[1] for c in d["hand_win_ci"]]
    return frame


def matches_frame(d: dict[str, Any]) -> pd.DataFrame:
    """``matches``, one row per side: its seats and policies, the match win rate and its
    Wilson interval."""
    frame = _side_frame(d)
    frame["win_rate"] = d["win_rate"]
    frame["win_ci_low"] = [c[0] for c in d["win_ci"]]
    frame["win_ci_high"] = [c[1] for c in d["win_ci"]]
    return frame


def compare_frame(d: dict[str, Any]) -> pd.DataFrame:
    """``compare``, one row per policy: its match win rate and interval; the paired
    differences (A minus B) are in the first row's ``win_rate_diff`` and ``points_diff``
    columns, their opposites in the second's."""
    frame = pd.DataFrame({"policy": [d["policy_a"], d["policy_b"]],
                          "win_rate": [d["win_rate_a"], d["win_rate_b"]],
                          "win_ci_low": [d["win_ci_a"][0], d["win_ci_b"][0]],
                          "win_ci_high": [d["win_ci_a"][1], d["win_ci_b"][1]]})
    frame["win_rate_diff"] = [d["win_rate_diff"], -d["win_rate_diff"]]
    frame["points_diff"] = [d["points_diff"], -d["points_diff"]]
    return frame


# ---------------------------------------------------------------- checks


def make_rules(*, match: bool = True, **switches: Any) -> RondaRules:
    """The rules from the commands' flags, each checked by ``RondaRules.make`` with a one-line
    message naming its flag.

    A switch that would have no effect is refused rather than recorded as if it had one: in
    classic mode (C1, C3) every scoring and target switch, and, when only one hand is played
    (``match`` false: ``ronda play`` without ``--match``), the match-level ones (S4, S5, C3).
    Each is refused at a value other than its default, as a default given explicitly changes
    nothing."""
    rules = RondaRules.make(**switches)
    given = {s.flag: getattr(rules, s.name) for s in RondaRules.switches()}
    if rules.mode == "classic":
        _refuse_ignored(given, CLASSIC_IGNORES, "no effect in --mode classic, where nothing "
                        "scores and a match is won by hands (rules C1, C3); leave {them} out")
    if not match:
        _refuse_ignored(given, MATCH_ONLY, "only a whole match reads {them} (rules S4, S5, "
                        "C3): add --match, or leave {them} out")
    return rules


CLASSIC_IGNORES = {s.flag: s.default for s in RondaRules.switches()
                   if s.name in ("derba_chain", "announce", "announce_conflict", "target",
                                 "target_check")}
"""C3: the flags that classic mode ignores, with their defaults (the only values allowed)."""
MATCH_ONLY = {s.flag: s.default for s in RondaRules.switches() if s.level == MATCH}
"""S4, S5, C3: the flags only a whole match reads, with their defaults."""

HAND_SWITCHES = RuleSet.of(RondaRules, HAND, build=make_rules)
"""The switches of the commands that play single hands (``hands``)."""
MATCH_SWITCHES = RuleSet.of(RondaRules, build=make_rules)
"""Every switch: the commands that play whole matches (``matches``, ``compare``)."""
LADDER_SWITCHES = RuleSet.of(RondaRules, exclude=("players",), as_values=True)
"""``ladder``'s: every switch but ``players``, which lists table sizes there."""


def _refuse_ignored(given: dict[str, object], ignored: dict[str, object], why: str) -> None:
    """One line naming every flag of ``ignored`` given at another value than its default;
    ``why`` may say ``{them}``, which reads "it" for one flag."""
    bad = [f"{flag} {given[flag]}" for flag, default in ignored.items()
           if given[flag] != default]
    if not bad:
        return
    names = bad[0] if len(bad) == 1 else ", ".join(bad[:-1]) + " and " + bad[-1]
    raise UsageError(f"{names}: {why.format(them='it' if len(bad) == 1 else 'them')}")


def _flagged(exc: UsageError, flag: str) -> UsageError:
    return UsageError(flag_message(flag, str(exc)))


def parse_policy(spec: str | PolicySpec, flag: str) -> PolicySpec:
    """One policy spec (``greedy``, ``lookahead:2``, ...), checked; errors name ``flag``.

    Every kind that parses is one the kernels play: ``KINDS`` declares exactly the
    kinds of ``codes.POLICY_*`` and the kernels dispatch on every one, so no further check of
    the kind is needed (the Monte Carlo commands and ``play`` take the same policies)."""
    try:
        return KINDS.check(spec) if isinstance(spec, PolicySpec) else KINDS.parse(str(spec))
    except UsageError as exc:
        raise _flagged(exc, flag) from None


def seat_policies(players: int, policies: str | Sequence[str | PolicySpec] | None
                  ) -> list[PolicySpec]:
    """One policy per seat (Q6) from ``--policies``: one entry for every seat, or one per
    seat in seat order; default ``greedy`` for all."""
    return KINDS.parse_list(policies, players, default="greedy")


def sides(rules: RondaRules) -> list[list[int]]:
    """D2: the seats of each side, side by side."""
    out: list[list[int]] = [[] for _ in range(rules.n_sides)]
    for p in range(rules.players):
        out[rules.side_of(p)].append(p)
    return out


def _header(command: str, rules: RondaRules, specs: Sequence[PolicySpec],
            level: str | None = None, engine: str | None = None) -> dict[str, Any]:
    """The answer's first keys (and the run's manifest). With a player's own function (Q11)
    also the engine that played and each function's digest (its file's text and name):
    editing the file makes a new run."""
    out: dict[str, Any] = {
        "game": "ronda",
        "command": command,
        "players": rules.players,
        "rules": rules.summary(level),
        "sides": sides(rules),
        "policies": [s.text() for s in specs],
    }
    return {**out, **_engine_keys(specs, engine)}


def _engine_keys(specs: Sequence[PolicySpec], engine: str | None) -> dict[str, Any]:
    """``engine`` and ``user_policies`` (each function's digest) when a seat plays a player's
    own function (Q11) or the Python engine was asked for; nothing otherwise."""
    users = {s.user.text(): s.user.digest for s in specs if s.user is not None}
    out: dict[str, Any] = {}
    if users or engine == PYTHON:
        out["engine"] = engine
    if users:
        out["user_policies"] = users
    return out


def _choose_engine(specs: Sequence[PolicySpec], engine: str | None) -> str:
    """The engine a run with these seats plays on (:func:`simcards.core.engines.engine_for`;
    its notice printed); the Python engine seats only ``random``, ``greedy`` and players' own
    functions (:data:`simcards.ronda.users.PYTHON_KINDS`)."""
    from simcards.ronda.users import PYTHON_KINDS

    asked = engine
    engine, why = engine_for([s.user for s in specs], engine)
    if engine == PYTHON:
        other = sorted({s.text() for s in specs if s.kind not in PYTHON_KINDS})
        if other and asked == PYTHON:
            raise UsageError(f"--engine python plays random, greedy and your own functions "
                             f"(PATH.py:FUNCTION); {', '.join(other)} searches in the kernel "
                             "only (use --engine compiled)")
        if other:
            raise UsageError(f"the Python engine, where {why}, plays random, greedy and your "
                             f"own functions; {', '.join(other)} searches in the kernel only")
    notice(why)
    return engine


# ---------------------------------------------------------------- commands


@checked(HAND_SWITCHES.args, policies=POLICIES.or_none(), hands=COUNT,
         dealer=INT.or_none(), engine=TEXT.or_none())
@HAND_SWITCHES.keywords
@run_keywords()
def hands(*, rules: RondaRules, policies: str | Sequence[str] | None = None,
          hands: int | str = HANDS.default,
          dealer: int | None = None, engine: str | None = None, run: dict[str, Any]) -> Result:
    """Monte Carlo single hands (``simcards ronda hands``): points by side and by source,
    cards, hand wins, Rondas and Tringlas dealt.

    ``policies`` is the ``--policies`` text or a list (one entry for every seat, or one per
    seat; default ``greedy``). ``dealer`` fixes the dealer seat (default: drawn for every hand,
    D3). ``hands`` defaults to 100k, at most 1e10. ``progress`` shows the command's progress on
    stderr.

    A policy may be a function of yours (Q11): ``PATH.py:FUNCTION`` in ``policies``, or the
    function itself in a list. ``engine`` chooses where the hands are played: ``compiled``
    (the hand kernel; every function must compile with numba) or ``python`` (the
    environments' table engine; it seats random, greedy and your functions); by default the
    kernel, unless a function does not compile (a line on stderr says so). Both engines play
    the same hands and give the same numbers.
    """
    from simcards.core.montecarlo import monte_carlo
    from simcards.ronda import hands_batch as ronda_hands

    specs = seat_policies(rules.players, policies)
    dealer = check_seat(dealer, rules.players)
    total = HANDS.parse(hands)
    engine = _choose_engine(specs, engine)
    header = {**_header("hands", rules, specs, HAND, engine), "dealer": dealer}
    return monte_carlo(
        header, {"hands": total, "chunk_size": ronda_hands.chunk_plan(specs, engine)[1]},
        lambda **where: ronda_hands.simulate(rules, specs, total, dealer=dealer,
                                             engine=engine, seed=run["seed"], **where),
        answer=lambda res: {"hands": total, **res.to_dict()}, frame=hands_frame,
        summary=("points_mean", "hand_win_rate", "ronda_rate", "hands"), **run)


@checked(MATCH_SWITCHES.args, policies=POLICIES.or_none(), matches=COUNT,
         dealer=INT.or_none(), engine=TEXT.or_none())
@MATCH_SWITCHES.keywords
@run_keywords()
def matches(*, rules: RondaRules, policies: str | Sequence[str] | None = None,
            matches: int | str = MATCHES.default,
            dealer: int | None = None, engine: str | None = None,
            run: dict[str, Any]) -> Result:
    """Monte Carlo whole matches (``simcards ronda matches``): match win rate by side, match
    length, first-player advantage.

    The flags of :func:`hands`, plus ``target`` (usually 11, 21 or 41; any of 1 .. 1000),
    ``target_check`` and, in classic mode, ``hands_to_win``. ``dealer`` fixes the first dealer
    (default: drawn for every match, D3). ``matches`` defaults to 100k, at most 1e9.

    A policy may be a function of yours (Q11), as in :func:`hands`; it sees the
    ``ronda_match_v0`` observation (the match scores carried, the hands won). ``engine``
    chooses where the matches are played, as in :func:`hands`: the match kernel, or the
    environments' engine (the reference's ``MatchState``; it seats random, greedy and your
    functions), by default when a function does not compile. Both play the same matches.
    """
    from simcards.core.montecarlo import monte_carlo
    from simcards.ronda import matches_batch

    specs = seat_policies(rules.players, policies)
    dealer = check_seat(dealer, rules.players)
    total = MATCHES.parse(matches)
    engine = _choose_engine(specs, engine)
    header = {**_header("matches", rules, specs, engine=engine), "dealer": dealer,
              "max_hands": matches_batch.max_hands(rules)}
    return monte_carlo(
        header, {"matches": total,
                 "chunk_size": matches_batch.match_chunk_size(rules, specs)},
        lambda **where: matches_batch.simulate(rules, specs, total, dealer=dealer,
                                               engine=engine, seed=run["seed"], **where),
        answer=lambda res: {"matches": total, **res.to_dict()}, frame=matches_frame,
        summary=("win_rate", "hands_mean", "first_player_advantage", "matches"), **run)


@checked(MATCH_SWITCHES.args, a=POLICY.named("policy A"), b=POLICY.named("policy B"),
         deals=COUNT, dealer=INT.or_none(), engine=TEXT.or_none())
@MATCH_SWITCHES.keywords
@run_keywords(bar=True)
def compare(a: str | PolicySpec, b: str | PolicySpec, *, rules: RondaRules,
            deals: int | str = DEALS.default, dealer: int | None = None,
            engine: str | None = None, run: dict[str, Any]) -> Result:
    """Policy A against policy B in duplicate (``simcards ronda compare A B``): every deal set
    is one match played on the same deals in every seating of A and B, so the paired
    differences (A minus B) in match win rate and in points per hand are sharp.

    The rule and match flags of :func:`matches`; ``deals`` (deal sets) defaults to 50k, at most
    1e9; ``dealer`` fixes the first dealer of every set (default: drawn for each set).
    ``progress`` may also be a :class:`~simcards.core.progress.Progress` that the run counts
    into (a ladder's one bar for all its pairings).

    A or B may be a function of yours (Q11, as in :func:`matches`, on either engine:
    ``engine`` as there); its digest is in the answer and the run's key, so an edited file
    never resumes an old run.
    """
    from simcards.core.montecarlo import monte_carlo
    from simcards.ronda import compare_batch as ronda_compare
    from simcards.ronda import matches_batch

    spec_a = parse_policy(a, "policy A")
    spec_b = parse_policy(b, "policy B")
    dealer = check_seat(dealer, rules.players)
    total = DEALS.parse(deals)
    engine = _choose_engine((spec_a, spec_b), engine)
    header = {"game": "ronda", "command": "compare", "players": rules.players,
              "rules": rules.summary(), "sides": sides(rules), "policy_a": spec_a.text(),
              "policy_b": spec_b.text(), "dealer": dealer,
              "max_hands": matches_batch.max_hands(rules),
              **_engine_keys((spec_a, spec_b), engine)}
    return monte_carlo(
        header, {"deals": total, "chunk_size": ronda_compare.chunk_for(rules, spec_a, spec_b)},
        lambda **where: ronda_compare.simulate(rules, spec_a, spec_b, total, dealer=dealer,
                                               engine=engine, seed=run["seed"], **where),
        answer=lambda res: res.to_dict(), frame=compare_frame,
        summary=("win_rate_diff", "points_diff", "deals"), **run)


LADDER_PAIRING_KEYS = ("plays", "win_rate_a", "win_ci_a", "win_rate_b", "win_ci_b",
                       "win_rate_diff", "win_rate_diff_ci", "points_diff", "points_diff_ci",
                       "cards_diff", "cards_diff_ci", "unfinished", "hands_mean", "violations")
"""The keys of each pairing's ``compare`` answer that a ladder keeps."""


@checked(LADDER_SWITCHES.args, players=SIZES, policies=POLICIES.or_none(), deals=COUNT,
         dealer=INT.or_none())
@LADDER_SWITCHES.keywords
@run_keywords()
def ladder(*, policies: str | Sequence[str | PolicySpec] | None = None,
           players: int | str | Sequence[int] = 2, switches: dict[str, Any],
           deals: int | str = DEALS.default, dealer: int | None = None,
           run: dict[str, Any]) -> Result:
    """Every listed policy against every other in duplicate, and their Bradley-Terry ratings
    (``simcards ronda ladder``; :mod:`simcards.core.ladder`).

    ``policies`` (at least two, each once) is the ``--policies`` text or a list of specs; the
    first listed is the anchor, rated 0. ``players`` is one table size or several (``"2,3"``),
    each ranked apart. Each pairing A (listed first) against B is exactly :func:`compare` with
    the pairing's own seed (derived from ``seed``, the table size and the two policies; in
    its ``seed`` key) and the rule and match flags given, run and stored as compare runs; its
    paired match win-rate difference is the figure the fit reads. ``deals`` are deal sets per
    pairing (default 50k, at most 1e9). With 3 or 4 players alone every pair also plays B
    against A, each order on half the deal sets (rounded up), so that the ladder does not
    depend on the order the policies are listed in (:mod:`simcards.core.ladder`). A policy
    may be a function of yours (Q11, as in :func:`compare`; each pairing's run key holds its
    digest): a pairing with a function numba cannot compile plays on the Python engine (one
    line on stderr says so, once for the ladder).
    """
    from simcards.core.ladder import run_ladder

    return run_ladder(_ladder_game(), policies=policies, players=players, switches=switches,
                      deals=deals, dealer=dealer, **run)


def _ladder_game() -> Any:
    """Ronda as the ladder plays it (:class:`~simcards.core.ladder.LadderGame`)."""
    from simcards.core.ladder import LadderGame

    def policy(item: str | PolicySpec, rules: RondaRules) -> PolicySpec:
        return parse_policy(item, "--policies")

    def pairing(a: PolicySpec, b: PolicySpec, **kw: Any) -> Any:
        engine, _ = engine_for([a.user, b.user], None)  # the ladder said why, once
        return compare(a, b, engine=engine if engine == PYTHON else None, **kw)

    return LadderGame("ronda", "Ronda", make_rules, policy, pairing,
                      _ladder_table, lambda rules: rules.n_sides > 2, DEALS.maximum,
                      _ladder_engine)


@contextmanager
def _ladder_engine(specs: Sequence[PolicySpec], sizes: Sequence[int]) -> Iterator[None]:
    """A ladder with a function numba cannot compile: its pairings play on the Python engine
    (:func:`_choose_engine`, said once here), which seats random, greedy and players' own
    functions only, so every listed policy must be one of those (refused before any pairing
    otherwise)."""
    _choose_engine(specs, None)
    yield


def _ladder_table(rules: RondaRules, names: list[str],
                  compared: list[dict[str, Any]]) -> dict[str, Any]:
    """One table size's ladder from its pairings' compare answers."""
    from simcards.core import ladder as lad

    pairings = []
    for c in compared:
        pairings.append({"a": c["policy_a"], "b": c["policy_b"], "seed": c["seed"],
                         **{k: c[k] for k in LADDER_PAIRING_KEYS},
                         **lad.strength(c["win_rate_diff"], c["win_rate_diff_ci"],
                                        rules.n_sides, c["deals"])})
    rated = lad.rate(names, pairings, lambda q: (q["win_rate_diff"], q["win_rate_diff_ci"]))
    best, second = rated["order"][:2]
    q, sign = lad.between(pairings, best, second)
    where = f"with {rules.players} players" + (" in two teams" if rules.teams == "on" else "")
    seat = "" if rules.n_sides == 2 else " per seat"
    summary = (f"{where} play {best}: it wins "
               + lad.signed(q["win_rate_diff"], q["win_rate_diff_ci"], sign,
                            f"more matches{seat} than", f"fewer matches{seat} than")
               + f" {second}, the next best.")
    return {"players": rules.players, "rules": rules.summary(), "sides": sides(rules),
            **rated, "pairings": pairings, "summary": summary,
            "separation": lad.separation_sentence(rated["unseparated"], len(pairings))}



# ---------------------------------------------------------------- advise

POSITION_FIELDS = ("seat", "dealer", "hand", "table", "pile", "previous", "last_capturer",
                   "captured", "face_up", "announcements", "deal_plays", "scores", "hands_won")
"""The fields of a position (``--position FILE`` holds the same, :mod:`simcards.ronda.advice`)."""


def _cards(text: str | None, flag: str) -> tuple[int, ...]:
    """The cards of ``text`` (``"1o 7c 12e"``), read as every command reads a card
    (:func:`simcards.core.cards.parse_card`, through ``ronda play``'s
    :func:`~simcards.ronda.terminal.card_of_text`); a card that cannot be read is refused in
    one line naming ``flag``."""
    from simcards.ronda.terminal import card_of_text

    if not text:
        return ()
    try:
        return tuple(card_of_text(name) for name in str(text).split())
    except ValueError as exc:
        raise UsageError(f"{flag}: {exc}") from None


def _one_card(text: str | None, flag: str) -> int | None:
    cards = _cards(text, flag)
    if len(cards) > 1:
        raise UsageError(f"{flag} is one card, got {len(cards)}")
    return cards[0] if cards else None


def _announcement_items(text: str | None) -> tuple[tuple[int, str, int], ...] | None:
    """``--announcements``: ``SEAT:KIND VALUE`` items apart by ``;`` or ``,`` (``"1:ronda
    7; 0:tringla 12"``) as ``(seat, kind, value index)``; "" for none made, None: not
    stated."""
    from simcards.ronda import advice as adv
    from simcards.ronda import reference as ref

    if text is None:
        return None
    out = []
    for item in str(text).replace(";", ",").split(","):
        if not item.strip():
            continue
        seat, _, rest = item.partition(":")
        words = rest.split()
        if not seat.strip().isdigit() or len(words) != 2 or not words[1].isdigit():
            raise UsageError(f"--announcements: {item.strip()!r} is not SEAT:KIND VALUE "
                             "(e.g. '1:ronda 7')")
        kind, value = words[0].lower(), int(words[1])
        if kind not in adv.KINDS:
            raise UsageError(f"--announcements: {kind!r} is no announcement; expected one of "
                             f"{', '.join(adv.KINDS)} (A2)")
        if value not in ref.VALUES:
            raise UsageError(f"--announcements: no card of value {value} in the 40-card deck "
                             "(D1)")
        out.append((int(seat), kind, ref.VALUES.index(value)))
    return tuple(out)


def _per_side(value: str | Sequence[int], flag: str) -> tuple[int, ...]:
    """A flag of one integer per side (``"12,17"``, or a position file's list)."""
    items = value if not isinstance(value, str) else value.split(",")
    try:
        return tuple(int(str(x).strip()) for x in items)
    except ValueError:
        raise UsageError(f"{flag} must be integers apart by commas, one a side, got "
                         f"{value!r}") from None


def _scores(value: str | Sequence[int] | None, sides: int) -> tuple[int, ...] | None:
    """``--scores``: one integer per side (``"12,17"``), each 0 or more."""
    if value is None:
        return None
    out = _per_side(value, "--scores")
    if len(out) != sides or any(x < 0 for x in out):
        raise UsageError(f"--scores gives {len(out)} scores; this table has {sides} sides, "
                         "each score 0 or more (S2)")
    return out


def _hands_won(value: str | Sequence[int] | None, rules: RondaRules) -> tuple[int, ...] | None:
    """``--hands-won``: one integer per side (``"1,0"``), each 0 to ``hands_to_win`` - 1 (a
    side that has won ``hands_to_win`` hands has won the match, C3)."""
    if value is None:
        return None
    out = _per_side(value, "--hands-won")
    top = rules.hands_to_win - 1
    if len(out) != rules.n_sides or any(not 0 <= x <= top for x in out):
        raise UsageError(f"--hands-won gives {', '.join(map(str, out))}; this table has "
                         f"{rules.n_sides} sides, each with 0 to {top} hands won (C3: "
                         f"{rules.hands_to_win} win the match, --hands-to-win)")
    return out


def advise_frame(d: dict[str, Any]) -> pd.DataFrame:
    """``advise``: one row per move, best first; in a match, its match win probability
    (``match``, ``match_low``, ``match_high``)."""
    rows = []
    for m in d["moves"]:
        row = {"card": m["card"], "same": " ".join(m["same"]), "margin": m["margin"],
               "low": _bound(m.get("margin_ci"), 0), "high": _bound(m.get("margin_ci"), 1),
               "value": m["value"], "visits": m.get("visits")}
        if "match" in m:
            row.update(match=m["match"], match_low=_bound(m["match_ci"], 0),
                       match_high=_bound(m["match_ci"], 1))
        rows.append(row)
    return pd.DataFrame(rows)


@checked(MATCH_SWITCHES.args, seat=INT.or_none(), dealer=INT.or_none(), hand=CARDS.or_none(),
         table=CARDS.or_none(), pile=CARDS.or_none(), previous=TEXT.or_none(),
         last_capturer=INT.or_none(), captured=CARD_GROUPS.or_none(), face_up=TEXT.or_none(),
         announcements=CARD_GROUPS.or_none(), deal_plays=CARDS.or_none(),
         scores=INTEGERS.or_none(), hands_won=INTEGERS.or_none(), position=PATH.or_none(),
         iterations=INT, c=NUMBER,
         budget=INT.or_none(), seed=INT, progress=BOOL)
@MATCH_SWITCHES.keywords
def advise(*, rules: RondaRules, seat: int | None = None, dealer: int | None = None,
           hand: str | Sequence[str] | None = None, table: str | Sequence[str] | None = None,
           pile: str | Sequence[str] | None = None, previous: str | None = None,
           last_capturer: int | None = None, captured: str | Sequence[str] | None = None,
           face_up: str | None = None, announcements: str | Sequence[str] | None = None,
           deal_plays: str | Sequence[str] | None = None,
           scores: str | Sequence[int] | None = None,
           hands_won: str | Sequence[int] | None = None, position: str | None = None,
           iterations: int = 1000, c: float = 0.5, budget: int | None = None, seed: int = 0,
           progress: bool = False) -> Result:
    """What to play (``simcards ronda advise``): every card of ``seat``'s hand ranked by its
    expected point margin over the rest of the hand (:mod:`simcards.ronda.advice`): exact
    when nothing is hidden (two players, last deal), else from ``ismcts:iterations:c`` (Q8)
    with 95% intervals; with ``budget`` the iterations are doubled, up to ``budget``, until
    the best two moves' intervals part.

    The position: ``hand``, ``table``, ``pile`` (an open pile in play, bottom first; its last
    hitter is the previous player), ``previous`` (the card the previous play laid, X1),
    ``last_capturer`` (U1), ``captured`` (each side's captured cards, ``"1o 2c; 7e"``),
    ``face_up`` (3 players, D5), ``seat`` (default 0), ``dealer`` (default: the seat on
    ``seat``'s right, so that ``seat`` plays first in the round); cards as ``ronda play``
    writes them (``7o``, ``12b``). ``announcements`` are the deal in progress's (A1, A2),
    ``"SEAT:KIND VALUE"`` items apart by ``;`` (``"1:ronda 7; 0:tringla 12"``, ``""`` for none
    made; not given: not stated, and the samples are held to none), with ``deal_plays`` the
    cards played since that deal, in play order. ``scores`` (``"12,17"``, one a side) are the
    match scores now, everything scored so far included: each card then also gets its side's
    match win probability (to ``target``, S4; points mode). In classic mode ``hands_won``
    (``"1,0"``, one a side) are the hands each side has won so far instead: the match win
    probability is then to ``hands_to_win`` (C2, C3). ``position`` is a JSON or TOML file with
    these fields instead. ``progress`` is not used (an advice takes seconds).

    Answer keys: ``game``, ``command``, ``players``, ``rules``, ``position`` (as read, with
    the deal, the stock and the hand sizes it implies; ``hands_won`` where given),
    ``method``, ``exact``, ``iterations``,
    ``separated``, ``choice`` (the card the search plays, or the best exact one), ``moves``
    (best first: ``card``, ``same`` (the other cards of its value), ``margin``,
    ``margin_ci``, ``value`` (Q1's V), ``visits``; in a match ``match`` and ``match_ci``); in
    a match also ``match_method`` and ``match_best`` (the card of the highest match win
    probability)."""
    from simcards.core.positionfile import position_fields

    fields = position_fields(position, {
        "seat": seat, "dealer": dealer, "hand": hand, "table": table, "pile": pile,
        "previous": previous, "last_capturer": last_capturer, "captured": captured,
        "face_up": face_up, "announcements": announcements, "deal_plays": deal_plays,
        "scores": scores, "hands_won": hands_won})
    if position is not None:  # a file may give the card lists as lists
        joins = {"captured": "; ", "announcements": "; ", "scores": ",", "hands_won": ","}
        fields = {k: joins.get(k, " ").join(map(str, v))
                  if isinstance(v, list) else v for k, v in fields.items()}
    return advice_answer(rules, fields, iterations=iterations, c=c, budget=budget, seed=seed)


def advice_answer(rules: RondaRules, fields: dict[str, Any], *, iterations: int, c: float,
                  budget: int | None, seed: int) -> Result:
    """:func:`advise` on checked rules and the position's fields (:data:`POSITION_FIELDS`,
    cards as text); ``ronda play``'s hint asks it too."""
    from simcards.ronda import advice as adv
    from simcards.ronda import reference as ref

    n = rules.players
    scores = _scores(fields.get("scores"), rules.n_sides)
    won = _hands_won(fields.get("hands_won"), rules)
    if scores is not None and won is not None:
        raise UsageError("--hands-won and --scores: a match counts points (S4) or, in --mode "
                         "classic, hands won (C3); give one")
    if scores is not None and rules.mode == "classic":
        raise UsageError("--scores: a classic match counts hands won, not points (C3); give "
                         "--hands-won")
    if won is not None and rules.mode != "classic":
        raise UsageError("--hands-won: a points match counts points, not hands won (S4); give "
                         "--scores, or add --mode classic (C3)")
    if scores is not None and rules.target_check == "immediate":
        w = ref.target_winner(scores, rules.target)
        if w is not None:
            raise UsageError(f"--scores: side {w} is alone at the top at or past --target "
                             f"{rules.target}: under --target-check immediate the match is "
                             "already over (S5)")
    if scores is None and won is None:
        given = {sw.flag: getattr(rules, sw.name) for sw in RondaRules.switches()}
        _refuse_ignored(given, MATCH_ONLY, "only advice in a match reads {them} (rules S4, S5, "
                        "C3): add --scores (--hands-won in --mode classic), or leave {them} "
                        "out")
    s = check_seat(0 if fields["seat"] is None else fields["seat"], n, "--seat")
    d = fields["dealer"]
    d = (s - 1) % n if d is None else check_seat(d, n, "--dealer")
    groups = [] if fields["captured"] is None else str(fields["captured"]).split(";")
    pos = adv.Position(
        seat=s, dealer=d, hand=_cards(fields["hand"], "--hand"),
        table=_cards(fields["table"], "--table"), pile=_cards(fields["pile"], "--pile"),
        previous=_one_card(fields["previous"], "--previous"),
        last_capturer=fields["last_capturer"],
        captured=tuple(_cards(g, "--captured") for g in groups),
        face_up=_one_card(fields["face_up"], "--face-up"),
        announcements=_announcement_items(fields.get("announcements")),
        deal_plays=(None if fields.get("deal_plays") is None
                    else _cards(fields["deal_plays"], "--deal-plays")),
        scores=scores, hands_won=won)
    budget = iterations if budget is None else budget
    if iterations < 1 or budget < iterations:
        raise UsageError(f"--iterations must be at least 1 and at most --budget ({budget}), "
                         f"got {iterations}")
    if not c >= 0:
        raise UsageError(f"-c must be 0 or more (Q8), got {c}")
    options = ref.RondaOptions(**rules.summary())
    state = adv.build_state(pos, options)
    said = _announcement_points(state, options)
    if scores is not None and said is not None:
        for side, (score, points) in enumerate(zip(scores, said, strict=True)):
            if score < points:
                raise UsageError(f"--scores: side {side}'s {score} is below the {points} "
                                 "points its announcements of this deal scored (A4, A5; S2: "
                                 "the scores include them)")
    count = scores if won is None else won
    match = None if count is None else adv.Match(rules, count, seed)
    advice = adv.advise(state, iterations=iterations, c=float(c), budget=budget, seed=seed,
                        stated=pos.announcements is not None, match=match)
    name = ref.card_name
    moves = [{**m, "card": name(m["card"]), "same": [name(x) for x in m["same"]]}
             for m in advice.moves]
    shown = {"seat": s, "dealer": d, "hand": " ".join(name(x) for x in pos.hand),
             "table": " ".join(name(x) for x in pos.table),
             "pile": " ".join(name(x) for x in pos.pile),
             "previous": None if pos.previous is None else name(pos.previous),
             "last_capturer": pos.last_capturer,
             "captured": [" ".join(name(x) for x in g) for g in state.captured],
             "face_up": None if pos.face_up is None else name(pos.face_up),
             "announcements": None if pos.announcements is None else [
                 f"{a.player}:{a.kind} {ref.VALUES[a.value]}" for a in state.announcements],
             "announcement_points": said,
             "deal_plays": None if pos.deal_plays is None else " ".join(
                 name(x) for x in pos.deal_plays),
             "scores": None if scores is None else list(scores),
             **({} if won is None else {"hands_won": list(won)}),
             "deal": state.deal_index, "stock": len(state.stock),
             "hand_sizes": [len(h) for h in state.hands]}
    answer = {"game": "ronda", "command": "advise", "players": n, "rules": rules.summary(),
              "position": shown, "method": advice.method, "exact": advice.exact,
              "iterations": advice.iterations, "separated": advice.separated,
              "choice": name(advice.choice), "moves": moves}
    if match is not None:
        answer["match_method"] = advice.match_method
        answer["match_best"] = (None if advice.match_best is None
                                else name(advice.match_best))
    return Result(answer, advice, advise_frame)


def _announcement_points(state: Any, options: Any) -> list[int] | None:
    """What the stated announcements scored, by side (A4, A5: already in the scores the table
    shows), or None where none are stated."""
    from simcards.ronda import reference as ref

    if not state.announcements:
        return None
    points = [0] * state.n_sides
    for side, p, _ in ref.resolve_announcements(state.announcements, options):
        points[side] += p
    return points
