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

#: ``Series.cat.to`` (physical values to an Enum) exists in this polars
_CAT_TO = hasattr(pl.Series([], dtype=pl.Enum(["x"])).cat, "to")
_NUMPY = {pl.Int8: np.int8, pl.Int16: np.int16, pl.Int32: np.int32, pl.Int64: np.int64,
          pl.UInt8: np.uint8, pl.UInt16: np.uint16, pl.UInt32: np.uint32}


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
    """``names``' entries (an Enum or String series) at ``codes``; -1 gives null. When ``names`` is
    an Enum's own categories in order and no code is -1, the codes are the column's physical values
    and become it directly (``cat.to``: 1.6x faster than a gather). With nulls, a gather without
    null indices and a null mask laid over it (three times faster than gathering null indices, and
    faster than building the physical values with nulls)."""
    has = codes >= 0
    every = bool(has.all())
    if every and _CAT_TO and isinstance(names.dtype, pl.Enum):
        phys = names.to_physical()  # a few dozen entries
        if phys.dtype in _NUMPY and phys.equals(pl.Series(names.name, np.arange(len(names)), dtype=phys.dtype)):
            return pl.Series(names.name, codes.astype(_NUMPY[phys.dtype])).cat.to(names.dtype)
    out = names.gather(pl.Series(np.where(has, codes, 0).astype(np.uint32)))
    if every:
        return out
    return out.zip_with(pl.Series(has), const(len(codes), None, names.dtype))
