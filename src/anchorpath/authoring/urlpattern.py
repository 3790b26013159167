"""A page type's URL pattern, induced from the *shape* of its seed URLs and checked against
the links of the seeds.

Why: the literal common prefix of three seeds from one city of a directory
(``/ca/san-francisco/<slug>/<id>``) writes the state and the city into the pattern, and every
other city's page then matches no page type. The rules, per path segment (seeds of different
depths are aligned from the end):

* a segment that varies across the seeds, or looks like an id (holds a digit) or a slug
  (``-``, ``_``, ``+``, ``%`` or over 24 characters), generalises: ``\\d[^/]*`` when every
  value is digits (an id starting with digits), ``[^/]*\\.html`` when they share an
  extension, else ``[^/]+``;
* a constant word (``product``, ``film``, ``pd``) stays literal — it usually names the
  template, and a literal keeps one page type's pattern off the site's other templates —
  unless the seeds' own links show it is data: the lists holding the seeds' same-shape links
  (outside the page chrome) put two or more other words in its place (a category level,
  ``/books/``, ``/music/``, ``/toys/`` side by side in a "related" list), or the site links
  to the path up to it as a page of its own (a breadcrumb level such as ``/ca/`` is data,
  not a type marker).

A trailing slash is optional.

Query parameters present on every seed with varying values are required by name; one with
the same value on every seed is required (with that value) only where the seeds' links show
it is a switch (the same path with another value: ``mode=view`` beside ``mode=list``). The
host is not part of the pattern (``www.`` or not, the selector file names one site). The
result says how many of the seeds' same-shape links it matches, and how many navigation
links it would also match.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urljoin, urlsplit

from lxml import etree

__all__ = ["UrlPattern", "induce_url_pattern", "seed_links"]

_ID = re.compile(r"\d")
_SLUG = re.compile(r"[-_+%]|\s")
_EXT = re.compile(r"\.[A-Za-z0-9]{1,5}$")
_CHROME = {"nav", "header", "footer", "aside"}
_CHROME_ROLES = {"navigation", "banner", "contentinfo", "menu", "menubar"}


@dataclass(frozen=True)
class Link:
    """A link of a seed page: absolute URL, whether it sits in the page's chrome, and the
    list it belongs to (its nearest ``ul``/``ol``/``table``/``dl`` ancestor, else its
    third ancestor: links of one list share ``group``)."""

    url: str
    chrome: bool
    group: str = ""


_LISTS = {"ul", "ol", "table", "tbody", "dl"}


def _group(a: etree._Element, seed: str) -> str:
    anc = list(a.iterancestors())
    box = next((x for x in anc[:6] if x.tag in _LISTS), anc[min(2, len(anc) - 1)] if anc else a)
    return seed + str(box.getroottree().getpath(box))


@dataclass(frozen=True)
class UrlPattern:
    """An induced page-type pattern and the evidence for it."""

    regex: str
    same_shape: int  # links of the seeds with the seed URLs' shape (same-template candidates)
    matched: int  # of those, matched by ``regex``
    chrome_matched: int  # navigation links (header, nav, footer) ``regex`` also matches
    notes: tuple[str, ...] = ()

    def describe(self) -> str:
        """``matches 14 of the seeds' 15 links of the same shape`` (and navigation, if any)."""
        text = f"matches {self.matched} of the seeds' {self.same_shape} links of the same shape"
        if self.chrome_matched:
            text += f", and {self.chrome_matched} navigation link(s)"
        return text


