"""JIT options in one place (STYLE habit 5).

Every kernel in cardsim is decorated with :func:`njit` (or :func:`typed`)
from this module, so caching, fastmath and the debug switch are set here and
nowhere else.

``cache=True`` makes a warm CLI call start in well under a second. Each
module's functions cache in a folder of their own under the one cache,
keyed by the module's source and the cardsim modules it imports
(:func:`cardsim.cachedir.module_folder`), so an edit recompiles only the
kernels it can change. Source files outside the package (a plug-in's
generated kernel module) get their content-keyed folder through
:func:`register_source`.

:func:`announce_compiles` (the CLI turns it on) says ``compiling ... (first
run only)`` on stderr once a process has spent a second compiling one
game's kernels, on a terminal or not.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numba
from numba.core import event
from numba.core.caching import IndexDataCacheFile

from cardsim import cachedir

try:
    import fcntl
except ImportError:  # Windows: numba's own unlocked cache files
    fcntl = None

DISABLED = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
#: seconds of compiling after which :func:`announce_compiles` speaks
NOTICE_AFTER = 1.0

_sources: dict[str, tuple[Path, str]] = {}  # file -> (cache folder, label)


class LockedCacheFile(IndexDataCacheFile):
    """Numba's index and data files of one cached function, read and written under a lock shared
    by every process (``<index>.lock``, ``flock``).

    Numba adds a signature to a function's index by reading the index, picking the first free
    data file name and writing both, unlocked: two processes adding different signatures of one
    function at once (two test workers, two CLI runs, Dask workers) could each take the same data
    file, and the index would then send one signature to the other's machine code. Under the lock
    an index and its data files change together; a reader waits for a writer."""

    def save(self, key, data):
        with self._locked(fcntl.LOCK_EX if fcntl else 0):
            super().save(key, data)

    def load(self, key):
        with self._locked(fcntl.LOCK_SH if fcntl else 0):
            return super().load(key)

    @contextmanager
    def _locked(self, mode: int):
        try:
            fd = os.open(self._index_path + ".lock", os.O_RDWR | os.O_CREAT, 0o666) if fcntl else -1
        except OSError:  # a cache folder not made yet (nothing to read) or read-only (nothing written)
            fd = -1
        try:
            if fd >= 0:
                fcntl.flock(fd, mode)
            yield
        finally:
            if fd >= 0:
                os.close(fd)  # releases the lock


def register_source(path: str | Path, folder: Path, label: str) -> None:
    """Cache the jitted functions of source file ``path`` (outside the cardsim package) in
    ``folder``, and name them ``label`` in the compile notice."""
    _sources[str(path)] = (folder, label)


def cache_folder(filename: str) -> Path:
    """The cache folder for jitted functions defined in ``filename``."""
    if filename in _sources:
        return _sources[filename][0]
    path = Path(filename).resolve()
    if path.is_relative_to(cachedir.PACKAGE) and path.is_file():
        return cachedir.module_folder(path)
    return cachedir.base() / "other"


def label(filename: str) -> str:
    """What the compile notice calls the functions of ``filename``: '<game> kernels'."""
    if filename in _sources:
        return _sources[filename][1]
    path = Path(filename).resolve()
    games = cachedir.PACKAGE / "games"
    if path.is_relative_to(games) and len(path.relative_to(games).parts) > 1:
        return f"{path.relative_to(games).parts[0]} kernels"
    return "cardsim kernels" if path.is_relative_to(cachedir.PACKAGE) else "numba functions"


def njit(func=None, **options):
    """``numba.njit`` with cardsim's defaults: cached (in the function's module folder), nogil,
    no fastmath."""
    opts = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}
    opts.update(options)

    def deco(f):
        if not opts["cache"] or DISABLED:
            return numba.njit(**opts)(f)
        old = numba.config.CACHE_DIR
        numba.config.CACHE_DIR = str(cache_folder(f.__code__.co_filename))  # read once, while decorating
        try:
            d = numba.njit(**opts)(f)
        finally:
            numba.config.CACHE_DIR = old
        d._cache._cache_file.__class__ = LockedCacheFile
        return d

    return deco if func is None else deco(func)


def typed(sig, **options):
    """:func:`njit` with one explicit signature, closed to other specialisations: numba would
    otherwise compile a helper once per combination of constant arguments it is called with.
    The signature is compiled (or loaded from the cache) when a caller is first typed, not at
    import, so importing a game's modules compiles nothing."""

    def deco(f):
        d = njit(**options)(f)
        if DISABLED:
            return d
        resolve = d.get_call_template  # what numba's typing asks a dispatcher for its overloads

        def on_first_use(args, kws):
            if d._can_compile:
                d.compile(sig)
                d.disable_compile()
            return resolve(args, kws)

        d.get_call_template = on_first_use
        return d

    return deco


class CompileNotice(event.Listener):
    """Says ``compiling <label> (first run only)`` once per label after :data:`NOTICE_AFTER`
    seconds of compiling it (nested compiles count once; numba compiles one thing at a time)."""

    def __init__(self, stream: Any = None, after: float = NOTICE_AFTER):
        self.stream = stream
        self.after = after
        self.lock = threading.Lock()
        self.depth = 0
        self.start = 0.0
        self.current = ""
        self.spent: dict[str, float] = {}
        self.said: set[str] = set()
        self.timer: threading.Timer | None = None

    def on_start(self, ev) -> None:
        with self.lock:
            self.depth += 1
            if self.depth > 1:
                return
            self.start = time.monotonic()
            self.current = label(ev.data["dispatcher"].py_func.__code__.co_filename)
            if self.current not in self.said:
                self.timer = threading.Timer(max(0.0, self.after - self.spent.get(self.current, 0.0)), self.say)
                self.timer.daemon = True
                self.timer.start()

    def on_end(self, ev) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth > 0:
                return
            self.spent[self.current] = self.spent.get(self.current, 0.0) + time.monotonic() - self.start
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None

    def say(self) -> None:
        with self.lock:
            if self.depth == 0 or self.current in self.said:
                return
            self.said.add(self.current)
            stream = self.stream or sys.stderr
            stream.write(f"compiling {self.current} (first run only)\n")
            stream.flush()


_notice: CompileNotice | None = None


def announce_compiles(stream: Any = None) -> CompileNotice:
    """Turn on the compile notice for this process (idempotent); returns the listener."""
    global _notice
    if _notice is None:
        _notice = CompileNotice(stream)
        event.register("numba:compile", _notice)
    return _notice
