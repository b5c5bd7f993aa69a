"""Runs: bit-identical tables whatever the threads, chunking or resume history."""

from __future__ import annotations

import json
import re

import polars as pl
import pytest

from cardsim import api
from cardsim.errors import RunDirError
from cardsim.games import get_game
from cardsim.runner import execute, plan, sole_writer
from cardsim.scenario import from_dict

RAW = {"scenario": {"name": "t", "game": "fubnub", "games": 500, "seed": 4, "chunk": 120},
       "seats": {"policies": ["partner", "greedy", "partner", "tactician"]}}


def scenario(**over):
    raw = json.loads(json.dumps(RAW))
    raw["scenario"].update(over)
    return from_dict(raw)


def collect(result) -> dict[str, pl.DataFrame]:
    return {t: lf.collect().sort("game", maintain_order=True) for t, lf in result.tables.items()}


def same(a, b):
    for t in a:
        assert a[t].equals(b[t]), t


def test_plan_covers_every_game_once():
    chunks = plan(1000, 300)
    assert [(c.start, c.count) for c in chunks] == [(0, 300), (300, 300), (600, 300), (900, 100)]


def test_same_tables_for_any_thread_count_and_chunk_size(tmp_path):
    one = collect(api.run(scenario(), out=tmp_path / "a", threads=1))
    two = collect(api.run(scenario(), out=tmp_path / "b", threads=2))
    big = collect(api.run(scenario(chunk=500), out=tmp_path / "c", threads=2))
    same(one, two)
    same(one, big)
    assert one["games"].height == 500 and one["games"]["game"].to_list() == list(range(500))


def test_interrupted_run_resumes_to_identical_tables(tmp_path):
    s = scenario()
    ref = collect(api.run(s, out=tmp_path / "ref"))
    # an interrupted run: only some chunks finished, and a stray temp file left behind
    execute(s, tmp_path / "run", chunks=[c for c in plan(s.games, s.chunk) if c.index in (1, 3)])
    (tmp_path / "run" / "hands" / ".part-000000.parquet.x.tmp").write_bytes(b"junk")
    m = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert sorted(m["done"]) == ["1", "3"]
    calls = []
    res = api.run(s, out=tmp_path / "run", progress=lambda d, t: calls.append((d, t)))
    assert calls[0] == (240, 500)  # the two finished chunks were not replayed
    same(ref, collect(res))


def test_more_games_extend_a_run(tmp_path):
    small = api.run(scenario(games=200), out=tmp_path / "r")
    assert small.tables["games"].collect().height == 200
    big = api.run(scenario(games=500), out=tmp_path / "r")
    same(collect(api.run(scenario(), out=tmp_path / "fresh")), collect(big))


def test_fewer_games_read_a_run_without_playing_over_it(tmp_path):
    # a run asked for fewer games than its directory holds reads its first games: it must not play
    # a chunk again, smaller, over the games already played (that lost them, and left the directory
    # looking unfinished to `cardsim report RUN_DIR`)
    full = api.run(scenario(), out=tmp_path / "r")  # chunks of 120: four full, the last holds 20
    before = json.loads((tmp_path / "r" / "manifest.json").read_text())["done"]
    for games in (300, 100, 500):  # a cut inside a full chunk, inside the first, and all of them
        res = api.run(scenario(games=games), out=tmp_path / "r")
        assert res.played == 0
        assert json.loads((tmp_path / "r" / "manifest.json").read_text())["done"] == before
        same(collect(api.run(scenario(games=games), out=tmp_path / f"fresh{games}")), collect(res))
    same(collect(full), collect(api.open_run(tmp_path / "r")))


def test_refuses_a_directory_of_another_scenario(tmp_path):
    api.run(scenario(games=50), out=tmp_path / "r")
    with pytest.raises(RunDirError, match="another scenario"):
        api.run(from_dict({**RAW, "rules": {"point_cards": 5}}), games=50, out=tmp_path / "r")
    with pytest.raises(RunDirError, match="games with seed 4, and this run asks for seed 5; extend it with --seed 4"):
        api.run(scenario(games=50, seed=5), out=tmp_path / "r")


