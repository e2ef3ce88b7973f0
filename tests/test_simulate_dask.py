"""`simulate --backend dask`: the same seeds on a Dask cluster (started here, on this machine) give
exactly what `--jobs 1` gives."""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tessera.cli import app
from tessera import engine_cmds  # noqa: F401  (registers the engine commands)

distributed = pytest.importorskip("distributed")  # installed by the `test` extra (and `cluster`)

VARIANTS = Path(__file__).resolve().parent.parent / "rules" / "variants"


@pytest.mark.slow
def test_dask_cluster_gives_the_same_json_as_one_process():
    runner = CliRunner()
    args = ["simulate", "-n", "8", "-r", str(VARIANTS / "big_cities.tess"), "--against", "base", "--json"]
    serial = runner.invoke(app, [*args, "--jobs", "1"])
    assert serial.exit_code == 0, serial.output
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        r = runner.invoke(app, [*args, "--backend", "dask", "--scheduler", cluster.scheduler_address, "--jobs", "2"])
        assert r.exit_code == 0, r.output
        played = cluster.scheduler.task_prefixes["play_chunk"]  # the games were played by the cluster's workers
        assert played.state_counts["memory"] > 0
    assert r.output == serial.output
