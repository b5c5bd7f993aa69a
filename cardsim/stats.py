"""Intervals and summaries with honest uncertainty (STYLE habit 10).

Rates get Wilson score intervals (never the Wald interval, whose coverage
is erratic at small n and extreme p); means get a standard error and a
Student's t 95% interval (the normal from 10,000 units), and bounded means
(a win, a difference of wins) Clopper-Pearson at the effective number of
results; no interval is zero width where the units show no spread
(:func:`mean_ci`). Polars helpers add these columns to grouped frames.

Games are independent, but rows of one game are not: the hands of a game,
the reveals of a game, the seats of a game. Every per-hand or per-event
rate is therefore **clustered by game** by default (:func:`rate_table`,
:func:`mean_table`): its variance is the bias-reduced cluster-robust (CR2)
variance of a ratio estimator (:func:`cr2`), its design effect ``deff``
(that variance over the binomial one) and its clusters are printed, and the
Wilson interval is taken at the effective sample size ``n / max(1, deff)``
times Korn and Graubard's degrees-of-freedom adjustment (Korn and Graubard
1998; :func:`kg_factor`); a mean takes Student's t at Bell and McCaffrey's
degrees of freedom. A table with one row per game has ``deff`` about 1. Clusters are the games
themselves for runs of up to 65,536 games, and blocks of consecutive games
beyond (at most 65,536 blocks, :func:`cluster_block`): blocks of independent
games are independent clusters too, so the estimator stays valid while its
memory stays bounded.

:func:`paired_difference` is the paired interval every study uses: the mean
of per-game differences, its standard error clustered by game when one game
yields several values. :func:`maxt_critical` and :func:`holm` handle
multiplicity (simultaneous intervals, adjusted p-values).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
import polars as pl

Z95 = 1.959963984540054
#: at most this many clusters per group: beyond it, runs of consecutive games share a cluster
#: (:func:`cluster_block`)
CLUSTERS = 1 << 16

#: the first sentence of :data:`ROWWISE`: a table's intervals are each for their own row (a sweep's table says it too)
POINTWISE = ("Each interval is a 95% interval for its own row (pointwise): in a table of many rows about one in "
             "twenty misses its truth by chance, so a table's highest and lowest rows are not findings on their own.")
#: how a run's summary (its tables of many rows: by seat, by card, by position) handles multiplicity,
#: said under every summary and report of a run
ROWWISE = (POINTWISE + " The answer's claims about which seats or cards differ, and the highest and lowest rows "
           "it quotes, read 95% intervals simultaneous over the rows (Bonferroni). The balance metric allows for "
           "picking the best and worst seat (max-T over every pair of seats); the studies cardsim compare, sweep "
           "and cards compare rows with the multiplicity adjusted.")


#: up to this many successes (failures) the near end of a Wilson interval is at most Clopper-Pearson's
WILSON_EXACT_NEAR = 3


def _cp_near(k: np.ndarray | float, n: np.ndarray | float, a: float) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson's lower end at ``k`` of ``n`` and upper end at ``n - k`` failures' mirror (the beta
    quantiles, defined for an effective, not whole, ``k`` and ``n`` too); NaN where ``k`` is 0 (``n``)."""
    from scipy.stats import beta

    k, n = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        lo = np.where((k > 0) & (k < n), beta.ppf(a / 2, np.maximum(k, 1e-300), np.maximum(n - k + 1, 1e-300)), np.nan)
        hi = np.where((k > 0) & (k < n), beta.ppf(1 - a / 2, np.maximum(k + 1, 1e-300), np.maximum(n - k, 1e-300)),
                      np.nan)
    return lo, hi


def wilson(k: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for ``k`` successes in ``n`` trials (``(nan, nan)`` when n == 0), with
    exact ends at the edges: at k = 0 the upper end is Clopper-Pearson's, ``1 - (alpha/2)^(1/n)``
    (at k = n the lower end, ``(alpha/2)^(1/n)``). Wilson's own end there, ``z^2 / (n + z^2)``,
    holds the truth in as few as 79% of samples at n = 1, 88% at 2 and 94% at 5 (a true rate just
    above it gives k = 0 that often); Clopper-Pearson's never in fewer than 97.5% on that side. The
    two meet at n = 46 (about 3.69 / n against 3.84 / (n + 3.84)): on larger samples the exact end is
    the tighter one. ``n`` may be an effective size (not whole): at a rate of 0 or 1 a clustered rate's is
    its clusters (:func:`_neff`), whose trials then behave as a binomial's.

    From 1 to :data:`WILSON_EXACT_NEAR` successes (failures) the near end is no higher (lower) than
    Clopper-Pearson's (Brown, Cai and DasGupta's modified Wilson interval): Wilson's own lower end at 1
    of n, about 0.18 / n, is above a true rate of 0.17 / n, which gives 1 of n in 14.5% of samples
    (and 0 of n, covered, in 84%): Wilson held it in 84.4% at any n; at 2 of n (truth 0.54 / n) 90%,
    at 3 (1.0 / n) 92%. With the exact near end up to 3 the worst case is Wilson's usual ripple,
    92-93% (rows "Wilson rate, a few events")."""
    if n <= 0:
        return (math.nan, math.nan)
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n)) / den
    edge = (_alpha(z) / 2) ** (1 / n)  # Clopper-Pearson's end at 0 of n is 1 - this, at n of n this
    # at k = 0 (k = n) the bound is exactly 0 (1); rounding left 1e-19 there
    lo, hi = (0.0 if k <= 0 else edge if k >= n else max(0.0, mid - half),
              1.0 if k >= n else 1 - edge if k <= 0 else min(1.0, mid + half))
    if 0 < k < n and (k <= WILSON_EXACT_NEAR or n - k <= WILSON_EXACT_NEAR):
        cp_lo, cp_hi = _cp_near(k, n, _alpha(z))
        if k <= WILSON_EXACT_NEAR:
            lo = min(lo, float(cp_lo))
        if n - k <= WILSON_EXACT_NEAR:
            hi = max(hi, float(cp_hi))
    return lo, hi


def wilson_exprs(k: pl.Expr, n: pl.Expr, prefix: str = "", z: float = Z95) -> list[pl.Expr]:
    """Polars expressions for the rate ``k/n`` and its Wilson interval (columns ``rate``, ``lo``, ``hi``),
    with :func:`wilson`'s exact ends at k = 0 and k = n, and its Clopper-Pearson near ends up to
    :data:`WILSON_EXACT_NEAR` successes (failures).
    Both are taken as floats: a count from ``pl.len()`` is an unsigned 32-bit integer, in which
    ``4 * n * n`` wraps from n = 32,768 on (at n = 65,536 it wrapped to 0 and the interval was [0, 1])."""
    k, n = k.cast(pl.Float64), n.cast(pl.Float64)
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * ((p * (1 - p)).clip(0.0, None) / n + z * z / (4 * n * n)).sqrt() / den
    edge = pl.lit(_alpha(z) / 2) ** (1 / n)
    a = _alpha(z)
    kn = pl.struct(k.alias("k"), n.alias("n"))

    def near(side: int) -> Callable[[pl.Series], pl.Series]:
        def f(s: pl.Series) -> pl.Series:
            kk, nn = s.struct.field("k").to_numpy(), s.struct.field("n").to_numpy()
            return pl.Series(_cp_near(kk, nn, a)[side], dtype=pl.Float64)
        return f

    cp_lo = kn.map_batches(near(0), return_dtype=pl.Float64, is_elementwise=True)
    cp_hi = kn.map_batches(near(1), return_dtype=pl.Float64, is_elementwise=True)
    w_lo, w_hi = (mid - half).clip(0.0, 1.0), (mid + half).clip(0.0, 1.0)
    # no trials: no rate and no interval, as wilson's (polars orders NaN above every number, so k = 0/0
    # passed k >= n and a card no seat went without read "n/a (n/a to 100.0%)")
    some = (n > 0) & n.is_not_nan()
    return [
        pl.when(some).then(p).alias(f"{prefix}rate"),
        pl.when(~some).then(None).when(k <= 0).then(0.0).when(k >= n).then(edge)
        .when(k <= WILSON_EXACT_NEAR).then(pl.min_horizontal(w_lo, cp_lo))
        .otherwise(w_lo).alias(f"{prefix}lo"),
        pl.when(~some).then(None).when(k >= n).then(1.0).when(k <= 0).then(1 - edge)
        .when(n - k <= WILSON_EXACT_NEAR).then(pl.max_horizontal(w_hi, cp_hi))
        .otherwise(w_hi).alias(f"{prefix}hi"),
    ]


@dataclass(frozen=True)
class Estimate:
    """A mean (or difference of means) with its standard error and 95% interval.

    ``n`` counts observations, ``clusters`` the independent units (games) they came in,
    ``deff`` is the design effect (clustered variance over the variance as if every
    observation were independent; 1 when each game gives one observation)."""

    value: float
    se: float
    lo: float
    hi: float
    n: int
    clusters: int
    deff: float = 1.0
    p: float = math.nan  # two-sided p-value of a mean of 0, the test the interval inverts (mean_ci)
    df: float = math.nan  # the degrees of freedom of its t interval, where it has one (mean_ci)

    def as_dict(self, prefix: str = "") -> dict[str, float]:
        return {f"{prefix}{k}": getattr(self, k) for k in ("value", "se", "lo", "hi", "n", "clusters", "deff")}


def _cluster_sums(x: np.ndarray, clusters: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Per-cluster sums of ``x`` and counts (each observation its own cluster when ``clusters`` is None)."""
    if clusters is None:
        return x, np.ones_like(x)
    _, inv = np.unique(np.asarray(clusters), return_inverse=True)
    return np.bincount(inv, weights=x), np.bincount(inv).astype(np.float64)


