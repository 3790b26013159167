"""``--executor dask://...`` on a real ``distributed.LocalCluster`` (two worker processes):
the same stores as the local executor, record for record; worker deaths retried once."""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from anchorpath._config import Settings
from anchorpath.demo import DemoServer, write_site_file
from anchorpath.runner.executor import DaskExecutor, WorkerFailed
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.replay import ReplayOptions, replay_site
from anchorpath.runner.run_all import RunAllOptions, run_all
from anchorpath.runner.run_types import RunOptions
from anchorpath.runner.store.database import Store

pytestmark = pytest.mark.slow


def fast(delay: float = 0.0) -> Settings:
    s = Settings()
    return replace(
        s,
        fetch=replace(
            s.fetch,
            min_delay=delay,
            delay_factor=0.0,
            allow_private_networks=True,
            contact="tests@anchorpath.invalid",
        ),
    )


def dumps(state: Path, sites: list[str]) -> list[Any]:
    with Store.in_state_dir(state) as store:
        return [store.dump(site) for site in sites]


def test_run_all_on_dask_gives_the_local_executors_store(dask_cluster: Any, tmp_path: Path) -> None:
    sel = tmp_path / "selectors"
    seen: list[str] = []
    with DemoServer(day=1) as a, DemoServer(day=1) as b, DemoServer(day=1) as c:
        write_site_file(sel, a.base_url, site_id="dmf-a")
        write_site_file(sel, b.base_url, site_id="dmf-b")
        write_site_file(sel, a.base_url, site_id="dmf-a2", max_pages=5)  # a's origin group
        write_site_file(sel, c.base_url, site_id="dmf-c")
        c.set_mode("refuse")
        local = run_all(
            RunAllOptions(selectors_dir=sel, state_dir=tmp_path / "local", settings=fast())
        )
        executor = DaskExecutor(dask_cluster.scheduler_address)
        try:
            remote = run_all(
                RunAllOptions(selectors_dir=sel, state_dir=tmp_path / "dask", settings=fast()),
                executor=executor,
                progress=lambda kind, data: seen.append(kind),
            )
        finally:
            executor.close()
    sites = ["dmf-a", "dmf-a2", "dmf-b", "dmf-c"]
    assert [(s.site, s.verdict) for s in remote.sites] == [(s.site, s.verdict) for s in local.sites]
    assert [s.verdict for s in remote.sites] == ["ok", "ok", "ok", "blocked"]
    assert remote.exit_code == local.exit_code == 4 and remote.groups == 3
    assert dumps(tmp_path / "dask", sites) == dumps(tmp_path / "local", sites)
    assert dumps(tmp_path / "dask", ["dmf-a"])[0]["records"]
    # progress came back from the workers; pages were archived into the shared state dir
    assert {"start", "page", "done"} <= set(seen)
    assert list((tmp_path / "dask" / "runs" / "dmf-b").glob("*/pages-00.warc.gz"))


def test_replay_on_dask_gives_the_local_replay(dask_cluster: Any, tmp_path: Path) -> None:
    sel, state = tmp_path / "selectors", tmp_path / "state"
    write_site_file(sel, "http://127.0.0.1:8765")
    with DemoServer(day=1) as srv:
        for day in (1, 2):
            srv.set_day(day)
            opts = RunOptions("mfds-dmf", sel, state, base_url=srv.base_url, settings=fast())
            assert run_site(opts).verdict == "ok"
    local = replay_site(ReplayOptions("mfds-dmf", sel, state, settings=fast()))
    executor = DaskExecutor(dask_cluster.scheduler_address)
    try:
        remote = replay_site(
            ReplayOptions("mfds-dmf", sel, state, settings=fast()), executor=executor
        )
    finally:
        executor.close()
    assert [r.verdict for r in remote.runs] == [r.verdict for r in local.runs] == ["ok", "ok"]
    assert all(r.same_events() for r in remote.runs)
    with Store(local.database) as a, Store(remote.database) as b:
        assert a.dump() == b.dump()


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
            executor.run(
                die_once, [0, 1], progress=lambda k, d: None, io_bound=False, max_in_flight=2
            )
        )
        assert out == {0: 0, 1: 10}
        [(i, err)] = list(
            executor.run(
                die_always, [7], progress=lambda k, d: None, io_bound=False, max_in_flight=1
            )
        )
        assert i == 0 and isinstance(err, WorkerFailed)
    finally:
        executor.close()
        shutil.rmtree(tmp_path, ignore_errors=True)
