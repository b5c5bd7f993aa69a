"""Sweeps over rule knobs and policy parameters (issue 7).

``[sweep]`` holds either ``grid`` (a table of key -> list of values; every
combination is a point) or ``points`` (a list of tables key -> value), and
optionally ``metric`` (``winrate_s<k>``, default ``winrate_s0``, or
``length``). Keys address what they change: ``rules.<knob>``,
``seat<k>.<param>``, ``seats.<param>`` (every seat), ``seat<k>.policy``,
``policy``, ``players``, ``variant``. Every point is an ordinary scenario
with its own run directory, played on the same deals (same seed).
``best`` (``max`` or ``min``; default ``max`` for a win rate, ``min`` for
length) says which end of the metric is best.

When the points share deals (no ``players`` or ``variant`` key), the sweep
answers "which point is best, by how much, how sure": each point's paired
contrast with the best point (per-game differences), simultaneous 95%
intervals for every pair of points (max-T, so they hold whichever point the
data call best), max-T adjusted p-values, how settled the ranking is (the share
of draws from the estimates' joint normal distribution in which each point
comes out best: a plug-in stability, not a calibrated probability that the
point is the best), and the best point re-played on fresh deals (a seed
the sweep never used, :func:`heldout_seed`) with its interval, so the winner's
curse does not inflate the answer. Points with another player count or
variant play other games: each is then compared with its own fair share.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from cardsim import scenario as sc
from cardsim.errors import ScenarioError
from cardsim.metrics import length_is_count
from cardsim.output import Output
from cardsim.report import numbers as N
from cardsim.report.numbers import share_digits
from cardsim.stats import (
    POINTWISE,
    UNBOUNDED,
    bonferroni_z,
    maxt_pvalues,
    mean_ci,
    mean_exprs,
    paired_difference,
    seat_table,
    t_quantile,
    t_scale,
    wilson,
)
from cardsim.studies import derive


@dataclass(frozen=True)
class Plan:
    base: sc.Scenario
    keys: list[str]
    points: list[dict[str, Any]]
    scenarios: list[sc.Scenario]
    metric: str
    best: str = "max"

    @property
    def paired(self) -> bool:
        """The points play the same deals (no point changes the player count or the variant)."""
        return not {"players", "variant"} & set(self.keys)


def _label(v: Any) -> str:
    return v if isinstance(v, str) else repr(v)


def plan(base: sc.Scenario) -> Plan:
    cfg = base.raw.get("sweep")
    if not cfg:
        raise derive.no_section(base, "sweep", "a grid or points")
    for k in cfg:
        if k not in ("grid", "points", "metric", "best"):
            raise ScenarioError(f"unknown key sweep.{k}; allowed: grid, points, metric, best")
    if ("grid" in cfg) == ("points" in cfg):
        raise ScenarioError("[sweep] needs exactly one of grid = {key = [values]} or points = [{key = value}, ...]")
    if "grid" in cfg:
        grid = cfg["grid"]
        if not isinstance(grid, Mapping) or not grid or not all(isinstance(v, list) and v for v in grid.values()):
            raise ScenarioError("sweep.grid must map each key to a non-empty list of values")
        keys = list(grid)
        for key, values in grid.items():  # a value listed twice played the same point twice, "1 other point cannot
            seen: set[str] = set()       # be told apart from it: seat0.call_need=1" beside the best seat0.call_need=1
            for v in values:
                if json.dumps(v, sort_keys=True) in seen:
                    raise ScenarioError(f"sweep.grid.{key} lists {v!r} twice; list each value once")
                seen.add(json.dumps(v, sort_keys=True))
        points = [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*grid.values())]
    else:
        points = cfg["points"]
        if not isinstance(points, list) or not points or not all(isinstance(p, Mapping) for p in points):
            raise ScenarioError("sweep.points must be a non-empty list of tables")
        keys = list(dict.fromkeys(k for p in points for k in p))
        points = [dict(p) for p in points]
        seen_at: dict[str, int] = {}
        for i, point in enumerate(points):
            if not point:  # it played the base scenario under an empty name (": 34.0% ...; less at  (-16.0 ...)")
                raise ScenarioError(f"sweep.points[{i}] sets no key; each point sets at least one, e.g. "
                                    f"{{\"seat0.call_need\" = 2}}")
            same = json.dumps(point, sort_keys=True, default=str)
            if same in seen_at:
                raise ScenarioError(f"sweep.points[{i}] is the same point as sweep.points[{seen_at[same]}] "
                                    f"({', '.join(f'{k}={v!r}' for k, v in point.items())}); list each point once")
            seen_at[same] = i
    metric = cfg.get("metric", "winrate_s0")
    if not (metric == "length" or re.fullmatch(r"winrate_s\d+", str(metric))):
        raise ScenarioError(f"sweep.metric = {metric!r}; allowed: winrate_s<seat> or length")
    best = cfg.get("best", "min" if metric == "length" else "max")
    if best not in ("max", "min"):
        raise ScenarioError(f"sweep.best = {best!r}; allowed: max, min")
    scenarios = []
    for i, point in enumerate(points):
        raw = derive.base_raw(base)
        players = base.setup.players
        for key, value in point.items():
            derive.apply_key(raw, players, key, value, f"sweep point {i}")
            if key == "players" and type(value) is int:  # any other value is refused by derive.build, naming the point
                players = value
        label = "-".join(f"{k.split('.')[-1]}={_label(v)}" for k, v in point.items())
        try:
            scenarios.append(derive.build(base, raw, f"{base.name}-{label}"))
        except ScenarioError as exc:
            raise ScenarioError(f"sweep point {i} ({label}): {exc}") from None
    fewest = min(s.setup.players for s in scenarios)
    if metric != "length" and int(metric[9:]) >= fewest:
        allowed = ", ".join(f"winrate_s{k}" for k in range(fewest))
        at = f"{fewest} players" if all(s.setup.players == fewest for s in scenarios) else \
            f"{fewest} players at the smallest point"
        raise ScenarioError(f"sweep.metric = {metric!r}: no seat {metric[9:]} with {at}; allowed: {allowed} or length")
    return Plan(base, keys, points, scenarios, metric, best)


def heldout_seed(seed: int) -> int:
    """A seed the sweep itself never plays, derived from the scenario's (fresh deals for the best point)."""
    return int(np.random.SeedSequence([seed, 0x5EED]).generate_state(1, np.uint64)[0] >> 1)


