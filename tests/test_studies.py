"""Comparisons, sweeps, the stopping rule, balance metrics, ratings and reports (issue 7)."""

from __future__ import annotations

import json
import math
import re
from types import SimpleNamespace

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from cardsim import api, metrics
from cardsim.cli import app
from cardsim.errors import ScenarioError
from cardsim.scenario import from_dict
from cardsim.sequential import eb_sequence, parse_target
from cardsim.stats import t95, wilson
from cardsim.studies import compare as paired
from cardsim.studies import rate as ratings
from cardsim.studies import until

BASE = {"scenario": {"name": "st", "game": "fubnub", "games": 400, "seed": 2, "chunk": 100},
        "seats": {"policies": ["partner", "partner", "partner", "partner"]}}


def scen(**sections):
    raw = {k: dict(v) for k, v in BASE.items()}
    raw.update(sections)
    return from_dict(raw)


def test_paired_interval_matches_a_hand_calculation():
    p = paired.Plan(base=None, arms=["a", "b"], runs={}, focus=0, metric="win", decide=False, alpha=0.05)
    a = np.array([1, 0, 1, 1, 0, 0, 1, 0.5])
    b = np.array([1, 0, 0, 1, 0, 1, 1, 0.5])
    _, diffs = paired.summarize(p, {"a": a, "b": b})
    d = b - a  # 0, 0, -1, 0, 0, 1, 0, 0
    mean = d.mean()
    se = math.sqrt(((d - mean) ** 2).sum() / 7 / 8)
    row = diffs.row(0, named=True)
    assert row["diff"] == pytest.approx(0.0) and row["se_paired"] == pytest.approx(se)
    # a difference of wins (bounded): MOVER on the positive part (one +1) and the negative part (one -1),
    # each Clopper-Pearson at its effective size m (1 - m) / se^2, with their correlation
    from scipy.stats import beta

    pos, neg = np.maximum(d, 0), np.maximum(-d, 0)
    m = 1 / 8
    neff = m * (1 - m) / (pos.var(ddof=1) / 8)
    lp, up = beta.ppf(0.025, m * neff, neff - m * neff + 1), beta.ppf(0.975, m * neff + 1, neff - m * neff)
    r = float(((pos - m) * (neg - m)).sum() / ((pos - m) ** 2).sum())
    half = math.sqrt((m - lp) ** 2 + (up - m) ** 2 - 2 * r * (m - lp) * (up - m))
    assert row["lo"] == pytest.approx(-half) and row["hi"] == pytest.approx(half) and row["p"] == pytest.approx(1.0)
    # a length: Student's t with n - 1 df (1.96 for large n)
    length = paired.Plan(base=None, arms=["a", "b"], runs={}, focus=0, metric="length", decide=False, alpha=0.05)
    _, diffs = paired.summarize(length, {"a": a * 10, "b": b * 10})
    assert diffs["lo"][0] == pytest.approx(-t95(7) * 10 * se)
    assert t95(100_000) == pytest.approx(1.959963984540054)
    se_u = math.sqrt(a.var(ddof=1) / 8 + b.var(ddof=1) / 8)
    assert row["se_unpaired"] == pytest.approx(se_u)
    assert row["variance_saved"] == pytest.approx(1 - se**2 / se_u**2)


def test_variance_saved_by_pairing_has_an_interval():
    """compare printed variance_saved, the share of the unpaired variance pairing removed, as a bare
    number. It is 2 cov(a, b) / (var a + var b), now with the delta method's interval on Fisher's z
    scale (coverage case "variance saved by pairing"), none below 100 deals, and never past [-1, 1]."""
    from cardsim.stats import SAVED_MIN_DEALS, pairing_saved

    rng = np.random.default_rng(8)
    u = rng.random(2000)
    a, b = (u < 0.4).astype(float), (np.where(rng.random(2000) < 0.7, u, rng.random(2000)) < 0.43).astype(float)
    e = pairing_saved(a, b)
    va, vb = a.var(ddof=1), b.var(ddof=1)
    assert e.value == pytest.approx(1 - np.var(b - a, ddof=1) / (va + vb))
    assert e.lo < 0.658 < e.hi and e.hi - e.lo < 0.1  # the truth of this model (coverage case)
    # the delta method's standard error, checked against the bootstrap's on the same deals
    boot = [pairing_saved(a[i], b[i]).value for i in rng.integers(0, 2000, (400, 2000))]
    assert e.se == pytest.approx(np.std(boot), rel=0.2)
    few = pairing_saved(a[: SAVED_MIN_DEALS - 1], b[: SAVED_MIN_DEALS - 1])
    assert math.isfinite(few.value) and math.isnan(few.lo) and math.isnan(few.hi)
    assert math.isnan(pairing_saved(np.ones(200), np.ones(200)).value)  # no spread: nothing to save
    same = pairing_saved(a, a)
    assert same.value == pytest.approx(1.0) and math.isnan(same.lo)  # at the bound: no z scale


def test_compare_prints_no_unpaired_interval_for_a_difference_on_the_same_deals():
    """The differences table printed an "unpaired interval" (diff +- t se_unpaired) beside the paired one,
    with no coverage row: on the same deals it ignores the arms' correlation, so where their results are
    negatively correlated (variance_saved < 0) it was narrower than the paired interval, which holds. What
    pairing saved stays as se_unpaired (a standard error, said not to be this difference's) and
    variance_saved; no interval but the paired one is printed."""
    from cardsim.output import render

    rng = np.random.default_rng(3)
    a = (rng.random(2000) < 0.5).astype(float)
    b = np.where(rng.random(2000) < 0.6, 1 - a, (rng.random(2000) < 0.5).astype(float))  # mostly the opposite
    for metric, scale in (("win", 1.0), ("length", 20.0)):
        p = paired.Plan(base=SimpleNamespace(game="turtle"), arms=["a", "b"], runs={k: [None] for k in "ab"}, focus=0,
                        metric=metric,
                        decide=False, alpha=0.05)
        res = paired.CompareResult(p, 2000, *paired.summarize(p, {"a": scale * a, "b": scale * b}))
        row = res.diffs.row(0, named=True)
        assert row["variance_saved"] < -0.5 and row["se_unpaired"] < row["se_paired"]
        bounds = {c for c in res.diffs.columns if c.startswith(("lo", "hi")) or c.endswith(("_lo", "_hi"))}
        assert bounds == {"lo", "hi", "variance_saved_lo", "variance_saved_hi"}, bounds  # no lo_unpaired / hi_unpaired
        assert -1 < row["variance_saved_lo"] < row["variance_saved"] < row["variance_saved_hi"] < 0  # pairing cost
        title = paired.output(res).tables[1][0]
        assert "unpaired interval" not in title and "not an interval for this difference" in title
        doc = json.loads(render(paired.output(res), "json"))
        assert not any("unpaired" in c and c != "se_unpaired" for c in doc["tables"][title][0])


