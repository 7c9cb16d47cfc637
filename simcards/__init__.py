"""simcards: Monte Carlo strategy analysis for traditional card games.

Three games, Ronco (with its Poroli variant), Ronda and Römi húngaro, with their rules in
``seeds/ronco.md``, ``seeds/ronda.md`` and ``seeds/romi.md``, every rule with an id that the code
and the tests cite. This docstring is the map of the package; how to add a game, a policy or a
command is in :mod:`simcards.core`.

Layout
------
The shared machinery lives in :mod:`simcards.core` and knows no game. Each game is one
sub-package (``simcards.ronco``, ``simcards.ronda``, ``simcards.romi``) that registers itself
with a :class:`~simcards.core.registry.Game` (its command group, report studies, cluster
warm-ups and policy kinds, each named as ``module:attribute`` and loaded on first use);
:mod:`simcards.games` lists them, one line per game, and ``$SIMCARDS_GAMES`` adds games that live
outside the package (``tests/toygame/`` is one).

* :mod:`simcards.core`: ``registry`` (games as plug-ins, and the layout every game follows),
  ``montecarlo`` (the one path every Monte Carlo command takes: seed and worker checks, executor,
  run store, progress, timing, resume, the result), ``runner`` (batches cut into fixed-size chunks
  with named random streams, run inline, in a process pool or on any ``Executor``, merged by name
  in chunk order), ``plans`` (searches that choose each batch from the last one's numbers, run
  side by side on one pool), ``store`` (the Parquet run store), ``runs`` (``simcards runs``),
  ``progress``, ``interrupts`` (Ctrl-C), ``fingerprint`` (the code fingerprint in every run key,
  and the numba cache keyed by it), ``policyspec`` (``kind:param:param`` policy specs, parsed and
  range-checked alike for every game), ``cluster`` (the dask executor), ``rng`` and ``rng_kernel``
  (xoshiro256** streams seeded by ``numpy.random.SeedSequence``), ``cards``, ``bits_kernel``,
  ``stats``, ``ladder`` (the Bradley-Terry ladder both ``ladder`` commands share), ``cli``,
  ``cli_options`` and ``commands`` (the ``simcards`` command, the shared flags and input
  checks, and the commands every game shares: a Monte Carlo run, ``compare``, ``ladder``),
  ``switches``
  (every rule switch declared once, and the options, keywords and parameters made from it),
  ``apiargs``, ``gameapi`` and ``results`` (the Python API's argument types, plumbing and one
  result type), ``spawnsafe``, ``table`` (a game as game-AI libraries take it), ``envs`` and
  ``openspiel_game`` (the PettingZoo, Gymnasium and OpenSpiel adapters, the only modules that
  import those libraries) and ``reports/`` (the report skeleton).
* :mod:`simcards.envs` (one PettingZoo environment module per table) and
  :mod:`simcards.openspiel` (registers every table with OpenSpiel).
* Every game package has the same files for the same things (written down in
  :mod:`simcards.core.registry`): ``__init__.py`` (the registration and the list of commands),
  ``rules.py`` (the rules as a frozen dataclass), ``codes.py`` (every integer code compiled code
  and Python share, declared once), ``policies.py``, ``kernel_state.py`` (the named structures
  compiled code passes around, as numba named tuples), ``<unit>_kernel.py`` (numba-compiled code
  only, one module per unit of play), ``<command>_batch.py`` (what a Monte Carlo command runs:
  its configuration, one chunk, the statistics chunks merge into), ``<question>_exact.py``
  (exact solvers), ``reference.py`` (the slow, independent engine written from the rules text,
  the tests' oracle), ``api.py`` (the Python API, which checks every argument, and whose
  docstring explains every key of every answer), ``cli.py`` (flags in, tables or JSON out),
  ``table.py`` (states, action numbering and observations for the environments),
  ``warmups.py`` and ``reports/`` (the game's report studies).
* ``simcards.ronco``: ``round_kernel`` (one round), ``game_kernel`` (whole games),
  ``race_kernel`` (candidates on common games), ``mixed_kernel`` and ``bayes_kernel``;
  ``rounds_batch``, ``games_batch``, ``best_threshold_batch`` and ``equilibrium_batch`` (mixed
  equilibria of whole games); ``rounds_exact`` (round enumeration), ``games_exact`` (the game's
  Markov chain), ``equilibrium_exact`` (the exact two-player round game), ``behaviour_exact``
  and ``behaviour_openspiel`` (the round over every behavioural strategy, rule E7) and
  ``bayes_exact`` (the exact best reply of rule S4 and its decision tables).
* ``simcards.ronda``: ``hand_kernel`` (the rules of a hand as numba primitives, on card
  identities), ``value_rules_kernel`` (one play and ``greedy`` on card values),
  ``play_kernel`` (whole hands), ``value_kernel`` (Monte Carlo hands of random and greedy seats
  on card values),
  ``compact_kernel``, ``search_kernel``, ``rollout_kernel`` and ``ismcts_kernel`` (the searching
  policies), ``match_kernel`` (whole matches and the duplicate format); ``hands_batch``,
  ``matches_batch`` and ``compare_batch``; ``summaries`` (rates and intervals) and ``terminal``
  (``simcards ronda play``).
* ``simcards.romi``: ``cards`` (the 108-card deck), ``actions`` (the moves of a round),
  ``melds_kernel`` (the exact meld solver in numba), ``table_melds_kernel`` (melds on the
  table), ``policies_kernel`` and ``expert_kernel`` (the policies' decisions), ``round_kernel``
  (the round), ``search_kernel`` (``search:N`` and ``seeing:N``), ``question_kernel`` (the
  report questions' rounds), ``expert_rule``, ``records`` and ``records_kernel`` (round records
  for the reference engine), ``rounds_batch``, ``compare_batch``, ``table_batch`` (runs with a
  ``random`` seat, on the table engine), ``melds_exact`` (the meld solver's answers) and
  ``table_melds_exact`` (the same questions given the melds on the table), ``table_codes``
  (the action numbering of the Römi environments).

Kernels and checks
------------------
The hot loops are numba functions over integer arrays and named tuples, never Python objects.
Each is checked against something it does not share code with: the game's reference engine,
played on the same deals and decisions (the Monte Carlo kernels play by play, the searching
policies decision by decision), exact enumerations, Markov chains and solvers (Monte Carlo
within 4 standard errors of the exact value), and the rule texts (rule tests named by rule id).
The tests are laid out by game (``tests/ronco/``, ``tests/ronda/``, ``tests/romi/``) with
``tests/core/`` for the shared machinery: CLI behaviour, the ``--json`` of a fixed list of
commands (``tests/core/fixed_commands/``), the worked examples in every game's ``rules.py`` and
``reference.py`` run as doctests, and a toy game that plugs in from outside the package. ``make
test`` keeps every cross-check at a size that fits a few minutes; ``make test-full``
(``pytest --full``, sizes in ``tests/sizes.py``) runs them at full size. The benchmarks are
``scripts/bench_*.py``, each documented in its own docstring.

Reproducibility
---------------
Every chunk of work draws from its own xoshiro256** stream, derived from (seed, stream name,
chunk index) (:mod:`simcards.core.rng`, :mod:`simcards.core.rng_kernel`,
:mod:`simcards.core.runner`), and chunks merge in chunk
order: the same seed gives bit-identical results for any ``--workers``, locally or on a dask
cluster, and after a resume. Searches that decide from their own estimates avoid every
floating-point operation whose last bit could differ between machines
(:mod:`simcards.ronco.equilibrium_batch`). Every report number comes from the same chunks and
streams as the command line, so the commands on each page reproduce it exactly; the one
exception is ``reports/ronco/bayes_timings.csv`` (seconds, which depend on the machine).

Nothing stale. A run's key includes a fingerprint of the package's sources, so a run made by
changed code never resumes from an older run's chunks. numba's own cache watches only the file
of the function it compiles, not the helpers inlined from other files; simcards therefore keeps
numba's cache in ``$SIMCARDS_CACHE/numba-<fingerprint of the kernel sources>`` (default
``~/.cache/simcards``), so changed kernel sources always compile afresh; old ``numba-*``
folders there can be deleted at any time. A ``SIMCARDS_CACHE`` that cannot be used (a file, a
folder that cannot be written) is said once on stderr and the default is used instead
(:mod:`simcards.core.fingerprint`).

The command line
----------------
Every computing command takes ``--seed`` (0 .. 2**63-1, default 20261129), ``--workers``
(default: all cores; more than the machine's memory holds, about 180 MB each, is refused) and
``--json`` (one JSON object on stdout, nothing else). Without ``--json`` it prints a table, and
progress on stderr for runs longer than a second (a bar in a terminal; elsewhere a plain line
now and then with the rate and the time left); a run whose work left would take more than
three minutes says so once, ``--json`` or not (:mod:`simcards.core.progress`). Counts accept
``1000000``, ``1_000_000``, ``1e6`` or ``1M``, in ASCII digits with an underscore only between
two digits; the suffixes are decimal and upper-case only (``k`` = 1,000, ``M`` = 1,000,000,
``G`` = 1,000,000,000), and each count has a maximum that its ``--help`` states. Bad input (an
unknown name, a value out of range, a number that is NaN or infinite, a count past its
maximum, an ``--out`` folder that cannot be written, flags that contradict each other or that
the command would ignore) prints one line, ``simcards: error: ...``, and exits with status 2
before anything is computed; an option the command does not take names the sibling commands
that do. The Python API (``simcards.<game>.<command>(...)``) makes the same checks and raises
:class:`~simcards.core.errors.UsageError`, a ``ValueError``.

Runs, resume and clusters
-------------------------
Every Monte Carlo batch is stored as it runs (:mod:`simcards.core.store`), one folder per run,
``<game>-<command>-<hash>/``, under ``--store DIR``, else ``$SIMCARDS_STORE``, else
``$XDG_DATA_HOME/simcards/runs`` (by default ``~/.local/share/simcards/runs``); ``--store
none`` keeps nothing. A run's folder holds ``manifest.json`` (what was asked: game, rules,
policies, seed, counts, chunk size, version, code fingerprint, status), ``chunks/`` (one Parquet
file per finished chunk, with its identity and a SHA-256 checksum in its metadata) and
``result.parquet`` once complete; a search keeps its stages, and ``simcards report`` each
study's batches, in folders nested inside. The same command started again resumes from the
finished chunks (a damaged or foreign chunk is named on stderr, removed and computed again) and
says so on stderr: ``resumed 3 finished chunks from DIR``, or that the run was already
complete. One Ctrl-C stops any command within two seconds with exit status 130 and one line
saying where the finished chunks are kept; worker processes are stopped, none is left running
(:mod:`simcards.core.interrupts`). ``simcards runs list``, ``runs show RUN`` and ``runs clean``
list, show and remove runs (:mod:`simcards.core.runs`).

``--scheduler ADDRESS`` (or ``$SIMCARDS_SCHEDULER``) runs the chunks of any Monte Carlo command,
and of ``simcards report``, on a dask distributed cluster (``pip install -e '.[cluster]'``), with
the same numbers (:mod:`simcards.core.cluster`); without it dask is never imported. The run
starts once the scheduler has a worker (it waits up to a minute for one) and uses every worker
the cluster has, including those that join later: ``--workers`` does not make it wait for that
many. Workers are pinned to one numba thread each and compile (or load) the kernels once when
the run connects; that warm-up is reported apart from the simulation (``cluster`` in the JSON).
A worker that dies mid-run has its chunks run again elsewhere, and the result is unchanged.
Each chunk costs far more scheduling on a cluster than locally, so chunks should hold half a
second of work or more; the defaults (2M Ronco rounds, 32k games) are sized for that.
``scripts/bench_cluster.py`` measures throughput, warm-up and per-chunk overhead.

Environments
------------
Every game's tables (``table.py``) are PettingZoo AEC environments (:mod:`simcards.envs`), one
seat of any of them a Gymnasium environment (:func:`simcards.envs.seat_env`, against the game's
own policies), and OpenSpiel Python games (:mod:`simcards.openspiel`); the ``rl`` extra installs
the libraries (``pip install -e '.[rl]'``). Agents are the seats ``player_0`` ..
``player_<n-1>``; an observation is a dict of ``observation`` (only what the seat may see,
documented field by field in each environment's ``help``) and ``action_mask``. A Ronda action
is a card id, a Ronco action keep (0) or pass (the dealer's pass is his cut); a Römi move may be
several codes in a row (:mod:`simcards.core.table`). Only the end pays: a Ronda hand each side's
points, a Ronco round minus the lives lost, a Römi round minus each round score, a match or a
game 1 to the winner (shared wins split); each agent's last info holds the game's figures.
OpenSpiel games have explicit chance nodes, information-state and observation strings and
tensors, and ``resample_from_infostate`` for OpenSpiel's ISMCTS bot. The tests run
PettingZoo's ``api_test`` and ``seed_test``, Gymnasium's ``check_env`` and OpenSpiel's
``random_sim_test`` on every environment, and check that redealing every card a seat cannot see
changes nothing in its observation. ``scripts/bench_envs.py`` times them,
``scripts/openspiel_ismcts_ronda.py`` plays OpenSpiel's ISMCTS bot against a Ronda policy, and
``scripts/learn_ronco.py`` learns one Ronco seat's keep decision through ``seat_env`` and scores
it against the exact ``bayes`` rule.
"""

__version__ = "0.1.0"

from simcards.core.fingerprint import configure_numba_cache as _configure_numba_cache
from simcards.core.interrupts import hold_during_start as _hold_during_start

_hold_during_start()  # a Ctrl-C while the command imports its modules is one line too
_configure_numba_cache()
