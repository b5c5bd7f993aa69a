"""One line for a plug-in that fails: where it failed and the first useful line of why.

A plug-in fails in one of three ways: its file does not import, numba cannot
type it (a wrong signature, an unsupported operation: a ``TypingError`` of
100 lines), or it raises while the games run (numba adds the ``raise``
statement's line to the traceback). :func:`explain` turns each into one line
naming the file, the function and the line; the CLI prints it after
``error:`` (exit 2), and the whole text under ``cardsim --debug``.

Two guards the generated dispatch (``cardsim.policies.dispatch_source``) puts around each
plug-in call turn silent faults into such typing errors, before a game is played: its answer
must be an int (:func:`returned_int`), and the arrays it reads are passed read-only
(:data:`read_only`), so a write into its hand or the table is refused where it is written.
"""

from __future__ import annotations

import re
import traceback
from pathlib import Path

import numba
import numpy as np
from numba.core import errors as nerrors
from numba.core import types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic, overload

from cardsim.errors import PolicyError

# numba's location lines: 'File "mine.py", line 12:' (typing errors) and 'File "mine.py", line 12, in f'
_PACKAGE = Path(__file__).resolve().parent
_LOCATION = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>\w+))?')
# a call that does not fit the function's parameters, and the function numba was resolving
_BIND = re.compile(r"to signature '(?P<sig>\([^']*\))' due to \"TypeError: (?P<why>[^\"]+)\"")
_CALLEE = re.compile(r"CPUDispatcher\(<function (\w+) at ")
_NOISE = ("During:", "File \"", "Resolution failure", "- Resolution", "- Of which", "Rejected as", "No implementation",
          "Cannot determine", "This error may have been", "Failed in nopython", "Internal error at", ">>>", "^")


#: a plug-in decision that returns something other than an int (numba's typing error, turned into one
#: line by :func:`explain`)
_RETURNS = re.compile(r"(plug-in \S+, function \w+, line \d+: returns [^\n]*? answer as an int[^\n]*?"
                      r"what each decision returns\))")


def returned_int(value, where):
    """``value``, a plug-in decision's answer, when it is an int (or a bool). The generated dispatch
    (``cardsim.policies.dispatch_source``) passes each answer the kernel reads through it; compiled,
    a float (which the kernel would truncate without a word: 0.5 plays card 0) or an array is a
    typing error naming the plug-in, so its kernel does not compile. ``where`` is a literal:
    ``"plug-in FILE, function NAME, line N|GAME|DECISION"``. None (a path without a return) is left
    to the kernel's own typing error, which the CLI names (``cli._plugin_typing``). Interpreted
    (``NUMBA_DISABLE_JIT``) the check is made on each answer."""
    if isinstance(value, bool | int | np.integer | np.bool_ | None):
        return value
    raise PolicyError(_returns_message(where, type(value).__name__))


def _returns_message(where: str, what: str) -> str:
    plugin, game, decision = where.split("|")
    return (f"{plugin}: returns {what}, but the kernel reads a {game} '{decision}' answer as an int (a float "
            f"would be truncated): return an int, such as int(x) (`cardsim games {game}` says what each decision "
            f"returns)")


@overload(returned_int, prefer_literal=True)
def _returned_int(value, where):
    if isinstance(value, types.Integer | types.Boolean | types.NoneType | types.Optional):
        return lambda value, where: value
    if not isinstance(where, types.StringLiteral):  # numba's second try, without literals
        raise nerrors.TypingError(f"a plug-in decision returns {value}, not an int")
    raise nerrors.TypingError(_returns_message(where.literal_value, str(types.unliteral(value))))


def _read_only_view(value):
    """Interpreted (``NUMBA_DISABLE_JIT``): an array as a view that cannot be written."""
    if isinstance(value, np.ndarray) and value.flags.writeable:
        view = value.view()
        view.flags.writeable = False
        return view
    return value


@intrinsic
def _as_read_only(typingctx, value):
    """``value`` as a plug-in may see it: an array typed read-only (the same data, no copy, no cost;
    numba refuses a write into it where the plug-in is compiled: "Cannot modify readonly array"),
    anything else as it is. Used in the call's arguments themselves: numba's functions may not return
    a read-only array they did not get."""
    def codegen(context, builder, signature, args):
        return impl_ret_borrowed(context, builder, signature.return_type, args[0])
    typed = value.copy(readonly=True) if isinstance(value, types.Array) and value.mutable else value
    return typed(value), codegen


#: what the generated dispatch wraps each argument a plug-in may not write in (``Game.plugin_writes``
#: names those it may): a plug-in that wrote into its hand or the table's arrays corrupted the games
#: without a word (``--debug`` alone caught it)
read_only = _read_only_view if numba.config.DISABLE_JIT else _as_read_only


