"""Numbers in plain words: counts, percentages, means and intervals with sensible precision.

One place for how cardsim writes a number for a person (report sentences, report tables and
the terminal tables of :mod:`cardsim.output`); JSON and CSV keep the raw values. No numba, no
matplotlib: importing it is cheap.

- :func:`count` ``5028.0 -> "5,028"``; :func:`pct` ``0.5028 -> "50.3%"``;
  :func:`pct_ci` ``(0.5028, 0.493, 0.5126) -> "50.3% (95% CI 49.3-51.3%)"``;
  :func:`num` a mean or difference to a precision its interval justifies;
  :func:`num_ci` ``(7.73, 6.6, 8.9, "turns") -> "7.7 turns (95% CI 6.6-8.9)"``;
- an interval judged against a reference (a fair share, 0) keeps each end on its own side of it
  (:func:`side_digits`: ``49.96%``, not ``50.0%``, below a fair 50%);
- :func:`column` formats a whole table column alike (integers with thousands separators, shares
  as percentages, a count of wins with a shared win's fractions, 264.5, other numbers to the same
  number of decimals), for tables a person reads.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Sequence
from typing import Any

import polars as pl

#: what a missing or undefined value shows (never "nan")
MISSING = "n/a"

#: columns that hold a share in [0, 1] (shown as a percentage); ``lo`` / ``hi`` only beside a share
_SHARE = re.compile(r"^(rate|share|fair|lift|lift_lo|lift_hi|variance_saved|variance_saved_lo|variance_saved_hi|winrate_s\d+|(?:sim_)?lo_s\d+|(?:sim_)?hi_s\d+|\w+_rate|\w+_rate_lo|\w+_rate_hi|\w+_share|share_\w+|rate_\w+)$")
_BOUNDS = ("lo", "hi", "lo_simultaneous", "hi_simultaneous")


def finite(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def count(x: Any) -> str:
    """An integer count with thousands separators (``5028.0`` -> ``5,028``)."""
    if not finite(x):
        return MISSING
    return f"{round(x):,}"


def many(n: int, noun: str) -> str:
    """``1 deal``, ``2 deals``, ``1,000 games``: a count with its noun, plural when it is not 1."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def pct(x: Any, digits: int | None = None) -> str:
    """A share as a percentage: ``0.5028`` -> ``50.3%``; a share under 0.1% keeps its first
    significant digit (``0.0002`` -> ``0.02%``, not ``0.0%``)."""
    if not finite(x):
        return MISSING
    if digits is None:
        small = 5e-7 <= abs(x) < 0.001
        digits = min(4, -math.floor(math.log10(100 * abs(x)))) if small else 1
    return f"{100 * x:.{digits}f}%"


def one_game_note(answer: str, games: int) -> str:
    """``answer`` with, in a run of one game whose answer has an interval it could not give (``n/a``),
    the reason: intervals clustered by game (a hand's or a turn's rate, a mean over hands, a game's
    length) need at least two games; a win rate over the games has one from the first."""
    if games >= 2 or f"{MISSING})" not in answer:
        return answer
    return (f"{answer} (n/a: an interval clustered by game, or of a mean over games, needs at least 2 games; this "
            f"run has {games:,}.)")


def pct_ci(rate: Any, lo: Any, hi: Any, digits: int = 1, label: str = "95% CI",
           ref: float | Sequence[float] | None = None) -> str:
    """``50.3% (95% CI 49.3-51.3%)``; ``label`` names another interval (``simultaneous 95% CI``). An
    interval whose ends would print alike gets the decimals that show it (:func:`share_digits`), and
    ``ref`` (a reference the sentence judges the interval against: a fair share, an even game) the
    decimals that keep each end on its own side of it (:func:`side_digits`): ``52.13% (95% CI
    49.96-54.30%)``, not ``52.1% (95% CI 50.0-54.3%)``, which reads as if 50% were left out."""
    if not (finite(lo) and finite(hi)):  # "(95% CI n/a%)" once: no interval has no unit
        return f"{pct(rate, digits)} ({_label(label)}{MISSING})"
    digits = share_digits([lo], [hi], digits)
    if ref is not None:
        digits = side_digits(lo, hi, ref, digits)
    return f"{pct(rate, digits)} ({_label(label)}{_range(lo, hi, lambda v: f'{100 * v:.{digits}f}')}%)"


