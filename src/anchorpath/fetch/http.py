"""One HTTP GET on the wire: the httpx client, streaming under a size cap and a total timeout,
and connecting to the address the safety check approved rather than to a fresh DNS answer.

Nothing here paces, retries or decodes; :mod:`anchorpath.fetch.exchange` does the politeness
around each call and the fetcher decides what a status means.
"""

from __future__ import annotations

import ipaddress
import re
import ssl
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from anchorpath._config import FetchConfig
from anchorpath.fetch.safety import Resolver

__all__ = [
    "REDIRECTS",
    "HttpClient",
    "NetworkError",
    "RawResponse",
    "charset_of",
    "is_ip_literal",
    "join_headers",
    "tls_context",
]

REDIRECTS = {301, 302, 303, 307, 308}


def charset_of(content_type: str | None) -> str | None:
    """The lower-cased ``charset`` parameter of a Content-Type value, if any."""
    if not content_type:
        return None
    for param in content_type.split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'").lower()
    return None


def join_headers(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Header pairs as a dict with lower-case names; repeated headers joined with ``", "``."""
    out: dict[str, str] = {}
    for name, value in pairs:
        key = name.lower()
        out[key] = f"{out[key]}, {value}" if key in out else value
    return out


@dataclass
class RawResponse:
    """One HTTP exchange as received (payload still content-encoded)."""

    url: str
    status: int
    reason: str
    header_pairs: list[tuple[str, str]]
    headers: dict[str, str]
    raw: bytes
    started: float
    ended: float


class NetworkError(Exception):
    """Internal: a retryable transport failure (timeout, connection, DNS)."""

    def __init__(
        self, message: str, raw: RawResponse | None = None, *, connect_failed: bool = False
    ) -> None:
        super().__init__(message)
        self.raw = raw
        self.connect_failed = connect_failed


def connect_failure(url: str, exc: BaseException) -> str:
    """A failed connection, cause first: ``cannot connect to HOST:PORT (connection refused)``."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    why = re.sub(r"^\[Errno -?\d+\]\s*", "", str(exc).strip()) or type(exc).__name__
    return f"cannot connect to {parts.hostname}:{port} ({why[:1].lower() + why[1:]})"


def is_ip_literal(host: str) -> bool:
    """True when ``host`` is an IP address rather than a name."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


_tls_lock = threading.Lock()
_tls: ssl.SSLContext | None = None


def tls_context() -> ssl.SSLContext:
    """The process's one verifying TLS context, built on first use.

    It is the context httpx builds for ``verify=True`` without ``trust_env`` (certifi's CA
    bundle; the fetcher never reads ``SSL_CERT_FILE``/``SSL_CERT_DIR``). Loading the bundle
    costs ~20 ms of CPU, and ``run --all`` opens one client per site in worker threads, so
    every client shares this one; an ``SSLContext`` is safe to share between threads.
    """
    global _tls
    with _tls_lock:
        if _tls is None:
            _tls = httpx.create_ssl_context(trust_env=False)
        return _tls


class HttpClient:
    """The httpx client the fetcher sends through: no redirects followed, no proxies from the
    environment, the anchorpath User-Agent, and a byte cap enforced while streaming.

    ``transport`` replaces httpx's transport; with a ``resolver`` (tests) no address is pinned.
    Every client verifies TLS with the shared :func:`tls_context`.
    """

    def __init__(
        self,
        config: FetchConfig,
        user_agent: str,
        *,
        clock: Callable[[], float],
        transport: httpx.BaseTransport | None = None,
        resolver: Resolver | None = None,
    ) -> None:
        self.config = config
        self._clock = clock
        self._resolver = resolver
        self._client = httpx.Client(
            transport=transport,
            verify=tls_context() if transport is None else True,
            follow_redirects=False,
            trust_env=False,  # proxies from the environment would bypass the address checks
            timeout=httpx.Timeout(
                connect=config.connect_timeout,
                read=config.read_timeout,
                write=config.read_timeout,
                pool=config.total_timeout,
            ),
            headers={
                "User-Agent": user_agent,
                "Accept-Encoding": "gzip, deflate",
                "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.5",
            },
        )

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def request_headers(self, url: str, extra: Mapping[str, str]) -> list[tuple[str, str]]:
        """The request headers as sent for ``url`` (for the WARC request record)."""
        parts = urlsplit(url)
        headers = [("Host", parts.netloc), *self._client.headers.items()]
        headers += list(extra.items())
        return headers

    def send(
        self,
        url: str,
        addresses: Sequence[str],
        extra_headers: Mapping[str, str],
        started: float,
    ) -> tuple[RawResponse, str | None]:
        """GET ``url`` from an address that passed the safety check, not a fresh DNS answer.

        Resolving again inside httpx would let a name flip to a private address between the
        check and the connection (DNS rebinding). So the request goes to the checked IP with the
        original ``Host`` header and TLS server name; the next address is tried only when the
        connection itself fails. IP-literal hosts, and an injected test resolver, need no pin.

        Returns the response and ``"length"`` when the body was cut at the byte cap, else None.
        Raises :class:`NetworkError`.
        """
        parsed = httpx.URL(url)  # parsed once: httpx takes the URL object as it is
        if self._resolver is not None or is_ip_literal(parsed.host):
            return self._send(url, parsed, extra_headers, {}, started)
        host_header = {"Host": parsed.netloc.decode("ascii")}
        extensions = {"sni_hostname": parsed.host} if parsed.scheme == "https" else {}
        candidates = list(dict.fromkeys(addresses))
        for index, address in enumerate(candidates):
            target = parsed.copy_with(host=address)
            try:
                return self._send(
                    url, target, {**extra_headers, **host_header}, extensions, started
                )
            except NetworkError as exc:
                if not exc.connect_failed or index == len(candidates) - 1:
                    raise
        raise AssertionError("no address to connect to")  # check_address never returns none

    def _send(
        self,
        url: str,
        target: httpx.URL,
        extra_headers: Mapping[str, str],
        extensions: Mapping[str, Any],
        started: float,
    ) -> tuple[RawResponse, str | None]:
        cap = self.config.max_response_bytes
        total = self.config.total_timeout
        try:
            with self._client.stream(
                "GET", target, headers=dict(extra_headers), extensions=dict(extensions)
            ) as response:
                pairs = [
                    (k.decode("latin-1"), v.decode("latin-1")) for k, v in response.headers.raw
                ]
                headers = join_headers(pairs)
                declared = headers.get("content-length", "")
                buffer = bytearray()
                truncated: str | None = None

                def snapshot() -> RawResponse:
                    return RawResponse(
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
                                raise NetworkError(
                                    f"{url}: total timeout of {total:.0f}s exceeded", snapshot()
                                )
                    except httpx.HTTPError as exc:
                        raise NetworkError(
                            f"{url}: {type(exc).__name__}: {exc}", snapshot()
                        ) from exc
                raw = snapshot()
                return raw, truncated
        except httpx.ConnectError as exc:
            raise NetworkError(connect_failure(url, exc), connect_failed=True) from exc
        except httpx.HTTPError as exc:
            raise NetworkError(f"{url}: {type(exc).__name__}: {exc}") from exc
