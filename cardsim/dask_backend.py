"""The Dask distributed backend (issue 8): the same chunks, on a cluster.

- ``DaskBackend(scheduler="tcp://host:8786")`` uses an existing cluster;
  ``DaskBackend(workers=N)`` starts a local one (processes, one thread each).
- Each task is ``run_chunk_parts(game, setup, key, chunk)``: plain, explicit
  arguments (the seed travels as ``key``), a task key derived from the
  scenario hash and chunk index, and a result of encoded parquet parts
  returned to the client, which alone writes them and the manifest (so the
  client only copies bytes to disk; the workers build and compress the
  tables). No shared file system is needed, and a worker that dies
  mid-chunk costs only that chunk: the scheduler runs it again elsewhere
  (up to Dask's ``distributed.scheduler.allowed-failures``, 3 by default). An
  exception raised inside a task is not retried (``retries`` is 0): the games
  are deterministic, so a plug-in that raises on a chunk raises again on every
  try, and three retries only tripled the wait for its one-line error.
- Before fan-out the client compiles the kernel once (warming numba's
  cache). A worker plugin points every worker on this machine at that same
  cache (:func:`cardsim.cachedir.base`), so workers only load what the
  client compiled (numba writes cache files atomically; the crashes of
  numba issues 4807 and 10128 come from processes *compiling* into one
  cache at once, which the warm-up avoids), and sets ``NUMBA_NUM_THREADS=1``,
  so processes x threads does not oversubscribe the cores. A worker on
  another machine keeps its own cache.
- A local cluster keeps its scratch files in a temporary folder that
  :meth:`DaskBackend.close` removes: a run leaves nothing behind.

Dask is imported only when this backend is used.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from distributed.diagnostics.plugin import WorkerPlugin

from cardsim import cachedir
from cardsim.errors import CardsimError
from cardsim.games import get_game
from cardsim.games.base import Setup
from cardsim.results import RunDir, encode_parquet
from cardsim.runner import Backend, Chunk


def run_chunk_parts(game_name: str, setup: Setup, key: int, chunk: Chunk, debug: bool = False
                    ) -> tuple[int, int, dict[str, bytes]]:
    """One chunk's tables as parquet bytes, and its units (runs on a worker)."""
    game = get_game(game_name)
    frames = game.simulate_chunk(setup, key, chunk.start, chunk.count, debug=debug)
    return chunk.index, frames[game.unit_table].height, {t: encode_parquet(f) for t, f in frames.items()}


def warm_cache(game_name: str, setup: Setup, debug: bool = False) -> None:
    """Compile (or load) the kernel a run of ``setup`` uses, in this process."""
    get_game(game_name).simulate_chunk(setup, 0, 0, 1, debug=debug)


class CacheSetup(WorkerPlugin):
    """Worker plugin: the client's numba cache when this machine has it, and one numba thread."""

    name = "cardsim-numba-cache"

    def __init__(self, cache: str):
        self.cache = cache

    def setup(self, worker) -> None:
        if Path(self.cache).is_dir() and os.access(self.cache, os.W_OK):
            os.environ["NUMBA_CACHE_DIR"] = self.cache  # read when cardsim's kernels are first imported
        os.environ["NUMBA_NUM_THREADS"] = "1"


class DaskBackend(Backend):
    connect_timeout = "30s"  #: how long to wait for a remote scheduler (--scheduler)

    def __init__(self, scheduler: str | None = None, workers: int | None = None, retries: int = 0):
        self.scheduler = scheduler
        self.workers = workers or 2
        self.retries = retries
        self.client = None
        self.cluster = None
        self.scratch: str | None = None
        self.config = None  # the dask config override of a local cluster, undone at close

    def _connect(self):
        from distributed import Client, LocalCluster

        if self.client is None:
            if self.scheduler:
                try:
                    self.client = Client(self.scheduler, timeout=self.connect_timeout)
                except OSError as exc:  # refused, unknown host or no answer within the timeout
                    raise CardsimError(f"the Dask scheduler could not be reached at {self.scheduler} within "
                                       f"{self.connect_timeout} ({type(exc).__name__}); check the address and that "
                                       f"the scheduler runs, or leave out --scheduler to play on this machine"
                                       ) from None
                except Exception as exc:  # something answered, but not a Dask scheduler (an HTTP port, say):
                    # distributed read its reply as a frame length and raised MemoryError, with a traceback
                    raise CardsimError(f"{self.scheduler} answered, but not as a Dask scheduler "
                                       f"({type(exc).__name__}); give the scheduler's own address (tcp://HOST:8786 "
                                       f"by default, not its dashboard's), or leave out --scheduler to play on "
                                       f"this machine") from exc
            else:
                import dask

                self.scratch = tempfile.mkdtemp(prefix="cardsim-dask-")
                # every scratch file (the scheduler's and the workers' dask-scratch-space) goes there
                self.config = dask.config.set({"temporary-directory": self.scratch})
                # silence_logs: a task that raises (a plug-in's error) reaches the client, which says it in
                # one line (its worker traceback under cardsim --debug); the workers' log records of it
                # ("Compute Failed" with the traceback, once a retry) flooded stderr above that line
                self.cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                            dashboard_address=None, local_directory=self.scratch,
                                            silence_logs=logging.CRITICAL,
                                            # no dashboard, but the scheduler's HTTP server took port 8787
                                            # anyway, with a warning when another cluster held it
                                            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                                            env={"NUMBA_NUM_THREADS": "1", "NUMBA_CACHE_DIR": str(cachedir.base()),
                                                 "DASK_TEMPORARY_DIRECTORY": self.scratch})
                self.client = Client(self.cluster)
        return self.client

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
        if self.config is not None:
            self.config.__exit__(None, None, None)
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
        self.client = self.cluster = self.scratch = self.config = None

    def map(self, game: str, setup: Setup, key: int, chunks: list[Chunk], path: str, debug: bool
            ) -> Iterator[tuple[int, int]]:
        from distributed import as_completed

        if not chunks:
            return
        warm_cache(game, setup, debug)
        client = self._connect()
        client.register_plugin(CacheSetup(str(cachedir.base())), name=CacheSetup.name)
        rd = RunDir(path)
        tag = Path(path).name
        futures = [client.submit(run_chunk_parts, game, setup, key, c, debug, key=f"cardsim-{tag}-{c.index}",
                                 retries=self.retries, pure=False) for c in chunks]
        for fut in as_completed(futures):
            index, units, parts = fut.result()
            rd.write_parts(index, parts)
            fut.release()
            yield index, units
