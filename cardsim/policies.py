"""The policy registry: seat entries -> dispatch ids, and user plug-ins.

Built-in policies are dispatched by an integer id inside one jitted
function per decision point (``decide_<decision>(pid, ...)`` in the game's
kernel module), so kernels are cached on disk and a warm CLI call does not
recompile (DESIGN "Known traps", numba issue 9609).

A user plug-in is a Python file with one ``@numba.njit`` function per
decision point of the game, named ``<name>_<decision>``, taking the
arguments listed by ``cardsim games`` (``Game.decisions``), and optionally a
dict ``<name>_params`` of parameter names to default floats. A game's
optional decisions (``Game.optional_decisions``, asked by some variants
only) may be defined the same way; a plug-in that leaves one out gets the
game's fallback for it (``Game.optional_fallbacks``). It is named in
a scenario as ``"path/to/file.py:name"``; the file may import modules from
its own folder.

A plug-in's identity is its content (:func:`plugin_source_key`: the file and
every module it imports from its folder), not its path: it is part of a
run's identity (:meth:`cardsim.scenario.Scenario.identity`), so an edited
plug-in never reuses the old games. When a scenario uses plug-ins, the
game's kernel module is rebuilt with dispatchers that route plug-in ids
(``PLUGIN_BASE + k``) to the user's functions (:func:`kernel_namespace`):
the rebuilt module is a real file in a folder of the numba cache keyed by
the kernel's and the plug-ins' content, compiled with ``cache=True``, so a
second process running the same plug-ins loads it from the cache.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import os
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numba

from cardsim import cachedir, jit
from cardsim.errors import PolicyError, ScenarioError, allowed_list, did_you_mean
from cardsim.games.base import Domain, Game, SeatPolicy

PLUGIN_BASE = 1000
_building = threading.RLock()
_namespaces: dict[tuple[Any, ...], Mapping[str, Any]] = {}
_plugin_modules: dict[tuple[str, str], Any] = {}  # (path, source key) -> module
#: function name -> (file, first line, decision, the arguments the kernel passes) of loaded plug-ins
_decision_functions: dict[str, tuple[str, int, str, str]] = {}


def is_plugin(name: str) -> bool:
    return ":" in name and name.split(":", 1)[0].endswith(".py")


def resolve_seat(game: Game, entry: Any, seat: int, base_dir: Path | None = None,
                 plugins: list[str] | None = None, where: str | None = None) -> SeatPolicy:
    """Turn one ``[seats] policies`` entry (a name, or a table with ``name`` and
    parameters) into a :class:`SeatPolicy`. ``plugins`` collects plug-in refs
    in order of first use; their index decides the dispatch id. ``where`` names the
    entry in an error, as the user wrote it (default ``seats.policies[<seat>]``)."""
    where = where if where is not None else f"seats.policies[{seat}]"
    if isinstance(entry, str):
        name, overrides = entry, {}
    elif isinstance(entry, Mapping):
        if "name" not in entry or not isinstance(entry["name"], str):
            raise ScenarioError(f"{where} needs a string 'name' key, e.g. {{name = \"greedy\"}}")
        name = entry["name"]
        overrides = {k: v for k, v in entry.items() if k != "name"}
    else:
        raise ScenarioError(f"{where} = {entry!r} must be a policy name or a table {{name = ..., param = ...}}")
    if is_plugin(name):
        ref = _canonical_ref(name, base_dir)
        defaults = plugin_params(game, ref)
        if plugins is not None and ref not in plugins:
            plugins.append(ref)
        pid = PLUGIN_BASE + (plugins.index(ref) if plugins is not None else 0)
        names = tuple(defaults)
        values = _apply_params(where, name, dict(defaults), overrides)  # a plug-in's: any number
        return SeatPolicy(name=name, pid=pid, params=values, param_names=names, plugin=ref)
    spec = game.policy(name)
    values = _apply_params(where, name, dict(spec.params), overrides, spec.domain)
    return SeatPolicy(name=name, pid=spec.pid, params=values, param_names=spec.param_names())


def _apply_params(where: str, name: str, defaults: dict[str, float], overrides: Mapping[str, Any],
                  domain: Callable[[str], Domain] | None = None) -> tuple[float, ...]:
    """The parameter vector of a policy: ``defaults`` with ``overrides``, each override a number
    its parameter's domain accepts (``domain(name)``; a plug-in's parameters take any number)."""
    for k, v in overrides.items():
        if k not in defaults:
            allowed = allowed_list(defaults) if defaults else "none (this policy has no parameters)"
            raise ScenarioError(f"{where}: policy {name!r} has no parameter {k!r}{did_you_mean(k, defaults)}; allowed: {allowed}")
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise ScenarioError(f"{where}: parameter {k} = {v!r} must be a number")
        if domain is not None and not domain(k).accepts(float(v)):
            raise ScenarioError(f"{where}: policy {name!r} parameter {k} = {v!r}; allowed: {domain(k).describe()}")
        defaults[k] = float(v)
    return tuple(float(x) for x in defaults.values())


def _canonical_ref(name: str, base_dir: Path | None) -> str:
    path_s, fn = name.rsplit(":", 1)
    path = Path(path_s).expanduser()
    candidates = [path]
    if not path.is_absolute():
        candidates = ([base_dir / path] if base_dir else []) + [Path.cwd() / path]
        path = next((c for c in candidates if c.exists()), candidates[0])
    if not path.exists():  # a relative path is looked for beside the scenario, then in the current folder
        where = "" if len(candidates) < 2 else f" (nor {candidates[1]}: a relative path is read from the " \
            f"scenario file's folder, else from the current folder)"
        raise PolicyError(f"policy {name!r}: file {path} does not exist{where}")
    if not path.is_file():  # a folder named like one stopped with IsADirectoryError
        raise PolicyError(f"policy {name!r}: {path} is not a file; a plug-in is a Python file, named as "
                          f"'file.py:name'")
    if not fn.isidentifier():  # 'mine.py:' looked for the functions _call, _swap, ...
        raise PolicyError(f"policy {name!r}: {fn!r} is not a name; write 'file.py:name', where the file defines "
                          f"name_<decision> for each decision (cardsim games GAME lists them)")
    return f"{path.resolve()}:{fn}"


def _local_module(name: str, folder: Path) -> Path | None:
    """The file of module ``name`` (dotted) in a plug-in's ``folder``, if it is there."""
    stem = folder.joinpath(*name.split("."))
    for cand in (stem.with_suffix(".py"), stem / "__init__.py"):
        if cand.is_file():
            return cand.resolve()
    return None


