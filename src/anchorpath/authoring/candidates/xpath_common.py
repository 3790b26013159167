"""Shared XPath building blocks for the candidate generators: literals, tests for stable
(not generated) ids and classes, steps down from an anchor, the value suffix and label
residue, and :class:`XCandidate`, the proposal every generator returns."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from anchorpath.authoring.candidates.ground import Target, text_children
from anchorpath.selectors.model import Anchor, Normalize

#: Attributes that name things on purpose (checked in this order). ``data-*`` also counts.
STABLE_ATTRIBUTES = ("itemprop", "name", "property", "aria-label", "role", "for", "title")
#: Lower is better when robustness ties.
KIND_RANK = {
    "id": 0,
    "attribute": 1,
    "aria": 1,
    "label-text": 1,
    "jsonld": 3,
    "structure": 4,
    "absolute": 5,
}
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
#: Elements whose short text may label the element after them (label anchors, and the
#: confirmation of a constant value by the label the page gives it).
LABEL_TAGS = frozenset(
    ("th", "dt", "label", "legend", "caption", "strong", "b", "em", "i", "font", "span")
) | frozenset(("div", "td", "p", "li", *HEADINGS[1:]))
#: Any heading level: an h2 that becomes an h3 in a redesign still matches.
ANY_HEADING = "*[" + " or ".join(f"self::{h}" for h in HEADINGS) + "]"

_HASHY = re.compile(
    r"""\d                                  # any digit: counters, hashes, positions
      | ^(css|sc|jsx|emotion|styled|svelte|ember|ng|react|mui|chakra|tw)-
      | __[A-Za-z0-9_-]{4,}$                # CSS modules: Header_title__aB3cD
      | ^_[A-Za-z0-9]{5,}$
      | ^[A-Za-z]{1,3}[A-Z][a-z]{1,2}[A-Z]  # short camel soup: bdVaJa
    """,
    re.VERBOSE,
)


def is_auto_id(value: str) -> bool:
    """An id that looks generated (digits, hashes, framework prefixes) and will not last."""
    v = value.strip()
    return not v or len(v) > 40 or bool(_HASHY.search(v)) or ":" in v


def is_auto_class(token: str) -> bool:
    """A class token that looks generated (styled-components, CSS modules, numbered)."""
    return is_auto_id(token)


def stable_classes(el: etree._Element) -> list[str]:
    """The element's class tokens that do not look generated."""
    return [c for c in (el.get("class") or "").split() if not is_auto_class(c)]


def literal(text: str) -> str:
    """An XPath 1.0 string literal for any text."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    parts = text.split("'")
    return "concat(" + ', "\'", '.join(f"'{p}'" for p in parts) + ")"


def xpath_space(text: str) -> str:
    """What XPath's ``normalize-space()`` makes of ``text`` (ASCII white space only)."""
    return re.sub(r"[ \t\r\n]+", " ", text).strip()


def class_predicate(token: str) -> str:
    """An XPath 1.0 test for one whole class token (``@class~=`` in CSS)."""
    return f"contains(concat(' ', normalize-space(@class), ' '), {literal(' ' + token + ' ')})"


def label_like(text: str) -> bool:
    """Short, has a letter, not a sentence: a plausible label."""
    t = text.strip()
    return 0 < len(t) <= 40 and any(c.isalpha() for c in t) and t.count(" ") <= 5


def absolute_xpath(node: etree._Element) -> str:
    """The absolute positional path of ``node`` (what browsers' "copy XPath" gives)."""
    return str(node.getroottree().getpath(node))


@dataclass(frozen=True)
class XCandidate:
    """One proposed XPath with what it hangs on and how its text is cleaned."""

    xpath: str
    kind: str
    anchor: Anchor | None = None
    normalize: Normalize = field(default_factory=Normalize)
    positional: int = 0
    penalty: int = 0  # head/title targets, elements read with markup inside
    demerit: float = 0.0  # subtracted from robustness when ranking (weak grounding)

    @property
    def prior(self) -> tuple[int, int, int]:
        # Class anchors rank after ids, attributes and labels: classes are styling and often
        # encode the value itself (``stat_ok``), which three seeds with one value cannot reveal.
        cls = 1 if self.anchor is not None and self.anchor.attribute == "class" else 0
        return (KIND_RANK.get(self.kind, 9) + self.penalty + cls, self.positional, len(self.xpath))


def tag_of(el: etree._Element) -> str:
    """The element's tag as a string."""
    return str(el.tag)


def first_match(ctx: etree._Element | etree._ElementTree, expr: str) -> etree._Element | None:
    """The first element ``expr`` selects from ``ctx`` (None on no match or a bad XPath)."""
    try:
        res = ctx.xpath(expr)
    except etree.XPathError:
        return None
    if isinstance(res, list) and res and isinstance(res[0], etree._Element):
        return res[0]
    return None


def _siblings_same_tag(el: etree._Element) -> list[etree._Element]:
    parent = el.getparent()
    if parent is None:
        return [el]
    return [c for c in parent if c.tag == el.tag]


def child_steps(
    ancestor: etree._Element, el: etree._Element, *, blind_headings: bool = False
) -> tuple[str, int] | None:
    """``/a/b[2]/c`` from ``ancestor`` (exclusive) down to ``el``, positions only if needed.

    With ``blind_headings`` heading steps match any level (``*[self::h1 or …]``)."""
    steps: list[str] = []
    positional = 0
    node: etree._Element | None = el
    while node is not None and node is not ancestor:
        parent = node.getparent()
        if blind_headings and tag_of(node) in HEADINGS:
            same = [c for c in parent if c.tag in HEADINGS] if parent is not None else [node]
            step = ANY_HEADING
        else:
            same = _siblings_same_tag(node)
            step = tag_of(node)
        if len(same) > 1:
            step += f"[{same.index(node) + 1}]"
            positional += 1
        steps.append(step)
        node = parent
    if node is None:
        return None
    return "".join("/" + s for s in reversed(steps)), positional


