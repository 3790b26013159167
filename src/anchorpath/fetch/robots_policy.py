"""robots.txt per origin: when to fetch it, what each status means, the cache, and the verdict
for a URL. Nothing is requested from an origin before :meth:`RobotsGate.ensure` ran for it.

Policy (see :mod:`anchorpath.fetch.polite` for the whole list): 2xx → parse the first
``robots_max_bytes``; 404/410 → allow all; other 4xx → stop the origin (stricter than RFC 9309);
5xx, network errors, too many redirects → complete disallow, retried later in the run, unless a
cached copy younger than ``robots_cache_ttl`` can stand in.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx

from anchorpath._config import FetchConfig
from anchorpath._errors import RobotsDisallowed, UnsafeRequest
from anchorpath.fetch.cache import KeyValueStore
from anchorpath.fetch.exchange import Exchanger
from anchorpath.fetch.http import REDIRECTS, NetworkError, RawResponse
from anchorpath.fetch.origins import Origins, OriginState, RobotsState
from anchorpath.fetch.robots import RobotsFile, parse_robots
from anchorpath.fetch.safety import check_url, decode_body, origin_of

__all__ = ["RobotsGate", "RobotsSeen", "robots_url"]

log = logging.getLogger("anchorpath.fetch.polite")  # see origins.py: one name for the fetcher


def robots_url(origin: str) -> str:
    """``scheme://host[:port]/robots.txt`` for an origin key, default ports left out."""
    scheme, _, rest = origin.partition("://")
    host, _, port = rest.rpartition(":")
    default = (scheme == "http" and port == "80") or (scheme == "https" and port == "443")
    return f"{scheme}://{host}{'' if default else ':' + port}/robots.txt"


@dataclass(frozen=True)
class RobotsSeen:
    """The robots.txt an origin's requests were judged by in this fetcher's life: ``kind``
    ``parsed`` (``text`` and its ``sha256``), ``allow-all`` (404/410: no file) or
    ``unreachable`` (``detail`` says why); ``fetched_at`` is when it was fetched (ISO 8601
    UTC; a cached copy keeps the time it was fetched)."""

    origin: str
    kind: str
    fetched_at: str | None = None
    sha256: str | None = None
    text: str | None = None
    detail: str = ""

    def to_dict(self) -> dict[str, str | None]:
        return {
            "origin": self.origin,
            "kind": self.kind,
            "fetched_at": self.fetched_at,
            "sha256": self.sha256,
            "text": self.text,
            "detail": self.detail or None,
        }

    @classmethod
    def from_dict(cls, d: dict[str, str | None]) -> RobotsSeen:
        return cls(
            str(d.get("origin") or ""),
            str(d.get("kind") or ""),
            d.get("fetched_at"),
            d.get("sha256"),
            d.get("text"),
            d.get("detail") or "",
        )


