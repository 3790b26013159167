"""Structured fetch events and per-run counters (the denominators of a collection report)."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field, fields
from typing import Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["CounterName", "FetchCounters", "FetchEvent", "redact_url"]

# Query parameters whose values are secrets whatever they look like.
_SECRET_NAMES = re.compile(
    r"(token|key|secret|passw|pwd|auth|session|sid|sig|signature|credential|code|ticket|jwt)",
    re.IGNORECASE,
)
# Values that look like tokens: long runs of base64/hex-ish characters.
_TOKEN_VALUE = re.compile(r"^[A-Za-z0-9_\-.~+/=]{24,}$")


def redact_url(url: str) -> str:
    """``url`` without user:password and with token-like query values replaced by ``REDACTED``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable url>"
    netloc = parts.netloc.rsplit("@", 1)[-1]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        cleaned = [
            (k, "REDACTED" if _SECRET_NAMES.search(k) or _TOKEN_VALUE.match(v) else v)
            for k, v in pairs
        ]
        query = urlencode(cleaned, safe="/:")
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


@dataclass(frozen=True)
class FetchEvent:
    """One request (or one refusal without a request), ready to log as JSON.

    ``kind`` is ``request`` (sent), ``robots`` (robots.txt request), ``skip`` (refused before
    sending: robots, blocked origin, deadline, safety) or ``warning``. ``wait_reason`` says why
    the request waited: ``pacing``, ``retry-after``, ``backoff`` or None.
    """

    kind: str
    url: str  # redacted
    origin: str
    status: int | None = None
    bytes: int = 0
    started: float = 0.0  # fetcher clock, seconds
    elapsed: float = 0.0
    waited: float = 0.0
    wait_reason: str | None = None
    attempt: int = 0
    render: str = "http"
    outcome: str = ""  # ok | not-modified | redirect | retry | failed | blocked | disallowed ...
    detail: str = ""


#: The name of one :class:`FetchCounters` field (mypy checks every ``counters.add(...)``).
CounterName = Literal[
    "planned",
    "attempted",
    "requests",
    "robots_requests",
    "ok_2xx",
    "not_modified",
    "robots_blocked",
    "auth_401_403",
    "gone_404_410",
    "too_many_429",
    "server_5xx",
    "network_errors",
    "blocked_origin",
    "login_wall",
    "captcha",
    "access_denied",
    "ok_first_try",
    "ok_after_retry",
    "failed",
    "deadline_exceeded",
    "unsafe",
    "server_requested_wait",
    "actual_wait",
    "rendered",
    "render_seconds",
    "browser_launch_seconds",
]


@dataclass
class FetchCounters:
    """Run counters. URL-level: planned, attempted, ok_2xx, robots_blocked, auth_401_403,
    gone_404_410, blocked_origin, ok_first_try, ok_after_retry, failed, deadline_exceeded, unsafe.
    Response-level: requests, too_many_429, server_5xx, network_errors, not_modified.
    Seconds: server_requested_wait (sum of Retry-After), actual_wait (sum of slept pacing time).
    Renderer: rendered (pages rendered in Chromium), render_seconds, browser_launch_seconds.
    """

    planned: int = 0
    attempted: int = 0
    requests: int = 0
    robots_requests: int = 0
    ok_2xx: int = 0
    not_modified: int = 0
    robots_blocked: int = 0
    auth_401_403: int = 0
    gone_404_410: int = 0
    too_many_429: int = 0
    server_5xx: int = 0
    network_errors: int = 0
    blocked_origin: int = 0
    login_wall: int = 0
    captcha: int = 0
    access_denied: int = 0
    ok_first_try: int = 0
    ok_after_retry: int = 0
    failed: int = 0
    deadline_exceeded: int = 0
    unsafe: int = 0
    server_requested_wait: float = 0.0
    actual_wait: float = 0.0
    rendered: int = 0  # pages rendered in Chromium
    render_seconds: float = 0.0  # time spent rendering them (navigation + waiting for content)
    browser_launch_seconds: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, name: CounterName, amount: float = 1) -> None:
        """Thread-safe increment of one counter."""
        with self._lock:
            setattr(self, name, getattr(self, name) + amount)

    def as_dict(self) -> dict[str, float]:
        with self._lock:
            return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "_lock"}
