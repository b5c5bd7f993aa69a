"""Coverage of a sweep's answers (cardsim.studies.sweep): the contrasts with the data's best point
(simultaneous max-T intervals) and the best point's interval on fresh deals."""

from __future__ import annotations

import numpy as np

from cardsim.coverage import Coverage, case
from cardsim.stats import wilson
from cardsim.studies.sweep import contrasts


def _points(rng: np.random.Generator, n: int, means: np.ndarray) -> np.ndarray:
    """Games x points of win/loss on shared deals: one uniform per game (common random numbers), so the
    points are strongly correlated, with the given true win rates."""
    u = rng.random((n, 1)) * 0.6 + rng.random((n, means.size)) * 0.4  # shared deal + own noise: not uniform
    # map to exact marginal rates: P(u < q) = means for the sum of U(0, .6) and U(0, .4)
    return (u < _quantile(means)).astype(float)


def _quantile(p: np.ndarray) -> np.ndarray:
    """Inverse CDF of U(0, 0.6) + U(0, 0.4) (a trapezoid on [0, 1])."""
    p = np.asarray(p, dtype=np.float64)
    a, b = 0.4, 0.6  # the smaller and larger widths
    q = np.empty_like(p)
    lo = p <= a / (2 * b)
    q[lo] = np.sqrt(2 * a * b * p[lo])
    mid = (p > a / (2 * b)) & (p <= 1 - a / (2 * b))
    q[mid] = p[mid] * b + a / 2
    hi = p > 1 - a / (2 * b)
    q[hi] = 1 - np.sqrt(2 * a * b * (1 - p[hi]))
    return q


@case("sweep best point", replicates=1000)
def sweep(replicates: int, seed: int) -> list[Coverage]:
    """16 equal points (the case where the naive best point's own interval covers least) and 16 points
    with a spread of true rates; 2,000 games per point; then 4 points on 10 deals (the normal max-T value
    alone held less often there). Rows: every contrast with the data's best point
    covered at once, and the best point's Wilson interval on 2,000 fresh games."""
    rng = np.random.default_rng(seed)
    out = []
    for label, means in (("16 equal points (0.30)", np.full(16, 0.30)),
                         ("16 points 0.25-0.33", np.linspace(0.25, 0.33, 16))):
        hit_c = hit_h = 0
        for r in range(replicates):
            v = _points(rng, 2000, means)
            c = contrasts(v, seed=r, draws=5_000)  # the CLI uses 200,000 draws; fewer keep the suite quick
            b = int(c["best"])
            truth = means - means[b]
            hit_c += bool(np.all((c["lo"] <= truth + 1e-12) & (truth - 1e-12 <= c["hi"])))
            fresh = _points(rng, 2000, means)[:, b]
            lo, hi = wilson(float(fresh.sum()), fresh.size)
            hit_h += lo <= means[b] <= hi
        out.append(Coverage("sweep: contrasts with the best point (max-T, all at once)", label, 0.95, replicates,
                            hit_c))
        out.append(Coverage("sweep: best point on fresh deals", label, 0.95, replicates, hit_h))
    # a few deals: the max-T value scaled to Student's t, a point without spread the bounded interval
    for label, means in (("4 equal points (0.5), 10 deals", np.full(4, 0.5)),
                         ("4 points 0.3-0.6, 10 deals", np.linspace(0.3, 0.6, 4))):
        hit_c = 0
        for r in range(replicates):
            c = contrasts(_points(rng, 10, means), seed=r, draws=5_000, bounds=(-1.0, 1.0))
            truth = means - means[int(c["best"])]
            hit_c += bool(np.all((c["lo"] <= truth + 1e-12) & (truth - 1e-12 <= c["hi"])))
        out.append(Coverage("sweep: contrasts with the best point (max-T, all at once)", label, 0.95, replicates,
                            hit_c))
    return out

