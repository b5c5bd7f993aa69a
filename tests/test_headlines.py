"""The one-line answers of `cardsim run` / `cardsim report` on constructed tables (no simulation).

A claim about which of several rows differ (seats, cards) must hold for all the rows at once
(Bonferroni over them), and a number picked as the largest of k carries its simultaneous interval.
Each fair table here is one on which the pointwise rule the answers used before made a claim."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cardsim.scenario import from_dict
from cardsim.stats import bonferroni_z, rate_table, wilson, wilson_at


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


# -- B6: the extremes of a table carry their simultaneous intervals -------------------------------------
