"""Throughput measured side by side in one process (DESIGN "Numbers it must reach").

For a game: units/s of the full kernel (kernel only, and with its polars
tables), of the same kernel interpreted (``NUMBA_DISABLE_JIT=1`` in a
subprocess, on fewer units) and of the game's minimal kernel (shuffle,
deal, resolve; no policy calls). Figures are ratios from one run, because
these machines are shared and noisy; times are the CPU time of the measuring
thread (kernels run in it), which other processes on the machine disturb far
less than wall time, but not at all: the machine's speed drifts between
phases (on this project's machine a kernel's own speed moves by up to half
within seconds). So the full and the minimal kernel run back to back in
:data:`PAIRS` pairs, and the full/minimal figure is the median of the pairs'
ratios, each taken from two timings a fraction of a second apart; the range
of the pairs' ratios is reported beside it. The kernel with its tables
(``simulate_chunk``) runs in the same rounds, right after the kernel alone,
and "with tables / kernel" is likewise the median of each round's ratio
(one timing on its own read 0.63-0.71 for a chunk whose tables cost a tenth
of its kernel: the first large table build of a process is the slowest).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass

from cardsim.errors import CardsimError
from cardsim.games import get_game
from cardsim.rng import root_key
from cardsim.scenario import build_setup

PAIRS = 7  # back-to-back (full, minimal) timings per bench


def median(xs) -> float:
    """The median of the numbers ``xs``."""
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


@dataclass
class BenchResult:
    game: str
    variant: str
    unit: str
    full: float
    tables: float
    interpreted: float
    minimal: float
    #: full/minimal of each back-to-back pair, in order of measurement
    ratios: tuple[float, ...] = ()
    #: (with tables)/full of each round, in order of measurement
    table_ratios: tuple[float, ...] = ()

    @property
    def vs_interpreted(self) -> float:
        return self.full / self.interpreted

    @property
    def vs_minimal(self) -> float:
        """The median of the pairs' full/minimal ratios (the ratio of the medians without pairs)."""
        if self.ratios:
            return median(self.ratios)
        return self.full / self.minimal

    @property
    def tables_vs_full(self) -> float:
        """The median of the rounds' (with tables)/full ratios."""
        if self.table_ratios:
            return median(self.table_ratios)
        return self.tables / self.full


def _ratio(x: float) -> str:
    """A bench ratio to two decimals, three below 0.1 (Gubs' 0.097 is not the bar's 0.10)."""
    return f"{x:.3f}" if x < 0.1 else f"{x:.2f}"


def _spread(xs: tuple[float, ...]) -> str:
    """The range of the pairs' ratios (``lo-hi``), or ``one pair`` when there was one."""
    return f"{_ratio(min(xs))}-{_ratio(max(xs))}" if len(xs) > 1 else "one pair"


#: the interpreted kernel is timed once (it is 291-1,541 times slower), so full/interpreted is one timing
#: against the median of the full kernel's: no pairs, no range
INTERPRETED = "one interpreted timing against the full kernel's median: not paired, no range"

MARKDOWN_HEADER = ("| game | variant | unit | full kernel /s | with tables /s | interpreted /s | minimal /s | "
                   "tables / kernel | tables' range | full / interpreted (one timing) | full / minimal | pairs' range |\n"
                   "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")


def bench_line(r: BenchResult) -> str:
    """What ``cardsim bench`` prints for one game and variant: the rates (medians of each kind's timings)
    and the ratios, each paired ratio the median of its pairs with their range, the interpreted one said
    to be a single timing. The rates and the ratios are medians of different timings, so a ratio need not
    equal the quotient of the printed rates (the machine's speed drifts)."""
    pairs = (f"each the median of {len(r.ratios)} back-to-back pairs, with the pairs' range"
             if len(r.ratios) > 1 else "each from one pair")
    return (f"{r.game} {r.variant}: {r.full:,.0f} {r.unit}s/s full kernel, {r.tables:,.0f}/s with tables, "
            f"{r.interpreted:,.0f}/s interpreted, {r.minimal:,.0f}/s minimal kernel (medians of each kind's "
            f"timings); full/interpreted = {r.vs_interpreted:,.0f}x ({INTERPRETED}); tables/kernel = "
            f"{r.tables_vs_full:.2f} ({_spread(r.table_ratios or (r.tables_vs_full,))}), full/minimal = "
            f"{_ratio(r.vs_minimal)} ({_spread(r.ratios or (r.vs_minimal,))}) ({pairs})")


def markdown_row(r: BenchResult) -> str:
    """One row of ``cardsim bench --markdown`` (:data:`MARKDOWN_HEADER`)."""
    return (f"| {r.game} | {r.variant} | {r.unit} | {r.full:,.0f} | {r.tables:,.0f} | {r.interpreted:,.0f} | "
            f"{r.minimal:,.0f} | {r.tables_vs_full:.2f} | {_spread(r.table_ratios or (r.tables_vs_full,))} | "
            f"{r.vs_interpreted:,.0f}x | {_ratio(r.vs_minimal)} | {_spread(r.ratios or (r.vs_minimal,))} |")


