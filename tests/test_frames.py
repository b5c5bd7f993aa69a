"""cardsim.frames: table columns from kernel arrays (issue 19: tables at kernel speed)."""

from __future__ import annotations

import numpy as np
import polars as pl
from polars.testing import assert_series_equal

from cardsim.frames import column, const, pick

NAMES = ("b", "a", "c")  # an Enum's categories in their order, not sorted
ENUM = pl.Series("card", NAMES, dtype=pl.Enum(list(NAMES)))


def gathered(names: pl.Series, codes: np.ndarray) -> pl.Series:
    """The column as a plain gather with nulls builds it (the reference)."""
    idx = pl.Series([int(c) if c >= 0 else None for c in codes], dtype=pl.UInt32)
    return names.gather(idx)


def test_pick_from_physical_codes_equals_a_gather():
    codes = np.array([2, 0, 1, 1, 0], np.int32)
    assert_series_equal(pick(ENUM, codes), gathered(ENUM, codes))
    assert pick(ENUM, codes).dtype == ENUM.dtype


def test_pick_with_nulls_and_other_series():
    codes = np.array([2, -1, 1, -1], np.int16)
    assert_series_equal(pick(ENUM, codes), gathered(ENUM, codes))
    strings = pl.Series("card", NAMES)
    assert_series_equal(pick(strings, np.array([1, 2], np.int8)), gathered(strings, np.array([1, 2])))
    # an Enum series that is not its categories in order still gathers by position
    sub = pl.Series("card", ["c", "b"], dtype=ENUM.dtype)
    codes = np.array([1, 0, 1], np.int32)
    assert_series_equal(pick(sub, codes), gathered(sub, codes))


def test_column_and_const():
    a = np.arange(12, dtype=np.int64).reshape(4, 3)
    assert_series_equal(column(a[:, 1], pl.Int8), pl.Series([1, 4, 7, 10], dtype=pl.Int8))
    assert_series_equal(const(3, None, pl.Int16), pl.Series([None] * 3, dtype=pl.Int16))