def share_digits(lo: Sequence[Any], hi: Sequence[Any], digits: int = 1) -> int:
    """Decimals of percentages that show intervals of shares: ``digits``, or where the ends of an interval
    with a real width would print alike at ``digits`` (or at :func:`pct`'s own decimals), the decimals its
    half-width justifies (:func:`decimals_for`): 60.50% (60.47-60.53%), not 60.5% (60.5-60.5%), at 10
    million hands. The same for a difference of shares in points (:func:`points_ci`): +0.30 (+0.27 to
    +0.33), not +0.3 (+0.3 to +0.3); ends either side of 0 that both round to 0 (-0.0 to +0.0) are alike."""
    def alike(a: float, b: float) -> bool:
        ta, tb = (f"{100 * v:.{digits}f}".removeprefix("-") if abs(100 * v) < 0.5 * 10 ** -digits else
                  f"{100 * v:.{digits}f}" for v in (a, b))
        return ta == tb or pct(a) == pct(b)

    halves = [(b - a) / 2 for a, b in zip(lo, hi, strict=True) if finite(a) and finite(b) and b - a > 1e-12
              and alike(a, b)]
    return max(digits, decimals_for(100 * min(halves))) if halves else digits


def side_digits(lo: Any, hi: Any, ref: float | Sequence[float], digits: int = 1, scale: float = 100.0,
                most: int = 4) -> int:
    """Decimals (of ``scale`` times the value: percentages by default) at which each end of ``lo``-``hi``
    prints on its own side of every reference in ``ref``: an end below a reference never rounds onto it
    or above it (49.96% against a fair 50% needs 2 decimals: 49.96, where 1 prints 50.0), nor one above
    it onto it or below. ``digits`` at least, ``most`` at most; an end exactly at a reference is left
    as it is."""
    refs = [r for r in ([ref] if isinstance(ref, int | float) else ref) if finite(r)]
    ends = [e for e in (lo, hi) if finite(e)]
    d = digits
    while d < most and any((e < r and round(scale * e, d) >= round(scale * r, d)) or
                           (e > r and round(scale * e, d) <= round(scale * r, d)) for e in ends for r in refs):
        d += 1
    return d


def points(x: Any, digits: int = 1, sign: bool = True) -> str:
    """A difference of two shares in percentage points (``0.028`` -> ``+2.8 percentage points``)."""
    if not finite(x):
        return MISSING
    return f"{100 * x:{'+' if sign else ''}.{digits}f} percentage points"


def points_ci(d: Any, lo: Any, hi: Any, digits: int = 1, label: str = "95% CI", ref: float | None = 0.0) -> str:
    """``+2.8 percentage points (95% CI +1.8 to +3.7)``; ``label`` names another interval. An interval
    whose ends would print alike gets the decimals that show it (:func:`share_digits`): +0.30 percentage
    points (95% CI +0.27 to +0.33) at 10 million games, not +0.3 (95% CI +0.3 to +0.3); an end near
    ``ref`` (0, no difference) the decimals that keep it on its own side (:func:`side_digits`): -0.04
    to +5.00, not -0.0 to +5.0."""
    if not (finite(lo) and finite(hi)):
        return points(d, digits)
    digits = share_digits([lo], [hi], digits)
    if ref is not None:
        digits = side_digits(lo, hi, ref, digits)
    return f"{points(d, digits)} ({_label(label)}{100 * lo:+.{digits}f} to {100 * hi:+.{digits}f})"


def decimals_for(width: float, lo: int = 0, hi: int = 4) -> int:
    """Decimals that show a quantity known to about +-``width`` (half an interval) the way physicists
    round an uncertainty (the Particle Data Group's rule): two significant digits of ``width`` when
    its leading digits are 100-354, else one. +-1.15 -> 1 decimal (7.7 turns, 95% CI 6.6-8.9),
    +-0.038 -> 2 (12.45), +-0.6 -> 1, +-3 -> 0."""
    if not finite(width):
        return hi
    if width <= 0:  # an exact value
        return lo
    exp = math.floor(math.log10(width))
    lead = width / 10 ** (exp - 2)  # the leading three digits, 100-999
    digits = -exp + (1 if lead < 354.5 else 0)
    return max(lo, min(hi, digits))