def test_a_second_run_into_a_directory_being_played_is_refused(tmp_path):
    """Two runs into one new --out at once (seeds 1 and 2) both found no manifest, wrote parts over each
    other's and printed mixed tables, and left seed-1 parts under a seed-2 manifest. The run holding the
    directory (here this process, as another one would) keeps it; the second is refused, writing nothing."""
    out = tmp_path / "r"
    with sole_writer(out):
        with pytest.raises(RunDirError, match=rf"{re.escape(str(out))}: another cardsim \(process \d+\) is "
                                              r"playing into this run directory; wait for it to finish"):
            api.run(scenario(games=50, seed=5), out=out)
        assert not (out / "manifest.json").exists() and not (out / "hands").exists()
        # a study (cardsim compare, sweep, ...) has --runs, not --out: the line named only --out
        with pytest.raises(RunDirError, match=r"--out of `cardsim run`; --runs of a scenario's run or a study"):
            api.run(scenario(games=50, seed=5), out=out)
    # released (the other run ended): the directory plays as usual, and its owner file stays hidden
    same(collect(api.run(scenario(games=50, seed=5), out=out)), collect(api.run(scenario(games=50, seed=5),
                                                                               out=tmp_path / "ref")))


def test_a_reader_probing_the_owner_file_does_not_refuse_a_run(tmp_path, monkeypatch):
    """A reader asking whether a run is still being played (``runner.holder``: ``cardsim report`` of a
    directory, a resume) takes a shared lock on its owner file for a moment. A run starting at that
    instant was refused as if another cardsim were playing into the directory; it now waits the probe
    out. A probe that lingers here (held 20 ms on another open file, as another process's would be)
    must not make the run refuse; a writer that holds the directory still does (above)."""
    import fcntl
    import threading

    from cardsim import results
    from cardsim.runner import OWNER, holder

    monkeypatch.setattr(results, "HOLD_WAIT", 30.0)  # however slow the machine, the probe ends well before
    out = tmp_path / "r"
    out.mkdir()
    probe = open(out / OWNER, "a+")  # closed by the timer below
    fcntl.flock(probe, fcntl.LOCK_SH | fcntl.LOCK_NB)
    release = threading.Timer(0.02, lambda: (fcntl.flock(probe, fcntl.LOCK_UN), probe.close()))
    release.start()
    try:
        with sole_writer(out):
            assert holder(out) is not None  # held by this run now
    finally:
        release.join()
    assert holder(out) is None


def test_a_run_directory_keeps_its_chunk_size(tmp_path):
    api.run(scenario(games=240), out=tmp_path / "r")  # chunks of 120
    res = api.run(scenario(games=500, chunk=500), out=tmp_path / "r")
    assert res.scenario.chunk == 120 and res.played == 260
    assert json.loads((tmp_path / "r" / "manifest.json").read_text())["done"] == {"0": 120, "1": 120, "2": 120,
                                                                                  "3": 120, "4": 20}
    same(collect(api.run(scenario(), out=tmp_path / "fresh")), collect(res))
    assert api.run(scenario(games=500, chunk=500), out=tmp_path / "r").played == 0


def test_corrupt_manifest_is_reported(tmp_path):
    api.run(scenario(games=50), out=tmp_path / "r")
    (tmp_path / "r" / "manifest.json").write_text("{not json")
    with pytest.raises(RunDirError, match="corrupt"):
        api.run(scenario(games=50), out=tmp_path / "r")


@pytest.mark.parametrize(("key", "value", "message"), [
    ("chunk", 0, "chunk = 0 must be a positive integer"),
    ("chunk", "big", "chunk = 'big' must be a positive integer"),
    ("scenario", [], "'scenario' must be the scenario's tables"),
])
def test_a_manifest_with_a_wrong_value_is_reported(tmp_path, key, value, message):
    # a hand-edited manifest: a one-line RunDirError, not a traceback from deep inside (a chunk of
    # 0 reached range(); a scenario that is not a table reached .items())
    api.run(scenario(games=50), out=tmp_path / "r")
    m = json.loads((tmp_path / "r" / "manifest.json").read_text())
    (tmp_path / "r" / "manifest.json").write_text(json.dumps({**m, key: value}))
    with pytest.raises(RunDirError, match="corrupt: " + re.escape(message)):
        if key == "scenario":
            api.open_run(tmp_path / "r")
        else:
            api.run(scenario(games=50), out=tmp_path / "r")


def test_manifest_records_identity(tmp_path):
    res = api.run(scenario(games=50), out=tmp_path / "r")
    m = json.loads((res.path / "manifest.json").read_text())
    assert m["hash"] == scenario(games=50).hash() and m["seed"] == 4
    assert m["identity"]["rules_version"] == get_game("fubnub").rules_version and m["cardsim_version"]
    assert m["scenario"]["scenario"]["game"] == "fubnub"
    scan = pl.scan_parquet(str(res.path / "hands" / "*.parquet")).collect()
    assert scan.height == res.tables["hands"].collect().height