def test_compare_claims_a_direction_only_where_the_interval_shows_it():
    """The answer read "'hide_two' wins 2.7 points more often than 'play_at_once'" beside a 95% CI of
    -1.0 to +6.4 points (Holm p 0.31). A sign the interval does not show is "no detectable difference"
    with signed numbers; one the pointwise interval shows but Holm's adjustment over the differences
    does not is said to be so; the answer says its intervals are pointwise when there are several."""
    rng = np.random.default_rng(5)
    a = (rng.random(400) < 0.4).astype(float)
    same = np.where(rng.random(400) < 0.9, a, (rng.random(400) < 0.4).astype(float))  # about a's
    better = np.where(rng.random(400) < 0.7, a, 1.0)  # wins about 18 points more often
    for metric, scale, unit in (("win", 1.0, "points"), ("length", 20.0, "turns")):
        p = paired.Plan(base=SimpleNamespace(game="turtle"), arms=["a", "same", "better"],
                        runs={k: [None] for k in ("a", "same", "better")}, focus=0, metric=metric, decide=False,
                        alpha=0.05)
        res = paired.CompareResult(p, 400, *paired.summarize(p, {"a": scale * a, "same": scale * same,
                                                                  "better": scale * better}))
        rows = {r["arm"]: r for r in res.diffs.iter_rows(named=True)}
        assert rows["same"]["lo"] < 0 < rows["same"]["hi"] and rows["better"]["lo"] > 0
        words = paired.headline(res)
        what = "wins" if metric == "win" else "length"
        assert f"'same' against 'a': no detectable difference in {what}, " in words
        assert re.search(rf"'same' against 'a': .*?the difference's 95% CI [-+][\d.]+ to [-+][\d.]+ {unit}\)", words)
        assert ("'better' wins" if metric == "win" else "'better' lengthens games by") in words
        assert "Each interval holds for its own difference; the table's p_holm adjusts for the 2 of them." in words
        # a sign the pointwise interval shows, Holm's adjustment not
        held = res.diffs.with_columns(p_holm=pl.when(pl.col("arm") == "better").then(0.2).otherwise(pl.col("p_holm")))
        words = paired.headline(paired.CompareResult(p, 400, res.arms, held))
        assert "; not beyond chance once the 2 differences are adjusted, Holm p 0.2)" in words


def test_compare_p_values_that_underflow_are_never_zero_in_json():
    """`cardsim compare -f json` printed "p": 0.0 and "p_holm": 0.0 where the table read "< 0.001": a
    p-value too small to compute is the smallest positive normal double (P_FLOOR), never 0."""
    from cardsim.output import render
    from cardsim.stats import P_FLOOR, normal_p, t_p

    rng = np.random.default_rng(1)
    p = paired.Plan(base=None, arms=["a", "b", "d"], runs={k: [None] for k in "abd"}, focus=0, metric="win",
                    decide=False, alpha=0.05)
    a = (rng.random(20_000) < 0.2).astype(float)
    values = {"a": a, "b": (rng.random(20_000) < 0.8).astype(float),  # far apart: below 1e-15
              "d": np.ones(20_000)}  # +1 wherever a lost, 0 elsewhere
    _, diffs = paired.summarize(p, values)
    assert (diffs["p"] == P_FLOOR).all() and (diffs["p_holm"] > 0).all()
    res = paired.CompareResult(p, 20_000, *paired.summarize(p, values))
    rows = json.loads(render(paired.output(res), "json"))["tables"]
    for row in next(v for k, v in rows.items() if k.startswith("Differences")):
        assert 0 < row["p"] <= row["p_holm"] < 1e-300
    assert normal_p(50.0, 1.0) == t_p(1e20, 1.0, 30) == P_FLOOR and normal_p(1.0, 0.0) == P_FLOOR
    assert normal_p(0.0, 1.0) == 1.0 and math.isnan(t_p(1.0, math.nan, 0))
    from cardsim.stats import _alike_p

    assert _alike_p(1.0, 5000, (-1.0, 1.0)) == P_FLOOR  # 5,000 deals of +1: 0.5^4999 underflows


def test_compare_pairs_deals_rotates_seats_and_beats_unpaired(tmp_path):
    s = scen(compare={"focus": 0, "arms": [
        {"name": "tactician", "policies": ["tactician", "partner", "tactician", "partner"]},
        {"name": "bold", "policies": [{"name": "tactician", "call_need": 1}, "partner",
                                      {"name": "tactician", "call_need": 1}, "partner"]}]})
    res = api.compare(s, runs=tmp_path)
    assert len(res.plan.runs["bold"]) == 4  # one run per rotation
    rot = res.plan.runs["bold"][1].setup.seats
    assert rot[1].name == "tactician" and rot[0].name == "partner"
    d = res.diffs.row(0, named=True)
    assert d["n"] == 400 and d["se_paired"] < d["se_unpaired"] and d["variance_saved"] > 0
    # every arm and rotation played the same deals: same first dealers game by game
    firsts = [api.run(r, runs=tmp_path).tables["games"].select("first_dealer").collect()
              for a in res.plan.arms for r in res.plan.runs[a][:1]]
    assert firsts[0].equals(firsts[1])


def test_compare_plays_a_rotation_that_leaves_the_seats_as_they_were_once(tmp_path):
    """An arm of four partners played its four rotations, the same games four times (4x the cost, the
    same result); A, B, A, B turned by two is itself again. Each seat list is played once."""
    s = scen(compare={"focus": 0, "arms": [
        {"name": "mirror"}, {"name": "pairs", "policies": ["tactician", "partner", "tactician", "partner"]}]})
    res = api.compare(s, runs=tmp_path)
    dirs = sorted(d.name.rsplit("-", 1)[0] for d in tmp_path.iterdir() if (d / "manifest.json").exists())
    assert dirs == ["st-mirror-r0", "st-pairs-r0", "st-pairs-r1"], dirs
    assert [id(r) for r in res.plan.runs["mirror"]] == [id(res.plan.runs["mirror"][0])] * 4
    runs = res.plan.runs["pairs"]
    assert runs[2] is runs[0] and runs[3] is runs[1] and runs[1] is not runs[0]
    # each arm's value is the rotations' as before: the focus seat's result in each rotation, averaged
    for arm in ("mirror", "pairs"):
        results = [api.run(x.with_options(games=400), runs=tmp_path) for x in res.plan.runs[arm]]
        got = res.arms.filter(pl.col("arm") == arm).row(0, named=True)["mean"]
        assert got == pytest.approx(float(np.nanmean(paired._values(results, 0, "win", 4)))), arm


def test_compare_decide_mode_stops_with_a_sign(tmp_path):
    s = scen(compare={"decide": True, "arms": [
        {"name": "partner"}, {"name": "random", "policies": ["random", "partner", "random", "partner"]}]})
    res = api.compare(s, games=2000, runs=tmp_path)
    assert res.decided and "decision rule stopped the run" in res.stopped and res.games < 2000
    row = res.diffs.row(0, named=True)
    assert row["hi"] < 0 and "lo_fixed_n" in row and "p" not in row  # the answer is the anytime-valid sequence
    # the arms' intervals were fixed-n under the 95% label after the stop (92-94% coverage); the unpaired
    # interval is printed no more (no interval for a difference on the same deals)
    assert not any("lo_unpaired" in c for c in row)
    arm = res.arms.row(0, named=True)
    assert list(res.arms.columns) == ["arm", "n", "mean", "se", "lo", "hi", "lo_fixed_n", "hi_fixed_n"]
    assert arm["lo"] < arm["lo_fixed_n"] < arm["mean"] < arm["hi_fixed_n"] < arm["hi"]
    assert "anytime-valid 95% CI" in paired.headline(res) and "decision rule stopped" in paired.headline(res)
    # each arm's rate carries its own (here anytime-valid) interval, the difference its own
    b = res.arms.row(1, named=True)
    assert (res.arms["lo"] >= 0).all() and (res.arms["hi"] <= 1).all()  # a rate's sequence stays in [0, 1]
    assert (f"({100 * arm['mean']:.1f}% ({100 * arm['lo']:.1f}-{100 * arm['hi']:.1f}%) -> {100 * b['mean']:.1f}% "
            f"({100 * b['lo']:.1f}-{100 * b['hi']:.1f}%) of games for the focus seat; the difference's anytime-valid "
            f"95% CI") in paired.headline(res)
    # on the terminal the difference and both intervals are percentages (diff and the fixed-n bounds
    # printed as raw fractions, -0.137 beside -14.7%, before)
    from cardsim.output import text_table

    out = paired.output(res)
    title, frame = out.tables[1]
    header, _rule, line = text_table(frame, 400, out.shares[title]).splitlines()[:3]
    cells = dict(zip(header.split(), line.split(), strict=True))  # the arm names are one word here
    assert all(cells[c].endswith("%") for c in ("diff", "lo_fixed_n", "hi_fixed_n", "lo", "hi")), cells


