"""Policy ratings: a round robin or gauntlet with seat rotation, ranked by Bradley-Terry.

``[ratings]``: ``policies`` (names or tables, as in ``[seats]``), ``mode``
(``round_robin`` or ``gauntlet``) and ``reference`` (the policy rated 0;
the gauntlet's opponent; default the first). For each pair (A, B) the
seats alternate A, B, A, B (in team games: team A against team B), played
in every rotation of the seats on the same deals. A game counts as a win
for the policy of the winning seat (a shared win counts half for each).
Strengths ``theta`` (log-odds scale, ``P(A beats B) = 1 / (1 + exp(theta_B
- theta_A))``) are fitted by maximum likelihood; intervals come from the
observed Fisher information with the reference fixed at 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from cardsim import scenario as sc
from cardsim.errors import ScenarioError
from cardsim.output import Output
from cardsim.stats import Z95, wilson
from cardsim.studies import derive


def _name(entry: Any) -> str:
    return entry if isinstance(entry, str) else entry.get("name", "?") + "(" + ",".join(
        f"{k}={v}" for k, v in entry.items() if k != "name") + ")"


@dataclass(frozen=True)
class Plan:
    base: sc.Scenario
    names: list[str]
    pairs: list[tuple[int, int]]
    scenarios: dict[tuple[int, int], list[sc.Scenario]]
    reference: int


def plan(base: sc.Scenario) -> Plan:
    cfg = base.raw.get("ratings")
    if not cfg:
        raise ScenarioError(f"{base.name}: no [ratings] section (policies to rate)")
    for k in cfg:
        if k not in ("policies", "mode", "reference"):
            raise ScenarioError(f"unknown key ratings.{k}; allowed: policies, mode, reference")
    pols = cfg.get("policies")
    if not isinstance(pols, list) or len(pols) < 2:
        raise ScenarioError("ratings.policies must list at least two policies")
    names = [_name(p) for p in pols]
    if len(set(names)) != len(names):
        raise ScenarioError("ratings.policies lists a policy twice")
    mode = cfg.get("mode", "round_robin")
    if mode not in ("round_robin", "gauntlet"):
        raise ScenarioError(f"ratings.mode = {mode!r}; allowed: round_robin, gauntlet")
    ref_name = cfg.get("reference", names[0])
    if ref_name not in names:
        raise ScenarioError(f"ratings.reference = {ref_name!r} is not in ratings.policies ({', '.join(names)})")
    ref = names.index(ref_name)
    n = len(pols)
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)] if mode == "round_robin" else \
        [(ref, b) for b in range(n) if b != ref]
    players = base.setup.players
    scen = {}
    for a, b in pairs:
        seats = [pols[a] if i % 2 == 0 else pols[b] for i in range(players)]
        scen[(a, b)] = []
        for r in range(players):
            raw = derive.base_raw(base)
            derive.set_policies(raw, derive.rotate(seats, r))
            scen[(a, b)].append(derive.build(base, raw, f"{base.name}-{names[a]}-vs-{names[b]}-r{r}"))
    return Plan(base, names, pairs, scen, ref)


def fit(names: list[str], wins: np.ndarray, ref: int = 0, iters: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    """Bradley-Terry maximum likelihood (MM algorithm, Hunter 2004) for ``wins[i, j]`` = wins of i over j.

    Returns (theta, se) with ``theta[ref] = 0``; se from the observed information."""
    n = len(names)
    games = wins + wins.T
    p = np.ones(n)
    w = wins.sum(axis=1)
    for _ in range(iters):
        denom = np.array([sum(games[i, j] / (p[i] + p[j]) for j in range(n) if j != i and games[i, j] > 0)
                          for i in range(n)])
        new = np.where(denom > 0, np.maximum(w, 1e-9) / np.where(denom > 0, denom, 1), p)
        new /= new[ref]
        if np.max(np.abs(np.log(new) - np.log(p))) < 1e-12:
            p = new
            break
        p = new
    theta = np.log(p)
    info = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j and games[i, j] > 0:
                q = p[i] * p[j] / (p[i] + p[j]) ** 2 * games[i, j]
                info[i, i] += q
                info[i, j] -= q
    keep = [i for i in range(n) if i != ref]
    se = np.zeros(n)
    try:
        cov = np.linalg.inv(info[np.ix_(keep, keep)])
        se[keep] = np.sqrt(np.maximum(np.diag(cov), 0))
    except np.linalg.LinAlgError:
        se[keep] = math.inf
    return theta, se


@dataclass
class RatingResult:
    plan: Plan
    ratings: pl.DataFrame
    pairs: pl.DataFrame


def run(base: sc.Scenario, runner: Callable[[sc.Scenario], Any], games: int | None = None) -> RatingResult:
    p = plan(base)
    n = len(p.names)
    wins = np.zeros((n, n))
    rows = []
    players = base.setup.players
    for a, b in p.pairs:
        wa = wb = total = 0.0
        for r, s in enumerate(p.scenarios[(a, b)]):
            out = runner(s.with_options(games=games or base.games)).outcomes().drop_nulls("win").collect()
            # after rotation r, seat (i + r) % players holds the policy of list index i
            a_seats = [(i + r) % players for i in range(players) if i % 2 == 0]
            per = out.with_columns(is_a=pl.col("seat").is_in(a_seats)).group_by("game").agg(
                (pl.col("win") * pl.col("is_a")).max().alias("a"), (pl.col("win") * ~pl.col("is_a")).max().alias("b"))
            share_a = per["a"] / (per["a"] + per["b"]).clip(1e-12, None)
            wa += float(share_a.sum())
            wb += float((1 - share_a).sum())
            total += per.height
        wins[a, b] += wa
        wins[b, a] += wb
        lo, hi = wilson(wa, total)
        rows.append({"a": p.names[a], "b": p.names[b], "games": int(total), "a_win_rate": wa / total, "lo": lo, "hi": hi})
    theta, se = fit(p.names, wins, p.reference)
    ratings = pl.DataFrame({"policy": p.names, "theta": theta, "se": se, "lo": theta - Z95 * se, "hi": theta + Z95 * se,
                            "games": (wins + wins.T).sum(axis=1)}).sort("theta", descending=True)
    return RatingResult(p, ratings, pl.DataFrame(rows))


def headline(res: RatingResult) -> str:
    top = res.ratings.row(0, named=True)
    return (f"{top['policy']} rates highest: theta = {top['theta']:+.3f} (95% CI {top['lo']:+.3f} to {top['hi']:+.3f}) "
            f"relative to {res.plan.names[res.plan.reference]}.")


def output(res: RatingResult) -> Output:
    """What ``cardsim rate`` prints."""
    return Output(headline(res), [("Ratings", res.ratings), ("Pairs", res.pairs)])
