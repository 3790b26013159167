"""Which extracted values are the page's template text (navigation, header, footer)?

A field's value that is also the text of a menu entry, a section tab or a footer link is
template, not content: a headline selector that slid onto the nav bar's "Asia" tab, or a field
reading a footer's "Share this on:". The run records, per record, the fields whose value equals
(case-folded, white space collapsed) the whole text of an element inside the page's template
regions and of no element outside them (a headline that is also listed in a "most read"
sidebar is still content). Template regions: ``<nav>``, ``<aside>``, the page's own
``<header>`` and ``<footer>`` (not an article's or a section's: HTML's implicit
banner/contentinfo), elements with the ARIA role ``navigation``, ``banner`` or
``contentinfo``, and elements whose ``id`` or ``class`` names them (``nav``, ``menu``,
``footer``, ``masthead``, ``breadcrumb``, ``sidebar``, also as camelCase words:
``cnnOverlayMenu``; not ``header``, as often an article's headline block). The drift gate
compares the share of such values with the baseline's: a field that always held a tab label is
left alone, one that starts to is drift.

Pure, on a parsed document; the sets of short element texts are built once per page.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from lxml import etree

__all__ = ["MAX_TEMPLATE_TEXT", "PageTexts", "template_fields", "template_texts"]

#: Longer element texts are not kept (template entries are short; a whole footer is not one).
MAX_TEMPLATE_TEXT = 200

_REGION_TAGS = {"nav", "aside"}
# ``<header>``/``<footer>`` are the page's banner/contentinfo only outside these (HTML's
# implicit ARIA roles); inside an article they are its byline box or headline block.
_BANNER_TAGS = {"header", "footer"}
_SECTIONING = {"article", "aside", "main", "nav", "section"}
_REGION_ROLES = {"navigation", "banner", "contentinfo"}
_REGION_NAME = re.compile(
    r"(^|[\s_-])(nav|navbar|navigation|menu|footer|masthead|breadcrumbs?|sidebar)"
    r"([\s_-]|$)",
    re.IGNORECASE,
)


# Where camelCase starts a word: ``cnnOverlayMenu`` → ``cnn Overlay Menu``.
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _page_banner(el: etree._Element) -> bool:
    """Whether a ``<header>``/``<footer>`` is the page's own (in no sectioning element)."""
    return not any(
        isinstance(a.tag, str) and a.tag.lower() in _SECTIONING for a in el.iterancestors()
    )


@lru_cache(maxsize=4096)
def _region_name(names: str) -> bool:
    """Whether an element's ``id`` and ``class`` (joined by a space) name a template region;
    camelCase names are words too (pages repeat their class names: the answers are kept)."""
    return bool(_REGION_NAME.search(_CAMEL.sub(" ", names)))


@dataclass(frozen=True)
class PageTexts:
    """The short element texts of one page, split by where they sit."""

    template: frozenset[str]  # inside a template region
    content: frozenset[str]  # outside every template region


_NOT_TEXT = ("script", "style", "head", "title", "noscript")


def _is_region(el: etree._Element) -> bool:
    """Whether an element is a template region: a banner of the page, a nav/header/footer
    element, or one whose role, id or class names such a region."""
    tag = el.tag.lower()
    if tag in _BANNER_TAGS:
        return _page_banner(el)
    if tag in _REGION_TAGS:
        return True
    if tag in ("html", "body"):
        return False
    role, ident, cls = el.get("role"), el.get("id"), el.get("class")
    if role is not None and role.lower() in _REGION_ROLES:
        return True
    return bool(ident or cls) and _region_name((ident or "") + " " + (cls or ""))


def template_texts(doc: etree._Element) -> PageTexts:
    """The normalised texts (≤ :data:`MAX_TEMPLATE_TEXT` characters) of the page's elements,
    split into those inside a template region and those outside."""
    template: set[str] = set()
    content: set[str] = set()
    # An element's ``string()`` is its text, then each child's string() and tail (comments and
    # processing instructions add their tails only): in one walk, ``pieces`` holds the text
    # pieces in document order and an element's string is the join of those from its start to
    # its end. An element's normalised text is at least as long as any descendant's: once one
    # is too long, its pieces are dropped and its open ancestors (depth < ``long_depth``) are
    # too long without building their strings.
    pieces: list[str] = []
    starts: list[int] = []  # where each open element's pieces begin
    long_depth = 0
    region_depth = -1  # the depth of the open template region (-1: none)
    normed: dict[str, str] = {}
    for event, el in etree.iterwalk(doc, events=("start", "end", "comment", "pi")):
        if event == "start":
            if region_depth < 0 and _is_region(el):
                region_depth = len(starts)
            starts.append(len(pieces))
            text = el.text
            if text:
                pieces.append(text)
            continue
        if event == "end":
            start = starts.pop()
            depth = len(starts)
            n = len(pieces) - start
            if depth < long_depth:
                long_depth = depth
                del pieces[start:]
            elif n:
                raw = pieces[start] if n == 1 else "".join(pieces[start:])
                if raw.isspace() or el.tag in _NOT_TEXT:
                    pass
                elif (
                    len(raw) > 4 * MAX_TEMPLATE_TEXT
                    and len(raw.split(None, MAX_TEMPLATE_TEXT)) > MAX_TEMPLATE_TEXT
                ):
                    long_depth = depth  # more words than characters allowed
                    del pieces[start:]
                else:
                    text = normed.get(raw)  # a wrapper's string is often its child's
                    if text is None:
                        text = normed[raw] = _norm(raw)
                    if len(text) > MAX_TEMPLATE_TEXT:
                        long_depth = depth
                        del pieces[start:]
                    else:
                        (template if region_depth >= 0 else content).add(text)
            if depth == region_depth:
                region_depth = -1
        tail = el.tail
        if tail:
            pieces.append(tail)
    return PageTexts(frozenset(template), frozenset(content))


def template_fields(values: Mapping[str, Any], texts: PageTexts) -> list[str]:
    """The fields of one record whose (string) value is template text *rather than* content:
    the text of an element inside a template region and of no element outside one (a headline
    that also appears in a "most read" sidebar is still content)."""
    hits = []
    for name, value in values.items():
        if not isinstance(value, str) or not value.strip():
            continue
        text = _norm(value)
        if text in texts.template and text not in texts.content:
            hits.append(name)
    return hits
