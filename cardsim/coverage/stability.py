"""Calibration of the meta-game's bootstrap (``cardsim.studies.meta.stability``) on simulated games whose
true mean payoffs are known: how often a wrong strategy is alpha-rank's first, or a strategy outside
the true Nash support is in the support, in at least 95% of the resamples of the deals (an error, as
a test's); how often a true support strategy is in the support in at most 5% of them; and, among the
samples that name a strategy at 95%, the share that names a right one (what a reader of one share
may hope for: it is far below 95% where strategies are close; no row where no sample named one)."""

from __future__ import annotations

import itertools

import numpy as np

from cardsim.coverage import Coverage, case
from cardsim.studies import meta as mt

STRATEGIES = 4
DEALS = 800
RESAMPLES = 100
NAMED = 0.95  # a share at or above this names a strategy (first, or in the support)

Values = dict[tuple[int, ...], dict[int, np.ndarray]]


def _truth(gap: float, top: float | None = None) -> np.ndarray:
    """A two-side game: strategy i beats j with chance 0.5 + gap (j - i), so 0 is the strongest; with
    ``top``, strategy 0 beats strategy 1 with chance 0.5 + top only (a near tie at the top)."""
    i, j = np.indices((STRATEGIES, STRATEGIES))
    a = 0.5 + gap * (j - i)
    if top is not None:
        a[0, 1], a[1, 0] = 0.5 + top, 0.5 - top
    return a


def _cycle(edge: float, below: float) -> np.ndarray:
    """A two-side game with a mixed equilibrium: 0, 1 and 2 beat each other in a cycle (1 beats 0,
    2 beats 1, 0 beats 2, each with chance 0.5 + edge), and 3 loses to each of them with chance
    0.5 + below: the true Nash mixture is 0, 1, 2 a third each, 3 out of it (barely, for a small
    ``below``)."""
    a = np.full((STRATEGIES, STRATEGIES), 0.5)
    for i, j in ((1, 0), (2, 1), (0, 2)):
        a[i, j], a[j, i] = 0.5 + edge, 0.5 - edge
    a[:3, 3], a[3, :3] = 0.5 + below, 0.5 - below
    return a


def _means(a: np.ndarray) -> dict[tuple[int, ...], dict[int, float]]:
    """The true payoff table of a two-side game of win chances ``a[i, j]``."""
    return {pr: {i: (a[i, pr[1] if i == pr[0] else pr[0]] if pr[0] != pr[1] else 0.5) for i in pr}
            for pr in itertools.combinations_with_replacement(range(STRATEGIES), 2)}


def _sample(a: np.ndarray, rng: np.random.Generator) -> Values:
    """Per-deal payoffs of every profile: a mirror profile shares each deal, otherwise one side wins it."""
    out: Values = {}
    for i, j in itertools.combinations_with_replacement(range(STRATEGIES), 2):
        if i == j:
            out[(i, i)] = {i: np.full(DEALS, 0.5)}
        else:
            w = (rng.random(DEALS) < a[i, j]).astype(float)
            out[(i, j)] = {i: w, j: 1.0 - w}
    return out


def _seat_chances(strength: np.ndarray, pr: tuple[int, ...]) -> np.ndarray:
    """A many-side game: each seat of profile ``pr`` wins a deal with chance proportional to
    ``exp(strength)`` of its strategy."""
    w = np.exp(strength[list(pr)])
    return w / w.sum()


def _many_means(strength: np.ndarray, k: int) -> dict[tuple[int, ...], dict[int, float]]:
    """The true payoff table of the ``k``-side game of :func:`_seat_chances` (a member's value: its seats'
    wins over its seats, as ``meta`` counts them)."""
    out: dict[tuple[int, ...], dict[int, float]] = {}
    for pr in mt.profiles(len(strength), k):
        p = _seat_chances(strength, pr)
        out[pr] = {i: float(p[np.array(pr) == i].sum()) / pr.count(i) for i in set(pr)}
    return out


def _many_sample(strength: np.ndarray, k: int, rng: np.random.Generator) -> Values:
    out: Values = {}
    for pr in mt.profiles(len(strength), k):
        seat = rng.choice(k, size=DEALS, p=_seat_chances(strength, pr))
        out[pr] = {i: np.isin(seat, np.flatnonzero(np.array(pr) == i)).astype(float) / pr.count(i)
                   for i in set(pr)}
    return out


def _first_rows(what: str, replicates: int, true_first: int, draw) -> list[Coverage]:
    """``replicates`` samples (``draw()``: per-deal payoffs and a bootstrap seed), alpha-rank's first share on
    each: the share of samples naming no wrong first at >= 95%, and among those naming one the share
    naming the true first."""
    wrong = named = 0
    for _ in range(replicates):
        values, n, k, seed = draw()
        _, first = mt.stability(values, n, k, 50.0, 50, RESAMPLES, seed, solve_nash=False)
        if first.max() >= NAMED:
            named += 1
            wrong += int(np.argmax(first)) != true_first
    rows = [Coverage("meta alpha-rank first", f"{what}: no wrong strategy first in >= 95% of {RESAMPLES} resamples",
                     0.95, replicates, replicates - wrong)]
    return rows + _given("meta alpha-rank first (when one is named)", f"{what}: the strategy first in >= 95% of "
                         f"{RESAMPLES} resamples is the true first", named, named - wrong)


