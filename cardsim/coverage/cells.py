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
    # a mirror cell as the games give it: one winner a finished deal, so the cell's value is the deal's
    # wins over the sides, at most 1/4, read as a share of 1/4 (meta.mirror_top); truth q/4
    for q, deals in ((0.999, 800), (0.99, 800), (0.9, 800), (0.999, 2000)):
        hit = 0
        for _ in range(replicates):
            v = (rng.random(deals) < q) / SIDES
            e = share_estimate(v, 1 / SIDES)
            hit += e.lo <= q / SIDES <= e.hi
        out.append(Coverage("meta payoff cell", f"simulated mirror cell read as a share of 1/4, a deal finished "
                            f"(one winner) with chance {q:g}, {deals:,} deals", 0.95, replicates, hit))
    return out
