"""The URL a saved page says it came from: ``<base href>``, ``<link rel=canonical>``, ``og:url``.

A selector file picks page types by URL, so a page saved to disk is useless without the URL it
was fetched from. Authoring (seed files) and ``anchorpath extract`` (saved pages) both ask the
page itself, in this order, and take the first absolute http(s) URL (a relative one says
nothing about the origin). Pure: the caller reads the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from anchorpath.selectors.evaluate import parse_html

__all__ = ["DeclaredUrl", "declared_url", "is_http_url", "looks_binary"]

# Magic numbers of files people save by mistake next to their pages.
_MAGIC = (b"%PDF", b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"PK\x03\x04", b"\x1f\x8b", b"\x7fELF")


@dataclass(frozen=True)
class DeclaredUrl:
    url: str
    source: str  # "<base href>", "<link rel=canonical>" or "og:url"


def is_http_url(url: str) -> bool:
    """An absolute http(s) URL with a host (what a start URL or ``--url`` must be), without
    white space or control characters."""
    if not url.isprintable() or any(ch.isspace() for ch in url):
        return False
    try:
        parts = urlsplit(url)
        port_ok = parts.port is None or 0 < parts.port < 65536
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname) and port_ok


def looks_binary(body: bytes) -> bool:
    """True for bytes no HTML page starts with: a known file signature or NUL bytes early on
    (UTF-16 pages with a BOM are text)."""
    head = body[:2048]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    return head.startswith(_MAGIC) or b"\x00" in head


def declared_url(html: bytes | str, http_charset: str | None = None) -> DeclaredUrl | None:
    """The page's own statement of its URL, or None when it makes none."""
    doc = parse_html(html, http_charset, plain=True)
    found: dict[str, str] = {}
    for el in doc.iter("base", "link", "meta"):
        if el.tag == "base" and "base" not in found:
            found["base"] = (el.get("href") or "").strip()
        elif el.tag == "link" and "canonical" not in found:
            rels = (el.get("rel") or "").lower().split()
            if "canonical" in rels:
                found["canonical"] = (el.get("href") or "").strip()
        elif (
            el.tag == "meta"
            and "og" not in found
            and (el.get("property") or el.get("name") or "").strip().lower() == "og:url"
        ):
            found["og"] = (el.get("content") or "").strip()
    for name, source in (
        ("base", "<base href>"),
        ("canonical", "<link rel=canonical>"),
        ("og", "og:url"),
    ):
        url = found.get(name, "")
        if is_http_url(url):
            return DeclaredUrl(url, source)
    return None
