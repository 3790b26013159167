"""Network-safety guards, all pure or nearly so: URL checks, address checks, capped decoding,
content-type checks. (A 200 page that is really a refusal: :mod:`~anchorpath.fetch.walls`.)
"""

from __future__ import annotations

import ipaddress
import socket
import zlib
from collections.abc import Callable, Iterable, Sequence
from urllib.parse import urlsplit

from anchorpath._errors import FetchFailed, UnsafeRequest

__all__ = [
    "DEFAULT_CONTENT_TYPES",
    "check_address",
    "check_content_type",
    "check_url",
    "decode_body",
    "is_public_address",
    "origin_of",
]

DEFAULT_CONTENT_TYPES = (
    "text/html",
    "application/xhtml+xml",
    "text/plain",
    "text/xml",
    "application/xml",
    "application/json",
    "application/ld+json",
)

Resolver = Callable[[str, int], Sequence[str]]

# Cloud metadata endpoints not covered by "not global" checks on every platform.
_METADATA = {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}


def origin_of(url: str) -> str:
    """``scheme://host:port`` of ``url`` (default ports made explicit, host lower-cased)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    port = parts.port or (443 if scheme == "https" else 80)
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}:{port}"


def check_url(url: str, *, max_length: int) -> None:
    """Refuse non-http(s) schemes, missing hosts, embedded credentials and over-long URLs."""
    if len(url) > max_length:
        raise UnsafeRequest(f"{url[:80]}...: URL longer than {max_length} characters", url=url)
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises ValueError on a bad port
    except ValueError as exc:
        raise UnsafeRequest(f"{url}: malformed URL: {exc}", url=url) from exc
    if parts.scheme.lower() not in ("http", "https"):
        raise UnsafeRequest(f"{url}: only http and https are fetched", url=url)
    if not parts.hostname:
        raise UnsafeRequest(f"{url}: no host", url=url)


def is_public_address(text: str) -> bool:
    """True for globally routable unicast addresses (not private, loopback, link-local, ...)."""
    ip = ipaddress.ip_address(text.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip in _METADATA:
        return False
    return bool(ip.is_global) and not ip.is_multicast


def _system_resolver(host: str, port: int) -> Sequence[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def check_address(
    url: str, *, allow_private: bool, resolver: Resolver | None = None
) -> Sequence[str]:
    """Resolve the host of ``url``; refuse it if any address is not public.

    Every address must be public: a name that resolves to one public and one private address
    is refused, since the connection may use either. DNS failure is a (retryable) FetchFailed.
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        addresses = (resolver or _system_resolver)(host, port)
    except OSError as exc:
        raise FetchFailed(f"{url}: cannot resolve {host}: {exc}", url=url) from exc
    if not addresses:
        raise FetchFailed(f"{url}: {host} resolves to no address", url=url)
    if not allow_private:
        for address in addresses:
            if not is_public_address(address):
                raise UnsafeRequest(
                    f"{url}: {host} resolves to non-public address {address} "
                    "(set allow_private_networks to fetch it)",
                    url=url,
                )
    return addresses


def decode_body(raw: bytes, content_encoding: str | None, *, max_bytes: int, url: str) -> bytes:
    """Undo ``Content-Encoding`` (gzip, deflate, identity) without ever holding more than
    ``max_bytes`` of output: a compression bomb is refused, not inflated.
    """
    codings = [c.strip().lower() for c in (content_encoding or "").split(",") if c.strip()]
    data = raw
    for coding in reversed(codings):
        if coding in ("identity", ""):
            continue
        if coding in ("gzip", "x-gzip", "deflate"):
            data = _inflate(data, max_bytes=max_bytes, url=url)
        else:
            raise UnsafeRequest(f"{url}: unsupported Content-Encoding {coding!r}", url=url)
    if len(data) > max_bytes:
        raise UnsafeRequest(f"{url}: body larger than {max_bytes} bytes", url=url)
    return data


def _inflate(data: bytes, *, max_bytes: int, url: str) -> bytes:
    # wbits=47 auto-detects gzip or zlib headers; raw deflate (seen in the wild) is the fallback.
    try:
        return _inflate_with(data, 47, max_bytes, url)
    except zlib.error:
        try:
            return _inflate_with(data, -15, max_bytes, url)
        except zlib.error as exc:
            raise UnsafeRequest(f"{url}: corrupt compressed body: {exc}", url=url) from exc


def _inflate_with(data: bytes, wbits: int, max_bytes: int, url: str) -> bytes:
    # Pieces in a list (not a growing bytearray) so the peak stays near max_bytes.
    pieces: list[bytes] = []
    size = 0
    pending = data
    while pending:
        inflater = zlib.decompressobj(wbits)
        chunk = pending
        while chunk:
            piece = inflater.decompress(chunk, min(1 << 20, max_bytes + 1 - size))
            pieces.append(piece)
            size += len(piece)
            if size > max_bytes:
                raise UnsafeRequest(
                    f"{url}: decompressed body exceeds {max_bytes} bytes (compression bomb?)",
                    url=url,
                )
            chunk = inflater.unconsumed_tail
            if inflater.eof:
                break
        if not inflater.eof:
            pieces.append(inflater.flush())
            break
        # Concatenated gzip members are legal; stop at trailing garbage that is not gzip.
        pending = inflater.unused_data
        if wbits != 47 or not pending.startswith(b"\x1f\x8b"):
            break
    return b"".join(pieces)


def check_content_type(url: str, content_type: str | None, allowed: Iterable[str]) -> None:
    """Refuse a response whose media type is not in ``allowed`` (a missing type passes)."""
    if not content_type:
        return
    media = content_type.split(";", 1)[0].strip().lower()
    if media not in {a.lower() for a in allowed}:
        raise UnsafeRequest(f"{url}: unexpected Content-Type {media!r}", url=url)
