"""Coverage of the card effects (cardsim.studies.cards): paired effects of several cards, marginal and
Bonferroni-simultaneous intervals."""

from __future__ import annotations

import numpy as np

from cardsim.coverage import Coverage, case
from cardsim.studies.cards import Plan, effects_table

EFFECTS = np.array([0.0, 0.0, -2.0, 1.0, 0.0, -5.0, 0.5, 0.0])


def _covered(rng: np.random.Generator, plan: Plan, n: int) -> tuple[np.ndarray, bool]:
    """One replicate on ``n`` shared seeds: which cards' pointwise intervals cover their effect, and
    whether the Bonferroni intervals cover all of them at once."""
    base = rng.gamma(4, 10, n)
    values = {"": {"length": base + rng.normal(0, 5, n)}}
    for c, e in zip(plan.cards, EFFECTS, strict=True):
        values[c] = {"length": base + e + rng.normal(0, 5, n)}
    t = effects_table(plan, values)
    lo, hi = t["lo"].to_numpy(), t["hi"].to_numpy()
    at_once = bool(np.all((t["lo_simultaneous"].to_numpy() <= EFFECTS) & (EFFECTS <= t["hi_simultaneous"].to_numpy())))
    return (lo <= EFFECTS) & (EFFECTS <= hi), at_once


@case("card effects", replicates=2000)
def card_effects(replicates: int, seed: int) -> list[Coverage]:
    """Eight cards with known effects on game length (0, -2, +1, -5, ... turns) on 2,000 shared seeds; the
    lengths share a per-game part (common random numbers) and are skewed, as real game lengths are. Then
    3 and 5 seeds: Student's t with games - 1 degrees of freedom (a normal Bonferroni interval covered
    44% at 3 games, 69% at 5)."""
    rng = np.random.default_rng(seed)
    cards = [f"card{i}" for i in range(EFFECTS.size)]
    plan = Plan(None, cards, "remove", 0, "holm", {}, False)
    out = []
    for n in (2000, 3, 5):
        marg = np.zeros(EFFECTS.size)
        simul = 0
        for _ in range(replicates):
            each, at_once = _covered(rng, plan, n)
            marg += each
            simul += at_once
        few = "" if n == 2000 else f", {n} games"
        shown = 4 if n == 2000 else 1
        out += [Coverage("card effect (paired, each card)", f"simulated {c}, true effect {e:+.1f} turns{few}", 0.95,
                         replicates, int(m)) for c, e, m in zip(cards[:shown], EFFECTS[:shown], marg[:shown], strict=True)]
        out.append(Coverage("card effect (Bonferroni, all 8 cards at once)", f"simulated, 8 cards{few}", 0.95,
                            replicates, simul))
    return out


#: the focus seat's change in win chance with each card taken out (a win rate: a bounded measure)
WIN_EFFECTS = np.array([0.0, 0.0, -0.1, 0.05, 0.0, 0.02, -0.02, 0.0])


@case("card effects, win rate", replicates=1000)
def card_effects_win(replicates: int, seed: int) -> list[Coverage]:
    """The focus seat's win rate (a bounded measure: each effect a difference of wins, the bounded paired
    interval, and at level 0.05 / 8 its Bonferroni interval, :func:`cardsim.studies.cards.effects_table`):
    eight cards that move a win chance of 30% (or 5%: a seat that rarely wins) by 0 to 10 points, each deck
    on the same seeds (a game's draw is shared by every deck in 80% of games), on 10, 100 and 1,000 seeds."""
    rng = np.random.default_rng(seed)
    cards = [f"card{i}" for i in range(WIN_EFFECTS.size)]
    plan = Plan(None, cards, "remove", 0, "holm", {}, False)
    out = []
    for p0 in (0.3, 0.05):
        truth = np.clip(p0 + WIN_EFFECTS, 0.0, 1.0) - p0
        for n in (10, 100, 1000):
            marg = np.zeros(truth.size)
            simul = 0
            for _ in range(replicates):
                u = rng.random(n)
                values = {"": {"focus seat win rate": (u < p0).astype(float)}}
                for c, e in zip(cards, truth, strict=True):
                    v = np.where(rng.random(n) < 0.8, u, rng.random(n))
                    values[c] = {"focus seat win rate": (v < p0 + e).astype(float)}
                t = effects_table(plan, values)
                lo, hi = t["lo"].to_numpy(), t["hi"].to_numpy()
                marg += (lo <= truth) & (truth <= hi)
                simul += bool(np.all((t["lo_simultaneous"].to_numpy() <= truth)
                                     & (truth <= t["hi_simultaneous"].to_numpy())))
            for i in (0, 2):
                out.append(Coverage("card effect on a win rate (bounded, each card)",
                                    f"win chance {p0:.0%}, card{i} {truth[i]:+.2f}, {n:,} games", 0.95, replicates,
                                    int(marg[i])))
            out.append(Coverage("card effect on a win rate (bounded, Bonferroni, all 8 cards at once)",
                                f"win chance {p0:.0%}, {n:,} games", 0.95, replicates, simul))
    return out
