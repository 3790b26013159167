"""The runner's only way to the network: a polite, safe, archiving HTTP fetcher.

Every request goes through the :class:`~anchorpath.runner.politeness.OriginGate` of its origin:
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

import ipaddress
import logging
import math
import queue
import random
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urljoin, urlsplit

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
from anchorpath.cache.store import KeyValueStore, open_store
from anchorpath.runner.events import FetchCounters, FetchEvent, redact_url
from anchorpath.runner.politeness import (
    OriginGate,
    PacingPolicy,
    backoff_delay,
    parse_retry_after,
)
from anchorpath.runner.robots import RobotsFile, parse_robots, product_token
from anchorpath.runner.safety import (
    DEFAULT_CONTENT_TYPES,
    Resolver,
    check_address,
    check_content_type,
    check_url,
    decode_body,
    detect_refusal,
    origin_of,
)
from anchorpath.runner.warc import WarcWriter

__all__ = [
    "FetchResult",
    "Fetcher",
    "MockFetcher",
    "PoliteFetcher",
    "user_agent_string",
]

log = logging.getLogger(__name__)

_REDIRECTS = {301, 302, 303, 307, 308}
_RETRY_STATUS = {408, 500, 502, 504}
_WAIT_STATUS = {429, 503}
_HTML_TYPES = ("text/html", "application/xhtml+xml")


@dataclass(frozen=True)
class FetchResult:
    """A successful fetch."""

    url: str  # URL requested
    final_url: str  # after redirects
    status: int  # 200..299; 304 only if not_modified
    headers: Mapping[str, str]  # lower-case names
    body: bytes  # decoded body; on 304 the previously stored body
    charset: str | None  # charset parameter of Content-Type, if any
    not_modified: bool
    elapsed: float  # seconds, including waits


class Fetcher(Protocol):
    """What the rest of anchorpath codes against."""

    def fetch(self, url: str, *, conditional: bool = True, render: str = "http") -> FetchResult:
        """Fetch one URL or raise a FetchError subclass."""
        ...


def user_agent_string(config: FetchConfig) -> str:
    """``anchorpath/<version> (+<info URL>; <contact>)``."""
    return f"{config.user_agent_product}/{__version__} (+{config.info_url}; {config.contact})"


def _charset(content_type: str | None) -> str | None:
    if not content_type:
        return None
    for param in content_type.split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'").lower()
    return None


def _join_headers(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in pairs:
        key = name.lower()
        out[key] = f"{out[key]}, {value}" if key in out else value
    return out


@dataclass
class _Raw:
    """One HTTP exchange as received (payload still content-encoded)."""

    url: str
    status: int
    reason: str
    header_pairs: list[tuple[str, str]]
    headers: dict[str, str]
    raw: bytes
    started: float
    ended: float


@dataclass
class _RobotsState:
    kind: str  # "parsed" | "allow-all" | "unreachable"
    robots: RobotsFile | None = None
    expires_wall: float = math.inf  # when a fresh fetch is due
    retry_at: float = 0.0  # for "unreachable": fetcher clock time of the next attempt
    attempts: int = 0
    detail: str = ""


@dataclass
class _Redirect:
    location: str


@dataclass
class _OriginState:
    gate: OriginGate
    robots: _RobotsState | None = None
    blocked: OriginBlocked | None = None
    robots_failures: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


class _NetworkError(Exception):
    """Internal: a retryable transport failure (timeout, connection, DNS)."""

    def __init__(
        self, message: str, raw: _Raw | None = None, *, connect_failed: bool = False
    ) -> None:
        super().__init__(message)
        self.raw = raw
        self.connect_failed = connect_failed


def _is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class PoliteFetcher:
    """The real fetcher: httpx, one gate per origin, robots first, WARC before parsing.

    Thread-safe. ``clock``/``sleep``/``wall_clock`` are injectable for tests; ``transport``
    replaces httpx's transport; ``resolver`` replaces DNS (``(host, port) -> [addresses]``).
    Set ``demo=True`` to silence the placeholder-contact warning.
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
        content_types: Iterable[str] = DEFAULT_CONTENT_TYPES,
        demo: bool = False,
    ) -> None:
        self.config = config
        self.user_agent = user_agent_string(config)
        self.token = product_token(config.user_agent_product) or "anchorpath"
        self.warc = warc
        self.store = store if store is not None else open_store(cache_dir)
        self._own_store = store is None
        self.counters = FetchCounters()
        self.content_types = tuple(content_types)
        self._clock = clock
        self._sleep = sleep
        self._wall = wall_clock
        self._on_event = on_event
        self._rng = rng or random.Random()
        self._resolver = resolver
        self._started = clock()
        self._origins: dict[str, _OriginState] = {}
        self._origins_lock = threading.Lock()
        self._global = threading.BoundedSemaphore(max(1, config.global_concurrency))
        self._policy = PacingPolicy(config.min_delay, config.delay_factor, config.max_delay)
        self._browser: Any = None
        self._browser_lock = threading.Lock()
        self._closed = False
        if config.contact == DEFAULT_CONTACT and not demo:
            log.warning(
                "fetch.contact is still the placeholder %r: set a real contact so site owners "
                "can reach you",
                DEFAULT_CONTACT,
            )
        self._client = httpx.Client(
            transport=transport,
            follow_redirects=False,
            trust_env=False,  # proxies from the environment would bypass the address checks
            timeout=httpx.Timeout(
                connect=config.connect_timeout,
                read=config.read_timeout,
                write=config.read_timeout,
                pool=config.total_timeout,
            ),
            headers={
                "User-Agent": self.user_agent,
                "Accept-Encoding": "gzip, deflate",
                "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.5",
            },
        )

    # ---------------------------------------------------------------- public API

    def fetch(
        self,
        url: str,
        *,
        conditional: bool = True,
        render: str = "http",
        deadline: float | None = None,
    ) -> FetchResult:
        """Fetch ``url`` politely. ``conditional=False`` (or config ``conditional=false``) sends
        no validators; callers fetch the first page of a listing that way. ``render="browser"``
        renders with Chromium. ``deadline`` is an absolute time on the fetcher's clock.

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
            result = self._fetch(url, conditional=conditional, render=render, deadline=limit)
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
        return _with_elapsed(result, self._clock() - begun)

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
        self._client.close()
        if self._browser is not None:
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
        state = self._state(origin_of(url))
        with state.gate.hold(limit, url):
            self._check_open(state, url)
            self._ensure_robots(state, limit)
            robots = state.robots
            if robots is None or robots.kind == "unreachable":
                detail = robots.detail if robots is not None else "not fetched"
                raise RobotsDisallowed(
                    f"{url}: robots.txt of {state.gate.origin} unavailable ({detail}): "
                    "complete disallow",
                    url=url,
                )
            return robots.robots

    def origin_status(self) -> dict[str, str]:
        """``{origin: "ok" | "blocked:<reason>" | "robots-unreachable"}`` for the report."""
        out: dict[str, str] = {}
        with self._origins_lock:
            states = dict(self._origins)
        for origin, state in states.items():
            if state.blocked is not None:
                out[origin] = f"blocked:{state.blocked.reason}"
            elif state.robots is not None and state.robots.kind == "unreachable":
                out[origin] = "robots-unreachable"
            else:
                out[origin] = "ok"
        return out

    # ---------------------------------------------------------------- the fetch pipeline

    def _state(self, origin: str) -> _OriginState:
        with self._origins_lock:
            state = self._origins.get(origin)
            if state is None:
                gate = OriginGate(origin, self._policy, clock=self._clock, sleep=self._sleep)
                state = _OriginState(gate=gate)
                self._origins[origin] = state
            return state

    def _fetch(self, url: str, *, conditional: bool, render: str, deadline: float) -> FetchResult:
        check_url(url, max_length=self.config.max_url_length)
        current = url
        hops = 0
        while True:
            state = self._state(origin_of(current))
            with state.gate.hold(deadline, current):
                self._check_open(state, current)
                self._ensure_robots(state, deadline)
                self._check_robots(state, current)
                if render == "browser":
                    return self._browser_fetch(state, url, current, deadline)
                outcome = self._get(state, url, current, deadline, conditional, hops)
            if isinstance(outcome, FetchResult):
                return outcome
            hops += 1
            if hops > self.config.max_redirects:
                raise UnsafeRequest(
                    f"{url}: more than {self.config.max_redirects} redirects", url=url
                )
            current = outcome.location
            check_url(current, max_length=self.config.max_url_length)

    def _check_open(self, state: _OriginState, url: str) -> None:
        if state.blocked is not None:
            self._emit("skip", url, state, outcome="blocked", detail=state.blocked.reason)
            raise OriginBlocked(
                f"{url}: origin {state.gate.origin} is blocked ({state.blocked.reason}): "
                f"{state.blocked}",
                url=url,
                reason=state.blocked.reason,
            )

    def _block(self, state: _OriginState, url: str, reason: str, message: str) -> OriginBlocked:
        error = OriginBlocked(message, url=url, reason=reason)
        state.blocked = error
        log.warning("origin %s stopped (%s): %s", state.gate.origin, reason, message)
        self._emit("warning", url, state, outcome="blocked", detail=f"{reason}: {message}")
        return error

    def _check_robots(self, state: _OriginState, url: str) -> None:
        robots = state.robots
        if robots is None:
            raise AssertionError("robots state missing after _ensure_robots")
        if robots.kind == "unreachable":
            self._emit("skip", url, state, outcome="disallowed", detail=robots.detail)
            raise RobotsDisallowed(
                f"{url}: robots.txt of {state.gate.origin} unavailable ({robots.detail}): "
                "complete disallow",
                url=url,
            )
        if robots.robots is None:
            return
        path = urlsplit(url).path
        if path == "/robots.txt":
            return  # fetching robots.txt itself is always allowed
        decision = robots.robots.decide(self.token, str(httpx.URL(url)))
        if not decision.allowed:
            self._emit("skip", url, state, outcome="disallowed", detail=str(decision.rule))
            raise RobotsDisallowed(
                f"{url}: disallowed by robots.txt line {decision.line}: {decision.rule}",
                url=url,
            )

    # ---------------------------------------------------------------- robots.txt

    def _ensure_robots(self, state: _OriginState, deadline: float) -> None:
        robots = state.robots
        now_wall = self._wall()
        if robots is not None:
            if robots.kind != "unreachable" and now_wall < robots.expires_wall:
                return
            if robots.kind == "unreachable" and self._clock() < robots.retry_at:
                return
        elif self._load_cached_robots(state, now_wall, fresh_only=True):
            return
        self._fetch_robots(state, deadline)

    def _load_cached_robots(
        self, state: _OriginState, now_wall: float, *, fresh_only: bool
    ) -> bool:
        entry = self.store.get("robots", state.gate.origin)
        if not isinstance(entry, dict):
            return False
        fetched = float(entry.get("fetched_wall", 0.0))
        expires = float(entry.get("expires_wall", 0.0))
        if now_wall - fetched > self.config.robots_cache_ttl or now_wall < fetched - 60:
            return False
        if fresh_only and now_wall >= expires:
            return False
        body = entry.get("body")
        if entry.get("kind") == "allow-all" or body is None:
            state.robots = _RobotsState("allow-all", None, expires_wall=expires)
        else:
            parsed = parse_robots(bytes(body), max_bytes=self.config.robots_max_bytes)
            state.robots = _RobotsState("parsed", parsed, expires_wall=expires)
            state.gate.crawl_delay = parsed.crawl_delay(self.token)
        if not fresh_only:
            # A stale-but-young copy stands in for an unreachable robots.txt: re-check later.
            state.robots.expires_wall = now_wall + self.config.backoff_cap
        return True

    def _fetch_robots(self, state: _OriginState, deadline: float) -> None:
        url = _robots_url(state.gate.origin)
        current = url
        detail = ""
        for _hop in range(self.config.max_redirects + 1):
            target = self._state(origin_of(current))
            try:
                if target is state:
                    raw = self._exchange(state, current, deadline, {}, kind="robots")
                else:
                    # A cross-origin robots redirect is still a request to that origin: it goes
                    # through that origin's gate (bounded wait, so it cannot deadlock forever).
                    bound = min(deadline, self._clock() + 2 * self.config.total_timeout)
                    with target.gate.hold(bound, current):
                        raw = self._exchange(target, current, deadline, {}, kind="robots")
            except _NetworkError as exc:
                detail = f"network error: {exc}"
                break
            except UnsafeRequest as exc:
                if target is state:
                    raise  # the origin itself is unsafe (e.g. a private address): refuse the URL
                detail = f"unsafe: {exc}"
                break
            status = raw.status
            if status in _REDIRECTS and raw.headers.get("location"):
                current = urljoin(current, raw.headers["location"])
                try:
                    check_url(current, max_length=self.config.max_url_length)
                except UnsafeRequest as exc:
                    detail = f"unsafe redirect: {exc}"
                    break
                detail = f"more than {self.config.max_redirects} redirects"
                continue
            if 200 <= status < 300:
                try:
                    body = decode_body(
                        raw.raw,
                        raw.headers.get("content-encoding"),
                        max_bytes=self.config.max_decompressed_bytes,
                        url=current,
                    )
                except UnsafeRequest as exc:
                    detail = f"unusable body: {exc}"
                    break
                self._robots_parsed(state, body, raw, url)
                return
            if status in (404, 410):
                self._robots_store(state, "allow-all", None, raw)
                state.robots = _RobotsState(
                    "allow-all", None, expires_wall=self._robots_expiry(raw)
                )
                return
            if 400 <= status < 500:
                # RFC 9309 would treat this as "no restrictions"; we are stricter on purpose:
                # a site that refuses its robots.txt gets a person's attention, not a crawl.
                raise self._block(
                    state,
                    url,
                    "robots-4xx",
                    f"{url} answered HTTP {status}; origin stopped, needs a person's review",
                )
            detail = f"HTTP {status}"
            break
        self._robots_unreachable(state, url, detail)

    def _robots_parsed(self, state: _OriginState, body: bytes, raw: _Raw, url: str) -> None:
        parsed = parse_robots(body, max_bytes=self.config.robots_max_bytes)
        content_type = raw.headers.get("content-type", "")
        if "html" in content_type.lower() and not any("HTML" in w for w in parsed.warnings):
            parsed.warnings.append("served as HTML, not text/plain (error page?)")
        for warning in parsed.warnings:
            log.warning("%s: %s", url, warning)
            self._emit("warning", url, state, outcome="robots-warning", detail=warning)
        state.robots = _RobotsState("parsed", parsed, expires_wall=self._robots_expiry(raw))
        crawl_delay = parsed.crawl_delay(self.token)
        state.gate.crawl_delay = crawl_delay
        if crawl_delay is not None:
            # The robots.txt request itself was paced before we knew the Crawl-delay.
            state.gate.delay = max(state.gate.delay, crawl_delay)
            state.gate.defer(raw.ended + crawl_delay, "pacing")
        self._robots_store(state, "parsed", body, raw)

    def _robots_expiry(self, raw: _Raw) -> float:
        return self._wall() + self._robots_ttl(raw)

    def _robots_ttl(self, raw: _Raw) -> float:
        ttl = self.config.robots_cache_ttl
        cache_control = raw.headers.get("cache-control", "").lower()
        for directive in cache_control.split(","):
            name, _, value = directive.strip().partition("=")
            if name in ("no-store", "no-cache"):
                return 0.0
            if name in ("max-age", "s-maxage") and value.strip().isdigit():
                ttl = min(ttl, float(value.strip()))
        return ttl

    def _robots_store(self, state: _OriginState, kind: str, body: bytes | None, raw: _Raw) -> None:
        ttl = self._robots_ttl(raw)
        if ttl <= 0:
            return
        now = self._wall()
        entry = {"kind": kind, "body": body, "fetched_wall": now, "expires_wall": now + ttl}
        # Kept up to the 24 h bound so an unreachable robots.txt can fall back to it.
        self.store.set("robots", state.gate.origin, entry, expire=self.config.robots_cache_ttl)

    def _robots_unreachable(self, state: _OriginState, url: str, detail: str) -> None:
        if self._load_cached_robots(state, self._wall(), fresh_only=False):
            log.warning("%s unavailable (%s): using the cached copy", url, detail)
            self._emit("warning", url, state, outcome="robots-cached", detail=detail)
            return
        state.robots_failures += 1
        retry_in = (
            math.inf
            if state.robots_failures >= self.config.max_attempts
            else max(self.config.backoff_cap, self.config.min_delay)
        )
        state.robots = _RobotsState(
            "unreachable", None, retry_at=self._clock() + retry_in, detail=detail
        )
        log.warning("%s unavailable (%s): complete disallow for now", url, detail)
        self._emit("warning", url, state, outcome="robots-unreachable", detail=detail)

    # ---------------------------------------------------------------- pages

    def _validators(self, url: str) -> dict[str, Any] | None:
        entry = self.store.get("validators", url)
        return entry if isinstance(entry, dict) else None

    def _get(
        self,
        state: _OriginState,
        requested: str,
        url: str,
        deadline: float,
        conditional: bool,
        hops: int,
    ) -> FetchResult | _Redirect:
        use_validators = conditional and self.config.conditional
        stored = self._validators(url) if use_validators else None
        attempt = 0
        while True:
            attempt += 1
            headers: dict[str, str] = {}
            if stored is not None:
                if stored.get("etag"):
                    headers["If-None-Match"] = str(stored["etag"])
                if stored.get("last_modified"):
                    headers["If-Modified-Since"] = str(stored["last_modified"])
            if attempt == 1 and hops == 0:
                self.counters.add("attempted")
            try:
                raw = self._exchange(state, url, deadline, headers, kind="request", attempt=attempt)
            except _NetworkError as exc:
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
                self._count_ok(attempt)
                merged = dict(stored.get("headers", {}))
                merged.update(raw.headers)
                return FetchResult(
                    url=requested,
                    final_url=url,
                    status=304,
                    headers=merged,
                    body=zlib.decompress(bytes(body)),
                    charset=_charset(merged.get("content-type")),
                    not_modified=True,
                    elapsed=raw.ended - raw.started,
                )
            if status in _REDIRECTS and raw.headers.get("location"):
                return _Redirect(urljoin(url, raw.headers["location"]))
            if status in (401, 403):
                self.counters.add("auth_401_403")
                raise self._block(
                    state, url, f"http-{status}", f"{url} answered HTTP {status}; origin stopped"
                )
            if status in (404, 410):
                self.counters.add("gone_404_410")
                raise FetchFailed(f"{url}: HTTP {status}", url=url, status=status)
            if status == 429:
                gate.consecutive_429 += 1
                if gate.consecutive_429 >= self.config.circuit_429_threshold:
                    raise self._block(
                        state,
                        url,
                        "circuit-open",
                        f"{url}: {gate.consecutive_429} consecutive HTTP 429; origin stopped",
                    )
            if status in _WAIT_STATUS or status in _RETRY_STATUS:
                retry_after = None
                if status in _WAIT_STATUS:
                    retry_after = parse_retry_after(raw.headers.get("retry-after"), self._wall())
                    if retry_after is not None:
                        self.counters.add("server_requested_wait", retry_after)
                self._retry_or_fail(
                    state, url, deadline, attempt, retry_after, f"HTTP {status}", None, status
                )
                continue
            raise FetchFailed(f"{url}: HTTP {status}", url=url, status=status)

    def _retry_or_fail(
        self,
        state: _OriginState,
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

    def _count_ok(self, attempt: int) -> None:
        self.counters.add("ok_2xx")
        self.counters.add("ok_first_try" if attempt == 1 else "ok_after_retry")

    def _success(
        self, state: _OriginState, requested: str, url: str, raw: _Raw, attempt: int
    ) -> FetchResult:
        check_content_type(url, raw.headers.get("content-type"), self.content_types)
        body = decode_body(
            raw.raw,
            raw.headers.get("content-encoding"),
            max_bytes=self.config.max_decompressed_bytes,
            url=url,
        )
        refusal = detect_refusal(requested, url, raw.headers, body)
        if refusal is not None:
            self.counters.add("captcha" if refusal == "captcha" else "login_wall")
            raise self._block(
                state, url, refusal, f"{url} looks like a {refusal} page; origin stopped"
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
        self._count_ok(attempt)
        return FetchResult(
            url=requested,
            final_url=url,
            status=raw.status,
            headers=headers,
            body=body,
            charset=_charset(headers.get("content-type")),
            not_modified=False,
            elapsed=raw.ended - raw.started,
        )

    # ---------------------------------------------------------------- one HTTP exchange

    def _exchange(
        self,
        state: _OriginState,
        url: str,
        deadline: float,
        extra_headers: Mapping[str, str],
        *,
        kind: str,
        attempt: int = 1,
    ) -> _Raw:
        """Send one GET through the origin's gate; archive it; return it undecoded."""
        gate = state.gate
        with gate.turn(deadline, url) as ticket:
            if ticket.waited:
                self.counters.add("actual_wait", ticket.waited)
            addresses = check_address(
                url, allow_private=self.config.allow_private_networks, resolver=self._resolver
            )
            with self._global:
                started = self._clock()
                try:
                    raw, truncated = self._send_pinned(url, addresses, extra_headers, started)
                except _NetworkError as exc:
                    ended = self._clock()
                    ticket.record(started=started, ended=ended, ok=False)
                    self.counters.add("requests")
                    self.counters.add("network_errors")
                    self._emit(
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
                        self._archive(exc.raw, extra_headers, addresses, "length")
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
            self._archive(raw, extra_headers, addresses, truncated)
        self._emit(
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

    def _send_pinned(
        self,
        url: str,
        addresses: Sequence[str],
        extra_headers: Mapping[str, str],
        started: float,
    ) -> tuple[_Raw, str | None]:
        """Connect to an address that passed the safety check, not to a fresh DNS answer.

        Resolving again inside httpx would let a name flip to a private address between the
        check and the connection (DNS rebinding). So the request goes to the checked IP with the
        original ``Host`` header and TLS server name; the next address is tried only when the
        connection itself fails. IP-literal hosts, and an injected test resolver, need no pin.
        """
        parsed = httpx.URL(url)
        if self._resolver is not None or _is_ip_literal(parsed.host):
            return self._send(url, url, extra_headers, {}, started)
        host_header = {"Host": parsed.netloc.decode("ascii")}
        extensions = {"sni_hostname": parsed.host} if parsed.scheme == "https" else {}
        candidates = list(dict.fromkeys(addresses))
        for index, address in enumerate(candidates):
            target = str(parsed.copy_with(host=address))
            try:
                return self._send(
                    url, target, {**extra_headers, **host_header}, extensions, started
                )
            except _NetworkError as exc:
                if not exc.connect_failed or index == len(candidates) - 1:
                    raise
        raise AssertionError("no address to connect to")  # check_address never returns none

    def _send(
        self,
        url: str,
        target: str,
        extra_headers: Mapping[str, str],
        extensions: Mapping[str, Any],
        started: float,
    ) -> tuple[_Raw, str | None]:
        cap = self.config.max_response_bytes
        total = self.config.total_timeout
        try:
            with self._client.stream(
                "GET", target, headers=dict(extra_headers), extensions=dict(extensions)
            ) as response:
                pairs = [
                    (k.decode("latin-1"), v.decode("latin-1")) for k, v in response.headers.raw
                ]
                headers = _join_headers(pairs)
                declared = headers.get("content-length", "")
                buffer = bytearray()
                truncated: str | None = None

                def snapshot() -> _Raw:
                    return _Raw(
                        url,
                        response.status_code,
                        response.reason_phrase,
                        pairs,
                        headers,
                        bytes(buffer),
                        started,
                        self._clock(),
                    )

                if declared.isdigit() and int(declared) > cap:
                    truncated = "length"  # refuse before reading a byte of the body
                else:
                    try:
                        for chunk in response.iter_raw():
                            buffer += chunk
                            if len(buffer) > cap:
                                del buffer[cap:]
                                truncated = "length"
                                break
                            if self._clock() - started > total:
                                raise _NetworkError(
                                    f"{url}: total timeout of {total:.0f}s exceeded", snapshot()
                                )
                    except httpx.HTTPError as exc:
                        raise _NetworkError(
                            f"{url}: {type(exc).__name__}: {exc}", snapshot()
                        ) from exc
                raw = snapshot()
                return raw, truncated
        except httpx.ConnectError as exc:
            raise _NetworkError(f"{url}: {type(exc).__name__}: {exc}", connect_failed=True) from exc
        except httpx.HTTPError as exc:
            raise _NetworkError(f"{url}: {type(exc).__name__}: {exc}") from exc

    def _archive(
        self,
        raw: _Raw,
        extra_headers: Mapping[str, str],
        addresses: Iterable[str],
        truncated: str | None,
    ) -> None:
        assert self.warc is not None
        parts = urlsplit(raw.url)
        request_headers = [("Host", parts.netloc), *self._client.headers.items()]
        request_headers += list(extra_headers.items())
        self.warc.write_exchange(
            url=raw.url,
            method="GET",
            request_headers=request_headers,
            status=raw.status,
            reason=raw.reason,
            response_headers=raw.header_pairs,
            payload=raw.raw,
            truncated=truncated,
            ip=next(iter(addresses), None),
        )

    # ---------------------------------------------------------------- browser

    def _renderer(self) -> Any:
        with self._browser_lock:
            if self._browser is None:
                from anchorpath.runner.browser import BrowserRenderer

                self._browser = BrowserRenderer(
                    user_agent=self.user_agent,
                    timeout=self.config.total_timeout,
                    allow_request=self._browser_allows,
                )
            return self._browser

    def _browser_allows(self, page_url: str, url: str) -> bool:
        """Sub-requests of a rendered page: same origin, http(s), allowed by robots.txt."""
        try:
            if origin_of(url) != origin_of(page_url):
                return False
        except ValueError:
            return False
        state = self._state(origin_of(url))
        robots = state.robots
        if robots is None or robots.kind == "unreachable":
            return False
        return robots.robots is None or robots.robots.allowed(self.token, url)

    def _browser_fetch(
        self, state: _OriginState, requested: str, url: str, deadline: float
    ) -> FetchResult:
        renderer = self._renderer()
        renderer.start()  # launch outside the timed window: it is not the site's response time
        self.counters.add("attempted")
        gate = state.gate
        with gate.turn(deadline, url) as ticket:
            if ticket.waited:
                self.counters.add("actual_wait", ticket.waited)
            check_address(
                url, allow_private=self.config.allow_private_networks, resolver=self._resolver
            )
            with self._global:
                started = self._clock()
                try:
                    page = renderer.render(url)
                finally:
                    ended = self._clock()
            ok = page.status is not None and 200 <= page.status < 300
            ticket.record(started=started, ended=ended, ok=ok)
        self.counters.add("requests")
        status = page.status or 0
        self._emit(
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
            raise self._block(state, url, f"http-{status}", f"{url} answered HTTP {status}")
        if status in (404, 410):
            self.counters.add("gone_404_410")
            raise FetchFailed(f"{url}: HTTP {status}", url=url, status=status)
        if status == 429:
            self.counters.add("too_many_429")
        if not ok:
            if status in _WAIT_STATUS:
                wait = parse_retry_after(page.headers.get("retry-after"), self._wall())
                if wait is not None:
                    gate.defer(ended + wait, "retry-after")
            raise FetchFailed(f"{url}: HTTP {status} (browser)", url=url, status=status)
        body = page.html.encode("utf-8")
        headers = dict(page.headers)
        headers["content-type"] = "text/html; charset=utf-8"
        refusal = detect_refusal(requested, page.final_url, headers, body)
        if refusal is not None:
            self.counters.add("captcha" if refusal == "captcha" else "login_wall")
            raise self._block(state, url, refusal, f"{url} looks like a {refusal} page")
        self._count_ok(1)
        return FetchResult(
            url=requested,
            final_url=page.final_url,
            status=status,
            headers=headers,
            body=body,
            charset="utf-8",
            not_modified=False,
            elapsed=ended - started,
        )

    # ---------------------------------------------------------------- events

    def _emit(
        self,
        kind: str,
        url: str,
        state: _OriginState,
        *,
        status: int | None = None,
        nbytes: int = 0,
        started: float = 0.0,
        elapsed: float = 0.0,
        waited: float = 0.0,
        wait_reason: str | None = None,
        attempt: int = 0,
        render: str = "http",
        outcome: str = "",
        detail: str = "",
    ) -> None:
        if self._on_event is None:
            return
        event = FetchEvent(
            kind=kind,
            url=redact_url(url),
            origin=state.gate.origin,
            status=status,
            bytes=nbytes,
            started=started - self._started if started else 0.0,
            elapsed=elapsed,
            waited=waited,
            wait_reason=wait_reason,
            attempt=attempt,
            render=render,
            outcome=outcome,
            detail=detail,
        )
        try:
            self._on_event(event)
        except Exception:  # a broken observer must not break a polite fetch
            log.exception("on_event callback failed")


def _robots_url(origin: str) -> str:
    """``scheme://host[:port]/robots.txt`` for an origin key, default ports left out."""
    scheme, _, rest = origin.partition("://")
    host, _, port = rest.rpartition(":")
    default = (scheme == "http" and port == "80") or (scheme == "https" and port == "443")
    return f"{scheme}://{host}{'' if default else ':' + port}/robots.txt"


def _with_elapsed(result: FetchResult, elapsed: float) -> FetchResult:
    from dataclasses import replace

    return replace(result, elapsed=elapsed)


# ---------------------------------------------------------------------- the fake


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
            charset=_charset(lowered.get("content-type")),
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
