"""Balance metrics for every game, named as game designers know them (Ludii's evaluation metrics).

Computed from the game's outcome table (one row per game and seat) and,
where the game records a score as it goes (``Game.progress``), from the
score history. Every metric has n and a 95% interval.

- balance: 1 - (largest seat win rate - smallest); 1 is perfectly fair.
- first-player / dealer advantage: win rate of the seat that moved first /
  dealt first, minus the mean seat win rate.
- duration: mean game length, its spread (sd) and interval.
- decisiveness: how far into the game the eventual winner took the lead it
  kept (0 = from the start, 1 = only at the very end).
- lead changes: changes of the sole leader per game.
- drama: the eventual winner's largest deficit to the leader (in points).
- comeback rate: games whose winner trailed at some point.
- unfinished rate: games cut at a cap.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from cardsim.stats import Z95, wilson


def _row(metric: str, value: float, se: float, n: int, note: str = "") -> dict:
    return {"metric": metric, "value": value, "lo": value - Z95 * se, "hi": value + Z95 * se, "n": n, "note": note}


def _mean_row(metric: str, x: np.ndarray, note: str = "") -> dict:
    x = x[np.isfinite(x)]
    n = x.size
    se = x.std(ddof=1) / math.sqrt(n) if n > 1 else math.nan
    return _row(metric, float(x.mean()) if n else math.nan, se, n, note)


def outcome_metrics(out: pl.DataFrame) -> list[dict]:
    rows = []
    games = out.group_by("game").agg(pl.col("win").null_count().alias("nulls"), pl.col("length").first())
    n_games = games.height
    unf = int((games["nulls"] > 0).sum())
    lo, hi = wilson(unf, n_games)
    rows.append({"metric": "unfinished rate", "value": unf / n_games if n_games else math.nan, "lo": lo, "hi": hi,
                 "n": n_games, "note": "games cut at a cap"})
    fin = out.drop_nulls("win")
    if fin.height:
        wide = fin.pivot(on="seat", index="game", values="win", aggregate_function="first").drop("game")
        w = wide.to_numpy().astype(np.float64)
        w = w[np.all(np.isfinite(w), axis=1)]
        means = w.mean(axis=0)
        i, j = int(np.argmax(means)), int(np.argmin(means))
        d = w[:, i] - w[:, j]
        se = d.std(ddof=1) / math.sqrt(d.size) if d.size > 1 else math.nan
        rows.append(_row("balance", 1 - float(d.mean()), se, d.size,
                         f"1 - (seat {wide.columns[i]} rate - seat {wide.columns[j]} rate)"))
        fair = w.mean(axis=1)
        for col, name in (("first", "first-player advantage"), ("dealer", "dealer advantage")):
            if col in fin.columns:
                sel = fin.filter(pl.col(col)).group_by("game").agg(pl.col("win").mean()).sort("game")
                allw = fin.group_by("game").agg(pl.col("win").mean().alias("all")).sort("game")
                j2 = sel.join(allw, on="game")
                x = (j2["win"] - j2["all"]).to_numpy()
                rows.append(_mean_row(name, x, f"win rate of the seat that {'moved' if col == 'first' else 'dealt'} "
                                              f"first minus the mean seat win rate ({fair.mean():.3f})"))
    length = games["length"].cast(pl.Float64).to_numpy()
    rows.append(_mean_row("duration", length, f"sd {length.std(ddof=1):.2f}" if length.size > 1 else ""))
    return rows


def progress_metrics(progress: pl.LazyFrame, winners: pl.LazyFrame) -> list[dict]:
    """Decisiveness, lead changes, drama and comeback from a score history.

    ``progress``: ``game``, ``step``, ``side``, ``score`` (score of each side after each step);
    ``winners``: ``game``, ``side`` (the eventual winner; finished games only).
    """
    p = progress.join(winners.rename({"side": "wside"}), on="game", how="inner")
    per_step = p.group_by("game", "step").agg(
        pl.col("score").max().alias("top"),
        (pl.col("score") == pl.col("score").max()).sum().alias("ntop"),
        pl.col("side").filter(pl.col("score") == pl.col("score").max()).first().alias("lead_side"),
        pl.col("score").filter(pl.col("side") == pl.col("wside")).first().alias("ws"),
        pl.col("wside").first(),
    ).with_columns(
        leader=pl.when(pl.col("ntop") == 1).then(pl.col("lead_side")).otherwise(-1),
        deficit=pl.col("top") - pl.col("ws"),
    ).sort("game", "step")
    per_game = per_step.group_by("game").agg(
        pl.len().alias("steps"),
        pl.col("deficit").max().alias("drama"),
        (pl.col("deficit") > 0).any().alias("comeback"),
        # the last step at which the winner was not the sole leader
        pl.col("step").filter(pl.col("leader") != pl.col("wside")).max().alias("last_not"),
        pl.col("step").min().alias("first_step"),
        pl.col("leader").filter(pl.col("leader") >= 0).alias("leaders"),
    ).with_columns(
        decisive=((pl.col("last_not").fill_null(pl.col("first_step") - 1) - pl.col("first_step") + 1)
                  / pl.col("steps")).clip(0.0, 1.0),
        # the first leader compares with null (not counted): a change is a new sole leader
        changes=pl.col("leaders").list.eval((pl.element() != pl.element().shift(1)).fill_null(False).cast(pl.Int32))
        .list.sum(),
    ).collect()
    if per_game.height == 0:
        return []
    k = int(per_game["comeback"].sum())
    lo, hi = wilson(k, per_game.height)
    return [
        _mean_row("decisiveness", per_game["decisive"].to_numpy().astype(float),
                  "share of the game played before the winner took the lead it kept"),
        _mean_row("lead changes", per_game["changes"].to_numpy().astype(float), "changes of the sole leader per game"),
        _mean_row("drama", per_game["drama"].to_numpy().astype(float), "winner's largest deficit to the leader"),
        {"metric": "comeback rate", "value": k / per_game.height, "lo": lo, "hi": hi, "n": per_game.height,
         "note": "games whose winner trailed at some point"},
    ]


def balance_table(game, tables, setup) -> pl.DataFrame:
    """All metrics the game's tables allow, one row each."""
    rows = outcome_metrics(game.outcomes(tables, setup).collect())
    prog = game.progress(tables, setup)
    if prog is not None:
        rows += progress_metrics(*prog)
    return pl.DataFrame(rows)
