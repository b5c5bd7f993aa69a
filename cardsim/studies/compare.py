"""Paired comparisons on the same deals (issue 7), duplicate-bridge style.

Every arm (a set of seat policies, parameters or rule knobs) plays the
same games: the deals of game ``g`` depend only on the seed and ``g``
(:mod:`cardsim.rng`). With ``rotate``, each arm is played once per
rotation of its seat list, so the compared policy sits at every seat of
every deal; the per-game value of an arm is the mean of the *focus* seat's
result over the rotations. Differences are taken game by game, and their
interval comes from the per-game differences (the paired interval); the
standard error separate deals would have given (``se_unpaired``) is reported
beside it, with the share of variance that pairing removed.

``[compare]`` keys: ``arms`` (a list of tables with ``name`` and optional
``policies``, ``rules``), ``focus`` (seat, default 0), ``rotate`` (default
true), ``metric`` (``win`` or ``length``), ``decide`` (stop once the sign
of every difference is known, anytime-valid) and ``alpha`` (default 0.05).
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from cardsim import scenario as sc
from cardsim.errors import ScenarioError, allowed_list, did_you_mean
from cardsim.metrics import length_is_count
from cardsim.output import Output
from cardsim.report.numbers import finite, many, num, num_ci, pct, pct_ci, share_digits, side_digits
from cardsim.sequential import eb_sequence
from cardsim.stats import SAVED_MIN_DEALS, UNBOUNDED, holm, mean_ci, paired_difference, pairing_saved
from cardsim.studies import derive

ARM_KEYS = ("name", "policies", "rules")


@dataclass(frozen=True)
class Plan:
    base: sc.Scenario
    arms: list[str]
    runs: dict[str, list[sc.Scenario]]  # arm -> one scenario per rotation
    focus: int
    metric: str
    decide: bool
    alpha: float


def plan(base: sc.Scenario) -> Plan:
    """Validate ``[compare]`` and derive one scenario per (arm, rotation)."""
    cfg = base.raw.get("compare")
    if not cfg:
        raise derive.no_section(base, "compare", "arms to compare")
    arms = cfg.get("arms")
    if not isinstance(arms, list) or len(arms) < 2:
        raise ScenarioError("compare.arms must list at least two arms, e.g. [{name = \"a\"}, {name = \"b\", rules = {...}}]")
    players = base.setup.players
    focus = cfg.get("focus", 0)
    if isinstance(focus, bool) or not isinstance(focus, int) or not 0 <= focus < players:
        raise ScenarioError(f"compare.focus = {focus!r} must be a seat 0-{players - 1}")
    metric = cfg.get("metric", "win")
    if metric not in ("win", "length"):
        raise ScenarioError(f"compare.metric = {metric!r}; allowed: win, length")
    rotate = cfg.get("rotate", True)
    decide = cfg.get("decide", False)
    alpha = cfg.get("alpha", 0.05)
    for k, v in (("rotate", rotate), ("decide", decide)):
        if not isinstance(v, bool):
            raise ScenarioError(f"compare.{k} = {v!r} must be true or false")
    if isinstance(alpha, bool) or not isinstance(alpha, float | int) or not 0 < alpha < 0.5:
        raise ScenarioError(f"compare.alpha = {alpha!r} must be in (0, 0.5)")
    names: list[str] = []
    runs: dict[str, list[sc.Scenario]] = {}
    for i, arm in enumerate(arms):
        where = f"compare.arms[{i}]"
        if not isinstance(arm, Mapping) or not isinstance(arm.get("name"), str) or not arm["name"].strip():
            raise ScenarioError(f"{where} must be a table with a non-empty string 'name', e.g. {{name = \"a\"}}")
        for k in arm:
            if k not in ARM_KEYS:
                raise ScenarioError(f"{where}: unknown key {k!r}{did_you_mean(k, ARM_KEYS)}; allowed: {allowed_list(ARM_KEYS)}")
        name = arm["name"]
        if name in runs:
            raise ScenarioError(f"{where}: arm name {name!r} is used twice")
        raw = derive.base_raw(base)
        policies = arm.get("policies", derive.seat_list(raw, players))
        if not isinstance(policies, list) or len(policies) != players:
            raise ScenarioError(f"{where}.policies must list {players} seat policies")
        rules = arm.get("rules", {})
        if not isinstance(rules, Mapping):
            raise ScenarioError(f"{where}.rules must be a table of knobs")
        rotations = range(players) if rotate else range(1)
        runs[name] = []
        # a rotation that leaves the seat list as it was (every seat the same policy; or A, B, A, B turned by
        # two) plays the same games: it is the earlier rotation's scenario, played once
        seen: dict[str, sc.Scenario] = {}
        for r in rotations:
            order = derive.rotate(list(policies), r)
            same = json.dumps(order, sort_keys=True, default=str)
            if same in seen:
                runs[name].append(seen[same])
                continue
            rr = derive.base_raw(base)
            rr["rules"].update(rules)
            derive.set_policies(rr, order)
            try:
                seen[same] = derive.build(base, rr, f"{base.name}-{name}-r{r}")
            except ScenarioError as exc:  # named by the arm that sets it: the base scenario validated
                raise ScenarioError(f"{where} ({name!r}): {exc}") from None
            runs[name].append(seen[same])
        names.append(name)
    return Plan(base, names, runs, focus, metric, decide, float(alpha))


def _values(results: list[Any], focus: int, metric: str, players: int) -> np.ndarray:
    """Per-game value of an arm: the focus seat's result, averaged over rotations."""
    cols = []
    for r, res in enumerate(results):
        seat = (focus + r) % players
        out = res.outcomes().filter(pl.col("seat") == seat).sort("game").collect()
        col = "win" if metric == "win" else "length"
        cols.append(out[col].cast(pl.Float64).fill_null(np.nan).to_numpy())
    if metric != "win":
        return np.mean(np.vstack(cols), axis=0)
    with warnings.catch_warnings():  # a game unfinished in every rotation stays NaN: no warning for it
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(np.vstack(cols), axis=0)