def _iso(wall: float | None) -> str | None:
    if wall is None:
        return None
    return dt.datetime.fromtimestamp(wall, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _unavailable(url: str, origin: str, detail: str) -> str:
    """The refusal of ``url`` when its robots.txt could not be read; a connection failure
    leads, since it is the cause (the site is down or the address is wrong), not robots."""
    if detail.startswith("cannot connect to "):
        return f"{detail}: {url} not fetched (robots.txt of {origin} unreachable)"
    return f"{url}: robots.txt of {origin} unavailable ({detail}): complete disallow"


class RobotsGate:
    """Keeps each origin's :class:`RobotsState` current and answers "may we fetch this URL?".

    ``token`` is the product token matched against ``User-agent`` lines. Cached copies live in
    ``store`` under ``("robots", origin)``. ``wall_clock`` dates cache entries; ``clock`` times
    retries of an unreachable robots.txt.
    """

    def __init__(
        self,
        config: FetchConfig,
        store: KeyValueStore,
        token: str,
        origins: Origins,
        exchanger: Exchanger,
        *,
        clock: Callable[[], float],
        wall_clock: Callable[[], float],
    ) -> None:
        self.config = config
        self.store = store
        self.token = token
        self.origins = origins
        self.exchanger = exchanger
        self._clock = clock
        self._wall = wall_clock

    # ---------------------------------------------------------------- verdicts

    def check(self, state: OriginState, url: str) -> None:
        """Raise RobotsDisallowed unless robots.txt (already ensured) allows ``url``."""
        robots = state.robots
        if robots is None:
            raise AssertionError("robots state missing after ensure()")
        if robots.kind == "unreachable":
            self.origins.emit("skip", url, state, outcome="disallowed", detail=robots.detail)
            raise RobotsDisallowed(
                _unavailable(url, state.gate.origin, robots.detail),
                url=url,
                reason="unavailable",
            )
        if robots.robots is None:
            return
        path = urlsplit(url).path
        if path == "/robots.txt":
            return  # fetching robots.txt itself is always allowed
        decision = robots.robots.decide(self.token, str(httpx.URL(url)))
        if not decision.allowed:
            self.origins.emit("skip", url, state, outcome="disallowed", detail=str(decision.rule))
            raise RobotsDisallowed(
                f"{url}: disallowed by robots.txt line {decision.line}: {decision.rule}",
                url=url,
            )

    def governing(self, state: OriginState, url: str) -> RobotsFile | None:
        """The robots.txt (already ensured) that governs ``url``; None when there is none.
        Raises RobotsDisallowed when it is unreachable.
        """
        robots = state.robots
        if robots is None or robots.kind == "unreachable":
            detail = robots.detail if robots is not None else "not fetched"
            raise RobotsDisallowed(
                _unavailable(url, state.gate.origin, detail), url=url, reason="unavailable"
            )
        return robots.robots

    def allows(self, state: OriginState, url: str) -> bool:
        """Quiet yes/no for sub-requests of a rendered page: False unless robots.txt is known
        and allows ``url``. Never fetches.
        """
        robots = state.robots
        if robots is None or robots.kind == "unreachable":
            return False
        return robots.robots is None or robots.robots.allowed(self.token, url)

    def seen(self, state: OriginState) -> RobotsSeen | None:
        """What ``state``'s requests were judged by, or None before robots.txt was asked."""
        robots = state.robots
        if robots is None:
            return None
        origin = state.gate.origin
        if robots.kind == "unreachable":
            return RobotsSeen(origin, "unreachable", detail=robots.detail)
        when = _iso(robots.fetched_wall)
        if robots.body is None:
            return RobotsSeen(origin, "allow-all", when)
        digest = hashlib.sha256(robots.body).hexdigest()
        text = robots.body.decode("utf-8", "replace")
        return RobotsSeen(origin, robots.kind, when, digest, text)

    # ---------------------------------------------------------------- keeping it current

    def ensure(self, state: OriginState, deadline: float) -> None:
        """Make ``state.robots`` current: fresh in memory, fresh in the cache, or fetched now."""
        robots = state.robots
        now_wall = self._wall()
        if robots is not None:
            if robots.kind != "unreachable" and now_wall < robots.expires_wall:
                return
            if robots.kind == "unreachable" and self._clock() < robots.retry_at:
                return
        elif not self.config.robots_per_run and self._load_cached(state, now_wall, fresh_only=True):
            return
        self._fetch(state, deadline)

    def _load_cached(self, state: OriginState, now_wall: float, *, fresh_only: bool) -> bool:
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
            state.robots = RobotsState(
                "allow-all", None, expires_wall=expires, fetched_wall=fetched
            )
        else:
            parsed = parse_robots(bytes(body), max_bytes=self.config.robots_max_bytes)
            state.robots = RobotsState(
                "parsed", parsed, expires_wall=expires, body=bytes(body), fetched_wall=fetched
            )
            state.gate.crawl_delay = parsed.crawl_delay(self.token)
        if not fresh_only:
            # A stale-but-young copy stands in for an unreachable robots.txt: re-check later.
            state.robots.expires_wall = now_wall + self.config.backoff_cap
        return True

    def _fetch(self, state: OriginState, deadline: float) -> None:
        url = robots_url(state.gate.origin)
        current = url
        detail = ""
        for _hop in range(self.config.max_redirects + 1):
            target = self.origins.get(origin_of(current))
            try:
                if target is state:
                    raw = self.exchanger.exchange(state, current, deadline, {}, kind="robots")
                else:
                    # A cross-origin robots redirect is still a request to that origin: it goes
                    # through that origin's gate (bounded wait, so it cannot deadlock forever).
                    bound = min(deadline, self._clock() + 2 * self.config.total_timeout)
                    with target.gate.hold(bound, current):
                        raw = self.exchanger.exchange(target, current, deadline, {}, kind="robots")
            except NetworkError as exc:
                detail = str(exc) if exc.connect_failed else f"network error: {exc}"
                break
            except UnsafeRequest as exc:
                if target is state:
                    raise  # the origin itself is unsafe (e.g. a private address): refuse the URL
                detail = f"unsafe: {exc}"
                break
            status = raw.status
            if status in REDIRECTS and raw.headers.get("location"):
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
                self._parsed(state, body, raw, url)
                return
            if status in (404, 410):
                self._store(state, "allow-all", None, raw)
                state.robots = RobotsState(
                    "allow-all", None, expires_wall=self._expiry(raw), fetched_wall=self._wall()
                )
                return
            if 400 <= status < 500:
                # RFC 9309 would treat this as "no restrictions"; we are stricter on purpose:
                # a site that refuses its robots.txt gets a person's attention, not a crawl.
                raise self.origins.block(
                    state,
                    url,
                    "robots-4xx",
                    f"{url} answered HTTP {status}; origin stopped, needs a person's review",
                )
            detail = f"HTTP {status}"
            break
        self._unreachable(state, url, detail)

    def _parsed(self, state: OriginState, body: bytes, raw: RawResponse, url: str) -> None:
        parsed = parse_robots(body, max_bytes=self.config.robots_max_bytes)
        content_type = raw.headers.get("content-type", "")
        if "html" in content_type.lower() and not any("HTML" in w for w in parsed.warnings):
            parsed.warnings.append("served as HTML, not text/plain (error page?)")
        for warning in parsed.warnings:
            log.warning("%s: %s", url, warning)
            self.origins.emit("warning", url, state, outcome="robots-warning", detail=warning)
        state.robots = RobotsState(
            "parsed", parsed, expires_wall=self._expiry(raw), body=body, fetched_wall=self._wall()
        )
        crawl_delay = parsed.crawl_delay(self.token)
        state.gate.crawl_delay = crawl_delay
        if crawl_delay is not None:
            # The robots.txt request itself was paced before we knew the Crawl-delay.
            state.gate.delay = max(state.gate.delay, crawl_delay)
            state.gate.defer(raw.ended + crawl_delay, "pacing")
        self._store(state, "parsed", body, raw)

    def _expiry(self, raw: RawResponse) -> float:
        return self._wall() + self._ttl(raw)

    def _ttl(self, raw: RawResponse) -> float:
        ttl = self.config.robots_cache_ttl
        cache_control = raw.headers.get("cache-control", "").lower()
        for directive in cache_control.split(","):
            name, _, value = directive.strip().partition("=")
            if name in ("no-store", "no-cache"):
                return 0.0
            if name in ("max-age", "s-maxage") and value.strip().isdigit():
                ttl = min(ttl, float(value.strip()))
        return ttl

    def _store(self, state: OriginState, kind: str, body: bytes | None, raw: RawResponse) -> None:
        ttl = self._ttl(raw)
        if ttl <= 0:
            return
        now = self._wall()
        entry = {"kind": kind, "body": body, "fetched_wall": now, "expires_wall": now + ttl}
        # Kept up to the 24 h bound so an unreachable robots.txt can fall back to it.
        self.store.set("robots", state.gate.origin, entry, expire=self.config.robots_cache_ttl)

    def _unreachable(self, state: OriginState, url: str, detail: str) -> None:
        if self._load_cached(state, self._wall(), fresh_only=False):
            log.warning("%s unavailable (%s): using the cached copy", url, detail)
            self.origins.emit("warning", url, state, outcome="robots-cached", detail=detail)
            return
        state.robots_failures += 1
        retry_in = (
            math.inf
            if state.robots_failures >= self.config.max_attempts
            else max(self.config.backoff_cap, self.config.min_delay)
        )
        state.robots = RobotsState(
            "unreachable", None, retry_at=self._clock() + retry_in, detail=detail
        )
        if detail.startswith("cannot connect to "):
            log.warning("%s: %s unreachable, complete disallow for now", detail, url)
        else:
            log.warning("%s unavailable (%s): complete disallow for now", url, detail)
        self.origins.emit("warning", url, state, outcome="robots-unreachable", detail=detail)
