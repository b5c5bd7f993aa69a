"""Gubs as a whole: determinism, chunk independence, conservation, the turn cap, plug-in
policies, interpreted kernels, the trace and the summaries (G1-G5)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from cardsim.errors import PolicyError
from cardsim.games.gubs import cards as C
from cardsim.games.gubs import rules as R
from cardsim.games.gubs.game import GAME
from cardsim.scenario import build_setup, load

ROOT = Path(__file__).resolve().parents[1]


def test_face_is_complete():
    assert GAME.name == "gubs" and GAME.unit == "game" and GAME.unit_table == "games"
    assert {p.name for p in GAME.policies} == {"random", "simple", "strong"}
    assert set(GAME.decisions) == set(GAME.dispatchers) == {"draw", "play", "respond", "pick"}
    assert set(GAME.columns["games"]) >= {"game", "players", "winner", "winners", "shared", "turns", "tie_break",
                                         "letters_flopped", *(f"score_s{s}" for s in range(6))}
    s = build_setup(GAME, players=3, policies="random")
    t = GAME.simulate_chunk(s, 1, 0, 5)
    assert set(t) == set(GAME.columns)
    for name, frame in t.items():
        assert list(frame.columns) == list(GAME.columns[name]), name


@pytest.mark.parametrize("policy", ["random", "simple", "strong"])
def test_determinism_and_chunk_independence(policy):
    s = build_setup(GAME, players=3, policies=policy)
    a = GAME.simulate_chunk(s, 42, 0, 10)
    b = GAME.simulate_chunk(s, 42, 0, 10)
    for k in a:
        assert_frame_equal(a[k], b[k])
    p1 = GAME.simulate_chunk(s, 42, 0, 4)
    p2 = GAME.simulate_chunk(s, 42, 4, 6)
    for k in a:
        assert_frame_equal(a[k], pl.concat([p1[k], p2[k]]))
    c = GAME.simulate_chunk(s, 43, 0, 10)
    assert not a["games"].equals(c["games"])


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_conservation_debug_mode_every_player_count(players):
    """Card conservation after every state change (debug), for every player count, a mix of
    policies and of knob readings; every game finishes."""
    pols = ["random", "simple", "strong", "random", "simple", "strong"][:players]
    for rules in ({}, {"barricade_stack": False, "stolen_barricades": "move", "thief_to": "hand",
                       "plague_redraw": "three", "plague_shuffle": "shuffle", "letter_placement": "shuffled",
                       "ring_exact": False, "cure_takes": "gub", "hand_limit": 3}):
        s = build_setup(GAME, players=players, policies=pols, rules=rules)
        g = GAME.simulate_chunk(s, 7, 0, 120, debug=True)["games"]
        assert g["finished"].all()
    s = build_setup(GAME, players=players, policies="random")
    g = GAME.simulate_chunk(s, 8, 0, 300, debug=True)["games"]
    assert g["finished"].all() and (g["turns"] > 0).all()


#: the cards a count by formula handles apart (engine.play_count), added so that hands hold them often
_RARE = ["Single Ring", "Double Ring", "Triple Ring", "Triple Ring", "Cricket Song", "Cricket Song", "Age-Old Cure",
         "Smahl Thief", "Scout", "Retreat", "Lightning", "Cyclone", "Omen Beetle", "Haki Flute", "Spear", "Toad Rider"]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("policy", ["simple", "random"])
def test_lean_kernels_play_the_general_kernels_games(players, policy):
    """The kernel for a table of `simple` seats lists only the plays `simple` can choose
    (engine.legal_plays with its leader), and the lean `random` kernel counts the legal plays
    without listing them and writes only the drawn row (engine.play_count and play_row, a second
    text of the list: the Rings' rows counted by formula, 2 to 5 opponents); the general kernel
    (debug mode runs it) lists every legal play and dispatches on each seat's policy: the same
    games, knobs that change the list included, and decks rich in the rare kinds."""
    for rules in ({}, {"barricade_stack": False, "thief_targets": "unprotected", "cure_takes": "gub",
                       "ring_exact": False, "lightning_hand": False, "toad_rider_destroys": False},
                  {"stolen_barricades": "move", "thief_to": "hand", "hand_limit": 4},
                  {"add_cards": _RARE, "ring_exact": False, "hand_limit": 12},
                  {"add_cards": _RARE, "barricade_stack": False, "cure_takes": "gub"}):
        s = build_setup(GAME, players=players, policies=policy, rules=rules)
        assert GAME._one(s) == (R.SIMPLE if policy == "simple" else R.RANDOM)
        lean = GAME.simulate_chunk(s, 5, 0, 300)
        general = GAME.simulate_chunk(s, 5, 0, 300, debug=True)
        for k in lean:
            assert_frame_equal(lean[k], general[k])


def test_random_take_draws_as_randint():
    """The lean random kernel's draw (policies.random_take from random_peek's value, found ahead)
    is rng.randint's: the same choice and the same stream state after it, for any number of
    options above one; with one option it takes 0 and leaves the stream where it was (the
    general kernel asks no decision then), and it hands back the next draw's value."""
    from cardsim.games.gubs.policies import random_peek, random_take
    from cardsim.rng import randint

    gen = np.random.default_rng(3)
    for state in gen.integers(0, 2**63, 200, dtype=np.uint64):
        for n in (1, 2, 3, 7, 693, 2**31 - 1):
            a = np.array([state], np.uint64)
            b = a.copy()
            k, after = random_take(a, np.uint64(random_peek(a.copy())), n)  # uint64, as in the kernel
            if n == 1:
                assert k == 0 and a[0] == state
            else:
                assert k == randint(b, n) and a[0] == b[0]
            assert after == random_peek(a)


