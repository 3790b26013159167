"""One crawl step of a run: fetch a page (or replay it from the run's WARC), extract it, and
add its records and signals to the checkpoint.

The fetcher is made on the first page that is not replayed, so a resumed run whose pages are
all archived opens no connection. It archives every page to the run's WARC segment before
returning it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lxml import etree

from anchorpath._config import FetchConfig
from anchorpath._errors import OriginBlocked, RobotsDisallowed
from anchorpath.fetch.events import FetchEvent
from anchorpath.fetch.http import charset_of
from anchorpath.fetch.polite import PoliteFetcher
from anchorpath.fetch.protocol import Fetcher
from anchorpath.fetch.walls import Wall, find_wall
from anchorpath.fetch.warc import WarcWriter
from anchorpath.runner.archive import ArchivedPage
from anchorpath.runner.crawl.frontier import CrawlItem
from anchorpath.runner.drift.template import template_fields, template_texts
from anchorpath.runner.model import Checkpoint, PageEntry, RecordEntry
from anchorpath.selectors.decode import charset_mismatch
from anchorpath.selectors.documents import parse_document
from anchorpath.selectors.evaluate import CompiledSelectors, PageResult, evaluate_page, parse_html
from anchorpath.selectors.model import PageType, SelectorFile

__all__ = [
    "ExtractedPage",
    "PageReader",
    "default_fetcher",
    "extract_page",
    "login_wall",
    "render_anchor",
    "site_config",
    "unreachable",
]


def default_fetcher(
    config: FetchConfig,
    warc_path: Path,
    cache_dir: Path,
    on_event: Callable[[FetchEvent], None],
) -> Fetcher:
    """The polite fetcher, archiving to ``warc_path`` (a :data:`FetcherFactory`)."""
    return PoliteFetcher(
        config, warc=WarcWriter(warc_path), cache_dir=str(cache_dir), on_event=on_event
    )


#: Media types of RSS/Atom feeds and gzipped sitemaps, taken for a site that reads them.
FEED_CONTENT_TYPES = (
    "application/rss+xml",
    "application/atom+xml",
    "application/rdf+xml",
    "application/x-gzip",
    "application/gzip",
)


def site_config(base: FetchConfig, sf: SelectorFile) -> FetchConfig:
    """Per-site politeness from the selector file: it may only slow the crawler down (and
    the media types of the feeds and sitemaps it reads)."""
    over: dict[str, Any] = {}
    for name, value in sf.fetch.politeness.items():
        current = getattr(base, name, None)
        if current is None:
            continue
        if name == "max_attempts":
            over[name] = min(int(current), int(value))
        else:
            over[name] = max(float(current), float(value))
    if (
        sf.fetch.sitemaps
        or sf.fetch.feeds
        or any(pt.format == "xml" for pt in sf.page_types.values())
    ):
        # feeds and (gzipped) sitemaps come as these types
        extra = [t for t in FEED_CONTENT_TYPES if t not in base.accept_content_types]
        over["accept_content_types"] = (*base.accept_content_types, *extra)
    return replace(base, **over) if over else base


_VALUE_TAIL = re.compile(r"/(@[\w:-]+|text\(\)(\[[^\]]*\])*)$")


def render_anchor(pt: PageType | None) -> str | None:
    """The XPath a browser render waits for on pages of ``pt``: its record root, else its
    first field whose XPath selects elements (a trailing ``/@attr`` or ``/text()`` dropped).
    None when there is nothing to wait for (then the renderer waits for ``load``)."""
    if pt is None:
        return None
    if pt.record_root:
        return pt.record_root
    for spec in pt.fields.values():
        expr = _VALUE_TAIL.sub("", spec.xpath.strip())
        if expr.startswith("/") and "(" not in expr.split("[", 1)[0]:
            return expr
    return None


def unreachable(exc: Exception) -> bool:
    """robots.txt could not be fetched at all (network error, 5xx): RFC 9309 makes that a
    complete disallow, but for the scheduler the site is down, not refusing us."""
    return isinstance(exc, RobotsDisallowed) and exc.reason == "unavailable"


def login_wall(doc: etree._Element, page: PageResult) -> Wall | None:
    """The wall a page that yielded no values is (see :mod:`anchorpath.fetch.walls`), or None.

    The fetcher already stops at certain walls; this second look runs after extraction with the
    page's own evidence: pages with values are never walls (many sites show a login box beside
    their content), and a page without values is a wall only when its form or challenge is the
    main content. Anything else — a redesign, a header login box over a moved headline — is
    left to the drift gate: ``drift``, never ``blocked``.
    """
    filled = any(any(v not in (None, "", []) for v in r.values.values()) for r in page.records)
    if filled:
        return None
    return find_wall(doc)


@dataclass(frozen=True)
class ExtractedPage:
    """One page's contribution to a run: its checkpoint entry, its records, and where the
    crawl goes next."""

    page: PageEntry
    records: list[RecordEntry]
    next_url: str | None
    links: tuple[str, ...]


def extract_page(
    compiled: CompiledSelectors,
    url: str,
    final_url: str,
    status: int,
    headers: Mapping[str, str],
    body: bytes,
    charset: str | None,
    *,
    via: str,
    source: str = "archive",
) -> ExtractedPage:
    """Parse and extract one page (no I/O): shared by live runs, resumes and ``replay``.
    ``via`` is how the crawl reached the page (``start``, ``next``, ``follow``, ``url``).

    Raises ``OriginBlocked`` for a login wall.
    """
    lower = {k.lower(): v for k, v in dict(headers).items()}
    cpt = compiled.page_type_for(final_url or url)
    fmt = cpt.spec.format if cpt is not None else "html"
    if fmt != "html":
        # a feed or a JSON API: data, with no wall or page template to look for
        pr = evaluate_page(compiled, parse_document(body, charset, fmt), final_url or url)
        texts = None
    else:
        doc = parse_html(body, charset, plain=True)
        pr = evaluate_page(compiled, doc, final_url or url)
        wall = login_wall(doc, pr)
        if wall is not None:
            raise OriginBlocked(
                f"{url}: {wall.kind} ({wall.evidence}) where the page's records should be",
                url=url,
                reason=wall.kind,
            )
        texts = template_texts(doc) if pr.records else None
    records = [
        RecordEntry(
            rec.page_type,
            rec.url,
            dict(rec.values),
            tuple(rec.problems),
            via=via,
            # fields whose value is the page's nav/header/footer text (for the drift gate)
            template=tuple(template_fields(rec.values, texts)) if texts else (),
        )
        for rec in pr.records
    ]
    page = PageEntry(
        url=url,
        final_url=final_url,
        status=status,
        etag=lower.get("etag"),
        last_modified=lower.get("last-modified"),
        sha256=hashlib.sha256(body).hexdigest(),
        page_type=pr.page_type,
        records=len(pr.records),
        record_root_count=pr.record_root_count,
        anchors_present=dict(pr.anchors_present),
        source=source,
        charset_note=charset_mismatch(body, charset or charset_of(lower.get("content-type"))),
        notes=pr.notes,
    )
    return ExtractedPage(page, records, pr.next_url, pr.links)


class PageReader:
    """Reads a run's pages: replays archived ones, fetches the rest with a fetcher made by
    ``make_fetcher`` on first use (``fetcher`` is None until then)."""

    def __init__(
        self,
        sf: SelectorFile,
        compiled: CompiledSelectors,
        make_fetcher: Callable[[], Fetcher],
        *,
        conditional: bool,
    ) -> None:
        self.sf = sf
        self.compiled = compiled
        self.make_fetcher = make_fetcher
        self.conditional = conditional
        self.fetcher: Fetcher | None = None

    def read(
        self, item: CrawlItem, archive: dict[str, ArchivedPage], cp: Checkpoint
    ) -> tuple[str | None, tuple[str, ...]]:
        """Fetch (or replay) one page, extract it and add its records to the checkpoint;
        returns the page's next URL and links. Raises ``OriginBlocked`` for a login wall."""
        archived = archive.get(item.url)  # a 2xx, or a 304 with the body it stands for
        headers: Mapping[str, str]
        if archived is not None:
            body, headers, final_url, status = (
                archived.body,
                archived.headers,
                archived.url,
                archived.status,
            )
            charset = None
            source = "archive"
        else:
            if self.fetcher is None:
                self.fetcher = self.make_fetcher()
            render = self.sf.fetch.render
            wait_for = (
                render_anchor(self.sf.page_type_for(item.url)) if render == "browser" else None
            )
            res = self.fetcher.fetch(
                item.url, conditional=self.conditional, render=render, wait_for=wait_for
            )
            if res.not_modified and not res.body:
                res = self.fetcher.fetch(
                    item.url, conditional=False, render=render, wait_for=wait_for
                )
            body, headers, final_url, status = res.body, res.headers, res.final_url, res.status
            charset = res.charset
            source = "fetch"
        out = extract_page(
            self.compiled,
            item.url,
            final_url,
            status,
            headers,
            body,
            charset,
            via=item.via,
            source=source,
        )
        cp.records.extend(out.records)
        cp.pages.append(out.page)
        return out.next_url, out.links
