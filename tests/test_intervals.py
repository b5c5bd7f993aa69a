"""Intervals you can trust (issue 15): ratings, balance, sweeps, card effects, clustering, JSON output."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from cardsim import api, metrics, stats
from cardsim.cli import app
from cardsim.errors import ScenarioError
from cardsim.scenario import from_dict
from cardsim.stats import mean_ci, mean_table, paired_difference, rate_difference, rate_table
from cardsim.studies import cards as cards_study
from cardsim.studies import rate as R
from cardsim.studies import sweep as sw


# -- clustering -------------------------------------------------------------------------------
def test_wilson_bounds_at_zero_and_all_are_exact():
    # k = 0 gave lo = 1.08e-19 (floating point), which the Python API and JSON print as it is
    from cardsim.stats import wilson, wilson_exprs

    for n in (1, 7, 100, 2000, 10**9):
        assert wilson(0, n)[0] == 0.0 and wilson(n, n)[1] == 1.0
        assert 0 < wilson(0, n)[1] < 1 and 0 < wilson(n, n)[0] < 1
        row = pl.DataFrame({"k": [0.0, float(n)], "n": [n, n]}).select(wilson_exprs(pl.col("k"), pl.col("n")))
        assert row["lo"][0] == 0.0 and row["hi"][1] == 1.0
        assert row["hi"][0] == pytest.approx(wilson(0, n)[1]) and row["lo"][1] == pytest.approx(wilson(n, n)[0])


@pytest.mark.parametrize("n", [32_768, 58_709, 65_536, 98_304, 1_000_003])
def test_wilson_exprs_of_a_row_count_match_the_scalar_interval(n):
    # a count from pl.len() is a u32: 4 * n * n wrapped, and at n = 65,536 (any multiple of 32,768)
    # to 0, which made the interval [0, 1]; elsewhere its bounds were off in the 6th digit
    from cardsim.stats import wilson, wilson_exprs

    k = n * 3 // 7
    row = pl.DataFrame({"x": np.arange(n) < k}).select(pl.len().alias("n"), pl.col("x").sum().alias("k")).select(
        wilson_exprs(pl.col("k"), pl.col("n")))
    lo, hi = wilson(k, n)
    assert row["lo"][0] == pytest.approx(lo, rel=1e-12) and row["hi"][0] == pytest.approx(hi, rel=1e-12)


def test_rate_table_is_clustered_by_game_and_prints_the_design_effect():
    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(2000), 6)
    y = rng.random(g.size) < rng.beta(1, 3, 2000)[g]  # a strong game effect
    f = pl.DataFrame({"game": g, "x": 0, "y": y})
    clustered = rate_table(f, ["x"], "y").row(0, named=True)
    plain = rate_table(f, ["x"], "y", cluster=None).row(0, named=True)
    assert clustered["deff"] > 1.5 and plain["deff"] == pytest.approx(1.0, abs=0.05)
    assert clustered["hi"] - clustered["lo"] > 1.2 * (plain["hi"] - plain["lo"])
    # one row per game: design effect 1, the plain Wilson interval
    one = rate_table(f.group_by("game").agg(pl.col("y").first(), pl.lit(0).alias("x")), ["x"], "y")
    assert one["deff"][0] == pytest.approx(1.0, abs=1e-3)
    m = mean_table(f.with_columns(v=pl.col("y").cast(pl.Float64)), "v").row(0, named=True)
    assert m["mean"] == pytest.approx(clustered["rate"]) and m["deff"] == pytest.approx(clustered["deff"], rel=0.01)


def test_beyond_clusters_games_runs_of_consecutive_games_are_one_cluster(monkeypatch):
    """Up to stats.CLUSTERS games every game is a cluster; beyond, blocks of consecutive games (a
    run's tables keep a game's rows together, so the streaming aggregation stays small). A block of
    independent games is still a valid cluster: the variance is that of the blocks' sums."""
    monkeypatch.setattr(stats, "CLUSTERS", 100)
    rng = np.random.default_rng(1)
    games = 1000
    g = np.repeat(np.arange(games), 4)
    y = rng.random(g.size) < rng.beta(1, 3, games)[g]
    f = pl.DataFrame({"game": g, "x": 0, "y": y})
    assert stats.cluster_block(f, "game") == 10 and stats.cluster_block(f.filter(pl.col("game") < 100), "game") == 1
    assert stats.cluster_block(f.filter(pl.col("game") < 101), "game") == 2
    row = rate_table(f.lazy(), ["x"], "y").row(0, named=True)
    # by hand: the ratio estimator's linearisation variance over the 100 blocks of 10 games
    b = pl.DataFrame({"b": g // 10, "y": y.astype(float)}).group_by("b").agg(pl.len().alias("n"), pl.col("y").sum())
    n, s = b["n"].to_numpy().astype(float), b["y"].to_numpy()
    m = s.sum() / n.sum()
    var = 100 / 99 * ((s - m * n) ** 2).sum() / n.sum() ** 2
    assert row["rate"] == pytest.approx(m) and row["deff"] == pytest.approx(var / (m * (1 - m) / n.sum()))


def test_turtle_reveals_per_game_interval_past_65536_reveals_of_a_card():
    """A card's reveals per game: mean and normal interval over all games. Its sum of counts once
    went through a 32-bit square (the interval was wrong, here twice too wide, once a card was
    revealed more than 65,535 times in a run); now counted in float64."""
    from cardsim.games.turtle import game as TG

    rng = np.random.default_rng(3)
    n_games = 100_000
    c = rng.poisson(1.1, n_games)  # reveals of one card in each game
    games = np.repeat(np.arange(n_games), c)
    rv = pl.DataFrame({"game": games, "card": pl.Series(["Turtle"] * games.size, dtype=TG.CARD_ENUM),
                       "applied_to": 0, "won": None}, schema_overrides={"won": pl.Boolean})
    row = TG.card_table(rv, n_games).filter(pl.col("card") == "Turtle").row(0, named=True)
    half = 1.959963984540054 * c.std(ddof=1) / math.sqrt(n_games)
    assert row["reveals"] == c.sum() > 65_536 and row["games_with"] == (c > 0).sum()
    assert row["per_game"] == pytest.approx(c.mean())
    # Garwood at the effective count: at 110,000 reveals about the normal interval
    assert row["per_game_hi"] - row["per_game"] == pytest.approx(half, rel=1e-2)
    assert row["per_game"] - row["per_game_lo"] == pytest.approx(half, rel=1e-2)


def test_turtle_reveals_per_game_never_zero_width_and_clumps_widen_it():
    """Reveals per game were mean +- 1.96 SE: a card never revealed read 0-0, and on a few reveals the
    interval covered 80-92% (coverage case "count per game" now). Garwood's interval at the effective
    count: 0 of n games reads 0 to 3.69 / n, times the table's dispersion where the other cards clump;
    one game with 3 reveals is wider than 3 games with one."""
    from scipy.stats import chi2

    from cardsim.games.turtle import game as TG
    from cardsim.stats import count_rate_ci

    def table(games):
        rv = pl.DataFrame({"game": games, "card": pl.Series(["Peek"] * len(games), dtype=TG.CARD_ENUM),
                           "applied_to": 0, "won": None}, schema_overrides={"won": pl.Boolean, "game": pl.Int64})
        return TG.card_table(rv, 1000)

    never = table([3, 4, 5, 500]).filter(pl.col("card") == "Shield").row(0, named=True)
    assert never["per_game"] == never["per_game_lo"] == 0.0
    assert never["per_game_hi"] == pytest.approx(chi2.ppf(0.975, 2) / 2 / 1000)  # the table does not clump
    t = table([3, 3, 3, 500])
    never = t.filter(pl.col("card") == "Shield").row(0, named=True)
    # the table's one revealed card clumps (dispersion about 2.5), so a card never seen may too: the run
    # cannot show its clumps, and clumped events leave more runs without one (coverage case "count per game")
    d = (10 - 16 / 1000) / 999 / (4 / 1000)
    assert never["per_game"] == never["per_game_lo"] == 0.0
    assert never["per_game_hi"] == pytest.approx(chi2.ppf(0.975, 2) / 2 * d / 1000)
    peek = t.filter(pl.col("card") == "Peek").row(0, named=True)
    lo, hi = count_rate_ci(np.array([4.0]), np.array([10.0]), 1000)
    assert (peek["per_game_lo"], peek["per_game_hi"]) == pytest.approx((lo[0], hi[0]))
    spread = table([3, 4, 5, 500]).filter(pl.col("card") == "Peek").row(0, named=True)
    assert peek["per_game"] == spread["per_game"] == 0.004
    assert peek["per_game_hi"] > spread["per_game_hi"]  # the clump counts as fewer independent events
    # Poisson counts (dispersion 1): exactly Garwood's interval
    lo, hi = count_rate_ci(np.array([5.0]), np.array([5.0]), 1000)
    assert (lo[0], hi[0]) == pytest.approx((chi2.ppf(0.025, 10) / 2000, chi2.ppf(0.975, 12) / 2000))


def test_per_game_mean_corrects_for_skew_and_is_t_without_it():
    """mean_exprs: Student's t on a symmetric sample; on a right-skewed one (a game's length) Hall's
    transformation moves the interval up (plain t covered 89.5% at 10 geometric lengths)."""
    from cardsim.stats import mean_exprs, t95

    sym = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0]}).select(*mean_exprs("x")).row(0, named=True)
    half = t95(4) * np.std([1, 2, 3, 4, 5], ddof=1) / math.sqrt(5)
    assert (sym["lo"], sym["hi"]) == pytest.approx((3 - half, 3 + half))
    x = [1.0, 1, 1, 2, 2, 3, 4, 8, 20, 40]
    sk = pl.DataFrame({"x": x}).select(*mean_exprs("x")).row(0, named=True)
    m = float(np.mean(x))
    assert sk["hi"] - m > m - sk["lo"] > 0
    flat = pl.DataFrame({"x": [15.0] * 4}).select(*mean_exprs("x")).row(0, named=True)
    assert flat["lo"] == flat["hi"] == 15.0



def test_fourbid_report_tables_are_clustered_by_game_as_the_summary(tmp_path):
    """The report's Net and going-out tables took each hand as independent (a game's hands are one
    cluster in the game variant: the summary says so and prints the design effect); they now are the
    summary's estimators, same intervals."""
    from cardsim.games import get_game

    s = from_dict({"scenario": {"name": "fb", "game": "fourbid", "variant": "game", "games": 150, "seed": 4},
                   "rules": {"target": 40}, "seats": {"policy": "random"}})
    res = api.run(s, out=tmp_path / "r")
    g = get_game("fourbid")
    summary = dict(g.summarize(res.tables, s.setup))
    net = next(t for k, t in summary.items() if k.startswith("Net, earned"))
    went = next(t for k, t in summary.items() if k.startswith("Going-out rate"))
    (_, _, tabs), _ = g.figures(res.tables, s.setup)
    fig = dict(tabs)
    assert fig["Net per hand"]["lo"].to_list() == pytest.approx(net["net_lo"].to_list(), rel=1e-12)
    assert fig["Net per hand"]["hi"].to_list() == pytest.approx(net["net_hi"].to_list(), rel=1e-12)
    assert fig["Going out"]["lo"].to_list() == pytest.approx(went["lo"].to_list(), rel=1e-12)
    assert (net["net_deff"] != 1.0).all()  # several hands a game: a design effect is estimated

def test_paired_difference_clusters_rows_of_one_game():
    a = np.array([0, 1, 0, 1, 1, 0, 0, 1.0])
    b = np.array([1, 1, 0, 1, 1, 1, 0, 1.0])
    e = paired_difference(a, b)
    d = b - a
    assert e.value == pytest.approx(d.mean()) and e.se == pytest.approx(d.std(ddof=1) / math.sqrt(8))
    c = paired_difference(a, b, clusters=np.repeat([0, 1, 2, 3], 2))
    assert c.clusters == 4 and c.n == 8 and c.value == e.value


