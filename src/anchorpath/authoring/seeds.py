"""Loading seed pages: local files or URLs (through a caller-supplied fetch callable).

Seeds are kept as decoded text plus the sha256 of the original bytes, so provenance can name
exactly which snapshot a selector file was authored from. Nothing here opens a network
connection itself: URLs are fetched only through ``fetch`` (tests pass a stub).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from anchorpath._errors import AnchorpathError, AuthoringError
from anchorpath.selectors.decode import decode_html
from anchorpath.selectors.page_url import declared_url

if TYPE_CHECKING:  # a fetcher is given by the caller; this module never imports one
    from anchorpath.fetch.result import FetchResult

__all__ = [
    "FetchLike",
    "SeedPage",
    "load_seed",
    "seed_from_html",
]


@runtime_checkable
class _Fetches(Protocol):
    """An object with ``fetch(url)``: a :class:`~anchorpath.fetch.protocol.Fetcher`."""

    def fetch(self, url: str) -> FetchResult: ...


#: ``fetch(url) -> bytes``, or a fetcher whose ``fetch(url)`` returns a ``FetchResult``.
FetchLike = Callable[[str], bytes] | _Fetches


@dataclass(frozen=True)
class SeedPage:
    """One seed page: the URL it stands for, its decoded text and the hash of its bytes.

    ``url_from`` says where ``url`` came from: ``"given"`` (``--seed-url``, a fetched URL),
    what the page declares (``"<base href>"``, ``"<link rel=canonical>"``, ``"og:url"``), or
    ``"file"`` when nothing says: then ``url`` is the file's ``file://`` URI, which a run cannot
    fetch.
    """

    url: str
    html: str
    sha256: str
    source: str
    url_from: str = "given"
    #: data (XHR/fetch) requests the page's scripts made while it rendered
    loaded: tuple[str, ...] = ()

    @property
    def url_known(self) -> bool:
        return self.url_from != "file"


def _is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))


def seed_from_html(
    html: str | bytes, url: str, *, source: str | None = None, charset: str | None = None
) -> SeedPage:
    """A seed from page text or bytes already in memory (benchmarks, tests, the LLM loop)."""
    raw = html.encode("utf-8") if isinstance(html, str) else html
    try:
        text = html if isinstance(html, str) else decode_html(html, charset)[0]
    except AnchorpathError as exc:
        raise AuthoringError(f"{source or url}: cannot decode seed page: {exc}") from exc
    return SeedPage(
        url=url, html=text, sha256=hashlib.sha256(raw).hexdigest(), source=source or url
    )


def _call_fetch(fetch: FetchLike, url: str) -> tuple[bytes, str | None, str]:
    result: object = fetch.fetch(url) if isinstance(fetch, _Fetches) else fetch(url)
    if isinstance(result, bytes | bytearray):
        return bytes(result), None, url
    body = getattr(result, "body", None)
    if not isinstance(body, bytes | bytearray):
        raise AuthoringError(f"{url}: fetch returned {type(result).__name__}, not page bytes")
    final = getattr(result, "final_url", None) or url
    return bytes(body), getattr(result, "charset", None), str(final)


def load_seed(
    path_or_url: str, *, fetch: FetchLike | None = None, url: str | None = None
) -> SeedPage:
    """Load one seed page.

    A path is read from disk; its ``url`` is ``url`` if given, else the URL the page declares
    (``<base href>``, ``<link rel=canonical>``, ``og:url``), else its ``file://`` URI. An
    ``http(s)://`` address is fetched with ``fetch`` — a ``Callable[[str], bytes]`` or a
    ``Fetcher``-like object — and without one, loading a URL is an error (no hidden network).
    """
    if _is_url(path_or_url):
        if fetch is None:
            raise AuthoringError(f"{path_or_url}: seed is a URL but no fetcher was given")
        try:
            body, charset, final = _call_fetch(fetch, path_or_url)
        except AnchorpathError as exc:
            raise AuthoringError(f"{path_or_url}: cannot fetch seed page: {exc}") from exc
        return seed_from_html(body, url or final, source=path_or_url, charset=charset)
    path = Path(path_or_url)
    try:
        body = path.read_bytes()
    except OSError as exc:
        raise AuthoringError(
            f"{path_or_url}: cannot read seed page: {exc.strerror or exc}"
        ) from exc
    if url is not None:
        return seed_from_html(body, url, source=path_or_url)
    try:
        declared = declared_url(body)
    except AnchorpathError:
        declared = None
    seed = seed_from_html(
        body, declared.url if declared else path.resolve().as_uri(), source=path_or_url
    )
    return replace(seed, url_from=declared.source if declared else "file")