def cr2(s: np.ndarray, c: np.ndarray) -> tuple[float, float]:
    """The bias-reduced cluster-robust variance (CR2) of the mean ``sum(s) / sum(c)`` from per-cluster sums
    ``s`` of ``c`` values each, and its Bell-McCaffrey degrees of freedom (Bell and McCaffrey 2002; the
    small-sample interval Imbens and Kolesar 2016 recommend, as R's ``clubSandwich``). Cluster g's residual
    sum ``s_g - mean * c_g`` is scaled by ``1 / sqrt(1 - c_g / n)``, its leverage removed; the degrees of
    freedom are Satterthwaite's for that variance with independent values: ``n^2 / ||M||^2``, ``M`` the
    clusters' matrix ``D - u u' / n`` with ``D_gg = d_g = c_g / (1 - c_g / n)`` and ``u_g^2 = c_g d_g``.
    Clusters of one size give the usual ``C / (C - 1)`` variance and ``C - 1`` degrees of freedom; clusters
    of unequal sizes fewer, and a larger variance where one cluster holds much of the sample (Student's t
    on ``C - 1`` with the usual variance covered 91.6-93.5% of a mean of hands over 3-10 games of 3-15
    hands; coverage case "clustered rate, a few games")."""
    n = float(c.sum())
    m = float(s.sum()) / n
    lev = 1.0 - c / n
    var = float(((s - m * c) ** 2 / lev).sum()) / (n * n)
    d = c / lev
    fro = float((d * d).sum() - 2.0 / n * (c * d * d).sum() + ((c * d).sum() / n) ** 2)
    return var, n * n / fro


def kg_factor(size: float | np.ndarray, clusters: float | np.ndarray, alpha: float = 0.05) -> float | np.ndarray:
    """Korn and Graubard's degrees-of-freedom adjustment of an effective sample size, ``(t_b / t_d)^2``:
    Student's t quantiles at ``alpha / 2`` with ``b = size - 1`` (the binomial's degrees of freedom) and
    ``d = clusters - 1`` (the design's, on which the estimated design effect rests); as R's
    ``survey::svyciprop(method = "beta")``. At most 1, and 1 below 2 clusters. A Wilson interval at the
    effective size ``n / deff`` alone takes the estimated design effect as known: a rate of hands over 3-5
    games covered 90.2% (coverage case "clustered rate, a few games")."""
    from scipy.special import stdtrit

    q = min(alpha, 0.999) / 2  # at a level near 0 both quantiles round to 0
    size, clusters = np.asarray(size, dtype=np.float64), np.asarray(clusters, dtype=np.float64)
    ok = (clusters >= 2) & (size > clusters - 1e-9)
    with np.errstate(invalid="ignore", divide="ignore"):
        f = (stdtrit(np.maximum(size, 2.0) - 1, q) / stdtrit(np.maximum(clusters, 2.0) - 1, q)) ** 2
    out = np.where(ok, np.minimum(f, 1.0), 1.0)
    return float(out) if out.ndim == 0 else out


