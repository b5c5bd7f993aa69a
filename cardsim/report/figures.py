"""Matplotlib figures (Agg backend) with error bars: the charts a designer expects.

Conventions every chart here keeps: rates are dot plots with their 95% intervals on a
percentage axis (a bar would have to start at zero, and would then hide the differences the
intervals resolve); a seat chart draws the fair share as a dashed line; counts are bars from
zero with integer ticks on integer axes; legends sit outside the axes, never on the data.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import polars as pl
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, PercentFormatter

COLOR = "#3b6ea5"
FAIR = "#b0413e"
SIZE = (6.4, 3.6)


def png_bytes(fig: Figure) -> bytes:
    """The figure as PNG (no timestamp in the file, so the same figure gives the same bytes)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def _legend_outside(ax) -> None:
    """The legend to the right of the axes, off the data."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)


def _percent_axis(axis, lim: tuple[float, float]) -> None:
    """Shares as percentages, with no more decimals than the axis's span needs."""
    span = abs(lim[1] - lim[0])
    axis.set_major_formatter(PercentFormatter(1.0, decimals=0 if span > 0.04 else 1 if span > 0.004 else 2))


def _is_int(values: Sequence) -> bool:
    return all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in values)


def rate_dots(frame: pl.DataFrame, label: str, title: str, xlabel: str, ref: float | None = None,
              ylabel: str = "rate (95% Wilson interval)", ref_label: str = "fair share") -> Figure:
    """A dot per row of ``frame`` at ``rate`` (a share in [0, 1]) with its ``lo``-``hi`` interval,
    labelled by column ``label``, on a percentage axis; ``ref`` draws a dashed reference line
    (the fair share on a seat chart)."""
    fig, ax = plt.subplots(figsize=SIZE)
    labels = [str(x) for x in frame[label].to_list()]
    x = np.arange(len(labels))
    rate = frame["rate"].to_numpy().astype(float)
    # Wilson bounds at a rate of 0 or 1 can sit a rounding error past the rate: clamp
    err = [np.maximum(rate - frame["lo"].to_numpy(), 0), np.maximum(frame["hi"].to_numpy() - rate, 0)]
    ax.errorbar(x, rate, yerr=err, fmt="o", color=COLOR, capsize=4, ms=6, lw=1.5, label="estimate, 95% interval")
    if ref is not None:
        ax.axhline(ref, color=FAIR, lw=1, ls="--", label=f"{ref_label} {100 * ref:.3g}%")
    long = sum(map(len, labels)) > 48  # labels that would run into each other
    ax.set_xticks(x, labels, rotation=25 if long else 0, ha="right" if long else "center")
    ax.set_xlim(-0.6, len(labels) - 0.4)
    # rows without an interval (no finished game: NaN) take no part; with none at all the axis spans
    # the reference, or all of 0-100% (np.nanmin of only NaN warned "All-NaN slice encountered")
    los = frame["lo"].cast(pl.Float64).to_numpy()
    his = frame["hi"].cast(pl.Float64).to_numpy()
    los, his = los[np.isfinite(los)], his[np.isfinite(his)]
    lo = min(float(los.min()) if los.size else (ref if ref is not None else 0.0), ref if ref is not None else 1.0)
    hi = max(float(his.max()) if his.size else (ref if ref is not None else 1.0), ref if ref is not None else 0.0)
    pad = max(0.01, 0.15 * (hi - lo))
    ax.set_ylim(max(0.0, lo - pad) if lo > 0.02 else -pad / 3, min(1.0, hi + pad) if hi < 0.98 else 1 + pad / 3)
    _percent_axis(ax.yaxis, ax.get_ylim())
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    _legend_outside(ax)
    return fig


#: the name earlier callers use; the chart is a dot plot (see :func:`rate_dots`)
rate_bars = rate_dots


