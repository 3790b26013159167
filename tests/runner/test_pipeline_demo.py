"""End to end against the demo server: real HTTP, the polite fetcher, WARC, the CLI, kill -9.

Day 1 → every record new; day 2 → exactly ``expected_events(1, 2)``; day 3 (template change) →
exit 3 and the database unchanged; a refusing site → stopped (exit 5) and no withdrawn event; ``kill -9``
mid-run → resume → the same ``records``/``events`` tables as an uninterrupted run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from anchorpath._config import Settings
from anchorpath.demo import DemoServer
from anchorpath.demo.data import expected_events, records_for_day
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.progress import PageRead, ProgressEvent
from anchorpath.runner.run_types import RunOptions, RunResult
from anchorpath.runner.store.database import Store

from ..conftest import dump

REPO = Path(__file__).resolve().parents[2]
SELECTOR = REPO / "selectors" / "mfds-dmf.json"
SITE = "mfds-dmf"
FAST = {
    "ANCHORPATH_FETCH__MIN_DELAY": "0",
    "ANCHORPATH_FETCH__DELAY_FACTOR": "0",
    "ANCHORPATH_FETCH__ALLOW_PRIVATE_NETWORKS": "1",
    "ANCHORPATH_FETCH__CONTACT": "tests@anchorpath.invalid",
}


def _settings(**fetch: Any) -> Settings:
    s = Settings()
    base = {
        "min_delay": 0.0,
        "delay_factor": 0.0,
        "allow_private_networks": True,
        "contact": "tests@anchorpath.invalid",
    }
    return replace(s, fetch=replace(s.fetch, **{**base, **fetch}))


def run_day(state: Path, day: int, mode: str = "normal") -> RunResult:
    with DemoServer(day=day, mode=mode) as srv:
        opts = RunOptions(SITE, SELECTOR.parent, state, base_url=srv.base_url, settings=_settings())
        return run_site(opts)


def _events(result: RunResult) -> tuple[set[str], dict[str, set[str]], set[str]]:
    new = {e.key for e in result.events if e.kind == "new"}
    changed = {e.key: set(e.fields) for e in result.events if e.kind == "changed"}
    withdrawn = {e.key for e in result.events if e.kind == "withdrawn"}
    return new, changed, withdrawn


@pytest.fixture(scope="module")
def three_days(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    state = tmp_path_factory.mktemp("demo-state")
    r1 = run_day(state, 1)
    after1 = dump(Store.in_state_dir(state))
    r2 = run_day(state, 2)
    after2 = dump(Store.in_state_dir(state))
    r3 = run_day(state, 3)
    after3 = dump(Store.in_state_dir(state))
    return {"state": state, "r": (r1, r2, r3), "dumps": (after1, after2, after3)}


@pytest.mark.slow
def test_day1_everything_new(three_days: dict[str, Any]) -> None:
    r1 = three_days["r"][0]
    assert (r1.verdict, r1.exit_code, r1.complete) == ("ok", 0, True)
    new, changed, withdrawn = _events(r1)
    assert new == {r.reg_no for r in records_for_day(1)}
    assert not changed and not withdrawn


@pytest.mark.slow
def test_day2_exactly_the_expected_events(three_days: dict[str, Any]) -> None:
    r2 = three_days["r"][1]
    truth = expected_events(1, 2)
    assert (r2.verdict, r2.exit_code) == ("ok", 0)
    new, changed, withdrawn = _events(r2)
    assert new == set(truth.new)
    assert withdrawn == set(truth.withdrawn)
    assert changed == {k: set(v) for k, v in truth.changed.items()}
    assert not set(truth.trivial) & set(changed)  # SimHash: trivial 비고 edits are no change


@pytest.mark.slow
def test_day3_template_change_is_drift_and_changes_nothing(three_days: dict[str, Any]) -> None:
    r3 = three_days["r"][2]
    assert (r3.verdict, r3.exit_code) == ("drift", 3)
    after2, after3 = three_days["dumps"][1], three_days["dumps"][2]
    assert after3 == after2
    assert r3.bundle is not None and (r3.bundle / "bundle.json").is_file()
    alert = json.loads((r3.run_dir / "alert.json").read_text(encoding="utf-8"))
    assert alert["next_command"].startswith(f"anchorpath author repair {SITE} --bundle ")
    for name in ("report.json", "report.md", "report.html"):
        assert (r3.run_dir / name).is_file()


@pytest.fixture(scope="module")
def day1_state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    state = tmp_path_factory.mktemp("day1")
    assert run_day(state, 1).verdict == "ok"
    return state


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["refuse", "login", "robots-deny"])
def test_refusing_site_is_stopped_and_withdraws_nothing(
    day1_state: Path, tmp_path: Path, mode: str
) -> None:
    # 403 or a login wall on the start URL, or robots.txt turned to Disallow since day 1:
    # the site stops (until `anchorpath resume`), the store untouched
    state = tmp_path / "state"
    shutil.copytree(day1_state, state)
    before = dump(Store.in_state_dir(state))
    r = run_day(state, 2, mode=mode)
    assert (r.verdict, r.exit_code) == ("stopped", 5), r.reason
    assert not [e for e in r.events if e.kind == "withdrawn"]
    assert dump(Store.in_state_dir(state)) == before
    assert Store.in_state_dir(state).runs(SITE)[0].verdict == "stopped"


def _checkpointed(state: Path) -> int:
    for cp in (state / "runs" / SITE).glob("*/checkpoint.json"):
        try:
            return len(json.loads(cp.read_text(encoding="utf-8"))["crawl"]["done"])
        except (OSError, ValueError, KeyError):
            return 0
    return 0


def _cli(state: Path, base_url: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "anchorpath",
        "run",
        SITE,
        "--selectors",
        str(SELECTOR.parent),
        "--state",
        str(state),
        "--base-url",
        base_url,
        "--quiet",
    ]


@pytest.mark.slow
def test_kill_9_then_resume_gives_the_uninterrupted_database(tmp_path: Path) -> None:
    ref_state, state = tmp_path / "ref", tmp_path / "killed"
    env = {**os.environ, **FAST}
    with DemoServer(day=1) as srv:
        done = subprocess.run(
            _cli(ref_state, srv.base_url), env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stdout + done.stderr
        slow = {**env, "ANCHORPATH_FETCH__MIN_DELAY": "0.05"}
        proc = subprocess.Popen(
            _cli(state, srv.base_url),
            env=slow,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 60
            while _checkpointed(state) < 12 and time.monotonic() < deadline:
                assert proc.poll() is None, "the run finished before it could be killed"
                time.sleep(0.02)
            assert _checkpointed(state) >= 12
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        archived_before = _checkpointed(state)
        resumed = subprocess.run(
            _cli(state, srv.base_url), env=env, capture_output=True, text=True, timeout=120
        )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "(resumed)" in resumed.stdout
    assert dump(Store.in_state_dir(state)) == dump(Store.in_state_dir(ref_state))
    report = next(p for p in (state / "runs" / SITE).glob("*/report.json"))
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["resumed"] is True
    # Pages archived before the kill were not fetched again: the resumed attempt requested
    # at most the remaining pages.
    total = data["counts"]["pages"]
    fetched_again = data["fetch"].get("ok_2xx", 0)
    assert fetched_again <= total - archived_before


@pytest.mark.slow
def test_anchorpath_demo_shows_three_days() -> None:
    from click.testing import CliRunner

    from anchorpath.cli import main

    result = CliRunner().invoke(main, ["demo"], env={"COLUMNS": "120"})
    out = result.output
    assert result.exit_code == 0, out
    assert "Day 1" in out and "Day 2" in out and "Day 3" in out
    assert out.count("exactly the demo's expected events") == 2
    assert "withdrawn" in out and "changed" in out
    assert "alert bundle:" in out and "anchorpath author repair mfds-dmf --bundle" in out
    assert "✓ adopted: the repaired file reproduces the last good records" in out
    assert "✓ day 3 passes with the repaired selectors, and nothing changed" in out


def test_page_progress_counts_the_records_collected_so_far(tmp_path: Path) -> None:
    seen: list[int] = []

    def progress(event: ProgressEvent) -> None:
        if isinstance(event, PageRead):
            seen.append(event.records)

    with DemoServer(day=1) as srv:
        opts = RunOptions(
            SITE, SELECTOR.parent, tmp_path, base_url=srv.base_url, settings=_settings()
        )
        result = run_site(opts, progress=progress)
    assert result.verdict == "ok"
    assert seen == sorted(seen) and seen[0] < seen[-1]
    assert seen[-1] == len(records_for_day(1)) == result.counts().records
