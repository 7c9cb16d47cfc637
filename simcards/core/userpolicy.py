"""A player's own rule as a policy: a Python function ``f(obs, legal) -> int`` in a file,
named on the command line as ``PATH.py:FUNCTION`` wherever a policy is read.

``obs`` is the seat's observation exactly as the game's PettingZoo environment gives it (a
float32 vector, documented field by field in ``help(simcards.envs.<game>_v0.env)``), ``legal``
its action mask (int8, 1 for a legal action) and the result an action code of that
environment. Everything a seat may know is in ``obs``; a policy keeps no memory between
decisions (one that needs memory is out of scope) and answers an observation the same way every
time (a game's kernels may ask it once per situation and keep the answer), and it cannot read
hidden cards: no engine state is passed to it.

Two ways to run it, one answer:

* Compiled. A function numba can compile is compiled once per process into a ``cfunc`` of the
  one signature :data:`simcards.core.user_kernel.SIGNATURE`, and the game's kernels take it as
  a first-class function
  argument (a function type, not a specialisation per function): the kernels are compiled and
  cached on disk once for every user policy, so a new or edited policy costs only its own
  compilation (about a second) before the first deal.
* Python. A function numba cannot compile (it uses a dict, a class, another library) runs on
  the game's Python table engine, the engine of the environments, fed the same deals; the
  reason is kept (:meth:`UserPolicy.compiled`) so that the command can say why.

A policy is identified by its file's text and the function's name (:attr:`UserPolicy.digest`):
the run key includes it, so editing the file never resumes the chunks of an older run, and
the text travels to every worker (a :class:`UserPolicy` pickles as its text, and each process
loads and compiles it once, :func:`_loaded`).
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import re
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simcards.core.errors import UsageError, read_text

USER_SPEC = re.compile(r"(?P<path>.+\.py):(?P<name>[A-Za-z_][A-Za-z0-9_]*)\Z")
"""A user policy as written: a file path ending in ``.py``, a colon, a function name."""
MAX_USER_POLICIES = 4
"""The most distinct user functions one run may seat (the kernels hold that many slots)."""


def is_user_spec(text: object) -> bool:
    """Whether ``text`` names a user policy (``PATH.py:FUNCTION``) rather than a built-in."""
    return isinstance(text, str) and USER_SPEC.match(text.strip()) is not None


@dataclass(frozen=True)
class UserPolicy:
    """A user function: where it was read from, its file's text and its name."""

    path: str
    """The path as written (what the JSON shows)."""
    name: str
    source: str = field(repr=False)

    @property
    def digest(self) -> str:
        """What identifies the policy in run keys: the file's text and the function's name."""
        h = hashlib.sha256(self.source.encode() + b"\0" + self.name.encode())
        return h.hexdigest()[:16]

    def text(self) -> str:
        """``PATH.py:FUNCTION``, as the command line reads it back."""
        return f"{self.path}:{self.name}"

    def __str__(self) -> str:
        return self.text()

    def function(self) -> Callable[..., Any]:
        """The Python function (its plain Python form when the file wrapped it in ``@njit``)."""
        fn = _loaded(self).function
        return getattr(fn, "py_func", fn)

    def compiled(self) -> tuple[Any | None, str]:
        """The policy as the kernels call it (a ``cfunc``; None when numba cannot compile it)
        and, when it cannot, the first line of numba's reason."""
        return _loaded(self).compile()


def load(text: str, flag: str = "--policies") -> UserPolicy:
    """The user policy ``text`` (``PATH.py:FUNCTION``) read and checked before any deal: the
    file exists and parses, defines the function at its top level, and the function takes
    two arguments. Each failure is one line naming ``flag`` (when given) and what is
    wrong."""
    m = USER_SPEC.match(text.strip())
    if m is None:
        raise UsageError(f"{_prefix(flag)}{text!r} is not PATH.py:FUNCTION")
    path, name = m.group("path"), m.group("name")
    policy = UserPolicy(path, name, read_text(path, f"{_prefix(flag)}{path}"))
    _loaded(policy, flag)
    return policy


# ---------------------------------------------------------------- one process's loaded policies


