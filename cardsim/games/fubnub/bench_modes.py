"""Throughput of every FUBNUB variant, side by side (``cardsim bench`` times the default variant only).

Run ``python -m cardsim.games.fubnub.bench_modes [games] [interp_games]``: for each variant (and
Battle Royal at 2, 3 and 4 players) it prints hands/s of the full kernel, of the same kernel
interpreted (``NUMBA_DISABLE_JIT=1`` in a subprocess) and of the minimal kernel, in back-to-back
pairs so machine noise hits them alike (CPU time of the process, so other processes on a shared
machine distort it less), and the ratios the design asks for (full/minimal >= 0.5: the median of
the pairs' ratios, as ``cardsim bench``; full/interpreted >= 30).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from cardsim.bench import PAIRS, median
from cardsim.games.fubnub.game import GAME
from cardsim.rng import root_key
from cardsim.scenario import build_setup

CASES = (("traditional", 4), ("lucky_ghost", 1), ("lucky_ghost", 2), ("lucky_ghost", 3), ("battle_royal", 2),
         ("battle_royal", 3), ("battle_royal", 4), ("solo", 1), ("full_deck", 4))


def full_rate(variant: str, players: int, count: int, start: int = 0) -> float:
    setup = build_setup(GAME, variant, players)
    key = root_key(0)
    t = time.process_time()
    hands = GAME.bench_chunk(setup, key, start, count)
    return hands / (time.process_time() - t)


def minimal_rate(hands: int, start: int = 0) -> float:
    setup = build_setup(GAME, "traditional")
    t = time.process_time()
    n = GAME.minimal_chunk(setup, root_key(0), start, hands)
    return n / (time.process_time() - t)


def interpreted_rate(variant: str, players: int, count: int) -> float:
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    code = ("import json; from cardsim.games.fubnub.bench_modes import full_rate; "
            f"print(json.dumps(full_rate({variant!r}, {players}, {count})))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def main(count: int = 20000, interp: int = 40) -> None:
    for variant, players in CASES:
        full_rate(variant, players, 2)
    minimal_rate(100)
    print(f"{'variant':<14}{'players':>8}{'full hands/s':>14}{'minimal':>12}{'interp':>10}{'full/min':>10}"
          f"{'full/interp':>12}")
    for variant, players in CASES:
        fulls, mins = [], []
        for r in range(PAIRS):  # back to back: the median of the pairs' ratios (cardsim.bench)
            fulls.append(full_rate(variant, players, count, r * count))
            mins.append(minimal_rate(count * 12, r * count))
        full = median(fulls)
        ratio = median([f / m for f, m in zip(fulls, mins, strict=True)])
        it = interpreted_rate(variant, players, interp)
        print(f"{variant:<14}{players:>8}{full:>14,.0f}{median(mins):>12,.0f}{it:>10,.0f}{ratio:>10.2f}"
              f"{full / it:>12.0f}")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(prog="python -m cardsim.games.fubnub.bench_modes", description=__doc__.split("\n\n")[0])
    ap.add_argument("games", nargs="?", type=int, default=20000, help="games a pair, each kernel (default 20,000)")
    ap.add_argument("interp_games", nargs="?", type=int, default=40,
                    help="games of the interpreted kernel (default 40)")
    a = ap.parse_args()  # "--help" or a word was a traceback (int('--help'))
    main(a.games, a.interp_games)
