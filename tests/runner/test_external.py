"""``ExternalCrawl``: the runner's crawl rules and page handling, driven by another crawler's
responses (the Scrapy integration's engine, tested without Scrapy here)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from anchorpath.runner.external import ExternalCrawl, FetchedPage
from anchorpath.selectors.load import load_selector_file

REPO = Path(__file__).resolve().parents[2]
SELECTOR = REPO / "selectors" / "mfds-dmf.json"
FIXTURES = REPO / "selectors" / "fixtures" / "mfds-dmf"
BASE = "http://127.0.0.1:9000"


def page(name: str, url: str) -> FetchedPage:
    body = (FIXTURES / name).read_bytes()
    return FetchedPage(url, 200, [("Content-Type", "text/html; charset=EUC-KR")], body)


def test_start_page_gives_records_then_pagination_and_follow_links() -> None:
    crawl = ExternalCrawl(load_selector_file(SELECTOR), base_url=BASE)
    (start,) = crawl.pending()
    assert start.url == f"{BASE}/dmf/list.do?page=1" and start.via == "start"
    assert crawl.pending() == []  # handed out once
    records, more = crawl.page(start, page("list-1.html", start.url))
    assert len(records) == 10 and {r.page_type for r in records} == {"list"}
    vias = [m.via for m in more]
    assert vias.count("next") == 1 and vias.count("follow") == 10
    assert all(m.url.startswith(BASE) for m in more)
    assert crawl.state.done == [start.url] and len(crawl.pages) == 1


def test_max_pages_counts_pages_in_flight() -> None:
    sf = load_selector_file(SELECTOR)
    crawl = ExternalCrawl(replace(sf, fetch=replace(sf.fetch, max_pages=3)), base_url=BASE)
    (start,) = crawl.pending()
    _records, more = crawl.page(start, page("list-1.html", start.url))
    assert len(more) == 2  # 1 done + 2 in flight = max_pages
    crawl.close()
    assert crawl.state.capped and not crawl.state.frontier


def test_failures_as_the_runner_treats_them() -> None:
    crawl = ExternalCrawl(load_selector_file(SELECTOR), base_url=BASE)
    (start,) = crawl.pending()
    _records, more = crawl.page(start, page("list-1.html", start.url))
    follow = next(m for m in more if m.via == "follow")
    crawl.failed(follow, "HTTP 404", status=404)
    assert crawl.gone == [follow.url] and not crawl.errors
    other = next(m for m in more if m.via == "follow" and m != follow)
    crawl.failed(other, "Forbidden by robots.txt", robots=True)
    assert (other.url, "robots.txt disallows it") in crawl.state.skipped and not crawl.stopped
    nxt = next(m for m in more if m.via == "next")
    crawl.failed(nxt, "HTTP 403", status=403)
    assert crawl.blocked and crawl.pending() == []


def test_robots_refusing_the_start_url_blocks() -> None:
    crawl = ExternalCrawl(load_selector_file(SELECTOR), base_url=BASE)
    (start,) = crawl.pending()
    assert crawl.failed(start, "Forbidden by robots.txt", robots=True) == []
    assert crawl.blocked is not None and "RobotsDisallowed" in crawl.blocked
