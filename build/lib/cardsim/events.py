"""The event buffer every kernel fills when asked (``cardsim trace``; DESIGN "Correctness").

An event is one int64 row ``(game, kind, seat, a, b, c, d, e)``; kernels count
rows past the buffer's capacity without writing them, so the Python wrapper
can grow the buffer and play the same games again. Each game decodes the
rows into named events (``Game.trace``).

An event that names a list of cards of any length (the undealt cards, a deck's
order) is a *list event* (:func:`emit_list`): its row carries the list's length
in ``b`` and its first three items in ``c, d, e``; rows of kind :data:`MORE`
right after it carry six items each. :func:`decode_rows` hands a game's decoder
each event row with its whole list.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

import numpy as np
from numba import types as nt

from cardsim.jit import njit, typed

#: the kind of a continuation row: six more items of the list event just before it
MORE = 127

I64 = nt.int64
#: ``(ev, i or evn, g, kind, seat, a, b, c, d, e)``: one signature each, whatever the kernels pass
#: (literal kinds, int32 fields): numba would compile them once per combination, 200 times in all
_WRITE = nt.void(I64[:, ::1], I64, I64, I64, I64, I64, I64, I64, I64, I64)
_EMIT = nt.void(I64[:, ::1], I64[::1], I64, I64, I64, I64, I64, I64, I64, I64)


@typed(_WRITE, _nrt=False)
def write_event(ev, i, g, kind, seat, a, b, c, d, e):
    """Write event row ``i`` when it fits in ``ev`` (int64[cap, 8])."""
    if i < ev.shape[0]:
        ev[i, 0] = g
        ev[i, 1] = kind
        ev[i, 2] = seat
        ev[i, 3] = a
        ev[i, 4] = b
        ev[i, 5] = c
        ev[i, 6] = d
        ev[i, 7] = e


@typed(_EMIT, _nrt=False)
def emit(ev, evn, g, kind, seat, a, b, c, d, e):
    """Append one event row; ``evn[0]`` counts rows, past the capacity too."""
    write_event(ev, evn[0], g, kind, seat, a, b, c, d, e)
    evn[0] += 1


@njit(_nrt=False, inline="always")
def list_item(items, n, i, reverse):
    """Item ``i`` of the list ``items[:n]`` (read back to front when ``reverse``), -1 past its end."""
    if i >= n:
        return -1
    return items[n - 1 - i] if reverse else items[i]


@njit(_nrt=False)
def emit_list(ev, evn, g, kind, seat, a, items, n, reverse):
    """Append a list event: ``kind`` with ``seat`` and ``a``, and the list ``items[:n]`` (read
    back to front when ``reverse``, e.g. a deck stored with its top last, to list it top first)."""
    emit(ev, evn, g, kind, seat, a, n, list_item(items, n, 0, reverse), list_item(items, n, 1, reverse),
         list_item(items, n, 2, reverse))
    for j in range(3, n, 6):
        emit(ev, evn, g, MORE, list_item(items, n, j, reverse), list_item(items, n, j + 1, reverse),
             list_item(items, n, j + 2, reverse), list_item(items, n, j + 3, reverse),
             list_item(items, n, j + 4, reverse), list_item(items, n, j + 5, reverse))


def decode_rows(ev: np.ndarray, decode: Callable[[list[int], list[int]], Any],
                list_kinds: Collection[int]) -> list[Any]:
    """``decode(row, items)`` for every event row of ``ev`` but the continuation rows: ``items`` is
    the whole list of a list event (a kind in ``list_kinds``), else empty."""
    rows = ev.tolist()
    out = []
    i = 0
    while i < len(rows):
        row = rows[i]
        i += 1
        items: list[int] = []
        if row[1] in list_kinds:
            n = row[4]
            items = row[5:8]
            while len(items) < n:
                items += rows[i][2:8]
                i += 1
            items = items[:n]
        out.append(decode(row, items))
    return out
