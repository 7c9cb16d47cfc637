"""The input sweep: some four hundred inputs a new user may give, over every command of every
game, the Python API and the environments, each a row of a table with what must happen.

A command line either runs (exit status 0, nothing mangled in what it prints) or is refused
with exit status 2, nothing on stdout and one line ``simcards: error: ...`` on stderr, before
any work: no chunk is computed, no worker started, no run kept in the store. A Python call
either returns a result or raises :class:`~simcards.core.errors.UsageError` naming the
argument, before any work too. Anything else misbehaves: a traceback or another exception, an
exit status other than 0 or 2, a second line, output read as markup or emoji codes (``:100:``
printed as an emoji), work done on bad input, a valid input refused.

Bad input fails before any kernel runs, so the table costs seconds; the valid rows are tiny
runs on one worker.
"""

from __future__ import annotations

import inspect
import io
import math
import os
import re
import subprocess
import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from simcards.core.cli import main
from simcards.core.errors import UsageError

# --- what each row expects -------------------------------------------------------------------

ERROR = "error"
"""Exit status 2, one line ``simcards: error: ...`` on stderr, nothing on stdout, no work."""
OK = "ok"
"""Exit status 0, output free of mangling."""
EITHER = "either"
"""A valid reading or a refusal, as long as either is clean (one way is not documented)."""


@dataclass(frozen=True)
class Cli:
    """``simcards ARGV`` with ``env`` set; ``part`` must be in the error line (or, for a valid
    run, ``shows`` in stdout); ``stdin`` feeds an interactive command; ``subprocess`` for an
    environment variable read when the package is imported."""

    argv: tuple[str, ...]
    expect: str = ERROR
    part: str = ""
    shows: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    stdin: str = ""
    subprocess: bool = False
    hidden: tuple[str, ...] = ()
    """Modules made unimportable for the row, as if their extra were not installed."""
    warns: str = ""
    """What a valid run must say on stderr."""


@dataclass(frozen=True)
class Call:
    """``simcards.<game>.<function>(*args, **kwargs)`` on top of the function's tiny
    :data:`BASE` arguments; ``part`` must be named by a :class:`UsageError`."""

    game: str
    function: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    args: tuple[Any, ...] = ()
    expect: str = ERROR
    part: str = ""
    base: bool = True


_ADVISE_HAND = "Ah 2h 3h 4h Ks Kh Kd 7c 8c 9c Tc Jc Qc 5s"
"""A Römi hand of 14 that goes out with the 5h (``romi advise``)."""


@dataclass(frozen=True)
class Env:
    """An environment made with wrong arguments: a :class:`UsageError` naming ``part``."""

    label: str
    make: Callable[[], Any]
    part: str
    expect: str = ERROR


def cli(command: str, expect: str = ERROR, part: str = "", **options: Any) -> Cli:
    """A row from a command line written as the user types it (words split on spaces)."""
    return Cli(tuple(command.split()), expect, part, **options)


# --- the command line ------------------------------------------------------------------------

COMPUTING = {
    "ronco rounds": "--rounds 1000", "ronco exact": "", "ronco games": "--games 8",
    "ronco best-threshold": "--players 3 --lives 1 --first-stage 256 --max-games 256 "
                            "--min-games 256 --gain-games 0 --max-iterations 0",
    "ronco equilibrium": "--players 2 --exact --ties first",
    "ronda hands": "--hands 50", "ronda matches": "--matches 4",
    "ronda compare greedy random": "--deals 2", "ronda ladder": "--policies greedy,random "
                                                                "--deals 2",
    "romi rounds": "--players 2 --rounds 4", "romi games": "--players 2 --rounds 1 --games 2",
    "romi compare greedy expert": "--players 2 --rounds 1 --deals 2",
    "romi ladder": "--policies greedy,expert --players 2 --rounds 1 --deals 2",
}
"""Every Monte Carlo command (and Ronco's exact one), with the options of a tiny valid run."""

COUNT_FLAG = {
    "ronco rounds": "--rounds", "ronco games": "--games", "ronco best-threshold": "--max-games",
    "ronda hands": "--hands", "ronda matches": "--matches", "ronda compare greedy random":
    "--deals", "ronda ladder": "--deals", "romi rounds": "--rounds", "romi games": "--games",
    "romi compare greedy expert": "--deals", "romi ladder": "--deals",
}
"""The main count of each Monte Carlo command."""

BAD_COUNTS = ["0", "-5", "1.5", "nan", "inf", "1e400", "x", "1__000", "_1000", "1000_",
              "\u0661\u0660\u0660\u0660", "\uff11\uff10\uff10\uff10", "1m", "1K", "1e20", ""]
"""Counts every count flag refuses: not positive, not whole, not finite, not a number, past
its maximum, digits other than ASCII ones, an underscore not between two digits, a suffix in
the wrong case."""

SOME_BAD_COUNTS = ["0", "1.5", "1__000", "\uff11\uff10\uff10\uff10"]
"""The bad counts tried on every count flag (all of :data:`BAD_COUNTS` on one)."""

BAD_PLAYERS = {
    "ronco rounds": ["0", "1", "21", "\uff13", "x", "2.5", "-3"],
    "ronco exact": ["21"], "ronco games": ["1"],
    "ronco best-threshold": ["2-1", "3-30", "4,4", "3,x"],
    "ronco equilibrium": ["1", "4,4"],
    "ronda hands": ["5", "\uff13"], "ronda matches": ["1"],
    "ronda compare greedy random": ["5"], "ronda ladder": ["2,2", "2,5"],
    "ronda play": ["5"],
    "romi rounds": ["1", "6"], "romi games": ["6"],
    "romi compare greedy expert": ["1"], "romi ladder": ["2,2", "0"],
}
"""Impossible table sizes, by command."""