@dataclass
class CompareResult:
    plan: Plan
    games: int
    arms: pl.DataFrame    # per arm: n, mean, se, lo, hi
    diffs: pl.DataFrame   # per arm vs the first: diff, paired interval, se_unpaired, variance saved
    stopped: str = ""
    decided: bool = False  # the decision rule (not the cap) stopped the run


def summarize(p: Plan, values: dict[str, np.ndarray], sequential: bool = False) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per arm: the focus seat's mean with its interval; per arm against the first: the paired
    difference (games as pairs), the standard error separate deals would have given (``se_unpaired``:
    a measure of what pairing saved, not an interval for this difference), the variance pairing saved
    and a Holm-adjusted p-value across the differences. ``sequential`` adds the anytime-valid
    confidence sequence (``cs_lo``, ``cs_hi``) of each difference (win metric only)."""
    rows, drows = [], []
    base_name = p.arms[0]
    # a focus seat's win share lies in [0, 1] (a difference of two in [-1, 1]); a length has no upper bound
    win = p.metric == "win"
    arm_bounds, diff_bounds = ((0.0, 1.0), (-1.0, 1.0)) if win else ((0.0, math.inf), UNBOUNDED)
    ok = np.all(np.vstack([np.isfinite(v) for v in values.values()]), axis=0)
    for name in p.arms:
        # a length is a count (its interval never zero width) unless the arm's rules fix it
        runs = [r for r in p.runs.get(name, ()) if r is not None]
        fixed = bool(runs) and not any(map(length_is_count, runs))
        count = not win and not fixed
        e = mean_ci(values[name][ok], bounds=arm_bounds, count=count)
        rows.append({"arm": name, "n": e.n, "mean": e.value, "se": e.se, "lo": e.lo, "hi": e.hi})
        if sequential and win:
            cs = eb_sequence(values[name][ok], alpha=p.alpha, lo=0.0, hi=1.0)
            rows[-1] |= {"cs_lo": cs.lo, "cs_hi": cs.hi}
    a = values[base_name][ok]
    for name in p.arms[1:]:
        b = values[name][ok]
        e = paired_difference(a, b, bounds=diff_bounds)
        n = e.n
        # the standard error n separate deals per arm would have given (each arm's own spread): what
        # pairing is measured against, not an interval for this difference. An interval from it around
        # this difference (printed until now as lo_unpaired / hi_unpaired) ignores the arms' correlation
        # on the same deals: where it is negative (variance_saved < 0) it is narrower than the truth
        se_u = math.sqrt(a.var(ddof=1) / n + b.var(ddof=1) / n) if n > 1 else math.nan
        saved = pairing_saved(a, b)  # 1 - (se_paired / se_unpaired)^2, with its interval from 100 deals
        row = {"arm": name, "vs": base_name, "n": n, "diff": e.value, "se_paired": e.se,
               "lo": e.lo, "hi": e.hi, "p": e.p, "se_unpaired": se_u,
               "variance_saved": saved.value, "variance_saved_lo": saved.lo, "variance_saved_hi": saved.hi}
        if sequential and p.metric == "win":
            cs = eb_sequence(b - a, alpha=p.alpha, lo=-1.0, hi=1.0)
            row |= {"cs_lo": cs.lo, "cs_hi": cs.hi}
        drows.append(row)
    diffs = pl.DataFrame(drows)
    if diffs.height:
        diffs = diffs.with_columns(p_holm=pl.Series(holm(diffs["p"].to_numpy())))
    return pl.DataFrame(rows), diffs


def run(base: sc.Scenario, runner: Callable[[sc.Scenario], Any], games: int | None = None,
        batch: int | None = None) -> CompareResult:
    """Play every arm and rotation (``runner(scenario) -> Result``) and compare them.

    In decision mode the arms advance together ``batch`` games at a time, and the run
    stops as soon as the anytime-valid sequence of every difference excludes zero
    (or at ``games``): the chance of declaring a wrong sign is at most alpha / 2 per
    difference, however many looks are taken.
    """
    p = plan(base)
    total = base.games if games is None else games
    players = base.setup.players

    def play_all(n: int) -> dict[str, list[Any]]:
        """Each arm's rotations played to ``n`` games; a rotation that is an earlier one's scenario is played once."""
        done: dict[int, Any] = {}
        for a in p.arms:
            for s in p.runs[a]:
                if id(s) not in done:
                    done[id(s)] = runner(s.with_options(games=n))
        return {a: [done[id(s)] for s in p.runs[a]] for a in p.arms}

    if not p.decide:
        results = play_all(total)
        values = {a: _values(results[a], p.focus, p.metric, players) for a in p.arms}
        arms, diffs = summarize(p, values)
        return CompareResult(p, total, arms, diffs)
    if p.metric != "win":
        raise ScenarioError("compare.decide needs metric = \"win\" (a bounded value)")
    step = batch or base.chunk
    n = 0
    while True:
        n = min(total, n + step)
        results = play_all(n)
        values = {a: _values(results[a], p.focus, p.metric, players) for a in p.arms}
        arms, diffs = summarize(p, values, sequential=True)
        decided = ((diffs["cs_lo"] > 0) | (diffs["cs_hi"] < 0)).all()
        if decided or n >= total:
            # after a data-dependent stop only the anytime-valid sequences keep their coverage: they become
            # the intervals (lo, hi) of the arms and the differences; the fixed-n intervals are kept for
            # reference under their own names, the fixed-n p-values dropped
            arms = _sequence_first(arms, {"lo": "lo_fixed_n", "hi": "hi_fixed_n"})
            diffs = _sequence_first(diffs.drop("p", "p_holm"), {"lo": "lo_fixed_n", "hi": "hi_fixed_n"})
            ruled = bool(decided) and (n < total or n % step == 0)  # the rule, not the cap, ended the run
            why = (f"The decision rule stopped the run after {n:,} deals: every difference's anytime-valid "
                   f"{level(p)} confidence sequence excludes 0 (looks every {step:,} deals; the "
                   f"chance of a wrong sign is at most {p.alpha / 2:g} per difference however many looks). lo and hi "
                   "are that sequence (the arms' too); the *_fixed_n columns, fixed-n intervals, do not hold after such "
                   "a stop."
                   if ruled else
                   f"Stopped at the cap of {many(total, 'deal')} before the decision rule's first look (it looks every "
                   f"{step:,} deals): no decision was taken. lo and hi are the anytime-valid confidence sequence at "
                   f"the cap ({'it excludes 0 for every difference' if decided else 'some difference still contains 0'})."
                   if total < step else
                   f"Undecided at the cap of {many(total, 'deal')}: some difference's anytime-valid confidence sequence "
                   "still contains 0 (lo and hi are that sequence)."
                   if not decided else
                   f"Stopped at the cap of {many(total, 'deal')}, where every difference's anytime-valid confidence sequence "
                   f"excludes 0 (the last look before it, every {step:,} deals, did not yet; lo and hi are that "
                   "sequence).")
            return CompareResult(p, n, arms, diffs, why, decided=ruled)


def _sequence_first(frame: pl.DataFrame, fixed: dict[str, str]) -> pl.DataFrame:
    """``frame`` with its fixed-n bounds renamed (``fixed``) and the confidence sequence (``cs_lo``,
    ``cs_hi``) as ``lo`` / ``hi`` where the fixed-n bounds were, the renamed ones right after them."""
    out = frame.rename(fixed).rename({"cs_lo": "lo", "cs_hi": "hi"})
    order = []
    for c in frame.columns:
        if c == "lo":
            order += ["lo", "hi", "lo_fixed_n", "hi_fixed_n"]
        elif c not in ("hi", "cs_lo", "cs_hi"):
            order.append(fixed.get(c, c))
    return out.select(order)


#: what a game's length counts
LENGTH_UNITS = {"fubnub": "hands", "fourbid": "hands", "turtle": "turns", "gubs": "turns"}


def level(p: Plan) -> str:
    """The level of the intervals a comparison prints: 95% (fixed-n), or with ``decide`` its confidence
    sequences' 1 - compare.alpha (alpha = 0.2: 80%, which the labels once called 95%)."""
    return f"{100 * (1 - p.alpha):g}%" if p.decide else "95%"