def num(x: Any, decimals: int | None = None, unit: str = "") -> str:
    """A number with thousands separators, ``decimals`` fixed or 3 significant digits."""
    if not finite(x):
        return MISSING
    if decimals is None:
        decimals = _sig_decimals(abs(x))
    text = f"{x:,.{decimals}f}"
    if text.startswith("-") and not text.strip("-0.,"):  # -0.0000: a tiny negative rounds to zero
        text = text[1:]
    return f"{text} {unit}" if unit else text


def num_ci(est: Any, lo: Any, hi: Any, unit: str = "", decimals: int | None = None, label: str = "95% CI",
           ref: float | Sequence[float] | None = None) -> str:
    """``7.7 turns (95% CI 6.6-8.9)``: the estimate and its interval to the precision the interval
    justifies (its half-width's first significant digit, one more for small widths); ``label`` names
    another interval; ``ref`` a reference whose side each end keeps (:func:`side_digits`)."""
    if decimals is None and finite(lo) and finite(hi):  # without an interval, 3 significant digits (118, not 118.0000)
        decimals = decimals_for((hi - lo) / 2, hi=4)
        if ref is not None:
            decimals = side_digits(lo, hi, ref, decimals, scale=1.0)
    return f"{num(est, decimals, unit)} ({_label(label)}{_range(lo, hi, lambda v: num(v, decimals))})"


def _label(label: str) -> str:
    """An interval's label and the space after it (none for an interval named once for a list of them)."""
    return f"{label} " if label else ""


def _range(lo: Any, hi: Any, f) -> str:
    """``6.6-8.9``, or ``-9.5 to -8.4`` when a bound is negative (a dash would read as a minus); ``0 to
    unbounded`` where only the upper end is infinite (a count's interval from 2 or 3 games)."""
    if finite(lo) and hi is not None and hi == math.inf:
        return f"{f(lo)} to unbounded"
    if not (finite(lo) and finite(hi)):
        return MISSING
    return interval(f(lo), f(hi))


def interval(lo: str, hi: str) -> str:
    """Two formatted bounds as one range: ``a-b``, or ``a to b`` when a bound reads negative."""
    if not lo or not hi or MISSING in (lo, hi):
        return lo or hi or ""
    sep = " to " if lo.startswith("-") or hi.startswith("-") else "-"
    return f"{lo}{sep}{hi}"


def _sig_decimals(m: float, sig: int = 3) -> int:
    if m == 0 or not math.isfinite(m):
        return 0
    return max(0, min(4, sig - 1 - math.floor(math.log10(m))))


def share_columns(frame: pl.DataFrame) -> set[str]:
    """Columns of ``frame`` holding shares in [0, 1], shown as percentages: ``rate``, ``share``,
    ``fair``, ``winrate_s<k>``, ``*_rate``, ..., and ``lo`` / ``hi`` beside a ``rate`` or ``share``."""
    out = set()
    for c, t in frame.schema.items():
        if not t.is_numeric() or not _SHARE.match(c):
            continue
        vals = [v for v in frame[c].to_list() if finite(v)]
        if all(-1 <= v <= 1 for v in vals):
            out.add(c)
    bounds = set(_BOUNDS) if {"rate", "share"} & out else set()
    for c in out:  # win_rate -> win_lo, win_hi
        if c.endswith("_rate"):
            bounds |= {c[:-4] + "lo", c[:-4] + "hi"}
    return out | {c for c in bounds if c in frame.columns and frame.schema[c].is_numeric()}


