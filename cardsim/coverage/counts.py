"""Coverage of per-game means: a count that is mostly zero (Turtle's reveals of an action card per
game, cardsim.stats.count_rate_ci), a value every game gives (game length, events, a seat's
score: Student's t of cardsim.stats.mean_exprs), and the summaries' means of a count, per game or
per hand (``count=True``: at least Garwood's interval, never 0-0 where no game showed one)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import polars as pl

from cardsim.coverage import Coverage, case
from cardsim.stats import count_rate_ci, mean_ci, mean_exprs, mean_table, pooled_dispersion


def _turtle_like(rng: np.random.Generator, games: int, size: int) -> np.ndarray:
    """An action card's reveals a game as a 4-player full Turtle run gives them (1M games of the
    shipped scenario: 0.77 a game, in 53% of games, dispersion 1.1): revealed in a game with chance
    0.53, then 1 + Poisson(0.45) times. Mean 0.53 x 1.45 = 0.7685."""
    return (rng.random((size, games)) < 0.53) * (1 + rng.poisson(0.45, (size, games)))


def _clumped(rng: np.random.Generator, lam: float, games: int, size: int) -> np.ndarray:
    """Poisson(lam / 2) clumps a game, each of 1, 2 or 3 reveals (mean 2): mean lam, dispersion 2.33."""
    clumps = rng.poisson(lam / 2, (size, games))
    out = np.zeros((size, games), np.int64)
    for k in range(1, int(clumps.max(initial=0)) + 1):
        out += (clumps >= k) * rng.integers(1, 4, (size, games))
    return out


#: the other cards of a simulated card table: seven, each in about half the games as Turtle's
COMPANIONS = (0.7685,) * 7


def _counts(rng: np.random.Generator, kind: str, lam: float, games: int, size: int) -> np.ndarray:
    """``size`` runs of ``games`` counts of mean ``lam`` (Turtle-like: always 0.7685)."""
    if kind == "Poisson":
        return rng.poisson(lam, (size, games))
    if kind == "Turtle-like":
        return _turtle_like(rng, games, size)
    return _clumped(rng, lam, games, size)


@case("count per game", replicates=2000)
def count_per_game(replicates: int, seed: int) -> list[Coverage]:
    """A count per game, mostly zero, with a known mean: Poisson from 3 expected events in a run to
    thousands; the Turtle-like count of a real run; and clumps of events (a card revealed again in
    the same game), where few events cannot show how clumped they are. Each count is one card of a
    table of eight whose seven others are common (revealed in about half the games, as Turtle's
    action cards) and clump as it does; the interval is Turtle's card table's: the count's own
    dispersion, and below 20 events at least the table's (``pooled_dispersion``). The rows
    "clumped, alone" take the count's own dispersion only (``floor`` 1), for comparison."""
    rng = np.random.default_rng(seed)
    setups = [("Poisson", lam, n) for lam, n in ((0.003, 1000), (0.01, 500), (0.1, 200), (0.5, 2000))]
    setups += [("Turtle-like", 0.7685, n) for n in (20, 200, 2000)]
    setups += [("clumped", lam, n) for lam, n in ((0.01, 500), (0.1, 200), (0.1, 50), (0.5, 2000))]
    setups += [("clumped among Poisson", 0.01, 500)]  # the assumption broken: the others do not clump
    out = []
    for kind, lam, games in setups:
        c = _counts(rng, kind.split()[0], lam, games, replicates).astype(np.float64)
        table = "Poisson" if kind == "clumped among Poisson" else kind
        others = [_counts(rng, table, m, games, replicates).astype(np.float64) for m in COMPANIONS]
        s, q = c.sum(axis=1), (c * c).sum(axis=1)
        so = np.stack([o.sum(axis=1) for o in others], axis=1)
        qo = np.stack([(o * o).sum(axis=1) for o in others], axis=1)
        floor = np.array([pooled_dispersion(np.append(so[r], s[r]), np.append(qo[r], q[r]), games)
                          for r in range(replicates)])
        lo, hi = count_rate_ci(s, q, games, floor=floor)
        hit = int(((lo <= lam) & (lam <= hi)).sum())
        what = {"Poisson": f"Poisson({lam}) a game", "Turtle-like": "Turtle-like reveals (0.77 a game, 53% of games)",
                "clumped": f"clumps of 1-3, {lam} a game",
                "clumped among Poisson": f"clumps of 1-3, {lam} a game, the table's other cards Poisson"}[kind]
        out.append(Coverage("count per game (Garwood at the effective count, at least the table's dispersion)",
                            f"{what}, {games:,} games ({lam * games:,.0f} expected)", 0.95, replicates, hit))
        if kind == "clumped":
            lo, hi = count_rate_ci(s, q, games)
            out.append(Coverage("count per game (Garwood at the count's own dispersion, alone)",
                                f"{what}, {games:,} games ({lam * games:,.0f} expected)", 0.95, replicates,
                                int(((lo <= lam) & (lam <= hi)).sum())))
    return out


