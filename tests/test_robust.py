"""Bad input and a disturbed environment found by an audit: one line, the right exit code, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cardsim.cli import app

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache")))
CLI = [sys.executable, "-m", "cardsim.cli"]
FULL = Path("/dev/full")

#: a FUBNUB plug-in whose card decision is ``{card}`` (indented body lines)
NO_VALUE = '''
import numba


@numba.njit
def lazy_call(hand, pos, point, seat, dealer, rnd, params, rng):
    return 0


@numba.njit
def lazy_swap(hand, pos, point, nswaps, params, rng, out):
    out[0] = -1
    out[1] = -1


@numba.njit
def lazy_card(hand, n, pos, point, trick, tseat, nplayed, winner, seat, partner, caller, tricks, params, rng):
{card}
'''


def run_lazy(tmp_path: Path, card: str, head: str = "") -> tuple[Any, list[str]]:
    """``cardsim run`` of 2 FUBNUB games with the plug-in lazy.py (:data:`NO_VALUE` with this card decision,
    ``head`` above it) at seat 0: the result and its ``error`` lines."""
    (tmp_path / "lazy.py").write_text((head + "\n" if head else "") + NO_VALUE.format(card=card))
    (tmp_path / "s.toml").write_text('[scenario]\nname = "lazy"\ngame = "fubnub"\ngames = 2\n'
                                     '[seats]\npolicies = ["lazy.py:lazy", "partner", "partner", "partner"]\n')
    r = CliRunner().invoke(app, ["run", str(tmp_path / "s.toml"), "--runs", str(tmp_path / "runs")])
    return r, [ln for ln in r.output.splitlines() if ln.startswith("error")]


@pytest.mark.parametrize("card", [
    "    pass",  # forgot the return
    "    raise ValueError('not yet')",  # a stub
    "    if n > 3:\n        return 0",  # an if without else
])
def test_a_plugin_decision_that_can_end_without_a_value_gives_one_line(tmp_path, card):
    """numba types such a function's result as none (or optional) and the kernel calling it fails to
    type, in a message naming only the generated kernel: a 40-line traceback and exit code 1."""
    r, lines = run_lazy(tmp_path, card)
    assert r.exit_code == 2 and len(lines) == 1, r.output
    assert ("plug-in lazy.py, function lazy_card, line 17: numba cannot compile the kernel with it: it can end "
            "without returning a value") in lines[0]
    assert "fubnub 'card' decision must return the index into hand[:n]" in lines[0]
    assert "Traceback" not in r.output


@pytest.mark.parametrize(("head", "card", "what"), [
    ("import numpy as np", "    return np.random.randint(n)", "np.random.randint"),
    ("import random", "    return random.randrange(n)", "random.randrange"),
    ("from numpy.random import randint", "    return randint(n)", "randint"),
])
def test_a_plugin_drawing_from_numbas_own_generators_is_refused(tmp_path, head, card, what):
    """numba seeds np.random and random per process: a plug-in drawing from them played other games on
    every run of the same seed, and a resumed run mixed them in, without a word."""
    r, _ = run_lazy(tmp_path, card, head)
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    assert r.output.startswith(f"error: plug-in lazy.py, line 19: {what}() draws from numba's own random generator, "
                               "seeded apart from the run's seed"), r.output
    assert "from cardsim.rng import randint, uniform" in r.output and not (tmp_path / "runs").exists()


def _other_plugin_played(tmp_path) -> None:
    """A well-behaved plug-in (well.py) played in this process first: a message about another plug-in must
    not name it."""
    (tmp_path / "well").mkdir()
    (tmp_path / "well" / "well.py").write_text(NO_VALUE.format(card="    return 0").replace("lazy_", "well_"))
    (tmp_path / "well" / "s.toml").write_text('[scenario]\nname = "well"\ngame = "fubnub"\ngames = 2\n'
                                              '[seats]\npolicies = ["well.py:well", "partner", "partner", "partner"]\n')
    r = CliRunner().invoke(app, ["run", str(tmp_path / "well" / "s.toml"), "--runs", str(tmp_path / "well" / "runs")])
    assert r.exit_code == 0, r.output


def test_a_plugin_that_writes_into_its_hand_is_refused_when_it_compiles(tmp_path):
    """A card decision that writes into the hand it is passed duplicates a card: the games were corrupted
    without a word (only `cardsim run --debug` caught it, with a traceback from the generated kernel). Its
    arrays are passed read-only now: the write does not compile, one line naming the plug-in's line, the
    run's own plug-in, not every one the process has loaded (here a well-behaved one played first)."""
    _other_plugin_played(tmp_path)
    r, lines = run_lazy(tmp_path, "    hand[0] = hand[1]\n    return 0")
    assert r.exit_code == 2 and len(lines) == 1, r.output
    assert lines[0].startswith("error: plug-in lazy.py, function lazy_card, line 18: numba cannot compile it: it "
                               "writes into an array it is passed, which a plug-in only reads"), lines[0]
    assert "Traceback" not in r.output and "well.py" not in r.output


