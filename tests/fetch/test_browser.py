"""render="browser": Chromium behind the same robots gate and pacing; third parties blocked."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from anchorpath._config import FetchConfig
from anchorpath._errors import FetchFailed, RobotsDisallowed
from anchorpath.fetch.polite import PoliteFetcher
from anchorpath.fetch.testing import FaultServer, ok
from anchorpath.fetch.warc import WarcReader, WarcWriter

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian chromium not installed"),
]

CONFIG = replace(
    FetchConfig(),
    contact="t@example.org",
    min_delay=0.2,
    delay_factor=1.0,
    allow_private_networks=True,
)


@pytest.mark.slow
def test_rendered_dom_robots_and_third_party_blocked(tmp_path: Path) -> None:
    with FaultServer(
        {"/tracker.js": ok(b"window.tracked = 1;", "application/javascript")}
    ) as other:
        page = (
            "<html><body><div id=out>static</div>"
            f"<script src='{other.url('/tracker.js')}'></script>"
            "<script>fetch('/private/data').catch(() => {});"
            "document.getElementById('out').textContent = 'rendered by js';</script>"
            "</body></html>"
        ).encode()
        routes = {"/page": ok(page), "/private/data": ok(b"secret", "text/plain")}
        with FaultServer(routes, robots="User-agent: *\nDisallow: /private/\n") as site:
            warc_path = tmp_path / "b.warc.gz"
            with WarcWriter(warc_path) as warc, PoliteFetcher(CONFIG, warc=warc) as fetcher:
                result = fetcher.fetch(site.url("/page"), render="browser")
                assert b"rendered by js" in result.body
                assert result.charset == "utf-8" and result.status == 200
                with pytest.raises(RobotsDisallowed):
                    fetcher.fetch(site.url("/private/data"), render="browser")
                again = fetcher.fetch(site.url("/page"), render="browser")
                assert again.status == 200
            assert other.paths() == []  # third-party request never left the browser
            assert "/private/data" not in site.paths()
            pages = site.times("/page")
            assert pages[1] - pages[0] >= 0.2 - 0.02
            assert site.paths()[0] == "/robots.txt"
            rendered = dict(WarcReader(warc_path).rendered())
            assert b"rendered by js" in rendered[site.url("/page")]


@pytest.mark.slow
def test_waits_for_the_anchor_built_by_scripts_and_replays_scripts(tmp_path: Path) -> None:
    """domcontentloaded + the page type's anchor: a list built 300 ms after the DOM is parsed
    is in the rendered HTML; the site's script is fetched once per run; timings are counted."""
    script = (
        b"setTimeout(() => { const t = document.createElement('table'); t.id = 'late';"
        b" t.innerHTML = '<tr><td>row</td></tr>'; document.body.appendChild(t); }, 300);"
    )
    page = b"<html><body><p>shell</p><script src='/app.js'></script></body></html>"
    routes = {"/a": ok(page), "/b": ok(page), "/app.js": ok(script, "application/javascript")}
    with FaultServer(routes) as site, PoliteFetcher(CONFIG) as fetcher:
        for path in ("/a", "/b"):
            result = fetcher.fetch(
                site.url(path), render="browser", wait_for="//table[@id='late']//td"
            )
            assert b"<td>row</td>" in result.body
        assert site.paths().count("/app.js") == 1
        counters = fetcher.counters.as_dict()
        assert counters["rendered"] == 2
        assert 0 < counters["render_seconds"] < 20 and counters["browser_launch_seconds"] > 0


@pytest.mark.slow
def test_the_json_a_page_loads_is_reported_for_discovery(tmp_path: Path) -> None:
    page = (
        b"<html><body><div id=out>wait</div><script>"
        b"fetch('/api/items.json').then(r => r.json()).then(d => "
        b"{document.getElementById('out').textContent = d.title;});"
        b"fetch('/private/x.json').catch(() => {});</script></body></html>"
    )
    routes = {
        "/page": ok(page),
        "/api/items.json": ok(b'{"title": "from api"}', "application/json"),
    }
    with (
        FaultServer(routes, robots="User-agent: *\nDisallow: /private/\n") as site,
        PoliteFetcher(CONFIG) as fetcher,
    ):
        result = fetcher.fetch(site.url("/page"), render="browser", wait_for="//div[.='from api']")
    assert result.loaded == (site.url("/api/items.json"),)  # a robots-disallowed one is not


@pytest.mark.slow
def test_a_page_served_as_octet_stream_is_rendered_when_its_bytes_are_html() -> None:
    """Chromium takes application/octet-stream for a download; the page's bytes are HTML, so
    it is rendered as a browser without a type would (a binary body stays refused)."""
    page = b"<!doctype html><html><body><h1 id=t>static</h1><script>"
    page += b"document.getElementById('t').textContent = 'rendered';</script></body></html>"
    routes = {
        "/book/1": ok(page, "application/octet-stream"),
        "/file": ok(b"PK\x03\x04" + b"\x00" * 64, "application/octet-stream"),
    }
    with FaultServer(routes) as site, PoliteFetcher(CONFIG) as fetcher:  # type: ignore[arg-type]
        result = fetcher.fetch(site.url("/book/1"), render="browser")
        assert b"rendered" in result.body and result.status == 200
        with pytest.raises(FetchFailed, match="served as a download, and its bytes are not HTML"):
            fetcher.fetch(site.url("/file"), render="browser")
