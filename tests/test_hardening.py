"""Faults and bad input: kill -9 and resume, corrupt parts, a fuzzed scenario corpus (issue 8)."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from cardsim import api
from cardsim.cli import app
from cardsim.errors import RunDirError
from cardsim.scenario import from_dict

ROOT = Path(__file__).resolve().parents[1]
RAW = {"scenario": {"name": "kill", "game": "fubnub", "games": 40000, "seed": 5, "chunk": 2000},
       "seats": {"policies": ["partner", "greedy", "tactician", "partner"]}}


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + "}"
    return repr(v)


def to_toml(raw: dict) -> str:
    out = []
    for section, body in raw.items():
        if not isinstance(body, dict):
            out.append(f"{json.dumps(section)} = {toml_value(body)}")
            continue
        out.append(f"[{section}]")
        out += [f"{json.dumps(k)} = {toml_value(v)}" for k, v in body.items()]
    return "\n".join(out) + "\n"


def collect(res):
    return {t: lf.collect().sort("game", maintain_order=True) for t, lf in res.tables.items()}


def test_kill_9_then_resume_gives_identical_tables(tmp_path):
    scen = tmp_path / "kill.toml"
    scen.write_text(to_toml(RAW))
    out = tmp_path / "run"
    env = dict(os.environ)  # the one cache (cardsim.cachedir), as the tests use
    proc = subprocess.Popen([sys.executable, "-m", "cardsim.cli", "run", str(scen), "--out", str(out), "--threads", "1"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    manifest = out / "manifest.json"
    deadline = time.time() + 120
    done = 0
    while time.time() < deadline:
        try:
            done = len(json.loads(manifest.read_text())["done"])
        except (FileNotFoundError, json.JSONDecodeError, KeyError):
            done = 0
        if done >= 2:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert 2 <= done < 20, f"the run should be interrupted part-way (chunks done: {done})"
    resumed = collect(api.run(scen, out=out))
    reference = collect(api.run(from_dict(RAW), out=tmp_path / "ref"))
    for t in reference:
        assert reference[t].equals(resumed[t]), t


def test_corrupt_part_is_played_again(tmp_path):
    s = from_dict({**RAW, "scenario": {**RAW["scenario"], "games": 6000}})
    ref = collect(api.run(s, out=tmp_path / "r"))
    part = tmp_path / "r" / "hands" / "part-000001.parquet"
    part.write_bytes(part.read_bytes()[:100])  # torn write
    again = collect(api.run(s, out=tmp_path / "r"))
    for t in ref:
        assert ref[t].equals(again[t])


def test_part_of_another_table_is_refused_then_played_again(tmp_path):
    """A valid parquet file in the wrong table's folder (a copy gone wrong) stopped every read with a
    polars ColumnNotFoundError: a report names it in one line, a run plays its chunk again."""
    s = from_dict({**RAW, "scenario": {**RAW["scenario"], "games": 6000}})
    ref = collect(api.run(s, out=tmp_path / "r"))
    shutil.copy(tmp_path / "r" / "hands" / "part-000001.parquet", tmp_path / "r" / "games" / "part-000001.parquet")
    with pytest.raises(RunDirError, match=r"part-000001.parquet does not hold the 'games' table's columns"):
        api.open_run(tmp_path / "r")
    again = collect(api.run(s, out=tmp_path / "r"))
    for t in ref:
        assert ref[t].equals(again[t])


@pytest.mark.parametrize("table", ["games", "hands"])
def test_a_part_of_another_chunk_is_refused_then_played_again(tmp_path, table):
    """A part copied over another chunk's (part-000002 as part-000001: same table, same rows) read as the
    chunk's games, so games 4000-5999 counted twice, or stopped a report with an OrderError traceback;
    a report names it in one line now, and a run plays its chunk again."""
    s = from_dict({**RAW, "scenario": {**RAW["scenario"], "games": 6000}})
    ref = collect(api.run(s, out=tmp_path / "r"))
    shutil.copy(tmp_path / "r" / table / "part-000002.parquet", tmp_path / "r" / table / "part-000001.parquet")
    with pytest.raises(RunDirError, match=rf"{table}/part-000001.parquet holds games 4,000-5,999 where its chunk "
                                          r"holds games 2,000-3,999 \(a file of another chunk copied in\)"):
        api.open_run(tmp_path / "r")
    again = collect(api.run(s, out=tmp_path / "r"))
    for t in ref:
        assert ref[t].equals(again[t])


def test_a_part_of_another_table_in_the_first_chunk_is_played_again(tmp_path):
    """The same copy gone wrong in chunk 0: `cardsim report RUN_DIR` sent the user to `cardsim run
    RUN_DIR`, which refused ("its 'hands' table was written by another cardsim"): the layout check read
    the first chunk's parts, the very part that was to be played again. It reads a trusted chunk now."""
    s = from_dict({**RAW, "scenario": {**RAW["scenario"], "games": 600, "chunk": 200}})
    ref = collect(api.run(s, out=tmp_path / "r"))
    shutil.copy(tmp_path / "r" / "games" / "part-000000.parquet", tmp_path / "r" / "hands" / "part-000000.parquet")
    r = CliRunner().invoke(app, ["report", str(tmp_path / "r"), "--out", str(tmp_path / "rep")])
    assert r.exit_code == 2 and f"`cardsim run {tmp_path / 'r'}` plays it again" in r.output, r.output
    r = CliRunner().invoke(app, ["run", str(tmp_path / "r")])
    assert r.exit_code == 0, r.output
    again = collect(api.open_run(tmp_path / "r"))
    for t in ref:
        assert ref[t].equals(again[t])


