"""Fixtures of the many-sites tests (``run --all``, ``replay``, the Dask executor), and the
scenarios every executor must pass with the same stores as threads of one process."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from anchorpath._config import Settings
from anchorpath.demo import DemoServer, write_site_file
from anchorpath.runner.executor import Executor
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.replay.plan import ReplayOptions
from anchorpath.runner.replay.run import replay_site
from anchorpath.runner.run_all import RunAllOptions, run_all
from anchorpath.runner.run_types import RunOptions
from anchorpath.runner.store.database import Store
from anchorpath.selectors.model import SelectorFile

from ..conftest import dump


def fast(delay: float = 0.0) -> Settings:
    """Loopback settings without pauses (or with ``delay``)."""
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


def news_selector(examples: list[str], xpath: str = "//h1") -> SelectorFile:
    """A one-field news site: article pages under ``/a/`` with a required ``headline`` (the
    key), read by ``xpath``, with three ``examples``."""
    return SelectorFile.from_dict(
        {
            "site": {"id": "news", "name": "News"},
            "policy": {"basis": "robots"},
            "version": 1,
            "fetch": {"start_urls": ["http://127.0.0.1/a/1"]},
            "page_types": {
                "article": {
                    "match": "/a/",
                    "fields": {
                        "headline": {"xpath": xpath, "required": True, "examples": examples}
                    },
                }
            },
            "key": ["headline"],
        }
    )


def run_all_matches_threads(executor: Executor, tmp_path: Path) -> set[str]:
    """Four sites (two sharing an origin, one refusing) through ``executor`` and through
    threads of this process: the same verdicts and stores, record for record. Returns the
    kinds of progress events that came back."""
    sel = tmp_path / "selectors"
    seen: set[str] = set()
    with DemoServer(day=1) as a, DemoServer(day=1) as b, DemoServer(day=1) as c:
        write_site_file(sel, a.base_url, site_id="dmf-a")
        write_site_file(sel, b.base_url, site_id="dmf-b")
        write_site_file(sel, a.base_url, site_id="dmf-a2", max_pages=5)  # a's origin group
        write_site_file(sel, c.base_url, site_id="dmf-c")
        c.set_mode("refuse")
        local = run_all(
            RunAllOptions(selectors_dir=sel, state_dir=tmp_path / "local", settings=fast())
        )
        other = run_all(
            RunAllOptions(selectors_dir=sel, state_dir=tmp_path / "other", settings=fast()),
            executor=executor,
            progress=lambda event: seen.add(type(event).__name__),
        )
    sites = ["dmf-a", "dmf-a2", "dmf-b", "dmf-c"]
    assert [(s.site, s.verdict) for s in other.sites] == [(s.site, s.verdict) for s in local.sites]
    assert [s.verdict for s in other.sites] == ["ok", "ok", "ok", "stopped"]
    assert other.exit_code == local.exit_code == 5 and other.groups == 3
    with Store.in_state_dir(tmp_path / "local") as x, Store.in_state_dir(tmp_path / "other") as y:
        assert [dump(y, s) for s in sites] == [dump(x, s) for s in sites]
        assert dump(y, "dmf-a")["records"]
    # pages were archived into the (shared) state directory
    assert list((tmp_path / "other" / "runs" / "dmf-b").glob("*/pages-00.warc.gz"))
    return seen


def replay_matches_threads(executor: Executor, tmp_path: Path) -> None:
    """Two demo days run, then replayed through ``executor`` and through threads of this
    process: the same verdicts, events and scratch databases."""
    sel, state = tmp_path / "selectors", tmp_path / "state"
    write_site_file(sel, "http://127.0.0.1:8765")
    with DemoServer(day=1) as srv:
        for day in (1, 2):
            srv.set_day(day)
            opts = RunOptions("mfds-dmf", sel, state, base_url=srv.base_url, settings=fast())
            assert run_site(opts).verdict == "ok"
    local = replay_site(ReplayOptions("mfds-dmf", sel, state, settings=fast()))
    other = replay_site(ReplayOptions("mfds-dmf", sel, state, settings=fast()), executor=executor)
    assert [r.verdict for r in other.runs] == [r.verdict for r in local.runs] == ["ok", "ok"]
    assert all(r.same_events() for r in other.runs)
    with Store(local.database) as x, Store(other.database) as y:
        assert dump(x) == dump(y)


@pytest.fixture(scope="session")
def dask_cluster() -> Iterator[Any]:
    """A real ``distributed.LocalCluster``: two worker processes, one thread each."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",  # never the fixed 8787: other clusters may run
        silence_logs=50,
    ) as cluster:
        yield cluster