def test_holm_and_bh_match_statsmodels():
    from statsmodels.stats.multitest import multipletests

    from cardsim.stats import holm

    p = np.array([0.01, 0.04, 0.03, 0.2, 0.001, np.nan, 0.04])
    ok = np.isfinite(p)
    for method in ("holm", "fdr_bh"):
        got = holm(p, method)
        assert np.isnan(got[~ok]).all()
        assert got[ok] == pytest.approx(multipletests(p[ok], method=method)[1])


def test_rate_difference_matches_two_rates_without_clustering():
    w_in, n_in = np.array([1, 0, 1, 1.0]), np.array([1, 1, 1, 1.0])
    w_all, n_all = np.array([1, 1, 1, 1.0]), np.array([2, 2, 2, 2.0])
    e = rate_difference(w_in, n_in, w_all, n_all)
    assert e.value == pytest.approx(0.75 - 0.25)


# -- ratings -----------------------------------------------------------------------------------
def test_each_distinct_seating_once_and_both_seatings_with_an_odd_table():
    assert R.seatings(2) == [(0, 1), (1, 0)]
    assert R.seatings(4) == [(0, 1, 0, 1), (1, 0, 1, 0)]  # rotating by 2 gives the same table: once
    three = R.seatings(3)
    assert len(three) == 6 and len(set(three)) == 6
    assert sum(t.count(0) for t in three) == sum(t.count(1) for t in three)  # no list-order bias


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_young_turtle_rates_any_two_policies_equal(tmp_path, players):
    """Young Turtle has no decisions (T10): eager and random play the same games, so 0 is in the interval."""
    s = from_dict({"scenario": {"name": f"yt{players}", "game": "turtle", "variant": "young", "players": players,
                                "games": 200, "seed": 5}, "ratings": {"policies": ["eager", "random"]}})
    res = api.rate(s, runs=tmp_path)
    r = {row["policy"]: row for row in res.ratings.iter_rows(named=True)}
    assert r["random"]["lo"] <= 0 <= r["random"]["hi"]
    pairs = res.pairs.row(0, named=True)
    assert pairs["tables"] == len(R.seatings(players)) and pairs["deals"] == 200
    assert pairs["games"] == 200 * len(R.seatings(players))  # each distinct game counted once


def _obs(wins_a: list[float], pairs: list[tuple[int, int]]) -> R.Observations:
    """One table per pair; ``wins_a[i]`` of 100 games to A."""
    t, d, s = [], [], []
    for i, w in enumerate(wins_a):
        t += [i] * 100
        d += list(range(100))
        s += [1.0] * int(w) + [0.0] * (100 - int(w))
    return R.Observations(np.array(t), np.array(d), np.array(s, dtype=float), pairs, np.ones((len(pairs), 2)))


def test_a_policy_that_never_lost_is_unbounded_not_finite():
    f = R.fit_model(_obs([60, 100, 100], [(0, 1), (0, 2), (1, 2)]), 3, 0)
    assert f.theta[2] == -math.inf and f.status[2].startswith("unbounded below")
    assert math.isfinite(f.theta[1]) and f.status[1] == "fitted"
    f = R.fit_model(_obs([0, 40], [(0, 1), (0, 2)]), 3, 0)
    assert f.theta[1] == math.inf and "never lost" in f.status[1]


def test_ratings_on_a_few_deals_are_never_zero_width():
    """Two deals whose results balance exactly (each deal: A wins one seating, B the other) make every
    deal's score 0, so the clustered variance is 0 and the interval was a point (a held-out re-play on 2
    deals printed 50.0%, 95% CI 50.0%-50.0%). Below 10 deals the interval takes the larger of the
    clustered and the model-based variance, with Student's t on deals - 1 degrees of freedom."""
    obs = R.Observations(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), np.array([1.0, 0.0, 0.0, 1.0]),
                         [(0, 1), (0, 1)], np.ones((2, 2)))
    f = R.fit_model(obs, 2, 1)
    assert f.theta[0] == pytest.approx(0) and f.deals == 2
    assert f.se[0] == pytest.approx(f.se_model[0]) and f.se[0] > 0.5
    assert f.half()[0] == pytest.approx(stats.t95(1) * f.se[0] + R.TOL)
    many = R.fit_model(_obs([60, 55], [(0, 1), (0, 1)]), 2, 1)  # 100 deals: the clustered one alone
    assert many.deals == 100 and many.half()[0] == pytest.approx(stats.t95(99) * many.se[0] + R.TOL)


def test_ranking_ties_unbounded_policies_and_puts_the_unrated_last(tmp_path):
    """Two policies that never beat the reference are both unbounded below: the model cannot order them
    (the ranking said 'greedy > tactician' where tactician beat greedy). A policy with no strength (NaN)
    sorted first in the table, where the answer took it for the top policy."""
    t = pl.DataFrame({"policy": ["x", "partner", "greedy", "tactician"],
                      "theta": [math.nan, 0.0, -math.inf, -math.inf]})
    t = t.sort(pl.col("theta").fill_nan(None), descending=True, nulls_last=True)
    assert t["policy"][0] == "partner" and t["policy"][3] == "x"
    assert R.ranking(t) == "partner > greedy, tactician (tied: unbounded below); not ranked: x"
    s = from_dict({"scenario": {"name": "r1", "game": "fubnub", "games": 1, "seed": 5},
                   "ratings": {"policies": ["greedy", "partner"]}})
    with pytest.raises(ScenarioError, match="at least 2 deals per table"):
        api.rate(s, runs=tmp_path)
    assert not any(tmp_path.iterdir())  # refused before anything was played


def test_model_fit_flags_strengths_that_do_not_fit():
    # a beats b, b beats c, c beats a: no strengths can rank them
    f = R.fit_model(_obs([80, 20, 80], [(0, 1), (0, 2), (1, 2)]), 3, 0)
    assert f.df == 1 and f.p < 1e-6 and f.deviance > 50


def test_model_fit_does_not_cry_misfit_on_a_true_model():
    """On a true Luce model with pairs the weak policies almost never win (the FUBNUB round robin's five
    strengths, 20 deals a table), the Wald test inverted a clustered variance that a pair without spread
    leaves near 0: one win there read as a misfit, and "The strengths do not fit the results" (p < 0.01)
    came in about 40% of runs. The Rao-Scott corrected test says so in about 1% (its nominal level)."""
    from cardsim.coverage import ratings as cov_ratings

    rng = np.random.default_rng(7)
    fits = [R.fit_model(cov_ratings._simulate(rng, 2, 20, cov_ratings.THETA5, False), 5, 0) for _ in range(40)]
    assert sum(f.df > 0 for f in fits) >= 30  # tested (a policy that never won is unbounded and left out)
    assert sum(f.p < 0.01 for f in fits) <= 3
    # a real misfit is still found (a beats b, b beats c, c beats a, above)
    assert R.fit_model(_obs([80, 20, 80], [(0, 1), (0, 2), (1, 2)]), 3, 0).p < 1e-6


# -- balance -----------------------------------------------------------------------------------
def test_balance_interval_allows_for_picking_seats_and_stays_in_0_1():
    rng = np.random.default_rng(4)
    w = np.eye(4)[rng.integers(0, 4, 4000)]
    value, lo, hi, crit = metrics.balance_interval(w)
    assert 0 <= lo <= value <= hi <= 1 and crit > 2.4  # six pairs: a max-T critical value, not 1.96
    _, df, p = metrics.seat_test(w)
    assert df == 3 and p > 0.001
    team = rng.integers(0, 2, 3000).astype(float)
    w = np.column_stack([team, 1 - team, team, 1 - team])
    assert metrics.seat_test(w)[1] == 1  # team mates: one degree of freedom
    value, lo, hi, _ = metrics.balance_interval(w)
    assert hi == 1.0 and lo < value
    # from n games the max-T value is scaled to Student's t (n - 1 df); below 100 games no interval at all
    few = np.eye(4)[rng.integers(0, 4, 12)]
    ratio = metrics.balance_interval(few)[3] / metrics.balance_interval(np.tile(few, (1000, 1)))[3]
    assert ratio == pytest.approx(stats.t95(11) / stats.t95(11_999), rel=1e-4)  # same correlation, same draws
    out = pl.DataFrame({"game": np.repeat(np.arange(12), 4), "seat": np.tile(np.arange(4), 12),
                        "win": few.ravel(), "length": np.ones(48)})
    row = next(r for r in metrics.outcome_metrics(out) if r["metric"] == "balance")
    assert math.isnan(row["lo"]) and "no interval below 100 finished games" in row["note"]


def test_equal_seats_test_is_not_too_quick_to_call_seats_unequal():
    """The Wald test (the differences' covariance about their mean) said p < 0.05 in 12.7% of 30-game runs
    of four fair seats; the score test takes the covariance under the hypothesis (about 0): with one
    winner a game and two seats it is the sign test's (n1 - n0)^2 / n. Below 100 finished games the
    balance table gives no p-value."""
    rng = np.random.default_rng(11)
    calls = sum(metrics.seat_test(np.eye(4)[rng.integers(0, 4, 30)])[2] < 0.05 for _ in range(400))
    assert calls <= 40  # about 26 (6.6%); the Wald test about 51
    w = np.eye(2)[np.r_[np.zeros(70, int), np.ones(30, int)]]
    stat, df, _p = metrics.seat_test(w)
    assert df == 1 and stat == pytest.approx((70 - 30) ** 2 / 100)
    few = np.eye(4)[rng.integers(0, 4, 60)]
    out = pl.DataFrame({"game": np.repeat(np.arange(60), 4), "seat": np.tile(np.arange(4), 60),
                        "win": few.ravel(), "length": np.ones(240)})
    row = next(r for r in metrics.outcome_metrics(out) if r["metric"] == "equal seat win rates: p-value")
    assert math.isnan(row["value"]) and "none below 100 finished games" in row["note"]
    # a p-value is never 0, and the balance table prints it as every p column: FUBNUB Lucky Ghost's read "0"
    lopsided = np.eye(4)[np.zeros(5000, int)]
    assert metrics.seat_test(lopsided)[2] > 0
    from cardsim.report.numbers import cells

    table = pl.DataFrame([{"metric": "equal seat win rates: p-value", "value": 0.0, "lo": math.nan, "hi": math.nan},
                          {"metric": "duration", "value": 12.5, "lo": 12.0, "hi": 13.0}])
    assert cells(table)["value"][0] == "< 0.001"


def test_balance_rows_in_json(tmp_path):
    f = tmp_path / "b.toml"
    f.write_text('[scenario]\nname = "b"\ngame = "fubnub"\ngames = 300\n')
    r = CliRunner().invoke(app, ["run", str(f), "--runs", str(tmp_path), "--balance", "-f", "json"])
    assert r.exit_code == 0, r.output
    rows = {row["metric"]: row for row in json.loads(r.stdout)["tables"]["Balance metrics"]}
    assert {"lo", "hi", "value"} <= set(rows["balance"]) and 0 <= rows["balance"]["lo"] <= rows["balance"]["hi"] <= 1
    assert "equal seat win rates: p-value" in rows and "largest deficit overcome" in rows


# -- simultaneous intervals (a search's one-step contrasts) -------------------------------------
def test_simultaneous_means_widen_with_the_family_and_reduce_to_t():
    from cardsim.stats import mean_ci, simultaneous_means, t95

    rng = np.random.default_rng(4)
    one = rng.normal(0.1, 1.0, (40, 1))
    s = simultaneous_means(one)
    e = mean_ci(one[:, 0], z=t95(39))
    # one step: the (symmetric) t interval; mean_ci's own is corrected for skewness, its se the same
    assert s["critical"] == pytest.approx(t95(39)) and s["lo"][0] == pytest.approx(e.value - t95(39) * e.se)
    many = rng.normal(0.0, 1.0, (400, 8))  # eight independent steps: about Bonferroni's 2.73, never 1.96
    c = simultaneous_means(many, draws=50_000)["critical"]
    assert 2.6 < c < 2.8
    same = np.repeat(rng.normal(0, 1, (400, 1)), 8, axis=1)  # eight copies of one step: one step's value
    assert simultaneous_means(same, draws=50_000)["critical"] == pytest.approx(1.966, abs=0.03)
    flat = np.zeros((400, 2))  # no spread (the step changes no game): the mean alone
    f = simultaneous_means(flat)
    assert (f["lo"] == 0).all() and (f["hi"] == 0).all()