def _command_rows() -> list[Cli]:
    """The rows every Monte Carlo command shares: seeds, workers, counts, options it does not
    take, table sizes."""
    rows: list[Cli] = []
    for command, tiny in COMPUTING.items():
        base = f"{command} {tiny}".strip()
        rows += [
            cli(f"{base} --workers 1", OK),
            cli(f"{base} --no-such-option 3", part="--no-such-option"),
            cli(f"{base} --seed -1", part="--seed"),
            cli(f"{base} --workers 0", part="--workers"),
        ]
        if command == "ronco rounds":  # the shared checks in full, once
            rows += [cli(f"{base} --seed {2**63}", part="--seed"),
                     cli(f"{base} --seed x", part="--seed"),
                     cli(f"{base} --workers -2", part="--workers"),
                     cli(f"{base} --workers x", part="--workers"),
                     cli(f"{base} --workers 1024", part="--workers")]
        if command in COUNT_FLAG:
            flag = COUNT_FLAG[command]
            words = base.split()
            if flag in words:
                at = words.index(flag)
                del words[at:at + 2]
            for bad in BAD_COUNTS if command == "ronco rounds" else SOME_BAD_COUNTS:
                rows.append(Cli((*words, flag, bad), part=flag))
    for command, sizes in BAD_PLAYERS.items():
        base = f"{command} {COMPUTING.get(command, '')}".split()
        if "--players" in base:
            at = base.index("--players")
            del base[at:at + 2]
        for size in sizes:
            rows.append(Cli((*base, "--players", size), part="--players"))
    return rows


RONCO_ROWS = [
    # Names and values out of range
    cli("ronco chart --players 3 --policy threshold:6:4 --out c.csv", OK),
    cli("ronco chart --players 9", part="--players"),
    cli("ronco chart --policy random:0.5", part="--policy"),
    cli("ronco chart --policy chart:none.csv", part="--policy"),
    cli("ronco chart --field bayes", part="--field"),
    cli("ronco chart --out c.txt", part="--out"),
    cli("ronco chart --out nodir/c.csv", part="--out"),
    cli("ronco advise --seat 2 --card 4o --before keep,swap --dealt 7c", OK,
        shows=("pass is better",)),
    cli("ronco advise --seat 4 --card 4o", part="--seat"),
    cli("ronco advise --seat 1 --card 8o --before keep", part="--card"),
    cli("ronco advise --seat 1 --card 4o --before keep --dealt 7c", part="--dealt"),
    cli("ronco advise --seat 0 --card 4o --field random", part="--field"),
    cli("ronco advise --position p.yaml", part="--position"),
    cli("ronco rounds --rounds 1000 --deck tarot", part="--deck"),
    cli("ronco rounds --rounds 1000 --cut-king maybe", part="--cut-king"),
    cli("ronco rounds --rounds 1000 --ties some", part="--ties"),
    cli("ronco rounds --rounds 1000 --policy smart", part="--policy"),
    cli("ronco rounds --rounds 1000 --threshold 99", part="--threshold"),
    cli("ronco rounds --rounds 1000 --threshold 5.5", part="--threshold"),
    cli("ronco rounds --rounds 1000 --threshold -1", part="--threshold"),
    cli("ronco rounds --rounds 1000 --dealer-threshold x", part="--dealer-threshold"),
    cli("ronco rounds --rounds 1000 --thresholds 5,5", part="--thresholds"),
    cli("ronco rounds --rounds 1000 --thresholds 5,5,5,x", part="--thresholds"),
    cli("ronco rounds --rounds 1000 --thresholds 5.5,5,5,5", part="--thresholds"),
    cli("ronco rounds --rounds 1000 --policy random --keep-prob 1.5", part="--keep-prob"),
    cli("ronco rounds --rounds 1000 --policy random --keep-prob nan", part="--keep-prob"),
    # Flags that contradict, or that the command would ignore
    cli("ronco rounds --rounds 1000 --keep-prob 0.3", part="--keep-prob"),
    cli("ronco rounds --rounds 1000 --policy random --threshold 5", part="--threshold"),
    cli("ronco rounds --rounds 1000 --policy random --thresholds 5,5,5,5", part="--thresholds"),
    cli("ronco rounds --rounds 1000 --thresholds 5,5,5,5 --threshold 4", part="--threshold"),
    cli("ronco rounds --rounds 1000 --policies threshold:5:5,threshold:5:5 --players 4",
        part="--policies"),
    # Malformed policies
    cli("ronco games --games 8 --policies threshold:x:5", part="threshold:x"),
    cli("ronco games --games 8 --policies threshold:5:5:5", part="threshold:5:5:5"),
    cli("ronco games --games 8 --policies random:2", part="random:2"),
    cli("ronco games --games 8 --policies bogus", part="bogus"),
    cli("ronco games --games 8 --policies threshold:5:5,", part="--policies"),
    cli("ronco games --games 8 --policies threshold:5:5,,threshold,threshold",
        part="--policies"),
    cli("ronco games --games 8 --policies ,", part="--policies"),
    cli("ronco games --players 7 --games 8 --policies bayes,threshold:5:5", part="--policies"),
    cli("ronco games --players 3 --games 8 --policies bayes,bayes,threshold", part="bayes"),
    cli("ronco games --players 3 --games 8 --policies bayes,threshold:5:5,informed:5:5",
        part="bayes"),
    cli("ronco rounds --rounds 1000 --players 11 --policies bayes", part="bayes"),
    # Games
    cli("ronco games --games 8 --lives 0", part="--lives"),
    cli("ronco games --games 8 --lives 7.5", part="--lives"),
    cli("ronco games --games 8 --first-dealer 4", part="--first-dealer"),
    cli("ronco games --games 8 --first-dealer -1", part="--first-dealer"),
    cli("ronco games --games 8 --absolute-tie maybe", part="--absolute-tie"),
    cli("ronco games --exact --games 8", part="--games"),
    cli("ronco games --exact --store none", part="--store"),
    cli("ronco games --exact --scheduler tcp://127.0.0.1:8786", part="--scheduler"),
    cli("ronco games --exact --players 12 --lives 7", part="exact"),
    cli("ronco games --games 8 --engine fast", part="--engine"),
    cli("ronco games --exact --engine python", part="--engine"),
    cli("ronco games --games 8 --policy bayes --engine python", part="bayes"),
    # Best threshold
    cli("ronco best-threshold --players 3 --first-stage 1000 --max-games 500",
        part="--first-stage"),
    cli("ronco best-threshold --players 3 --min-games 1000 --max-games 500",
        part="--min-games"),
    cli("ronco best-threshold --players 3 --z-drop 0", part="--z-drop"),
    cli("ronco best-threshold --players 3 --z-drop nan", part="--z-drop"),
    cli("ronco best-threshold --players 3 --max-iterations -1", part="--max-iterations"),
    cli("ronco best-threshold --players 3 --field 5", part="--field"),
    cli("ronco best-threshold --players 3 --field 99:99", part="--field"),
    cli("ronco best-threshold --players 3 --field mine.py:f", part="--field"),
    cli("ronco best-threshold --players 3 --field chart:c.csv", part="--field"),
    cli("ronco best-threshold --players 3 --policy random", part="--policy"),
    cli("ronco best-threshold --players 3 --engine fast", part="--engine"),
    cli("ronco best-threshold --players 3 --engine python", part="--engine python"),
    # Equilibria
    cli("ronco equilibrium --players 8 --start 5:5,5:5", part="--start"),
    cli("ronco equilibrium --players 3 --start 5", part="--start"),
    cli("ronco equilibrium --players 3 --start 99:99", part="--start"),
    cli("ronco equilibrium --players 3 --exact", part="--exact"),
    cli("ronco equilibrium --players 2 --family maybe --exact", part="--family"),
    cli("ronco equilibrium --players 2 --exact --payoff most", part="--payoff"),
    cli("ronco equilibrium --players 2 --family all", part="--exact"),
    cli("ronco equilibrium --players 2 --exact --family all", part="--ties"),
    cli("ronco equilibrium --players 2 --exact --openspiel", part="--openspiel"),
    cli("ronco equilibrium --players 3 --lives 0", part="--lives"),
    cli("ronco equilibrium --players 2 --exact --ties first", OK, shows=("Ronco",)),
    cli("ronco equilibrium --players 2 --exact --family all --ties first --openspiel",
        part="[rl]", hidden=("pyspiel",)),
]

