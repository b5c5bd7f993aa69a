"""Report sections of ``search`` and ``meta``: each renders what the study returns."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from cardsim.report import Section
from cardsim.report import figures as F
from cardsim.report import numbers as N
from cardsim.report.figures import plt

if TYPE_CHECKING:
    from cardsim.studies.meta import MetaResult
    from cardsim.studies.search import SearchResult


#: a report holds no timestamp and no time (the same search writes the same files); the command prints them
UNTIMED = "The command prints the wall and CPU times, which vary from run to run; the report leaves them out."


def _pct_axis(ax, axis: str = "x") -> None:
    """Shares on an axis as signed points, with one decimal, or as many as the tick step needs (ticks
    0.02 points apart read +0.02, +0.04, ..., not +0.0, +0.0, ...)."""
    from matplotlib.ticker import FuncFormatter

    a = ax.xaxis if axis == "x" else ax.yaxis

    def fmt(v: float, _pos) -> str:
        ticks = a.get_majorticklocs()
        step = round(100 * float(np.min(np.diff(ticks))), 9) if len(ticks) > 1 else 1.0
        d = min(4, max(1, math.ceil(-math.log10(step)))) if step > 0 else 1
        return f"{100 * v:+.{d}f}" if abs(v) < 1 else f"{100 * v:.0f}"

    a.set_major_formatter(FuncFormatter(fmt))


def _points(frame: pl.DataFrame, est: str, name: str) -> pl.DataFrame:
    """A difference of two win rates (``est``, ``lo``, ``hi``) in percentage points, as the answer
    sentence gives it: columns ``<name>_points`` and ``<name>_lo`` / ``<name>_hi`` (one "95% CI")."""
    return frame.with_columns(*(pl.col(c) * 100 for c in (est, "lo", "hi"))).rename(
        {est: f"{name}_points", "lo": f"{name}_lo", "hi": f"{name}_hi"})


def _rates(frame: pl.DataFrame, est: str, name: str) -> pl.DataFrame:
    """A win rate (``est``, ``lo``, ``hi``) shown as percentages: ``<name>_rate``, ``<name>_lo`` / ``_hi``."""
    return frame.rename({est: f"{name}_rate", "lo": f"{name}_lo", "hi": f"{name}_hi"})


def _trials_figure(res: SearchResult):
    t = res.trials
    p = res.plan
    fig, ax = plt.subplots(figsize=(7.0, 3.8))
    first = t.filter(pl.col("deals") >= 0)
    pruned = first.filter(pl.col("state") == "pruned")
    done = first.filter(pl.col("state") == "finished")
    scale = 100 if p.objective in ("win", "length_in", "first", "dealer") else 1
    ax.scatter(pruned["trial"], scale * pruned["objective"], s=9, color="#bbbbbb", label="pruned (value at its last rung)")
    ax.scatter(done["trial"], scale * done["objective"], s=16, color="#3b6ea5",
               label=f"finished every rung ({p.top:,} deals)")
    if done.height:
        best = np.maximum.accumulate(done.sort("trial")["objective"].to_numpy())
        ax.step(done.sort("trial")["trial"], scale * best, where="post", color="#c0392b", label="incumbent")
    ax.set_xlabel("trial (in the order proposed)")
    unit = "points" if scale == 100 else ""
    ax.set_ylabel(f"objective on the search deals {('(' + unit + ')') if unit else ''}")
    ax.set_title("Search: every candidate's objective on the deals it played")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(alpha=0.3)
    return fig


def _forest(labels, est, lo, hi, title: str, xlabel: str):
    fig = F.forest(labels, est, lo, hi, title, xlabel)
    ax = fig.axes[0]
    ax.axvline(0, color="#888888", lw=0.8)
    _pct_axis(ax)
    return fig


def search_sections(res: SearchResult) -> list[Section]:
    from cardsim.studies import search as srch

    p = res.plan
    unit = "points" if p.objective in ("win", "length_in", "first", "dealer") else "units"
    out = []
    g = srch.gains_table(res)
    sec = Section("Held-out check (the winner's curse)", text=(
        f"The search raced candidates on the same {p.top:,} deals (every seat rotation); the best, the baseline and "
        f"the runner-up (the best finisher that plays differently) were then re-played on {p.heldout:,} fresh deals "
        f"the search never saw. Gains are paired: the mean of per-deal differences with a 95% interval "
        f"(each deal's rotations form one value). The in-search gain (an estimate, no interval) is optimistic: "
        f"the best was chosen on those deals; the held-out gain is not."))
    h = g.filter(pl.col("held_out"))
    sec.figures.append(("Held-out gain of the best found (paired 95% intervals)", F.png_bytes(_forest(
        h["comparison"].to_list(), h["gain"].to_list(), h["lo"].to_list(), h["hi"].to_list(),
        "Held-out gain of the best found (95% CI)", f"gain ({unit})"))))
    cand, prm = srch.heldout_table(res), srch.params_table(res)
    if unit == "points":
        g = _points(g, "gain", "gain")
        cand = _rates(cand, "heldout", "heldout").rename({"in_search": "in_search_rate"})
    if (prm["param"] == prm["keys"]).all():  # one key each: the column repeats the name
        prm = prm.drop("keys")
    sec.tables += [("Gains", g), ("Candidates", cand), ("Parameters", prm)]
    out.append(sec)
    if res.contrasts.height or res.importance.height:
        sec = Section("Which parameters matter", text=(
            "One step from the best point, one parameter at a time, on the held-out deals, paired with the best "
            "(a gain below 0 means the step costs; same_games: the step changes no game). The intervals hold for "
            f"every step at once (simultaneous 95%: {srch.step_method(p)}), so the steps they "
            "set apart from 0 are findings even though the table has many rows. Importance: PED-ANOVA (Optuna) over every trial's first-rung "
            "objective, a global view of the space."))
        c = res.contrasts
        if c.height:
            labels = [f"{a} = {b}" for a, b in zip(c["param"], c["value"], strict=True)]
            sec.figures.append(("One step from the best (paired, simultaneous 95% intervals)", F.png_bytes(_forest(
                labels, c["gain"].to_list(), c["lo"].to_list(), c["hi"].to_list(),
                "Moving one parameter one step from the best", f"gain vs the best ({unit})"))))
            sec.tables.append(("One step from the best (simultaneous 95% intervals: all steps at once)",
                               _points(c, "gain", "gain") if unit == "points" else c))
        if res.importance.height:
            fig, ax = plt.subplots(figsize=(6.4, 0.6 + 0.4 * res.importance.height))
            imp = res.importance.sort("importance")
            ax.barh(imp["param"], imp["importance"], color="#3b6ea5")
            ax.set_xlim(0, max(1e-9, imp["importance"].max()) * 1.1)
            ax.set_xlabel("importance (share, sums to 1)")
            ax.set_title("Parameter importance over the search (PED-ANOVA)")
            sec.figures.append(("Parameter importance", F.png_bytes(fig)))
            sec.tables.append(("Importance (a ranking aid with no interval; the one-step contrasts measure a "
                               "parameter's effect on held-out deals)", res.importance))
        out.append(sec)
    sec = Section("The search", text=(
        f"Sampler {p.sampler.upper()} (Optuna), {N.many(res.trials.height, 'candidate')} in batches of {p.batch}; rungs of "
        f"{', '.join(f'{n:,}' for n in p.steps())} deals (eta {p.eta}); a candidate stops at a rung when Optuna's "
        f"successive-halving pruner ranks it out, or when its paired difference with the incumbent is below 0 by "
        f"more than {p.prune_z:g} standard error{'' if p.prune_z == 1 else 's'}. {res.games:,} games in the search. {UNTIMED}"))
    if res.trials.height:
        sec.figures.append(("Objective of every candidate", F.png_bytes(_trials_figure(res))))
        top = res.trials.sort(["deals", "objective", "trial"], descending=[True, True, False]).head(15)
        names = [prm.name for prm in p.params]
        top = top.select("trial", "state", "deals", "objective", pl.struct(names).map_elements(
            lambda r: srch.describe(p, r), return_dtype=pl.String).alias("params"))
        if p.objective in ("win", "length_in", "first", "dealer"):  # a share: in percent, as the figure above
            top = top.rename({"objective": "objective_rate"})
        sec.tables.append(("Top trials (the best 15 by rung reached, then objective: the objective on the search "
                           "deals each reached, the race's own estimates, picked by these values, so the top ones "
                           "read high, and given no interval; the held-out tables above are the measurements)", top))
    out.append(sec)
    return out


def meta_sections(res: MetaResult) -> list[Section]:
    from cardsim.studies import meta as mt

    out = []
    st = mt.strategies_table(res)
    sec = Section("The meta-game", text=(
        "Every profile (one strategy per side) played the same deals in every seat rotation. Nash: a symmetric "
        "equilibrium mixture of the meta-game; alpha-rank: the stationary share of each strategy when players "
        "copy better strategies (Omidshafiei et al. 2019). Exploitability: every other strategy of the population "
        "re-played against a field of it on held-out deals; the largest gain, with a 95% interval that holds for "
        "every strategy re-played at once (Bonferroni); exploited_by names a strategy only when its interval is "
        "above 0." + ("" if res.first is None else
                        f" in_support_share and first_share: the share of {res.plan.bootstrap} resamples of the deals in "
                        "which a strategy is in the Nash mixture's support, and is alpha-rank's first: how steady the "
                        "answer is under the deals' sampling, not a probability that it is right.")))
    n = len(res.labels)
    fig, ax = plt.subplots(figsize=(6.8, 0.8 + 0.5 * n))
    yy = np.arange(n)
    ax.barh(yy - 0.2, res.mix, height=0.38, color="#3b6ea5", label="Nash mixture")
    ax.barh(yy + 0.2, res.alpharank, height=0.38, color="#e09f3e", label="alpha-rank")
    ax.set_yticks(yy, res.labels)
    ax.set_xlim(0, 1.05)
    ax.invert_yaxis()
    ax.set_xlabel("share")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # off the bars
    ax.set_title("Nash mixture and alpha-rank")
    sec.figures.append(("Nash mixture and alpha-rank of each strategy", F.png_bytes(fig)))
    ex = st.filter(pl.col("lo").is_not_null())
    if ex.height:
        sec.figures.append(("Exploitability with 95% intervals (held-out)", F.png_bytes(_forest(
            ex["strategy"].to_list(), ex["exploitability"].to_list(), ex["lo"].to_list(), ex["hi"].to_list(),
            "What the population's best reply gains against each", "gain (points of win rate)"))))
    st = st.with_columns(pl.col("policy").str.replace_all(",", ", "))  # a long policy wraps at its commas
    sec.tables.append(("Strategies", _points(st, "exploitability", "exploitability").rename(
        {"nash": "nash_share", "alpharank": "alpharank_share", "nash_support": "in_support_share",
         "alpharank_first": "first_share"}, strict=False)))
    out.append(sec)
    sec = Section("Payoffs", text=("Win rate of one player of a strategy when every other side plays another "
                                   "(the fair share is 1 / sides); the full table has every profile."))
    m = np.full((n, n), np.nan)
    idx = {lab: i for i, lab in enumerate(res.labels)}
    for r in res.field.iter_rows(named=True):
        m[idx[r["strategy"]], idx[r["field"]]] = r["win"]
    fig, ax = plt.subplots(figsize=(1.6 + 1.1 * n, 1.2 + 0.8 * n))
    from matplotlib.colors import TwoSlopeNorm

    fair = 1.0 / len(res.plan.sides)  # white at the fair share: blue above it, red below
    norm = TwoSlopeNorm(vcenter=fair, vmin=0.0, vmax=1.0)
    im = ax.imshow(m, cmap="RdBu", norm=norm)
    ax.set_xticks(range(n), res.labels, rotation=30, ha="right")
    ax.set_yticks(range(n), res.labels)
    ax.set_xlabel("field (every other side)")
    ax.set_ylabel("one player of")
    for i in range(n):
        for j in range(n):
            dark = abs(norm(m[i, j]) - 0.5) > 0.3  # white text on the deep colours
            ax.text(j, i, f"{100 * m[i, j]:.0f}%", ha="center", va="center", fontsize=8,
                    color="white" if dark else "black")
    bar = fig.colorbar(im, ax=ax, fraction=0.04)
    bar.set_ticks([0, fair, 0.5, 1.0])
    bar.set_ticklabels(["0%", f"{100 * fair:.0f}% (fair)", "50%", "100%"])
    ax.set_title("Win rate of one player against a field")
    sec.figures.append(("One player against a field of another strategy", F.png_bytes(fig)))
    sec.tables += [("One against a field", _rates(res.field, "win", "win")),
                   ("Every profile", _rates(res.table, "win", "win"))]
    out.append(sec)
    if res.rounds:
        out.append(Section("Iterated best response", text=(
            f"Each round searches a best response to the current Nash mixture (cardsim search), checks its gain "
            f"against the mixture on held-out deals, and adds it when the gain's lower 95% bound exceeds the margin "
            f"({100 * res.plan.margin:.1f} points). {res.games:,} games: the payoff tables and their held-out "
            f"checks, and each search's games as its budget counts them with its held-out re-play. {UNTIMED}"),
            tables=[("Rounds", _points(mt.rounds_table(res), "gain", "gain"))]))
    return out


SECTIONS = {"search": search_sections, "meta": meta_sections}
