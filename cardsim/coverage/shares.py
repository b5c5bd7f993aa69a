"""Coverage of a pair's win share clustered by deal (cardsim.stats.share_ci: the ratings' Pairs table)."""

from __future__ import annotations

import numpy as np

from cardsim.coverage import Coverage, case
from cardsim.stats import share_ci


def _pair(rng: np.random.Generator, p: float, deals: int, kind: str) -> np.ndarray:
    """Policy A's wins at two tables (ABAB and BABA) of each deal, true rate ``p``: ``positive``, the
    deal sets one chance for both tables (Beta(0.5, .) around p: strongly over-dispersed); ``negative``,
    at most one of the two tables is won (the deal favours one seating)."""
    if kind == "positive":
        pd = rng.beta(0.5, 0.5 * (1 - p) / p, deals)
        return (rng.random((deals, 2)) < pd[:, None]).astype(float)
    won = rng.random(deals) < 2 * p
    y = np.zeros((deals, 2))
    y[np.arange(deals), rng.integers(0, 2, deals)] = won
    return y


@case("pair win share", replicates=2000)
def pair_share(replicates: int, seed: int, ps: tuple[float, ...] = (0.002, 0.01, 0.05, 0.5),
               dealss: tuple[int, ...] = (100, 1000)) -> list[Coverage]:
    """A's share of wins in a pair, two tables per deal, from rare (0.2%) to even (``ps``), on ``dealss``."""
    rng = np.random.default_rng(seed)
    out = []
    for kind in ("positive", "negative"):
        for p in ps:
            for deals in dealss:
                cl = np.repeat(np.arange(deals), 2)
                hit = 0
                for _ in range(replicates):
                    e = share_ci(_pair(rng, p, deals, kind).ravel(), cl)
                    hit += e.lo <= p <= e.hi
                out.append(Coverage("pair win share (Korn-Graubard)",
                                    f"p={p}, {deals:,} deals x 2 tables, {kind} within-deal correlation", 0.95,
                                    replicates, hit))
    return out


@case("pair win share, a few deals", replicates=2000)
def pair_share_few(replicates: int, seed: int) -> list[Coverage]:
    """:func:`pair_share` at 3, 10 and 30 deals (``cardsim rate`` prints its Pairs table at any number of
    deals; that case's rows start at 100)."""
    return pair_share(replicates, seed, (0.05, 0.5), (3, 10, 30))