# -- sweeps ------------------------------------------------------------------------------------
def test_sweep_contrasts_with_the_best_point():
    rng = np.random.default_rng(2)
    u = rng.random((3000, 1))
    v = (u < np.array([0.30, 0.40, 0.32])).astype(float)
    c = sw.contrasts(v, seed=1, draws=20_000)
    assert int(c["best"]) == 1 and c["diff"][1] == 0 and c["p_best"][1] > 0.99
    assert (c["hi"][[0, 2]] < 0).all() and c["critical"] > 1.96
    # both gaps lie beyond every max-T draw: the least p the draws resolve, never 0
    assert c["p_adj"][1] == 1.0 and (c["p_adj"][[0, 2]] == 1 / 20_001).all()
    assert sw.heldout_seed(7) != 7 and sw.heldout_seed(7) == sw.heldout_seed(7)


def test_sweep_contrasts_in_blocks_are_the_same_numbers(monkeypatch):
    """The max-T draws are made block by block (a 7x7 grid held 5.7 GB; 1,300 points asked for 417 GiB):
    any block size gives the same numbers, and a grid with many pairs takes fewer draws, not memory."""
    rng = np.random.default_rng(4)
    v = (rng.random((500, 1)) < np.linspace(0.30, 0.40, 9)).astype(float)
    whole = sw.contrasts(v, seed=1, draws=6_000)
    monkeypatch.setattr(sw, "BLOCK", 100)  # 11 draws a block (36 pairs)
    blocks = sw.contrasts(v, seed=1, draws=6_000)
    for key in whole:
        assert np.array_equal(whole[key], blocks[key]), key
    monkeypatch.setattr(sw, "MAXT_WORK", 36 * 2_500)
    monkeypatch.setattr(sw, "MIN_DRAWS", 1_000)
    assert int(sw.contrasts(v, seed=1, draws=6_000)["draws"]) == 2_500


def test_sweep_points_playing_the_same_games_share_the_chance_of_being_best():
    """Three points with identical games (a knob no decision reads): each is best a third of the time and
    differs from the best by 0 at every deal, which the data cannot tell from a rare difference: its
    interval is the bounded one of a difference without spread (Bonferroni over the 3 other points),
    none for a length; with every point identical there is no critical value."""
    rng = np.random.default_rng(5)
    a = (rng.random(2000) < 0.5).astype(float)
    v = np.column_stack([a, a, a, (rng.random(2000) < 0.3).astype(float)])
    c = sw.contrasts(v, seed=2, draws=20_000, bounds=(-1.0, 1.0))
    b = int(c["best"])
    assert np.allclose(c["p_best"][:3], 1 / 3) and c["p_best"][3] < 0.001
    for j in {0, 1, 2} - {b}:
        assert c["diff"][j] == 0 and -0.1 < c["lo"][j] < 0 < c["hi"][j] < 0.1 and c["p_adj"][j] == 1.0
    assert c["lo"][b] == c["hi"][b] == 0  # the best point against itself
    same = sw.contrasts(np.column_stack([a, a]), seed=2, draws=2_000, bounds=(-1.0, 1.0))
    assert math.isnan(float(same["critical"])) and np.allclose(same["p_best"], 0.5)
    assert 0 < same["hi"][1 - int(same["best"])] < 0.1
    length = sw.contrasts(np.column_stack([a, a]) * 10, seed=2, draws=2_000)  # no bound: none
    assert np.isnan(length["lo"][1 - int(length["best"])])


def test_a_bounded_difference_gets_clopper_pearson_at_its_effective_size():
    """A difference of wins lies in [-1, 1]. Its interval is Clopper-Pearson at the effective number of
    results on the rescaled difference (a t interval covered 90.5% where a difference is +1 in 95% of
    100 deals, and had zero width where every game gave the same difference: 3 games of +1, one arm
    winning each, read 'CI 100.0-100.0'). Its p-value is the test the interval inverts."""
    from scipy.stats import beta

    e = paired_difference(np.zeros(3), np.ones(3), bounds=(-1.0, 1.0))
    assert e.se == 0 and e.value == 1 and e.hi == 1
    assert e.lo == pytest.approx(-1 + 2 * 0.025 ** (1 / 3)) and e.lo < 0  # Clopper-Pearson: 3 of 3
    assert e.p == pytest.approx(0.25)  # 2 x 0.5^3: 0 not ruled out
    ten = paired_difference(np.zeros(10), np.ones(10), bounds=(-1.0, 1.0))
    assert ten.lo > 0 and ten.p < 0.05  # 10 games of +1 do rule 0 out
    rng = np.random.default_rng(3)
    for n in (2, 3, 5, 30, 200):  # the test and the interval agree: p < 0.05 exactly when 0 is outside
        for _ in range(20):
            d = rng.choice([-1.0, 0.0, 1.0], p=[0.1, 0.3, 0.6], size=n)
            e = paired_difference(np.zeros(n), d, bounds=(-1.0, 1.0))
            assert -1 <= e.lo <= e.value <= e.hi <= 1
            assert (e.p < 0.05) == (e.lo > 0 or e.hi < 0)
    # MOVER on the parts: 3 of 100 deals +1, none -1. The positive part gets Clopper-Pearson at its
    # effective size m (1 - m) / se^2, the negative part (no spread) at the 100 deals, and the ends are
    # combined with the correlation of two results never both positive, at the negative part's edge
    d = np.zeros(100)
    d[:3] = 1.0
    e = paired_difference(np.zeros(100), d, bounds=(-1.0, 1.0))
    m, se = 0.03, d.std(ddof=1) / 10
    neff = m * (1 - m) / se ** 2
    lp, up = beta.ppf(0.025, m * neff, neff - m * neff + 1), beta.ppf(0.975, m * neff + 1, neff - m * neff)
    un = 1 - 0.025 ** (1 / 100)
    r = -math.sqrt(m * un / ((1 - m) * (1 - un)))
    assert e.lo == pytest.approx(m - math.sqrt((m - lp) ** 2 + un ** 2 - 2 * r * (m - lp) * un))
    assert e.hi == pytest.approx(up)
    # without bounds (a length) no interval can be had from data without spread: none, never zero width
    flat = paired_difference(np.full(4, 20.0), np.full(4, 18.0))
    assert flat.value == -2 and math.isnan(flat.lo) and math.isnan(flat.hi)
    assert math.isnan(flat.p)
    arm = stats.mean_ci(np.array([1.0, 0.0]), bounds=(0.0, 1.0))
    assert arm.lo >= 0.0 and arm.hi <= 1.0


def test_compare_and_cards_at_a_few_games_without_spread():
    """The words say why an interval is missing, and the cards table keeps every interval inside the
    values a difference can take."""
    from cardsim.studies.compare import span

    assert span(math.nan, math.nan, 1, "turns", n=3, what="games").startswith("none: each of the 3 games gave the same")
    assert span(math.nan, math.nan, 1, "turns") == "none: an interval needs at least 2 deals"
    plan = cards_study.Plan(None, ["a", "b"], "remove", 0, "holm", {}, False)
    values = {"": {"length": np.array([10.0, 12.0, 14.0]), "first-player advantage": np.array([-0.5, -0.5, -0.5])},
              "a": {"length": np.array([11.0, 13.0, 15.0]), "first-player advantage": np.array([0.5, 0.5, 0.5])},
              "b": {"length": np.array([9.0, 14.0, 30.0]), "first-player advantage": np.array([0.5, -0.5, 0.5])}}
    t = {(r["measure"], r["card"]): r for r in cards_study.effects_table(plan, values).iter_rows(named=True)}
    flat = t[("length", "a")]
    assert flat["effect"] == 1 and math.isnan(flat["lo"]) and math.isnan(flat["p"])
    edge = t[("first-player advantage", "a")]  # +1 in each of 3 games; a difference lies in [-1, 1] with 2 seats
    assert edge["effect"] == 1 and edge["lo"] < 0 and edge["hi"] == 1
    assert edge["lo_simultaneous"] < edge["lo"] and edge["p"] == pytest.approx(0.25)
    assert edge["hi_simultaneous"] == 1
    spread = t[("first-player advantage", "b")]
    assert spread["lo"] >= -1 and spread["hi"] <= 1 and spread["lo_simultaneous"] >= -1
    # each deck's mean length is a count's: its interval is cut at 0 (2 games of 17 and 118 turns read
    # "17.0 (-135.5 to 169.5) turns" in `cardsim cards -n 2`'s answer), as a compared arm's
    few = {"": {"length": np.array([3.0, 110.0])}, "a": {"length": np.array([2.0, 90.0])},
           "b": {"length": np.array([4.0, 4.0])}}
    for r in cards_study.effects_table(plan, few).iter_rows(named=True):
        assert 0 <= r["full_deck_lo"] < r["full_deck"] < r["full_deck_hi"]
        assert 0 <= r["changed_lo"] < r["changed"] < r["changed_hi"]  # "b": no spread, a count's interval
    # at 2 games a count's interval has no upper end: the answer says so, where it printed the mean alone
    from cardsim.studies.compare import mean_text

    assert mean_text(7.5, 0.0, math.inf) == "7.5 (0.0 to unbounded)"
    assert mean_text(7.5, 1.0, 9.0) == "7.5 (1.0-9.0)" and mean_text(7.5, math.nan, math.nan) == "7.5"
    # the named card's re-play on fresh seeds gets a verb only where its own interval shows the sign:
    # "re-played on 50 fresh seeds: shortens them by 0.3 hands (95% CI -1.4 to +0.6 hands)" claimed one
    again = {"effect": -0.3, "lo": -1.4, "hi": 0.6, "games": 50}
    assert cards_study._again(again, 1, "hands", verb=True) == "; re-played on 50 fresh seeds: -0.3 hands (95% CI -1.4 to +0.6 hands)"
    sure = {"effect": -0.3, "lo": -0.5, "hi": -0.1, "games": 50}
    assert cards_study._again(sure, 1, "hands", verb=True) == "; re-played on 50 fresh seeds: shortens them by 0.3 hands (95% CI 0.1-0.5 hands)"


def test_sweep_answer_uses_fresh_deals(tmp_path):
    s = from_dict({"scenario": {"name": "swc", "game": "fubnub", "games": 300, "seed": 3},
                   "seats": {"policies": ["tactician", "partner", "tactician", "partner"]},
                   "sweep": {"points": [{"seat0.call_need": 1}, {"seat0.call_need": 3}]}})
    res = api.sweep(s, runs=tmp_path)
    assert {"vs_best", "vs_best_lo", "vs_best_hi", "p_adj", "p_best"} <= set(res.table.columns)
    h = res.heldout.row(0, named=True)
    assert h["seed"] == sw.heldout_seed(3) and h["lo"] <= h["winrate_s0"] <= h["hi"]
    assert "fresh deals" in sw.headline(res)
    assert "in the sweep (the best of 2 points, so it reads high), " in sw.headline(res)  # a selected figure
    assert "in_sweep is the same point's figure in the sweep, which picked it" in " ".join(sw.output(res).notes)
    # a point the simultaneous intervals cannot tell from the best: the best only "reads" highest
    tied = dataclasses.replace(res, table=res.table.with_columns(vs_best_lo=pl.lit(-0.2), vs_best_hi=pl.lit(0.1)))
    assert "Seat 0's win rate reads highest at " in sw.headline(tied) and " is highest" not in sw.headline(tied)
    assert "cannot be told apart from it" in sw.headline(tied)
    apart = dataclasses.replace(res, table=res.table.with_columns(vs_best_lo=pl.lit(-0.2), vs_best_hi=pl.lit(-0.1)))
    assert "Seat 0's win rate is highest at " in sw.headline(apart)


