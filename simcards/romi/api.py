"""Römi's Python API: the ``simcards romi`` commands (``melds``, ``advise``, ``rounds``,
``games``, ``compare`` and ``ladder``) as functions.

::

    import simcards.romi

    res = simcards.romi.rounds(players=4, policies="greedy,rummy:4,threshold:70,greedy",
                               rounds="20k")
    res.to_dict()    # the same keys as `simcards romi rounds --json`
    res.to_frame()   # one row per player
    simcards.romi.compare("rummy:4", "greedy", players=4, deals="2k")["score_diff"]
    simcards.romi.ladder(policies="greedy,expert,threshold:70", deals="500").to_frame()
    simcards.romi.melds(hand="Ah 2h 3h 7c 7d 7s X").to_frame()   # one row per hand

Keyword arguments are named after the commands' flags (``--open-min`` is ``open_min``), with
the same defaults, checks and seed; each function returns a
:class:`~simcards.core.results.Result` whose ``to_dict()`` is the command's JSON object. Every
argument takes the types of :mod:`simcards.core.apiargs`: an integer option an ``int`` (never
its text or a ``float``), a count an ``int`` or its text (``"2k"``), ``policies`` its text or a
list. Bad arguments, of a wrong type or value, raise :class:`~simcards.core.errors.UsageError`
naming the flag before anything is computed. Runs are kept in the run store and may run on a
dask cluster (``store``, ``scheduler``) as the commands'.

The command line (:mod:`simcards.romi.cli`) is a thin layer over these functions.

The keys of each answer
-----------------------
``.to_dict()`` is the command's ``--json`` object; its keys, in order. Intervals are 95%:
Wilson's for rates (a shared win counting as its share of a win), normal for means and paired
differences; each is ``[low, high]``, or a ``mean`` with its ``ci``. Every Monte Carlo answer
run on a dask cluster also has ``cluster``; one played on the table engine (a ``random`` seat
or a user's function, :mod:`simcards.romi.table_batch`) has ``engine`` (``"table"``), and one
with a user's function (Q9) ``user_policies``: each function's ``PATH.py:FUNCTION`` and the
digest of its file's text and name (part of the run's key: an edited file is a new run).

A policy may be a function of your own (Q9): ``PATH.py:FUNCTION`` in the text, or the function
itself in a list (``policies=["expert", my_rule]``, ``compare(my_rule, "expert")``), defined
at the top level of a ``.py`` file, which the workers load. It is called as ``f(obs, legal)``
with the seat's ``romi_v0`` observation and action mask and returns an action code
(:mod:`simcards.romi.observation_kernel` reads both; :mod:`simcards.romi.policy_functions` gives the
built-ins' codes); it keeps no memory between decisions.

``melds``: ``game`` (``"romi"``), ``command``, ``rules`` (``ace_low_value``), and ``hands``,
one object per hand in order with ``hand`` (the hand as read), ``best_value`` (V1: the
greatest value of a lay-down), ``min_penalty`` (V2: the least penalty left in hand),
``can_go_out`` (V3: all cards but one can be laid down) and ``melds`` (V4: one lay-down worth
``best_value``, each meld as text with its joker written ``X=7h``). With ``table`` (V5) also
``table`` (the melds as read, in canonical text, numbered from 0) and, per hand, ``melds`` as
moves in an order that can be played, each with an ``action``: ``add`` (``card``, the table
``meld`` number, ``place``: ``low`` or ``high`` for a run's end, ``set`` for a set), ``swap``
(``card`` given, ``meld``, ``joker_as``, and ``joker_to``, the meld where the freed joker is
laid) or ``lay`` (a new meld: its number ``meld``, after the table's, and its ``cards``);
``additions``, every card of the hand that a table meld takes on its own (``card``, ``meld``,
``place``); and ``swaps``, every table joker the hand can take (``meld``, ``card``,
``joker_as``).

``advise``: ``game``, ``command``, ``rules`` (``open_min``, ``ace_low_value``), ``position``
(as read: ``hand``, ``table``, ``discard``, ``cut``, ``opened``, ``others``,
``others_opened``, ``turn``, and what follows from them: ``players``, ``starter``,
``first_draw``, T3, and ``may_open``, O2), ``arrangement`` (the hand's best lay-down by the
exact solver: ``melds``, as ``melds`` writes them, V4 before opening and V5 moves after,
``value``, ``min_penalty``, ``opens``: worth ``open_min`` and allowed by O2, ``None`` once
opened, and ``can_go_out``), ``draws`` (one per source of the draw, none at the starter's first
turn: ``source``, ``stock``, ``discard`` or ``cut``, its ``card``, ``legal``, the ``rule``
that decides it, T2-T5, ``go_out``, the score of going out this turn with it, -10 or -20,
G2-G3, else ``None``, and for the stock ``go_out_chance``, the share of the unseen cards that
let the seat go out) and ``close_now`` (the best ``score`` the seat goes out for with a known
card, and its ``source``; ``None`` when none does). With ``drawn`` (the card drawn from the
stock) ``position`` has ``drawn`` too and ``draws`` is that stock draw alone, its ``go_out``
exact. Unless ``samples`` is 0, the ranked moves of Q10 follow: ``moves``, best first, each
with ``draw`` (its source; ``None`` at the starter's first turn), ``card`` (the card drawn;
``None`` for the stock's unknown card), ``plan`` (``expert``, Q5, or ``hold``, Q3's holding
plan), ``discard`` (``None``: the plan's own, which varies with the stock's card), ``closes``
(whether it goes out this turn; ``None`` when that depends on the stock's card), ``penalty``
(the seat's mean round score over the samples, G2-G5: lower is better) and ``penalty_ci``
(95%, ``None`` from one sample); ``search`` (``method``, naming the play-outs, their number
and seed; ``samples`` a move, ``budget``, ``seed``, and ``separated``: whether the best two
moves' intervals part); ``notes`` (legal draws whose plan is not weighed).

``rounds`` and ``games``: ``game``, ``command``, ``players``, ``rules`` (``players``,
``open_min``, ``ace_low_value``, ``swap_keeps_romi``, and for games ``rounds``),
``policies``, ``seed``, the count (``rounds`` or ``games``), ``score_mean`` (points against
each player per round; lower is better) with ``score_ci``, ``go_out_rate`` (share of rounds
each player went out, G1) with ``go_out_ci``, ``rummy_rate`` (went out for -20, G3) with
``rummy_ci``, ``never_opened_rate`` (G5) with ``never_opened_ci``, ``turns_mean`` with
``turns_ci``, ``turns_quantiles`` (5, 25, 50, 75, 95%), ``stalled_rate`` (T9) with
``stalled_ci``, ``rounds_played``; ``rounds`` also ``dealer``; ``games`` also
``game_score_mean`` (a game's total) with ``game_score_ci``, ``win_rate`` (G6: the lowest
total wins, equal lowest totals share the win) with ``win_ci``, and ``sole_win_rate`` (games
won alone).

``compare``: ``game``, ``command``, ``players``, ``rules`` (``players``, ``open_min``,
``ace_low_value``, ``rounds``, ``swap_keeps_romi``), ``a`` and ``b`` (the two policies),
``dealer``, ``seed``, ``deal_sets``, ``rounds_played`` (every rotation's rounds),
``score_diff`` (A's mean score per round minus B's, B's seats averaged, paired over deal sets:
points per round; scores are points against a player, so a NEGATIVE difference means A
concedes fewer points, i.e. A is better), ``win_rate_diff`` (A's game win rate per seat minus
B's; shared wins split; 0 between equals), each a ``mean`` with its ``ci``; ``score_mean`` and
``win_rate`` (each policy's own per-round score and per-seat game win rate, a fair share being
1/players: ``a`` and ``b``, each a ``mean`` with its ``ci``; B's win rate is A's complement
divided among B's players - 1 seats), ``go_out_rate``, ``rummy_rate`` and
``never_opened_rate`` (shares of each policy's seat-rounds, ``a`` and ``b``),
``stalled_rate`` and ``turns_mean`` (over every round played). A policy against itself gives
differences of exactly 0.

``ladder``: as Ronda's (:mod:`simcards.ronda.api`; ``game``, ``command``, ``policies``,
``players``, ``anchor``, ``dealer``, ``seed``, ``deals``, ``tables``, each with ``players``,
``rules``, ``ratings`` (``policy``, ``rating``, ``ci95``, ``se``), ``order``, ``fit``
(``chi2``, ``dof``, ``p_value``), ``unseparated``, ``pairings``, ``summary``,
``separation``; no ``sides``), ``rules`` as compare's; a pairing has ``a``, ``b``, ``seed``,
compare's ``deal_sets``, ``rounds_played``, ``win_rate_diff`` and ``score_diff`` (each
``mean`` with ``ci``), ``win_rate`` and ``score_mean`` (``a`` and ``b``), then ``p_a``,
``p_a_ci``, ``n_eff`` and ``p_a_fit``. The fit reads the paired game win-rate difference as A's
probability of beating B; the score difference is kept beside each pairing, and the summary
sentence reports it too (``with 4 players play expert: it wins 0.100 [0.004, 0.196] more
games per seat than greedy, the next best, and concedes 9.17 [6.24, 12.09] fewer points per
round.``). ``.to_frame()`` as Ronda's. The ladder's own record is ``romi-ladder-<hash>/``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from simcards.core.apiargs import (
    BOOL,
    CARDS,
    COUNT,
    INT,
    INTEGERS,
    MELDS,
    PATH,
    POLICIES,
    POLICY,
    SIZES,
    TEXT,
    checked,
    run_keywords,
)
from simcards.core.cli_options import check_seat
from simcards.core.errors import UsageError
from simcards.core.policyspec import PolicySpec
from simcards.core.positionfile import position_fields
from simcards.core.results import Result
from simcards.core.runner import Stats, run_batch
from simcards.core.switches import HAND, MATCH
from simcards.romi import cards as C
from simcards.romi import compare_batch as RC
from simcards.romi import melds_exact as M
from simcards.romi import melds_kernel
from simcards.romi import position as AD
from simcards.romi import rounds_batch as R
from simcards.romi import table_batch as TB
from simcards.romi import table_melds_exact as T
from simcards.romi.policies import KINDS, policy_arrays, searching
from simcards.romi.rules import (
    ADVISE_SWITCHES,
    DEALS,
    GAME_SWITCHES,
    GAMES,
    LADDER_SWITCHES,
    MELDS_SWITCHES,
    ROUND_SWITCHES,
    ROUNDS,
    RomiRules,
)


def seat_policies(rules: RomiRules, policies: str | Sequence[str | PolicySpec] | None
                  ) -> list[PolicySpec]:
    """Q6: one policy per seat from ``--policies`` (one entry for every seat, or one per seat
    in seat order; default ``greedy``), each checked against the rules (Q4's X >= open_min)."""
    return KINDS.parse_list(policies, rules.players, {"open_min": rules.open_min},
                            default="greedy", entries=_policy_entries)


def _policy_entries(policies: str | Sequence[str | PolicySpec], flag: str
                    ) -> list[str | PolicySpec]:
    """The entries of Römi's ``--policies``, with its own words for an empty list or entry."""
    items = [s.strip() for s in policies.split(",")] \
        if isinstance(policies, str) else list(policies)
    if not items or items == [""]:
        raise UsageError(f"{flag} is empty")
    if any(isinstance(s, str) and not s.strip() for s in items):
        raise UsageError(f"{flag} {policies!r} has an empty entry (two commas in a row, or "
                         "one at an end)")
    return items


def _config(rules: RomiRules, specs: Sequence[PolicySpec], dealer: int | None) -> R.RoundConfig:
    return R.RoundConfig(rules.kernel, policy_arrays(specs, rules), rules.players, rules.rounds,
                         -1 if dealer is None else dealer)


def _frame(out: dict[str, Any]) -> pd.DataFrame:
    """The table a ``rounds`` or ``games`` run keeps in the run store: one row per player,
    every per-player figure (not its interval) as a column."""
    keys = [k for k, v in out.items() if isinstance(v, list) and len(v) == out["players"]
            and not isinstance(v[0], list)]
    frame = pd.DataFrame({"player": range(out["players"]), "policy": out["policies"]})
    for k in keys:
        if k != "policies":
            frame[k] = out[k]
    return frame


def players_frame(d: dict[str, Any]) -> pd.DataFrame:
    """``rounds`` and ``games``, one row per player: its policy, every per-player rate and
    mean of the JSON object, and each one's 95% interval as ``<name>_low`` and ``<name>_high``
    (``score_ci`` gives ``score_ci_low``, ``score_ci_high``)."""
    n = d["players"]
    frame = pd.DataFrame({"player": range(n), "policy": d["policies"]})
    for key, values in d.items():
        if key == "policies" or not isinstance(values, list) or len(values) != n:
            continue
        if isinstance(values[0], list):
            frame[f"{key}_low"] = [ci[0] for ci in values]
            frame[f"{key}_high"] = [ci[1] for ci in values]
        else:
            frame[key] = values
    return frame


def _users(specs: Sequence[PolicySpec]) -> dict[str, Any]:
    """Q9: the ``user_policies`` key of a run with users' functions (each one's
    ``PATH.py:FUNCTION`` and the digest of its file's text and name), part of the run's
    manifest so that an edited file is a new run, never the old chunks resumed; nothing
    without one."""
    from simcards.romi.users import user_digests

    users = user_digests(specs)
    return {"user_policies": users} if users else {}


def _run(command: str, rules: RomiRules, policies, count: int | str, dealer,
         run: dict[str, Any]) -> Result:
    from simcards.core.montecarlo import monte_carlo

    specs = seat_policies(rules, policies)
    dealer = check_seat(dealer, rules.players) if command == "rounds" else None
    total = (ROUNDS if command == "rounds" else GAMES).parse(count)
    summary = rules.summary(HAND if command == "rounds" else MATCH)
    header: dict[str, Any] = {"game": "romi", "command": command, "players": rules.players,
                              "rules": summary, "policies": [s.text() for s in specs]}
    if command == "rounds":
        header["dealer"] = dealer
    stream = R.STREAM_ROUNDS if command == "rounds" else R.STREAM_GAMES
    # Q6, Q9: random and users' functions play move by move, on the table engine
    on_table = TB.on_table(specs)
    if on_table:
        header["engine"] = TB.ENGINE
        header.update(_users(specs))
        fn, cfg, chunk = TB.batch(command, rules, specs, dealer)
    else:
        fn = R.rounds_chunk if command == "rounds" else R.games_chunk
        cfg = _config(rules, specs, dealer)
        chunk = R.chunk_sizes(cfg.seats)[0 if command == "rounds" else 1]

    def answer(stats: Stats) -> dict[str, Any]:
        out: dict[str, Any] = {command: total}
        if command == "games":
            out.update(R.summarise_games(stats))
        out.update(R.summarise_rounds(stats))
        out["rounds_played"] = int(stats["rounds"][0])
        return out

    def simulate(**where: Any) -> Stats:
        return run_batch(fn, cfg, seed=run["seed"], total=total, chunk_size=chunk, stream=stream,
                         label=f"Römi {command}", **where)

    return monte_carlo(
        header, {command: total, "chunk_size": chunk},
        TB.with_notice(simulate, rules.players, TB.who(specs)) if on_table else simulate,
        answer=answer, frame=players_frame, stored_frame=lambda out, _: _frame(out),
        summary=("score_mean", command), **run)


@checked(ROUND_SWITCHES.args, policies=POLICIES.or_none(), rounds=COUNT,
         dealer=INT.or_none())
@ROUND_SWITCHES.keywords
@run_keywords()
def rounds(*, rules: RomiRules, policies: str | Sequence[str] | None = None,
           rounds: int | str = ROUNDS.default,
           dealer: int | None = None, run: dict[str, Any]) -> Result:
    """Monte Carlo single rounds (``simcards romi rounds``): score by player, going out, Römi
    (-20) finishes, never opened, round length and stalls. ``dealer`` fixes the dealer
    (default: drawn for every round, D3). ``swap_keeps_romi`` reads G3 the other way
    (:class:`~simcards.romi.rules.RomiRules`)."""
    return _run("rounds", rules, policies, rounds, dealer, run)


@checked(GAME_SWITCHES.args, policies=POLICIES.or_none(), games=COUNT)
@GAME_SWITCHES.keywords
@run_keywords()
def games(*, rules: RomiRules, policies: str | Sequence[str] | None = None,
          games: int | str = GAMES.default, run: dict[str, Any]) -> Result:
    """Monte Carlo games of ``rounds`` rounds (``simcards romi games``, D5, G6): game score and
    win rate by player (shared wins split), and every per-round figure of :func:`rounds`."""
    return _run("games", rules, policies, games, None, run)


def compare_policy(spec: str | PolicySpec, flag: str, rules: RomiRules) -> PolicySpec:
    """One policy for ``compare`` (Q2-Q5), checked against the rules (Q4's X >= open_min); a
    list of seats is refused: A and B each take every seat the rotation gives them."""
    if isinstance(spec, str) and "," in spec:
        raise UsageError(f"{flag} must be one policy (it takes every seat the rotation gives "
                         f"it), got {spec.strip()!r}")
    bound = {"open_min": rules.open_min}
    try:
        return KINDS.check(spec, bound) if isinstance(spec, PolicySpec) \
            else KINDS.parse(str(spec), bound)
    except UsageError as exc:
        raise UsageError(f"{flag}: {exc}") from None


@checked(GAME_SWITCHES.args, a=POLICY.named("policy A"), b=POLICY.named("policy B"),
         deals=COUNT, dealer=INT.or_none())
@GAME_SWITCHES.keywords
@run_keywords(bar=True)
def compare(a: str | PolicySpec, b: str | PolicySpec, *, rules: RomiRules,
            deals: int | str = DEALS.default, dealer: int | None = None,
            run: dict[str, Any]) -> Result:
    """Policy A against policy B on the same deals with the seats rotated (``simcards romi
    compare A B``, :mod:`simcards.romi.compare_batch`): every deal set is one game of ``rounds``
    rounds played on the same decks and dealers once with A in each seat and B in all the
    others. ``score_diff`` (A minus B, points per round; negative: A concedes fewer points, A
    is better) and ``win_rate_diff`` are paired over deal sets. ``dealer`` fixes the first
    dealer of every set (default: drawn for each set). ``progress`` may also be a
    :class:`~simcards.core.progress.Progress` that the run counts into (a ladder's one bar for
    all its pairings)."""
    from simcards.core.montecarlo import monte_carlo

    spec_a = compare_policy(a, "policy A", rules)
    spec_b = compare_policy(b, "policy B", rules)
    dealer = check_seat(dealer, rules.players)
    total = DEALS.parse(deals)
    header: dict[str, Any] = {
        "game": "romi", "command": "compare", "players": rules.players,
        "rules": rules.summary(),
        "a": spec_a.text(), "b": spec_b.text(), "dealer": dealer}
    # Q6, Q9: random and users' functions play on the table engine
    on_table = TB.on_table([spec_a, spec_b], "policies A and B")
    if on_table:
        header["engine"] = TB.ENGINE
        header.update(_users([spec_a, spec_b]))
        fn, cfg, size = TB.compare_batch(rules, spec_a, spec_b, dealer)
    else:
        fn, cfg = RC.compare_chunk, config_for(rules, spec_a, spec_b, dealer)
        size = RC.chunk_size(rules.players, rules.rounds, searching(cfg.rotations[0].kinds))

    def simulate(**where: Any) -> Stats:
        return run_batch(fn, cfg, seed=run["seed"], total=total, chunk_size=size,
                         stream=RC.STREAM, label="Römi deal sets", **where)

    return monte_carlo(
        header, {"deals": total, "chunk_size": size},
        TB.with_notice(simulate, rules.players, TB.who([spec_a, spec_b])) if on_table
        else simulate,
        answer=lambda stats: {"deal_sets": total,
                              **RC.summarise(stats, rules.players, rules.rounds)},
        frame=compare_frame, summary=("score_diff", "win_rate_diff", "deal_sets"), **run)


def config_for(rules: RomiRules, a: PolicySpec, b: PolicySpec, dealer: int | None
               ) -> RC.CompareConfig:
    """The compare chunks' configuration for A and B under ``rules`` (also used by the report
    studies, so that their batches are the command's)."""
    return RC.build_config(rules, a, b, dealer)


def compare_frame(out: dict[str, Any]) -> pd.DataFrame:
    """One row per policy: its mean score per round and game win rate with their intervals;
    the paired differences (A minus B) in the first row, their opposites in the second."""
    rows = []
    for side, sign in (("a", 1), ("b", -1)):
        score, win = out["score_mean"][side], out["win_rate"][side]
        rows.append({"policy": out[side], "score_mean": score["mean"],
                     "score_ci_low": score["ci"][0], "score_ci_high": score["ci"][1],
                     "win_rate": win["mean"], "win_ci_low": win["ci"][0],
                     "win_ci_high": win["ci"][1],
                     "score_diff": sign * out["score_diff"]["mean"],
                     "win_rate_diff": sign * out["win_rate_diff"]["mean"]})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- melds


def _read_hands(hand: str | None, file: Path | None) -> list[tuple[str, list[int]]]:
    """The hands to solve as card ids, each checked (one-line errors naming the line), with
    where each was read (``""`` for ``--hand``, ``"--file F, line N: "`` for a file) so that
    a later error can name it too."""
    if (hand is None) == (file is None):
        raise UsageError("give exactly one of --hand and --file")
    if hand is not None:
        ids = M._hand_ids(hand)
        if not ids:
            raise UsageError(f"--hand {hand!r} holds no card: give cards such as "
                             "\"Ah 2h 3h 7c 7d 7s X\"")
        return [("", ids)]
    try:
        # utf-8-sig: a byte-order mark, as some editors write one, is not part of the first card
        text = file.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise UsageError(f"--file {file}: no such file") from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as exc:
        raise UsageError(f"--file {file}: cannot be read ({type(exc).__name__})") from None
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        where = f"--file {file}, line {number}: "
        try:
            ids = M._hand_ids(line)
        except UsageError as exc:
            raise UsageError(f"{where}{exc}") from None
        if not ids:
            raise UsageError(f"{where}{line!r} holds no card")
        out.append((where, ids))
    if not out:
        raise UsageError(f"--file {file} holds no hand")
    return out


def _read_table(table: str | None) -> list[T.TableMeld] | None:
    """The melds of ``--table`` (``;`` between melds), each checked (M1-M4) with a one-line
    error naming it; ``None`` without the option."""
    if table is None:
        return None
    if not table.strip():
        raise UsageError("--table is empty: give table melds separated by ';', "
                         "e.g. \"5h X 7h; 7c 7d 7s X\"")
    out = []
    for number, text in enumerate(table.split(";"), 1):
        if not text.strip():
            raise UsageError(f"--table meld {number} is empty (melds are separated by ';')")
        try:
            out.append(T.TableMeld.parse(text.strip()))
        except UsageError as exc:
            raise UsageError(f"--table meld {number}: {exc}") from None
    return out


def _laydown_json(step: T.Step) -> dict[str, Any]:
    """One move of a V5 lay-down as JSON (the ``melds`` key with ``--table``)."""
    if isinstance(step, T.Addition):
        return {"action": "add", "card": step.card_text(), "meld": step.meld,
                "place": step.place}
    if isinstance(step, T.JokerSwap):
        return {"action": "swap", "card": C.kind_text(step.card), "meld": step.meld,
                "joker_as": C.kind_text(step.joker_as), "joker_to": step.joker_to}
    return {"action": "lay", "meld": step.meld, "cards": step.text()}


def _table_row(ids: list[int], table: list[T.TableMeld], rules: RomiRules) -> dict[str, Any]:
    """V5 for one hand: the three numbers, the lay-down as moves, and the additions and swaps
    the hand allows on its own."""
    a = T.answer_with_table(ids, table, rules)
    return {"hand": C.format_hand(ids), "best_value": a.best_value,
            "min_penalty": a.min_penalty, "can_go_out": a.can_go_out,
            "melds": [_laydown_json(s) for s in a.laydown],
            "additions": [{"card": x.card_text(), "meld": x.meld, "place": x.place}
                          for x in a.additions],
            "swaps": [{"meld": x.meld, "card": C.kind_text(x.card),
                       "joker_as": C.kind_text(x.joker_as)} for x in a.swaps]}


@checked(MELDS_SWITCHES.args, hand=CARDS.or_none(), file=PATH.or_none(), table=MELDS.or_none())
@MELDS_SWITCHES.keywords
def melds(*, hand: str | Sequence[str] | None = None, file: Path | str | None = None,
          rules: RomiRules, table: str | Sequence[str] | None = None) -> Result:
    """The exact meld solver (``simcards romi melds``): give exactly one of ``hand`` (one hand
    as text, ``--hand``, or a list of its cards: ``["Ah", "2h", "3h", "X"]``) and ``file`` (a
    text file with one hand a line, ``--file``; a ``str`` or a ``pathlib.Path``).

    V1-V4 for each hand, in order: ``best_value``, ``min_penalty``, ``can_go_out`` and
    ``melds`` (a lay-down reaching ``best_value``, each meld as text with its joker written
    ``X=card``). The three numbers of every hand come from one batch call of the solver.

    With ``table`` (melds on the table as text, ``;`` between them, or a list of melds, each as
    :meth:`~simcards.romi.table_melds_exact.TableMeld.parse` reads it): V5 for each hand instead,
    as a player who has opened. The output then has ``table`` (the melds as read, in canonical
    text, numbered from 0 in order) and each hand ``best_value``, ``min_penalty`` and
    ``can_go_out`` with the table, ``melds`` (a lay-down reaching ``best_value`` as moves in
    playing order: ``{"action": "add", "card", "meld", "place"}``, ``{"action": "swap",
    "card", "meld", "joker_as", "joker_to"}`` and ``{"action": "lay", "meld", "cards"}``, new
    melds numbered after the table's), ``additions`` (``{"card", "meld", "place"}``: each hand
    card a table meld takes on its own; ``place`` is ``low`` or ``high`` for a run's end,
    ``set`` for a set; a joker written ``X=card``) and ``swaps`` (``{"meld", "card",
    "joker_as"}``: each table joker the hand can take, J1-J3). The melds are read before the
    hands, so a bad table is reported first."""
    melds_on_table = _read_table(table)
    if file is not None and not str(file).strip():
        raise UsageError("--file is empty: give the path of a text file with one hand a line")
    read = _read_hands(hand, Path(file) if file is not None else None)
    head = {"game": "romi", "command": "melds", "rules": {"ace_low_value": rules.ace_low_value}}
    if melds_on_table is not None:
        rows = []
        for where, h in read:
            try:
                rows.append(_table_row(h, melds_on_table, rules))
            except UsageError as exc:
                raise UsageError(f"{where}{exc}") from None
        return Result({**head, "table": [m.text() for m in melds_on_table], "hands": rows},
                      None, melds_frame)
    hands = [h for _, h in read]
    width = max(1, max(len(h) for h in hands))
    batch = np.full((len(hands), width), -1, np.int64)
    for i, h in enumerate(hands):
        batch[i, :len(h)] = h
    answers = melds_kernel.solve_batch(batch, rules.ace_low_value)
    rows = []
    for h, (value, penalty, out) in zip(hands, answers, strict=True):
        lay = M.melds(h, rules) if value > 0 else []
        rows.append({"hand": C.format_hand(h), "best_value": int(value),
                     "min_penalty": int(penalty), "can_go_out": bool(out),
                     "melds": [_meld_text(m) for m in lay]})
    return Result({**head, "hands": rows}, None, melds_frame)


def melds_frame(d: dict[str, Any]) -> pd.DataFrame:
    """``melds``, one row per hand, in order: the hand, its three numbers, and its lay-down as
    the text the command's table prints (melds joined by ``|``; with ``table``, the moves
    joined by ``;``, then the additions and swaps the hand allows, counted)."""
    with_table = "table" in d
    rows = []
    for r in d["hands"]:
        row = {"hand": r["hand"], "best_value": r["best_value"],
               "min_penalty": r["min_penalty"], "can_go_out": r["can_go_out"]}
        if with_table:
            row["melds"] = "; ".join(step_text(s) for s in r["melds"])
            row["additions"] = len(r["additions"])
            row["swaps"] = len(r["swaps"])
        else:
            row["melds"] = " | ".join(r["melds"])
        rows.append(row)
    return pd.DataFrame(rows)


def _meld_text(m: M.Meld) -> str:
    return " ".join("X=" + C.kind_text(m.joker_as) if C.is_joker(c) and m.joker_as is not None
                    else C.card_text(c) for c in m.cards)


def step_text(step: dict[str, Any]) -> str:
    """A V5 lay-down move of the JSON as one short line (the table view and the frame)."""
    if step["action"] == "add":
        return f"add {step['card']} to {step['meld']} ({step['place']})"
    if step["action"] == "swap":
        return f"swap {step['card']} for X in {step['meld']}, X to {step['joker_to']}"
    return f"lay {step['meld']}: {step['cards']}"


# ---------------------------------------------------------------- advise


ADVISE_SAMPLES = 100
"""Q10: play-outs per move of ``advise`` unless told."""
ADVISE_MAX_SAMPLES = 100_000
"""Q10: the most play-outs per move ``--samples`` and ``--budget`` may ask."""


def _opened_words(name: str, value: Any) -> str:
    """A position file's ``others_opened``: ``"no,yes"`` as the flag takes it, or a list of
    booleans."""
    if isinstance(value, list) and all(isinstance(v, bool) for v in value):
        value = ",".join("yes" if v else "no" for v in value)
    return TEXT(name, value)


POSITION_KINDS = {"hand": CARDS, "table": MELDS, "discard": TEXT, "cut": TEXT, "opened": BOOL,
                  "others": INTEGERS, "others_opened": _opened_words, "turn": INT,
                  "drawn": TEXT}
"""How a position file's values are read: as the flags' (``others_opened`` also a list of
booleans)."""


def _yes_no(text: str) -> list[bool]:
    """``--others-opened``: ``yes``/``no`` per other player, comma-separated."""
    out = []
    for word in text.split(","):
        w = word.strip().lower()
        if w not in ("yes", "no"):
            raise UsageError(f"--others-opened {text!r}: give yes or no per other player, "
                             "e.g. no,yes,no")
        out.append(w == "yes")
    return out


def _sizes_of(others: str | list[int]) -> list[int]:
    if isinstance(others, list):
        return others
    try:
        return [int(x) for x in others.split(",")]
    except ValueError:
        raise UsageError(f"--others {others!r}: give the other players' hand sizes in playing "
                         "order from the seat's left, e.g. 14,14,13") from None


def _position(fields: dict[str, Any], rules: RomiRules) -> AD.Position:
    """The position of the flags or the file, read with the notation of ``melds`` and
    checked."""
    missing = [k for k in ("hand", "opened", "others", "others_opened", "turn")
               if fields.get(k) is None]
    if missing:
        raise UsageError(f"--{missing[0].replace('_', '-')} is missing: a position needs "
                         "--hand, --opened or --not-opened, --others, --others-opened and "
                         "--turn (--table, --discard and --cut when there are any)")
    table = _read_table(fields["table"]) if fields.get("table") is not None else []
    hand = _read_hands(fields["hand"], None)[0][1]
    discard = AD.one_card(fields["discard"], "--discard") \
        if fields.get("discard") is not None else None
    cut = AD.one_card(fields["cut"], "--cut") if fields.get("cut") is not None else None
    drawn = AD.one_card(fields["drawn"], "--drawn") if fields.get("drawn") is not None else None
    return AD.make(hand, table, discard, cut, fields["opened"], _sizes_of(fields["others"]),
                   _yes_no(fields["others_opened"]), fields["turn"], rules, drawn)


def _arrangement(p: AD.Position, rules: RomiRules) -> dict[str, Any]:
    """The hand's best lay-down by the exact solver: V1-V4 before opening (own melds only,
    O3), V5 with the table once opened; and whether it opens (O1, O2)."""
    if p.opened:
        a = T.answer_with_table(list(p.hand), list(p.table), rules)
        return {"melds": [_laydown_json(s) for s in a.laydown], "value": a.best_value,
                "min_penalty": a.min_penalty, "opens": None, "can_go_out": a.can_go_out}
    value, penalty, out = melds_kernel.solve_batch(np.array([list(p.hand)], np.int64),
                                                   rules.ace_low_value)[0]
    lay = M.melds(list(p.hand), rules) if value > 0 else []
    return {"melds": [_meld_text(m) for m in lay], "value": int(value),
            "min_penalty": int(penalty),
            "opens": bool(value >= rules.open_min and p.may_open), "can_go_out": bool(out)}


@checked(ADVISE_SWITCHES.args, hand=CARDS.or_none(), table=MELDS.or_none(),
         discard=TEXT.or_none(), cut=TEXT.or_none(), opened=BOOL.or_none(),
         others=INTEGERS.or_none(), others_opened=TEXT.or_none(), turn=INT.or_none(),
         position=PATH.or_none(), drawn=TEXT.or_none(), samples=INT, budget=INT.or_none(),
         seed=INT)
@ADVISE_SWITCHES.keywords
def advise(*, hand: str | Sequence[str] | None = None,
           table: str | Sequence[str] | None = None, discard: str | None = None,
           cut: str | None = None, opened: bool | None = None,
           others: str | Sequence[int] | None = None, others_opened: str | None = None,
           turn: int | None = None, position: Path | str | None = None,
           drawn: str | None = None, samples: int = ADVISE_SAMPLES,
           budget: int | None = None, seed: int = 0, rules: RomiRules) -> Result:
    """What to play from one position (``simcards romi advise``), as the seat to play sees it
    before its draw: ``hand`` and ``table`` as ``melds`` reads them, the ``discard`` top and
    the ``cut`` card (one card each, or ``None``), ``opened`` (whether the seat has opened),
    ``others`` (the other players' hand sizes, from the seat's left: ``"14,14,13"`` or a list)
    and ``others_opened`` (``"no,yes,no"``), ``turn`` (the round's turn, 1 for the starter's
    first, a discard only); or ``position``, a ``.json`` or ``.toml`` file with those
    keys (``others_opened`` there may be a list of booleans).

    An impossible position is a one-line ``UsageError`` naming the contradiction
    (:func:`simcards.romi.position.check`). The answer: ``position`` (as read, with
    ``players``, ``starter``, ``first_draw`` and ``may_open``), ``arrangement`` (the hand's
    best lay-down now: ``melds``, ``value``, ``min_penalty``, ``opens``, ``can_go_out``) and
    ``draws``, one per source (``stock``, ``discard``, ``cut``): ``card``, ``legal``, the
    ``rule`` that decides it (T2-T5), ``go_out`` (the score of going out this turn with it,
    -10 or -20, G2-G3, else ``None``) and, for the stock, ``go_out_chance`` (over the unseen
    cards); ``close_now``, the best score the seat can go out for with a known card this turn
    (``None`` if none), and its ``source``.

    The ranked moves (Q10, :mod:`simcards.romi.advice`): ``moves``, every turn the seat can
    play (a draw, ``expert``'s plan or the ``hold`` plan, a discard), best first, each with
    ``draw`` (its source, ``None`` at the starter's first turn), ``card`` (the card drawn,
    ``None`` for the stock's unknown card), ``plan``, ``discard`` (``None``: the plan's own,
    which depends on the stock's card), ``closes`` (goes out this turn; ``None``: it depends on
    the stock's card), ``penalty`` (the seat's mean round score, G2-G5, over ``samples`` play-outs
    of the search player, Q7) and ``penalty_ci`` (95%); ``search`` (``method``, naming the
    play-outs, their count and the seed, ``samples``, ``budget``, ``seed``, ``separated``:
    whether the best two moves' intervals part) and ``notes`` (legal draws left out).
    ``drawn``: the card the seat has drawn from the stock (the moves are then the rest of that
    turn). ``samples`` play-outs per move (0: the exact answers only, no ``moves``), doubled up
    to ``budget`` until the best two moves part; ``seed`` makes them reproducible. The frame:
    one row per move. ``swap_keeps_romi`` reads G3 the other way in both the exact answers and
    the play-outs: going out after swapping jokers out of the table's melds scores -20 when
    every other card, the freed jokers included, goes into the seat's own new melds
    (``rules`` in the answer says which reading)."""
    fields = {"hand": hand, "table": table, "discard": discard, "cut": cut, "opened": opened,
              "others": others, "others_opened": others_opened, "turn": turn, "drawn": drawn}
    fields = position_fields(position, fields, POSITION_KINDS)
    budget = samples if budget is None else budget
    if samples < 0 or budget < samples or budget > ADVISE_MAX_SAMPLES:
        raise UsageError(f"--samples must be 0 or more and at most --budget ({budget}), at "
                         f"most {ADVISE_MAX_SAMPLES:,}; got --samples {samples}")
    if seed < 0:
        raise UsageError(f"--seed must be 0 or more, got {seed}")
    p = _position(fields, rules)
    draws = AD.draws(p, rules)
    closes = [d for d in draws if d.legal and d.go_out is not None]
    best = min(closes, key=lambda d: d.go_out) if closes else None

    def card(c: int | None) -> str | None:
        return None if c is None else C.card_text(c)

    out = {"game": "romi", "command": "advise",
           "rules": {"open_min": rules.open_min, "ace_low_value": rules.ace_low_value,
                     "swap_keeps_romi": rules.swap_keeps_romi},
           "position": {"hand": C.format_hand(p.hand), "table": [m.text() for m in p.table],
                        "discard": card(p.discard), "cut": card(p.cut), "opened": p.opened,
                        "others": list(p.others), "others_opened": list(p.others_opened),
                        "turn": p.turn, "players": p.players, "starter": p.starter,
                        "first_draw": p.first_draw, "may_open": p.may_open},
           "arrangement": _arrangement(p, rules),
           "draws": [{"source": d.source, "card": card(d.card), "legal": d.legal,
                      "rule": d.rule, "go_out": d.go_out,
                      **({"go_out_chance": d.go_out_chance}
                         if d.source == "stock" and d.card is None else {})}
                     for d in draws],
           "close_now": None if best is None else {"source": best.source,
                                                   "score": best.go_out}}
    if p.drawn is not None:
        out["position"]["drawn"] = card(p.drawn)
    if samples > 0:
        from simcards.romi import advice as ADV

        ranked = ADV.rank(p, rules, draws, samples=samples, budget=budget, seed=seed)
        out["search"] = {"method": f"Q10: {ranked.samples} samples a move, each played out by "
                                   f"greedy seats (Q7's play-outs), seed {seed}",
                         "samples": ranked.samples, "budget": budget, "seed": seed,
                         "separated": ranked.separated}
        out["moves"] = ranked.moves
        out["notes"] = ranked.notes
    return Result(out, None, advise_frame)


ADVISE_MOVE_COLUMNS = ["draw", "card", "plan", "discard", "closes", "penalty", "penalty_ci"]


def advise_frame(d: dict[str, Any]) -> pd.DataFrame:
    """``advise``, one row per move, best first (Q10); with no search (``samples`` 0), one row
    per source of the draw."""
    if "moves" in d:
        return pd.DataFrame(d["moves"], columns=ADVISE_MOVE_COLUMNS)
    return pd.DataFrame([{"source": r["source"], "card": r["card"], "legal": r["legal"],
                          "rule": r["rule"], "go_out": r["go_out"],
                          "go_out_chance": r.get("go_out_chance")} for r in d["draws"]],
                        columns=["source", "card", "legal", "rule", "go_out", "go_out_chance"])


# ---------------------------------------------------------------- ladder


LADDER_PAIRING_KEYS = ("deal_sets", "rounds_played", "win_rate_diff", "score_diff",
                       "win_rate", "score_mean")
"""The keys of each pairing's ``compare`` answer that a ladder keeps."""


@checked(LADDER_SWITCHES.args, players=SIZES, policies=POLICIES.or_none(),
         deals=COUNT, dealer=INT.or_none())
@LADDER_SWITCHES.keywords
@run_keywords()
def ladder(*, policies: str | Sequence[str | PolicySpec] | None = None,
           players: int | str | Sequence[int] = 4, switches: dict[str, Any],
           deals: int | str = DEALS.default,
           dealer: int | None = None, run: dict[str, Any]) -> Result:
    """Every listed policy against every other on the same deals with the seats rotated, and
    their Bradley-Terry ratings (``simcards romi ladder``; :mod:`simcards.core.ladder`).

    ``policies`` (at least two, each once) is the ``--policies`` text or a list of specs; the
    first listed is the anchor, rated 0. ``players`` is one table size or several (``"2,4"``),
    each ranked apart. Each pairing A (listed first) against B is exactly :func:`compare` with
    the pairing's own seed (derived from ``seed``, the table size and the two policies; in
    its ``seed`` key) and the rule flags given, run and stored as compare runs; its paired
    game win-rate difference is the figure the fit reads, and its score difference is kept
    beside it. ``deals`` are deal sets per pairing (default 1k, at most 1e8). With 3 or more
    players every pair also plays B against A, each order on half the deal sets (rounded up),
    so that the ladder does not depend on the order the policies are listed in
    (:mod:`simcards.core.ladder`).
    """
    from simcards.core.ladder import run_ladder

    return run_ladder(_ladder_game(), policies=policies, players=players, switches=switches,
                      deals=deals, dealer=dealer, **run)


@contextmanager
def _said_once(specs: Sequence[PolicySpec], sizes: Sequence[int]) -> Iterator[None]:
    """Q6, Q9: a ladder with random play or a user's function says once that its pairings
    play on the table engine, rather than every pairing saying it."""
    if TB.on_table(specs):
        TB.announce(sizes[0], TB.who(specs))
    with TB.quiet():
        yield


def _ladder_game() -> Any:
    """Römi as the ladder plays it (:class:`~simcards.core.ladder.LadderGame`)."""
    from simcards.core.ladder import LadderGame

    return LadderGame("romi", "Römi", RomiRules.make,
                      lambda item, rules: compare_policy(item, "--policies", rules), compare,
                      _ladder_table, lambda rules: rules.players > 2, DEALS.maximum,
                      around=_said_once)


def _ladder_table(rules: RomiRules, names: list[str],
                  compared: list[dict[str, Any]]) -> dict[str, Any]:
    """One table size's ladder from its pairings' compare answers."""
    from simcards.core import ladder as lad

    n = rules.players
    pairings = []
    for c in compared:
        diff = c["win_rate_diff"]
        pairings.append({"a": c["a"], "b": c["b"], "seed": c["seed"],
                         **({"engine": c["engine"]} if "engine" in c else {}),
                         **{k: c[k] for k in LADDER_PAIRING_KEYS},
                         **lad.strength(diff["mean"], diff["ci"], n, c["deal_sets"])})
    rated = lad.rate(names, pairings,
                     lambda q: (q["win_rate_diff"]["mean"], q["win_rate_diff"]["ci"]))
    best, second = rated["order"][:2]
    q, sign = lad.between(pairings, best, second)
    seat = "" if n == 2 else " per seat"
    win, score = q["win_rate_diff"], q["score_diff"]
    summary = (f"with {n} players play {best}: it wins "
               + lad.signed(win["mean"], win["ci"], sign, f"more games{seat} than",
                            f"fewer games{seat} than")
               + f" {second}, the next best, and concedes "
               + lad.signed(score["mean"], score["ci"], sign, "more points per round",
                            "fewer points per round", digits=2) + ".")
    return {"players": n, "rules": rules.summary(), **rated, "pairings": pairings,
            "summary": summary,
            "separation": lad.separation_sentence(rated["unseparated"], len(pairings))}
