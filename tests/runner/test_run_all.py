"""``run --all``: origin groups, one politeness registry, per-site verdicts, one exit code,
resume after ``kill -9`` (real demo servers on loopback, the polite fetcher, WARC)."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from anchorpath._errors import RunError
from anchorpath.demo import DemoServer, write_site_file
from anchorpath.runner import run_all as run_all_module
from anchorpath.runner.progress import PageRead, ProgressEvent, SiteCrawled
from anchorpath.runner.run_all import RunAllOptions, discover_sites, origin_groups, run_all
from anchorpath.runner.store.database import Store
from anchorpath.selectors.load import load_selector_file

from ..conftest import dump
from .conftest import fast


def test_discover_sites_and_globs(tmp_path: Path) -> None:
    for name in ("mfds-a", "mfds-b", "other"):
        write_site_file(tmp_path, f"http://127.0.0.1:{9000 + len(name)}", site_id=name)
    assert [p.stem for p in discover_sites(tmp_path)] == ["mfds-a", "mfds-b", "other"]
    assert [p.stem for p in discover_sites(tmp_path, ["mfds-*"])] == ["mfds-a", "mfds-b"]
    with pytest.raises(RunError, match="no selector file matches 'nope'"):
        discover_sites(tmp_path, ["nope"])
    with pytest.raises(RunError, match="no such selectors directory"):
        discover_sites(tmp_path / "missing")


def test_origin_groups_put_sites_sharing_an_origin_together(tmp_path: Path) -> None:
    sites = [
        load_selector_file(write_site_file(tmp_path, url, site_id=sid))
        for sid, url in (
            ("a", "http://127.0.0.1:9001"),
            ("b", "http://127.0.0.1:9002"),
            ("c", "http://127.0.0.1:9001"),
            ("d", "http://127.0.0.1:9003"),
        )
    ]
    assert origin_groups(sites) == [[0, 2], [1], [3]]


@pytest.mark.slow
def test_a_group_is_prepared_when_the_executor_asks_for_its_task(tmp_path: Path) -> None:
    """The first crawls start while later sites are still being prepared (locks, runs): an
    executor that takes the tasks one by one finds no later site's lock taken yet."""
    sel, state = tmp_path / "selectors", tmp_path / "state"
    for k in range(3):
        write_site_file(sel, f"http://127.0.0.{k + 1}:8765", site_id=f"site-{k}", max_pages=2)

    class OneByOne:
        def __init__(self) -> None:
            self.prepared_before: list[int] = []

        def capacity(self) -> int | None:
            return 1

        def run(self, fn: Any, items: Any, **kw: Any) -> Any:
            for k in range(len(items)):
                locks = state / "locks"
                self.prepared_before.append(len(list(locks.iterdir())) if locks.exists() else 0)
                assert items[k].jobs  # preparing it now
                assert not (state / "runs").exists()  # a new run's crawl writes its files
                yield k, RuntimeError("not crawled in this test")

        def close(self) -> None:
            return None

    executor = OneByOne()
    result = run_all(
        RunAllOptions(selectors_dir=sel, state_dir=state, settings=fast()), executor=executor
    )
    assert executor.prepared_before == [0, 1, 2]
    assert [s.verdict for s in result.sites] == ["error"] * 3


