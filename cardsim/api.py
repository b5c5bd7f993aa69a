"""The Python API; the CLI is a thin layer over these functions."""

from __future__ import annotations

import functools
import numbers
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from cardsim import scenario as sc
from cardsim.errors import CardsimError, PolicyError, RunDirError, ScenarioError, unlookable
from cardsim.games import get_game
from cardsim.results import RunDir, recorded_signature
from cardsim.runner import Backend, Progress, check_tables, default_run_dir, holds, identity_change, plan, play


@dataclass
class Result:
    """A finished run: its directory, scenario and tables (lazy polars)."""

    scenario: sc.Scenario
    rundir: RunDir
    stop: str = ""
    played: int = 0  #: games this call played (0: every game asked for was in the run directory already)

    @property
    def path(self) -> Path:
        return self.rundir.path

    @functools.cached_property
    def tables(self) -> dict[str, pl.LazyFrame]:
        """Each table of the run, restricted to this scenario's games (made once: the same lazy frames
        for the answer, the figures and the summary, so what a game computes from them once it can
        keep; a lazy frame reads its files when collected, and the parts of these games do not
        change)."""
        chunks = [c.index for c in plan(self.scenario.games, self.scenario.chunk)]
        game = get_game(self.scenario.game)
        # the last chunk may hold more games than asked (a run read at fewer games than it played)
        n = self.scenario.games
        return Tables({t: self.rundir.scan(t, chunks).filter(pl.col("game") < n) for t in game.columns},
                      where=str(self.path))

    def summary(self) -> list[tuple[str, pl.DataFrame]]:
        """The game's summary tables, each with n and 95% intervals."""
        return get_game(self.scenario.game).summarize(self.tables, self.scenario.setup)

    def balance(self) -> pl.DataFrame:
        """Balance metrics (balance, equal-seat test, first-player and dealer advantage, duration, final lead, ...)."""
        from cardsim.metrics import balance_table

        return balance_table(get_game(self.scenario.game), self.tables, self.scenario.setup)

    def outcomes(self) -> pl.LazyFrame:
        """One row per (game, seat): win (1, 1/k shared, 0; null unfinished) and length."""
        return get_game(self.scenario.game).outcomes(self.tables, self.scenario.setup)

    def to_pandas(self, table: str):
        """Table ``table`` as a pandas DataFrame with pandas' nullable dtypes (:func:`to_pandas`): an
        integer column with nulls stays integer (``Int8`` .. ``Int64``) instead of becoming float64."""
        return to_pandas(self.tables[table].collect())


class NoTableError(RunDirError, KeyError):
    """A table the run does not have (``res.tables["nope"]``): a :class:`RunDirError` naming the tables there,
    and a ``KeyError`` still for code that catches one."""

    __str__ = Exception.__str__  # KeyError's would quote the message


class Tables(dict):
    """A run's tables by name; a missing name is a :class:`NoTableError` naming the run's tables (it was a bare
    ``KeyError: 'nope'``)."""

    def __init__(self, tables: Mapping[str, pl.LazyFrame], where: str):
        super().__init__(tables)
        self.where = where

    def __missing__(self, table: object):
        raise NoTableError(f"no table {table!r} in {self.where}; tables: {', '.join(self)}")


def to_pandas(frame: pl.DataFrame | pl.LazyFrame):
    """A polars frame as pandas, integers and booleans as pandas' nullable ``Int*`` / ``UInt*`` /
    ``boolean`` dtypes and text as ``string`` (a null stays a null: ``pd.NA``), floats as float64
    (a null becomes NaN), enums as categoricals. Needs pandas and pyarrow (``cardsim[pandas]``)."""
    try:
        import pandas as pd
        import pyarrow as pa
    except ImportError:
        raise ScenarioError("to_pandas needs pandas and pyarrow: pip install 'cardsim[pandas]'") from None
    mapping = {
        pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(), pa.int32(): pd.Int32Dtype(),
        pa.int64(): pd.Int64Dtype(), pa.uint8(): pd.UInt8Dtype(), pa.uint16(): pd.UInt16Dtype(),
        pa.uint32(): pd.UInt32Dtype(), pa.uint64(): pd.UInt64Dtype(), pa.bool_(): pd.BooleanDtype(),
        pa.string(): pd.StringDtype(), pa.large_string(): pd.StringDtype(), pa.string_view(): pd.StringDtype(),
    }
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    if not isinstance(frame, pl.DataFrame | pl.Series):  # an AttributeError on to_arrow
        raise CardsimError(f"to_pandas takes a polars DataFrame, LazyFrame or Series (a table of res.tables, a "
                           f"study's frame), not {type(frame).__name__}; for a run's table by name: res.to_pandas(name)")
    return frame.to_arrow().to_pandas(types_mapper=mapping.get)


