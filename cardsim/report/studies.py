"""Report sections of the studies: each renders what a study returns (no study imports the report)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardsim.report import Section
from cardsim.report import figures as F
from cardsim.stats import Z95
from cardsim.studies.sweep import metric_columns

if TYPE_CHECKING:
    from cardsim.studies.compare import CompareResult
    from cardsim.studies.rate import RatingResult
    from cardsim.studies.sweep import SweepResult


def compare_section(res: CompareResult) -> Section:
    d = res.diffs
    fig = F.forest([f"{a} - {b}" for a, b in zip(d["arm"], d["vs"], strict=True)], d["diff"].to_list(),
                   d["lo"].to_list(), d["hi"].to_list(), "Paired differences (95% intervals)",
                   f"difference in the focus seat's {res.plan.metric}")
    arms = F.rate_bars(res.arms.rename({"mean": "rate"}), "arm", f"Focus seat's {res.plan.metric} by arm",
                       "arm", ylabel=f"mean {res.plan.metric} (95% interval)") if res.plan.metric == "win" else None
    sec = Section("Paired comparison",
                  text=(f"Every arm played the same {res.games:,} deals"
                        + (f" in each of {len(res.plan.runs[res.plan.arms[0]])} seat rotations" if
                           len(res.plan.runs[res.plan.arms[0]]) > 1 else "")
                        + f"; the focus is seat {res.plan.focus}'s {res.plan.metric}. " + res.stopped))
    sec.figures.append(("Paired differences against the first arm, with 95% intervals", F.png_bytes(fig)))
    if arms is not None:
        sec.figures.append(("Focus seat's win rate by arm", F.png_bytes(arms)))
    sec.tables += [("Arms", res.arms), ("Differences (paired vs unpaired intervals)", res.diffs)]
    return sec


def sweep_section(res: SweepResult) -> Section:
    est, a, b = metric_columns(res)
    t = res.table
    if b == "se":
        lo = (t[est] - Z95 * t[a]).to_list()
        hi = (t[est] + Z95 * t[a]).to_list()
    else:
        lo, hi = t[a].to_list(), t[b].to_list()
    sec = Section("Sweep", text=f"{len(res.plan.points)} points, each on the same deals; metric: {res.plan.metric}.")
    ylabel = f"{res.plan.metric} (95% interval)"
    e = t[est].to_list()
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
            fig = F.curve(x, e, lo, hi, f"{res.plan.metric} by {key}", key, ylabel, lines or None,
                          None if numeric[key] else [str(v) for v in xs])
            sec.figures.append((f"{res.plan.metric} against {key}", F.png_bytes(fig)))
    else:
        labels = [", ".join(f"{k}={p.get(k, '')}" for k in res.plan.keys) for p in res.plan.points]
        fig = F.curve(list(range(len(labels))), e, lo, hi, f"{res.plan.metric} by sweep point", "point", ylabel,
                      ticks=labels)
        sec.figures.append((f"{res.plan.metric} at each point", F.png_bytes(fig)))
    sec.tables.append(("One row per point", t))
    return sec


def rate_section(res: RatingResult) -> Section:
    r = res.ratings
    fig = F.forest(r["policy"].to_list(), r["theta"].to_list(), r["lo"].to_list(), r["hi"].to_list(),
                   f"Bradley-Terry strength (reference {res.plan.names[res.plan.reference]} = 0)", "theta (log-odds)")
    sec = Section("Policy ratings", text="Pairs play the same deals in every seat rotation; strengths are log-odds of "
                                         "winning a game against each other.")
    sec.figures.append(("Strength with 95% intervals", F.png_bytes(fig)))
    sec.tables += [("Ratings", r), ("Pairwise results (a's win rate against b)", res.pairs)]
    return sec


SECTIONS = {"compare": compare_section, "sweep": sweep_section, "ratings": rate_section}