def test_a_plugin_reading_a_parameter_it_does_not_declare_gives_one_line(tmp_path):
    """params[0] of a plug-in without a <name>_params dict read the zero padding of the seats' parameter
    rows (every row is 8 wide) without a word, and past it another seat's parameters: a plug-in is passed
    its own parameters only and runs bounds-checked."""
    _other_plugin_played(tmp_path)
    r, lines = run_lazy(tmp_path, "    return 0 if params[0] >= 0 else 1")
    assert r.exit_code == 2 and len(lines) == 1, r.output
    assert lines[0].startswith("error: plug-in lazy.py: a decision indexed past the end of an array it is passed "
                               "(IndexError: index is out of bounds); params holds only the parameters of its")


@pytest.mark.skipif(not FULL.exists(), reason="no /dev/full")
@pytest.mark.parametrize("args", [["games"], ["trace", "fubnub"], ["--version"], ["games", "--help"]])
def test_a_full_stdout_is_one_line_about_the_output(args):
    """`cardsim games > /dev/full` (or a full disk) said "cannot write a file ... choose a folder you can
    write to with --out / --runs"; --version and --help ended in a traceback."""
    with FULL.open("w") as full:
        r = subprocess.run([*CLI, *args], cwd=ROOT, env=ENV, stdout=full, stderr=subprocess.PIPE, text=True)
    assert r.returncode == 2, r.stderr
    said = [ln for ln in r.stderr.splitlines() if not ln.startswith("compiling ")]  # a cold cache says it compiles
    assert len(said) == 1 and said[0].startswith(
        "error: cannot write the output (standard output: No space left on device)"), r.stderr


