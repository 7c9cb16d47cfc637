"""Games are plug-ins: each one is a sub-package that describes itself with a :class:`Game`.

The shared machinery (CLI, cluster, reports) never imports a game by name. It reads the list
of game modules in :mod:`simcards.games` (one line per game) plus any named in the environment
variable ``SIMCARDS_GAMES`` (comma-separated, for games that live outside the package, such as
the toy game of the tests), imports each, and takes its module attribute ``GAME``.

Everything a :class:`Game` names is a ``"module:attribute"`` reference resolved on first use,
so listing the games imports no kernel, no typer app and no matplotlib.

The game layout
---------------
Every game package (and the toy game of the tests) uses the same file names for the same kind
of thing, so that a reader who knows one game finds their way in the others:

``__init__.py``
    The registration (``GAME``) and ``COMMANDS``: each command is a function of ``api.py``
    and an attribute of the package (:mod:`simcards.core.gameapi`). Imports nothing heavy.
``rules.py``
    The rules as a documented frozen dataclass, every field citing its rule id in
    ``seeds/<game>.md``.
``codes.py``
    Every integer code that compiled code and Python share: policy kinds, rule switches,
    outcomes, statistics slots. Declared here once, never copied.
``policies.py``
    The policy kinds a user names (``kind:param``) and their checks.
``kernel_state.py``
    The named structures compiled code passes around (numba named tuples): the rules as the
    kernels read them (``KernelRules``, built by the rules dataclass's ``kernel``), the seats'
    policies (``Seats``), workspaces, scratch and records. A compiled function takes a handful
    of these, never a long list of arrays by position.
``<unit>_kernel.py``
    numba-compiled code, one module per unit of play or part of one (``round_kernel.py``,
    ``hand_kernel.py``, ``match_kernel.py``, ``melds_kernel.py``, ``policies_kernel.py``),
    beside at most thin Python wrappers (a call into compiled code) and the constants it
    reads. Compiled code lives nowhere else (``tests/core/test_layout.py``).
``<command>_batch.py``
    What a Monte Carlo command runs: its configuration, one chunk of the work and the
    statistics that chunks merge into (``rounds_batch.py``, ``compare_batch.py``).
``<question>_exact.py``
    Exact solvers: enumerations, Markov chains, equilibria, the meld solver
    (``rounds_exact.py``, ``melds_exact.py``); what they compile is in kernel modules.
``table.py``
    The game as game-AI libraries take it (:mod:`simcards.core.table`): its states with
    explicit chance, action numbering and observation encoding, for the PettingZoo
    environments of :mod:`simcards.envs` and the OpenSpiel games of :mod:`simcards.openspiel`.
``reference.py``
    The slow pure-Python reference engine, written from the rules text alone: the oracle that
    the kernels are played against on the same deals.
``api.py``
    The Python API: one function per command, returning a
    :class:`~simcards.core.results.Result` with ``.to_dict()`` (the ``--json`` object) and
    ``.to_frame()``; per-seat ``--policies`` read by ``KINDS.parse_list``.
``cli.py``
    The typer commands, a thin layer over ``api.py``.
``reports/``
    The headline studies that ``simcards report`` builds.
``warmups.py``
    Small calls that compile every kernel once (numba's disk cache keeps them).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from importlib import import_module
from typing import Any

GAMES_ENV = "SIMCARDS_GAMES"
"""Extra game modules to load, comma-separated (``package.module``)."""


def resolve(ref: str) -> Any:
    """The object named by ``"package.module:attribute.path"``."""
    module, sep, name = ref.partition(":")
    if not (module and sep and name):
        raise ValueError(f"reference must look like 'package.module:name', got {ref!r}")
    obj: Any = import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class Game:
    """What a game contributes to the shared machinery; every reference is resolved lazily."""

    name: str
    """The CLI group's name (``simcards NAME ...``) and the prefix of its run-store folders."""
    help: str
    """One line for ``simcards --help``."""
    cli: str
    """``"module:attr"`` of the game's :class:`typer.Typer` app."""
    studies: dict[str, str] = field(default_factory=dict)
    """Report studies: study name -> ``"module:function"`` building it (see :mod:`reports`)."""
    long_studies: dict[str, str] = field(default_factory=dict)
    """Studies too long for ``make report``'s budget, built the same way but only when asked
    (``simcards report --long`` or ``--only NAME``); their pages stay until run again."""
    warmups: tuple[str, ...] = ()
    """``"module:function"`` warm-ups run once on every dask worker (compile the kernels)."""
    policy_kinds: str | None = None
    """``"module:attr"`` of the game's :class:`~simcards.core.policyspec.PolicyKinds`."""
    example: tuple[str, ...] = ()
    """A Monte Carlo command of the game that runs in a few seconds and in several chunks, as
    the words after ``simcards NAME`` (``("rounds", "--rounds", "6M")``). The contract suite
    that every game must pass (``tests/core/test_contract.py``) runs it with 1 and 2 workers,
    interrupted and resumed, and through the Python API (``simcards.<game>.<command>``)."""
    tables: dict[str, str] = field(default_factory=dict)
    """Environment name -> ``"module:attr"`` of a :class:`~simcards.core.table.TableGame` of
    the game (a hand, a match, ...): its PettingZoo environments and OpenSpiel games
    (``table.py``)."""
    example_long: tuple[str, ...] = ()
    """The same command made long (minutes or more), for the contract's Ctrl-C check."""

    def app(self) -> Any:
        return resolve(self.cli)

    def study(self, name: str) -> Callable[..., Any]:
        return resolve({**self.studies, **self.long_studies}[name])