def down_paths(anchor: etree._Element, el: etree._Element) -> list[tuple[str, int]]:
    """Ways from ``anchor`` down to ``el``: first-of-tag (early stop), then child steps."""
    if anchor is el:
        return [("", 0)]
    out: list[tuple[str, int]] = []
    tag = tag_of(el)
    if tag in HEADINGS and first_match(anchor, f"descendant::{ANY_HEADING}[1]") is el:
        # Level-blind: survives an h2 becoming an h3 in a redesign.
        out.append((f"/descendant::{ANY_HEADING}[1]", 0))
    if first_match(anchor, f"descendant::{tag}[1]") is el:
        out.append((f"/descendant::{tag}[1]", 0))
    else:
        for c in stable_classes(el)[:2]:
            expr = f"descendant::{tag}[{class_predicate(c)}][1]"
            if first_match(anchor, expr) is el:
                out.append(("/" + expr, 0))
                break
    steps = child_steps(anchor, el)
    if steps is not None and steps[0] not in {p for p, _ in out}:
        out.append(steps)
        if any(tag_of(a) in HEADINGS for a in path_up(el, anchor)):
            blind = child_steps(anchor, el, blind_headings=True)
            if blind is not None:
                out.append(blind)
    return out


def text_node(target: Target) -> Any:
    """The ``text_index``-th non-blank text child (an lxml "smart string": has
    ``getparent()`` and ``is_tail``)."""
    texts = text_children(target.element)
    i = (target.text_index or 1) - 1
    return texts[i] if 0 <= i < len(texts) else None


def value_suffix(target: Target) -> str:
    """What follows the element step to read the value: ``/@attr``, the n-th text, or nothing."""
    if target.mode == "attr":
        return f"/@{target.attr}"
    if target.mode == "text":
        return f"/text()[normalize-space()][{target.text_index}]"
    return ""


def _shape(text: str) -> str:
    """A regex for text of this shape: digit runs become ``\\d+``, white space ``\\s*``,
    the rest literal ("1. " -> ``\\d+\\.\\s*``; "No. 12 -" -> ``No\\.\\s*\\d+\\s*\\-``)."""
    out = []
    for tok in re.findall(r"\d+|\s+|[^\d\s]+", text):
        out.append(r"\d+" if tok[0].isdigit() else r"\s*" if tok.isspace() else re.escape(tok))
    return "".join(out)


def _capture(value: str) -> str | None:
    """A capture regex for values whose shape says what they are: a year, a number, a price,
    a number with a unit ("2011" in "(2011 TV Series)", "12.5" in "12.5 kg")."""
    v = value.strip()
    if re.fullmatch(r"(1[5-9]|20)\d\d", v):
        return r"(?<!\d)((?:1[5-9]|20)\d\d)(?!\d)"
    if re.fullmatch(r"[$€£¥₩]\s?\d[\d,]*(\.\d+)?", v):
        return r"([$€£¥₩]\s?\d[\d,]*(?:\.\d+)?)"
    if re.fullmatch(r"\d[\d,]*(\.\d+)?", v):
        return r"(?<![\d.,])(\d[\d,]*(?:\.\d+)?)(?![\d,]*\d)"
    return None


def residue_normalizations(target: Target) -> list[Normalize]:
    """Normalisations that turn the node text into the value as the person copied it:
    strip regexes for the residue around it (a label, parentheses, numbering, a unit) — as
    found and generalised by shape — and, for years, numbers and prices, a capture regex
    (the residue may differ from record to record: "(2014)", "(2011 TV Series)")."""
    if target.exact:
        return [Normalize()]
    prefixes: list[str | None] = [None]
    suffixes: list[str | None] = [None]
    pre = target.prefix.strip()
    suf = target.suffix.strip()
    if pre:
        prefixes = []
        if pre.endswith(":"):
            prefixes.append(r"^.*?:\s*")
        prefixes.append(re.escape(pre) + r"\s*")
        if any(c.isdigit() for c in pre):
            prefixes.append(_shape(pre) + r"\s*")
    if suf:
        suffixes = [r"\s*" + re.escape(suf)]
        if suf[0] in "([":
            suffixes.append(r"\s*[\(\[].*")
        if any(c.isdigit() for c in suf):
            suffixes.append(r"\s*" + _shape(suf))
    out = [Normalize(strip_prefix=p, strip_suffix=s) for p in prefixes for s in suffixes]
    cap = _capture(target.found) if target.found else None
    if cap:
        out.append(Normalize(capture=cap))
    return out


def query_form(relative: bool) -> Callable[[str], str]:
    """How to run a generated expression from the context element while generating."""

    def run(expr: str) -> str:
        return expr if relative else expr.lstrip("/")

    return run


def descendant_prefix(relative: bool) -> str:
    """The early-stopping step prefix, relative to a record root or absolute."""
    return "./descendant::" if relative else "/descendant::"


def ancestors_within(
    el: etree._Element, ctx: etree._Element, limit: int
) -> Iterator[etree._Element]:
    """``el`` and its ancestors up to ``limit`` levels, stopping at ``ctx``, html or body."""
    node: etree._Element | None = el
    n = 0
    while node is not None and node is not ctx and n <= limit:
        if tag_of(node) in ("html", "body"):
            return
        yield node
        node = node.getparent()
        n += 1


def path_up(lab: etree._Element, top: etree._Element) -> Iterator[etree._Element]:
    """``lab`` and its ancestors below ``top``."""
    node: etree._Element | None = lab
    while node is not top and node is not None:
        yield node
        node = node.getparent()
