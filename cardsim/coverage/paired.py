"""Coverage of the paired difference (cardsim.stats.paired_difference: compare, card effects, search)."""

from __future__ import annotations

import numpy as np

from cardsim.coverage import Coverage, _kernels, case
from cardsim.stats import paired_difference, wilson


@case("paired difference", replicates=4000)
def paired(replicates: int, seed: int) -> list[Coverage]:
    """Win/loss pairs sharing a deal effect and most of their randomness (the common random numbers of
    two arms), true difference +0.03; and seat-rotation values (4 correlated rows per deal) clustered by
    deal. (When one arm only ever gains, every difference 0 or +1, and such games are rare, the interval
    is Wald's for a rare rate: 3% of 1,000 deals covered 93.5%. Play more deals then.)"""
    rng = np.random.default_rng(seed)
    out = []
    for n in (1000, 5000):
        hit = hit_c = 0
        for _ in range(replicates):
            u = rng.random(n)
            deal = rng.beta(2, 2, n) * 0.9  # how good the deal is for the focus seat
            # the second arm replays the same random draw in 70% of games, a fresh one otherwise, so the
            # differences take both signs (as real arms' do); its win chance is 0.03 higher
            v = np.where(rng.random(n) < 0.7, u, rng.random(n))
            a = (u < deal).astype(float)
            b = (v < deal + 0.03).astype(float)
            e = paired_difference(a, b)
            hit += e.lo <= 0.03 <= e.hi
            # four rotations of each deal: the deal sets how much the second arm gains (0 to 0.06, mean
            # 0.03), so the four differences of a deal are correlated; clustered by deal
            g = np.repeat(np.arange(n // 4), 4)
            p_deal, gain = rng.beta(2, 2, n // 4)[g] * 0.9, rng.random(n // 4)[g] * 0.06
            u4 = rng.random(g.size)
            e = paired_difference((u4 < p_deal).astype(float), (u4 < p_deal + gain).astype(float), g)
            hit_c += e.lo <= 0.03 <= e.hi
        out.append(Coverage("paired difference", f"simulated win pairs sharing 70% of their draws, true +0.03, {n:,} deals", 0.95, replicates, hit))
        out.append(Coverage("paired difference", f"simulated, 4 rotations per deal clustered by deal, {n:,} rows",
                            0.95, replicates, hit_c))
    return out


@case("paired difference, FUBNUB seats", replicates=1000)
def paired_fubnub(replicates: int, seed: int) -> list[Coverage]:
    """FUBNUB with four partner players: seat 0's win minus seat 1's, game by game, has mean 0 (the teams
    are symmetric); team 0's win rate is 1/2 (Wilson, on the same games)."""
    hit = hit_w = 0
    for r in range(replicates):
        tables = _kernels.play("fubnub", seed * 100_003 + r, 400, "partner")
        oc = _kernels.outcomes("fubnub", tables, "partner").drop_nulls("win")
        w = oc.pivot(on="seat", index="game", values="win").sort("game")
        e = paired_difference(w["1"].to_numpy(), w["0"].to_numpy())
        hit += e.lo <= 0 <= e.hi
        lo, hi = wilson(float(w["0"].sum()), w.height)
        hit_w += lo <= 0.5 <= hi
    return [Coverage("paired difference", "FUBNUB partner x4: seat 0 minus seat 1 (truth 0), 400 games", 0.95,
                     replicates, hit),
            Coverage("Wilson rate", "FUBNUB partner x4: team 0 wins (truth 1/2), 400 games", 0.95, replicates, hit_w)]




@case("paired difference, a few games", replicates=2000)
def paired_few(replicates: int, seed: int) -> list[Coverage]:
    """Differences of two wins (-1, 0 or +1 a game) where one arm nearly always wins, on 3, 5 and 10
    games: every game often gives the same +1, where a t interval has zero width (it covered 28% at 3
    games with chances 0 / 10% / 90%); there the bounded interval of a difference without spread
    (:func:`cardsim.stats.alike_interval`) stands in, and elsewhere Student's t cut to [-1, 1]."""
    rng = np.random.default_rng(seed)
    out = []
    for probs in ((0.0, 0.1, 0.9), (0.05, 0.15, 0.8)):
        truth = probs[2] - probs[0]
        for n in (3, 5, 10):
            x = rng.choice([-1.0, 0.0, 1.0], p=probs, size=(replicates, n))
            hit = 0
            for r in range(replicates):
                e = paired_difference(np.zeros(n), x[r], bounds=(-1.0, 1.0))
                hit += e.lo <= truth <= e.hi
            out.append(Coverage("paired difference", f"simulated wins, difference -1/0/+1 with chances "
                                f"{probs[0]:g}/{probs[1]:g}/{probs[2]:g} (true {truth:+.2f}), {n} games", 0.95,
                                replicates, hit))
    return out
