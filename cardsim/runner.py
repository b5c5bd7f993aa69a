"""Chunked execution of a scenario (DESIGN step 2).

The work is split into chunks of ``scenario.chunk`` games; chunk ``i``
plays games ``[i*chunk, min((i+1)*chunk, games))``. Every random stream
in a kernel is keyed by the global game index and the root key
(:mod:`cardsim.rng`), so the tables depend only on (scenario, seed): not
on chunk order, thread count, backend or resume history.

Each task plays one chunk and writes its parquet parts; the coordinating
process alone writes the manifest, after a chunk's parts are in place.
"""

from __future__ import annotations

import abc
import json
import os
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from cardsim.errors import PolicyError, RunDirError
from cardsim.games import get_game
from cardsim.games.base import Setup
from cardsim.results import RunDir, scan_part, sole_holder
from cardsim.rng import root_key
from cardsim.scenario import Scenario

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Chunk:
    index: int
    start: int
    count: int


def plan(games: int, chunk: int) -> list[Chunk]:
    """The chunks of a run of ``games`` games."""
    return [Chunk(i, s, min(chunk, games - s)) for i, s in enumerate(range(0, games, chunk))]


def run_chunk(game_name: str, setup: Setup, key: int, chunk: Chunk, path: str, debug: bool = False) -> tuple[int, int]:
    """Play one chunk and write its parts under ``path``; returns (chunk index, units played).

    A plain top-level function of explicit arguments, so it can be sent to
    a Dask worker as it is (the seed travels in ``key``)."""
    game = get_game(game_name)
    try:
        frames = game.simulate_chunk(setup, key, chunk.start, chunk.count, debug=debug)
    except (AssertionError, IndexError) as exc:
        err = _plugin_error(exc, setup)
        if err is None:
            raise
        raise err from None
    RunDir(path).write_chunk(chunk.index, frames)
    return chunk.index, frames[game.unit_table].height


def plugin_fault(exc: BaseException, names: str) -> str | None:
    """One line for what a plug-in did wrong inside a kernel, naming the plug-ins (``names``), or None: an
    index past the end of an array (only plug-ins are compiled bounds-checked,
    :func:`cardsim.policies.plugin_functions`, and numba's IndexError names no line). A write into an array
    it is passed does not compile (``cardsim.plugin_errors.read_only``), so a card conservation check
    that fails is the kernel's own fault, not a plug-in's."""
    first = next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), "")
    if isinstance(exc, IndexError) and "out of bounds" in first:
        return (f"plug-in {names}: a decision indexed past the end of an array it is passed (IndexError: {exc}); "
                f"params holds only the parameters of its <name>_params dict, in their order, and `cardsim games "
                f"GAME` says how long each other argument is (hand[:n], ...)")
    return None


def _plugin_error(exc: BaseException, setup: Setup) -> PolicyError | None:
    """:func:`plugin_fault` of a chunk of ``setup``, naming its own plug-ins (the process may have loaded
    others: a test session, a study of several set-ups)."""
    if not setup.plugins:
        return None
    line = plugin_fault(exc, ", ".join(sorted({Path(ref.rsplit(":", 1)[0]).name for ref in setup.plugins})))
    return PolicyError(line) if line else None


def default_run_dir(scenario: Scenario, runs: str | Path = "runs") -> Path:
    return Path(runs) / f"{scenario.name}-{scenario.hash()}"


def open_run(scenario: Scenario, path: Path, own_chunks: bool = False) -> tuple[RunDir, dict]:
    """Open (or create) the run directory of ``scenario``; refuse one of another scenario.

    An existing directory keeps its own chunk size (the tables do not depend on it), unless the
    caller plays chunks of its own (``own_chunks``: an ``--until`` run), which must match it."""
    rd = RunDir(path)
    game = get_game(scenario.game)
    tables = list(game.columns)
    if rd.exists():
        m = rd.read_manifest()
        if m["hash"] != scenario.hash():
            raise RunDirError(f"{path} cannot be reused: {_why_not(m, scenario, path)}")
        if own_chunks and m["chunk"] != scenario.chunk:
            raise RunDirError(f"{path} was played in chunks of {m['chunk']:,} games, and this --until run looks "
                              f"every {scenario.chunk:,} (a chunk between looks; a run directory keeps one chunk "
                              f"size): play it into a new directory (`cardsim run {path} --until ... --out NEW_DIR` "
                              f"plays this run's scenario and seed there), or run the scenario file with --until "
                              f"(its run gets a directory of its own, named ...-chunk{scenario.chunk})")
        if not isinstance(m["done"], dict):
            raise RunDirError(f"{rd.manifest_path} is corrupt: 'done' must map chunk -> games")
        if not isinstance(m["chunk"], int) or isinstance(m["chunk"], bool) or m["chunk"] < 1:
            raise RunDirError(f"{rd.manifest_path} is corrupt: chunk = {m['chunk']!r} must be a positive integer")
        check_tables(rd, m, scenario)
    else:
        m = rd.create(dict(scenario.raw), scenario.identity(), scenario.hash(), scenario.name, scenario.game,
                      scenario.chunk, tables)
        m["done"] = {}
        rd.write_manifest(m)
    return rd, m