def column(frame: pl.DataFrame, name: str, shares: set[str] | None = None) -> list[str]:
    """The cells of column ``name`` formatted alike: integers (and integer-valued floats such as a
    count of wins) with thousands separators, shares as percentages, other numbers to the decimals
    that show the column's values to 3 significant digits; missing or NaN values as ``n/a``."""
    s = frame[name]
    values = s.to_list()
    if shares is None:
        shares = share_columns(frame)
    dtype = s.dtype
    if dtype == pl.Boolean:
        return ["" if v is None else ("yes" if v else "no") for v in values]
    if not dtype.is_numeric():
        return ["" if v is None else text(v) for v in values]
    good = [v for v in values if finite(v)]
    if name == "seed" or name.endswith("_seed"):  # an identifier, not a count: no separators
        return ["" if v is None else str(v) for v in values]
    if name == "p_best":  # a sweep's share of resampled draws a point is best in: counted, so none is 0.000
        return [share3(v) if v is not None else "" for v in values]  # (it read "< 0.001", which says some were)
    if _P_VALUE.match(name) and all(0 <= v <= 1 for v in good):
        return [prob(v) if v is not None else "" for v in values]
    if name in shares:
        return [pct(v) if v is not None else "" for v in values]
    if dtype.is_integer() or all(float(v).is_integer() for v in good):
        return [count(v) if v is not None else "" for v in values]
    if _WINS.match(name):  # wins where a shared win counts 1/k: 264.5, not 264 beside a rate of 26.5%
        d = fraction_decimals(good)
        return [num(v, d) if v is not None else "" for v in values]
    small = [abs(v) for v in good if v != 0]
    if not small:
        return [num(v, 0) if v is not None else "" for v in values]
    # enough decimals for the smallest magnitude (3 significant digits), at most 4
    d = min(4, max(_sig_decimals(max(small)), _sig_decimals(min(small), 2)))
    return [num(v, d) if v is not None else "" for v in values]


#: columns counting wins (``k``, ``wins``, ``wins_drew``, ``not_wins``, ...): a shared win counts 1/k, so the
#: count can be fractional, and is printed so (:func:`fraction_decimals`) that the column adds up
_WINS = re.compile(r"^(k|w|wins|wins_\w+|\w+_wins)$")


def fraction_decimals(values: Sequence[float], most: int = 2) -> int:
    """The fewest decimals (1 to ``most``) that print every value exactly (264.5: 1; 264.25: 2), else
    ``most`` (a win shared three ways: 264.33, within 0.005 of the count)."""
    for d in range(1, most + 1):
        if all(abs(round(v, d) - v) < 1e-9 * max(1.0, abs(v)) for v in values):
            return d
    return most


#: columns holding a p-value or a probability (``p``, ``p_adj``, ``p_holm``, ``p_best``, ...)
_P_VALUE = re.compile(r"^p(_\w+)?$")


def prob(x: Any) -> str:
    """A p-value or probability: 3 decimals, ``< 0.001`` below that (never ``0``, which reads as
    impossible, nor ``0.0000``)."""
    if not finite(x):
        return MISSING
    if x == 1 or x >= 0.001:
        return f"{x:.3f}"
    return "< 0.001"


def share3(x: Any) -> str:
    """A counted share to 3 decimals: 0 and 1 exactly as they are, a share that only rounds to them as
    ``< 0.001`` or ``> 0.999``."""
    if not finite(x):
        return MISSING
    if 0 < x < 0.001:
        return "< 0.001"
    if 0.999 < x < 1:
        return "> 0.999"
    return f"{x:.3f}"


def text(v: Any) -> str:
    """A non-numeric cell: lists joined by commas."""
    if isinstance(v, list | tuple):
        return ", ".join(text(x) for x in v)
    if isinstance(v, float):
        return num(v)
    return str(v)


def interval_pairs(cols: Sequence[str]) -> dict[str, tuple[str, str]]:
    """``lo`` -> (``lo``, ``hi``), ``win_lo`` -> (``win_lo``, ``win_hi``), ``lo_s0`` -> (``lo_s0``, ``hi_s0``),
    ``sim_lo_s0`` -> (``sim_lo_s0``, ``sim_hi_s0``): the bounds of each interval among ``cols``."""
    out = {}
    for c in cols:
        if c == "lo" or c.endswith("_lo"):
            hi = c[:-2] + "hi"
        elif c.startswith("sim_lo_"):  # a simultaneous interval beside a pointwise one (a sweep's sim_lo_s0)
            hi = "sim_hi_" + c[7:]
        elif c.startswith("lo_"):
            hi = "hi_" + c[3:]
        else:
            continue
        if hi in cols:
            out[c] = (c, hi)
    return out


