"""URL sources besides links: sitemaps (``fetch.sitemaps``: URL sets and sitemap indexes,
gzipped or not, with ``lastmod``) and RSS/Atom feeds (``fetch.feeds``: item links). Pure:
the crawl fetches a source through the polite fetcher (so it is paced and archived like any
page) and hands the bytes here.

Caps: a source file is read up to ``max_bytes`` once decompressed (a gzip bomb stops there),
and at most :data:`MAX_URLS` URLs of one file are taken (the sitemap protocol's own limit);
the crawl's ``max_pages`` and ``max_depth`` bound the rest (an index nested deeper than
``max_depth`` is not followed)."""

from __future__ import annotations

import datetime as dt
import zlib
from dataclasses import dataclass, field

from lxml import etree

from anchorpath._errors import ExtractionError
from anchorpath.selectors.documents import xml_document

__all__ = ["MAX_URLS", "SourceLinks", "read_source", "unchanged_since"]

#: URLs taken from one sitemap or feed file (sitemaps.org: at most 50,000 per file).
MAX_URLS = 50_000


@dataclass(frozen=True)
class SourceLinks:
    """What a source file lists: pages (with their ``lastmod`` when given) and, for a
    sitemap index, the sitemaps it names."""

    pages: list[tuple[str, str | None]] = field(default_factory=list)
    sitemaps: list[str] = field(default_factory=list)
    capped: bool = False


def _gunzip(body: bytes, max_bytes: int) -> bytes:
    if not body.startswith(b"\x1f\x8b"):
        return body
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(body, max_bytes + 1)
    except zlib.error as exc:
        raise ExtractionError(f"corrupt gzip: {exc}") from exc
    if len(out) > max_bytes:
        raise ExtractionError(f"larger than {max_bytes} bytes once decompressed")
    return out


def _nodes(el: etree._Element, xpath: str) -> list[etree._Element]:
    found = el.xpath(xpath)
    return [n for n in found if isinstance(n, etree._Element)] if isinstance(found, list) else []


def _texts(el: etree._Element, xpath: str) -> list[str]:
    found = el.xpath(xpath)
    return [str(t).strip() for t in found] if isinstance(found, list) else []


def _string(el: etree._Element, xpath: str) -> str:
    return str(el.xpath(f"string({xpath})")).strip()


def read_source(body: bytes, kind: str, *, max_bytes: int) -> SourceLinks:
    """The links of a sitemap (``kind`` ``sitemap``) or feed (``feed``) file. Raises
    ExtractionError for a file that is not one."""
    doc = xml_document(_gunzip(body, max_bytes))
    root = doc.tag if isinstance(doc.tag, str) else ""
    pages: list[tuple[str, str | None]] = []
    nested: list[str] = []
    if kind == "sitemap":
        if root == "sitemapindex":
            nested = [t for t in _texts(doc, "//sitemap/loc/text()") if t]
        elif root == "urlset":
            for url in _nodes(doc, "//url"):
                loc = _string(url, "loc")
                if loc:
                    pages.append((loc, _string(url, "lastmod") or None))
        else:
            raise ExtractionError(f"not a sitemap (root element {root!r})")
    else:
        if root == "rss" or root == "RDF":
            for item in _nodes(doc, "//item"):
                link = _string(item, "link") or _string(item, "guid[not(@isPermaLink='false')]")
                if link:
                    pages.append((link, _string(item, "pubDate") or None))
        elif root == "feed":
            for entry in _nodes(doc, "//entry"):
                href = _string(entry, "link[@rel='alternate' or not(@rel)][1]/@href")
                if href:
                    pages.append((href, _string(entry, "updated") or None))
        else:
            raise ExtractionError(f"not an RSS or Atom feed (root element {root!r})")
    capped = len(pages) + len(nested) > MAX_URLS
    return SourceLinks(pages[:MAX_URLS], nested[:MAX_URLS], capped)


def _when(text: str) -> dt.datetime | None:
    """A W3C datetime (``2026-11-30``, ``2026-11-30T06:00:00+09:00``) in UTC, or None."""
    t = text.strip().replace("Z", "+00:00")
    try:
        when = dt.datetime.fromisoformat(t)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.astimezone(dt.UTC)


def unchanged_since(lastmod: str | None, since: str | None) -> bool:
    """Whether a sitemap page's ``lastmod`` says it did not change after ``since`` (the
    start of the last committed run, ISO 8601 UTC). No lastmod, an unreadable one or no
    earlier run: it may have changed."""
    if not lastmod or not since:
        return False
    when, before = _when(lastmod), _when(since)
    return when is not None and before is not None and when <= before