def _sweep_result(values: np.ndarray, metric: str = "winrate_s0", best: str = "max") -> sw.SweepResult:
    """A sweep's result from a deals x points matrix, its contrasts computed as the sweep does."""
    k = values.shape[1]
    plan = sw.Plan(None, ["x"], [{"x": i} for i in range(k)], [], metric, best)
    c = sw.contrasts(values, best, bounds=(-1.0, 1.0) if metric != "length" else stats.UNBOUNDED)
    mean = values.mean(axis=0)
    table = pl.DataFrame({"x": list(range(k)), "winrate_s0": mean, "lo_s0": mean - 0.01, "hi_s0": mean + 0.01,
                          "vs_best": c["diff"], "vs_best_lo": c["lo"], "vs_best_hi": c["hi"],
                          "p_adj": c["p_adj"], "p_best": c["p_best"]})
    return sw.SweepResult(plan, table, None, int(c["best"]), float(c["critical"]))


@pytest.mark.parametrize("k", [3, 6])
def test_sweep_answer_gives_the_gaps_simultaneous_intervals(k):
    # "the other 2 are 11.5-23.8 points behind" came without an interval, though the table had them
    rng = np.random.default_rng(4)
    values = (rng.random((2000, k)) < np.linspace(0.6, 0.3, k)).astype(float)
    res = _sweep_result(values)
    t = res.table.filter(pl.col("x") != res.best_index)
    assert (t["vs_best_hi"] < 0).all()  # every other point detectably behind
    words = sw.headline(res)
    assert "simultaneous 95% intervals of every pair of points at once" in words
    ends = [(-r["vs_best_hi"], -r["vs_best_lo"]) for r in t.iter_rows(named=True)]
    if k <= 3:
        for lo, hi in sorted(ends):
            assert f"{100 * lo:.1f}-{100 * hi:.1f}" in words
    else:
        assert (f"each between {100 * min(e[0] for e in ends):.1f} and {100 * max(e[1] for e in ends):.1f})"
                in words)
    one = sw.headline(_sweep_result(values[:, :2]))
    assert "the other point is " in one and "(simultaneous 95% intervals" in one


def test_sweep_words_p_best_as_a_stability_not_a_probability():
    # "the chance it is truly the best point is about 59%": a plug-in share of normal draws centred on the
    # estimates, not a calibrated probability (it overstates the chance where points are close)
    rng = np.random.default_rng(5)
    values = (rng.random((1000, 3)) < [0.5, 0.48, 0.3]).astype(float)
    res = _sweep_result(values)
    words = sw.headline(res)
    pb = res.table["p_best"][res.best_index]
    assert "chance" not in words and "truly" not in words
    share = "more than 99%" if pb > 0.99 else f"{100 * pb:.0f}%"
    assert (f"it comes out best in {share} of resamples of these estimates (a measure of how settled the ranking "
            "is, not a probability that it is the best)") in words
    notes = " ".join(sw.output(res).notes)
    assert "p_best: the share of resamples of these estimates" in notes and "not a probability" in notes


def _players_sweep(rates: list[float], games: int = 400) -> sw.SweepResult:
    """A sweep over player counts 2.. (each point its own games) from seat 0's true-to-life win counts."""
    k = len(rates)
    plan = sw.Plan(None, ["players"], [{"players": p} for p in range(2, 2 + k)], [], "winrate_s0", "max")
    assert not plan.paired
    lo, hi = zip(*(stats.wilson(r * games, games) for r in rates), strict=True)
    table = pl.DataFrame({"players": list(range(2, 2 + k)), "games": [games] * k,
                          "fair": [1 / p for p in range(2, 2 + k)], "finished": [games] * k,
                          "winrate_s0": rates, "lo_s0": list(lo), "hi_s0": list(hi)})
    return sw.SweepResult(plan, sw.fair_share_intervals(table, "winrate_s0"))


def test_sweep_over_player_counts_judges_the_fair_share_at_every_point_at_once():
    # five pointwise "seat 0 vs fair share" intervals, no word on multiplicity and the question never answered
    res = _players_sweep([0.50375, 0.32625, 0.26, 0.1625, 0.14875])
    z = stats.bonferroni_z(5)
    for r in res.table.iter_rows(named=True):
        assert (r["sim_lo_s0"], r["sim_hi_s0"]) == pytest.approx(stats.wilson(r["winrate_s0"] * 400, 400, z))
        assert r["sim_lo_s0"] < r["lo_s0"] and r["sim_hi_s0"] > r["hi_s0"]
    words = sw.headline(res)
    assert "95% intervals simultaneous over the 5 points (Bonferroni)" in words
    assert "players=5: 16.2% (12.1-21.5%; fair 20.0%)" in words  # pointwise 13.0-20.2%
    assert "At no point does seat 0 win more or less than its fair share beyond chance" in words
    notes = sw.output(res).notes
    assert notes[0].startswith(stats.POINTWISE) and stats.ROWWISE.startswith(stats.POINTWISE)
    assert "sim_lo_s0/sim_hi_s0, 95% intervals simultaneous over the 5 points (Bonferroni)" in notes[0]
    assert sw.intervals(res) == notes[0]  # the report's word on its intervals


def test_sweep_over_player_counts_names_the_points_beyond_chance():
    res = _players_sweep([0.60, 0.3333, 0.25, 0.14, 0.1667], games=2000)
    words = sw.headline(res)
    assert ("Seat 0 wins more than its fair share beyond chance at players=2 (+10.0 percentage points); less at "
            "players=5 (-6.0 percentage points); at the other 3 the simultaneous intervals hold the fair share.") in words
    none_above = sw.headline(_players_sweep([0.5, 0.3333, 0.25, 0.14, 0.1667], games=2000))
    assert "beyond chance at no point; less at players=5" in none_above


def test_sweep_fair_share_ends_keep_their_side_of_the_fair_share():
    # an end just past the fair share rounds onto it at one decimal: it gets the decimals that show its side
    res = _players_sweep([0.5, 0.55])
    t = res.table.with_columns(sim_lo_s0=pl.Series([0.44, 0.33345]), sim_hi_s0=pl.Series([0.56, 0.7]))
    words = sw.headline(sw.SweepResult(res.plan, t))
    assert "players=3: 55.00% (33.34-70.00%; fair 33.33%)" in words


# -- card effects ------------------------------------------------------------------------------
def test_card_effects_on_the_same_seeds(tmp_path):
    s = from_dict({"scenario": {"name": "tc", "game": "turtle", "variant": "full", "players": 4, "games": 300,
                                "seed": 8}, "seats": {"policy": "eager"},
                   "cards": {"cards": ["Restart Game", "Shuffle"]}})
    res = api.cards(s, runs=tmp_path)
    e = res.effects
    assert set(e["measure"]) == {"length", "first-player advantage"}
    assert set(e["card"]) == {"Restart Game", "Shuffle"} and (e["lo_simultaneous"] <= e["lo"]).all()
    assert res.association is not None and "not a causal effect" in res.association[0]
    plan = cards_study.plan(s)
    assert plan.runs["Restart Game"][0].setup.knobs["remove"] == ("Restart Game",)
    # the card the answer names (the largest length effect of the two) is played again on fresh seeds
    big = max(e.filter(pl.col("measure") == "length").iter_rows(named=True), key=lambda r: abs(r["effect"]))
    h = res.heldout.row(0, named=True)
    assert res.heldout.height == 1 and (h["measure"], h["card"]) == ("length", big["card"])
    assert h["seed"] == sw.heldout_seed(8) and h["games"] == 300 and h["in_study"] == big["effect"]
    assert h["lo"] < h["effect"] < h["hi"] and h["effect"] != big["effect"]
    # a length effect beyond chance is said with a verb, and so is its re-play; the largest of effects
    # none of which is beyond chance gets no verb that claims a direction, and signed numbers
    big_card = big["card"]
    sure = cards_study.headline(dataclasses.replace(res, effects=e.with_columns(p_adjusted=pl.lit(0.001))))
    verb = "shortens" if big["effect"] < 0 else "lengthens"
    again = "shortens" if h["effect"] < 0 else "lengthens"
    assert sure.startswith(f"Removing {big_card} has the largest estimated effect on the length: it {verb} games "
                           f"by {abs(big['effect']):.1f} turns (")
    # the runner-up is named when its interval holds the named card's figure (the order is then not settled)
    other = e.filter((pl.col("measure") == "length") & (pl.col("card") != big_card)).row(0, named=True)
    named = f"the next, {other['card']} ({other['effect']:+.1f} turns, 95% CI "
    assert (named in sure) == (other["lo"] <= big["effect"] <= other["hi"])
    close = e.with_columns(lo=pl.when(pl.col("card") == other["card"]).then(-1e9).otherwise(pl.col("lo")),
                           hi=pl.when(pl.col("card") == other["card"]).then(1e9).otherwise(pl.col("hi")),
                           p_adjusted=pl.lit(0.001))
    assert "so which of the two changes it most is not settled" in cards_study.headline(
        dataclasses.replace(res, effects=close))
    assert f"re-played on 300 fresh seeds: {again} them by {abs(h['effect']):.1f} turns (95% CI " in sure
    unsure = cards_study.headline(dataclasses.replace(res, effects=e.with_columns(p_adjusted=pl.lit(0.5))))
    assert unsure.startswith(f"No card changes the length beyond chance; the largest estimate is removing "
                             f"{big_card}, {big['effect']:+.1f} turns (")
    assert f"re-played on 300 fresh seeds: {h['effect']:+.1f} turns (95% CI {h['lo']:+.1f} to" in unsure
    assert "0 of 2 cards change the length beyond chance" in unsure
    with pytest.raises(ScenarioError, match="unknown card"):
        cards_study.plan(from_dict({"scenario": {"name": "x", "game": "turtle", "games": 10},
                                    "cards": {"cards": ["Restart"]}}))
    with pytest.raises(ScenarioError, match="card catalogue"):
        cards_study.plan(from_dict({"scenario": {"name": "x", "game": "fourbid", "games": 10}, "cards": {}}))


