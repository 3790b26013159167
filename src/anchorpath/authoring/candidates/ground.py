"""Grounding: trace every example value to the DOM node(s) that hold it.

Candidates are text nodes, element string values (values split across inline children),
attributes (href, src, content, title, alt, value), meta tags and JSON-LD properties whose
normalised text equals the value — or contains it with a short label residue such as
``"ISBN-13: 9780316125581"``. Normalisation is NFKC, white space collapsed (NBSP included),
case folded; entities are already decoded by the parser.

Several candidates per page (a title in ``<title>``, ``<h1>`` and the breadcrumb) are kept and
ranked by *structural consistency across seeds*: a candidate whose tag path recurs on every
seed beats one that appears on a single page. Final choice happens after XPath verification.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from lxml import etree

from anchorpath._errors import GroundingError

__all__ = [
    "VALUE_ATTRIBUTES",
    "DocIndex",
    "Target",
    "consistent_targets",
    "ground_value",
    "grounding_note",
    "itext",
    "norm",
    "signature",
    "targets_at",
    "text_children",
]

#: Attributes whose value may be a field value.
VALUE_ATTRIBUTES = ("href", "src", "content", "title", "alt", "value", "datetime")
#: Elements whose text never holds a field value (JSON-LD scripts are handled on their own).
_SKIP = {"script", "style", "noscript", "template"}
_ROOTS = {"html", "head", "body"}
#: A label residue longer than this is not a label: the value is part of running text.
MAX_RESIDUE = 60

_WS = re.compile(r"[\s\u00a0\u3000\u200b\ufeff]+")


def itext(el: etree._Element) -> str:
    """All text inside ``el`` (descendants included), as one string."""
    return "".join(str(t) for t in el.itertext())


def text_children(el: etree._Element) -> list[str]:
    """The non-blank ``text()`` children of ``el`` (its text and its children's tails)."""
    res = el.xpath("text()")
    return [r for r in res if isinstance(r, str) and r.strip()] if isinstance(res, list) else []


def norm(text: str) -> str:
    """Comparison form: NFKC, white space collapsed and stripped, case folded."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


def _display(text: str) -> str:
    """Like :func:`norm` without case folding (residues keep their case for regexes)."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip()


@dataclass(frozen=True, eq=False)
class Target:
    """One place a value was found.

    ``mode``: ``element`` (the element's whole string value), ``text`` (its ``text_index``-th
    non-blank text child), ``attr`` (attribute ``attr``) or ``jsonld`` (property ``json_key``
    of the ``text_index``-th JSON-LD script). ``prefix``/``suffix`` are the residue around the
    value inside that node's text (a label like ``"ISBN: "``), empty for exact matches.
    """

    element: etree._Element
    mode: str
    attr: str | None = None
    text_index: int | None = None
    json_key: str | None = None
    prefix: str = ""
    suffix: str = ""
    zone: str = "body"  # body | head | meta | title | jsonld
    found: str = ""  # the value as spelled on the page (case kept), when read from text

    def case_exact(self, value: str) -> bool:
        """The page spells the value exactly as the example does (case included)."""
        return not self.found or self.found == _display(value)

    @property
    def exact(self) -> bool:
        return not self.prefix and not self.suffix

    def describe(self) -> str:
        where = self.element.getroottree().getpath(self.element)
        if self.mode == "attr":
            return f"{where}/@{self.attr}"
        if self.mode == "text":
            return f"{where}/text()[{self.text_index}]"
        if self.mode == "jsonld":
            return f"{where} (JSON-LD {self.json_key!r})"
        return where


class DocIndex:
    """Per-document cache of normalised texts, so grounding 20 fields scans the page once."""

    def __init__(self, doc: etree._Element, url: str) -> None:
        self.doc = doc
        self.url = url
        self.elements: list[etree._Element] = []
        self.text: dict[etree._Element, str] = {}
        self.raw: dict[etree._Element, str] = {}
        for el in doc.iter():
            if not isinstance(el.tag, str):
                continue
            if el.tag in _SKIP or any(
                isinstance(a.tag, str) and a.tag in _SKIP for a in el.iterancestors()
            ):
                continue
            self.elements.append(el)
            raw = itext(el) if len(el) else (el.text or "")
            self.raw[el] = raw
        # Text inside skipped descendants (inline scripts) must not count: recompute lazily
        # only for the few elements that have such children.
        for el in self.elements:
            if any(isinstance(c.tag, str) and c.tag in _SKIP for c in el.iter()):
                self.raw[el] = "".join(_visible_text(el))
            self.text[el] = norm(self.raw[el])
        self.jsonld = _jsonld_blocks(doc)


def _visible_text(el: etree._Element) -> Iterator[str]:
    if isinstance(el.tag, str) and el.tag in _SKIP:
        return
    if el.text:
        yield el.text
    for child in el:
        yield from _visible_text(child)
        if child.tail:
            yield child.tail


def _jsonld_blocks(doc: etree._Element) -> list[tuple[etree._Element, Any]]:
    out = []
    for script in doc.iter("script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json":
            continue
        try:
            out.append((script, json.loads(script.text or "")))
        except ValueError:
            continue
    return out


def _walk_json(data: Any, key: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _walk_json(v, str(k))
    elif isinstance(data, list):
        for v in data:
            yield from _walk_json(v, key)
    elif isinstance(data, str | int | float) and not isinstance(data, bool) and key:
        yield key, str(data)


def _zone(el: etree._Element) -> str:
    tag = el.tag
    if tag == "title":
        return "title"
    if tag == "meta":
        return "meta"
    for a in el.iterancestors():
        if a.tag == "head":
            return "head"
    return "body"


def _split(haystack_display: str, value_display: str) -> tuple[str, str] | None:
    """Residue (prefix, suffix) around the value, case-insensitively; None if absent."""
    hs, vs = haystack_display.casefold(), value_display.casefold()
    i = hs.find(vs)
    if i < 0:
        return None
    return haystack_display[:i], haystack_display[i + len(vs) :]


def ground_value(
    index: DocIndex, value: str, *, field: str = "?", page: str = "?", ftype: str = "string"
) -> list[Target]:
    """Every node of the indexed page holding ``value``, best-looking first.

    Raises :class:`GroundingError` naming ``field`` and ``page`` when nothing matches.
    """
    want = norm(value)
    if not want:
        raise GroundingError(f"field {field!r} on page {page}: empty example value")
    exact, partial = _text_targets(index, want, _display(value))
    found = exact + _attr_targets(index, want) + partial + _jsonld_targets(index, want)
    # Exact case wins: when the page spells the value as the example does somewhere, the
    # case-insensitive matches (``html`` in ``<!DOCTYPE html>`` for "HTML") are dropped.
    if any(t.found and t.case_exact(value) for t in found):
        found = [t for t in found if t.case_exact(value)]
    if not found and ftype in _TYPED:
        found = _ground_typed(index, value, ftype)
    # Body first, then meta, title, JSON-LD: visible content is what the next template keeps.
    order = {"body": 0, "meta": 1, "title": 2, "head": 3, "jsonld": 4}
    found.sort(key=lambda t: (order.get(t.zone, 5), not t.exact))
    if not found:
        raise GroundingError(
            f"field {field!r}: value {value!r} not found on page {page} "
            "(checked text, attributes, meta tags and JSON-LD)"
        )
    return found


def _text_targets(
    index: DocIndex, want: str, want_display: str
) -> tuple[list[Target], list[Target]]:
    """The elements and text children holding ``want``: whole (exact) and inside a
    slightly longer text (partial), in document order."""
    exact: list[Target] = []
    partial: list[Target] = []
    for el in index.elements:
        t = index.text[el]
        if want not in t or el.tag in _ROOTS:
            continue
        children_with = [c for c in el if isinstance(c.tag, str) and want in index.text.get(c, "")]
        if t == want:
            exact.extend(_exact_elements(index, el, want))
        elif not children_with and len(t) <= len(want) + MAX_RESIDUE:
            target = _partial_element(index, el, want_display)
            if target is not None:
                partial.append(target)
        # Mixed content: the value may sit in one text child (``<b>ISBN:</b> 978…``).
        if len(el) and not children_with:
            _text_child_targets(el, want, want_display, exact, partial)
    return exact, partial


def _exact_elements(index: DocIndex, el: etree._Element, want: str) -> list[Target]:
    """The deepest element with exactly this text, plus ancestors with identical text
    (``<td><a>x</a></td>``): XPath verification decides which reads best. Empty when a
    child holds the same text (that child is the deepest)."""
    if any(index.text.get(c) == want for c in el):
        return []
    shown = _display(index.raw[el])
    out = [Target(el, "element", zone=_zone(el), found=shown)]
    for depth, anc in enumerate(el.iterancestors()):
        if depth >= 2 or anc.tag in _ROOTS or index.text.get(anc) != want:
            break
        out.append(Target(anc, "element", zone=_zone(anc), found=shown))
    return out


def _partial_element(index: DocIndex, el: etree._Element, want_display: str) -> Target | None:
    """``el`` when its text is the value plus a short prefix/suffix, else None."""
    hay = _display(index.raw[el])
    split = _split(hay, want_display)
    if split is None:
        return None
    shown = hay[len(split[0]) : len(hay) - len(split[1])]
    return Target(el, "element", prefix=split[0], suffix=split[1], zone=_zone(el), found=shown)


def _text_child_targets(
    el: etree._Element, want: str, want_display: str, exact: list[Target], partial: list[Target]
) -> None:
    """The text children of ``el`` equal to (appended to ``exact``) or slightly longer than
    (appended to ``partial``) the value."""
    for i, s in enumerate(text_children(el), start=1):
        ts = _display(str(s))
        if ts.casefold() == want:
            exact.append(Target(el, "text", text_index=i, zone=_zone(el), found=ts))
        elif want in ts.casefold() and len(ts) <= len(want) + MAX_RESIDUE:
            split = _split(ts, want_display)
            if split is not None:
                partial.append(
                    Target(
                        el,
                        "text",
                        text_index=i,
                        prefix=split[0],
                        suffix=split[1],
                        zone=_zone(el),
                        found=ts[len(split[0]) : len(ts) - len(split[1])],
                    )
                )


def _attr_targets(index: DocIndex, want: str) -> list[Target]:
    """The value attributes (``content``, ``href``…) equal to the value; links also
    compare resolved against the page URL."""
    attrs: list[Target] = []
    for el in index.doc.iter():
        if not isinstance(el.tag, str) or not el.attrib:
            continue
        for name in VALUE_ATTRIBUTES:
            v = el.get(name)
            if v is None or not v.strip():
                continue
            if norm(v) == want or (
                name in ("href", "src") and norm(urljoin(index.url, v.strip())) == want
            ):
                attrs.append(Target(el, "attr", attr=name, zone=_zone(el)))
    return attrs


def _jsonld_targets(index: DocIndex, want: str) -> list[Target]:
    """The JSON-LD values equal to the value, by script and key."""
    return [
        Target(script, "jsonld", text_index=i, json_key=key, zone="jsonld")
        for i, (script, data) in enumerate(index.jsonld, start=1)
        for key, v in _walk_json(data)
        if norm(v) == want
    ]


_TYPED = ("date", "datetime", "integer", "number", "url")


def _ground_typed(index: DocIndex, value: str, ftype: str) -> list[Target]:
    """Typed examples (``2024-03-04`` for a page showing ``2024.03.04``, ``1200`` for
    ``1,200``): match leaf texts by converted value. Only used when text matching failed."""
    from anchorpath.selectors.model import Normalize
    from anchorpath.selectors.normalize import convert

    nz = Normalize()
    try:
        want = convert(_display(value), ftype, nz, index.url)
    except ValueError:
        return []
    out = []
    for el in index.elements:
        if el.tag in _ROOTS or any(isinstance(c.tag, str) for c in el):
            continue
        text = _display(index.raw[el])
        if not text or len(text) > 40:
            continue
        try:
            if convert(text, ftype, nz, index.url) == want:
                out.append(Target(el, "element", zone=_zone(el)))
        except ValueError:
            continue
    return out


def grounding_note(targets: Sequence[Target], value: str, *, field: str, page: str) -> str | None:
    """What a person should know about how their example was found: only case-insensitively,
    or only inside a longer text (then a normalisation derives the value). None when the page
    shows the value exactly as given."""
    spelled = [t for t in targets if t.found]
    if not spelled:
        return None
    if not any(t.case_exact(value) for t in spelled):
        return (
            f"field {field!r} on page {page}: {value!r} matched case-insensitively "
            f"(the page shows {spelled[0].found!r})"
        )
    if not any(t.exact for t in spelled):
        t = spelled[0]
        whole = f"{t.prefix}{t.found}{t.suffix}".strip()
        return (
            f"field {field!r} on page {page}: {value!r} is part of {whole[:80]!r} "
            "(a partial match: a normalisation derives the value)"
        )
    return None


def signature(target: Target) -> str:
    """Index-free tag path plus how the value is read: equal across seeds of one template."""
    tags = [str(a.tag) for a in reversed(list(target.element.iterancestors()))]
    tags.append(str(target.element.tag))
    how = (
        target.mode
        + (f":{target.attr}" if target.attr else "")
        + (f":{target.json_key}" if target.json_key else "")
    )
    return "/".join(tags) + "#" + how


def targets_at(targets: Sequence[Target], path: str) -> list[Target]:
    """The targets at the element ``path`` (absolute, as lxml's ``getpath`` writes it: the node
    a reader was shown to read), else those inside it, else those enclosing it; empty when no
    target is related to it."""

    def where(t: Target) -> str:
        return str(t.element.getroottree().getpath(t.element))

    at = [t for t in targets if where(t) == path]
    inside = [t for t in targets if where(t).startswith(path + "/")]
    around = [t for t in targets if path.startswith(where(t) + "/")]
    return at or inside or around


def consistent_targets(
    per_seed: Sequence[Sequence[Target]], *, limit: int = 6
) -> tuple[list[list[Target]], list[str]]:
    """Keep, per seed, the targets whose signature recurs on the most seeds.

    Returns the filtered target lists and notes about ambiguity worth reporting.
    """
    counts: Counter[str] = Counter()
    for targets in per_seed:
        counts.update({signature(t) for t in targets})
    n = len(per_seed)
    best = max(counts.values(), default=0)
    notes: list[str] = []
    if n > 1 and best < n:
        notes.append(f"no node path holds the value on all {n} seeds (best: {best})")
    keep = {s for s, c in counts.items() if c == best}
    out = [[t for t in targets if signature(t) in keep][:limit] for targets in per_seed]
    return out, notes
