"""The numba cache, the compile notice, plug-in identity, caching and errors, the plug-in manual."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numba
import pytest
from typer.testing import CliRunner

from cardsim import cachedir, jit
from cardsim.cli import app
from cardsim.games import game_names, get_game
from cardsim.plugin_docs import decision_docs, render
from tests.plugins import HIGHEST, LOWEST, PLUGIN, write_duck

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "cardsim.cli"]


def env_without_cache(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(extra)
    return env


# -- one cache, keyed per module ---------------------------------------------------------------
def test_one_cache_for_make_tests_and_cli():
    # the CLI, make and the tests all ask cardsim.cachedir: a checkout caches in its .numba_cache
    out = subprocess.run([sys.executable, "-m", "cardsim.cachedir"], env=env_without_cache(), cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout.strip()
    assert Path(out) == ROOT / ".numba_cache"
    if "NUMBA_CACHE_DIR" not in os.environ:
        assert cachedir.base() == ROOT / ".numba_cache"
    make = (ROOT / "Makefile").read_text()
    assert "NUMBA_CACHE_DIR" not in make and "-m cardsim.cachedir --clear" in make
    assert "os.environ" not in (ROOT / "tests" / "conftest.py").read_text()


def test_an_edit_changes_only_the_keys_of_the_modules_that_import_it(tmp_path):
    pkg = tmp_path / "cardsim"
    shutil.copytree(cachedir.PACKAGE, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    kernels = {g: pkg / "games" / g / "rules.py" for g in ("fubnub", "turtle", "gubs", "fourbid")}

    def keys():
        cachedir.module_key.cache_clear()
        return {g: cachedir.module_key(f, pkg) for g, f in kernels.items()}

    before = keys()
    with (pkg / "games" / "turtle" / "policies.py").open("a") as f:
        f.write("\n# an edit\n")
    after = keys()
    assert after["turtle"] != before["turtle"]
    assert {g: k for g, k in after.items() if g != "turtle"} == {g: k for g, k in before.items() if g != "turtle"}
    with (pkg / "rng.py").open("a") as f:  # every kernel draws from it
        f.write("\n# an edit\n")
    assert all(k != after[g] for g, k in keys().items())
    cachedir.module_key.cache_clear()


def test_each_module_caches_in_its_own_folder():
    from cardsim.games.fubnub import rules

    folder = Path(rules.minimal._cache._cache_path)
    assert folder.is_relative_to(cachedir.base())
    assert folder.relative_to(cachedir.base()).parts[0].startswith("cardsim.games.fubnub.rules-")


def test_games_compiles_nothing(tmp_path):
    # listing games imports every kernel module: nothing may compile (or load) there
    r = subprocess.run([*CLI, "games"], env=env_without_cache(NUMBA_CACHE_DIR=str(tmp_path)), cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "compiling" not in r.stderr
    assert not [p for p in tmp_path.rglob("*") if p.suffix in (".nbi", ".nbc")]


def test_compile_notice_speaks_once_per_label_after_the_delay():
    import io

    out = io.StringIO()
    notice = jit.CompileNotice(out, after=0.0)
    numba.core.event.register("numba:compile", notice)
    try:
        @numba.njit
        def f(x):
            return x + 1

        @numba.njit
        def g(x):
            return f(x) * 2

        assert g(1) == 4
        assert g(1.5) == 5.0
    finally:
        numba.core.event.unregister("numba:compile", notice)
    assert out.getvalue() == "compiling numba functions (first run only)\n"
    quiet = jit.CompileNotice(io.StringIO(), after=60.0)
    numba.core.event.register("numba:compile", quiet)
    try:
        assert numba.njit(lambda x: x - 1)(3) == 2
    finally:
        numba.core.event.unregister("numba:compile", quiet)
    assert quiet.stream.getvalue() == ""


RACE = '''
import sys
import time
from pathlib import Path

import numpy as np

from cardsim.jit import njit

KINDS = {"i8": np.int64(3), "i4": np.int32(3), "i2": np.int16(3), "u8": np.uint64(3), "u4": np.uint32(3),
         "f8": np.float64(1.5), "f4": np.float32(1.5), "c16": np.complex128(1 + 2j)}


@njit
def double(x):
    return x + x


if __name__ == "__main__":
    here = Path(__file__).parent
    if sys.argv[1] == "check":
        wrong = [k for k, v in KINDS.items() if double(v) != v + v]
        print(sum(double._cache_misses.values()), wrong)
    else:
        (here / f"ready-{sys.argv[1]}").touch()
        while len(ready := list(here.glob("ready-*"))) < len(KINDS):
            time.sleep(0.01)
        start = max(p.stat().st_mtime for p in ready) + 0.5
        while time.time() < start:  # all imported: compile and save at the same moment
            pass
        double(KINDS[sys.argv[1]])
'''


def test_processes_adding_signatures_at_once_keep_the_cache_whole(tmp_path):
    # numba alone: two processes adding a signature of one function at once may write the same data
    # file, and one signature then loads the other's machine code (cardsim.jit.LockedCacheFile)
    (tmp_path / "race.py").write_text(RACE)
    env = env_without_cache(NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    kinds = ["i8", "i4", "i2", "u8", "u4", "f8", "f4", "c16"]
    procs = [subprocess.Popen([sys.executable, "race.py", k], cwd=tmp_path, env=env) for k in kinds]
    assert [p.wait(timeout=600) for p in procs] == [0] * len(kinds)
    r = subprocess.run([sys.executable, "race.py", "check"], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[-2] == "0 []"  # every signature loaded from the cache, each its own code


def test_typed_helpers_compile_on_first_use_only():
    src = "from cardsim.jit import typed\nfrom numba import types as nt\n" \
          "@typed(nt.int64(nt.int64, nt.int64), cache=False)\ndef add(a, b):\n    return a + b\n"
    ns: dict = {}
    exec(compile(src, "<typed>", "exec"), ns)
    add = ns["add"]
    assert not add.overloads

    @numba.njit
    def caller(x):
        return add(x, 3) + add(x, 4)  # constant arguments: still the one signature

    assert caller(1) == 9
    assert len(add.overloads) == 1


# -- plug-ins ---------------------------------------------------------------------------------------
SCENARIO = """
[scenario]
name = "duck"
game = "fubnub"
games = 600
seed = 3
chunk = 300
[seats]
policies = [{seat0}, "partner", "duck.py:duck", "partner"]
"""


def plugin_dir(tmp_path: Path, card: str = HIGHEST, seat0: str = '"duck.py:duck"') -> Path:
    d = write_duck(tmp_path / "plug", card).parent
    (d / "s.toml").write_text(SCENARIO.format(seat0=seat0))
    return d


def team0_wins(result) -> int:
    return int((result.tables["games"].collect()["winner"] == 0).sum())


def test_an_edited_plugin_changes_the_result(tmp_path):
    from cardsim import api
    from cardsim.errors import RunDirError

    d = plugin_dir(tmp_path, HIGHEST)
    first = api.run(d / "s.toml", runs=tmp_path / "runs")
    (d / "duck.py").write_text(PLUGIN.format(card=LOWEST))  # the duck now plays its lowest card
    second = api.run(d / "s.toml", runs=tmp_path / "runs")
    assert second.path != first.path
    assert team0_wins(second) != team0_wins(first)
    with pytest.raises(RunDirError, match=r"plug-in duck.py:duck changed since"):
        api.run(d / "s.toml", out=first.path)
    with pytest.raises(RunDirError, match=r"plug-in duck.py:duck changed since"):  # cardsim report RUN_DIR
        api.open_run(first.path)


def test_a_run_of_an_older_rules_version_says_so(tmp_path, monkeypatch):
    from cardsim import api
    from cardsim.errors import RunDirError
    from cardsim.games import get_game

    scen = tmp_path / "s.toml"
    scen.write_text('[scenario]\nname = "t"\ngame = "gubs"\nplayers = 2\ngames = 20\nseed = 1\n')
    res = api.run(scen, out=tmp_path / "run")
    game = get_game("gubs")
    monkeypatch.setattr(type(game), "rules_version", game.rules_version + 1)
    for call in (lambda: api.open_run(res.path), lambda: api.run(scen, out=res.path)):
        with pytest.raises(RunDirError, match=rf"version {game.rules_version - 1} of the game's rules, and this "
                                              rf"cardsim plays version {game.rules_version}"):
            call()


def test_an_edited_helper_module_of_a_plugin_changes_the_identity(tmp_path):
    from cardsim.scenario import load

    d = plugin_dir(tmp_path)
    (d / "duck.py").write_text("from helper import TOP  # noqa\n" + PLUGIN.format(card=HIGHEST))
    (d / "helper.py").write_text("TOP = 8\n")
    h1 = load(d / "s.toml").hash()
    (d / "helper.py").write_text("TOP = 9\n")
    assert load(d / "s.toml").hash() != h1
    moved = tmp_path / "moved"
    shutil.copytree(d, moved)  # the same content elsewhere: the same identity
    assert load(moved / "s.toml").hash() == load(d / "s.toml").hash()


def test_an_edited_module_of_a_plugins_package_changes_the_identity(tmp_path):
    """A helper package whose __init__ imports its own modules relatively (from .core import TOP):
    an edit of core.py kept the identity, so the run reused the old run directory and the cached
    kernel of the old helper."""
    from cardsim.scenario import load

    d = plugin_dir(tmp_path)
    (d / "duck.py").write_text("from helpers import TOP  # noqa\n" + PLUGIN.format(card=HIGHEST))
    (d / "helpers").mkdir()
    (d / "helpers" / "__init__.py").write_text("from .core import TOP  # noqa\n")
    (d / "helpers" / "core.py").write_text("from . import more  # noqa\nTOP = 8\n")
    (d / "helpers" / "more.py").write_text("X = 1\n")
    h1 = load(d / "s.toml").hash()
    (d / "helpers" / "core.py").write_text("from . import more  # noqa\nTOP = 9\n")
    h2 = load(d / "s.toml").hash()
    assert h2 != h1
    (d / "helpers" / "more.py").write_text("X = 2\n")
    assert load(d / "s.toml").hash() != h2


def test_an_edited_plugin_changes_a_comparison(tmp_path):
    from cardsim import api

    d = plugin_dir(tmp_path, HIGHEST)
    (d / "c.toml").write_text(SCENARIO.split("[seats]")[0] + """