def _given(interval: str, what: str, named: int, right: int) -> list[Coverage]:
    """The row of a share among the namings, none where no sample named one (a share of nothing)."""
    return [Coverage(interval, what, 0.95, named, right)] if named else []


@case("meta alpha-rank first", replicates=400)
def alpharank_first(replicates: int, seed: int) -> list[Coverage]:
    """Simulated two-side meta-games of four strategies with a known ranking, 800 deals: the share of
    samples in which no strategy but the true game's first is alpha-rank's first in >= 95% of 100
    resamples (nominal 0.95, as a test's: naming a strategy at 95% names a wrong one in at most 5%
    of samples); and among the samples that name one, the share naming the true first (far lower in
    near ties: "first in 95% of resamples" is not a 95% chance of being right)."""
    rng = np.random.default_rng(seed)
    out, given = [], []
    for gap, top in ((0.005, None), (0.01, None), (0.03, None), (0.05, 0.002), (0.05, 0.005)):
        a = _truth(gap, top)
        true_first = int(np.argmax(mt.alpharank(_means(a), STRATEGIES, 2)))
        tie = "" if top is None else f", but 0 beats 1 with chance 0.5 + {top:g}"
        rows = _first_rows(f"four strategies, i beats j with chance 0.5 + {gap:g} (j - i){tie}, {DEALS} deals",
                           replicates, true_first,
                           lambda a=a: (_sample(a, rng), STRATEGIES, 2, int(rng.integers(2**31))))
        out.append(rows[0])
        given += rows[1:]
    return out + given


@case("meta alpha-rank first, three sides", replicates=200)
def alpharank_first_three(replicates: int, seed: int) -> list[Coverage]:
    """As "meta alpha-rank first" in a three-side game (alpha-rank's opponents drawn without replacement,
    as in the shipped four-player scenario): each seat wins a deal with chance proportional to
    exp(strength) of its strategy, 800 deals."""
    rng = np.random.default_rng(seed)
    out, given = [], []
    for strength in ((0.3, 0.2, 0.1, 0.0), (0.06, 0.04, 0.02, 0.0), (0.3, 0.28, 0.1, 0.0), (0.3, 0.25, 0.1, 0.0)):
        st = np.array(strength)
        true_first = int(np.argmax(mt.alpharank(_many_means(st, 3), STRATEGIES, 3)))
        rows = _first_rows(f"four strategies of strengths {', '.join(f'{s:g}' for s in strength)}, three sides, "
                           f"{DEALS} deals", replicates, true_first,
                           lambda st=st: (_many_sample(st, 3, rng), STRATEGIES, 3, int(rng.integers(2**31))))
        out.append(rows[0])
        given += rows[1:]
    return out + given


@case("meta Nash support", replicates=200)
def nash_support(replicates: int, seed: int) -> list[Coverage]:
    """Simulated two-side meta-games of four strategies with a known Nash mixture (a dominant strategy,
    or a cycle of three with the fourth just outside), 800 deals, 100 resamples: the share of samples
    in which no strategy outside the true support is in the support in >= 95% of the resamples, and
    in which no strategy of the true support is in it in <= 5% of them (nominal 0.95 each, as a
    test's); and among the strategies in the support in >= 95% of the resamples, the share truly in
    it."""
    rng = np.random.default_rng(seed)
    games = [("i beats j with chance 0.5 + 0.03 (j - i)", _truth(0.03)),
             ("i beats j with chance 0.5 + 0.03 (j - i), but 0 beats 1 with chance 0.5 + 0.005", _truth(0.03, 0.005)),
             ("a cycle of three (each beats the next with chance 0.55), the fourth loses to each with chance 0.55",
              _cycle(0.05, 0.05)),
             ("a cycle of three (each beats the next with chance 0.55), the fourth loses to each with chance 0.505",
              _cycle(0.05, 0.005))]
    out, missed, given = [], [], []
    for what, a in games:
        truth = mt.nash(_means(a), STRATEGIES, 2) > mt.SUPPORT
        wrong_in = wrong_out = named = named_right = 0
        for _ in range(replicates):
            support, _ = mt.stability(_sample(a, rng), STRATEGIES, 2, 50.0, 50, RESAMPLES, int(rng.integers(2**31)))
            wrong_in += bool((support[~truth] >= NAMED).any())
            wrong_out += bool((support[truth] <= 1 - NAMED).any())
            named += int((support >= NAMED).sum())
            named_right += int((support[truth] >= NAMED).sum())
        what = f"four strategies, {what}, {DEALS} deals"
        out.append(Coverage("meta Nash support", f"{what}: no strategy outside the true support in the support in "
                            f">= 95% of {RESAMPLES} resamples", 0.95, replicates, replicates - wrong_in))
        missed.append(Coverage("meta Nash support", f"{what}: no strategy of the true support in the support in "
                               f"<= 5% of {RESAMPLES} resamples", 0.95, replicates, replicates - wrong_out))
        given += _given("meta Nash support (when one is named)", f"{what}: a strategy in the support in >= 95% "
                        f"of {RESAMPLES} resamples is in the true support", named, named_right)
    return out + missed + given
