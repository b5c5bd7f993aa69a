"""Play until an estimate is as precise as asked (``cardsim run --until 'winrate_s0 +-0.01'``).

A width target does not depend on the sign of the estimate's error, so it
needs no anytime-valid sequence (which costs about twice the games): the
run looks after every chunk, in game-index order, and stops at the first
look at which the fixed-n 95% Wilson interval is at most the asked
half-width (the fixed-width sequential rule of Chow and Robbins, 1965).
Its coverage at the stopping time is measured by the coverage suite (it
holds 95% to within Monte Carlo error at every rate and width tried), and
it plays about the games a fixed-n plan would need had the rate been known
in advance, never more than the worst case ``z^2 / (4 w^2)`` (p = 1/2)
plus one look.

Looks come every ``look_size(w)`` games (a sixteenth of the worst case, so
small targets get small chunks), and each look is taken at a chunk boundary
in game order: the stopping point is a function of the scenario, seed and
target alone, whatever the thread count or backend (threads play a few
chunks ahead; games past the stopping point are kept in the run directory
but not used).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from cardsim.errors import ScenarioError
from cardsim.sequential import parse_target
from cardsim.stats import Z95, wilson

#: looks per worst-case sample size
LOOKS = 16
#: the smallest look (games)
MIN_LOOK = 50


def worst_case(width: float) -> int:
    """Games a fixed-n 95% interval of half-width ``width`` needs for a rate of 1/2 (the most)."""
    return math.ceil(Z95 * Z95 / (4 * width * width))


def look_size(width: float) -> int:
    """Games between looks (and the chunk size of an ``--until`` run)."""
    return max(MIN_LOOK, math.ceil(worst_case(width) / LOOKS))


def fixed_n(rate: float, width: float) -> int:
    """Games a fixed-n normal interval of half-width ``width`` needs at a known ``rate``."""
    return math.ceil(Z95 * Z95 * rate * (1 - rate) / (width * width))


@dataclass(frozen=True)
class Target:
    seat: int
    width: float

    @property
    def name(self) -> str:
        return f"winrate_s{self.seat}"


def parse(text: str, players: int) -> Target:
    name, width = parse_target(text)
    m = re.fullmatch(r"winrate_s(\d+)", name)
    if not m:
        raise ScenarioError(f"until: unknown estimate {name!r}; allowed: winrate_s<seat> (e.g. winrate_s0)")
    seat = int(m.group(1))
    if seat >= players:
        raise ScenarioError(f"until: seat {seat} does not exist with {players} players; allowed: winrate_s0 to "
                            f"winrate_s{players - 1}")
    if not 0 < width < 1:  # after the estimate's name: 'length +-1' is told length is not one
        raise ScenarioError(f"--until {text!r}: the half-width must be in (0, 1)")
    return Target(seat, width)


@dataclass(frozen=True)
class Stop:
    """Where the rule stopped: after ``games`` games (``n`` finished), the rate and its Wilson interval."""

    games: int
    n: int
    rate: float
    lo: float
    hi: float
    reached: bool

    @property
    def half(self) -> float:
        return (self.hi - self.lo) / 2


def first_stop(wins: np.ndarray, looks: list[int], width: float) -> Stop | None:
    """The first look (a count of games, in game order) at which the Wilson half-width of the
    finished games' win rate is at most ``width``; None if no look qualifies. ``wins`` holds one
    value per game in game order (1, 1/k shared, 0; NaN for an unfinished game)."""
    w = np.asarray(wins, dtype=np.float64)
    fin = np.isfinite(w)
    ks = np.concatenate(([0.0], np.cumsum(np.where(fin, w, 0.0))))
    ns = np.concatenate(([0], np.cumsum(fin)))
    for g in looks:
        g = min(g, w.size)
        n, k = int(ns[g]), float(ks[g])
        if n == 0:
            continue
        lo, hi = wilson(k, n)
        if (hi - lo) / 2 <= width:
            return Stop(g, n, k / n, lo, hi, True)
    return None


def at(wins: np.ndarray, games: int) -> Stop:
    """The estimate after the first ``games`` games (when the cap comes first)."""
    w = np.asarray(wins, dtype=np.float64)[:games]
    fin = w[np.isfinite(w)]
    lo, hi = wilson(float(fin.sum()), fin.size)
    return Stop(games, fin.size, float(fin.mean()) if fin.size else math.nan, lo, hi, False)


def describe(t: Target, stop: Stop, look: int, cap: int) -> str:
    head = (f"{t.name} = {stop.rate:.4f} (95% CI {stop.lo:.4f}-{stop.hi:.4f}, +-{stop.half:.4f}) after "
            f"{stop.games:,} games")
    if not stop.reached:
        return head + f": the cap of {cap:,} games came before the asked +-{t.width:g} (add --games to go on)."
    ideal = fixed_n(stop.rate, t.width)
    return (head + f": stopped at the first look (every {look:,} games, in game order) whose Wilson interval was "
            f"within +-{t.width:g}. A fixed-n plan that knew the rate would need {ideal:,} games; the worst case "
            f"(rate 1/2) {worst_case(t.width):,}.")