def test_compare_decide_capped_before_its_first_look_says_so(tmp_path):
    """--games 300 with looks every 1,000 deals: the cap is the only look, so the rule decided nothing."""
    s = scen(scenario={**BASE["scenario"], "chunk": 1000}, compare={"decide": True, "arms": [
        {"name": "partner"}, {"name": "random", "policies": ["random", "partner", "random", "partner"]}]})
    res = api.compare(s, games=300, runs=tmp_path)
    out = paired.output(res)
    text = " ".join([out.answer, *out.notes])
    assert res.games == 300 and not res.decided
    assert "decision rule stopped" not in text and "looks every 1,000" in text
    assert "Stopped at the cap of 300 deals before the decision rule's first look" in res.stopped
    assert "no decision was taken" in res.stopped


def test_compare_validation():
    with pytest.raises(ScenarioError, match="at least two"):
        paired.plan(scen(compare={"arms": [{"name": "a"}]}))
    with pytest.raises(ScenarioError, match="unknown key"):
        paired.plan(scen(compare={"arms": [{"name": "a"}, {"name": "b", "rulez": {}}]}))
    with pytest.raises(ScenarioError, match="point_cards"):
        paired.plan(scen(compare={"arms": [{"name": "a"}, {"name": "b", "rules": {"point_cards": 4}}]}))
    for bad in ("", "  "):  # an arm without a name printed as an empty cell and "'' wins ..."
        with pytest.raises(ScenarioError, match="non-empty string 'name'"):
            paired.plan(scen(compare={"arms": [{"name": "a"}, {"name": bad}]}))
    with pytest.raises(ScenarioError, match="used twice"):
        paired.plan(scen(compare={"arms": [{"name": "a"}, {"name": "a"}]}))


def test_study_errors_name_the_item_at_fault():
    """An arm's knob typo, a card listed twice, a label given twice and a bound once printed as 1e+08:
    each message names the arm, card or label (the audit's findings)."""
    from cardsim.studies import cards as card_study
    from cardsim.studies import meta

    with pytest.raises(ScenarioError) as e:
        paired.plan(scen(compare={"arms": [{"name": "a"}, {"name": "b", "rules": {"point_card": 3}}]}))
    assert str(e.value).startswith("compare.arms[1] ('b'): unknown knob rules.point_card (did you mean 'point_cards'?)")
    turtle = {"scenario": {"name": "x", "game": "turtle", "variant": "full", "games": 10}}
    with pytest.raises(ScenarioError, match=r"cards\.cards names 'Shield' twice; list each card once"):
        card_study.plan(from_dict({**turtle, "cards": {"cards": ["Shield", "Shield"]}}))
    strategies = ["partner", {"label": "partner", "policy": {"name": "tactician", "call_need": 3}}]
    with pytest.raises(ScenarioError, match=r"meta.strategies\[0\] and \[1\] have the same label 'partner'"):
        meta.plan(scen(meta={"strategies": strategies}))
    with pytest.raises(ScenarioError, match=r"meta.deals = 799 must be an integer in \[800, 100,000,000\]"):
        meta.plan(scen(meta={"strategies": ["partner", "tactician"], "deals": 799}))
    for bad in (-1, 10_001, 2.5, True, "200"):  # the bootstrap's resamples: 0 (off) to 10,000
        with pytest.raises(ScenarioError, match=rf"^meta.bootstrap = {re.escape(repr(bad))} must be an integer in "
                                                r"\[0, 10,000\]$"):
            meta.plan(scen(meta={"strategies": ["partner", "tactician"], "bootstrap": bad}))
    assert meta.plan(scen(meta={"strategies": ["partner", "tactician"], "bootstrap": 0})).bootstrap == 0


def test_sweep_one_row_per_point(tmp_path):
    s = scen(sweep={"grid": {"rules.point_cards": [1, 3], "seats.call_need": [1, 2]}},
             seats={"policies": ["tactician"] * 4})
    res = api.sweep(s, runs=tmp_path)
    t = res.table
    assert t.height == 4 and set(t["rules.point_cards"]) == {1, 3}
    assert {"winrate_s0", "lo_s0", "hi_s0", "length_mean"} <= set(t.columns)
    assert (t["lo_s0"] <= t["winrate_s0"]).all() and (t["winrate_s0"] <= t["hi_s0"]).all()
    with pytest.raises(ScenarioError, match="unknown key"):
        api.sweep(scen(sweep={"grid": {"rulez.x": [1]}}), runs=tmp_path)


def study_json(tmp_path, command: str, scenario, *args: str) -> dict:
    """``cardsim <command> <scenario> --runs <tmp_path>/runs -f json [args]``, which must succeed: its JSON."""
    r = CliRunner().invoke(app, [command, str(scenario), "--runs", str(tmp_path / "runs"), "-f", "json", *args])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout[r.stdout.index("{"):])


def test_sweep_whose_point_never_finishes_reports_instead_of_failing(tmp_path):
    # max_hands = 1 cuts every game to 15 point cards after one hand: no game of that point has a winner,
    # so no deal is left to pair the points on (the headline raised a TypeError, the report another)
    f = tmp_path / "s.toml"
    f.write_text('[scenario]\nname = "cut"\ngame = "fubnub"\ngames = 200\n'
                 '[sweep]\ngrid = {"rules.max_hands" = [1, 1000]}\n')
    out = study_json(tmp_path, "sweep", f)
    assert "rules.max_hands=1: no finished game; rules.max_hands=1000: " in out["answer"]
    assert "rules.max_hands=1000: no finished game" not in out["answer"]  # its 200 games finished
    assert out["notes"][0].startswith("The points are not compared: 0 of 200 deals finished at every point")
    assert "rules.max_hands" in out["notes"][0] and "max_turns" not in out["notes"][0]
    assert [row["unfinished"] for row in out["tables"]["Sweep"]] == [1.0, 0.0]
    r = CliRunner().invoke(app, ["report", str(f), "--runs", str(tmp_path / "runs"), "--out", str(tmp_path / "rep")])
    assert r.exit_code == 0, r.output
    assert "The points are not compared" in (tmp_path / "rep" / "cut" / "report.md").read_text()


def test_sweep_that_compares_no_points_reads_each_point_not_no_finished_game(tmp_path):
    # a sweep of one point (or of too few deals to pair) on shared deals said "simultaneous over the 0 points
    # (Bonferroni): seat0.call_need=1: no finished game" although every game had finished
    f = tmp_path / "s.toml"
    f.write_text('[scenario]\nname = "one"\ngame = "fubnub"\ngames = 60\nchunk = 30\n'
                 '[seats]\npolicies = ["tactician", "partner", "tactician", "partner"]\n'
                 '[sweep]\npoints = [{ "seat0.call_need" = 1 }]\n')
    out = study_json(tmp_path, "sweep", f)
    assert "no finished game" not in out["answer"], out["answer"]
    assert "simultaneous over the 1 point (Bonferroni): seat0.call_need=1: " in out["answer"]
    row = out["tables"]["Sweep"][0]
    assert row["finished"] == 60 and row["sim_lo_s0"] <= row["winrate_s0"] <= row["sim_hi_s0"]
    assert "simultaneous over the 1 point (Bonferroni)" in out["notes"][-1]
    f.write_text(f.read_text().replace('points = [{ "seat0.call_need" = 1 }]',
                                       'points = [{ "seat0.call_need" = 1 }, { "seat0.call_need" = 2 }]'))
    out = study_json(tmp_path, "sweep", f, "-n", "1")
    assert out["notes"][0].startswith("The points are not compared: 1 deal at every point")
    assert "no finished game" not in out["answer"] and "over the 2 points" in out["answer"], out["answer"]