RONDA_ROWS = [
    cli("ronda hands --hands 50 --teams on", part="--teams"),
    cli("ronda hands --hands 50 --players 3 --teams on", part="--teams"),
    cli("ronda hands --hands 50 --players 4 --teams maybe", part="--teams"),
    cli("ronda hands --hands 50 --derba-chain loose", part="--derba-chain"),
    cli("ronda hands --hands 50 --announce never", part="--announce"),
    cli("ronda hands --hands 50 --announce-conflict fight", part="--announce-conflict"),
    cli("ronda hands --hands 50 --mode tournament", part="--mode"),
    cli("ronda hands --hands 50 --dealer 2", part="--dealer"),
    cli("ronda hands --hands 50 --dealer -1", part="--dealer"),
    cli("ronda hands --hands 50 --target 21", part="--target"),
    cli("ronda hands --hands 50 --policies lookahead:x", part="lookahead:x"),
    cli("ronda hands --hands 50 --policies lookahead:9", part="lookahead:9"),
    cli("ronda hands --hands 50 --policies rollout:0", part="rollout:0"),
    cli("ronda hands --hands 50 --policies ismcts:0", part="ismcts:0"),
    cli("ronda hands --hands 50 --policies ismcts:100:nan", part="ismcts:100:nan"),
    cli("ronda hands --hands 50 --policies ismcts:100:-1", part="ismcts:100:-1"),
    cli("ronda hands --hands 50 --policies greedy,", part="--policies"),
    cli("ronda hands --hands 50 --policies greedy,,random", part="--policies"),
    cli("ronda hands --hands 50 --policies greedy,random,greedy", part="--policies"),
    cli("ronda hands --hands 50 --policies human", part="human"),
    cli("ronda hands --hands 50 --policies :100:", part="--policies"),
    cli("ronda hands --hands 50 --mode classic --derba-chain tiers", part="--derba-chain"),
    cli("ronda hands --hands 50 --mode classic --announce every_deal", part="--announce"),
    cli("ronda matches --matches 4 --target 0", part="--target"),
    cli("ronda matches --matches 4 --target x", part="--target"),
    cli("ronda matches --matches 4 --target-check later", part="--target-check"),
    cli("ronda matches --matches 4 --engine fast", part="--engine"),
    cli("ronda matches --matches 4 --policies greedy,lookahead:1 --engine python",
        part="--engine python"),
    cli("ronda compare greedy random --deals 2 --engine fast", part="--engine"),
    cli("ronda matches --matches 4 --hands-to-win 3", part="--hands-to-win"),
    cli("ronda matches --matches 4 --mode classic --hands-to-win 0", part="--hands-to-win"),
    cli("ronda matches --matches 4 --mode classic --target 41", part="--target"),
    cli("ronda matches --matches 4 --mode classic --target-check immediate",
        part="--target-check"),
    cli("ronda compare greedy --deals 2", part="B"),
    cli("ronda compare greedy bogus --deals 2", part="bogus"),
    cli("ronda compare greedy random extra --deals 2"),
    cli("ronda compare --players 4 --teams lookahead:1 greedy --deals 2", part="--teams"),
    cli("ronda compare greedy human --deals 2", part="human"),
    cli("ronda ladder --policies greedy --deals 2", part="--policies"),
    cli("ronda ladder --policies greedy,greedy --deals 2", part="greedy"),
    cli("ronda ladder --policies lookahead,lookahead:1 --deals 2", part="lookahead"),
    cli("ronda ladder --policies greedy,bogus --deals 2", part="bogus"),
    cli("ronda ladder --policies greedy,random --players 3 --teams on --deals 2",
        part="--teams"),
    cli("ronda play --policies human,seeing:16", part="seeing"),
    cli("ronda play --policies human,greedy --seat 2", part="--seat"),
    cli("ronda play --policies human,greedy --target 41", part="--target"),
    cli("ronda play --policies human,greedy --hands-to-win 2", part="--hands-to-win"),
    cli("ronda play --policies human,greedy --seed -1", part="--seed"),
    cli("ronda play --policies human,greedy --hands 5", part="--hands"),
    cli("ronda advise --hand 1o --table 1o", part="1o"),
    cli("ronda advise --hand 1o --seat 3", part="--seat"),
    cli("ronda advise --hand 1x", part="--hand"),
    cli("ronda advise --hand 1o --previous 2o", part="--previous"),
    cli("ronda advise --hand 1o --iterations 0", part="--iterations"),
    cli("ronda advise --position nowhere.json", part="--position"),
    cli("ronda advise --hand 1o --players 5", part="--players"),
    Cli(("ronda", "advise", "--hand", "1o 7c 12e 5o", "--announcements", "1:pair 7"), ERROR,
        "--announcements"),
    Cli(("ronda", "advise", "--hand", "1o 1c 12e 5o", "--announcements", ""), ERROR,
        "--announcements"),
    cli("ronda advise --hand 1o --deal-plays 9o", part="--deal-plays"),
    cli("ronda advise --hand 1o --scores 1", part="--scores"),
    cli("ronda advise --hand 1o --scores x,3", part="--scores"),
    cli("ronda advise --hand 1o --target 11", part="--target"),
    cli("ronda advise --hand 1o --target-check immediate", part="--target-check"),
    cli("ronda advise --hand 1o --mode classic --hands-to-win 2",
        part="--hands-to-win"),
    cli("ronda advise --hand 1o --mode classic --scores 0,0", part="--scores"),
    cli("ronda advise --hand 1o --hands-won 0,0", part="--hands-won"),
    cli("ronda advise --hand 1o --scores 22,0 --target-check immediate", part="--scores"),
    cli("ronda advise --hand 1o --mode classic --hands-won 1,0", part="--hands-won"),
    cli("ronda advise --hand 1o --mode classic --hands-won 0", part="--hands-won"),
    cli("ronda advise --hand 1o --mode classic --hands-won 0,0 --scores 0,0",
        part="--hands-won"),
    # Valid: policy names with ":100:" print as written, every count form the README gives
    cli("ronda hands --hands 2 --policies ismcts:100,greedy --workers 1", OK,
        shows=("ismcts:100:0.5",)),
    cli("ronda hands --hands 2 --policies seeing:100,greedy --workers 1", OK,
        shows=("seeing:100:0.5",)),
    cli("ronda compare ismcts:100 greedy --deals 1 --workers 1", OK,
        shows=("ismcts:100:0.5",)),
    cli("ronda ladder --policies ismcts:100,greedy --deals 1 --workers 1", OK,
        shows=("ismcts:100:0.5",)),
    cli("ronda play --policies human,ismcts-match:100", OK, shows=("ismcts-match:100",),
        stdin="q\n"),
    cli("ronda hands --hands 1_000 --workers 1", OK),
    cli("ronda hands --hands 1e3 --workers 1", OK),
    cli("ronda hands --hands 1k --workers 1", OK),
    cli("ronda hands --hands 50 --players 4 --teams --workers 1", OK),
    cli("ronda matches --matches 4 --target 15 --workers 1", OK),
    cli("ronda matches --matches 4 --target 11 --workers 1", OK),
]

