"""Coverage of the intervals ``search`` and ``meta`` print, on the real kernels (and the one-step
contrasts' simultaneous intervals on simulated steps with known gains).

Every interval these studies print is a mean of per-deal values (a paired
difference, a payoff, an advantage, an exploitability) +- 1.96 SE, each
deal's seat rotations and seats folded into one value (the deal is the
cluster). The truth of a tactic's gain is not known in closed form, so each
case plays a *pool* of ``replicates x n`` deals through the same engine
(:mod:`cardsim.studies.evaluate`), takes the pool's mean as the truth, and
checks the interval of each disjoint block of ``n`` deals against it. The
pool's own error is ``1 / sqrt(replicates)`` of a block's standard error,
small beside the interval (with 1,000 replicates, 3% of it), and each
block is 1 / replicates of the pool.

The held-out gain is this interval on deals the search never saw: the
winner is chosen on other deals, so conditionally on the choice it is a
plain paired interval, which is what the cases measure.
"""

from __future__ import annotations

import numpy as np

from cardsim import scenario as sc
from cardsim.coverage import Coverage, case
from cardsim.rng import spawn_keys
from cardsim.studies import meta as mt
from cardsim.studies import space
from cardsim.studies.evaluate import Evaluator, estimate, gain_estimate, share_estimate

TUNED = {"name": "bidder", "first_at": 5, "next_at": 3, "cost_base": 9, "cost_top": 4, "cost_ready": 0,
         "cost_card": 0, "out_min": 0, "challenge_at": 12}
FOUND = {**TUNED, "first_at": 6, "cost_base": 12}


def _fourbid() -> sc.Scenario:
    return sc.from_dict({"scenario": {"name": "coverage", "game": "fourbid", "variant": "game", "games": 1},
                         "seats": {"policies": [TUNED, "collector", "collector", "collector"]},
                         "rules": {"target": 72}})


def _blocks(values: np.ndarray, ns: tuple[int, ...], reps: int, what: str, label: str,
            interval=estimate) -> list[Coverage]:
    """The coverage of ``interval`` (the one the command prints) on each disjoint block of ``n`` deals."""
    truth = float(values.mean())
    top = max(ns)
    out = []
    for n in ns:
        hit = 0
        for r in range(reps):
            e = interval(values[r * top: r * top + n])
            hit += e.lo <= truth <= e.hi
        out.append(Coverage(what, f"{label}, n={n:,} deals", 0.95, reps, int(hit)))
    return out


def _values(game: str, lineups, deals: int, seed: int) -> list[np.ndarray]:
    ev = Evaluator(game, chunk=1000)
    try:
        return ev.evaluate(lineups, spawn_keys(seed, 1)[0], 0, deals)
    finally:
        ev.close()


@case("search held-out paired gain", replicates=1000)
def heldout_gain(replicates: int, seed: int) -> list[Coverage]:
    """FOURBID, games to 72: a found bidder minus the tuned one against three collectors, in every
    seat rotation (the interval of the held-out gain; the one-step contrasts: :func:`one_step`)."""
    base = _fourbid()
    fld = space.Field(("collector",), (1.0,), keep=False)
    lus = [space.lineup(base, {"scenario": dict(base.raw["scenario"]), "rules": dict(base.raw["rules"]),
                               "seats": {"policies": [e, "collector", "collector", "collector"]}},
                        [0], fld, 0, "win") for e in (FOUND, TUNED)]
    ns = (50, 250)
    a, b = _values("fourbid", lus, replicates * max(ns), seed)
    return _blocks(a - b, ns, replicates, "search: paired gain (held-out)", "FOURBID found - tuned bidder",
                   _bounded)


def _bounded(v: np.ndarray):
    """The held-out gain's interval as search and meta print it: a difference of win shares, in [-1, 1]."""
    return gain_estimate(v, mt.GAIN_BOUNDS)