def histogram(values: pl.Series, title: str, xlabel: str, discrete: bool = True, ylabel: str = "count",
              cap: int | None = None) -> Figure:
    """Bars (from zero) of how often each value occurs: one bar per integer value when ``discrete``
    and the range is small, else 60 bins; integer ticks on integer axes. ``cap`` draws every value
    above it in the last bar, labelled ``cap+``."""
    fig, ax = plt.subplots(figsize=SIZE)
    v = values.drop_nulls().to_numpy()
    if cap is not None:
        v = np.minimum(v, cap)
    if discrete and v.size:
        lo, hi = int(v.min()), int(v.max())
        step = max(1, int(np.ceil((hi - lo + 1) / 60)))  # whole numbers per bar, bars aligned on them
        bins = np.arange(lo, hi + step + 1, step) - 0.5
        ax.hist(v, bins=bins, color=COLOR, alpha=0.85, rwidth=0.9 if step == 1 else 1.0)
        if hi - lo < 4:
            ax.set_xlim(lo - 2, hi + 2)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    else:
        ax.hist(v, bins=60, color=COLOR, alpha=0.85)
    if cap is not None and v.size and v.max() >= cap:
        ticks = [t for t in ax.get_xticks() if t < cap * 0.97] + [cap]
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks[:-1]] + [f"{cap}+"])
    ax.yaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    ax.set_ylim(bottom=0)
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    return fig


def _nan(values: Sequence[float | None]) -> list[float]:
    """Values with None (a missing estimate or interval end, as polars gives it) as NaN, which
    matplotlib leaves out; ``None - 1.0`` raised a TypeError, a traceback of ``cardsim report``."""
    return [math.nan if v is None else float(v) for v in values]


def _half(upper: Sequence[float], lower: Sequence[float]) -> list[float]:
    """Error-bar lengths ``upper - lower``, at least 0; NaN (no bar) where either is missing."""
    return [max(u - w, 0.0) if math.isfinite(u) and math.isfinite(w) else math.nan
            for u, w in zip(upper, lower, strict=True)]


def forest(labels: Sequence[str], est: Sequence[float], lo: Sequence[float], hi: Sequence[float],
           title: str, xlabel: str, percent: bool = False, zero: bool = True) -> Figure:
    """A forest plot of estimates with intervals, one row each: differences (paired comparisons)
    with a dashed line at 0, or with ``zero=False`` plain estimates on an axis fitted to them;
    ``percent`` reads the values as shares (differences in percentage points)."""
    fig, ax = plt.subplots(figsize=(6.4, 0.9 + 0.38 * len(labels)))
    y = list(range(len(labels)))[::-1]
    est, lo, hi = _nan(est), _nan(lo), _nan(hi)  # a row without an interval (1 game: None) gets no bar
    ax.errorbar(est, y, xerr=[_half(est, lo), _half(hi, est)], fmt="o", color=COLOR, capsize=4)
    if zero:
        ax.axvline(0, color="grey", lw=1, ls="--")
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    if percent:
        _percent_axis(ax.xaxis, ax.get_xlim())
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    return fig


def curve(x: Sequence[float], est: Sequence[float], lo: Sequence[float], hi: Sequence[float],
          title: str, xlabel: str, ylabel: str, lines: Sequence[tuple[str, Sequence[int]]] | None = None,
          ticks: Sequence[str] | None = None, percent: bool | None = None, ref: float | None = None,
          ref_label: str = "fair share") -> Figure:
    """Sweep curves with 95% error bars; ``lines`` = (label, row indices) draws one line each (legend
    outside the axes). Integer ``x`` gets integer ticks; ``percent`` reads the values as shares (by
    default: when ``ylabel`` names a rate and every value lies in [0, 1])."""
    est, lo, hi = _nan(est), _nan(lo), _nan(hi)
    if percent is None:
        vals = [v for v in (*lo, *hi) if v == v]
        percent = "rate" in ylabel and bool(vals) and all(-1e-9 <= v <= 1 + 1e-9 for v in vals)
    fig, ax = plt.subplots(figsize=SIZE)
    for n, (label, idx) in enumerate(lines or [("", list(range(len(x))))]):
        xs = [x[i] for i in idx]
        e = [est[i] for i in idx]
        err = [[max(e[k] - lo[i], 0) for k, i in enumerate(idx)], [max(hi[i] - e[k], 0) for k, i in enumerate(idx)]]
        ax.errorbar(xs, e, yerr=err, fmt="o-", capsize=4, label=label or None, color=None if lines else COLOR,
                    alpha=0.9, lw=1.5, ms=5, zorder=3 + n)
    if ref is not None:
        ax.axhline(ref, color=FAIR, lw=1, ls="--", label=f"{ref_label} {100 * ref:.3g}%" if percent else ref_label)
    if ticks is not None:
        ax.set_xticks(list(x), list(ticks), rotation=20, fontsize=8, ha="right")
    elif _is_int(list(x)):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if percent:
        _percent_axis(ax.yaxis, ax.get_ylim())
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    if (lines and len(lines) > 1) or ref is not None:
        _legend_outside(ax)
    return fig