def game_modules() -> tuple[str, ...]:
    """The modules that define games: :data:`simcards.games.GAMES`, then ``$SIMCARDS_GAMES``."""
    from simcards.games import GAMES

    extra = [m.strip() for m in os.environ.get(GAMES_ENV, "").split(",") if m.strip()]
    for module in extra:
        if not all(part.isidentifier() for part in module.split(".")):
            from simcards.core.errors import UsageError

            raise UsageError(f"${GAMES_ENV}: {module!r} is not a module name (package.module, "
                             "comma-separated)")
    return tuple(dict.fromkeys([*GAMES, *extra]))


def _where(module: str) -> str:
    """Where a game module was named: the environment variable a user sets, or the package's
    own list."""
    from simcards.games import GAMES

    return "simcards.games" if module in GAMES else f"${GAMES_ENV}"


@cache
def _load(modules: tuple[str, ...]) -> tuple[Game, ...]:
    """The games of ``modules``. A module that cannot be imported or registers no game is
    bad input (most often a typo in ``$SIMCARDS_GAMES``): a :class:`UsageError` naming it,
    which the command line prints as one line, rather than a traceback."""
    from simcards.core.errors import UsageError

    games = []
    for module in modules:
        try:
            imported = import_module(module)
        except ImportError as exc:
            raise UsageError(f"game module {module!r} (from {_where(module)}) cannot be "
                             f"imported: {exc}") from None
        game = getattr(imported, "GAME", None)
        if not isinstance(game, Game):
            raise UsageError(f"game module {module!r} (from {_where(module)}) has no "
                             "GAME = Game(...) attribute")
        games.append(game)
    names = [g.name for g in games]
    if len(set(names)) != len(names):
        raise UsageError(f"two game modules register the same name: {names} (modules: "
                         f"{', '.join(modules)})")
    return tuple(games)


def games() -> tuple[Game, ...]:
    """Every registered game, in registration order."""
    return _load(game_modules())


def game_module(name: str) -> str | None:
    """The module that registered the game ``name`` (None if no game has that name)."""
    modules = game_modules()
    for module, game in zip(modules, _load(modules), strict=True):
        if game.name == name:
            return module
    return None


