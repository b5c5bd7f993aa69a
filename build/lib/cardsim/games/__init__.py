"""The game registry: name -> the module holding that game's ``GAME`` face.

Games are imported lazily, so a CLI call pays only for the game it uses.
"""

from __future__ import annotations

import importlib
from functools import cache

from cardsim.errors import ScenarioError, allowed_list, did_you_mean
from cardsim.games.base import Game

_REGISTRY: dict[str, str] = {
    "fubnub": "cardsim.games.fubnub.game",
    "turtle": "cardsim.games.turtle.game",
    "gubs": "cardsim.games.gubs.game",
    "fourbid": "cardsim.games.fourbid.game",
}


def game_names() -> list[str]:
    """Names of the games whose package is present, in registry order."""
    return [n for n in _REGISTRY if importlib.util.find_spec(_REGISTRY[n].rsplit(".", 1)[0]) is not None]


@cache
def get_game(name: str) -> Game:
    """The registered game called ``name``; an unknown name lists the known ones."""
    names = game_names()
    if name not in names:
        raise ScenarioError(f"unknown game {name!r}{did_you_mean(name, names)}; allowed: {allowed_list(names)}")
    return importlib.import_module(_REGISTRY[name]).GAME
