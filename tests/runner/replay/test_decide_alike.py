"""``run`` and ``replay`` decide alike: the same archive, replayed with the selector version
that ran, gives every run the verdict and the events the run committed (one decision
function, one withdrawal rule, one baseline rule).

A MockFetcher serves a small book site day after day (archiving every answer to the run's
WARC); the whole history is then replayed into a scratch database.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from anchorpath._errors import FetchFailed
from anchorpath.fetch.mock import MockFetcher, Route
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.replay.plan import REPLAYABLE, ReplayOptions
from anchorpath.runner.replay.run import replay_site
from anchorpath.runner.run_types import RunOptions, RunResult
from anchorpath.runner.store.database import Store

ORIGIN = "http://synth.test"

DETAIL = {
    "match": "/book/",
    "fields": {
        "isbn": {"xpath": "//td[@id='isbn']", "type": "string", "required": True},
        "title": {"xpath": "//h1", "type": "string", "required": True},
    },
}
LISTED: dict[str, Any] = {
    "schema_version": 1,
    "policy": {"basis": "robots"},
    "site": {"id": "books", "name": "Books"},
    "version": 1,
    "fetch": {"start_urls": ["http://127.0.0.1:8765/list"], "max_depth": 2, "max_pages": 50},
    "page_types": {
        "list": {
            "match": "/list",
            "record_root": "//ul/li",
            "emit": False,
            "follow": ["//ul/li/a/@href"],
            "fields": {"title": {"xpath": "a", "type": "string", "required": True}},
        },
        "detail": DETAIL,
    },
    "key": ["isbn"],
}
#: Every book page is a start URL (no listing).
STARTS: dict[str, Any] = {
    **LISTED,
    "fetch": {
        "start_urls": [f"http://127.0.0.1:8765/book/{i}" for i in (1, 2, 3, 4)],
        "max_depth": 1,
    },
    "page_types": {"detail": DETAIL},
}
BOOKS = {
    f"/book/{i}": (f"{i}{i}{i}", t)
    for i, t in enumerate(["Game Over", "Harbour", "Paper", "Slow"], 1)
}


def pages_of(books: dict[str, tuple[str, str]], *, h1: str = "h1") -> dict[str, bytes]:
    items = "".join(f"<li><a href='{p}'>{t}</a></li>" for p, (_i, t) in books.items())
    out = {f"{ORIGIN}/list": f"<html><body><ul>{items}</ul></body></html>".encode()}
    for p, (isbn, title) in books.items():
        out[f"{ORIGIN}{p}"] = (
            f"<html><body><{h1}>{title}</{h1}><table><tr><td id='isbn'>{isbn}</td></tr>"
            "</table></body></html>"
        ).encode()
    return out


def run_day(
    root: Path,
    selector: dict[str, Any],
    pages: dict[str, bytes],
    gone: dict[str, int],
    urls: tuple[str, ...] = (),
) -> RunResult:
    sdir = root / "selectors"
    sdir.mkdir(exist_ok=True)
    (sdir / "books.json").write_text(json.dumps(selector), encoding="utf-8")

    def route(url: str) -> Route:
        if url in gone:
            return (gone[url], {}, b"")
        return pages.get(url) or FetchFailed(f"{url}: connection reset", url=url)

    opts = RunOptions("books", sdir, root / "state", base_url=ORIGIN, urls=urls)
    return run_site(opts, fetcher_factory=MockFetcher.factory(route))


def events(evs: Any) -> list[tuple[str, str, str]]:
    return sorted((e.kind, e.key, json.dumps(e.to_dict()["fields"], sort_keys=True)) for e in evs)


def assert_replay_agrees(root: Path, results: list[RunResult]) -> None:
    replayed = replay_site(ReplayOptions("books", root / "selectors", root / "state"))
    # blocked and error runs are partial: they are not replayed
    results = [r for r in results if r.verdict in REPLAYABLE]
    assert [r.run_id for r in replayed.runs] == [r.run_id for r in results]
    for live, rr in zip(results, replayed.runs, strict=True):
        assert (rr.verdict, rr.reason) == (live.verdict, live.reason), live.run_id
        assert events(rr.events) == events(live.events), live.run_id
    with Store.in_state_dir(root / "state") as store, Store(replayed.database) as scratch:
        assert scratch.current("books") == store.current("books")


def test_a_gone_start_page_is_withdrawn_by_run_as_by_replay(tmp_path: Path) -> None:
    day1 = run_day(tmp_path, STARTS, pages_of(BOOKS), {})
    gone = {f"{ORIGIN}/book/3": 404}
    day2 = run_day(tmp_path, STARTS, pages_of(BOOKS), gone)
    assert [e.key for e in day2.events if e.kind == "withdrawn"] == ["333"]
    assert day2.verdict == "ok" and day2.complete and day2.errors == []
    assert_replay_agrees(tmp_path, [day1, day2])


def test_records_of_entry_pages_are_as_unlisted_replayed_as_run(tmp_path: Path) -> None:
    """A start page's or a ``--url`` page's record is not listed (a later complete crawl
    that does not reach it leaves it unseen): replay reads how the run reached each page."""
    books = {**BOOKS, "/book/5": ("555", "Quiet")}
    results = [run_day(tmp_path, LISTED, pages_of(books), {}, urls=(f"{ORIGIN}/book/5",))]
    results.append(run_day(tmp_path, STARTS, pages_of(books), {}))
    results.append(run_day(tmp_path, LISTED, pages_of(BOOKS), {}))
    assert [e.kind for e in results[-1].events] == []  # book 5: unseen, never listed
    with Store.in_state_dir(tmp_path / "state") as store:
        assert [k for k, r in store.current("books").items() if not r.listed] == ["555"]
    assert_replay_agrees(tmp_path, results)


def test_run_and_replay_agree_day_after_day(tmp_path: Path) -> None:
    """New, changed, withdrawn (dropped from the listing and page gone), a gone listing
    page (an error), a redesign (drift): the same verdicts, reasons and events."""
    books = dict(BOOKS)
    results = [run_day(tmp_path, LISTED, pages_of(books), {})]
    books["/book/2"] = ("222", "Harbour Lights")
    dropped = {k: v for k, v in books.items() if k != "/book/4"}
    results.append(run_day(tmp_path, LISTED, pages_of(dropped), {f"{ORIGIN}/book/1": 410}))
    results.append(run_day(tmp_path, LISTED, pages_of(dropped), {f"{ORIGIN}/list": 404}))
    redesign = copy.deepcopy(dropped)
    results.append(run_day(tmp_path, LISTED, pages_of(redesign, h1="h2"), {}))
    assert [r.verdict for r in results] == ["ok", "ok", "error", "drift"]
    assert_replay_agrees(tmp_path, results)
