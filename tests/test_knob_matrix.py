"""The knob matrix (``tests/knob_matrix.py``): every game, variant, knob and allowed value, alone
and in combinations, plays games in debug mode (card conservation checked after every state
change; every decision of every policy checked for legality by the kernel, which raises
``PolicyError`` on an illegal one), and the fast kernels give the same tables on the same games.

The CI matrix plays a few dozen games a cell at a table mixing every built-in policy (``random``
in seat 0) and with the game's default policy at every seat (the kernels compiled for one
policy); ``-m slow`` plays ten times the games, more combinations, and every built-in policy
alone at every seat.
"""

from __future__ import annotations

import pytest

from cardsim.errors import ScenarioError
from cardsim.games import game_names, get_game
from cardsim.rng import root_key
from cardsim.scenario import build_setup
from tests.knob_matrix import NoMatrixEntry, all_cells, knob_values, seat_policies
from tests.test_conformance import frames_equal

CELLS = all_cells(combos=6)
SLOW_CELLS = all_cells(combos=30)
#: cells that fail for a reason outside this branch's games, with the reproduction in the notes
XFAIL: dict[str, str] = {}


def play(cell, policies, slow=False):
    """Build the cell's set-up (a rejected one must say which knob is wrong) and play it in debug
    mode and fast; returns None for a rejected set-up, else the debug tables."""
    g = get_game(cell.game)
    try:
        setup = build_setup(g, cell.variant, cell.players, policies, cell.rules_dict())
    except ScenarioError as exc:
        assert "rules." in str(exc), str(exc)
        return None
    key = root_key(18)
    n = cell.units(slow)
    debug = g.simulate_chunk(setup, key, 0, n, debug=True)
    fast = g.simulate_chunk(setup, key, 0, n)
    frames_equal(debug, fast)
    assert debug[g.unit_table].height > 0
    return debug


def _params(cells):
    return [pytest.param(c, id=c.id, marks=[pytest.mark.xfail(strict=True, reason=XFAIL[c.id])] if c.id in XFAIL
                         else []) for c in cells]


@pytest.mark.parametrize("cell", _params(CELLS))
def test_cell_plays_debug_and_fast_alike(cell):
    g = get_game(cell.game)
    play(cell, seat_policies(g, cell.players))
    play(cell, g.default_policy)


def slow_selected(config) -> bool:
    """The full matrix (about an hour on a busy two-core machine) runs only when asked for with
    ``-m slow``: ``make test`` runs every test, slow ones included, and must stay short."""
    expr = config.getoption("markexpr") or ""
    return "slow" in expr and "not slow" not in expr


def pytest_generate_tests(metafunc):
    if metafunc.function.__name__ == "test_cell_slow_every_policy":
        metafunc.parametrize("cell", _params(SLOW_CELLS if slow_selected(metafunc.config) else []))


@pytest.mark.slow
def test_cell_slow_every_policy(cell):
    g = get_game(cell.game)
    play(cell, seat_policies(g, cell.players), slow=True)
    for p in g.policies:
        play(cell, p.name, slow=True)


@pytest.mark.parametrize("game", game_names())
def test_every_knob_has_matrix_values_and_plays_some(game):
    """Each knob of each game gets values from the matrix, and at least two of them (alone) make
    a set-up the game accepts: a value the game rejects is a clean error, not a gap."""
    g = get_game(game)
    for k in g.knobs:
        values = knob_values(g, k)
        assert len(values) >= 2, k.name
        for v in g.variants:
            if k not in g.knobs_for(v.name):
                continue
            cells = [c for c in CELLS if c.game == game and c.variant == v.name and dict(c.rules).keys() >= {k.name}
                     and not c.label.startswith("combo")]
            accepted = 0
            for c in cells:
                try:
                    build_setup(g, c.variant, c.players, None, c.rules_dict())
                    accepted += 1
                except ScenarioError:
                    pass
            assert accepted >= 2, (game, v.name, k.name)


def test_a_knob_without_values_fails():
    from cardsim.games.base import Knob

    with pytest.raises(NoMatrixEntry, match="no matrix entry"):
        knob_values(get_game("fubnub"), Knob("open_range", 1, "a range without an upper end", lo=0))
