"""A fake :class:`~anchorpath.fetch.protocol.Fetcher` for tests, answering from routes and
archiving every answer to WARC like the real one (httpx's ``MockTransport`` is the model).

    fetcher = MockFetcher({"http://x/a": b"<p>hi</p>", "http://x/b": (503, {}, b"")})
    run_site(options, fetcher_factory=MockFetcher.factory(routes))

A route is the body of a ``200 text/html; charset=utf-8`` answer, a ``(status, headers, body)``
triple, a ready :class:`~anchorpath.fetch.result.FetchResult`, or a ``FetchError`` to raise
without any response (a network error); ``routes`` is a mapping (unknown URLs answer 404) or a
callable from URL to route. Statuses raise what the polite fetcher raises
(401/403 → ``OriginBlocked``, other non-2xx → ``FetchFailed``). ``calls`` records every
``(url, conditional, render)``; ``after(result)`` runs once a page is archived, before it is
returned (a test can stand in for ``kill -9`` there).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from http import HTTPStatus
from pathlib import Path

from anchorpath._config import FetchConfig
from anchorpath._errors import FetchError, FetchFailed, OriginBlocked
from anchorpath.fetch.events import FetchCounters, FetchEvent
from anchorpath.fetch.http import charset_of
from anchorpath.fetch.protocol import FetcherFactory
from anchorpath.fetch.result import FetchResult
from anchorpath.fetch.robots_policy import RobotsSeen
from anchorpath.fetch.warc import WarcWriter

__all__ = ["MockFetcher", "MockRoute", "Route"]

MockRoute = tuple[int, Mapping[str, str], bytes]
#: What a URL answers: an HTML body (200), ``(status, headers, body)``, a FetchResult, or a
#: FetchError raised with no response at all.
Route = bytes | MockRoute | FetchResult | FetchError

_HTML = {"Content-Type": "text/html; charset=utf-8"}


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


class MockFetcher:
    """Answers from ``routes``; archives every answer to ``warc`` when given."""

    def __init__(
        self,
        routes: Mapping[str, Route] | Callable[[str], Route],
        *,
        warc: WarcWriter | None = None,
        after: Callable[[FetchResult], None] | None = None,
    ) -> None:
        self.routes = routes
        self.warc = warc
        self.after = after
        self.calls: list[tuple[str, bool, str]] = []
        self._counters = FetchCounters()

    @property
    def counters(self) -> FetchCounters:
        return self._counters

    @classmethod
    def factory(
        cls,
        routes: Mapping[str, Route] | Callable[[str], Route],
        *,
        after: Callable[[FetchResult], None] | None = None,
        made: list[MockFetcher] | None = None,
    ) -> FetcherFactory:
        """A run's fetcher factory: one MockFetcher per run, archiving to the run's WARC;
        each one made is appended to ``made`` (to look at its ``calls`` afterwards)."""

        def make(
            config: FetchConfig,
            warc_path: Path,
            cache_dir: Path,
            on_event: Callable[[FetchEvent], None],
        ) -> MockFetcher:
            fetcher = cls(routes, warc=WarcWriter(warc_path), after=after)
            if made is not None:
                made.append(fetcher)
            return fetcher

        return make

    def _answer(self, url: str) -> Route:
        if callable(self.routes):
            return self.routes(url)
        return self.routes.get(url, (404, {}, b""))

    def fetch(
        self,
        url: str,
        *,
        conditional: bool = True,
        render: str = "http",
        wait_for: str | None = None,
    ) -> FetchResult:
        self.calls.append((url, conditional, render))
        self._counters.add("planned")
        self._counters.add("attempted")
        self._counters.add("requests")
        answer = self._answer(url)
        headers: Mapping[str, str]
        if isinstance(answer, FetchError):
            self._counters.add("network_errors")
            self._counters.add("failed")
            raise answer
        if isinstance(answer, FetchResult):
            result = answer
            status, headers, body = answer.status, dict(answer.headers), answer.body
        else:
            status, headers, body = (200, _HTML, answer) if isinstance(answer, bytes) else answer
            lowered = {k.lower(): v for k, v in headers.items()}
            result = FetchResult(
                url=url,
                final_url=url,
                status=status,
                headers=lowered,
                body=body,
                charset=charset_of(lowered.get("content-type")),
                not_modified=False,
                elapsed=0.0,
            )
        if self.warc is not None:
            self.warc.write_exchange(
                url=url,
                method="GET",
                request_headers=[],
                status=status,
                reason=_reason(status),
                response_headers=list(headers.items()),
                payload=body,
            )
        if status in (401, 403):
            self._counters.add("auth_401_403")
            raise OriginBlocked(f"{url}: HTTP {status}", url=url, reason=f"http-{status}")
        if not 200 <= status < 300:
            self._counters.add("gone_404_410" if status in (404, 410) else "failed")
            raise FetchFailed(f"{url}: HTTP {status}", url=url, status=status)
        self._counters.add("ok_2xx")
        self._counters.add("ok_first_try")
        if self.after is not None:
            self.after(result)
        return result

    def fetch_many(
        self, urls: Iterable[str], *, conditional: bool = True, render: str = "http"
    ) -> Iterator[tuple[str, FetchResult | FetchError]]:
        for url in urls:
            try:
                yield url, self.fetch(url, conditional=conditional, render=render)
            except FetchError as exc:
                yield url, exc

    def robots_seen(self, url: str) -> RobotsSeen | None:
        """None: the mock answers every URL and reads no robots.txt."""
        return None

    def close(self) -> None:
        """Close the WARC segment (if any)."""
        if self.warc is not None:
            self.warc.close()

    def __enter__(self) -> MockFetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