def unseeded_draw(files: list[Path]) -> tuple[Path, int, str] | None:
    """The first draw from numba's own random generators in a function of a plug-in's ``files``
    (``np.random.random()``, ``random.randint(...)``): (file, line, what), else None. Those generators
    are seeded apart from the run's seed (numba seeds them per process and thread), so a plug-in
    drawing from them plays other games every time: a run's seed no longer repeats its games, and a
    resumed or extended run mixes them. A plug-in draws from ``rng``, its seat's own stream."""
    import ast

    for file in files:
        try:
            tree = ast.parse(file.read_bytes(), str(file))
        except (OSError, SyntaxError, ValueError):
            continue
        numpy_names, random_names, drawn = set(), set(), set()
        for node in ast.walk(tree):  # the names numpy, numpy.random and random are bound to
            if isinstance(node, ast.Import):
                for a in node.names:
                    bound = a.asname or a.name.split(".")[0]
                    if a.name == "numpy" or (a.name == "numpy.random" and not a.asname):
                        numpy_names.add(bound)
                    elif a.name in ("random", "numpy.random"):
                        random_names.add(bound)
            elif isinstance(node, ast.ImportFrom) and node.module in ("random", "numpy.random") and not node.level:
                drawn.update(a.asname or a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module == "numpy" and not node.level:
                random_names.update(a.asname or "random" for a in node.names if a.name == "random")
        for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
            for node in ast.walk(fn):
                if not isinstance(node, ast.Call):
                    continue
                f = node.func
                what = None
                if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in random_names:
                    what = f"{f.value.id}.{f.attr}"
                elif (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Attribute) and f.value.attr == "random"
                      and isinstance(f.value.value, ast.Name) and f.value.value.id in numpy_names):
                    what = f"{f.value.value.id}.random.{f.attr}"
                elif isinstance(f, ast.Name) and f.id in drawn:
                    what = f.id
                if what:
                    return file, node.lineno, what
    return None


def plugin_frame(exc: BaseException, files: set[str]) -> traceback.FrameSummary | None:
    """The innermost traceback frame of ``exc`` in one of ``files`` (absolute paths). A kernel
    loaded from the cache names the path its plug-in had when it was compiled (the cache is keyed
    by content, not path), so a frame outside cardsim whose file has a plug-in's name counts too."""
    names = {Path(f).name for f in files}
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if str(Path(f.filename).resolve()) in files
              or (Path(f.filename).name in names and not Path(f.filename).resolve().is_relative_to(_PACKAGE))]
    return frames[-1] if frames else None


def where(exc: BaseException, path: str) -> str:
    """`` (line N)`` where ``exc`` was raised in file ``path``, or ``''``."""
    if isinstance(exc, SyntaxError) and exc.lineno:
        return f" (line {exc.lineno})"
    frame = plugin_frame(exc, {str(Path(path).resolve())})
    return f" (line {frame.lineno})" if frame else ""


def _function_at(path: str, line: int) -> str:
    """The name of the ``def`` enclosing ``line`` of ``path`` ('' when unknown)."""
    try:
        lines = Path(path).read_text().splitlines()[:line]
    except OSError:
        return ""
    for text in reversed(lines):
        m = re.match(r"\s*def\s+(\w+)", text)
        if m:
            return m.group(1)
    return ""


def _typing_line(message: str) -> str:
    """The first line of a numba typing message that says what went wrong."""
    for raw in message.splitlines():
        line = re.sub(r"\x1b\[[0-9;]*m", "", raw).strip()
        if not line or line.startswith(_NOISE) or set(line) <= set("^ "):
            continue
        return line.rstrip(".:")
    return message.strip().splitlines()[0] if message.strip() else "numba could not type it"


def explain(exc: BaseException, files: set[str], functions: dict[str, tuple[str, int, str, str]]) -> str | None:
    """One line for an exception that comes from a plug-in, else None. ``files`` are the plug-ins'
    files (absolute paths), ``functions`` their decision functions (name -> file, first line,
    decision, the arguments the kernel passes), as :func:`cardsim.policies.loaded_plugins`."""
    debug = "the whole message: cardsim --debug ..."
    if isinstance(exc, nerrors.TypingError | nerrors.UnsupportedError | nerrors.LoweringError):
        text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
        returns = _RETURNS.search(text)
        if returns:
            return f"{returns[1]} ({debug})"
        bind = _BIND.search(text)
        callee = next((m[1] for m in _CALLEE.finditer(text) if m[1] in functions), None)
        if bind and callee:
            file, line, decision, args = functions[callee]
            return (f"plug-in {Path(file).name}, function {callee}, line {line}: numba cannot compile it: its "
                    f"arguments {bind['sig']} do not match what the '{decision}' decision passes ({args}): "
                    f"{bind['why']} ({debug})")
        spots = [m for m in _LOCATION.finditer(text) if str(Path(m["file"]).resolve()) in files]
        what = _typing_line(text)
        if "Cannot modify readonly array" in text:  # read_only's guard
            what = ("it writes into an array it is passed, which a plug-in only reads (it may write its random "
                    "stream rng, and FUBNUB's swap its out); copy the array first (a = hand.copy()) to change it")
        if spots:
            m = spots[-1]
            line = int(m["line"])
            func = m["func"] or _function_at(m["file"], line)
            return f"plug-in {Path(m['file']).name}, function {func}, line {line}: numba cannot compile it: {what} ({debug})"
        if callee:
            file, line, decision, args = functions[callee]
            return (f"plug-in {Path(file).name}, function {callee}, line {line}: numba cannot compile it: {what} "
                    f"(the '{decision}' decision passes {args}; {debug})")
        return None
    frame = plugin_frame(exc, files)
    if frame is None:
        return None
    first = next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), "")
    msg = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    return (f"plug-in {Path(frame.filename).name}, function {frame.name}, line {frame.lineno} raised {msg} "
            f"(the whole traceback: cardsim --debug ...)")
