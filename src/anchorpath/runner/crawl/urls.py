"""URL normalisation before dedupe, and crawler-trap guards. Pure functions, no I/O.

Normalisation follows *HTTP: The Definitive Guide* (Gourley & Totty), ch. 9 ("Web Robots":
canonicalising URLs to avoid visiting the same page twice):

* scheme and host lower-cased, the default port (80 for http, 443 for https) dropped;
* the fragment dropped (it never reaches the server);
* percent-encoded *unreserved* characters (``A-Z a-z 0-9 - . _ ~``) decoded, every other
  escape written with upper-case hex (``%7e`` → ``~``, ``%2f`` stays ``%2F``);
* ``.`` and ``..`` path segments resolved, an empty path written ``/``;
* session and tracking query parameters dropped (the selector file's ``drop_params`` plus
  well-known ones such as ``utm_*``, ``jsessionid``, ``phpsessid``).

The query keeps its order: servers may read parameters positionally, and reordering would make
two URLs equal that a server treats differently.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

__all__ = [
    "DEFAULT_DROP_PARAMS",
    "is_allowed",
    "normalize_url",
    "rewrite_origin",
    "same_origin",
    "trap_reason",
]

#: Session / tracking parameters dropped from every URL (lower-case; ``*`` = prefix).
DEFAULT_DROP_PARAMS: tuple[str, ...] = (
    "utm_*",
    "gclid",
    "fbclid",
    "mc_cid",
    "mc_eid",
    "jsessionid",
    "phpsessid",
    "sid",
    "sessionid",
    "aspsessionid*",
)

_DEFAULT_PORTS = {"http": 80, "https": 443}
_PCT = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# Characters left as they are when re-quoting a path or query (RFC 3986 reserved + '%').
_PATH_SAFE = "/:@!$&'()*+,;=%~-._"
_MATRIX_SESSION = re.compile(r";(jsessionid|phpsessid|sid)=[^/?#]*", re.IGNORECASE)


def _fix_escapes(text: str) -> str:
    """Decode escapes of unreserved characters, upper-case the hex of all others."""

    def sub(m: re.Match[str]) -> str:
        ch = chr(int(m.group(1), 16))
        return ch if ch in _UNRESERVED else f"%{m.group(1).upper()}"

    return _PCT.sub(sub, text)


def _drop(name: str, patterns: Sequence[str]) -> bool:
    low = name.lower()
    for p in patterns:
        p = p.lower()
        if (p.endswith("*") and low.startswith(p[:-1])) or low == p:
            return True
    return False


def _resolve_dots(path: str) -> str:
    if not path:
        return "/"
    trailing = path.endswith("/") or path.endswith("/.") or path.endswith("/..")
    resolved = posixpath.normpath(path)
    # normpath keeps a leading '//' (POSIX rule) and can return '.', neither is a URL path.
    resolved = "/" + resolved.lstrip("/") if resolved not in (".", "") else "/"
    if trailing and not resolved.endswith("/"):
        resolved += "/"
    return resolved


def normalize_url(url: str, drop_params: Iterable[str] = ()) -> str:
    """The canonical form of ``url`` used for dedupe (see the module docstring).

    >>> normalize_url("HTTP://Example.COM:80/a/./b/../%7euser?utm_source=x&id=3#top")
    'http://example.com/a/~user?id=3'
    """
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if host and ":" in host:  # IPv6 literal
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        netloc = f"{host}:{port}"
    if parts.username:
        auth = parts.username + (f":{parts.password}" if parts.password else "")
        netloc = f"{auth}@{netloc}"
    path = _MATRIX_SESSION.sub("", parts.path)
    path = quote(_fix_escapes(path), safe=_PATH_SAFE)
    if scheme in _DEFAULT_PORTS or netloc:
        path = _resolve_dots(path)
    patterns = (*DEFAULT_DROP_PARAMS, *drop_params)
    query = ""
    if parts.query:
        pairs = [
            (k, v)
            for k, v in parse_qsl(_fix_escapes(parts.query), keep_blank_values=True)
            if not _drop(k, patterns)
        ]
        query = urlencode(pairs, safe=_PATH_SAFE.replace("&", "").replace("=", ""))
    return urlunsplit((scheme, netloc, path, query, ""))


def trap_reason(
    url: str,
    *,
    max_length: int = 2048,
    max_segment_repeats: int = 3,
    max_segments: int = 40,
) -> str | None:
    """Why ``url`` looks like a crawler trap, or None when it does not.

    Guards (depth is the crawler's job): a length cap, a path segment repeated more than
    ``max_segment_repeats`` times (``/a/b/a/b/a/b/...`` calendars and relative-link loops),
    and an absurd number of path segments.
    """
    if len(url) > max_length:
        return f"URL longer than {max_length} characters"
    segments = [s for s in urlsplit(url).path.split("/") if s]
    if len(segments) > max_segments:
        return f"more than {max_segments} path segments"
    counts: dict[str, int] = {}
    for s in segments:
        counts[s] = counts.get(s, 0) + 1
        if counts[s] > max_segment_repeats:
            return f"path segment {s!r} repeated more than {max_segment_repeats} times"
    return None


def same_origin(a: str, b: str) -> bool:
    """True when both URLs share scheme, host and (effective) port."""
    pa, pb = urlsplit(normalize_url(a)), urlsplit(normalize_url(b))
    return (pa.scheme, pa.netloc) == (pb.scheme, pb.netloc)


def is_allowed(
    url: str, *, allow: Sequence[str], deny: Sequence[str], start_urls: Sequence[str]
) -> bool:
    """The selector file's URL policy: ``allow`` regexes (default: the start URLs' origins),
    then ``deny`` regexes, which win."""
    if allow:
        ok = any(re.search(p, url) for p in allow)
    else:
        ok = any(same_origin(url, s) for s in start_urls)
    return ok and not any(re.search(p, url) for p in deny)


def rewrite_origin(url: str, base_url: str | None) -> str:
    """``url`` with its scheme/host/port replaced by ``base_url``'s (None: unchanged).

    Lets one selector file (written for ``http://127.0.0.1:8765``) run against a demo server on
    an ephemeral port, or against a staging copy of a site.
    """
    if not base_url:
        return url
    p, b = urlsplit(url), urlsplit(base_url)
    return urlunsplit((b.scheme, b.netloc, p.path or "/", p.query, p.fragment))
