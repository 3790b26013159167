"""Sitemaps and feeds as URL sources, and sites read from their feed or JSON API: parsing
(index, gzip, caps, RSS, Atom), lastmod skipping over loopback, and a feed-only site end to
end (same store, events and drift gate)."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from pathlib import Path

import pytest

from anchorpath._errors import ExtractionError
from anchorpath.fetch.testing import FaultServer, ok
from anchorpath.runner.crawl.sources import read_source, unchanged_since
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.run_types import RunOptions, RunResult
from anchorpath.runner.store.database import Store
from anchorpath.selectors.load import parse_selector_data, save_selector_file

from ..conftest import fast

CAP = 1 << 20


def _urlset(entries: list[tuple[str, str | None]]) -> bytes:
    rows = "".join(
        f"<url><loc>{u}</loc>{f'<lastmod>{m}</lastmod>' if m else ''}</url>" for u, m in entries
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><urlset '
        f'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{rows}</urlset>'
    ).encode()


def test_sitemap_index_gzip_rss_atom_and_caps() -> None:
    index = (
        b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<sitemap><loc>http://x/s1.xml.gz</loc></sitemap></sitemapindex>"
    )
    assert read_source(index, "sitemap", max_bytes=CAP).sitemaps == ["http://x/s1.xml.gz"]
    packed = gzip.compress(_urlset([("http://x/a", "2026-01-02"), ("http://x/b", None)]))
    assert read_source(packed, "sitemap", max_bytes=CAP).pages == [
        ("http://x/a", "2026-01-02"),
        ("http://x/b", None),
    ]
    with pytest.raises(ExtractionError, match="larger than"):
        read_source(gzip.compress(b" " * 5000), "sitemap", max_bytes=1000)  # a bomb stops
    rss = b"<rss><channel><item><title>t</title><link>http://x/1</link></item></channel></rss>"
    assert read_source(rss, "feed", max_bytes=CAP).pages == [("http://x/1", None)]
    atom = (
        b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><link rel="self" href="http://x/s"/>'
        b'<link href="http://x/2"/><updated>2026-01-01T00:00:00Z</updated></entry></feed>'
    )
    assert read_source(atom, "feed", max_bytes=CAP).pages == [
        ("http://x/2", "2026-01-01T00:00:00Z")
    ]
    with pytest.raises(ExtractionError, match="not a sitemap"):
        read_source(rss, "sitemap", max_bytes=CAP)
    entity = b'<!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/passwd">]><urlset><url><loc>&e;</loc></url></urlset>'
    assert "root:" not in str(read_source(entity, "sitemap", max_bytes=CAP).pages)


def test_unchanged_since() -> None:
    since = "2026-11-30T06:00:00.000000Z"
    assert unchanged_since("2026-11-29", since) and unchanged_since("2026-11-30T14:00+09:00", since)
    assert not unchanged_since("2026-11-30T06:00:01Z", since)
    assert not unchanged_since(None, since) and not unchanged_since("soon", since)
    assert not unchanged_since("2026-11-29", None)


def _site(tmp_path: Path, data: dict) -> Path:  # type: ignore[type-arg]
    sel = tmp_path / "selectors"
    sel.mkdir(exist_ok=True)
    for pt in data["page_types"].values():
        for spec in pt["fields"].values():
            spec.setdefault("type", "string")
    sf = parse_selector_data(data)
    save_selector_file(sf, sel / f"{sf.site.id}.json")
    return sel


def _run(server: FaultServer, tmp_path: Path, site: str) -> RunResult:
    return run_site(
        RunOptions(site, tmp_path / "selectors", tmp_path / "state", base_url=server.base_url,
                   settings=fast())
    )  # fmt: skip


def _article(title: str) -> bytes:
    return f"<html><body><h1>{title}</h1><p>text</p></body></html>".encode()


def test_a_sitemap_with_lastmod_drives_a_run_and_skips_unchanged_pages(tmp_path: Path) -> None:
    titles = {1: "Storm batters coast", 2: "Bank raises rates", 3: "Museum reopens"}
    _site(
        tmp_path,
        {
            "schema_version": 1,
            "site": {"id": "news", "name": "News"},
            "policy": {"basis": "sitemap"},
            "version": 1,
            "fetch": {
                "start_urls": ["http://127.0.0.1/"],
                "sitemaps": ["http://127.0.0.1/sitemap_index.xml"],
            },
            "page_types": {
                "home": {"match": "/$", "emit": False, "fields": {"x": {"xpath": "//title"}}},
                "article": {
                    "match": "/a/",
                    "fields": {
                        "headline": {"xpath": "//h1", "required": True,
                                     "examples": list(titles.values())}
                    },
                },
            },
            "key": ["headline"],
        },
    )  # fmt: skip
    old = "2020-01-01"
    routes = {f"/a/{i}": ok(_article(t)) for i, t in titles.items()}
    routes["/"] = ok(b"<html><head><title>home</title></head><body></body></html>")
    with FaultServer(routes) as server:
        index = (
            '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap>'
            f"<loc>{server.url('/s1.xml.gz')}</loc></sitemap></sitemapindex>"
        ).encode()
        server.route("/sitemap_index.xml", ok(index, "application/xml"))

        def sitemap(changed: dict[int, str]) -> None:
            entries = [(server.url(f"/a/{i}"), changed.get(i, old)) for i in titles]
            server.route("/s1.xml.gz", ok(gzip.compress(_urlset(entries)), "application/x-gzip"))

        sitemap({})
        first = _run(server, tmp_path, "news")
        assert first.verdict == "ok", first.reason
        assert sorted(e.key for e in first.events) == sorted(titles.values())
        # the second day: only article 2 changed, and its lastmod says so
        server.route("/a/2", ok(_article("Bank cuts rates")))
        now = dt.datetime.now(dt.UTC).isoformat()
        sitemap({2: now})
        n = len(server.paths())
        second = _run(server, tmp_path, "news")
        fetched = server.paths()[n:]
    assert second.verdict == "ok", second.reason
    assert "/a/2" in fetched and "/a/1" not in fetched and "/a/3" not in fetched
    assert "/sitemap_index.xml" in fetched and "/s1.xml.gz" in fetched
    # (the key is the headline: the changed page's record is a new one)
    assert [(e.kind, e.key) for e in second.events] == [("new", "Bank cuts rates")]
    # the unchanged pages' records are unseen, never withdrawn
    assert not [e for e in second.events if e.kind == "withdrawn"]
    assert not second.complete
    with Store.in_state_dir(tmp_path / "state") as store:
        assert {"Storm batters coast", "Museum reopens"} <= set(store.current("news"))


RSS = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Notices</title>{items}</channel></rss>"""
ITEM = "<item><title>{t}</title><link>https://example.org/n/{i}</link><guid>n-{i}</guid><pubDate>Mon, 0{i} Dec 2026 06:00:00 GMT</pubDate></item>"


