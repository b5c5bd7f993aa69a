"""Report sections of the studies: each renders what a study returns (no study imports the report)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import polars as pl

from cardsim.report import Section
from cardsim.report import figures as F
from cardsim.report import numbers as N
from cardsim.stats import SAVED_MIN_DEALS
from cardsim.studies.compare import level
from cardsim.studies.sweep import metric_columns, metric_words

if TYPE_CHECKING:
    from cardsim.studies.cards import CardsResult
    from cardsim.studies.compare import CompareResult
    from cardsim.studies.rate import RatingResult
    from cardsim.studies.sweep import SweepResult


def _scaled(frame: pl.DataFrame, keep: set[str]) -> pl.DataFrame:
    """Every float column but ``keep`` times 100: shares and their differences as percentages and
    percentage points, as the answer gives them."""
    return frame.with_columns(*(pl.col(c) * 100 for c, t in frame.schema.items() if t.is_float() and c not in keep))


def compare_section(res: CompareResult) -> Section:
    d = res.diffs
    win = res.plan.metric == "win"
    scale = 100.0 if win else 1.0
    what = "win rate (percentage points)" if win else res.plan.metric
    kind = f"anytime-valid {level(res.plan)} confidence sequence" if res.plan.decide else "paired 95% intervals"
    fig = F.forest([f"{a} - {b}" for a, b in zip(d["arm"], d["vs"], strict=True)], (d["diff"] * scale).to_list(),
                   (d["lo"] * scale).to_list(), (d["hi"] * scale).to_list(), f"Paired differences ({kind})",
                   f"difference in the focus seat's {what}")
    arms = F.rate_bars(res.arms.rename({"mean": "rate"}), "arm", "Focus seat's win rate by arm",
                       "arm", ylabel=f"win rate ({level(res.plan)} interval)") if win else None
    sec = Section("Paired comparison",
                  text=(f"Every arm played the same {res.games:,} deals"
                        + (f" in each of {len(res.plan.runs[res.plan.arms[0]])} seat rotations" if
                           len(res.plan.runs[res.plan.arms[0]]) > 1 else "")
                        + f"; the focus is seat {res.plan.focus}'s {res.plan.metric}. " + res.stopped))
    sec.figures.append((f"Paired differences against the first arm ({kind})", F.png_bytes(fig)))
    if arms is not None:
        sec.figures.append(("Focus seat's win rate by arm", F.png_bytes(arms)))
    arms_t, diffs_t, unit = res.arms, res.diffs, ""
    if win:
        arms_t = _scaled(res.arms, set())
        diffs_t = _scaled(res.diffs, {"p", "p_holm", "variance_saved", "variance_saved_lo", "variance_saved_hi"})
        unit = " in percentage points"
    sec.tables += [("Arms" + (" (the focus seat's win rate, %)" if win else ""), arms_t),
                   (f"Differences{unit} ({f'anytime-valid {level(res.plan)} sequences' if res.plan.decide else 'paired 95% intervals'}; p_holm: Holm-adjusted across the differences; "
                    "se_unpaired: the standard error separate deals would have given, not an interval for this "
                    "difference; variance_saved: the share of its variance pairing removed, with its 95% interval (given from "
                    f"{SAVED_MIN_DEALS} deals on))",
                    diffs_t)]
    return sec


def sweep_section(res: SweepResult) -> Section:
    est, a, b = metric_columns(res)
    t = res.table
    def nan_for_none(xs: list) -> list[float]:  # a point whose every game was unfinished has no win rate
        return [math.nan if v is None else v for v in xs]

    lo, hi = nan_for_none(t[a].to_list()), nan_for_none(t[b].to_list())
    words = metric_words(res.plan.metric)
    deals = ("each on the same deals" if res.plan.paired else
             "each playing its own games (the player count or variant changes), against its own fair share")
    n = len(res.plan.points)
    sec = Section("Sweep", text=f"{'1 point' if n == 1 else f'{n:,} points, {deals}'}; metric: {words} "
                                f"({res.plan.metric} in the tables)." + (f" {res.note}" if res.note else ""))
    ylabel = f"{words} (95% interval)"
    e = nan_for_none(t[est].to_list())
    numeric = {k: all(isinstance(v, int | float) for v in t[k].to_list()) for k in res.plan.keys}
    grid = "grid" in res.plan.base.raw.get("sweep", {})
    if len(res.plan.keys) == 1 or grid:
        for key in res.plan.keys:
            others = [k for k in res.plan.keys if k != key]
            xs = t[key].to_list()
            x = xs if numeric[key] else list(range(len(xs)))
            lines = []
            if others:
                for gkey, g in t.with_row_index("_i").group_by(others, maintain_order=True):
                    lines.append((", ".join(f"{k}={v}" for k, v in zip(others, gkey, strict=True)), g["_i"].to_list()))
            fig = F.curve(x, e, lo, hi, f"{words.capitalize()} by {key}", key, ylabel, lines or None,
                          None if numeric[key] else [str(v) for v in xs])
            sec.figures.append((f"{words.capitalize()} against {key}", F.png_bytes(fig)))
    else:
        labels = [", ".join(f"{k}={p.get(k, '')}" for k in res.plan.keys) for p in res.plan.points]
        fig = F.curve(list(range(len(labels))), e, lo, hi, f"{words.capitalize()} by sweep point", "point", ylabel,
                      ticks=labels)
        sec.figures.append((f"{words.capitalize()} at each point", F.png_bytes(fig)))
    if res.best_index is not None and "vs_best" in t.columns:
        labels = [", ".join(f"{k}={p.get(k, '')}" for k in res.plan.keys) for p in res.plan.points]
        scale = 1.0 if res.plan.metric == "length" else 100.0
        fig = F.forest(labels, (t["vs_best"] * scale).to_list(), (t["vs_best_lo"] * scale).to_list(),
                       (t["vs_best_hi"] * scale).to_list(), "Each point minus the best point (same deals)",
                       f"difference in {words}" + ("" if scale == 1 else " (points)")
                       + f", simultaneous 95% intervals (max-T {res.critical:.2f})")
        sec.figures.append(("Paired contrasts with the best point; intervals hold for every pair of points at once",
                            F.png_bytes(fig)))
    # the unfinished share as a percentage, as the terminal prints it (a column named as a rate)
    t = t.rename({c: c.replace("unfinished", "unfinished_rate") for c in t.columns if c.startswith("unfinished")})
    if "vs_best" in t.columns:
        title = ("One row per point (vs_best: minus the best point, simultaneous 95% interval; p_best: the share of "
                 "resamples of the estimates in which the point comes out best, how settled the ranking is, not a "
                 "probability that it is the best)")
    elif any(c.startswith("sim_lo_s") for c in t.columns):
        title = ("One row per point (pointwise 95% intervals; sim: the metric seat's interval simultaneous over the "
                 "points, Bonferroni, which the answer reads against the fair share)")
    else:
        title = "One row per point (pointwise 95% intervals)"
    sec.tables.append((title, t))
    if res.heldout is not None:
        h = res.heldout
        if res.plan.metric != "length":  # a win rate: its interval and in-sweep value as percentages too
            seat = res.plan.metric.split("_s")[1]
            h = h.rename({"lo": f"lo_s{seat}", "hi": f"hi_s{seat}", "in_sweep": "in_sweep_rate"})
        sec.tables.append(("The best point re-played on fresh deals (a seed the sweep never used; in_sweep: its figure "
                           "in the sweep that picked it, so it reads high, with no interval)", h))
    return sec


def rate_section(res: RatingResult) -> Section:
    r = res.ratings
    rf = r.filter(pl.col("theta").is_finite())  # an unbounded strength has no point to draw
    fig = F.forest(rf["policy"].to_list(), rf["theta"].to_list(), rf["lo"].to_list(), rf["hi"].to_list(),
                   f"Bradley-Terry strength (reference {res.plan.names[res.plan.reference]} = 0)", "theta (log-odds)")
    text = (f"Each pair plays every distinct seating once on the same deals; model: {res.model}. Strengths are "
            "log-odds that one seat of a policy beats one seat of another; intervals are clustered by deal. "
            + " ".join(res.warnings))
    sec = Section("Policy ratings", text=text)
    sec.figures.append(("Strength with 95% intervals (clustered by deal)", F.png_bytes(fig)))
    sec.tables += [("Ratings", r), ("Pairwise results (a's win rate against b, averaged over seatings; predicted: "
                                    "by the strengths, with the 95% interval of their difference transformed)", res.pairs), ("Fit of the model", res.fit)]
    if res.heldout is not None:
        sec.tables.append(("The top policy against the runner-up on fresh deals (a seed the ratings never used; "
                           "log_odds: one top seat against one runner-up seat)", res.heldout))
    return sec


def cards_section(res: CardsResult) -> Section:
    e = res.effects
    unit = {"fubnub": "hands", "turtle": "turns", "gubs": "turns"}.get(res.plan.base.game, "turns")
    sec = Section("Card effects", text=" ".join(res.notes))
    adjust = "Holm" if res.plan.correction == "holm" else "Benjamini-Hochberg"
    for measure, scale, xl in (("length", 1.0, f"change in game length ({unit})"),
                               ("first-player advantage", 100.0, "change in the first player's edge (points)"),
                               ("focus seat win rate", 100.0, "change in the focus seat's win rate (points)")):
        m = e.filter(pl.col("measure") == measure).sort("effect")
        if m.height:
            # read as a ranking of the cards: the intervals that hold for all of them at once (Bonferroni)
            fig = F.forest(m["card"].to_list(), (m["effect"] * scale).to_list(),
                           (m["lo_simultaneous"] * scale).to_list(), (m["hi_simultaneous"] * scale).to_list(),
                           f"Effect of the card on {measure} (changed minus full deck)",
                           f"{xl}, simultaneous 95% intervals over the {N.many(m.height, 'card')}")
            sec.figures.append((f"Causal effect on {measure}: the same seeds with and without the card (the "
                                f"intervals hold for {'the one card' if m.height == 1 else f'all {m.height} cards at once'}, Bonferroni; the count of cards "
                                f"that change it reads {adjust}-adjusted p-values)", F.png_bytes(fig)))
    # one table per measure: their units differ (a length in turns, an edge or a win rate in points)
    values = ["full_deck", "full_deck_lo", "full_deck_hi", "changed", "changed_lo", "changed_hi", "effect", "lo", "hi",
              "lo_simultaneous", "hi_simultaneous"]
    for measure, scale, what in (("length", 1.0, unit), ("first-player advantage", 100.0, "percentage points"),
                                 ("focus seat win rate", 100.0, "percentage points")):
        m = e.filter(pl.col("measure") == measure)
        if m.height:
            m = m.drop("measure").with_columns(*(pl.col(c) * scale for c in values if c in m.columns))
            sec.tables.append((f"Effect on {measure} ({what}; paired; p_adjusted: {adjust} across cards)", m))
    if res.heldout is not None:  # the answer's cards again, on seeds the study never used
        h = res.heldout.with_columns(*(pl.when(pl.col("measure") == "length").then(pl.col(c)).otherwise(pl.col(c) * 100)
                                       for c in ("effect", "lo", "hi", "in_study")))
        sec.tables.append((f"The cards the answer names, re-played with the full deck on fresh seeds (a seed the "
                           f"study never used; length in {unit}, other measures in percentage points; in_study: "
                           "the effect the study measured)", h))
    if res.association is not None:
        sec.tables.append(res.association)
    return sec


SECTIONS = {"compare": compare_section, "sweep": sweep_section, "ratings": rate_section, "cards": cards_section}
