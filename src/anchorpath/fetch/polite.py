"""The runner's only way to the network: a polite, safe, archiving HTTP fetcher.

Every request goes through the :class:`~anchorpath.fetch.pacing.OriginGate` of its origin:
robots.txt first, then pacing, then the network-safety checks, then the request itself, then the
WARC archive, and only then decoding. Refusals stop the origin for the rest of the run.

Policy summary (see the issue "polite fetcher" for the reasons):

* robots.txt 2xx: parse first ``robots_max_bytes``; 404/410: allow all; other 4xx (401, 403,
  429, ...): **stop the origin** (stricter than RFC 9309, which would allow all);
  5xx / network error / too many redirects: complete disallow, retried later in the run
  (a cached copy younger than 24 h is used instead when there is one).
* 429/503: wait as ``Retry-After`` says (never earlier), else exponential backoff with full
  jitter; ``circuit_429_threshold`` consecutive 429s stop the origin (``circuit-open``).
* 408/500/502/504, timeouts, connection and DNS errors: at most ``max_attempts`` attempts.
* 401/403, login walls, CAPTCHA pages: stop the origin. Never retried in another guise.
* 404/410: the URL is dropped (FetchFailed), not retried.
* A wait that would pass the URL's or the run's deadline raises DeadlineExceeded at once.
"""

from __future__ import annotations

import logging
import queue
import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx

from anchorpath._config import DEFAULT_CONTACT, FetchConfig
from anchorpath._errors import (
    DeadlineExceeded,
    FetchError,
    FetchFailed,
    OriginBlocked,
    RobotsDisallowed,
    UnsafeRequest,
)
from anchorpath._version import __version__
from anchorpath.fetch.browser_page import BrowserFetch
from anchorpath.fetch.cache import KeyValueStore, open_store
from anchorpath.fetch.events import FetchCounters, FetchEvent
from anchorpath.fetch.exchange import Exchanger
from anchorpath.fetch.http import (
    HttpClient,
)
from anchorpath.fetch.http_page import PageGetter
from anchorpath.fetch.origins import Origins, SharedPoliteness
from anchorpath.fetch.pacing import PacingPolicy
from anchorpath.fetch.result import FetchResult, with_elapsed
from anchorpath.fetch.robots import RobotsFile, product_token
from anchorpath.fetch.robots_policy import RobotsGate, RobotsSeen
from anchorpath.fetch.safety import Resolver, check_url, origin_of
from anchorpath.fetch.warc import WarcWriter

__all__ = ["PoliteFetcher", "user_agent_string"]

log = logging.getLogger(__name__)


def user_agent_string(config: FetchConfig) -> str:
    """``anchorpath/<version> (+<info URL>; <contact>)``."""
    return f"{config.user_agent_product}/{__version__} (+{config.info_url}; {config.contact})"