ROMI_ROWS = [
    cli("romi rounds --players 2 --rounds 4 --policies rummy:15", part="rummy:15"),
    cli("romi rounds --players 2 --rounds 4 --policies threshold:10", part="threshold:10"),
    cli("romi rounds --players 2 --rounds 4 --policies search:0", part="search:0"),
    cli("romi rounds --players 2 --rounds 4 --policies bogus", part="bogus"),
    cli("romi rounds --players 2 --rounds 4 --policies greedy,", part="--policies"),
    cli("romi rounds --players 2 --rounds 4 --policies greedy,greedy,greedy", part="--policies"),
    cli("romi rounds --players 2 --rounds 4 --open-min 0", part="--open-min"),
    cli("romi rounds --players 2 --rounds 4 --open-min 141", part="--open-min"),
    cli("romi rounds --players 2 --rounds 4 --ace-low-value 11", part="--ace-low-value"),
    cli("romi rounds --players 2 --rounds 4 --dealer 2", part="--dealer"),
    cli("romi rounds --players 2 --rounds 1e10", part="--rounds"),
    cli("romi games --players 2 --games 2 --rounds 101", part="--rounds"),
    cli("romi games --players 2 --games 2 --rounds 0", part="--rounds"),
    cli("romi games --players 2 --games 2 --rounds 1 --dealer 0", part="--dealer"),
    cli("romi compare greedy --players 2 --rounds 1 --deals 2", part="B"),
    cli("romi compare greedy,expert greedy --players 2 --rounds 1 --deals 2", part="greedy"),
    cli("romi compare bogus greedy --players 2 --rounds 1 --deals 2", part="bogus"),
    cli("romi ladder --policies greedy --players 2 --rounds 1 --deals 2", part="--policies"),
    cli("romi ladder --policies threshold,threshold:70 --players 2 --rounds 1 --deals 2",
        part="threshold"),
    cli("romi melds", part="--hand"),
    cli("romi melds --hand", part="--hand"),
    Cli(("romi", "melds", "--hand", ""), part="--hand"),
    Cli(("romi", "melds", "--hand", ",,,"), part="--hand"),
    Cli(("romi", "melds", "--hand", "Zz 2h"), part="Zz"),
    Cli(("romi", "melds", "--hand", "Ah Ah Ah"), part="Ah"),
    Cli(("romi", "melds", "--hand", "X X X X X"), part="joker"),
    Cli(("romi", "melds", "--hand", " ".join(["2h"] * 2 + ["3h"] * 2 + ["4h"] * 2 + ["5h"] * 2
                                              + ["6h"] * 2 + ["7h"] * 2 + ["8h"] * 2
                                              + ["9h"] * 2 + ["Th"]))),
    Cli(("romi", "melds", "--hand", "Ah 2h 3h", "--file", "hands.txt"), part="--file"),
    Cli(("romi", "melds", "--file", "no-such-file.txt"), part="no-such-file.txt"),
    Cli(("romi", "melds", "--file", ""), part="--file"),
    Cli(("romi", "melds", "--hand", "Ah 2h 3h", "--ace-low-value", "0"),
        part="--ace-low-value"),
    Cli(("romi", "melds", "--hand", "Ah 2h 3h", "--table", ""), part="--table"),
    Cli(("romi", "melds", "--hand", "Ah 2h 3h", "--table", "2h 9c"), part="2h 9c"),
    Cli(("romi", "melds", "--hand", "Ah 2h 3h", "--table", "Ah 2h 3h; Ah 2h 3h; Ah 2h 3h")),
    # Valid
    Cli(("romi", "melds", "--hand", "Ah 2h 3h 7c 7d 7s X"), OK, shows=("Ah",)),
    Cli(("romi", "melds", "--hand", "10h Jh Qh"), OK),
    Cli(("romi", "melds", "--hand", "ah 2H 3h", "--json"), OK),
    Cli(("romi", "advise", "--hand", _ADVISE_HAND, "--not-opened", "--others", "14",
         "--others-opened", "no", "--turn", "4", "--discard", "Ah", "--cut", "Ah"),
        part="(D1)"),
    Cli(("romi", "advise", "--hand", _ADVISE_HAND, "--not-opened", "--others", "14",
         "--others-opened", "no", "--turn", "4", "--cut", "5h", "--swap-keeps-romi",
         "--samples", "0"), OK, shows=("go out for -20",)),
    Cli(("romi", "advise", "--hand", _ADVISE_HAND, "--budget", "1O"), part="--budget"),
    Cli(("romi", "advise", "--hand", _ADVISE_HAND, "--samples", "-3"), part="--samples"),
    Cli(("romi", "advise", "--hand", _ADVISE_HAND, "--samples", "64", "--budget", "8"),
        part="--budget"),
    Cli(("romi", "advise", "--hand", _ADVISE_HAND, "--not-opened", "--others", "14",
         "--others-opened", "no", "--turn", "4", "--drawn", "Qz"), part="--drawn"),
    Cli(("romi", "advise", "--hand", _ADVISE_HAND, "--not-opened", "--others", "14",
         "--others-opened", "no", "--turn", "4", "--samples", "4", "--seed", "7"), OK,
        shows=("4 samples a move", "seed 7")),
    cli("romi rounds --players 2 --rounds 2 --policies random --workers 1", OK),
    cli("romi compare seeing:100 greedy --players 2 --rounds 1 --deals 1 --workers 1", OK,
        shows=("seeing:100",)),
    cli("romi rounds --players 2 --rounds 2 --policies search:100,greedy --workers 1", OK,
        shows=("search:100",)),
]

