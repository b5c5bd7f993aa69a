"""The one-line answers of `cardsim run` / `cardsim report` on constructed tables (no simulation).

A claim about which of several rows differ (seats, cards) must hold for all the rows at once
(Bonferroni over them), and a number picked as the largest of k carries its simultaneous interval.
Each fair table here is one on which the pointwise rule the answers used before made a claim."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cardsim.report import numbers as N
from cardsim.scenario import from_dict
from cardsim.stats import bonferroni_z, mean_table, rate_table, wilson, wilson_at


def _setup(game: str, **scenario):
    policy = {"fourbid": "collector", "turtle": "eager", "fubnub": "random", "gubs": "random"}[game]
    return from_dict({"scenario": {"name": "x", "game": game, "games": 1, **scenario},
                      "seats": {"policy": policy}}).setup


def _winners(counts: list[int], seed: int = 0) -> np.ndarray:
    """A winner a game, seat s winning exactly ``counts[s]`` games, in a shuffled order."""
    w = np.repeat(np.arange(len(counts)), counts).astype(np.int8)
    return np.random.default_rng(seed).permutation(w)


# -- the helpers ---------------------------------------------------------------------------------------
def test_bonferroni_z_and_wilson_at_keep_the_effective_size():
    assert bonferroni_z(1) == pytest.approx(1.959964, abs=1e-5)
    assert bonferroni_z(4) == pytest.approx(2.497705, abs=1e-5)  # the normal's 1 - 0.05 / 8 quantile
    t = pl.DataFrame({"n": [1000, 400], "rate": [0.3, 0.5], "deff": [2.0, 0.8]})
    out = wilson_at(t, bonferroni_z(2))
    # deff 2: Wilson at 500 trials; deff below 1 never narrows it (400 trials)
    assert (out["sim_lo"][0], out["sim_hi"][0]) == pytest.approx(wilson(150, 500, bonferroni_z(2)))
    assert (out["sim_lo"][1], out["sim_hi"][1]) == pytest.approx(wilson(200, 400, bonferroni_z(2)))
    # at z = 1.96 it is the table's own interval
    frame = pl.DataFrame({"game": np.repeat(np.arange(300), 3), "x": np.arange(900) % 7 < 3})
    own = rate_table(frame.with_columns(g=pl.lit(0)), ["g"], "x")
    again = wilson_at(own, bonferroni_z(1))
    assert again["sim_lo"][0] == pytest.approx(own["lo"][0]) and again["sim_hi"][0] == pytest.approx(own["hi"][0])


# -- B1: seats against the fair share ------------------------------------------------------------------
def _fourbid_tables(counts: list[int]) -> dict[str, pl.LazyFrame]:
    n = sum(counts)
    g = np.repeat(np.arange(n), 2)
    rng = np.random.default_rng(5)
    hands = pl.DataFrame({"game": g, "out": rng.integers(0, 4, g.size).astype(np.int8),
                          **{f"net_s{s}": rng.normal(s, 4, g.size) for s in range(4)}})
    return {"hands": hands.lazy(), "games": pl.DataFrame({"game": np.arange(n), "winner": _winners(counts)}).lazy()}


def test_fourbid_headline_claims_a_seat_only_with_simultaneous_intervals():
    from cardsim.games.fourbid import game as G

    s = _setup("fourbid", variant="game")
    # seat 0: 25.65% of 20,000 games; its pointwise Wilson interval (25.05-26.26%) leaves 25% out and the
    # headline said "seat 0 differs detectably"; the interval over the four seats at once (24.9-26.4%) does not
    fair = [5130, 4960, 4950, 4960]
    assert wilson(5130, 20_000)[0] > 0.25  # the old, pointwise rule would have claimed it
    words = G.headline(_fourbid_tables(fair), s)
    assert "no seat differs detectably from the fair share of 25%" in words
    assert "95% intervals simultaneous over the 4 seats" in words
    slo, shi = wilson(5130, 20_000, bonferroni_z(4))
    assert f"seat 0 (collector) {N.pct(5130 / 20_000)} ({100 * slo:.1f}-{100 * shi:.1f}%)" in words
    unfair = [5600, 4900, 4900, 4600]  # 28% and 23%: off 25% at once; 24.5% is not
    assert "seats 0 and 3 differ detectably from the fair share of 25%" in G.headline(_fourbid_tables(unfair), s)


def test_fourbid_headline_gives_net_points_their_intervals():
    from cardsim.games.fourbid import game as G

    s = _setup("fourbid", variant="game")
    tables = _fourbid_tables([500, 500, 500, 500])
    words = G.headline(tables, s)
    hands = tables["hands"].collect()
    long = pl.concat([hands.select("game", pl.lit(k).alias("seat"), pl.col(f"net_s{k}").alias("net")) for k in range(4)])
    net = mean_table(long, "net", ["seat"]).sort("seat")
    assert "Net points per played hand (95% CI each, clustered by game)" in words
    for r in net.iter_rows(named=True):
        assert f"seat {r['seat']} (collector) {G._net(r)}" in words
        assert "(" in G._net(r) and "n/a" not in G._net(r)


def _turtle_tables(counts: list[int]) -> dict[str, pl.LazyFrame]:
    n, p = sum(counts), len(counts)
    games = pl.DataFrame({"game": np.arange(n), "winner": _winners(counts), "turns": np.full(n, 10, np.int16),
                          **{c: np.zeros(n, np.int16) for c in ("eliminated", "restarts", "redeals", "shuffles")},
                          "ended_by": ["turtle"] * n, **{f"reveals_s{k}": np.zeros(n, np.int16) for k in range(p)}})
    return {"games": games.lazy()}


def test_turtle_headline_claims_a_seat_only_with_simultaneous_intervals():
    from cardsim.games.turtle.game import GAME

    s = _setup("turtle", players=4)
    fair = [5130, 4960, 4950, 4960]  # the best seat's pointwise interval leaves 25% out: "0.6 points above"
    words = GAME.headline(_turtle_tables(fair), s)
    assert words.startswith("Seat 0 (eager) wins most often")
    assert "no seat differs detectably from the fair share of 25.0%" in words
    assert "above the fair share" not in words and "95% intervals simultaneous over the 4 seats" in words
    unfair = GAME.headline(_turtle_tables([5600, 4900, 4900, 4600]), s)  # a seat below is a finding too
    assert ("seats 0 (+3.0 percentage points) and 3 (-2.0 percentage points) differ detectably from the fair "
            "share of 25.0%") in unfair


# -- B6: the extremes of a table carry their simultaneous intervals -------------------------------------
