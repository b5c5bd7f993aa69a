"""Compile ahead the kernels a new user's first commands need (``make setup``).

``python -m cardsim.warm [SCENARIO ...]`` loads (or compiles into the one
cache) the kernels that ``cardsim run SCENARIO`` plays and that ``cardsim
trace GAME`` replays, for each scenario's game, and the minimal kernel that
``cardsim bench`` compares with, one game per process, the processes side
by side (a compile uses one core). With no argument it warms
``scenarios/fubnub.toml`` and the default kernels of every game (first
variant, default policy at every seat).
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

#: games by the time their default kernels take to compile, longest first (measured on make setup)
LONGEST_FIRST = ("gubs", "fubnub", "fourbid", "turtle")


def warm_game(game: str, scenarios: list[str]) -> tuple[str, float]:
    """Compile (or load) ``game``'s run kernels for ``scenarios`` (its default set-up when empty),
    its minimal kernel (the bench's baseline) and its trace kernel; returns (game, seconds)."""
    from cardsim import scenario as sc
    from cardsim.games import get_game
    from cardsim.rng import root_key

    t = time.perf_counter()
    g = get_game(game)
    default = sc.build_setup(g)
    for setup in [sc.load(p).setup for p in scenarios] or [default]:
        g.simulate_chunk(setup, root_key(0), 0, 1)
    g.minimal_chunk(default, root_key(0), 0, 1)  # what `cardsim bench` compares with
    g.trace(default, root_key(0), 0, 1)
    return game, time.perf_counter() - t


def main(argv: list[str]) -> None:
    from cardsim import scenario as sc
    from cardsim.games import game_names

    paths = argv or [p for p in ["scenarios/fubnub.toml"] if Path(p).exists()]
    by_game: dict[str, list[str]] = {} if argv else {g: [] for g in game_names()}
    for p in paths:
        by_game.setdefault(sc.load(p).game, []).append(p)
    # the longest compile first, so the shorter ones share the other cores (Gubs' kernels take about
    # as long as the other three games' together)
    by_game = dict(sorted(by_game.items(), key=lambda kv: LONGEST_FIRST.index(kv[0])
                          if kv[0] in LONGEST_FIRST else len(LONGEST_FIRST)))
    t = time.perf_counter()
    with ProcessPoolExecutor(min(len(by_game), os.cpu_count() or 1)) as pool:
        for game, seconds in pool.map(warm_game, by_game, by_game.values()):
            print(f"warm: {game} kernels ready ({seconds:.0f} s)", flush=True)
    print(f"warm: done in {time.perf_counter() - t:.0f} s", flush=True)


if __name__ == "__main__":
    if {"-h", "--help"} & set(sys.argv[1:]):  # it was read as a scenario file, with a traceback
        print(__doc__.strip())
        sys.exit(0)
    from cardsim.errors import CardsimError

    try:
        main(sys.argv[1:])
    except CardsimError as exc:  # a missing or malformed scenario: one line, as the CLI says it
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
