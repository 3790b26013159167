"""Pairing failing snapshots with last good records (step 1 of the repair, see
``repair.pipeline``), and the value comparison every later step uses: NFKC and white space
normalised, URLs moved to the failing page's origin."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from lxml import etree

from anchorpath.bundle import Snapshot
from anchorpath.selectors.evaluate import PageResult, Record
from anchorpath.selectors.model import PageType

_WS = re.compile(r"[\s\u00a0\u3000\u200b\ufeff]+")


def _norm_text(text: str) -> str:
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip()


def _origin(url: str) -> tuple[str, str]:
    p = urlsplit(url)
    return p.scheme.lower(), p.netloc.lower()


def rebase(value: Any, old_page: str, new_page: str) -> Any:
    """A URL value of the last good page, moved to the failing page's origin.

    Same site, other host/port (the demo server, a staging mirror): an absolute link that
    pointed at the old page's origin now points at the new one's."""
    if isinstance(value, list):
        return [rebase(v, old_page, new_page) for v in value]
    if not isinstance(value, str) or not value.startswith(("http://", "https://")):
        return value
    if _origin(value) != _origin(old_page):
        return value
    p, n = urlsplit(value), urlsplit(new_page)
    return urlunsplit((n.scheme, n.netloc, p.path, p.query, p.fragment))


def canon(value: Any) -> Any:
    """Comparison form of an extracted or stored value (JSON types, normalised text)."""
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list | tuple):
        return [canon(v) for v in value]
    text = value if isinstance(value, str) else str(value)
    return _norm_text(text)


def values_equal(got: Any, want: Any) -> bool:
    """Whether two values are equal after normalisation (see :func:`canon`)."""
    return bool(canon(got) == canon(want))


def _path_query(url: str) -> str:
    p = urlsplit(url)
    return p.path + ("?" + p.query if p.query else "")


# -- matching failing snapshots to last good records ----------------------------------------------


@dataclass
class FailingPage:
    """A failing snapshot, parsed, with what the old selectors make of it."""

    snap: Snapshot
    page_type: PageType
    doc: etree._Element
    text: str  # normalised text of the body, for finding key values
    old: PageResult
    # (key string, last good record, the last good record's page URL)
    matches: list[tuple[str, Mapping[str, Any]]] = field(default_factory=list)
    # key string -> the old record for it (list pages) / the only record (detail pages)
    old_by_key: dict[str, Record | None] = field(default_factory=dict)


def key_of(values: Mapping[str, Any], key: Sequence[str]) -> str | None:
    """The record's key as one string (None when a key value is missing)."""
    parts = []
    for k in key:
        v = canon(values.get(k))
        if v is None:
            return None
        parts.append(str(v))
    return "\x1f".join(parts)


def show_key(key: str) -> str:
    """A key string as shown to a person."""
    return key.replace("\x1f", " / ")


def page_text(doc: etree._Element) -> str:
    """The normalised text of the page body, for finding key values."""
    body = doc.find(".//body")
    node = body if body is not None else doc
    texts = node.xpath("string()")
    return _norm_text(str(texts))


def _key_values_in_text(rec: Mapping[str, Any], key: Sequence[str], text: str) -> int:
    """Position of the record's key values in the page text (-1 when any is absent)."""
    first = -1
    for k in key:
        v = canon(rec.get(k))
        if not isinstance(v, str) or not v:
            return -1
        at = text.find(v)
        if at < 0:
            return -1
        first = at if first < 0 else min(first, at)
    return first


def _support(rec: Mapping[str, Any], text: str, names: Iterable[str]) -> int:
    """How many of the record's string values occur in the page text."""
    n = 0
    for name in names:
        v = canon(rec.get(name))
        if isinstance(v, str) and len(v) > 1 and v in text:
            n += 1
    return n