def test_length_sweep_of_one_game_says_why_it_has_no_interval(tmp_path):
    # `cardsim sweep S -n 1` with metric = "length": "TypeError: unsupported format string passed to
    # NoneType.__format__" (the answer formatted the missing interval ends), a traceback, exit code 1
    f = tmp_path / "s.toml"
    f.write_text('[scenario]\nname = "len"\ngame = "fubnub"\ngames = 60\n'
                 '[sweep]\nmetric = "length"\npoints = [{ "rules.max_hands" = 1000 }, { "rules.max_hands" = 999 }]\n')
    out = study_json(tmp_path, "sweep", f, "-n", "1")
    assert out["answer"].startswith("The game length at each point: rules.max_hands=1000: ")
    assert out["answer"].count("(no interval: 1 game, and an interval needs at least 2)") == 2, out["answer"]
    from cardsim.studies.sweep import _length_ci

    assert _length_ci(7.5, 0.0, math.inf, 2) == "7.5 (95% CI 0.0 to unbounded)"  # printed "0.0-inf"
    assert _length_ci(12.5, 12.3, 12.7, 100) == "12.5 (95% CI 12.3-12.7)"


def test_rate_whose_games_never_finish_says_so(tmp_path):
    # every game cut at its cap: the answer read "random (the reference) rates highest; no other policy has a
    # finite strength", a ranking no game made
    f = tmp_path / "r.toml"
    f.write_text('[scenario]\nname = "cutr"\ngame = "fubnub"\ngames = 20\n[rules]\nmax_hands = 1\n'
                 '[ratings]\npolicies = ["random", "partner"]\n')
    out = study_json(tmp_path, "rate", f)
    assert out["answer"].startswith("No game finished: every game of the 20 deals per table was cut at the game's "
                                    "cap"), out["answer"]
    assert "rates highest" not in out["answer"]


def test_cards_whose_games_never_finish_do_not_claim_the_edge_was_measured(tmp_path):
    # every game cut at its cap has no winner: the answer said "no card moves the first player's edge beyond
    # chance", as if it had been measured, and numpy warned "Mean of empty slice" on stderr
    f = tmp_path / "c.toml"
    f.write_text('[scenario]\nname = "cutc"\ngame = "turtle"\ngames = 20\n[rules]\nmax_turns = 1\n'
                 '[cards]\ncards = ["Shuffle"]\n')
    r = CliRunner().invoke(app, ["cards", str(f), "--runs", str(tmp_path / "runs"), "-f", "json"])
    assert r.exit_code == 0, r.output
    assert "RuntimeWarning" not in r.output
    out = json.loads(r.stdout[r.stdout.index("{"):])
    assert "the first player's edge is not measured: no game finished in both decks" in out["answer"]
    assert "no card moves the first player's edge" not in out["answer"]


def test_compare_with_an_arm_that_never_finishes_says_so(tmp_path):
    # the answer read "'cut' wins nan points less often than 'a' (nan% -> nan% ...)"
    s = scen(compare={"arms": [{"name": "a"}, {"name": "cut", "rules": {"max_hands": 1}}]})
    res = api.compare(s, games=100, runs=tmp_path)
    text = paired.headline(res)
    assert text.startswith("The arms cannot be compared: not one of the 100 deals finished in every arm")
    assert "nan" not in text