def seed_links(doc: etree._Element, url: str) -> list[Link]:
    """The http(s) links of a parsed seed page, resolved against its URL (and ``<base>``)."""
    base = url
    for b in doc.iter("base"):
        if b.get("href"):
            base = urljoin(url, (b.get("href") or "").strip())
            break
    out = []
    for a in doc.iter("a"):
        href = (a.get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:", "mailto:")):
            continue
        try:
            absolute = urljoin(base, href)
        except ValueError:
            continue
        if urlsplit(absolute).scheme not in ("http", "https"):
            continue
        chrome = any(
            x.tag in _CHROME or (x.get("role") or "") in _CHROME_ROLES
            for x in [a, *a.iterancestors()]
        )
        out.append(Link(absolute.split("#", 1)[0], chrome, _group(a, url)))
    return out


def _segments(url: str) -> list[str]:
    return [unquote(s) for s in urlsplit(url).path.split("/") if s]


def _is_word(value: str) -> bool:
    return not _ID.search(value) and not _SLUG.search(value) and len(value) <= 24


def _general(values: Sequence[str]) -> str:
    if all(v.isdigit() for v in values):
        return r"\d[^/]*"  # ids that start with digits (an ISBN-10 may end in X)
    exts = {m.group(0) for v in values if (m := _EXT.search(v))}
    if len(exts) == 1 and all(_EXT.search(v) for v in values):
        return r"[^/]*" + re.escape(exts.pop())
    return r"[^/]+"


@dataclass
class _Slot:
    values: list[str]
    literal: bool  # a constant word, literal unless the links say otherwise

    @property
    def value(self) -> str:
        return self.values[0]


def _slots(paths: Sequence[list[str]]) -> tuple[list[_Slot], int]:
    """Aligned path slots (from the end) and how many leading segments are optional."""
    m = min(len(p) for p in paths)
    extra = max(len(p) for p in paths) - m
    slots = []
    for k in range(m):
        vals = [p[len(p) - m + k] for p in paths]
        const = len(set(vals)) == 1
        slots.append(_Slot(vals, const and _is_word(vals[0])))
    return slots, extra


def _path_regex(slots: Sequence[_Slot], extra: int) -> str:
    parts = [re.escape(s.value) if s.literal else _general(s.values) for s in slots]
    head = f"(?:[^/]+/){{0,{extra}}}" if extra else ""
    body = head + "/".join(parts)
    if not parts:
        return "/?"
    return "/" + body + ("" if "\\." in parts[-1] else "/?")  # a file name: no slash after


def _query_regex(
    queries: Sequence[list[tuple[str, str]]], path: re.Pattern[str], links: Sequence[Link]
) -> str:
    """Lookaheads for the query parameters every seed has: one whose value varies (the
    search words, the record id) is required by name; one with the same word on every seed
    is required with that word only where the seeds link to the same path with another
    value for it (a switch such as ``mode=view`` / ``mode=list``), else it is incidental
    (``go=Go``) and left out."""
    names = [k for k, _ in queries[0]]
    required = [n for n in dict.fromkeys(names) if all(any(k == n for k, _ in q) for q in queries)]
    looks = []
    for n in required:
        vals = {v for q in queries for k, v in q if k == n}
        value = ""
        if len(vals) == 1:
            only = next(iter(vals))
            switched = {
                v
                for ln in links
                if path.search(ln.url)
                for k, v in parse_qsl(urlsplit(ln.url).query, keep_blank_values=True)
                if k == n and v != only
            }
            if not switched:
                continue
            value = re.escape(only) if _is_word(only) and only else ""
        looks.append(f"(?=(?:[^#]*&)?{re.escape(n)}={value})")
    if not looks:
        return r"(?:[?#]|$)"
    return r"\?" + "".join(looks)


def _regex(slots: Sequence[_Slot], extra: int, query: str, web: bool) -> str:
    """``web``: every seed has an http(s) URL; else (files whose address is unknown yet)
    any scheme, so the pattern still matches the seeds."""
    origin = r"^https?://[^/]+" if web else r"^[A-Za-z][A-Za-z0-9+.-]*://[^/]*"
    return origin + _path_regex(slots, extra) + query


def induce_url_pattern(
    urls: Sequence[str], links: Sequence[Link] = (), *, given: str | None = None
) -> UrlPattern:
    """The page-type pattern of seeds at ``urls``, checked against their ``links``; with
    ``given`` (a pattern the user chose) only the check."""
    paths = [_segments(u) for u in urls]
    queries = [parse_qsl(urlsplit(u).query, keep_blank_values=True) for u in urls]
    slots, extra = _slots(paths) if paths else ([], 0)
    hosts = {urlsplit(u).hostname for u in urls}
    web = all(urlsplit(u).scheme in ("http", "https") for u in urls)
    own = [ln for ln in links if urlsplit(ln.url).hostname in hosts and ln.url not in urls]
    general = [_Slot(s.values, False) for s in slots]
    same_path = re.compile(_regex(slots, extra, r"(?:[?#]|$)", web))
    query = _query_regex(queries, same_path, own) if queries else r"(?:[?#]|$)"
    shape = re.compile(_regex(general, extra, query, web))
    same = [ln for ln in own if shape.search(ln.url)]
    notes = []
    for k, slot in enumerate(slots):
        if not slot.literal or given is not None:
            continue
        why = _generalise_why(k, slot, slots, same, own, paths)
        if why:
            slot.literal = False
            notes.append(f"segment {slot.value!r} generalised: {why}")
    regex = given if given is not None else _regex(slots, extra, query, web)
    compiled = re.compile(regex)
    if given is None and not all(compiled.search(u) for u in urls):  # by construction
        regex = _regex(general, extra, query, web)
        compiled = re.compile(regex)
    return UrlPattern(
        regex,
        sum(1 for ln in same if not ln.chrome),
        sum(1 for ln in same if not ln.chrome and compiled.search(ln.url)),
        sum(1 for ln in own if ln.chrome and compiled.search(ln.url)),
        tuple(notes),
    )


def _generalise_why(
    k: int,
    slot: _Slot,
    slots: Sequence[_Slot],
    same: Sequence[Link],
    own: Sequence[Link],
    paths: Sequence[list[str]],
) -> str | None:
    """Why the constant word of slot ``k`` is data rather than structure (None: keep it)."""
    offset = len(paths[0]) - len(slots)
    at = [(ln, segs[len(segs) - len(slots) + k]) for ln in same if (segs := _segments(ln.url))]
    groups = {ln.group for ln, v in at if v == slot.value}
    others = {v for ln, v in at if not ln.chrome and ln.group in groups} - {slot.value}
    if len(others) >= 2:
        shown = ", ".join(sorted(others)[:3])
        return f"the seeds link to pages of the same shape under {shown}"
    prefix = "/" + "/".join(paths[0][: offset + k + 1])
    if k < len(slots) - 1 and any(urlsplit(ln.url).path.rstrip("/") == prefix for ln in own):
        return f"the seeds link to {prefix} itself (a level of the site's hierarchy)"
    return None
