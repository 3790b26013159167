"""What a site offers besides its HTML pages, found while authoring: the sitemaps robots.txt
names (``Sitemap:`` lines) and a ``/sitemap.xml``, the feeds the seeds link to
(``<link rel=alternate type=application/rss+xml|atom+xml|feed+json|json>``), the JSON-LD types
they embed, and the JSON endpoints their scripts loaded while rendering (the browser's
network log). The session shows it, recommends the strongest source, and the file records it
in ``policy.discovery``; the choice of basis stays with the person.

Network use: only for seeds given as URLs, through the polite fetcher (robots.txt first, paced,
and ``/sitemap.xml`` only where robots.txt allows it)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urljoin, urlsplit

from lxml import etree

from anchorpath._errors import AnchorpathError
from anchorpath.authoring.seeds import SeedPage
from anchorpath.selectors.documents import xml_document
from anchorpath.selectors.evaluate import parse_html
from anchorpath.selectors.model import Discovery

if TYPE_CHECKING:  # the caller passes the fetcher
    from anchorpath.fetch.result import FetchResult
    from anchorpath.fetch.robots import RobotsFile

__all__ = ["SiteProbe", "describe_discovery", "discover", "recommend"]

_FEED_TYPES = (
    "application/rss+xml",
    "application/atom+xml",
    "application/feed+json",
    "application/json",
)


class SiteProbe(Protocol):
    """The fetcher calls discovery makes (the polite fetcher has them)."""

    def fetch(self, url: str, *, conditional: bool = True) -> FetchResult: ...

    def robots_for(self, url: str) -> RobotsFile | None: ...


def _strings(found: object) -> list[str]:
    return [str(x).strip() for x in found] if isinstance(found, list) else []


def _from_pages(pages: Sequence[SeedPage]) -> tuple[list[str], list[str], list[str]]:
    feeds: list[str] = []
    types: list[str] = []
    api: list[str] = []
    for page in pages:
        doc = parse_html(page.html, plain=True)
        base = page.url if page.url_known else ""
        found = doc.xpath("//link[@href and @type]")
        links = (
            [n for n in found if isinstance(n, etree._Element)] if isinstance(found, list) else []
        )
        for link in links:
            rel = str(link.get("rel") or "").lower().split()
            kind = str(link.get("type") or "").lower().split(";")[0].strip()
            if "alternate" in rel and kind in _FEED_TYPES:
                href = str(link.get("href"))
                feeds.append(urljoin(base, href) if base else href)
        for script in _strings(doc.xpath("//script[@type='application/ld+json']/text()")):
            try:
                data = json.loads(script)
            except ValueError:
                continue
            items = data if isinstance(data, list) else data.get("@graph", [data])
            for item in items if isinstance(items, list) else []:
                kind_ = item.get("@type") if isinstance(item, dict) else None
                for t in kind_ if isinstance(kind_, list) else [kind_]:
                    if isinstance(t, str):
                        types.append(t)
        api += [u for u in page.loaded if u.startswith(("http://", "https://"))]
    return list(dict.fromkeys(feeds)), list(dict.fromkeys(types)), list(dict.fromkeys(api))


def _is_sitemap(body: bytes) -> bool:
    try:
        root = xml_document(body)
    except AnchorpathError:
        return False
    return isinstance(root, etree._Element) and root.tag in ("urlset", "sitemapindex")


def _from_site(origin: str, probe: SiteProbe) -> tuple[list[str], list[str]]:
    named: list[str] = []
    found: list[str] = []
    try:
        robots = probe.robots_for(origin + "/")
    except AnchorpathError:
        robots = None
    if robots is not None:
        named = [str(u) for u in getattr(robots, "sitemaps", [])]
    candidate = origin + "/sitemap.xml"
    if candidate not in named:
        try:
            res = probe.fetch(candidate, conditional=False)
            if _is_sitemap(res.body):
                found.append(candidate)
        except AnchorpathError:
            pass  # no sitemap there (404), or robots.txt disallows it: nothing to report
    return named, found


def recommend(found: Discovery) -> str | None:
    """The source to prefer, with why: a feed, a sitemap, then JSON the pages load."""
    if found.feeds:
        return f"feed: collect the records from {found.feeds[0]} (basis: feed)"
    if found.robots_sitemaps or found.sitemaps:
        first = (found.robots_sitemaps or found.sitemaps)[0]
        return f"sitemap: take the page URLs from {first} (fetch.sitemaps; basis: sitemap)"
    if found.api:
        return (
            f"api: the pages load JSON from {found.api[0]}; if the site documents it as an "
            "API, collect that instead (basis: api)"
        )
    return None


def discover(pages: Sequence[SeedPage], probe: SiteProbe | None) -> Discovery:
    """What the seeds (and, with ``probe``, their site) offer besides HTML."""
    feeds, types, api = _from_pages(pages)
    named: list[str] = []
    found: list[str] = []
    if probe is not None:
        origins = {
            f"{urlsplit(p.url).scheme}://{urlsplit(p.url).netloc}"
            for p in pages
            if p.url.startswith(("http://", "https://"))
        }
        for origin in sorted(origins):
            a, b = _from_site(origin, probe)
            named += a
            found += b
    result = Discovery(
        robots_sitemaps=tuple(dict.fromkeys(named)),
        sitemaps=tuple(dict.fromkeys(found)),
        feeds=tuple(feeds),
        json_ld=tuple(types),
        api=tuple(api[:10]),
    )
    return replace(result, recommended=recommend(result))


def describe_discovery(found: Discovery) -> list[str]:
    """One line per kind of source, for the terminal."""

    def listed(items: Sequence[str]) -> str:
        return ", ".join(items[:3]) + (f" and {len(items) - 3} more" if len(items) > 3 else "")

    lines = [
        f"robots.txt Sitemap lines: {listed(found.robots_sitemaps) or 'none'}",
        f"/sitemap.xml: {listed(found.sitemaps) or 'none'}",
        f"feeds linked from the seeds: {listed(found.feeds) or 'none'}",
        f"JSON-LD types on the seeds: {listed(found.json_ld) or 'none'}",
        f"JSON the pages load: {listed(found.api) or 'none (or not rendered)'}",
    ]
    lines.append(f"recommended: {found.recommended or 'the HTML pages (nothing else found)'}")
    return lines
