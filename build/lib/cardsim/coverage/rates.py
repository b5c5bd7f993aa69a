"""Coverage of the Wilson interval for a rate (cardsim.stats.wilson)."""

from __future__ import annotations

import numpy as np

from cardsim.coverage import Coverage, case
from cardsim.stats import wilson


@case("wilson rate", replicates=4000)
def wilson_rate(replicates: int, seed: int) -> list[Coverage]:
    """Binomial counts with known p, from rare to even, at the sample sizes runs use."""
    rng = np.random.default_rng(seed)
    out = []
    for p in (0.02, 0.25, 0.5):
        for n in (100, 1000, 20000):
            k = rng.binomial(n, p, size=replicates)
            hit = sum(lo <= p <= hi for lo, hi in (wilson(int(x), n) for x in k))
            out.append(Coverage("Wilson rate", f"p={p}, n={n:,}", 0.95, replicates, int(hit)))
    return out