@case("meta payoff and exploitability", replicates=1000)
def meta_intervals(replicates: int, seed: int) -> list[Coverage]:
    """FOURBID meta-game of collector and tuned bidder: a payoff-table entry (tuned against three
    collectors) and the exploitability of the 50/50 mixture: every strategy's per-deal gain over the
    mixture's own value, built from every profile as ``cardsim meta`` builds it, with the intervals that
    hold for both at once (Bonferroni over the 2 strategies re-played), counted covered when both hold."""
    base = sc.from_dict({"scenario": {"name": "coverage", "game": "fourbid", "variant": "game", "games": 1},
                         "rules": {"target": 72},
                         "meta": {"strategies": ["collector", {"label": "tuned", "policy": TUNED}], "deals": 800}})
    p = mt.plan(base)
    ns = (mt.MIN_DEALS // 2, mt.MIN_DEALS)  # cardsim meta plays at least MIN_DEALS deals per profile (why: n/2)
    deals = replicates * max(ns)
    ev = Evaluator("fourbid", chunk=1000)
    try:
        t = mt.Table(p, ev, spawn_keys(seed, 1)[0], deals)
        t.fill(p.entries, mt.profiles(2, 4))
    finally:
        ev.close()
    x = np.array([0.5, 0.5])
    payoff = t.v[(0, 0, 0, 1)][1]
    own = sum(x[i] * t.against(i, x, 4) for i in (0, 1))
    gains = np.column_stack([t.against(j, x, 4) - own for j in (0, 1)])  # every strategy against the mixture
    truth = gains.mean(axis=0)
    out = _blocks(payoff, ns, replicates, "meta: payoff-table entry", "tuned vs three collectors", share_estimate)
    top = max(ns)
    for n in ns:  # both strategies' intervals (Bonferroni over the 2) must hold at once, as cardsim meta prints them
        hit = 0
        for r in range(replicates):
            es = [gain_estimate(gains[r * top: r * top + n, j], mt.GAIN_BOUNDS, 2) for j in (0, 1)]
            hit += all(e.lo <= tr <= e.hi for e, tr in zip(es, truth, strict=True))
        out.append(Coverage("meta: exploitability (held-out, every strategy at once)",
                            f"50/50 collector/tuned mixture, n={n:,} deals", 0.95, replicates, hit))
    return out


@case("held-out gain near its bound", replicates=2000)
def near_bound(replicates: int, seed: int) -> list[Coverage]:
    """A held-out gain of a share near its bound, n = 800 deals (simulated, so the truth is known): a
    FUBNUB team that wins nearly every deal in both seatings against a field that the mirror splits
    50/50 (+0.5 on a deal, 0 on a deal where each side wins one seating: truth 0.5 minus half the share
    of such deals; the audit's greedy population read "+50.0 (50.0 to 50.0)"), and a difference of
    wins near +1 (four rotations a deal, one arm winning 99.9%, the other 0.2%). The bounded interval
    (:func:`gain_estimate`) and, for comparison, the t interval it replaced."""
    rng = np.random.default_rng(seed)
    n = 800
    out = []
    for label, draw, truth in (
            ("+0.5 on 99.8% of deals, 0 otherwise (a team against the mirror)",
             lambda: np.where(rng.random(n) < 0.002, 0.0, 0.5), 0.5 - 0.001),
            ("+0.5 on 99% of deals, 0 otherwise", lambda: np.where(rng.random(n) < 0.01, 0.0, 0.5), 0.5 - 0.005),
            ("difference of wins near +1 (99.9% against 0.2%, 4 rotations a deal)",
             lambda: rng.binomial(4, 0.999, n) / 4 - rng.binomial(4, 0.002, n) / 4, 0.999 - 0.002)):
        hit_b = hit_t = 0
        for _ in range(replicates):
            v = draw()
            b, t = _bounded(v), estimate(v)
            hit_b += b.lo <= truth <= b.hi
            hit_t += t.lo <= truth <= t.hi
        out.append(Coverage("held-out gain near its bound (bounded)", f"{label}, n={n:,} deals", 0.95,
                            replicates, hit_b))
        out.append(Coverage("held-out gain near its bound (t interval, replaced)", f"{label}, n={n:,} deals", 0.95,
                            replicates, hit_t))
    return out


@case("search rule-design objective", replicates=1000)
def rule_objective(replicates: int, seed: int) -> list[Coverage]:
    """Gubs, three `simple` players: the first-player advantage (a rule-design objective: its
    per-game value is the first seat's result minus the mean over seats)."""
    base = sc.from_dict({"scenario": {"name": "coverage", "game": "gubs", "players": 3, "games": 1},
                         "seats": {"policy": "simple"}})
    lu = space.lineup(base, {"scenario": dict(base.raw["scenario"]), "rules": {},
                             "seats": {"policy": "simple"}}, [0], space.Field(), 0, "first")
    ns = (50, 250)
    (v,) = _values("gubs", [lu], replicates * max(ns), seed)
    return _blocks(v, ns, replicates, "search: rule-design objective", "Gubs first-player advantage, 3 players")


@case("search held-out gain to a target", replicates=1000)
def target_gain(replicates: int, seed: int, ns: tuple[int, ...] = (250, 2000)) -> list[Coverage]:
    """A rule-design search to a target (objective ``first``, goal ``zero``): the held-out gain of the best
    found over the baseline is the fall in the first seat's advantage's distance to 0, each deal's value
    ``win - 1/3`` with three players, linearised (:func:`cardsim.studies.search.paired_gain`), with the
    bounded interval (``gain_estimate``, bounds -2 to +2: ``Plan.gain_bounds``). The two rule settings play
    the same deals: half the deals share the first seat's draw. Truths are exact, ``|adv_baseline| -
    |adv_best|``, including advantages either side of the target and close to it, where the linearised
    sign can be misread. ``ns``: the held-out deals."""
    from cardsim.studies.search import paired_gain

    rng = np.random.default_rng(seed)
    out = []
    for best, baseline in ((0.02, 0.10), (-0.01, 0.03), (0.05, 0.05)):
        truth = abs(baseline) - abs(best)
        for n in ns:
            hit = 0
            for _ in range(replicates):
                u = rng.random(n)
                v = np.where(rng.random(n) < 0.5, u, rng.random(n))
                a = (u < 1 / 3 + best) - 1 / 3
                b = (v < 1 / 3 + baseline) - 1 / 3
                e = gain_estimate(paired_gain(a, b, 0.0), (-2.0, 2.0))
                hit += e.lo <= truth <= e.hi
            out.append(Coverage("search: held-out gain to a target (linearised, bounded)",
                                f"advantage {best:+.2f} found against {baseline:+.2f} (truth {truth:+.2f}), n={n:,} deals",
                                0.95, replicates, hit))
    return out


@case("search held-out gain to a target, few deals", replicates=1000)
def target_gain_few(replicates: int, seed: int) -> list[Coverage]:
    """:func:`target_gain`'s cases on 10, 30 and 100 held-out deals (``search.heldout`` may be as low as 10;
    that case's rows start at 250)."""
    return target_gain(replicates, seed, (10, 30, 100))


def _steps(rng: np.random.Generator, n: int, change: np.ndarray, rates: np.ndarray, base: float) -> np.ndarray:
    """Deals x steps of per-deal gains over the best, shaped like a search's one-step contrasts: a step
    plays the best's games except on some deals (a share ``change[j]``, nested: one uniform per deal, so
    the steps change the same deals and their gains are correlated), where it wins ``rates[j]`` of a
    deal's four rotations against the best's ``base``. Most deals give exactly 0 (identical games)."""
    u = rng.random((n, 1))
    best = rng.binomial(4, base, (n, 1)) / 4
    step = rng.binomial(4, rates, (n, rates.size)) / 4
    return np.where(u < change, step - best, 0.0)


def _one_step(replicates: int, seed: int, ns: tuple[int, ...], bounded: bool) -> list[Coverage]:
    """Eight steps around a best point: every step's interval must hold its true gain at once. Two layouts:
    steps that cost (change 5-40% of the deals, each worse), and steps of which half change nothing on
    average (their rate equals the best's). The true gain of step j is ``change_j * (rates_j - base)``.
    ``bounded``: the intervals of :func:`cardsim.studies.search.step_intervals` for a win's steps (each
    step's bounded interval at Bonferroni's level 0.05 / 8); else max-T (``stats.simultaneous_means``:
    what ``cardsim search`` prints for a length's steps). ``ns``: the held-out deals."""
    from cardsim.stats import simultaneous_means
    from cardsim.studies.search import step_intervals

    rng = np.random.default_rng(seed)
    base = 0.6
    change = np.array([0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4])
    name = ("search: one-step contrasts (Bonferroni, bounded, all at once)" if bounded else
            "search: one-step contrasts (max-T, all at once)")
    out = []
    for label, rates in (("8 steps that cost", np.array([0.5, 0.45, 0.55, 0.4, 0.5, 0.3, 0.58, 0.2])),
                         ("8 steps, 4 of them neutral", np.array([0.6, 0.5, 0.6, 0.45, 0.6, 0.55, 0.6, 0.62]))):
        truth = change * (rates - base)
        for n in ns:
            hit = 0
            for r in range(replicates):
                d = _steps(rng, n, change, rates, base)
                # the CLI draws 200,000 normals for max-T's critical value; 5,000 keep the suite quick
                s = step_intervals(list(d.T), (-1.0, 1.0)) if bounded else simultaneous_means(d, draws=5_000, seed=r)
                hit += bool(np.all((s["lo"] <= truth + 1e-12) & (truth - 1e-12 <= s["hi"])))  # type: ignore[operator]
            out.append(Coverage(name, f"{label}, n={n:,} deals", 0.95, replicates, hit))
    return out


@case("search one-step contrasts", replicates=2000)
def one_step(replicates: int, seed: int) -> list[Coverage]:
    """:func:`_one_step` with max-T (a length's steps) on 250 and 2,000 held-out deals."""
    return _one_step(replicates, seed, (250, 2000), bounded=False)


@case("search one-step contrasts, bounded", replicates=2000)
def one_step_bounded(replicates: int, seed: int) -> list[Coverage]:
    """:func:`_one_step` with the bounded intervals ``cardsim search`` prints for a win's steps, from 10
    held-out deals (``search.heldout``'s least) to 2,000. A step that changed no deal of the sample still
    gets an interval of its bounds' width."""
    return _one_step(replicates, seed, (10, 30, 100, 250, 2000), bounded=True)


@case("search one-step contrasts, few deals", replicates=2000)
def one_step_few(replicates: int, seed: int) -> list[Coverage]:
    """:func:`_one_step` with max-T on 10, 30 and 100 held-out deals: how it failed there on a win's steps
    (21.8-93.6%), which now get :func:`one_step_bounded`'s intervals. A step that changed no deal of the
    sample has no spread to measure; its interval is what ``stats.simultaneous_means`` gives then."""
    return _one_step(replicates, seed, (10, 30, 100), bounded=False)
