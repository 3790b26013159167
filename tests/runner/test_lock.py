"""Per-site lock: a live holder refuses a second run; a dead holder's lock is taken over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from anchorpath._errors import RunError
from anchorpath.runner.lock import SiteLock


def test_second_lock_refused_then_released(tmp_path: Path) -> None:
    with SiteLock(tmp_path, "site-a") as lock:
        assert lock.took_over is None
        with pytest.raises(RunError, match="already being run by pid"):
            SiteLock(tmp_path, "site-a").acquire()
        with SiteLock(tmp_path, "site-b"):  # other sites are independent
            pass
    with SiteLock(tmp_path, "site-a") as again:
        assert again.took_over is None  # released cleanly: nothing stale


def test_stale_lock_of_killed_process_is_taken_over(tmp_path: Path) -> None:
    code = (
        "import sys, time\n"
        "from anchorpath.runner.lock import SiteLock\n"
        "SiteLock(sys.argv[1], 'site-a').acquire()\n"
        "print('locked', flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "locked"
        with pytest.raises(RunError):
            SiteLock(tmp_path, "site-a").acquire()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    deadline = time.monotonic() + 5
    while True:
        try:
            lock = SiteLock(tmp_path, "site-a").acquire()
            break
        except RunError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    try:
        assert lock.took_over is not None and lock.took_over.pid == proc.pid
    finally:
        lock.release()


def test_the_holder_syncs_its_info_only_for_readers_on_other_machines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lease is in the page cache for every process of this machine at once; it is synced
    to the disk only when asked (``run --all`` on Dask: workers read it over a shared
    filesystem)."""
    from anchorpath.runner.lock import lease_holds

    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    with SiteLock(tmp_path, "site-a", sync=False) as lock:
        assert lease_holds(tmp_path, "site-a", lock.info)
    assert synced == []
    with SiteLock(tmp_path, "site-a") as lock:
        assert lease_holds(tmp_path, "site-a", lock.info)
    assert len(synced) == 1
