"""Gubs against GUBS_agent, a public plain-Python Gubs engine, timed in one run.

    python -m cardsim.games.gubs.vs_gubs_agent PATH [--rounds 5] [--agent-games 200] [--games 200000]

``PATH`` is a checkout of https://github.com/Bernhard-Finke/GUBS_agent (nothing of it is part
of cardsim: its ``gubs_engine`` module is imported from there). For 2 and 4 players, each
round times, back to back:

- **GUBS_agent**: its own random-agent loop (a ``GubsGame`` with one ``RandomAgent`` a seat,
  actions chosen and applied until the game is over or 3,000 moves, as its ``__main__``
  does), ``--agent-games`` games;
- **cardsim**: ``cardsim.api.run`` of a Gubs scenario with the ``random`` policy at every seat
  (``--games`` games into a fresh run directory: the kernel, the tables, the parquet parts
  and the manifest, what ``cardsim run`` does before printing its summary), on one thread
  (``threads=1``) and on the default threads.

Games per second are taken in CPU time (of the measuring thread for GUBS_agent, of the whole
process for cardsim, so every thread's work counts) and in wall time; the ratios use the
figures of the same round, and the report gives each ratio's median and range over rounds.
"""

from __future__ import annotations

import argparse
import importlib
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from cardsim import api
from cardsim.bench import median


def agent_loop(engine, players: int, games: int) -> tuple[float, float, float]:
    """GUBS_agent's random-agent loop for ``games`` games: (CPU s, wall s, moves a game)."""
    moves = 0
    c, w = time.thread_time(), time.perf_counter()
    for _ in range(games):
        game = engine.GubsGame(num_players=players)
        agents = [engine.RandomAgent(i) for i in range(players)]
        m = 0
        while not game.is_terminal() and m < 3000:
            action = agents[game.current_player].select_action(game)
            if action is None:
                break
            game.apply_action(action)
            m += 1
        moves += m
    return time.thread_time() - c, time.perf_counter() - w, moves / games


def cardsim_run(players: int, games: int, seed: int, threads: int | None, tmp: Path) -> tuple[float, float, float]:
    """``api.run`` of ``games`` random-policy Gubs games: (CPU s, wall s, turns a game)."""
    scen = tmp / f"gubs{players}.toml"
    scen.write_text(f'[scenario]\nname = "vs_gubs_agent"\ngame = "gubs"\nplayers = {players}\n'
                    f'games = {games}\nseed = {seed}\n[seats]\npolicy = "random"\n')
    out = tmp / f"run{players}-{seed}-{threads}"
    c, w = time.process_time(), time.perf_counter()
    res = api.run(scen, out=out, threads=threads)
    cpu, wall = time.process_time() - c, time.perf_counter() - w
    turns = res.tables["games"].select("turns").mean().collect().item()
    shutil.rmtree(out)
    return cpu, wall, turns


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", type=Path, help="a checkout of Bernhard-Finke/GUBS_agent")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--agent-games", type=int, default=200, help="GUBS_agent games per round and player count")
    ap.add_argument("--games", type=int, default=200_000, help="cardsim games per round and player count")
    a = ap.parse_args(argv)
    if not (a.path / "gubs_engine.py").is_file():
        sys.exit(f"error: {a.path} has no gubs_engine.py; give a checkout of Bernhard-Finke/GUBS_agent")
    sys.path.insert(0, str(a.path))
    engine = importlib.import_module("gubs_engine")
    random.seed(1)
    rows: dict[int, list[dict[str, float]]] = {2: [], 4: []}
    with tempfile.TemporaryDirectory(prefix="vs-gubs-agent-") as t:
        tmp = Path(t)
        for p in (2, 4):  # compile (or load) the kernels first
            cardsim_run(p, 100, 0, 1, tmp)
        for r in range(a.rounds):
            for p in (2, 4):
                ac, aw, am = agent_loop(engine, p, a.agent_games)
                c1, w1, turns = cardsim_run(p, a.games, r + 1, 1, tmp)
                cd, wd, _ = cardsim_run(p, a.games, r + 1, None, tmp)
                row = {"agent_cpu": a.agent_games / ac, "agent_wall": a.agent_games / aw, "moves": am,
                       "one_cpu": a.games / c1, "one_wall": a.games / w1, "turns": turns,
                       "def_cpu": a.games / cd, "def_wall": a.games / wd}
                rows[p].append(row)
                print(f"round {r + 1}, {p} players: GUBS_agent {row['agent_cpu']:,.0f} games/s CPU "
                      f"({row['agent_wall']:,.0f} wall, {am:.0f} moves a game); cardsim one thread "
                      f"{row['one_cpu']:,.0f} CPU ({row['one_wall']:,.0f} wall, {turns:.1f} turns a game), "
                      f"default threads {row['def_cpu']:,.0f} CPU ({row['def_wall']:,.0f} wall)", flush=True)
    print("\n| players | GUBS_agent games/s (CPU) | cardsim one thread games/s (CPU) | ratio | "
          "ratio, wall | cardsim default threads, wall | ratio, wall |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for p, rs in rows.items():
        print(f"| {p} | {median([r['agent_cpu'] for r in rs]):,.0f} | {median([r['one_cpu'] for r in rs]):,.0f} | "
              f"{_span(rs, 'one_cpu', 'agent_cpu')} | {_span(rs, 'one_wall', 'agent_wall')} | "
              f"{median([r['def_wall'] for r in rs]):,.0f} | {_span(rs, 'def_wall', 'agent_wall')} |")


def _span(rows: list[dict[str, float]], key: str, base: str) -> str:
    """The median and range of ``key / base`` over the rounds."""
    xs = [r[key] / r[base] for r in rows]
    return f"{median(xs):,.0f}x ({min(xs):,.0f}-{max(xs):,.0f})"


if __name__ == "__main__":
    main()