CORE_ROWS = [
    cli("report --only", part="--only"),
    Cli(("report", "--only", ""), part="--only"),
    Cli(("report", "--only", " "), part="--only"),
    cli("report --only ronco-rounds,ronco-rounds", part="ronco-rounds"),
    cli("report --only ronco-rounds,", part="--only"),
    cli("report --only bogus", part="bogus"),
    cli("report --only ronco-rounds --out /proc/x", part="/proc/x"),
    cli("report --only ronco-rounds --seed -1", part="--seed"),
    cli("report --only ronco-rounds --workers 0", part="--workers"),
    cli("report --only ronco-rounds --workers 1024", part="--workers"),
    cli("report --no-such-option", part="--no-such-option"),
    cli("runs clean --command bogus", part="bogus"),
    cli("runs clean --older-than x", part="--older-than"),
    cli("runs clean --older-than 7y", part="--older-than"),
    cli("runs clean --older-than -1d", part="--older-than"),
    cli("runs clean", part="--all"),
    cli("runs list --store none", part="none"),
    cli("runs clean --all --store none", part="none"),
    cli("runs show", part="run"),
    cli("runs show no-such-run", part="no-such-run"),
    cli("bogus", part="bogus"),
    cli("ronco bogus", part="bogus"),
    cli("ronda hand", part="hand"),
    cli("ronco rounds --rounds 1000 --scheduler nonsense::", part="nonsense::"),
    cli("ronco rounds --rounds 1000", part="nonsense::",
        env=(("SIMCARDS_SCHEDULER", "nonsense::"),)),
    cli("ronco rounds --rounds 1000 --store /proc/x", part="/proc/x"),
    cli("ronco rounds --rounds 1000", part="/proc/x", env=(("SIMCARDS_STORE", "/proc/x"),)),
    cli("ronco rounds", part="no.such.module", env=(("SIMCARDS_GAMES", "no.such.module"),),
        subprocess=True),
    cli("ronco rounds", part="os", env=(("SIMCARDS_GAMES", "os"),), subprocess=True),
    cli("ronco equilibrium --players 2 --exact --ties first", OK, warns="SIMCARDS_CACHE",
        env=(("SIMCARDS_CACHE", "{tmp}/a-file"),), subprocess=True),
    cli("ronco equilibrium --players 2 --exact --ties first", OK, warns="SIMCARDS_CACHE",
        env=(("SIMCARDS_CACHE", "/proc/no-such-cache"),), subprocess=True),
    # Valid
    cli("version", OK), cli("--version", OK), cli("--help", OK),
    cli("runs list", OK), cli("runs clean --older-than 7d", OK),
    cli("runs clean --command best-threshold", OK), cli("runs clean --command ronda-compare", OK),
    cli("ronco rounds --rounds 1000 --workers 1", OK, env=(("SIMCARDS_SCHEDULER", " "),)),
]

HELP_ROWS = [cli(f"{c} --help", OK) for c in ("ronco", "ronda", "romi", "runs", "report")]

CLI_ROWS = [*_command_rows(), *RONCO_ROWS, *RONDA_ROWS, *ROMI_ROWS, *CORE_ROWS, *HELP_ROWS]


# --- the Python API --------------------------------------------------------------------------

