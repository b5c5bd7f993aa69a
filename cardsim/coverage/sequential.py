"""Coverage of the stopping rules: ``--until`` (Wilson at the stopping time, and the summary's other
intervals over the games up to the stop) and decide mode (the anytime-valid confidence sequence at
every look, and its wrong-sign rate)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from cardsim.coverage import Coverage, _kernels, case
from cardsim.sequential import eb_path
from cardsim.stats import mean_ci, wilson
from cardsim.studies import until


@case("until", replicates=2000)
def until_rule(replicates: int, seed: int) -> list[Coverage]:
    """Win rates from rare to even, half-widths 0.05-0.01, looks every look_size games: the Wilson
    interval where the rule stops."""
    rng = np.random.default_rng(seed)
    out = []
    for w in (0.05, 0.02, 0.01):
        look = until.look_size(w)
        looks = list(range(look, until.worst_case(w) + 2 * look, look))
        for p in (0.02, 0.1, 0.25, 0.5):
            x = (rng.random((replicates, looks[-1])) < p).astype(float)
            hit = 0
            for row in x:
                s = until.first_stop(row, looks, w)
                hit += s is not None and s.lo <= p <= s.hi
            out.append(Coverage("--until (Wilson at the stopping time)", f"simulated p = {p}, +-{w}", 0.95,
                                replicates, hit))
    return out


@case("until, the other intervals", replicates=10000)
def until_others(replicates: int, seed: int) -> list[Coverage]:
    """The summary's other intervals after an ``--until`` stop: the rule stops on seat 0's win rate,
    and the run's summary then prints every seat's Wilson interval and the mean game length (a
    count, at least Garwood's) over the games up to the stop, each a fixed-n interval at a sample
    size the stop chose. Simulated 4-player games with known seat win rates (0.31, 0.27, 0.23,
    0.19, so the other seats' estimates are correlated with the stopping one), a rare seat (0.03)
    in a second set-up, and a length that depends on who won (Poisson(20 + 4 x winner)): each row
    counts the runs whose interval held its truth at the stop, seat by seat, and the length."""
    rng = np.random.default_rng(seed)
    out = []
    for probs in ((0.31, 0.27, 0.23, 0.19), (0.5, 0.3, 0.17, 0.03)):
        p = np.asarray(probs)
        truth_len = 20 + 4 * float((p * np.arange(4)).sum())
        for w in (0.05, 0.02):
            look = until.look_size(w)
            looks = list(range(look, until.worst_case(w) + 2 * look, look))
            games = looks[-1]
            hits = np.zeros(5, np.int64)
            for _ in range(replicates):
                winner = rng.choice(4, games, p=p)
                stop = until.first_stop((winner == 0).astype(float), looks, w)
                if stop is None:
                    continue
                g = stop.games
                for seat in range(1, 4):
                    lo, hi = wilson(float((winner[:g] == seat).sum()), g)
                    hits[seat] += lo <= p[seat] <= hi
                length = rng.poisson(20 + 4 * winner[:g]).astype(np.float64)
                e = mean_ci(length, bounds=(0.0, math.inf), count=True)
                hits[4] += e.lo <= truth_len <= e.hi
            what = f"seats' win rates {', '.join(f'{q:g}' for q in probs)}, stop on seat 0 +-{w}"
            for seat in range(1, 4):
                out.append(Coverage("--until: another seat's win rate (Wilson at the stop)",
                                    f"{what}: seat {seat} ({p[seat]:g})", 0.95, replicates, int(hits[seat])))
            out.append(Coverage("--until: the mean length (a count's interval at the stop)",
                                f"{what}: length Poisson(20 + 4 x winner), mean {truth_len:g}", 0.95, replicates,
                                int(hits[4])))
    return out


@case("until, FUBNUB", replicates=300)
def until_fubnub(replicates: int, seed: int) -> list[Coverage]:
    """FUBNUB with four partner players, --until 'winrate_s0 +-0.02' (team 0, truth 1/2 by symmetry)."""
    w = 0.02
    look = until.look_size(w)
    n = until.worst_case(w) + 2 * look
    looks = list(range(look, n + 1, look))
    hit = 0
    for r in range(replicates):
        oc = _kernels.outcomes("fubnub", _kernels.play("fubnub", seed * 100_003 + r, n, "partner"), "partner")
        x = oc.filter(pl.col("seat") == 0).sort("game")["win"].cast(pl.Float64).fill_null(np.nan).to_numpy()
        s = until.first_stop(x, looks, w)
        hit += s is not None and s.lo <= 0.5 <= s.hi
    return [Coverage("--until (Wilson at the stopping time)", "FUBNUB partner x4, team 0 (truth 1/2), +-0.02", 0.95,
                     replicates, hit)]


def _paired(rng: np.random.Generator, n: int, diff: float) -> np.ndarray:
    """Per-deal differences in [-1, 1] of two arms on shared deals (a mean of 4 rotations' win - win)."""
    deal = rng.beta(2, 2, (n, 1))
    u = rng.random((n, 4))
    a = (u < deal * 0.8).astype(float)
    b = (u < deal * 0.8 + diff).astype(float)
    return (b - a).mean(axis=1)


@case("decide", replicates=1000)
def decide(replicates: int, seed: int) -> list[Coverage]:
    """Decide mode: the confidence sequence covers the true difference at every look at once (looks every
    500 deals up to 20,000); with a true difference of 0 it stays undecided (nominal 95%), and with a
    positive one it never declares the wrong sign (nominal 1 - alpha/2 = 97.5%)."""
    rng = np.random.default_rng(seed)
    out = []
    looks = np.arange(500, 20_001, 500)
    for diff in (0.0, 0.02, 0.05):
        every = right = 0
        for _ in range(replicates):
            center, half = eb_path(_paired(rng, int(looks[-1]), diff), looks, lo=-1.0, hi=1.0)
            lo, hi = center - half, center + half
            every += bool(np.all((lo <= diff) & (diff <= hi)))
            first = np.flatnonzero((lo > 0) | (hi < 0))
            sign = 0 if first.size == 0 else (1 if lo[first[0]] > 0 else -1)
            right += sign == 0 if diff == 0 else sign >= 0
        out.append(Coverage("anytime-valid sequence (decide mode), at every look", f"simulated difference {diff:+.2f}",
                            0.95, replicates, every))
        out.append(Coverage("decide mode: no wrong sign" if diff else "decide mode: undecided when the truth is 0",
                            f"simulated difference {diff:+.2f}", 0.975 if diff else 0.95, replicates, right))
    return out


@case("decide, arms", replicates=1000)
def decide_arms(replicates: int, seed: int) -> list[Coverage]:
    """Decide mode's arms: each arm's win rate gets its own confidence sequence (compare after a
    data-dependent stop); it must hold the arm's true rate at every look at once (looks every 500
    deals up to 20,000; a deal's value is the mean of 4 rotations' wins, true rate 0.4 + diff)."""
    rng = np.random.default_rng(seed)
    out = []
    looks = np.arange(500, 20_001, 500)
    for diff in (0.0, 0.05):
        every = 0
        for _ in range(replicates):
            deal = rng.beta(2, 2, (int(looks[-1]), 1))
            v = (rng.random((int(looks[-1]), 4)) < deal * 0.8 + diff).mean(axis=1)
            center, half = eb_path(v, looks, lo=0.0, hi=1.0)
            every += bool(np.all((center - half <= 0.4 + diff) & (0.4 + diff <= center + half)))
        out.append(Coverage("anytime-valid sequence of an arm (decide mode), at every look",
                            f"simulated arm, true win rate {0.4 + diff:.2f}", 0.95, replicates, every))
    return out