def check_tables(rd: RunDir, m: dict, scenario: Scenario) -> None:
    """The manifest's ``tables`` (the tables whose parts make a chunk) name the game's tables, its unit's
    among them. An edited list (``"games"``, ``["nosuch"]``) had `cardsim report RUN_DIR` send the user to
    `cardsim run RUN_DIR`, which played every chunk again and still never wrote the parts it named."""
    game = get_game(scenario.game)
    tables, unit = m["tables"], game.count_table(scenario.setup.variant)
    if not isinstance(tables, list) or unit not in tables or any(t not in game.columns for t in tables):
        raise RunDirError(f"{rd.manifest_path} is corrupt: tables = {json.dumps(tables)[:60]} must list the "
                          f"{game.name} tables it holds ({', '.join(game.columns)}; {unit!r} among them); "
                          f"restore it, or delete the directory and run the scenario again")


def _why_not(m: dict, scenario: Scenario, path: Path) -> str:
    """Why the run directory of manifest ``m`` cannot take ``scenario``'s games, and what to do."""
    old, new = m.get("identity", {}), scenario.identity()
    try:
        if old["seed"] != new["seed"] and _canon({**old, "seed": new["seed"]}) == _canon(new):
            return (f"it holds this scenario's games with seed {old['seed']}, and this run asks for seed "
                    f"{new['seed']}; extend it with --seed {old['seed']}, or choose another --out for seed "
                    f"{new['seed']}")
    except (KeyError, TypeError):
        pass
    why = identity_change(old, new)
    if not why:
        diff = identity_diff(old, new)
        why = (f"it holds a run of another scenario ({diff}; hash {m['hash']}, this one {scenario.hash()})" if diff
               else f"it holds a run of another scenario (hash {m['hash']}, this one {scenario.hash()})")
    return f"{why}; choose another --out or delete {path}"


def identity_diff(old: dict, new: dict, limit: int = 3) -> str:
    """Where two run identities differ, in the scenario's own words: ``rules.point_cards: 7 in the
    directory, 5 in this scenario`` (at most ``limit`` places, then how
    many more; '' when they are alike or not both readable). A directory of another scenario used
    to be refused by its hash alone, which named no knob."""
    found: list[str] = []

    def walk(a: object, b: object, where: str) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            if "policy" in a and "policy" in b and _canon(a["policy"]) != _canon(b["policy"]):
                # a seat of another policy: its name, not the parameters that follow from it (which
                # sort first and filled the three places: 'seats[0].params.call_need: not set in ...')
                found.append(f"{where}.policy: {_shown(a['policy'])} in the directory, {_shown(b['policy'])} "
                             f"in this scenario")
                return
            for k in sorted(set(a) | set(b), key=str):
                name = f"{where}.{k}" if where else str(k)
                if k not in a:
                    found.append(f"{name}: not set in the directory, {_shown(b[k])} in this scenario")
                elif k not in b:
                    found.append(f"{name}: {_shown(a[k])} in the directory, not set in this scenario")
                else:
                    walk(a[k], b[k], name)
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(x, y, f"{where}[{i}]")
        elif _canon(a) != _canon(b):
            found.append(f"{where}: {_shown(a)} in the directory, {_shown(b)} in this scenario")

    a, b = (i.get("setup") if isinstance(i, dict) else None for i in (old, new))
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return ""
    walk(a, b, "")
    found = [f for f in found if not (f.startswith("seats[") and ".source:" in f)]  # identity_change's
    if not found:
        return ""
    more = len(found) - limit
    return "; ".join(found[:limit]) + (f"; and {more} more" if more > 0 else "")


