import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The numba cache is cardsim.cachedir.base(): the checkout's .numba_cache unless NUMBA_CACHE_DIR is
# set, the same folder `make` and the CLI use.

#: the games whose kernels a test file's tests compile (the file name says which)
GAMES = ("fubnub", "turtle", "gubs", "fourbid")


def kernel_group(item: pytest.Item) -> str:
    """The kernels a test compiles: its game's (a ``game`` argument, a knob-matrix ``cell``'s game,
    or the game its file is named after), else its file's name. ``make test`` runs the suite on two
    workers (pytest-xdist, ``--dist loadgroup``) and gives each group to one worker, so two
    workers seldom compile one game's kernels at once (each would compile what the other is
    compiling; cardsim.jit keeps the cache consistent either way)."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    game = params.get("game") or getattr(params.get("cell"), "game", None)
    if game in GAMES:
        return game
    stem = item.path.stem
    return next((g for g in GAMES if stem.startswith(f"test_{g}")), stem)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        item.add_marker(pytest.mark.xdist_group(kernel_group(item)))
