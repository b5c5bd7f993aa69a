"""A run's tables read a window of whole games at a time, in bounded memory.

Some summaries need each game's rows together (how often a card came up in one game, a seat's
outcome beside the cards it drew): a polars group-by or join over the whole run holds every game's
keys in memory at once, which grows with the run (gigabytes at a million games). A run's tables
hold their rows in game order (parts in chunk order, games in order within a chunk), so they can be
streamed side by side: :func:`game_windows` yields, for consecutive ranges of games, the rows of
every table asked for, each window complete (no game split between two windows). A summary
aggregates each window and adds the partial results up.

The order is checked as the rows arrive: rows out of game order raise :class:`OrderError`, never a
silently wrong count.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import polars as pl

#: rows of the leading table per window (the others bring the rows of the same games)
WINDOW_ROWS = 1 << 16


R = TypeVar("R")


def kept_for_frames(fn: Callable[..., R]) -> Callable[..., R]:
    """``fn(tables, *args)``, a pass over a run's tables, computed once for the same lazy frames (the
    same objects: :attr:`cardsim.api.Result.tables` makes them once a result) and arguments: a
    report's answer, figures and summary ask for the same card sums. Only the last call is kept (and
    its frames, so that their ids are not reused); ``fn.read`` computes afresh. What ``fn`` returns
    is shared between the callers, so nobody may change it."""
    last: list[Any] = []

    @functools.wraps(fn)
    def kept(tables: Mapping[str, pl.LazyFrame], *args: Any) -> R:
        key = (tuple(tables), tuple(map(id, tables.values())), args)
        if last and last[0] == key:
            return last[2]
        value = fn(tables, *args)
        last[:] = [key, tuple(tables.values()), value]
        return value

    kept.read = fn  # type: ignore[attr-defined]
    return kept


class OrderError(RuntimeError):
    """A table's rows are not in game order (a run directory cardsim did not write?)."""


class _Stream:
    """One table's batches, in order, with the rows not handed out yet."""

    def __init__(self, name: str, lf: pl.LazyFrame, rows: int) -> None:
        self.name = name
        self.batches = iter(lf.collect_batches(chunk_size=rows, maintain_order=True))
        self.held: list[pl.DataFrame] = []
        self.last = -1  # the highest game read so far
        self.done = False

    def pull(self) -> bool:
        """Read one more batch; False when the table is exhausted."""
        for b in self.batches:
            if b.height == 0:
                continue
            g = b["game"].to_numpy()
            if g[0] < self.last or (g.size > 1 and bool((np.diff(g) < 0).any())):
                raise OrderError(f"the {self.name!r} table's rows are not in game order (game {int(g[0])} "
                                 f"after game {self.last}, or out of order within a batch)")
            self.last = int(g[-1])
            self.held.append(b)
            return True
        self.done = True
        return False

    def take(self, cut: int | None) -> pl.DataFrame:
        """The held rows of games before ``cut`` (all of them when ``cut`` is None), handed out."""
        df = pl.concat(self.held) if len(self.held) > 1 else (self.held[0] if self.held else None)
        if df is None:
            return pl.DataFrame()
        if cut is None:
            self.held = []
            return df
        k = int(np.searchsorted(df["game"].to_numpy(), cut, side="left"))
        self.held = [df.slice(k)] if k < df.height else []
        return df.slice(0, k)


def game_windows(tables: Mapping[str, pl.LazyFrame], names: Sequence[str],
                 columns: Mapping[str, Sequence[str]] | None = None,
                 rows: int | None = None) -> Iterator[dict[str, pl.DataFrame]]:
    """Windows of whole games over ``names`` (tables with a ``game`` column, in game order): each
    a dict of table name to that table's rows of the same consecutive games, in game order.

    ``names[0]`` leads: a window ends before the last game of about ``rows`` (default
    :data:`WINDOW_ROWS`) of its rows, and the other tables are read up to the same game. ``columns``
    (per table) selects the columns read (``game`` is always read). A table with no rows for a
    window's games gives an empty frame with its columns. Memory: a window's rows, whatever the
    run's size."""
    rows = rows or WINDOW_ROWS
    cols = {n: ["game", *(c for c in (columns or {}).get(n, []) if c != "game")] for n in names}
    streams = [_Stream(n, tables[n].select(cols[n]), rows) for n in names]
    empty = {n: tables[n].select(cols[n]).clear().collect() for n in names}
    lead, rest = streams[0], streams[1:]

    def window(cut: int | None) -> dict[str, pl.DataFrame]:
        out = {}
        for s in streams:
            df = s.take(cut)
            out[s.name] = df if df.width else empty[s.name]
        return out

    while lead.pull():
        cut = lead.last  # the lead's last game may go on in its next batch: it waits for the next window
        for s in rest:
            while not s.done and s.last < cut:
                s.pull()
        w = window(cut)
        if w[lead.name].height:
            yield w
    for s in rest:
        while s.pull():
            pass
    w = window(None)
    if any(df.height for df in w.values()):
        yield w
