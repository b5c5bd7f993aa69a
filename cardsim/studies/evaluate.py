"""In-memory evaluation on common random numbers: the engine of ``search`` and ``meta``.

A *lineup* is what one strategy (a tuned policy, a rule set, a member of a
meta-game profile) is worth on a deal: a weighted sum of seats' results
over a few seatings. Each seating (a :class:`~cardsim.games.base.Setup`)
is played on deals ``[start, start + count)`` of a stream ``key``; game
``g`` deals the same cards in every seating and whatever the policies
(:mod:`cardsim.rng`), so two lineups evaluated on the same deals are
*paired*: their per-deal difference has far less variance than either.

Nothing is written to disk unless the evaluator is given a :class:`ChunkStore` (the meta-game
keeps its chunks there, so a call after Ctrl-C, or ``cardsim report`` after ``cardsim meta``,
reads what was played instead of playing it again). A task plays one chunk with
``Game.simulate_chunk`` and reduces it with ``Game.outcomes`` to the
per-game values the statistics need (:class:`Chunk`: each seat's win, the
length, the seats that dealt and moved first); chunks run on local
threads (the kernels release the GIL) or on a Dask cluster, and are
cached, so an incumbent re-read on the next rung, or a profile shared by
two meta-game rounds, is played once. Chunks sit on a fixed grid of
``chunk`` deals, so results depend only on (scenario, seed), never on the
thread or worker count.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from cardsim import __version__
from cardsim.games import get_game
from cardsim.games.base import Setup
from cardsim.rng import root_key

#: per-deal value kinds a lineup can read (see :meth:`Lineup.values`)
METRICS = ("win", "length", "length_in", "first", "dealer")


@dataclass(frozen=True)
class Chunk:
    """The per-game results of one chunk: ``win[g, seat]`` (1 won, 1/k shared, 0 lost; NaN when the
    game was cut unfinished), ``length[g]``, and the seat that dealt (``dealer``) and moved first
    (``first``) in game ``g`` (-1 where the game does not say)."""

    win: np.ndarray
    length: np.ndarray
    dealer: np.ndarray
    first: np.ndarray


def play_chunk(game_name: str, setup: Setup, key: int, start: int, count: int) -> tuple[Chunk, float, float]:
    """Play games ``start .. start+count-1`` of stream ``key`` and reduce them to a :class:`Chunk`;
    returns it with the task's wall and CPU seconds.

    A plain top-level function of explicit arguments, so a Dask worker can run it as it is."""
    t0, c0 = time.perf_counter(), time.thread_time()
    game = get_game(game_name)
    frames = game.simulate_chunk(setup, key, start, count)
    out = game.outcomes({t: f.lazy() for t, f in frames.items()}, setup).collect()
    chunk = reduce_outcomes(out, start, count, setup.players)
    return chunk, time.perf_counter() - t0, time.thread_time() - c0


def reduce_outcomes(out: pl.DataFrame, start: int, count: int, players: int) -> Chunk:
    """An outcome table (one row per game and seat) -> per-game arrays."""
    g = (out["game"].to_numpy() - start).astype(np.int64)
    s = out["seat"].to_numpy().astype(np.int64)
    win = np.full((count, players), np.nan)
    win[g, s] = out["win"].cast(pl.Float64).fill_null(np.nan).to_numpy()
    length = np.zeros(count)
    length[g] = out["length"].cast(pl.Float64).to_numpy()
    marks = {}
    for col in ("dealer", "first"):
        m = np.full(count, -1, np.int8)
        if col in out.columns:
            hit = out[col].fill_null(False).to_numpy()
            m[g[hit]] = s[hit]
        marks[col] = m
    return Chunk(win, length, marks["dealer"], marks["first"])


@dataclass(frozen=True)
class Seating:
    """One seating of a lineup and what it contributes: ``reads[seat] = weight`` (the lineup's
    per-deal value adds ``weight x`` that seat's result)."""

    setup: Setup
    reads: tuple[tuple[int, float], ...]


@dataclass(frozen=True)
class Lineup:
    """A strategy's value on a deal: ``sum over seatings and reads of weight x result``.

    ``metric`` says what a seat's result is: ``win``; ``length`` and ``length_in`` (1 when the
    game length lies in ``band``) are per game (the reads' weights still sum); ``first`` /
    ``dealer`` read the seat that moved / dealt first, minus the mean over seats (an advantage)."""

    seatings: tuple[Seating, ...]
    metric: str = "win"
    band: tuple[float, float] = (0.0, 0.0)

    def values(self, chunks: Sequence[Chunk]) -> np.ndarray:
        """Per-deal values from the chunks of each seating (same order as ``seatings``)."""
        total = None
        for seating, ch in zip(self.seatings, chunks, strict=True):
            v = np.zeros(ch.length.size)
            for seat, w in seating.reads:
                v += w * _seat_value(ch, seat, self.metric, self.band)
            total = v if total is None else total + v
        return total


def _seat_value(ch: Chunk, seat: int, metric: str, band: tuple[float, float]) -> np.ndarray:
    if metric == "win":
        return np.nan_to_num(ch.win[:, seat], nan=0.0)  # an unfinished game counts as not won
    if metric == "length":
        return ch.length
    if metric == "length_in":
        return ((ch.length >= band[0]) & (ch.length <= band[1])).astype(np.float64)
    marks = ch.first if metric == "first" else ch.dealer
    w = np.nan_to_num(ch.win, nan=0.0)
    rows = np.arange(w.shape[0])
    own = np.where(marks >= 0, w[rows, np.maximum(marks, 0)], np.nan)
    return own - w.mean(axis=1)


def setup_key(setup: Setup) -> str:
    """A stable identity of a seating (what the games depend on, besides the key and deals)."""
    return json.dumps(setup.describe(), sort_keys=True, default=str) + "|" + ",".join(setup.plugins)


class ChunkStore:
    """Chunks kept on disk between calls: ``folder/<seating hash>/<key>-<start>-<count>.npz``.

    The seating hash covers everything a chunk's values depend on besides the stream key and the
    deals: the seating (:func:`setup_key`), each plug-in's content (an edited plug-in's chunks are
    never read), the game's rules version and cardsim's version. A file is written to a temporary
    name and renamed, so a killed call leaves whole files or none (Ctrl-C removes the temporary
    file; a killed call may leave one, never read); a file that does not read as
    the chunk it names is played again and rewritten. When the folder cannot be written the study
    goes on without it and :attr:`failed` says why."""

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)
        self.failed: str | None = None
        self._hashes: dict[str, str] = {}

    def path(self, seating: str, setup: Setup, key: int, start: int, count: int) -> Path:
        """Where the chunk of ``setup`` (its :func:`setup_key` ``seating``) on stream ``key``, deals
        ``[start, start + count)``, is kept."""
        h = self._hashes.get(seating)
        if h is None:
            from cardsim.policies import plugin_source_key

            blob = json.dumps({"seating": seating, "plugins": [plugin_source_key(p) for p in setup.plugins],
                               "rules_version": get_game(setup.game).rules_version, "cardsim": __version__})
            h = self._hashes[seating] = hashlib.sha256(blob.encode()).hexdigest()[:16]
        return self.folder / h / f"{key}-{start}-{count}.npz"

    def load(self, path: Path, count: int) -> Chunk | None:
        try:
            with np.load(path) as z:
                ch = Chunk(win=z["win"], length=z["length"], dealer=z["dealer"], first=z["first"])
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            return None
        if not (ch.win.ndim == 2 and len(ch.win) == len(ch.length) == len(ch.dealer) == len(ch.first) == count):
            return None
        return ch

    def save(self, path: Path, ch: Chunk) -> None:
        if self.failed is not None:
            return
        tmp = path.with_name(f"{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as f:
                np.savez_compressed(f, win=ch.win, length=ch.length, dealer=ch.dealer, first=ch.first)
            os.replace(tmp, path)
        except OSError as exc:
            self.failed = f"{self.folder}: {exc.strerror or exc}"
            tmp.unlink(missing_ok=True)
        except BaseException:  # Ctrl-C in the middle of a write (it runs on the main thread): no half file left
            tmp.unlink(missing_ok=True)
            raise


@dataclass
class Timing:
    """Where a study's time went: ``play`` / ``play_cpu`` sum the tasks' wall / CPU seconds (playing
    games and reducing them to values), ``wall`` / ``cpu`` are the study's elapsed time and this
    process's CPU time, ``workers`` the parallel slots."""

    play: float = 0.0
    play_cpu: float = 0.0
    wall: float = 0.0
    cpu: float = 0.0
    workers: int = 1
    games: int = 0
    remote: bool = False
    loaded: int = 0  # games read from a ChunkStore instead of played
    finished: int = 0  # of the games played or read, those that finished (a seat's result not NaN)

    @property
    def busy(self) -> float:
        """Share of the workers' wall time spent playing games."""
        return self.play / (self.wall * self.workers) if self.wall > 0 else float("nan")

    @property
    def cpu_share(self) -> float:
        """Share of the CPU time this process used that went to playing games (local threads only:
        a worstation shared with other jobs slows every thread alike, so this ratio stays put)."""
        return self.play_cpu / self.cpu if self.cpu > 0 and not self.remote else float("nan")


class Evaluator:
    """Plays lineups on deal ranges, chunk by chunk, on local threads or a Dask cluster.

    ``chunk`` deals make one task; ranges are cut on that grid (so results never depend on
    ``threads`` or the workers). Every chunk played is kept in memory, keyed by seating, stream
    and deal range; a chunk asked for twice while in flight is played once. :meth:`start` returns
    at once (the caller prepares its next move while games play), :meth:`evaluate` waits.
    ``progress(games)`` is told of every chunk played (or read from ``store``, a
    :class:`ChunkStore`). Only the calling thread uses an ``Evaluator``."""

    def __init__(self, game: str, chunk: int = 1000, threads: int | None = None, backend: Any = None,
                 progress: Callable[[int], None] | None = None, store: ChunkStore | None = None):
        self.game = game
        self.chunk = int(chunk)
        self.threads = threads or min(4, os.cpu_count() or 1)
        self.backend = backend  # a cardsim.dask_backend.DaskBackend, or None for local threads
        self.progress = progress
        self.store = store
        self._stored: dict[tuple[str, int, int, int], Path] = {}  # chunk in flight -> its store path
        self.cache: dict[tuple[str, int, int, int], Chunk] = {}
        self.timing = Timing(workers=self._slots(), remote=backend is not None)
        self._inflight: dict[tuple[str, int, int, int], tuple[Any, int]] = {}
        self._pool: ThreadPoolExecutor | None = None
        self._warm: set[tuple[str, ...]] = set()

    def _slots(self) -> int:
        if self.backend is None:
            return self.threads
        return int(getattr(self.backend, "workers", None) or 1)

    def close(self) -> None:
        """Stop the threads. Chunks not started are dropped: after Ctrl-C (or a study that ended with
        chunks still queued ahead) only the chunks already playing are waited for, not the queue."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    # -- the work ----------------------------------------------------------------------
    def evaluate(self, lineups: Sequence[Lineup], key: int, start: int, count: int) -> list[np.ndarray]:
        """Per-deal values of each lineup on deals ``[start, start + count)`` of stream ``key``."""
        return self.start(lineups, key, start, count).result()

    def start(self, lineups: Sequence[Lineup], key: int, start: int, count: int) -> Pending:
        """Start playing what ``lineups`` need on deals ``[start, start + count)`` (cut on the chunk
        grid) and return at once; :meth:`Pending.result` waits for the values."""
        grid = [(s, min(self.chunk, start + count - s)) for s in range(start, start + count, self.chunk)]
        setups: dict[str, Setup] = {}
        for lu in lineups:
            for st in lu.seatings:
                setups.setdefault(setup_key(st.setup), st.setup)
        wanted = [(k, key, a, n) for k in setups for a, n in grid]
        todo = [(k, setups[k], a, n) for k, _, a, n in wanted
                if (k, key, a, n) not in self.cache and (k, key, a, n) not in self._inflight]
        if self.store is not None:
            todo = [t for t in todo if not self._read(t, key)]
        self._submit(todo, key)
        return Pending(self, list(lineups), key, grid, wanted)

    def _read(self, item: tuple[str, Setup, int, int], key: int) -> bool:
        """Whether the store held the chunk (now in the cache); if not, where to keep it once played."""
        k, setup, a, n = item
        path = self.store.path(k, setup, key, a, n)
        ch = self.store.load(path, n)
        if ch is None:
            self._stored[(k, key, a, n)] = path
            return False
        self.cache[(k, key, a, n)] = ch
        self.timing.loaded += n
        self.timing.finished += _finished(ch)
        if self.progress:
            self.progress(n)
        return True

    def _submit(self, todo: list[tuple[str, Setup, int, int]], key: int) -> None:
        if not todo:
            return
        if self.backend is not None:
            client = self._client(todo)
            for k, setup, a, n in todo:
                self._inflight[(k, key, a, n)] = (client.submit(play_chunk, self.game, setup, key, a, n, pure=False,
                                                             retries=getattr(self.backend, "retries", 0)), n)
            return
        if self._pool is None and self.threads > 1:
            self._pool = ThreadPoolExecutor(self.threads)
        for k, setup, a, n in todo:
            if self._pool is None:
                self._inflight[(k, key, a, n)] = (_Done(play_chunk(self.game, setup, key, a, n)), n)
            else:
                self._inflight[(k, key, a, n)] = (self._pool.submit(play_chunk, self.game, setup, key, a, n), n)

    def _client(self, todo: list[tuple[str, Setup, int, int]]):
        from cardsim.dask_backend import CacheSetup, warm_cache

        client = self.backend._connect()  # cardsim.dask_backend.DaskBackend starts or joins the cluster
        plugins = tuple(sorted({p for _, s, _, _ in todo for p in s.plugins}))
        if plugins not in self._warm:
            warm = warm_cache(self.game, todo[0][1])
            client.register_plugin(CacheSetup(str(warm)), name=CacheSetup.name)
            self._warm.add(plugins)
        return client

    def _wait(self, ck: tuple[str, int, int, int]) -> Chunk:
        if ck in self.cache:
            return self.cache[ck]
        fut, n = self._inflight.pop(ck)
        chunk, seconds, cpu = fut.result()
        if hasattr(fut, "release"):
            fut.release()
        self.cache[ck] = chunk
        if ck in self._stored:
            self.store.save(self._stored.pop(ck), chunk)
        self.timing.play += seconds
        self.timing.play_cpu += cpu
        self.timing.games += n
        self.timing.finished += _finished(chunk)
        if self.progress:
            self.progress(n)
        return chunk

    def forget(self, lineups: Sequence[Lineup], keep: Sequence[Lineup] = ()) -> None:
        """Drop the cached chunks of ``lineups``' seatings, except those ``keep`` also plays."""
        kept = {setup_key(st.setup) for lu in keep for st in lu.seatings}
        drop = {setup_key(st.setup) for lu in lineups for st in lu.seatings} - kept
        for k in [k for k in self.cache if k[0] in drop]:
            del self.cache[k]


def _finished(ch: Chunk) -> int:
    """The games of ``ch`` that finished (cut at the cap, a game has no seat's result)."""
    return int(np.isfinite(ch.win).any(axis=1).sum())


class _Done:
    """A finished result with a future's face (the single-thread path)."""

    def __init__(self, value: Any):
        self.value = value

    def result(self) -> Any:
        return self.value


@dataclass
class Pending:
    """Values being played; :meth:`result` waits for them (each lineup's per-deal values)."""

    ev: Evaluator
    lineups: list[Lineup]
    key: int
    grid: list[tuple[int, int]]
    chunks: list[tuple[str, int, int, int]]

    def result(self) -> list[np.ndarray]:
        for ck in self.chunks:
            self.ev._wait(ck)
        out = []
        for lu in self.lineups:
            parts = [lu.values([self.ev.cache[(setup_key(st.setup), self.key, a, n)] for st in lu.seatings])
                     for a, n in self.grid]
            out.append(np.concatenate(parts) if parts else np.zeros(0))
        return out


@dataclass
class Estimate:
    """A mean of per-deal values with its 95% interval (deals are the clusters; Student's t with
    n - 1 degrees of freedom, the normal quantile for large n)."""

    mean: float
    se: float
    n: int
    lo: float = field(init=False)
    hi: float = field(init=False)

    def __post_init__(self) -> None:
        from cardsim.stats import Z95, t95

        z = t95(self.n - 1) if self.n > 1 else Z95
        self.lo = self.mean - z * self.se
        self.hi = self.mean + z * self.se

    def row(self, prefix: str = "") -> dict[str, float]:
        return {f"{prefix}mean" if prefix else "mean": self.mean, f"{prefix}lo": self.lo, f"{prefix}hi": self.hi}


def estimate(values: np.ndarray) -> Estimate:
    """Mean of per-deal values (or per-deal paired differences) +- t(n-1) SE: every value of a deal
    (its seat rotations, its seats) is already folded into one number, so deals are independent."""
    from cardsim.stats import mean_se

    m, se, n = mean_se(values)
    return Estimate(m, se, n)


def share_estimate(values: np.ndarray, top: float = 1.0) -> Estimate:
    """:func:`estimate` of per-deal shares (values in [0, 1], e.g. a strategy's share of a deal's
    wins, a quarter of a win per seat) with the interval of :func:`cardsim.stats.share_ci`, untruncated:
    Clopper-Pearson at the effective number of results ``m (1 - m) / se^2`` (each deal's share
    averages several seats' results, so it can exceed the deals). The t interval of :func:`estimate`
    covered only about 92.6% at a few wins in 2,000 deals (a rare win is skewed; the t interval is
    symmetric); this one covers 95-98% there and has about the t interval's width at common shares.
    A cell whose every deal gave the same value (no spread to take a standard error from) gets
    Clopper-Pearson at the number of deals: 0 wins in 2,000 mirror deals reads 0.0%-0.18%, never
    0.0%-0.0%. The coverage case ``meta payoff cell`` measures it.

    ``top``: the largest value a deal can give, when it is below 1 (a mirror cell, every side the same
    strategy: the strategy's share of a deal's wins is the deal's wins over the k sides, at most 1/k):
    the values are read as shares of ``top``, so the interval never reaches past it. A mirror cell
    whose 800 deals all finished read 22.0-28.2% around 25% (no deal could give more than 25%); it
    reads 24.9-25.0% now (the share of finished deals, Clopper-Pearson's 800 of 800, over the k sides).
    Values above ``top`` (which a caller's bound should never allow) keep the unit scale."""
    from cardsim.stats import share_ci

    v = np.asarray(values, dtype=np.float64)
    if not 0 < top < 1 or (v.size and v.max() > top * (1 + 1e-9)):
        top = 1.0
    e = estimate(v / top)
    if e.n > 1:
        s = share_ci(v / top, np.arange(v.size), truncate=False)
        e.lo, e.hi = s.lo, s.hi
    if top == 1.0:
        return e
    out = Estimate(e.mean * top, e.se * top, e.n)
    out.lo, out.hi = e.lo * top, min(e.hi * top, top)
    return out


def gain_estimate(values: np.ndarray, bounds: tuple[float, float] | None, family: int = 1) -> Estimate:
    """:func:`estimate` of per-deal gains (paired differences) that lie within ``bounds`` (two shares of
    a deal's wins: -1 to +1), with :func:`cardsim.stats.mean_ci`'s bounded interval instead of the t
    interval: MOVER on the positive and negative parts, each Clopper-Pearson at its effective size (the
    interval of ``cardsim compare``'s difference of wins). Near a bound the t interval covers badly, and
    where every deal gave the same gain it has zero width (a team that won every one of 800 deals
    against a field the mirror splits 50/50 read "+50.0 points (50.0 to 50.0)"); the bounded one never
    has. ``bounds`` None (an unbounded measure, a length): the t interval of :func:`estimate`. The
    coverage cases ``search held-out paired gain``, ``meta payoff and exploitability`` and ``held-out
    gain near its bound`` measure it. ``family``: the interval is one of ``family`` that hold at once
    (Bonferroni: each at level 0.05 / family; :func:`cardsim.stats.bonferroni_z`)."""
    from cardsim.stats import bonferroni_z, mean_ci

    e = estimate(values)
    if e.n > 1 and (bounds is not None or family > 1):
        z = None if family <= 1 else bonferroni_z(family)
        if bounds is not None:
            b = mean_ci(np.asarray(values, dtype=np.float64), z=z, bounds=bounds)
            e.lo, e.hi = b.lo, b.hi
        else:
            c = bonferroni_z(family, e.n - 1)
            e.lo, e.hi = e.mean - c * e.se, e.mean + c * e.se
    return e


def keys_for(seed: int) -> dict[str, int]:
    """The deal streams of a study: ``search`` (the deals candidates race on), ``heldout`` (fresh
    deals for the final estimates, never seen by the search) and ``table`` / ``check`` for meta."""
    ss = np.random.SeedSequence(int(seed))
    names = ("search", "heldout", "table", "check")
    kids = ss.spawn(len(names))
    out = {n: int(k.generate_state(1, np.uint64)[0]) for n, k in zip(names, kids, strict=True)}
    out["root"] = root_key(seed)
    return out


def rotations(seats: Sequence[Any], reads: Mapping[int, float]) -> list[tuple[list[Any], dict[int, float]]]:
    """Every rotation of a seat list, each with its reads moved along (seat ``i`` -> ``(i + r) % n``),
    rotations giving the same seat list merged (their reads add), each weighted ``1 / n``."""
    n = len(seats)
    merged: dict[str, tuple[list[Any], dict[int, float]]] = {}
    for r in range(n):
        rot: list[Any] = [None] * n
        for i, p in enumerate(seats):
            rot[(i + r) % n] = p
        k = json.dumps(rot, sort_keys=True, default=str)
        entry = merged.setdefault(k, (rot, {}))
        for seat, w in reads.items():
            t = (seat + r) % n
            entry[1][t] = entry[1].get(t, 0.0) + w / n
    return list(merged.values())


def games_of(lineups: Iterable[Lineup], count: int) -> int:
    """Games a set of lineups costs on ``count`` deals (distinct seatings only)."""
    return count * len({setup_key(st.setup) for lu in lineups for st in lu.seatings})