class PoliteFetcher:
    """The real fetcher: httpx, one gate per origin, robots first, WARC before parsing.

    Thread-safe. ``clock``/``sleep``/``wall_clock`` are injectable for tests; ``transport``
    replaces httpx's transport; ``resolver`` replaces DNS (``(host, port) -> [addresses]``).
    Warns once when ``config.contact`` is still the placeholder. ``shared`` makes this fetcher
    use a politeness registry shared with other fetchers (``run --all``: one pace and one
    robots.txt per origin across sites, one global cap on requests in flight).
    """

    def __init__(
        self,
        config: FetchConfig,
        *,
        warc: WarcWriter | None = None,
        cache_dir: str | None = None,
        store: KeyValueStore | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        wall_clock: Callable[[], float] = time.time,
        on_event: Callable[[FetchEvent], None] | None = None,
        rng: random.Random | None = None,
        transport: httpx.BaseTransport | None = None,
        resolver: Resolver | None = None,
        shared: SharedPoliteness | None = None,
    ) -> None:
        self.config = config
        self.user_agent = user_agent_string(config)
        self.token = product_token(config.user_agent_product) or "anchorpath"
        self.warc = warc
        self.store = store if store is not None else open_store(cache_dir)
        self._own_store = store is None
        self.counters = FetchCounters()
        self._clock = clock
        self._started = clock()
        self._closed = False
        if config.contact == DEFAULT_CONTACT:
            log.warning(
                "fetch.contact is still the placeholder %r: set a real contact so site owners "
                "can reach you",
                DEFAULT_CONTACT,
            )
        # The parts share the clocks, counters and per-origin state; see the map at the top.
        if shared is not None:  # run --all: one registry for every site's fetcher
            slots = shared.slots
            table = shared.table
        else:
            slots = threading.BoundedSemaphore(max(1, config.global_concurrency))
            table = None
        policy = PacingPolicy(config.min_delay, config.delay_factor, config.max_delay)
        self._origins = Origins(
            policy, clock=clock, sleep=sleep, on_event=on_event, started=self._started, table=table
        )
        self._http = HttpClient(
            config, self.user_agent, clock=clock, transport=transport, resolver=resolver
        )
        exchanger = Exchanger(
            config,
            self._http,
            self._origins,
            self.counters,
            warc=warc,
            clock=clock,
            resolver=resolver,
            slots=slots,
        )
        self._robots = RobotsGate(
            config,
            self.store,
            self.token,
            self._origins,
            exchanger,
            clock=clock,
            wall_clock=wall_clock,
        )
        self._pages = PageGetter(
            config,
            self.store,
            self._origins,
            exchanger,
            self.counters,
            clock=clock,
            wall_clock=wall_clock,
            rng=rng or random.Random(),
        )
        self._browser = BrowserFetch(
            config,
            self.user_agent,
            self._origins,
            self._robots,
            self.counters,
            warc=warc,
            clock=clock,
            wall_clock=wall_clock,
            resolver=resolver,
            slots=slots,
        )

    # ---------------------------------------------------------------- public API

    def fetch(
        self,
        url: str,
        *,
        conditional: bool = True,
        render: str = "http",
        deadline: float | None = None,
        wait_for: str | None = None,
    ) -> FetchResult:
        """Fetch ``url`` politely. ``conditional=False`` (or config ``conditional=false``) sends
        no validators; callers fetch the first page of a listing that way. ``render="browser"``
        renders with Chromium, waiting for the XPath ``wait_for`` (the page type's anchor) once
        the DOM is parsed instead of for network idleness. ``deadline`` is an absolute time on
        the fetcher's clock.

        Raises RobotsDisallowed, OriginBlocked, FetchFailed, DeadlineExceeded or UnsafeRequest.
        """
        if render not in ("http", "browser"):
            raise ValueError(f"render must be 'http' or 'browser', not {render!r}")
        self.counters.add("planned")
        begun = self._clock()
        limit = self._started + self.config.run_deadline
        if deadline is not None:
            limit = min(limit, deadline)
        try:
            result = self._fetch(
                url, conditional=conditional, render=render, deadline=limit, wait_for=wait_for
            )
        except RobotsDisallowed:
            self.counters.add("robots_blocked")
            raise
        except OriginBlocked:
            self.counters.add("blocked_origin")
            raise
        except DeadlineExceeded:
            self.counters.add("deadline_exceeded")
            raise
        except UnsafeRequest:
            self.counters.add("unsafe")
            raise
        except FetchFailed:
            self.counters.add("failed")
            raise
        return with_elapsed(result, self._clock() - begun)

    def fetch_many(
        self,
        urls: Iterable[str],
        *,
        conditional: bool = True,
        render: str = "http",
        deadline: float | None = None,
    ) -> Iterator[tuple[str, FetchResult | FetchError]]:
        """Fetch ``urls`` concurrently across origins (sequentially within one), yielding
        ``(url, result or error)`` as each finishes. In-flight requests never exceed
        ``global_concurrency``; threads waiting for their origin's turn do not count.
        """
        by_origin: dict[str, list[str]] = {}
        for url in urls:
            try:
                key = origin_of(url)
            except ValueError:
                key = "invalid"
            by_origin.setdefault(key, []).append(url)
        total = sum(len(v) for v in by_origin.values())
        if total == 0:
            return
        results: queue.Queue[tuple[str, FetchResult | BaseException]] = queue.Queue()
        stop = threading.Event()

        def work(batch: list[str]) -> None:
            for url in batch:
                if stop.is_set():
                    return
                try:
                    item: FetchResult | BaseException = self.fetch(
                        url, conditional=conditional, render=render, deadline=deadline
                    )
                except BaseException as exc:  # delivered to the consumer, never swallowed
                    item = exc
                results.put((url, item))

        workers = min(len(by_origin), max(self.config.global_concurrency, 32))
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="anchorpath-fetch")
        try:
            for batch in by_origin.values():
                pool.submit(work, batch)
            for _ in range(total):
                url, item = results.get()
                if isinstance(item, FetchError):
                    yield url, item
                elif isinstance(item, BaseException):
                    raise item
                else:
                    yield url, item
        finally:
            stop.set()
            pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        """Close the HTTP client, the browser (if launched), the WARC writer and the cache."""
        if self._closed:
            return
        self._closed = True
        self._http.close()
        self._browser.close()
        if self.warc is not None:
            self.warc.close()  # idempotent, so a caller's own ``with WarcWriter(...)`` is fine
        if self._own_store:
            self.store.close()

    def __enter__(self) -> PoliteFetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def robots_for(self, url: str, *, deadline: float | None = None) -> RobotsFile | None:
        """The robots.txt that governs ``url`` (fetched politely, cached), or None when the
        origin has none (404/410). Raises OriginBlocked, RobotsDisallowed (unreachable),
        UnsafeRequest or DeadlineExceeded like :meth:`fetch`.
        """
        check_url(url, max_length=self.config.max_url_length)
        limit = self._started + self.config.run_deadline
        if deadline is not None:
            limit = min(limit, deadline)
        state = self._origins.get(origin_of(url))
        with state.gate.hold(limit, url):
            self._origins.check_open(state, url)
            self._robots.ensure(state, limit)
            return self._robots.governing(state, url)

    def robots_seen(self, url: str) -> RobotsSeen | None:
        """The robots.txt ``url``'s origin was judged by so far (None: not asked yet). Never
        fetches."""
        return self._robots.seen(self._origins.get(origin_of(url)))

    # ---------------------------------------------------------------- one URL, with redirects

    def _fetch(
        self,
        url: str,
        *,
        conditional: bool,
        render: str,
        deadline: float,
        wait_for: str | None = None,
    ) -> FetchResult:
        check_url(url, max_length=self.config.max_url_length)
        current = url
        hops = 0
        while True:
            state = self._origins.get(origin_of(current))
            with state.gate.hold(deadline, current):
                self._origins.check_open(state, current)
                self._robots.ensure(state, deadline)
                self._robots.check(state, current)
                if render == "browser":
                    return self._browser.fetch(state, url, current, deadline, wait_for)
                outcome = self._pages.get(state, url, current, deadline, conditional, hops)
            if isinstance(outcome, FetchResult):
                return outcome
            hops += 1
            if hops > self.config.max_redirects:
                raise UnsafeRequest(
                    f"{url}: more than {self.config.max_redirects} redirects", url=url
                )
            current = outcome.location
            check_url(current, max_length=self.config.max_url_length)
