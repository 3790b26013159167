"""One polite request: wait for the origin's turn, check the address, send under the global
concurrency cap, count it, archive it to WARC and report it. The body comes back undecoded.

Both robots.txt and page requests go through :meth:`Exchanger.exchange`; what a status means
is decided by the caller (:mod:`~anchorpath.fetch.robots_policy`,
:mod:`~anchorpath.fetch.http_page`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping

from anchorpath._config import FetchConfig
from anchorpath._errors import UnsafeRequest
from anchorpath.fetch.events import FetchCounters
from anchorpath.fetch.http import HttpClient, NetworkError, RawResponse
from anchorpath.fetch.origins import Origins, OriginState
from anchorpath.fetch.safety import Resolver, check_address
from anchorpath.fetch.warc import WarcWriter

__all__ = ["Exchanger"]


class Exchanger:
    """Sends single GETs through an origin's gate; shared by the robots and page paths.

    ``slots`` bounds the requests in flight across all origins (``global_concurrency``).
    """

    def __init__(
        self,
        config: FetchConfig,
        http: HttpClient,
        origins: Origins,
        counters: FetchCounters,
        *,
        warc: WarcWriter | None,
        clock: Callable[[], float],
        resolver: Resolver | None,
        slots: threading.BoundedSemaphore,
    ) -> None:
        self.config = config
        self.http = http
        self.origins = origins
        self.counters = counters
        self.warc = warc
        self._clock = clock
        self._resolver = resolver
        self.slots = slots

    def exchange(
        self,
        state: OriginState,
        url: str,
        deadline: float,
        extra_headers: Mapping[str, str],
        *,
        kind: str,
        attempt: int = 1,
    ) -> RawResponse:
        """Send one GET through the origin's gate; archive it; return it undecoded.

        ``kind`` is ``"robots"`` or ``"request"``. Raises NetworkError (retryable),
        UnsafeRequest (address check, or the body passed the byte cap) or DeadlineExceeded.
        """
        gate = state.gate
        with gate.turn(deadline, url) as ticket:
            if ticket.waited:
                self.counters.add("actual_wait", ticket.waited)
            addresses = check_address(
                url,
                allow_private=self.config.allow_private_networks,
                resolver=self._resolver,
                allow_link_local=self.config.allow_link_local,
            )
            with self.slots:
                started = self._clock()
                try:
                    raw, truncated = self.http.send(url, addresses, extra_headers, started)
                except NetworkError as exc:
                    ended = self._clock()
                    ticket.record(started=started, ended=ended, ok=False)
                    self.counters.add("requests")
                    self.counters.add("network_errors")
                    self.origins.emit(
                        kind,
                        url,
                        state,
                        started=started,
                        elapsed=ended - started,
                        waited=ticket.waited,
                        wait_reason=ticket.wait_reason,
                        attempt=attempt,
                        outcome="network-error",
                        detail=str(exc),
                    )
                    if exc.raw is not None and self.warc is not None:
                        self.archive(exc.raw, extra_headers, addresses, "length")
                    raise
            ticket.record(started=raw.started, ended=raw.ended, ok=200 <= raw.status < 400)
            if kind == "robots":
                gate.next_reason = "robots"  # the next request waits because robots.txt went first
        self.counters.add("requests")
        if kind == "robots":
            self.counters.add("robots_requests")
        if raw.status == 429:
            self.counters.add("too_many_429")
        elif raw.status >= 500:
            self.counters.add("server_5xx")
        if self.warc is not None:
            self.archive(raw, extra_headers, addresses, truncated)
        self.origins.emit(
            kind,
            url,
            state,
            status=raw.status,
            nbytes=len(raw.raw),
            started=raw.started,
            elapsed=raw.ended - raw.started,
            waited=ticket.waited,
            wait_reason=ticket.wait_reason,
            attempt=attempt,
            outcome="truncated" if truncated else "received",
        )
        if truncated:
            raise UnsafeRequest(
                f"{url}: response larger than {self.config.max_response_bytes} bytes "
                "(aborted while streaming)",
                url=url,
            )
        return raw

    def archive(
        self,
        raw: RawResponse,
        extra_headers: Mapping[str, str],
        addresses: Iterable[str],
        truncated: str | None,
    ) -> None:
        """Write the request/response pair to the WARC file (payload as received)."""
        assert self.warc is not None
        self.warc.write_exchange(
            url=raw.url,
            method="GET",
            request_headers=self.http.request_headers(raw.url, extra_headers),
            status=raw.status,
            reason=raw.reason,
            response_headers=raw.header_pairs,
            payload=raw.raw,
            truncated=truncated,
            ip=next(iter(addresses), None),
        )
