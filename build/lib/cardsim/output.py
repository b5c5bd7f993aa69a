"""What a command prints, in three formats: a table for people, JSON and CSV for programs.

Every command that answers a question (``run``, ``compare``, ``sweep``,
``rate``, ``search``, ``meta``) builds one :class:`Output`: the answer in
plain words, notes (how the run stopped, warnings), the tables under their
terminal titles, and any extra fields a program needs (``search``'s
``best``). :func:`emit` prints it:

- ``table``: the answer, the notes, then each table under its title, sized
  to the terminal (``COLUMNS`` or the terminal's width; 160 off a terminal):
  numbers as a person reads them (counts as integers, shares as percentages),
  never split across lines; a wide table is printed in blocks of columns;
- ``json``: one object ``{"answer": ..., "notes": [...], "tables": {title:
  [row, ...]}, **fields}``, rows keyed by the terminal's column names;
- ``csv``: each table as CSV after a ``# <title>`` line, tables separated by
  a blank line (the answer and notes as ``#`` lines first).

Only the answer goes to stdout; progress and compile messages go to stderr.
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import polars as pl


class Format(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"


@dataclass
class Output:
    """One command's answer: ``answer`` (plain words), ``tables`` ((title, frame) in print order),
    ``notes`` (lines after the answer), ``fields`` (extra top-level JSON keys) and ``shares`` (a
    table's title -> its columns that hold shares or differences of shares under a name that does not
    say so, such as ``mean`` or ``diff``: percentages in the table format, raw values in JSON and CSV)."""

    answer: str
    tables: list[tuple[str, pl.DataFrame]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    fields: dict[str, Any] = field(default_factory=dict)
    shares: dict[str, Sequence[str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object (NaN and infinities become null)."""
        out: dict[str, Any] = {"answer": self.answer, "notes": list(self.notes),
                               "tables": {title: frame.to_dicts() for title, frame in self.tables}}
        out.update(self.fields)
        return _clean(out)


def _clean(x: Any) -> Any:
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    return x


def terminal_width() -> int:
    """Columns to fit tables in: the terminal's (or ``COLUMNS``), 160 when neither is known."""
    return max(40, shutil.get_terminal_size((160, 40)).columns)


def render(out: Output, fmt: Format | str = Format.table, width: int | None = None) -> str:
    """The text :func:`emit` prints (tables fitted to ``width`` columns, default the terminal's)."""
    fmt = Format(fmt)
    if fmt is Format.json:
        return json.dumps(out.to_dict(), indent=1, default=str)
    if fmt is Format.csv:
        parts = [f"# {line}" for line in [out.answer, *out.notes] if line]
        for title, frame in out.tables:
            parts += ["", f"# {title}", _csv(frame).rstrip("\n")]
        return "\n".join(parts)
    width = width or terminal_width()
    lines = [line for line in [out.answer, *out.notes] if line]
    for title, frame in out.tables:
        lines += ["", title, text_table(frame, width, out.shares.get(title, ()))]
    return "\n".join(lines)


def text_table(frame: pl.DataFrame, width: int = 160, shares: Sequence[str] = ()) -> str:
    """``frame`` as plain text for a person: numbers formatted by :mod:`cardsim.report.numbers`
    (counts as integers, shares and the columns ``shares`` names as percentages), right-aligned,
    never split across lines. A table wider than ``width`` is printed in blocks of columns, each
    repeating the leading key columns (the text and integer columns before the first other one)."""
    from cardsim.report.numbers import blocks, cells, key_columns

    if not frame.columns:
        return "(no columns)"
    cols = frame.columns
    by_name = cells(frame, shares)
    body = [by_name[c] for c in cols]
    right = [frame.schema[c].is_numeric() for c in cols]
    widths = [max([len(c), *map(len, body[i])]) for i, c in enumerate(cols)]
    keys = key_columns(frame, widths, width)
    parts = blocks(widths, keys, width)
    out: list[str] = []
    for b, block in enumerate(parts):
        idx = keys + block
        if b:
            out.append("")
        out.append("  ".join(cols[i].rjust(widths[i]) if right[i] else cols[i].ljust(widths[i]) for i in idx).rstrip())
        out.append("  ".join("-" * widths[i] for i in idx))
        for r in range(frame.height):
            out.append("  ".join(body[i][r].rjust(widths[i]) if right[i] else body[i][r].ljust(widths[i])
                                 for i in idx).rstrip())
    return "\n".join(out)


def _csv(frame: pl.DataFrame) -> str:
    nested = [c for c, t in frame.schema.items() if isinstance(t, pl.List | pl.Struct | pl.Array)]
    if nested:  # CSV has no nested values: write them as JSON text
        frame = frame.with_columns(pl.col(c).map_elements(lambda v: json.dumps(_clean(
            v.to_list() if hasattr(v, "to_list") else v)), return_dtype=pl.String) for c in nested)
    return frame.write_csv()


def emit(out: Output, fmt: Format | str = Format.table) -> None:
    """Print ``out`` to stdout in ``fmt``."""
    import typer

    typer.echo(render(out, fmt))
