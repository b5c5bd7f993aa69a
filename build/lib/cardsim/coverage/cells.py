"""Coverage of a meta payoff cell (cardsim.studies.evaluate.share_estimate): Clopper-Pearson at the
effective number of seat results of per-deal shares, from a few wins in 2,000 deals to common shares."""

from __future__ import annotations

import numpy as np

from cardsim.coverage import Coverage, case
from cardsim.studies.evaluate import share_estimate

SIDES = 4


@case("meta payoff cell", replicates=2000)
def payoff_cell(replicates: int, seed: int) -> list[Coverage]:
    """One strategy at each of four seats (a mirror cell): each seat wins a deal with chance p, the
    cell's per-deal value is the strategy's share of the deal's wins (its seats' wins / 4); truth p."""
    rng = np.random.default_rng(seed)
    out = []
    for p, deals in ((0.0002, 2000), (0.0005, 2000), (0.002, 2000), (0.003, 2000), (0.01, 500), (0.25, 200),
                     (0.995, 2000)):
        hit = 0
        for _ in range(replicates):
            v = (rng.random((deals, SIDES)) < p).sum(axis=1) / SIDES
            e = share_estimate(v)
            hit += e.lo <= p <= e.hi
        out.append(Coverage("meta payoff cell", f"simulated mirror cell, each seat wins with chance {p:g}, "
                            f"{deals:,} deals", 0.95, replicates, hit))
    return out
