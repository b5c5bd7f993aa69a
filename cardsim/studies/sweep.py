"""Sweeps over rule knobs and policy parameters (issue 7).

``[sweep]`` holds either ``grid`` (a table of key -> list of values; every
combination is a point) or ``points`` (a list of tables key -> value), and
optionally ``metric`` (``winrate_s<k>``, default ``winrate_s0``, or
``length``). Keys address what they change: ``rules.<knob>``,
``seat<k>.<param>``, ``seats.<param>`` (every seat), ``seat<k>.policy``,
``policy``, ``players``, ``variant``. Every point is an ordinary scenario
with its own run directory, played on the same deals (same seed).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from cardsim import scenario as sc
from cardsim.errors import ScenarioError
from cardsim.output import Output
from cardsim.stats import mean_exprs, seat_table
from cardsim.studies import derive


@dataclass(frozen=True)
class Plan:
    base: sc.Scenario
    keys: list[str]
    points: list[dict[str, Any]]
    scenarios: list[sc.Scenario]
    metric: str


def _label(v: Any) -> str:
    return v if isinstance(v, str) else repr(v)


def plan(base: sc.Scenario) -> Plan:
    cfg = base.raw.get("sweep")
    if not cfg:
        raise ScenarioError(f"{base.name}: no [sweep] section (a grid or points)")
    for k in cfg:
        if k not in ("grid", "points", "metric"):
            raise ScenarioError(f"unknown key sweep.{k}; allowed: grid, points, metric")
    if ("grid" in cfg) == ("points" in cfg):
        raise ScenarioError("[sweep] needs exactly one of grid = {key = [values]} or points = [{key = value}, ...]")
    if "grid" in cfg:
        grid = cfg["grid"]
        if not isinstance(grid, Mapping) or not grid or not all(isinstance(v, list) and v for v in grid.values()):
            raise ScenarioError("sweep.grid must map each key to a non-empty list of values")
        keys = list(grid)
        points = [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*grid.values())]
    else:
        points = cfg["points"]
        if not isinstance(points, list) or not points or not all(isinstance(p, Mapping) for p in points):
            raise ScenarioError("sweep.points must be a non-empty list of tables")
        keys = list(dict.fromkeys(k for p in points for k in p))
        points = [dict(p) for p in points]
    metric = cfg.get("metric", "winrate_s0")
    if not (metric == "length" or re.fullmatch(r"winrate_s\d+", str(metric))):
        raise ScenarioError(f"sweep.metric = {metric!r}; allowed: winrate_s<seat> or length")
    scenarios = []
    for i, point in enumerate(points):
        raw = derive.base_raw(base)
        players = base.setup.players
        for key, value in point.items():
            derive.apply_key(raw, players, key, value, f"sweep point {i}")
            if key == "players":
                players = int(value)
        label = "-".join(f"{k.split('.')[-1]}={_label(v)}" for k, v in point.items())
        try:
            scenarios.append(derive.build(base, raw, f"{base.name}-{label}"))
        except ScenarioError as exc:
            raise ScenarioError(f"sweep point {i} ({label}): {exc}") from None
    return Plan(base, keys, points, scenarios, metric)


@dataclass
class SweepResult:
    plan: Plan
    table: pl.DataFrame  # one row per point


def run(base: sc.Scenario, runner: Callable[[sc.Scenario], Any], games: int | None = None) -> SweepResult:
    p = plan(base)
    rows = []
    for point, s in zip(p.points, p.scenarios, strict=True):
        res = runner(s.with_options(games=games or base.games))
        out = res.outcomes().collect()
        seats = seat_table(out)
        row: dict[str, Any] = {k: _label(point.get(k, "")) if not isinstance(point.get(k), int | float)
                               else point.get(k) for k in p.keys}
        row["games"] = out["game"].n_unique()
        row["fair"] = float(seats["fair"][0]) if seats.height else float("nan")
        for r in seats.iter_rows(named=True):
            row[f"winrate_s{r['seat']}"] = r["rate"]
            row[f"lo_s{r['seat']}"] = r["lo"]
            row[f"hi_s{r['seat']}"] = r["hi"]
        length = out.group_by("game").agg(pl.col("length").first()).select(mean_exprs("length", "length_"))
        row |= {k: length[k][0] for k in ("length_mean", "length_se")}
        row["unfinished"] = float(out.group_by("game").agg(pl.col("win").null_count() > 0)["win"].mean())
        rows.append(row)
    return SweepResult(p, pl.DataFrame(rows))


def metric_columns(res: SweepResult) -> tuple[str, str, str]:
    m = res.plan.metric
    if m == "length":
        return "length_mean", "length_se", "se"
    seat = m.split("_s")[1]
    return f"winrate_s{seat}", f"lo_s{seat}", f"hi_s{seat}"


def headline(res: SweepResult) -> str:
    est, a, b = metric_columns(res)
    t = res.table
    if b != "se" and "players" in res.plan.keys:
        # the fair share changes with the player count: compare each point with its own
        parts = [f"{r['players']} players {100 * r[est]:.1f}% (95% CI {100 * r[a]:.1f}-{100 * r[b]:.1f}%; "
                 f"fair {100 * r['fair']:.1f}%)" for r in t.iter_rows(named=True)]
        return f"{res.plan.metric} against the fair share at each player count: " + "; ".join(parts) + "."
    best = t.sort(est, descending=True).row(0, named=True)
    worst = t.sort(est).row(0, named=True)
    desc = ", ".join(f"{k}={best[k]}" for k in res.plan.keys)
    desc2 = ", ".join(f"{k}={worst[k]}" for k in res.plan.keys)
    if b == "se":
        return f"{res.plan.metric} is highest at {desc} ({best[est]:.3f} ± {1.96 * best[a]:.3f}) and lowest at {desc2} ({worst[est]:.3f})."
    return (f"{res.plan.metric} is highest at {desc}: {best[est]:.3f} (95% CI {best[a]:.3f}-{best[b]:.3f}), "
            f"and lowest at {desc2}: {worst[est]:.3f} (95% CI {worst[a]:.3f}-{worst[b]:.3f}).")


def output(res: SweepResult) -> Output:
    """What ``cardsim sweep`` prints."""
    return Output(headline(res), [("Sweep", res.table)])
