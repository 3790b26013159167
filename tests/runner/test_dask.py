"""``--executor dask://...`` on a real ``distributed.LocalCluster`` (two worker processes):
the same stores as the local executor, record for record; worker deaths retried once."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from anchorpath._errors import WorkerFailed
from anchorpath.runner.executor import DaskExecutor
from anchorpath.runner.progress import no_progress

from .conftest import replay_matches_threads, run_all_matches_threads

pytestmark = pytest.mark.slow


def test_run_all_on_dask_gives_the_local_executors_store(dask_cluster: Any, tmp_path: Path) -> None:
    executor = DaskExecutor(dask_cluster.scheduler_address)
    try:
        # progress came back from the workers
        kinds = run_all_matches_threads(executor, tmp_path)
        assert {"RunStarted", "PageRead", "SiteDone"} <= kinds
    finally:
        executor.close()


def test_replay_on_dask_gives_the_local_replay(dask_cluster: Any, tmp_path: Path) -> None:
    executor = DaskExecutor(dask_cluster.scheduler_address)
    try:
        replay_matches_threads(executor, tmp_path)
    finally:
        executor.close()


def test_a_task_whose_worker_dies_is_retried_once_then_reported(
    dask_cluster: Any, tmp_path: Path
) -> None:
    flag = str(tmp_path / "died-once")

    def die_once(progress: Any, item: int) -> int:
        if item == 1 and not os.path.exists(flag):
            open(flag, "w").close()
            os._exit(1)
        return item * 10

    def die_always(progress: Any, item: int) -> int:
        os._exit(1)

    executor = DaskExecutor(dask_cluster.scheduler_address)
    try:
        out = dict(
            executor.run(die_once, [0, 1], progress=no_progress, io_bound=False, max_in_flight=2)
        )
        assert out == {0: 0, 1: 10}
        [(i, err)] = list(
            executor.run(die_always, [7], progress=no_progress, io_bound=False, max_in_flight=1)
        )
        assert i == 0 and isinstance(err, WorkerFailed)
    finally:
        executor.close()
        shutil.rmtree(tmp_path, ignore_errors=True)
