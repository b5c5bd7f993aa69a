"""Coverage of the card effects (cardsim.studies.cards): paired effects of several cards, marginal and
Bonferroni-simultaneous intervals."""

from __future__ import annotations

import numpy as np

from cardsim.coverage import Coverage, case
from cardsim.studies.cards import Plan, effects_table

EFFECTS = np.array([0.0, 0.0, -2.0, 1.0, 0.0, -5.0, 0.5, 0.0])


@case("card effects", replicates=2000)
def card_effects(replicates: int, seed: int) -> list[Coverage]:
    """Eight cards with known effects on game length (0, -2, +1, -5, ... turns) on 2,000 shared seeds; the
    lengths share a per-game part (common random numbers) and are skewed, as real game lengths are."""
    rng = np.random.default_rng(seed)
    cards = [f"card{i}" for i in range(EFFECTS.size)]
    plan = Plan(None, cards, "remove", 0, "holm", {}, False)
    marg = np.zeros(EFFECTS.size)
    simul = 0
    n = 2000
    for _ in range(replicates):
        base = rng.gamma(4, 10, n)
        values = {"": {"length": base + rng.normal(0, 5, n)}}
        for c, e in zip(cards, EFFECTS, strict=True):
            values[c] = {"length": base + e + rng.normal(0, 5, n)}
        t = effects_table(plan, values)
        lo, hi = t["lo"].to_numpy(), t["hi"].to_numpy()
        marg += (lo <= EFFECTS) & (EFFECTS <= hi)
        simul += bool(np.all((t["lo_simultaneous"].to_numpy() <= EFFECTS) & (EFFECTS <= t["hi_simultaneous"].to_numpy())))
    out = [Coverage("card effect (paired, each card)", f"simulated {c}, true effect {e:+.1f} turns", 0.95, replicates,
                    int(m)) for c, e, m in zip(cards[:4], EFFECTS[:4], marg[:4], strict=True)]
    out.append(Coverage("card effect (Bonferroni, all 8 cards at once)", "simulated, 8 cards", 0.95, replicates, simul))
    # a few seeds: Student's t with games - 1 degrees of freedom (a normal Bonferroni interval covered
    # 44% at 3 games, 69% at 5)
    for n in (3, 5):
        marg0 = simul = 0
        for _ in range(replicates):
            base = rng.gamma(4, 10, n)
            values = {"": {"length": base + rng.normal(0, 5, n)}}
            for c, e in zip(cards, EFFECTS, strict=True):
                values[c] = {"length": base + e + rng.normal(0, 5, n)}
            t = effects_table(plan, values)
            marg0 += bool(t["lo"][0] <= EFFECTS[0] <= t["hi"][0])
            simul += bool(np.all((t["lo_simultaneous"].to_numpy() <= EFFECTS)
                                 & (EFFECTS <= t["hi_simultaneous"].to_numpy())))
        out.append(Coverage("card effect (paired, each card)", f"simulated card0, true effect +0.0 turns, {n} games",
                            0.95, replicates, marg0))
        out.append(Coverage("card effect (Bonferroni, all 8 cards at once)", f"simulated, 8 cards, {n} games", 0.95,
                            replicates, simul))
    return out