@dataclass
class _Loaded:
    function: Callable[..., Any]
    compiled: tuple[Any | None, str] | None = None

    def compile(self) -> tuple[Any | None, str]:
        if self.compiled is None:
            self.compiled = _compile(self.function)
        return self.compiled


_LOADED: dict[str, _Loaded] = {}
"""This process's loaded user policies, by digest: each file is executed and compiled once."""


def _loaded(policy: UserPolicy, flag: str = "--policies") -> _Loaded:
    got = _LOADED.get(policy.digest)
    if got is None:
        got = _LOADED[policy.digest] = _Loaded(_function(policy, flag))
    return got


def _prefix(flag: str) -> str:
    return f"{flag}: " if flag else ""


def from_function(fn: Callable[..., Any]) -> UserPolicy:
    """The user policy of a function object (the Python API's form): the function as its file
    defines it, so that workers load it from the same text."""
    fn = getattr(fn, "py_func", fn)
    name = getattr(fn, "__name__", "")
    try:
        path = inspect.getsourcefile(fn)
    except TypeError:
        path = None
    if not path or not Path(path).is_file() or not USER_SPEC.match(f"{path}:{name}"):
        raise UsageError(f"policy {name or fn!r}: a function given as a policy must be defined "
                         "at the top level of a .py file (workers load it from there)")
    return load(f"{path}:{name}")


def _function(policy: UserPolicy, flag: str) -> Callable[..., Any]:
    """Execute the file as a module of its own and return its function, checked."""
    where = f"{_prefix(flag)}{policy.path}"
    try:
        tree = ast.parse(policy.source, filename=policy.path)
    except SyntaxError as exc:
        raise UsageError(f"{where}, line {exc.lineno}: syntax error: {exc.msg}") from None
    defined = [n.name for n in tree.body
               if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    module = types.ModuleType(f"simcards_user_{policy.digest}")
    module.__file__ = str(Path(policy.path).resolve())
    try:
        exec(compile(tree, module.__file__, "exec"), module.__dict__)
    except Exception as exc:  # the user's module failed to load: one line, as a usage error
        line = _line_of(exc, module.__file__)
        raise UsageError(f"{where}{line}: {type(exc).__name__}: {exc}") from None
    fn = module.__dict__.get(policy.name)
    if fn is None or not callable(fn):
        names = [k for k, v in module.__dict__.items()
                 if callable(v) and not k.startswith("_")
                 and getattr(v, "__module__", None) == module.__name__] or defined
        listed = f" (it defines {', '.join(names)})" if names else ""
        raise UsageError(f"{where} has no function {policy.name!r}{listed}")
    _check_arguments(getattr(fn, "py_func", fn), f"{where}:{policy.name}")
    return fn


def _check_arguments(fn: Callable[..., Any], where: str) -> None:
    """Two positional arguments, ``(obs, legal)``; more only with defaults."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        raise UsageError(f"{where} is not a Python function") from None
    positional = [p for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    kw_required = [p for p in params if p.kind == p.KEYWORD_ONLY and p.default is p.empty]
    if kw_required or len(required) > 2 or (len(positional) < 2 and not varargs):
        shown = ", ".join(p.name for p in params)
        raise UsageError(f"{where} must take two arguments (obs, legal); it takes ({shown})")


def _line_of(exc: BaseException, filename: str) -> str:
    """``, line N`` of the deepest frame of ``exc`` in the user's file, if any."""
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    if isinstance(exc, SyntaxError) and exc.lineno:
        line = exc.lineno
    return f", line {line}" if line else ""


def _compile(fn: Callable[..., Any]) -> tuple[Any | None, str]:
    """``fn`` compiled for the kernels, or None and the first line of numba's reason."""
    from numba.core.errors import NumbaError

    from simcards.core.user_kernel import compile_policy

    try:
        return compile_policy(getattr(fn, "py_func", fn)), ""
    except NumbaError as exc:
        return None, _reason(str(exc))


def _reason(message: str) -> str:
    """The line of a numba error that says what it could not compile."""
    skip = ("Failed in nopython mode pipeline", "During:", "File ", "^", "- Resolution",
            "- Of which", "No implementation of function")
    for raw in message.splitlines():
        line = raw.strip().replace("\x1b[1m", "").replace("\x1b[0m", "")
        if line and not line.startswith(skip):
            return line[:200]
    return "numba cannot compile it"
