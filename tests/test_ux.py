"""A user's day at the command line (issue 17): version, completion, help, progress, Ctrl-C,
folders that cannot be written, corrupt run directories and plug-in runs reported from elsewhere."""

from __future__ import annotations

import json
import os
import pty
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardsim import __version__, api
from cardsim.cli import app
from tests.plugins import write_duck

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache")))
SCENARIO = """
[scenario]
name = "ux"
game = "fubnub"
games = {games}
seed = 4
chunk = {chunk}

[seats]
policies = ["partner", "greedy", "tactician", "partner"]
"""


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def one_error_line(r, needle: str) -> str:
    """Exit code 2 and one ``error:`` line (after the run directory's notice, when a run had started)."""
    assert r.exit_code == 2, r.output
    lines = [line for line in r.output.splitlines() if line.strip() and not re.match(r"\S+: run directory ", line)]
    assert len(lines) == 1 and lines[0].startswith("error: "), r.output
    assert needle in lines[0], lines[0]
    return lines[0]


def scenario(tmp_path: Path, games: int = 3000, chunk: int = 1000, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(SCENARIO.format(games=games, chunk=chunk))
    return p


# -- version, completion, help ----------------------------------------------------------------
def test_version():
    r = invoke("--version")
    assert r.exit_code == 0 and r.output.strip() == f"cardsim {__version__}"


def test_shell_completion_script(monkeypatch):
    # typer takes the shell from the processes above this one (shellingham), not from the word
    # "bash": a test worker's ancestry is not a user's terminal, and once gave none typer knows
    import typer.completion

    monkeypatch.setattr(typer.completion, "_get_shell_name", lambda: "bash")
    r = invoke("--show-completion", "bash")
    assert r.exit_code == 0 and "complete" in r.output and "cardsim" in r.output, r.output


@pytest.mark.parametrize(("command", "words"), [
    ("compare", "[compare] section"), ("sweep", "[sweep] section"), ("rate", "[ratings] section"),
    ("cards", "[cards] section"), ("search", "[search] section"), ("meta", "[meta] section"),
])
def test_help_keeps_bracketed_words(command, words):
    # typer's rich markup used to eat "[compare]", leaving "with a  section"
    r = invoke(command, "--help")
    assert r.exit_code == 0
    assert words in " ".join(r.output.split())
    # every study names its argument alike (cards, search and meta read "{scenario}" in lower case)
    assert f"Usage: cardsim {command} [OPTIONS] {{SCENARIO}}" in r.output, r.output


def test_command_list_is_not_cut():
    r = invoke("--help")
    commands = r.output.split("Commands:")[1]
    assert r.exit_code == 0 and "..." not in commands


@pytest.mark.parametrize(("args", "needle", "usage"), [
    (["run", "scenarios/fubnub.toml", "--games", "abc"], "'--games'", "cardsim run [OPTIONS]"),
    (["run", "scenarios/fubnub.toml", "--gmaes", "5"], "No such option: --gmaes", "cardsim run [OPTIONS]"),
    (["run"], "Missing argument", "cardsim run [OPTIONS]"),
    (["runn"], "Did you mean 'run'?", "cardsim [OPTIONS] COMMAND"),
    (["trace", "fubnub", "-n", "0"], "greater than or equal to 1", "cardsim trace [OPTIONS]"),
    (["games", "--format", "xml"], "'--format' / '-f': 'xml' is not one of 'table', 'json', 'csv'",
     "cardsim games [OPTIONS]"),
])
def test_usage_errors_are_one_line_with_the_usage(args, needle, usage):
    """click's usage errors end like every other user error: one `error:` line on stderr (naming
    what is wrong and, through the usage, what is allowed) and exit code 2."""
    r = subprocess.run([sys.executable, "-m", "cardsim.cli", *args], cwd=ROOT, env=ENV, capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0] and usage in lines[0], r.stderr


def test_warm_module_help_and_a_missing_scenario():
    """`python -m cardsim.warm --help` read "--help" as a scenario file and ended in a traceback, as
    did a scenario that does not exist."""
    r = subprocess.run([sys.executable, "-m", "cardsim.warm", "--help"], cwd=ROOT, env=ENV, capture_output=True,
                       text=True)
    assert r.returncode == 0 and "python -m cardsim.warm [SCENARIO ...]" in r.stdout and r.stderr == "", r.stderr
    r = subprocess.run([sys.executable, "-m", "cardsim.warm", "scenarios/nosuch.toml"], cwd=ROOT, env=ENV,
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr == "error: scenario file scenarios/nosuch.toml does not exist\n", r.stderr


def test_warm_splits_gubs_and_starts_the_longest_compiles_first():
    """make setup's warm-up compiled Gubs' kernels in one process (247 s on a clean clone) while the other
    core finished the other three games in 105 s and waited: Gubs' trace and bench kernels are a task of
    their own, and every game's kernels are still warmed."""
    from cardsim.warm import PARTS, tasks

    todo = tasks({"turtle": [], "fourbid": [], "fubnub": ["scenarios/fubnub.toml"], "gubs": []})
    assert [(g, part) for g, _, part in todo] == [("gubs", "run"), ("gubs", "trace"), ("fubnub", "all"),
                                                 ("fourbid", "all"), ("turtle", "all")]
    assert todo[2][1] == ["scenarios/fubnub.toml"]
    assert set(PARTS["run"]) | set(PARTS["trace"]) == set(PARTS["all"]) == {"run", "trace", "minimal"}


def test_no_command_prints_the_help():
    r = subprocess.run([sys.executable, "-m", "cardsim.cli"], cwd=ROOT, env=ENV, capture_output=True, text=True)
    assert r.returncode == 2 and "Commands:" in r.stdout + r.stderr


# -- progress and the run directory on stderr -------------------------------------------------
def test_progress_on_a_terminal_stderr_when_stdout_is_a_file(tmp_path):
    """stdout to a file, stderr a terminal: the answer goes to the file, the run directory and the
    progress bar to the terminal."""
    scen = scenario(tmp_path)
    master, slave = pty.openpty()
    with open(tmp_path / "out.txt", "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "cardsim.cli", "run", str(scen), "--runs", str(tmp_path / "runs")],
                                cwd=ROOT, env=ENV, stdout=out, stderr=slave)
    os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        err += chunk
    assert proc.wait() == 0
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", err.decode(errors="replace"))
    assert "ux: run directory" in text
    assert "3000/3000" in text  # the bar reached its end
    answer = (tmp_path / "out.txt").read_text()
    assert "ux: 3,000 games" in answer.splitlines()[1] and "3000/3000" not in answer  # after the answer


def test_run_directory_printed_at_the_start(tmp_path):
    r = invoke("run", scenario(tmp_path), "--runs", tmp_path / "runs")
    assert r.exit_code == 0
    first = r.output.splitlines()[0]
    assert first.startswith("ux: run directory ") and str(tmp_path / "runs") in first


# -- Ctrl-C -----------------------------------------------------------------------------------
def started_run(scen: Path, out: Path, *options: str) -> subprocess.Popen:
    """``cardsim run scen --out out`` in a process of its own, once two chunks are finished."""
    proc = subprocess.Popen([sys.executable, "-m", "cardsim.cli", "run", str(scen), "--out", str(out), *options],
                            cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            if len(json.loads((out / "manifest.json").read_text())["done"]) >= 2:
                break
        except (FileNotFoundError, json.JSONDecodeError, KeyError):
            pass
        time.sleep(0.05)
    return proc


@pytest.mark.parametrize("sig, code, word, threads", [(signal.SIGINT, 130, "interrupted", "1"),
                                                      (signal.SIGTERM, 143, "terminated", "2"),
                                                      (signal.SIGHUP, 129, "hung up", "1")])
def test_ctrl_c_and_sigterm_say_what_was_kept_and_resume_is_exact(tmp_path, sig, code, word, threads):
    """Ctrl-C, and SIGTERM (``kill PID``, a batch system's stop), end a run with one line saying what
    was kept. SIGTERM ended the process at once and silently, leaving the temporary files of the parts
    and manifest it was writing in the run directory (a local Dask cluster's scratch folder too); so did
    SIGHUP (the terminal closed), which now ends it as SIGTERM does."""
    scen = scenario(tmp_path, games=400_000, chunk=2000)
    out = tmp_path / "run"
    proc = started_run(scen, out, "--threads", threads)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == code, stderr
    assert "Traceback" not in stderr and stdout == ""
    last = stderr.strip().splitlines()[-1]
    m = re.fullmatch(rf"{word}: ([\d,]+) of 400,000 games are kept in (.+); run the same command again to "
                     r"resume \(finished chunks are not played again\)", last)
    assert m, last
    kept = int(m.group(1).replace(",", ""))
    assert kept == sum(json.loads((out / "manifest.json").read_text())["done"].values()) > 0
    assert m.group(2) == str(out)
    assert not [p for p in out.rglob("*") if p.name.endswith(".tmp")]
    # resuming a shorter run from the kept chunks gives the tables of an uninterrupted one
    resumed = api.run(scen, out=out, games=kept)
    ref = api.run(scen, out=tmp_path / "ref", games=kept)
    for t in ("hands", "games"):
        assert resumed.tables[t].collect().sort("game").equals(ref.tables[t].collect().sort("game")), t


def test_ctrl_c_after_the_last_game_says_nothing_is_left_to_play(tmp_path, monkeypatch):
    """Stopped in the summary of a finished run, it said "3,000 of 3,000 games are kept ...; run the
    same command again to resume", as if games were left to play."""
    from cardsim.games.base import Game

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Game, "answer", interrupted)
    r = invoke("run", scenario(tmp_path), "--out", tmp_path / "run")
    assert r.exit_code == 130, r.output
    assert r.output.splitlines()[-1] == (f"interrupted: all 3,000 games are kept in {tmp_path / 'run'}; run the same "
                                         "command again for what it prints after the games (no game is played again)")


def test_ctrl_c_dropped_in_a_callback_while_numba_compiles_is_one_line(tmp_path, monkeypatch):
    """Ctrl-C while numba compiles can land in llvmlite's object-cache callback from C: Python prints
    "Exception ignored on calling ctypes callback function ... KeyboardInterrupt" and drops it, and numba
    then fails with "RuntimeError: no compiled object yet": a 200-line traceback, exit code 1. It is the
    Ctrl-C's one line, exit code 130 (here the callback and numba's error are simulated)."""
    import types

    from cardsim.games.base import Game

    def compiling(*args, **kwargs):
        sys.unraisablehook(types.SimpleNamespace(exc_type=KeyboardInterrupt, exc_value=KeyboardInterrupt(),
                                                 exc_traceback=None, object=None,
                                                 err_msg="Exception ignored on calling ctypes callback function"))
        raise RuntimeError("no compiled object yet for <Library 'check_state'>")

    monkeypatch.setattr(Game, "answer", compiling)
    r = invoke("run", scenario(tmp_path), "--out", tmp_path / "run")
    assert r.exit_code == 130, r.output
    assert r.output.splitlines()[-1].startswith("interrupted: all 3,000 games are kept in "), r.output
    assert "Exception ignored" not in r.output and "RuntimeError" not in r.output


def test_ctrl_c_in_a_search_names_its_journal(tmp_path, monkeypatch):
    """Ctrl-C in a search said "no game was played yet; nothing to keep", its journal holding every
    finished batch (the search resumes from it). And Optuna's journal lock, interrupted within its
    release, raised FileNotFoundError while handling the KeyboardInterrupt: a traceback, exit code 1."""
    from cardsim.studies import search as srch

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    def lock_released_badly(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except BaseException:
            raise FileNotFoundError(2, "No such file or directory", "journal.log.lock1234.rename") from None

    scen = ROOT / "scenarios" / "fubnub_search.toml"
    journal = srch.folder_for(srch.plan(api.load(scen)), tmp_path / "runs") / "journal.log"
    for stop in (interrupted, lock_released_badly):
        monkeypatch.setattr(api, "search", stop)
        r = invoke("search", scen, "--runs", tmp_path / "runs")
        assert r.exit_code == 130, r.output
        assert r.output == (f"interrupted: the search keeps each finished batch of candidates in its journal {journal}; "
                            "run the same command again to resume (finished batches are not played again)\n")


def test_ctrl_c_in_a_search_with_budget_names_the_journal_it_writes(tmp_path, monkeypatch):
    """With --budget (or `cardsim report -n`), Ctrl-C named the journal of the scenario's own budget, a
    folder that did not exist, where the search kept its batches in the --budget one's."""
    from cardsim.studies import search as srch

    real, made = srch.folder_for, []

    def folder_for(p, runs):  # the first call is the Ctrl-C line's, the next the search's own
        made.append(real(p, runs))
        if len(made) > 1:
            raise KeyboardInterrupt
        return made[-1]

    monkeypatch.setattr(srch, "folder_for", folder_for)
    scen = ROOT / "scenarios" / "fubnub_search.toml"
    r = invoke("search", scen, "--runs", tmp_path / "runs", "--budget", "100000")
    assert r.exit_code == 130, r.output
    assert len(made) == 2 and made[0] == made[1], made
    assert r.output == (f"interrupted: the search keeps each finished batch of candidates in its journal "
                        f"{made[1] / 'journal.log'}; run the same command again to resume (finished batches are "
                        "not played again)\n")


def test_ctrl_c_while_the_command_line_loads_is_one_line():
    """Ctrl-C in the first half second of a command (typer, polars, numba loading) printed a traceback
    of the imports; it says what any Ctrl-C says. The child stands for a terminal's process (Python's
    own SIGINT handler) and is interrupted once cardsim.cli is imported, before any command starts."""
    code = ("import os, signal, time\n"
            "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "import cardsim.cli\n"
            "os.kill(os.getpid(), signal.SIGINT)\n"
            "time.sleep(30)\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120)
    assert r.returncode == 130 and r.stdout == ""
    assert r.stderr == ("interrupted: before this command played any game; nothing new to keep (what earlier "
                        "commands kept is untouched)\n")


# -- folders that cannot be written -----------------------------------------------------------
@pytest.fixture
def read_only(tmp_path, monkeypatch):
    """A folder nobody may write to. As root, chmod does not stop writes: refuse them in tempfile,
    os.mkdir and open instead, as a read-only mount would."""
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    if os.access(folder, os.W_OK):
        def refuse(path) -> bool:
            return str(path).startswith(str(folder))

        real_mkstemp, real_mkdir = tempfile.mkstemp, os.mkdir

        def mkstemp(*args, dir=None, **kw):
            if dir is not None and refuse(dir):
                raise PermissionError(13, "Permission denied", str(dir))
            return real_mkstemp(*args, dir=dir, **kw)

        def mkdir(path, *args, **kw):
            if refuse(path):
                raise PermissionError(13, "Permission denied", str(path))
            return real_mkdir(path, *args, **kw)

        monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
        monkeypatch.setattr(os, "mkdir", mkdir)
    yield folder
    folder.chmod(0o700)


def test_read_only_runs_and_out_give_one_line(tmp_path, read_only):
    scen = scenario(tmp_path)
    one_error_line(invoke("run", scen, "--runs", read_only / "runs"), "--runs")
    one_error_line(invoke("run", scen, "--out", read_only), "--out")
    one_error_line(invoke("compare", ROOT / "scenarios" / "fubnub_swap_worth.toml", "--runs", read_only), "--runs")
    run_dir = tmp_path / "run"
    assert invoke("run", scen, "--out", run_dir).exit_code == 0
    before = sorted(p.name for p in (run_dir / "hands").iterdir())
    one_error_line(invoke("report", run_dir, "--out", read_only), "--out")
    one_error_line(invoke("report", scen, "--out", read_only, "--runs", tmp_path / "runs"), "--out")
    assert sorted(p.name for p in (run_dir / "hands").iterdir()) == before  # nothing lost


def test_read_only_run_dir_names_run_dir_not_out(tmp_path, monkeypatch):
    # `cardsim run RUN_DIR` on a read-only run said "error: --out RUN_DIR: cannot write there (...); choose a
    # folder you can write to", naming an option nobody typed; `cardsim report RUN_DIR` reads it as it is
    scen = scenario(tmp_path)
    run_dir = tmp_path / "run"
    assert invoke("run", scen, "--out", run_dir).exit_code == 0
    real_mkstemp = tempfile.mkstemp

    def mkstemp(*args, dir=None, **kw):
        if dir is not None and str(dir).startswith(str(run_dir)):
            raise OSError(30, "Read-only file system", str(dir))
        return real_mkstemp(*args, dir=dir, **kw)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    before = sorted(p.name for p in (run_dir / "hands").iterdir())
    one_error_line(invoke("run", run_dir), f"RUN_DIR {run_dir}: cannot write there (Read-only file system); "
                                           f"`cardsim report {run_dir}` reads it without writing, or --out NEW_DIR")
    assert invoke("report", run_dir, "--out", tmp_path / "rep").exit_code == 0
    assert sorted(p.name for p in (run_dir / "hands").iterdir()) == before


def test_a_file_where_a_folder_is_expected_gives_one_line(tmp_path):
    scen = scenario(tmp_path)
    (tmp_path / "afile").write_text("mine")
    for option in ("--out", "--runs"):
        one_error_line(invoke("run", scen, option, tmp_path / "afile"),
                       f"{option} {tmp_path / 'afile'} is a file, and {option} names a folder (made when missing)")
    one_error_line(invoke("report", scen, "--out", tmp_path / "afile", "--runs", tmp_path / "runs"), "is a file")
    assert (tmp_path / "afile").read_text() == "mine"


def test_a_write_error_during_a_run_gives_one_line(tmp_path, monkeypatch):
    # the folder checks pass, then the disk fills up while parts are written
    from cardsim import results

    def full(path, frame):
        raise OSError(28, "No space left on device", str(path))

    scen = scenario(tmp_path)
    monkeypatch.setattr(results, "atomic_write_parquet", full)
    line = one_error_line(invoke("run", scen, "--out", tmp_path / "run", "--threads", "1"), "No space left on device")
    assert "nothing already computed is lost" in line


# -- corrupt run directories ------------------------------------------------------------------
def test_truncated_part_gives_one_line_and_run_replays_it(tmp_path):
    scen = scenario(tmp_path)
    run_dir = tmp_path / "run"
    assert invoke("run", scen, "--out", run_dir).exit_code == 0
    part = run_dir / "hands" / "part-000001.parquet"
    data = part.read_bytes()
    part.write_bytes(data[: len(data) // 2])
    line = one_error_line(invoke("report", run_dir, "--out", tmp_path / "reports"), "part-000001.parquet")
    assert "truncated" in line and "cardsim run" in line
    assert invoke("run", scen, "--out", run_dir).exit_code == 0  # plays that chunk again
    assert invoke("report", run_dir, "--out", tmp_path / "reports").exit_code == 0


def test_a_part_whose_data_is_damaged_gives_one_line(tmp_path):
    # the footer reads but the pages do not: the manifest's checksum of the part tells it (a read names
    # it, a run plays its chunk again); in a directory whose manifest has no checksums (an older cardsim)
    # the run trusts the chunk, and the read is a one-line error naming the part, not polars' traceback;
    # once it is deleted the run plays that chunk again
    scen = scenario(tmp_path)
    run_dir = tmp_path / "run"
    assert invoke("run", scen, "--out", run_dir).exit_code == 0
    part = run_dir / "hands" / "part-000001.parquet"
    good = part.read_bytes()
    data = bytearray(good)
    footer = int.from_bytes(data[-8:-4], "little")
    data[4:len(data) - 8 - footer] = bytes(len(data) - 12 - footer)
    part.write_bytes(bytes(data))
    line = one_error_line(invoke("report", run_dir, "--out", tmp_path / "reports"), "part-000001.parquet is not the "
                          "part this run wrote (its size or checksum is not the manifest's record of it: a damaged file")
    assert f"`cardsim run {run_dir}` plays it again" in line
    assert invoke("run", run_dir).exit_code == 0 and part.read_bytes() == good
    manifest = run_dir / "manifest.json"
    m = json.loads(manifest.read_text())
    del m["parts"]
    manifest.write_text(json.dumps(m))
    part.write_bytes(bytes(data))
    for args in (("report", run_dir, "--out", tmp_path / "reports"), ("run", run_dir), ("run", scen, "--out", run_dir)):
        line = one_error_line(invoke(*args), "part-000001.parquet does not read")
        assert f"delete it, and `cardsim run {run_dir}` plays its chunk again" in line
    part.unlink()
    assert invoke("run", run_dir).exit_code == 0
    assert invoke("report", run_dir, "--out", tmp_path / "reports").exit_code == 0


def test_unfinished_chunk_gives_one_line(tmp_path):
    scen = scenario(tmp_path)
    run_dir = tmp_path / "run"
    assert invoke("run", scen, "--out", run_dir).exit_code == 0
    m = json.loads((run_dir / "manifest.json").read_text())
    del m["done"]["1"]
    (run_dir / "manifest.json").write_text(json.dumps(m))
    one_error_line(invoke("report", run_dir, "--out", tmp_path / "reports"), "chunk 1 (games 1,000-1,999) is not finished")


def test_report_of_a_plugin_run_from_another_folder(tmp_path, monkeypatch):
    home = tmp_path / "study"
    home.mkdir()
    write_duck(home)
    (home / "s.toml").write_text(SCENARIO.format(games=400, chunk=200).replace('"greedy"', '"duck.py:duck"'))
    monkeypatch.chdir(home)
    r = invoke("run", "s.toml", "--runs", "runs")
    assert r.exit_code == 0, r.output
    run_dir = next((home / "runs").iterdir())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    r = invoke("report", run_dir, "--out", "reports")
    assert r.exit_code == 0, r.output
    assert (elsewhere / "reports" / "ux" / "index.html").exists()
    assert api.open_run(run_dir).scenario.setup.seats[1].plugin == f"{home / 'duck.py'}:duck"
    # the plug-in deleted (or moved) since: the line named the missing file, not the run nor what to do
    (home / "duck.py").rename(home / "duck.py.bak")
    for command in ("report", "run"):
        line = one_error_line(invoke(command, run_dir, "--out", elsewhere / "r"), f"error: {run_dir} was played with a plug-in")
        assert f"file {home / 'duck.py'} does not exist" in line and "put the file back as it was" in line
    (home / "duck.py.bak").rename(home / "duck.py")
    assert invoke("report", run_dir, "--out", "reports").exit_code == 0


# -- cardsim games lists the real columns -----------------------------------------------------
def _variants_and_players():
    from cardsim.games import game_names, get_game

    for name in game_names():
        g = get_game(name)
        for v in g.variants:
            for players in sorted({v.min_players, v.max_players}):
                yield name, v.name, players


@pytest.mark.parametrize(("game", "variant", "players"), list(_variants_and_players()))
def test_columns_listed_are_the_columns_written(game, variant, players):
    from cardsim.games import get_game
    from cardsim.scenario import build_setup

    g = get_game(game)
    frames = g.simulate_chunk(build_setup(g, variant, players, None, {}), 1, 0, 3)
    assert {t: f.columns for t, f in frames.items()} == g.columns_for(variant, players)


def test_games_prints_every_column():
    r = invoke("games", "fubnub")
    assert r.exit_code == 0
    assert "hands (27 columns): game, hand, dealer" in r.output and "tricks_s0..tricks_s3" in r.output
    assert "score_t0, score_t1" in r.output
    r = invoke("games", "turtle")
    assert "games (13-25 columns by players)" in r.output and "out_s0..out_s7" in r.output


# -- pandas keeps integers ---------------------------------------------------------------------
def test_to_pandas_keeps_nullable_integers(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    s = tmp_path / "royal.toml"
    s.write_text('[scenario]\nname = "royal"\ngame = "fubnub"\nvariant = "battle_royal"\ngames = 50\n'
                 '[seats]\npolicy = "partner"\n')
    res = api.run(s, runs=tmp_path / "runs")
    games = res.to_pandas("games")
    # team columns are null in an individual variant: they stay integer columns, not float64
    assert str(games["points_t0"].dtype) in ("Int8", "Int16", "Int32", "Int64")
    assert games["points_t0"].isna().all()
    assert str(games["points_s0"].dtype).startswith("Int") and games["points_s0"].notna().all()
    assert str(games["tie"].dtype) == "boolean"
    assert games.shape[0] == 50
    plain = res.tables["games"].collect().to_pandas()
    assert plain["points_t0"].dtype == "float64"  # what polars' own to_pandas does
    assert pd.api.types.is_integer_dtype(res.to_pandas("hands")["tricks_s0"])
    with pytest.raises(Exception, match="no table 'nope'"):
        res.to_pandas("nope")


# -- a finished run directory reads as it was played (seed, chunking), and resumes ------------
def run_dir_of(r) -> Path:
    assert r.exit_code == 0, r.output
    return Path(next(line for line in r.output.splitlines() if ": run directory " in line).split("run directory ")[1])


def test_report_of_a_run_played_with_another_seed(tmp_path):
    scen = scenario(tmp_path, games=400, chunk=200)  # the file says seed = 4
    run_dir = run_dir_of(invoke("run", scen, "--seed", "7", "--runs", tmp_path / "runs"))
    assert json.loads((run_dir / "manifest.json").read_text())["scenario"]["scenario"]["seed"] == 7
    assert invoke("report", run_dir, "--out", tmp_path / "reports").exit_code == 0
    played = api.open_run(run_dir)
    assert played.scenario.seed == 7 and played.scenario.hash() == api.load(scen, seed=7).hash()
    # a manifest written before it kept the file's seed in its copy of the scenario: still read
    m = json.loads((run_dir / "manifest.json").read_text())
    m["scenario"]["scenario"]["seed"] = 4
    (run_dir / "manifest.json").write_text(json.dumps(m))
    assert api.open_run(run_dir).scenario.seed == 7
    before = sorted(p.name for p in (run_dir / "hands").iterdir())
    line = one_error_line(invoke("run", scen, "--seed", "6", "--out", run_dir), "with seed 7")
    assert "asks for seed 6" in line and "--seed 7" in line and "another --out" in line
    assert "another scenario" not in line
    assert sorted(p.name for p in (run_dir / "hands").iterdir()) == before  # nothing lost
    assert invoke("run", scen, "--seed", "7", "--out", run_dir, "--games", "600").exit_code == 0  # as it says


def test_report_of_a_sweeps_best_point_on_fresh_deals(tmp_path):
    scen = tmp_path / "sw.toml"
    scen.write_text('[scenario]\nname = "sw"\ngame = "fubnub"\ngames = 200\nseed = 4\nchunk = 100\n'
                    '[seats]\npolicies = ["tactician", "partner", "tactician", "partner"]\n'
                    '[sweep]\nmetric = "winrate_s0"\npoints = [{ "seat0.call_need" = 1 }, { "seat0.call_need" = 3 }]\n')
    assert invoke("sweep", scen, "--runs", tmp_path / "runs").exit_code == 0
    dirs = sorted((tmp_path / "runs").iterdir())
    assert len(dirs) == 3  # two points and the best one on fresh deals
    for d in dirs:
        r = invoke("report", d, "--out", tmp_path / "reports")
        assert r.exit_code == 0, (d, r.output)


def test_report_and_resume_of_an_until_run_use_its_own_chunks(tmp_path):
    scen = scenario(tmp_path, games=3000, chunk=1000)
    r = invoke("run", scen, "--until", "winrate_s0 +-0.05", "--runs", tmp_path / "runs")
    run_dir = run_dir_of(r)
    m = json.loads((run_dir / "manifest.json").read_text())
    assert run_dir.name.endswith(f"-chunk{m['chunk']}") and m["chunk"] < 1000 and m["games"] < 3000
    assert invoke("report", run_dir, "--out", tmp_path / "reports").exit_code == 0
    assert api.open_run(run_dir).scenario.games == m["games"]
    # an unfinished chunk: the command the error suggests plays it again, and only it
    del m["done"]["1"]
    (run_dir / "manifest.json").write_text(json.dumps(m))
    line = one_error_line(invoke("report", run_dir, "--out", tmp_path / "reports"), f"chunk 1 (games {m['chunk']}-")
    command = re.search(r"`cardsim (run [^`]+)`", line).group(1).split()
    r = invoke(*command)
    assert r.exit_code == 0, r.output
    assert f"{m['games']:,} games" in r.output
    after = json.loads((run_dir / "manifest.json").read_text())
    assert after["games"] == m["games"] and after["done"]["1"] == m["chunk"]
    assert invoke("report", run_dir, "--out", tmp_path / "reports").exit_code == 0


def test_an_until_run_of_a_run_directory_played_in_other_chunks_says_how_to_play_it(tmp_path):
    """The message told a user who gave RUN_DIR (and may have no scenario file) to run the scenario file."""
    run_dir = run_dir_of(invoke("run", scenario(tmp_path, games=2000, chunk=1000), "--runs", tmp_path / "runs"))
    until = "winrate_s0 +-0.05"
    line = one_error_line(invoke("run", run_dir, "--until", until), "was played in chunks of 1,000 games")
    assert f"`cardsim run {run_dir} --until ... --out NEW_DIR` plays this run's scenario and seed there" in line
    r = invoke("run", run_dir, "--until", until, "--out", tmp_path / "new")
    assert r.exit_code == 0, r.output


def test_an_until_run_is_read_at_its_stop_not_at_the_games_played_past_it(tmp_path):
    """Threads play chunks ahead of the look: the games past the stop stay in the directory, but the
    run is the games up to the stop (the Wilson interval whose coverage is measured there). Reading the
    directory (open_run, `cardsim report RUN_DIR`, `cardsim run RUN_DIR`) gives those games and the
    stopping line; extending it with more games makes it a fixed-n run."""
    scen = tmp_path / "t.toml"
    scen.write_text('[scenario]\nname = "t"\ngame = "turtle"\nvariant = "full"\nplayers = 4\ngames = 20000\n'
                    'seed = 3\n[seats]\npolicy = "eager"\n')
    r = invoke("run", scen, "--until", "winrate_s1 +-0.03", "--threads", "4", "--runs", tmp_path / "runs")
    run_dir = run_dir_of(r)
    m = json.loads((run_dir / "manifest.json").read_text())
    stop = m["until"]["games"]
    assert stop < m["games"], "this seed stops before the last chunk the threads played"  # 871 of 1,072
    assert f"after {stop:,} games: stopped at the first look" in r.output
    res = api.open_run(run_dir)
    assert res.scenario.games == stop and res.stop == m["until"]["note"]
    assert res.outcomes().select("game").unique().collect().height == stop
    assert invoke("report", run_dir, "--out", tmp_path / "reports").exit_code == 0
    page = (tmp_path / "reports" / "t" / "report.md").read_text()
    assert f"| games | {stop:,} |" in page and "stopped at the first look" in page
    again = invoke("run", run_dir)
    assert again.exit_code == 0 and f"{stop:,} games of turtle" in again.output and "stopped at" in again.output
    more = invoke("run", run_dir, "--games", str(m["games"]))  # extended: a fixed-n run of those games
    assert more.exit_code == 0 and "stopped at" not in more.output, more.output
    after = json.loads((run_dir / "manifest.json").read_text())
    assert "until" not in after and api.open_run(run_dir).scenario.games == m["games"]


def test_run_of_a_directory(tmp_path):
    one_error_line(invoke("run", tmp_path), "is a directory but not a run directory")
    one_error_line(invoke("compare", tmp_path), "is a directory; a scenario file (.toml) is expected")
    # `cardsim run RUN_DIR` completes an interrupted run: the games it was asked, with its seed
    run_dir = tmp_path / "run"
    assert invoke("run", scenario(tmp_path, games=600, chunk=200), "--seed", "9", "--out", run_dir).exit_code == 0
    m = json.loads((run_dir / "manifest.json").read_text())
    del m["done"]["1"], m["done"]["2"]
    m["games"] = 200
    (run_dir / "manifest.json").write_text(json.dumps(m))
    r = invoke("run", run_dir)
    assert r.exit_code == 0 and "600 games of fubnub (traditional), seed 9" in r.output, r.output
    assert json.loads((run_dir / "manifest.json").read_text())["done"] == {"0": 200, "1": 200, "2": 200}


def test_report_of_a_missing_run_directory(tmp_path):
    line = one_error_line(invoke("report", tmp_path / "runs" / "fubnub-000000000000"), "does not exist")
    assert "run directory" in line and "scenario file" in line


def test_unreachable_scheduler_gives_one_line(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    from cardsim.dask_backend import DaskBackend

    monkeypatch.setattr(DaskBackend, "connect_timeout", "1s", raising=False)
    r = invoke("run", scenario(tmp_path, games=200, chunk=100), "--scheduler", "tcp://127.0.0.1:1",
               "--out", tmp_path / "run")
    line = one_error_line(r, "could not be reached at tcp://127.0.0.1:1")
    assert "--scheduler" in line


def test_scheduler_address_that_is_not_a_scheduler_gives_one_line(tmp_path):
    """An address that answers, but not as a Dask scheduler (a dashboard's HTTP port, say): distributed
    read the HTTP reply as a frame length and raised MemoryError ("Unable to allocate 3.07 EiB"), which
    reached the user as a traceback with exit code 1."""
    pytest.importorskip("distributed")
    import socket
    import threading

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    srv.settimeout(30)

    def serve():
        try:
            while True:
                conn, _ = srv.accept()
                with conn:
                    conn.settimeout(2)
                    try:
                        conn.recv(65536)
                    except OSError:
                        pass
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n"
                                 b"date: Sun, 29 Nov 2026 01:26:18 GMT\r\n\r\n")
        except OSError:  # closed at the end of the test, or no more connections
            pass

    threading.Thread(target=serve, daemon=True).start()
    address = f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    try:
        r = invoke("run", scenario(tmp_path, games=200, chunk=100), "--scheduler", address, "--out", tmp_path / "run")
    finally:
        srv.close()
    line = one_error_line(r, f"{address} answered, but not as a Dask scheduler")
    assert "--scheduler" in line and "8786" in line


def test_run_files_follow_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        assert invoke("run", scenario(tmp_path, games=200, chunk=100), "--out", tmp_path / "run").exit_code == 0
    finally:
        os.umask(old)
    files = [tmp_path / "run" / "manifest.json", *(tmp_path / "run").glob("*/part-*.parquet")]
    assert len(files) == 5
    assert {oct(f.stat().st_mode & 0o777) for f in files} == {oct(0o644)}


def test_debug_on_a_finished_run_says_nothing_was_checked(tmp_path):
    scen = scenario(tmp_path, games=200, chunk=100)
    r = invoke("run", scen, "--out", tmp_path / "run", "--debug")
    assert r.exit_code == 0 and "checked nothing" not in r.output
    r = invoke("run", scen, "--out", tmp_path / "run", "--debug")
    assert r.exit_code == 0
    assert "--debug checked nothing: all 200 games were already played" in r.output and "--out" in r.output


# -- policy parameters: each built-in one declares what it accepts --------------------------------
@pytest.mark.parametrize(("game", "entry", "needle"), [
    ("fubnub", '{ name = "tactician", cheap = 2 }', "policy 'tactician' parameter cheap = 2; allowed: 0 or 1"),
    ("fubnub", '{ name = "tactician", call_need = -3 }', "call_need = -3; allowed: an integer >= 0"),
    ("fubnub", '{ name = "tactician", call_top = 2.5 }', "call_top = 2.5; allowed: an integer >= 0"),
    ("gubs", '{ name = "strong", target = 7 }', "target = 7; allowed: 0, 1 or 2"),
    ("turtle", '{ name = "cunning", shield_first = 0.5 }', "shield_first = 0.5; allowed: 0 or 1"),
    ("fourbid", '{ name = "bidder", first_at = -1 }', "first_at = -1; allowed: an integer >= 0"),
])
def test_a_policy_parameter_outside_its_domain_is_refused(tmp_path, game, entry, needle):
    """A flag of 2, a negative count, a fractional position, a choice out of its list: a typo, never
    a setting (the kernels read a flag as > 0.5 and compare counts with >=, so they would run)."""
    p = tmp_path / "p.toml"
    p.write_text(f'[scenario]\nname = "p"\ngame = "{game}"\ngames = 10\n[seats]\npolicy = {entry}\n')
    one_error_line(invoke("run", p, "--runs", tmp_path / "runs"), needle)
    assert not (tmp_path / "runs").exists()  # refused before anything ran


@pytest.mark.parametrize(("policies", "where"), [
    (["{ name = 'tactician', cheap = 2 }"], "error: --policy: policy 'tactician' parameter cheap = 2"),
    (["greedy", "{ name = 'tactician', cheap = 2 }", "greedy", "greedy"], "error: --policy (seat 1): policy"),
    (["{ nam = 'tactician' }"], "error: --policy needs a string 'name' key"),
])
def test_a_trace_policy_error_names_the_option_given(policies, where):
    """`cardsim trace -p` with a bad parameter named `seats.policies[0]`, a scenario key the user never wrote."""
    line = one_error_line(invoke("trace", "fubnub", *[a for p in policies for a in ("-p", p)]), where)
    assert "seats.policies" not in line


@pytest.mark.parametrize(("seats", "where"), [
    ('policy = { name = "simple", bogus = 1 }', "error: seats.policy: policy 'simple' has no parameter 'bogus'"),
    ('policy = { nam = "simple" }', "error: seats.policy needs a string 'name' key"),
    ('policies = ["simple", { name = "simple", bogus = 1 }]', "error: seats.policies[1]: policy 'simple' has no"),
])
def test_a_seat_policy_error_names_the_key_written(tmp_path, seats, where):
    """A scenario's one policy for every seat (`seats.policy`) with a bad parameter was named
    `seats.policies[0]`, a key the scenario does not have."""
    p = tmp_path / "s.toml"
    p.write_text(f'[scenario]\nname = "s"\ngame = "gubs"\nplayers = 2\ngames = 10\n[seats]\n{seats}\n')
    line = one_error_line(invoke("run", p, "--runs", tmp_path / "runs"), where)
    assert ("seats.policies" in line) == ("policies =" in seats)


def test_every_default_and_shipped_scenario_is_inside_the_domains():
    from cardsim.games import game_names, get_game
    from cardsim.studies import search

    for name in game_names():
        for spec in get_game(name).policies:
            assert set(dict(spec.domains)) <= set(spec.param_names()), spec.name
            for k, v in spec.params:
                assert spec.domain(k).accepts(v), (name, spec.name, k, v)
    for path in sorted(Path("scenarios").glob("*.toml")):
        s = api.load(path)
        if "search" in s.raw:
            search.plan(s)  # every end and listed value of every searched parameter validates


def test_a_search_space_reaching_outside_a_domain_is_refused(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text('[scenario]\nname = "s"\ngame = "fubnub"\ngames = 10\n[seats]\npolicy = "tactician"\n'
                 '[search]\ntuned = [0]\nfield = "partner"\nbudget = 10000000\n[search.params]\n'
                 '"tuned.cheap" = [0, 3]\n')
    one_error_line(invoke("search", p, "--runs", tmp_path / "runs"),  # the range named, and its first bad value
                   "search.params.tuned.cheap = [0, 3] draws seat0.cheap (policy 'tactician' parameter cheap) = 2, "
                   "which is not allowed; allowed: 0 or 1")
    p.write_text(p.read_text().replace('[0, 3]', '{ values = [0, 1, 4] }'))
    one_error_line(invoke("search", p, "--runs", tmp_path / "runs"), "cheap = 4; allowed: 0 or 1")


def test_games_lists_what_each_parameter_accepts():
    r = invoke("games", "gubs")
    assert r.exit_code == 0 and "target=0 [0, 1 or 2]" in r.output and "peek=1 [0 or 1]" in r.output


def test_report_of_a_run_directory_refuses_games(tmp_path):
    """`cardsim report RUN_DIR --games 5` wrote the report of every game the directory holds, --games
    ignored without a word."""
    run_dir = tmp_path / "r"
    assert invoke("run", scenario(tmp_path, games=200, chunk=100), "--out", run_dir).exit_code == 0
    r = invoke("report", run_dir, "--games", 500, "--out", tmp_path / "reports")
    one_error_line(r, f"--games 500: a run directory is reported with the games it holds, as it was played; to "
                      f"report more, extend it first (`cardsim run {run_dir} --games 500`)")
    # fewer games than it holds: extending it (the advice above) would change nothing
    r = invoke("report", run_dir, "--games", 5, "--out", tmp_path / "reports")
    line = one_error_line(r, "--games 5: a run directory is reported with all the games it holds, as it was "
                             "played; for its first 5, report its scenario with --games 5")
    assert "extend" not in line
    r = invoke("report", run_dir, "--games", 200, "--out", tmp_path / "reports")
    one_error_line(r, "--games 200: a run directory is reported with the games it holds, as it was played, and it "
                      "holds 200: drop --games")
    assert not (tmp_path / "reports").exists()


@pytest.mark.parametrize("kind, size", [("search", "budget"), ("meta", "games")])
def test_report_games_of_a_search_or_meta_scenario_is_what_the_command_reads(tmp_path, monkeypatch, kind, size):
    """`cardsim report S --games N` of a search or meta-game scenario set the scenario's own `games`,
    which neither study reads: after `cardsim meta S --games 800`, the report played the full
    meta-game (meta.deals and meta.heldout) instead of reading the 800-deal chunks, and answered
    differently. It is now `cardsim search -n N` (the budget) and `cardsim meta -n N` (the deals)."""
    from cardsim import api
    from cardsim.errors import CardsimError

    seen = {}

    def study(s, **kw):
        seen.update(kw, games_of_scenario=s.games)
        raise CardsimError("stop here")

    monkeypatch.setattr(api, kind, study)
    p = tmp_path / "s.toml"
    section = ('[search]\nbudget = 100000\n[search.params]\n"seat0.call_need" = [1, 4]\n' if kind == "search"
               else '[meta]\nstrategies = ["partner", "greedy"]\n')
    p.write_text('[scenario]\ngame = "fubnub"\ngames = 1\n[seats]\n'
                 'policies = ["tactician", "partner", "tactician", "partner"]\n' + section)
    one_error_line(invoke("report", p, "--games", 900, "--runs", tmp_path / "runs", "--out", tmp_path / "reports"),
                   "stop here")
    assert seen[size] == 900 and seen["games_of_scenario"] == 1
    one_error_line(invoke("report", p, "--runs", tmp_path / "runs", "--out", tmp_path / "reports"), "stop here")
    assert seen[size] is None


def test_a_run_directory_refuses_the_options_it_would_ignore(tmp_path):
    """`cardsim run RUN_DIR --runs X` resumed RUN_DIR in place and `cardsim report RUN_DIR --threads 2`
    played nothing: both options were ignored without a word."""
    run_dir = tmp_path / "r"
    assert invoke("run", scenario(tmp_path, games=200, chunk=100), "--out", run_dir).exit_code == 0
    one_error_line(invoke("run", run_dir, "--runs", tmp_path / "runs"),
                   f"--runs {tmp_path / 'runs'}: {run_dir} is a run directory, resumed or extended where it is")
    one_error_line(invoke("report", run_dir, "--threads", 2, "--out", tmp_path / "reports"),
                   "--threads 2: a run directory is reported as it was played, nothing is played; drop it")
    one_error_line(invoke("report", run_dir, "--runs", "x", "--threads", 2, "--out", tmp_path / "reports"),
                   "--runs x and --threads 2: a run directory is reported as it was played")
    one_error_line(invoke("report", run_dir, "--seed", 3, "--out", tmp_path / "reports"),
                   "--seed 3: a run directory is reported as it was played, nothing is played; drop it")
    assert not (tmp_path / "reports").exists() and not (tmp_path / "runs").exists()
    assert invoke("run", run_dir).exit_code == 0  # without them, as before


def test_report_of_a_scenario_takes_the_seed_it_was_played_with(tmp_path):
    """`cardsim run S --seed 7` (or search, meta) then `cardsim report S` played the scenario's seed again
    into another directory: report had no --seed, so a run, search or meta-game played with one could not
    be reported from its scenario."""
    s, runs = scenario(tmp_path, games=200, chunk=100), tmp_path / "runs"
    assert invoke("run", s, "--seed", 7, "--runs", runs).exit_code == 0
    r = invoke("report", s, "--seed", 7, "--runs", runs, "--out", tmp_path / "reports")
    assert r.exit_code == 0, r.output
    assert len(list(runs.iterdir())) == 1  # the run directory of seed 7, read again: nothing played
    assert "| seed | 7 |" in next((tmp_path / "reports").glob("*/report.md")).read_text()


@pytest.mark.parametrize(("command", "scenario", "says"), [
    ("sweep", "fubnub_search", "no [sweep] section (a grid or points); it has a [search] section, which `cardsim search "),
    ("cards", "fubnub_swap_worth", "it has a [compare] section, which `cardsim compare "),
    ("search", "fubnub_ratings", "it has a [ratings] section, which `cardsim rate "),
    ("compare", "fubnub", "no [compare] section (arms to compare); it has no study section, and `cardsim run "),
])
def test_a_study_command_on_another_study_names_the_command_that_plays_it(command, scenario, says):
    """`cardsim sweep` of a search scenario said only "no [sweep] section (a grid or points)"."""
    one_error_line(invoke(command, ROOT / "scenarios" / f"{scenario}.toml"), says)


def test_a_study_takes_the_seed_report_takes(tmp_path):
    """`cardsim report S --seed 5` played a comparison with seed 5, but `cardsim compare S --seed 5` said
    'No such option: --seed': the comparison report read could not be played by its own command."""
    s, runs = ROOT / "scenarios" / "fubnub_swap_worth.toml", tmp_path / "runs"
    r = invoke("compare", s, "--seed", 5, "-n", 100, "--runs", runs)
    assert r.exit_code == 0, r.output
    played = sorted(runs.iterdir())
    assert invoke("compare", s, "-n", 100, "--runs", runs).exit_code == 0  # the scenario's own seed: other runs
    assert len(list(runs.iterdir())) > len(played)
    before = sorted(runs.iterdir())
    r = invoke("report", s, "--seed", 5, "-n", 100, "--runs", runs, "--out", tmp_path / "reports")
    assert r.exit_code == 0, r.output
    assert sorted(runs.iterdir()) == before  # read, not played again
    for command in ("sweep", "rate", "cards"):
        assert "--seed" in invoke(command, "--help").output


@pytest.mark.parametrize("scenario", ["fubnub_battle_royal", "fubnub_full_deck"])
def test_one_game_of_every_seat_for_itself_claims_no_difference(tmp_path, scenario):
    """At 1 game the seats' differences from the fair share have no interval (NaN), which the answer's
    `not lo <= 0 <= hi` took as off 0: 'seat 0 differs detectably from the fair share ...: n/a' for
    every seat."""
    r = invoke("run", f"scenarios/{scenario}.toml", "-n", 1, "--runs", tmp_path / "runs")
    assert r.exit_code == 0, r.output
    assert "differs detectably" not in r.output
    assert "no seat is compared with the fair share of sole wins, 25.0%: that needs at least 2 games" in r.output
    assert "of the 1 game ends in a tie for the most point cards" in r.output  # not "of the 1 game end"


def test_one_game_says_why_an_interval_is_n_a(tmp_path):
    """A 1-game run's answer printed '(95% CI n/a)' for a rate over hands with no reason; a win rate
    over games has its interval from the first game."""
    r = invoke("run", "scenarios/fubnub.toml", "-n", 1, "--runs", tmp_path / "runs")
    assert r.exit_code == 0, r.output
    line = next(x for x in r.output.splitlines() if "(95% CI n/a)" in x)
    assert line.endswith("(n/a: an interval clustered by game, or of a mean over games, needs at least 2 games; "
                         "this run has 1.)")
    r = invoke("run", "scenarios/fubnub.toml", "-n", 2, "--runs", tmp_path / "runs")
    assert r.exit_code == 0 and "n/a: an interval" not in r.output


def test_gubs_answer_names_no_card_it_cannot_compare(tmp_path):
    """A card every seat drew (Gub, in a short 2-player run) has no seats without it to compare with:
    its lift is NaN, which sorted first, and the answer said 'Seats that draw Gub win n/a against
    seats that do not (the largest observed gain)'."""
    p = tmp_path / "g.toml"
    p.write_text('[scenario]\nname = "g"\ngame = "gubs"\nplayers = 2\ngames = 20\n[seats]\npolicy = "random"\n')
    r = invoke("run", p, "--runs", tmp_path / "runs")
    assert r.exit_code == 0, r.output
    answer = next(x for x in r.output.splitlines() if x.startswith("With 2 players the starting seat"))
    assert "n/a" not in answer and "Seats that draw Gub win" not in answer


def test_json_writes_no_nan_or_infinity_and_an_unbounded_end_is_told_by_its_lo():
    """The README: a missing or infinite number is null; no interval has both ends null, an interval with
    no upper end a number lo and a null hi."""
    from cardsim.output import _clean

    rows = _clean([{"lo": float("nan"), "hi": float("nan")}, {"lo": 0.0, "hi": float("inf")}])
    assert json.loads(json.dumps(rows, allow_nan=False)) == [{"lo": None, "hi": None}, {"lo": 0.0, "hi": None}]


def test_report_games_of_a_study_is_named_as_the_study_command_names_it(tmp_path):
    """`cardsim report RATINGS -n 1` said 'scenario.games = 1: ratings play at least 2 deals', naming a key
    the user did not set; `cardsim rate -n 1` names --games, and so does report now."""
    one_error_line(invoke("report", "scenarios/fubnub_ratings.toml", "-n", 1, "--runs", tmp_path / "runs",
                          "--out", tmp_path / "reports"), "error: --games 1: ratings play at least 2 deals per table")


def test_until_on_a_seat_that_does_not_exist_lists_the_seats():
    from cardsim.errors import ScenarioError
    from cardsim.studies import until

    with pytest.raises(ScenarioError, match=r"seat 9 does not exist with 4 players; allowed: winrate_s0 to winrate_s3"):
        until.parse("winrate_s9 +-0.01", 4)


def test_a_missing_relative_plugin_names_both_places_looked(tmp_path, monkeypatch):
    """A relative plug-in path is read from the scenario file's folder, else from the current folder; a missing
    one named only the first, so a user who ran from the plug-in's folder saw a path they never meant."""
    from cardsim.errors import PolicyError
    from cardsim.scenario import from_dict

    (tmp_path / "scen").mkdir()
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    raw = {"scenario": {"name": "p", "game": "fubnub", "games": 10}, "seats": {"policy": "mine.py:duck"}}
    with pytest.raises(PolicyError) as e:
        from_dict(raw, base_dir=tmp_path / "scen")
    assert f"file {tmp_path / 'scen' / 'mine.py'} does not exist (nor {tmp_path / 'here' / 'mine.py'}:" in str(e.value)