def test_parts_of_another_seed_are_not_read_as_this_runs(tmp_path):
    """A manifest copied from the run of another seed (or a part copied in from one) read the other
    seed's games as this run's, with no word: the parts and the manifest agreed in every check (tables,
    columns, game counts). The manifest records each part's size and checksum; a read names the part,
    a run plays its chunk again."""
    s4 = from_dict({**RAW, "scenario": {**RAW["scenario"], "games": 600, "chunk": 200, "seed": 4}})
    s5 = from_dict({**RAW, "scenario": {**RAW["scenario"], "games": 600, "chunk": 200, "seed": 5}})
    ref = collect(api.run(s4, out=tmp_path / "a"))
    api.run(s5, out=tmp_path / "b")
    shutil.copy(tmp_path / "a" / "manifest.json", tmp_path / "b" / "manifest.json")  # b: seed 5's parts, a's manifest
    with pytest.raises(RunDirError, match=r"part-000000.parquet is not the part this run wrote \(its size or "
                                          r"checksum is not the manifest's record of it"):
        api.open_run(tmp_path / "b")
    r = CliRunner().invoke(app, ["run", str(tmp_path / "b")])
    assert r.exit_code == 0, r.output
    again = collect(api.open_run(tmp_path / "b"))  # played again: seed 4's games, as its manifest says
    for t in ref:
        assert ref[t].equals(again[t])
    # one part of the other seed copied in
    api.run(s5, out=tmp_path / "c")
    shutil.copy(tmp_path / "c" / "games" / "part-000002.parquet", tmp_path / "b" / "games" / "part-000002.parquet")
    with pytest.raises(RunDirError, match=r"games.part-000002.parquet is not the part this run wrote"):
        api.open_run(tmp_path / "b")
    # a directory written before the manifest recorded its parts still reads
    m = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert set(m["parts"]) == {"0", "1", "2"} and set(m["parts"]["0"]) == set(m["tables"])
    del m["parts"]
    (tmp_path / "a" / "manifest.json").write_text(json.dumps(m))
    old = collect(api.open_run(tmp_path / "a"))
    for t in ref:
        assert ref[t].equals(old[t])


@pytest.mark.parametrize("text, says", [
    ("null", "it holds null, not the JSON object cardsim writes"),  # a TypeError traceback
    ("3", "it holds 3, not the JSON object"),
    (None, "manifest.json cannot be read (Is a directory)"),  # a folder named manifest.json: IsADirectoryError
    ({"tables": "games"}, 'tables = "games" must list the fubnub tables'),  # report said run plays 'g/part-...' again:
    ({"tables": ["nosuch"]}, "tables = [\"nosuch\"] must list"),  # run played every chunk, wrote no such part
    ({"done": [0, 1]}, "'done' must map chunk -> games"),  # report: "chunk 0 is not finished", run: corrupt
])
def test_a_manifest_that_is_not_cardsims_gives_one_line_and_nothing_is_touched(tmp_path, text, says):
    s = from_dict({**RAW, "scenario": {**RAW["scenario"], "games": 400, "chunk": 200}})
    out = tmp_path / "r"
    api.run(s, out=out)
    manifest = out / "manifest.json"
    if text is None:
        manifest.unlink()
        manifest.mkdir()
    elif isinstance(text, dict):
        manifest.write_text(json.dumps({**json.loads(manifest.read_text()), **text}))
    else:
        manifest.write_text(text)
    parts = {p: p.read_bytes() for p in out.rglob("*.parquet")}
    for cmd in (["run", str(out)], ["report", str(out), "--out", str(tmp_path / "rep")]):
        r = CliRunner().invoke(app, cmd)
        lines = [line for line in r.output.splitlines() if line.startswith("error: ")]
        assert r.exit_code == 2 and len(lines) == 1 and says in lines[0], r.output
        assert "Traceback" not in r.output and not isinstance(r.exception, (TypeError, OSError))
    assert {p: p.read_bytes() for p in out.rglob("*.parquet")} == parts


