"""The Scrapy integration with a real Scrapy crawl (``scrapy runspider`` in a subprocess) of the
demo site on loopback: the store it fills equals the one ``anchorpath run`` fills on the same
days (records, SCD2 versions, events), its items are the records, it archives every page, and
it obeys robots.txt."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("scrapy")

from anchorpath._config import Settings
from anchorpath.demo import DemoServer
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.run_types import RunOptions
from anchorpath.runner.store.database import Store

from ..conftest import dump

REPO = Path(__file__).resolve().parents[2]
SELECTOR = REPO / "selectors" / "mfds-dmf.json"
SPIDER = """
from anchorpath.integrations.scrapy import SelectorSpider


class DmfSpider(SelectorSpider):
    name = "mfds-dmf"
    selector_file = {selector!r}
"""
PIPELINE = {"anchorpath.integrations.scrapy.AnchorpathPipeline": 300}


def _settings() -> Settings:
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


def scrapy_crawl(
    tmp: Path, state: Path, base_url: str, *extra: str
) -> subprocess.CompletedProcess[str]:
    spider = tmp / "dmf_spider.py"
    spider.write_text(SPIDER.format(selector=str(SELECTOR)), encoding="utf-8")
    cmd = [
        str(Path(sys.executable).parent / "scrapy"),
        "runspider",
        str(spider),
        "-a",
        f"base_url={base_url}",
        "-s",
        f"ITEM_PIPELINES={json.dumps(PIPELINE)}",
        "-s",
        f"ANCHORPATH_STATE_DIR={state}",
        # the demo server is ours: pace it fast (the spider's defaults are anchorpath's)
        "-s",
        "DOWNLOAD_DELAY=0.01",
        "-s",
        "AUTOTHROTTLE_ENABLED=False",
        "-s",
        "LOG_LEVEL=INFO",
        "-s",
        "TELNETCONSOLE_ENABLED=False",
        *extra,
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANCHORPATH_", "SCRAPY_"))}
    return subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_scrapy_crawl_fills_the_same_store_as_anchorpath_run(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "run-state", tmp_path / "scrapy-state"
    with DemoServer(day=1) as srv:
        for day in (1, 2):
            srv.set_day(day)
            result = run_site(
                RunOptions(
                    "mfds-dmf", SELECTOR.parent, ours, base_url=srv.base_url, settings=_settings()
                )
            )
            assert result.verdict == "ok", result.reason
            feed = tmp_path / f"day{day}.jsonl"
            proc = scrapy_crawl(tmp_path, theirs, srv.base_url, "-O", str(feed))
            log = proc.stderr
            assert proc.returncode == 0, log[-4000:]
            assert "anchorpath: run " in log and ": ok (exit 0)" in log, log[-4000:]
            assert "Traceback" not in log, log[-4000:]
            items = [json.loads(line) for line in feed.read_text(encoding="utf-8").splitlines()]
            assert len(items) == sum(1 for _ in items if "_page_type" in _)
            assert {i["_page_type"] for i in items} == {"list", "detail"}
            a, b = dump(Store.in_state_dir(ours)), dump(Store.in_state_dir(theirs))
            assert sorted(b["records"]) == sorted(a["records"]), f"day {day}"
            assert sorted(b["events"]) == sorted(a["events"]), f"day {day}"
    # day 2 has new, changed and withdrawn events: the crawl was complete
    kinds = {e[2] for e in dump(Store.in_state_dir(theirs))["events"]}
    assert kinds == {"new", "changed", "withdrawn"}
    runs = sorted((theirs / "runs" / "mfds-dmf").iterdir())
    assert len(runs) == 2
    assert list(runs[-1].glob("pages-*.warc.gz")) and (runs[-1] / "report.html").is_file()


@pytest.mark.slow
def test_scrapy_crawl_obeys_robots_txt(tmp_path: Path) -> None:
    """robots.txt disallows everything: Scrapy asks for robots.txt only, and the run is
    ``blocked`` (as ``anchorpath run`` says), nothing stored but the run row."""
    state = tmp_path / "state"
    with DemoServer(day=1, mode="robots-deny") as srv:
        proc = scrapy_crawl(tmp_path, state, srv.base_url)
        paths = {path for _t, _m, path, _s in srv.request_log}
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert ": blocked (exit 4)" in proc.stderr, proc.stderr[-4000:]
    assert paths == {"/robots.txt"}
    assert dump(Store.in_state_dir(state)) == {"records": [], "events": []}


def test_spider_refuses_to_ignore_robots_txt(tmp_path: Path) -> None:
    proc = scrapy_crawl(
        tmp_path, tmp_path / "state", "http://127.0.0.1:9", "-s", "ROBOTSTXT_OBEY=False"
    )
    assert proc.returncode != 0
    assert "ROBOTSTXT_OBEY is off: anchorpath never crawls against robots.txt" in proc.stderr
