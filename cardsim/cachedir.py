"""Where cardsim's one numba cache lives, and what keys its folders (standard library only).

The Makefile, the tests and the CLI all call :func:`base`, so ``make demo``,
``make test`` and a ``cardsim`` command share one cache:

- ``$NUMBA_CACHE_DIR`` when set;
- else ``.numba_cache`` beside ``pyproject.toml`` when cardsim runs from a
  writable source checkout (``make setup`` installs it editable);
- else ``$XDG_CACHE_HOME/cardsim/numba`` (default ``~/.cache/cardsim/numba``).

Numba keys a cached function by its own file's time stamp and its bytecode,
not by the other files it calls into or reads constants from (a policy
inlined into a kernel, the RNG), so an edit there would silently run stale
code. So each cardsim module caches in a folder of its own,
``<base>/<module>-<key>``, where the key hashes the module's source and the
source of every cardsim module it imports, transitively (:func:`module_key`):
an edit recompiles only the kernels whose folder it changes, and editing
one game never recompiles another. Plug-in kernels live under
``<base>/plugins/`` in folders keyed by their content
(:mod:`cardsim.policies`).

``python -m cardsim.cachedir`` prints the base folder; ``--clear`` removes it
(``make clean-cache``).
"""

from __future__ import annotations

import ast
import hashlib
import os
import shutil
import sys
import threading
from functools import cache
from pathlib import Path

#: bumped when the layout of the cache or of its keys changes
LAYOUT = "2"
PACKAGE = Path(__file__).resolve().parent
_parsing = threading.Lock()


def base() -> Path:
    """The folder of the one numba cache (see the module docstring)."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    if env:
        return Path(env).expanduser().resolve()
    checkout = PACKAGE.parent
    if (checkout / "pyproject.toml").is_file() and os.access(checkout, os.W_OK):
        return checkout / ".numba_cache"
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(xdg) / "cardsim" / "numba"


def _module_file(name: str, root: Path) -> Path | None:
    """The file of cardsim module ``name`` (dotted) under package folder ``root``, if any."""
    parts = name.split(".")
    if parts[0] != "cardsim" or len(parts) == 1:
        # the package's own __init__ holds the version and the lazy API only (its ``from cardsim
        # import api`` runs on first use): following it would tie every kernel to every module
        return None
    stem = root.joinpath(*parts[1:])
    for cand in (stem.with_suffix(".py"), stem / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def imported_files(path: Path, resolve) -> set[Path]:
    """Files that ``path`` imports (every ``import`` statement, at any depth), as ``resolve(name)``
    maps a dotted module name to a file or None. ``from a import b`` counts ``a.b`` when that
    is a module, else ``a``."""
    with _parsing:  # CPython 3.11's parser is not safe in two threads at once (gh-106905)
        tree = ast.parse(path.read_bytes(), str(path))
    out: set[Path] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level:  # a package's own modules: from .core import f
            out.update(_relative_files(path, node))
            continue
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = []
            for a in node.names:
                sub = resolve(f"{node.module}.{a.name}")
                if sub is not None:
                    out.add(sub)
                else:
                    names.append(node.module)
        else:
            continue
        for n in names:
            f = resolve(n)
            if f is not None:
                out.add(f)
    out.discard(path)
    return out


def _relative_files(path: Path, node: ast.ImportFrom) -> set[Path]:
    """The files a relative import in ``path`` reads (``from .core import f``, ``from . import
    core``): found ``node.level - 1`` folders above ``path``'s own, as Python finds them."""
    folder = path.parent
    for _ in range(node.level - 1):
        folder = folder.parent
    stem = folder.joinpath(*node.module.split(".")) if node.module else folder
    stems = [stem / a.name for a in node.names if a.name != "*"] + ([stem] if node.module else [])
    return {c.resolve() for s in stems for c in (s.parent / f"{s.name}.py", s / "__init__.py") if c.is_file()}


def closure(path: Path, resolve) -> list[Path]:
    """``path`` and every file it imports, transitively (as :func:`imported_files`), sorted."""
    seen = {path}
    todo = [path]
    while todo:
        for f in imported_files(todo.pop(), resolve):
            if f not in seen:
                seen.add(f)
                todo.append(f)
    return sorted(seen)


def digest(files: list[Path], root: Path, *extra: str) -> str:
    """A short hash of the files' names (relative to ``root``) and contents, and of ``extra``."""
    h = hashlib.sha256(LAYOUT.encode())
    for f in files:
        h.update(str(f.relative_to(root)).encode() + b"\0")
        h.update(f.read_bytes() + b"\0")
    for x in extra:
        h.update(x.encode() + b"\0")
    return h.hexdigest()[:16]


@cache
def module_key(path: Path, root: Path = PACKAGE) -> str:
    """The cache key of cardsim source file ``path``: its source and the source of every cardsim
    module it imports, transitively."""
    files = closure(path.resolve(), lambda n: _module_file(n, root))
    return digest(files, root.parent)


def module_folder(path: Path) -> Path:
    """The cache folder of the jitted functions defined in cardsim source file ``path``."""
    rel = path.resolve().relative_to(PACKAGE.parent).with_suffix("")
    return base() / f"{'.'.join(rel.parts)}-{module_key(path.resolve())}"


def clear() -> Path:
    """Remove the whole cache; returns its folder."""
    b = base()
    shutil.rmtree(b, ignore_errors=True)
    return b


if __name__ == "__main__":
    if "--clear" in sys.argv[1:]:
        print(f"removed {clear()}")
    else:
        print(base())
