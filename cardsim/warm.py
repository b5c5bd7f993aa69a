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

#: the compiles by the time they take, longest first (CPU seconds on make setup's machine): Gubs' run
#: kernel (160 s) alone is about as long as the other three games' kernels (105 s), so Gubs' trace and
#: bench kernels (85 s) are a task of their own, on the other core
LONGEST_FIRST = (("gubs", "run"), ("gubs", "trace"), ("fubnub", "all"), ("fourbid", "all"), ("turtle", "all"))
#: what a task compiles: the run kernels, the trace and minimal kernels, or all three
PARTS = {"run": ("run",), "trace": ("trace", "minimal"), "all": ("run", "trace", "minimal")}


def warm_game(game: str, scenarios: list[str], part: str = "all") -> tuple[str, float]:
    """Compile (or load) ``game``'s run kernels for ``scenarios`` (its default set-up when empty),
    its minimal kernel (the bench's baseline) and its trace kernel, or the ones :data:`PARTS` names for
    ``part``; returns (what was compiled, seconds)."""
    from cardsim import scenario as sc
    from cardsim.games import get_game
    from cardsim.rng import root_key

    t = time.perf_counter()
    g = get_game(game)
    default = sc.build_setup(g)
    if "run" in PARTS[part]:
        for setup in [sc.load(p).setup for p in scenarios] or [default]:
            g.simulate_chunk(setup, root_key(0), 0, 1)
    if "minimal" in PARTS[part]:
        g.minimal_chunk(default, root_key(0), 0, 1)  # what `cardsim bench` compares with
    if "trace" in PARTS[part]:
        g.trace(default, root_key(0), 0, 1)
    what = {"all": f"{game} kernels", "run": f"{game} run kernels", "trace": f"{game} trace and bench kernels"}
    return what[part], time.perf_counter() - t


def tasks(by_game: dict[str, list[str]]) -> list[tuple[str, list[str], str]]:
    """The compiles for ``by_game`` (game -> scenarios), longest first (:data:`LONGEST_FIRST`), so that
    the shorter ones share the other core: Gubs' in two tasks, every other game's in one."""
    out = []
    for game, paths in by_game.items():
        parts = ["run", "trace"] if game == "gubs" else ["all"]
        out += [(game, paths, part) for part in parts]

    def rank(task: tuple[str, list[str], str]) -> int:
        key = (task[0], task[2])
        return LONGEST_FIRST.index(key) if key in LONGEST_FIRST else len(LONGEST_FIRST)

    return sorted(out, key=rank)


def main(argv: list[str]) -> None:
    from cardsim import scenario as sc
    from cardsim.games import game_names

    paths = argv or [p for p in ["scenarios/fubnub.toml"] if Path(p).exists()]
    by_game: dict[str, list[str]] = {} if argv else {g: [] for g in game_names()}
    for p in paths:
        by_game.setdefault(sc.load(p).game, []).append(p)
    todo = tasks(by_game)
    t = time.perf_counter()
    with ProcessPoolExecutor(min(len(todo), os.cpu_count() or 1)) as pool:
        for what, seconds in pool.map(warm_game, *zip(*todo, strict=True)):
            print(f"warm: {what} ready ({seconds:.0f} s)", flush=True)
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
