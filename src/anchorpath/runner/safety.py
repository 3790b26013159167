"""Network-safety guards, all pure or nearly so: URL checks, address checks, capped decoding,
content-type checks and the heuristics that recognise a 200 page that is really a refusal.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import zlib
from collections.abc import Callable, Iterable, Sequence
from urllib.parse import urlsplit

from anchorpath._errors import AnchorpathError, FetchFailed, UnsafeRequest
from anchorpath.runner.walls import Wall, find_wall, login_url
from anchorpath.selectors.evaluate import parse_html

__all__ = [
    "DEFAULT_CONTENT_TYPES",
    "check_address",
    "check_content_type",
    "check_url",
    "decode_body",
    "detect_refusal",
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


# Cheap pre-check on the raw bytes: only a page with one of these can be a wall, so only such
# a page is parsed for the structural test of :func:`anchorpath.runner.walls.find_wall`.
_MAYBE_WALL = re.compile(
    rb"password|captcha|challenge|turnstile|just a moment|attention required|are you a|"
    rb"verify you are|security check|checking your browser|checking if the site|one more step|"
    rb"enable javascript and cookies|access denied|access to this page|request blocked|"
    rb"been blocked|forbidden",
    re.IGNORECASE,
)


def _charset_of(content_type: str) -> str | None:
    m = re.search(r"charset=([\w.:-]+)", content_type)
    return m.group(1) if m else None


def detect_refusal(
    requested_url: str, final_url: str, headers: dict[str, str], body: bytes
) -> Wall | None:
    """The :class:`~anchorpath.runner.walls.Wall` a 2xx page really is (login wall, CAPTCHA
    challenge, access-denied page), or None.

    Only certain walls count (see :mod:`anchorpath.runner.walls`): the form or challenge must
    be the page's main content, or the request redirected to a login URL. A login box in the
    header, a comment form with reCAPTCHA or ``recaptcha`` in a script is not a wall; a page
    that lost its records for another reason is left to the drift gate.
    """
    lower = {k.lower(): v for k, v in headers.items()}
    if lower.get("cf-mitigated", "").lower() == "challenge":
        return Wall("captcha", "the response carries cf-mitigated: challenge")
    if login_url("", requested_url):
        return None  # we asked for a login page ourselves: not a wall
    if login_url(requested_url, final_url):
        return Wall("login-wall", f"redirected to the login URL {final_url}")
    content_type = lower.get("content-type", "text/html").lower()
    if "html" not in content_type or not _MAYBE_WALL.search(body[:1_000_000]):
        return None
    try:
        doc = parse_html(body, _charset_of(content_type))
    except AnchorpathError:
        return None  # not parseable as HTML: extraction will say so
    return find_wall(doc, requested_url=requested_url, final_url=final_url, headers=lower)
