"""Balance metrics for every game, after Ludii's evaluation metrics (each defined beside Ludii's in the README).

Computed from the game's outcome table (one row per game and seat) and,
where the game records a score as it goes (``Game.progress``), from the
score history. Every metric has n and a 95% interval; games are the
independent units (one value per game), so the intervals need no clustering.

- balance: 1 - (largest seat win rate - smallest), as Ludii's Balance. The
  best and worst seats are picked from the data, so the interval comes from
  simultaneous (max-T) intervals for every pair of seats' difference, which
  hold whichever pair the data single out; it stays inside [0, 1].
- equal seat win rates: an omnibus test (score chi-square on the per-game win
  vector; see :func:`seat_test`), from 100 finished games.
- first-player / dealer advantage: win rate of the seat that moved first /
  dealt first, minus the mean seat win rate.
- duration: mean game length, its spread (sd) and interval.
- final lead taken at: how far into the game the eventual winner took the
  sole lead it kept (0 = from the start, 1 = only at the very end).
- lead changes per game, and per step (Ludii's Lead Change is per move).
- largest deficit overcome: the eventual winner's largest deficit to the
  leader, as a share of the winner's final score (comparable across games).
- comeback rate: games whose winner trailed at some point.
- unfinished rate: games cut at a cap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from cardsim.stats import UNBOUNDED, collect, floor_p, maxt_critical, mean_ci, t_scale, wilson

#: the balance interval is given from this many finished games (its coverage: 95% from 100 games)
BALANCE_MIN_GAMES = 100

#: an unbounded mean that is no count (the largest deficit overcome, skewed) has its interval from this many
#: games: Student's t with Hall's correction covered a geometric's mean in 91.0% of 3-game runs and 91.5% at 5
#: (rows "mean of one value a unit"; an exponential's 91.7% at 3, 93% at 5-7), 93.2% at 10
SKEWED_MIN_GAMES = 10


def _row(metric: str, value: float, lo: float, hi: float, n: int, note: str = "") -> dict:
    return {"metric": metric, "value": value, "lo": lo, "hi": hi, "n": n, "note": note}


def _mean_row(metric: str, x: np.ndarray, note: str = "", bounds: tuple[float, float] = UNBOUNDED,
              count: bool = False) -> dict:
    """A mean a game with its interval: bounded values (an advantage in [-1, 1], a share of a game in
    [0, 1]) get the bounded interval of :func:`cardsim.stats.mean_ci` (a first-seat advantage that is
    -0.25 in most games and 0.75 in the rest: the t interval covered 39% at 10 games where the seat
    wins 5% of them, 78% at 30; the bounded one 94.2-100% in the coverage case "first-player advantage"); ``count``: a count a game (the
    duration, lead changes), at least Garwood's interval (:func:`cardsim.stats.mean_ci`'s ``count``)."""
    e = mean_ci(np.asarray(x, dtype=np.float64), bounds=bounds, count=count)
    return _row(metric, e.value, e.lo, e.hi, e.n, note)


def _skewed_row(metric: str, x: np.ndarray, note: str) -> dict:
    """A mean a game of a value with no bound and no count's floor (often skewed): its interval from
    :data:`SKEWED_MIN_GAMES` games; below, the mean with none and the reason in its note."""
    row = _mean_row(metric, x, note)
    if row["n"] < SKEWED_MIN_GAMES:
        row |= {"lo": math.nan, "hi": math.nan,
                "note": note + f"; no interval below {SKEWED_MIN_GAMES} games (a skewed mean's t interval, even "
                               "with Hall's correction, covered 91-93% at 3-7 games)"}
    return row


def advantage_row(metric: str, x: np.ndarray, note: str, possible: tuple[float, float] = (-1.0, 1.0)) -> dict:
    """The first-player (dealer) advantage a game, a win share minus the mean seat's: in [-1, 1], its
    interval the bounded one there, its ends then cut to ``possible``, the range the game's results
    allow (:func:`advantage_range`: -1/4 to 3/4 with four seats and one winner a game), which holds the
    truth, so the cut never loses coverage (from 3 games the interval read -93.9% with four seats)."""
    row = _mean_row(metric, x, note, (-1.0, 1.0))
    lo, hi = possible
    return row | {"lo": min(max(row["lo"], lo), hi), "hi": max(min(row["hi"], hi), lo)}


def advantage_range(total: np.ndarray, seats: np.ndarray) -> tuple[float, float]:
    """The range of a game's first-player advantage over games whose seats' wins sum to ``total`` over
    ``seats`` seats with a result: a seat's win share lies in [0, min(1, total)], the mean seat's is
    total / seats, so the advantage in [-total / seats, min(1, total) - total / seats], widest over the
    games."""
    mean = total / seats
    return float((-mean).min(initial=0.0)), float((np.minimum(total, 1.0) - mean).max(initial=0.0))


@dataclass
class Games:
    """An outcome table (a row per game and seat) laid out as games x seats arrays, games in order:
    ``win`` (NaN where a seat has no result: an unfinished game, or no row), ``null`` (the row's
    win is null: the game was cut), ``flags`` (``first``, ``dealer``: False where absent) and each
    game's ``length``. Numpy arrays of the outcome columns, without a pivot or a group-by (a 3-million
    game Turtle run: 8.4 s and 1.3 GiB for the balance metrics with them)."""

    seats: list
    win: np.ndarray
    null: np.ndarray
    flags: dict[str, np.ndarray]
    length: np.ndarray


def games_layout(out: pl.DataFrame) -> Games:
    """:class:`Games` of an outcome table held in memory, its rows in any order (each row's game and
    seat give its cell; a game's length is any of its rows')."""
    g = out["game"].to_numpy()
    step = np.diff(g)
    if (step >= 0).all():  # games in order, as a run's tables hold them: no sort
        gi = np.concatenate(([0], np.cumsum(step != 0)))
        n_games = int(gi[-1]) + 1 if g.size else 0
    else:
        uniq, gi = np.unique(g, return_inverse=True)
        n_games = uniq.size
    del step, g
    seat = out["seat"].to_numpy()
    seats = np.unique(seat)
    at = gi * seats.size + np.searchsorted(seats, seat)  # each row's cell of games x seats
    del seat
    shape = (n_games, seats.size)
    win = np.full(shape, np.nan)
    win.ravel()[at] = out["win"].cast(pl.Float64).to_numpy()
    null = np.zeros(shape, bool)
    null.ravel()[at] = out["win"].is_null().to_numpy()
    flags = {}
    for col in ("first", "dealer"):
        if col in out.columns:
            f = np.zeros(shape, bool)
            f.ravel()[at] = out[col].fill_null(False).to_numpy()
            flags[col] = f
    length = np.zeros(n_games)
    length[gi] = out["length"].cast(pl.Float64).to_numpy()
    return Games([str(x) for x in seats.tolist()], win, null, flags, length)


def games_layout_lazy(out: pl.LazyFrame) -> Games:
    """:func:`games_layout` of a lazy outcome table, read a seat at a time (each seat's rows, a row
    per game, sorted by game): the table is never held whole. When a seat's games are not the first
    seat's (an outcome table without one row per game and seat), the table is read whole instead."""
    seats = collect(out.select(pl.col("seat").unique().sort()))["seat"].to_list()
    have = out.collect_schema().names()
    flag_cols = [c for c in ("first", "dealer") if c in have]
    games = None
    win = null = length = None
    flags: dict[str, np.ndarray] = {}
    for j, s in enumerate(seats):
        df = collect(out.filter(pl.col("seat") == s).select("game", "win", "length", *flag_cols)).sort("game")
        g = df["game"].to_numpy()
        if games is None:
            games = g
            win = np.full((g.size, len(seats)), np.nan)
            null = np.zeros(win.shape, bool)
            flags = {c: np.zeros(win.shape, bool) for c in flag_cols}
            length = df["length"].cast(pl.Float64).to_numpy()
        elif not np.array_equal(g, games):
            return games_layout(collect(out))
        win[:, j] = df["win"].cast(pl.Float64).to_numpy()
        null[:, j] = df["win"].is_null().to_numpy()
        for c in flag_cols:
            flags[c][:, j] = df[c].fill_null(False).to_numpy()
    if games is None:
        return games_layout(collect(out))
    return Games([str(x) for x in seats], win, null, flags, length)


