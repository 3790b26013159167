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


_CAMEL = re.compile(r"([a-z0-9])([A-Z])")


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _is_region(el: etree._Element) -> bool:
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag in ("html", "body"):
        return False
    if tag in _REGION_TAGS:
        return True
    if tag in _BANNER_TAGS:
        return not any(
            isinstance(a.tag, str) and a.tag.lower() in _SECTIONING for a in el.iterancestors()
        )
    if (el.get("role") or "").lower() in _REGION_ROLES:
        return True
    ident, cls = el.get("id"), el.get("class")
    if not ident and not cls:
        return False
    named = (ident or "") + " " + (cls or "")
    # camelCase names are words too: ``cnnOverlayMenu`` → ``cnn Overlay Menu``
    return bool(_REGION_NAME.search(_CAMEL.sub(r"\1 \2", named)))


@dataclass(frozen=True)
class PageTexts:
    """The short element texts of one page, split by where they sit."""

    template: frozenset[str]  # inside a template region
    content: frozenset[str]  # outside every template region


def template_texts(doc: etree._Element) -> PageTexts:
    """The normalised texts (≤ :data:`MAX_TEMPLATE_TEXT` characters) of the page's elements,
    split into those inside a template region and those outside."""
    template: set[str] = set()
    content: set[str] = set()
    nodes = [el for el in doc.iter() if isinstance(el.tag, str)]
    inside: dict[etree._Element, bool] = {}
    for el in nodes:
        parent = el.getparent()
        inside[el] = (inside.get(parent, False) if parent is not None else False) or _is_region(el)
    # An element's ``string()`` is its text, then each child's string() and tail (comments and
    # processing instructions add their tails only): built children first, in one pass.
    texts: dict[etree._Element, str] = {}
    for el in reversed(nodes):
        parts = [el.text or ""]
        for child in el:
            if isinstance(child.tag, str):
                parts.append(texts.pop(child))
            parts.append(child.tail or "")
        raw = "".join(parts)
        texts[el] = raw
        if el.tag in ("script", "style", "head", "title", "noscript"):
            continue
        if len(raw) > 4 * MAX_TEMPLATE_TEXT and len(raw.split(None, MAX_TEMPLATE_TEXT)) > (
            MAX_TEMPLATE_TEXT
        ):
            continue  # more words than characters allowed: too long once normalised
        text = _norm(raw)
        if text and len(text) <= MAX_TEMPLATE_TEXT:
            (template if inside[el] else content).add(text)
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