[seats]
policy = "partner"
[compare]
focus = 0
rotate = false
arms = [{ name = "partner" }, { name = "duck", policies = ["duck.py:duck", "partner", "duck.py:duck", "partner"] }]
""")
    before = api.compare(d / "c.toml", runs=tmp_path / "runs")
    (d / "duck.py").write_text(PLUGIN.format(card=LOWEST))
    after = api.compare(d / "c.toml", runs=tmp_path / "runs")
    assert before.arms["mean"].to_list()[1] != after.arms["mean"].to_list()[1]
    assert before.arms["mean"].to_list()[0] == after.arms["mean"].to_list()[0]


def test_a_second_process_does_not_recompile_a_plugin_kernel(tmp_path):
    d = plugin_dir(tmp_path, HIGHEST)
    env = env_without_cache(NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    first = subprocess.run([*CLI, "run", "s.toml", "--runs", str(tmp_path / "r1")], cwd=d, env=env,
                           capture_output=True, text=True, timeout=1200)
    assert first.returncode == 0, first.stderr
    assert "compiling fubnub kernels for plug-in duck.py:duck (first run only)" in first.stderr
    count = ("import json, numba.core.event as ev\n"
             "from cardsim import api\n"
             "with ev.install_recorder('numba:compile') as rec:\n"
             f"    api.run('s.toml', runs={str(tmp_path / 'r2')!r})\n"
             "print(json.dumps(len(rec.buffer)))\n")
    second = subprocess.run([sys.executable, "-c", count], cwd=d, env=env, capture_output=True, text=True,
                            timeout=1200)
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout.strip().splitlines()[-1]) == 0  # no compile event: all from the cache
    third = subprocess.run([*CLI, "run", "s.toml", "--runs", str(tmp_path / "r3")], cwd=d, env=env,
                           capture_output=True, text=True, timeout=1200)
    assert third.returncode == 0 and "compiling" not in third.stderr


def test_trace_says_it_is_compiling(tmp_path):
    r = subprocess.run([*CLI, "trace", "fubnub", "--seed", "3"], env=env_without_cache(NUMBA_CACHE_DIR=str(tmp_path)),
                       cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines()[0] == "compiling fubnub kernels (first run only)"
    assert "wins" in r.stdout


def errors(r) -> list[str]:
    """stderr's lines but the compile notice and the run directory named at the start."""
    return [ln for ln in r.output.splitlines()
            if ln.strip() and not ln.startswith("compiling ") and ": run directory " not in ln]