def _pair_contrasts(k: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    c = np.zeros((len(pairs), k))
    for r, (i, j) in enumerate(pairs):
        c[r, i], c[r, j] = 1.0, -1.0
    return c, pairs


def balance_interval(w: np.ndarray, alpha: float = 0.05, draws: int = 200_000) -> tuple[float, float, float, float]:
    """Balance ``1 - (max seat rate - min seat rate)`` of a games x seats win matrix, with the
    interval implied by simultaneous max-T intervals for all seat differences (valid whichever
    seats turn out best and worst), clipped to [0, 1]. Returns (balance, lo, hi, critical value)."""
    n, k = w.shape
    p = w.mean(axis=0)
    c, _ = _pair_contrasts(k)
    d = c @ p
    cov = c @ np.cov(w, rowvar=False).reshape(k, k) @ c.T / n
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    # the max-T value of known standard errors, scaled to Student's t for SEs estimated from n games (as
    # the sweep's contrasts): at 10 fair games the normal value held 77% of the time
    crit = maxt_critical(cov, alpha, draws=draws) * t_scale(n, alpha)
    lo_d, hi_d = d - crit * se, d + crit * se
    # the range max |p_i - p_j| lies between the largest lower bound of any |difference| and the
    # largest upper bound, whenever every simultaneous interval holds
    r_lo = float(max(0.0, np.max(np.maximum(lo_d, -hi_d)))) if d.size else 0.0
    r_hi = float(np.max(np.maximum(np.abs(lo_d), np.abs(hi_d)))) if d.size else 0.0
    value = 1 - float(p.max() - p.min())
    return value, max(0.0, 1 - r_hi), min(1.0, 1 - r_lo), crit


def seat_test(w: np.ndarray) -> tuple[float, int, float]:
    """Omnibus test that every seat has the same win rate: a score (Rao) chi-square test of the seat
    differences (each seat minus seat 0), their covariance estimated from the games under the
    hypothesis (the second moments of each game's differences about 0, not about their mean).

    Why not Pearson's chi-square on seat win counts: it assumes exactly one winner per game,
    while games here can be shared (a win of 1/k to each of k seats) and won by teams (team
    mates' results are identical, so their difference has no variance and the test has fewer
    degrees of freedom); the score test on the per-game win vector handles both and, with one
    winner per game, is asymptotically Pearson's. Why not the Wald test (the covariance about the differences'
    mean) it replaces: where the seats happen to differ that covariance shrinks, and the test said
    "unequal" too often: with fair seats, p < 0.05 in 12.7% of 30-game runs of four seats (20% of
    10-game runs with shared wins) and 7.3% of 100-game runs; the score test 5.0-5.9% from 100 games
    (case "equal seat win rates"), and 6.6% at 30, 22% at 10, so :func:`outcome_metrics` gives it
    from :data:`BALANCE_MIN_GAMES` finished games. Returns (chi2, df, p)."""
    from scipy.stats import chi2

    n, k = w.shape
    if k < 2 or n < 3:
        return math.nan, 0, math.nan
    c = np.hstack([-np.ones((k - 1, 1)), np.eye(k - 1)])
    x = w @ c.T  # each game's seat differences: mean 0 under the hypothesis
    d = x.mean(axis=0)
    cov = x.T @ x / n / n
    ev, vec = np.linalg.eigh((cov + cov.T) / 2)
    keep = ev > 1e-12 * max(ev.max(initial=0.0), 1e-300)
    if not keep.any():
        return 0.0, 0, 1.0
    z = vec[:, keep].T @ d
    stat = float((z * z / ev[keep]).sum())
    df = int(keep.sum())
    return stat, df, floor_p(float(chi2.sf(stat, df)))  # never exactly 0 (FUBNUB Lucky Ghost's read "0")


def length_is_count(scenario) -> bool:
    """Whether a scenario's game length varies from game to game (a count, whose mean takes a count's
    interval), not fixed by its rules (:meth:`cardsim.games.base.Game.fixed_length`)."""
    from cardsim.games import get_game

    return not get_game(scenario.game).fixed_length(scenario.setup)


def outcome_metrics(out: pl.DataFrame | Games, fixed_length: bool = False) -> list[dict]:
    """The metrics of an outcome table (or its :class:`Games` layout); ``fixed_length``: the rules give
    every game the same length (its duration keeps the t interval: none where it has no spread)."""
    rows = []
    lay = out if isinstance(out, Games) else games_layout(out)
    n_games = lay.win.shape[0]
    unf = int(lay.null.any(axis=1).sum())
    lo, hi = wilson(unf, n_games)
    rows.append(_row("unfinished rate", unf / n_games if n_games else math.nan, lo, hi, n_games,
                     "games cut at a cap (Wilson interval)"))
    valid = np.isfinite(lay.win)  # the rows with a result
    every = bool(valid.all())  # every game finished: the arrays as they are, no copies (a run's size)
    if valid.any():
        w, seats = (lay.win if every else lay.win[np.all(valid, axis=1)]), lay.seats
        if w.shape[0] > 2 and w.shape[1] > 1:
            means = w.mean(axis=0)
            i, j = int(np.argmax(means)), int(np.argmin(means))
            value, b_lo, b_hi, crit = balance_interval(w)
            what = f"1 - (seat {seats[i]} rate - seat {seats[j]} rate); "
            if w.shape[0] < BALANCE_MIN_GAMES:
                rows.append(_row("balance", value, math.nan, math.nan, w.shape[0], what + (
                    f"no interval below {BALANCE_MIN_GAMES} finished games (the simultaneous intervals it rests on "
                    "held less often than 95% there: 86% of fair 10-game runs, 93% at 50)")))
            else:
                rows.append(_row("balance", value, b_lo, b_hi, w.shape[0], what + (
                    f"interval from simultaneous intervals for every pair of seats (max-T, critical value "
                    f"{crit:.2f}), so it allows for picking the best and worst seat from the data")))
            stat, df, p = seat_test(w)
            what = "score chi-square test that every seat wins equally often"
            if w.shape[0] < BALANCE_MIN_GAMES:
                rows.append(_row("equal seat win rates: p-value", math.nan, math.nan, math.nan, w.shape[0],
                                 f"{what}: none below {BALANCE_MIN_GAMES} finished games (with fair seats it said "
                                 "p < 0.05 in 6.6% of 30-game runs of four seats and 22% of 10-game runs)"))
            else:
                rows.append(_row("equal seat win rates: p-value", p, math.nan, math.nan, w.shape[0],
                                 f"{what}: chi2 = {stat:.2f} on {df} df (handles shared wins and team mates; a "
                                 "p-value, not an interval)"))
        fair = w.mean(axis=1) if w.size else np.array([math.nan])
        won = lay.win if every else np.where(valid, lay.win, 0.0)
        n_all = valid.sum(axis=1)
        for col, name in (("first", "first-player advantage"), ("dealer", "dealer advantage")):
            if col in lay.flags:
                # per game with a flagged seat: its (mean) win minus the mean over the game's seats
                sel = lay.flags[col] if every else valid & lay.flags[col]
                n_sel = sel.sum(axis=1)
                keep = n_sel > 0
                sel_won = sum(np.where(sel[:, j], won[:, j], 0.0) for j in range(won.shape[1]))  # a column at a time
                total = won.sum(axis=1)[keep]
                x = sel_won[keep] / n_sel[keep] - total / n_all[keep]
                rows.append(advantage_row(name, x, f"win rate of the seat that {'moved' if col == 'first' else 'dealt'} "
                                                   f"first minus the mean seat win rate ({fair.mean():.3f})",
                                          advantage_range(total, n_all[keep])))
    length = lay.length
    rows.append(_mean_row("duration", length, f"sd {length.std(ddof=1):.2f}" if length.size > 1 else "",
                          count=not fixed_length))
    return rows


#: games of the score history :func:`progress_metrics` reads at once: grouping every hand of a run together
#: held it all in memory (a FUBNUB report of 600,000 games peaked at 2.5 GB, 0.82 GB now; 3 million failed under an 8 GB limit)
PROGRESS_WINDOW = 50_000


def progress_metrics(progress: pl.LazyFrame, winners: pl.LazyFrame, window: int = PROGRESS_WINDOW) -> list[dict]:
    """Final lead, lead changes, largest deficit overcome and comeback rate from a score history.

    ``progress``: ``game``, ``step``, ``side``, ``score`` (score of each side after each step);
    ``winners``: ``game``, ``side`` (the eventual winner; finished games only). Each game's figures are its
    own, so the history is read ``window`` games at a time (the per-game figures of every window together
    are the whole run's).
    """
    lo, hi = winners.select(pl.col("game").min().alias("lo"), pl.col("game").max().alias("hi")).collect().row(0)
    if lo is None:
        return []
    parts = []
    for start in range(int(lo), int(hi) + 1, max(1, int(window))):
        within = (pl.col("game") >= start) & (pl.col("game") < start + window)
        parts.append(_progress_per_game(progress.filter(within), winners.filter(within)))
    return _progress_rows(pl.concat(parts).sort("game"))


def _progress_per_game(progress: pl.LazyFrame, winners: pl.LazyFrame) -> pl.DataFrame:
    """One row per finished game of ``progress``: its steps, deficits, lead changes and final lead."""
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
        pl.col("ws").sort_by("step").last().alias("final"),
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
    ).with_columns(
        rel_drama=pl.when(pl.col("final") > 0).then(pl.col("drama") / pl.col("final")).otherwise(None),
        change_rate=pl.col("changes") / pl.col("steps"),
    ).collect()
    return per_game


