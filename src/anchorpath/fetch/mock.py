"""A fake :class:`~anchorpath.fetch.protocol.Fetcher` for tests, answering from routes
(httpx's ``MockTransport`` is the model)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from anchorpath._errors import FetchError, FetchFailed, OriginBlocked
from anchorpath.fetch.events import FetchCounters
from anchorpath.fetch.http import charset_of
from anchorpath.fetch.result import FetchResult

__all__ = ["MockFetcher", "MockRoute"]


MockRoute = tuple[int, Mapping[str, str], bytes]


class MockFetcher:
    """A fake :class:`Fetcher` for tests: ``MockFetcher({url: (status, headers, body)})`` or
    ``MockFetcher(callable)`` where the callable maps a URL to such a tuple (or a FetchResult).

    Unknown URLs answer 404. Statuses map to the real fetcher's errors (401/403 →
    OriginBlocked, other non-2xx → FetchFailed). ``calls`` records ``(url, conditional, render)``.
    """

    def __init__(
        self,
        routes: Mapping[str, MockRoute] | Callable[[str], MockRoute | FetchResult],
    ) -> None:
        self.routes = routes
        self.calls: list[tuple[str, bool, str]] = []
        self.counters = FetchCounters()

    def fetch(self, url: str, *, conditional: bool = True, render: str = "http") -> FetchResult:
        self.calls.append((url, conditional, render))
        self.counters.add("planned")
        self.counters.add("attempted")
        if callable(self.routes):
            answer: MockRoute | FetchResult = self.routes(url)
        else:
            answer = self.routes.get(url, (404, {}, b""))
        if isinstance(answer, FetchResult):
            self.counters.add("ok_2xx")
            return answer
        status, headers, body = answer
        lowered = {k.lower(): v for k, v in headers.items()}
        if status in (401, 403):
            self.counters.add("auth_401_403")
            raise OriginBlocked(f"{url}: HTTP {status}", url=url, reason=f"http-{status}")
        if not 200 <= status < 300:
            self.counters.add("failed")
            raise FetchFailed(f"{url}: HTTP {status}", url=url, status=status)
        self.counters.add("ok_2xx")
        self.counters.add("ok_first_try")
        return FetchResult(
            url=url,
            final_url=url,
            status=status,
            headers=lowered,
            body=body,
            charset=charset_of(lowered.get("content-type")),
            not_modified=False,
            elapsed=0.0,
        )

    def fetch_many(
        self, urls: Iterable[str], *, conditional: bool = True, render: str = "http"
    ) -> Iterator[tuple[str, FetchResult | FetchError]]:
        for url in urls:
            try:
                yield url, self.fetch(url, conditional=conditional, render=render)
            except FetchError as exc:
                yield url, exc

    def close(self) -> None:
        """Nothing to release."""

    def __enter__(self) -> MockFetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
