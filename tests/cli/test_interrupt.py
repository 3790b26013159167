"""Ctrl-C during ``anchorpath run``: one line saying what became of the run and that running
it again resumes it, exit 130, no traceback (worker processes of ``--executor local:N``
included), and the next run does resume it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from anchorpath.demo import DemoServer, write_site_file

ENV = {
    "ANCHORPATH_FETCH__MIN_DELAY": "0.3",
    "ANCHORPATH_FETCH__DELAY_FACTOR": "0",
    "ANCHORPATH_FETCH__ALLOW_PRIVATE_NETWORKS": "1",
    "ANCHORPATH_FETCH__CONTACT": "tests@anchorpath.invalid",
}


def _interrupt(args: list[str], state: Path) -> subprocess.CompletedProcess[str]:
    """Run ``anchorpath ARGS`` in its own process group; once a page is checkpointed, send
    SIGINT to the group, as a terminal's Ctrl-C does."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "anchorpath", *args],
        env={**os.environ, **ENV},
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not list(state.glob("runs/*/*/pages.jsonl")) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


@pytest.mark.slow
@pytest.mark.parametrize("all_sites", [False, True])
def test_ctrl_c_says_a_rerun_resumes(tmp_path: Path, all_sites: bool) -> None:
    sel, state = tmp_path / "sel", tmp_path / "state"
    with DemoServer(day=1) as srv:
        write_site_file(sel, srv.base_url)
        where = ["--selectors", str(sel), "--state", str(state), "-q"]
        args = ["run", "--all", "--executor", "local:2"] if all_sites else ["run", "mfds-dmf"]
        stopped = _interrupt([*args, *where], state)
        assert stopped.returncode == 130, stopped.stderr
        assert "Traceback" not in stopped.stderr + stopped.stdout
        assert "interrupted:" in stopped.stderr and "resumes" in stopped.stderr
        again = subprocess.run(
            [sys.executable, "-m", "anchorpath", "run", "mfds-dmf", *where],
            env={**os.environ, **ENV, "ANCHORPATH_FETCH__MIN_DELAY": "0"},
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert again.returncode == 0, again.stdout + again.stderr
    assert "(resumed)" in again.stdout
