"""JIT options in one place (STYLE habit 5).

Every kernel in cardsim is decorated with :func:`njit` from this module, so
caching, fastmath and the debug switch are set here and nowhere else.

``cache=True`` makes a warm CLI call start in well under a second. Numba's
cache does not notice edits to *other* files a kernel calls into (policies
inlined into a kernel module, the RNG), which could silently run stale
rules. So the cache directory is keyed by a hash of every cardsim source
file: ``$NUMBA_CACHE_DIR/cardsim-<hash>`` (default base
``~/.cache/cardsim/numba``). Any edit starts a fresh cache; ``make
clean-cache`` removes old ones. Kernels rebuilt for user plug-in policies
(:mod:`cardsim.policies`) are compiled inside :func:`no_cache`, because a
rebuilt module shares its source file with the cached original and must not
overwrite its cache entries.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import numba

DISABLED = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
_cache_enabled = True


def source_hash() -> str:
    """A hash of every ``.py`` file of the cardsim package."""
    h = hashlib.sha1()
    root = Path(__file__).resolve().parent
    for p in sorted(root.rglob("*.py")):
        h.update(str(p.relative_to(root)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cardsim", "numba")
    return Path(base) / f"cardsim-{source_hash()}"


numba.config.CACHE_DIR = str(cache_dir())


def njit(func=None, **options):
    """``numba.njit`` with cardsim's defaults: cached, nogil, no fastmath."""
    opts = {"cache": _cache_enabled, "nogil": True, "fastmath": False, "error_model": "numpy"}
    opts.update(options)
    if func is None:
        return lambda f: numba.njit(**opts)(f)
    return numba.njit(**opts)(func)


@contextlib.contextmanager
def no_cache() -> Iterator[None]:
    """Decorate kernels without on-disk caching while the block runs."""
    global _cache_enabled
    old = _cache_enabled
    _cache_enabled = False
    try:
        yield
    finally:
        _cache_enabled = old
