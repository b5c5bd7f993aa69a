"""Matplotlib figures (Agg backend) with error bars: the charts a designer expects."""

from __future__ import annotations

import io
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import polars as pl
from matplotlib.figure import Figure

COLOR = "#3b6ea5"


def png_bytes(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def rate_bars(frame: pl.DataFrame, label: str, title: str, xlabel: str, ref: float | None = None,
              ylabel: str = "rate (95% Wilson interval)") -> Figure:
    """Bars of ``rate`` with ``lo``/``hi`` error bars, one per row labelled by column ``label``."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    labels = [str(x) for x in frame[label].to_list()]
    rate = frame["rate"].to_numpy()
    # Wilson bounds at a rate of 0 or 1 can sit a rounding error past the rate: clamp
    err = [np.maximum(rate - frame["lo"].to_numpy(), 0), np.maximum(frame["hi"].to_numpy() - rate, 0)]
    ax.bar(labels, rate, yerr=err, capsize=4, color=COLOR, alpha=0.85)
    if ref is not None:
        ax.axhline(ref, color="grey", lw=1, ls="--", label=f"fair = {ref:.3g}")
        ax.legend(loc="lower right", fontsize=8)
    lo = max(0.0, float(frame["lo"].min()) - 0.05)
    hi = min(1.0, float(frame["hi"].max()) + 0.05)
    ax.set_ylim(lo, hi)
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    return fig


def histogram(values: pl.Series, title: str, xlabel: str, discrete: bool = True) -> Figure:
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    v = values.drop_nulls().to_numpy()
    if discrete and v.size:
        lo, hi = int(v.min()), int(v.max())
        bins = range(lo, hi + 2) if hi - lo < 80 else 60
        ax.hist(v, bins=bins, color=COLOR, alpha=0.85, align="left", rwidth=0.9)
    else:
        ax.hist(v, bins=60, color=COLOR, alpha=0.85)
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("count")
    ax.grid(axis="y", alpha=0.3)
    return fig


def forest(labels: Sequence[str], est: Sequence[float], lo: Sequence[float], hi: Sequence[float],
           title: str, xlabel: str) -> Figure:
    """A forest plot of differences with intervals (paired comparisons)."""
    fig, ax = plt.subplots(figsize=(6.4, 0.6 + 0.45 * len(labels)))
    y = list(range(len(labels)))[::-1]
    ax.errorbar(est, y, xerr=[[e - a for e, a in zip(est, lo, strict=True)], [h - e for e, h in zip(est, hi, strict=True)]],
                fmt="o", color=COLOR, capsize=4)
    ax.axvline(0, color="grey", lw=1, ls="--")
    ax.set_yticks(y, labels)
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    return fig


def curve(x: Sequence[float], est: Sequence[float], lo: Sequence[float], hi: Sequence[float],
          title: str, xlabel: str, ylabel: str, lines: Sequence[tuple[str, Sequence[int]]] | None = None,
          ticks: Sequence[str] | None = None) -> Figure:
    """Sweep curves with 95% error bars; ``lines`` = (label, row indices) draws one line each."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for n, (label, idx) in enumerate(lines or [("", list(range(len(x))))]):
        xs = [x[i] for i in idx]
        e = [est[i] for i in idx]
        err = [[e[k] - lo[i] for k, i in enumerate(idx)], [hi[i] - e[k] for k, i in enumerate(idx)]]
        ax.errorbar(xs, e, yerr=err, fmt="o-", capsize=4, label=label or None, color=None if lines else COLOR,
                    alpha=0.9, lw=1.5, ms=5, zorder=3 + n)
    if lines and len(lines) > 1:
        ax.legend(fontsize=8)
    if ticks is not None:
        ax.set_xticks(list(x), list(ticks), rotation=20, fontsize=8)
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    return fig