def _estimates(frame: pl.DataFrame, stem: str, suffix: str = "") -> list[str]:
    names = (f"{stem}mean", f"{stem}diff", f"{stem}value", f"{stem}theta", f"{stem}rate", f"{stem}effect")
    names += (f"{stem}points",) if stem else ()  # gain_points with gain_lo / gain_hi (a search's gains)
    names += (f"mean{suffix}", f"diff{suffix}", f"winrate{suffix}") if suffix else ()
    # the estimate named by the stem itself (vs_best beside vs_best_lo), or, beside a bare lo / hi, a study's own
    # (a search's gain and heldout, a rating's log_odds, a sweep's re-played length): else it kept 3 significant
    # digits beside bounds of fewer decimals ("0.71 (-4 to 6)", "3.52 (-4 to 11)")
    names += (stem[:-1],) if stem.endswith("_") else ("gain", "heldout", "log_odds", "length") if not stem + suffix else ()
    return [c for c in names if c in frame.columns and frame.schema[c].is_numeric()]


def blocks(widths: Sequence[int], keys: Sequence[int], width: int, gap: int = 2) -> list[list[int]]:
    """Column indices split into blocks that each fit ``width`` characters together with the key
    columns ``keys`` (repeated in every block): how a wide table is shown without wrapping."""
    base = sum(widths[k] + gap for k in keys)
    out: list[list[int]] = []
    used = base
    for i in range(len(widths)):
        if i in keys:
            continue
        if not out or used + widths[i] > width:
            out.append([])
            used = base
        out[-1].append(i)
        used += widths[i] + gap
    return out or [[]]


def key_columns(frame: pl.DataFrame, widths: Sequence[int], width: int) -> list[int]:
    """The leading columns that name a row (text and integers before the first other column, at
    most 3, at most half the width; up to three quarters while the keys so far leave rows alike,
    as a meta-game's long ``profile`` beside its ``strategy``): repeated in every block of a wide
    table."""
    keys: list[int] = []
    for i, c in enumerate(frame.columns[:3]):
        t = frame.schema[c]
        used = sum(widths[k] + 2 for k in [*keys, i])
        if t.is_float() or i == len(frame.columns) - 1 or used > width * 3 // 4:
            break
        if used > width // 2 and (not keys or frame.select(frame.columns[k] for k in keys).is_unique().all()):
            break
        keys.append(i)
    return keys


def cells(frame: pl.DataFrame, shares: Collection[str] = ()) -> dict[str, list[str]]:
    """Every column of ``frame`` formatted for a person, by name: :func:`column` for each, then
    each estimate with an interval (``mean`` and ``lo`` / ``hi``, ``x_mean`` and ``x_lo`` / ``x_hi``
    or ``x_se``, ...) and its bounds to the decimals the narrowest interval justifies
    (:func:`decimals_for`); shares stay percentages. ``shares`` names more columns that hold shares
    or differences of shares (a column called ``mean`` or ``diff`` whose unit only the command knows):
    they are percentages too."""
    shares = share_columns(frame) | {c for c in shares if c in frame.columns and frame.schema[c].is_numeric()}
    out = {c: column(frame, c, shares) for c in frame.columns}
    groups: list[tuple[list[str], list[float]]] = []
    for lo, hi in interval_pairs(frame.columns).values():
        if lo in shares:  # percentages: more decimals only in a row whose interval's ends would print alike
            stem, suffix = (lo[:-2], "") if lo.endswith("lo") else ("", lo[2:])
            for r, (a, b) in enumerate(zip(frame[lo].to_list(), frame[hi].to_list(), strict=True)):
                d = share_digits([a], [b])
                for c in [lo, hi, *[e for e in _estimates(frame, stem, suffix)[:1] if e in shares]] if d > 1 else []:
                    v = frame[c][r]
                    out[c][r] = pct(v, d) if v is not None else ""
            continue
        # an interval of width 0 (or a float's rounding above it: a fixed reference) sets no precision
        halves = [(b - a) / 2 for a, b in zip(frame[lo].to_list(), frame[hi].to_list(), strict=True)
                  if finite(a) and finite(b) and b - a > 1e-9 * max(1.0, abs(a), abs(b))]
        stem, suffix = (lo[:-2], "") if lo.endswith("lo") else ("", lo[2:])
        groups.append(([lo, hi, *_estimates(frame, stem, suffix)[:1]], halves))
    for c in frame.columns:
        if c == "se" or c.endswith("_se"):
            stem = c[:-2]
            est = [e for e in _estimates(frame, stem) if e not in shares][:1]
            halves = [1.96 * v for v in frame[c].to_list() if finite(v) and v > 0]
            if est and not any(est[0] in g for g, _h in groups):
                groups.append((est, halves))
    for names, halves in groups:
        if not halves:
            continue
        d = decimals_for(min(halves))
        for c in names:
            out[c] = [num(v, d) if v is not None else "" for v in frame[c].to_list()]
    if {"metric", "value", "lo", "hi"} <= set(frame.columns):
        out |= _metric_rows(frame)
    elif "measure" in frame.columns and {"lo", "hi"} <= set(frame.columns):
        out |= _measure_rows(frame)
    return out


