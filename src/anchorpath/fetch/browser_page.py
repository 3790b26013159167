"""Fetching one page with ``render="browser"``: the same gate, robots.txt and limits as plain
HTTP, but the page is rendered by :class:`~anchorpath.fetch.browser.BrowserRenderer`, which is
launched lazily (Playwright is imported only then).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from anchorpath._config import FetchConfig
from anchorpath._errors import FetchFailed, UnsafeRequest
from anchorpath.fetch.events import FetchCounters
from anchorpath.fetch.http_page import WAIT_STATUS
from anchorpath.fetch.origins import Origins, OriginState
from anchorpath.fetch.pacing import parse_retry_after
from anchorpath.fetch.result import FetchResult, count_ok
from anchorpath.fetch.robots_policy import RobotsGate
from anchorpath.fetch.safety import Resolver, check_address, origin_of

if TYPE_CHECKING:  # Chromium (Playwright) is imported only when a page is rendered
    from anchorpath.fetch.browser import BrowserRenderer
from anchorpath.fetch.walls import detect_refusal
from anchorpath.fetch.warc import WarcWriter

__all__ = ["BrowserFetch"]


class BrowserFetch:
    """Renders pages in Chromium for the fetcher; the caller holds the origin's gate and has
    checked robots.txt. Sub-requests of a page are limited to its origin and robots.txt.
    """

    def __init__(
        self,
        config: FetchConfig,
        user_agent: str,
        origins: Origins,
        robots: RobotsGate,
        counters: FetchCounters,
        *,
        warc: WarcWriter | None,
        clock: Callable[[], float],
        wall_clock: Callable[[], float],
        resolver: Resolver | None,
        slots: threading.BoundedSemaphore,
    ) -> None:
        self.config = config
        self.user_agent = user_agent
        self.origins = origins
        self.robots = robots
        self.counters = counters
        self.warc = warc
        self._clock = clock
        self._wall = wall_clock
        self._resolver = resolver
        self._slots = slots
        self._browser: BrowserRenderer | None = None
        self._lock = threading.Lock()

    def close(self) -> None:
        """Stop Chromium if it was launched."""
        if self._browser is not None:
            self._browser.close()

    def _renderer(self) -> BrowserRenderer:
        with self._lock:
            if self._browser is None:
                from anchorpath.fetch.browser import BrowserRenderer

                self._browser = BrowserRenderer(
                    user_agent=self.user_agent,
                    timeout=self.config.total_timeout,
                    allow_request=self.allows,
                )
            return self._browser

    def allows(self, page_url: str, url: str) -> bool:
        """Sub-requests of a rendered page: same origin, http(s), allowed by robots.txt."""
        try:
            if origin_of(url) != origin_of(page_url):
                return False
        except ValueError:
            return False
        state = self.origins.get(origin_of(url))
        return self.robots.allows(state, url)

    def fetch(
        self,
        state: OriginState,
        requested: str,
        url: str,
        deadline: float,
        wait_for: str | None = None,
    ) -> FetchResult:
        """Render ``url`` (reached from ``requested``) and return the DOM as UTF-8 HTML.

        Raises OriginBlocked, FetchFailed, DeadlineExceeded, UnsafeRequest or BrowserError.
        """
        renderer = self._renderer()
        launch = renderer.start()  # outside the timed window: not the site's response time
        if launch:
            self.counters.add("browser_launch_seconds", launch)
        self.counters.add("attempted")
        gate = state.gate
        with gate.turn(deadline, url) as ticket:
            if ticket.waited:
                self.counters.add("actual_wait", ticket.waited)
            check_address(
                url,
                allow_private=self.config.allow_private_networks,
                resolver=self._resolver,
                allow_link_local=self.config.allow_link_local,
            )
            with self._slots:
                started = self._clock()
                try:
                    page = renderer.render(url, wait_for=wait_for)
                finally:
                    ended = self._clock()
            self.counters.add("rendered")
            self.counters.add("render_seconds", page.seconds)
            ok = page.status is not None and 200 <= page.status < 300
            ticket.record(started=started, ended=ended, ok=ok)
        self.counters.add("requests")
        status = page.status or 0
        self.origins.emit(
            "request",
            url,
            state,
            status=status,
            nbytes=len(page.html),
            started=started,
            elapsed=ended - started,
            waited=ticket.waited,
            wait_reason=ticket.wait_reason,
            render="browser",
            outcome="rendered",
            detail=f"{page.blocked} sub-requests blocked",
        )
        if self.warc is not None:
            record_id = None
            if page.status is not None:
                record_id = self.warc.write_exchange(
                    url=page.final_url,
                    method="GET",
                    request_headers=[("User-Agent", self.user_agent)],
                    status=status,
                    reason="",
                    payload=page.main_body,
                    response_headers=[
                        (k, v) for k, v in page.headers.items() if k != "content-encoding"
                    ],
                )
            self.warc.write_conversion(
                url=page.final_url,
                body=page.html.encode("utf-8"),
                content_type="text/html; charset=utf-8",
                refers_to=record_id,
            )
        if origin_of(page.final_url) != state.gate.origin:
            # Playwright does not route redirect hops, so a cross-origin redirect of the main
            # document is caught here, after the fact; nothing from that origin is returned.
            raise UnsafeRequest(
                f"{url}: browser was redirected to another origin ({page.final_url})", url=url
            )
        if status in (401, 403):
            self.counters.add("auth_401_403")
            raise self.origins.block(state, url, f"http-{status}", f"{url} answered HTTP {status}")
        if status in (404, 410):
            self.counters.add("gone_404_410")
            raise FetchFailed(f"{url}: HTTP {status}", url=url, status=status)
        if status == 429:
            self.counters.add("too_many_429")
        if not ok:
            if status in WAIT_STATUS:
                wait = parse_retry_after(page.headers.get("retry-after"), self._wall())
                if wait is not None:
                    gate.defer(ended + wait, "retry-after")
            raise FetchFailed(f"{url}: HTTP {status} (browser)", url=url, status=status)
        body = page.html.encode("utf-8")
        headers = dict(page.headers)
        headers["content-type"] = "text/html; charset=utf-8"
        refusal = detect_refusal(requested, page.final_url, headers, body)
        if refusal is not None:
            self.counters.add(refusal.counter)
            raise self.origins.block(
                state, url, refusal.kind, f"{url} is a {refusal.kind} page ({refusal.evidence})"
            )
        count_ok(self.counters, 1)
        return FetchResult(
            url=requested,
            final_url=page.final_url,
            status=status,
            headers=headers,
            body=body,
            charset="utf-8",
            not_modified=False,
            elapsed=ended - started,
            loaded=page.loaded,
        )