def _match_detail(
    page: FailingPage,
    good: Sequence[Mapping[str, Any]],
    by_key: Mapping[str, Mapping[str, Any]],
    key: Sequence[str] | None,
    compiled_url: str,
) -> None:
    """A detail page's one last good record: the one of its URL, else the one its old record's
    key names, else the one whose key values (and most other values) its text shows
    (``key``: None when the page type lacks a key field)."""
    pt = page.page_type
    old = page.old.records[0] if page.old.records else None
    want = _path_query(compiled_url)
    same_url = [r for r in good if _path_query(str(r.get("_url", ""))) == want]
    chosen: Mapping[str, Any] | None = same_url[0] if len(same_url) == 1 else None
    if chosen is None and old is not None and key is not None:
        k = key_of(old.values, key)
        chosen = by_key.get(k) if k is not None else None
    if chosen is None and key is not None:
        found = [r for r in by_key.values() if _key_values_in_text(r, key, page.text) >= 0]
        names = list(pt.fields)
        found.sort(key=lambda r: -_support(r, page.text, names))
        if len(found) == 1 or (
            len(found) > 1
            and _support(found[0], page.text, names) > _support(found[1], page.text, names)
        ):
            chosen = found[0]
    if chosen is not None:
        k = key_of(chosen, key) if key is not None else None
        name = k if k is not None else f"url {want}"
        page.matches.append((name, chosen))
        page.old_by_key[name] = old


def match_page(
    page: FailingPage,
    good: Sequence[Mapping[str, Any]],
    key: Sequence[str],
    compiled_url: str,
) -> None:
    """Pair the page's records with last good records of its page type (see module doc)."""
    pt = page.page_type
    by_key: dict[str, Mapping[str, Any]] = {}
    for rec in good:
        k = key_of(rec, key)
        if k is not None:
            by_key.setdefault(k, rec)
    has_key = all(k in pt.fields for k in key)
    if pt.record_root is None:
        _match_detail(page, good, by_key, key if has_key else None, compiled_url)
        return
    if not has_key:
        return  # list records without their key cannot be paired one by one
    old_keys: dict[str, Record] = {}
    for r in page.old.records:
        k = key_of(r.values, key)
        if k is not None:
            old_keys.setdefault(k, r)
    paired = [(k, by_key[k]) for k in old_keys if k in by_key]
    if len(paired) >= 2 or (paired and len(page.old.records) == len(paired)):
        for k, rec in paired:
            page.matches.append((k, rec))
            page.old_by_key[k] = old_keys[k]
        return
    # The record root or the key field broke: find the last good keys in the page text.
    in_text: list[tuple[int, str, Mapping[str, Any]]] = []
    for k, rec in by_key.items():
        at = _key_values_in_text(rec, key, page.text)
        if at >= 0:
            in_text.append((at, k, rec))
    # The old record of such a key is the one whose row holds the key text (if the old root
    # still selects rows): its other fields may still be right.
    rows = select_elements(pt.record_root, page.doc)
    row_texts = (
        [_norm_text(str(r.xpath("string()"))) for r in rows]
        if len(rows) == len(page.old.records)
        else []
    )
    for _at, k, rec in sorted(in_text, key=lambda t: t[0]):
        page.matches.append((k, rec))
        holders = [i for i, t in enumerate(row_texts) if _key_values_in_text(rec, key, t) >= 0]
        page.old_by_key[k] = page.old.records[holders[0]] if len(holders) == 1 else None


def want_value(rec: Mapping[str, Any], name: str, page: FailingPage) -> Any:
    """The last good value of ``name``, URLs moved to the failing page's origin."""
    return rebase(rec.get(name), str(rec.get("_url", "")), page.snap.url)


def select_elements(xpath: str | None, doc: etree._Element) -> list[etree._Element]:
    """The elements ``xpath`` selects in ``doc`` (none for no XPath or a bad one)."""
    if not xpath:
        return []
    try:
        res = doc.xpath(xpath)
    except etree.XPathError:
        return []
    return [r for r in res if isinstance(r, etree._Element)] if isinstance(res, list) else []
