import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The numba cache is cardsim.cachedir.base(): the checkout's .numba_cache unless NUMBA_CACHE_DIR is
# set, the same folder `make` and the CLI use.

#: the games whose kernels a test compiles: named by its parameters' id (``[fubnub-solo]``) or its file
GAMES = ("fubnub", "turtle", "gubs", "fourbid")
_GAME_ID = re.compile(r"\[(" + "|".join(GAMES) + r")[-\]]")


#: FUBNUB's individual play compiles the most kernels: its tests are two groups more, by variant (the
#: first match in a test's id: its parameters, else its name's rule id)
FUBNUB_GROUPS = ((re.compile(r"full_deck|_F15_|steal_and_pick"), "fubnub-full_deck"),
                 (re.compile(r"battle_royal|solo|_F1[34]_"), "fubnub-royal"),
                 (re.compile(r"traditional|lucky_ghost|_F12_"), "fubnub"))


#: files whose plug-in tests play tests/plugins.py's FUBNUB plug-in: with test_fubnub_rules' (one compile)
SHARED_PLUGIN = ("test_infra", "test_ux", "test_traces")

#: the groups by the time their kernels take to compile, longest first (measured on a first run)
HEAVIEST = ("fubnub-full_deck", "fubnub-royal", "gubs", "fubnub", "fourbid", "turtle")


def kernel_group(nodeid: str) -> str:
    """The kernels test ``nodeid`` compiles: its game's (the first word of its parameters' id, as
    ``test_traces.py::test_x[gubs]``, or the game its file is named after), else its file's;
    FUBNUB's by variant too (:data:`FUBNUB_GROUPS`), and the tests of the shared plug-in with FUBNUB's
    team play."""
    path, _, name = nodeid.partition("::")
    stem = Path(path).stem
    if "plugin" in name and stem in SHARED_PLUGIN:
        return "fubnub"
    m = _GAME_ID.search(name)
    game = m.group(1) if m else next((g for g in GAMES if stem.startswith(f"test_{g}")), stem)
    if game != "fubnub":
        return game
    params = name[name.index("["):] if "[" in name else ""
    for words, group in FUBNUB_GROUPS:
        if words.search(params) or words.search(name):
            return group
    return "fubnub-royal" if stem == "test_fubnub_modes" else "fubnub"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``make test`` runs the suite on two workers (pytest-xdist, ``-n 2``); a first run is mostly
    numba compiling kernels, each in one process. Each worker takes whole groups of tests
    (:func:`kernel_group`), so two workers seldom compile one game's kernels at once (each would
    compile what the other is compiling; cardsim.jit keeps the cache whole either way)."""
    from xdist.scheduler import LoadScopeScheduling

    class KernelGroups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return kernel_group(nodeid)

        def _assign_work_unit(self, node) -> None:
            # the groups that compile the most first, so the last ones to run are short
            first = min(self.workqueue, key=lambda g: HEAVIEST.index(g) if g in HEAVIEST else len(HEAVIEST))
            self.workqueue.move_to_end(first, last=False)
            super()._assign_work_unit(node)

    return KernelGroups(config, log)