BASE: dict[tuple[str, str], dict[str, Any]] = {
    ("ronco", "rounds"): {"rounds": 1000, "workers": 1, "store": "none"},
    ("ronco", "exact"): {"players": 3},
    ("ronco", "games"): {"games": 8, "workers": 1, "store": "none"},
    ("ronco", "best_threshold"): {"players": "3", "lives": 1, "first_stage": 256,
                                  "max_games": 256, "min_games": 256, "gain_games": 0,
                                  "max_iterations": 0, "workers": 1, "store": "none"},
    ("ronco", "equilibrium"): {"players": 2, "exact": True, "ties": "first"},
    ("ronco", "advise"): {"players": 4, "seat": 1, "card": "4o", "before": "swap",
                          "dealt": "7c"},
    ("ronda", "hands"): {"hands": 50, "workers": 1, "store": "none"},
    ("ronda", "matches"): {"matches": 4, "workers": 1, "store": "none"},
    ("ronda", "compare"): {"deals": 2, "workers": 1, "store": "none"},
    ("ronda", "ladder"): {"policies": "greedy,random", "deals": 2, "workers": 1,
                          "store": "none"},
    ("romi", "rounds"): {"players": 2, "rounds": 4, "workers": 1, "store": "none"},
    ("romi", "games"): {"players": 2, "rounds": 1, "games": 2, "workers": 1, "store": "none"},
    ("romi", "compare"): {"players": 2, "rounds": 1, "deals": 2, "workers": 1, "store": "none"},
    ("romi", "ladder"): {"policies": "greedy,expert", "players": 2, "rounds": 1, "deals": 2,
                         "workers": 1, "store": "none"},
    ("romi", "melds"): {"hand": "Ah 2h 3h"},
}
"""Every API function with the arguments of a tiny valid call."""

POSITIONAL = {("ronda", "compare"): ("greedy", "random"), ("romi", "compare"): ("greedy", "expert")}


class _Opaque:
    """A value of no type any argument takes."""

    def __repr__(self) -> str:
        return "<opaque>"


OPAQUE = _Opaque()


def _function(game: str, name: str) -> Callable[..., Any]:
    import importlib

    return getattr(importlib.import_module(f"simcards.{game}"), name)


def _wrong_values(annotation: str) -> list[Any]:
    """Values of the wrong type or out of every range for an argument so annotated."""
    values: list[Any] = [OPAQUE]
    if "bool" in annotation and "int" not in annotation:
        values.append("maybe")
    elif "int" in annotation:
        values.append(2.5)
    elif "float" in annotation:
        values.append(math.nan)
    elif "str" in annotation:
        values.append(12345)
    return values


EVERYWHERE = {"players", "policies"}
"""Arguments whose form differs from one function to the next, tried on every function; any
other is tried on the first function of its game that takes it."""


def _type_rows() -> list[Call]:
    """Every argument of the API, given a value of a wrong type (of no type at all where its
    type has no obvious wrong neighbour)."""
    rows = []
    tried: set[tuple[str, str]] = set()
    for game, name in BASE:
        signature = inspect.signature(_function(game, name))
        for param in signature.parameters.values():
            if (game, param.name) in tried and param.name not in EVERYWHERE:
                continue
            tried.add((game, param.name))
            for value in _wrong_values(str(param.annotation))[-1:]:
                if param.kind is param.POSITIONAL_OR_KEYWORD:
                    args = list(POSITIONAL[(game, name)])
                    args[0 if param.name == "a" else 1] = value
                    rows.append(Call(game, name, args=tuple(args), part=param.name))
                else:
                    rows.append(Call(game, name, {param.name: value}, part=param.name))
    return rows


API_ROWS = [
    *[Call(game, name, expect=OK) for game, name in BASE],
    *_type_rows(),
    Call("ronco", "games", {"lives": 7.5}, part="lives"),
    Call("ronco", "advise", {"seat": 0, "before": None, "dealt": None,
                             "lives": [3, 0, 2, 2]}, part="lives"),
    Call("ronco", "rounds", {"players": "4"}, expect=EITHER, part="players"),
    Call("ronco", "rounds", {"players": 4.0}, expect=EITHER, part="players"),
    Call("ronco", "rounds", {"players": 4.5}, part="players"),
    Call("ronco", "rounds", {"players": None}, expect=EITHER, part="players"),
    Call("ronco", "rounds", {"workers": "2"}, expect=EITHER, part="workers"),
    Call("ronco", "games", {"lives": "7"}, expect=EITHER, part="lives"),
    Call("ronda", "hands", {"policies": 123}, part="policies"),
    Call("ronco", "rounds", {"store": 123}, part="store"),
    Call("romi", "melds", {"hand": ["Ah", "2h", "3h"]}, expect=OK, base=False),
    Call("ronco", "rounds", {"threshold": 5.5}, part="threshold"),
    Call("ronco", "rounds", {"thresholds": [5.5, 5, 5, 5]}, part="thresholds"),
    Call("ronco", "rounds", {"thresholds": "5,5"}, part="thresholds"),
    Call("romi", "rounds", {"players": "3"}, expect=EITHER, part="players"),
    Call("ronda", "hands", {"players": 4, "teams": True}, expect=OK),
    Call("ronda", "hands", {"players": 4, "teams": False}, expect=OK),
    Call("ronda", "hands", {"players": 2, "teams": True}, part="teams"),
    Call("ronco", "rounds", {"rounds": "1__000"}, part="rounds"),
    Call("ronco", "rounds", {"rounds": True}, part="rounds"),
    Call("ronco", "rounds", {"seed": True}, part="seed"),
    Call("ronco", "rounds", {"players": 1}, part="players"),
    Call("ronco", "exact", {"players": 99}, part="players"),
    Call("ronda", "hands", {"players": 5}, part="players"),
    Call("romi", "rounds", {"players": 6}, part="players"),
    Call("ronda", "ladder", {"policies": ["greedy", "greedy"]}, part="policies"),
    Call("ronda", "ladder", {"policies": ["greedy", "lookahead:1"]}, expect=OK),
    Call("romi", "rounds", {"policies": ["greedy", "rummy:4"]}, expect=OK),
    Call("romi", "melds", {"hand": None}, part="hand", base=False),
    Call("romi", "melds", {"file": "no-such-file.txt"}, part="no-such-file.txt", base=False),
    Call("ronco", "best_threshold", {"players": [3, 3]}, part="players"),
    Call("ronco", "best_threshold", {"players": [3]}, expect=OK),
]


