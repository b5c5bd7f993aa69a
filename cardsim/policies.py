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
a scenario as ``"path/to/file.py:name"``. When a scenario uses plug-ins,
the game's kernel module is rebuilt in memory with dispatchers that route
plug-in ids (``PLUGIN_BASE + k``) to the user's functions; that rebuild is
compiled once per process and is not cached.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numba

from cardsim.errors import PolicyError, ScenarioError, allowed_list, did_you_mean
from cardsim.games.base import Game, SeatPolicy
from cardsim.jit import no_cache

PLUGIN_BASE = 1000
_namespaces: dict[tuple[str, tuple[str, ...]], Mapping[str, Any]] = {}
_plugin_modules: dict[str, Any] = {}


def is_plugin(name: str) -> bool:
    return ":" in name and name.split(":", 1)[0].endswith(".py")


def resolve_seat(game: Game, entry: Any, seat: int, base_dir: Path | None = None,
                 plugins: list[str] | None = None) -> SeatPolicy:
    """Turn one ``[seats] policies`` entry (a name, or a table with ``name`` and
    parameters) into a :class:`SeatPolicy`. ``plugins`` collects plug-in refs
    in order of first use; their index decides the dispatch id."""
    where = f"seats.policies[{seat}]"
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
        values = _apply_params(where, name, dict(defaults), overrides)
        return SeatPolicy(name=name, pid=pid, params=values, param_names=names, plugin=ref)
    spec = game.policy(name)
    values = _apply_params(where, name, dict(spec.params), overrides)
    return SeatPolicy(name=name, pid=spec.pid, params=values, param_names=spec.param_names())


def _apply_params(where: str, name: str, defaults: dict[str, float], overrides: Mapping[str, Any]) -> tuple[float, ...]:
    for k, v in overrides.items():
        if k not in defaults:
            allowed = allowed_list(defaults) if defaults else "none (this policy has no parameters)"
            raise ScenarioError(f"{where}: policy {name!r} has no parameter {k!r}{did_you_mean(k, defaults)}; allowed: {allowed}")
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise ScenarioError(f"{where}: parameter {k} = {v!r} must be a number")
        defaults[k] = float(v)
    return tuple(float(x) for x in defaults.values())


def _canonical_ref(name: str, base_dir: Path | None) -> str:
    path_s, fn = name.rsplit(":", 1)
    path = Path(path_s).expanduser()
    if not path.is_absolute():
        candidates = ([base_dir / path] if base_dir else []) + [Path.cwd() / path]
        path = next((c for c in candidates if c.exists()), candidates[0])
    if not path.exists():
        raise PolicyError(f"policy {name!r}: file {path} does not exist")
    return f"{path.resolve()}:{fn}"


def _load_plugin_module(path: str) -> Any:
    if path in _plugin_modules:
        return _plugin_modules[path]
    modname = f"cardsim_plugin_{abs(hash(path)):x}"
    spec = importlib.util.spec_from_file_location(modname, path)
    if spec is None or spec.loader is None:
        raise PolicyError(f"policy file {path} cannot be imported (not a Python file?)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise PolicyError(f"policy file {path} failed to import: {type(exc).__name__}: {exc}") from None
    _plugin_modules[path] = module
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
    for d in (*game.decisions, *game.optional_decisions):
        f = getattr(module, f"{name}_{d}", None)
        if f is None:  # an optional decision left out
            continue
        if not isinstance(f, numba.core.registry.CPUDispatcher):
            raise PolicyError(f"policy {Path(path).name}:{name}: {name}_{d} must be decorated with @numba.njit")
        funcs[d] = f
    return funcs


def plugin_params(game: Game, ref: str) -> dict[str, float]:
    path, name = ref.rsplit(":", 1)
    plugin_functions(game, ref)  # fail early on a bad file
    params = getattr(_load_plugin_module(path), f"{name}_params", {})
    if not isinstance(params, Mapping) or not all(isinstance(v, int | float) for v in params.values()):
        raise PolicyError(f"policy {Path(path).name}:{name}: {name}_params must be a dict of name -> number")
    return {str(k): float(v) for k, v in params.items()}


def kernel_namespace(game: Game, plugins: Sequence[str] = ()) -> Mapping[str, Any]:
    """The globals of the game's kernel module, rebuilt with plug-in dispatch when needed."""
    module = importlib.import_module(game.kernel_module)
    if not plugins:
        return vars(module)
    key = (game.name, tuple(plugins))
    if key in _namespaces:
        return _namespaces[key]
    funcs = [plugin_functions(game, ref) for ref in plugins]
    overrides = {}
    for decision, args in game.decisions.items():
        disp_name = game.dispatchers[decision]
        overrides[disp_name] = _make_dispatcher(disp_name, args, getattr(module, disp_name), [
            ({f"_p{k}": f[decision]}, f"_p{k}({args})") for k, f in enumerate(funcs)],
            game.dispatcher_hints.get(decision, ""))
    for decision, args in game.optional_decisions.items():
        disp_name = game.optional_dispatchers[decision]
        fallback = game.optional_fallbacks[decision][1]
        routes = []
        for k, f in enumerate(funcs):
            if decision in f:
                routes.append(({f"_p{k}": f[decision]}, f"_p{k}({args})"))
            else:  # the game's fallback, over the built-in dispatcher and the plug-in's own functions
                names = {d: f"_p{k}_{d}" for d in game.decisions}
                routes.append(({names[d]: f[d] for d in game.decisions},
                               fallback.format(builtin="_builtin", **names)))
        overrides[disp_name] = _make_dispatcher(disp_name, args, getattr(module, disp_name), routes)
    ns: dict[str, Any] = {
        "__name__": f"{module.__name__}__plugins{len(_namespaces)}",
        "__file__": module.__file__,
        "__builtins__": builtins,
    }
    with no_cache():
        exec(compile(inspect.getsource(module), module.__file__, "exec"), ns)
    ns.update(overrides)
    _namespaces[key] = ns
    return ns


def _make_dispatcher(name: str, args: str, builtin: Any, routes: list[tuple[dict[str, Any], str]],
                     hints: str = "") -> Any:
    """A jitted ``name(pid, args[, hints])``: built-in ids go to ``builtin`` (with the kernel's
    ``hints``, Game.dispatcher_hints), plug-in ``k`` to the call ``routes[k][1]`` over the
    functions ``routes[k][0]``."""
    full = f"{args}, {hints}" if hints else args
    lines = [f"def {name}(pid, {full}):", f"    if pid < {PLUGIN_BASE}:", f"        return _builtin(pid, {full})"]
    ns: dict[str, Any] = {"_builtin": builtin}
    for k, (funcs, call) in enumerate(routes):
        lines += [f"    if pid == {PLUGIN_BASE + k}:", f"        return {call}"]
        ns |= funcs
    lines.append(f"    return {routes[-1][1]}")
    exec("\n".join(lines), ns)
    return numba.njit(nogil=True)(ns[name])