def describe(res: CompareResult, row: dict) -> str:
    """One difference in plain words, with units and its interval. A verb that carries the sign
    ("shortens", "wins ... more often") only where the interval excludes 0; otherwise "no detectable
    difference" and the signed estimate. With several differences a sign the interval shows but
    Holm's adjustment over them does not is said to be so."""
    arms = {r["arm"]: r for r in res.arms.iter_rows(named=True)}
    a, b = arms[row["vs"]], arms[row["arm"]]
    kind = f"anytime-valid {level(res.plan)} CI" if res.plan.decide else "95% CI"
    known = row["lo"] > 0 or row["hi"] < 0  # the interval shows the sign
    holm = ""
    if known and res.diffs.height > 1 and row.get("p_holm") is not None and row["p_holm"] >= 0.05:
        holm = f"; not beyond chance once the {res.diffs.height} differences are adjusted, Holm p {row['p_holm']:.2g}"
    if res.plan.metric == "length":
        unit = LENGTH_UNITS.get(res.plan.base.game, "turns")
        arms_ = f"{mean_text(a['mean'], a['lo'], a['hi'])} -> {mean_text(b['mean'], b['lo'], b['hi'])} {unit}"
        d = span_digits(row["lo"], row["hi"], 1, 0.0)
        ci = span(row["lo"], row["hi"], 1, unit, signed=not known, n=row["n"])
        if known:
            verb = "shortens" if row["diff"] < 0 else "lengthens"
            head = f"'{row['arm']}' {verb} games by {abs(row['diff']):.{d}f} {unit} against '{row['vs']}'"
        else:
            head = (f"'{row['arm']}' against '{row['vs']}': no detectable difference in length, "
                    f"{row['diff']:+.{d}f} {unit}")
        return f"{head} ({arms_}; the difference's {kind} {ci}{holm})"
    d = span_digits(row["lo"], row["hi"], 100, 0.0)
    ci = span(row["lo"], row["hi"], 100, "points", signed=not known, n=row["n"])
    if known:
        more = "more" if row["diff"] >= 0 else "less"
        head = f"'{row['arm']}' wins {100 * abs(row['diff']):.{d}f} points {more} often than '{row['vs']}'"
    else:
        head = (f"'{row['arm']}' against '{row['vs']}': no detectable difference in wins, "
                f"{100 * row['diff']:+.{d}f} points")
    return (f"{head} ({mean_text(a['mean'], a['lo'], a['hi'], share=True)} -> "
            f"{mean_text(b['mean'], b['lo'], b['hi'], share=True)} of games for the focus seat; the difference's "
            f"{kind} {ci}{holm})")