@lru_cache(maxsize=256)
def t95(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (1.96 for large df)."""
    from scipy.stats import t

    return float(t.ppf(0.975, df)) if df < 10_000 else Z95


#: the bounds of a value that may be any number (:func:`mean_ci`'s default)
UNBOUNDED = (-math.inf, math.inf)

#: the least p-value cardsim gives (the smallest positive normal double, 2.2e-308): a p-value too small
#: to compute (a tail that underflows, or below the 1e-15 the bounded intervals' test resolves) reads as
#: this, never as 0, which would claim certainty (the tables print "< 0.001")
P_FLOOR = 2.2250738585072014e-308


def floor_p(p: float) -> float:
    """``p`` raised to :data:`P_FLOOR` (NaN stays NaN): a p-value is never exactly 0."""
    return max(p, P_FLOOR) if not math.isnan(p) else p


def within(v: float, bounds: tuple[float, float]) -> float:
    """``v`` cut to ``bounds`` (NaN stays NaN)."""
    return v if math.isnan(v) else min(bounds[1], max(bounds[0], v))


def _alpha(z: float) -> float:
    """The two-sided level of a normal quantile (0.05 at Z95)."""
    return math.erfc(z / math.sqrt(2))


def mean_ci(x: np.ndarray, clusters: np.ndarray | None = None, z: float | None = None,
            bounds: tuple[float, float] = UNBOUNDED, count: bool = False) -> Estimate:
    """Mean of ``x`` with its standard error, 95% interval and the p-value of a mean of 0 (the test the
    interval inverts), clustered by ``clusters`` (e.g. the game of each observation) when given: the
    bias-reduced cluster-robust variance of a ratio of sums (CR2, :func:`cr2`; with clusters of one size
    ``C / (C - 1) * sum_c (s_c - mean * n_c)^2 / n^2``) and Student's t at Bell and McCaffrey's degrees
    of freedom (C - 1 with clusters of one size, fewer when they differ; the normal quantile once they
    are many; ``df`` of the estimate); with one value a
    unit, t corrected for the sample's skewness (:func:`hall_inverse`: a game's length has a long
    tail, and the plain t interval covered 89.5% at 10 geometric lengths). ``z``: another level, as a
    normal quantile.

    ``bounds``: where the values lie. A bounded mean near a bound is skewed, and a t interval misses it
    (a difference of wins that is +1 in 95% of 100 deals: t covered 90.5%; 3 deals of +1: zero width);
    so a bounded mean gets Korn and Graubard's interval (:func:`share_ci`, untruncated) instead:

    - a mean in [a, b] (a win, a share): Clopper-Pearson at the effective number of results on the
      values rescaled to [0, 1];
    - a difference, its bounds either side of 0 (two wins: -1 to +1): the difference of its positive
      and negative parts, each in [0, 1] with its Korn-Graubard interval, combined by the method of
      variance estimates recovery (Newcombe's square-and-add for paired rates, with the parts'
      clustered correlation; where a part has no spread, that of results never both positive): rare
      differences of either sign keep their skew (0 or +1 with +1 in 3% of 100 deals: 85% covered
      rescaled as one share, 100% so). Where one sign never occurs, its part's interval still allows
      for it, which makes the interval wider than a t interval (1.4x on 250 deals of rotations that
      only ever gain; coverage 98% against t's 94%).

    Neither has zero width (a part without spread takes the clusters as its effective size, a share
    whose every cluster gave the same value :func:`_alike_interval`) or reaches past the bounds. An
    unbounded mean without spread has no interval (NaN).

    ``count``: the values are counts, or means of counts (a game's turns or hands, lead changes): as
    :func:`mean_exprs` with ``count``, the interval is cut at 0 and widened to at least Garwood's
    Poisson interval at the effective count ``m^2 / se^2``, and a sample without spread gets Garwood's
    interval at its total instead of none (:func:`_count_floor`): 10 games that all lasted 2 turns read
    1.2-3.1, not none (coverage rows "mean of a count a unit": 94.0-97.4% at 10 games, 94.8-96.2% from
    30)."""
    lo_b, hi_b = bounds
    x = np.asarray(x, dtype=np.float64)
    if count:
        e = mean_ci(x, clusters, z, (0.0, math.inf))
        df = e.df if math.isfinite(e.df) else e.clusters - 1  # t's, at which the interval was taken
        return _count_floor(e, t_quantile(0.975, df) if z is None and e.clusters >= 2 else z or Z95, z or Z95)
    if math.isfinite(lo_b) and math.isfinite(hi_b):
        if lo_b < 0 < hi_b:
            return _mover_mean(x, clusters, bounds, _alpha(Z95 if z is None else z))
        cl = np.arange(x.size) if clusters is None else np.asarray(clusters)
        width = hi_b - lo_b
        e, w, neff = _share((x - lo_b) / width, cl, Z95 if z is None else z, truncate=False)
        if e.clusters < 2:
            return Estimate(lo_b + width * e.value, math.nan, math.nan, math.nan, e.n, e.clusters)
        if e.se == 0:  # every cluster gave the same value
            v = lo_b + width * e.value
            lo, hi = _alike_interval(v, e.clusters, bounds, _alpha(Z95 if z is None else z))
            return Estimate(v, 0.0, lo, hi, e.n, e.clusters, 1.0, _alike_p(v, e.clusters, bounds))
        return Estimate(lo_b + width * e.value, width * e.se, lo_b + width * e.lo, lo_b + width * e.hi, e.n,
                        e.clusters, e.deff, _cp_p(-lo_b / width, w, neff))
    keep = np.isfinite(x)
    x = x[keep]
    cl = None if clusters is None else np.asarray(clusters)[keep]
    n = x.size
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, math.nan, 0, 0)
    m = float(x.mean())
    s, c = _cluster_sums(x, cl)
    k = s.size
    if k < 2:
        return Estimate(m, math.nan, math.nan, math.nan, n, k)
    if np.allclose(s / c, m, rtol=1e-12, atol=1e-12):  # no spread to measure: every cluster gave m
        return Estimate(m, 0.0, math.nan, math.nan, n, k, 1.0)
    var_iid = float(x.var(ddof=1)) / n if n > 1 else math.nan
    if k < n:  # clusters of several values: CR2 and t at Bell and McCaffrey's degrees of freedom
        var, df = cr2(s, c)
        se = math.sqrt(var)
        q = t_quantile(0.975, df) if z is None else z  # a half-bounded value (a length, at least 0) is cut to its bound
        return Estimate(m, se, within(m - q * se, bounds), within(m + q * se, bounds), n, k,
                        var / var_iid if var_iid > 0 else 1.0, t_p(m, se, df), df)
    var = k / (k - 1) * float(((s - m * c) ** 2).sum()) / (n * n)
    deff = var / var_iid if var_iid > 0 else 1.0
    se = math.sqrt(var)
    q = t95(k - 1) if z is None else z
    # one value a unit (a game's length, a deal's difference): t corrected for the sample's skewness
    b = float(((x - m) ** 3).mean() / x.var() ** 1.5) / math.sqrt(n) if x.var() > 0 else 0.0
    lo, hi = m - se * hall_inverse(q, b), m - se * hall_inverse(-q, b)
    g0 = hall_forward(m / se, b)  # the test of a mean of 0 that the interval inverts
    return Estimate(m, se, within(lo, bounds), within(hi, bounds), n, k, deff, t_p(g0, 1.0, k - 1))


def _count_floor(e: Estimate, q: float, q_flat: float) -> Estimate:
    """:func:`mean_ci`'s estimate ``e`` of a mean count, its interval widened to at least Garwood's at the
    effective count ``m^2 / se^2`` seen in ``m / se^2`` units (the count whose Poisson variance is the
    estimated one: a mean of few events is skewed, and the symmetric interval misses its long upper
    side) at the level of the t quantile ``q``, or, where every unit gave the same count, Garwood's at
    the total over the units at ``q_flat``'s (95%): never zero width and never none (0 of 10 games: 0 to
    0.37). The same rule as :func:`_count_interval`."""
    if e.clusters < 2 or not math.isfinite(e.value):
        return e
    if not e.se > 0:  # no spread: the total count over the units
        k, units, q = e.value * e.n, float(e.n), q_flat
    else:
        k = e.value * e.value / (e.se * e.se)
        units = k / e.value
    glo, ghi = (float(v) / units for v in _garwood(np.array(k), q))
    if not e.se > 0:
        return replace(e, se=0.0, lo=float(glo), hi=float(ghi))
    return replace(e, lo=float(min(max(e.lo, 0.0), glo)), hi=float(max(e.hi, ghi)))


def hall_forward(s: float, b: float) -> float:
    """Hall's (1992) cubic transformation of a studentised mean ``s``, ``b`` the sample's skewness over
    sqrt(n): ``s + b s^2 / 3 + b^2 s^3 / 27 + b / 6``, monotone, distributed as Student's t to a
    higher order than ``s`` itself when the values are skewed."""
    return s + b * s * s / 3 + b * b * s ** 3 / 27 + b / 6


def hall_inverse(q: float, b: float) -> float:
    """The inverse of :func:`hall_forward`: the studentised mean's quantile behind the t quantile ``q``."""
    return 3 / b * (np.cbrt(1 + b * (q - b / 6)) - 1) if abs(b) > 1e-12 else q


def _alike_interval(value: float, units: int, bounds: tuple[float, float], alpha: float) -> tuple[float, float]:
    """The interval of a bounded mean when every one of ``units`` independent units gave the same
    ``value`` (Clopper-Pearson at the units would treat each as a 0/1 result: 25% on each of 10,000 deals
    read 24.15-25.86%). If a share ``q`` of units takes other values (anywhere in ``bounds``), the mean is
    within ``q`` times the distance to a bound; all ``units`` alike has chance at most ``(1 - q)^(units -
    1)`` summed over the values it could show, so ``q`` up to ``1 - alpha^(1 / (units - 1))`` misses
    with chance at most ``alpha`` (24.99-25.02% there)."""
    lo_b, hi_b = bounds
    q = 1 - alpha ** (1 / (units - 1))
    return (max(lo_b, value - q * (value - lo_b)), min(hi_b, value + q * (hi_b - value)))


def _alike_p(value: float, units: int, bounds: tuple[float, float]) -> float:
    """The p-value of a mean of 0 that :func:`_alike_interval` inverts (1 where 0 is outside the bounds
    or is the value)."""
    lo_b, hi_b = bounds
    if value == 0 or not lo_b <= 0 <= hi_b:
        return 1.0 if value == 0 else P_FLOOR
    q = value / (value - lo_b) if value > 0 else value / (value - hi_b)  # the share that would bring it to 0
    return floor_p(float(min(1.0, (1 - q) ** (units - 1)))) if q < 1 else P_FLOOR


def _mover_mean(x: np.ndarray, clusters: np.ndarray | None, bounds: tuple[float, float], alpha: float) -> Estimate:
    """:func:`mean_ci` of a difference bounded by ``bounds`` (lo < 0 < hi): positive part ``max(x, 0) /
    hi`` and negative part ``max(-x, 0) / -lo``, each in [0, 1] with Korn-Graubard's effective size,
    their intervals combined by MOVER (Zou and Donner 2008) at level ``alpha``, and the p-value of 0
    as the level at which the interval's end reaches 0 (:func:`_level_at_zero`)."""
    lo_b, hi_b = bounds
    keep = np.isfinite(x)
    x = x[keep]
    cl = None if clusters is None else np.asarray(clusters)[keep]
    e = mean_ci(x, cl)  # the plain clustered mean and standard error (reported as se)
    if e.clusters < 2:
        return e
    scale = (hi_b, -lo_b)
    parts = [np.maximum(x, 0.0) / hi_b, np.maximum(-x, 0.0) / -lo_b]
    ms, ests, res = [], [], []
    for part in parts:
        pe = mean_ci(part, cl)
        ms.append(pe.value)
        ests.append(pe)
        s, c = _cluster_sums(part, cl)
        res.append(s - pe.value * c)
    den = math.sqrt(float((res[0] ** 2).sum() * (res[1] ** 2).sum()))
    d = scale[0] * ms[0] - scale[1] * ms[1]

    def corr(mp: float, mn: float) -> float:
        """The parts' correlation: estimated, or where a part shows no spread, that of two results that
        are never both positive at the given means (-sqrt(mp mn / ((1 - mp) (1 - mn))), at least -1)."""
        if den > 0:
            return float((res[0] * res[1]).sum()) / den
        q = (1 - mp) * (1 - mn)
        return -1.0 if q <= 0 else max(-1.0, -math.sqrt(max(mp * mn, 0.0) / q))

    def interval(a: float) -> tuple[float, float]:
        (lp, up), (ln, un) = (_cp_interval(*_effective(pe.value, pe.se, pe.n, pe.clusters, False, a)[:2], a)
                              for pe in ests)
        below = (scale[0] * (ms[0] - lp), scale[1] * (un - ms[1]))
        above = (scale[0] * (up - ms[0]), scale[1] * (ms[1] - ln))
        rb, ra = corr(ms[0], un), corr(up, ms[1])  # a part without spread at the end's far edge
        lo = d - math.sqrt(max(below[0] ** 2 + below[1] ** 2 - 2 * rb * below[0] * below[1], 0.0))
        hi = d + math.sqrt(max(above[0] ** 2 + above[1] ** 2 - 2 * ra * above[0] * above[1], 0.0))
        return max(lo_b, lo), min(hi_b, hi)

    lo, hi = interval(alpha)
    return Estimate(e.value, e.se, lo, hi, e.n, e.clusters, e.deff, _level_at_zero(interval, d))


def _level_at_zero(interval: Callable[[float], tuple[float, float]], d: float) -> float:
    """The two-sided level at which ``interval(level)`` first leaves 0 out: the p-value of 0 for an
    interval that narrows as the level grows (1 where it never does; below 1e-15, where scipy's beta
    quantiles give up, it reads :data:`P_FLOOR`)."""
    from scipy.optimize import brentq

    if d == 0:
        return 1.0
    side = 0 if d > 0 else 1  # the end that faces 0

    def end(log_a: float) -> float:  # > 0 once the interval leaves 0 out
        v = interval(math.exp(log_a))[side]
        return v if side == 0 else -v

    lo, hi = math.log(1e-15), math.log(1.0 - 1e-12)
    if end(hi) <= 0:
        return 1.0
    if end(lo) > 0:
        return P_FLOOR
    return floor_p(float(math.exp(brentq(end, lo, hi, xtol=1e-6))))


def _effective(m: float, se: float, n: int, k: int, truncate: bool, alpha: float = 0.05
               ) -> tuple[float, float, float]:
    """Korn-Graubard's successes, effective size and design effect for a share ``m`` with clustered
    standard error ``se`` (``n`` results in ``k`` clusters), for an interval at level ``alpha``: the
    size ``n / max(1, deff)`` (``truncate``) or ``m (1 - m) / se^2``, times Korn and Graubard's
    degrees-of-freedom adjustment ``(t_b / t_(k-1))^2`` (Student's t quantiles at ``alpha / 2``; as R's
    ``survey::svyciprop(method = "beta")``): the standard error rests on ``k`` clusters, while
    Clopper-Pearson at the effective size takes its spread as known. ``b``, the binomial's degrees of
    freedom, is ``max(n, size) - 1``: the results less one, or where values are fractions (a deal's
    average over seat rotations, a share of a game) and their size exceeds the results, that size less
    one, so that 3 games of fractions get t at 2 degrees of freedom (the untruncated size alone covered
    83.8% there). ``k`` where no design effect can be estimated (a share of 0 or 1, or no spread)."""
    binom = m * (1 - m) / n
    deff = se ** 2 / binom if binom > 0 else math.nan
    if not (binom > 0 and deff > 0):
        return m * k, float(k), deff
    neff = n / (max(1.0, deff) if truncate else deff)
    neff *= kg_factor(max(n, neff), k, alpha)
    return m * neff, neff, deff


def _cp_interval(w: float, neff: float, alpha: float) -> tuple[float, float]:
    """Clopper-Pearson for ``w`` successes in ``neff`` trials (both may be fractional): the beta
    quantiles, from ``scipy.special`` (the same numbers as ``scipy.stats.beta.ppf``, without its checks)."""
    from scipy.special import betaincinv

    lo = 0.0 if w <= 0 else float(betaincinv(w, neff - w + 1, alpha / 2))
    hi = 1.0 if w >= neff else float(betaincinv(w + 1, neff - w, 1 - alpha / 2))
    return lo, hi


def _cp_p(y0: float, w: float, neff: float) -> float:
    """The two-sided p-value of share ``y0`` that :func:`_cp_interval` inverts: its interval at level
    alpha leaves ``y0`` out exactly when this is below alpha."""
    from scipy.special import betainc, betaincc

    below = 1.0 if w <= 0 else float(betainc(w, neff - w + 1, y0))  # the lower end passes y0 at alpha/2 = this
    above = 1.0 if w >= neff else float(betaincc(w + 1, neff - w, y0))
    return min(1.0, 2 * min(below, above))


def share_ci(x: np.ndarray, clusters: np.ndarray, z: float = Z95, truncate: bool = True) -> Estimate:
    """A share (values in [0, 1], e.g. a side's share of each game's win) with the Korn-Graubard
    interval: Clopper-Pearson at the effective sample size ``n / max(1, deff)``, ``deff`` clustered
    by ``clusters`` (Korn and Graubard 1998). Where no design effect can be estimated (a share of
    exactly 0 or 1, or no spread at all) the effective size is the number of clusters, the most it
    can be lost to clustering. Never zero width, never clipped: 0 of 200 games gives 0.0-3.6% on
    100 deals.

    ``truncate=False`` drops the ``max(1, .)``: the effective size is ``m (1 - m) / se^2`` even
    where that is more than ``n``. That is right for values that each average several 0/1 results
    (a deal's share of its seats' wins: a quarter of a win per seat), whose spread is less than a
    single result's; Clopper-Pearson there keeps the skew of a rare event that a t interval loses."""
    return _share(x, clusters, z, truncate)[0]


def _share(x: np.ndarray, clusters: np.ndarray, z: float, truncate: bool) -> tuple[Estimate, float, float]:
    """:func:`share_ci` and the successes and effective size its interval is Clopper-Pearson's at."""
    e = mean_ci(x, clusters)  # the mean and its variance clustered by ``clusters``
    m, n, k = e.value, e.n, e.clusters
    if k < 2:
        return e, math.nan, math.nan
    w, neff, deff = _effective(m, e.se, n, k, truncate, _alpha(z))
    lo, hi = _cp_interval(w, neff, _alpha(z))
    return Estimate(m, e.se, lo, hi, n, k, deff), w, neff


#: the variance pairing saved gets its interval from this many deals (its coverage: 93.3-93.7% at 30
#: deals of four rotations in a first check, 94.5-95.4% at 100; 94.7-96.4% at 100 and 1,000 deals in
#: the coverage case "variance saved by pairing")
SAVED_MIN_DEALS = 100


def pairing_saved(a: np.ndarray, b: np.ndarray) -> Estimate:
    """The share of the unpaired variance of ``b - a`` that playing both arms on the same deals removed,
    ``1 - var(b - a) / (var(a) + var(b)) = 2 cov(a, b) / (var(a) + var(b))`` (one value a deal in each
    arm; negative where the arms' results are negatively correlated: pairing then costs precision),
    with its 95% interval: the delta method on the moments (each deal's influence on the ratio), on
    Fisher's z scale, ``atanh``, where the ratio lies in [-1, 1] as a correlation does, with Student's
    t at deals - 1 degrees of freedom. Below :data:`SAVED_MIN_DEALS` deals, or where the arms have no
    spread, no interval (NaN)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    n = a.size
    if n < 2:
        return Estimate(math.nan, math.nan, math.nan, math.nan, n, n)
    da, db = a - a.mean(), b - b.mean()
    va, vb, c = float((da * da).mean()), float((db * db).mean()), float((da * db).mean())
    tot = va + vb
    if tot <= 0:
        return Estimate(math.nan, math.nan, math.nan, math.nan, n, n)
    v = 2 * c / tot
    influence = (2 * (da * db - c) * tot - 2 * c * ((da * da - va) + (db * db - vb))) / (tot * tot)
    se = math.sqrt(float(influence.var(ddof=1)) / n)
    if n < SAVED_MIN_DEALS or not abs(v) < 1 or not se > 0:
        return Estimate(v, se, math.nan, math.nan, n, n)
    q, zv, sz = t95(n - 1), math.atanh(v), se / (1 - v * v)
    return Estimate(v, se, math.tanh(zv - q * sz), math.tanh(zv + q * sz), n, n)


def paired_difference(a: np.ndarray, b: np.ndarray, clusters: np.ndarray | None = None,
                      bounds: tuple[float, float] = UNBOUNDED, z: float | None = None) -> Estimate:
    """``b - a`` observation by observation (the same deal in both arms), averaged, with its 95%
    interval. ``clusters`` names the game of each pair when a game yields several pairs (seat
    rotations, seats); the interval is then clustered by game. Pairs with a missing side are dropped.
    ``bounds``: where a difference lies (:func:`mean_ci`), e.g. (-1, 1) for two wins; ``z``: another
    level than 95%, as a normal quantile (a Bonferroni interval)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"paired values must align: {a.shape} vs {b.shape}")
    return mean_ci(b - a, clusters, z, bounds)


