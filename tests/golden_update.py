"""Regenerate the golden traces (``make golden``, or ``python -m tests.golden_update GAME...``)
after an intended rule change.

One file per registered game and variant: ``tests/golden/<game>-<variant>.jsonl``,
the JSON-lines trace of game 0 with seed 0 and the game's default policy, as ``cardsim trace``
prints it (its header event first).
"""

from __future__ import annotations

import json
from itertools import islice
from pathlib import Path

from cardsim.games import game_names, get_game
from cardsim.scenario import build_setup

GOLDEN = Path(__file__).parent / "golden"


#: a golden file keeps the first events of unit 0 (a FOURBID tournament runs to thousands)
MAX_LINES = 1500


def golden_lines(game: str, variant: str) -> list[str]:
    g = get_game(game)
    setup = build_setup(g, variant)
    return [json.dumps(e, sort_keys=True) for e in islice(g.traced(setup, 0, 0, 1), MAX_LINES)]


def cases() -> list[tuple[str, str]]:
    return [(n, v.name) for n in game_names() for v in get_game(n).variants]


def main(only: list[str]) -> None:
    GOLDEN.mkdir(exist_ok=True)
    for game, variant in cases():
        if only and game not in only:
            continue
        path = GOLDEN / f"{game}-{variant}.jsonl"
        path.write_text("\n".join(golden_lines(game, variant)) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
