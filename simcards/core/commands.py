"""The Monte Carlo commands that games share, each written once: a run of a count of hands,
matches, rounds or games with one policy per seat (:func:`add_run`), ``compare A B``
(:func:`add_compare`) and ``ladder`` (:func:`add_ladder`).

A game's ``cli.py`` says only what is its own: the function of its API that computes, the rule
switches the command takes (a :class:`~simcards.core.switches.RuleSet`), its counts (a
:class:`~simcards.core.cli_options.Count`, declared in the API beside the function that reads
it), its help lines and the function that prints the answer. The signature typer reads (the
options, their order, the rule switches and the run options) is written here, so every game's
``compare`` takes the same options in the same order, and a fix to one is a fix to all.

The API module is named, not imported: it is imported when the command runs, so that ``--help``
stays quick. This module has no ``from __future__ import annotations``: the option types are
built per command, in a closure, and typer must read them as objects.
"""

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from simcards.core.cli_options import Count, api_run, emit_json, engine_option, run_options
from simcards.core.switches import RuleSet

Show = Callable[[dict[str, Any]], None]
"""A game's printer: the answer's JSON object in, the tables on the terminal."""


@dataclass(frozen=True)
class GameApi:
    """Where a game's commands compute: its API module, named (imported when a command
    runs)."""

    module: str
    """``simcards.ronda.api``."""

    def call(self, name: str, *args: Any, run: dict[str, Any], **kwargs: Any) -> None:
        """The API's function ``name`` on the command's values; its answer printed as one JSON
        object with ``--json``, else by the caller's printer (``show``, in ``kwargs``)."""
        show: Show = kwargs.pop("show")
        fn = getattr(importlib.import_module(self.module), name)
        # .data, not .to_dict(): the command only reads the answer
        out = fn(*args, **kwargs, **api_run(run)).data
        if run["as_json"]:
            emit_json(out)
            return
        show(out)


def _dealer(help: str) -> Any:
    return Annotated[int | None, typer.Option("--dealer", help=help)]


def _count(count: Count, what: str | None = None) -> Any:
    return Annotated[str, typer.Option(count.flag, help=count.help(what))]


def _register(app: typer.Typer, name: str, switches: RuleSet, doc: str,
              command: Callable[..., None]) -> None:
    command.__doc__ = doc
    command.__name__ = command.__qualname__ = name.replace("-", "_")
    app.command(name)(switches.options(run_options()(command)))


def add_run(app: typer.Typer, api: GameApi, name: str, *, switches: RuleSet, count: Count,
            policies_help: str, dealer_help: str | None, doc: str, show: Show,
            engine: tuple[str, str] | None = None) -> None:
    """``simcards <game> <name>``: ``count`` deals of ``name`` (hands, matches, rounds, games)
    with ``--policies`` (one per seat, or one for all), the rule switches, ``--dealer`` (where
    ``dealer_help`` is given: the game fixes a dealer for this command) and the run options;
    the API's function ``name`` computes. ``engine`` (what is played, the game's kernel, as
    :func:`~simcards.core.cli_options.engine_option` words them) adds ``--engine``, for a
    command that plays users' own functions (with ``dealer_help``)."""
    Policies = Annotated[str | None, typer.Option("--policies", help=policies_help)]
    Counted = _count(count)
    if engine is not None and dealer_help is not None:
        Dealer = _dealer(dealer_help)
        Engine = engine_option(*engine)

        def command(switches: dict[str, Any], policies: Policies = None,  # type: ignore[misc]
                    n: Counted = count.default, dealer: Dealer = None, engine: Engine = None,
                    *, run: dict[str, Any]) -> None:
            api.call(name, **switches, policies=policies, **{count.keyword: n}, dealer=dealer,
                     engine=engine, run=run, show=show)
    elif dealer_help is None:
        def command(switches: dict[str, Any], policies: Policies = None,
                    n: Counted = count.default, *, run: dict[str, Any]) -> None:
            api.call(name, **switches, policies=policies, **{count.keyword: n}, run=run,
                     show=show)
    else:
        Dealer = _dealer(dealer_help)

        def command(switches: dict[str, Any], policies: Policies = None,  # type: ignore[misc]
                    n: Counted = count.default, dealer: Dealer = None, *,
                    run: dict[str, Any]) -> None:
            api.call(name, **switches, policies=policies, **{count.keyword: n}, dealer=dealer,
                     run=run, show=show)
    _register(app, name, switches, doc, command)