def bench_row(r: BenchResult) -> dict[str, object]:
    """One row of ``cardsim bench -f json|csv``: the rates (medians of each kind's timings) and the
    ratios, each paired ratio the median of its pairs with their range and count."""
    tables, pairs = r.table_ratios or (r.tables_vs_full,), r.ratios or (r.vs_minimal,)
    return {"game": r.game, "variant": r.variant, "unit": r.unit, "full": r.full, "tables": r.tables,
            "interpreted": r.interpreted, "minimal": r.minimal, "tables_vs_full": r.tables_vs_full,
            "tables_lo": min(tables), "tables_hi": max(tables), "tables_rounds": len(r.table_ratios),
            "vs_interpreted": r.vs_interpreted, "vs_minimal": r.vs_minimal, "pairs_lo": min(pairs),
            "pairs_hi": max(pairs), "pairs": len(r.ratios)}


def _rate(fn, count: int, reps: int = 3) -> float:
    """Median units/s of ``fn(start, count)`` (returns units) over ``reps`` calls."""
    return median([_timed(fn, r * count, count) for r in range(reps)])


def _timed(fn, start: int, count: int) -> float:
    """Units/s of one call ``fn(start, count)`` (returns units), in CPU time of this thread."""
    t = time.thread_time()
    units = fn(start, count)
    return units / max(time.thread_time() - t, 1e-9)


def kernel_rate(game_name: str, count: int, reps: int = 3, tables: bool = False, variant: str | None = None) -> float:
    game = get_game(game_name)
    setup = build_setup(game, variant)
    key = root_key(0)
    if tables:
        return _rate(lambda s, n: game.simulate_chunk(setup, key, s, n)[game.unit_table].height, count, reps)
    return _rate(lambda s, n: game.bench_chunk(setup, key, s, n), count, reps)


def interpreted_rate(game_name: str, count: int, variant: str | None = None) -> float:
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    code = ("import json,sys; from cardsim.bench import kernel_rate; "
            f"print(json.dumps(kernel_rate({game_name!r}, {count}, reps=1, variant={variant!r})))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def bench(game_name: str, count: int | None = None, interp_count: int | None = None,
          variant: str | None = None) -> BenchResult:
    """Bench one game (and variant; default the first) with its default policy at every seat."""
    game = get_game(game_name)
    setup = build_setup(game, variant)
    key = root_key(0)
    count = count or game.bench_count
    interp_count = interp_count or max(1, count // 500)
    game.bench_chunk(setup, key, 0, 2)  # compile (or load the cache)
    game.minimal_chunk(setup, key, 0, 2)
    game.simulate_chunk(setup, key, 0, 2)
    full, tables, minimal = [], [], []
    for r in range(PAIRS):  # back to back, so the machine's speed of the moment hits all alike
        full.append(_timed(lambda s, n: game.bench_chunk(setup, key, s, n), r * count, count))
        tables.append(_timed(lambda s, n: game.simulate_chunk(setup, key, s, n)[game.unit_table].height,
                             r * count, count))
        minimal.append(_timed(lambda s, n: game.minimal_chunk(setup, key, s, n), r * count,
                              count * game.minimal_scale))
    interp = interpreted_rate(game_name, interp_count, setup.variant)
    return BenchResult(game.name, setup.variant, game.unit, median(full), median(tables), interp, median(minimal),
                       tuple(f / m for f, m in zip(full, minimal, strict=True)),
                       tuple(t / f for t, f in zip(tables, full, strict=True)))


@dataclass
class MemoryResult:
    hands: int
    games: int
    seconds: float
    peak_rss_mib: float


#: partner games average about 12.4 FUBNUB hands (``memory`` plays hands / GAME_HANDS games)
GAME_HANDS = 12.4


def memory(hands: int = 100_000_000, threads: int | None = None, keep: str | None = None) -> MemoryResult:
    """Play about ``hands`` FUBNUB hands with ``cardsim run`` in a subprocess (tables to a
    temporary run directory, then the summary) and return its peak resident size."""
    import resource
    import shutil
    import tempfile
    from pathlib import Path

    import polars as pl

    games = max(1, int(hands / GAME_HANDS))
    tmp = Path(keep or tempfile.mkdtemp(prefix="cardsim-mem-"))
    scen = tmp / "memory.toml"
    scen.write_text(f'[scenario]\nname = "memory"\ngame = "fubnub"\ngames = {games}\nseed = 1\n'
                    f'[seats]\npolicy = "partner"\n')
    cmd = [sys.executable, "-m", "cardsim.cli", "run", str(scen), "--out", str(tmp / "run")]
    if threads:
        cmd += ["--threads", str(threads)]
    try:
        t = time.perf_counter()
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL)
        if done.returncode:  # its error line is above, on the stderr it shares
            raise CardsimError(f"--memory {hands}: the `cardsim run` of {games:,} FUBNUB games it plays failed "
                               f"(exit code {done.returncode})")
        seconds = time.perf_counter() - t
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB -> MiB on Linux
        played = pl.scan_parquet(str(tmp / "run" / "hands" / "*.parquet")).select(pl.len()).collect().item()
    finally:  # a failed or interrupted measure left its temporary run (gigabytes at make bench's size)
        if keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    return MemoryResult(played, games, seconds, peak)