def cut_part_then_play_again(s, out: Path, table: str, keep: int, says: int) -> None:
    """Cut chunk 1's part of ``table`` to ``keep`` rows: reading the run directory names it (the
    manifest says ``says``), and a run plays that chunk again, to the same tables as before."""
    ref = collect(api.run(s, out=out))
    part = out / table / "part-000001.parquet"
    pl.read_parquet(part).head(keep).write_parquet(part)
    with pytest.raises(RunDirError, match=rf"part-000001.parquet holds {keep} {table} where the manifest says {says:,}"):
        api.open_run(out)
    again = collect(api.run(s, out=out))
    for t in ref:
        assert ref[t].equals(again[t])


def test_part_cut_to_fewer_games_is_refused_then_played_again(tmp_path):
    """A games part rewritten with fewer rows than the manifest says was read as it was: 6,000 games
    reported over fewer rows, with no word. A read names it; a run plays its chunk again."""
    s = from_dict({**RAW, "scenario": {**RAW["scenario"], "games": 6000}})
    cut_part_then_play_again(s, tmp_path / "r", "games", 10, 2000)


def test_edited_manifest_is_refused_before_any_part_is_touched(tmp_path):
    """A manifest whose chunk size was edited (500 -> 700) had `cardsim run RUN_DIR` play its chunks
    again in the new size over the old parts and keep an old one: 3,000 games read as 3,300, exit 0.
    An edited identity (another rules version, policy) was accepted as long as the hash was left. Both
    are refused in one line, exit 2, and no part changes."""
    s = from_dict({**RAW, "scenario": {**RAW["scenario"], "games": 3000, "chunk": 500}})
    out = tmp_path / "r"
    api.run(s, out=out)
    parts = {p: p.stat().st_mtime_ns for p in out.rglob("*.parquet")}
    manifest = out / "manifest.json"
    good = manifest.read_text()
    for edit, says in ((lambda m: m.update(chunk=700), "chunk 5 cannot hold 500 games"),
                       (lambda m: m["identity"].update(rules_version=99), "does not give its hash")):
        m = json.loads(good)
        edit(m)
        manifest.write_text(json.dumps(m))
        for cmd in (["run", str(out)], ["report", str(out), "--out", str(tmp_path / "rep")]):
            r = CliRunner().invoke(app, cmd)
            assert r.exit_code == 2 and "is corrupt" in r.output and says in r.output, r.output
            assert "Traceback" not in r.output
        assert {p: p.stat().st_mtime_ns for p in out.rglob("*.parquet")} == parts
    manifest.write_text(good)
    assert api.open_run(out).tables["games"].select(pl.len()).collect().item() == 3000


def test_lucky_ghost_of_one_game_says_it_has_no_interval(tmp_path):
    """One Lucky Ghost game stopped `cardsim run` with a TypeError (a gain's interval is None from one
    game); it now says so, as compare does."""
    f = tmp_path / "g.toml"
    f.write_text('[scenario]\nname = "g"\ngame = "fubnub"\nvariant = "lucky_ghost"\nplayers = 2\ngames = 1\n')
    r = CliRunner().invoke(app, ["run", str(f), "--runs", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert "of 1 game;" in r.output and "95% CI none: an interval needs at least 2 games" in r.output


@pytest.mark.parametrize("variant, table", [("hand", "hands"), ("tournament", "tournaments")])
def test_fourbid_units_are_counted_in_their_own_table(tmp_path, variant, table):
    """A FOURBID hand or tournament run's chunks were checked against the games table (a hand run
    has none, a tournament run has several games a tournament): a finished run directory could not
    be read (`cardsim report RUN_DIR`: "holds 0 games where the manifest says 3,000"), and a run
    resumed on it played every chunk again. The unit's own table is checked now."""
    s = from_dict({"scenario": {"name": "u", "game": "fourbid", "variant": variant, "games": 40, "seed": 3,
                                "chunk": 20}, "seats": {"policy": "collector"}})
    api.run(s, out=tmp_path / "r")
    assert api.open_run(tmp_path / "r").scenario.games == 40
    part = tmp_path / "r" / table / "part-000001.parquet"
    stamp = part.stat().st_mtime_ns
    api.run(s, out=tmp_path / "r")
    assert part.stat().st_mtime_ns == stamp  # nothing played again
    cut_part_then_play_again(s, tmp_path / "r", table, 3, 20)


# -- fuzzing ---------------------------------------------------------------------------------
VALID = [
    {"scenario": {"name": "f", "game": "fubnub", "variant": "traditional", "games": 3, "seed": 1, "chunk": 2},
     "seats": {"policies": ["partner", {"name": "tactician", "call_need": 3}, "greedy", "random"]},
     "rules": {"point_cards": 3, "fub_dealer": "caller_right", "max_hands": 50}},
    {"scenario": {"name": "g", "game": "fubnub", "games": 2}, "seats": {"policy": "partner"},
     "compare": {"arms": [{"name": "a"}, {"name": "b", "rules": {"point_cards": 5}}]}},
    {"scenario": {"name": "h", "game": "fubnub", "games": 2},
     "sweep": {"grid": {"rules.point_cards": [1, 3]}}},
]
JUNK = [None, -1, 0, 7, 10**12, 2.5, "", "x", "partner", True, [], [1, 2], {"a": 1}, "💥", 1e300]


def mutate(rng: random.Random, raw: dict) -> dict | bytes:
    raw = json.loads(json.dumps(raw))
    kind = rng.randrange(6)
    if kind == 5:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60)))
    sections = list(raw)
    sec = rng.choice(sections)
    body = raw[sec]
    if kind == 0 and body:  # delete a key
        body.pop(rng.choice(list(body)))
    elif kind == 1 and body:  # wrong type / out of range
        k = rng.choice(list(body))
        v = rng.choice(JUNK)
        if v is None:
            body.pop(k)
        else:
            body[k] = v
    elif kind == 2:  # unknown key or section
        if rng.random() < 0.5:
            body[rng.choice(["sed", "gmes", "polices", "point_card", "foo"])] = 1
        else:
            raw[rng.choice(["rulez", "seat", "x"])] = {"a": 1}
    elif kind == 3:  # a seat list of the wrong length or with junk entries
        raw.setdefault("seats", {})["policies"] = [rng.choice(JUNK[1:]) for _ in range(rng.randrange(0, 8))]
    else:  # a section of the wrong type
        raw[sec] = rng.choice([1, "x", [1]])
    return raw


