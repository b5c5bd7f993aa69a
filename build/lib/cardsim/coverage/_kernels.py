"""Real games for the coverage cases whose truth symmetry gives (played in memory, no run directory)."""

from __future__ import annotations

from functools import cache

import polars as pl

from cardsim.games import get_game
from cardsim.rng import root_key
from cardsim.scenario import from_dict


@cache
def _setup(game: str, variant: str | None, players: int | None, policy: str):
    sc = {"name": "coverage", "game": game, "games": 1, "seed": 0}
    if variant:
        sc["variant"] = variant
    if players:
        sc["players"] = players
    return from_dict({"scenario": sc, "seats": {"policy": policy}}).setup


def play(game: str, seed: int, games: int, policy: str, variant: str | None = None,
         players: int | None = None) -> dict[str, pl.DataFrame]:
    """The tables of ``games`` games of ``game`` from root seed ``seed`` (every seat ``policy``)."""
    setup = _setup(game, variant, players, policy)
    return get_game(game).simulate_chunk(setup, root_key(seed), 0, games)


def outcomes(game: str, tables: dict[str, pl.DataFrame], policy: str, variant: str | None = None,
             players: int | None = None) -> pl.DataFrame:
    setup = _setup(game, variant, players, policy)
    return get_game(game).outcomes({k: v.lazy() for k, v in tables.items()}, setup).collect()
