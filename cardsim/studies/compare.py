"""Paired comparisons on the same deals (issue 7), duplicate-bridge style.

Every arm (a set of seat policies, parameters or rule knobs) plays the
same games: the deals of game ``g`` depend only on the seed and ``g``
(:mod:`cardsim.rng`). With ``rotate``, each arm is played once per
rotation of its seat list, so the compared policy sits at every seat of
every deal; the per-game value of an arm is the mean of the *focus* seat's
result over the rotations. Differences are taken game by game, and their
interval comes from the per-game differences (the paired interval); the
unpaired interval on the same data is reported beside it, with the share
of variance that pairing removed.

``[compare]`` keys: ``arms`` (a list of tables with ``name`` and optional
``policies``, ``rules``), ``focus`` (seat, default 0), ``rotate`` (default
true), ``metric`` (``win`` or ``length``), ``decide`` (stop once the sign
of every difference is known, anytime-valid) and ``alpha`` (default 0.05).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from cardsim import scenario as sc
from cardsim.errors import ScenarioError, allowed_list, did_you_mean
from cardsim.output import Output
from cardsim.sequential import eb_sequence
from cardsim.stats import Z95
from cardsim.studies import derive

ARM_KEYS = ("name", "policies", "rules")


@dataclass(frozen=True)
class Plan:
    base: sc.Scenario
    arms: list[str]
    runs: dict[str, list[sc.Scenario]]  # arm -> one scenario per rotation
    focus: int
    metric: str
    decide: bool
    alpha: float


def plan(base: sc.Scenario) -> Plan:
    """Validate ``[compare]`` and derive one scenario per (arm, rotation)."""
    cfg = base.raw.get("compare")
    if not cfg:
        raise ScenarioError(f"{base.name}: no [compare] section (arms to compare)")
    arms = cfg.get("arms")
    if not isinstance(arms, list) or len(arms) < 2:
        raise ScenarioError("compare.arms must list at least two arms, e.g. [{name = \"a\"}, {name = \"b\", rules = {...}}]")
    players = base.setup.players
    focus = cfg.get("focus", 0)
    if isinstance(focus, bool) or not isinstance(focus, int) or not 0 <= focus < players:
        raise ScenarioError(f"compare.focus = {focus!r} must be a seat 0-{players - 1}")
    metric = cfg.get("metric", "win")
    if metric not in ("win", "length"):
        raise ScenarioError(f"compare.metric = {metric!r}; allowed: win, length")
    rotate = cfg.get("rotate", True)
    decide = cfg.get("decide", False)
    alpha = cfg.get("alpha", 0.05)
    for k, v in (("rotate", rotate), ("decide", decide)):
        if not isinstance(v, bool):
            raise ScenarioError(f"compare.{k} = {v!r} must be true or false")
    if isinstance(alpha, bool) or not isinstance(alpha, float | int) or not 0 < alpha < 0.5:
        raise ScenarioError(f"compare.alpha = {alpha!r} must be in (0, 0.5)")
    names: list[str] = []
    runs: dict[str, list[sc.Scenario]] = {}
    for i, arm in enumerate(arms):
        where = f"compare.arms[{i}]"
        if not isinstance(arm, Mapping) or not isinstance(arm.get("name"), str):
            raise ScenarioError(f"{where} must be a table with a string 'name'")
        for k in arm:
            if k not in ARM_KEYS:
                raise ScenarioError(f"{where}: unknown key {k!r}{did_you_mean(k, ARM_KEYS)}; allowed: {allowed_list(ARM_KEYS)}")
        name = arm["name"]
        if name in runs:
            raise ScenarioError(f"{where}: arm name {name!r} is used twice")
        raw = derive.base_raw(base)
        policies = arm.get("policies", derive.seat_list(raw, players))
        if not isinstance(policies, list) or len(policies) != players:
            raise ScenarioError(f"{where}.policies must list {players} seat policies")
        rules = arm.get("rules", {})
        if not isinstance(rules, Mapping):
            raise ScenarioError(f"{where}.rules must be a table of knobs")
        rotations = range(players) if rotate else range(1)
        runs[name] = []
        for r in rotations:
            rr = derive.base_raw(base)
            rr["rules"].update(rules)
            derive.set_policies(rr, derive.rotate(list(policies), r))
            runs[name].append(derive.build(base, rr, f"{base.name}-{name}-r{r}"))
        names.append(name)
    return Plan(base, names, runs, focus, metric, decide, float(alpha))


def _values(results: list[Any], focus: int, metric: str, players: int) -> np.ndarray:
    """Per-game value of an arm: the focus seat's result, averaged over rotations."""
    cols = []
    for r, res in enumerate(results):
        seat = (focus + r) % players
        out = res.outcomes().filter(pl.col("seat") == seat).sort("game").collect()
        col = "win" if metric == "win" else "length"
        cols.append(out[col].cast(pl.Float64).fill_null(np.nan).to_numpy())
    return np.nanmean(np.vstack(cols), axis=0) if metric == "win" else np.mean(np.vstack(cols), axis=0)


