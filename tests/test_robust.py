"""Bad input and a disturbed environment found by an audit: one line, the right exit code, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache")))
CLI = [sys.executable, "-m", "cardsim.cli"]
FULL = Path("/dev/full")

@pytest.mark.skipif(not FULL.exists(), reason="no /dev/full")
@pytest.mark.parametrize("args", [["games"], ["trace", "fubnub"], ["--version"], ["games", "--help"]])
def test_a_full_stdout_is_one_line_about_the_output(args):
    """`cardsim games > /dev/full` (or a full disk) said "cannot write a file ... choose a folder you can
    write to with --out / --runs"; --version and --help ended in a traceback."""
    with FULL.open("w") as full:
        r = subprocess.run([*CLI, *args], cwd=ROOT, env=ENV, stdout=full, stderr=subprocess.PIPE, text=True)
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines() == [r.stderr.strip()] and r.stderr.startswith(
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