#: below this many events a count's own dispersion is too uncertain to go on alone (count_rate_ci)
FEW_EVENTS = 20


def count_rate_ci(s: np.ndarray, q: np.ndarray, n: int | np.ndarray, z: float = Z95,
                  floor: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """95% interval of the mean per unit (per game) of a count that is often zero: ``s`` the counts'
    sum and ``q`` the sum of their squares over ``n`` units (arrays: one entry per count; ``n`` one
    number or one per count).

    Garwood's exact Poisson interval at the effective count: the count's dispersion ``d = max(1,
    variance / mean)`` over the units (a card revealed twice in one game is two events that are not
    independent), then chi-square quantiles of ``2 s / d`` (lower) and ``2 s / d + 2`` (upper), scaled
    to the unit by ``n / d`` (the Poisson analogue of Wilson at the effective sample size). At ``s = 0``
    the interval is 0 to ``chi2(0.975, 2) / 2 * d / n`` (3.69 / n at d = 1), never zero width; the
    normal interval it replaces covered 80-92% on tens of events and printed 0-0 for a card never seen.

    ``floor``: the dispersion a count with fewer than :data:`FEW_EVENTS` events takes at least, for
    counts that clump alike (:func:`pooled_dispersion` of a table's counts). A run that saw none or
    one of a clumped count cannot show the clumps, and clumps make such a run likelier than Poisson
    events do: with clumps of 1-3 events and about 5 events in the run the count's own dispersion
    covered 90-91% (coverage case "count per game", rows "clumped"), the table's 97-99%."""
    from scipy.stats import chi2

    s = np.asarray(s, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    alpha = _alpha(z)
    mean = s / n
    var = (q - s * s / n) / np.maximum(n - 1, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(s > 0, np.maximum(1.0, var / np.where(mean > 0, mean, 1.0)), 1.0)
    d = np.where(s < FEW_EVENTS, np.maximum(d, floor), d)
    k = s / d
    lo = np.where(k > 0, chi2.ppf(alpha / 2, 2 * np.maximum(k, 1e-300)) / 2, 0.0) * d / n
    hi = chi2.ppf(1 - alpha / 2, 2 * k + 2) / 2 * d / n
    return lo, hi


def pooled_dispersion(s: np.ndarray, q: np.ndarray, n: int) -> float:
    """The dispersion (variance / mean, at least 1) of a table of counts over the same ``n`` units,
    pooled: the counts' variances summed over their means summed, from the counts with at least
    :data:`FEW_EVENTS` events (every count with one, when none has that many; 1 when none has any).
    ``s`` and ``q`` as :func:`count_rate_ci`'s. Turtle's action cards come back into play by the
    same moves (Restart Game, Clean Up, Recycle Bonus), so they clump alike: the rare cards take the
    table's clumping as the least of theirs (``count_rate_ci(floor=...)``)."""
    s = np.asarray(s, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    use = s >= FEW_EVENTS
    if not use.any():
        use = s > 0
    if not use.any():
        return 1.0
    var = (q[use] - s[use] * s[use] / n) / max(n - 1, 1)
    return float(max(1.0, var.sum() / (s[use].sum() / n)))


def rate_difference(w_in: np.ndarray, n_in: np.ndarray, w_all: np.ndarray, n_all: np.ndarray,
                    z: float | None = None, alpha: float = 0.05, mover: bool = False) -> Estimate:
    """Rate of a group minus the rate of the rest, clustered by game. Arrays hold one entry per game:
    successes and trials in the group (``w_in``, ``n_in``) and in the whole game (``w_all``, ``n_all``).
    The variance is the cluster-robust (linearisation) variance of the difference of two ratio
    estimators; ``deff`` compares it with two independent binomial rates. The interval is Student's t
    with games - 1 degrees of freedom (as :func:`mean_ci`) at two-sided level ``alpha`` (``0.05 / k``:
    Bonferroni over k groups), unless ``z`` is given, cut to [-1, 1].

    ``mover``: instead, each rate's Wilson interval at its effective size (its own clustered design
    effect) at that level, combined by MOVER with the two rates' clustered correlation (Zou and
    Donner; Newcombe's hybrid score interval where they are independent). At the far level of a
    Bonferroni family the t interval's symmetric tails miss a rate of a few hundred trials: 30 cards'
    differences at once held in 89.6% of runs of 3,000 games (coverage case "answer: seats and cards at
    once"); and at 95% on a few dozen games a group without a win (or without a loss) has no spread,
    so the t interval shrinks to the other group's (0 wins in 5 reveals read -29.8% to -18.0%). The
    answers' claims over many rows and the card tables' lifts use this one (coverage case "rate
    difference")."""
    w_in, n_in, w_all, n_all = (np.asarray(a, dtype=np.float64) for a in (w_in, n_in, w_all, n_all))
    w_out, n_out = w_all - w_in, n_all - n_in
    ni, no = n_in.sum(), n_out.sum()
    c = int((n_all > 0).sum())
    if ni <= 0 or no <= 0 or c < 2:
        return Estimate(math.nan, math.nan, math.nan, math.nan, int(ni + no), c)
    ri, ro = w_in.sum() / ni, w_out.sum() / no
    infl = (w_in - ri * n_in) / ni - (w_out - ro * n_out) / no
    var = c / (c - 1) * float((infl * infl).sum())
    var_b = ri * (1 - ri) / ni + ro * (1 - ro) / no
    se = math.sqrt(var)
    d = ri - ro
    deff = var / var_b if var_b > 0 else 1.0
    if mover:
        zw = Z95 if alpha == 0.05 else t_quantile(1 - alpha / 2, 10_000)
        zw = zw if z is None else z
        oi = (w_out - ro * n_out) / no
        ii = (w_in - ri * n_in) / ni
        vi, vo = c / (c - 1) * float((ii * ii).sum()), c / (c - 1) * float((oi * oi).sum())
        rho = c / (c - 1) * float((ii * oi).sum()) / math.sqrt(vi * vo) if vi > 0 and vo > 0 else 0.0
        ei, eo = _neff(ni, ri, vi, int((n_in > 0).sum()), _alpha(zw)), _neff(no, ro, vo, int((n_out > 0).sum()), _alpha(zw))
        li, ui = wilson(ri * ei, ei, zw)
        lo_, uo = wilson(ro * eo, eo, zw)
        lo = d - math.sqrt(max((ri - li) ** 2 + (uo - ro) ** 2 - 2 * rho * (ri - li) * (uo - ro), 0.0))
        hi = d + math.sqrt(max((ui - ri) ** 2 + (ro - lo_) ** 2 - 2 * rho * (ui - ri) * (ro - lo_), 0.0))
        return Estimate(d, se, lo, hi, int(ni + no), c, deff)
    if z is None:
        z = t95(c - 1) if alpha == 0.05 else t_quantile(1 - alpha / 2, c - 1)
    # a difference of two rates lies in [-1, 1] (at 3 games the t interval read -254% to +194%)
    return Estimate(d, se, within(d - z * se, (-1.0, 1.0)), within(d + z * se, (-1.0, 1.0)), int(ni + no), c, deff)


def _neff(n: float, r: float, var: float, clusters: int, alpha: float = 0.05) -> float:
    """A rate's effective size: ``n / max(1, deff)``, deff its clustered variance over the binomial, times
    Korn and Graubard's degrees-of-freedom adjustment at level ``alpha`` (:func:`kg_factor`), as
    :func:`rate_table`'s.
    At a rate of 0 or 1 no design effect can be estimated: the ``clusters`` (games with a trial), as
    if every trial of a game went alike, the most clustering can take (:func:`share_ci` does the same).
    A rare event that comes in bursts is often not seen at all, and Wilson at the trials then read an
    upper end far below the truth (coverage case "clustered rate, rare bursts")."""
    binom = r * (1 - r) / n
    return n / max(1.0, var / binom) * kg_factor(n, clusters, alpha) if binom > 0 else min(n, float(clusters))


def effective_size(n: np.ndarray, w: np.ndarray) -> float:
    """The effective size of a rate from its per-cluster trials ``n`` and successes ``w`` (clusters
    without a trial left out, as :func:`rate_table` groups them): ``n / max(1, deff)``, deff the
    clustered (CR2, :func:`cr2`) variance of the ratio over the binomial one, with Korn and Graubard's
    adjustment (:func:`kg_factor`); at a rate of 0 or 1 the
    clusters (:func:`_neff`), and in one cluster 1: its trials may all have gone alike (Wilson at
    the seats of one game read 2 of 4 seats as 15-85%; at one trial, 5-95%)."""
    keep = n > 0
    big_n, c = float(n.sum()), int(keep.sum())
    if big_n <= 0:
        return big_n
    if c < 2:
        return float(c)
    return _neff(big_n, float(w.sum()) / big_n, cr2(w[keep].astype(np.float64), n[keep].astype(np.float64))[0], c)


def on_games(games: np.ndarray, frame: pl.DataFrame, *cols: str) -> list[np.ndarray]:
    """Columns ``cols`` of ``frame`` (one row per game, column ``game``) laid on ``games`` (sorted
    game numbers, a superset of the frame's), 0 where the frame has no row: the per-game arrays
    :func:`rate_difference` takes."""
    idx = np.searchsorted(games, frame["game"].to_numpy())
    out = []
    for c in cols:
        a = np.zeros(games.size)
        a[idx] = frame[c].to_numpy()
        out.append(a)
    return out


def normal_p(value: float, se: float) -> float:
    """Two-sided p-value of ``value / se`` against the standard normal (none when the standard error
    is, e.g. from a single game); never below :data:`P_FLOOR`."""
    if math.isnan(se):
        return math.nan
    if not se > 0:
        return math.nan if not math.isfinite(value) or value == 0 else P_FLOOR
    return floor_p(math.erfc(abs(value / se) / math.sqrt(2)))


def t_p(value: float, se: float, df: float) -> float:
    """Two-sided p-value of ``value / se`` against Student's t with ``df`` degrees of freedom, the
    reference of :func:`t95`'s intervals (the normal from 10,000 on, as there), so a p-value below
    0.05 goes with a 95% interval off 0."""
    if df >= 10_000 or not se > 0:
        return normal_p(value, se)
    from scipy.stats import t

    return floor_p(float(2 * t.sf(abs(value / se), max(df, 1))))


def t_quantile(q: float, df: float) -> float:
    """The ``q`` quantile of Student's t with ``df`` degrees of freedom (the normal's from 10,000 on,
    as :func:`t95`): the critical value of a Bonferroni interval that matches the pointwise ones."""
    from scipy.stats import norm, t

    return float(t.ppf(q, max(df, 1))) if df < 10_000 else float(norm.ppf(q))


def bonferroni_z(k: int, df: int = 10_000, alpha: float = 0.05) -> float:
    """The critical value of ``k`` intervals that hold at once with chance at least ``1 - alpha``
    (Bonferroni: each at two-sided level ``alpha / k``): Student's t with ``df`` degrees of freedom,
    the normal's from 10,000 on (a Wilson interval's ``z``). 1.96 at k = 1, 2.50 at 4, 3.14 at 30."""
    return t_quantile(1 - alpha / (2 * max(k, 1)), df)


def wilson_at(table: pl.DataFrame, z: float, prefix: str = "sim_") -> pl.DataFrame:
    """A rate table's (:func:`rate_table`: ``n``, ``rate``, ``deff``, ``clusters``) Wilson intervals at
    another level, as the normal quantile ``z`` (:func:`bonferroni_z`), taken at the effective size
    ``n / max(1, deff)`` with Korn and Graubard's adjustment at that level, as the table's own: the
    clustering is kept, and at ``z`` = 1.96 the table's interval comes back. Adds ``{prefix}lo`` and
    ``{prefix}hi``; a table without ``deff`` (one row per game) is read as deff 1 and one clusters a row."""
    deff = pl.col("deff") if "deff" in table.columns else pl.lit(1.0)
    clusters = pl.col("clusters") if "clusters" in table.columns else pl.col("n")
    # the effective size as a column first: wilson_exprs reads it a dozen times, and polars would
    # evaluate the adjustment's expression at each (40 ms a call, against 10 ms)
    t = table.with_columns(_neff_at=_rate_neff(pl.col("n"), pl.col("rate"), deff, clusters, _alpha(z)))
    neff = pl.col("_neff_at")
    lo, hi = wilson_exprs(pl.col("rate") * neff, neff, "_w", z)[1:]
    return t.with_columns(lo.alias(f"{prefix}lo"), hi.alias(f"{prefix}hi")).drop("_neff_at")


def t_scale(n: int, alpha: float = 0.05) -> float:
    """How much wider Student's t with ``n - 1`` degrees of freedom is than the normal at two-sided
    level ``alpha``: the factor that turns a critical value found from normal draws (max-T, with the
    standard errors taken as known) into one for standard errors estimated from ``n`` units."""
    return t_quantile(1 - alpha / 2, n - 1) / t_quantile(1 - alpha / 2, 10_000)


def holm(p: list[float] | np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjusted p-values across a family: ``holm`` (Holm's step-down: the family-wise error) or
    ``fdr_bh`` (Benjamini-Hochberg, ``scipy.stats.false_discovery_control``: the false discovery
    rate). NaNs stay NaN. The tests check both against statsmodels' ``multipletests``, which is not
    called here because it runs a full garbage collection on every call."""
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    if not ok.any():
        return out
    q = p[ok]
    if method == "fdr_bh":
        from scipy.stats import false_discovery_control

        out[ok] = false_discovery_control(q, method="bh")
        return out
    if method != "holm":
        raise ValueError(f"method = {method!r}; allowed: holm, fdr_bh")
    order = np.argsort(q, kind="stable")
    m = q.size
    adj = np.minimum(1.0, np.maximum.accumulate(q[order] * (m - np.arange(m))))
    res = np.empty(m)
    res[order] = adj
    out[ok] = res
    return out


def maxt_null(cov: np.ndarray, draws: int = 200_000, seed: int = 0, one_sided: bool = False) -> np.ndarray:
    """Sorted draws of ``max_j |Z_j| / sd_j`` for ``Z ~ N(0, cov)`` (``max_j Z_j / sd_j`` when
    ``one_sided``): the null distribution of the max-T method. Components with no variance are left
    out. Reproducible: a fixed seed."""
    cov = np.asarray(cov, dtype=np.float64)
    sd = np.sqrt(np.clip(np.diag(cov), 0, None))
    keep = sd > 0
    if keep.sum() == 0:
        return np.zeros(1)
    corr = cov[np.ix_(keep, keep)] / np.outer(sd[keep], sd[keep])
    w, v = np.linalg.eigh((corr + corr.T) / 2)
    root = v * np.sqrt(np.clip(w, 0, None))
    rng = np.random.default_rng(seed)
    stat = np.empty(draws)
    step = 20_000
    for i in range(0, draws, step):
        zz = rng.standard_normal((min(step, draws - i), root.shape[0])) @ root.T
        stat[i:i + zz.shape[0]] = zz.max(axis=1) if one_sided else np.abs(zz).max(axis=1)
    return np.sort(stat)


def maxt_critical(cov: np.ndarray, alpha: float = 0.05, draws: int = 200_000, seed: int = 0,
                  one_sided: bool = False) -> float:
    """Critical value ``c`` with ``P(max_j |Z_j| / sd_j <= c) = 1 - alpha`` for ``Z ~ N(0, cov)``
    (the max-T method: simultaneous intervals ``est_j +- c * se_j`` for correlated estimates)."""
    if np.all(np.diag(np.asarray(cov, dtype=np.float64)) <= 0):
        return Z95
    return float(np.quantile(maxt_null(cov, draws, seed, one_sided), 1 - alpha))


def simultaneous_means(d: np.ndarray, draws: int = 200_000, seed: int = 0) -> dict[str, np.ndarray | float]:
    """Means of the columns of ``d`` (units x k, e.g. deals x contrasts measured on the same deals)
    with simultaneous 95% intervals: ``mean_j +- c * se_j`` with ``c`` the max-T critical
    value of the means' estimated correlation (:func:`maxt_critical`), times :func:`t_scale`
    for small samples. All k intervals hold at once in about 95% of samples (the coverage case
    ``search one-step contrasts`` measures it); one column gets the pointwise t interval. A column
    with no spread (every unit the same value) has ``se`` 0 and an interval of its mean alone."""
    d = np.asarray(d, dtype=np.float64)
    n, k = d.shape
    mean = d.mean(axis=0)
    if n < 2:
        nan = np.full(k, math.nan)
        return {"mean": mean, "se": nan, "lo": nan, "hi": nan, "critical": math.nan}
    cov = np.cov(d, rowvar=False).reshape(k, k) / n
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    # one step with spread: exactly its t interval (max-T would only estimate 1.96 from its draws)
    crit = maxt_critical(cov, 0.05, draws, seed) * t_scale(n) if (se > 0).sum() > 1 else t95(n - 1)
    return {"mean": mean, "se": se, "lo": mean - crit * se, "hi": mean + crit * se, "critical": crit}


def maxt_pvalues(t: np.ndarray, null: np.ndarray) -> np.ndarray:
    """Single-step max-T adjusted p-values of the statistics ``|t|`` against :func:`maxt_null` draws
    (sorted): the Monte Carlo p-value (1 + draws at or beyond ``|t|``) / (1 + draws), never 0; a
    statistic beyond every draw reads 1 / (draws + 1), the least the draws can tell apart."""
    t = np.abs(np.asarray(t, dtype=np.float64))
    return (null.size - np.searchsorted(null, t, side="left") + 1) / (null.size + 1)


def mean_se(x: np.ndarray) -> tuple[float, float, int]:
    """Mean, standard error of the mean and n of a sample."""
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    if n == 0:
        return (math.nan, math.nan, 0)
    sd = x.std(ddof=1) if n > 1 else math.nan
    return (float(x.mean()), float(sd / math.sqrt(n)), n)


#: degrees of freedom up to which :func:`t95_expr` reads :func:`t95` itself
_T_EXACT = 30


def t95_expr(df: pl.Expr) -> pl.Expr:
    """:func:`t95` as a polars expression of the degrees of freedom (a column, or an aggregate such as
    ``count() - 1``): the exact quantile up to 30 degrees of freedom, then the Cornish-Fisher series
    in 1/df (within 1.2e-4 of the quantile from 31 on), and the normal's from 10,000 on as there."""
    z = Z95
    d = df.cast(pl.Float64)
    series = (z + (z ** 3 + z) / (4 * d) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * d ** 2)
              + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * d ** 3))
    out = pl.when(d >= 10_000).then(Z95).when(d > _T_EXACT).then(series)
    for k in range(_T_EXACT, 0, -1):
        out = out.when(d >= k).then(t95(k))
    return out.otherwise(None)


def _hall_inverse(q: pl.Expr, b: pl.Expr) -> pl.Expr:
    """:func:`hall_inverse` as a polars expression."""
    return (pl.when(b.abs() > 1e-12).then(3 / b * ((1 + b * (q - b / 6)).cbrt() - 1)).otherwise(q))


def _garwood(k: np.ndarray, q: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """Garwood's exact Poisson interval of a count ``k`` (any k >= 0: an effective count need not be
    whole) at the two-sided level of the normal quantile ``q`` (1.96: 95%): ``chi2(a/2, 2k) / 2`` (0 at
    k = 0) and ``chi2(1 - a/2, 2k + 2) / 2`` (3.69 at k = 0 and 95%)."""
    from scipy.stats import chi2, norm

    k = np.asarray(k, dtype=np.float64)
    a = 2 * norm.sf(np.asarray(q, dtype=np.float64))
    with np.errstate(invalid="ignore"):
        lo = np.where(k > 0, chi2.ppf(a / 2, 2 * np.where(k > 0, k, 1.0)) / 2, 0.0)
    return np.where(np.isnan(k), np.nan, lo), chi2.ppf(1 - a / 2, 2 * k + 2) / 2


def _poisson_exprs(k: pl.Expr, q: pl.Expr | None = None) -> tuple[pl.Expr, pl.Expr]:
    """:func:`_garwood` as polars expressions of a count ``k`` (an aggregate) and the normal quantile of
    its level ``q`` (95% when None)."""
    both = pl.struct(k.cast(pl.Float64).alias("k"), (pl.lit(Z95) if q is None else q).cast(pl.Float64).alias("q"))

    def end(side: int) -> Callable[[pl.Series], pl.Series]:
        def f(b: pl.Series) -> pl.Series:
            k_, q_ = (b.struct.field(c).to_numpy() for c in ("k", "q"))
            return pl.Series(_garwood(k_, q_)[side], dtype=pl.Float64)
        return f

    return (both.map_batches(end(0), return_dtype=pl.Float64, is_elementwise=True),
            both.map_batches(end(1), return_dtype=pl.Float64, is_elementwise=True))


def _count_interval(m: pl.Expr, se: pl.Expr, total: pl.Expr, rows: pl.Expr, flat: pl.Expr, lo: pl.Expr,
                    hi: pl.Expr, q: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """The interval of a mean ``m`` of a count (standard error ``se``; ``total`` counted in ``rows``
    rows; ``flat``: every unit gave the same mean) from its t interval ``lo``-``hi`` (quantile ``q``):
    cut at 0 and widened to at least Garwood's interval at the effective count ``m^2 / se^2`` (the count
    whose Poisson variance is the estimated variance, as Wilson at the effective size: a count of a few
    events is skewed, and the symmetric t interval covered 91-94% of a rare count per hand), at the t
    interval's level (the effective count rests on the estimated variance, as the t interval: at the
    normal's level a skewed count over 10 games covered 93.2-94.3%, at t's 94.0-95.1%); where ``flat``,
    Garwood's 95% interval at the count itself (``total`` events in ``rows``), never zero width."""
    keff = pl.when(flat).then(total).otherwise(m * m / (se * se))
    expo = pl.when(flat).then(rows).otherwise(keff / m)  # the rows the effective count was seen in
    glo, ghi = _poisson_exprs(keff, pl.when(flat).then(pl.lit(Z95)).otherwise(q))
    glo, ghi = glo / expo, ghi / expo
    lo = pl.when(lo < 0).then(0.0).otherwise(lo)
    return (pl.when(flat).then(glo).when(lo.is_null()).then(None).otherwise(pl.min_horizontal(lo, glo)),
            pl.when(flat).then(ghi).when(hi.is_null()).then(None).otherwise(pl.max_horizontal(hi, ghi)))


def _cp_exprs(w: pl.Expr, n: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """:func:`_cp_interval` at 95% as polars expressions: ``w`` successes of ``n`` trials (aggregates)."""
    def ends(side: int) -> Callable[[pl.Series], pl.Series]:
        def f(b: pl.Series) -> pl.Series:
            w_, n_ = (b.struct.field(c).cast(pl.Float64).to_numpy() for c in ("w", "n"))
            out = [_cp_interval(a, m, 0.05)[side] if m > 0 else math.nan for a, m in zip(w_, n_, strict=True)]
            return pl.Series(out, dtype=pl.Float64)
        return f

    both = pl.struct(w.alias("w"), n.alias("n"))
    return (both.map_batches(ends(0), return_dtype=pl.Float64, is_elementwise=True),
            both.map_batches(ends(1), return_dtype=pl.Float64, is_elementwise=True))


def _bounded_interval(m: pl.Expr, se: pl.Expr, clusters: pl.Expr, flat: pl.Expr, lo: pl.Expr, hi: pl.Expr,
                      bounds: tuple[float, float], q: pl.Expr | None = None) -> tuple[pl.Expr, pl.Expr]:
    """The interval ``lo``-``hi`` of a mean ``m`` (standard error ``se``) of values within ``bounds``,
    widened to at least Korn-Graubard's (Clopper-Pearson on ``m`` rescaled to [0, 1] at the effective
    size ``m (1 - m) / se^2``, untruncated, as :func:`mean_ci` with bounds: a rare chunk keeps its skew,
    as a count at least Garwood's) and cut to the bounds; where ``flat`` (every one of ``clusters``
    gave the mean ``m``), Clopper-Pearson at the clusters (:func:`share_ci` without spread): never zero
    width (:func:`mean_query`'s ``bounds``). ``q``: the t interval's quantile; the effective size is
    then Korn and Graubard's degrees-of-freedom adjusted one, times ``(1.96 / q)^2`` (it rests on the
    estimated variance, as the t interval: points a hand over 10 games covered 93.2% without it)."""
    a, b = bounds
    width = b - a
    y, sy = (m - a) / width, se / width
    dof = 1.0 if q is None else (Z95 / q) ** 2
    neff = pl.when(flat).then(clusters).otherwise(y * (1 - y) / (sy * sy) * dof)
    clo, chi = _cp_exprs(y * neff, neff)
    clo, chi = a + width * clo, a + width * chi
    flat = flat & (clusters >= 2)
    return (pl.when(flat).then(clo).when(lo.is_null()).then(None).otherwise(pl.min_horizontal(lo, clo).clip(a, b)),
            pl.when(flat).then(chi).when(hi.is_null()).then(None).otherwise(pl.max_horizontal(hi, chi).clip(a, b)))


def mean_exprs(col: str | pl.Expr, prefix: str = "", count: bool = False) -> list[pl.Expr]:
    """Aggregations: n, mean, standard error and the 95% interval of a column, one row per independent
    unit (per game; for several rows per game use :func:`mean_table`): Student's t with n - 1 degrees
    of freedom, corrected for the sample's skewness by Hall's (1992) transformation of the
    studentised mean. A game's length is skewed (a long tail of long games): the plain t interval
    covered 89.5% at 10 games and 93.5% at 100 of a geometric length (coverage case "per-game mean");
    an unskewed sample gets the t interval as before, and a sample without spread zero width.

    ``count``: the values are counts (at least 0, whole numbers: events, cards, hands a game). The
    interval is cut at 0, and a sample without spread (every game the same count) gets Garwood's
    exact Poisson interval at that count (:func:`count_rate_ci`) instead of zero width: a rare event
    none of 10 games showed reads 0 to 3.69 / 10, never 0-0 (the t interval covered 17% of a count of
    0.02 a game at 10 games; coverage case "rare count per game"). Leave ``count`` off only for a
    value that is constant by the rules (every Battle Royal game has 15 hands)."""
    c = pl.col(col) if isinstance(col, str) else col
    n = c.count()
    se = c.std(ddof=1) / n.sqrt()
    q = t95_expr(n - 1)
    b = (c.skew(bias=True) / n.sqrt()).fill_nan(0.0).fill_null(0.0)
    lo = c.mean() - se * _hall_inverse(q, b)
    hi = c.mean() - se * _hall_inverse(-q, b)
    if count:
        flat = (n >= 2) & (c.max() == c.min())  # no spread: the t interval would have zero width
        lo, hi = _count_interval(c.mean(), se, c.sum().cast(pl.Float64), n.cast(pl.Float64), flat, lo, hi, q)
    return [
        n.alias(f"{prefix}n"),
        c.mean().alias(f"{prefix}mean"),
        se.alias(f"{prefix}se"),
        lo.alias(f"{prefix}lo"),
        hi.alias(f"{prefix}hi"),
    ]


def cluster_layout(frame: pl.DataFrame | pl.LazyFrame, cluster: str = "game") -> tuple[int, int]:
    """``(block, clusters)``: the consecutive values of ``cluster`` (game indices) that form one
    cluster (:func:`cluster_block`) and the number of clusters ``game // block`` takes (games
    ``0..max``; 0 when there are none)."""
    hi = frame.lazy().select(pl.col(cluster).max()).collect(engine="streaming").item()
    if hi is None:
        return 1, 0
    block = max(1, -(-(int(hi) + 1) // CLUSTERS))
    return block, int(hi) // block + 1


def cluster_block(frame: pl.DataFrame | pl.LazyFrame, cluster: str) -> int:
    """Consecutive values of ``cluster`` (game indices) that form one cluster: 1 up to
    :data:`CLUSTERS` games, else as many as keep the clusters at most CLUSTERS.

    Independent games grouped into larger clusters still give a valid cluster-robust variance, and
    blocks of consecutive games keep the streaming aggregation's memory bounded: a run's tables hold
    a game's rows together, so each batch polars streams touches a few blocks (with ``game mod
    CLUSTERS``, as before, each batch touched thousands of clusters, and the partial aggregates grew
    with the run: 4 GiB for a summary of 100 million FUBNUB hands)."""
    return cluster_layout(frame, cluster)[0]


def cluster_key(frame: pl.DataFrame | pl.LazyFrame, cluster: str = "game") -> pl.Expr:
    """The expression of each row's cluster, named ``cluster``: the game, or beyond :data:`CLUSTERS`
    games its block of consecutive games (:func:`cluster_block`)."""
    block = cluster_block(frame, cluster)
    return (pl.col(cluster) // block if block > 1 else pl.col(cluster)).alias(cluster)


def _clustered(frame: pl.DataFrame | pl.LazyFrame, by: list[str], value: pl.Expr, cluster: str | None) -> pl.LazyFrame:
    """Per group of ``by``: n, sum, cluster count and the sums the clustered variance needs."""
    lf = frame.lazy().with_columns(_v=value.cast(pl.Float64)).filter(pl.col("_v").is_not_null())
    names = lf.collect_schema().names()
    if cluster is not None and cluster in names:
        key = cluster_key(frame, cluster).alias("_c")
    else:  # every row its own cluster
        lf = lf.with_row_index("_c")
        key = pl.col("_c")
    per = lf.group_by(*by, key).agg(pl.len().cast(pl.Float64).alias("_n"), pl.col("_v").sum().alias("_s"),
                                    (pl.col("_v") ** 2).sum().alias("_q"))
    # the bias-reduced cluster-robust variance (CR2) of the ratio k / n and its Bell-McCaffrey degrees
    # of freedom, as :func:`cr2`: a cluster's residual sum over 1 - its share of the rows. Each group's
    # clusters are taken in their order, whatever order the engine hands them in: sums of fractions then
    # come out the same to the last bit in every run
    cn, cs, cq = (pl.col(c).sort_by("_c") for c in ("_n", "_s", "_q"))
    big_n = cn.sum()
    lev = 1 - cn / big_n
    d = cn / lev
    resid = cs - cs.sum() / big_n * cn
    return per.group_by(by).agg(
        big_n.alias("n"), cs.sum().alias("k"), pl.len().alias("clusters"), cq.sum().alias("_q"),
        (cs / cn).min().alias("_rmin"), (cs / cn).max().alias("_rmax"),
        (resid ** 2 / lev).sum().alias("_r2"),
        ((d * d).sum() - 2 / big_n * (cn * d * d).sum() + ((cn * d).sum() / big_n) ** 2).alias("_fro"),
    ).with_columns(m=pl.col("k") / pl.col("n"), _var=pl.col("_r2") / pl.col("n") ** 2,
                   _df=pl.col("n") ** 2 / pl.col("_fro"))


def _t_expr(df: pl.Expr, alpha: float = 0.05) -> pl.Expr:
    """Student's t quantile at ``1 - alpha / 2`` of a column of (fractional) degrees of freedom: the normal's
    from 10,000 on, and fewer than 1 read as 1, as :func:`t_quantile`; none where ``df`` is missing."""
    from scipy.special import ndtri, stdtrit

    def f(x: pl.Series) -> pl.Series:
        v = x.cast(pl.Float64).fill_null(math.nan).to_numpy()
        with np.errstate(invalid="ignore"):
            out = np.where(v >= 10_000, -ndtri(alpha / 2), -stdtrit(np.maximum(v, 1.0), alpha / 2))
        return pl.Series(np.where(v > 0, out, math.nan), dtype=pl.Float64)

    return df.map_batches(f, return_dtype=pl.Float64, is_elementwise=True).fill_nan(None)


def _kg_expr(size: pl.Expr, clusters: pl.Expr, alpha: float = 0.05) -> pl.Expr:
    """:func:`kg_factor` as a polars expression."""
    def f(b: pl.Series) -> pl.Series:
        n_, c_ = (b.struct.field(c).cast(pl.Float64).fill_null(math.nan).to_numpy() for c in ("n", "c"))
        return pl.Series(np.asarray(kg_factor(n_, c_, alpha), dtype=np.float64).reshape(-1), dtype=pl.Float64)

    return pl.struct(size.alias("n"), clusters.alias("c")).map_batches(f, return_dtype=pl.Float64, is_elementwise=True)


def rate_query(frame: pl.DataFrame | pl.LazyFrame, by: list[str], success: str | pl.Expr,
               cluster: str | None = "game") -> pl.LazyFrame:
    """:func:`rate_table`, not collected yet (to collect several at once with :func:`collect_all`)."""
    ok = pl.col(success) if isinstance(success, str) else success
    # successes of a yes/no (or whole-number) column are a count: an integer column, not 975.0
    whole = frame.lazy().select(ok).collect_schema().dtypes()[0]
    count = whole == pl.Boolean or whole.is_integer()
    # at a rate of 0 or 1 no design effect can be estimated: n / clusters, as if every row of a game went
    # alike (the most clustering can take), so the effective size is the clusters (_neff; Wilson at the
    # rows read 0 of 900 hands in 100 games as 0-0.42% where bursts of a 1% event left none in 37% of samples)
    g = _clustered(frame, by, ok, cluster).with_columns(
        deff=pl.when(pl.col("m") * (1 - pl.col("m")) > 0)
        .then(pl.col("_var") / (pl.col("m") * (1 - pl.col("m")) / pl.col("n")))
        .otherwise(pl.col("n") / pl.col("clusters")))
    g = g.with_columns(neff=_rate_neff(pl.col("n"), pl.col("m"), pl.col("deff"), pl.col("clusters")))
    g = g.with_columns(wilson_exprs(pl.col("m") * pl.col("neff"), pl.col("neff"))).sort(by)
    # several rows in one game: no clustered variance (it divides by games - 1), so no interval; the rate
    # is k / n (Wilson at the hands read 1 of 5 hands of one game as n/a, 0-100%, and 3 of 5 as 23-88%)
    one = (pl.col("clusters") < 2) & (pl.col("n") > pl.col("clusters"))
    return g.select(*by, pl.col("n").cast(pl.Int64), pl.col("k").cast(pl.Int64) if count else pl.col("k"),
                    pl.col("m").alias("rate"), *(pl.when(one).then(None).otherwise(c).alias(c)
                                                 for c in ("lo", "hi", "deff")),
                    pl.col("clusters").cast(pl.Int64))


def _rate_neff(n: pl.Expr, rate: pl.Expr, deff: pl.Expr, clusters: pl.Expr, alpha: float = 0.05) -> pl.Expr:
    """A clustered rate's effective size at level ``alpha``: ``n / max(1, deff)`` times Korn and Graubard's
    degrees-of-freedom adjustment (:func:`kg_factor`: the design effect is estimated from ``clusters``);
    at a rate of 0 or 1, where ``deff`` is rows over clusters, the clusters without it (the most
    clustering can take already; Wilson at 0 of 3 games reads 0-56%)."""
    neff = n.cast(pl.Float64) / pl.max_horizontal(deff, pl.lit(1.0))
    return pl.when((rate > 0) & (rate < 1)).then(neff * _kg_expr(n, clusters, alpha)).otherwise(neff)


def rate_table(frame: pl.DataFrame | pl.LazyFrame, by: list[str], success: str | pl.Expr,
               cluster: str | None = "game") -> pl.DataFrame:
    """Group ``frame`` by ``by`` and give n, successes, rate, Wilson interval, design effect and clusters
    of a boolean/0-1 ``success``, clustered by ``cluster`` (default: the game) when the frame has it.

    The interval is Wilson at the effective sample size ``n / max(1, deff)`` times Korn and Graubard's
    degrees-of-freedom adjustment (:func:`kg_factor`, from ``clusters``; ``deff`` from CR2, :func:`cr2`); at a rate of 0 or 1
    (no spread to estimate deff from) ``deff`` is rows over clusters, so the effective size is the
    clusters (:func:`_neff`). A LazyFrame is
    aggregated with the streaming engine, in memory bounded by the groups times 65,536 clusters."""
    return collect(rate_query(frame, by, success, cluster))


def mean_query(frame: pl.DataFrame | pl.LazyFrame, col: str | pl.Expr, by: list[str] | None = None,
               cluster: str | None = "game", prefix: str = "", count: bool = False,
               bounds: tuple[float, float] | None = None) -> pl.LazyFrame:
    """:func:`mean_table`, not collected yet (to collect several at once with :func:`collect_all`).

    ``count``: the values are counts: the interval is cut at 0, as :func:`mean_ci` cuts a half-bounded
    value (Restart Game cards per game read 0.20, 95% CI -0.10 to 0.50 over 10 games), and where every
    cluster gave the same mean (a rare event no game showed) it is Garwood's at the clusters' count
    (:func:`count_rate_ci` over the games, scaled by games / rows), never zero width: none in 10 games of
    8 hands reads 0 to 3.69 / 80 a hand (:func:`_count_interval`).

    ``bounds``: the least and most one row can be, fixed by the rules (FOURBID's points a hand, which
    come in chunks, so a count's Poisson floor does not hold): the interval is cut to them, and where
    every cluster gave the same mean (a seat that never spent a point) it is :func:`share_ci`'s for a
    share without spread: the mean rescaled to [0, 1], Clopper-Pearson at the clusters: none spent in
    C games reads 0 to the most a hand can spend times CP's upper end at 0 of C (0-0 before)."""
    by = by or []
    c = pl.col(col) if isinstance(col, str) else col
    lf = frame.lazy()
    if not by:
        lf = lf.with_columns(_all=pl.lit(0))
    keys = by or ["_all"]
    g = _clustered(lf, keys, c, cluster).with_columns(
        _viid=(pl.col("_q") / pl.col("n") - pl.col("m") ** 2) * pl.col("n") / (pl.col("n") - 1) / pl.col("n"))
    g = g.with_columns(se=pl.col("_var").sqrt(),
                       deff=pl.when(pl.col("_viid") > 0).then(pl.col("_var") / pl.col("_viid")).otherwise(1.0))
    # Student's t at Bell and McCaffrey's degrees of freedom, as mean_ci (a column: read several times below)
    g = g.with_columns(_tq=_t_expr(pl.col("_df")))
    q = pl.col("_tq")
    lo, hi = pl.col("m") - q * pl.col("se"), pl.col("m") + q * pl.col("se")
    if count:  # cut at 0 by _count_interval, which keeps a missing end missing (one game: no interval, not "0 to")
        flat = (pl.col("clusters") >= 2) & (pl.col("_rmax") == pl.col("_rmin"))  # every cluster the same mean
        lo, hi = _count_interval(pl.col("m"), pl.col("se"), pl.col("k"), pl.col("n"),
                                 flat, lo.fill_nan(None), hi.fill_nan(None), q)
    if bounds is not None:
        lo, hi = _bounded_interval(pl.col("m"), pl.col("se"), pl.col("clusters"), pl.col("_rmin") == pl.col("_rmax"),
                                   lo.fill_nan(None), hi.fill_nan(None), bounds, q)
    return g.sort(keys).select(
        *by, pl.col("n").cast(pl.Int64).alias(f"{prefix}n"), pl.col("m").alias(f"{prefix}mean"),
        pl.col("se").alias(f"{prefix}se"), lo.alias(f"{prefix}lo"),
        hi.alias(f"{prefix}hi"), pl.col("deff").alias(f"{prefix}deff"))


def mean_table(frame: pl.DataFrame | pl.LazyFrame, col: str | pl.Expr, by: list[str] | None = None,
               cluster: str | None = "game", prefix: str = "", count: bool = False,
               bounds: tuple[float, float] | None = None) -> pl.DataFrame:
    """Mean of ``col`` per group of ``by`` (or overall) with its standard error clustered by game,
    the 95% interval (CR2 and Student's t at Bell and McCaffrey's degrees of freedom, :func:`cr2`; a
    ``count``'s cut at 0, and without spread Garwood's
    interval, :func:`mean_query`; ``bounds``: the rules' least and most a row can be, there too) and the
    design effect: for per-hand or per-event values. One value a game takes :func:`mean_exprs` (Hall's
    skewness correction) instead."""
    return collect(mean_query(frame, col, by, cluster, prefix, count, bounds))


def collect(lf: pl.LazyFrame) -> pl.DataFrame:
    """Collect with polars' streaming engine (bounded memory over large runs)."""
    return lf.collect(engine="streaming")


def collect_all(queries: list[pl.LazyFrame]) -> list[pl.DataFrame]:
    """Collect several queries at once with the streaming engine, in memory bounded whatever the
    run's size. Polars' common-subplan elimination is off: with it, the scans the queries share
    are read once and cached whole in memory (2.5 times the memory of collecting them one by one
    for a 30-million-hand FUBNUB summary, and growing with the run), for about a sixth less time."""
    flags = getattr(pl, "QueryOptFlags", None)  # polars >= 1.30; before, a keyword of collect_all
    opts = {"optimizations": flags(comm_subplan_elim=False)} if flags else {"comm_subplan_elim": False}
    return pl.collect_all(queries, engine="streaming", **opts)


def seat_table(outcomes: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """Win rate by seat from an outcome table (``game``, ``seat``, ``win``): n finished games,
    wins (shared wins count 1/k; an integer column when no win was shared, as in a team game), rate,
    Wilson interval, and ``fair``: the rate every seat would have if seats did not matter (the mean over
    seats: 1/players alone, 1/2 in two teams).
    A LazyFrame is aggregated on the streaming engine (memory: the seats, not the games)."""
    fin = outcomes.lazy().drop_nulls("win")
    g, fair = collect_all([fin.group_by("seat").agg(pl.len().alias("n"), pl.col("win").sum().alias("k"),
                                                    ((pl.col("win") > 0) & (pl.col("win") < 1)).any().alias("_shared"))
                           .sort("seat"), fin.select(pl.col("win").mean())])
    fair = fair.item()
    fair = float("nan") if fair is None else float(fair)
    if g.height and not g["_shared"].any():  # every win whole: k counts games
        g = g.with_columns(pl.col("k").cast(pl.Int64))
    return g.drop("_shared").with_columns(wilson_exprs(pl.col("k"), pl.col("n"))).with_columns(fair=pl.lit(fair))