def open_run(path: str | Path) -> Result:
    """The :class:`Result` of a finished run directory, as it was played: its scenario, seed and
    chunking come from its manifest."""
    if not isinstance(path, (str, os.PathLike)):
        raise RunDirError(f"open_run takes a run directory's path (str or Path), not {type(path).__name__} {path!r}")
    if (why := unlookable(path)) is not None:  # pathlib's OSError (a name too long) or ValueError (a NUL byte)
        raise RunDirError(f"run directory {why}")
    folder = Path(path)
    if not (folder / "manifest.json").exists() and ((folder / "journal.log").is_file()
                                                     or folder.name.endswith("-meta-chunks")):
        # it said only "not a run directory (no manifest.json)", as `cardsim run` did before it named the command
        study = "search" if (folder / "journal.log").is_file() else "meta"
        what = "a search's folder (journal.log)" if study == "search" else "a meta-game's games (its chunks)"
        raise RunDirError(f"{folder} is {what}, not a run directory: cardsim.{study}(scenario, runs={str(folder.parent)!r}) "
                          f"resumes from it and returns the {study}'s result (no finished batch or chunk is played again)")
    rd, m, s = played_scenario(path)
    if s.hash() != m["hash"]:
        why = (identity_change(m.get("identity", {}), s.identity())
               or f"it was made by another rules version or cardsim (hash {m['hash']}, now {s.hash()})")
        raise RunDirError(f"{rd.path} cannot be read as this scenario's run: {why}; run the scenario again "
                          f"into a new --out")
    _check_parts(rd, m, s)
    return Result(s, rd, stop=until_note(m, s.games) or interrupted_note(m, s.games, rd.path))


def interrupted_note(m: dict, games: int, path: Path) -> str:
    """A run that kept fewer games than it was asked for (Ctrl-C, a kill): said where it is read
    (``cardsim report RUN_DIR``'s Run table), which otherwise gave its games as if they were the run."""
    asked = m.get("asked")
    if until_games(m) is not None or not isinstance(asked, int) or isinstance(asked, bool) or asked <= games:
        return ""
    from cardsim.runner import holder

    who = holder(Path(path))
    if who:  # another cardsim is playing into it now: "interrupted" sent the reader to a command it refused
        return (f"still being played: {games:,} of the {asked:,} games asked were finished when this read it; "
                f"another cardsim ({who}) is playing the rest into {path}")
    return (f"interrupted: {games:,} of the {asked:,} games asked were played; `cardsim run {path}` plays the "
            f"rest (finished chunks are not played again)")


def until_games(m: dict) -> int | None:
    """Where an ``--until`` run of this directory stopped (its manifest's ``until``), if it was one."""
    u = m.get("until")
    g = u.get("games") if isinstance(u, dict) else None
    return g if isinstance(g, int) and not isinstance(g, bool) and g >= 1 else None


def until_note(m: dict, games: int) -> str:
    """The stopping line of an ``--until`` run read at its stop (empty for any other read)."""
    return str(m["until"].get("note", "")) if until_games(m) == games else ""