def _shown(v: object) -> str:
    """A value as a scenario file writes it (JSON: true, "text", [1, 2])."""
    text = json.dumps(v, sort_keys=True, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _canon(identity: dict) -> str:
    """An identity as the manifest stores it (JSON), so a read one and a computed one compare."""
    return json.dumps(identity, sort_keys=True, default=str)


def identity_change(old: dict, new: dict) -> str:
    """Why a run directory's identity ``old`` is not the scenario's ``new`` in plain words, when
    one thing explains it: a plug-in edited since, or the game's rules version ('' otherwise)."""
    edited = changed_plugins(old, new)
    if edited:
        return f"its plug-in {edited} changed since (the directory holds games of the old source)"
    try:
        was, now = old["rules_version"], new["rules_version"]
        if was != now and _canon({**old, "rules_version": now}) == _canon(new):
            return (f"it was played under version {was} of the game's rules, and this cardsim plays "
                    f"version {now} (a rule was corrected)")
    except (KeyError, TypeError):
        pass
    return ""


def changed_plugins(old: dict, new: dict) -> str:
    """The plug-ins (``file.py:name``) whose source alone differs between two run identities
    (else '': the identities differ in more than plug-in sources)."""

    def strip(identity: dict) -> str:
        seats = [{k: v for k, v in seat.items() if k != "source"} for seat in identity["setup"]["seats"]]
        return _canon({**identity, "setup": {**identity["setup"], "seats": seats}})

    try:
        if strip(old) != strip(new):
            return ""
        seats = zip(old["setup"]["seats"], new["setup"]["seats"], strict=True)
        return ", ".join(sorted({b["policy"] for a, b in seats if a.get("source") != b.get("source")}))
    except (KeyError, TypeError, ValueError, AttributeError):
        return ""


def check_layout(rd: RunDir, m: dict, scenario: Scenario, key: int, trusted: int | None = None) -> None:
    """Refuse to extend a run directory whose tables another cardsim wrote with other columns
    or column types (its parts and new ones could not be read as one table): one game of this
    cardsim's tables against the parts of chunk ``trusted`` (default: the first finished chunk), a
    chunk not played again (a part copied in from another table is, and is no layout to keep)."""
    frames = get_game(scenario.game).simulate_chunk(scenario.setup, key, 0, 1)
    first = trusted if trusted is not None else min(int(c) for c in m["done"])
    for table, frame in frames.items():
        part = rd.part(table, first)
        try:
            old = dict(scan_part(part).collect_schema())
        except Exception:
            continue  # an unreadable part is played again (pending)
        new = dict(frame.schema)
        if old != new:
            diff = sorted(set(old) ^ set(new)) or [c for c in new if old[c] != new[c]]
            col = diff[0]
            why = (f"column {col!r} is {_kind(old[col])} there and {_kind(new[col])} now"
                   if col in old and col in new else f"column {col!r} is only in the {'old' if col in old else 'new'} layout")
            raise RunDirError(f"{rd.path} cannot be extended: its {table!r} table was written by another cardsim "
                              f"({why}); its finished games still read, but new ones would not read with them; "
                              f"choose another --out or delete {rd.path}")


def _kind(dtype: pl.DataType) -> str:
    """A column type in short: Int32, String, Enum (an Enum's categories would fill lines)."""
    return str(dtype.base_type()) if isinstance(dtype, pl.Enum) else str(dtype)


def holds(done: dict, c: Chunk) -> bool:
    """The manifest's ``done`` says chunk ``c`` is finished: it holds at least ``c``'s games (a run
    asked for fewer games than a directory holds reads the first games of its last chunk; it does
    not play that chunk again, smaller, over the games already played)."""
    n = done.get(str(c.index))
    return isinstance(n, int) and not isinstance(n, bool) and n >= c.count


def pending(rd: RunDir, m: dict, chunks: list[Chunk], columns: Mapping[str, list[str]] | None = None,
            count_table: str = "games") -> list[Chunk]:
    """Chunks of the plan not finished yet (a finished chunk has its game count and its parts, with
    their tables' ``columns`` when given, and as many rows in ``count_table`` as the count)."""
    done = m["done"]
    return [c for c in chunks
            if not holds(done, c) or not rd.has_chunk(m, c.index, columns, done[str(c.index)], count_table, c.start)]


def execute(scenario: Scenario, path: Path, threads: int | None = None, progress: Progress | None = None,
            debug: bool = False, chunks: list[Chunk] | None = None, backend: Backend | None = None) -> RunDir:
    """Run the chunks of ``scenario`` not yet done into ``path`` (``chunks``, default the plan of
    ``scenario.games`` in the directory's chunk size); returns the run directory."""
    return play(scenario, path, threads, progress, debug, chunks, backend)[0]


#: the file of a run directory that the process playing into it holds (``flock``)
OWNER = ".owner"


@contextmanager
def sole_writer(path: Path) -> Iterator[None]:
    """Hold run directory ``path`` for this process while it plays into it. Two processes playing
    into one directory at once (two seeds or scenarios into one --out) each found no manifest, wrote
    their parts over each other's and printed tables of both, and left a directory that mixed them;
    the second is refused in one line. The lock (``flock`` on ``.owner``) goes with the process, so
    a killed run leaves nothing to clean."""
    path.mkdir(parents=True, exist_ok=True)
    def busy(who: str) -> RunDirError:
        return RunDirError(f"{path}: another cardsim{who} is playing into this run directory; wait for it to finish "
                           f"(the same command then resumes from its chunks), or give this command another folder "
                           f"(--out of `cardsim run`; --runs of a scenario's run or a study, whose run directories go "
                           f"under it)")

    with open(path / OWNER, "a+") as f, sole_holder(f, busy):
        yield


def holder(path: Path) -> str | None:
    """``"process <pid>"`` (or ``"another process"``) while a cardsim holds run directory ``path`` to play into
    it (:func:`sole_writer`), else None: a reader of the directory meanwhile sees a run still being played,
    not one cut short."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): nothing is held
        return None
    try:
        with open(path / OWNER) as f:
            try:
                fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return f.read().strip() or "another process"
            fcntl.flock(f, fcntl.LOCK_UN)
    except OSError:  # no owner file: no process ever played into it, or none now
        return None
    return None


def play(scenario: Scenario, path: Path, threads: int | None = None, progress: Progress | None = None,
         debug: bool = False, chunks: list[Chunk] | None = None, backend: Backend | None = None
         ) -> tuple[RunDir, int]:
    """:func:`execute`, also returning how many games this call played (0: all were done before);
    the run directory is this process's alone meanwhile (:func:`sole_writer`)."""
    with sole_writer(Path(path)):
        return _play(scenario, Path(path), threads, progress, debug, chunks, backend)


def _play(scenario: Scenario, path: Path, threads: int | None, progress: Progress | None, debug: bool,
          chunks: list[Chunk] | None, backend: Backend | None) -> tuple[RunDir, int]:
    rd, m = open_run(scenario, path, own_chunks=chunks is not None)
    todo_all = chunks if chunks is not None else plan(scenario.games, m["chunk"])
    if chunks is None and scenario.games > m.get("asked", 0):  # what `cardsim run RUN_DIR` completes
        m["asked"] = scenario.games
        rd.write_manifest(m)
    u = m.get("until")
    if chunks is None and isinstance(u, dict) and scenario.games != u.get("games"):
        del m["until"]  # an --until run extended (or read) to another count: a fixed-n run from now on
        rd.write_manifest(m)
    game = get_game(scenario.game)
    todo = pending(rd, m, todo_all, game.columns_for(scenario.setup.variant, scenario.setup.players),
                   game.count_table(scenario.setup.variant))
    total = sum(c.count for c in todo_all)
    finished = total - sum(c.count for c in todo)
    if progress:
        progress(finished, total)
    key = root_key(scenario.seed)
    if todo and len(todo) < len(todo_all):
        again = {c.index for c in todo}
        check_layout(rd, m, scenario, key, next(c.index for c in todo_all if c.index not in again))
    backend = backend or LocalBackend(threads)
    by_index = {c.index: c for c in todo}
    played = 0
    for index, _units in backend.map(scenario.game, scenario.setup, key, todo, str(rd.path), debug):
        c = by_index[index]
        m["done"][str(index)] = c.count
        rd.record_parts(m, index)
        m["games"] = max(m.get("games", 0), c.start + c.count)
        m["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S")
        rd.write_manifest(m)
        finished += c.count
        played += c.count
        if progress:
            progress(finished, total)
    return rd, played


class Backend(abc.ABC):
    """Runs chunk tasks and yields ``(chunk index, units)`` as they finish."""

    @abc.abstractmethod
    def map(self, game: str, setup: Setup, key: int, chunks: list[Chunk], path: str,
            debug: bool) -> Iterator[tuple[int, int]]:
        """Run ``run_chunk`` for every chunk; yield results in completion order."""


class LocalBackend(Backend):
    """Threads in this process (kernels release the GIL); at most 2 tasks in flight per thread."""

    def __init__(self, threads: int | None = None):
        self.threads = threads or min(4, os.cpu_count() or 1)

    def map(self, game, setup, key, chunks, path, debug):
        if self.threads == 1 or len(chunks) <= 1:
            for c in chunks:
                yield run_chunk(game, setup, key, c, path, debug)
            return
        with ThreadPoolExecutor(self.threads) as pool:
            queue = list(reversed(chunks))
            running: set[Future] = set()
            while queue or running:
                while queue and len(running) < 2 * self.threads:
                    running.add(pool.submit(run_chunk, game, setup, key, queue.pop(), path, debug))
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for f in done:
                    yield f.result()
