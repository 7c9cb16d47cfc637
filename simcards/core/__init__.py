"""The shared machinery: it knows no game, and every game plugs into it the same way.

What the modules are is in :mod:`simcards`'s docstring; how a game plugs in is in
:mod:`simcards.core.registry`. This docstring says how to add to the project.

Adding a game
-------------
A game is one sub-package laid out as every game is (:mod:`simcards.core.registry` names the
files), written against the public pieces of this package only; ``tests/toygame/`` is the
smallest complete example, and plugs in from outside the package.

1. The rules: ``seeds/<game>.md`` with an id for every rule and a table of its options, then
   ``rules.py`` (a frozen dataclass inheriting :class:`~simcards.core.switches.Rules`, every
   field a :func:`~simcards.core.switches.switch` citing those ids: the command line's
   options, the API's keywords, the table parameters, the kernels' codes and the run summary
   are generated from it), ``codes.py`` and ``reference.py``, the slow engine written from the
   rules text alone that every kernel is tested against.
2. The kernels (``<unit>_kernel.py``, numba only, taking :mod:`simcards.core.rng` streams and
   the named tuples of ``kernel_state.py``) and, per Monte Carlo command, a
   ``<command>_batch.py`` whose chunks return named sums (a NamedTuple or a mapping of arrays)
   that merge by addition, so that :mod:`simcards.core.runner` can cut, run and merge them.
3. ``api.py``: one function per command, with keyword arguments named after its flags (the
   rule switches written into its signature by a :class:`~simcards.core.switches.RuleSet`'s
   ``keywords``, the function receiving the built ``rules``; the run keywords by
   :func:`simcards.core.apiargs.run_keywords`, the function receiving them as ``run``), its
   arguments declared with :func:`simcards.core.apiargs.checked`, checked before any work
   (:class:`~simcards.core.errors.UsageError` naming the flag, with the checks of
   :mod:`simcards.core.cli_options`), run through :func:`simcards.core.montecarlo.monte_carlo`
   (seed, workers, run store, dask, progress, resume) and returning a
   :class:`~simcards.core.results.Result` with a frame function; its module docstring explains
   every key of every answer (a test holds it to the keys the commands print).
4. ``cli.py``: a typer app, one thin command per API function. The commands every game shares
   are written by :mod:`simcards.core.commands`: a run of hands, rounds, matches or games with
   one policy per seat (``add_run``), ``compare`` and ``ladder``, each given the game's API
   module, its :class:`~simcards.core.switches.RuleSet`, its count (a
   :class:`~simcards.core.cli_options.Count` the API parses) and the function that prints the
   answer. A command of the game's own takes the rule switches' options from the same
   ``RuleSet``'s ``options``, the run options from
   :func:`~simcards.core.cli_options.run_options`, and calls the API through
   :class:`~simcards.core.commands.GameApi` (``--json`` or the printer). The API's ``ladder``
   is :func:`simcards.core.ladder.run_ladder` given the game's ``compare``.
5. ``__init__.py``: ``GAME = Game(...)`` (the app, report studies, warm-ups, policy kinds,
   tables and the ``example`` command the contract runs) and ``COMMANDS`` with
   :func:`simcards.core.gameapi.command_functions`, importing nothing heavy; then one line in
   :mod:`simcards.games` (or ``SIMCARDS_GAMES=module.name`` for a game kept outside the
   package).
6. Optionally ``table.py`` (a :class:`~simcards.core.table.TableGame`, named in ``tables``,
   gives the PettingZoo, Gymnasium and OpenSpiel versions), ``reports/`` (each study a
   ``build(root, *, seed, workers, progress, quick, executor, store)`` writing its page with
   :mod:`simcards.core.reports.common`) and ``warmups.py`` (tiny calls that compile each
   kernel on a dask worker).
7. Tests under ``tests/<game>/``: rule tests named by rule id, kernels against the reference
   engine on the same deals, Monte Carlo against exact answers within 4 standard errors. The
   contract every game passes (``tests/core/test_contract.py``: the same numbers for any
   ``--workers``, resume, ``--json`` equal to ``.to_dict()``, one-line errors, Ctrl-C) and the
   environment checks run on the new game without a test of their own. Add the new commands to
   the README's table of commands (a test checks that it names every command).

Adding a policy
---------------
A policy kind is declared once, as data, in the game's ``policies.py``: a
:class:`~simcards.core.policyspec.PolicyKind` in the game's ``KINDS``, with its kind code from
``codes.py`` and each parameter a typed, bounded :class:`~simcards.core.policyspec.Param` with
its default. That alone makes ``--policies`` parse, range-check and explain it in ``--help``,
and write it back as the text run keys are built from. Then:

* a rule for it in ``seeds/<game>.md`` (Q-ids), cited in its description;
* the kernels play it: dispatch on its code where the seat's decision is made (a test holds
  the kinds that parse to the codes the kernels play); a searching policy draws from its seat's
  own stream, never from the deal's, so that the deals stay those of the other policies;
* the reference engine plays it too, from the seat's observation, and a test plays both on the
  same deals and requires the same decisions;
* its facts are declared with it, never branched on by name: ``cost`` (a costly policy makes
  its runs' chunks smaller, so progress and Ctrl-C stay prompt), ``legal=False`` with the
  reason for one that reads hidden cards (a bound, not a player: ``check_legal`` refuses it in
  ``ronda play`` and the table environments), and what it ``needs``
  (``tests/core/test_policy_kinds.py`` plays every declared kind in the kernel and the
  reference);
* for the environments' ``seat_env``, the game's ``table.py`` seats it.

A user's own function (``PATH.py:FUNCTION``, :mod:`simcards.core.userpolicy`) is the ``user``
kind: a game that declares it (Ronco, rule S5; Ronda, rule Q11; Römi, rule Q9) reads such
entries wherever it reads a policy, seats the compiled function in its kernel through
:mod:`simcards.core.user_kernel`'s one signature, and plays it on its table engine when numba
cannot compile it (Römi's always plays there, :mod:`simcards.romi.users`); the engine choice
and the Python engine's checked call are :mod:`simcards.core.engines`'. A kind played from a
file (Ronco's keep charts, rule S6) declares :attr:`~simcards.core.policyspec.PolicyKind.reads`.

Adding a rule switch
--------------------
One :func:`~simcards.core.switches.switch` field on the game's rules dataclass (its words and
their kernel codes, or its integer range; its rule ids; its help line; whether a hand or only a
match reads it; ``keyed_when_changed=True``, so that the runs stored before it keep their
keys), its row in the options table of ``seeds/<game>.md``, and the code that implements the
rule (the kernels read it from ``rules.kernel``, the reference engine from its options).
Every command, API function and table game that reads that level of the rules takes it;
``tests/core/test_switches.py`` holds every surface to the declaration.

Adding a command
----------------
A command is a function of the game's ``api.py`` (named in ``COMMANDS``, so that
``simcards.<game>.<command>(...)`` works) and a thin typer command in its ``cli.py`` that calls
it and prints the table or, with ``--json``, ``.to_dict()``. A Monte Carlo command describes its
work to :func:`~simcards.core.montecarlo.monte_carlo` (a header naming game and command, the
counts and chunk size that key its run, the batch, the JSON answer and the frame); a search
whose batches depend on earlier ones is a plan (:mod:`simcards.core.plans`). Declare every count
once, with its maximum, as a :class:`~simcards.core.cli_options.Count` (the API parses it, the
flag's help is written from it); refuse
flags that would have no effect, explain the answer's keys in ``api.py``'s docstring, and name
the command in the README's table of commands. A command whose ``--json`` must never change
while the code is reshaped goes in ``tests/core/fixed_commands/commands.txt``
(``scripts/record_fixed_commands.py``).
"""