def played_scenario(path: str | Path) -> tuple[RunDir, dict, sc.Scenario]:
    """A run directory, its manifest and the scenario it played (``cardsim run RUN_DIR`` resumes it)."""
    rd = RunDir(path)
    m = rd.read_manifest()
    if not isinstance(m["scenario"], dict):
        raise RunDirError(f"{rd.manifest_path} is corrupt: 'scenario' must be the scenario's tables")
    try:
        # one_study=False: a run played before two study sections were refused still opens (it played the base)
        s = sc.from_dict(m["scenario"], name=m.get("name", "run"), one_study=False)
    except sc.ScenarioError as exc:
        raise RunDirError(f"{rd.manifest_path}: its scenario no longer validates: {exc}") from None
    except PolicyError as exc:  # a plug-in moved, deleted or broken since: the error named no run directory
        raise RunDirError(f"{rd.path} was played with a plug-in that does not load now ({exc}); its games are "
                          f"read with the plug-in they were played with: put the file back as it was to report or "
                          f"extend the run") from None
    # the manifest's identity and chunk are what was played: a run with --seed, a sweep's best point
    # on fresh deals and an --until run (its own chunk) differ there from the scenario file (older
    # manifests kept the file's seed and chunk in "scenario")
    played = m["identity"].get("seed", s.seed) if isinstance(m["identity"], dict) else s.seed
    games = until_games(m) or m.get("games", s.games)  # an --until run: the games up to its stop
    try:
        s = s.with_options(games=max(1, int(games)), seed=played, chunk=m["chunk"])
    except (sc.ScenarioError, TypeError, ValueError) as exc:
        raise RunDirError(f"{rd.manifest_path} is corrupt: {exc}") from None
    return rd, m, s


def _check_parts(rd: RunDir, m: dict, s: sc.Scenario) -> None:
    """Refuse a run directory with an unfinished chunk or a part that does not read (a torn or
    truncated file), naming it; ``cardsim run RUN_DIR`` plays that chunk again."""
    if not isinstance(m["done"], dict):  # as `cardsim run RUN_DIR` says (it said a chunk was unfinished, and run refused)
        raise RunDirError(f"{rd.manifest_path} is corrupt: 'done' must map chunk -> games")
    check_tables(rd, m, s)
    done = m["done"]
    again = f"`cardsim run {rd.path}` plays it again; the other chunks are kept"
    game = get_game(s.game)
    columns, count_table = game.columns_for(s.setup.variant, s.setup.players), game.count_table(s.setup.variant)
    for c in plan(s.games, s.chunk):
        if not holds(done, c):
            raise RunDirError(f"{rd.path}: chunk {c.index} (games {c.start:,}-{c.start + c.count - 1:,}) is not "
                              f"finished; {again}")
        for table in m["tables"]:
            problem = rd.part_problem(table, c.index, columns, done[str(c.index)], count_table, c.start,
                                      recorded_signature(m, table, c.index))
            if problem:
                raise RunDirError(f"{rd.part(table, c.index)} {problem}; {again}")


def _is_run_dir(path: str | os.PathLike) -> bool:
    """``path`` holds a run's manifest (a path that cannot be looked at is left to the scenario's loader, whose
    message names the file)."""
    try:
        return (Path(path) / "manifest.json").is_file()
    except (OSError, ValueError):
        return False


def load(scenario: str | Path | sc.Scenario, games: int | None = None, seed: int | None = None) -> sc.Scenario:
    """A scenario file (or a :class:`Scenario`, as is) with ``games`` and ``seed`` applied."""
    if not isinstance(scenario, (str, os.PathLike, sc.Scenario)):  # a dict or None: a TypeError from open()
        hint = " (a dict of the TOML's tables: cardsim.scenario.from_dict(d))" if isinstance(scenario, Mapping) else ""
        raise ScenarioError(f"a scenario is a scenario file's path or a Scenario{hint}, not {type(scenario).__name__}")
    if not isinstance(scenario, sc.Scenario) and _is_run_dir(scenario):
        raise ScenarioError(f"{scenario} is a run directory, not a scenario file: cardsim.open_run({str(scenario)!r}) "
                            f"reads it; cardsim.run(cardsim.open_run(path).scenario, games=N, out=path) extends it")
    try:
        s = scenario if isinstance(scenario, sc.Scenario) else sc.load(scenario)
    except RecursionError:  # tomllib parses nested arrays and tables recursively: it was a traceback
        raise ScenarioError(f"{scenario}: malformed TOML: arrays or tables nested too deeply (hundreds of levels); "
                            f"a scenario nests a few") from None
    return s.with_options(games=_int(games), seed=_int(seed))