def _progress_rows(per_game: pl.DataFrame) -> list[dict]:
    """The metrics' rows from :func:`_progress_per_game`'s table."""
    if per_game.height == 0:
        return []
    k = int(per_game["comeback"].sum())
    lo, hi = wilson(k, per_game.height)
    f = lambda c: per_game[c].cast(pl.Float64).to_numpy()  # noqa: E731
    return [
        _mean_row("final lead taken at", f("decisive"),
                  "share of the game played before the eventual winner took the sole lead it kept (0: led from the "
                  "start); not Ludii's Decisiveness, which needs a state evaluation", (0.0, 1.0)),
        _mean_row("lead changes per game", f("changes"), "changes of the sole leader per game", count=True),
        _mean_row("lead change rate", f("change_rate"),
                  "changes of the sole leader per step (hand or game of a tournament), as Ludii's Lead Change",
                  (0.0, 1.0)),
        _skewed_row("largest deficit overcome", f("rel_drama"),
                    "the eventual winner's largest deficit to the leader, as a share of its final score (Ludii's "
                    "Drama measures deficits on a state evaluation instead)"),
        _row("comeback rate", k / per_game.height, lo, hi, per_game.height,
             "games whose winner trailed at some point (Wilson interval)"),
    ]


def balance_table(game, tables, setup) -> pl.DataFrame:
    """All metrics the game's tables allow, one row each: ``metric, value, lo, hi, n, note``."""
    rows = outcome_metrics(games_layout_lazy(game.outcomes(tables, setup)), game.fixed_length(setup))
    prog = game.progress(tables, setup)
    if prog is not None:
        rows += progress_metrics(*prog)
    return pl.DataFrame(rows, schema={"metric": pl.String, "value": pl.Float64, "lo": pl.Float64, "hi": pl.Float64,
                                      "n": pl.Int64, "note": pl.String})