def _feed(items: dict[int, str]) -> bytes:
    return RSS.format(items="".join(ITEM.format(i=i, t=t) for i, t in items.items())).encode()


def test_a_feed_only_site_runs_end_to_end(tmp_path: Path) -> None:
    _site(
        tmp_path,
        {
            "schema_version": 1,
            "site": {"id": "notices", "name": "Notices"},
            "policy": {"basis": "feed"},
            "version": 1,
            "fetch": {"start_urls": ["http://127.0.0.1/feed.xml"]},
            "page_types": {
                "feed": {
                    "match": "/feed\\.xml$",
                    "format": "xml",
                    "record_root": "//item",
                    "fields": {
                        "guid": {"xpath": "guid", "required": True,
                                 "examples": ["n-1", "n-2", "n-3"]},
                        "title": {"xpath": "title", "examples": ["Rule A", "Rule B", "Rule C"]},
                        "link": {"xpath": "link", "type": "url"},
                    },
                }
            },
            "key": ["guid"],
        },
    )  # fmt: skip
    with FaultServer({}) as server:
        server.route("/feed.xml", ok(_feed({1: "Rule A", 2: "Rule B", 3: "Rule C"}),
                                      "application/rss+xml"))  # fmt: skip
        first = _run(server, tmp_path, "notices")
        server.route("/feed.xml", ok(_feed({2: "Rule B (amended)", 3: "Rule C", 4: "Rule D"}),
                                      "application/rss+xml"))  # fmt: skip
        second = _run(server, tmp_path, "notices")
    assert first.verdict == "ok", first.reason
    assert sorted(e.key for e in first.events) == ["n-1", "n-2", "n-3"]
    assert second.verdict == "ok", second.reason
    assert {(e.kind, e.key) for e in second.events} == {
        ("new", "n-4"),
        ("changed", "n-2"),
        ("withdrawn", "n-1"),
    }
    with Store.in_state_dir(tmp_path / "state") as store:
        assert store.current("notices")["n-2"].values["link"] == "https://example.org/n/2"
    report = json.loads((second.run_dir / "report.json").read_text(encoding="utf-8"))
    assert report["policy"]["basis"] == "feed"


