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
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
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