def test_site_locks_are_not_synced_for_crawls_on_this_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Threads and worker processes of this machine read the lease from the page cache: the
    lock files are not synced (only Dask workers, possibly elsewhere, need that)."""
    sel, state = tmp_path / "selectors", tmp_path / "state"
    for k in range(2):
        write_site_file(sel, f"http://127.0.0.{k + 1}:8765", site_id=f"site-{k}", max_pages=2)
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)

    class TakeAll:
        def capacity(self) -> int | None:
            return 2

        def run(self, fn: Any, items: Any, **kw: Any) -> Any:
            for k in range(len(items)):
                assert items[k].jobs
                yield k, RuntimeError("not crawled in this test")

        def close(self) -> None:
            return None

    result = run_all(
        RunAllOptions(selectors_dir=sel, state_dir=state, settings=fast()), executor=TakeAll()
    )
    assert [s.verdict for s in result.sites] == ["error", "error"]
    assert len(list((state / "locks").iterdir())) == 2
    assert synced == []


def test_failing_sites_do_not_stop_the_others_and_the_worst_verdict_wins(tmp_path: Path) -> None:
    sel, state = tmp_path / "selectors", tmp_path / "state"
    with DemoServer(day=1) as good, DemoServer(day=1, mode="refuse") as refusing:
        write_site_file(sel, good.base_url, site_id="good")
        write_site_file(sel, refusing.base_url, site_id="refusing")
        (sel / "broken.json").write_text("{not json", encoding="utf-8")
        result = run_all(RunAllOptions(selectors_dir=sel, state_dir=state, settings=fast()))
    by_site = {s.site: s for s in result.sites}
    assert by_site["good"].verdict == "ok" and by_site["good"].counts().new == 64
    assert by_site["refusing"].verdict == "stopped"  # 403 on its start URL
    assert by_site["broken"].verdict == "error" and "broken.json" in str(by_site["broken"].reason)
    assert result.exit_code == 5  # stopped > blocked > drift > error > ok
    # each site has its own run directory, report and lock file
    assert (state / "runs" / "good").is_dir() and (state / "runs" / "refusing").is_dir()
    assert (state / "locks" / "good.lock").is_file()


def test_one_hostile_file_or_failing_site_never_stops_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 25: a 4 KB selector file nested 2,000 levels deep stopped run --all before any
    # site ran; an unexpected exception of one site (a bug, a library's error on hostile
    # input) must be that site's error too, in loading, preparing, crawling and deciding.
    sel, state = tmp_path / "selectors", tmp_path / "state"
    real_crawl, real_prepare = run_all_module.crawl_site, run_all_module._prepare

    def crawl(job: Any, *args: Any) -> Any:
        if job.sf.site.id == "crawl-bug":
            raise KeyError("boom in crawl")
        return real_crawl(job, *args)

    def prepare(site: Any, *args: Any, **kw: Any) -> None:
        if site.sf.site.id == "prepare-bug":
            raise ZeroDivisionError("boom in prepare")
        real_prepare(site, *args, **kw)

    monkeypatch.setattr(run_all_module, "crawl_site", crawl)
    monkeypatch.setattr(run_all_module, "_prepare", prepare)
    with DemoServer(day=1) as good:
        for sid in ("good", "crawl-bug", "prepare-bug"):
            write_site_file(sel, good.base_url, site_id=sid, max_pages=3)
        text = (sel / "good.json").read_text(encoding="utf-8").rstrip()
        deep = text[:-1] + ', "baseline": ' + "[" * 2000 + "]" * 2000 + "}"
        (sel / "deep.json").write_text(deep, encoding="utf-8")
        result = run_all(RunAllOptions(selectors_dir=sel, state_dir=state, settings=fast()))
    by_site = {s.site: s for s in result.sites}
    assert by_site["good"].verdict == "ok"
    assert by_site["deep"].verdict == "error"
    assert "deep.json: JSON nested deeper than 64 levels" in str(by_site["deep"].reason)
    assert "unexpected KeyError" in str(by_site["crawl-bug"].reason)
    assert "unexpected ZeroDivisionError" in str(by_site["prepare-bug"].reason)
    assert result.exit_code == 1


def test_sites_on_one_origin_share_one_pace_and_one_robots_txt(tmp_path: Path) -> None:
    sel, state = tmp_path / "selectors", tmp_path / "state"
    delay = 0.02
    with DemoServer(day=1) as srv:
        # one site listing page 1, the other started further down the same board
        write_site_file(sel, srv.base_url, site_id="board-a", max_pages=6)
        write_site_file(sel, srv.base_url, site_id="board-b", max_pages=6)
        result = run_all(RunAllOptions(selectors_dir=sel, state_dir=state, settings=fast(delay)))
        log = srv.request_log
    assert [s.verdict for s in result.sites] == ["ok", "ok"]
    assert result.groups == 1
    assert sum(1 for _, _, path, _ in log if path == "/robots.txt") == 1
    arrivals = sorted(t for t, _, _, _ in log)
    gaps = [b - a for a, b in itertools.pairwise(arrivals)]
    assert len(arrivals) == 13 and min(gaps) >= delay * 0.9


def test_page_events_are_coalesced_and_the_last_one_comes_before_crawled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_all_module, "PROGRESS_SECONDS", 60.0)
    sel, state = tmp_path / "selectors", tmp_path / "state"
    events: list[ProgressEvent] = []
    with DemoServer(day=1) as srv:
        write_site_file(sel, srv.base_url, site_id="board", max_pages=5)
        result = run_all(
            RunAllOptions(selectors_dir=sel, state_dir=state, settings=fast()),
            progress=events.append,
        )
    [site] = result.sites
    kinds = [type(e) for e in events]
    pages = [e for e in events if isinstance(e, PageRead)]
    # the first page at once, then only the latest, just before the site's next event
    assert len(pages) == 2 and kinds[kinds.index(SiteCrawled) - 1] is PageRead
    assert pages[-1].done == site.counts().pages > pages[0].done
    assert pages[-1].records == site.counts().records and pages[-1].site == "board"


@pytest.mark.slow
def test_two_origins_take_about_the_time_of_the_slower_one(tmp_path: Path) -> None:
    sel, state = tmp_path / "selectors", tmp_path / "state"
    delay = 0.04
    with DemoServer(day=1) as a, DemoServer(day=2) as b:
        write_site_file(sel, a.base_url, site_id="dmf-a")
        write_site_file(sel, b.base_url, site_id="dmf-b")
        began = time.monotonic()
        result = run_all(RunAllOptions(selectors_dir=sel, state_dir=state, settings=fast(delay)))
        took = time.monotonic() - began
    assert [s.verdict for s in result.sites] == ["ok", "ok"]
    slower = max(s.seconds for s in result.sites)
    assert slower >= 70 * delay  # each site alone is bound by its own politeness
    assert took <= 1.3 * slower, (took, [s.seconds for s in result.sites])


def _cli(sel: Path, state: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "anchorpath",
        "run",
        "--all",
        "--selectors",
        str(sel),
        "--state",
        str(state),
        "--quiet",
    ]


def _pages_done(state: Path, site: str) -> int:
    for cp in (state / "runs" / site).glob("*/checkpoint.json"):
        try:
            return int(json.loads(cp.read_text(encoding="utf-8")).get("pages_count", 0))
        except (OSError, ValueError):
            return 0
    return 0


@pytest.mark.slow
def test_kill_9_of_run_all_resumes_every_unfinished_site(tmp_path: Path) -> None:
    sel = tmp_path / "selectors"
    env: dict[str, Any] = {
        **os.environ,
        "ANCHORPATH_FETCH__MIN_DELAY": "0",
        "ANCHORPATH_FETCH__DELAY_FACTOR": "0",
        "ANCHORPATH_FETCH__ALLOW_PRIVATE_NETWORKS": "1",
        "ANCHORPATH_FETCH__CONTACT": "tests@anchorpath.invalid",
    }
    with DemoServer(day=1) as a, DemoServer(day=1) as b:
        write_site_file(sel, a.base_url, site_id="dmf-a")
        write_site_file(sel, b.base_url, site_id="dmf-b")
        ref = subprocess.run(
            _cli(sel, tmp_path / "ref"), env=env, capture_output=True, text=True, timeout=120
        )
        assert ref.returncode == 0, ref.stdout + ref.stderr
        state = tmp_path / "killed"
        slow = {**env, "ANCHORPATH_FETCH__MIN_DELAY": "0.04"}
        proc = subprocess.Popen(
            _cli(sel, state), env=slow, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and (
                _pages_done(state, "dmf-a") < 10 or _pages_done(state, "dmf-b") < 10
            ):
                assert proc.poll() is None, "the job finished before it could be killed"
                time.sleep(0.02)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert _pages_done(state, "dmf-a") >= 10 and _pages_done(state, "dmf-b") >= 10
        again = subprocess.run(
            _cli(sel, state), env=env, capture_output=True, text=True, timeout=120
        )
    assert again.returncode == 0, again.stdout + again.stderr
    for site in ("dmf-a", "dmf-b"):
        report = next((state / "runs" / site).glob("*/report.json"))
        assert json.loads(report.read_text(encoding="utf-8"))["resumed"] is True
        assert dump(Store.in_state_dir(state), site) == dump(
            Store.in_state_dir(tmp_path / "ref"), site
        )
