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