@dataclass
class SweepResult:
    plan: Plan
    table: pl.DataFrame  # one row per point
    heldout: pl.DataFrame | None = None  # the best point on fresh deals
    best_index: int | None = None
    critical: float = math.nan  # max-T critical value of the simultaneous intervals
    note: str = ""  # why the points were not compared (no game finished at every point)


def point_values(out: pl.DataFrame, metric: str) -> pl.DataFrame:
    """Per game: the metric's value (``game``, ``v``): seat k's win (null when unfinished) or the length."""
    if metric == "length":
        return out.group_by("game").agg(pl.col("length").first().cast(pl.Float64).alias("v")).sort("game")
    seat = int(metric.split("_s")[1])
    return out.filter(pl.col("seat") == seat).select("game", pl.col("win").cast(pl.Float64).alias("v")).sort("game")


#: normal draws x pairs of points the max-T null may take: a grid of many points draws fewer times
#: (at least :data:`MIN_DRAWS`) rather than for hours; grids up to ~140 points keep every draw
MAXT_WORK = 4_000_000_000
MIN_DRAWS = 20_000
#: numbers held at once per block of draws (about 32 MB a block array)
BLOCK = 4_000_000


def contrasts(values: np.ndarray, best: str = "max", alpha: float = 0.05, seed: int = 0,
              draws: int = 200_000, bounds: tuple[float, float] = UNBOUNDED) -> dict[str, np.ndarray]:
    """From a games x points matrix of per-game values (the same deals in every column): the best
    point, each point's difference from it with simultaneous max-T intervals over every pair of
    points, max-T adjusted p-values, and ``p_best``: the share of normal draws centred on the
    estimates in which each point comes out best (how settled the ranking is; a plug-in figure, not a
    calibrated probability that the point is the best).

    ``bounds``: where a deal's difference of two points lies ((-1, 1) for wins). The intervals are cut
    to them, and a point whose difference from the best is the same at every deal (no spread: a max-T
    interval would have zero width) gets the bounded interval of :func:`cardsim.stats.mean_ci` at
    ``alpha / (k - 1)`` and its Bonferroni p-value instead (none for a length, which has no bound).

    The draws are made and reduced block by block (memory stays flat however many points), the same
    numbers as in one go; a grid with more pairs than ``MAXT_WORK / draws`` takes fewer draws."""
    n, k = values.shape
    mean = values.mean(axis=0)
    sign = 1.0 if best == "max" else -1.0
    b = int(np.argmax(sign * mean))
    cov = np.cov(values, rowvar=False).reshape(k, k) / n
    i, j = np.triu_indices(k, 1)
    se_pair = np.sqrt(np.clip(np.diag(cov)[i] + np.diag(cov)[j] - 2 * cov[i, j], 0, None))
    # draws from the estimates' joint normal distribution: centred, they give the max-T null of every
    # pair's standardised difference; shifted by the estimates, how often each point comes out best
    rng = np.random.default_rng(seed)
    w, v = np.linalg.eigh((cov + cov.T) / 2)
    root = (v * np.sqrt(np.clip(w, 0, None))).T
    live = se_pair > 0
    il, jl, sl = i[live], j[live], se_pair[live]
    if il.size:
        draws = min(draws, max(MIN_DRAWS, MAXT_WORK // il.size))
    null = np.zeros(draws)
    wins = np.zeros(k, dtype=np.int64)
    step = max(1, BLOCK // max(k, il.size))
    for a in range(0, draws, step):
        z = rng.standard_normal((min(step, draws - a), k)) @ root
        if il.size:
            null[a:a + z.shape[0]] = np.abs((z[:, il] - z[:, jl]) / sl).max(axis=1)
        wins += np.bincount(np.argmax(sign * (mean + z), axis=1), minlength=k)
    # the normal draws give the max-T critical value of known standard errors; estimated from n deals
    # they are Student's, so the value is scaled by t(n - 1) / z as in cardsim.stats.simultaneous_means
    # (at 3 deals the normal 1.96-ish value held far less often than 95%) and each statistic by the same
    # to its p-value, which stays below alpha exactly when the interval leaves 0 out
    small = t_scale(n, alpha)
    if il.size:
        null = np.sort(null)
        crit = float(np.quantile(null, 1 - alpha)) * small
    else:
        null, crit = np.zeros(1), math.nan
    diff = mean - mean[b]
    se = np.sqrt(np.clip(np.diag(cov) + cov[b, b] - 2 * cov[:, b], 0, None))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, diff / se, 0.0)
        half = np.where(se > 0, crit * se, 0.0)  # no spread (se 0): the bounded interval below
    p_adj = np.where(np.arange(k) == b, 1.0, maxt_pvalues(t / small, null))
    lo, hi = np.clip(diff - half, *bounds), np.clip(diff + half, *bounds)
    flat = [j for j in range(k) if j != b and np.ptp(values[:, j] - values[:, b]) <= 1e-12]
    for j in flat:  # no spread (the same difference at every deal): the bounded interval, Bonferroni
        e = paired_difference(values[:, b], values[:, j], bounds=bounds,
                              z=t_quantile(1 - alpha / (2 * (k - 1)), 10_000))
        lo[j], hi[j] = e.lo, e.hi
        p_adj[j] = min(1.0, (k - 1) * e.p)
    # points that play the same games (a knob no decision reads) share their chance of being best evenly
    # (which of them a draw's argmax names is rounding)
    _, group = np.unique(values.T, axis=0, return_inverse=True)
    group = group.ravel()
    size = np.bincount(group)
    p_best = (np.bincount(group, weights=wins) / size)[group] / draws
    return {"best": np.array(b), "diff": diff, "lo": lo, "hi": hi, "se": se,
            "p_adj": p_adj, "p_best": p_best, "critical": np.array(crit), "draws": np.array(draws)}


def run(base: sc.Scenario, runner: Callable[[sc.Scenario], Any], games: int | None = None,
        heldout: bool = True) -> SweepResult:
    """Play every point (``runner(scenario) -> Result``); with shared deals, compare the points with
    the best one and (``heldout``) re-play the best point on fresh deals."""
    p = plan(base)
    n_games = base.games if games is None else games
    rows, per_game = [], []
    for point, s in zip(p.points, p.scenarios, strict=True):
        res = runner(s.with_options(games=n_games))
        out = res.outcomes().collect()
        seats = seat_table(out)
        row: dict[str, Any] = {k: _label(point.get(k, "")) if not isinstance(point.get(k), int | float)
                               else point.get(k) for k in p.keys}
        row["games"] = out["game"].n_unique()
        row["fair"] = float(seats["fair"][0]) if seats.height else float("nan")
        row["finished"] = int(seats["n"].max()) if seats.height else 0  # every seat's n: the finished games
        for r in seats.iter_rows(named=True):
            row[f"winrate_s{r['seat']}"] = r["rate"]
            row[f"lo_s{r['seat']}"] = r["lo"]
            row[f"hi_s{r['seat']}"] = r["hi"]
        length = out.group_by("game").agg(pl.col("length").first()).select(
            mean_exprs("length", "length_", count=length_is_count(s)))
        row |= {k: length[k][0] for k in ("length_mean", "length_se", "length_lo", "length_hi")}
        cut = out.group_by("game").agg(pl.col("win").null_count() > 0)["win"]
        row["unfinished"] = float(cut.mean())
        row["unfinished_lo"], row["unfinished_hi"] = wilson(float(cut.sum()), float(cut.len()))
        rows.append(row)
        per_game.append(point_values(out, p.metric))
    table = pl.DataFrame(rows)
    # where the points are not compared with the best (they play different games, or one point, or too few
    # deals finished at every point), the answer reads the metric seat against its fair share at each point
    own = fair_share_intervals(table, p.metric) if p.metric != "length" else table
    if not p.paired or len(p.points) < 2:
        return SweepResult(p, own)
    joined = per_game[0].rename({"v": "v0"})
    for i, f in enumerate(per_game[1:], 1):
        joined = joined.join(f.rename({"v": f"v{i}"}), on="game", how="inner")
    values = joined.drop("game").to_numpy().astype(np.float64)
    values = values[np.all(np.isfinite(values), axis=1)]
    if joined.height < 2:  # an interval needs two deals
        return SweepResult(p, own, note=(
            f"The points are not compared: {joined.height} deal{'s' if joined.height != 1 else ''} at every point, and "
            "a difference's interval needs at least 2; raise --games."))
    if values.shape[0] < 2:  # an unfinished game has no winner: nothing left to pair the points on
        from cardsim.games import get_game

        caps = [f"rules.{k.name}" for k in get_game(base.game).knobs if k.name in ("max_hands", "max_turns", "turn_cap")]
        return SweepResult(p, own, note=(
            f"The points are not compared: {values.shape[0]} of {joined.height:,} deals finished at every point (an "
            f"unfinished game has no winner; see the unfinished column). Raise the game's caps ({', '.join(caps)}) "
            "or read each point's own win rates."))
    c = contrasts(values, p.best, seed=base.seed, bounds=UNBOUNDED if p.metric == "length" else (-1.0, 1.0))
    b = int(c["best"])
    table = table.with_columns(
        pl.Series("vs_best", c["diff"]), pl.Series("vs_best_lo", c["lo"]), pl.Series("vs_best_hi", c["hi"]),
        pl.Series("p_adj", c["p_adj"]), pl.Series("p_best", c["p_best"]))
    held = None
    if heldout:
        fresh = p.scenarios[b].with_options(games=n_games, seed=heldout_seed(base.seed))
        v = point_values(runner(fresh).outcomes().collect(), p.metric)["v"].drop_nulls().to_numpy()
        if p.metric == "length":
            e = mean_ci(v, count=length_is_count(fresh))
            est, lo, hi = e.value, e.lo, e.hi
        else:
            lo, hi = wilson(float(v.sum()), v.size)
            est = float(v.mean()) if v.size else math.nan
        insample = values[:, b].mean()
        held = pl.DataFrame([{"point": _describe(p, b), "seed": fresh.seed, "games": int(v.size), p.metric: est,
                              "lo": lo, "hi": hi, "in_sweep": insample}])
    return SweepResult(p, table, held, b, float(c["critical"]))


def fair_share_intervals(table: pl.DataFrame, metric: str) -> pl.DataFrame:
    """Points that play different games (another player count or variant): the metric seat's win rate at
    every point with its Wilson interval at the Bonferroni level over the points that finished a game
    (``sim_lo_s<k>``, ``sim_hi_s<k>``: level 0.05 / points each, so all hold at once with chance at least
    95%), as ``cardsim run``'s answer reads its seats (:func:`cardsim.stats.wilson_at`): which points' seat
    is above or below its fair share is a claim about every point at once. The seat's games are
    independent (one row a game), so the size is the point's finished games (a shared win counts 1/k)."""
    seat = metric.split("_s")[1]
    n = table["finished"].to_list()
    rate = table[metric].to_list() if metric in table.columns else [None] * table.height
    live = [r is not None and math.isfinite(r) and m > 0 for r, m in zip(rate, n, strict=True)]
    z = bonferroni_z(sum(live))
    ends = [wilson(r * m, m, z) if ok else (None, None) for r, m, ok in zip(rate, n, live, strict=True)]
    table = table.with_columns(pl.Series(f"sim_lo_s{seat}", [e[0] for e in ends], pl.Float64),
                               pl.Series(f"sim_hi_s{seat}", [e[1] for e in ends], pl.Float64))
    cols = [c for c in table.columns if not c.startswith("sim_")]
    at = cols.index(f"hi_s{seat}") + 1 if f"hi_s{seat}" in cols else len(cols)
    return table.select(*cols[:at], f"sim_lo_s{seat}", f"sim_hi_s{seat}", *cols[at:])


def _describe(p: Plan, i: int) -> str:
    return ", ".join(f"{k}={_label(v)}" for k, v in p.points[i].items())


def metric_columns(res: SweepResult) -> tuple[str, str, str]:
    m = res.plan.metric
    if m == "length":
        return "length_mean", "length_lo", "length_hi"
    seat = m.split("_s")[1]
    return f"winrate_s{seat}", f"lo_s{seat}", f"hi_s{seat}"


def _fmt(res: SweepResult, x: float, signed: bool = False, digits: int = 1) -> str:
    if res.plan.metric == "length":
        return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"
    return f"{100 * x:+.{digits}f}" if signed else f"{100 * x:.{digits}f}%"


def metric_words(metric: str) -> str:
    """``winrate_s0`` -> ``seat 0's win rate``, ``length`` -> ``the game length``: the metric in words."""
    return "the game length" if metric == "length" else f"seat {metric.split('_s')[1]}'s win rate"


def headline(res: SweepResult) -> str:
    est, a, b = metric_columns(res)
    t = res.table
    from cardsim.studies.compare import LENGTH_UNITS, span_digits

    length = res.plan.metric == "length"
    unit = LENGTH_UNITS.get(res.plan.base.game, "turns") if length else "points"
    gap = ("longer" if res.plan.best == "min" else "shorter") if length else (
        "behind" if res.plan.best == "max" else "ahead")
    if not res.plan.paired or res.best_index is None:
        if length:
            parts = [f"{', '.join(f'{k}={r[k]}' for k in res.plan.keys)}: "
                     f"{_length_ci(r[est], r[a], r[b], r.get('games', 0))}"
                     for r in t.iter_rows(named=True)]
            return f"{metric_words(res.plan.metric).capitalize()} at each point: " + "; ".join(parts) + "."
        return _fair_share_answer(res)
    best = t.row(res.best_index, named=True)
    desc = _describe(res.plan, res.best_index)
    word = "highest" if res.plan.best == "max" else "lowest"
    # an interval that contains 0, or none (a length difference without spread), does not tell the points apart
    tied = [i for i, r in enumerate(t.iter_rows(named=True))
            if i != res.best_index and not (r["vs_best_lo"] > 0 or r["vs_best_hi"] < 0)]
    # "is highest" only where every other point is detectably behind; with points it cannot be told from, the
    # data's pick "reads" highest (the simultaneous intervals do not say which of them truly is)
    verb = "reads" if tied else "is"
    per = f" {unit}" if length else ""  # 46.1 turns, not 46.1
    parts = [f"{metric_words(res.plan.metric).capitalize()} {verb} {word} at {desc}: {_fmt(res, best[est])}{per} in the sweep "
             f"(the {'best' if word == 'highest' else 'least'} of {t.height} points, so it reads "
             f"{'high' if word == 'highest' else 'low'})"]
    if res.heldout is not None:
        h = res.heldout.row(0, named=True)
        d = span_digits(h["lo"], h["hi"], 1 if length else 100)  # more decimals where one prints the ends alike
        lo, hi = _fmt(res, h["lo"], digits=d), _fmt(res, h["hi"], digits=d)
        ends = (f"{lo} to unbounded" if length and h["hi"] == math.inf else  # a count's, from 2 or 3 deals
                f"{lo.rstrip('%')}-{hi}")
        parts[0] += f", {_fmt(res, h[res.plan.metric], digits=d)}{per} on {h['games']:,} fresh deals (95% CI {ends})"
    parts[0] += "; " + stability(best["p_best"])
    if tied:
        names = "; ".join(_describe(res.plan, i) for i in tied[:4]) + ("; ..." if len(tied) > 4 else "")
        parts.append(f"{len(tied)} other point{'s' if len(tied) > 1 else ''} cannot be told apart from it (simultaneous 95% intervals of the "
                     f"difference contain 0: {names})")
    worse = [r for i, r in enumerate(t.iter_rows(named=True)) if i != res.best_index and i not in tied]
    if worse:
        parts.append(_gaps(worse, length, unit, gap))
    return "; ".join(parts) + "."


def _length_ci(mean: float | None, lo: float | None, hi: float | None, games: int) -> str:
    """A point's mean length with its interval in words: ``12.5 (95% CI 12.3-12.7)``, ``7.5 (95% CI 0.0 to
    unbounded)`` (a count's interval from 2 or 3 games), or the reason it has none (1 game: the answer of
    a length sweep at 1 game raised a TypeError, formatting the missing ends)."""
    if mean is None or not math.isfinite(mean):
        return "no finished game"
    if lo is None or hi is None or not math.isfinite(lo) or math.isnan(hi):
        return f"{mean:.1f} (no interval: {N.many(games, 'game')}, and an interval needs at least 2)"
    if hi == math.inf:
        return f"{mean:.1f} (95% CI {lo:.1f} to unbounded)"
    return f"{mean:.1f} (95% CI {lo:.1f}-{hi:.1f})"


def _fair_share_answer(res: SweepResult) -> str:
    """Points that play different games: the metric seat at each point against its own fair share (the
    fair share changes with the player count), with the Bonferroni intervals over the points
    (:func:`fair_share_intervals`), and in words which points' seat is above or below its fair share
    beyond chance. Each end keeps its side of the fair share (:func:`cardsim.report.numbers.side_digits`)."""
    t = res.table
    seat = res.plan.metric.split("_s")[1]
    lo_c, hi_c = f"sim_lo_s{seat}", f"sim_hi_s{seat}"
    rows = list(t.iter_rows(named=True))

    def name(r: dict[str, Any]) -> str:
        return ", ".join(f"{k}={r[k]}" for k in res.plan.keys)

    def live(r: dict[str, Any]) -> bool:
        return r.get(res.plan.metric) is not None and math.isfinite(r[res.plan.metric]) and r.get(lo_c) is not None

    m = sum(live(r) for r in rows)
    parts = []
    for r in rows:
        if not live(r):
            parts.append(f"{name(r)}: no finished game")
            continue
        d = N.side_digits(r[lo_c], r[hi_c], r["fair"], N.share_digits([r[lo_c]], [r[hi_c]]))
        parts.append(f"{name(r)}: {N.pct(r[res.plan.metric], d)} ({100 * r[lo_c]:.{d}f}-{100 * r[hi_c]:.{d}f}%; "
                     f"fair {N.pct(r['fair'], d)})")
    who = f"seat {seat}"
    head = (f"{metric_words(res.plan.metric).capitalize()} against its fair share at each point, with 95% intervals "
            f"simultaneous over the {m} point{'s' if m != 1 else ''} (Bonferroni): " + "; ".join(parts) + ".")
    if m == 0:
        return head
    above = [r for r in rows if live(r) and r[lo_c] > r["fair"]]
    below = [r for r in rows if live(r) and r[hi_c] < r["fair"]]

    def listed(rs: list[dict[str, Any]]) -> str:
        return ", ".join(f"{name(r)} ({N.points(r[res.plan.metric] - r['fair'])})" for r in rs)

    if not above and not below:
        verdict = (f"At no point does {who} win more or less than its fair share beyond chance (every simultaneous "
                   "interval holds the fair share).")
    else:
        said = [f"{who.capitalize()} wins more than its fair share beyond chance "
                + (f"at {listed(above)}" if above else "at no point")]
        if below:
            said.append(f"less at {listed(below)}")
        rest = m - len(above) - len(below)
        verdict = "; ".join(said) + (
            "; at the other point the simultaneous interval holds the fair share." if rest == 1 else
            f"; at the other {rest} the simultaneous intervals hold the fair share." if rest else ".")
    return f"{head} {verdict}"


def stability(p_best: float) -> str:
    """``p_best`` in words, as a stability of the ranking, not a probability: the share of normal draws
    centred on the estimates (resamples of these estimates) in which the point comes out best. It is a
    plug-in figure: the estimates stand in for the truth, so it is not calibrated (as cardsim meta words
    its bootstrap shares)."""
    share = "more than 99%" if p_best > 0.99 else f"{100 * p_best:.0f}%"
    return (f"it comes out best in {share} of resamples of these estimates (a measure of how settled the "
            "ranking is, not a probability that it is the best)")


def _gaps(worse: list[dict[str, Any]], length: bool, unit: str, gap: str) -> str:
    """How far the points detectably worse than the best are behind (or ahead): the range of their
    differences, with the simultaneous (max-T) intervals of the table (each point's, up to three;
    beyond, from the smallest lower end to the largest upper end: every interval holds at once, so
    every gap lies in that range with 95% confidence). One decimal, or where one would print an
    interval's ends alike (a very large number of deals), the decimals its half-width justifies
    (:func:`cardsim.report.numbers.share_digits`), the same for every gap and interval quoted."""
    # each interval excludes 0 (else the point is tied), so its ends' sizes order the gap's interval
    spans = sorted((abs(r["vs_best"]), min(abs(r["vs_best_lo"]), abs(r["vs_best_hi"])),
                    max(abs(r["vs_best_lo"]), abs(r["vs_best_hi"]))) for r in worse)
    scale = 1.0 if length else 100.0
    digits = share_digits([scale * s[1] / 100 for s in spans], [scale * s[2] / 100 for s in spans])
    # a gap is detectable (its interval is off 0): no end may read 0 (0.0-4.0 for 0.04-4.00)
    digits = max([digits] + [N.side_digits(scale * s[1] / 100, scale * s[2] / 100, 0.0, digits) for s in spans])

    def num(x: float) -> str:
        return f"{scale * x:.{digits}f}"

    sim = "simultaneous 95% intervals of every pair of points at once"
    if len(spans) == 1:
        g, lo, hi = spans[0]
        return f"the other point is {num(g)} {unit} {gap} ({sim}: {num(lo)}-{num(hi)})"
    gaps = f"{num(spans[0][0])}-{num(spans[-1][0])} {unit} {gap}"
    if len(spans) <= 3:
        each = ", ".join(f"{num(lo)}-{num(hi)}" for _, lo, hi in spans)
        return f"the other {len(spans)} are {gaps} ({sim}: {each})"
    lo, hi = min(s[1] for s in spans), max(s[2] for s in spans)
    return f"the other {len(spans)} are {gaps} ({sim}: each between {num(lo)} and {num(hi)})"


def pointwise_note(res: SweepResult) -> str:
    """How the sweep's table handles multiplicity: its per-point intervals are pointwise (as ``cardsim
    run``'s seat table, :data:`cardsim.stats.POINTWISE`), and which intervals the answer reads."""
    if res.plan.paired and res.best_index is not None:
        read = ("the answer compares the points with vs_best_lo/hi, which hold for every pair of points at once "
                "(max-T)")
    elif res.plan.metric == "length":
        read = "the answer quotes each point's own (pointwise) interval and compares none of them"
    else:
        seat = res.plan.metric.split("_s")[1]
        m = int(res.table[f"sim_lo_s{seat}"].is_not_null().sum()) if f"sim_lo_s{seat}" in res.table.columns else 0
        read = (f"the answer's claims about which points' seat {seat} is above or below its fair share read "
                f"sim_lo_s{seat}/sim_hi_s{seat}, 95% intervals simultaneous over the {m} point{'s' if m != 1 else ''} "
                "(Bonferroni)")
    return (f"{POINTWISE} In the Sweep table that is every point's seat win rates (lo_s<k>, hi_s<k>), length and "
            f"unfinished intervals; {read}.")


def intervals(res: SweepResult) -> str:
    """The report's word on its intervals (:func:`pointwise_note`)."""
    return pointwise_note(res)


def output(res: SweepResult) -> Output:
    """What ``cardsim sweep`` prints."""
    tables = [("Sweep", res.table)]
    notes = [res.note] if res.note else []
    if res.heldout is not None:
        tables.append(("Best point on fresh deals", res.heldout))
    shares = {"Sweep": ("unfinished", "unfinished_lo", "unfinished_hi")}
    notes.append(pointwise_note(res))
    if res.plan.metric != "length":  # a win rate (named winrate_s<k>) and its differences
        shares = {"Sweep": ("vs_best", "vs_best_lo", "vs_best_hi", "unfinished", "unfinished_lo", "unfinished_hi"),
                  "Best point on fresh deals": (res.plan.metric, "lo", "hi", "in_sweep")}
    if res.plan.paired and res.best_index is not None:
        crit = (f"critical value {res.critical:.2f}" if math.isfinite(res.critical) else
                "no critical value: every pair of points differs by the same amount at every deal, so no difference "
                "has a spread to measure (each gets the interval of a difference without spread, none for a length)")
        notes.append(f"vs_best: each point minus the best, on the same deals; vs_best_lo/hi: simultaneous 95% "
                     f"intervals for every pair of points (max-T, {crit}); p_adj: max-T "
                     "adjusted p-value of the difference; p_best: the share of resamples of these estimates (draws "
                     "from their joint normal distribution) in which the point comes out best, a measure of how "
                     "settled the ranking is, not a probability that it is the best (points that play the same "
                     "games share it evenly).")
    if res.heldout is not None:
        notes.append(IN_SWEEP)
    return Output(headline(res), tables, notes=notes, shares=shares)


#: what the held-out table's in_sweep column is, and why it has no interval
IN_SWEEP = ("Best point on fresh deals: lo/hi are the 95% interval of the re-play; in_sweep is the same point's figure "
            "in the sweep, which picked it as the best, so it reads high (low for a minimum): given for comparison, "
            "with no interval (its own covered 80% with 16 equal points).")
