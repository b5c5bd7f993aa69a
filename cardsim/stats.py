"""Intervals and summaries with honest uncertainty (STYLE habit 10).

Rates get Wilson score intervals (never the Wald interval, whose coverage
is erratic at small n and extreme p); means get a standard error and a
normal 95% interval. Polars helpers add these columns to grouped frames.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

Z95 = 1.959963984540054


def wilson(k: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for ``k`` successes in ``n`` trials (``(nan, nan)`` when n == 0)."""
    if n <= 0:
        return (math.nan, math.nan)
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, mid - half), min(1.0, mid + half))


def wilson_exprs(k: pl.Expr, n: pl.Expr, prefix: str = "", z: float = Z95) -> list[pl.Expr]:
    """Polars expressions for the rate ``k/n`` and its Wilson interval (columns ``rate``, ``lo``, ``hi``)."""
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)).sqrt()) / den
    return [
        p.alias(f"{prefix}rate"),
        (mid - half).clip(0.0, 1.0).alias(f"{prefix}lo"),
        (mid + half).clip(0.0, 1.0).alias(f"{prefix}hi"),
    ]


def mean_se(x: np.ndarray) -> tuple[float, float, int]:
    """Mean, standard error of the mean and n of a sample."""
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    if n == 0:
        return (math.nan, math.nan, 0)
    sd = x.std(ddof=1) if n > 1 else math.nan
    return (float(x.mean()), float(sd / math.sqrt(n)), n)


def mean_exprs(col: str | pl.Expr, prefix: str = "") -> list[pl.Expr]:
    """Aggregations: n, mean, standard error and the 95% normal interval of a column."""
    c = pl.col(col) if isinstance(col, str) else col
    se = c.std(ddof=1) / c.count().sqrt()
    return [
        c.count().alias(f"{prefix}n"),
        c.mean().alias(f"{prefix}mean"),
        se.alias(f"{prefix}se"),
        (c.mean() - Z95 * se).alias(f"{prefix}lo"),
        (c.mean() + Z95 * se).alias(f"{prefix}hi"),
    ]


def rate_query(frame: pl.DataFrame | pl.LazyFrame, by: list[str], success: str | pl.Expr) -> pl.LazyFrame:
    """:func:`rate_table`, not collected yet (to collect several at once with :func:`collect_all`)."""
    ok = pl.col(success) if isinstance(success, str) else success
    g = frame.lazy().group_by(by).agg(pl.len().alias("n"), ok.cast(pl.Float64).sum().alias("k")).sort(by)
    return g.with_columns(wilson_exprs(pl.col("k"), pl.col("n")))


def rate_table(frame: pl.DataFrame | pl.LazyFrame, by: list[str], success: str | pl.Expr) -> pl.DataFrame:
    """Group ``frame`` by ``by`` and give n, successes, rate and Wilson interval of boolean/0-1 ``success``.

    A LazyFrame is aggregated with the streaming engine, so a run of any size is
    summarised in bounded memory (only the grouped counts are materialised)."""
    return collect(rate_query(frame, by, success))


def collect(lf: pl.LazyFrame) -> pl.DataFrame:
    """Collect with polars' streaming engine (bounded memory over large runs)."""
    return lf.collect(engine="streaming")


def collect_all(queries: list[pl.LazyFrame]) -> list[pl.DataFrame]:
    """Collect several queries at once with the streaming engine: polars reads the parquet
    columns they share once (a summary's queries cost about a fifth less than one by one)."""
    return pl.collect_all(queries, engine="streaming")


def seat_table(outcomes: pl.DataFrame) -> pl.DataFrame:
    """Win rate by seat from an outcome table (``game``, ``seat``, ``win``): n finished games,
    wins (shared wins count 1/k), rate, Wilson interval, and ``fair``: the rate every seat would
    have if seats did not matter (the mean over seats: 1/players alone, 1/2 in two teams)."""
    fin = outcomes.drop_nulls("win")
    g = fin.group_by("seat").agg(pl.len().alias("n"), pl.col("win").sum().alias("k")).sort("seat")
    fair = float(fin["win"].mean()) if fin.height else float("nan")
    return g.with_columns(wilson_exprs(pl.col("k"), pl.col("n"))).with_columns(fair=pl.lit(fair))
