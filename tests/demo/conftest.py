"""Shared helpers for the demo-site tests: loopback HTTP only, bounded timeouts."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from anchorpath.demo import DemoServer, selector_text
from anchorpath.selectors.evaluate import compile_selectors, evaluate_page, parse_html
from anchorpath.selectors.load import parse_selector_data


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes


def fetch(url: str, headers: dict[str, str] | None = None, method: str = "GET") -> Response:
    """One loopback request; HTTP errors are returned, not raised."""
    assert url.startswith("http://127.0.0.1:"), url
    req = urllib.request.Request(url, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return Response(
                resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
            )
    except urllib.error.HTTPError as exc:
        return Response(exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read())


@dataclass
class Crawl:
    list_records: list[dict[str, Any]] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    missing: list[tuple[str, ...]] = field(default_factory=list)
    list_urls: list[str] = field(default_factory=list)


def crawl(server: DemoServer, max_requests: int = 200) -> Crawl:
    """Walk the listing by rel=next and every detail link with the hand-written selector file."""
    sf = parse_selector_data(json.loads(selector_text(server.base_url)))
    compiled = compile_selectors(sf)
    out = Crawl()
    links: list[str] = []
    url: str | None = sf.fetch.start_urls[0]
    requests = 0
    while url:
        requests += 1
        assert requests <= max_requests
        resp = fetch(url)
        assert resp.status == 200, url
        page = evaluate_page(compiled, parse_html(resp.body, "euc-kr"), url)
        out.list_urls.append(url)
        out.list_records += [dict(r.values) for r in page.records]
        links += page.links
        url = page.next_url
    for link in dict.fromkeys(links):
        requests += 1
        assert requests <= max_requests
        resp = fetch(link)
        assert resp.status == 200, link
        page = evaluate_page(compiled, parse_html(resp.body, "euc-kr"), link)
        out.records += [dict(r.values) for r in page.records]
        out.missing += [r.missing for r in page.records]
    return out


@pytest.fixture
def demo() -> Any:
    with DemoServer(day=1) as server:
        yield server


@pytest.fixture
def crawl_site() -> Callable[[DemoServer], Crawl]:
    return crawl


@pytest.fixture
def http() -> Callable[..., Response]:
    return fetch
