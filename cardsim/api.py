"""The Python API; the CLI is a thin layer over these functions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from cardsim import scenario as sc
from cardsim.errors import RunDirError, ScenarioError
from cardsim.games import get_game
from cardsim.results import RunDir
from cardsim.runner import Backend, Progress, default_run_dir, execute, plan
from cardsim.sequential import eb_sequence, parse_target


@dataclass
class Result:
    """A finished run: its directory, scenario and tables (lazy polars)."""

    scenario: sc.Scenario
    rundir: RunDir
    stop: str = ""

    @property
    def path(self) -> Path:
        return self.rundir.path

    @property
    def tables(self) -> dict[str, pl.LazyFrame]:
        """Each table of the run, restricted to this scenario's games."""
        chunks = [c.index for c in plan(self.scenario.games, self.scenario.chunk)]
        game = get_game(self.scenario.game)
        return {t: self.rundir.scan(t, chunks) for t in game.columns}

    def summary(self) -> list[tuple[str, pl.DataFrame]]:
        """The game's summary tables, each with n and 95% intervals."""
        return get_game(self.scenario.game).summarize(self.tables, self.scenario.setup)

    def balance(self) -> pl.DataFrame:
        """Balance metrics (balance, first-player and dealer advantage, duration, decisiveness, ...)."""
        from cardsim.metrics import balance_table

        return balance_table(get_game(self.scenario.game), self.tables, self.scenario.setup)

    def outcomes(self) -> pl.LazyFrame:
        """One row per (game, seat): win (1, 1/k shared, 0; null unfinished) and length."""
        return get_game(self.scenario.game).outcomes(self.tables, self.scenario.setup)


def open_run(path: str | Path) -> Result:
    """The :class:`Result` of an existing run directory (its scenario comes from the manifest)."""
    rd = RunDir(path)
    m = rd.read_manifest()
    try:
        s = sc.from_dict(m["scenario"], name=m.get("name", "run"))
    except sc.ScenarioError as exc:
        raise RunDirError(f"{rd.manifest_path}: its scenario no longer validates: {exc}") from None
    s = s.with_options(games=max(1, int(m.get("games", s.games))))
    if s.hash() != m["hash"]:
        raise RunDirError(f"{rd.path} was made by another rules version or cardsim (hash {m['hash']}, now {s.hash()})")
    return Result(s, rd)


def load(scenario: str | Path | sc.Scenario, games: int | None = None, seed: int | None = None) -> sc.Scenario:
    s = scenario if isinstance(scenario, sc.Scenario) else sc.load(scenario)
    return s.with_options(games=games, seed=seed)


def run(scenario: str | Path | sc.Scenario, games: int | None = None, seed: int | None = None,
        out: str | Path | None = None, runs: str | Path = "runs", threads: int | None = None,
        progress: Progress | None = None, debug: bool = False, until: str | None = None,
        backend: Backend | None = None) -> Result:
    """Run (or resume, or extend) a scenario and return its :class:`Result`.

    ``out`` is the run directory (default ``runs/<name>-<hash>``). Finished
    chunks already in it are reused, so calling ``run`` twice costs nothing.
    ``until`` (e.g. ``"winrate_s0 +-0.002"``) plays chunk after chunk until the
    named estimate's anytime-valid 95% interval is that narrow, with ``games``
    (or the scenario's) as the cap; ``Result.scenario.games`` is what it took.
    """
    s = load(scenario, games, seed)
    until = until or s.raw.get("scenario", {}).get("until")
    path = Path(out) if out is not None else default_run_dir(s, runs)
    own = backend is None
    if own:  # the scenario's backend / workers / scheduler keys
        backend = make_backend(s)
    try:
        if until:
            return _run_until(s, path, until, threads, progress, debug, backend)
        rd = execute(s, path, threads=threads, progress=progress, debug=debug, backend=backend)
        return Result(s, rd)
    finally:
        if own and backend is not None:
            backend.close()


def _run_until(s: sc.Scenario, path: Path, until: str, threads, progress, debug, backend) -> Result:
    name, width = parse_target(until)
    m = re.fullmatch(r"winrate_s(\d+)", name)
    if not m:
        raise ScenarioError(f"until: unknown estimate {name!r}; allowed: winrate_s<seat> (e.g. winrate_s0)")
    seat = int(m.group(1))
    if seat >= s.setup.players:
        raise ScenarioError(f"until: seat {seat} does not exist with {s.setup.players} players")
    chunks = plan(s.games, s.chunk)
    step = max(1, 2 * (threads or 2))
    done = 0
    while True:
        done = min(len(chunks), done + step)
        execute(s, path, threads=threads, progress=progress, debug=debug, chunks=chunks[:done], backend=backend)
        n = chunks[done - 1].start + chunks[done - 1].count
        res = Result(s.with_options(games=n), RunDir(path))
        w = res.outcomes().filter(pl.col("seat") == seat).sort("game").select("win").collect()["win"]
        cs = eb_sequence(w.drop_nulls().to_numpy(), target=width)
        if cs.half <= width or done == len(chunks):
            res.stop = (f"stopped after {n:,} games: winrate_s{seat} = {cs.center:.4f} +- {cs.half:.4f} "
                        f"(anytime-valid 95% confidence sequence)"
                        + ("" if cs.half <= width else f"; the cap of {s.games:,} games came first"))
            return res