def plugin_files(path: str | Path) -> list[Path]:
    """The plug-in file ``path`` and every module it imports from its own folder, transitively."""
    path = Path(path).resolve()
    files = cachedir.closure(path, lambda n: _local_module(n, path.parent))
    return [f for f in files if f.is_relative_to(path.parent)]  # a relative import may name a file above it


def plugin_source_key(path: str | Path) -> str:
    """A hash of what a plug-in file runs: its source and the modules it imports from its folder."""
    path = Path(path).resolve()
    try:
        return cachedir.digest(plugin_files(path), path.parent)
    except SyntaxError as exc:
        raise PolicyError(f"policy file {path} failed to import: SyntaxError: {exc.msg} (line {exc.lineno})") from None


def _load_plugin_module(path: str) -> Any:
    """Import plug-in file ``path`` (its folder importable while it loads); a file whose content
    changed since it was imported in this process is imported again, with its local modules."""
    key = (path, plugin_source_key(path))
    if key in _plugin_modules:
        return _plugin_modules[key]
    folder = str(Path(path).parent)
    if any(p == path for p, _ in _plugin_modules):  # edited since: import its local modules afresh too
        local = {str(f) for f in plugin_files(path)}
        for name, mod in list(sys.modules.items()):
            f = getattr(mod, "__file__", None)
            if f and str(Path(f).resolve()) in local:
                del sys.modules[name]
    from cardsim.plugin_errors import unseeded_draw

    drawn = unseeded_draw(plugin_files(path))
    if drawn:
        file, line, what = drawn
        raise PolicyError(f"plug-in {file.name}, line {line}: {what}() draws from numba's own random generator, "
                          f"seeded apart from the run's seed, so its games would not repeat (a resumed or extended "
                          f"run would mix other games in); draw from rng, the seat's own stream: "
                          f"from cardsim.rng import randint, uniform")
    modname = f"cardsim_plugin_{key[1]}"
    spec = importlib.util.spec_from_file_location(modname, path)
    if spec is None or spec.loader is None:
        raise PolicyError(f"policy file {path} cannot be imported (not a Python file?)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        from cardsim.plugin_errors import where

        raise PolicyError(f"policy file {path} failed to import{where(exc, path)}: "
                          f"{type(exc).__name__}: {exc}") from exc
    finally:
        sys.path.remove(folder)
    _plugin_modules[key] = module
    return module


def plugin_functions(game: Game, ref: str) -> dict[str, Any]:
    """The jitted decision functions of plug-in ``ref`` (``/abs/file.py:name``)."""
    path, name = ref.rsplit(":", 1)
    module = _load_plugin_module(path)
    needed = [f"{name}_{d}" for d in game.decisions]
    missing = [n for n in needed if not hasattr(module, n)]
    if missing:
        raise PolicyError(
            f"policy {Path(path).name}:{name} is missing {allowed_list(missing)}; a {game.name} plug-in "
            f"defines one @numba.njit function per decision: " + "; ".join(f"{name}_{d}({a})" for d, a in game.decisions.items())
        )
    funcs = {}
    all_args = {**game.decisions, **game.optional_decisions}
    for d in (*game.decisions, *game.optional_decisions):
        f = getattr(module, f"{name}_{d}", None)
        if f is None:  # an optional decision left out
            continue
        if not isinstance(f, numba.core.registry.CPUDispatcher):
            raise PolicyError(f"policy {Path(path).name}:{name}: {name}_{d} must be decorated with @numba.njit")
        # bounds-checked: params[5] of a plug-in with one parameter read the zero padding (or another
        # seat's parameters) without a word; an index past an array is an IndexError naming its line
        options = {k: v for k, v in f.targetoptions.items() if k != "nopython"}  # njit's own
        funcs[d] = numba.njit(**{**options, "boundscheck": True})(f.py_func)
        code = f.py_func.__code__
        _decision_functions[f.__name__] = (code.co_filename, _def_line(code), d, all_args[d])
    return funcs


def _def_line(code: Any) -> int:
    """The line of a function's ``def`` (``co_firstlineno`` is its first decorator's)."""
    try:
        lines = Path(code.co_filename).read_text().splitlines()
    except OSError:
        return code.co_firstlineno
    for i in range(code.co_firstlineno - 1, len(lines)):
        if lines[i].lstrip().startswith(("def ", "async def ")):
            return i + 1
    return code.co_firstlineno


def plugin_params(game: Game, ref: str) -> dict[str, float]:
    path, name = ref.rsplit(":", 1)
    plugin_functions(game, ref)  # fail early on a bad file
    params = getattr(_load_plugin_module(path), f"{name}_params", {})
    # a key of another type ({1: 0.5}) became the name "1"; True read as 1.0, and nan or inf as a default
    if not isinstance(params, Mapping) or not all(
            isinstance(k, str) and k.isidentifier() and isinstance(v, int | float) and not isinstance(v, bool)
            and math.isfinite(v) for k, v in params.items()):
        raise PolicyError(f"policy {Path(path).name}:{name}: {name}_params must be a dict of name -> number (names "
                          f"like \"aggression\", finite numbers)")
    return {k: float(v) for k, v in params.items()}


def kernel_namespace(game: Game, plugins: Sequence[str] = ()) -> Mapping[str, Any]:
    """The globals of the game's kernel module, rebuilt with plug-in dispatch when needed.

    The rebuilt module is the kernel module's source followed by generated dispatchers
    (:func:`dispatch_source`), written once to ``<cache>/plugins/<game>-<key>/kernels.py``, where
    the key hashes the kernel module (with the cardsim modules it imports), the generated code
    and each plug-in's content; its functions cache in that folder."""
    module = importlib.import_module(game.kernel_module)
    if not plugins:
        return vars(module)
    with _building:  # chunks run in threads: build each rebuilt module once
        return _rebuilt_namespace(game, module, plugins)


def _rebuilt_namespace(game: Game, module: Any, plugins: Sequence[str]) -> Mapping[str, Any]:
    sources = tuple(plugin_source_key(ref.rsplit(":", 1)[0]) for ref in plugins)
    memo = (game.name, tuple(plugins), sources)
    if memo in _namespaces:
        return _namespaces[memo]
    funcs = [plugin_functions(game, ref) for ref in plugins]
    inject, code = dispatch_source(game, funcs, [len(plugin_params(game, ref)) for ref in plugins])
    kernel_file = Path(module.__file__)
    text = kernel_file.read_text() + "\n\n" + code
    names = [ref.rsplit(":", 1)[1] for ref in plugins]
    key = cachedir.digest([], kernel_file.parent, game.name, cachedir.module_key(kernel_file), text,
                          *(f"{n}:{k}" for n, k in zip(names, sources, strict=True)))
    folder = cachedir.base() / "plugins" / f"{game.name}-{key}"
    path = folder / "kernels.py"
    _write_once(path, text)
    shown = ", ".join(f"{Path(ref.rsplit(':', 1)[0]).name}:{n}" for ref, n in zip(plugins, names, strict=True))
    jit.register_source(str(path), folder, f"{game.name} kernels for plug-in {shown}")
    modname = f"cardsim_plugin_kernels_{game.name}_{key}"
    spec = importlib.util.spec_from_file_location(modname, path)
    rebuilt = importlib.util.module_from_spec(spec)
    rebuilt.__dict__.update(inject)
    sys.modules[modname] = rebuilt
    spec.loader.exec_module(rebuilt)
    _namespaces[memo] = vars(rebuilt)
    return _namespaces[memo]


def _write_once(path: Path, text: str) -> None:
    """Write ``path`` unless it exists (never rewritten: numba's cache index keys on its time
    stamp), atomically, so processes racing to write it leave one whole file."""
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        tmp.unlink()


def dispatch_source(game: Game, funcs: list[dict[str, Any]], widths: Sequence[int] | None = None
                    ) -> tuple[dict[str, Any], str]:
    """The generated dispatchers of a rebuilt kernel module: (names to inject, Python source).

    Each dispatcher ``name(pid, args[, hints])`` sends built-in ids to the kernel module's own
    dispatcher (with the kernel's ``hints``, Game.dispatcher_hints) and plug-in ``k`` (id
    ``PLUGIN_BASE + k``) to its function ``_p<k>_<decision>``, or to the game's fallback for an
    optional decision the plug-in leaves out. Plug-in ``k`` is passed ``params[:widths[k]]``, its own
    parameters (the seats' rows are padded to the widest seat's), and every argument but those it
    may write (``Game.plugin_writes``) through :func:`cardsim.plugin_errors.read_only`, so a write
    into its hand or the table does not compile. An answer the kernel reads goes through
    :func:`cardsim.plugin_errors.returned_int`, so a plug-in returning a float does not compile."""
    inject = {f"_p{k}_{d}": f for k, fs in enumerate(funcs) for d, f in fs.items()}

    def own(args: str, k: int) -> str:
        """The arguments plug-in ``k`` is passed: its own parameters, and every array it may not write
        read-only."""
        names = [a.strip() for a in args.split(",")]
        shown = [a if widths is None or a != "params" else f"params[:{widths[k]}]" for a in names]
        return ", ".join(a if n in game.plugin_writes else f"_plugin_ro({a})" for n, a in zip(names, shown, strict=True))

    def call(k: int, decision: str, args: str) -> str:
        text = f"_p{k}_{decision}({own(args, k)})"
        if decision in game.filled_decisions:
            return text
        code = funcs[k][decision].py_func.__code__
        where = (f"plug-in {Path(code.co_filename).name}, function {code.co_name}, line {_def_line(code)}"
                 f"|{game.name}|{decision}")
        return f"_plugin_int({text}, {where!r})"

    lines = ["# -- generated by cardsim.policies.kernel_namespace: plug-in dispatch --",
             "from cardsim.jit import njit as _plugin_njit",
             "from cardsim.plugin_errors import read_only as _plugin_ro, returned_int as _plugin_int", ""]

    def emit(disp: str, args: str, hints: str, calls: list[str]) -> None:
        full = f"{args}, {hints}" if hints else args
        lines.extend([f"_builtin_{disp} = {disp}", "", "", "@_plugin_njit", f"def {disp}(pid, {full}):",
                      f"    if pid < {PLUGIN_BASE}:", f"        return _builtin_{disp}(pid, {full})"])
        for k, call in enumerate(calls):
            lines.extend([f"    if pid == {PLUGIN_BASE + k}:", f"        return {call}"])
        lines.extend([f"    return {calls[-1]}", "", ""])

    for decision, args in game.decisions.items():
        emit(game.dispatchers[decision], args, game.dispatcher_hints.get(decision, ""),
             [call(k, decision, args) for k in range(len(funcs))])
    for decision, args in game.optional_decisions.items():
        disp = game.optional_dispatchers[decision]
        fallback = game.optional_fallbacks[decision][1]
        calls = [call(k, decision, args) if decision in fs else
                 fallback.format(builtin=f"_builtin_{disp}", **{d: f"_p{k}_{d}" for d in game.decisions})
                 for k, fs in enumerate(funcs)]
        emit(disp, args, "", calls)
    return inject, "\n".join(lines)


def loaded_plugins() -> tuple[set[str], dict[str, tuple[str, int, str, str]]]:
    """What :func:`cardsim.plugin_errors.explain` needs of the plug-ins imported in this process:
    their files with the modules they import from their folders (absolute paths), and their
    decision functions (name -> file, first line, decision, the arguments the kernel passes)."""
    return {str(f) for path, _ in _plugin_modules for f in plugin_files(path)}, dict(_decision_functions)