@dataclass
class CompareResult:
    plan: Plan
    games: int
    arms: pl.DataFrame    # per arm: n, mean, se, lo, hi
    diffs: pl.DataFrame   # per arm vs the first: diff, paired and unpaired intervals, variance saved
    stopped: str = ""


def summarize(p: Plan, values: dict[str, np.ndarray], sequential: bool = False) -> tuple[pl.DataFrame, pl.DataFrame]:
    rows, drows = [], []
    base_name = p.arms[0]
    ok = np.all(np.vstack([np.isfinite(v) for v in values.values()]), axis=0)
    for name in p.arms:
        v = values[name][ok]
        n = v.size
        se = v.std(ddof=1) / math.sqrt(n) if n > 1 else math.nan
        rows.append({"arm": name, "n": n, "mean": v.mean(), "se": se, "lo": v.mean() - Z95 * se,
                     "hi": v.mean() + Z95 * se})
    a = values[base_name][ok]
    for name in p.arms[1:]:
        b = values[name][ok]
        d = b - a
        n = d.size
        se_p = d.std(ddof=1) / math.sqrt(n)
        se_u = math.sqrt(a.var(ddof=1) / n + b.var(ddof=1) / n)
        row = {"arm": name, "vs": base_name, "n": n, "diff": d.mean(), "se_paired": se_p,
               "lo": d.mean() - Z95 * se_p, "hi": d.mean() + Z95 * se_p, "se_unpaired": se_u,
               "lo_unpaired": d.mean() - Z95 * se_u, "hi_unpaired": d.mean() + Z95 * se_u,
               "variance_saved": 1 - (se_p / se_u) ** 2 if se_u > 0 else math.nan}
        if sequential and p.metric == "win":
            cs = eb_sequence(d, alpha=p.alpha, lo=-1.0, hi=1.0)
            row |= {"cs_lo": cs.lo, "cs_hi": cs.hi}
        drows.append(row)
    return pl.DataFrame(rows), pl.DataFrame(drows)


def run(base: sc.Scenario, runner: Callable[[sc.Scenario], Any], games: int | None = None,
        batch: int | None = None) -> CompareResult:
    """Play every arm and rotation (``runner(scenario) -> Result``) and compare them.

    In decision mode the arms advance together ``batch`` games at a time, and the run
    stops as soon as the anytime-valid sequence of every difference excludes zero
    (or at ``games``): the chance of declaring a wrong sign is at most alpha / 2 per
    difference, however many looks are taken.
    """
    p = plan(base)
    total = games or base.games
    players = base.setup.players
    if not p.decide:
        results = {a: [runner(s.with_options(games=total)) for s in p.runs[a]] for a in p.arms}
        values = {a: _values(results[a], p.focus, p.metric, players) for a in p.arms}
        arms, diffs = summarize(p, values)
        return CompareResult(p, total, arms, diffs)
    if p.metric != "win":
        raise ScenarioError("compare.decide needs metric = \"win\" (a bounded value)")
    step = batch or base.chunk
    n = 0
    while True:
        n = min(total, n + step)
        results = {a: [runner(s.with_options(games=n)) for s in p.runs[a]] for a in p.arms}
        values = {a: _values(results[a], p.focus, p.metric, players) for a in p.arms}
        arms, diffs = summarize(p, values, sequential=True)
        decided = ((diffs["cs_lo"] > 0) | (diffs["cs_hi"] < 0)).all()
        if decided or n >= total:
            why = (f"decided after {n:,} games: every difference's {100 * (1 - p.alpha):.0f}% confidence "
                   f"sequence excludes 0" if decided else f"undecided at the cap of {total:,} games")
            return CompareResult(p, n, arms, diffs, why)


def headline(res: CompareResult) -> str:
    parts = []
    for row in res.diffs.iter_rows(named=True):
        parts.append(f"'{row['arm']}' minus '{row['vs']}' = {row['diff']:+.4f} (95% CI {row['lo']:+.4f} to "
                     f"{row['hi']:+.4f}; pairing removed {100 * row['variance_saved']:.0f}% of the variance)")
    return f"On the same {res.games:,} deals, " + "; ".join(parts) + "."


def output(res: CompareResult) -> Output:
    """What ``cardsim compare`` prints."""
    return Output(headline(res), [("Arms (focus seat's mean, 95% interval)", res.arms),
                                  ("Differences vs the first arm: paired and unpaired intervals", res.diffs)],
                  notes=[res.stopped] if res.stopped else [])
