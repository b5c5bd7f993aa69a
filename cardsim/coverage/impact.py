"""Coverage of a group's rate minus the rest's, clustered by game (cardsim.stats.rate_difference, the
two rates' Wilson intervals combined by MOVER, as the tables print it): Gubs' card impact (seats that
drew a card against seats that did not) and Turtle's lift (the revealing seat's win rate minus the win
rate behind a revealed number card)."""

from __future__ import annotations

from collections.abc import Callable
from math import comb, exp

import numpy as np

from cardsim.coverage import Coverage, case
from cardsim.stats import effective_size, rate_difference, wilson

SEATS = 4


def win_chance(flag: int, q: float, delta: float) -> float:
    """Exact chance that a seat wins when it holds the card (``flag``), each other seat holds it
    with chance ``q``, and the one winner is drawn with weight 1 + ``delta`` for a holder, 1 otherwise."""
    w = 1 + delta * flag
    return sum(comb(SEATS - 1, k) * q ** k * (1 - q) ** (SEATS - 1 - k) * w / (w + k * (1 + delta) + SEATS - 1 - k)
               for k in range(SEATS))


def _games(rng: np.random.Generator, games: int, flags: np.ndarray, delta: float) -> np.ndarray:
    """The winning seat of each game (one winner, drawn with weight 1 + delta for a holder)."""
    w = 1 + delta * flags
    u = rng.random(games) * w.sum(axis=1)
    return (np.cumsum(w, axis=1) < u[:, None]).sum(axis=1)


@case("rate difference", replicates=2000)
def rate_difference_coverage(replicates: int, seed: int) -> list[Coverage]:
    """Seats that hold a card win more often (weight 1.5); one winner a game, so the seats of a game
    are negatively correlated. Drew vs not (Gubs' card impact: one row per seat, each seat holds the
    card with chance 0.3; a rarer card, 0.05) and lift (Turtle: a seat reveals the card Poisson(0.8)
    times and number cards Poisson(6) times, every reveal a row; lift over the number cards' rate,
    1/4 by symmetry). 30 games: a small run, where a side without a win has no spread (the t interval
    the tables printed before covered 83.7% there with the card held by 5% of seats, 2,000 replicates).
    Where the seats of a game compete for one win the rates' clustered variances are below the
    binomial ones, which Wilson at the effective size n / max(1, deff) does not use: 98-99.5%, as the
    drew rate below."""
    rng = np.random.default_rng(seed)
    delta = 0.5
    out = []
    for games in (30, 500, 5000):
        for q in (0.3, 0.05):
            truth = win_chance(1, q, delta) - win_chance(0, q, delta)
            hit = 0
            for _ in range(replicates):
                flags = (rng.random((games, SEATS)) < q).astype(np.int64)
                won = _games(rng, games, flags, delta)
                w_in = flags[np.arange(games), won].astype(np.float64)
                e = rate_difference(w_in, flags.sum(axis=1), np.ones(games), np.full(games, float(SEATS)), mover=True)
                hit += e.lo <= truth <= e.hi
            out.append(Coverage("rate difference (drew vs not)", f"simulated, holders win 1.5x as often, card held "
                                f"by {q:.0%} of seats, {games:,} games", 0.95, replicates, hit))
        hit = _lift_hits(rng, replicates, games, delta, 1 - exp(-0.8), lambda r, g: r.poisson(0.8, (g, SEATS)))
        out.append(Coverage("rate difference (lift)", f"simulated reveals, Poisson(0.8) of the card and Poisson(6) "
                            f"number cards a seat, {games:,} games", 0.95, replicates, hit))
    out += _burst_lifts(rng, replicates, delta)
    return out


def _lift_hits(rng: np.random.Generator, replicates: int, games: int, delta: float, p1: float,
               reveals: Callable[[np.random.Generator, int], np.ndarray]) -> int:
    """How many of ``replicates`` lifts (Turtle's: the revealing seats' win rate minus the rate behind
    Poisson(6) number cards a seat) held the truth, the card's reveals a seat drawn by ``reveals``
    (a seat reveals it at all with chance ``p1``; holders win with weight 1 + ``delta``)."""
    truth = win_chance(1, p1, delta) - 1 / SEATS
    hit = 0
    for _ in range(replicates):
        m = reveals(rng, games)
        r = rng.poisson(6.0, (games, SEATS))
        won = _games(rng, games, (m > 0).astype(np.int64), delta)
        at = np.arange(games)
        e = rate_difference(m[at, won].astype(np.float64), m.sum(axis=1), (m + r)[at, won].astype(np.float64),
                            (m + r).sum(axis=1), mover=True)
        hit += e.lo <= truth <= e.hi
    return hit


def _burst_lifts(rng: np.random.Generator, replicates: int, delta: float) -> list[Coverage]:
    """Lift of a rare card revealed in bursts: 5% of seats reveal it, 1 + Poisson(3) times each, so
    in a small run its few revealers often all lost, and a rate of 0 has no spread to estimate a
    design effect from: the rate's effective size is then its games, not its reveals, with
    Clopper-Pearson's end (:func:`cardsim.stats.wilson`). At its reveals the lift covered 81.6% at
    30 games; at its games with Wilson's own end, 93.1% (2,000 replicates each)."""
    out = []
    for games in (30, 500):
        hit = _lift_hits(rng, replicates, games, delta, 0.05, lambda r, g: np.where(
            r.random((g, SEATS)) < 0.05, 1 + r.poisson(3.0, (g, SEATS)), 0))
        out.append(Coverage("rate difference (lift)", f"simulated reveals in bursts: 5% of seats reveal the card "
                            f"1 + Poisson(3) times, {games:,} games", 0.95, replicates, hit))
    return out


@case("drew rate (clustered Wilson)", replicates=2000)
def drew_rate_coverage(replicates: int, seed: int) -> list[Coverage]:
    """Gubs' card table: the win rate of the seats that drew a card, Wilson at its effective size (the
    seats of a game are one cluster: at most one of them wins), in the simulation above."""
    rng = np.random.default_rng(seed)
    delta, out = 0.5, []
    for games in (500, 5000):
        for q in (0.3, 0.05):
            truth, hit = win_chance(1, q, delta), 0
            for _ in range(replicates):
                flags = (rng.random((games, SEATS)) < q).astype(np.int64)
                won = _games(rng, games, flags, delta)
                n_in, w_in = flags.sum(axis=1).astype(np.float64), flags[np.arange(games), won].astype(np.float64)
                ne = effective_size(n_in, w_in)
                lo, hi = wilson(w_in.sum() / n_in.sum() * ne, ne)
                hit += lo <= truth <= hi
            out.append(Coverage("drew rate (Wilson at the effective size, clustered by game)",
                                f"simulated, holders win 1.5x as often, card held by {q:.0%} of seats, {games:,} games",
                                0.95, replicates, hit))
    return out
