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

_NUMPY = {pl.Int8: np.int8, pl.Int16: np.int16, pl.Int32: np.int32, pl.Int64: np.int64}


def column(values: np.ndarray, dtype: pl.DataType) -> pl.Series:
    """An integer column of ``dtype`` from ``values`` (often a strided column of a kernel's row-major
    table): numpy converts and packs it in one pass, three times faster than polars' cast of a
    strided array (the values fit the type: the kernels write them so)."""
    return pl.Series(values.astype(_NUMPY[dtype]))


def const(n: int, value: Any, dtype: pl.DataType) -> pl.Series:
    """``n`` copies of ``value`` (None: an all-null column, for a column the variant does not use)."""
    return pl.Series([value], dtype=dtype).new_from_index(0, n)


def flags(values: np.ndarray) -> pl.Series:
    """A Boolean column: ``values == 1``."""
    return pl.Series(values == 1)


def pick(names: pl.Series, codes: np.ndarray) -> pl.Series:
    """``names``' entries (an Enum or String series) at ``codes``; -1 gives null. (A gather with
    null indices is three times slower than one without and a null mask laid over it.)"""
    has = codes >= 0
    out = names.gather(pl.Series(np.where(has, codes, 0).astype(np.uint32)))
    if has.all():
        return out
    return out.zip_with(pl.Series(has), const(len(codes), None, names.dtype))