# --- the environments ------------------------------------------------------------------------

def _env(name: str, **options: Any) -> Callable[[], Any]:
    def make() -> Any:
        import importlib

        module = importlib.import_module(f"simcards.envs.{name}")
        env = module.env(**options)
        env.reset(seed=1)
        return env
    return make


def _seat(name: str, **options: Any) -> Callable[[], Any]:
    def make() -> Any:
        from simcards.envs import seat_env

        env = seat_env(name, **options)
        env.reset(seed=1)
        return env
    return make


def env_row(name: str, part: str, expect: str = ERROR, **options: Any) -> Env:
    """A row of the environment ``name`` made with ``options``; ``seat=`` makes it a
    one-seat Gymnasium environment (``seat_env``)."""
    label = f"{'seat_env' if 'seat' in options else 'env'} {name} " + " ".join(
        f"{k}={v!r}" for k, v in options.items())
    make = _seat(name, **options) if "seat" in options else _env(name, **options)
    return Env(label, make, part, expect)


ENV_ROWS = [
    env_row("ronda_v0", "players", players=5),
    env_row("ronda_v0", "players", players="x"),
    env_row("ronda_v0", "mode", mode="tournament"),
    env_row("ronda_match_v0", "target", target=0),
    env_row("ronco_v0", "players", players=1),
    env_row("ronco_v0", "deck", deck="tarot"),
    env_row("ronco_game_v0", "lives", lives=0),
    env_row("romi_v0", "players", players=9),
    env_row("romi_game_v0", "rounds", rounds=0),
    env_row("nope_v0", "nope_v0", seat=0, policies="greedy"),
    env_row("ronda_v0", "seat", seat=5, policies="greedy"),
    env_row("ronda_v0", "bogus", seat=0, policies="bogus"),
    env_row("romi_v0", "search", seat=0, policies="search:16"),
    env_row("ronda_v0", "", OK, seat=0, policies="greedy"),
    env_row("romi_v0", "", OK, seat=0, policies="random"),
]


# --- running a row ---------------------------------------------------------------------------

class WorkStarted(BaseException):
    """Raised by the guarded entry points: the program began computing on input it refuses."""


EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf]")


def _stop(*args: Any, **kwargs: Any) -> Any:
    raise WorkStarted("computing started")