def add_compare(app: typer.Typer, api: GameApi, *, switches: RuleSet, deals: Count,
                a_help: str, b_help: str, dealer_help: str, doc: str, show: Show,
                engine: tuple[str, str] | None = None) -> None:
    """``simcards <game> compare A B``: two policies on the same deals, ``deals`` deal sets
    (what a deal set is, the game's ``deals.what`` says), the rule switches, ``--dealer`` and
    the run options; the API's ``compare`` computes. ``engine`` adds ``--engine``, as
    :func:`add_run`'s does."""
    A = Annotated[str, typer.Argument(metavar="A", help=a_help)]
    B = Annotated[str, typer.Argument(metavar="B", help=b_help)]
    Deals = _count(deals)
    Dealer = _dealer(dealer_help)
    if engine is not None:
        Engine = engine_option(*engine)

        def command(policy_a: A, policy_b: B, switches: dict[str, Any],
                    n_deals: Deals = deals.default, dealer: Dealer = None,
                    engine: Engine = None, *, run: dict[str, Any]) -> None:
            api.call("compare", policy_a, policy_b, **switches, deals=n_deals, dealer=dealer,
                     engine=engine, run=run, show=show)
    else:
        def command(policy_a: A, policy_b: B, switches: dict[str, Any],  # type: ignore[misc]
                    n_deals: Deals = deals.default, dealer: Dealer = None, *,
                    run: dict[str, Any]) -> None:
            api.call("compare", policy_a, policy_b, **switches, deals=n_deals, dealer=dealer,
                     run=run, show=show)
    _register(app, "compare", switches, doc, command)


def add_ladder(app: typer.Typer, api: GameApi, *, switches: RuleSet, deals: Count,
               policies_help: str, players_help: str, players_default: str, dealer_help: str,
               doc: str, show: Show) -> None:
    """``simcards <game> ladder``: every policy of ``--policies`` against every other by the
    game's ``compare``, at one or several table sizes (``--players``), ``deals`` deal sets per
    pairing, with the rule switches, ``--dealer`` and the run options; the API's ``ladder``
    (:func:`simcards.core.ladder.run_ladder`) computes."""
    Policies = Annotated[str | None, typer.Option("--policies", help=policies_help)]
    Players = Annotated[str, typer.Option("--players", help=players_help)]
    Deals = _count(deals, "Deal sets per pairing, as in compare")
    Dealer = _dealer(dealer_help)

    def command(policies: Policies = None, players: Players = players_default, *,
                switches: dict[str, Any], n_deals: Deals = deals.default,
                dealer: Dealer = None, run: dict[str, Any]) -> None:
        api.call("ladder", policies=policies, players=players, **switches, deals=n_deals,
                 dealer=dealer, run=run, show=show)
    _register(app, "ladder", switches, doc, command)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def show_ladder(out: dict[str, Any], console: Any, *, title: Callable[[dict[str, Any]], str],
                rating: Callable[[dict[str, Any]], str],
                columns: Callable[[dict[str, Any]], Sequence[str]],
                cells: Callable[[dict[str, Any], dict[str, Any]], list[str]],
                footer: Callable[[dict[str, Any]], None], note: str = "") -> None:
    """A ladder's answer on the terminal, one table size after another: the ratings (rank,
    policy, Elo rating with its interval: ``rating`` of a rating's row; the anchor's is 0),
    the pairings (A, B, then the game's ``columns(table)``, filled by ``cells(table, pairing)``),
    the ladder's sentences (the summary, the separation, the fit, then ``note``), and the
    game's ``footer`` for the table size."""
    from rich.table import Table

    from simcards.core.ladder import fit_sentence

    for t in out["tables"]:
        ratings = Table(title=title(t))
        for col in ("rank", "policy", "Elo rating [95% CI]"):
            ratings.add_column(col)
        by_name = {r["policy"]: r for r in t["ratings"]}
        for rank, name in enumerate(t["order"], 1):
            cell = "0 (anchor)" if name == out["anchor"] else rating(by_name[name])
            ratings.add_row(str(rank), name, cell)
        pairings = Table(title="Pairings (each is compare A B with its seed, in the JSON)")
        for col in ("A", "B", *columns(t)):
            pairings.add_column(col)
        for q in t["pairings"]:
            pairings.add_row(q["a"], q["b"], *cells(t, q))
        console.print(ratings)
        console.print(pairings)
        console.print(f"{_sentence(t['summary'])}\n{_sentence(t['separation'])}\n"
                      + fit_sentence(t["fit"], out["anchor"]) + note)
        footer(t)
