"""Coverage of the rates and means clustered by game (cardsim.stats.rate_table, mean_table)."""

from __future__ import annotations

import numpy as np
import polars as pl

from cardsim import stats
from cardsim.coverage import Coverage, _kernels, case
from cardsim.stats import mean_table, rate_table


def _games(rng: np.random.Generator, games: int, icc: str) -> pl.DataFrame:
    """Hands of ``games`` games (3-15 hands each) whose success chance varies by game (``icc``
    positive: a Beta(2, 6) game effect, mean 0.25) or is negatively correlated within a game
    (one success among the first hands of each game, at random)."""
    n = rng.integers(3, 16, games)
    g = np.repeat(np.arange(games), n)
    if icc == "positive":
        p = rng.beta(2, 6, games)[g]
        y = rng.random(g.size) < p
    else:  # exactly one success in each game's first 4 hands: rate 1/4 of those hands, strongly negative ICC
        pos = np.concatenate([np.arange(k) for k in n])
        hit = rng.integers(0, 4, games)[g]
        y = np.where(pos < 4, pos == hit, rng.random(g.size) < 0.25)
    return pl.DataFrame({"game": g, "x": np.zeros(g.size, np.int8), "y": y, "v": y * 10.0 + rng.random(g.size)})


@case("clustered rate", replicates=2000)
def clustered_rate(replicates: int, seed: int, gamess: tuple[int, ...] = (200, 2000)) -> list[Coverage]:
    """Per-hand rates and means with a game effect: truth 0.25 (rate) and 3.0 (mean of y * 10 + U(0, 1)),
    over ``gamess`` games (a mean without an interval, below 2 games, counts as a miss)."""
    rng = np.random.default_rng(seed)
    out = []
    for icc in ("positive", "negative"):
        for games in gamess:
            hit_r = hit_m = 0
            for _ in range(replicates):
                f = _games(rng, games, icc)
                r = rate_table(f, ["x"], "y").row(0, named=True)
                m = mean_table(f, "v").row(0, named=True)
                hit_r += r["lo"] <= 0.25 <= r["hi"]
                hit_m += m["lo"] is not None and m["lo"] <= 3.0 <= m["hi"]
            out.append(Coverage("game-clustered rate", f"simulated, {icc} within-game correlation, {games:,} games",
                                0.95, replicates, hit_r))
            out.append(Coverage("game-clustered mean", f"simulated, {icc} within-game correlation, {games:,} games",
                                0.95, replicates, hit_m))
    return out


@case("clustered rate, a few games", replicates=2000)
def clustered_rate_few(replicates: int, seed: int) -> list[Coverage]:
    """:func:`clustered_rate`'s cases at 3 to 30 games: a run's summary prints its per-hand rates (Wilson at
    the effective size, the design effect estimated from the games, with Korn and Graubard's adjustment)
    and clustered means (CR2, Student's t at Bell and McCaffrey's degrees of freedom) at any number of
    games (``cardsim run -n 3``), and that case's rows start at 200. Before both, the rate covered 90.2%
    at 3 and 5 games and the mean (t on the games less one) 91.6-93.1% at 3-10."""
    return clustered_rate(replicates, seed, (3, 5, 10, 30))


@case("clustered rate, blocks of games", replicates=2000)
def clustered_rate_blocks(replicates: int, seed: int) -> list[Coverage]:
    """As "clustered rate", with the clusters of a run of more than ``stats.CLUSTERS`` games: blocks of
    consecutive games (``stats.cluster_block``). The limit is lowered to 100 for the case, so 1,000
    games make 100 blocks of 10 games (a run of 6.5 million games would make 65,536 blocks of 100)."""
    rng = np.random.default_rng(seed)
    out = []
    limit = stats.CLUSTERS
    stats.CLUSTERS = 100
    try:
        for icc in ("positive", "negative"):
            hit_r = hit_m = 0
            for _ in range(replicates):
                f = _games(rng, 1000, icc)
                r = rate_table(f, ["x"], "y").row(0, named=True)
                m = mean_table(f, "v").row(0, named=True)
                hit_r += r["lo"] <= 0.25 <= r["hi"]
                hit_m += m["lo"] <= 3.0 <= m["hi"]
            what = f"simulated, {icc} within-game correlation, 1,000 games in 100 blocks of 10"
            out.append(Coverage("game-clustered rate, blocks of games", what, 0.95, replicates, hit_r))
            out.append(Coverage("game-clustered mean, blocks of games", what, 0.95, replicates, hit_m))
    finally:
        stats.CLUSTERS = limit
    return out


@case("clustered rate, FUBNUB hands", replicates=1000)
def clustered_rate_fubnub(replicates: int, seed: int) -> list[Coverage]:
    """FUBNUB with four partner players: a played hand goes to team 0 with chance exactly 1/2 (the first
    dealer is drawn at random and the teams play alike, so swapping the teams changes nothing)."""
    hit = 0
    for r in range(replicates):
        hands = _kernels.play("fubnub", seed * 100_003 + r, 300, "partner")["hands"]
        t = rate_table(hands.filter(pl.col("winner") >= 0).with_columns(x=pl.lit(0)), ["x"], pl.col("winner") == 0)
        hit += t["lo"][0] <= 0.5 <= t["hi"][0]
    return [Coverage("game-clustered rate", "FUBNUB partner x4: team 0 wins a played hand (truth 1/2), 300 games",
                     0.95, replicates, hit)]


def _bursts(rng: np.random.Generator, games: int, hot: float, inside: float) -> pl.DataFrame:
    """Hands of ``games`` games (3-15 hands each) of an event that comes in bursts: a game is hot with
    chance ``hot``, and in a hot game each hand shows the event with chance ``inside`` (truth: ``hot *
    inside`` a hand, as the hot games are drawn apart from their lengths)."""
    n = rng.integers(3, 16, games)
    g = np.repeat(np.arange(games), n)
    p = np.where(rng.random(games) < hot, inside, 0.0)[g]
    return pl.DataFrame({"game": g, "x": np.zeros(g.size, np.int8), "y": rng.random(g.size) < p})


@case("clustered rate, rare bursts", replicates=2000)
def clustered_rate_bursts(replicates: int, seed: int) -> list[Coverage]:
    """A per-hand rate of 1% whose events come in bursts: 1% of games show it at every hand, or 2% at
    half their hands, or (no bursts) every hand with chance 1%. A sample of 100 games then often has
    no event at all (37% and 13% of samples), where no design effect can be estimated: the interval
    takes the games as its effective size (Wilson at the 900 or so hands read 0-0.42% there, and
    covered 60% and 78%)."""
    rng = np.random.default_rng(seed)
    out = []
    for hot, inside, what in ((0.01, 1.0, "1% of games show it at every hand"),
                              (0.02, 0.5, "2% of games at half their hands"),
                              (1.0, 0.01, "no bursts: every hand 1%")):
        for games in (100, 1000):
            hit = 0
            for _ in range(replicates):
                r = rate_table(_bursts(rng, games, hot, inside), ["x"], "y").row(0, named=True)
                hit += r["lo"] <= 0.01 <= r["hi"]
            out.append(Coverage("game-clustered rate", f"simulated, a 1% event in bursts ({what}), {games:,} games",
                                0.95, replicates, hit))
    return out
