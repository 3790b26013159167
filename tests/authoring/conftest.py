"""Authoring test helpers: the demo site served on loopback and crawled as a person collecting
seed pages would (list pages by pagination, then the detail pages they link to)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from anchorpath.selectors.evaluate import compile_selectors, evaluate_page, parse_html
from anchorpath.selectors.load import parse_selector_data
from anchorpath.selectors.model import SelectorFile


def _get(url: str) -> bytes:
    assert url.startswith("http://127.0.0.1"), url  # loopback only
    with urllib.request.urlopen(url, timeout=10) as resp:
        return bytes(resp.read())


def list_values(records: list[Any]) -> list[dict[str, Any]]:
    """Records' values for comparison. The hand-written list field ``detail_url``
    (``td/a[…][1]/@href``) yields one href per cell with a link, joined by a space; its first
    URL only is kept."""
    return [
        {
            k: (v.split()[0] if k == "detail_url" and isinstance(v, str) else v)
            for k, v in r.values.items()
        }
        for r in records
    ]


@dataclass
class DemoPages:
    """The hand-written demo selector file and pages crawled with it: (url, bytes)."""

    hand: SelectorFile
    list_pages: list[tuple[str, bytes]]
    details: list[tuple[str, bytes]]


@pytest.fixture
def demo_pages() -> Iterator[DemoPages]:
    """Day 1 of the demo site, served while the test runs: its first 4 list pages and the
    first 10 detail pages they link to."""
    from anchorpath.demo import selector_text
    from anchorpath.demo.server import DemoServer

    with DemoServer(day=1) as server:  # type: ignore[call-arg]
        hand = parse_selector_data(json.loads(selector_text(server.base_url.rstrip("/"))))
        compiled = compile_selectors(hand)
        list_pages: list[tuple[str, bytes]] = []
        detail_urls: list[str] = []
        url: str | None = hand.fetch.start_urls[0]
        while url and len(list_pages) < 4:
            body = _get(url)
            list_pages.append((url, body))
            page = evaluate_page(compiled, parse_html(body), url)
            detail_urls += [u for u in page.links if u not in detail_urls]
            url = page.next_url
        details = [(u, _get(u)) for u in detail_urls[:10]]
        yield DemoPages(hand, list_pages, details)
