"""Table columns from a kernel's arrays, without a Python object per row.

A chunk's tables are built after every kernel call, so their cost counts
against the kernel's (``cardsim bench``: "with tables"). These helpers make
a column from a numpy array in one vectorised step, and a column a variant
does not use from a constant.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl


def const(n: int, value: Any, dtype: pl.DataType) -> pl.Series:
    """``n`` copies of ``value`` (None: an all-null column, for a column the variant does not use)."""
    return pl.repeat(value, n, dtype=dtype, eager=True)


def flags(values: np.ndarray) -> pl.Series:
    """A Boolean column: ``values == 1``."""
    return pl.Series(values == 1)


def pick(names: pl.Series, codes: np.ndarray) -> pl.Series:
    """``names``' entries (an Enum or String series) at ``codes``; -1 gives null."""
    has = codes >= 0
    idx = pl.Series(np.where(has, codes, 0).astype(np.uint32))
    if not has.all():
        idx = pl.select(pl.when(pl.lit(pl.Series(has))).then(pl.lit(idx))).to_series()
    return names.gather(idx)