def make_backend(s: sc.Scenario, backend: str | None = None, workers: int | None = None,
                 scheduler: str | None = None) -> Backend | None:
    """The backend named by the CLI options or the scenario's ``backend`` / ``workers`` /
    ``scheduler`` keys: None (local threads) or a :class:`cardsim.dask_backend.DaskBackend`."""
    cfg = s.raw.get("scenario", {})
    backend = backend or cfg.get("backend", "local")
    scheduler = scheduler or cfg.get("scheduler")
    workers = workers or cfg.get("workers")
    if scheduler:
        backend = "dask"
    if backend not in ("local", "dask"):
        raise ScenarioError(f"backend = {backend!r}; allowed: local, dask")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ScenarioError(f"workers = {workers!r} must be a positive integer")
    if scheduler is not None and (not isinstance(scheduler, str) or "://" not in scheduler):
        raise ScenarioError(f"scheduler = {scheduler!r} must be an address like tcp://host:8786")
    if backend == "local":
        return None
    try:
        from cardsim.dask_backend import DaskBackend
    except ImportError:
        raise ScenarioError("backend = 'dask' needs dask[distributed]: pip install 'cardsim[dask]'") from None
    return DaskBackend(scheduler=scheduler, workers=workers)


def compare(scenario: str | Path | sc.Scenario, games: int | None = None, runs: str | Path = "runs",
            threads: int | None = None, progress: Progress | None = None):
    """Play every arm of ``[compare]`` on the same deals; returns a :class:`cardsim.studies.compare.CompareResult`."""
    from cardsim.studies import compare as cmp

    s = load(scenario)
    return cmp.run(s, lambda d: run(d, runs=runs, threads=threads, progress=progress), games)


def sweep(scenario: str | Path | sc.Scenario, games: int | None = None, runs: str | Path = "runs",
          threads: int | None = None, progress: Progress | None = None):
    """Play every point of ``[sweep]``; returns a :class:`cardsim.studies.sweep.SweepResult` (``.table``: polars)."""
    from cardsim.studies import sweep as sw

    s = load(scenario)
    return sw.run(s, lambda d: run(d, runs=runs, threads=threads, progress=progress), games)


def rate(scenario: str | Path | sc.Scenario, games: int | None = None, runs: str | Path = "runs",
         threads: int | None = None, progress: Progress | None = None):
    """Round robin or gauntlet of ``[ratings]``; returns a :class:`cardsim.studies.rate.RatingResult`."""
    from cardsim.studies import rate as rt

    s = load(scenario)
    return rt.run(s, lambda d: run(d, runs=runs, threads=threads, progress=progress), games)


def _in_memory(kind: str, scenario: str | Path | sc.Scenario, seed: int | None, threads: int | None,
               backend: Backend | None, **kw):
    """Run the ``search`` or ``meta`` study on an in-memory evaluator (local threads, or the given
    or the scenario's Dask backend)."""
    import importlib

    from cardsim.studies.evaluate import Evaluator

    mod = importlib.import_module(f"cardsim.studies.{kind}")
    s = load(scenario, seed=seed)
    p = mod.plan(s)
    own = backend is None
    if own:
        backend = make_backend(s)
    ev = Evaluator(s.game, chunk=p.chunk, threads=threads, backend=backend)
    try:
        return mod.run(s, ev, **kw)
    finally:
        ev.close()
        if own and backend is not None:
            backend.close()


def search(scenario: str | Path | sc.Scenario, budget: int | None = None, seed: int | None = None,
           runs: str | Path | None = "runs", threads: int | None = None, progress: Progress | None = None,
           backend: Backend | None = None):
    """Search the ``[search]`` section's parameters; returns a :class:`cardsim.studies.search.SearchResult`.

    ``budget`` (games) overrides ``search.budget``; the search's journal lives in
    ``runs/<name>-search-<hash>/`` (``runs=None``: in memory), so calling ``search`` again after
    a kill resumes it, and after it finished costs only the held-out re-play. ``progress(done,
    total)`` follows the search's games. ``backend`` (a Dask backend) plays the games on a cluster;
    by default the scenario's ``backend`` / ``scheduler`` keys decide."""
    return _in_memory("search", scenario, seed, threads, backend, runs=runs, progress=progress, budget=budget)


def meta(scenario: str | Path | sc.Scenario, games: int | None = None, seed: int | None = None,
         runs: str | Path | None = "runs", threads: int | None = None, progress: Progress | None = None,
         backend: Backend | None = None):
    """Empirical game analysis of the ``[meta]`` section; returns a :class:`cardsim.studies.meta.MetaResult`.

    ``games`` overrides ``meta.deals`` (deals per profile). Best-response searches keep their
    journals under ``runs`` as ``search`` does."""
    return _in_memory("meta", scenario, seed, threads, backend, runs=runs, progress=progress, deals=games)
