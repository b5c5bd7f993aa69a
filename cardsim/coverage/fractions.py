"""Coverage of a bounded mean of values between 0 and 1 that are fractions, not 0/1 results
(cardsim.stats.mean_ci with bounds (0, 1): Korn-Graubard untruncated, Clopper-Pearson at the effective
number of results m(1-m)/SE², which exceeds the units where each value averages several results).

Two places print it: ``cardsim compare``'s Arms table (metric ``win``: the focus seat's win averaged over
the seat rotations of a deal, 0, 1/4, ..., 1 with four seats) and the balance metrics' shares of a game
(``final lead taken at``, ``lead change rate``: :func:`cardsim.metrics.progress_metrics`). Both are printed
from any number of deals or games; the shipped scenarios play thousands."""

from __future__ import annotations

import numpy as np

from cardsim.coverage import Coverage, case
from cardsim.stats import mean_ci

#: the sizes measured: the fewest a command prints the interval at, a few, and a run's size
SIZES = (3, 5, 10, 30, 200)


@case("bounded share of fractions", replicates=4000)
def bounded_fractions(replicates: int, seed: int) -> list[Coverage]:
    """An arm's win share over four seat rotations a deal (each deal's own chance, Beta around p with
    concentration 4, or every deal p; truth p), and two balance shares of a game: the lead change rate
    (changes ~ binomial(steps, 0.09) over steps = 6 + Poisson(6) steps; truth 0.09) and the final lead
    taken at (0 in 25% of games, else Beta(4, 3); truth 0.75 x 4/7)."""
    from cardsim.metrics import _mean_row

    rng = np.random.default_rng(seed)
    out = []
    arm = "arm's win share over rotations (mean_ci in [0, 1], Korn-Graubard untruncated)"
    for p, spread in ((0.5, True), (0.25, True), (0.25, False), (0.05, False)):
        what = "each deal's own chance, Beta(4p, 4(1-p))" if spread else "every deal the same chance"
        for n in SIZES:
            hit = 0
            for _ in range(replicates):
                pd = rng.beta(4 * p, 4 * (1 - p), n) if spread else np.full(n, p)
                e = mean_ci(rng.binomial(4, pd) / 4, bounds=(0.0, 1.0))
                hit += e.lo <= p <= e.hi
            out.append(Coverage(arm, f"focus seat wins {p:.0%}, 4 rotations a deal, {what}, {n:,} deals", 0.95,
                                replicates, hit))
    share = "balance metric: a share of a game (mean_ci in [0, 1], Korn-Graubard untruncated)"
    for label, truth, draw in (
            ("lead change rate: binomial(steps, 0.09) changes over 6 + Poisson(6) steps", 0.09,
             lambda n: (lambda s: rng.binomial(s, 0.09) / s)(6 + rng.poisson(6, n))),
            ("final lead taken at: 0 in 25% of games, else Beta(4, 3)", 0.75 * 4 / 7,
             lambda n: np.where(rng.random(n) < 0.25, 0.0, rng.beta(4, 3, n)))):
        for n in SIZES:
            hit = 0
            for _ in range(replicates):
                row = _mean_row("share", draw(n), "", (0.0, 1.0))
                hit += row["lo"] <= truth <= row["hi"]
            out.append(Coverage(share, f"{label} (truth {truth:.3f}), {n:,} games", 0.95, replicates, hit))
    return out
