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
    **kw: Any,
) -> RunResult:
    sdir = tmp_path / "selectors"
    sdir.mkdir(exist_ok=True)
    (sdir / "books.json").write_text(json.dumps(selector or SELECTOR), encoding="utf-8")

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
