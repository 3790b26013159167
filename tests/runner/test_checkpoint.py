"""Checkpoint files are atomic and complete; truncated WARC segments are read up to the cut."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from anchorpath.fetch.warc import WarcWriter
from anchorpath.runner import checkpoint
from anchorpath.runner.archive import archived_pages
from anchorpath.runner.checkpoint import load_checkpoint, remove_checkpoint, save_checkpoint
from anchorpath.runner.crawl.frontier import CrawlItem, CrawlState, Frontier
from anchorpath.runner.model import Checkpoint, PageEntry, RecordEntry
from anchorpath.selectors.load import parse_selector_data


def _cp() -> Checkpoint:
    return Checkpoint(
        run_id="r1",
        site="s",
        started_at="t",
        selector_version=1,
        selector_sha256="x",
        options={"urls": [], "full": False, "base_url": None},
        crawl=CrawlState(frontier=[CrawlItem("http://a/1")], seen=["http://a/1"]).to_dict(),
        records=[RecordEntry("p", "http://a/1", {"k": "한"})],
    )


def test_round_trip_and_atomic_replace(tmp_path: Path) -> None:
    assert load_checkpoint(tmp_path) is None
    cp = _cp()
    save_checkpoint(tmp_path, cp)
    cp.errors.append("boom")
    save_checkpoint(tmp_path, cp)
    again = load_checkpoint(tmp_path)
    assert again is not None and again.to_dict() == cp.to_dict()
    # no temp file left; records go to an append-only log, not into the JSON head
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint.json", "records.jsonl"]
    state = CrawlState.from_dict(again.crawl)
    assert state.frontier == [CrawlItem("http://a/1")]


def test_log_lines_written_after_the_last_checkpoint_are_cut(tmp_path: Path) -> None:
    cp = _cp()
    save_checkpoint(tmp_path, cp)
    cp.records.append(RecordEntry("p", "http://a/2", {}))
    cp.pages.append(PageEntry.from_dict({"url": "http://a/1"}))
    save_checkpoint(tmp_path, cp)
    # kill -9 while appending the next page: a whole line and half a line past the counts
    with (tmp_path / "records.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"page_type": "p", "url": "http://a/3"}\n{"page_ty')
    loaded = load_checkpoint(tmp_path)
    assert loaded is not None
    assert loaded.records == cp.records and loaded.pages == cp.pages
    assert (tmp_path / "records.jsonl").read_text(encoding="utf-8").count("\n") == 2
    loaded.records.append(RecordEntry("p", "http://a/4", {}))
    save_checkpoint(tmp_path, loaded)
    again = load_checkpoint(tmp_path)
    assert again is not None and [r.url for r in again.records] == [
        "http://a/1",
        "http://a/2",
        "http://a/4",
    ]
    remove_checkpoint(tmp_path)
    assert load_checkpoint(tmp_path) is None and not list(tmp_path.iterdir())


def test_new_log_lines_and_the_head_are_synced_before_the_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[str] = []
    real_replace = os.replace

    def sync(fd: int) -> None:
        synced.append(Path(os.readlink(f"/proc/self/fd/{fd}")).name)

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        synced.append("rename")
        real_replace(src, dst)

    monkeypatch.setattr(checkpoint, "_sync", sync)
    monkeypatch.setattr(checkpoint.os, "replace", replace)
    cp = _cp()
    cp.pages.append(PageEntry.from_dict({"url": "http://a/1"}))
    save_checkpoint(tmp_path, cp)
    assert synced == ["records.jsonl", "pages.jsonl", ".checkpoint.json.tmp", "rename"]
    synced.clear()
    save_checkpoint(tmp_path, cp)  # nothing new in the logs: only the head
    assert synced == [".checkpoint.json.tmp", "rename"]


def _write(path: Path, urls: list[str]) -> None:
    with WarcWriter(path) as w:
        for u in urls:
            w.write_exchange(
                url=u,
                method="GET",
                request_headers=[],
                status=200,
                reason="OK",
                response_headers=[("Content-Type", "text/html")],
                payload=f"<p>{u}</p>".encode(),
            )


def test_archived_pages_survive_a_truncated_segment(tmp_path: Path) -> None:
    seg0, seg1 = tmp_path / "pages-00.warc.gz", tmp_path / "pages-01.warc.gz"
    _write(seg0, ["http://a/1", "http://a/2", "http://a/3"])
    data = seg0.read_bytes()
    seg0.write_bytes(data[: len(data) - 40])  # kill -9 in the middle of the last record
    _write(seg1, ["http://a/4"])
    pages = archived_pages([seg0, seg1, tmp_path / "missing.warc.gz"])
    assert {"http://a/1", "http://a/2", "http://a/4"} <= set(pages)
    assert "http://a/3" not in pages
    assert pages["http://a/2"].body == b"<p>http://a/2</p>"


def test_frontier_caps_and_dedupe() -> None:
    sf = parse_selector_data(
        {
            "schema_version": 1,
            "policy": {"basis": "robots"},
            "site": {"id": "s", "name": "s"},
            "version": 1,
            "fetch": {
                "start_urls": ["http://a.test/list"],
                "max_pages": 3,
                "max_depth": 1,
                "deny": ["/logout"],
                "pagination": {"next_xpath": "//a/@href", "max_pages": 2},
            },
            "page_types": {
                "p": {"match": ".", "fields": {"k": {"xpath": "//p", "type": "string"}}}
            },
            "key": ["k"],
        }
    )
    fr = Frontier(sf)
    st = fr.start()
    item = fr.pop(st)
    assert item is not None and item.url == "http://a.test/list"
    fr.finish(
        st,
        item,
        next_url="http://A.test:80/list?page=2#x",
        links=[
            "http://a.test/d/1",
            "http://a.test/d/1#dup",
            "http://a.test/logout",
            "http://elsewhere.test/x",
        ],
    )
    assert [i.url for i in st.frontier] == ["http://a.test/list?page=2", "http://a.test/d/1"]
    assert {s[0] for s in st.skipped} == {"http://a.test/logout", "http://elsewhere.test/x"}
    nxt = fr.pop(st)
    assert nxt is not None
    fr.finish(st, nxt, next_url="http://a.test/list?page=3", links=["http://a.test/d/2"])
    assert any("pagination max_pages" in c for c in st.capped)  # listing page 3 not queued
    d1 = fr.pop(st)
    assert d1 is not None and d1.depth == 1
    fr.finish(st, d1, links=["http://a.test/d/1/more"])  # depth 2 > max_depth 1
    assert not fr.complete(st)
    assert fr.pop(st) is not None or len(st.done) >= 3


def test_url_mode_is_never_complete() -> None:
    sf = parse_selector_data(
        {
            "schema_version": 1,
            "policy": {"basis": "robots"},
            "site": {"id": "s", "name": "s"},
            "version": 1,
            "fetch": {"start_urls": ["http://a.test/list"]},
            "page_types": {
                "p": {"match": ".", "fields": {"k": {"xpath": "//p", "type": "string"}}}
            },
            "key": ["k"],
        }
    )
    fr = Frontier(sf, only_urls=["http://a.test/x"])
    st = fr.start()
    item = fr.pop(st)
    assert item is not None and item.via == "url"
    fr.finish(st, item, next_url="http://a.test/y", links=["http://a.test/z"])
    assert st.frontier == [] and not fr.complete(st)