def mean_text(mean: float, lo: float, hi: float, share: bool = False) -> str:
    """An arm's mean with its own interval in brackets, to one decimal: ``84.5% (84.1-84.9%)`` for a
    ``share``, ``43.5 (43.2-43.8)`` otherwise (more where the ends would print alike: :func:`span_digits`);
    the mean alone where it has no interval; ``7.5 (0.0 to unbounded)`` where it has no upper end (a
    count's interval from 2 or 3 games: Garwood's at a tiny effective count), once printed as the mean
    alone, as if it had no interval."""
    if not share and finite(lo) and hi == math.inf:
        return f"{num(mean, 1)} ({num(lo, 1)} to unbounded)"
    if not (finite(lo) and finite(hi)):
        return pct(mean) if share else num(mean, 1)
    return pct_ci(mean, lo, hi, label="") if share else num_ci(mean, lo, hi, decimals=span_digits(lo, hi, 1),
                                                               label="")


def span_digits(lo: float, hi: float, scale: float, ref: float | None = None) -> int:
    """Decimals of an interval's ends ``scale * lo``, ``scale * hi`` (a difference of shares in points at
    scale 100, a length at 1): one, or where one would print the ends alike at a very large number of
    deals, the decimals the half-width justifies (:func:`cardsim.report.numbers.share_digits`): "+0.30
    points (95% CI +0.27 to +0.33)", not "+0.3 points (95% CI +0.3 to +0.3)"; with ``ref`` (0 for a
    difference) those that keep each end on its side of it: "-0.04 to +5.00", not "-0.0 to +5.0"."""
    d = share_digits([scale * lo / 100], [scale * hi / 100])
    return d if ref is None else side_digits(scale * lo / 100, scale * hi / 100, ref, d)


