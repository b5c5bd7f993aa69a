"""One test suite every registered game passes (STYLE habit 7; pgx's api_test).

Determinism, independence of chunking, debug-mode card conservation, the
outcome table's shape, trace decoding, golden traces, and agreement of the
compiled and interpreted kernels.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import polars as pl
import pytest

from cardsim.games import game_names, get_game
from cardsim.rng import root_key
from cardsim.scenario import build_setup
from tests.golden_update import GOLDEN, cases, golden_lines

CASES = cases()
IDS = [f"{g}-{v}" for g, v in CASES]


def setup_for(game, variant):
    return build_setup(get_game(game), variant)


def frames_equal(a: dict[str, pl.DataFrame], b: dict[str, pl.DataFrame]) -> None:
    assert a.keys() == b.keys()
    for t in a:
        assert a[t].equals(b[t]), f"table {t} differs"


def undocumented(columns, documented) -> set[str]:
    """Columns with no entry in ``Game.columns``. A per-seat or per-team family (``x_s0``..,
    ``x_t0``..) is documented by ``x_s*`` or by its first member ``x_s0`` ("likewise ...");
    per-seat columns exist only for the seats present."""
    out = set()
    for c in columns:
        m = re.fullmatch(r"(.*_[stp])(\d+)", c)
        family = {f"{m.group(1)}*", f"{m.group(1)}0"} if m else set()
        if c not in documented and not family & set(documented):
            out.add(c)
    return out


def test_registry_lists_games():
    assert "fubnub" in game_names()
    with pytest.raises(Exception, match="allowed"):
        get_game("fubnb")


@pytest.mark.parametrize(("game", "variant"), CASES, ids=IDS)
def test_face_is_complete(game, variant):
    g = get_game(game)
    assert g.unit_table in g.columns
    assert g.default_policy in {p.name for p in g.policies}
    assert "random" in {p.name for p in g.policies}
    assert set(g.dispatchers) == set(g.decisions)
    assert len({p.pid for p in g.policies}) == len(g.policies)
    for k in g.knobs:
        default = list(k.default) if isinstance(k.default, tuple) else k.default
        k.validate(default, f"rules.{k.name}")


@pytest.mark.parametrize(("game", "variant"), CASES, ids=IDS)
def test_deterministic_and_chunk_independent(game, variant):
    g = get_game(game)
    s = setup_for(game, variant)
    key = root_key(123)
    whole = g.simulate_chunk(s, key, 0, 10)
    frames_equal(whole, g.simulate_chunk(s, key, 0, 10))
    parts = [g.simulate_chunk(s, key, 0, 4), g.simulate_chunk(s, key, 4, 6)]
    frames_equal(whole, {t: pl.concat([p[t] for p in parts]) for t in whole})
    for t, frame in whole.items():
        assert frame["game"].dtype == pl.Int64, t
        assert set(frame["game"].unique().to_list()) <= set(range(10)), t
        assert not undocumented(frame.columns, g.columns[t]), (t, sorted(undocumented(frame.columns, g.columns[t])))


@pytest.mark.parametrize(("game", "variant"), CASES, ids=IDS)
def test_debug_mode_conserves_cards(game, variant):
    g = get_game(game)
    for pol in sorted({"random", g.default_policy}):
        s = build_setup(g, variant, None, pol)
        t = g.simulate_chunk(s, root_key(5), 0, 200, debug=True)
        assert t[g.unit_table].height > 0


@pytest.mark.parametrize(("game", "variant"), CASES, ids=IDS)
def test_outcomes_one_row_per_game_and_seat(game, variant):
    g = get_game(game)
    s = setup_for(game, variant)
    tables = {k: v.lazy() for k, v in g.simulate_chunk(s, root_key(9), 0, 50).items()}
    out = g.outcomes(tables, s).collect()
    assert {"game", "seat", "win", "length"} <= set(out.columns)
    assert out.height == 50 * s.players
    wins = out["win"].drop_nulls()
    assert ((wins >= 0) & (wins <= 1)).all()
    # seats win (a lone ghost opponent, as in FUBNUB solo, can leave every row at 0)
    assert wins.sum() > 0
    summary = g.summarize(tables, s)
    assert summary and all(isinstance(f, pl.DataFrame) for _, f in summary)


@pytest.mark.parametrize(("game", "variant"), CASES, ids=IDS)
def test_trace_decodes_and_matches_golden(game, variant):
    g = get_game(game)
    s = setup_for(game, variant)
    events = g.trace(s, root_key(0), 0, 2)
    assert events and all("event" in e for e in events)
    for e in events:
        json.dumps(e)
        assert isinstance(g.describe_event(e), str)
    path = GOLDEN / f"{game}-{variant}.jsonl"
    assert path.exists(), f"no golden trace for {game} {variant}: run `make golden`"
    expected = path.read_text().splitlines()
    got = golden_lines(game, variant)
    for i, (a, b) in enumerate(zip(expected, got, strict=False)):
        assert a == b, f"{path.name} line {i + 1} differs:\n  golden: {a}\n  now:    {b}"
    assert len(expected) == len(got)


INTERP = """
import sys, polars as pl
from cardsim.games import get_game
from cardsim.rng import root_key
from cardsim.scenario import build_setup
g = get_game(sys.argv[1]); s = build_setup(g, sys.argv[2])
for t, f in g.simulate_chunk(s, root_key(77), 0, 2, debug=True).items():
    f.write_parquet(sys.argv[3] + "/" + t + ".parquet")
"""


@pytest.mark.parametrize(("game", "variant"), CASES, ids=IDS)
def test_interpreted_kernel_matches_compiled(game, variant, tmp_path):
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run([sys.executable, "-c", INTERP, game, variant, str(tmp_path)], env=env, check=True,
                   cwd=os.path.dirname(os.path.dirname(__file__)))
    g = get_game(game)
    compiled = g.simulate_chunk(setup_for(game, variant), root_key(77), 0, 2)
    frames_equal(compiled, {t: pl.read_parquet(tmp_path / f"{t}.parquet") for t in compiled})