def all_studies(long: bool = False) -> dict[str, tuple[Game, str]]:
    """Every report study of every game: name -> (game, reference); with ``long``, the long
    studies too (after each game's others)."""
    return {name: (g, ref) for g in games()
            for name, ref in [*g.studies.items(), *(g.long_studies.items() if long else ())]}


def all_warmups() -> tuple[str, ...]:
    """Every game's cluster warm-ups, in registration order."""
    return tuple(ref for g in games() for ref in g.warmups)


EXTRA_NICE = 10
"""The scheduling priority of :class:`Warmups`' extra warm-ups (``os.nice`` increment)."""


class Warmups:
    """The kernels of some games, compiling (or loading) into numba's disk cache, each game's
    warm-ups in a fresh interpreter of their own, every game at once.

    Games compile for very different times (Ronda's search kernels take several times Ronco's
    round kernels), and nothing tells in advance which is longest: started together, the
    longest is never left to start last while the other cores idle, and a run can start on
    the games that are ready while the others still compile (``simcards report`` does).

    On a cold numba cache this is most of a fresh checkout's first run. Without it every
    worker process compiles the kernels it meets, side by side with the others compiling the
    same ones; here different games compile on different cores, once, and every later process
    loads them from numba's disk cache. On a warm cache it costs an import per game."""

    def __init__(self, game_names: Sequence[str], extra: Sequence[str] = ()) -> None:
        """``extra``: further warm-up references, compiled in one more interpreter of their
        own beside the games' (waited for under the name ``"extra"``) at a lower scheduling
        priority (``nice`` 10): they fill a core that the games' warm-ups leave idle (one
        game's take several times another's) instead of slowing the longest of those."""
        chosen = [(g.name, list(g.warmups), 0) for g in games()
                  if g.name in game_names and g.warmups]
        if extra:
            chosen.append(("extra", list(extra), EXTRA_NICE))
        self._procs: list[subprocess.Popen[bytes]] = []
        self._stopped = False
        self._lock = threading.Lock()  # no warm-up starts once stop() has begun
        pool = ThreadPoolExecutor(max(1, len(chosen)), thread_name_prefix="warm-ups")
        self.futures: dict[str, Future[None]] = {
            name: pool.submit(self._run, refs, nice) for name, refs, nice in chosen}
        pool.shutdown(wait=False)

    def _run(self, refs: list[str], nice: int = 0) -> None:
        code = ("import os\n" + (f"hasattr(os, 'nice') and os.nice({nice})\n" if nice else "")
                + "from simcards.core.registry import resolve\n"
                + "".join(f"resolve({ref!r})()\n" for ref in refs))
        with self._lock:
            if self._stopped:
                return
            proc = subprocess.Popen([sys.executable, "-c", code])
            self._procs.append(proc)
        if proc.wait() != 0 and not self._stopped:
            raise RuntimeError(f"the warm-ups {', '.join(refs)} failed "
                               f"(exit status {proc.returncode})")

    def wait(self, game: str) -> None:
        """Return once ``game``'s kernels are compiled (at once for a game not started)."""
        future = self.futures.get(game)
        if future is not None:
            future.result()

    def wait_all(self) -> None:
        for game in self.futures:
            self.wait(game)

    def stop(self) -> None:
        """Stop the warm-ups still running (a run that ends early does not wait for them)."""
        with self._lock:
            self._stopped = True
        for proc in self._procs:
            if proc.poll() is None:
                proc.kill()
        for proc in self._procs:
            proc.wait()


def compile_warmups(game_names: Sequence[str], extra: Sequence[str] = ()) -> None:
    """Compile (or load) the kernels of ``game_names`` and the warm-ups ``extra``
    (:class:`Warmups`) and wait for all."""
    warm = Warmups(game_names, extra)
    try:
        warm.wait_all()
    finally:
        warm.stop()
