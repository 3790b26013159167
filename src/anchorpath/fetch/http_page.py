"""GET one page over plain HTTP: conditional validators, what each status means, retries.

* 2xx: content type checked, body decoded under the size cap, refusal pages (login walls,
  CAPTCHAs, see :func:`~anchorpath.fetch.walls.detect_refusal`) stop the origin; validators
  and the body are cached for the next conditional request.
* 304 with cached validators: the stored body comes back with ``not_modified=True``.
* 3xx with Location: a :class:`Redirect` for the caller, who checks and follows it.
* 401/403 stop the origin; 404/410 drop the URL; ``circuit_429_threshold`` 429s in a row stop
  the origin; 429/503 wait as ``Retry-After`` says, 408/500/502/504 and network errors back off,
  both for at most ``max_attempts`` attempts and never past the deadline.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from anchorpath._config import FetchConfig
from anchorpath._errors import DeadlineExceeded, FetchFailed
from anchorpath.fetch.cache import KeyValueStore
from anchorpath.fetch.events import FetchCounters
from anchorpath.fetch.exchange import Exchanger
from anchorpath.fetch.http import REDIRECTS, NetworkError, RawResponse, charset_of
from anchorpath.fetch.origins import Origins, OriginState
from anchorpath.fetch.pacing import backoff_delay, parse_retry_after
from anchorpath.fetch.result import FetchResult, count_ok
from anchorpath.fetch.safety import check_content_type, decode_body
from anchorpath.fetch.walls import detect_refusal

__all__ = ["RETRY_STATUS", "WAIT_STATUS", "PageGetter", "Redirect"]

RETRY_STATUS = {408, 500, 502, 504}
WAIT_STATUS = {429, 503}


@dataclass
class Redirect:
    """A redirect the caller should follow (already resolved against the request URL)."""

    location: str


class PageGetter:
    """Fetches pages through an :class:`Exchanger` and applies the status policy above.

    Validators and bodies for conditional requests live in ``store`` under
    ``("validators", url)``, the body zlib-compressed.
    """

    def __init__(
        self,
        config: FetchConfig,
        store: KeyValueStore,
        origins: Origins,
        exchanger: Exchanger,
        counters: FetchCounters,
        *,
        clock: Callable[[], float],
        wall_clock: Callable[[], float],
        rng: random.Random,
    ) -> None:
        self.config = config
        self.store = store
        self.origins = origins
        self.exchanger = exchanger
        self.counters = counters
        self._clock = clock
        self._wall = wall_clock
        self._rng = rng

    def get(
        self,
        state: OriginState,
        requested: str,
        url: str,
        deadline: float,
        conditional: bool,
        hops: int,
    ) -> FetchResult | Redirect:
        """GET ``url`` (reached from ``requested`` after ``hops`` redirects) until it succeeds,
        redirects, or fails for good. Raises OriginBlocked, FetchFailed, DeadlineExceeded or
        UnsafeRequest.
        """
        use_validators = conditional and self.config.conditional
        stored = self._validators(url) if use_validators else None
        attempt = 0
        while True:
            attempt += 1
            headers = _conditional_headers(stored)
            if attempt == 1 and hops == 0:
                self.counters.add("attempted")
            try:
                raw = self.exchanger.exchange(
                    state, url, deadline, headers, kind="request", attempt=attempt
                )
            except NetworkError as exc:
                self._retry_or_fail(state, url, deadline, attempt, None, str(exc), exc)
                continue
            status = raw.status
            gate = state.gate
            if status != 429:
                gate.consecutive_429 = 0
            if 200 <= status < 300:
                return self._success(state, requested, url, raw, attempt)
            if status == 304 and stored is not None:
                body = stored.get("body")
                if body is None:
                    stored = None  # validators without a body: fetch it again, unconditionally
                    attempt -= 1
                    continue
                self.counters.add("not_modified")
                count_ok(self.counters, attempt)
                merged = dict(stored.get("headers", {}))
                merged.update(raw.headers)
                return FetchResult(
                    url=requested,
                    final_url=url,
                    status=304,
                    headers=merged,
                    body=zlib.decompress(bytes(body)),
                    charset=charset_of(merged.get("content-type")),
                    not_modified=True,
                    elapsed=raw.ended - raw.started,
                )
            if status in REDIRECTS and raw.headers.get("location"):
                return Redirect(urljoin(url, raw.headers["location"]))
            if status in (401, 403):
                self.counters.add("auth_401_403")
                raise self.origins.block(
                    state, url, f"http-{status}", f"{url} answered HTTP {status}; origin stopped"
                )
            if status in (404, 410):
                self.counters.add("gone_404_410")
                raise FetchFailed(f"{url}: HTTP {status}", url=url, status=status)
            if status == 429:
                self._count_429(state, url)
            if status in WAIT_STATUS or status in RETRY_STATUS:
                retry_after = None
                if status in WAIT_STATUS:
                    retry_after = parse_retry_after(raw.headers.get("retry-after"), self._wall())
                    if retry_after is not None:
                        self.counters.add("server_requested_wait", retry_after)
                self._retry_or_fail(
                    state, url, deadline, attempt, retry_after, f"HTTP {status}", None, status
                )
                continue
            raise FetchFailed(f"{url}: HTTP {status}", url=url, status=status)

    def _count_429(self, state: OriginState, url: str) -> None:
        """One more 429 in a row; enough of them stop the origin (the circuit opens)."""
        gate = state.gate
        gate.consecutive_429 += 1
        if gate.consecutive_429 >= self.config.circuit_429_threshold:
            raise self.origins.block(
                state,
                url,
                "circuit-open",
                f"{url}: {gate.consecutive_429} consecutive HTTP 429; origin stopped",
            )

    def _validators(self, url: str) -> dict[str, Any] | None:
        entry = self.store.get("validators", url)
        return entry if isinstance(entry, dict) else None

    def _retry_or_fail(
        self,
        state: OriginState,
        url: str,
        deadline: float,
        attempt: int,
        retry_after: float | None,
        what: str,
        cause: BaseException | None,
        status: int | None = None,
    ) -> None:
        """Schedule the next attempt on the gate, or raise when attempts or time run out."""
        if attempt >= self.config.max_attempts:
            error = FetchFailed(
                f"{url}: {what}, giving up after {attempt} attempts", url=url, status=status
            )
            if cause is not None:
                raise error from cause
            raise error
        now = self._clock()
        if retry_after is not None:
            until, reason = now + retry_after, "retry-after"
        else:
            wait = backoff_delay(
                attempt, self.config.backoff_base, self.config.backoff_cap, self._rng
            )
            until, reason = now + wait, "backoff"
        state.gate.defer(until, reason)
        ready = max(until, state.gate.next_allowed_at)
        if ready > deadline:
            error2 = DeadlineExceeded(
                f"{url}: {what}; the next attempt ({reason}, {ready - now:.1f}s) would pass "
                "the deadline",
                url=url,
            )
            if cause is not None:
                raise error2 from cause
            raise error2

    def _success(
        self, state: OriginState, requested: str, url: str, raw: RawResponse, attempt: int
    ) -> FetchResult:
        body = decode_body(
            raw.raw,
            raw.headers.get("content-encoding"),
            max_bytes=self.config.max_decompressed_bytes,
            url=url,
        )
        check_content_type(
            url, raw.headers.get("content-type"), self.config.accept_content_types, body
        )
        refusal = detect_refusal(requested, url, raw.headers, body)
        if refusal is not None:
            self.counters.add(refusal.counter)
            raise self.origins.block(
                state,
                url,
                refusal.kind,
                f"{url} is a {refusal.kind} page ({refusal.evidence}); origin stopped",
            )
        headers = {k: v for k, v in raw.headers.items() if k != "content-encoding"}
        etag = raw.headers.get("etag")
        last_modified = raw.headers.get("last-modified")
        if etag or last_modified:
            self.store.set(
                "validators",
                url,
                {
                    "etag": etag,
                    "last_modified": last_modified,
                    "headers": headers,
                    "body": zlib.compress(body, 6),
                },
            )
        count_ok(self.counters, attempt)
        return FetchResult(
            url=requested,
            final_url=url,
            status=raw.status,
            headers=headers,
            body=body,
            charset=charset_of(headers.get("content-type")),
            not_modified=False,
            elapsed=raw.ended - raw.started,
        )


def _conditional_headers(stored: Mapping[str, Any] | None) -> dict[str, str]:
    """``If-None-Match`` / ``If-Modified-Since`` from the validators of the last 2xx answer."""
    headers: dict[str, str] = {}
    if stored is not None:
        if stored.get("etag"):
            headers["If-None-Match"] = str(stored["etag"])
        if stored.get("last_modified"):
            headers["If-Modified-Since"] = str(stored["last_modified"])
    return headers
