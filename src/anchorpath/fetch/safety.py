"""Network-safety guards, all pure or nearly so: URL checks, address checks, capped decoding,
content-type checks. (A 200 page that is really a refusal: :mod:`~anchorpath.fetch.walls`.)
"""

from __future__ import annotations

import ipaddress
import re
import socket
import zlib
from collections.abc import Callable, Iterable, Sequence
from urllib.parse import urlsplit

from anchorpath._errors import FetchFailed, UnsafeRequest
from anchorpath.fetch.events import redact_url
from anchorpath.selectors.page_url import looks_binary

__all__ = [
    "GENERIC_CONTENT_TYPES",
    "check_address",
    "check_content_type",
    "check_url",
    "decode_body",
    "has_credentials",
    "is_link_local",
    "is_public_address",
    "origin_of",
    "sniffs_as_html",
]

#: Media types that say nothing about the body: such a page is taken when its bytes are HTML.
GENERIC_CONTENT_TYPES = frozenset(
    {
        "application/octet-stream",
        "application/unknown",
        "unknown/unknown",
        "*/*",
        "binary/octet-stream",
    }
)
#: The first tag of a body a browser sniffs as HTML (WHATWG MIME Sniffing, "text/html"), after
#: an optional BOM and white space; the tag name ends at white space, ``>`` or ``/``.
_HTML_START = re.compile(
    rb"^(?:\xef\xbb\xbf)?[\t\n\x0c\r ]*<(?:!doctype html|html|head|body|script|iframe|h1|div|font"
    rb"|table|a|style|title|b|br|p|meta|link|!--)(?:[\t\n\x0c\r />]|$)",
    re.IGNORECASE,
)


def sniffs_as_html(body: bytes) -> bool:
    """True when ``body`` starts as an HTML page does (the sniffing rule browsers apply to a
    response without a usable Content-Type)."""
    return bool(_HTML_START.match(body[:1024]))


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


def has_credentials(url: str) -> bool:
    """True when ``url`` carries ``user[:password]@`` in its authority."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "@" in url.partition("://")[2].partition("/")[0]
    return parts.username is not None or parts.password is not None


def check_url(url: str, *, max_length: int) -> None:
    """Refuse non-http(s) schemes, missing hosts, embedded credentials and over-long URLs.

    Credentials in a URL (``http://user:secret@host/``) are never sent, wherever the URL came
    from (start URL, link, redirect): HTTP clients turn them into ``Authorization: Basic``,
    and anchorpath never logs in. The refusal message redacts them.
    """
    if len(url) > max_length:
        shown = redact_url(url)[:80]
        raise UnsafeRequest(f"{shown}...: URL longer than {max_length} characters", url=url)
    if has_credentials(url):
        raise UnsafeRequest(
            f"{redact_url(url)}: URL carries credentials (user:password@); anchorpath never sends "
            "credentials",
            url=redact_url(url),
        )
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
    ip = _ip(text)
    if ip in _METADATA:
        return False
    return bool(ip.is_global) and not ip.is_multicast


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    ip = ipaddress.ip_address(text.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def is_link_local(text: str) -> bool:
    """True for link-local addresses (169.254.0.0/16, fe80::/10) and cloud metadata
    endpoints: refused even when private networks are allowed, unless named explicitly."""
    ip = _ip(text)
    return ip in _METADATA or bool(ip.is_link_local)


def _named(text: str, allowed: str) -> bool:
    """Whether ``allowed`` (comma-separated addresses or networks) names the address."""
    ip = _ip(text)
    for item in allowed.split(","):
        item = item.strip()
        if not item:
            continue
        try:
            if ip in ipaddress.ip_network(item, strict=False):
                return True
        except ValueError:
            continue
    return False


def _system_resolver(host: str, port: int) -> Sequence[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def check_address(
    url: str,
    *,
    allow_private: bool,
    resolver: Resolver | None = None,
    allow_link_local: str = "",
) -> Sequence[str]:
    """Resolve the host of ``url``; refuse it if any address is not public.

    Every address must be public: a name that resolves to one public and one private address
    is refused, since the connection may use either. With ``allow_private`` private and
    loopback addresses pass, but link-local and cloud-metadata ones (169.254.169.254) still
    need to be named in ``allow_link_local`` (comma-separated addresses or networks). DNS
    failure is a (retryable) FetchFailed.
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
    for address in addresses:
        if is_public_address(address):
            continue
        if is_link_local(address) and not _named(address, allow_link_local):
            raise UnsafeRequest(
                f"{url}: {host} resolves to link-local or cloud-metadata address {address}, "
                "refused even with allow_private_networks; to fetch it, name it in "
                "[fetch] allow_link_local (or ANCHORPATH_FETCH__ALLOW_LINK_LOCAL)",
                url=url,
            )
        if not allow_private and not is_link_local(address):
            raise UnsafeRequest(
                f"{url}: {host} resolves to non-public address {address}, refused by default; "
                "to fetch it set [fetch] allow_private_networks = true in the config file or "
                "ANCHORPATH_FETCH__ALLOW_PRIVATE_NETWORKS=1 in the environment",
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


def check_content_type(
    url: str, content_type: str | None, allowed: Iterable[str], body: bytes
) -> None:
    """Refuse a response whose media type is not in ``allowed``. A response without one, or
    with a generic one (:data:`GENERIC_CONTENT_TYPES`) not listed, passes when ``body`` sniffs
    as HTML; a missing type also passes with any other body that is not binary."""
    accepted = {a.lower() for a in allowed}
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media in accepted:
        return
    if not media:
        if sniffs_as_html(body) or not looks_binary(body):
            return
        raise UnsafeRequest(f"{url}: no Content-Type and the body is not text", url=url)
    if media in GENERIC_CONTENT_TYPES and sniffs_as_html(body):
        return
    what = "and the body is not HTML" if media in GENERIC_CONTENT_TYPES else ""
    raise UnsafeRequest(
        f"{url}: unexpected Content-Type {media!r} {what}".rstrip()
        + f" (accepted: {', '.join(sorted(accepted))}; to take it, add it to [fetch] "
        "accept_content_types or ANCHORPATH_FETCH__ACCEPT_CONTENT_TYPES)",
        url=url,
    )