def _backend_name(backend: object) -> str | None:
    """``backend`` given as the CLI's ``--backend`` ("local", "dask") or None (the scenario's keys); a string
    ended in an AttributeError (``'str' object has no attribute 'map'``)."""
    if backend is None or isinstance(backend, str):
        return backend
    raise ScenarioError(f"backend={backend!r} is not a backend; allowed: None (the scenario's keys), 'local', "
                        f"'dask', or a cardsim.dask_backend.DaskBackend")


def _int(value: Any) -> Any:
    """A numpy integer (``np.arange``'s, a frame's) as a Python int, which the scenario's checks take (they said
    "--games np.int64(300) must be an integer"); anything else as it is, for those checks to judge."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool | int):
        return int(value)
    return value


def _check_count(name: str, value: object) -> Any:
    """``games`` or ``budget`` given to a study is None or an integer (``'3'`` was a TypeError, and ``1.5`` read
    as a count below the least allowed); its range is the study's to check. Returns it (a numpy integer as int)."""
    value = _int(value)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise ScenarioError(f"--{name} {value!r} must be an integer")
    return value


def _check_callback(name: str, f: object, args: str) -> None:
    """``progress`` / ``on_start`` is None or a function (``progress=True`` was ``'bool' object is not callable``
    from inside the run, after its directory was made)."""
    if f is not None and not callable(f):
        raise ScenarioError(f"{name}={f!r} must be a function called with ({args}), or None")


def _no_until(s: sc.Scenario, kind: str, plays: str = "plays each of its runs to --games (scenario.games) on the "
              "same deals, which a stop of its own in every run would break") -> None:
    """A study's scenario with ``scenario.until``: each of its runs stopped at its own precision (400 games of a
    compare asked 2,000), while the answer said "on the same 2,000 deals"; a search or meta-game read it not at
    all. until is `cardsim run`'s."""
    until = s.raw.get("scenario", {}).get("until")
    if until:
        raise ScenarioError(f"scenario.until = {until!r} is a precision target for `cardsim run` (the base scenario); "
                            f"a {kind} {plays}: drop until from the scenario")


def _not_a_file(name: str, path: str | os.PathLike | None, holds: str) -> None:
    """A folder argument (``out``, ``runs``) that names a file is one :class:`RunDirError` saying what the
    folder ``holds``, before any game (mkdir's OSError came after a meta-game's games). One that is not a path
    (``out=3`` was a TypeError; ``os.stat`` reads an int as an open file's number) or one the system cannot
    look up (too long, a NUL byte) is refused too."""
    if path is not None and not isinstance(path, str | os.PathLike):
        raise RunDirError(f"{name}={path!r} must be a folder's path (str or Path), not {type(path).__name__}")
    if path is not None and (why := unlookable(path)) is not None:
        raise RunDirError(f"{name}={why}")
    if path is not None and Path(path).exists() and not Path(path).is_dir():
        raise RunDirError(f"{name}={str(path)!r} is a file; {holds}")


def _check_threads(threads: object) -> Any:
    """``threads`` is None (up to 4) or a positive integer: -1 ended in ThreadPoolExecutor's ValueError, and 0
    played on the default threads, silently (``--threads`` has the same bound)."""
    threads = _int(threads)
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ScenarioError(f"threads={threads!r} must be a positive integer (local threads; None: up to 4)")
    return threads


#: called with (run directory, scenario) when a run starts, before any game is played
OnStart = Callable[[Path, sc.Scenario], None]