@case("per-game mean", replicates=2000)
def per_game_mean(replicates: int, seed: int) -> list[Coverage]:
    """A value every game gives, skewed like a game's length (geometric, mean 20) or small and
    discrete like a seat's final score (binomial(5, 0.3)), at 10 to 2,000 games: the summaries' t
    interval (``mean_exprs``) computed by polars over each replicate's games."""
    rng = np.random.default_rng(seed)
    out = []
    for kind, truth in (("geometric length, mean 20", 20.0), ("score binomial(5, 0.3)", 1.5)):
        for games in (10, 30, 100, 2000):
            if truth == 20.0:
                x = rng.geometric(1 / 20, (replicates, games))
            else:
                x = rng.binomial(5, 0.3, (replicates, games))
            frame = pl.DataFrame({"rep": np.repeat(np.arange(replicates), games), "x": x.ravel().astype(np.float64)})
            t = frame.group_by("rep").agg(*mean_exprs("x"))
            hit = int(((t["lo"] <= truth) & (truth <= t["hi"])).sum())
            out.append(Coverage("per-game mean (t, Hall's skewness correction)", f"{kind}, {games:,} games", 0.95,
                                replicates, hit))
            # the same values through mean_ci: a value without a count's floor (a balance metric's ratio)
            # and a count (balance duration and lead changes, compare's and sweep's lengths)
            for count, label in ((False, "mean of one value a unit (mean_ci, Hall)"),
                                 (True, "mean of a count a unit (mean_ci, Hall, at least Garwood)")):
                est = [mean_ci(row, bounds=(0.0, math.inf), count=count) for row in x.astype(np.float64)]
                hit = sum(e.lo <= truth <= e.hi for e in est)
                out.append(Coverage(label, f"{kind}, {games:,} games", 0.95, replicates, hit))
    # below 10 games (a run may be as short as one game): a value without a count's floor gets no interval
    # there in the balance table (its largest deficit overcome, cardsim.metrics.SKEWED_MIN_GAMES); a count does
    for kind, truth in (("geometric length, mean 20", 20.0), ("score binomial(5, 0.3)", 1.5)):
        for games in (3, 5):
            x = (rng.geometric(1 / 20, (replicates, games)) if truth == 20.0 else
                 rng.binomial(5, 0.3, (replicates, games))).astype(np.float64)
            for count, label in ((False, "mean of one value a unit (mean_ci, Hall)"),
                                 (True, "mean of a count a unit (mean_ci, Hall, at least Garwood)")):
                hit = sum(e.lo <= truth <= e.hi for e in (mean_ci(row, bounds=(0.0, math.inf), count=count) for row in x))
                out.append(Coverage(label, f"{kind}, {games:,} games", 0.95, replicates, hit))
    return out


@case("summary count mean", replicates=2000)
def summary_count_mean(replicates: int, seed: int) -> list[Coverage]:
    """A count that is rare but can happen (Restart Game cards, discards, skipped draws, reshuffles):
    0.02 a game, so most runs of 10 or 30 games show none. The summaries' interval of a count
    (``mean_exprs(count=True)`` one value a game, ``mean_table(count=True)`` per hand clustered by game):
    the t interval widened to at least Garwood's at the effective count, and where no game showed a
    different count Garwood's at that count (the t interval alone read 0-0 there: 17% covered at 10
    games, 46% at 30; per hand the plain t covered 92-94% at 500 games, 10 events). Per hand: games of
    4 to 12 hands (8 on average), each hand Poisson(0.0025), so 0.02 a game on average."""
    rng = np.random.default_rng(seed)
    out = []
    lam = 0.02
    for games in (10, 30, 100, 500):
        x = rng.poisson(lam, (replicates, games)).astype(np.float64)
        out.append(_count_coverage(x, lam, f"Poisson({lam}) a game, {games:,} games ({lam * games:g} expected)"))
    per = lam / 8
    for games in (10, 30, 100, 500):
        out.append(_hand_coverage(rng, games, replicates, lambda k: rng.poisson(per, k), per,
                                  f"Poisson({per}) a hand, 4-12 hands a game, {games:,} games ({lam * games:g} "
                                  "expected)"))
    # common counts, where Garwood's interval at the effective count is about the t interval
    for games in (10, 100):
        out.append(_count_coverage(rng.geometric(1 / 20, (replicates, games)).astype(np.float64), 20.0,
                                   f"geometric length, mean 20, {games:,} games"))
        out.append(_count_coverage(rng.binomial(5, 0.3, (replicates, games)).astype(np.float64), 1.5,
                                   f"score binomial(5, 0.3), {games:,} games"))
        out.append(_hand_coverage(rng, games, replicates, lambda k: rng.binomial(5, 0.25, k), 1.25,
                                  f"tricks binomial(5, 0.25) a hand, 4-12 hands a game, {games:,} games"))
    return out


