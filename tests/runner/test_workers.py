"""``--executor local:N`` (:mod:`anchorpath.runner.workers`): real worker processes give the
same stores as threads, relay progress, return task errors, and retry a dead worker's task
once."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from anchorpath._config import Settings
from anchorpath.demo import DemoServer, write_site_file
from anchorpath.runner.executor import WorkerFailed
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.replay import ReplayOptions, replay_site
from anchorpath.runner.run_all import RunAllOptions, run_all
from anchorpath.runner.run_types import RunOptions
from anchorpath.runner.store.database import Store
from anchorpath.runner.workers import ProcessExecutor

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pool() -> Iterator[ProcessExecutor]:
    executor = ProcessExecutor(2).start()
    yield executor
    executor.close()


def fast() -> Settings:
    s = Settings()
    return replace(
        s,
        fetch=replace(
            s.fetch,
            min_delay=0.0,
            delay_factor=0.0,
            allow_private_networks=True,
            contact="tests@anchorpath.invalid",
        ),
    )


# Task functions run in the worker processes: module level, so that they can be sent there.


def square(progress: Any, item: int) -> tuple[int, int]:
    progress("step", {"item": item})
    return item * item, os.getpid()


def fail(progress: Any, item: int) -> int:
    raise ValueError(f"bad item {item}")


def die_once(progress: Any, item: str) -> str:
    if not os.path.exists(item):
        Path(item).touch()
        os._exit(1)
    return "second attempt"


def die_always(progress: Any, item: int) -> int:
    os._exit(1)


def run(pool: ProcessExecutor, fn: Any, items: list[Any], **kw: Any) -> dict[int, Any]:
    seen: list[tuple[str, Mapping[str, Any]]] = []
    out = dict(
        pool.run(
            fn,
            items,
            progress=lambda kind, data: seen.append((kind, data)),
            io_bound=kw.get("io_bound", False),
            max_in_flight=kw.get("max_in_flight", 4),
        )
    )
    kw.get("progress", []).extend(seen)
    return out


def test_tasks_run_in_both_worker_processes_and_progress_comes_back(
    pool: ProcessExecutor,
) -> None:
    seen: list[tuple[str, Mapping[str, Any]]] = []
    out = run(pool, square, list(range(8)), io_bound=True, max_in_flight=8, progress=seen)
    assert {i: r[0] for i, r in out.items()} == {i: i * i for i in range(8)}
    pids = {r[1] for r in out.values()}
    assert len(pids) == 2 and os.getpid() not in pids  # spread evenly over the two workers
    assert sorted(d["item"] for k, d in seen if k == "step") == list(range(8))


def test_a_task_error_comes_back_as_its_exception(pool: ProcessExecutor) -> None:
    [(i, err)] = run(pool, fail, [3]).items()
    assert i == 0 and isinstance(err, ValueError) and str(err) == "bad item 3"


def test_a_task_whose_worker_dies_is_retried_once_then_reported(
    pool: ProcessExecutor, tmp_path: Path
) -> None:
    assert run(pool, die_once, [str(tmp_path / "died-once")]) == {0: "second attempt"}
    [(i, err)] = run(pool, die_always, [7]).items()
    assert i == 0 and isinstance(err, WorkerFailed) and "two worker processes" in str(err)
    # the pool replaced its dead workers and still works
    assert {i: r[0] for i, r in run(pool, square, [2, 3]).items()} == {0: 4, 1: 9}


def test_run_all_on_worker_processes_gives_the_threads_store(
    pool: ProcessExecutor, tmp_path: Path
) -> None:
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
        remote = run_all(
            RunAllOptions(selectors_dir=sel, state_dir=tmp_path / "procs", settings=fast()),
            executor=pool,
            progress=lambda kind, data: seen.append(kind),
        )
    sites = ["dmf-a", "dmf-a2", "dmf-b", "dmf-c"]
    assert [(s.site, s.verdict) for s in remote.sites] == [(s.site, s.verdict) for s in local.sites]
    assert [s.verdict for s in remote.sites] == ["ok", "ok", "ok", "blocked"]
    assert remote.exit_code == local.exit_code == 4 and remote.groups == 3
    with Store.in_state_dir(tmp_path / "local") as x, Store.in_state_dir(tmp_path / "procs") as y:
        assert [y.dump(s) for s in sites] == [x.dump(s) for s in sites]
        assert y.dump("dmf-a")["records"]
    assert {"start", "page", "done"} <= set(seen)


def test_replay_on_worker_processes_gives_the_threads_replay(
    pool: ProcessExecutor, tmp_path: Path
) -> None:
    sel, state = tmp_path / "selectors", tmp_path / "state"
    write_site_file(sel, "http://127.0.0.1:8765")
    with DemoServer(day=1) as srv:
        for day in (1, 2):
            srv.set_day(day)
            opts = RunOptions("mfds-dmf", sel, state, base_url=srv.base_url, settings=fast())
            assert run_site(opts).verdict == "ok"
    local = replay_site(ReplayOptions("mfds-dmf", sel, state, settings=fast()))
    remote = replay_site(ReplayOptions("mfds-dmf", sel, state, settings=fast()), executor=pool)
    assert [r.verdict for r in remote.runs] == [r.verdict for r in local.runs] == ["ok", "ok"]
    with Store(local.database) as x, Store(remote.database) as y:
        assert x.dump() == y.dump()


def test_workers_leave_when_the_submitting_process_is_killed(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    script = (
        "import sys, time\n"
        "from anchorpath.runner.workers import ProcessExecutor\n"
        "if __name__ == '__main__':\n"
        "    pool = ProcessExecutor(2).start()\n"
        "    print(' '.join(map(str, pool.pids())), flush=True)\n"
        "    time.sleep(60)\n"
    )
    path = tmp_path / "submitter.py"
    path.write_text(script)
    proc = subprocess.Popen([sys.executable, str(path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    pids = [int(p) for p in proc.stdout.readline().split()]
    assert len(pids) == 2
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    proc.stdout.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in pids)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (exited, not yet reaped by init) counts as gone
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False