# -- JSON --------------------------------------------------------------------------------------
def test_rate_and_compare_json(tmp_path):
    f = tmp_path / "r.toml"
    f.write_text('[scenario]\nname = "rj"\ngame = "fubnub"\ngames = 200\n[ratings]\npolicies = ["random", "partner"]\n')
    r = CliRunner().invoke(app, ["rate", str(f), "--runs", str(tmp_path), "-f", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert {"policy", "theta", "lo", "hi"} <= set(doc["tables"]["Ratings"][0]) and "Fit" in doc["tables"]
    c = tmp_path / "c.toml"
    c.write_text('[scenario]\nname = "cj"\ngame = "fubnub"\ngames = 200\n[compare]\narms = [{name = "a"}, '
                 '{name = "b", policies = ["random", "partner", "random", "partner"]}]\n')
    r = CliRunner().invoke(app, ["compare", str(c), "--runs", str(tmp_path), "-f", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    diffs = next(v for k, v in doc["tables"].items() if k.startswith("Differences"))
    assert {"diff", "lo", "hi", "p_holm"} <= set(diffs[0]) and "points less often" in doc["answer"]


def test_sweep_of_one_deal_says_why_the_points_are_not_compared(tmp_path):
    """One game: the note said '1 of 1 deals finished at every point (an unfinished game has no
    winner ...)'; nothing was unfinished, an interval needs two deals."""
    s = from_dict({"scenario": {"name": "sw1", "game": "fubnub", "games": 1, "seed": 3},
                   "seats": {"policies": ["tactician", "partner", "tactician", "partner"]},
                   "sweep": {"points": [{"seat0.call_need": 1}, {"seat0.call_need": 3}]}})
    res = api.sweep(s, runs=tmp_path)
    assert res.best_index is None and "needs at least 2" in res.note and "unfinished" not in res.note


def test_rate_difference_mover_is_the_t_interval_at_large_n_and_keeps_a_far_levels_skew():
    """rate_difference(mover=True): Wilson intervals of the two rates at their effective sizes,
    combined with their clustered correlation. With independent games of one trial on each side it is
    the t interval at large n; a rate of 0 keeps its Wilson upper bound (the t interval sees no spread
    there and is symmetric)."""
    from cardsim.stats import rate_difference

    rng = np.random.default_rng(11)
    g = 20_000
    a, b = rng.random(g) < 0.3, rng.random(g) < 0.25
    args = (a.astype(float), np.ones(g), (a + b).astype(float), np.full(g, 2.0))
    t, m = rate_difference(*args), rate_difference(*args, mover=True)
    assert m.value == t.value and (m.lo, m.hi) == pytest.approx((t.lo, t.hi), abs=3e-4)
    g = 400  # a group that never won in 400 trials: the t interval takes its rate as known (no spread)
    a, b = np.zeros(g, bool), rng.random(g) < 0.3
    args = (a.astype(float), np.ones(g), (a + b).astype(float), np.full(g, 2.0))
    t, m = rate_difference(*args, alpha=0.05 / 30), rate_difference(*args, alpha=0.05 / 30, mover=True)
    from cardsim.stats import bonferroni_z, wilson

    z = bonferroni_z(30)
    ui = wilson(0, g, z)[1]
    lo_, uo = wilson(b.sum(), g, z)
    ro = b.mean()
    # Newcombe's hybrid score interval (independent groups; the effective size 400 / 1.0025, the design effect)
    assert (m.lo, m.hi) == pytest.approx((-ro - (uo - ro), -ro + math.hypot(ui, ro - lo_)), abs=3e-4)
    assert m.hi - m.value != pytest.approx(m.value - m.lo, abs=1e-3)  # not symmetric, as t is


def test_gubs_drew_and_not_rates_are_clustered_by_game():
    """Gubs' card table: the win rate of seats that drew a card (and of those that did not) took every
    seat as independent; a game's seats are one cluster, so its Wilson interval is at the effective
    size n / max(1, deff). Seats of a game that win or lose together (deff 3 here) widen it; a game's
    one winner among its seats (deff below 1) leaves the binomial interval."""
    from cardsim.stats import effective_size, kg_factor

    n = np.full(1000, 3.0)
    together = np.where(np.arange(1000) % 2 == 0, 3.0, 0.0)  # every seat of a game wins, or none
    assert effective_size(n, together) == pytest.approx(1000, rel=0.01)  # 3,000 seats, deff 3
    one_each = np.ones(1000)  # one winner of three in every game: less spread than binomial
    # the binomial size, times Korn and Graubard's adjustment for a design effect read from 1,000 games
    assert effective_size(n, one_each) == pytest.approx(3000.0 * kg_factor(3000, 1000))
    assert 0.998 < kg_factor(3000, 1000) < 1.0


def test_ratings_reference_is_exactly_zero_and_the_share_has_the_strengths_interval():
    """The reference's interval read -1e-09 to +1e-09 in JSON (the fit's tolerance); the answer's
    "beats one of partner's in 65.3% of contests" came without the interval its strength has."""
    p = R.Plan(None, ["ref", "b", "c"], [(0, 1), (0, 2), (1, 2)], {}, 0)
    res = R.analyse(p, _obs([35, 45, 60], p.pairs), 100)
    r = {row["policy"]: row for row in res.ratings.iter_rows(named=True)}
    assert (r["ref"]["theta"], r["ref"]["lo"], r["ref"]["hi"]) == (0.0, 0.0, 0.0)
    assert r["b"]["lo"] < r["b"]["theta"] < r["b"]["hi"]
    top = res.ratings.row(0, named=True)
    assert top["policy"] == "b"  # b beats the reference in 65 of 100, c in 60

    def share(x: float) -> str:
        return f"{100 / (1 + math.exp(-x)):.1f}%"

    words = R.headline(res)
    assert (f"beats one of ref's in {share(top['theta'])} of contests (95% CI {share(top['lo'])}-{share(top['hi'])}, "
            "the strength's interval transformed)") in words
    # the top is chosen from these figures: the answer says they are in-sample; a poor fit is named
    assert words.startswith(f"b rates highest in these games: {top['theta']:+.2f} log-odds over ref (95% CI ")
    assert "; in-sample, the top chosen from these figures, so it reads high)" in words
    assert "fit the results poorly" not in words
    poor = dataclasses.replace(res, warnings=["The strengths do not fit the results (goodness of fit p = 1e-09)"])
    assert "The strengths fit the results poorly (see the notes)" in R.headline(poor)
    # the reference on top: the next policy's share of its contests with the reference, likewise
    res = R.analyse(p, _obs([65, 55, 50], p.pairs), 100)
    nxt = res.ratings.row(1, named=True)
    assert res.ratings["policy"][0] == "ref"
    assert f"contests with ref (95% CI {share(nxt['lo'])}-{share(nxt['hi'])}, the strength's" in R.headline(res)
    doc = R.output(res).to_dict()["tables"]["Ratings"]
    assert next(row for row in doc if row["policy"] == "ref")["hi"] == 0.0


def test_counts_are_integers_in_the_tables():
    """`k` came out as 975.0 in JSON: successes of a yes/no column, and wins where no win was shared,
    are counts (integer columns); a mean's sum, or wins shared 1/k, stay floats."""
    f = pl.DataFrame({"game": [0, 0, 1, 2], "x": [0, 0, 0, 0], "y": [True, False, True, True], "v": [0.5, 1, 2, 0]})
    assert rate_table(f, ["x"], "y")["k"].dtype == pl.Int64 and rate_table(f, ["x"], "y")["k"][0] == 3
    assert rate_table(f, ["x"], pl.col("v") > 0)["k"].dtype == pl.Int64
    assert rate_table(f, ["x"], "v")["k"].dtype == pl.Float64
    team = pl.DataFrame({"game": [0, 0, 1, 1], "seat": [0, 1, 0, 1], "win": [1.0, 0.0, 0.0, 1.0]})
    seats = stats.seat_table(team)
    assert seats["k"].dtype == pl.Int64 and seats["k"].to_list() == [1, 1] and "_shared" not in seats.columns
    assert json.dumps(seats.to_dicts()[0]["k"]) == "1"
    shared = team.with_columns(win=pl.Series([0.5, 0.5, 0.0, 1.0]))
    assert stats.seat_table(shared)["k"].to_list() == [0.5, 1.5]


def test_card_table_lifts_stay_in_range_and_a_side_without_wins_keeps_its_width():
    """The card tables' lifts (Gubs' drew minus not, Turtle's revealer minus the number cards' rate) had
    t intervals: a 3-game Gubs run printed -254% to +194%, and a Turtle card whose revealers won 0 of 5
    read -29.8% to -18.0% (a side without a win shows no spread), far from its true lift near 0. They are
    the two rates' Wilson intervals combined by MOVER now, as the answers' (coverage case "rate difference")."""
    from cardsim.games.gubs import cards as GC
    from cardsim.games.gubs.game import ImpactSums, impact_table
    from cardsim.games.turtle import game as TG

    nk, nc = len(GC.CARD_NAMES), 3  # 3 games of 4 seats, one winner each
    n_in, w_in = np.zeros((nk, nc)), np.zeros((nk, nc))
    n_in[0], w_in[0] = [3, 1, 2], [1, 0, 1]  # Gub: drawn by some seats of each game
    n_in[1], w_in[1] = [1, 1, 1], [0, 0, 0]  # Esteemed Elder: its holders never won
    sums = ImpactSums(np.ones(nk, np.int64), np.ones(nk, np.int64), np.ones(nk, np.int64), np.full(nc, 4.0),
                      np.ones(nc), n_in, w_in)
    t = impact_table(sums)
    assert ((t["lift_lo"] >= -1) & (t["lift_hi"] <= 1) & (t["lift_lo"] <= t["lift"]) & (t["lift"] <= t["lift_hi"])).all()
    elder = t.filter(pl.col("card") == "Esteemed Elder").row(0, named=True)
    e = sums.lift("Esteemed Elder", mover=True)
    assert (elder["lift_lo"], elder["lift_hi"]) == (e.lo, e.hi) and elder["lift_hi"] > 0  # 0 of 3 is no finding
    # the t interval, still there for a caller that asks for it, is cut to the range a difference has
    t3 = sums.lift("Gub")
    assert -1 <= t3.lo <= t3.hi <= 1

    # Turtle: 40 games of 4 seats, seat 0 wins; each seat reveals 6 number cards; Rhyme 5 times by losers
    g = 40
    games = pl.DataFrame({"game": np.arange(g), "winner": np.zeros(g, np.int64),
                          **{f"reveals_s{k}": np.full(g, 6 + (k == 1) * (np.arange(g) < 5)) for k in range(4)}})
    rv = pl.DataFrame({"game": np.arange(5), "card": pl.Series(["Rhyme"] * 5, dtype=TG.CARD_ENUM),
                       "seat": 1, "applied_to": 0, "won": False}, schema_overrides={"game": pl.Int64})
    base, table = TG.card_section({"games": games.lazy(), "reveals": rv.lazy()}, 4)
    rhyme = table.filter(pl.col("card") == "Rhyme").row(0, named=True)
    assert base.value == pytest.approx(0.25) and rhyme["lift"] == pytest.approx(-0.25)
    assert base.lo < 0.25 < base.hi  # the baseline is estimated too: the captions give its interval
    assert TG.baseline_text(base).startswith("25.0% (95% CI ")
    assert -1 <= rhyme["lift_lo"] < -0.25 and rhyme["lift_hi"] > 0  # 0 of 5 reveals won: no detectable harm


def test_a_count_per_game_is_never_below_zero():
    """Full Deck's Restart Game cards per game read 0.20, 95% CI -0.10 to 0.50 over 10 games: a mean of a
    count is cut at 0 (mean_query's ``count``), as mean_ci cuts a half-bounded value."""
    from cardsim.games.fubnub.game import _means

    games = pl.DataFrame({"game": np.arange(10), "restarts": [1, 0, 0, 0, 0, 0, 1, 0, 0, 0]})
    free = mean_table(games, "restarts").row(0, named=True)
    assert free["lo"] < 0  # Student's t at 9 degrees of freedom reaches below 0
    (row,) = pl.collect_all(_means(games.lazy(), [("restarts", "Restart Game")]))
    r = row.row(0, named=True)
    assert r["lo"] == 0.0 and r["hi"] >= free["hi"] and r["mean"] == pytest.approx(0.2)


def test_full_deck_per_game_means_correct_for_skew_as_every_mean_over_games():
    """Battle Royal, Solo and Full Deck's per-game means (point cards, hands, limbo, discards, action
    cards, Restart Game: one value a game) took the plain clustered t of mean_query, while the README
    says a mean over games has Hall's skewness correction (mean_exprs, mean_ci): 8.2 action cards over
    10 skewed games read 0-17.2 where Hall reads 1.8-43.2. They are now mean_exprs' interval, the one
    mean_ci gives one value a unit, with deff 1 and the same columns."""
    from cardsim.games.fubnub.game import _means
    from cardsim.stats import mean_ci

    x = [1, 1, 1, 2, 2, 3, 4, 8, 20, 40]
    games = pl.DataFrame({"game": np.arange(10), "action_cards": x})
    (row,) = pl.collect_all(_means(games.lazy(), [("action_cards", "action cards revealed")]))
    r = row.row(0, named=True)
    e = mean_ci(np.array(x, dtype=np.float64), bounds=(0.0, math.inf))
    assert (r["mean"], r["se"], r["lo"], r["hi"]) == pytest.approx((e.value, e.se, e.lo, e.hi))
    plain = mean_table(games, "action_cards").row(0, named=True)  # the clustered t, below cut at 0
    assert r["lo"] > max(plain["lo"], 0.0) and r["hi"] > 2 * plain["hi"]  # the right skew moves it up
    assert row.columns == ["n", "mean", "se", "lo", "hi", "deff"] and r["deff"] == 1.0 and r["n"] == 10
    assert row.schema["n"] == pl.Int64


def test_a_count_no_game_showed_reads_0_to_a_positive_upper_end():
    """A count that can happen but did not (Restart Game cards, discards, skipped draws, reshuffles) read
    0.00 (0.00-0.00) at 10 games: the t interval of a sample without spread. A count's mean now reads
    Garwood's interval there, 0 to 3.69 / 10 a game (per hand, 3.69 over the hands), as Turtle's reveals
    of a card never seen; and it is never narrower than Garwood's at the effective count. A count the
    rules make constant (every Battle Royal game has 15 hands) keeps its zero width."""
    from scipy.stats import chi2

    from cardsim.games.fubnub.game import _means
    from cardsim.stats import mean_exprs

    up = chi2.ppf(0.975, 2) / 2  # 3.69
    games = pl.DataFrame({"game": np.arange(10), "restarts": 0, "hands": 15})
    r = games.select(*mean_exprs("restarts", count=True)).row(0, named=True)
    assert r["mean"] == r["lo"] == 0.0 and r["hi"] == pytest.approx(up / 10)
    assert games.select(*mean_exprs("restarts")).row(0, named=True)["hi"] == 0.0  # what it was
    hands = pl.DataFrame({"game": np.repeat(np.arange(10), 8), "reshuffles": 0})
    h = mean_table(hands, "reshuffles", count=True).row(0, named=True)
    assert h["lo"] == 0.0 and h["hi"] == pytest.approx(up / 80)
    restarts, length = pl.collect_all(_means(games.lazy(), [("restarts", "Restart Game"), ("hands", "hands")],
                                             exact={"hands"}))
    assert restarts["lo"][0] == 0.0 and restarts["hi"][0] == pytest.approx(up / 10)
    assert length["lo"][0] == length["hi"][0] == 15.0
    # a count every game gave 2 of, where the rules do not fix it: Garwood's interval at 20 events
    two = pl.DataFrame({"x": [2.0] * 10}).select(*mean_exprs("x", count=True)).row(0, named=True)
    assert (two["lo"], two["hi"]) == pytest.approx((chi2.ppf(0.025, 40) / 20, chi2.ppf(0.975, 42) / 20))
    # one event in 100 games: at least Garwood's interval at the effective count (here about 1 event)
    one = pl.DataFrame({"x": [1.0] + [0.0] * 99}).select(*mean_exprs("x", count=True)).row(0, named=True)
    assert one["lo"] == 0.0 and one["hi"] >= chi2.ppf(0.975, 4) / 2 / 100 - 1e-9
    # a common count: Garwood's interval at its effective count is about the t interval, which stays
    sym = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0] * 20})
    a, b = (sym.select(*mean_exprs("x", count=c)).row(0, named=True) for c in (True, False))
    assert a["lo"] == pytest.approx(b["lo"]) and b["hi"] <= a["hi"] <= b["hi"] * 1.01


@pytest.mark.parametrize("x", [[0.0] * 10, [2.0] * 10, [1.0] + [0.0] * 99, [3, 40, 7, 12, 22, 5, 61, 9, 18, 30],
                               [1.0, 2.0, 3.0, 4.0, 5.0] * 20])
def test_mean_ci_of_a_count_is_the_summaries_interval(x):
    """compare's and sweep's lengths and the balance metrics' duration and lead changes took mean_ci's
    interval of an unbounded value, which has no count's floor: 10 games that all lasted 2 turns read
    none at all, and a length's t interval was narrower than the summaries' Game length of the same
    games. ``mean_ci(count=True)`` is now ``mean_exprs(count=True)``'s interval, value for value."""
    from cardsim.stats import mean_ci, mean_exprs

    v = np.asarray(x, dtype=np.float64)
    r = pl.DataFrame({"x": v}).select(*mean_exprs("x", count=True)).row(0, named=True)
    e = mean_ci(v, count=True)
    assert (e.value, e.lo, e.hi) == pytest.approx((r["mean"], r["lo"], r["hi"]), rel=1e-6, abs=1e-12)
    assert 0.0 <= e.lo < e.hi  # never zero width, never below 0


def test_the_studies_lengths_take_a_counts_interval():
    """A length is a count: compare's arms and the balance metrics' duration (as the sweep's points and
    held-out point, and lead changes) read at least Garwood's interval (``count``), never none."""
    from cardsim.metrics import _mean_row
    from cardsim.stats import mean_ci
    from cardsim.studies import compare
    from cardsim.studies.compare import Plan

    same = np.full(10, 2.0)
    assert math.isnan(mean_ci(same, bounds=(0.0, math.inf)).lo)  # what lengths read before: no interval
    row = _mean_row("duration", same, count=True)
    assert (row["lo"], row["hi"]) == pytest.approx((mean_ci(same, count=True).lo, mean_ci(same, count=True).hi))
    plan = Plan(base=None, arms=["a", "b"], runs={}, focus=0, metric="length", decide=False, alpha=0.05)
    arms, _ = compare.summarize(plan, {"a": same, "b": same + np.arange(10)})
    a = arms.row(0, named=True)
    assert 0 < a["lo"] < 2.0 < a["hi"]


def test_summaries_print_a_count_exact_only_where_the_rules_fix_it():
    """Which counts the summaries print without an interval's width: those the setup makes constant."""
    from cardsim.games.fubnub.game import GAME as FUBNUB
    from cardsim.games.fubnub.game import _exact_counts as fubnub_exact
    from cardsim.games.turtle.game import GAME as TURTLE
    from cardsim.games.turtle.game import _exact_counts as turtle_exact
    from cardsim.scenario import build_setup

    def fub(variant, **rules):
        return fubnub_exact(build_setup(FUBNUB, variant, 4, None, rules))

    assert fub("battle_royal") == {"hands", "discarded"}
    assert fub("battle_royal", tie_rule="discard") == {"hands", "limbo_left"}
    assert fub("battle_royal", tie_rule="last_trick") == {"hands", "discarded", "limbo_left"}
    assert fub("full_deck") == {"discarded"}
    assert fub("full_deck", remove_actions=["Restart Game"]) == {"discarded", "restarts"}
    assert turtle_exact(build_setup(TURTLE, "young", 4, None, {})) == {"restarts", "shuffles"}
    assert turtle_exact(build_setup(TURTLE, "full", 4, None, {})) == set()
    assert turtle_exact(build_setup(TURTLE, "full", 4, None, {"remove": ["Shuffle"]})) == {"shuffles"}


def test_an_interval_keeps_its_ends_on_their_side_of_the_reference():
    """"The first dealer's team wins 52.1% (95% CI 50.0-54.3%), no detectable edge": the lower end was 49.96%,
    printed as if the interval left 50% out. An end on one side of the reference the sentence judges it
    against (an even game, a fair share, no difference) gets the decimals that keep it there."""
    from cardsim.report import numbers as N

    assert N.pct_ci(0.5213, 0.49962, 0.54311, ref=0.5) == "52.13% (95% CI 49.96-54.31%)"
    assert N.pct_ci(0.5213, 0.49962, 0.54311) == "52.1% (95% CI 50.0-54.3%)"  # no reference: as before
    assert N.pct_ci(0.521, 0.4990, 0.543, ref=0.5) == "52.1% (95% CI 49.9-54.3%)"  # already on its side
    assert N.pct_ci(0.52, 0.5, 0.54, ref=0.5) == "52.0% (95% CI 50.0-54.0%)"  # an end at the reference stays
    assert N.pct_ci(0.25, 0.2504, 0.3, ref=[0.2, 0.25]) == "25.00% (95% CI 25.04-30.00%)"  # above, not onto it
    assert N.side_digits(0.4999999, 0.51, 0.5) == 4  # at most 4 decimals
    assert N.points_ci(0.025, -0.0004, 0.05) == "+2.50 percentage points (95% CI -0.04 to +5.00)"  # not -0.0
    assert N.points_ci(0.025, 0.0004, 0.05) == "+2.50 percentage points (95% CI +0.04 to +5.00)"  # not +0.0
    assert N.num_ci(10.0, 9.96, 12.0, ref=10.0) == "10.00 (95% CI 9.96-12.00)"


def test_a_difference_in_points_never_prints_its_ends_alike():
    """At 10 million deals a difference of two win rates is known to +-0.03 points: one fixed decimal
    printed "+0.3 points (95% CI +0.3 to +0.3)" (compare's answer, points_ci, the sweep's gaps, the card
    study's, the search's and meta's gains). Where one decimal prints the ends alike they get the decimals
    the half-width justifies (numbers.share_digits, as pct_ci); ordinary run sizes are unchanged."""
    from types import SimpleNamespace

    from cardsim.report.numbers import points_ci
    from cardsim.studies import compare as cmp
    from cardsim.studies import meta, search

    assert points_ci(0.003, 0.0027, 0.0033) == "+0.300 percentage points (95% CI +0.270 to +0.330)"
    assert points_ci(0.028, 0.018, 0.037) == "+2.8 percentage points (95% CI +1.8 to +3.7)"  # unchanged
    assert points_ci(0.0, -0.0002, 0.0002) == "+0.000 percentage points (95% CI -0.020 to +0.020)"  # not -0.0 to +0.0
    # compare's answer: the difference and its interval alike
    plan = cmp.Plan(base=None, arms=["a", "b"], runs={"a": [None], "b": [None]}, focus=0, metric="win",
                    decide=False, alpha=0.05)
    arms = pl.DataFrame({"arm": ["a", "b"], "n": [10_000_000] * 2, "mean": [0.5, 0.503], "se": [1.6e-4] * 2,
                         "lo": [0.4997, 0.5027], "hi": [0.5003, 0.5033]})

    def said(diff, lo, hi):
        row = {"arm": "b", "vs": "a", "n": 10_000_000, "diff": diff, "lo": lo, "hi": hi}
        return cmp.describe(cmp.CompareResult(plan, 10_000_000, arms, pl.DataFrame([row])), row)

    words = said(0.003, 0.0027, 0.0033)
    assert "wins 0.300 points more often" in words and "the difference's 95% CI 0.270-0.330 points" in words
    assert "50.000% (49.970-50.030%) -> 50.300% (50.270-50.330%)" in words  # the arms' own (pct_ci, as before)
    words = said(0.03, 0.02, 0.04)
    assert "wins 3.0 points more often" in words and "95% CI 2.0-4.0 points" in words
    assert cmp.span(-0.0001, 0.0002, 100, "points") == "-0.010 to +0.020 points"  # not -0.0 to +0.0
    assert cmp.span(-0.33, 0.02, 100, "points") == "-33.0 to +2.0 points"
    assert cmp.span(7.999, 8.003, 1, "turns") == "7.9990-8.0030 turns"  # a length's the same way
    # the sweep's gaps
    worse = [{"vs_best": -0.003, "vs_best_lo": -0.0033, "vs_best_hi": -0.0027}]
    assert sw._gaps(worse, False, "points", "behind").startswith("the other point is 0.300 points behind (")
    assert sw._gaps(worse, False, "points", "behind").endswith(": 0.270-0.330)")
    worse = [{"vs_best": -0.03, "vs_best_lo": -0.04, "vs_best_hi": -0.02}]
    assert sw._gaps(worse, False, "points", "behind").endswith("3.0 points behind (simultaneous 95% intervals of "
                                                                  "every pair of points at once: 2.0-4.0)")
    # meta's and the search's gains in points
    g = SimpleNamespace(mean=0.003, lo=0.0027, hi=0.0033)
    assert meta._gain_ci(g) == "+0.300 points (95% CI +0.270 to +0.330 points)"
    assert meta._gain_ci(SimpleNamespace(mean=0.03, lo=0.02, hi=0.04)) == "+3.0 points (95% CI +2.0 to +4.0 points)"
    win = SimpleNamespace(objective="win")
    assert search._ci(win, 0.0027, 0.0033, diff=True) == "+0.270 to +0.330 points"
    assert search._pts(win, 0.003, lo=0.0027, hi=0.0033) == "+0.300 points"
    assert search._ci(win, 0.02, 0.04, diff=True) == "+2.0 to +4.0 points" and search._pts(win, 0.03) == "+3.0 points"


def test_a_share_interval_never_prints_its_ends_alike():
    """At 10 million hands a rate's Wilson interval is +-0.03 points: one decimal printed 60.5% (95% CI
    60.5-60.5%) and a table row 60.5% 60.5% 60.5%, hiding a real width. Where the ends would print
    alike, that row (or answer) gets the decimals its half-width justifies; other rows keep one."""
    from cardsim.output import text_table
    from cardsim.report.numbers import pct_ci
    from cardsim.stats import wilson

    lo, hi = wilson(6_050_000, 10_000_000)
    assert pct_ci(0.605, lo, hi) == "60.500% (95% CI 60.470-60.530%)"
    assert pct_ci(0.5, 0.48, 0.52) == "50.0% (95% CI 48.0-52.0%)"  # unchanged where one decimal shows it
    f = pl.DataFrame({"event": ["a", "b"], "n": [10_000_000, 1_000], "rate": [0.605, 0.2], "lo": [lo, 0.176],
                      "hi": [hi, 0.226]})
    rows = text_table(f).splitlines()[2:]
    assert rows[0].split()[-3:] == ["60.500%", "60.470%", "60.530%"]
    assert rows[1].split()[-3:] == ["20.0%", "17.6%", "22.6%"]


def test_one_game_of_several_hands_has_no_clustered_interval():
    """Hands clustered by game need two games for their variance. One FOURBID game of 5 hands printed a
    going-out rate of 1 in 5 as "n/a (0.0-100.0%)", 3 in 5 as 60.0% (23.1-88.2%) (Wilson as if the hands
    were independent), and turns per hand "33.80 (0 to n/a)": a lone lower end. Now the rate is k / n and
    the interval is missing, as a mean's; one row per game keeps Wilson at n = 1."""
    one = pl.DataFrame({"game": [0] * 5, "x": 0, "y": [True, False, False, False, False],
                        "z": [True, True, True, False, False], "t": [30.0, 31, 40, 20, 48]})
    for col, rate in (("y", 0.2), ("z", 0.6)):
        r = rate_table(one, ["x"], col).row(0, named=True)
        assert r["rate"] == pytest.approx(rate) and r["lo"] is None and r["hi"] is None and r["deff"] is None
    for count in (False, True):
        m = mean_table(one, "t", count=count).row(0, named=True)
        assert m["mean"] == pytest.approx(33.8) and m["lo"] is None and m["hi"] is None
    single = rate_table(one.head(1), ["x"], "y").row(0, named=True)  # one row of one game: Wilson at n = 1
    assert (single["lo"], single["hi"]) == pytest.approx(stats.wilson(1, 1))
    two = rate_table(one.with_columns(game=pl.Series([0, 0, 1, 1, 1])), ["x"], "z").row(0, named=True)
    # from two games on there is an interval; on two games the design effect rests on t with 1 degree of
    # freedom (Korn and Graubard's adjustment, (t_4 / t_1)^2 = 0.048), so it spans nearly everything
    assert 0 <= two["lo"] < 0.1 and two["hi"] > 0.95


def test_a_bounded_mean_of_chunks_keeps_its_skew_and_never_reads_0_0():
    """mean_table(bounds=): points that come in chunks (FOURBID's spent points). No game spent: 0 to CP's
    upper end at 0 of the games times the bound, not 0-0; one chunk of 16 in 100 games: at least
    Korn-Graubard's interval (the t interval read -0.02 to 0.06 a hand, below 0 and too short above);
    a common mean is the t interval cut to the bounds."""
    g = np.repeat(np.arange(100), 5)
    none = mean_table(pl.DataFrame({"game": g, "x": 0.0}), "x", bounds=(0.0, 16.0)).row(0, named=True)
    assert none["lo"] == 0.0 and none["hi"] == pytest.approx(16 * stats._cp_interval(0, 100, 0.05)[1])
    x = np.zeros(g.size)
    x[7] = 16.0
    f = pl.DataFrame({"game": g, "x": x})
    t, b = mean_table(f, "x").row(0, named=True), mean_table(f, "x", bounds=(0.0, 16.0)).row(0, named=True)
    assert t["lo"] < 0 and b["lo"] == 0.0 and b["hi"] > t["hi"] * 1.5
    rng = np.random.default_rng(1)
    common = pl.DataFrame({"game": g, "x": rng.integers(0, 17, g.size).astype(float)})
    t, b = (mean_table(common, "x", bounds=bd).row(0, named=True) for bd in (None, (0.0, 16.0)))
    assert (b["lo"], b["hi"]) == pytest.approx((t["lo"], t["hi"]), rel=0.01)


def test_no_trials_give_no_interval_and_a_missing_interval_no_false_precision():
    """Gubs' card table at 1 game: a card every seat drew had no 'not' seats, and read n/a (n/a to 100.0%)
    (0/0 is NaN, which polars orders above every number, so it passed k >= n); now all three are missing,
    as wilson(0, 0). A game length without an interval read "118.0000 turns (95% CI n/a)"."""
    from cardsim.report import numbers as N

    t = pl.DataFrame({"k": [0.0, 3.0], "n": [0.0, 5.0]}).select(stats.wilson_exprs(pl.col("k"), pl.col("n")))
    assert t.row(0) == (None, None, None) and t.row(1) == pytest.approx((0.6, *stats.wilson(3, 5)))
    nan = pl.DataFrame({"k": [float("nan")], "n": [float("nan")]}).select(stats.wilson_exprs(pl.col("k"), pl.col("n")))
    assert nan.row(0) == (None, None, None)
    assert N.num_ci(118.0, float("nan"), float("nan"), "turns") == "118 turns (95% CI n/a)"
    # a share without an interval (a rate clustered by game, from 1 game: `cardsim run fubnub.toml -n 1`)
    assert N.pct_ci(0.4615, float("nan"), float("nan")) == "46.2% (95% CI n/a)"  # not "(95% CI n/a%)"
    assert N.pct_ci(0.4615, None, None, label="") == "46.2% (n/a)"
    assert N.num_ci(7.73, 6.6, 8.9, "turns") == "7.7 turns (95% CI 6.6-8.9)"


def test_wilson_far_end_at_none_or_all_is_clopper_pearsons():
    """At 0 of n (n of n) the far end is Clopper-Pearson's exact 1 - 0.025^(1/n) (0.025^(1/n)):
    Wilson's own, 3.84 / (n + 3.84), held a true rate just above it in 79% of samples at n = 1."""
    from scipy.stats import beta

    from cardsim.stats import wilson, wilson_exprs

    for n in (1, 2, 5, 46, 1000, 2.5):
        assert wilson(0, n)[1] == pytest.approx(beta.ppf(0.975, 1, n), rel=1e-12)
        assert wilson(n, n)[0] == pytest.approx(beta.ppf(0.025, n, 1), rel=1e-12)
        row = pl.DataFrame({"k": [0.0, float(n)], "n": [n, n]}).select(wilson_exprs(pl.col("k"), pl.col("n")))
        assert row["hi"][0] == pytest.approx(wilson(0, n)[1], rel=1e-12)
        assert row["lo"][1] == pytest.approx(wilson(n, n)[0], rel=1e-12)
    # the worst case of a rate just above the far end: 0 of n that often
    for n in (1, 2, 5):
        p = wilson(0, n)[1] + 1e-9
        assert (1 - p) ** n <= 0.025
    # from 4 successes and 4 failures on it is Wilson's, as before (4 of 10: 16.8-68.7%); at 1 of 2 each near
    # end is Clopper-Pearson's (9.5-90.5% before: see test_wilson_near_end_at_a_few_events_is_clopper_pearsons)
    assert wilson(4, 10) == pytest.approx((0.1681803, 0.6873262), abs=1e-6)
    assert wilson(1, 2) == pytest.approx((beta.ppf(0.025, 1, 2), beta.ppf(0.975, 2, 1)), rel=1e-12)


def test_wilson_near_end_at_a_few_events_is_clopper_pearsons():
    """Wilson's lower end at 1 of n, about 0.18 / n, lies above a true rate of 0.17 / n, which gives 1 of n in
    14% of samples: whatever n, Wilson held it in 84.4% (at 2 of n and a truth of 0.54 / n 90%, at 3 and
    1.0 / n 92%). Up to 3 successes (failures) the near end is at most Clopper-Pearson's, in the polars
    expressions the summaries use too."""
    from scipy.stats import beta, binom

    from cardsim.stats import wilson, wilson_exprs

    for n in (30, 1000, 100_000):
        p = 0.17 / n
        ks = np.arange(0, 12)
        held = sum(binom.pmf(k, n, p) for k in ks if wilson(int(k), n)[0] <= p <= wilson(int(k), n)[1])
        assert held >= 0.95
        assert wilson(1, n)[0] == pytest.approx(beta.ppf(0.025, 1, n), rel=1e-9)
        assert wilson(n - 2, n)[1] == pytest.approx(beta.ppf(0.975, n - 1, 2), rel=1e-9)
    ks, ns = [0.0, 0.5, 1.0, 2.0, 3.0, 3.5, 4.0, 97.0, 99.0, 100.0, 1.5], [100.0] * 10 + [2.5]
    t = pl.DataFrame({"k": ks, "n": ns}).select(wilson_exprs(pl.col("k"), pl.col("n")))
    for k, n, lo, hi in zip(ks, ns, t["lo"], t["hi"], strict=True):
        assert (lo, hi) == pytest.approx(wilson(k, n), rel=1e-12, abs=1e-15)


def test_a_clustered_rate_of_none_or_all_takes_its_games_as_its_size():
    """No spread, no design effect to estimate: the effective size is the games (rows of a game
    alike, the most clustering can take), not the rows: 0 of 900 hands in 100 games reads 0 to
    1 - 0.025^(1/100) = 3.6%, not 0.41%; deff reads rows over games."""
    g = np.repeat(np.arange(100), 9)
    for y, end in ((np.zeros(900, bool), "hi"), (np.ones(900, bool), "lo")):
        r = rate_table(pl.DataFrame({"game": g, "x": 0, "y": y}), ["x"], "y").row(0, named=True)
        assert r["deff"] == pytest.approx(9.0)
        assert r[end] == pytest.approx(1 - 0.025 ** 0.01 if end == "hi" else 0.025 ** 0.01, rel=1e-9)
        # one row a game: the games are the rows, as before
        r1 = rate_table(pl.DataFrame({"game": np.arange(100), "x": 0, "y": y[:100]}), ["x"], "y").row(0, named=True)
        assert r1["deff"] == 1.0 and r1[end] == pytest.approx(r[end], rel=1e-12)
    # the same size in the card tables' effective_size, and one game is one trial at most
    assert stats.effective_size(np.full(100, 9.0), np.zeros(100)) == 100.0
    assert stats.effective_size(np.array([4.0, 0.0]), np.array([2.0, 0.0])) == 1.0
    # a rate difference's side without a win: its games (2), not its 8 reveals
    w_in, n_in = np.zeros(30), np.zeros(30)
    n_in[:2] = 4
    w_all, n_all = np.full(30, 6.0), np.full(30, 24.0)
    e = rate_difference(w_in, n_in, w_all, n_all, mover=True)
    ro = (w_all.sum()) / (n_all.sum() - 8)
    assert e.hi == pytest.approx(1 - 0.025 ** 0.5 - ro, abs=0.02) and e.hi > 1 - 0.025 ** (1 / 8) - ro


def test_a_length_the_rules_fix_keeps_zero_width():
    """Battle Royal and Solo play 15 hands in every game. The balance table's duration read 15.00,
    14.95-15.05 once lengths took a count's interval; a length the rules fix keeps the t interval (none
    without spread), as the summaries' hands do, and a length that varies takes the count's."""
    from cardsim import scenario as sc
    from cardsim.metrics import length_is_count, outcome_metrics

    def scen(variant: str) -> sc.Scenario:
        return sc.from_dict({"scenario": {"name": "x", "game": "fubnub", "variant": variant,
                                          "players": 1 if variant == "solo" else 4, "games": 10}})

    assert not length_is_count(scen("battle_royal")) and not length_is_count(scen("solo"))
    assert length_is_count(scen("full_deck")) and length_is_count(scen("traditional"))
    out = pl.DataFrame({"game": np.repeat(np.arange(10), 4), "seat": np.tile(np.arange(4), 10),
                        "win": np.tile([1.0, 0.0, 0.0, 0.0], 10), "length": 15})
    (fixed,) = [r for r in outcome_metrics(out, fixed_length=True) if r["metric"] == "duration"]
    (varies,) = [r for r in outcome_metrics(out) if r["metric"] == "duration"]
    assert math.isnan(fixed["lo"]) and 0 < varies["lo"] < 15 < varies["hi"]


def test_a_rare_count_takes_its_tables_clumping_as_its_least():
    """count_rate_ci's floor: below 20 events the count's dispersion is at least the table's
    (pooled_dispersion), from 20 on its own; a run with no count at all pools to 1."""
    from cardsim.stats import FEW_EVENTS, count_rate_ci, pooled_dispersion

    n = 1000
    s = np.array([0.0, 3.0, 400.0, 600.0])  # a card never seen, one seen 3 times once, two common ones
    q = np.array([0.0, 9.0, 1200.0, 1800.0])  # the common ones clump: dispersion about 2.5 pooled
    d = pooled_dispersion(s, q, n)
    want = ((1200 - 400**2 / n) + (1800 - 600**2 / n)) / (n - 1) / (1000 / n)
    assert d == pytest.approx(want)  # from the counts with at least 20 events only
    lo, hi = count_rate_ci(s, q, n, floor=d)
    lo1, hi1 = count_rate_ci(s, q, n)
    assert hi[0] == pytest.approx(hi1[0] * d) and lo[0] == 0.0
    assert hi[1] == pytest.approx(hi1[1])  # its own dispersion, 3, is above the table's
    assert (lo[2:] == lo1[2:]).all() and (hi[2:] == hi1[2:]).all()  # 20 events or more: its own
    assert s[2] >= FEW_EVENTS
    assert pooled_dispersion(np.zeros(3), np.zeros(3), n) == 1.0
    assert pooled_dispersion(np.array([2.0, 0.0]), np.array([4.0, 0.0]), n) == pytest.approx((4 - 4 / n) / (n - 1) / (2 / n))


def test_a_bounded_mean_of_few_fractions_gets_korn_graubards_degrees_of_freedom():
    """A mean in [0, 1] of fractions (a share of a game, a deal's average over seat rotations) gets
    Clopper-Pearson at its effective size m (1 - m) / se^2, which exceeds the games; with the standard
    error resting on 3 games it covered 83.8% (final lead taken at: 0 in a quarter of games, else
    Beta(4, 3)). Korn and Graubard's adjustment scales the size by (t_b / t_(k-1))^2, b = max(n, size) - 1."""
    from scipy.stats import beta, t

    x = np.array([0.0, 0.55, 0.7])
    e = mean_ci(x, bounds=(0.0, 1.0))
    m, se = x.mean(), x.std(ddof=1) / math.sqrt(3)
    size = m * (1 - m) / se ** 2
    size *= (t.ppf(0.025, max(3, size) - 1) / t.ppf(0.025, 2)) ** 2
    assert (e.lo, e.hi) == pytest.approx((beta.ppf(0.025, m * size, size - m * size + 1),
                                          beta.ppf(0.975, m * size + 1, size - m * size)))
    rng = np.random.default_rng(11)
    truth, hits = 0.75 * 4 / 7, 0
    for _ in range(400):
        v = np.where(rng.random(3) < 0.25, 0.0, rng.beta(4, 3, 3))
        r = mean_ci(v, bounds=(0.0, 1.0))
        hits += (r.lo <= truth <= r.hi) if math.isfinite(r.lo) else True
    assert hits / 400 > 0.92
    # 0/1 results, one a unit: the size is the results less one, and the adjustment is 1
    b = (rng.random(40) < 0.3).astype(float)
    mb, sb = b.mean(), b.std(ddof=1) / math.sqrt(40)
    nb = mb * (1 - mb) / sb ** 2
    eb = mean_ci(b, bounds=(0.0, 1.0))
    assert eb.lo == pytest.approx(beta.ppf(0.025, mb * nb, nb - mb * nb + 1))


def test_a_count_interval_without_an_upper_end_reads_to_unbounded():
    """A count's interval from 2 or 3 games has a lower end and no upper one (JSON: lo a number, hi null). The
    studies' answers say "(0.0 to unbounded)", but `cardsim run`'s Turtle answer read "A game lasts 22.5 turns
    (95% CI n/a)", as if there were no interval at all."""
    import math

    from cardsim.report import numbers as N

    assert N.num_ci(22.5, 0.0, math.inf, "turns") == "22.5 turns (95% CI 0 to unbounded)"
    assert N.num_ci(22.5, 1.25, math.inf) == "22.5 (95% CI 1.25 to unbounded)"
    assert N.num_ci(118.0, float("nan"), float("nan"), "turns") == "118 turns (95% CI n/a)"  # no interval: as before
    assert N.num_ci(5.0, -math.inf, math.inf) == "5.00 (95% CI n/a)"


# -- a few games: CR2, Bell-McCaffrey and Korn-Graubard ----------------------------------------------
def _cr2_by_matrices(y: np.ndarray, g: np.ndarray) -> tuple[float, float]:
    """CR2 and its Bell-McCaffrey degrees of freedom from their definitions, with matrices: the mean is
    the regression of ``y`` on a constant; each cluster's residuals are multiplied by ``(I - H_gg)^(-1/2)``,
    and the variance is a quadratic form in ``y`` whose weights' eigenvalues give Satterthwaite's df."""
    n = y.size
    h = np.full((n, n), 1.0 / n)
    e = (np.eye(n) - h) @ y
    cols, var = [], 0.0
    for c in np.unique(g):
        idx = np.flatnonzero(g == c)
        w, v = np.linalg.eigh(np.eye(idx.size) - h[np.ix_(idx, idx)])
        a_gg = v @ np.diag(w ** -0.5) @ v.T
        a = np.zeros(n)
        a[idx] = a_gg @ np.ones(idx.size)  # the weights of cluster c's term on the residuals
        var += float(a @ e) ** 2 / n ** 2
        cols.append((np.eye(n) - h) @ a)
    lam = np.linalg.eigvalsh(np.column_stack(cols).T @ np.column_stack(cols))
    return var, float(lam.sum() ** 2 / (lam ** 2).sum())


def test_cr2_and_bell_mccaffrey_df_match_their_matrix_definitions():
    rng = np.random.default_rng(3)
    g = np.repeat(np.arange(5), [1, 2, 7, 3, 12])
    y = rng.normal(size=g.size) + np.array([0.0, 2, -1, 3, 0.5])[g]
    s, c = np.bincount(g, weights=y), np.bincount(g).astype(float)
    var, df = stats.cr2(s, c)
    assert (var, df) == pytest.approx(_cr2_by_matrices(y, g), rel=1e-10)
    assert df < 4  # fewer than clusters - 1 with clusters of unequal sizes
    # clusters of one size: the usual C / (C - 1) variance and C - 1 degrees of freedom
    g4 = np.repeat(np.arange(4), 3)
    y4 = rng.normal(size=12)
    s4, c4 = np.bincount(g4, weights=y4), np.full(4, 3.0)
    m = y4.mean()
    assert stats.cr2(s4, c4) == pytest.approx((4 / 3 * ((s4 - 3 * m) ** 2).sum() / 144, 3.0), rel=1e-12)


def test_a_clustered_mean_of_a_few_unequal_games_takes_cr2_and_bell_mccaffrey_t():
    """Student's t on games - 1 with the usual clustered variance covered 91.6-93.5% of a mean of hands
    over 3-10 games of 3-15 hands (case "clustered rate, a few games"); the summary's table and mean_ci
    now take CR2 and t at Bell and McCaffrey's degrees of freedom, the same interval both."""
    from scipy.stats import t

    rng = np.random.default_rng(4)
    g = np.repeat(np.arange(4), [3, 14, 5, 9])
    v = rng.normal(size=g.size) + rng.normal(size=4)[g]
    var, df = _cr2_by_matrices(v, g)
    half = t.ppf(0.975, df) * math.sqrt(var)
    row = mean_table(pl.DataFrame({"game": g, "v": v}), "v").row(0, named=True)
    assert row["se"] == pytest.approx(math.sqrt(var), rel=1e-9)
    assert (row["lo"], row["hi"]) == pytest.approx((v.mean() - half, v.mean() + half), rel=1e-6)
    e = mean_ci(v, g)
    assert (e.lo, e.hi, e.df) == pytest.approx((row["lo"], row["hi"], df), rel=1e-6)
    assert e.p == pytest.approx(2 * t.sf(abs(v.mean()) / math.sqrt(var), df), rel=1e-6)


def test_a_clustered_rate_of_a_few_games_takes_korn_graubards_adjustment():
    """Wilson at n / deff takes the design effect estimated from the games as known: over 3-5 games it
    covered 90.2%. The effective size is now multiplied by (t_(n-1) / t_(games-1))^2 at the interval's
    level; the table keeps its games (``clusters``) so that wilson_at at 1.96 gives its interval back."""
    from scipy.stats import t

    from cardsim.stats import bonferroni_z, wilson, wilson_at

    g = np.repeat(np.arange(5), [3, 8, 4, 12, 6])
    y = np.zeros(g.size, bool)
    y[[0, 1, 4, 5, 6, 7, 12, 20, 29, 31]] = True
    r = rate_table(pl.DataFrame({"game": g, "x": 0, "y": y}), ["x"], "y").row(0, named=True)
    n, k = g.size, int(y.sum())
    s, c = np.bincount(g, weights=y.astype(float)), np.bincount(g).astype(float)
    deff = stats.cr2(s, c)[0] / (k / n * (1 - k / n) / n)
    neff = n / max(1.0, deff) * (t.ppf(0.975, n - 1) / t.ppf(0.975, 4)) ** 2
    assert r["clusters"] == 5 and r["deff"] == pytest.approx(deff)
    assert (r["lo"], r["hi"]) == pytest.approx(wilson(k / n * neff, neff), rel=1e-9)
    table = rate_table(pl.DataFrame({"game": g, "x": 0, "y": y}), ["x"], "y")
    again = wilson_at(table, bonferroni_z(1))
    assert (again["sim_lo"][0], again["sim_hi"][0]) == pytest.approx((r["lo"], r["hi"]), rel=1e-9)
    # at another level, the adjustment at that level: wider than the unadjusted interval there
    z3 = bonferroni_z(3)
    neff3 = n / max(1.0, deff) * (t.ppf(1 - 0.05 / 6, n - 1) / t.ppf(1 - 0.05 / 6, 4)) ** 2
    wide = wilson_at(table, z3)
    assert (wide["sim_lo"][0], wide["sim_hi"][0]) == pytest.approx(wilson(k / n * neff3, neff3, z3), rel=1e-9)
    # one row a game: no adjustment (the rows are the clusters); deff is 40 / 39, the variance's C / (C - 1)
    one = rate_table(pl.DataFrame({"game": np.arange(40), "x": 0, "y": np.arange(40) % 4 == 0}), ["x"], "y")
    assert one["clusters"][0] == 40 and one["deff"][0] == pytest.approx(40 / 39)
    assert (one["lo"][0], one["hi"][0]) == pytest.approx(wilson(10 / 40 * 39, 39), rel=1e-9)
