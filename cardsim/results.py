"""Run directories: a manifest plus parquet parts, written atomically (DESIGN step 5).

Layout of ``runs/<name>-<hash>/``::

    manifest.json          scenario, identity hash, seed, chunk size, versions, chunks done
    <table>/part-000000.parquet   one part per chunk and table (e.g. hands/, games/)

Every file is written to a temporary name and renamed into place, and a
chunk counts as done only once all its parts exist and the manifest says
so; an interrupted run resumes where it stopped and loses nothing.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import secrets
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import polars as pl

from cardsim import __version__
from cardsim.errors import RunDirError

MANIFEST = "manifest.json"


def _temp_name(path: Path) -> Path:
    """A fresh hidden name beside ``path`` to write to before renaming into place."""
    return path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_name(path)
    # created like any file (0o666 less the umask), not 0o600 as tempfile.mkstemp would: other
    # users of a shared machine read runs as they read reports
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_parquet(frame: pl.DataFrame, target: str | io.BytesIO) -> None:
    """Write ``frame`` as one parquet part, with the run directory's settings: zstd at its fastest
    level (a part is as small as at the default level) and no column statistics (a part holds
    every value of its chunk, so min/max would let a scan skip nothing; writing them cost a fifth
    of the write)."""
    frame.write_parquet(target, compression="zstd", compression_level=1, statistics=False)


def encode_parquet(frame: pl.DataFrame) -> bytes:
    """``frame`` as the bytes of a parquet part (a Dask worker's result)."""
    buf = io.BytesIO()
    write_parquet(frame, buf)
    return buf.getvalue()


def atomic_write_parquet(path: Path, frame: pl.DataFrame) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_name(path)  # polars creates it like any file (0o666 less the umask)
    try:
        write_parquet(frame, str(tmp))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def scan_part(part: Path | list[Path]) -> pl.LazyFrame:
    """A lazy scan of a parquet part (or of several, in order) by its path as it is: polars would read a
    '[' in it (a scenario named 'v[2]', a folder 'runs[2]') as a glob pattern and find no file."""
    return pl.scan_parquet([str(f) for f in part] if isinstance(part, list) else str(part), glob=False)


def part_rows(part: Path) -> int:
    """The rows of a parquet part, from its footer."""
    return int(scan_part(part).select(pl.len()).collect().item())


def part_signature(part: Path) -> list[int]:
    """``[size, CRC-32]`` of a part's bytes: the manifest keeps it of every part of a finished chunk
    (``parts``), so a part of another run is told from the run's own (:meth:`RunDir.part_problem`)."""
    data = part.read_bytes()
    return [len(data), zlib.crc32(data)]


def recorded_signature(m: Mapping[str, Any], table: str, chunk: int) -> Any:
    """The signature the manifest ``m`` recorded of ``table``'s part of ``chunk`` (None where it kept
    none: a directory written before cardsim recorded them)."""
    parts = m.get("parts")
    entry = parts.get(str(chunk)) if isinstance(parts, dict) else None
    return entry.get(table) if isinstance(entry, dict) else None


def part_name(chunk: int) -> str:
    return f"part-{chunk:06d}.parquet"


#: seconds :func:`sole_holder` waits for a lock held a moment by a reader's probe before refusing
HOLD_WAIT = 0.5


@contextmanager
def sole_holder(f: IO[str], busy: Callable[[str], Exception]) -> Iterator[None]:
    """Hold open file ``f`` (an owner file opened ``a+``) for this process with ``flock`` and write
    ``process <pid>`` into it; when another process holds it, raise ``busy(" (process <pid>)")``
    (the holder as its file says, or ``""``). The lock goes with the process, so a killed one leaves
    nothing to clean; without ``flock`` (Windows) nothing is held."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    # a reader asking whether the directory is still being played (runner.holder) holds a shared lock
    # for a moment: wait such a probe out (up to half a second) before refusing, as if a writer held it
    deadline = time.monotonic() + HOLD_WAIT
    while True:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                f.seek(0)
                who = f.read().strip()
                raise busy(f" ({who})" if who else "") from None
            time.sleep(0.005)
    f.seek(0)
    f.truncate()
    f.write(f"process {os.getpid()}")
    f.flush()
    try:
        yield
    finally:
        fcntl.flock(f, fcntl.LOCK_UN)


def identity_hash(identity: Any) -> str:
    """The hash a run directory's manifest keeps of its identity (:meth:`cardsim.scenario.Scenario.hash`)."""
    blob = json.dumps(identity, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:12]


def _games_problem(part: Path, every: bool, start: int, games: int) -> str | None:
    """Why ``part``'s ``game`` column does not fit a chunk of ``games`` games from game ``start`` (its rows
    name games outside them; ``every``: a part of the unit's table, whose rows must name the first and last
    game too), or ``None``."""
    try:
        lo, hi = scan_part(part).select(pl.col("game").min().alias("lo"), pl.col("game").max().alias("hi")).collect().row(0)
    except Exception:  # damaged pages behind a footer that reads: named when its rows are read, as before
        return None
    last = start + games - 1
    if (lo is None and not every) or (lo is not None and lo >= start and hi <= last
                                      and (not every or (lo == start and hi == last))):
        return None
    held = "no games" if lo is None else f"games {lo:,}-{hi:,}"
    return f"holds {held} where its chunk holds games {start:,}-{last:,} (a file of another chunk copied in)"


class RunDir:
    """A run directory: its manifest and parquet parts."""

    def __init__(self, path: str | Path):
        self.path = Path(path)

    @property
    def manifest_path(self) -> Path:
        return self.path / MANIFEST

    def exists(self) -> bool:
        return self.manifest_path.exists()

    def read_manifest(self) -> dict[str, Any]:
        try:
            data = json.loads(self.manifest_path.read_text())
        except FileNotFoundError:
            raise RunDirError(f"{self.path} is not a run directory (no {MANIFEST})") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise RunDirError(f"{self.manifest_path} is corrupt ({exc}); delete the directory or fix the file") from None
        except OSError as exc:  # a folder named manifest.json, a file it may not read
            raise RunDirError(f"{self.manifest_path} cannot be read ({exc.strerror}); a run directory's manifest is "
                              "the JSON file cardsim wrote there") from None
        if not isinstance(data, dict):
            raise RunDirError(f"{self.manifest_path} is corrupt: it holds {json.dumps(data)[:40]}, not the JSON "
                              "object cardsim writes; delete the directory or restore the file")
        for key in ("identity", "hash", "chunk", "done", "tables", "scenario"):
            if key not in data:
                raise RunDirError(f"{self.manifest_path} is corrupt: key {key!r} is missing")
        if identity_hash(data["identity"]) != data["hash"]:
            raise RunDirError(f"{self.manifest_path} is corrupt: its identity (game, seats, rules, seed, rules "
                              f"version) does not give its hash {data['hash']} (an edited file); restore it, or "
                              "delete the directory and run the scenario again")
        self._check_layout(data)
        return data

    def _check_layout(self, m: Mapping[str, Any]) -> None:
        """Every finished chunk holds at most ``chunk`` games and starts within the games the directory
        was asked for: a manifest whose chunk size was edited would have its chunks played again in the
        new size over the old parts, and games counted twice (3,000 games read as 3,300)."""
        chunk, done = m["chunk"], m["done"]
        if not isinstance(done, dict) or not isinstance(chunk, int) or isinstance(chunk, bool) or chunk < 1:
            return  # the run's own checks name these (open_run)
        try:
            counts = sorted((int(k), int(v)) for k, v in done.items())
            asked = max(int(m.get("asked", 0) or 0), int(m.get("games", 0) or 0))
        except (TypeError, ValueError):
            raise RunDirError(f"{self.manifest_path} is corrupt: 'done' must map chunk -> games") from None
        for k, n in counts:
            if k < 0 or n < 1 or n > chunk or (asked and k * chunk >= asked):
                raise RunDirError(
                    f"{self.manifest_path} is corrupt: with chunk = {chunk:,}, chunk {k} cannot hold {n:,} games "
                    f"(games {k * chunk:,}-{k * chunk + n - 1:,} of the {asked:,} it was asked for; the chunk size "
                    "or 'done' was edited); restore it, or delete the directory and run the scenario again")

    def write_manifest(self, data: Mapping[str, Any]) -> None:
        atomic_write_bytes(self.manifest_path, json.dumps(data, indent=1, sort_keys=True, default=str).encode())

    def create(self, scenario_raw: Mapping[str, Any], identity: Mapping[str, Any], hash_: str, name: str,
               game: str, chunk: int, tables: list[str]) -> dict[str, Any]:
        data = {
            "name": name, "game": game, "hash": hash_, "identity": identity, "scenario": scenario_raw,
            "chunk": chunk, "games": 0, "done": [], "tables": tables, "cardsim_version": __version__,
            "seed": identity.get("seed"),
        }
        self.path.mkdir(parents=True, exist_ok=True)
        self.write_manifest(data)
        return data

    def part(self, table: str, chunk: int) -> Path:
        return self.path / table / part_name(chunk)

    def part_problem(self, table: str, chunk: int, columns: Mapping[str, list[str]] | None = None,
                     games: int | None = None, count_table: str = "games", start: int | None = None,
                     signature: Any = None) -> str | None:
        """Why the part of ``table`` in ``chunk`` is not to be trusted, or ``None``: missing, torn or
        corrupt (its parquet footer does not read), not holding its table's ``columns`` in order (another
        table's file), a part of ``count_table`` (the table with a row per unit the run counts,
        :meth:`cardsim.games.base.Game.count_table`) without ``games`` rows (a cut or rewritten file),
        with ``start`` (the chunk's first game) rows of games outside the chunk's (another chunk's file),
        or not the bytes the manifest recorded (``signature``, :func:`part_signature`: damaged pages
        behind a footer that reads, a part copied in from another run, or a manifest copied from one,
        whose parts of another seed read as this run's)."""
        part = self.part(table, chunk)
        try:
            schema = scan_part(part).collect_schema()
        except Exception as exc:
            why = "missing" if not part.exists() else f"truncated or corrupt: {type(exc).__name__}"
            return f"does not read ({why})"
        if columns is not None and table in columns and list(schema) != list(columns[table]):
            return f"does not hold the {table!r} table's columns (a part of another table, or of another cardsim?)"
        if games is not None and table == count_table and (rows := part_rows(part)) != games:
            return f"holds {rows:,} {table} where the manifest says {games:,} (a cut or rewritten file)"
        if start is not None and games is not None and "game" in schema:
            problem = _games_problem(part, table == count_table, start, games)
            if problem:
                return problem
        if signature is not None and part_signature(part) != signature:
            return ("is not the part this run wrote (its size or checksum is not the manifest's record of it: a "
                    "damaged file, a part of another run copied in, or the manifest of another run)")
        return None

    def has_chunk(self, m: Mapping[str, Any], chunk: int, columns: Mapping[str, list[str]] | None = None,
                  games: int | None = None, count_table: str = "games", start: int | None = None) -> bool:
        """Every part of ``chunk`` of the manifest ``m``'s tables can be trusted (:meth:`part_problem`, with
        the signatures ``m`` recorded); else the chunk is played again."""
        return all(self.part_problem(t, chunk, columns, games, count_table, start, recorded_signature(m, t, chunk))
                   is None for t in m["tables"])

    def record_parts(self, m: dict[str, Any], chunk: int) -> None:
        """Record in the manifest ``m`` (to be written) the signature of every part of finished ``chunk``."""
        parts = m.get("parts")
        if not isinstance(parts, dict):
            parts = m["parts"] = {}
        parts[str(chunk)] = {t: part_signature(self.part(t, chunk)) for t in m["tables"]}

    def write_chunk(self, chunk: int, frames: Mapping[str, pl.DataFrame]) -> None:
        for table, frame in frames.items():
            atomic_write_parquet(self.part(table, chunk), frame)

    def write_parts(self, chunk: int, parts: Mapping[str, bytes]) -> None:
        """Write a chunk's parts already encoded as parquet (:func:`encode_parquet`)."""
        for table, data in parts.items():
            atomic_write_bytes(self.part(table, chunk), data)

    def scan(self, table: str, chunks: list[int] | None = None) -> pl.LazyFrame:
        """Lazy scan of a table's parts (only ``chunks`` when given), in chunk order."""
        files = sorted((self.path / table).glob("part-*.parquet"))
        if chunks is not None:
            want = {part_name(c) for c in chunks}
            files = [f for f in files if f.name in want]
        if not files:
            raise RunDirError(f"{self.path} has no parts of table {table!r}")
        return scan_part(files)