def _guard(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every way to start computing (a chunk, a worker pool, a report) raise
    :class:`WorkStarted`."""
    import simcards.core.plans as plans
    import simcards.core.reports.make_all as make_all
    import simcards.core.runner as runner

    for module, name in ((runner, "run_chunk"), (plans, "run_chunk"),
                         (runner, "local_executor"), (plans, "local_executor"),
                         (make_all, "local_executor"), (make_all, "build_all")):
        monkeypatch.setattr(module, name, _stop)


def _stored_runs(store: Path) -> list[str]:
    return sorted(p.name for p in store.iterdir()) if store.is_dir() else []


def _mangled(text: str, argv: tuple[str, ...]) -> str | None:
    """Why ``text`` (what was printed) is mangled, if it is."""
    if EMOJI.search(text) and not any(EMOJI.search(a) for a in argv):
        return f"an emoji in the output: {EMOJI.findall(text)}"
    for char in text:
        if unicodedata.category(char) == "Co":
            return "a private-use character in the output"
    return None


def run_cli(row: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> str | None:
    """Run one command-line row; return why it misbehaved, or None."""
    store = tmp_path / "runs"
    monkeypatch.setenv("SIMCARDS_STORE", str(store))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hands.txt").write_text("Ah 2h 3h\n")
    (tmp_path / "a-file").write_text("")
    env = {key: value.replace("{tmp}", str(tmp_path)) for key, value in row.env}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    if row.subprocess:
        proc = subprocess.run([sys.executable, "-m", "simcards", *row.argv], capture_output=True,
                              text=True, timeout=300, env={**os.environ, **env})
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    else:
        monkeypatch.setattr("sys.stdin", io.StringIO(row.stdin))
        for module in row.hidden:
            monkeypatch.setitem(sys.modules, module, None)
        if row.expect == ERROR:
            _guard(monkeypatch)
        try:
            code = main(list(row.argv))
        except WorkStarted:
            capsys.readouterr()
            return "accepted: began computing (or started workers) on input it must refuse"
        except BaseException as exc:
            capsys.readouterr()
            return f"raised {type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
        captured = capsys.readouterr()
        out, err = captured.out, captured.err
    if "Traceback" in err:
        return f"a traceback: {err.strip().splitlines()[-1][:200]}"
    if code not in (0, 2):
        return f"exit status {code}: {err.strip()[-200:]}"
    mangled = _mangled(out + err, row.argv)
    if mangled:
        return mangled
    if code == 2:
        lines = err.strip().splitlines()
        if row.expect == OK:
            return f"a valid input refused: {err.strip()[:200]}"
        if out:
            return f"stdout on an error: {out.strip()[:100]}"
        if len(lines) != 1:
            return f"{len(lines)} lines on stderr: {err.strip()[:300]}"
        if not lines[0].startswith("simcards: error: "):
            return f"not the error line: {lines[0][:200]}"
        if row.part and not _cli_names(lines[0], row):
            return f"the message names neither {row.part!r} nor its value: {lines[0][:200]}"
        if _stored_runs(store):
            return f"a run kept before refusing: {_stored_runs(store)}"
        return None
    if row.expect == ERROR:
        return f"accepted (exit 0): {(out + err).strip()[:200]}"
    missing = [s for s in row.shows if s not in out]
    if missing:
        return f"the output does not show {missing}: {out.strip()[:300]}"
    if row.warns and row.warns not in err:
        return f"nothing said about {row.warns}: {err.strip()[:200]}"
    return None


def _names(message: str, part: str) -> bool:
    """Whether ``message`` names the argument ``part`` (``dealer_threshold``, or as its flag
    ``--dealer-threshold``), as a word and in either case."""
    return any(re.search(rf"(?<!\w){re.escape(form)}(?![\w-])", message, re.I)
               for form in (part, part.replace("_", "-"), part.replace("_", " ")))


def _cli_names(line: str, row: Cli) -> bool:
    """Whether the error ``line`` names what is wrong in ``row``: its ``part`` (a flag, a
    policy spec, a file), the value given to that flag, or the kind of that spec."""
    candidates = {row.part, row.part.split(":")[0]} - {""}
    argv = list(row.argv)
    if row.part in argv and argv.index(row.part) + 1 < len(argv):
        value = argv[argv.index(row.part) + 1]
        candidates |= {value, *(v for v in re.split(r"[:,]", value) if len(v) > 1)}
    return any(c in line for c in candidates)


def run_call(row: Call, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str | None:
    """Run one API row; return why it misbehaved, or None."""
    monkeypatch.setenv("SIMCARDS_STORE", str(tmp_path / "runs"))
    monkeypatch.chdir(tmp_path)
    if row.expect == ERROR:
        _guard(monkeypatch)
    kwargs = {**(BASE[(row.game, row.function)] if row.base else {}), **row.kwargs}
    args = row.args or POSITIONAL.get((row.game, row.function), ())
    try:
        result = _function(row.game, row.function)(*args, **kwargs)
    except WorkStarted:
        return "accepted a wrong argument and began computing"
    except UsageError as exc:
        if row.expect == OK:
            return f"a valid call refused: {exc}"
        if row.part and not _names(str(exc), row.part):
            return f"the UsageError does not name {row.part!r}: {exc}"
        return None
    except BaseException as exc:
        return f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
    if row.expect == ERROR:
        return f"accepted: returned {type(result).__name__}"
    if not hasattr(result, "to_dict"):
        return f"returned {type(result).__name__}, not a result"
    return None


def run_env(row: Env) -> str | None:
    """Make one environment row; return why it misbehaved, or None."""
    try:
        row.make()
    except UsageError as exc:
        if row.expect == OK:
            return f"a valid environment refused: {exc}"
        return None if _names(str(exc), row.part) else f"does not name {row.part!r}: {exc}"
    except BaseException as exc:
        return f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
    return "accepted" if row.expect == ERROR else None


def _cli_id(row: Cli) -> str:
    env = " ".join(f"{k}={v}" for k, v in row.env)
    return (f"{env} " if env else "") + " ".join(a if a else "''" for a in row.argv)


def _call_id(row: Call) -> str:
    args = [repr(a) for a in row.args] + [f"{k}={v!r}" for k, v in row.kwargs.items()]
    return f"{row.game}.{row.function}({', '.join(args)})"


def test_the_sweep_covers_about_four_hundred_inputs_and_every_command() -> None:
    from simcards.core.cli import command

    total = len(CLI_ROWS) + len(API_ROWS) + len(ENV_ROWS)
    assert 380 <= total <= 560, total
    swept = {" ".join(a for a in row.argv[:2] if not a.startswith("-")) for row in CLI_ROWS}
    root = command()
    for group, sub in root.commands.items():  # type: ignore[attr-defined]
        for name in getattr(sub, "commands", {None: None}):
            assert (f"{group} {name}" if name else group) in swept, (group, name)


@pytest.mark.parametrize("row", CLI_ROWS, ids=_cli_id)
def test_a_command_line_runs_cleanly_or_is_refused_in_one_line_before_any_work(
        row: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    why = run_cli(row, tmp_path, monkeypatch, capsys)
    assert why is None, why


@pytest.mark.parametrize("row", API_ROWS, ids=_call_id)
def test_an_api_call_returns_a_result_or_raises_a_usage_error_naming_the_argument(
        row: Call, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    why = run_call(row, tmp_path, monkeypatch)
    assert why is None, why


@pytest.mark.parametrize("row", ENV_ROWS, ids=lambda r: r.label)
def test_an_environment_with_a_wrong_argument_raises_a_usage_error_naming_it(row: Env) -> None:
    pytest.importorskip("pettingzoo")
    why = run_env(row)
    assert why is None, why


# --- damaged stores --------------------------------------------------------------------------

def _stored_run(store: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A finished tiny run in ``store``, its result removed so that the next run resumes from
    its chunks."""
    argv = ["ronco", "rounds", "--rounds", "1000", "--workers", "1", "--store", str(store)]
    assert main(argv) == 0
    capsys.readouterr()
    (run,) = store.glob("ronco-rounds-*")
    (run / "result.parquet").unlink()
    return run


def test_a_store_whose_chunks_folder_is_a_file_is_refused_in_one_line_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "a" / "store"
    run = _stored_run(store, capsys)
    for chunk in (run / "chunks").iterdir():
        chunk.unlink()
    (run / "chunks").rmdir()
    (run / "chunks").write_text("")
    code = main(["ronco", "rounds", "--rounds", "1000", "--workers", "1", "--store", str(store)])
    err = capsys.readouterr().err.strip()
    assert code in (0, 2) and "Traceback" not in err, err
    if code == 2:
        assert len(err.splitlines()) == 1 and str(run / "chunks") in err, err
        assert "File exists" not in err, err


def test_a_damaged_chunk_is_named_in_full_on_one_line_and_computed_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / ("a-long-folder-name-" * 12) / "store"
    run = _stored_run(store, capsys)
    (chunk,) = (run / "chunks").iterdir()
    chunk.write_bytes(b"")  # the Parquet reader's message on an empty file names its path
    code = main(["ronco", "rounds", "--rounds", "1000", "--workers", "1", "--store", str(store)])
    err = capsys.readouterr().err.strip()
    assert code == 0, err
    (line,) = [x for x in err.splitlines() if chunk.name in x]
    assert str(run / "chunks") in line, line
    reason = line.split(chunk.name, 1)[1]
    assert "/" not in reason or str(chunk) in reason, f"a path cut short: {line}"