@pytest.mark.parametrize("args", [["games"], ["games", "-f", "json"], ["trace", "fubnub", "-n", "3"]])
def test_a_reader_that_has_gone_is_not_an_error(args):
    """`cardsim games | head -1`: exit code 1 without a word (trace said 0: the reader stopping is
    not an error); now 0 for every command, nothing on stderr."""
    read, write = os.pipe()
    os.close(read)  # the reader has gone before the first line
    try:
        r = subprocess.run([*CLI, *args], cwd=ROOT, env=ENV, stdout=write, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(write)
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_trace_into_a_closed_stdout():
    """`cardsim trace fubnub >&-`: AttributeError: 'NoneType' object has no attribute 'write'."""
    r = subprocess.run(["sh", "-c", 'exec "$0" -m cardsim.cli trace fubnub >&-', sys.executable], cwd=ROOT,
                       env=ENV, capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_a_report_is_utf8_whatever_the_locale(tmp_path):
    """The report's files are UTF-8 (index.html says charset=utf-8): under a locale that is not, a
    scenario with a non-ASCII question ended in a UnicodeDecodeError traceback."""
    scen = tmp_path / "café.toml"
    scen.write_text('[scenario]\nname = "cafe"\ngame = "fubnub"\ngames = 20\nquestion = "Does the café’s dealer win '
                    '≥ 50%?"\n[seats]\npolicy = "partner"\n', encoding="utf-8")
    env = dict(ENV, PYTHONUTF8="0", PYTHONCOERCECLOCALE="0", LC_ALL="C")
    r = subprocess.run([*CLI, "report", str(scen), "--runs", str(tmp_path / "runs"), "--out", str(tmp_path / "rep")],
                       cwd=ROOT, env=env, capture_output=True, text=True, encoding="utf-8")
    assert r.returncode == 0, r.stderr
    for page in ("index.html", "report.md"):
        assert "café’s dealer win ≥ 50%" in (tmp_path / "rep" / "cafe" / page).read_text(encoding="utf-8")


@pytest.mark.parametrize("out", ["home", ""])
def test_out_that_holds_other_files_and_no_run_is_refused(tmp_path, monkeypatch, out):
    """`cardsim run S --out ~` (or `--out ""` from an unset variable: the current folder) wrote games/,
    hands/ and manifest.json in among the folder's own files."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "notes.txt").write_text("mine\n")
    monkeypatch.chdir(home)
    scen = tmp_path / "s.toml"
    scen.write_text('[scenario]\nname = "o"\ngame = "fubnub"\ngames = 2\n[seats]\npolicy = "partner"\n')
    r = CliRunner().invoke(app, ["run", str(scen), "--out", str(home) if out else out])
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    assert "holds other files (notes.txt) and no run (no manifest.json); --out names a run directory of its own" in r.output
    assert sorted(p.name for p in home.iterdir()) == ["notes.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert CliRunner().invoke(app, ["run", str(scen), "--out", str(empty)]).exit_code == 0  # an empty folder is one
    assert CliRunner().invoke(app, ["run", str(scen), "--out", str(empty), "--games", "3"]).exit_code == 0  # extended


@pytest.mark.parametrize("args, says", [
    (["-n", "100000000000"], "error: --games 100,000,000,000: a timed repetition holds its fubnub games in memory at "
                             "once, and this many do not fit; give fewer (default: 20,000)"),
    (["-n", "10", "--interp", "100000000000"], "error: --interp: the interpreted run of fubnub (a subprocess) failed ("),
    # past numpy's sizes: "ValueError: array is too big" / "Maximum allowed dimension exceeded", a traceback
    (["-n", str(2**63 - 1)], "error: --games 9,223,372,036,854,775,807: a timed repetition holds its fubnub games"),
    (["-n", str(10**20)], "error: --games 100,000,000,000,000,000,000: a timed repetition holds its fubnub games"),
])
def test_bench_too_large_for_memory_is_one_line(args, says):
    """`cardsim bench fubnub -n 100000000000`: numpy's "Unable to allocate 36.4 TiB" traceback; with
    --interp, subprocess.CalledProcessError's."""
    r = CliRunner().invoke(app, ["bench", "fubnub", *args])
    assert r.exit_code == 2 and r.output.count("\n") == 1 and r.output.startswith(says), r.output


def test_bench_checks_its_games_before_the_memory_run(monkeypatch):
    """`cardsim bench fubnbu --memory 100000000` ran the memory measure (minutes) and only then said
    'unknown game', its figure unprinted."""
    import cardsim.bench

    monkeypatch.setattr(cardsim.bench, "memory", lambda hands: pytest.fail("the memory run started"))
    r = CliRunner().invoke(app, ["bench", "fubnbu", "--memory", "1000"])
    assert r.exit_code == 2 and r.output.startswith("error: unknown game 'fubnbu' (did you mean 'fubnub'?)"), r.output


@pytest.mark.parametrize("rules, says", [
    (["=5"], "error: --rule '=5' names no knob; write name=value"),  # it said "unknown knob rules.;"
    (["point_cards=3", "point_cards=5"], "error: --rule point_cards is given twice (point_cards=3 and point_cards=5)"),
])
def test_trace_rule_with_no_name_or_given_twice(rules, says):
    r = CliRunner().invoke(app, ["trace", "fubnub", *[a for rule in rules for a in ("-r", rule)]])
    assert r.exit_code == 2 and r.output.count("\n") == 1 and r.output.startswith(says), r.output


@pytest.mark.parametrize("junk", [b"\xff\xfe not a journal\n", b'{"op_code": 99}\n',
                                  b"not a journal\n", b'{"op_code": 0, "worker_id": "w", "study_name": "s", '
                                  b'"directions": [2]}\n{"op_code": 2, "study_id": 0, "user_attr": {\n'])
def test_a_search_journal_that_does_not_read_is_one_line(tmp_path, junk):
    """A damaged journal (or another file given as search.storage): Optuna's UnicodeDecodeError or
    `AssertionError: Should not reach.` traceback while it replayed the journal. A damaged last line
    (not JSON, ending its line) Optuna's replay passed over: the search appended its study's line after
    it, and the next read failed in a JSONDecodeError traceback, exit code 1."""
    journal = tmp_path / "journal.log"
    journal.write_bytes(junk)
    scen = tmp_path / "s.toml"
    scen.write_text(f'[scenario]\nname = "ts"\ngame = "turtle"\nplayers = 4\ngames = 1\nseed = 19\n'
                    f'[seats]\npolicies = ["cunning", "eager", "eager", "eager"]\n'
                    f'[search]\nfield = "eager"\nbudget = 4000\nrung = 20\neta = 3\nrungs = 1\nheldout = 50\nchunk = 50\n'
                    f'storage = "{journal}"\n[search.params]\n"seat0.use_peek" = {{ values = [0, 1] }}\n')
    r = CliRunner().invoke(app, ["search", str(scen), "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    assert r.output.startswith(f"error: the search journal {journal} does not read (")
    assert "move it away (the same command then starts the search afresh)" in r.output
    assert journal.read_bytes() == junk  # nothing touched


@pytest.mark.parametrize("value, says", [
    ("[1, 2]", "scenario.players = [1, 2] must be an integer in [2, 6]"),  # TypeError: int() argument ... 'list'
    ("1000000000000", "scenario.players = 1000000000000 is out of range; allowed: 2-6"),  # MemoryError
])
def test_a_sweep_point_of_players_that_is_not_a_count(tmp_path, value, says):
    scen = tmp_path / "s.toml"
    scen.write_text(f'[scenario]\nname = "sw"\ngame = "gubs"\nplayers = 2\ngames = 2\n'
                    f'[seats]\npolicies = ["simple", "simple"]\n[sweep]\ngrid = {{"players" = [2, {value}]}}\n')
    r = CliRunner().invoke(app, ["sweep", str(scen), "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    assert r.output.startswith(f"error: sweep point 1 (players={value}): {says}"), r.output


@pytest.mark.parametrize("code", ["0", "5"])
def test_a_plugin_that_exits_when_imported_is_one_line(tmp_path, code):
    """A plug-in file calling sys.exit() as it is imported ended the command without a word, with its
    exit code: 0 looked like success."""
    (tmp_path / "quits.py").write_text(f"import sys\n\nsys.exit({code})\n")
    scen = tmp_path / "s.toml"
    scen.write_text('[scenario]\nname = "q"\ngame = "fubnub"\ngames = 2\n'
                    '[seats]\npolicies = ["quits.py:mine", "partner", "partner", "partner"]\n')
    r = CliRunner().invoke(app, ["run", str(scen), "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    assert r.output.startswith(f"error: {tmp_path / 'quits.py'}, line 3: it called sys.exit({code}) (SystemExit)")


@pytest.mark.parametrize("where", ["name", "out"])
def test_a_run_directory_whose_path_holds_a_bracket_plays_and_reads(tmp_path, where):
    """polars reads '[' in a path as a pattern: a scenario named 'v[2]' (or --out 'runs[2]/x') was
    played, then said 'part-000000.parquet does not read (failed to retrieve first file schema ...);
    `cardsim run ...` plays it again', at every attempt. The parts are now read by their paths as they
    are (results.scan_part): the run is summarised, reported and resumed like any other."""
    scen = tmp_path / "s.toml"
    scen.write_text(f'[scenario]\nname = "{"v[2]" if where == "name" else "v2"}"\ngame = "fubnub"\ngames = 2\n')
    args = ["--runs", str(tmp_path / "runs")] if where == "name" else ["--out", str(tmp_path / "runs[2]" / "x")]
    r = CliRunner().invoke(app, ["run", str(scen), *args])
    assert r.exit_code == 0, r.output
    (run_dir,) = {p.parent.parent for p in tmp_path.rglob("part-*.parquet")}
    assert "[2]" in str(run_dir) and "does not read" not in r.output
    again = CliRunner().invoke(app, ["run", str(run_dir)])  # nothing to play: every part reads
    assert again.exit_code == 0 and "does not read" not in again.output, again.output
    rep = CliRunner().invoke(app, ["report", str(run_dir), "--out", str(tmp_path / "rep")])
    assert rep.exit_code == 0, rep.output


@pytest.mark.parametrize("command", ["run", "report"])
def test_a_search_folder_given_as_a_run_directory_names_the_command_that_reads_it(tmp_path, command):
    """It said only "not a run directory (no manifest.json)"."""
    folder = tmp_path / "runs" / "ts-search-a72ef45691dd"
    folder.mkdir(parents=True)
    (folder / "journal.log").write_text("")
    r = CliRunner().invoke(app, [command, str(folder)])
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    assert (f"{folder} is a search's folder (journal.log), not a run directory for `cardsim {command}`: give the "
            f"search's scenario file to `cardsim search` (or `cardsim report`) with --runs {folder.parent}") in r.output
    # a search run with --budget (or --seed) keeps its journal in a folder those name: without them the same
    # command started a new search in another folder, the line saying nothing of them
    assert "(and the --budget and --seed it ran with, which name the folder)" in r.output


def test_a_scenario_nested_too_deeply_is_one_line(tmp_path):
    """tomllib parses nested arrays recursively: a RecursionError traceback."""
    scen = tmp_path / "deep.toml"
    scen.write_text('[scenario]\ngame = "fubnub"\ngames = 2\nx = ' + "[" * 100_000 + "]" * 100_000 + "\n")
    for command in ("run", "compare", "report"):
        r = CliRunner().invoke(app, [command, str(scen), "--runs", str(tmp_path / "runs")])
        assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
        assert r.output == f"error: {scen}: malformed TOML: arrays or tables nested too deeply (hundreds of levels); " \
                           f"a scenario nests a few\n"


def test_out_of_memory_is_one_line(tmp_path, monkeypatch):
    """A chunk too large for memory (chunk = 100000000): numpy's "Unable to allocate 37.3 GiB" traceback."""
    from cardsim import api

    def too_big(*args, **kwargs):
        raise MemoryError("Unable to allocate 37.3 GiB for an array with shape (25, 1600000064) and data type int8")

    monkeypatch.setattr(api, "play", too_big)
    scen = tmp_path / "s.toml"
    scen.write_text('[scenario]\nname = "big"\ngame = "fubnub"\ngames = 2\n')
    r = CliRunner().invoke(app, ["run", str(scen), "--runs", str(tmp_path / "runs")])
    line = r.output.splitlines()[-1]
    assert r.exit_code == 2 and sum(ln.startswith("error") for ln in r.output.splitlines()) == 1, r.output
    assert line.startswith("error: out of memory (Unable to allocate 37.3 GiB for an array") and "lower --threads" in line


def test_a_folder_where_a_part_goes_is_one_line(tmp_path):
    """A folder named like a part: IsADirectoryError's traceback when the chunk was played again."""
    scen = tmp_path / "s.toml"
    scen.write_text('[scenario]\nname = "d"\ngame = "fubnub"\ngames = 2\n')
    run_dir = tmp_path / "run"
    assert CliRunner().invoke(app, ["run", str(scen), "--out", str(run_dir)]).exit_code == 0
    part = run_dir / "games" / "part-000000.parquet"
    part.unlink()
    part.mkdir()
    r = CliRunner().invoke(app, ["run", str(run_dir)])
    assert r.exit_code == 2 and r.output.splitlines()[-1] == (
        f"error: cannot write {part}: Is a directory; nothing already computed is lost (choose a folder you can "
        f"write to with --out / --runs)"), r.output
    assert not [p for p in run_dir.rglob("*.tmp")]


def test_a_full_disk_while_polars_writes_a_part_is_one_line(tmp_path, monkeypatch):
    """On a full disk polars raises its own ComputeError, not an OSError (a real tmpfs of 200 KiB):
    its traceback, where an OSError was one line."""
    import polars as pl

    from cardsim import results

    def full(path, frame):
        raise pl.exceptions.ComputeError("parquet: File out of specification: underlying IO error: No space left "
                                         "on device (os error 28)")

    monkeypatch.setattr(results, "atomic_write_parquet", full)
    scen = tmp_path / "s.toml"
    scen.write_text('[scenario]\nname = "full"\ngame = "fubnub"\ngames = 2\n')
    r = CliRunner().invoke(app, ["run", str(scen), "--out", str(tmp_path / "run"), "--threads", "1"])
    assert r.exit_code == 2 and r.output.splitlines()[-1] == (
        f"error: cannot write {tmp_path / 'run'}: No space left on device; nothing already computed is lost (choose "
        f"a folder you can write to with --out / --runs)"), r.output


def test_a_full_disk_while_a_report_is_written_names_the_file(tmp_path, monkeypatch):
    """`Path.write_bytes` on a full disk (a real tmpfs of 300 KiB) raised an OSError without a file name:
    the line read "cannot write a file", not where the report was going."""
    import errno
    import pathlib

    scen = tmp_path / "s.toml"
    scen.write_text('[scenario]\nname = "full"\ngame = "fubnub"\ngames = 2\n')
    assert CliRunner().invoke(app, ["run", str(scen), "--runs", str(tmp_path / "runs"), "--threads", "1"]).exit_code == 0

    def full(path, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pathlib.Path, "write_bytes", full)
    r = CliRunner().invoke(app, ["report", str(scen), "--runs", str(tmp_path / "runs"), "--out", str(tmp_path / "rep")])
    line = r.output.splitlines()[-1]
    assert r.exit_code == 2 and line.startswith(f"error: cannot write {tmp_path / 'rep' / 'full'}{os.sep}"), r.output
    assert "No space left on device" in line and "--out" in line, line


@pytest.mark.parametrize("params", ['{1: 8.0, "boom": 0.0, "bad": 0.0}', '{"top": True, "boom": 0.0, "bad": 0.0}',
                                    '{"top": float("nan"), "boom": 0.0, "bad": 0.0}', '{"to p": 8.0}'])
def test_plugin_params_with_names_that_are_not_names_or_values_that_are_not_numbers_are_refused(tmp_path, params):
    """A key of another type ({1: 8.0}) became the parameter "1", True read as 1.0 and nan as a default."""
    from cardsim.errors import PolicyError
    from cardsim.games import get_game
    from cardsim.policies import plugin_params
    from tests.plugins import write_duck

    path = write_duck(tmp_path)
    path.write_text(path.read_text().replace('{"top": 8.0, "boom": 0.0, "bad": 0.0}', params, 1))
    with pytest.raises(PolicyError, match=r"duck_params must be a dict of name -> number \(names like"):
        plugin_params(get_game("fubnub"), f"{path}:duck")
    write_duck(tmp_path)
    assert plugin_params(get_game("fubnub"), f"{path}:duck") == {"top": 8.0, "boom": 0.0, "bad": 0.0}


@pytest.mark.parametrize("study", ["compare", "sweep", "cards", "rate"])
def test_api_study_games_zero_is_refused(study, tmp_path):
    """``cardsim.sweep(S, games=0)`` played the scenario's games (0 read as "not given"), silently."""
    import cardsim
    from cardsim.errors import ScenarioError

    scen = {"compare": "fubnub_swap_worth", "sweep": "fubnub_call_threshold", "cards": "turtle_cards",
            "rate": "fubnub_ratings"}[study]
    with pytest.raises(ScenarioError, match="--games 0"):
        getattr(cardsim, study)(ROOT / "scenarios" / f"{scen}.toml", games=0, runs=tmp_path)
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("threads", [0, -1, 1.5, "2"])
def test_api_threads_must_be_positive(threads, tmp_path):
    """``cardsim.run(S, threads=-1)`` ended in ThreadPoolExecutor's ValueError (0 was the default, silently)."""
    import cardsim
    from cardsim.errors import ScenarioError

    with pytest.raises(ScenarioError, match="threads"):
        cardsim.run(ROOT / "scenarios" / "fubnub.toml", games=10, threads=threads, runs=tmp_path)
    with pytest.raises(ScenarioError, match="threads"):
        cardsim.search(ROOT / "scenarios" / "fubnub_search.toml", threads=threads, runs=tmp_path)
    assert not any(tmp_path.iterdir())


def test_api_misuse_is_one_cardsim_error(tmp_path):
    """A missing table was ``KeyError: 'nope'``; a dict, None or a run directory given as a scenario and an
    int given to open_run were TypeErrors or "a scenario file (.toml) is expected"."""
    import cardsim
    from cardsim.api import NoTableError, Result, Tables
    from cardsim.errors import RunDirError, ScenarioError

    res = Result.__new__(Result)
    res.__dict__["tables"] = Tables({"hands": None, "games": None}, where="runs/x")
    with pytest.raises(RunDirError, match=r"no table 'nope' in runs/x; tables: hands, games"):
        res.tables["nope"]
    with pytest.raises(KeyError):  # still a KeyError for code that catches one
        res.tables["nope"]
    assert issubclass(NoTableError, RunDirError) and res.tables.get("nope") is None and "nope" not in res.tables
    with pytest.raises(ScenarioError, match="from_dict"):
        cardsim.load({"scenario": {"name": "x", "game": "fubnub"}})
    with pytest.raises(ScenarioError, match="not NoneType"):
        cardsim.run(None, runs=tmp_path)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "manifest.json").write_text("{}")
    with pytest.raises(ScenarioError, match=r"is a run directory, not a scenario file: cardsim.open_run"):
        cardsim.run(tmp_path / "run", games=10)
    with pytest.raises(RunDirError, match="run directory's path"):
        cardsim.open_run(3)


def test_report_api_misuse_is_one_cardsim_error(tmp_path):
    """``cardsim.report.build_study(s, 'cmpare', r)`` was a ModuleNotFoundError, a result of another study an
    IndexError, ``report.write`` of a study's result or of a run directory's path an AttributeError."""
    import cardsim
    from cardsim import report as rep
    from cardsim.errors import CardsimError, RunDirError
    from cardsim.studies.compare import CompareResult

    s = cardsim.load(ROOT / "scenarios" / "fubnub_swap_worth.toml")
    cmp = CompareResult.__new__(CompareResult)
    with pytest.raises(CardsimError, match="kind 'cmpare' is not a study; allowed: compare, sweep, ratings"):
        rep.build_study(s, "cmpare", cmp)
    with pytest.raises(CardsimError, match=r"kind 'sweep' needs the result of cardsim.sweep\(...\) \(SweepResult\), "
                                           r"and was given a compare study's result"):
        rep.build_study(s, "sweep", cmp)
    with pytest.raises(CardsimError, match=r"build_study\(scenario, 'compare', result\)"):
        rep.write(cmp, tmp_path)
    with pytest.raises(CardsimError, match="not int"):
        rep.write(5, tmp_path)
    with pytest.raises(RunDirError, match="is not a run directory"):  # a path is opened as open_run does
        rep.write(tmp_path / "nope", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_api_arguments_of_the_wrong_kind_are_one_cardsim_error(tmp_path):
    """``backend="dask"`` was ``'str' object has no attribute 'map'``, ``out=`` a file a FileExistsError, ``runs=``
    a file a NotADirectoryError, ``rate(games="3")`` a TypeError, ``search(budget=1.5)`` "below the least a
    search needs", and the studies that play run directories took no ``seed`` (the CLI's --seed)."""
    import cardsim
    from cardsim.errors import CardsimError, ScenarioError

    fub = ROOT / "scenarios" / "fubnub.toml"
    (afile := tmp_path / "afile").write_text("")
    with pytest.raises(CardsimError, match=r"out='.*afile' is a file"):
        cardsim.run(fub, games=10, out=afile)
    with pytest.raises(CardsimError, match=r"runs='.*afile' is a file"):
        cardsim.run(fub, games=10, runs=afile)
    with pytest.raises(ScenarioError, match="'spark' is not a backend; allowed: local, dask"):
        cardsim.run(fub, games=10, runs=tmp_path, backend="spark")
    with pytest.raises(ScenarioError, match="backend=5 is not a backend"):
        cardsim.search(ROOT / "scenarios" / "fubnub_search.toml", runs=tmp_path, backend=5)
    with pytest.raises(ScenarioError, match="--games '3' must be an integer"):
        cardsim.rate(ROOT / "scenarios" / "fubnub_ratings.toml", games="3", runs=tmp_path)
    with pytest.raises(ScenarioError, match=r"--budget 1\.5 must be an integer"):
        cardsim.search(ROOT / "scenarios" / "fubnub_search.toml", budget=1.5, runs=tmp_path)
    with pytest.raises(ScenarioError, match=r"--games 900\.0 must be an integer"):
        cardsim.meta(ROOT / "scenarios" / "fourbid_meta.toml", games=900.0, runs=tmp_path)
    with pytest.raises(ScenarioError, match="--seed -1 is out of range"):
        cardsim.sweep(ROOT / "scenarios" / "fubnub_call_threshold.toml", games=10, seed=-1, runs=tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["afile"]


def test_to_pandas_of_a_table_name_says_what_it_takes():
    """``cardsim.api.to_pandas("games")`` was ``AttributeError: 'str' object has no attribute 'to_arrow'``."""
    pytest.importorskip("pandas")
    import polars as pl

    from cardsim.api import to_pandas
    from cardsim.errors import CardsimError

    with pytest.raises(CardsimError, match=r"not str; for a run's table by name: res.to_pandas\(name\)"):
        to_pandas("games")
    assert str(to_pandas(pl.Series("x", [1, None], dtype=pl.Int16)).dtype) == "Int16"  # a Series stays one


def test_meta_runs_a_file_is_refused_before_playing(tmp_path):
    """``cardsim.meta(S, runs=FILE)`` played its payoff table, then ended in NotADirectoryError saving a chunk."""
    import cardsim
    from cardsim.errors import RunDirError

    (afile := tmp_path / "afile").write_text("")
    for fn, scen in ((cardsim.meta, "fourbid_meta"), (cardsim.search, "fubnub_search")):
        with pytest.raises(RunDirError, match=r"runs='.*afile' is a file; runs is the folder"):
            fn(ROOT / "scenarios" / f"{scen}.toml", runs=afile)


def test_open_run_of_a_search_or_meta_folder_names_the_study(tmp_path):
    """``cardsim.open_run(runs/x-search-<hash>)`` said only "not a run directory (no manifest.json)"; the
    CLI names the command that reads it."""
    import cardsim
    from cardsim.errors import RunDirError

    (search := tmp_path / "x-search-0123").mkdir()
    (search / "journal.log").write_text("")
    (meta := tmp_path / "x-meta-chunks").mkdir()
    with pytest.raises(RunDirError, match=r"a search's folder \(journal.log\), not a run directory: cardsim.search"):
        cardsim.open_run(search)
    with pytest.raises(RunDirError, match=r"a meta-game's games \(its chunks\), not a run directory: cardsim.meta"):
        cardsim.open_run(meta)


def test_api_progress_must_be_a_function(tmp_path):
    """``cardsim.run(S, progress=True)`` made the run directory, then ended in ``'bool' object is not callable``."""
    import cardsim
    from cardsim.errors import ScenarioError

    with pytest.raises(ScenarioError, match=r"progress=True must be a function called with \(games done"):
        cardsim.run(ROOT / "scenarios" / "fubnub.toml", games=10, runs=tmp_path, progress=True)
    with pytest.raises(ScenarioError, match="on_start='x' must be a function"):
        cardsim.compare(ROOT / "scenarios" / "fubnub_swap_worth.toml", games=10, runs=tmp_path, on_start="x")
    with pytest.raises(ScenarioError, match="progress=1 must be a function"):
        cardsim.search(ROOT / "scenarios" / "fubnub_search.toml", runs=tmp_path, progress=1)
    assert not any(tmp_path.iterdir())


def test_api_takes_numpy_integers(tmp_path):
    """``cardsim.run(S, games=np.int64(50))`` (a count from ``np.arange``) was refused: "--games np.int64(50)
    must be an integer in [1, 10000000000]"; likewise a numpy seed."""
    import numpy as np

    import cardsim

    s = cardsim.load(ROOT / "scenarios" / "fubnub.toml", games=np.int64(50), seed=np.uint32(3))
    assert (s.games, s.seed) == (50, 3) and type(s.games) is int
    res = cardsim.run(ROOT / "scenarios" / "fubnub.toml", games=np.int32(20), seed=np.int64(3), threads=np.int8(1),
                      runs=tmp_path)
    assert res.scenario.games == 20 and res.tables["games"].collect().height == 20


def test_from_dict_takes_numpy_values_and_refuses_a_list(tmp_path):
    """``scenario.from_dict`` of a dict holding numpy values (a sweep's ``np.arange``) said "scenario.players =
    np.int64(4) must be an integer"; one given a list was an AttributeError. The numpy values are kept as
    Python ones, so the run's manifest is written."""
    import numpy as np

    import cardsim
    from cardsim.errors import ScenarioError
    from cardsim.scenario import from_dict

    s = from_dict({"scenario": {"name": "np", "game": "fubnub", "players": np.int64(4), "games": np.int32(20),
                                "seed": np.uint8(3)}, "seats": {"policies": [np.str_("greedy")] * 4}})
    assert (s.games, s.seed, type(s.raw["scenario"]["players"])) == (20, 3, int)
    res = cardsim.run(s, runs=tmp_path, threads=1)
    assert res.tables["games"].collect().height == 20
    with pytest.raises(ScenarioError, match=r"a scenario is a dict of the TOML's tables .* not list"):
        from_dict([{"scenario": {"game": "fubnub", "games": 10}}])


@pytest.mark.parametrize("bad", ["a" * 5000, "a\0b"])
def test_api_paths_the_system_cannot_look_up_are_one_error(bad, tmp_path):
    """A 5,000-character path was pathlib's OSError (File name too long) from ``load``, ``open_run`` and
    ``run(out=...)``, and a NUL byte its ValueError from ``open_run``."""
    import cardsim
    from cardsim.errors import CardsimError

    why = "too long a path" if len(bad) > 10 else "holds a NUL byte"
    if len(bad) > 10:
        with pytest.raises(CardsimError, match=f"scenario file .*{why}"):
            cardsim.load(bad)
    with pytest.raises(CardsimError, match=f"run directory .*{why}"):
        cardsim.open_run(bad)
    with pytest.raises(CardsimError, match=f"out=.*{why}"):
        cardsim.run(ROOT / "scenarios" / "fubnub.toml", games=10, out=tmp_path / bad)
    assert not any(tmp_path.iterdir())
    with pytest.raises(CardsimError, match=r"out=3 must be a folder's path \(str or Path\), not int"):
        cardsim.run(ROOT / "scenarios" / "fubnub.toml", games=10, out=3)  # a TypeError


@pytest.mark.parametrize("args", [["run", "{long}"], ["report", "{long}"],
                                  ["run", "{scen}", "--games", "10", "--out", "{tmp}/{long}"]])
def test_cli_a_path_too_long_is_one_line(args, tmp_path):
    """``cardsim run <5,000 characters>`` (a paste gone wrong) was a traceback with exit code 1."""
    long = "a" * 5000
    argv = [a.format(long=long, tmp=tmp_path, scen=ROOT / "scenarios" / "fubnub.toml") for a in args]
    r = CliRunner().invoke(app, argv)
    assert r.exit_code == 2, r.output
    assert "too long a path (5,0" in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_api_run_and_studies_with_runs_none_say_where_runs_go(tmp_path):
    """``cardsim.compare(S, runs=None)`` (as search and meta take it: in memory) was open()'s TypeError."""
    import cardsim
    from cardsim.errors import RunDirError

    with pytest.raises(RunDirError, match=r"runs=None: a run keeps its games in a run directory"):
        cardsim.compare(ROOT / "scenarios" / "fubnub_swap_worth.toml", games=10, runs=None)
    with pytest.raises(RunDirError, match=r"runs=None"):
        cardsim.run(ROOT / "scenarios" / "fubnub.toml", games=10, runs=None, until="winrate_s0 +-0.1")


def test_report_into_a_file_is_one_cardsim_error(tmp_path):
    """``Report.write(FILE)`` (and ``cardsim.report.write(res, FILE)``) was mkdir's NotADirectoryError."""
    from cardsim.errors import CardsimError
    from cardsim.report import Report

    (afile := tmp_path / "afile").write_text("")
    rep = Report("x", "X", "q?", "a.", {}, "", [])
    with pytest.raises(CardsimError, match=r"afile is a file; a report is written into a folder"):
        rep.write(afile)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "x").write_text("")
    with pytest.raises(CardsimError, match=r"out/x is a file"):
        rep.write(tmp_path / "out")
    assert (afile.read_text(), (tmp_path / "out" / "x").read_text()) == ("", "")


@pytest.mark.parametrize("study", ["compare", "sweep", "rate"])
def test_a_study_scenario_with_until_is_refused(study, tmp_path):
    """``until = ...`` under [scenario] of a compare stopped every arm's run at its own precision: the answer
    said "On the same 2,000 deals" over arms of 400 games."""
    import tomllib

    import cardsim
    from cardsim.errors import ScenarioError
    from cardsim.scenario import from_dict

    name = {"compare": "fubnub_swap_worth", "sweep": "fubnub_call_threshold", "rate": "fubnub_ratings"}[study]
    raw = tomllib.loads((ROOT / "scenarios" / f"{name}.toml").read_text())
    raw["scenario"]["until"] = "winrate_s0 +-0.05"
    with pytest.raises(ScenarioError, match=r"scenario.until = 'winrate_s0 \+-0.05' is a precision target for"):
        getattr(cardsim, study)(from_dict(raw), games=50, runs=tmp_path)
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("study", ["search", "meta"])
def test_a_search_or_meta_scenario_with_until_is_refused(study, tmp_path):
    """``until = ...`` under [scenario] of a search or a meta-game was read by nothing: the study played to
    its budget (deals) and no line said the target was ignored. It is refused as in the other studies."""
    import tomllib

    import cardsim
    from cardsim.errors import ScenarioError
    from cardsim.scenario import from_dict

    name = {"search": "fubnub_search", "meta": "fourbid_meta"}[study]
    raw = tomllib.loads((ROOT / "scenarios" / f"{name}.toml").read_text())
    raw["scenario"]["until"] = "winrate_s0 +-0.05"
    with pytest.raises(ScenarioError, match=r"scenario.until = 'winrate_s0 \+-0.05' is a precision target for"):
        getattr(cardsim, study)(from_dict(raw), runs=tmp_path)
    assert not any(tmp_path.iterdir())


def test_a_run_directory_another_process_is_playing_into_is_not_called_interrupted(tmp_path):
    """`cardsim report RUN_DIR` of a run another cardsim was still playing into said "interrupted: 1,020,000 of
    the 20,000,000 games asked were played; `cardsim run RUN_DIR` plays the rest", a command that process then
    refused. While the directory's owner file is held the note says the run is still being played."""
    import fcntl
    import json

    import cardsim
    from cardsim.scenario import from_dict

    raw = {"scenario": {"name": "busy", "game": "fubnub", "games": 40, "seed": 1}, "seats": {"policy": "partner"},
           "rules": {"point_cards": 1}}
    res = cardsim.run(from_dict(raw), out=tmp_path / "busy")
    m = json.loads((res.path / "manifest.json").read_text())
    m["asked"] = 400  # as a run of 400 games that has finished its first chunk so far
    (res.path / "manifest.json").write_text(json.dumps(m))
    assert cardsim.open_run(res.path).stop.startswith("interrupted: 40 of the 400 games")
    with open(res.path / ".owner", "a+") as f:  # another process playing into it holds this file
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        f.write("process 4242")
        f.flush()
        stop = cardsim.open_run(res.path).stop
    assert "interrupted" not in stop and stop.startswith("still being played") and "process 4242" in stop, stop
    assert cardsim.open_run(res.path).stop.startswith("interrupted")  # the holder gone: cut short