def test_shuffle_local_is_rng_shuffle():
    """The deck's shuffle (engine.shuffle_local, the stream's state in a local) gives
    rng.shuffle's permutation and leaves the stream where rng.shuffle leaves it."""
    from cardsim.games.gubs.engine import shuffle_local
    from cardsim.rng import shuffle

    gen = np.random.default_rng(4)
    for state in gen.integers(0, 2**63, 50, dtype=np.uint64):
        for n in (0, 1, 2, 3, 57, 150):
            a, b = np.array([state], np.uint64), np.array([state], np.uint64)
            x, y = np.arange(160, dtype=np.int32), np.arange(160, dtype=np.int32)
            shuffle_local(a, x, n)
            shuffle(b, y, n)
            assert (x == y).all() and a[0] == b[0]


def test_results_are_consistent():
    s = build_setup(GAME, players=4, policies="random")
    t = GAME.simulate_chunk(s, 9, 0, 300)
    g = t["games"]
    won = g.filter(pl.col("winner") >= 0)
    assert (won["winners"].to_numpy() == 1 << won["winner"].to_numpy().astype(np.int64)).all()
    assert g.filter(pl.col("shared")).select((pl.col("winner") == -1).all()).item()
    assert g["score_s4"].null_count() == g.height and g["score_s3"].null_count() == 0
    assert set(g["tie_break"].unique()) <= set(C.TB_NAMES)
    cards = t["cards"]
    assert cards.group_by("game", "seat").agg(pl.col("drawn").sum()).select(pl.col("drawn").min()).item() >= 3
    assert cards.filter(pl.col("card").is_in(["G", "U", "B"])).select(pl.col("drawn").sum()).item() >= 3 * 300


def test_turn_cap_marks_unfinished_games():
    s = build_setup(GAME, players=2, policies="simple", rules={"max_turns": 6})
    g = GAME.simulate_chunk(s, 1, 0, 20)["games"]
    assert (~g["finished"]).all() and (g["turns"] == 6).all() and (g["winner"] == -1).all()
    assert (g["tie_break"] == "unfinished").all() and (g["winners"] == 0).all()
    oc = GAME.outcomes({"games": g.lazy()}, s).collect()
    assert oc.height == 40 and oc["win"].null_count() == 40


def test_outcomes_split_shared_wins():
    s = build_setup(GAME, players=3, policies="random")
    t = GAME.simulate_chunk(s, 5, 0, 400)
    oc = GAME.outcomes({k: v.lazy() for k, v in t.items()}, s).collect()
    per = oc.group_by("game").agg(pl.col("win").sum())
    assert np.allclose(per["win"].to_numpy(), 1.0)
    assert oc.filter(pl.col("win").is_between(0.01, 0.99)).height > 0  # some shared wins among 400


def test_summaries():
    s = build_setup(GAME, players=2, policies=["strong", "simple"])
    t = GAME.simulate_chunk(s, 5, 0, 300)
    out = GAME.summarize({k: v.lazy() for k, v in t.items()}, s)
    titles = [title for title, _ in out]
    assert any("Card impact" in x for x in titles) and any("Win rate by seat" in x for x in titles)
    impact = dict(out)[next(x for x in titles if "Card impact" in x)]
    assert impact.height == C.NK
    assert {"card", "drawn", "played", "n_drew", "drew_rate", "drew_lo", "drew_hi", "not_rate", "not_lo", "not_hi",
            "lift", "lift_lo", "lift_hi"} <= set(impact.columns)
    row = impact.filter(pl.col("card") == "Gub").row(0, named=True)
    assert row["n_drew"] + row["n_not"] == 600 and 0 <= row["drew_lo"] <= row["drew_rate"] <= row["drew_hi"] <= 1
    seat = dict(out)[titles[0]]
    assert seat["n"].to_list() == [300, 300] and abs(seat["wins"].sum() - 300) < 1e-9