def span(lo: float, hi: float, scale: float, unit: str, signed: bool = False, n: int = 0, what: str = "deals",
         digits: int | None = None) -> str:
    """An interval of a difference as words read it: after a verb that carries the sign ("shortens
    by 8.0"), the size range when the sign is known ("7.4-8.6 turns"), signed ends when it is not
    ("-0.5 to +1.1 points"); after a signed number (``signed``), signed ends always. None is said
    with its reason: fewer than 2 of ``what``, or (``n`` of them) every one gave the same difference
    of a value with no bound (:func:`cardsim.stats.mean_ci`). ``digits``: the decimals, by default one or
    what the interval's width needs (:func:`span_digits`)."""
    d = span_digits(lo, hi, scale, 0.0) if digits is None else digits
    lo, hi = scale * lo, scale * hi
    if not (math.isfinite(lo) and math.isfinite(hi)):
        if n >= 2:
            return f"none: each of the {n:,} {what} gave the same difference, so they show no spread to measure"
        return f"none: an interval needs at least 2 {what}"
    if not signed and (lo > 0 or hi < 0):
        a, b = sorted((abs(lo), abs(hi)))
        return f"{a:.{d}f}-{b:.{d}f} {unit}"
    return f"{lo:+.{d}f} to {hi:+.{d}f} {unit}"