_PERCENT_METRICS = re.compile(r"(rate|advantage|decisiveness)$")


def _metric_rows(frame: pl.DataFrame) -> dict[str, list[str]]:
    """A ``metric, value, lo, hi`` table (the balance metrics) row by row, since its rows mix units:
    rates, advantages and shares as percentages, other values to their interval's precision."""
    out: dict[str, list[str]] = {"value": [], "lo": [], "hi": []}
    for r in frame.iter_rows(named=True):
        if str(r["metric"]).endswith("p-value"):  # as every p column: "< 0.001", never "0" (impossible)
            for c in out:
                out[c].append(prob(r[c]))
            continue
        if _PERCENT_METRICS.search(str(r["metric"])):
            for c in out:
                out[c].append(pct(r[c]))
            continue
        for c in out:
            out[c].append(num(r[c], _row_decimals(r)))
    return out


def _row_decimals(r: dict[str, Any]) -> int | None:
    """The decimals a row's own interval justifies; without an interval (all units alike: a length
    every game had), three significant digits (``15.0``, not ``15.0000``)."""
    if not (finite(r["hi"]) and finite(r["lo"])):
        return None
    return decimals_for((r["hi"] - r["lo"]) / 2)


#: the columns of a ``measure`` table (cardsim cards' effects) in the unit of their row's measure
_MEASURE_VALUES = ("full_deck", "full_deck_lo", "full_deck_hi", "changed", "changed_lo", "changed_hi", "effect", "lo",
                   "hi", "lo_simultaneous", "hi_simultaneous")


def _measure_rows(frame: pl.DataFrame) -> dict[str, list[str]]:
    """A table with a ``measure`` column whose rows mix units (a game length in turns, an advantage
    or a win rate): the value columns of a rate or advantage row as percentages, of any other row to
    the decimals its own interval justifies."""
    cols = [c for c in _MEASURE_VALUES if c in frame.columns and frame.schema[c].is_numeric()]
    out: dict[str, list[str]] = {c: [] for c in cols}
    ends = [(f"{s}lo", f"{s}hi") for s in ("full_deck_", "changed_", "")] + [("lo_simultaneous", "hi_simultaneous")]
    for r in frame.iter_rows(named=True):
        share = bool(_PERCENT_METRICS.search(str(r["measure"])))
        d = 1 if share else _row_decimals(r)
        if d is not None:  # each interval's ends on their own side of 0 (no effect, no edge): a length effect's
            for lo, hi in ends:  # -0.14 to +14.4 printed "0" to "14", as its +0.04 to +13.7 did
                if lo in cols and hi in cols:
                    d = side_digits(r[lo], r[hi], 0.0, d, scale=100.0 if share else 1.0)
        for c in cols:
            out[c].append(pct(r[c], d) if share else num(r[c], d))  # rows alike
    return out


def seq(values: Sequence[Any], decimals: int | None = None) -> list[str]:
    """Numbers formatted alike (same decimals)."""
    good = [abs(v) for v in values if finite(v) and v != 0]
    d = decimals if decimals is not None else (_sig_decimals(max(good)) if good else 0)
    return [num(v, d) for v in values]
