"""Every rule switch is declared once, on its game's rules dataclass, and every surface agrees
with that declaration: the command line's options, the Python API's keywords and their type
checks, the environments' and OpenSpiel's parameters, the kernels' codes, the summary that run
keys record, the options table of ``seeds/<game>.md`` and the independent reference engines'
own lists of words. A surface edited alone (a hand-written option, a parameter with another
default, a word the rules do not know) fails here."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import simcards.romi.api as romi
import simcards.ronco.api as ronco
import simcards.ronda.api as ronda
from simcards.core.cli import command
from simcards.core.errors import UsageError
from simcards.core.switches import HAND, MATCH, MATCH_LEVEL, Rules, Switch
from simcards.core.table import TableGame
from simcards.romi import table as romi_table
from simcards.romi.rules import RomiRules
from simcards.ronco import reference as ronco_ref
from simcards.ronco import table as ronco_table
from simcards.ronco.rules import RoncoRules
from simcards.ronda import reference as ronda_ref
from simcards.ronda import table as ronda_table
from simcards.ronda.rules import RondaRules

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
GAMES: dict[str, tuple[type[Rules], object, object]] = {
    "ronco": (RoncoRules, ronco, ronco_table),
    "ronda": (RondaRules, ronda, ronda_table),
    "romi": (RomiRules, romi, romi_table),
}
SWITCHES = [(game, s) for game, (rules, _, _) in GAMES.items() for s in rules.switches()]
IDS = [f"{game}-{s.name}" for game, s in SWITCHES]


def _by_name(game: str) -> dict[str, Switch]:
    return {s.name: s for s in GAMES[game][0].switches()}


def _commands(game: str) -> list[object]:
    group = command().commands[game]  # type: ignore[attr-defined]
    return list(group.commands.values())


def test_every_rules_field_is_a_declared_switch_with_rule_ids_and_help() -> None:
    for rules, _, _ in GAMES.values():
        for s in rules.switches():
            assert re.fullmatch(r"[A-Z]\d+(, [A-Z]\d+)*", s.rules), (s.name, s.rules)
            assert s.help and not s.help.endswith("."), s.name
            assert s.level in (HAND, MATCH)
            assert s.check(s.default) == s.default


@pytest.mark.parametrize(("game", "switch"), SWITCHES, ids=IDS)
def test_every_command_option_of_a_switch_is_the_declared_one(game: str, switch: Switch) -> None:
    """A hand-written option (another help, another default, another flag) fails here."""
    seen = 0
    for cmd in _commands(game):
        for param in cmd.params:  # type: ignore[attr-defined]
            if param.name != switch.name:
                continue
            if game in ("ronda", "romi") and switch.name == "players" and \
                    cmd.name == "ladder":  # type: ignore[attr-defined]
                continue  # ladder's --players lists table sizes: not the rule switch
            if game == "romi" and switch.name == "rounds" and \
                    cmd.name == "rounds":  # type: ignore[attr-defined]
                continue  # romi rounds --rounds is the count of rounds to simulate
            seen += 1
            assert switch.flag in param.opts, (cmd.name, param.opts)  # type: ignore[attr-defined]
            assert param.default == switch.api_default, cmd.name  # type: ignore[attr-defined]
            assert param.help == switch.describe(), cmd.name  # type: ignore[attr-defined]
    assert seen, f"no command of {game} takes {switch.flag}"


def _api_functions(module: object) -> list[object]:
    return [fn for name, fn in vars(module).items()
            if callable(fn) and hasattr(fn, "arguments") and not name.startswith("_")]


@pytest.mark.parametrize(("game", "switch"), SWITCHES, ids=IDS)
def test_every_api_keyword_of_a_switch_is_the_declared_one(game: str, switch: Switch) -> None:
    seen = 0
    for fn in _api_functions(GAMES[game][1]):
        param = inspect.signature(fn).parameters.get(switch.name)
        if param is None or (switch.name == "players" and fn.__name__ == "ladder") or \
                (game == "romi" and switch.name == "rounds" and fn.__name__ == "rounds"):
            continue
        seen += 1
        assert param.default == switch.api_default, fn.__name__
        assert fn.arguments[switch.name].kind == switch.arg().kind, fn.__name__
    assert seen, f"no API function of {game} takes {switch.name}"


def test_every_api_function_with_rule_keywords_takes_a_whole_declared_level() -> None:
    """A function reads the switches of a hand, of a match, or a declared subset: never a
    hand-picked list that could miss a switch added later."""
    for game, (rules, module, _) in GAMES.items():
        declared = [s.name for s in rules.switches()]
        for fn in _api_functions(module):
            names = [n for n in inspect.signature(fn).parameters if n in declared]
            if not names:
                continue
            levels = {tuple(s.name for s in rules.switches(level))
                      for level in (HAND, MATCH)}
            without_players = {tuple(n for n in level if n != "players") for level in levels}
            assert tuple(names) in levels | without_players | {("ace_low_value",)}, \
                (game, fn.__name__, names)


def _table_games() -> list[tuple[str, TableGame]]:
    return [(game, g) for game, (_, _, module) in GAMES.items()
            for g in vars(module).values() if isinstance(g, TableGame)]


TABLE_GAMES = _table_games()


@pytest.mark.parametrize(("game", "table"), TABLE_GAMES, ids=[g.name for _, g in TABLE_GAMES])
def test_every_table_parameter_of_a_switch_is_the_declared_one(game: str,
                                                               table: TableGame) -> None:
    declared = _by_name(game)
    params = [p for p in table.params if p.name in declared]
    assert params, table.name
    for p in params:
        s = declared[p.name]
        expected = "first" if (table.name == "ronco_duel_v0" and p.name == "ties") \
            else s.api_default
        assert p.default == expected, (table.name, p.name)
        if table.name != "ronco_duel_v0" or p.name != "ties":
            assert p.help == s.describe(), (table.name, p.name)


WORDS = [(game, table, s.name, word) for game, table in TABLE_GAMES
         for p in table.params if (s := _by_name(game).get(p.name)) and s.words
         for word in s.words if not (table.name == "ronco_duel_v0" and p.name == "ties")]


@pytest.mark.parametrize(("game", "table", "name", "word"), WORDS,
                         ids=[f"{t.name}-{n}-{w}" for _, t, n, w in WORDS])
def test_every_declared_word_makes_a_table_game(game: str, table: TableGame, name: str,
                                                word: str) -> None:
    extra = {"players": 4} if (name, word) == ("teams", "on") else {}
    table.setup({name: word, **extra})


WORD_SWITCHES = list({(t.name, n): (g, t, n) for g, t, n, _ in WORDS}.values())


@pytest.mark.parametrize(("game", "table", "name"), WORD_SWITCHES,
                         ids=[f"{t.name}-{n}" for _, t, n in WORD_SWITCHES])
def test_a_word_no_switch_declares_is_refused_everywhere(game: str, table: TableGame,
                                                         name: str) -> None:
    with pytest.raises(UsageError, match=re.escape(_by_name(game)[name].flag)):
        table.setup({name: "no_such_word"})
    with pytest.raises(UsageError, match=re.escape(_by_name(game)[name].flag)):
        GAMES[game][0].make(**{name: "no_such_word"})


@pytest.mark.parametrize(("game", "switch"), SWITCHES, ids=IDS)
def test_kernel_codes_and_summary_come_from_the_declaration(game: str, switch: Switch) -> None:
    rules_type = GAMES[game][0]
    values = list(switch.words or {}) or [switch.default]
    for value in values:
        extra = {"players": 4} if (switch.name, value) == ("teams", "on") else {}
        rules = rules_type.make(**{switch.name: value, **extra})
        assert rules.codes[switch.name] == switch.code(value)
        recorded = not (switch.keyed_when_changed and value == switch.default)
        assert rules.summary().get(switch.name, "unrecorded") == \
            (value if recorded else "unrecorded")
        assert set(rules.summary()) <= {s.name for s in rules_type.switches()}
    if switch.words:
        assert len(set(switch.words.values())) == len(switch.words), "two words share a code"


def test_the_default_rules_summaries_are_the_ones_run_keys_recorded() -> None:
    """Run keys hash these summaries: a renamed switch or another default would orphan every
    stored run."""
    assert RoncoRules.make().summary() == {"deck": "spanish40", "cut_king": "loses",
                                           "ties": "all", "poroli": False,
                                           "absolute_tie": "void"}
    assert RondaRules.make().summary(HAND) == {
        "players": 2, "teams": "off", "derba_chain": "flat", "announce": "first_deal",
        "announce_conflict": "text", "mode": "points"}
    assert RondaRules.make().summary(MATCH_LEVEL) == {"target": 21,
                                                      "target_check": "end_of_hand",
                                                      "hands_to_win": 1}
    assert RomiRules.make().summary() == {"players": 4, "open_min": 51, "ace_low_value": 1,
                                          "swap_keeps_romi": False, "rounds": 7}


def _seed_rows(game: str) -> dict[str, tuple[list[str], str]]:
    """The options table of ``seeds/<game>.md``: option -> (its values, its rule ids)."""
    rows = {}
    for line in (SEEDS / f"{game}.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| `(\w+)` \| (.*) \| ([A-Z0-9, ]+) \|$", line)
        if m:
            rows[m.group(1)] = (re.findall(r"`([^`]+)`", m.group(2)), m.group(3))
    return rows


@pytest.mark.parametrize(("game", "switch"), SWITCHES, ids=IDS)
def test_the_seeds_options_table_lists_every_switch_as_declared(game: str,
                                                                switch: Switch) -> None:
    rows = _seed_rows(game)
    assert switch.name in rows, f"seeds/{game}.md has no row for {switch.name}"
    values, ids = rows[switch.name]
    assert values[0] == Switch.value_text(switch.default), "the default is given first"
    if switch.words:
        assert set(values) == set(switch.words)
    elif switch.kind == "integer":
        row = next(line for line in (SEEDS / f"{game}.md").read_text().splitlines()
                   if line.startswith(f"| `{switch.name}`"))
        assert f"{switch.low} .. {switch.high}" in row or switch.name == "players"
    for rule in switch.rules.split(", "):
        assert rule in ids.split(", "), (switch.name, rule, ids)
    assert set(rows) == {s.name for s in GAMES[game][0].switches()}


def test_the_reference_engines_know_exactly_the_declared_words() -> None:
    """The reference engines are written from the seeds alone, with their own lists of words:
    they agree with the declaration, word for word."""
    declared = _by_name("ronda")
    for name, words in ronda_ref._CHOICES.items():
        assert tuple(words) == tuple(declared[name].words or ()), name
    assert declared["target"].high == ronda_ref.MAX_TARGET
    declared = _by_name("ronco")
    assert tuple(declared["cut_king"].words or ()) == ronco_ref.CUT_KING_OPTIONS
    assert tuple(declared["ties"].words or ()) == ronco_ref.TIES_OPTIONS
    assert tuple(declared["absolute_tie"].words or ()) == ronco_ref.ABSOLUTE_TIE_OPTIONS