def test_every_chunk_of_a_game_has_one_table_layout():
    """check_layout compares one game's tables with a finished part: a table's columns and
    types must not depend on which games a chunk holds (else resumes would be refused)."""
    from cardsim.games import game_names
    from cardsim.rng import root_key
    from cardsim.scenario import build_setup

    key = root_key(3)
    for name in game_names():
        game = get_game(name)
        for v in game.variants:
            setup = build_setup(game, v.name)
            one = game.simulate_chunk(setup, key, 0, 1)
            many = game.simulate_chunk(setup, key, 700, 300)
            assert {t: dict(f.schema) for t, f in one.items()} == {t: dict(f.schema) for t, f in many.items()}, (name, v.name)


def test_a_run_written_with_another_table_layout_is_not_extended(tmp_path):
    """A run directory another cardsim wrote with other column types: its games still read,
    but extending it (new parts beside old ones) is refused with the column named."""
    api.run(scenario(games=240), out=tmp_path / "r")
    part = tmp_path / "r" / "hands" / "part-000000.parquet"
    pl.read_parquet(part).with_columns(pl.col("game").cast(pl.Int32)).write_parquet(part)
    m = json.loads((tmp_path / "r" / "manifest.json").read_text())
    del m["parts"]  # a cardsim that recorded no signatures of its parts
    (tmp_path / "r" / "manifest.json").write_text(json.dumps(m))
    before = sorted(p.read_bytes() for p in (tmp_path / "r").rglob("*.parquet"))
    with pytest.raises(RunDirError, match=r"cannot be extended: its 'hands' table .*column 'game' is Int32 there "
                                          r"and Int64 now"):
        api.run(scenario(), out=tmp_path / "r")
    assert sorted(p.read_bytes() for p in (tmp_path / "r").rglob("*.parquet")) == before


def test_identity_diff_names_the_settings_that_differ():
    from cardsim.runner import identity_diff

    seat = {"policy": "partner", "params": {}}
    old = {"seed": 1, "setup": {"players": 4, "rules": {"point_cards": 7, "dealer_swap": True},
                                "seats": [seat, {**seat, "params": {"x": 1}, "source": "a"}]}}
    new = {"seed": 1, "setup": {"players": 4, "rules": {"point_cards": 5, "tie_rule": "limbo"},
                                "seats": [seat, {**seat, "params": {"x": 2}, "source": "b"}]}}
    assert identity_diff(old, new) == (
        "rules.dealer_swap: true in the directory, not set in this scenario; rules.point_cards: 7 in the "
        "directory, 5 in this scenario; rules.tie_rule: not set in the directory, \"limbo\" in this scenario; and 1 more")
    # a plug-in's source is identity_change's to name; alike identities and unreadable ones: nothing
    assert identity_diff(old, {**old, "setup": {**old["setup"], "seats": [seat, {**old["setup"]["seats"][1],
                                                                                 "source": "c"}]}}) == ""
    assert identity_diff(old, old) == "" and identity_diff({"setup": 3}, old) == ""


def test_identity_diff_names_a_seat_of_another_policy_by_its_policy():
    """A seat that plays another policy is named by the policy, not by the parameters that come with
    it: a FUBNUB run of four partners against a scenario with tacticians named three of seat 0's
    tactician parameters ('seats[0].params.call_need: not set in the directory, 2.0 ...; and 11 more')."""
    from cardsim.runner import identity_diff

    partner = {"policy": "partner", "params": {}}
    tactician = {"policy": "tactician", "params": {"call_need": 2.0, "call_top": 8.0, "cheap": 1.0}}
    old = {"seed": 1, "setup": {"players": 4, "rules": {"point_cards": 15}, "seats": [partner] * 4}}
    new = {"seed": 1, "setup": {"players": 4, "rules": {"point_cards": 15},
                                "seats": [tactician, partner, tactician, partner]}}
    assert identity_diff(old, new) == (
        'seats[0].policy: "partner" in the directory, "tactician" in this scenario; seats[2].policy: "partner" '
        'in the directory, "tactician" in this scenario')


def test_an_interrupted_run_read_as_it_was_played_says_so(tmp_path):
    """`cardsim report RUN_DIR` of a run Ctrl-C cut short gave its kept games as the run, with no word that
    it was asked for more; its Run table now says so (the manifest's `asked`, as an interrupted run leaves it)."""
    api.run(scenario(games=240), out=tmp_path / "r")  # two chunks of 120
    m = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert api.open_run(tmp_path / "r").stop == ""
    m["asked"] = 500  # what a run of 500 games interrupted after its first two chunks leaves
    (tmp_path / "r" / "manifest.json").write_text(json.dumps(m))
    res = api.open_run(tmp_path / "r")
    assert res.scenario.games == 240
    assert res.stop == (f"interrupted: 240 of the 500 games asked were played; `cardsim run {tmp_path / 'r'}` plays "
                        "the rest (finished chunks are not played again)")
