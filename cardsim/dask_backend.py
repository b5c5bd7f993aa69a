"""The Dask distributed backend (issue 8): the same chunks, on a cluster.

- ``DaskBackend(scheduler="tcp://host:8786")`` uses an existing cluster;
  ``DaskBackend(workers=N)`` starts a local one (processes, one thread each).
- Each task is ``run_chunk_frames(game, setup, key, chunk)``: plain, explicit
  arguments (the seed travels as ``key``), a task key derived from the
  scenario hash and chunk index, and a result of polars frames returned to
  the client, which alone writes parts and the manifest. No shared file
  system is needed, and a worker that dies mid-chunk costs only that
  chunk: the scheduler runs it again elsewhere (``retries`` covers errors).
- Before fan-out the client compiles the kernel once (warming numba's
  cache); a worker plugin gives every worker its own ``NUMBA_CACHE_DIR``,
  seeded with a copy of the warm cache (numba issues 4807, 10128: workers
  compiling into one cache can crash), and ``NUMBA_NUM_THREADS=1``, so
  processes x threads does not oversubscribe the cores.

Dask is imported only when this backend is used.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import polars as pl
from distributed.diagnostics.plugin import WorkerPlugin

from cardsim.games import get_game
from cardsim.games.base import Setup
from cardsim.results import RunDir
from cardsim.runner import Backend, Chunk


def run_chunk_frames(game_name: str, setup: Setup, key: int, chunk: Chunk, debug: bool = False
                     ) -> tuple[int, dict[str, pl.DataFrame]]:
    """One chunk's tables (runs on a worker)."""
    return chunk.index, get_game(game_name).simulate_chunk(setup, key, chunk.start, chunk.count, debug=debug)


def warm_cache(game_name: str, setup: Setup) -> Path:
    """Compile (or load) the kernel in this process; return the cache directory."""
    game = get_game(game_name)
    game.simulate_chunk(setup, 0, 0, 1)
    from cardsim.jit import cache_dir

    return cache_dir()


class CacheSetup(WorkerPlugin):
    """Worker plugin: a private numba cache (a copy of the warm one) and one numba thread."""

    name = "cardsim-numba-cache"

    def __init__(self, warm: str | None):
        self.warm = warm

    def setup(self, worker) -> None:
        # cardsim.jit puts the cache in $NUMBA_CACHE_DIR/cardsim-<source hash>: seed that folder
        own = Path(tempfile.gettempdir()) / f"cardsim-numba-{os.getpid()}"
        if self.warm and Path(self.warm).exists() and not (own / Path(self.warm).name).exists():
            shutil.copytree(self.warm, own / Path(self.warm).name, dirs_exist_ok=True)
        os.environ["NUMBA_CACHE_DIR"] = str(own)
        os.environ["NUMBA_NUM_THREADS"] = "1"
        import sys

        if "cardsim.jit" in sys.modules:  # already imported in this worker: point it at the new base
            import numba

            from cardsim.jit import cache_dir

            numba.config.CACHE_DIR = str(cache_dir())


class DaskBackend(Backend):
    def __init__(self, scheduler: str | None = None, workers: int | None = None, retries: int = 3):
        self.scheduler = scheduler
        self.workers = workers or 2
        self.retries = retries
        self.client = None
        self.cluster = None

    def _connect(self):
        from distributed import Client, LocalCluster

        if self.client is None:
            if self.scheduler:
                self.client = Client(self.scheduler, timeout="30s")
            else:
                self.cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                            dashboard_address=None, env={"NUMBA_NUM_THREADS": "1"})
                self.client = Client(self.cluster)
        return self.client

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
        self.client = self.cluster = None

    def map(self, game: str, setup: Setup, key: int, chunks: list[Chunk], path: str, debug: bool
            ) -> Iterator[tuple[int, int]]:
        from distributed import as_completed

        if not chunks:
            return
        warm = warm_cache(game, setup)
        client = self._connect()
        client.register_plugin(CacheSetup(str(warm)), name=CacheSetup.name)
        rd = RunDir(path)
        tag = Path(path).name
        futures = [client.submit(run_chunk_frames, game, setup, key, c, debug, key=f"cardsim-{tag}-{c.index}",
                                 retries=self.retries, pure=False) for c in chunks]
        unit = get_game(game).unit_table
        for fut in as_completed(futures):
            index, frames = fut.result()
            rd.write_chunk(index, frames)
            fut.release()
            yield index, frames[unit].height
