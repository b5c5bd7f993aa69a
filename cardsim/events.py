"""The event buffer every kernel fills when asked (``cardsim trace``; DESIGN "Correctness").

An event is one int64 row ``(game, kind, seat, a, b, c, d, e)``; kernels count
rows past the buffer's capacity without writing them, so the Python wrapper
can grow the buffer and play the same games again. Each game decodes the
rows into named events (``Game.trace``).
"""

from __future__ import annotations

from cardsim.jit import njit


@njit(_nrt=False)
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


@njit(_nrt=False)
def emit(ev, evn, g, kind, seat, a, b, c, d, e):
    """Append one event row; ``evn[0]`` counts rows, past the capacity too."""
    write_event(ev, evn[0], g, kind, seat, a, b, c, d, e)
    evn[0] += 1
