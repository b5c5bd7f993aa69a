"""The FUBNUB team plug-in the tests share.

A plug-in's kernel is the whole FUBNUB kernel compiled again with the plug-in's functions in it,
keyed by the plug-in's file name and content (``cardsim.policies``): tests that write the same
file (:func:`write_duck`, same name, same text) share one compiled kernel through the numba cache,
where each different source would compile the kernel anew (half a minute or more). So the tests
vary its behaviour with its parameters, and write another source only where the edit itself is
what they test (:data:`LOWEST`, an untypable card decision).
"""

from __future__ import annotations

from pathlib import Path

#: ``{card}``: what ``duck_card`` returns; ``top``: the call threshold (a position); ``boom`` > 0:
#: the card decision raises for the last seat of a trick; ``bad`` > 0: an illegal swap (index 7)
PLUGIN = '''
import numba

duck_params = {{"top": 8.0, "boom": 0.0, "bad": 0.0}}


@numba.njit
def duck_call(hand, pos, point, seat, dealer, rnd, params, rng):
    strong = 0
    for i in range(5):
        strong += pos[hand[i]] < params[0]
    return 1 if strong >= 2 else 0


@numba.njit
def duck_swap(hand, pos, point, nswaps, params, rng, out):
    out[0] = 7 if params[2] > 0 else -1
    out[1] = -1


@numba.njit
def duck_card(hand, n, pos, point, trick, tseat, nplayed, winner, seat, partner, caller, tricks, params, rng):
    if params[1] > 0 and nplayed == 3:
        raise ValueError("no card for the last seat\\nmore text")
    return {card}
'''
#: the card decisions: the highest card of the hand (it comes ordered highest first), the lowest
HIGHEST, LOWEST = "0", "n - 1"


def write_duck(folder: Path, card: str = HIGHEST) -> Path:
    """Write ``folder/duck.py`` (the plug-in ``duck``, playing ``card``); returns its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "duck.py"
    path.write_text(PLUGIN.format(card=card))
    return path