def _count_coverage(x: np.ndarray, truth: float, what: str) -> Coverage:
    """Coverage of ``mean_exprs(count=True)`` over the rows of ``x`` (replicates x games)."""
    replicates, games = x.shape
    frame = pl.DataFrame({"rep": np.repeat(np.arange(replicates), games), "x": x.ravel()})
    t = frame.group_by("rep").agg(*mean_exprs("x", count=True))
    hit = int(((t["lo"] <= truth) & (truth <= t["hi"])).sum())
    return Coverage("count per game (t, Hall, at least Garwood)", what, 0.95, replicates, hit)


def _hand_coverage(rng: np.random.Generator, games: int, replicates: int, draw: Callable[[int], np.ndarray],
                   truth: float, what: str) -> Coverage:
    """Coverage of ``mean_table(count=True)`` per hand, clustered by game: games of 4 to 12 hands,
    each hand's count from ``draw``."""
    hands = rng.integers(4, 13, (replicates, games))
    reps = np.repeat(np.arange(replicates), hands.sum(axis=1))
    game = np.repeat(np.tile(np.arange(games), replicates), hands.ravel())
    frame = pl.DataFrame({"rep": reps, "game": game, "x": draw(reps.size).astype(np.float64)})
    t = mean_table(frame, "x", ["rep"], count=True)
    hit = int(((t["lo"] <= truth) & (truth <= t["hi"])).sum())
    return Coverage("count per hand (clustered t, at least Garwood)", what, 0.95, replicates, hit)


@case("bounded points mean", replicates=2000)
def bounded_points_mean(replicates: int, seed: int) -> list[Coverage]:
    """Points a hand that come in chunks (FOURBID's spent points: a bid of 1-4 times an Indicator, Special
    Rule 1's 4, a challenge's 4), rare for a seat that seldom pays: each game its own chance of paying a
    hand (Beta, mean ``share``: a game effect), a paying hand spends 4, 8, 12 or 16 (mean 10), so 16 is
    the most a hand can spend and the truth is 10 x ``share`` a hand. The summary's per-hand mean
    clustered by game with the rules' bounds (``mean_table(bounds=(0, 16))``: cut to them, and where no
    game differed Clopper-Pearson at the games times 16): at a share of 0.2%, most runs of 10-100 games
    see no payment (the plain clustered t read 0-0 there)."""
    rng = np.random.default_rng(seed)
    out = []
    for share, b in ((0.002, 200.0), (0.02, 20.0), (0.3, 3.0)):
        for games in (10, 30, 100, 500):
            hands = rng.integers(3, 16, (replicates, games))
            reps = np.repeat(np.arange(replicates), hands.sum(axis=1))
            game = np.repeat(np.tile(np.arange(games), replicates), hands.ravel())
            chance = rng.beta(share * b, (1 - share) * b, (replicates, games)).ravel()
            paid = rng.random(reps.size) < np.repeat(chance, hands.ravel())
            x = np.where(paid, 4.0 * rng.integers(1, 5, reps.size), 0.0)
            t = mean_table(pl.DataFrame({"rep": reps, "game": game, "x": x}), "x", ["rep"], bounds=(0.0, 16.0))
            truth = 10 * share
            hit = int(((t["lo"] <= truth) & (truth <= t["hi"])).sum())
            none = float((t["mean"] == 0).mean())
            out.append(Coverage("points a hand (clustered t, at least Korn-Graubard, in the rules' bounds)",
                                f"chunks of 4-16 in {100 * share:g}% of hands, game effect, 3-15 hands a game, "
                                f"{games:,} games ({100 * none:.0f}% of runs with none)", 0.95, replicates, hit))
    return out
