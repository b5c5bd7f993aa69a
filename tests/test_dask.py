"""Dask: the same tables on a real local cluster, with a worker killed mid-run (issue 8)."""

from __future__ import annotations

import os
import signal
import threading

import polars as pl
import pytest

from cardsim import api
from cardsim.scenario import from_dict

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.slow

RAW = {"scenario": {"name": "dk", "game": "fubnub", "games": 3000, "seed": 11, "chunk": 250},
       "seats": {"policies": ["partner", "tactician", "partner", "greedy"]}}


def tables(res):
    return {t: lf.collect().sort("game", maintain_order=True) for t, lf in res.tables.items()}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    # its scratch space in a test folder (as cardsim's own local cluster does): by default it is
    # /tmp/dask-scratch-space, left behind
    import dask

    scratch = str(tmp_path_factory.mktemp("dask"))
    with dask.config.set({"temporary-directory": scratch}), distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, local_directory=scratch) as c:
        yield c


def test_dask_cluster_gives_identical_tables(tmp_path, cluster):
    from cardsim.dask_backend import DaskBackend

    s = from_dict(RAW)
    local = tables(api.run(s, out=tmp_path / "local", threads=2))
    be = DaskBackend(scheduler=cluster.scheduler_address)
    try:
        remote = tables(api.run(s, out=tmp_path / "dask", backend=be))
    finally:
        be.close()
    for t in local:
        assert local[t].equals(remote[t]), t


def test_killed_worker_costs_only_its_chunk(tmp_path, cluster):
    from cardsim.dask_backend import DaskBackend

    s = from_dict(RAW)
    local = tables(api.run(s, out=tmp_path / "local", threads=2))
    be = DaskBackend(scheduler=cluster.scheduler_address)
    killed = []

    def progress(done, total):
        if 0 < done < total and not killed:
            pids = be.client.run(os.getpid)
            victim = sorted(pids.values())[0]
            killed.append(victim)
            threading.Thread(target=os.kill, args=(victim, signal.SIGKILL)).start()

    try:
        remote = tables(api.run(s, out=tmp_path / "dask", backend=be, progress=progress))
    finally:
        be.close()
    assert killed
    for t in local:
        assert local[t].equals(remote[t]), t


def test_scenario_backend_keys_are_validated():
    from cardsim.errors import ScenarioError

    s = from_dict(RAW)
    with pytest.raises(ScenarioError, match="allowed: local, dask"):
        api.make_backend(s, "spark")
    with pytest.raises(ScenarioError, match="tcp://"):
        api.make_backend(s, None, None, "localhost")
    assert api.make_backend(s) is None
    assert pl is not None


@pytest.mark.parametrize(("key", "value", "option", "says"), [
    ("backend", "spark", ["spark", None, None], "backend 'spark' is not a backend; allowed: local, dask"),
    ("workers", 0, [None, 0, None], "workers 0 must be a positive integer"),
    ("scheduler", "host", [None, None, "host"], "scheduler 'host' must be an address"),
])
def test_backend_messages_name_the_option_or_the_key_the_value_came_from(key, value, option, says):
    """`cardsim run --backend spark` was answered with `backend = 'spark'`, a key the user never wrote; a
    scenario key is named by its table, as every other key is (`scenario.backend = 'spark'`)."""
    from cardsim.errors import ScenarioError

    with pytest.raises(ScenarioError, match=f"^--{says}"):
        api.make_backend(from_dict(RAW), *option)
    keyed = from_dict({**RAW, "scenario": {**RAW["scenario"], key: value}})
    with pytest.raises(ScenarioError, match="^scenario." + says.replace(f"{key} ", f"{key} = ", 1)):
        api.make_backend(keyed)


def test_workers_past_the_machine_or_beside_a_scheduler_are_refused(monkeypatch):
    """`--workers 1000` started a thousand worker processes on a 2-core machine; `--workers 4` with
    `--scheduler` was dropped without a word (the existing cluster's workers play)."""
    from cardsim.errors import ScenarioError

    monkeypatch.setattr(api.os, "cpu_count", lambda: 2)
    assert api.local_workers_max() == 8
    with pytest.raises(ScenarioError, match=r"^--workers 9 is more than this machine can run: .* at most 8 here"):
        api.make_backend(from_dict(RAW), None, 9)
    keyed = from_dict({**RAW, "scenario": {**RAW["scenario"], "workers": 1000}})
    with pytest.raises(ScenarioError, match=r"^scenario.workers = 1000 is more than"):
        api.make_backend(keyed)
    with pytest.raises(ScenarioError, match=r"^--workers 4 is the size of a local cluster, and --scheduler "
                                            r"'tcp://h:8786' names an existing cluster.*drop one of them"):
        api.make_backend(from_dict(RAW), None, 4, "tcp://h:8786")


