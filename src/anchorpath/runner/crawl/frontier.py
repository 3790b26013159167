"""The crawl frontier of one run. Pure state, no I/O: the pipeline fetches, this decides what next.

A run starts from the selector file's start URLs (or exactly the ``--url`` pages), follows the
pagination link of listing pages and the ``follow`` links of page types, and stops at the caps:

* ``fetch.max_pages`` pages in total, ``pagination.max_pages`` listing pages per start URL,
  ``fetch.max_depth`` link hops from a start URL (pagination does not add depth: page 7 of a
  listing is still the listing);
* URLs outside ``allow`` (default: the start URLs' origins) or inside ``deny`` are not followed;
* URLs are normalised (``urls.normalize_url``) before dedupe, and trap-like URLs (too long,
  repeating path segments) are skipped.

A crawl is **complete** only when nothing was cut by a cap and it was not a ``--url`` run; the
pipeline additionally needs every page to have been fetched. Only a complete crawl may report
records as withdrawn.

The state (:class:`CrawlState`) is plain data and JSON round-trips, so it can be checkpointed
after each page and resumed after a crash.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from anchorpath.fetch.events import redact_url
from anchorpath.fetch.safety import has_credentials
from anchorpath.runner.crawl.urls import is_allowed, normalize_url, rewrite_origin, trap_reason
from anchorpath.selectors.model import SelectorFile

__all__ = ["CrawlItem", "CrawlState", "Frontier"]


@dataclass(frozen=True)
class CrawlItem:
    """A URL to fetch: how far from the start, and how it was reached."""

    url: str
    depth: int = 0
    via: str = "start"  # start | next | follow | url | sitemap | feed
    listing_page: int = 1  # position in the pagination chain (listing pages only)

    def to_dict(self) -> dict[str, Any]:
        return {"url": self.url, "depth": self.depth, "via": self.via, "page": self.listing_page}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CrawlItem:
        return cls(d["url"], d.get("depth", 0), d.get("via", "start"), d.get("page", 1))


@dataclass
class CrawlState:
    """Frontier (FIFO), URLs already queued, pages done, and what was cut or skipped."""

    frontier: list[CrawlItem] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    capped: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "frontier": [i.to_dict() for i in self.frontier],
            "seen": list(self.seen),
            "done": list(self.done),
            "skipped": [list(s) for s in self.skipped],
            "capped": list(self.capped),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CrawlState:
        return cls(
            frontier=[CrawlItem.from_dict(i) for i in d.get("frontier", [])],
            seen=list(d.get("seen", [])),
            done=list(d.get("done", [])),
            skipped=[(str(a), str(b)) for a, b in d.get("skipped", [])],
            capped=list(d.get("capped", [])),
        )


class Frontier:
    """Crawl rules of one selector file, applied to a :class:`CrawlState`.

    ``base_url`` rewrites the start URLs' origin (demo server on an ephemeral port, staging
    copy); allow/deny patterns are then still checked against the URL as the selector file
    knows it, so the same file works unchanged.
    """

    def __init__(
        self,
        sf: SelectorFile,
        *,
        base_url: str | None = None,
        only_urls: Sequence[str] = (),
        max_url_length: int = 2048,
    ) -> None:
        self.sf = sf
        self.base_url = base_url
        self.only_urls = tuple(only_urls)
        self.max_url_length = max_url_length
        self._drop = sf.fetch.drop_params
        first = sf.fetch.start_urls[0]
        parts = urlsplit(first)
        self._file_origin = f"{parts.scheme}://{parts.netloc}"

    # -- helpers ----------------------------------------------------------------------------

    def normalize(self, url: str) -> str:
        return normalize_url(url, self._drop)

    def _as_file_url(self, url: str) -> str:
        """The URL with the live origin mapped back to the selector file's origin."""
        if self.base_url and normalize_url(rewrite_origin(url, self.base_url)) == self.normalize(
            url
        ):
            return rewrite_origin(url, self._file_origin)
        return url

    def _reason_to_skip(self, url: str, depth: int) -> str | None:
        if depth > self.sf.fetch.max_depth:
            return f"deeper than max_depth {self.sf.fetch.max_depth}"
        trap = trap_reason(url, max_length=self.max_url_length)
        if trap:
            return trap
        f = self.sf.fetch
        file_url = self._as_file_url(url)
        if not is_allowed(file_url, allow=f.allow, deny=f.deny, start_urls=f.start_urls):
            return "outside the allowed URL patterns"
        return None

    # -- the state machine ------------------------------------------------------------------

    def start(self) -> CrawlState:
        """The initial state: start URLs (rewritten to ``base_url``), or exactly ``only_urls``."""
        state = CrawlState()
        if self.only_urls:
            items = [CrawlItem(self.normalize(u), 0, "url") for u in self.only_urls]
        else:
            items = [
                CrawlItem(self.normalize(rewrite_origin(u, self.base_url)), 0, "start")
                for u in self.sf.fetch.start_urls
            ]
            # URL sources (sitemaps, feeds): read first, their pages queued behind the starts
            items[:0] = [
                CrawlItem(self.normalize(rewrite_origin(u, self.base_url)), 0, via)
                for via, urls in (
                    ("sitemap", self.sf.fetch.sitemaps),
                    ("feed", self.sf.fetch.feeds),
                )
                for u in urls
            ]
        for item in items:
            if item.url not in state.seen:
                state.seen.append(item.url)
                state.frontier.append(item)
        return state

    def pop(self, state: CrawlState) -> CrawlItem | None:
        """The next URL to fetch, or None when the crawl is over (or the page cap is reached)."""
        if not state.frontier:
            return None
        if len(state.done) >= self.sf.fetch.max_pages:
            state.capped.append(
                f"max_pages {self.sf.fetch.max_pages} reached; {len(state.frontier)} URLs left"
            )
            state.frontier.clear()
            return None
        return state.frontier[0]

    def finish(
        self,
        state: CrawlState,
        item: CrawlItem,
        *,
        next_url: str | None = None,
        links: Iterable[str] = (),
    ) -> None:
        """Mark ``item`` done (it must be the head of the frontier) and queue what it led to."""
        if state.frontier and state.frontier[0] == item:
            state.frontier.pop(0)
        state.done.append(item.url)
        if item.via == "url":
            return  # --url mode: exactly the given pages
        seen = set(state.seen)
        pag = self.sf.fetch.pagination
        if next_url and pag is not None:
            url = self.normalize(next_url)
            if item.listing_page >= pag.max_pages:
                state.capped.append(f"pagination max_pages {pag.max_pages} reached at {url}")
            else:
                self._queue(state, seen, CrawlItem(url, item.depth, "next", item.listing_page + 1))
        for link in links:
            self._queue(state, seen, CrawlItem(self.normalize(link), item.depth + 1, "follow"))

    def queue_source(self, state: CrawlState, url: str, via: str, depth: int) -> None:
        """Queue a sitemap a sitemap index names (not a page: the allow/deny patterns, which
        are about pages, do not apply; the depth cap and the URL guards do)."""
        item = CrawlItem(self.normalize(url), depth, via)
        if item.url in state.seen:
            return
        reason = "deeper than max_depth" if depth > self.sf.fetch.max_depth else None
        reason = reason or trap_reason(item.url, max_length=self.max_url_length)
        if reason is None and has_credentials(item.url):
            reason = "URL carries credentials (user:password@), never sent"
        if reason:
            state.skipped.append((redact_url(item.url), reason))
            state.seen.append(redact_url(item.url))
            return
        state.seen.append(item.url)
        state.frontier.append(item)

    def _queue(self, state: CrawlState, seen: set[str], item: CrawlItem) -> None:
        if item.url in seen:
            return
        if has_credentials(item.url):
            # Never fetched, and never stored with its secret (checkpoint, report).
            shown = redact_url(item.url)
            state.skipped.append((shown, "URL carries credentials (user:password@), never sent"))
            seen.add(shown)
            state.seen.append(shown)
            return
        reason = self._reason_to_skip(item.url, item.depth)
        if reason:
            if reason.startswith("deeper"):
                state.capped.append(f"{item.url}: {reason}")
            else:
                state.skipped.append((item.url, reason))
            seen.add(item.url)
            state.seen.append(item.url)
            return
        seen.add(item.url)
        state.seen.append(item.url)
        state.frontier.append(item)

    def complete(self, state: CrawlState) -> bool:
        """True when the crawl ended on its own: no cap cut it, not a ``--url`` run."""
        return not self.only_urls and not state.capped and not state.frontier
