"""``--executor local:N`` (:mod:`anchorpath.runner.workers`): real worker processes give the
same stores as threads, relay progress, return task errors, and retry a dead worker's task
once."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from anchorpath._errors import WorkerFailed
from anchorpath.runner.progress import Note
from anchorpath.runner.workers import ProcessExecutor

from .conftest import replay_matches_threads, run_all_matches_threads

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pool() -> Iterator[ProcessExecutor]:
    executor = ProcessExecutor(2).start()
    yield executor
    executor.close()


# Task functions run in the worker processes: module level, so that they can be sent there.


def square(progress: Any, item: int) -> tuple[int, int]:
    progress(Note(str(item)))
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
    seen: list[Any] = []
    out = dict(
        pool.run(
            fn,
            items,
            progress=seen.append,
            io_bound=kw.get("io_bound", False),
            max_in_flight=kw.get("max_in_flight", 4),
        )
    )
    kw.get("progress", []).extend(seen)
    return out


def test_tasks_run_in_both_worker_processes_and_progress_comes_back(
    pool: ProcessExecutor,
) -> None:
    seen: list[Any] = []
    out = run(pool, square, list(range(8)), io_bound=True, max_in_flight=8, progress=seen)
    assert {i: r[0] for i, r in out.items()} == {i: i * i for i in range(8)}
    pids = {r[1] for r in out.values()}
    assert len(pids) == 2 and os.getpid() not in pids  # spread evenly over the two workers
    assert sorted(int(e.message) for e in seen if isinstance(e, Note)) == list(range(8))


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
    assert {"RunStarted", "PageRead", "SiteDone"} <= run_all_matches_threads(pool, tmp_path)


def test_replay_on_worker_processes_gives_the_threads_replay(
    pool: ProcessExecutor, tmp_path: Path
) -> None:
    replay_matches_threads(pool, tmp_path)


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