def run(scenario: str | Path | sc.Scenario, games: int | None = None, seed: int | None = None,
        out: str | Path | None = None, runs: str | Path = "runs", threads: int | None = None,
        progress: Progress | None = None, debug: bool = False, until: str | None = None,
        backend: Backend | None = None, on_start: OnStart | None = None) -> Result:
    """Run (or resume, or extend) a scenario and return its :class:`Result`.

    ``out`` is the run directory (default ``runs/<name>-<hash>``). Finished
    chunks already in it are reused, so calling ``run`` twice costs nothing.
    ``until`` (e.g. ``"winrate_s0 +-0.002"``) plays chunk after chunk until the
    named estimate's 95% Wilson interval is that narrow (looking after every
    chunk in game order, :mod:`cardsim.studies.until`), with ``games`` (or the
    scenario's) as the cap; ``Result.scenario.games`` is where it stopped.
    ``on_start(path, scenario)`` is called before the first game (the CLI prints the directory).
    """
    threads = _check_threads(threads)
    _check_callback("progress", progress, "games done, games in all")
    _check_callback("on_start", on_start, "run directory, scenario")
    _not_a_file("out", out, "a run directory is a folder (new, or one a run made)")  # a FileExistsError from mkdir
    if out is None and not isinstance(runs, str | os.PathLike):  # runs=None: open()'s TypeError
        raise RunDirError(f"runs={runs!r}: a run keeps its games in a run directory, so runs is the folder for it "
                          f"(default 'runs'), or out= names the directory (only search and meta play in memory "
                          f"with runs=None)")
    if out is None:  # a NotADirectoryError from mkdir
        _not_a_file("runs", runs, "runs is the folder new run directories go in")
    s = load(scenario, games, seed)
    until = until or s.raw.get("scenario", {}).get("until")
    target = None
    if until:  # checked before anything runs, so its error is the only line
        from cardsim.studies import until as ut

        target = ut.parse(until, s.setup.players)
        s, path = _until_setup(s, out, runs, target)
    else:
        path = Path(out) if out is not None else default_run_dir(s, runs)
    own = not isinstance(backend, Backend)
    if own:  # the scenario's backend / workers / scheduler keys, or the backend named
        backend = make_backend(s, _backend_name(backend))
    if on_start is not None:
        on_start(path, s)
    try:
        if target is not None:
            return _run_until(s, path, target, threads, progress, debug, backend)
        rd, played = play(s, path, threads=threads, progress=progress, debug=debug, backend=backend)
        m = rd.read_manifest()
        return Result(s.with_options(chunk=m["chunk"]), rd, stop=until_note(m, s.games), played=played)
    finally:
        if own and backend is not None:
            backend.close()


def _until_setup(s: sc.Scenario, out, runs, target) -> tuple[sc.Scenario, Path]:
    """The scenario with its chunk no larger than the look size of ``target`` (small targets play
    small chunks), and its run directory (its own, when the chunk changed: a run directory keeps
    one chunk size)."""
    from cardsim.studies import until as ut

    chunk = min(s.chunk, ut.look_size(target.width))
    path = Path(out) if out is not None else default_run_dir(s, runs)
    if out is None and chunk != s.chunk:
        path = path.with_name(f"{path.name}-chunk{chunk}")
    return s.with_options(chunk=chunk), path


def _run_until(s: sc.Scenario, path: Path, target, threads, progress, debug, backend) -> Result:
    """Play chunk after chunk until the target's Wilson interval is narrow enough (see
    :mod:`cardsim.studies.until`)."""
    import numpy as np

    from cardsim.studies import until as ut

    chunks = plan(s.games, s.chunk)
    ahead = max(1, threads or min(4, os.cpu_count() or 1))  # chunks played per step; looks stay per chunk
    done = played = 0
    while True:
        first = done
        done = min(len(chunks), done + ahead)
        played += play(s, path, threads=threads, progress=progress, debug=debug, chunks=chunks[:done],
                       backend=backend)[1]
        n = chunks[done - 1].start + chunks[done - 1].count
        res = Result(s.with_options(games=n), RunDir(path))
        w = (res.outcomes().filter(pl.col("seat") == target.seat).sort("game").select("win").collect()["win"]
             .cast(pl.Float64).fill_null(np.nan).to_numpy())
        looks = [c.start + c.count for c in chunks[first:done]]
        stop = ut.first_stop(w, looks, target.width)
        if stop is not None or done == len(chunks):
            stop = stop or ut.at(w, n)
            res = Result(s.with_options(games=stop.games), RunDir(path), played=played)
            res.stop = ut.describe(target, stop, s.chunk, s.games)
            # the games past the stop (threads play ahead) stay in the directory but are not the
            # run: `cardsim report RUN_DIR` and open_run read the games up to the stop, as printed
            m = res.rundir.read_manifest()
            m["until"] = {"target": f"{target.name} +-{target.width:g}", "games": stop.games, "note": res.stop}
            res.rundir.write_manifest(m)
            return res


def local_workers_max() -> int:
    """The most workers a local Dask cluster may have: 4 a core (each is a process holding the kernels;
    more than the cores only share them, and ``--workers 1000`` started a thousand)."""
    return 4 * (os.cpu_count() or 1)


