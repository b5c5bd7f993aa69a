"""Coverage of the Wilson interval for a rate (cardsim.stats.wilson)."""

from __future__ import annotations

import numpy as np

from cardsim.coverage import Coverage, case
from cardsim.stats import wilson


@case("wilson rate", replicates=4000)
def wilson_rate(replicates: int, seed: int) -> list[Coverage]:
    """Binomial counts with known p, from rare to even, at the sample sizes runs use; and a seat's wins
    where a win is sometimes shared (counted 1/k), so its count is fractional."""
    rng = np.random.default_rng(seed)
    out = _binomial(rng, (0.02, 0.25, 0.5), (100, 1000, 20000), replicates)
    # a shared win counts 1/k to each winner (a seat's wins read 264.5): Wilson on a fractional count,
    # whose values in {0, 1/k, 1} spread less than a win's 0/1, so the interval can only be wider than
    # the truth needs; these rows measure by how much (the seats' answer and every win rate take it)
    for win, share, k, n in ((0.2, 0.1, 2, 100), (0.2, 0.1, 2, 1000), (0.01, 0.02, 3, 1000), (0.3, 0.3, 2, 20000)):
        v = rng.choice(np.array([0.0, 1 / k, 1.0]), size=(replicates, n), p=[1 - win - share, share, win])
        truth = win + share / k
        hit = sum(lo <= truth <= hi for lo, hi in (wilson(float(x), n) for x in v.sum(axis=1)))
        out.append(Coverage("Wilson rate, shared wins (1/k each)",
                            f"win {win}, shared by {k} {share}, n={n:,} (truth {truth:.3g})", 0.95, replicates, int(hit)))
    # a few events in the whole sample (a rare event, a short run): where Wilson's own near end at 1, 2 or 3
    # of n lies above the truth (exactly, at any n: 84.4% at n p = 0.17, 90% at 0.54, 92% at 1.0); its near
    # end there is now Clopper-Pearson's
    for lam, n in ((0.17, 1000), (0.54, 1000), (1.0, 1000), (0.17, 30), (1.0, 30)):
        k = rng.binomial(n, lam / n, size=replicates)
        hit = sum(lo <= lam / n <= hi for lo, hi in (wilson(int(x), n) for x in k))
        out.append(Coverage("Wilson rate, a few events", f"p={lam}/n, n={n:,} ({lam} expected)", 0.95, replicates,
                            int(hit)))
    return out


@case("wilson rate, a few games", replicates=4000)
def wilson_rate_few(replicates: int, seed: int) -> list[Coverage]:
    """:func:`wilson_rate`'s counts at 10 to 50 games: a run's seat win rates, a sweep's points and the
    balance table's Wilson rows are printed at any number of games (that case's rows start at 100).
    Wilson's coverage swings with n and p (the count is discrete), so these rows show the swing."""
    return _binomial(np.random.default_rng(seed), (0.1, 0.25, 0.5), (10, 20, 50), replicates)


def _binomial(rng: np.random.Generator, ps: tuple[float, ...], ns: tuple[int, ...], replicates: int) -> list[Coverage]:
    """Wilson on binomial counts with known ``p``, each of ``ps`` at each of ``ns`` trials."""
    out = []
    for p in ps:
        for n in ns:
            k = rng.binomial(n, p, size=replicates)
            hit = sum(lo <= p <= hi for lo, hi in (wilson(int(x), n) for x in k))
            out.append(Coverage("Wilson rate", f"p={p}, n={n:,}", 0.95, replicates, int(hit)))
    return out