@pytest.mark.parametrize("block", range(6))
def test_fuzzed_scenarios_exit_2_with_one_line(tmp_path, block):
    runner = CliRunner()
    rng = random.Random(1000 + block)
    for i in range(50):
        case = mutate(rng, rng.choice(VALID))
        p = tmp_path / f"f{i}.toml"
        if isinstance(case, bytes):
            p.write_bytes(case)
        else:
            try:
                p.write_text(to_toml(case))
            except (TypeError, ValueError):
                continue
        r = runner.invoke(app, ["run", str(p), "--games", "2", "--runs", str(tmp_path / "runs")])
        text = p.read_bytes()[:200]
        assert r.exit_code in (0, 2), (text, r.output, r.exception)
        assert not isinstance(r.exception, Exception) or isinstance(r.exception, SystemExit), (text, r.exception)
        assert "Traceback" not in r.output
        if r.exit_code == 2:
            lines = [line for line in r.output.splitlines() if line.strip()]
            assert len(lines) == 1 and lines[0].startswith("error: "), (text, r.output)


def test_unreadable_policy_file(tmp_path):
    bad = tmp_path / "broken.py"
    bad.write_text("import numba\ndef oops(:\n")
    scen = tmp_path / "s.toml"
    scen.write_text(to_toml({"scenario": {"name": "p", "game": "fubnub", "games": 2},
                             "seats": {"policies": ["broken.py:mine", "partner", "partner", "partner"]}}))
    r = CliRunner().invoke(app, ["run", str(scen)])
    assert r.exit_code == 2 and "failed to import" in r.output and "SyntaxError" in r.output
    assert pl is not None


@pytest.mark.parametrize("ref, says", [
    ("folder.py:mine", "folder.py is not a file; a plug-in is a Python file"),  # IsADirectoryError traceback
    ("ok.py:", "'' is not a name; write 'file.py:name'"),  # "ok.py: is missing _call, _swap, _card"
])
def test_a_plugin_reference_that_names_no_file_or_no_function(tmp_path, ref, says):
    (tmp_path / "folder.py").mkdir()
    (tmp_path / "ok.py").write_text("import numba\n")
    scen = tmp_path / "s.toml"
    scen.write_text(to_toml({"scenario": {"name": "p", "game": "fubnub", "games": 2},
                             "seats": {"policies": [ref, "partner", "partner", "partner"]}}))
    r = CliRunner().invoke(app, ["run", str(scen), "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 2 and r.output.startswith("error: ") and says in r.output, r.output
    assert r.output.count("\n") == 1 and not (tmp_path / "runs").exists()


def test_workers_with_the_local_backend_is_refused_and_alone_means_dask():
    """`cardsim run --workers 2` (no --backend) ran on local threads without a word."""
    from cardsim.errors import ScenarioError

    s = from_dict(RAW)
    with pytest.raises(ScenarioError, match=r"--workers 2 belongs to the dask backend .* --backend 'local' plays on"):
        api.make_backend(s, "local", 2, None)
    be = api.make_backend(s, None, 1, None)
    try:
        assert type(be).__name__ == "DaskBackend"
    finally:
        be.close()
