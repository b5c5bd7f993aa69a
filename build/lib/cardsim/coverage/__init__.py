"""The coverage suite: every interval cardsim prints, checked against a known truth.

An interval type is trusted only once its coverage has been measured: many
replicates of a case whose true value is known (simulated data, or a game
whose answer is known by symmetry), counting how often the interval holds
the truth. Each module of this package registers its cases with
:func:`case`; ``python -m cardsim.coverage`` (``make coverage``) runs them
all and prints the table (interval, case, nominal, measured, Monte Carlo
error, replicates) that the README quotes.

A case is a function ``(replicates, seed) -> list[Coverage]``: it must
depend only on its arguments (so the suite is reproducible), and it may
return several rows (one per sample size, look or sub-case).
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

CaseFn = Callable[[int, int], list["Coverage"]]
CASES: dict[str, tuple[CaseFn, int]] = {}


@dataclass(frozen=True)
class Coverage:
    """One measured coverage: ``covered`` of ``replicates`` intervals held the truth."""

    interval: str
    case: str
    nominal: float
    replicates: int
    covered: int

    @property
    def measured(self) -> float:
        return self.covered / self.replicates if self.replicates else math.nan

    @property
    def mc_error(self) -> float:
        """Monte Carlo standard error of ``measured`` (binomial)."""
        p = self.measured
        return math.sqrt(p * (1 - p) / self.replicates) if self.replicates else math.nan


def case(name: str, replicates: int = 2000) -> Callable[[CaseFn], CaseFn]:
    """Register a coverage case under ``name`` with its default number of replicates."""

    def register(fn: CaseFn) -> CaseFn:
        if name in CASES:
            raise ValueError(f"coverage case {name!r} is registered twice")
        CASES[name] = (fn, replicates)
        return fn

    return register


def load_all() -> dict[str, tuple[CaseFn, int]]:
    """Import every module of this package (each registers its cases) and return the registry."""
    for mod in pkgutil.iter_modules(__path__):
        if not mod.name.startswith("_"):
            importlib.import_module(f"{__name__}.{mod.name}")
    return CASES


def table(results: list[Coverage]) -> pl.DataFrame:
    """One row per measured coverage."""
    return pl.DataFrame([{"interval": r.interval, "case": r.case, "nominal": r.nominal, "measured": r.measured,
                          "mc_error": r.mc_error, "replicates": r.replicates} for r in results],
                        schema={"interval": pl.String, "case": pl.String, "nominal": pl.Float64,
                                "measured": pl.Float64, "mc_error": pl.Float64, "replicates": pl.Int64})


def run(names: list[str] | None = None, scale: float = 1.0, seed: int = 0) -> list[Coverage]:
    """Run the registered cases (all, or ``names``) with ``scale`` times their replicates."""
    cases = load_all()
    unknown = [n for n in names or [] if n not in cases]
    if unknown:
        raise KeyError(f"unknown coverage cases {unknown}; known: {sorted(cases)}")
    out: list[Coverage] = []
    for name, (fn, reps) in sorted(cases.items()):
        if names and name not in names:
            continue
        # each case's seed depends on its name only, so adding a case changes no other case's figures
        out += fn(max(1, round(reps * scale)), seed + zlib.crc32(name.encode()))
    return out
