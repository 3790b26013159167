"""Run rules a first week of use found wanting: a selector XPath that fails at evaluation ends
the run with verdict ``error`` (report written, no checkpoint left); two records with one key
in one run are counted and reported, never merged silently; a record is withdrawn only on
evidence, never because the crawl did not reach it.

A MockFetcher serves a dict of pages (archiving each to the WARC first, as the polite fetcher
does); 404/410 come from a second dict, any other URL is a network error.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from anchorpath._errors import FetchFailed
from anchorpath.fetch.mock import MockFetcher, Route
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.run_types import RunOptions, RunResult
from anchorpath.runner.store.database import Store

ORIGIN = "http://synth.test"

SELECTOR: dict[str, Any] = {
    "schema_version": 1,
    "policy": {"basis": "robots"},
    "site": {"id": "books", "name": "Books"},
    "version": 1,
    "parent_version": None,
    "fetch": {"start_urls": ["http://127.0.0.1:8765/list"], "max_depth": 2, "max_pages": 50},
    "page_types": {
        "list": {
            "match": "/list",
            "record_root": "//ul/li",
            "emit": False,
            "follow": ["//ul/li/a/@href"],
            "fields": {"title": {"xpath": "a", "type": "string", "required": True}},
        },
        "detail": {
            "match": "/book/",
            "fields": {
                "isbn": {"xpath": "//td[@id='isbn']", "type": "string", "required": True},
                "title": {"xpath": "//h1", "type": "string", "required": True},
            },
        },
    },
    "key": ["isbn"],
}


def site(books: dict[str, tuple[str, str]]) -> dict[str, bytes]:
    """``{path: (isbn, title)}`` -> pages: a listing of every book and one page per book."""
    items = "".join(f"<li><a href='{p}'>{t}</a></li>" for p, (_i, t) in books.items())
    pages = {f"{ORIGIN}/list": f"<html><body><ul>{items}</ul></body></html>".encode()}
    for p, (isbn, title) in books.items():
        pages[f"{ORIGIN}{p}"] = (
            f"<html><body><h1>{title}</h1><table><tr><td id='isbn'>{isbn}</td></tr>"
            "</table></body></html>"
        ).encode()
    return pages


def run(
    tmp_path: Path,
    pages: dict[str, bytes],
    *,
    selector: dict[str, Any] | None = None,
    gone: dict[str, int] | None = None,
    encoding: str = "utf-8",
    **kw: Any,
) -> RunResult:
    sdir = tmp_path / "selectors"
    sdir.mkdir(exist_ok=True)
    (sdir / "books.json").write_text(json.dumps(selector or SELECTOR), encoding="utf-8")

    if encoding != "utf-8":  # the bytes are in ``encoding``, the header still says utf-8
        pages = {u: b.decode().encode(encoding) for u, b in pages.items()}

    def route(url: str) -> Route:
        if gone and url in gone:
            return (gone[url], {}, b"")
        return pages.get(url) or FetchFailed(f"{url}: connection reset", url=url)

    opts = RunOptions("books", sdir, tmp_path / "state", base_url=ORIGIN, **kw)
    return run_site(opts, fetcher_factory=MockFetcher.factory(route))


def test_xpath_failing_at_evaluation_ends_the_run_with_error(tmp_path: Path) -> None:
    sel = copy.deepcopy(SELECTOR)
    sel["page_types"]["detail"]["fields"]["title"]["xpath"] = "//h1[count('x')]"
    r = run(tmp_path, site({"/book/1": ("111", "Game Over")}), selector=sel)
    assert (r.verdict, r.exit_code) == ("error", 1)
    assert r.reason is not None and "cannot evaluate XPath of field 'title'" in r.reason
    assert "\n" not in r.reason
    assert (r.run_dir / "report.json").is_file()
    assert not (r.run_dir / "checkpoint.json").exists()
    assert Store.in_state_dir(tmp_path / "state").current("books") == {}


DETAIL_ONLY: dict[str, Any] = {
    **SELECTOR,
    "fetch": {
        "start_urls": [f"http://127.0.0.1:8765/book/{i}" for i in (1, 3, 4)],
        "max_depth": 1,
    },
    "page_types": {"detail": SELECTOR["page_types"]["detail"]},
}
BOOKS = {
    "/book/1": ("111", "Game Over"),
    "/book/2": ("222", "Harbour Lights"),
    "/book/3": ("333", "Paper Anchors"),
    "/book/4": ("444", "Slow Crawl"),
    "/book/5": ("555", "The Quiet Index"),
}
URL_RUN = (f"{ORIGIN}/book/2", f"{ORIGIN}/book/5")


def keys(r: RunResult, kind: str) -> list[str]:
    return [e.key for e in r.events if e.kind == kind]


def test_a_record_the_crawl_never_reached_is_unseen_not_withdrawn(tmp_path: Path) -> None:
    pages = site(BOOKS)
    r1 = run(tmp_path, pages, selector=DETAIL_ONLY, urls=URL_RUN)
    assert keys(r1, "new") == ["222", "555"]
    r2 = run(tmp_path, pages, selector=DETAIL_ONLY)  # crawls books 1, 3, 4, completely
    assert (r2.verdict, r2.complete) == ("ok", True), r2.reason
    assert keys(r2, "new") == ["111", "333", "444"] and keys(r2, "withdrawn") == []
    assert r2.unseen == 2
    report = json.loads((r2.run_dir / "report.json").read_text())
    assert report["counts"]["unseen"] == 2


def test_a_gone_page_is_evidence_even_without_a_complete_crawl(tmp_path: Path) -> None:
    pages = site(BOOKS)
    run(tmp_path, pages, selector=DETAIL_ONLY, urls=URL_RUN)
    r = run(tmp_path, pages, selector=DETAIL_ONLY, urls=URL_RUN, gone={f"{ORIGIN}/book/2": 410})
    assert r.verdict == "ok" and keys(r, "withdrawn") == ["222"]
    assert r.errors == []


def test_listed_record_withdrawn_when_listing_drops_it_or_its_page_is_gone(
    tmp_path: Path,
) -> None:
    r1 = run(tmp_path, site(BOOKS))
    assert sorted(keys(r1, "new")) == ["111", "222", "333", "444", "555"]
    # Day 2: book 5 is no longer listed; book 2 is listed but its page answers 404.
    day2 = site({k: v for k, v in BOOKS.items() if k != "/book/5"})
    r2 = run(tmp_path, day2, gone={f"{ORIGIN}/book/2": 404})
    assert r2.verdict == "ok", r2.reason
    assert r2.complete and r2.errors == []
    assert keys(r2, "withdrawn") == ["222", "555"]


def test_two_records_with_one_key_are_reported_not_merged(tmp_path: Path) -> None:
    sel = copy.deepcopy(SELECTOR)
    sel["key"] = ["title"]
    books = {**BOOKS, "/book/2": ("222", "Game Over")}
    r = run(tmp_path, site(books), selector=sel)
    assert r.verdict == "ok"
    assert keys(r, "new") == ["Paper Anchors", "Slow Crawl", "The Quiet Index"]
    assert r.duplicates == {"Game Over": [f"{ORIGIN}/book/1", f"{ORIGIN}/book/2"]}
    report = json.loads((r.run_dir / "report.json").read_text())
    assert report["duplicates"] == [
        {"key": "Game Over", "pages": [f"{ORIGIN}/book/1", f"{ORIGIN}/book/2"]}
    ]
    assert report["counts"]["duplicate_keys"] == 1
    md = (r.run_dir / "report.md").read_text()
    assert "## Duplicate keys (1)" in md
    # The report opens with the verdict and the events; statistics follow.
    assert md.index("**Verdict: ok**") < md.index("## Events") < md.index("## Field statistics")
    html = (r.run_dir / "report.html").read_text()
    assert html.index("Events (") < html.index("Field statistics")


def test_identical_records_with_one_key_merge_silently() -> None:
    from anchorpath.runner.model import RecordEntry
    from anchorpath.runner.store.commit import CommitPlan, merge_records

    values = {"isbn": "111", "title": "Game Over"}
    records = [RecordEntry("list", f"{ORIGIN}/list?page={p}", values, via="start") for p in (1, 2)]
    plan = CommitPlan(["isbn"], ["list"], ["list"], [], True, None)
    merged = merge_records(records, plan)
    assert merged.duplicates == {} and list(merged.seen) == ["111"]
    assert merged.sources["111"].listed


def test_connection_refused_is_the_reason_of_the_error(tmp_path: Path) -> None:
    import socket
    from dataclasses import replace

    from anchorpath._config import Settings

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sdir = tmp_path / "selectors"
    sdir.mkdir()
    (sdir / "books.json").write_text(json.dumps(SELECTOR), encoding="utf-8")
    base = Settings()
    settings = replace(base, fetch=replace(base.fetch, allow_private_networks=True))
    opts = RunOptions(
        "books", sdir, tmp_path / "state", base_url=f"http://127.0.0.1:{port}", settings=settings
    )
    r = run_site(opts)
    assert (r.verdict, r.exit_code) == ("error", 1)
    assert r.reason is not None
    assert r.reason.startswith(f"cannot connect to 127.0.0.1:{port} (connection refused): ")
    assert "robots" not in r.reason


def test_charset_mismatch_is_named_in_the_report(tmp_path: Path) -> None:
    sel = copy.deepcopy(SELECTOR)
    sel["page_types"]["detail"]["fields"]["title"]["pattern"] = "^[가-힣 ]+$"
    books = {f"/book/{i}": (f"{i}{i}{i}", t) for i, t in enumerate(["원료", "의약품", "등록"], 1)}
    r = run(tmp_path, site(books), selector=sel, encoding="cp949")
    assert r.charset and "declared utf-8, but the bytes are cp949" in r.charset[0]
    assert r.reason is not None and r.reason.startswith("charset mismatch on 4 page(s)")
    report = json.loads((r.run_dir / "report.json").read_text())
    assert len(report["charset"]) == 4
    assert "## Charset mismatch (4 pages)" in (r.run_dir / "report.md").read_text()