def test_a_json_api_site_reads_fields_by_json_pointer(tmp_path: Path) -> None:
    _site(
        tmp_path,
        {
            "schema_version": 1,
            "site": {"id": "api", "name": "API"},
            "policy": {"basis": "api"},
            "version": 1,
            "fetch": {"start_urls": ["http://127.0.0.1/api/notices"]},
            "page_types": {
                "notices": {
                    "match": "/api/notices",
                    "format": "json",
                    "record_pointer": "/data/items",
                    "fields": {
                        "id": {"pointer": "/id", "required": True, "examples": ["7", "8"]},
                        "title": {"pointer": "/title"},
                        "tags": {"pointer": "/tags", "type": "list"},
                        "author": {"pointer": "/meta/author name"},
                    },
                }
            },
            "key": ["id"],
        },
    )  # fmt: skip
    body = {"data": {"items": [
        {"id": 7, "title": "First", "tags": ["a", "b"], "meta": {"author name": "Kim"}},
        {"id": 8, "title": "Second", "tags": [], "meta": {"author name": "Lee"}},
    ]}}  # fmt: skip
    with FaultServer({"/api/notices": ok(json.dumps(body).encode(), "application/json")}) as srv:
        r = _run(srv, tmp_path, "api")
    assert r.verdict == "ok", r.reason
    with Store.in_state_dir(tmp_path / "state") as store:
        current = store.current("api")
    assert current["7"].values == {"id": "7", "title": "First", "tags": ["a", "b"], "author": "Kim"}


def test_feed_items_are_fetched_as_pages(tmp_path: Path) -> None:
    titles = {1: "Storm batters coast", 2: "Bank raises rates"}
    _site(
        tmp_path,
        {
            "schema_version": 1,
            "site": {"id": "news", "name": "News"},
            "policy": {"basis": "feed"},
            "version": 1,
            "fetch": {"start_urls": ["http://127.0.0.1/"], "feeds": ["http://127.0.0.1/atom"]},
            "page_types": {
                "home": {"match": "/$", "emit": False, "fields": {"x": {"xpath": "//title"}}},
                "article": {
                    "match": "/a/",
                    "fields": {"headline": {"xpath": "//h1", "required": True,
                                            "examples": list(titles.values())}},
                },
            },
            "key": ["headline"],
        },
    )  # fmt: skip
    routes = {f"/a/{i}": ok(_article(t)) for i, t in titles.items()}
    routes["/"] = ok(b"<html><head><title>home</title></head><body></body></html>")
    with FaultServer(routes) as server:
        entries = "".join(f'<entry><link href="{server.url(f"/a/{i}")}"/></entry>' for i in titles)
        atom = f'<feed xmlns="http://www.w3.org/2005/Atom">{entries}</feed>'.encode()
        server.route("/atom", ok(atom, "application/atom+xml"))
        r = _run(server, tmp_path, "news")
        assert {"/atom", "/a/1", "/a/2"} <= set(server.paths())
    assert r.verdict == "ok", r.reason
    assert sorted(e.key for e in r.events) == sorted(titles.values())