def test_a_raising_plugin_gives_one_error_line(tmp_path):
    d = plugin_dir(tmp_path, HIGHEST, seat0='{name = "duck.py:duck", boom = 1}')
    r = CliRunner().invoke(app, ["run", str(d / "s.toml"), "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 2, r.output
    assert errors(r) == ["error: plug-in duck.py, function duck_card, line 24 raised ValueError: no card for the "
                         "last seat (the whole traceback: cardsim --debug ...)"]
    full = CliRunner().invoke(app, ["--debug", "run", str(d / "s.toml"), "--runs", str(tmp_path / "runs")])
    assert full.exit_code == 2 and "Traceback" in full.output and "more text" in full.output
    assert full.output.rstrip().splitlines()[-1] == errors(r)[0]


def test_a_plugin_with_a_wrong_signature_gives_one_error_line(tmp_path):
    d = plugin_dir(tmp_path, HIGHEST)
    (d / "duck.py").write_text(PLUGIN.format(card=HIGHEST).replace(
        "def duck_call(hand, pos, point, seat, dealer, rnd, params, rng):", "def duck_call(hand, pos, point):"))
    r = CliRunner().invoke(app, ["run", str(d / "s.toml"), "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 2, r.output
    assert errors(r) == [
        "error: plug-in duck.py, function duck_call, line 8: numba cannot compile it: its arguments (hand, pos, "
        "point) do not match what the 'call' decision passes (hand, pos, point, seat, dealer, rnd, params, rng): "
        "too many positional arguments (the whole message: cardsim --debug ...)"]
    full = CliRunner().invoke(app, ["--debug", "run", str(d / "s.toml"), "--runs", str(tmp_path / "runs")])
    assert full.exit_code == 2 and "TypingError" in full.output


def test_a_plugin_numba_cannot_type_gives_one_error_line(tmp_path):
    d = plugin_dir(tmp_path, HIGHEST)
    (d / "duck.py").write_text(PLUGIN.format(card="hand.missing"))
    r = CliRunner().invoke(app, ["run", str(d / "s.toml"), "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 2, r.output
    (line,) = errors(r)
    assert line.startswith("error: plug-in duck.py, function duck_card, line 25: numba cannot compile it: "
                           "Unknown attribute 'missing'"), line


@pytest.mark.parametrize(("card", "what"), [("0.5", "float64"), ("(0, 1)", "UniTuple(int64 x 2)")])
def test_a_plugin_decision_that_returns_no_int_gives_one_error_line(tmp_path, card, what):
    """The kernel read the card decision's 0.5 as card 0 and played on without a word; a float (or a
    tuple) returned by a decision the kernel reads as an int now stops the plug-in's kernel compiling."""
    d = plugin_dir(tmp_path, HIGHEST)
    (d / "duck.py").write_text(PLUGIN.format(card=card))
    r = CliRunner().invoke(app, ["run", str(d / "s.toml"), "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 2, r.output
    assert errors(r) == [
        f"error: plug-in duck.py, function duck_card, line 22: returns {what}, but the kernel reads a fubnub 'card' "
        f"answer as an int (a float would be truncated): return an int, such as int(x) (`cardsim games fubnub` says "
        f"what each decision returns) (the whole message: cardsim --debug ...)"]


def test_a_plugin_that_fails_to_import_names_the_line(tmp_path):
    d = plugin_dir(tmp_path, HIGHEST)
    (d / "duck.py").write_text("import numba\nx = 1\nraise RuntimeError('not today')\n")
    r = CliRunner().invoke(app, ["run", str(d / "s.toml"), "--runs", str(tmp_path / "runs")])
    assert r.exit_code == 2
    (line,) = errors(r)
    assert "failed to import (line 3): RuntimeError: not today" in line


# -- the plug-in manual --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", game_names())
def test_every_decision_argument_is_documented_in_order(name):
    g = get_game(name)
    args, returns = decision_docs(g)
    for d, sig in {**g.decisions, **g.optional_decisions}.items():
        assert list(args[d]) == [a.strip() for a in sig.split(",")], d
        assert returns[d] and all(args[d].values()), d


def test_fubnub_docs_say_winner_is_an_index_into_trick():
    args, _ = decision_docs(get_game("fubnub"))
    assert "INDEX INTO trick" in args["card"]["winner"] and "not a seat" in args["card"]["winner"]
    r = CliRunner().invoke(app, ["games", "fubnub"])
    assert r.exit_code == 0 and "winner: int: the INDEX INTO trick" in r.output


def test_the_plugin_manual_is_up_to_date():
    page = ROOT / "docs" / "plugins.md"
    assert page.read_text() == render(), "regenerate it: python -m cardsim.plugin_docs > docs/plugins.md"
    assert "docs/plugins.md" in (ROOT / "README.md").read_text()


@pytest.mark.parametrize("module", ["cardsim.games.fubnub.bench_modes", "cardsim.games.gubs.vs_gubs_agent",
                                    "cardsim.coverage"])
def test_developer_tools_answer_help(module):
    """``python -m cardsim.games.fubnub.bench_modes --help`` was a traceback (int('--help')): every developer
    tool the README and docs/speed.md name answers --help with its usage."""
    out = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("usage:") and "Traceback" not in out.stderr, out.stderr