def test_a_command_line_backend_option_overrides_the_scenarios_keys():
    """A scenario with `backend = "dask"` and `workers = 2` could not be played on threads from the
    command line: `--backend local` was refused ("workers = 2 belongs to the dask backend ... drop
    them"), as was `--scheduler` beside its `workers`; the file had to be edited. An option overrides
    the keys it contradicts, as --games overrides games; two options that contradict are still refused."""
    from cardsim.errors import ScenarioError

    dask = from_dict({**RAW, "scenario": {**RAW["scenario"], "backend": "dask", "workers": 2}})
    assert api.make_backend(dask, "local") is None
    remote = api.make_backend(dask, None, None, "tcp://h:8786")
    assert (type(remote).__name__, remote.scheduler) == ("DaskBackend", "tcp://h:8786")
    local = from_dict({**RAW, "scenario": {**RAW["scenario"], "backend": "local"}})
    assert api.make_backend(local, None, 1).workers == 1
    sched = from_dict({**RAW, "scenario": {**RAW["scenario"], "scheduler": "tcp://h:8786"}})
    both = api.make_backend(sched, None, 1)
    assert (both.scheduler, both.workers) == (None, 1)
    with pytest.raises(ScenarioError, match=r"^--workers 2 belongs to the dask backend"):
        api.make_backend(dask, "local", 2)
    with pytest.raises(ScenarioError, match=r"^scenario.workers = 2 is the size of a local cluster, and scenario.scheduler = "):
        api.make_backend(from_dict({**RAW, "scenario": {**RAW["scenario"], "workers": 2, "scheduler": "tcp://h:1"}}))


def test_a_dask_run_leaves_nothing_in_the_temporary_directory(tmp_path):
    # the whole CLI run, with its own temporary directory: a local cluster's scratch space, the
    # workers' numba cache (they use the client's) and the parts in flight must all be gone after
    import subprocess
    import sys

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    scen = tmp_path / "s.toml"
    scen.write_text('[scenario]\nname = "dk"\ngame = "fubnub"\ngames = 3000\nseed = 11\nchunk = 500\n'
                    '[seats]\npolicy = "partner"\n')
    r = subprocess.run([sys.executable, "-m", "cardsim.cli", "run", str(scen), "--backend", "dask", "--workers", "2",
                        "--runs", str(tmp_path / "runs")], env=dict(os.environ, TMPDIR=str(tmp)),
                       capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stderr
    assert "3,000 games of fubnub" in r.stdout
    assert sorted(p.name for p in tmp.iterdir()) == []


def test_cardsims_local_cluster_keeps_quiet_on_stderr(tmp_path):
    """A task that raises on a worker (a plug-in's error in a chunk the client's warm-up did not play)
    reaches the client, which says it in one line; the workers logged it too ("Compute Failed" with
    the traceback, once a retry), above that line. And the scheduler's HTTP server, dashboard or not,
    took port 8787, with a warning when another cluster (here a socket of this test) held it."""
    import socket
    import subprocess
    import sys

    code = ("from cardsim.dask_backend import DaskBackend\n"
            "be = DaskBackend(workers=1)\n"
            "try:\n"
            "    fut = be._connect().submit(int, 'not a number', retries=1, pure=False)\n"
            "    try:\n"
            "        fut.result()\n"
            "    except ValueError:\n"
            "        print('raised on the client')\n"
            "finally:\n"
            "    be.close()\n")
    held = socket.socket()
    try:
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        held.bind(("0.0.0.0", 8787))
        held.listen()
    except OSError:  # held by another process already: the same situation
        pass
    try:
        r = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, TMPDIR=str(tmp_path)),
                           capture_output=True, text=True, timeout=600)
    finally:
        held.close()
    assert r.returncode == 0 and r.stdout == "raised on the client\n", r.stderr
    assert r.stderr == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == []
