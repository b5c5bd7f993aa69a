"""cardsim search and cardsim meta (issue 16): planted optima, determinism, JSON, resume, solvers, errors."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from cardsim import api
from cardsim.cli import app
from cardsim.errors import ScenarioError
from cardsim.scenario import from_dict
from cardsim.studies import meta as mt
from tests.conftest import ROOT
from tests.test_hardening import to_toml

TUNED = {"name": "bidder", "first_at": 5, "next_at": 3, "cost_base": 9, "cost_top": 4, "cost_ready": 0,
         "cost_card": 0, "out_min": 0, "challenge_at": 12}
# short games (to 24) keep the tests quick; the tactics still separate
BASE = {"scenario": {"name": "srch", "game": "fourbid", "variant": "game", "games": 1, "seed": 3},
        "seats": {"policies": [TUNED, "collector", "collector", "collector"]},
        "rules": {"target": 24, "max_hands": 60, "turn_cap": 400}}  # caps: a hand nobody opens ends soon
SMALL = {"budget": 12000, "rung": 100, "eta": 2, "rungs": 2, "chunk": 100, "heldout": 300, "batch": 2,
         "startup": 4}


def scenario(search=None, meta=None, **scen):
    raw = json.loads(json.dumps(BASE))
    raw["scenario"].update(scen)
    if search is not None:
        raw["search"] = search
    if meta is not None:
        raw["meta"] = meta
    return from_dict(raw)


def test_planted_policy_is_found_and_beats_the_baseline_held_out():
    """Seat 0 may play random, collector or the tuned bidder against three collectors: the tuned
    bidder wins most (the FOURBID reference result); the search must pick it and show its gain
    over the baseline (collector) on held-out deals."""
    s = scenario({**SMALL, "params": {"seat0.policy": {"values": ["random", "collector", "bidder"]}}})
    raw = dict(s.raw)
    raw["seats"] = {"policies": ["collector"] * 4}
    res = api.search(from_dict(raw), runs=None, threads=2)
    assert res.best.values == {"seat0.policy": "bidder"}
    assert res.gain["baseline"].lo > 0
    assert res.runner_up is not None
    assert res.runner_up.values in ({"seat0.policy": "random"}, {"seat0.policy": "collector"})
    # the answer gives each held-out win rate with its interval, then the gain's
    from cardsim.studies.search import headline

    b, base, g = res.best.heldout, res.baseline.heldout, res.gain["baseline"]
    assert (f"win rate {100 * b.mean:.1f}% ({100 * b.lo:.1f}-{100 * b.hi:.1f}%) against {100 * base.mean:.1f}% "
            f"({100 * base.lo:.1f}-{100 * base.hi:.1f}%) for the baseline, 95% CI each: {100 * g.mean:+.1f} points "
            f"(95% CI {100 * g.lo:+.1f} to {100 * g.hi:+.1f} points; the 95% interval is above 0)") in headline(res)


def test_candidate_objective_of_a_share_is_never_zero_width():
    """A candidate's win rate (and share of games in the band) was +- t SE: it covered 91-92% at a
    rare share and read 0.0-0.0% where no deal scored. It takes share_estimate's interval now; a
    length keeps the t interval."""
    import numpy as np

    from cardsim.studies import search as srch
    from cardsim.studies.evaluate import estimate, share_estimate

    win = srch.plan(scenario({**SMALL, "params": {"seat0.first_at": [4, 7]}}))
    zero = win.estimate(np.zeros(200))
    assert zero.mean == zero.lo == 0.0 and zero.hi > 0.01
    v = np.random.default_rng(1).binomial(4, 0.01, 500) / 4
    assert (win.estimate(v).lo, win.estimate(v).hi) == (share_estimate(v).lo, share_estimate(v).hi)
    length = srch.plan(scenario({**SMALL, "params": {"seat0.first_at": [4, 7]}, "objective": "length"}))
    x = np.arange(50.0)
    assert (length.estimate(x).lo, length.estimate(x).hi) == (estimate(x).lo, estimate(x).hi)


def test_heldout_gain_of_a_share_is_never_zero_width():
    """A held-out gain of a share (a team that won each of 800 deals against a field the mirror splits
    50/50: +0.5 on every deal) read "50.0% lo 50.0% hi 50.0%" with the t interval. A share's gain takes
    the bounded interval (compare's difference of wins): never zero width, never past -1 or +1; a
    length's gain keeps the t interval."""
    from cardsim.stats import mean_ci
    from cardsim.studies import search as srch
    from cardsim.studies.evaluate import estimate, gain_estimate

    flat = gain_estimate(np.full(800, 0.5), mt.GAIN_BOUNDS)
    assert flat.mean == 0.5 and flat.lo < 0.49 and 0.5 < flat.hi <= 1.0
    assert estimate(np.full(800, 0.5)).lo == estimate(np.full(800, 0.5)).hi  # what it replaced
    rng = np.random.default_rng(3)
    v = rng.binomial(4, 0.6, 800) / 4 - rng.binomial(4, 0.5, 800) / 4
    b = mean_ci(v, bounds=(-1, 1))
    assert (gain_estimate(v, (-1, 1)).lo, gain_estimate(v, (-1, 1)).hi) == (b.lo, b.hi)
    assert (gain_estimate(v, None).lo, gain_estimate(v, None).hi) == (estimate(v).lo, estimate(v).hi)
    sp = {**SMALL, "params": {"seat0.first_at": [4, 7]}}
    assert srch.plan(scenario(sp)).gain_bounds() == (-1.0, 1.0)
    assert srch.plan(scenario({**sp, "objective": "length"})).gain_bounds() is None
    assert srch.plan(scenario({**sp, "objective": "first"})).gain_bounds() == (-2.0, 2.0)  # target 0
    assert srch.plan(scenario({**sp, "objective": "win", "goal": 0.25})).gain_bounds() == (-1.5, 1.5)


def test_answer_names_each_step_and_never_says_changes_little():
    """The answer read "Moving cheap, round2_need one step from the best costs ...; one step of call_top,
    call_need, ... changes little there" where call_need's step reached +4.8 points and round2_need's
    other step crossed 0. It names each step that costs (with its direction and interval), calls a step
    whose simultaneous interval crosses 0 not detectably different (with the intervals' range), and
    says which steps change no game."""
    from types import SimpleNamespace

    import polars as pl

    from cardsim.studies import search as srch

    p = srch.plan(scenario({**SMALL, "params": {"seat0.first_at": [3, 7], "seat0.next_at": [1, 5],
                                                "seat0.cost_top": [0, 8]}}))
    t = pl.DataFrame({"param": ["seat0.first_at", "seat0.first_at", "seat0.next_at", "seat0.cost_top",
                                "seat0.cost_top"],
                      "value": ["4", "6", "2", "3", "5"], "gain": [0.01, -0.038, -0.075, 0.0, 0.0],
                      "lo": [-0.028, -0.071, -0.121, 0.0, 0.0], "hi": [0.048, -0.004, -0.029, 0.0, 0.0],
                      "deals": [200] * 5, "same_games": [False, False, False, True, True]})
    res = SimpleNamespace(plan=p, contrasts=t, best=SimpleNamespace(values={"seat0.first_at": 5, "seat0.next_at": 3,
                                                                            "seat0.cost_top": 4}))
    text = srch._steps_sentence(res)
    assert "changes little" not in text
    assert ("One step from the best costs, with simultaneous 95% intervals over the 5 steps: next_at 3 -> 2, 7.5 "
            "points (-12.1 to -2.9 points) and first_at 5 -> 6, 3.8 points (-7.1 to -0.4 points).") in text
    assert ("The step first_at 5 -> 4 is not detectably different from the best (its simultaneous 95% interval over "
            "the 5 steps: -2.8 to +4.8 points).") in text
    assert text.endswith(" Moving cost_top 4 -> 3 or 5 changes no game on the held-out deals.")
    assert srch._steps_sentence(SimpleNamespace(plan=p, contrasts=t.head(0), best=res.best)) == ""


def test_answer_names_every_costly_step():
    """The FOURBID search's answer ended its costs with "and 1 more step" (cost_card's 0.3 points),
    and its steps that change no game with "and 1 other parameter": a count where the name fits. Every
    step that costs is named now: the largest four with their intervals, the rest grouped with the
    range of theirs; five costs are all listed, and so are five parameters."""
    from types import SimpleNamespace

    import polars as pl

    from cardsim.studies import search as srch

    names = ["first_at", "next_at", "cost_base", "cost_top", "cost_ready", "cost_card", "out_min"]
    p = srch.plan(scenario({**SMALL, "params": {f"seat0.{k}": [0, 9] for k in names}}))
    best = SimpleNamespace(values={f"seat0.{k}": 5 for k in names})

    def sentence(costs: int) -> str:
        gain = [-0.2 + 0.02 * j for j in range(costs)]
        t = pl.DataFrame({"param": [f"seat0.{k}" for k in names[:costs]], "value": ["4"] * costs, "gain": gain,
                          "lo": [g - 0.01 for g in gain], "hi": [g + 0.01 for g in gain], "deals": [400] * costs,
                          "same_games": [False] * costs})
        return srch._steps_sentence(SimpleNamespace(plan=p, contrasts=t, best=best))

    five = sentence(5)
    assert "more step" not in five and "cost_ready 5 -> 4, 12.0 points" in five
    seven = sentence(7)
    assert "cost_top 5 -> 4, 14.0 points (-15.0 to -13.0 points) and 3 smaller costs, cost_ready 5 -> 4, " \
           "cost_card 5 -> 4 and out_min 5 -> 4 (their intervals within -13.0 to -7.0 points)." in seven
    same = pl.DataFrame({"param": [f"seat0.{k}" for k in names[:5]], "value": ["4"] * 5, "gain": [0.0] * 5,
                         "lo": [0.0] * 5, "hi": [0.0] * 5, "deals": [400] * 5, "same_games": [True] * 5})
    text = srch._steps_sentence(SimpleNamespace(plan=p, contrasts=same, best=best))
    assert text.endswith("cost_top 5 -> 4 and cost_ready 5 -> 4 changes no game on the held-out deals.")
    assert "other parameter" not in text


def test_planted_rule_value_is_recovered():
    """Rule design: find the target whose mean game length (hands) is the length measured at target
    60 on other deals. Length grows with the target, so the planted optimum is 60."""
    from cardsim.studies import search as srch
    from cardsim.studies.evaluate import Evaluator, keys_for

    cfg = {**SMALL, "params": {"rules.target": {"values": [12, 24, 36, 60, 96, 140]}}, "objective": "length"}
    ev = Evaluator("fourbid", chunk=500, threads=2)
    lu = srch.plan(scenario({**cfg, "goal": 0.0})).lineup({"rules.target": 60})
    goal = float(ev.evaluate([lu], keys_for(99)["heldout"], 0, 1000)[0].mean())
    ev.close()
    res = api.search(scenario({**cfg, "goal": goal}), runs=None, threads=2)
    assert res.best.values == {"rules.target": 60}
    # the answer gives the gain in distance to the target with its interval, not the two values alone
    g = res.gain["baseline"]
    words = srch.headline(res)
    assert f"target {goal:.2f}: " in words and " closer to it (95% CI " in words
    assert ("the 95% interval is above 0" if g.lo > 0 else "not a sure gain" if g.hi > 0 else "worse") in words


def test_same_seed_same_result_whatever_the_threads():
    cfg = {**SMALL, "params": {"seat0.first_at": [4, 7], "seat0.cost_base": [4, 12]}}
    a = api.search(scenario(cfg), runs=None, threads=1)
    b = api.search(scenario(cfg), runs=None, threads=3)
    assert a.best.values == b.best.values
    assert a.gain["baseline"].mean == b.gain["baseline"].mean
    assert a.trials.equals(b.trials)


def test_search_json_has_best_baseline_heldout(tmp_path):
    raw = json.loads(json.dumps(BASE))
    raw["search"] = {**SMALL, "params": {"seat0.first_at": [4, 7], "seat0.next_at": [2, 5]}}
    p = tmp_path / "s.toml"
    p.write_text(to_toml(raw))
    r = CliRunner().invoke(app, ["search", str(p), "--runs", str(tmp_path / "runs"), "-f", "json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["best"]["name"] == "bidder" and set(TUNED) <= set(out["best"])
    assert isinstance(out["best"]["first_at"], int)
    assert out["baseline"] == TUNED
    for k in ("diff", "lo", "hi", "games"):
        assert k in out["heldout"]
    assert out["heldout"]["lo"] <= out["heldout"]["diff"] <= out["heldout"]["hi"]
    for who in ("best", "baseline"):  # each objective with its interval
        h = out["heldout"]
        assert h[f"{who}_lo"] <= h[who] <= h[f"{who}_hi"] and h[f"{who}_lo"] < h[f"{who}_hi"]
    # the in-search gain has no interval, and the JSON says why (chosen on those deals)
    assert out["insearch"]["interval"] is None and "optimistic" in out["insearch"]["note"]
    assert any("nor is the Candidates table's in_search" in n for n in out["notes"])  # its column, likewise
    assert "Held-out gain (paired, 95% CI)" in out["tables"]
    # the answer names the steps whose interval is off 0: the intervals hold for every step at once
    (step,) = [t for t in out["tables"] if t.startswith("One step from the best")]
    assert "at once, Bonferroni over the steps, each bounded" in step
    assert all(r["lo"] <= r["gain"] <= r["hi"] and r["lo"] < r["hi"] for r in out["tables"][step])


def test_one_step_contrasts_of_a_win_are_bounded_and_never_zero_width():
    """A win's one-step gains are mostly 0 (a step changes the best's games on some deals only): max-T's
    mean +- c SE held all eight steps at once in 21.8% of runs of 10 held-out deals, and a step that
    changed none of them read 0 with zero width. Each step now gets the bounded interval at 0.05 / steps."""
    from cardsim.stats import simultaneous_means
    from cardsim.studies.evaluate import gain_estimate
    from cardsim.studies.search import step_intervals

    gains = [np.zeros(10), np.array([0.0] * 8 + [-0.5, -0.25]), np.array([0.0] * 9 + [0.25])]
    s = step_intervals(gains, (-1.0, 1.0))
    assert np.all(s["lo"] < s["mean"]) and np.all(s["mean"] < s["hi"]) and s["lo"][0] < 0 < s["hi"][0]
    e = gain_estimate(gains[1], (-1.0, 1.0), family=3)
    assert (s["lo"][1], s["hi"][1]) == (e.lo, e.hi)
    assert simultaneous_means(np.column_stack(gains))["hi"][0] == 0  # what it read before
    length = step_intervals(gains[1:], None)  # a length's steps: max-T, as before
    assert np.allclose(length["lo"], simultaneous_means(np.column_stack(gains[1:]))["lo"])


def test_search_resumes_after_kill_9(tmp_path):
    raw = json.loads(json.dumps(BASE))
    raw["search"] = {**SMALL, "budget": 60000, "params": {"seat0.first_at": [4, 7], "seat0.cost_base": [4, 12]}}
    scen = tmp_path / "k.toml"
    scen.write_text(to_toml(raw))
    runs = tmp_path / "runs"
    env = dict(os.environ, NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache")))
    proc = subprocess.Popen([sys.executable, "-m", "cardsim.cli", "search", str(scen), "--runs", str(runs),
                             "--threads", "1"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    told = 0
    while time.time() < deadline and proc.poll() is None:
        logs = list(runs.glob("*/journal.log"))
        told = logs[0].read_text().count('"state":1') + logs[0].read_text().count('"state":2') if logs else 0
        if told >= 4:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert told >= 4, "the search should have finished a few trials before the kill"
    resumed = api.search(scen, runs=runs, threads=2)
    reference = api.search(scen, runs=tmp_path / "ref", threads=2)
    assert resumed.best.values == reference.best.values
    assert resumed.games == reference.games
    assert resumed.trials.equals(reference.trials)
    assert resumed.gain["baseline"].mean == reference.gain["baseline"].mean


class Killed(BaseException):
    """A kill -9 at a chosen call: nothing after it runs, the journal stays as the kill left it."""


def _search_killed_at(scen, runs, cls, name, n):
    """Run the search, killing it at the (n+1)-th call of ``cls.name``."""
    real = getattr(cls, name)
    calls = [0]

    def counted(*a, **k):
        calls[0] += 1
        if calls[0] > n:
            raise Killed
        return real(*a, **k)

    setattr(cls, name, counted)
    try:
        api.search(scen, runs=runs, threads=2)
    except Killed:
        return True
    finally:
        setattr(cls, name, real)
    return False


@pytest.mark.parametrize("sampler, kills", [
    ("tpe", [("tell", 3)]),            # among a batch's tells: one told, one not
    ("tpe", [("set_user_attr", 3)]),   # the batch's outcome not yet recorded: raced again
    ("tpe", [("set_user_attr", 2)]),   # the next batch asked but not recorded: proposed again
    ("tpe", [("report", 3)]),          # mid-race: the batch is raced again from its first rung
    ("tpe", [("tell", 5), ("tell", 0)]),  # killed again while finishing the recorded tells
    ("cmaes", [("tell", 7)]),          # CMA-ES seeds its draws with the trial number
    ("qmc", [("tell", 3)]),            # the quasi-random point follows the candidate's place
])
def test_search_killed_anywhere_ends_as_the_uninterrupted_one(tmp_path, sampler, kills):
    import optuna

    raw = json.loads(json.dumps(BASE))
    raw["search"] = {**SMALL, "budget": 15000, "sampler": sampler,
                     "params": {"seat0.first_at": [4, 7], "seat0.cost_base": [4, 12]}}
    scen = tmp_path / "k.toml"
    scen.write_text(to_toml(raw))
    owner = {"tell": optuna.study.Study, "set_user_attr": optuna.study.Study, "report": optuna.trial.Trial}
    for name, n in kills:
        assert _search_killed_at(scen, tmp_path / "runs", owner[name], name, n), "the kill point was never reached"
    resumed = api.search(scen, runs=tmp_path / "runs", threads=2)
    reference = api.search(scen, runs=None, threads=2)
    assert resumed.trials.equals(reference.trials)
    assert resumed.best.values == reference.best.values and resumed.games == reference.games
    assert resumed.gain["baseline"].mean == reference.gain["baseline"].mean


def test_pruner_leaves_a_killed_runs_failed_trials_out():
    """A failed trial (a kill's) keeps the rung value it reached; when the same candidate is raced
    again, that value must not compete a second time."""
    import optuna
    from optuna.trial import TrialState

    from cardsim.studies.search import _Pruner

    study = optuna.create_study(direction="maximize")
    dead = study.ask()
    study._storage.set_trial_system_attr(dead._trial_id, "completed_rung_0", 1.0)
    study.tell(dead, state=TrialState.FAIL)
    study.pruner = _Pruner(optuna.pruners.SuccessiveHalvingPruner(min_resource=100, reduction_factor=2))
    live = study.ask()
    live.report(0.5, 100)
    assert not live.should_prune()  # alone in its rung: promoted
    study.pruner = optuna.pruners.SuccessiveHalvingPruner(min_resource=100, reduction_factor=2)
    again = study.ask()
    again.report(0.5, 100)
    assert again.should_prune()  # Optuna's own pruner counts the failed trial's 1.0


def test_qmc_candidates_follow_one_sobol_sequence():
    """``sampler = "qmc"``: the k-th candidate is the k-th point of one scrambled Sobol sequence, so
    the first 8 points fall one in each eighth of the range (random points would not, mostly)."""
    import optuna

    from cardsim.studies.search import _qmc

    space = {"x": optuna.distributions.FloatDistribution(0.0, 1.0)}
    study = optuna.create_study()
    study.add_trial(optuna.trial.create_trial(params={"x": 0.5}, distributions=space, value=0.0))
    xs = []
    for k in range(8):
        study.sampler = _qmc(3, k, k)
        xs.append(study.ask(space).params["x"])
    assert sorted(int(8 * x) for x in xs) == list(range(8))
    study.sampler = _qmc(3, 5, 99)
    assert study.ask(space).params["x"] == xs[5]  # the place decides, not the study's counter


def test_meta_json_gives_mix_and_exploitability(tmp_path):
    raw = json.loads(json.dumps(BASE))
    raw["meta"] = {"strategies": ["collector", {"label": "tuned", "policy": TUNED},
                                  {"label": "cb12", "policy": {**TUNED, "cost_base": 12}}],
                   "deals": 800, "chunk": 800}
    p = tmp_path / "m.toml"
    p.write_text(to_toml(raw))
    r = CliRunner().invoke(app, ["meta", str(p), "-f", "json", "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert set(out["mix"]) == {"collector", "tuned", "cb12"}
    assert abs(sum(out["mix"].values()) - 1) < 1e-9
    assert "Nash mixture" in out["exploitability"]
    ex = out["exploitability"]["collector"]  # the tuned bidder crushes a field of collectors
    assert ex["by"] in ("tuned", "cb12") and ex["lo"] > 0.3 and ex["lo"] <= ex["gain"] <= ex["hi"]
    assert ex["detected"] and ex["simultaneous"] == 2 and set(ex["replies"]) == {"tuned", "cb12"}
    # the mixture, pure or mixed, is re-played against every strategy on held-out deals, whatever the table said
    nash = out["exploitability"]["Nash mixture"]
    pure = max(out["mix"].values()) > 1 - 1e-9
    assert nash["gain"] is not None and nash["deals"] == 800
    assert set(nash["replies"]) == set(out["mix"]) - ({max(out["mix"], key=out["mix"].get)} if pure else set())
    assert nash["simultaneous"] == len(nash["replies"])
    top = max(nash["replies"].values(), key=lambda g: g["gain"])
    assert nash["detected"] == (nash["lo"] > 0) and (nash["detected"] or nash["gain"] == top["gain"])


def test_meta_counts_the_same_games_when_its_search_resumes(tmp_path):
    """A meta-game whose best-response search finished in an earlier call (its journal under runs)
    reads the same game count: the report holds no figure that depends on what the runs folder held."""
    s = scenario(meta={"strategies": ["collector", {"label": "tuned", "policy": TUNED}], "deals": 800,
                       "heldout": 800, "chunk": 800,
                       "search": {**{k: v for k, v in SMALL.items() if k != "chunk"}, "heldout": 800,
                                  "policy": TUNED, "params": {"tuned.first_at": [4, 7]}}})
    fresh = api.meta(s, runs=tmp_path / "runs", threads=2)
    resumed = api.meta(s, runs=tmp_path / "runs", threads=2)
    assert fresh.games == resumed.games and fresh.mix.tolist() == resumed.mix.tolist()


# -- the meta-game solvers on games with known answers -------------------------------------------
def two_side(a):
    n = len(a)
    return {tuple(sorted((i, j))): {i: a[i][j], j: a[j][i]} for i in range(n) for j in range(n)}


def test_rock_paper_scissors_mix_and_alpharank_are_uniform():
    a = [[0.5, 0.0, 1.0], [1.0, 0.5, 0.0], [0.0, 1.0, 0.5]]  # win rates: rock, paper, scissors
    x = mt.nash(two_side(a), 3, 2)
    assert np.allclose(x, 1 / 3, atol=1e-6)
    assert np.allclose(mt.alpharank(two_side(a), 3, 2), 1 / 3, atol=1e-6)


def test_dominant_strategy_takes_everything():
    a = [[0.5, 0.3, 0.2], [0.7, 0.5, 0.4], [0.8, 0.6, 0.5]]
    assert np.allclose(mt.nash(two_side(a), 3, 2), [0, 0, 1], atol=1e-6)
    assert mt.alpharank(two_side(a), 3, 2)[2] > 0.99


def test_three_player_hawk_dove_mix():
    """Three sides, two strategies: a hawk facing h other hawks gets 1 - h / 2, a dove (1 - h') / 3
    -ish; the symmetric equilibrium makes both earn the same, which the solver must find."""
    def u(prof, s):
        h = prof.count(0) - (1 if s == 0 else 0)
        return (0.6 - 0.3 * h) if s == 0 else 0.35 - 0.05 * h
    ubar = {p: {s: u(p, s) for s in set(p)} for p in mt.profiles(2, 3)}
    x = mt.nash(ubar, 2, 3)
    f = mt.payoff(ubar, x, 3)
    assert 0 < x[0] < 1 and abs(f[0] - f[1]) < 1e-9 and mt.regret(ubar, x, 3) < 1e-9


# -- validation: one line naming the key and what is allowed -------------------------------------
@pytest.mark.parametrize(("search", "needle"), [
    ({"params": {"seat0.first_at": [4, 7]}}, "missing key search.budget"),
    ({**SMALL, "params": {}}, "search.params must be a table"),
    ({**SMALL, "params": {"seat0.first_at": [7, 4]}}, "low < high"),
    ({**SMALL, "params": {"seat0.first_at": [4]}}, "[low, high]"),
    ({**SMALL, "params": {"seat0.first_at": {"values": [4]}}}, "at least two distinct values"),
    ({**SMALL, "params": {"seat0.nope": [1, 3]}}, "nope"),
    ({**SMALL, "params": {"seat0.first_at": [4, 7]}, "objective": "fun"}, "allowed: win, length"),
    ({**SMALL, "params": {"seat0.first_at": [4, 7]}, "sampler": "tp"}, "did you mean 'tpe'"),
    ({**SMALL, "params": {"seat0.first_at": [4, 7]}, "budget": 1599}, "below the least a search needs, 1,600 games"),
    ({**SMALL, "params": {"seat0.first_at": [4, 7]}, "field": ["collector"]}, "the field has 3 seats"),
    ({**SMALL, "params": {"seat0.first_at": [4, 7]}, "tuned": [9]}, "search.tuned"),
    ({**SMALL, "params": {"seat0.first_at": [4, 7]}, "budgte": 1}, "did you mean 'budget'"),
    # a key without its seat (a traceback once): the forms a key takes
    ({**SMALL, "params": {"first_at": [4, 7]}}, "search.params.first_at: unknown key 'first_at'; use tuned.<param>"),
    ({**SMALL, "params": {"x": {"keys": ["tuned"], "low": 4, "high": 7}}}, "unknown key 'tuned'"),
    # float ends on an integer parameter: refused at load naming the range, not a drawn 3.6066 mid-search
    ({**SMALL, "params": {"seat0.first_at": [3.0, 7.0]}},
     "search.params.seat0.first_at = [3.0, 7.0] draws any number from 3 to 7, but seat0.first_at (policy 'bidder' "
     "parameter first_at) takes an integer >= 0; write the ends as integers: [3, 7]"),
    ({**SMALL, "params": {"seat0.first_at": {"low": 0.5, "high": 7, "step": 0.5}}}, "write the ends as integers"),
    # length_in without its band once searched the share of games of length 0-0 (every game out)
    ({**SMALL, "params": {"seat0.first_at": [4, 7]}, "objective": "length_in"},
     'search.band is required for objective = "length_in": the game lengths that count, band = [low, high]'),
    # nan or inf as the target (or nan as a band's end) ran the whole search on a nan objective, exit 0
    ({**SMALL, "params": {"seat0.first_at": [4, 7]}, "goal": float("nan")}, "search.goal = nan; allowed: max, min"),
    ({**SMALL, "params": {"seat0.first_at": [4, 7]}, "goal": float("inf")}, "search.goal = inf; allowed"),
    ({**SMALL, "params": {"seat0.first_at": [4, 7]}, "objective": "length_in", "band": [float("nan"), 30]},
     "search.band = [nan, 30] must be [low, high]"),
    # a band of negative lengths played the whole search (every candidate 0%) and said "Nothing beat the baseline"
    ({**SMALL, "params": {"seat0.first_at": [4, 7]}, "objective": "length_in", "band": [-5, -1]},
     "search.band = [-5, -1] holds no game length (lengths are 0 or more, in hands or turns)"),
])
def test_bad_search_sections_name_the_key(search, needle):
    with pytest.raises(ScenarioError) as e:
        from cardsim.studies import search as srch

        srch.plan(scenario(search))
    assert needle in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(("meta", "needle"), [
    ({"strategies": ["collector"]}, "at least two strategies"),
    ({"strategies": ["collector", "colector"]}, "colector"),
    ({"strategies": ["collector", "collector"]}, "have the same label 'collector'"),
    # a bare name and its defaults written out play the same games: one strategy under two labels
    ({"strategies": ["collector", {"label": "c2", "policy": {"name": "collector"}}]},
     "collector and c2 play the same"),
    ({"strategies": ["collector", "random"], "rounds": 1}, "needs a [meta.search] table"),
    # a strategy labelled as the mixture took its row of the exploitability table and JSON (its own lost);
    # one labelled as a round's response shared its label with it
    ({"strategies": [{"label": "Nash mixture", "policy": "collector"}, "random"]},
     "meta.strategies[0].label = 'Nash mixture' is the name the meta-game gives the Nash mixture; choose another"),
    ({"strategies": ["collector", {"label": "response 1", "policy": "random"}]},
     "meta.strategies[1].label = 'response 1' is the name the meta-game gives a best response; choose another"),
    ({"strategies": ["collector", "random"], "deals": 0}, "meta.deals"),
    ({"strategies": ["collector", "random"], "deals": 799}, "[800, 100,000,000]"),
    ({"strategies": ["collector", "random"], "heldout": 50}, "meta.heldout"),
    # [meta.search]'s space is checked with the plan, before a payoff cell is played
    ({"strategies": ["collector", "random"], "search": {"policy": "bidder", "budget": 2000,
                                                          "params": {"seat0.frist_at": [4, 7]}}}, "frist_at"),
    ({"strategies": ["collector", "random"], "search": {"policy": "bidder", "budget": 2000,
                                                          "params": {"seat0.first_at": [-3, 7]}}}, "first_at"),
    ({"strategies": ["collector", "random"], "search": {"policy": "bidder", "budget": 2000, "sampler": "tpee",
                                                          "params": {"seat0.first_at": [4, 7]}}}, "tpee"),
    ({"strategies": ["collector", "random"], "search": {"policy": "bidder", "budget": 2000,  # tuned.first_at meant
                                                          "params": {"first_at": [4, 7]}}},
     "meta.search.params.first_at: unknown key 'first_at'; use tuned.<param>"),
])
def test_bad_meta_sections_name_the_key(meta, needle):
    with pytest.raises(ScenarioError) as e:
        mt.plan(scenario(meta=meta))
    assert needle in str(e.value)


FUB = {"scenario": {"name": "fsrch", "game": "fubnub", "games": 1, "seed": 3},
       "search": {**SMALL, "tuned": [0, 2], "field": "partner"}}


@pytest.mark.parametrize(("seats", "params", "needle"), [
    # an odd-only knob: every integer of [1, 15] was drawn, and 2 stopped the search mid-way
    (True, {"rules.point_cards": [1, 15]}, "search.params.rules.point_cards = [1, 15] draws rules.point_cards = 2, "
     "but it takes odd values only (int in [1, 15], odd); step through the odd values: { low = 1, high = 15, step = 2 }"),
    (True, {"rules.point_cards": {"low": 2, "high": 15, "step": 2}}, "{ low = 3, high = 15, step = 2 }"),
    (True, {"rules.point_cards": {"low": 1, "high": 15, "log": True}}, "rules.point_cards = 2"),
    # a switch (0 or 1): every value of the range, not only its ends
    (True, {"tuned.cheap": [0, 2]}, "search.params.tuned.cheap = [0, 2] draws seat0.cheap (policy 'tactician' "
     "parameter cheap) = 2, which is not allowed; allowed: 0 or 1; list the values to try instead: { values = [0, 1] }"),
    (True, {"tuned.cheap": [0.0, 1.0]}, "write the ends as integers: [0, 1]"),
    (True, {"c": {"keys": ["seat2.cheap"], "low": 0, "high": 2}}, "search.params.c = [0, 2] draws seat2.cheap"),
    (True, {"seats.cheap": [0, 2]}, "draws seat0.cheap (policy 'tactician' parameter cheap) = 2"),
    (True, {"rules.fub_dealer": [0, 1]}, "search.params.rules.fub_dealer = [0, 1] is a range of numbers, but "
     "rules.fub_dealer takes"),
    # a searched variant or policy: the ranges are checked against each listed variant and policy (the search
    # stopped at the first even point_cards drawn, after compiling)
    (True, {"variant": {"values": ["traditional", "battle_royal"]}, "rules.point_cards": [1, 15]},
     "search.params.rules.point_cards = [1, 15] draws rules.point_cards (variant traditional) = 2, but it takes "
     "odd values only"),
    (True, {"tuned.policy": {"values": ["partner", "tactician"]}, "tuned.cheap": [0, 2]},
     "search.params.tuned.cheap = [0, 2] draws seat0.cheap (policy 'tactician' parameter cheap) = 2"),
    # two parameters setting one key: the later silently overwrote the earlier
    (True, {"tuned.cheap": {"values": [0, 1]}, "c": {"keys": ["seat2.cheap"], "values": [0, 1]}},
     "search.params.tuned.cheap and search.params.c both set seat2.cheap; give each key to one parameter"),
    (True, {"seats.cheap": {"values": [0, 1]}, "c": {"keys": ["seat1.cheap"], "values": [0, 1]}},
     "search.params.seats.cheap and search.params.c both set seats.cheap"),
    # no [seats]: the typo ('None must be a policy name' once), or the seats the search needs
    (False, {"tuned.call_nede": [0, 5]}, "search.params.tuned.call_nede: no fubnub policy has a parameter "
     "'call_nede' (did you mean 'call_need'?), and the scenario has no [seats] section"),
    (False, {"seats.call_need": [0, 5]}, "search.params.seats.call_need: the scenario has no [seats] section"),
    (False, {"tuned.call_need": [0, 5]}, "search.params.tuned.call_need: the scenario has no [seats] section, so "
     "seat 0 plays the default 'partner' and the search has no policy to set 'call_need' on; name the tuned seats' "
     "policy in [seats], e.g. policy = \"tactician\""),
])
def test_search_space_is_checked_whole_at_load(seats, params, needle):
    raw = json.loads(json.dumps(FUB))
    raw["search"]["params"] = params
    if seats:
        raw["seats"] = {"policies": ["tactician", "partner", "tactician", "partner"]}
    with pytest.raises(ScenarioError) as e:
        from cardsim.studies import search as srch

        srch.plan(from_dict(raw))
    assert needle in str(e.value) and "\n" not in str(e.value) and "None" not in str(e.value)


def test_search_field_typo_and_rules_search_without_seats():
    from cardsim.studies import search as srch

    for seats in ({}, {"seats": {"policy": "tactician"}}):  # 'None must be a policy name' without [seats]
        raw = {**json.loads(json.dumps(FUB)), **seats}
        raw["search"].update(field="partnr", params={"tuned.call_need": [0, 5]} if seats else
                             {"rules.point_cards": {"low": 1, "high": 15, "step": 2}})
        with pytest.raises(ScenarioError, match=r"^search\.field: unknown policy 'partnr' for fubnub \(did you mean"):
            srch.plan(from_dict(raw))
        raw["search"].update(field={"name": "partner", "bogus": 1})  # a bad parameter: named at the field's key
        with pytest.raises(ScenarioError, match=r"^search\.field: policy 'partner' has no parameter 'bogus'"):
            srch.plan(from_dict(raw))
    raw = json.loads(json.dumps(FUB))  # rules searched, no [seats]: the tuned seats play the default policy
    raw["search"].update(budget=10**6, params={"rules.point_cards": {"low": 1, "high": 15, "step": 2}})
    p = srch.plan(from_dict(raw))
    assert [s.name for s in p.lineup({}).seatings[0].setup.seats] == ["partner"] * 4


def test_cli_search_space_refused_before_any_journal(tmp_path):
    raw = json.loads(json.dumps(FUB))
    raw["search"]["params"] = {"rules.point_cards": [1, 15]}
    raw["seats"] = {"policy": "partner"}
    p = tmp_path / "s.toml"
    p.write_text(to_toml(raw))
    runs = tmp_path / "runs"
    r = CliRunner().invoke(app, ["search", str(p), "--runs", str(runs)])
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: search.params.rules.point_cards = [1, 15]")
    assert not runs.exists() or not any(runs.iterdir())


def test_cli_search_error_is_one_line(tmp_path):
    raw = json.loads(json.dumps(BASE))
    raw["search"] = {"params": {"seat0.first_at": [4, 7]}}
    p = tmp_path / "s.toml"
    p.write_text(to_toml(raw))
    r = CliRunner().invoke(app, ["search", str(p)])
    assert r.exit_code == 2 and r.output.strip().startswith("error: missing key search.budget")


def test_second_search_on_a_busy_journal_is_refused(tmp_path):
    """A search holds its journal (flock) while it runs: a second one on the same journal would fail
    the first one's running trials, so it stops up front, in one line, exit code 2, and the journal
    is untouched; once the first is gone the search runs."""
    import fcntl

    from cardsim.studies import search as srch

    raw = json.loads(json.dumps(BASE))
    raw["search"] = {**SMALL, "params": {"seat0.first_at": [4, 7]}}
    p = tmp_path / "s.toml"
    p.write_text(to_toml(raw))
    journal = srch.folder_for(srch.plan(from_dict(raw)), tmp_path / "runs") / "journal.log"
    journal.parent.mkdir(parents=True)
    with open(journal.with_name("journal.log.owner"), "a+") as held:  # as a running search holds it
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        r = CliRunner().invoke(app, ["search", str(p), "--runs", str(tmp_path / "runs")])
        assert r.exit_code == 2, r.output
        line = r.output.strip()
        assert "\n" not in line and line.startswith("error: ") and "another cardsim search is working on this journal" in line
        assert not journal.exists()
    r = CliRunner().invoke(app, ["search", str(p), "--runs", str(tmp_path / "runs"), "--format", "json"])
    assert r.exit_code == 0, r.output
    assert journal.exists()


def test_search_resumes_past_the_lock_a_kill_left(tmp_path, capfd):
    """A kill -9 while Optuna held its journal lock leaves the lock behind; Optuna would wait 30 s and
    warn before breaking it. The search, which holds the journal itself, removes it at once."""
    from cardsim.studies import search as srch

    raw = json.loads(json.dumps(BASE))
    raw["search"] = {**SMALL, "params": {"seat0.first_at": [4, 7]}}
    journal = srch.folder_for(srch.plan(from_dict(raw)), tmp_path / "runs") / "journal.log"
    journal.parent.mkdir(parents=True)
    (journal.parent / "journal.log.lock").symlink_to(journal)
    api.search(from_dict(raw), runs=tmp_path / "runs", threads=2)
    assert "lock" not in capfd.readouterr().err
    assert not (journal.parent / "journal.log.lock").is_symlink()


@pytest.mark.parametrize("params, baseline", [
    ({"seat0.cost_base": {"values": [4, 8, 12]}, "seat0.first_at": [4, 7]}, {"cost_base": 9, "first_at": 5}),
    ({"rules.target": {"values": [20, 28]}}, {"rules": {"target": 24}}),
])
def test_baseline_outside_the_space_is_written_as_the_scenario_has_it(tmp_path, params, baseline):
    """The scenario's own value (cost_base 9, target 24) need not be in the space: the baseline is
    still the scenario as written, in the answer and the JSON (it used to stop with "parameter
    cost_base = None must be a number" whenever nothing beat it)."""
    raw = json.loads(json.dumps(BASE))
    raw["search"] = {**SMALL, "params": params}
    p = tmp_path / "s.toml"
    p.write_text(to_toml(raw))
    r = CliRunner().invoke(app, ["search", str(p), "--runs", str(tmp_path / "runs"), "--format", "json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert all(out["baseline"][k] == v for k, v in baseline.items())
    assert None not in out["best_params"].values()
    if out["best"] == out["baseline"]:  # nothing beat it: the answer names the scenario's values
        assert out["answer"].startswith("Nothing beat the baseline (")


def test_answer_counts_distinct_candidates_in_a_small_space():
    """Two values to try and a budget for dozens of trials: the sampler repeats itself, and the answer
    says how many of the candidates tried were distinct."""
    from cardsim.studies.search import headline

    res = api.search(scenario({**SMALL, "params": {"seat0.policy": {"values": ["random", "collector"]}}}),
                     runs=None, threads=2)
    assert res.trials.height > 2 and res.best.baseline
    assert f"({res.trials.height} candidates tried, 2 distinct)" in headline(res)


def test_baseline_of_the_every_seat_policy_key():
    """``policy`` (every seat's) has a baseline when every seat plays the same policy (it stopped with
    an IndexError before)."""
    from cardsim.studies import space

    prm = space.Param("policy", ("policy",), values=("random", "collector"))
    assert space.current(scenario(), prm) is None  # the bidder and three collectors
    same = json.loads(json.dumps(BASE))
    same["seats"] = {"policies": ["collector"] * 4}
    assert space.current(from_dict(same), prm) == "collector"


def test_cli_budget_below_the_least_is_refused_up_front(tmp_path):
    """SMALL's full race is 200 deals x 4 seatings = 800 games: the baseline's and one candidate's need
    1,600, so --budget 1000 is refused before a game is played, naming 1,600."""
    raw = json.loads(json.dumps(BASE))
    raw["search"] = {**SMALL, "params": {"seat0.first_at": [4, 7]}}
    p = tmp_path / "s.toml"
    p.write_text(to_toml(raw))
    r = CliRunner().invoke(app, ["search", str(p), "--budget", "1000", "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --budget 1,000 games is below the least a search "
                                                   "needs, 1,600 games")
    assert not list((tmp_path / "runs").glob("*/journal.log"))


def test_search_never_plays_more_than_its_budget(tmp_path):
    """The least budget (1,600) races exactly one candidate; a larger one stops before a batch could pass
    it; a first session's note never says its games were played in an earlier session, a second one
    (nothing left to play) does."""
    cfg = {**SMALL, "params": {"seat0.first_at": [4, 7], "seat0.cost_base": [4, 12]}}
    least = api.search(scenario({**cfg, "budget": 1600}), runs=tmp_path / "a", threads=2)
    assert least.trials.height == 1 and least.games <= 1600
    # its one trial is the baseline's own values (enqueued first): the answer says so, not "nothing beat it"
    assert srch_output(least).answer.startswith("No candidate other than the baseline was tried")
    assert "earlier session" not in " ".join(srch_output(least).notes)
    assert "Top trials" in dict(srch_output(least).tables)
    assert any(n.startswith("Top trials: the objective on the search deals") for n in srch_output(least).notes)
    for budget in (3000, 5100):
        res = api.search(scenario({**cfg, "budget": budget}), runs=None, threads=2)
        assert budget - 800 < res.games <= budget  # stops when no full race fits any more
    again = api.search(scenario({**cfg, "budget": 1600}), runs=tmp_path / "a", threads=2)
    assert again.games == least.games and "played in an earlier session" in " ".join(srch_output(again).notes)


def srch_output(res):
    from cardsim.studies import search as srch

    return srch.output(res)


def test_meta_games_below_the_minimum_is_refused(tmp_path):
    """`meta.deals` below 800 is refused (coverage falls below 95% there); so is `--games 100`."""
    raw = json.loads(json.dumps(BASE))
    raw["meta"] = {"strategies": ["collector", {"label": "tuned", "policy": TUNED}], "deals": 800}
    p = tmp_path / "m.toml"
    p.write_text(to_toml(raw))
    r = CliRunner().invoke(app, ["meta", str(p), "--games", "100", "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --games 100") and "800" in lines[0]


@pytest.mark.slow
def test_search_on_dask_gives_the_local_result():
    distributed = pytest.importorskip("distributed")
    from cardsim.dask_backend import DaskBackend

    cfg = {**SMALL, "params": {"seat0.first_at": [4, 7], "seat0.cost_base": [4, 12]}}
    local = api.search(scenario(cfg), runs=None, threads=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        be = DaskBackend(scheduler=c.scheduler_address)
        try:
            remote = api.search(scenario(cfg), runs=None, backend=be)
        finally:
            be.close()
    assert remote.best.values == local.best.values
    assert remote.trials.equals(local.trials)
    assert remote.gain["baseline"].mean == local.gain["baseline"].mean


def test_meta_cells_never_read_a_zero_width_interval():
    """A payoff cell where every deal gave the same share (a strategy that never wins, or the one
    winner of every mirror deal) has no spread to take a standard error from: it gets the
    Korn-Graubard interval at the number of deals, not the t interval's zero width. A cell of a few
    wins gets an interval skewed as a rare count is (Clopper-Pearson at its effective seat results),
    one of a common share about the t interval."""
    from cardsim.studies.evaluate import estimate, share_estimate

    never = share_estimate(np.zeros(2000))
    assert never.lo == 0.0 and 0.001 < never.hi < 0.003
    mirror = share_estimate(np.full(2000, 0.25))
    assert mirror.lo < 0.25 < mirror.hi and mirror.hi - mirror.lo > 0.02
    rare = share_estimate(np.r_[np.zeros(1990), np.full(10, 0.25)])  # 10 seat wins in 2,000 deals
    assert 0 < rare.lo < rare.mean < rare.hi
    assert rare.hi - rare.mean > 1.2 * (rare.mean - rare.lo)  # a rare win is skewed; a t interval is not
    common = np.random.default_rng(3).binomial(4, 0.25, 2000) / 4
    c, t = share_estimate(common), estimate(common)  # at a common share: about the t interval
    assert c.mean == t.mean and abs((c.hi - c.lo) / (t.hi - t.lo) - 1) < 0.05


def test_meta_exploitability_names_a_reply_only_when_it_gains():
    """Every other strategy is re-played against a strategy on held-out deals (simultaneous intervals):
    ``exploited_by`` names a reply only when its interval is above 0 (``none`` otherwise, the largest
    gain still given with its interval under ``best_reply``); the Nash mixture's row too, and the
    answer says which strategy gains, or that none does detectably, with the largest gain's interval."""
    from cardsim.studies.evaluate import Estimate

    def est(m, lo, hi):
        e = Estimate(m, 0.01, 800)
        e.lo, e.hi = lo, hi
        return e

    up, flat, down = est(0.05, 0.01, 0.09), est(0.01, -0.02, 0.04), est(-0.1, -0.14, -0.06)
    ex = mt.Exploit("a", up, True, {"a": up, "c": flat}, 2)
    assert ex.exploited_by == "a" and mt._exploit_row(ex)["best_reply"] == "a"
    assert mt._exploit_sentence(ex) == ("a gains +5.0 points against it on held-out deals (simultaneous 95% CI "
                                        "over the 2 strategies re-played: +1.0 to +9.0 points)")
    ex = mt.Exploit("c", flat, False, {"a": down, "c": flat}, 2)
    assert ex.exploited_by == "none" and mt._exploit_row(ex)["lo"] == -0.02
    assert mt._exploit_sentence(ex).startswith("on held-out deals no strategy of the population gains against it "
                                               "detectably (the largest gain, c's, +1.0 points; simultaneous 95% CI")
    ex = mt.Exploit("a", down, False, {"a": down}, 1)
    assert "every strategy of the population re-played against it does worse than it (the closest, a, -10.0 points; " \
           "95% CI: -14.0 to -6.0 points)" in mt._exploit_sentence(ex)


def test_meta_unexploited_strategy_has_no_measured_zero():
    """A population of one has no other strategy to re-play: its exploitability is empty (null in JSON,
    blank in the table), not a 0.0 without an interval."""
    from types import SimpleNamespace

    from cardsim.output import render

    res = SimpleNamespace(labels=["a", "b"], entries=["collector", "bidder"], mix=np.array([0.0, 1.0]),
                          alpharank=np.array([0.1, 0.9]), support=None, first=None,
                          exploit={"a": mt.Exploit("b", mt.gain_estimate(np.array([0.1, 0.2, 0.15, 0.12]), mt.GAIN_BOUNDS)),
                                   "b": mt.Exploit("none", None), "Nash mixture": mt.Exploit("none", None)})
    t = mt.strategies_table(res)
    assert t["exploitability"].dtype == t["lo"].dtype == t["hi"].dtype
    assert t.filter(t["strategy"] == "b")["exploitability"].to_list() == [None]
    assert t.filter(t["strategy"] == "a")["lo"].to_list()[0] is not None
    text = render(mt.Output("x", [("Strategies", t)], shares={"Strategies": ("exploitability", "lo", "hi")}), width=200)
    row = [ln for ln in text.splitlines() if ln.lstrip("│| ").startswith("b ")]
    assert len(row) == 1 and not re.search(r"(?<![\d.])0\.0%", row[0]), text
    assert json.loads(render(mt.Output("x", [("Strategies", t)]), "json"))


@pytest.mark.parametrize("strategies, says", [
    ([1, 2], r"meta.strategies\[0\] = 1 must be a policy name or a table"),  # an AttributeError traceback
    (["collector", {"label": "x", "policy": 3}], r"meta.strategies\[1\].policy = 3 must be a policy name"),
    (["collector", {"label": "x"}], r"meta.strategies\[1\] has a label but no policy"),
])
def test_meta_strategies_that_are_no_policy_are_one_line(strategies, says):
    with pytest.raises(ScenarioError, match=says):
        mt.plan(scenario(meta={"strategies": strategies}))


@pytest.mark.parametrize("storage, says", [
    ("{tmp}", "is a folder; give search.storage the journal's file path"),  # IsADirectoryError traceback
    ("/proc/cardsim-no-such/j.log", "cannot write the search journal there (No such file or directory)"),
    ("foo://bar", "search.storage = 'foo://bar': cannot open this database (Can't load plugin"),  # SQLAlchemy's
    ("postgresql://nobody@localhost:1/db", "cannot open this database"),  # no driver: Optuna's ImportError
])
def test_a_storage_that_cannot_be_opened_is_one_line(tmp_path, storage, says):
    s = scenario({**SMALL, "params": {"seat0.first_at": [4, 7]}, "storage": storage.format(tmp=tmp_path)})
    p = tmp_path / "s.toml"
    p.write_text(to_toml(dict(s.raw)))
    r = CliRunner().invoke(app, ["search", str(p), "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 2 and r.output.startswith("error: ") and says in r.output, r.output
    assert r.output.count("\n") == 1 and not isinstance(r.exception, (OSError, ImportError)), r.output


def test_meta_keeps_its_chunks_so_a_second_call_plays_nothing(tmp_path):
    """`cardsim report` after `cardsim meta` (or a call after Ctrl-C) played the whole payoff table
    again: the chunks were kept in memory only. Now they are kept under runs, read back whole, and a
    chunk file that does not read is played again."""
    s = scenario(meta={"strategies": ["collector", {"label": "tuned", "policy": TUNED}], "deals": 800,
                       "heldout": 800, "chunk": 400})
    runs = tmp_path / "runs"
    first = api.meta(s, runs=runs, threads=1)
    files = sorted((runs / f"{s.name}-meta-chunks").rglob("*.npz"))
    assert files and not list(runs.rglob("*.tmp"))
    assert any("the games' chunks are kept in" in n for n in first.notes)
    again = api.meta(s, runs=runs, threads=2)
    assert any(n.startswith("0 games played") for n in again.notes), again.notes
    assert any(f"{first.games:,} games read from the chunks" in n for n in again.notes), again.notes
    for res in (again, None):
        if res is None:  # a damaged file: its chunk is played again, the rest read
            files[0].write_bytes(b"not a chunk")
            files[1].write_bytes(files[1].read_bytes()[:50])
            res = api.meta(s, runs=runs, threads=1)
            assert any(n.startswith("800 games played") for n in res.notes), res.notes
        assert res.games == first.games and res.mix.tolist() == first.mix.tolist()
        assert res.table.equals(first.table) and res.alpharank.tolist() == first.alpharank.tolist()
        assert {k: (e.by, e.gain and e.gain.mean) for k, e in res.exploit.items()} == {
            k: (e.by, e.gain and e.gain.mean) for k, e in first.exploit.items()}
    assert api.meta(s, runs=None, threads=1).games == first.games  # no runs folder: nothing kept
    assert sorted((runs / f"{s.name}-meta-chunks").rglob("*.npz")) == files


def test_a_chunk_store_never_reads_another_seatings_or_plugins_chunk(tmp_path):
    from cardsim.studies.evaluate import Chunk, ChunkStore, setup_key

    s = scenario()
    store = ChunkStore(tmp_path)
    setup = s.setup
    path = store.path(setup_key(setup), setup, 7, 0, 3)
    ch = Chunk(np.zeros((3, 4)), np.ones(3), np.full(3, -1, np.int8), np.zeros(3, np.int8))
    store.save(path, ch)
    assert store.load(path, 3).length.tolist() == [1, 1, 1] and store.load(path, 4) is None
    assert store.path(setup_key(setup), setup, 8, 0, 3) != path
    other = from_dict({**json.loads(json.dumps(BASE)), "seats": {"policy": "collector"}}).setup
    assert ChunkStore(tmp_path).path(setup_key(other), other, 7, 0, 3).parent != path.parent


def test_closing_an_evaluator_drops_the_chunks_not_started():
    """Ctrl-C in a meta-game or a search waited for every queued chunk to be played (a minute and
    more) before the command could stop: closing now waits only for the chunks already playing."""
    from cardsim.studies import search as srch
    from cardsim.studies.evaluate import Evaluator, keys_for

    ev = Evaluator("fourbid", chunk=50, threads=2)
    lu = srch.plan(scenario({**SMALL, "params": {"seat0.first_at": [4, 7]}})).lineup({"seat0.first_at": 5})
    pending = ev.start([lu], keys_for(5)["heldout"], 0, 200 * 50)
    ev.close()
    futures = [f for f, _ in ev._inflight.values()]
    assert len(futures) == 200 * len(lu.seatings) and sum(not f.cancelled() for f in futures) <= 10
    assert pending.chunks and not any(f.running() for f in futures)


def test_ctrl_c_in_a_meta_game_keeps_its_chunks(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    from tests.test_ux import ENV, ROOT

    s = scenario(meta={"strategies": ["collector", {"label": "tuned", "policy": TUNED}], "deals": 100_000,
                       "heldout": 800, "chunk": 500})
    p = tmp_path / "m.toml"
    p.write_text(to_toml(json.loads(json.dumps(s.raw))))
    runs = tmp_path / "runs"
    proc = subprocess.Popen([sys.executable, "-m", "cardsim.cli", "meta", str(p), "--runs", str(runs), "--threads", "2"],
                            cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(list(runs.rglob("*.npz"))) < 4:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "Traceback" not in stderr and stdout == "", stderr
    assert stderr.strip().splitlines()[-1].startswith(
        f"interrupted: the meta-game keeps the games played in {runs / 'srch-meta-chunks'} and each finished batch")
    kept = list(runs.rglob("*.npz"))
    assert len(kept) >= 4 and not list(runs.rglob("*.tmp"))


def test_stability_names_a_clear_first_always_and_splits_a_tie():
    """meta's bootstrap over deals: a strategy that beats every other on every deal is first (and the
    whole Nash support) in every resample; two strategies tied on the table share the resamples."""
    from cardsim.studies import meta as mt

    deals = 400
    rng = np.random.default_rng(0)
    clear = {(0, 0): {0: np.full(deals, 0.5)}, (1, 1): {1: np.full(deals, 0.5)}, (2, 2): {2: np.full(deals, 0.5)},
             (0, 1): {0: np.ones(deals), 1: np.zeros(deals)}, (0, 2): {0: np.ones(deals), 2: np.zeros(deals)}}
    w = (rng.random(deals) < 0.5).astype(float)
    clear[(1, 2)] = {1: w, 2: 1 - w}
    support, first = mt.stability(clear, 3, 2, 50.0, 50, 50, seed=1)
    assert first.tolist() == [1.0, 0.0, 0.0] and support.tolist() == [1.0, 0.0, 0.0]
    even = np.tile([0.0, 1.0], deals // 2)  # 0 and 1 win half the deals each: a tie on the table
    tie = {**clear, (0, 1): {0: even, 1: 1 - even}, (0, 2): {0: np.ones(deals), 2: np.zeros(deals)},
           (1, 2): {1: np.ones(deals), 2: np.zeros(deals)}}
    support, first = mt.stability(tie, 3, 2, 50.0, 50, 200, seed=1)
    assert 0.2 < first[0] < 0.8 and first[0] + first[1] == 1.0 and first[2] == 0.0
    again = mt.stability(tie, 3, 2, 50.0, 50, 200, seed=1)
    assert again[1].tolist() == first.tolist()  # the seed's own stream: the same shares every call
    _, off = mt.stability(tie, 3, 2, 50.0, 50, 10, seed=1, solve_nash=False)
    assert off.sum() == 1.0


def test_the_bootstrap_calibration_games_have_the_truths_they_claim():
    """The coverage cases' simulated games: the cycle's Nash mixture is its three, the fourth out; the
    three-side game's true table gives each profile's deals to its seats (shares summing to 1) and
    ranks the strongest first; a sample of it averages to the table."""
    from cardsim.coverage import stability as cs
    from cardsim.studies import meta as mt

    for below in (0.05, 0.005):
        x = mt.nash(cs._means(cs._cycle(0.05, below)), 4, 2)
        assert np.allclose(x, [1 / 3, 1 / 3, 1 / 3, 0], atol=1e-9)
    assert mt.nash(cs._means(cs._truth(0.03, 0.005)), 4, 2).tolist() == [1.0, 0.0, 0.0, 0.0]
    st = np.array([0.3, 0.28, 0.1, 0.0])
    means = cs._many_means(st, 3)
    assert all(abs(sum(v * pr.count(i) for i, v in d.items()) - 1) < 1e-12 for pr, d in means.items())
    assert int(np.argmax(mt.alpharank(means, 4, 3))) == 0
    sample = cs._many_sample(st, 3, np.random.default_rng(0))
    assert max(abs(sample[pr][i].mean() - v) for pr, d in means.items() for i, v in d.items()) < 0.06


def test_meta_strategies_table_carries_the_bootstrap_shares():
    from cardsim.studies import meta as mt

    s = scenario(meta={"strategies": ["collector", {"label": "tuned", "policy": TUNED}], "deals": 800,
                       "heldout": 800, "chunk": 800, "bootstrap": 30})
    res = api.meta(s, runs=None, threads=2)
    st = mt.strategies_table(res)
    assert {"nash_support", "alpharank_first"} <= set(st.columns)
    assert abs(st["alpharank_first"].drop_nulls().sum() - 1.0) < 1e-12
    out = mt.output(res)
    assert out.fields["stability"]["resamples"] == 30
    assert out.fields["stability"]["alpharank_first"] == dict(zip(res.labels, res.first.tolist(), strict=True))
    assert any(n.startswith("the bootstrap (30 resamples of the deals") for n in out.notes)
    off = api.meta(from_dict({**s.raw, "meta": {**s.raw["meta"], "bootstrap": 0}}), runs=None, threads=2)
    assert off.first is None and "alpharank_first" not in mt.strategies_table(off).columns
    assert "stability" not in mt.output(off).fields and not any("bootstrap (" in n for n in mt.output(off).notes)


def test_a_budget_other_than_the_scenarios_gets_a_folder_of_its_own(tmp_path):
    """`cardsim search --budget N` went on from the journal of the scenario's budget (the folder's name
    did not depend on it) and could end elsewhere than a search given N from the start
    (fubnub_search.toml after --budget 300000: call_top 8, where a fresh search finds call_top 6)."""
    from dataclasses import replace

    from cardsim.studies import search as srch

    raw = json.loads(json.dumps(BASE))
    raw["search"] = {**SMALL, "params": {"seat0.first_at": [4, 7]}}
    p = srch.plan(from_dict(raw))
    folder = srch.folder_for(p, tmp_path)
    assert srch.folder_for(replace(p, budget=p.budget), tmp_path) == folder  # --budget as the scenario's
    other = srch.folder_for(replace(p, budget=p.budget * 2), tmp_path)
    assert other != folder and other == srch.folder_for(replace(p, budget=p.budget * 2), tmp_path)
    raw["search"]["budget"] = p.budget * 2  # the same search as that budget written in the scenario
    assert srch.folder_for(srch.plan(from_dict(raw)), tmp_path) == other


def test_meta_answer_never_says_within_the_margin_when_the_interval_reaches_past_it():
    """Best response stops when its gain is not above the margin with confidence; where its interval still
    reaches past the margin the answer said "not more than the margin with confidence", which reads as
    the opposite claim. It says "not detectably more" there, and "less than the margin" only below it."""
    from types import SimpleNamespace

    import numpy as np

    from cardsim.studies.evaluate import Estimate

    def res(lo, hi):
        g = Estimate(0.004, 0.002, 800)
        g.lo, g.hi = lo, hi
        none = mt.Exploit("a", g, False, {"a": g}, 1)
        return SimpleNamespace(
            mix=np.array([1.0, 0.0]), labels=["a", "b"], entries=["collector", "random"], alpharank=np.array([0.7, 0.3]),
            exploit={"Nash mixture": none}, first=None, plan=SimpleNamespace(labels=["a", "b"], margin=0.005, bootstrap=0),
            rounds=[mt.Round(1, {"a": 1.0}, {"name": "bidder"}, g, False, "br1")])

    wide = mt.headline(res(-0.001, 0.009))
    assert "not detectably more than the 0.5-point margin" in wide and "with confidence" not in wide
    assert "less than the margin with confidence." in mt.headline(res(-0.003, 0.004))


def test_importance_of_trials_that_all_score_alike_is_no_ranking(recwarn):
    """A rules search whose band no game reached scored every trial 0: Optuna warned on stderr "Parameter
    importances will be equal" and the Importance table ranked the parameters by equal figures."""
    from types import SimpleNamespace

    import optuna

    from cardsim.studies.search import _importance

    dists = {"a": optuna.distributions.FloatDistribution(0.0, 1.0),
             "b": optuna.distributions.FloatDistribution(0.0, 1.0)}
    trials = [optuna.trial.create_trial(params={"a": i / 12, "b": 1 - i / 12}, distributions=dists, value=0.0,
                                        intermediate_values={50: 0.0}) for i in range(12)]
    p = SimpleNamespace(rung=50, params=[object(), object()])
    assert _importance(p, trials).height == 0
    assert not [w for w in recwarn if "importances will be equal" in str(w.message)]
    varied = [optuna.trial.create_trial(params={"a": i / 12, "b": 1 - i / 12}, distributions=dists, value=i / 12,
                                        intermediate_values={50: i / 12}) for i in range(12)]
    assert set(_importance(p, varied)["param"]) == {"a", "b"}


def test_tuned_seats_of_opposing_teams_are_refused(tmp_path):
    """FUBNUB's team game with search.tuned = [0, 1]: the tuned policy played against itself (seats 0 and 1
    are on opposing teams), and the answer said "Best found against partner at every other seat"."""
    from cardsim import api
    from cardsim.studies import search as srch

    text = (ROOT / "scenarios" / "fubnub_search.toml").read_text()
    f = tmp_path / "s.toml"
    f.write_text(text.replace("tuned = [0, 2]", "tuned = [0, 1]").replace(
        'policies = ["tactician", "partner", "tactician", "partner"]',
        'policies = ["tactician", "tactician", "partner", "partner"]'))
    with pytest.raises(ScenarioError, match=re.escape("search.tuned = [0, 1]: seats of opposing teams (0+2, 1+3) "
                                                      "would play the tuned policy against itself; tune the seats "
                                                      "of one team (e.g. [0, 2])")):
        srch.plan(api.load(f))
    assert srch.plan(api.load(ROOT / "scenarios" / "fubnub_search.toml")).tuned == [0, 2]


def never_finishing(tmp_path, command: str, section: dict, says: str) -> tuple[dict, Path, str]:
    """``cardsim <command>`` of BASE with every game cut at the cap (one hand to reach 72 points) and its
    ``[command]`` section: one error line starting ``error: <says>``, exit 2; the scenario and the line."""
    raw = json.loads(json.dumps(BASE))
    raw["rules"].update(max_hands=1, target=72)
    raw[command] = section
    p = tmp_path / f"{command}.toml"
    p.write_text(to_toml(raw))
    r = CliRunner().invoke(app, [command, str(p), "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 2, r.output
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {says}"), r.output
    return raw, p, lines[0]


def test_meta_whose_games_never_finish_is_refused_in_one_line(tmp_path):
    """Every game cut at the cap (one hand to reach 72 points): the payoff table is all zeros, and the answer
    named a Nash mixture, an alpha-rank first and 'its win rate is 0.0%'."""
    never_finishing(tmp_path, "meta", {"strategies": ["collector", {"label": "tuned", "policy": TUNED}],
                                       "deals": 800, "chunk": 800}, "no game of the meta-game's payoff table finished")
    assert (tmp_path / "runs" / "srch-meta-chunks").is_dir()  # the games played are kept


def test_search_whose_games_never_finish_is_refused_in_one_line(tmp_path):
    """Every game cut at the cap (one hand to reach 72 points): every candidate scored 0, and the search named
    a "best" with a held-out win rate of 0.0% and a gain of +0.0 (an unfinished game is lost by all)."""
    raw, p, line = never_finishing(tmp_path, "search", {**SMALL, "budget": 2000, "params": {"seat0.first_at": [4, 7]}},
                                   "no game of the search finished")
    assert "raise the cap ([rules])" in line
    # a meta-game's best response (a plan given) is not refused: a response that gains nothing ends the meta-game
    from cardsim.studies import search as srch
    from cardsim.studies.evaluate import Evaluator

    s = api.load(p)
    res = srch.run(s, Evaluator("fourbid", chunk=100, threads=1), runs=None, plan_=srch.plan(s))
    assert res.best.heldout.mean == 0.0
    (journal,) = (tmp_path / "runs").glob("*/journal.log")  # the games played are kept
    assert journal.stat().st_size > 0
    # a rules search whose candidates reach the end is not refused: the cap is one of its points
    raw["search"]["params"] = {"rules.max_hands": [1, 60]}
    raw["seats"]["policies"] = ["collector"] * 4
    p.write_text(to_toml(raw))
    r = CliRunner().invoke(app, ["search", str(p), "--runs", str(tmp_path / "runs2")])
    assert r.exit_code == 0, r.output


def test_a_mirror_cell_reads_no_more_than_its_share_of_the_sides():
    """A mirror cell (every side the same strategy) gives a deal at most 1/k: 800 deals that all finished
    read 22.0-28.2% around 25%, past what any deal could give; read as shares of 1/k, 24.9-25.0%. A cell
    of two strategies keeps the unit scale; so does a value above the top a caller gave."""
    from cardsim.studies.evaluate import share_estimate
    from cardsim.studies.meta import mirror_top

    v = np.full(800, 0.25)
    e = share_estimate(v, mirror_top((1, 1, 1, 1), 4))
    assert e.mean == 0.25 and e.hi == 0.25 and 0.248 < e.lo < 0.25
    wide = share_estimate(v)
    assert wide.lo < 0.23 and wide.hi > 0.27  # the unit scale, as a cell of two strategies reads
    assert mirror_top((0, 1, 1, 1), 4) == 1.0
    some = np.where(np.arange(800) < 40, 0.0, 0.25)  # 40 deals cut at the cap: 23.75%
    e = share_estimate(some, 0.25)
    assert e.lo < 0.2375 < e.hi <= 0.25
    odd = share_estimate(np.full(10, 0.5), 0.25)  # above the top given: the unit scale
    assert odd.mean == 0.5 and odd.hi > 0.5


#: FUBNUB team 0 tuning call_need alone (6 values) against partner: a small space, a quick race
FUB_CALL = {"scenario": {"name": "fubcall", "game": "fubnub", "games": 1, "seed": 1},
            "seats": {"policies": ["tactician", "partner", "tactician", "partner"]},
            "search": {"tuned": [0, 2], "field": "partner", "budget": 20000, "rung": 100, "rungs": 2,
                       "heldout": 200, "chunk": 100, "params": {"tuned.call_need": [0, 5]}}}


def test_best_found_in_a_small_space_says_how_many_candidates_were_distinct():
    """The README: in a small space the sampler repeats itself, "and the answer says how many of the
    candidates tried were distinct". Only "Nothing beat the baseline" said it; a best found among 47
    trials of 6 values read as if 47 tactics had been tried."""
    from cardsim.studies.search import headline

    res = api.search(from_dict(json.loads(json.dumps(FUB_CALL))), runs=None, threads=2)
    distinct = res.trials.select("tuned.call_need").unique().height
    assert res.best.label.startswith("best") and distinct < res.trials.height
    assert headline(res).startswith(f"Best found against partner at every other seat: call_need "
                                    f"{res.best.values['tuned.call_need']} ({res.trials.height} candidates "
                                    f"tried, {distinct} distinct). On 200 held-out deals")


def test_a_teammate_left_to_the_field_is_not_said_to_be_played_against():
    """FUBNUB's team game with only seat 0 tuned: seat 2, its teammate, plays the field's policy, and the
    answer said "Best found against partner at every other seat", the teammate among those 'against'."""
    from cardsim.studies.search import headline

    cfg = json.loads(json.dumps(FUB_CALL))
    cfg["search"].update(tuned=[0], budget=4000)
    res = api.search(from_dict(cfg), runs=None, threads=2)
    assert headline(res).startswith("Best found with partner at every other seat (the focus seat's teammate, "
                                    "seat 2, among them): "), headline(res)


def test_baseline_alone_tried_names_a_neighbour_that_gains():
    """At the least budget only the baseline's own values are tried (call_need 2), and the one-step table
    shows call_need 3 gaining with its simultaneous interval above 0; the answer said only "raise the
    budget to try others", as if the baseline might be the best, where "Nothing beat the baseline" names
    such a step."""
    from cardsim.studies.search import headline

    raw = json.loads(json.dumps(FUB_CALL))
    raw["search"]["budget"] = 1600
    res = api.search(from_dict(raw), runs=None, threads=2)
    better = res.contrasts.filter(res.contrasts["lo"] > 0)
    assert res.trials.height == 1 and better.height == 1
    answer = headline(res)
    assert answer.startswith("No candidate other than the baseline was tried"), answer
    assert f"But moving call_need to {better['value'][0]} gains +" in answer, answer
    assert "the best found is not a local optimum" in answer


def test_meta_timing_note_says_only_what_this_call_did(tmp_path):
    """A meta-game without [meta.search] said "(best-response searches included)", and a second call that
    read every chunk back said "0 games played in 1 s (best-response searches included); playing games
    took 0% of the CPU time"."""
    s = from_dict({"scenario": {"name": "tmeta", "game": "turtle", "games": 1, "seed": 1},
                   "seats": {"policy": "eager"},
                   "meta": {"strategies": ["eager", "cunning"], "deals": 800, "heldout": 800, "bootstrap": 0}})
    runs = tmp_path / "runs"
    first = api.meta(s, runs=runs, threads=2)
    assert re.fullmatch(r"[\d,]+ games played in [\d,]+ s; playing games took \d+% of the CPU time",
                        first.notes[0]), first.notes
    again = api.meta(s, runs=runs, threads=2)
    assert re.fullmatch(r"0 games played in [\d,]+ s", again.notes[0]), again.notes


def test_search_of_one_step_and_one_candidate_is_singular(tmp_path):
    """A search of one switch at the least budget: one candidate and one one-step contrast; its table read
    "95% intervals that hold for all 1 steps at once" and its report "1 candidates in batches of 4"."""
    from cardsim import report as rep
    from cardsim.studies import search as srch

    raw = json.loads(json.dumps(FUB_CALL))
    raw["search"].update(budget=1600, params={"tuned.cheap": {"values": [0, 1]}})
    s = from_dict(raw)
    res = api.search(s, runs=None, threads=2)
    assert res.trials.height == 1 and res.contrasts.height == 1
    titles = [t for t, _ in srch.output(res).tables]
    assert any(t.endswith("95% intervals that hold for its one step)") for t in titles), titles
    text = (rep.build_study(s, "search", res).write(tmp_path / "rep") / "report.md").read_text()
    assert "1 candidate in batches of 4" in text and "1 candidates" not in text, text


@pytest.mark.parametrize("game, players, tuned, field, says", [
    ("fubnub", 4, [0, 2], ["partner"], "search.field lists 1 policy; the field has 2 seats (or give one policy"),
    ("turtle", 2, [0], ["eager", "eager"], "search.field lists 2 policies; the field has 1 seat (or give one policy"),
])
def test_field_of_the_wrong_length_is_worded_in_the_singular_too(game, players, tuned, field, says):
    """It said "search.field lists 1 policies" and "the field has 1 seats"."""
    from cardsim.studies import search as srch

    pol, param = ("tactician", "seat0.call_need") if game == "fubnub" else ("eager", "seat0.use_peek")
    s = from_dict({"scenario": {"name": "f", "game": game, "players": players, "games": 1},
                   "seats": {"policies": [pol] * players},
                   "search": {"budget": 20000, "tuned": tuned, "field": field, "params": {param: [0, 1]}}})
    with pytest.raises(ScenarioError, match=re.escape(says)):
        srch.plan(s)


def test_meta_alpharank_tie_names_no_first(tmp_path):
    """meta.alpha = 0 (allowed: [0, 10,000]) gives every strategy the same stationary mass, and the answer
    said "Alpha-rank puts eager first (50% of the stationary mass; first in 100% of 20 resamples of the
    deals)": argmax named the first listed, in the answer and in every resample."""
    s = from_dict({"scenario": {"name": "ties", "game": "turtle", "games": 1, "seed": 1},
                   "seats": {"policy": "eager"},
                   "meta": {"strategies": ["eager", "cunning"], "deals": 800, "heldout": 800, "bootstrap": 20,
                            "alpha": 0}})
    res = api.meta(s, runs=tmp_path / "runs", threads=2)
    assert res.first.tolist() == [0.5, 0.5]
    answer = mt.headline(res)
    assert ("Alpha-rank does not order eager and cunning: they share its first place (50% of the stationary mass "
            "each).") in answer, answer
    assert "puts eager first" not in answer


def test_best_found_says_when_the_runner_up_is_not_detectably_behind():
    """FUBNUB call_need: the best (call_need 3) won 62.5% of the held-out games and the runner-up (call_need 5)
    66.0%, best - runner-up -3.5 points (95% CI -10.2 to +3.2) in the gains table, and the answer named the
    best alone, as if the re-play had set it apart."""
    from cardsim.studies.search import _ci, _pts, describe, headline
    from cardsim.studies.search import output as search_output

    res = api.search(from_dict(json.loads(json.dumps(FUB_CALL))), runs=None, threads=2)
    g = res.gain["runner-up"]
    assert g.lo < 0 < g.hi, g
    assert (f" The runner-up ({describe(res.plan, res.runner_up.values)}) is not detectably behind it on the same "
            f"held-out deals (best - runner-up {_pts(res.plan, g.mean, lo=g.lo, hi=g.hi)}, 95% CI "
            f"{_ci(res.plan, g.lo, g.hi, diff=True)}).") in headline(res), headline(res)
    assert not res.runner_up.same_as_best  # it won other held-out games (66.0% against 62.5%)
    assert search_output(res).fields["heldout_runner_up"]["same_games"] is False
    # a runner-up that plays differently on the search deals only (the held-out results all the best's):
    # "not detectably behind" said nothing of why (fubnub_search's differed in swap_top and trust_pos)
    res.runner_up.same_as_best = True
    assert (f" The runner-up ({describe(res.plan, res.runner_up.values)}) gives every held-out deal the best's "
            f"result (best - runner-up ") in headline(res), headline(res)
    assert "changes no game there." in headline(res)


def test_meta_of_one_round_says_round(tmp_path):
    """One best-response round read "Iterated best response stopped after 1 round(s)" (or "Each of 1
    best-response round(s) found ...")."""
    s = from_dict({"scenario": {"name": "r1", "game": "turtle", "games": 1, "seed": 1},
                   "seats": {"policy": "eager"},
                   "meta": {"strategies": ["eager", "random"], "deals": 800, "heldout": 800, "bootstrap": 0,
                            "rounds": 1, "search": {"policy": "cunning", "budget": 5000, "rung": 50, "rungs": 1,
                                                    "heldout": 100, "params": {"tuned.use_peek": [0, 1]}}}})
    answer = mt.headline(api.meta(s, runs=tmp_path / "runs", threads=2))
    assert "round(s)" not in answer, answer
    assert " Iterated best response stopped after 1 round: " in answer or " The best-response round found " in answer


def test_a_pruned_runner_up_is_named_so(tmp_path):
    """A Turtle length search to a target of 30 turns re-played as runner-up a pruned candidate (no finisher
    played differently from the best): the Candidates table called it "runner-up" with a blank in_search, and
    the README said the runner-up was the best finisher."""
    from cardsim.studies import search as srch

    s = from_dict({"scenario": {"name": "tl", "game": "turtle", "variant": "full", "players": 4, "games": 1,
                                "seed": 21},
                   "seats": {"policy": "eager"},
                   "search": {"objective": "length", "goal": 30, "budget": 40000, "rung": 100, "eta": 3, "rungs": 2,
                              "heldout": 300, "chunk": 100,
                              "params": {"rules.p_perform": {"low": 0.0, "high": 1.0, "step": 0.25},
                                         "rules.restart_revives": {"values": [True, False]}}}})
    res = api.search(s, runs=None, threads=2)
    assert res.runner_up is not None and res.runner_up.label == "runner-up (pruned)"
    row = srch.heldout_table(res).filter(pl.col("candidate").str.starts_with("runner-up")).row(0, named=True)
    assert row["candidate"] == "runner-up (pruned)" and row["in_search"] is None


def test_search_whose_band_no_game_reaches_is_refused_after_play(tmp_path):
    """objective = "length_in" with a band past every game's length: every candidate scored 0, and the answer
    said "Nothing beat the baseline ... its share of games in the length band is 0.0%", as a win search in
    which no game finished once did (that one is refused; so is this, its journal kept)."""
    raw = json.loads(json.dumps(FUB_CALL))
    raw["search"].update(objective="length_in", band=[500, 600])
    f = tmp_path / "s.toml"
    f.write_text(to_toml(raw))
    r = CliRunner().invoke(app, ["search", str(f), "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    assert r.output.startswith("error: no game of the search lasted 500 to 600 hands (search.band), the baseline's "
                               "or any candidate's: every candidate scored 0"), r.output
    assert list((tmp_path / "runs").glob("*/journal.log"))
    raw["search"]["band"] = [10, 14]  # a band the games reach: searched as before
    f.write_text(to_toml(raw))
    assert CliRunner().invoke(app, ["search", str(f), "--runs", str(tmp_path / "runs")]).exit_code == 0


def test_a_storage_journal_of_another_search_names_search_storage(tmp_path):
    """search.storage naming a journal another search wrote was refused with "<runs>/<name>-search-<hash>: the
    journal belongs to another search (choose another runs folder)": the journal was search.storage's file,
    which another runs folder does not change."""
    journal = tmp_path / "j.log"
    raw = json.loads(json.dumps(FUB_CALL))
    raw["search"].update(budget=3000, storage=str(journal))
    f = tmp_path / "s.toml"
    f.write_text(to_toml(raw))
    assert CliRunner().invoke(app, ["search", str(f), "--runs", str(tmp_path / "runs")]).exit_code == 0
    raw["search"]["params"] = {"tuned.call_need": [1, 4]}  # another search
    f.write_text(to_toml(raw))
    r = CliRunner().invoke(app, ["search", str(f), "--runs", str(tmp_path / "other")])
    assert r.exit_code == 2 and r.output == (
        f"error: search.storage = '{journal}' holds another search's journal; give search.storage a journal of its "
        f"own (another file or database), or remove it to keep the journal in the search's run folder\n"), r.output


def test_search_without_contrasts_says_nothing_of_them():
    """search.contrasts = false: the notes said "(held-out re-play and contrasts included)" and "A one-step
    table's intervals hold for all its steps at once", of a table that was not there."""
    from cardsim import report as rep
    from cardsim.studies import search as srch

    raw = json.loads(json.dumps(FUB_CALL))
    raw["search"]["contrasts"] = False
    s = from_dict(raw)
    res = api.search(s, runs=None, threads=2)
    notes = " ".join(srch.output(res).notes)
    assert not res.contrasts.height and "contrasts included" not in notes and "one-step table" not in notes, notes
    assert "(held-out re-play included)" in notes
    assert "one-step table" not in rep.build_study(s, "search", res).intervals


def test_a_length_search_on_few_heldout_deals_prints_no_unmeasured_steps():
    """A length's one-step steps get max-T, whose coverage is measured from 250 held-out deals (on a win's
    mostly-zero gains it held 21.8% of the time at 10): below that the table is left out, and a note says why."""
    from cardsim.studies import search as srch

    cfg = {**SMALL, "params": {"seat0.first_at": [4, 7]}, "objective": "length", "goal": "max", "heldout": 100}
    res = api.search(scenario(cfg), runs=None, threads=2)
    assert res.contrasts.height == 0
    out = srch.output(res)
    assert any(n.startswith("No one-step table: a length's steps get max-T") and "search.heldout = 100" in n
               for n in out.notes), out.notes
    assert not any(t.startswith("One step from the best") for t, _ in out.tables)


def test_search_answer_keeps_each_end_of_a_difference_off_zero():
    """A one-step cost whose interval ends just below 0 read "round2_need 2 -> 1, 0.1 points (-0.2 to -0.0
    points)" (fubnub_search at --budget 300000): the README says a difference of shares in points keeps its
    ends off 0 ("-0.04 to +5.00", not "-0.0 to +5.0"), as the other answers do."""
    from types import SimpleNamespace

    from cardsim.studies import search as se

    p = SimpleNamespace(objective="win", params=[SimpleNamespace(name="tuned.round2_need"),
                                                 SimpleNamespace(name="tuned.cheap")])
    assert se._ci(p, -0.0021, -0.0004, diff=True) == "-0.21 to -0.04 points"
    assert se._pts(p, -0.0012, lo=-0.0021, hi=-0.0004) == "-0.12 points"
    assert se._ci(p, -0.0004, 0.05, diff=True) == "-0.04 to +5.00 points"
    assert se._ci(p, 0.127, 0.140, diff=True) == "+12.7 to +14.0 points"  # far from 0: one decimal, as before
    contrasts = pl.DataFrame({"param": ["tuned.round2_need", "tuned.cheap"], "value": ["1", "0"],
                              "gain": [-0.0012, -0.073], "lo": [-0.0021, -0.078], "hi": [-0.0004, -0.068],
                              "same_games": [False, False]})
    res = SimpleNamespace(plan=p, contrasts=contrasts, best=SimpleNamespace(values={"tuned.round2_need": 2,
                                                                                    "tuned.cheap": 1}))
    text = se._steps_sentence(res)
    assert "round2_need 2 -> 1, 0.12 points (-0.21 to -0.04 points)" in text and "-0.0 " not in text
    assert "cheap 1 -> 0, 7.3 points (-7.8 to -6.8 points)" in text