def test_trace_text_and_json():
    s = build_setup(GAME, players=3, policies=["random", "simple", "strong"])
    ev = GAME.trace(s, 4, 0, 3)
    kinds = {e["event"] for e in ev}
    assert {"start_gub", "deal", "turn", "draw", "play", "letter", "score", "game_end"} <= kinds
    for e in ev:
        json.dumps(e)
        line = GAME.describe_event(e)
        assert isinstance(line, str) and line and not line.startswith("{")
    ends = [e for e in ev if e["event"] == "game_end"]
    assert [e["game"] for e in ends] == [0, 1, 2]
    g = GAME.simulate_chunk(s, 4, 0, 3)["games"]
    assert [e["winner"] for e in ends] == g["winner"].to_list()
    assert [e["turns"] for e in ends] == g["turns"].to_list()
    plays = [e for e in ev if e["event"] == "play"]
    assert all("op" in e and "card" in e for e in plays)


def test_stacked_deck_must_hold_the_game():
    s = build_setup(GAME, players=2)
    with pytest.raises(Exception, match="stacked deck"):
        GAME.trace(s, 1, 0, 1, stack=np.zeros(10, np.int32))


PLUGIN = '''
import numba

@numba.njit
def last_draw(seat, peek, pub, hand, params, rng):
    return 1

@numba.njit
def last_play(seat, acts, nacts, pub, hand, params, rng):
    return nacts - 1 if params[0] > 0 else nacts

@numba.njit
def last_respond(seat, ann, opts, nopts, pub, hand, params, rng):
    return nopts - 1

@numba.njit
def last_pick(seat, purpose, opts, nopts, pub, hand, params, rng):
    return 0

last_params = {"ok": 1.0}
'''


def test_plugin_policy_runs_and_illegal_answers_raise(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text(PLUGIN)
    s = build_setup(GAME, players=2, policies=[f"{f}:last", "simple"])
    # the lean kernel, as a run plays it (a write into its arrays does not compile, so the debug kernel's
    # card counts would add nothing but a second compile of the whole Gubs kernel, about two minutes)
    g = GAME.simulate_chunk(s, 1, 0, 20)["games"]
    assert g.height == 20 and g["finished"].all()
    bad = build_setup(GAME, players=2, policies=["simple", {"name": f"{f}:last", "ok": 0.0}])
    with pytest.raises(PolicyError, match=r"seat 1 .* at decision 'play'"):
        GAME.simulate_chunk(bad, 1, 0, 5)


def test_interpreted_kernel_matches_the_compiled_one():
    code = ("import json; from cardsim.games.gubs.game import GAME; from cardsim.scenario import build_setup; "
            "s = build_setup(GAME, players=3, policies=['random', 'simple', 'strong']); "
            "t = GAME.simulate_chunk(s, 77, 10, 3, debug=True); "
            "print(json.dumps(t['games'].to_dicts())); print(json.dumps(t['cards'].to_dicts()))")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=ROOT)
    games, cards = (json.loads(x) for x in out.stdout.strip().splitlines()[-2:])
    s = build_setup(GAME, players=3, policies=["random", "simple", "strong"])
    t = GAME.simulate_chunk(s, 77, 10, 3)
    assert games == t["games"].to_dicts() and cards == t["cards"].to_dicts()


def test_minimal_and_bench_chunks():
    s = build_setup(GAME)
    assert GAME.minimal_chunk(s, 1, 0, 50) == 50
    assert GAME.bench_chunk(s, 1, 0, 50) == 50


def test_scenario_file_validates():
    for path in sorted((ROOT / "scenarios").glob("gubs*.toml")):
        sc = load(path)
        assert sc.game == "gubs" and sc.question


@pytest.mark.parametrize("games", [1, 3])
def test_small_run_has_a_headline(tmp_path, games):
    """A few games: no card was drawn by 30 seats, so the headline says so (it stopped with a polars
    OutOfBoundsError under 30 games)."""
    from cardsim import api

    scen = tmp_path / "g.toml"
    scen.write_text(f"[scenario]\ngame = \"gubs\"\ngames = {games}\n[seats]\npolicy = \"simple\"\n")
    res = api.run(scen, runs=tmp_path / "runs")
    line = GAME.headline(res.tables, res.scenario.setup)
    assert "finished games" in line and "Too few games to compare cards" in line
