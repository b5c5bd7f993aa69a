"""Coverage of the paired difference (cardsim.stats.paired_difference: compare, card effects, search)."""

from __future__ import annotations

import numpy as np

from cardsim.coverage import Coverage, _kernels, case
from cardsim.stats import paired_difference, pairing_saved, wilson


@case("paired difference", replicates=4000)
def paired(replicates: int, seed: int) -> list[Coverage]:
    """Win/loss pairs sharing a deal effect and most of their randomness (the common random numbers of
    two arms), true difference +0.03; and seat-rotation values (4 correlated rows per deal) clustered by
    deal, where the second arm only ever gains (so the interval allows for losses never seen and is
    conservative). The bounded interval compare prints (-1 to +1)."""
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
            e = paired_difference(a, b, bounds=(-1.0, 1.0))
            hit += e.lo <= 0.03 <= e.hi
            # four rotations of each deal: the deal sets how much the second arm gains (0 to 0.06, mean
            # 0.03), so the four differences of a deal are correlated; clustered by deal
            g = np.repeat(np.arange(n // 4), 4)
            p_deal, gain = rng.beta(2, 2, n // 4)[g] * 0.9, rng.random(n // 4)[g] * 0.06
            u4 = rng.random(g.size)
            e = paired_difference((u4 < p_deal).astype(float), (u4 < p_deal + gain).astype(float), g, (-1.0, 1.0))
            hit_c += e.lo <= 0.03 <= e.hi
        out.append(Coverage("paired difference", f"simulated win pairs sharing 70% of their draws, true +0.03, {n:,} deals", 0.95, replicates, hit))
        out.append(Coverage("paired difference", f"simulated, 4 rotations per deal clustered by deal, {n:,} rows",
                            0.95, replicates, hit_c))
    return out


@case("variance saved by pairing", replicates=2000)
def variance_saved(replicates: int, seed: int) -> list[Coverage]:
    """compare's ``variance_saved``, 2 cov(a, b) / (var a + var b) of two arms' wins on the same deals,
    and its interval (delta method on Fisher's z, :func:`cardsim.stats.pairing_saved`): the second arm
    (win chance 0.43 against 0.40) replays the first's draw in a share of deals, the same draw (a
    positive correlation: pairing saves) or its mirror ``1 - u`` (never both win: pairing costs), and a
    fresh draw otherwise; the truth is exact, 2 s P / (var a + var b) with P = 0.4 x 0.57 the same draw's
    covariance and -0.4 x 0.43 the mirror's."""
    rng = np.random.default_rng(seed)
    pa, pb = 0.40, 0.43
    tot = pa * (1 - pa) + pb * (1 - pb)
    out = []
    for share, mirror in ((0.7, False), (0.0, False), (0.5, True)):
        truth = 2 * share * (-pa * pb if mirror else pa * (1 - pb)) / tot
        kind = (f"{share:.0%} of deals replay the draw's mirror (pairing costs)" if mirror else
                f"{share:.0%} of deals replay the same draw" if share else "independent arms")
        for n in (100, 1000):
            hit = 0
            for _ in range(replicates):
                u, v = rng.random(n), rng.random(n)
                same = rng.random(n) < share
                b = np.where(same, 1 - u if mirror else u, v) < pb
                e = pairing_saved((u < pa).astype(float), b.astype(float))
                hit += e.lo <= truth <= e.hi
            out.append(Coverage("variance saved by pairing (delta method, Fisher's z)",
                                f"{kind}, truth {truth:+.3f}, {n:,} deals", 0.95, replicates, int(hit)))
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
        e = paired_difference(w["1"].to_numpy(), w["0"].to_numpy(), bounds=(-1.0, 1.0))
        hit += e.lo <= 0 <= e.hi
        lo, hi = wilson(float(w["0"].sum()), w.height)
        hit_w += lo <= 0.5 <= hi
    return [Coverage("paired difference", "FUBNUB partner x4: seat 0 minus seat 1 (truth 0), 400 games", 0.95,
                     replicates, hit),
            Coverage("Wilson rate", "FUBNUB partner x4: team 0 wins (truth 1/2), 400 games", 0.95, replicates, hit_w)]




@case("paired difference, skewed", replicates=2000)
def paired_skewed(replicates: int, seed: int) -> list[Coverage]:
    """Differences of two wins (-1, 0 or +1 a deal) on 3 to 100 deals where one arm nearly always wins
    (a t interval covered 28% at 3 deals, where every deal often gives the same +1: zero width, and
    90.5-93.9% at 30-100 deals: a mean near its bound is skewed), where the arms rarely differ (+1 in 3%
    of deals: the difference rescaled as one share covered 85% at 100 deals), and where every deal
    differs. compare prints MOVER on the positive and negative parts (:func:`cardsim.stats.mean_ci`)."""
    rng = np.random.default_rng(seed)
    out = []
    for probs in ((0.0, 0.1, 0.9), (0.02, 0.03, 0.95), (0.05, 0.15, 0.8), (0.0, 0.97, 0.03), (0.45, 0.0, 0.55)):
        truth = probs[2] - probs[0]
        for n in (3, 10, 30, 100):
            x = rng.choice([-1.0, 0.0, 1.0], p=probs, size=(replicates, n))
            hit = 0
            for r in range(replicates):
                e = paired_difference(np.zeros(n), x[r], bounds=(-1.0, 1.0))
                hit += e.lo <= truth <= e.hi
            out.append(Coverage("paired difference", f"simulated wins, difference -1/0/+1 with chances "
                                f"{probs[0]:g}/{probs[1]:g}/{probs[2]:g} (true {truth:+.2f}), {n} deals", 0.95,
                                replicates, hit))
    return out