def headline(res: CompareResult) -> str:
    if res.plan.metric == "win" and res.diffs.height and not any(res.diffs["n"].to_list()):
        # an unfinished game has no winner, so a deal counts only where every arm finished it
        return (f"The arms cannot be compared: not one of the {res.games:,} deals finished in every arm (an "
                "unfinished game has no winner, and an arm whose rules cut every game at a cap finishes none). "
                "Raise that arm's cap (rules.max_hands, rules.max_turns or rules.turn_cap).")
    parts = [describe(res, row) for row in res.diffs.iter_rows(named=True)]
    rot = len(res.plan.runs[res.plan.arms[0]])
    where = f"the same {many(res.games, 'deal')}" + (f" in each of {rot} seat rotations" if rot > 1 else "")
    stop = " The decision rule stopped the run." if res.decided else ""
    several = (f" Each interval holds for its own difference; the table's p_holm adjusts for the "
               f"{res.diffs.height} of them." if res.diffs.height > 1 and not res.plan.decide else "")
    return f"On {where}: " + "; ".join(parts) + "." + stop + several


def output(res: CompareResult) -> Output:
    """What ``cardsim compare`` prints."""
    kind = "anytime-valid" if res.plan.decide else "paired"
    holm_p = "" if res.plan.decide else ", Holm-adjusted p"
    arms = f"Arms (focus seat's mean, {'anytime-valid ' if res.plan.decide else ''}{level(res.plan)} interval)"
    diffs = (f"Differences vs the first arm: {kind} {level(res.plan)} intervals{holm_p}; se_unpaired: the standard error "
             f"separate deals would have given (not an interval for this difference), variance_saved: the share of "
             f"that variance pairing removed (negative: pairing cost precision), with its 95% interval (given from "
             f"{SAVED_MIN_DEALS} deals on)")
    shares = {}
    if res.plan.metric == "win":  # a win share and its differences: percentages on the terminal
        shares = {arms: ("mean", "se", "lo", "hi", "lo_fixed_n", "hi_fixed_n"),
                  diffs: ("diff", "se_paired", "lo", "hi", "se_unpaired", "cs_lo", "cs_hi", "lo_fixed_n",
                          "hi_fixed_n")}
    return Output(headline(res), [(arms, res.arms), (diffs, res.diffs)],
                  notes=([res.stopped] if res.stopped else []) + [multiplicity(res)], shares=shares)


def multiplicity(res: CompareResult) -> str:
    """How a comparison's intervals handle multiplicity (under its tables, and as its report's Intervals
    paragraph, :func:`intervals`): each arm's
    and each difference's interval is for its own row; with several differences, Holm's adjustment of their
    p-values, which the answer reads; in decision mode, a confidence sequence per difference, none across."""
    k = res.diffs.height
    if res.plan.decide:
        return (f"Each arm's and each difference's lo/hi is an anytime-valid {level(res.plan)} confidence sequence "
                "for its own row, valid at every look: the chance of a wrong sign is at most "
                f"{res.plan.alpha / 2:g} per difference"
                + (f", not adjusted across the {k} differences." if k > 1 else "."))
    own = ("Each arm's interval and each difference's is a 95% interval for its own row (pointwise): the arms' "
           "highest and lowest rows are not findings on their own, and the differences are the comparison.")
    if k > 1:
        own += (f" p_holm adjusts the {k} differences' p-values (Holm); the answer says where a sign an interval "
                "shows is not beyond chance once adjusted.")
    return own


def intervals(res: CompareResult) -> str:
    """The report's Intervals paragraph: :func:`multiplicity`."""
    return multiplicity(res)