def _backend_keys(cfg: Mapping[str, Any], backend: str | None, workers: int | None, scheduler: str | None
                  ) -> dict[str, Any]:
    """The scenario's ``backend`` / ``workers`` / ``scheduler`` keys less those a command-line option
    contradicts: an option overrides its scenario's keys, as ``--games`` does (``--backend local`` was
    refused beside ``workers = 4`` in the file, which had to be edited to play on threads)."""
    keys = {k: cfg[k] for k in ("backend", "workers", "scheduler") if k in cfg}
    if backend == "local":
        keys.pop("workers", None)
        keys.pop("scheduler", None)
    if (workers is not None or scheduler is not None) and keys.get("backend") == "local":
        del keys["backend"]
    if workers is not None:
        keys.pop("scheduler", None)
    if scheduler is not None:
        keys.pop("workers", None)
    return keys


def make_backend(s: sc.Scenario, backend: str | None = None, workers: int | None = None,
                 scheduler: str | None = None) -> Backend | None:
    """The backend named by the CLI options or the scenario's ``backend`` / ``workers`` /
    ``scheduler`` keys: None (local threads) or a :class:`cardsim.dask_backend.DaskBackend`.
    ``workers`` or ``scheduler`` alone mean Dask; with ``backend = "local"`` they are refused. A message
    names a value as the user gave it: ``--backend 'spark'`` for an option, ``scenario.backend = 'spark'`` for a
    scenario key."""
    cfg = _backend_keys(s.raw.get("scenario", {}), backend, workers, scheduler)
    given = {"backend": backend, "workers": workers, "scheduler": scheduler}  # the CLI's options

    def said(key: str, value: object) -> str:
        return f"--{key} {value!r}" if given[key] is not None else f"scenario.{key} = {value!r}"

    backend = backend if backend is not None else cfg.get("backend")
    scheduler = scheduler if scheduler is not None else cfg.get("scheduler")
    workers = workers if workers is not None else cfg.get("workers")
    if backend == "local" and (scheduler or workers):  # --workers 2 once ran on local threads, silently
        extra = [said(k, v) for k, v in (("workers", workers), ("scheduler", scheduler)) if v]
        verb = "belongs" if len(extra) == 1 else "belong"
        raise ScenarioError(f"{' and '.join(extra)} {verb} to the dask backend (a local Dask cluster's workers, a "
                            f"scheduler's address), and {said('backend', backend)} plays on threads: drop them, or "
                            f"use the dask backend")
    if backend is None:
        backend = "dask" if scheduler or workers else "local"
    if backend not in ("local", "dask"):
        raise ScenarioError(f"{said('backend', backend)} is not a backend; allowed: local, dask")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ScenarioError(f"{said('workers', workers)} must be a positive integer")
    if scheduler is not None and (not isinstance(scheduler, str) or "://" not in scheduler):
        raise ScenarioError(f"{said('scheduler', scheduler)} must be an address like tcp://host:8786")
    if workers is not None and scheduler is not None:  # the existing cluster's workers play: workers was ignored
        raise ScenarioError(f"{said('workers', workers)} is the size of a local cluster, and "
                            f"{said('scheduler', scheduler)} names an existing cluster, whose own workers play: "
                            f"drop one of them")
    if workers is not None and workers > (most := local_workers_max()):
        raise ScenarioError(f"{said('workers', workers)} is more than this machine can run: a local cluster's "
                            f"workers are processes, at most {most} here (4 a core); for more, start a cluster "
                            f"on several machines and give its --scheduler")
    if backend == "local":
        return None
    try:
        from cardsim.dask_backend import DaskBackend
    except ImportError:
        raise ScenarioError("backend = 'dask' needs dask[distributed]: pip install 'cardsim[dask]'") from None
    return DaskBackend(scheduler=scheduler, workers=workers)


def compare(scenario: str | Path | sc.Scenario, games: int | None = None, runs: str | Path = "runs",
            threads: int | None = None, progress: Progress | None = None, on_start: OnStart | None = None,
            seed: int | None = None):
    """Play every arm of ``[compare]`` on the same deals; returns a :class:`cardsim.studies.compare.CompareResult`."""
    from cardsim.studies import compare as cmp

    games = _check_count("games", games)
    s = load(scenario, seed=seed)
    _no_until(s, "compare")
    return cmp.run(s, lambda d: run(d, runs=runs, threads=threads, progress=progress, on_start=on_start), games)