def test_sweep_metric_of_a_seat_the_table_lacks_is_refused_before_playing(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('[scenario]\nname = "x"\ngame = "fubnub"\ngames = 100\n'
                 '[sweep]\ngrid = {"rules.point_cards" = [1, 3]}\nmetric = "winrate_s7"\n')
    r = CliRunner().invoke(app, ["sweep", str(f), "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 2, r.output
    assert r.output.strip().splitlines() == [
        "error: sweep.metric = 'winrate_s7': no seat 7 with 4 players; allowed: winrate_s0, winrate_s1, "
        "winrate_s2, winrate_s3 or length"]  # one line: no point was played


def test_confidence_sequence_covers_under_optional_stopping():
    rng = np.random.default_rng(1)
    misses = 0
    for _ in range(200):
        p = rng.uniform(0.1, 0.9)
        x = (rng.random(60000) < p).astype(float)
        for t in range(500, x.size + 1, 500):  # look after every "chunk"
            cs = eb_sequence(x[:t], target=0.02)
            if cs.half <= 0.02:
                break
        misses += not cs.lo <= p <= cs.hi
    assert misses / 200 <= 0.05


def test_until_stops_within_cap_and_is_as_narrow_as_asked(tmp_path):
    s = scen()
    res = api.run(s, games=20000, until="winrate_s0 +-0.02", out=tmp_path / "u")
    assert res.scenario.games <= 20000 and "stopped at the first look" in res.stop
    w = res.outcomes().filter(pl.col("seat") == 0).sort("game").collect()["win"].to_numpy()
    assert w.size == res.scenario.games
    lo, hi = wilson(w.sum(), w.size)
    assert (hi - lo) / 2 <= 0.02 and res.scenario.games <= until.worst_case(0.02) + until.look_size(0.02)
    # the stop is the first look (every chunk: the look size or the scenario's smaller chunk) that is
    # narrow enough, whatever the threads
    prev = res.scenario.games - min(s.chunk, until.look_size(0.02))
    lo, hi = wilson(w[:prev].sum(), prev)
    assert (hi - lo) / 2 > 0.02
    again = api.run(s, games=20000, until="winrate_s0 +-0.02", out=tmp_path / "u1", threads=1)
    assert again.scenario.games == res.scenario.games
    capped = api.run(s, games=300, until="winrate_s0 +-0.001", out=tmp_path / "c")
    assert capped.scenario.games == 300 and "cap" in capped.stop


def test_until_rule_on_simulated_games():
    looks = [500 * i for i in range(1, 41)]
    w = np.random.default_rng(0).binomial(1, 0.25, 20000).astype(float)
    stop = until.first_stop(w, looks, 0.02)
    assert stop.reached and stop.games in looks and stop.half <= 0.02
    assert until.first_stop(w, looks[:1], 0.001) is None
    w[::7] = np.nan  # unfinished games are left out of n
    assert until.first_stop(w, looks, 0.02).n < until.first_stop(w, looks, 0.02).games


def test_until_parsing():
    assert parse_target("winrate_s0 +-0.002") == ("winrate_s0", 0.002)
    with pytest.raises(ScenarioError):
        parse_target("winrate_s0 0.002")
    with pytest.raises(ScenarioError, match="unknown estimate"):
        api.run(scen(), until="length +-0.1", out="/tmp/never-made")
    with pytest.raises(ScenarioError, match="unknown estimate"):  # the name first, then its half-width
        api.run(scen(), until="length +-1", out="/tmp/never-made")
    with pytest.raises(ScenarioError, match=r"half-width must be in \(0, 1\)"):
        api.run(scen(), until="winrate_s0 +-1", out="/tmp/never-made")


def test_balance_metrics_from_outcomes_and_progress():
    out = pl.DataFrame({"game": [0, 0, 1, 1, 2, 2], "seat": [0, 1] * 3, "win": [1.0, 0.0, 1.0, 0.0, 0.0, 1.0],
                        "length": [3, 3, 5, 5, 4, 4], "first": [True, False, False, True, True, False]})
    rows = {r["metric"]: r for r in metrics.outcome_metrics(out)}
    assert rows["balance"]["value"] == pytest.approx(1 - (2 / 3 - 1 / 3))
    assert rows["duration"]["value"] == pytest.approx(4.0)
    # first movers: game 0 seat 0 won, game 1 seat 1 lost, game 2 seat 0 lost -> 1/3 - 1/2
    assert rows["first-player advantage"]["value"] == pytest.approx(1 / 3 - 1 / 2)
    # an advantage lies in [-1, 1]: its interval is the bounded one (a t interval covered 39% at 10 games
    # of a first seat that wins 5% of them), so it stays inside the bounds and is never 0 wide
    from cardsim.stats import mean_ci

    # , its ends cut to what two seats and one winner a game allow, -1/2 to +1/2 (the bounded interval
    # read -0.72 here)
    adv = rows["first-player advantage"]
    bounded = mean_ci(np.array([0.5, -0.5, -0.5]), bounds=(-1.0, 1.0))
    assert bounded.lo < -0.5 and (adv["lo"], adv["hi"]) == pytest.approx((-0.5, min(bounded.hi, 0.5)))
    lost = {r["metric"]: r for r in metrics.outcome_metrics(out.with_columns(
        win=pl.when(pl.col("first")).then(0.0).otherwise(1.0)))}["first-player advantage"]
    assert lost["value"] == -0.5 and lost["lo"] == -0.5 < lost["hi"]  # every game alike: still an interval
    assert metrics.advantage_range(np.array([1.0, 2.0]), np.array([4.0, 4.0])) == (-0.5, 0.75)  # one winner, a team
    # the same rows in another order give the same metrics (games laid out by index, not by row order),
    # and a game cut at a cap (null wins) counts as unfinished and stays out of the seat comparisons
    shuffled = out.sample(fraction=1.0, shuffle=True, seed=3)
    assert metrics.outcome_metrics(shuffled) == metrics.outcome_metrics(out)
    cut = pl.concat([out, pl.DataFrame({"game": [3, 3], "seat": [0, 1], "win": [None, None], "length": [9, 9],
                                        "first": [True, False]}, schema=out.schema)])
    rows_cut = {r["metric"]: r for r in metrics.outcome_metrics(cut)}
    assert rows_cut["unfinished rate"]["value"] == pytest.approx(1 / 4)
    assert rows_cut["balance"]["value"] == rows["balance"]["value"] and rows_cut["duration"]["value"] == 5.25
    assert rows_cut["first-player advantage"]["value"] == rows["first-player advantage"]["value"]
    # read a seat at a time from a lazy table (as a run's report does), the same layout
    lazy, whole = metrics.games_layout_lazy(cut.lazy()), metrics.games_layout(cut)
    assert np.array_equal(lazy.win, whole.win, equal_nan=True) and (lazy.null == whole.null).all()
    assert (lazy.flags["first"] == whole.flags["first"]).all() and (lazy.length == whole.length).all()
    assert metrics.outcome_metrics(lazy) == metrics.outcome_metrics(cut)
    prog = pl.LazyFrame({"game": [0] * 6, "step": [0, 0, 1, 1, 2, 2], "side": [0, 1] * 3, "score": [0, 1, 2, 1, 2, 2]})
    winners = pl.LazyFrame({"game": [0], "side": [1]})
    pm = {r["metric"]: r for r in metrics.progress_metrics(prog, winners)}
    # leaders: 1, 0, tie -> one lead change; the winner (side 1) trailed by 1; never kept the lead
    # the winner ends with 2 points: a deficit of 1 is half its final score
    assert pm["lead changes per game"]["value"] == 1 and pm["comeback rate"]["value"] == 1
    assert pm["largest deficit overcome"]["value"] == pytest.approx(0.5)
    assert pm["lead change rate"]["value"] == pytest.approx(1 / 3)
    assert pm["final lead taken at"]["value"] == pytest.approx(1.0)
    # the largest deficit overcome (skewed, no bound, no count) has no interval below 10 games: Student's t,
    # even with Hall's correction, covered 91-93% at 3-7 games; from 10 games it has one
    assert math.isnan(pm["largest deficit overcome"]["lo"]) and "no interval below 10 games" in \
        pm["largest deficit overcome"]["note"]
    games = np.repeat(np.arange(12), 6)
    many = {r["metric"]: r for r in metrics.progress_metrics(
        pl.LazyFrame({"game": games, "step": np.tile([0, 0, 1, 1, 2, 2], 12), "side": np.tile([0, 1], 36),
                      "score": np.tile([0, 1, 2, 1, 2, 2], 12) + np.repeat(np.arange(12) % 3, 6) * np.tile([0, 0, 0, 0, 0, 1], 12)}),
        pl.LazyFrame({"game": np.arange(12), "side": np.ones(12, int)}))}
    assert many["largest deficit overcome"]["n"] == 12 and math.isfinite(many["largest deficit overcome"]["lo"])


def test_bradley_terry_recovers_known_strengths():
    theta_true = np.array([0.0, 0.5, -0.7])
    n = 20000
    wins = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            if i != j:
                wins[i, j] = n / (1 + math.exp(theta_true[j] - theta_true[i]))
    theta, se = ratings.fit(["a", "b", "c"], wins, ref=0)
    assert theta == pytest.approx(theta_true, abs=1e-6)
    assert se[0] == 0 and (se[1:] > 0).all()


def test_ratings_round_robin(tmp_path):
    s = scen(ratings={"policies": ["random", "partner"]})
    res = api.rate(s, runs=tmp_path)
    r = {row["policy"]: row for row in res.ratings.iter_rows(named=True)}
    assert r["partner"]["theta"] > r["random"]["lo"] and r["random"]["theta"] == 0


def test_ratings_top_policy_is_replayed_on_fresh_deals(tmp_path):
    """The ranking's top is picked from the data: it plays the runner-up again on a seed the ratings
    never used, every seating of the two. In a gauntlet the two never met (both met only the
    reference), so their tables are made for the re-play."""
    s = scen(ratings={"policies": ["partner", "random", "tactician", "greedy"], "mode": "gauntlet"})
    played = []

    def runner(d):
        played.append(d)
        return api.run(d, runs=tmp_path)

    from cardsim.studies.sweep import heldout_seed

    res = ratings.run(api.load(s), runner, 300)
    h = res.heldout.row(0, named=True)
    order = res.ratings["policy"].to_list()
    assert (h["best"], h["runner_up"]) == (order[0], order[1])
    assert {h["best"], h["runner_up"]} == {"partner", "tactician"}  # the strongest two; only the gauntlet's
    fresh = [d for d in played if d.seed != s.seed]
    assert len(fresh) == h["tables"] == 2 and all(d.seed == heldout_seed(s.seed) for d in fresh)
    assert all(d.games == 300 for d in fresh) and h["deals"] == 300 and h["games"] == 600
    assert h["lo"] < h["log_odds"] < h["hi"] and h["best_win_lo"] < h["best_win_rate"] < h["best_win_hi"]
    # the runner-up is the 0 of the re-play's fit: log-odds and the top's win share say the same (team game)
    assert 1 / (1 + math.exp(-h["log_odds"])) == pytest.approx(h["best_win_rate"], abs=1e-6)
    words = ratings.headline(res)
    assert f"On 300 fresh deals (a seed the ratings never used), {h['best']}" in words
    assert f"{h['runner_up']}'s (the runner-up)" in words
    out = ratings.output(res)
    assert out.tables[-1][0] == "Held-out: the top policy against the runner-up on fresh deals"


def test_ratings_heldout_words():
    row = {"best": "a", "runner_up": "b", "deals": 1000, "log_odds": 0.2, "lo": -0.1, "hi": 0.5,
           "best_win_rate": 0.551, "best_win_lo": 0.49, "best_win_hi": 0.612}
    words = ratings._heldout_words(pl.DataFrame([row]))
    assert "a is not detectably ahead: one of its seats beats one of b's (the runner-up) in 55.0%" in words
    # the held-out table's share and its interval are in the words too (they read as a contradiction when not)
    assert "raw share of the wins 55.1%, 95% CI 49.0%-61.2%" in words
    assert "a stays ahead" in ratings._heldout_words(pl.DataFrame([{**row, "lo": 0.1}]))
    assert "a never lost to b (the runner-up)." in ratings._heldout_words(pl.DataFrame([{**row, "log_odds": math.inf}]))
    assert "a and b (the runner-up) finished no game" in ratings._heldout_words(pl.DataFrame([{**row, "log_odds": math.nan}]))
    assert ratings._heldout_words(None) == ""


def _pair_obs(rates: dict[tuple[int, int], float], deals: int) -> ratings.Observations:
    """Two tables (ABAB, BABA) per pair on ``deals`` deals; A wins the first ``round(rate * 2 * deals)``
    games of the pair (spread over both tables)."""
    t_idx, dl, sh, pairs = [], [], [], []
    for pair, r in rates.items():
        wins = np.zeros(2 * deals)
        wins[: round(r * 2 * deals)] = 1.0
        for k in range(2):
            t_idx.append(np.full(deals, len(pairs)))
            dl.append(np.arange(deals))
            sh.append(wins[k::2])
            pairs.append(pair)
    return ratings.Observations(np.concatenate(t_idx), np.concatenate(dl), np.concatenate(sh), pairs,
                                np.ones((len(pairs), 2)))


def test_pairs_interval_has_width_at_zero_and_is_not_clipped():
    """0 wins in 200 games (100 deals) is no proof of a 0% rate: the Pairs interval (Korn-Graubard,
    clustered by deal) reaches 3.6% (Clopper-Pearson's 0 of 100: the clustering may halve the games'
    worth), and 3 wins in 200 keep a lower bound above 0 (the Wald interval gave 0.0%-0.0% and a
    clipped 0.0%)."""
    p = ratings.Plan(None, ["a", "b", "c"], [(0, 1), (0, 2), (1, 2)], {}, 0)
    res = ratings.analyse(p, _pair_obs({(0, 1): 0.015, (0, 2): 0.0, (1, 2): 0.3}, 100), 100)
    rows = {(r["a"], r["b"]): r for r in res.pairs.iter_rows(named=True)}
    zero, few = rows[("a", "c")], rows[("a", "b")]
    assert zero["a_win_rate"] == 0 and zero["a_win_lo"] == 0
    assert zero["a_win_hi"] == pytest.approx(1 - 0.025 ** (1 / 100))
    assert 0 < few["a_win_lo"] < 0.015 < few["a_win_hi"]


def test_pairs_predicted_rate_has_the_transformed_interval_of_the_strengths_difference():
    """The Pairs table printed the model's predicted win rate of a pair without an interval. It now has one:
    the interval of theta_a - theta_b (both strengths' clustered variances and their covariance)
    transformed by the prediction, the games-weighted mean of logistic(d + log(m_a / m_b)) over the
    pair's tables (increasing in d). Against the reference it is the strength's own interval transformed."""
    from cardsim.coverage.ratings import _simulate

    obs = _simulate(np.random.default_rng(5), 3, 300)
    p = ratings.Plan(None, ["x", "y", "z"], [(0, 1), (0, 2), (1, 2)], {}, 0)
    res = ratings.analyse(p, obs, 300)
    f = ratings.fit_model(obs, 3, 0)
    theta, half = f.theta, f.half()
    rows = {(r["a"], r["b"]): r for r in res.pairs.iter_rows(named=True)}
    for (a, b), name in (((0, 1), ("x", "y")), ((0, 2), ("x", "z")), ((1, 2), ("y", "z"))):
        r = rows[name]
        assert r["predicted_lo"] < r["predicted_rate"] < r["predicted_hi"], r
        m = obs.mult[[t for t, q in enumerate(obs.pairs) if q == (a, b)]]  # every table plays every deal

        def pred(d, m=m):
            return float(np.mean(1 / (1 + m[:, 1] / m[:, 0] * np.exp(-d))))

        assert r["predicted_rate"] == pytest.approx(pred(theta[a] - theta[b]))
        v = np.zeros(3)
        v[a], v[b] = 1.0, -1.0
        h = t95(299) * math.sqrt(v @ f.cov @ v) + ratings.TOL
        assert r["predicted_lo"] == pytest.approx(pred(theta[a] - theta[b] - h))
        assert r["predicted_hi"] == pytest.approx(pred(theta[a] - theta[b] + h))
        if a == 0:  # against the reference: the other strength's own interval
            assert h == pytest.approx(half[b])
    # the y-z pair's interval uses the covariance: not the two strengths' variances added
    assert f.cov[1, 2] != 0
    # on the terminal: percentages, as the predicted rate
    from cardsim.output import text_table

    header, _rule, line = text_table(res.pairs, 400).splitlines()[:3]
    cells = dict(zip(header.split(), line.split(), strict=True))
    assert all(cells[c].endswith("%") for c in ("predicted_rate", "predicted_lo", "predicted_hi")), cells


def test_poor_fit_is_told_once_with_the_tables_numbers():
    """Pairs the strengths cannot fit (a = b, b = c, yet a wins 0.05% against c): one warning, in the notes, its
    rates printed as the Pairs table prints them; the answer does not repeat it."""
    p = ratings.Plan(None, ["a", "b", "c"], [(0, 1), (0, 2), (1, 2)], {}, 0)
    res = ratings.analyse(p, _pair_obs({(0, 1): 0.5, (0, 2): 0.0005, (1, 2): 0.5}, 1000), 1000)
    out = ratings.output(res)
    text = " ".join([out.answer, *out.notes])
    assert text.count("goodness of fit") == 1 and "goodness of fit" not in out.answer
    assert "a wins 0.05% of games against c" in text


def test_report_renders_offline_with_figures(tmp_path):
    runner = CliRunner()
    scen_file = tmp_path / "r.toml"
    scen_file.write_text('[scenario]\nname = "rep"\ngame = "fubnub"\ngames = 300\nseed = 1\n'
                         'question = "Is it fair?"\n')
    r = runner.invoke(app, ["report", str(scen_file), "--out", str(tmp_path / "rep"), "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 0, r.output
    page = (tmp_path / "rep" / "rep" / "index.html").read_text()
    assert "Is it fair?" in page and "Balance metrics" in page
    assert "http://" not in page and "https://" not in page and "<script" not in page
    imgs = re.findall(r"src='data:image/png;base64,([A-Za-z0-9+/=]+)'", page)
    assert len(imgs) >= 4 and all(len(i) > 2000 for i in imgs)
    md = (tmp_path / "rep" / "rep" / "report.md").read_text()
    for fig in re.findall(r"\]\((fig-\d+\.png)\)", md):
        assert (tmp_path / "rep" / "rep" / fig).stat().st_size > 1000
    # a report of a run directory, and of a comparison
    run_dir = next((tmp_path / "runs").iterdir())
    assert runner.invoke(app, ["report", str(run_dir), "--out", str(tmp_path / "rep2")]).exit_code == 0
    cmp_file = tmp_path / "c.toml"
    cmp_file.write_text(scen_file.read_text().replace('"rep"', '"cmp"') +
                        '[compare]\narms = [{name = "a"}, {name = "b", policies = ["random", "partner", "random", "partner"]}]\n')
    r = runner.invoke(app, ["report", str(cmp_file), "--out", str(tmp_path / "rep"), "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 0, r.output
    assert "Paired" in (tmp_path / "rep" / "cmp" / "index.html").read_text()


def test_cli_compare_sweep_rate(tmp_path):
    runner = CliRunner()
    f = tmp_path / "s.toml"
    f.write_text('[scenario]\nname = "x"\ngame = "fubnub"\ngames = 100\n[sweep]\ngrid = {"rules.point_cards" = [1, 3]}\n')
    r = runner.invoke(app, ["sweep", str(f), "--runs", str(tmp_path)])
    assert r.exit_code == 0 and "highest" in r.output
    for fmt in ("json", "csv"):
        r = runner.invoke(app, ["sweep", str(f), "--runs", str(tmp_path), "--format", fmt])
        assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["sweep", str(f), "--runs", str(tmp_path), "-f", "json"])
    doc = json.loads(r.stdout)
    assert doc["answer"] and {"winrate_s0", "lo_s0", "hi_s0"} <= set(doc["tables"]["Sweep"][0])
    r = runner.invoke(app, ["compare", str(f), "--runs", str(tmp_path)])
    assert r.exit_code == 2 and "no [compare]" in r.output


def test_interval_words_after_a_signed_number_keep_their_signs():
    """After a verb ("shortens by 8.3") the interval reads as sizes; after a signed number ("-83.3
    points") it keeps its signs: "-83.3 points (95% CI 11.6-155.0 points)" contradicted itself."""
    from cardsim.studies.cards import _again
    from cardsim.studies.compare import span

    assert span(-1.55, -0.116, 100, "points") == "11.6-155.0 points"
    assert span(-1.55, -0.116, 100, "points", signed=True) == "-155.0 to -11.6 points"
    assert span(-0.005, 0.011, 100, "points", signed=True) == span(-0.005, 0.011, 100, "points")
    line = _again({"effect": -0.5, "lo": -0.8, "hi": -0.2, "games": 300}, 100, "points")
    assert "-50.0 points (95% CI -80.0 to -20.0 points)" in line


def test_small_n_p_values_match_their_intervals():
    """At a few games the intervals use Student's t: the p-values and the Bonferroni intervals do too
    (a normal p of 0.012 sat beside an interval from -10 to +3, and the 'simultaneous' interval was the
    narrower); one game has no interval and no p-value, and the words say so."""
    from cardsim.stats import t_p, t_quantile
    from cardsim.studies.compare import span

    assert t_p(1.0, 0.5, 2) > 0.05 > t_p(1.0, 0.5, 10_000)  # t with 2 df: |t| = 2 is not significant
    assert t_quantile(1 - 0.05 / 4, 2) > t_quantile(0.975, 2) > 1.96
    assert math.isnan(t_p(1.0, math.nan, 0))
    assert span(math.nan, math.nan, 100, "points") == "none: an interval needs at least 2 deals"


def test_ratings_refuse_a_policy_written_twice_and_name_a_lone_reference():
    """"greedy" and { name = "greedy" } are one policy (they were rated as two); a gauntlet whose
    reference beats a policy that never wins read "partner rates highest: +0.00 log-odds over partner"."""
    with pytest.raises(ScenarioError, match="lists a policy twice"):
        ratings.plan(api.load(scen(ratings={"policies": ["greedy", {"name": "greedy"}]})))
    # a default written out is the same policy; another value is not
    with pytest.raises(ScenarioError, match="tactician and tactician\\(call_need=2\\) play the same"):
        ratings.plan(api.load(scen(ratings={"policies": ["tactician", {"name": "tactician", "call_need": 2}]})))
    ratings.plan(api.load(scen(ratings={"policies": ["tactician", {"name": "tactician", "call_need": 3}]})))
    p = ratings.plan(api.load(scen(ratings={"policies": ["greedy", "partner"], "mode": "gauntlet",
                                            "reference": "partner"})))
    r = pl.DataFrame([{"policy": "partner", "theta": 0.0, "lo": 0.0, "hi": 0.0},
                      {"policy": "greedy", "theta": -math.inf, "lo": -math.inf, "hi": -math.inf}])
    res = SimpleNamespace(plan=p, ratings=r, warnings=[], games=20, heldout=None)
    assert ratings.headline(res).startswith("partner (the reference) rates highest; no other policy has a finite")


def test_a_long_arm_name_is_cut_to_a_folder_name_that_fits():
    """An arm named with 250 letters stopped `cardsim compare` with OSError 'File name too long' (a
    Python traceback) when its run directory was made: derived names are cut, kept apart by a hash."""
    from cardsim.scenario import NAME_MAX
    from cardsim.studies import derive

    base = scen()
    names = {derive.build(base, json.loads(json.dumps(BASE)), f"st-{c * 250}-r0").name for c in "ab"}
    assert len(names) == 2 and all(len(n) <= NAME_MAX and n.startswith("st-aaa" if "a" in n[3:6] else "st-bbb")
                                   for n in names)
    assert derive.build(base, json.loads(json.dumps(BASE)), "st-short-r0").name == "st-short-r0"


@pytest.mark.parametrize("pols, says", [
    ([1, 2], r"ratings.policies\[0\] = 1 must be a policy name or a table"),  # an AttributeError traceback
    (["partner", {"name": 3}], r"ratings.policies\[1\] = \{'name': 3\} must be a policy name"),  # a TypeError
])
def test_ratings_entries_that_are_no_policy_are_one_line(pols, says):
    with pytest.raises(ScenarioError, match=says):
        ratings.plan(api.load(scen(ratings={"policies": pols})))


def test_ratings_reference_names_a_policy_written_as_a_table():
    """{ name = "greedy" } was labelled greedy(), so reference = "greedy" was 'not in ratings.policies'."""
    p = ratings.plan(api.load(scen(ratings={"policies": ["partner", {"name": "greedy"}], "reference": "greedy"})))
    assert p.names == ["partner", "greedy"] and p.reference == 1


def test_rating_answer_says_its_ranking_orders_estimates():
    """Two policies the intervals cannot tell apart (b and c, 51% against each other) stood in the answer as
    "Ranking: a > b > c", as if each place were found; the answer says the order is the estimates'."""
    p = ratings.Plan(None, ["a", "b", "c"], [(0, 1), (0, 2), (1, 2)], {}, 0)
    res = ratings.analyse(p, _pair_obs({(0, 1): 0.3, (0, 2): 0.29, (1, 2): 0.51}, 200), 200)
    words = ratings.output(res).answer
    assert "Ranking by the estimates (their order is not tested, place by place): " in words
    assert "Ranking: " not in words


def test_cards_study_of_one_card_is_singular(tmp_path):
    """A [cards] study of one card said "1 of 1 cards change the length beyond chance", and its report's
    figures "the intervals hold for all 1 cards at once" (and "over the 1 cards" on their axis)."""
    from cardsim import report as rep

    f = tmp_path / "s.toml"
    f.write_text('[scenario]\nname = "one"\ngame = "turtle"\nvariant = "full"\nplayers = 4\ngames = 40\n'
                 '[seats]\npolicy = "eager"\n[cards]\ncards = ["Restart Game"]\n')
    out = study_json(tmp_path, "cards", f)
    assert re.search(r"\b[01] of 1 card changes the length beyond chance", out["answer"]), out["answer"]
    s = api.load(f)
    md = (rep.build_study(s, "cards", api.cards(s, runs=tmp_path / "runs")).write(tmp_path / "rep") / "report.md")
    text = md.read_text()
    assert "1 cards" not in text and "the intervals hold for the one card, Bonferroni" in text, text


def test_length_sweep_answer_gives_the_unit(tmp_path):
    """A length sweep's answer read "46.1 in the sweep ..., 44.7 on 200 fresh deals": a length without its
    unit, where its gaps and cardsim compare say turns (FUBNUB: hands)."""
    f = tmp_path / "s.toml"
    f.write_text('[scenario]\nname = "len"\ngame = "fubnub"\ngames = 60\nchunk = 30\n'
                 '[seats]\npolicies = ["tactician", "partner", "tactician", "partner"]\n'
                 '[sweep]\nmetric = "length"\ngrid = { "seat0.call_need" = [0, 5] }\n')
    answer = study_json(tmp_path, "sweep", f)["answer"]
    assert re.search(r"\d\.\d hands in the sweep \(the least of 2 points, so it reads low\), [\d.]+ hands on 60 fresh "
                     r"deals \(95% CI ", answer), answer


@pytest.mark.parametrize("section, says", [
    # the same point twice: "1 other point cannot be told apart from it: seat0.call_need=1" beside the best,
    # seat0.call_need=1
    ({"grid": {"seat0.call_need": [1, 1]}}, "sweep.grid.seat0.call_need lists 1 twice; list each value once"),
    ({"points": [{"seat0.call_need": 1}, {"seat0.call_need": 2}, {"seat0.call_need": 1}]},
     "sweep.points[2] is the same point as sweep.points[0] (seat0.call_need=1); list each point once"),
    # a point of no key played the base scenario under an empty name: ": 34.0% (...)", "less at  (-16.0 ...)"
    ({"points": [{}]}, 'sweep.points[0] sets no key; each point sets at least one, e.g. {"seat0.call_need" = 2}'),
])
def test_sweep_of_a_repeated_or_empty_point_is_refused(tmp_path, section, says):
    from tests.test_hardening import to_toml

    f = tmp_path / "s.toml"
    f.write_text(to_toml({**BASE, "seats": {"policies": ["tactician", "partner", "tactician", "partner"]},
                          "sweep": section}))
    r = CliRunner().invoke(app, ["sweep", str(f), "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 2 and r.output == f"error: {says}\n", r.output
    assert not list((tmp_path / "runs").glob("*"))  # nothing played


def test_decided_comparison_labels_its_sequences_with_their_level(tmp_path):
    """decide = true with compare.alpha = 0.2 plays 80% confidence sequences (alpha/2 = 0.1 per sign), and the
    answer, the tables and the report called them "anytime-valid 95%"."""
    from cardsim import report as rep
    from cardsim.studies import compare as paired

    s = scen(seats={"policies": ["tactician", "partner", "tactician", "partner"]},
             compare={"alpha": 0.2, "decide": True, "arms": [
                 {"name": "swaps"}, {"name": "never", "policies": [{"name": "tactician", "swap_top": 24}, "partner",
                                                                   {"name": "tactician", "swap_top": 24}, "partner"]}]})
    res = api.compare(s, runs=tmp_path / "runs")
    out = paired.output(res)
    assert "the difference's anytime-valid 80% CI " in out.answer and "95%" not in out.answer, out.answer
    titles = [t for t, _ in out.tables]
    assert titles[0] == "Arms (focus seat's mean, anytime-valid 80% interval)"
    assert titles[1].startswith("Differences vs the first arm: anytime-valid 80% intervals;")
    md = (rep.build_study(s, "compare", res).write(tmp_path / "rep") / "report.md").read_text()
    assert "anytime-valid 80% sequences" in md and "anytime-valid 95%" not in md


def test_a_difference_in_compare_and_cards_answers_keeps_its_ends_off_zero():
    """The README: "a difference of shares in points keeps its ends off 0 alike ("-0.04 to +5.00", not "-0.0
    to +5.0")". compare's and the card study's answers printed a difference just above 0 as "0.0-5.0 points"
    (a sign they call known, with an end that reads 0) or "-0.0 to +5.0 points"."""
    from cardsim.studies.compare import span, span_digits

    assert span(-0.0004, 0.05, 100, "points", signed=True) == "-0.04 to +5.00 points"
    assert span(0.0004, 0.05, 100, "points") == "0.04-5.00 points"
    assert span(-0.05, -0.0004, 100, "points") == "0.04-5.00 points"
    assert span(-0.6, -0.02, 1, "turns", signed=True) == "-0.60 to -0.02 turns"
    assert span(0.074, 0.086, 100, "points") == "7.4-8.6 points"  # far from 0: one decimal, as before
    assert span_digits(0.0004, 0.05, 100) == 1  # a plain width (an arm's own interval) has no reference
    assert span_digits(0.0004, 0.05, 100, ref=0.0) == 2


def test_meta_gains_and_sweep_gaps_keep_their_ends_off_zero():
    """The meta-game's gains and the sweep's gaps to the best are differences in points judged against 0: an
    end just off 0 printed "-0.0" or "0.0" (a gap the answer calls detectable, or a gain that reads as none)."""
    from types import SimpleNamespace

    from cardsim.studies import meta, sweep

    assert meta._gain_ci(SimpleNamespace(mean=0.01, lo=0.0004, hi=0.02)) == \
        "+1.00 points (95% CI +0.04 to +2.00 points)"
    assert meta._gain_ci(SimpleNamespace(mean=0.1, lo=0.05, hi=0.15)) == "+10.0 points (95% CI +5.0 to +15.0 points)"
    text = sweep._gaps([{"vs_best": -0.02, "vs_best_lo": -0.04, "vs_best_hi": -0.0004}], False, "points", "behind")
    assert text.endswith("(simultaneous 95% intervals of every pair of points at once: 0.04-4.00)"), text


def test_rate_held_out_share_keeps_its_lower_end_above_an_even_contest():
    """"stays ahead" is said where the held-out log-odds interval is above 0, the share above 50%: an end of
    50.02% printed "50.0%", which reads as if an even contest were left in (the README: an interval a sentence
    judges against a reference keeps each end on its own side of it)."""
    from cardsim.studies import rate

    row = {"best": "a", "runner_up": "b", "deals": 400, "log_odds": 0.2, "lo": 0.001, "hi": 0.4,
           "best_win_rate": 0.55, "best_win_lo": 0.51, "best_win_hi": 0.59}
    text = rate._heldout_words(pl.DataFrame([row]))
    assert "stays ahead" in text and "(95% CI 50.0%-" not in text and "(95% CI 50.02%-59.87%" in text, text
    row.update(log_odds=0.6, lo=0.4, hi=0.8)  # far from even: one decimal, as before
    assert "in 64.6% of contests (95% CI 59.9%-69.0%" in rate._heldout_words(pl.DataFrame([row]))


def test_progress_metrics_read_the_score_history_a_window_of_games_at_a_time():
    """A FUBNUB report's balance metrics grouped the whole score history (every hand of every game) at once:
    600,000 games peaked at 2.5 GB, 3 million did not fit in 8 GB (a report of a run `cardsim run` played in
    under 0.5 GB). They read it a window of games at a time now, with the same figures."""
    from cardsim import metrics

    rng = np.random.default_rng(5)
    games, steps = 300, 7
    g = np.repeat(np.arange(games), steps * 2)
    step = np.tile(np.repeat(np.arange(steps), 2), games)
    side = np.tile([0, 1], games * steps)
    score = (rng.random(games * steps * 2) < 0.5).astype(int).reshape(games, steps, 2).cumsum(axis=1).reshape(-1)
    prog = pl.LazyFrame({"game": g, "step": step, "side": side, "score": score})
    winners = pl.LazyFrame({"game": np.arange(3, games), "side": rng.integers(0, 2, games - 3)})
    whole = metrics.progress_metrics(prog, winners, window=10**9)
    assert metrics.progress_metrics(prog, winners, window=7) == whole
    assert metrics.progress_metrics(prog, winners, window=1) == whole