def sweep(scenario: str | Path | sc.Scenario, games: int | None = None, runs: str | Path = "runs",
          threads: int | None = None, progress: Progress | None = None, on_start: OnStart | None = None,
          seed: int | None = None):
    """Play every point of ``[sweep]``; returns a :class:`cardsim.studies.sweep.SweepResult` (``.table``: polars)."""
    from cardsim.studies import sweep as sw

    games = _check_count("games", games)
    s = load(scenario, seed=seed)
    _no_until(s, "sweep")
    return sw.run(s, lambda d: run(d, runs=runs, threads=threads, progress=progress, on_start=on_start), games)


def cards(scenario: str | Path | sc.Scenario, games: int | None = None, runs: str | Path = "runs",
          threads: int | None = None, progress: Progress | None = None, on_start: OnStart | None = None,
          seed: int | None = None):
    """Card effects of ``[cards]``: each card removed (or its count changed) on the same seeds; returns a
    :class:`cardsim.studies.cards.CardsResult` (``.effects``: polars)."""
    from cardsim.studies import cards as cd

    games = _check_count("games", games)
    s = load(scenario, seed=seed)
    _no_until(s, "card study")
    return cd.run(s, lambda d: run(d, runs=runs, threads=threads, progress=progress, on_start=on_start), games)


def rate(scenario: str | Path | sc.Scenario, games: int | None = None, runs: str | Path = "runs",
         threads: int | None = None, progress: Progress | None = None, on_start: OnStart | None = None,
         seed: int | None = None):
    """Round robin or gauntlet of ``[ratings]``; returns a :class:`cardsim.studies.rate.RatingResult`."""
    from cardsim.studies import rate as rt

    games = _check_count("games", games)
    s = load(scenario, seed=seed)
    _no_until(s, "rating")
    return rt.run(s, lambda d: run(d, runs=runs, threads=threads, progress=progress, on_start=on_start), games)


def _in_memory(kind: str, scenario: str | Path | sc.Scenario, seed: int | None, threads: int | None,
               backend: Backend | None, **kw):
    """Run the ``search`` or ``meta`` study on an in-memory evaluator (local threads, or the given
    or the scenario's Dask backend)."""
    import importlib

    from cardsim.studies.evaluate import ChunkStore, Evaluator

    mod = importlib.import_module(f"cardsim.studies.{kind}")
    threads = _check_threads(threads)
    _check_callback("progress", kw.get("progress"), "games done, games in all")
    size = "budget" if kind == "search" else "deals"
    kw[size] = _check_count("budget" if kind == "search" else "games", kw.get(size))
    s = load(scenario, seed=seed)
    _no_until(s, kind, "plays to its budget (--budget, search.budget)" if kind == "search" else
              "plays every profile on meta.deals deals (--games)")  # it has no stop of its own: until did nothing
    p = mod.plan(s)
    runs = kw.get("runs")
    _not_a_file("runs", runs, f"runs is the folder the {kind}'s "  # the meta-game's chunks: an OSError
                f"{'journal' if kind == 'search' else 'chunks and journals'} go in (None: in memory)")  # after its games
    own = not isinstance(backend, Backend)
    if own:
        backend = make_backend(s, _backend_name(backend))
    # the meta-game keeps its chunks (a search has its journal, and its trials are played once)
    store = ChunkStore(Path(runs) / f"{s.name}-meta-chunks") if kind == "meta" and runs is not None else None
    ev = Evaluator(s.game, chunk=p.chunk, threads=threads, backend=backend, store=store)
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

    ``games`` overrides ``meta.deals`` and ``meta.heldout`` (deals per profile, and held out). Best-response searches keep their
    journals under ``runs`` as ``search`` does, and the games played are kept by chunk in
    ``runs/<name>-meta-chunks/`` (``runs=None``: in memory only), so a second call reads them."""
    return _in_memory("meta", scenario, seed, threads, backend, runs=runs, progress=progress, deals=games)
