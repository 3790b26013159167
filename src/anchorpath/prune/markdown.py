"""Pruning a seed's DOM and rendering it as Markdown chunks with node ids.

The parsed page is copied, every element is given an id (``n<k>``, document order of the
original parse, so the same bytes always give the same ids) and its absolute path is kept
before anything is removed. Then: scripts, styles, SVG, iframes, form controls and hidden nodes
go; so does boilerplate — ``nav``/``aside`` and, outside ``main``/``article``, ``header`` and
``footer``, ARIA landmark roles for navigation, banners, search and page info, and link-dense
blocks whose id or class says menu, navigation, header, footer, breadcrumb or sidebar. The rest
is rendered by ``markdownify`` (tables kept, no escaping, so values stay verbatim) and cut into
chunks at blank lines, one chunk per table row.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from anchorpath.prune.tokens import estimate_tokens
from anchorpath.selectors.evaluate import parse_html

__all__ = ["GAP", "Chunk", "PrunedPage", "Span", "collapse", "join_chunks", "prune_page"]

_DROP = {
    "script", "style", "noscript", "svg", "iframe", "frame", "frameset", "template", "canvas",
    "object", "embed", "link", "meta", "button", "select", "option", "input", "textarea", "map",
    "area", "audio", "video", "source", "track", "img", "picture",
}  # fmt: skip
_ALWAYS_BOILERPLATE = {"nav", "aside"}
_OUTSIDE_MAIN_BOILERPLATE = {"header", "footer"}
_ROLES = {"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar"}
_BOILER_WORDS = re.compile(
    r"(?:^|[\s_-])(nav|navbar|navigation|menu|topmenu|footer|header|masthead|breadcrumbs?|"
    r"sidebar|sidenav|topnav|subnav|cookie|social|share)(?:$|[\s_-])",
    re.IGNORECASE,
)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_WS = re.compile(r"[\s\u00a0\u3000\u200b\ufeff]+")
_ID_ATTR = "data-ap-id"


def collapse(text: str) -> str:
    """White space collapsed and stripped (NBSP, ideographic and zero-width spaces included)."""
    return _WS.sub(" ", text).strip()


@dataclass(frozen=True)
class Span:
    """One text node that survived pruning: its owner's id and absolute path, and its text."""

    node_id: str
    path: str
    text: str


@dataclass(frozen=True)
class Chunk:
    """A unit of the budget: a paragraph, a heading, a list or one table row; a block longer
    than :data:`MAX_CHUNK` tokens (a layout table's one row holding the whole page) is cut into
    pieces at cell borders, bold labels and sentence ends."""

    index: int
    markdown: str
    tokens: int
    table: bool = False
    cont: bool = False  # continues the previous chunk (a long block cut in pieces)


@dataclass
class PrunedPage:
    """A seed page as the LLM may see it (before the budget)."""

    url: str
    title: str
    chunks: list[Chunk]
    spans: list[Span]
    tokens_raw: int  # the raw HTML
    removed: dict[str, int] = field(default_factory=dict)  # reason -> elements removed

    @property
    def markdown(self) -> str:
        return join_chunks(self.chunks, range(len(self.chunks)))

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.markdown)

    def spans_with(self, value: str) -> list[Span]:
        """The text spans containing ``value`` (white space collapsed), one per occurrence."""
        v = collapse(value)
        if not v:
            return []
        return [s for s in self.spans for _ in range(s.text.count(v))]


#: Marks text left out between kept chunks.
GAP = "…"


def join_chunks(chunks: Sequence[Chunk], kept: Iterable[int]) -> str:
    """The Markdown of the ``kept`` chunks (indexes, ascending), gaps marked with ``…``."""
    parts: list[str] = []
    prev = -1
    for i in kept:
        c = chunks[i]
        if parts and i != prev + 1:
            parts.append(" … " if c.cont else "\n\n" + GAP + "\n\n")
        elif parts and c.cont:
            parts.append(" ")
        elif parts:
            parts.append("\n" if c.table and chunks[prev].table else "\n\n")
        parts.append(c.markdown)
        prev = i
    return "".join(parts)


def _is_hidden(el: etree._Element) -> bool:
    if el.get("hidden") is not None or el.get("aria-hidden", "").lower() == "true":
        return True
    if el.tag == "input" and el.get("type", "").lower() == "hidden":
        return True
    return bool(_HIDDEN_STYLE.search(el.get("style", "")))


def _link_density(el: etree._Element) -> tuple[float, int]:
    text = collapse("".join(str(t) for t in el.itertext()))
    if not text:
        return 0.0, 0
    links = list(el.iter("a"))
    linked = sum(len(collapse("".join(str(t) for t in a.itertext()))) for a in links)
    return linked / len(text), len(links)


def _boilerplate(el: etree._Element) -> str | None:
    tag = el.tag
    if tag in _ALWAYS_BOILERPLATE:
        return tag
    if tag in _OUTSIDE_MAIN_BOILERPLATE and not any(
        a.tag in ("main", "article") for a in el.iterancestors()
    ):
        return tag
    role = el.get("role", "").lower()
    if role in _ROLES:
        return f"role={role}"
    words = f"{el.get('id', '')} {el.get('class', '')}"
    if tag not in ("body", "html") and _BOILER_WORDS.search(words):
        density, n = _link_density(el)
        if n >= 3 and density >= 0.5:
            return "link-dense " + _BOILER_WORDS.search(words).group(1).lower()  # type: ignore[union-attr]
    return None


def _drop(el: etree._Element) -> None:
    """Remove ``el`` but keep its tail text."""
    parent = el.getparent()
    if parent is None:
        return
    if el.tail:
        prev = el.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


def prune_page(html: str | bytes, url: str = "", *, keep_links: bool = False) -> PrunedPage:
    """Prune ``html`` and render it as Markdown chunks (see the module docstring).

    ``keep_links`` keeps link targets (``[text](href)``), for url fields; otherwise links are
    reduced to their text.
    """
    raw = html if isinstance(html, str) else html.decode("utf-8", "replace")
    doc = parse_html(html)
    tree = doc.getroottree()
    paths: dict[str, str] = {}
    for k, el in enumerate(doc.iter()):
        if isinstance(el.tag, str):
            nid = f"n{k}"
            paths[nid] = tree.getpath(el)
            el.set(_ID_ATTR, nid)
    title_el = next(iter(doc.iter("title")), None)
    title = collapse("".join(str(t) for t in title_el.itertext())) if title_el is not None else ""
    body = next(iter(doc.iter("body")), None)
    if body is None:
        body = doc
    removed: dict[str, int] = {}
    for el in list(body.iter()):
        if not isinstance(el.tag, str):  # comments, processing instructions
            if el.getparent() is not None:
                _drop(el)
            continue
        if el.getparent() is None and el is not body:
            continue  # already removed with an ancestor
        reason = el.tag if el.tag in _DROP else "hidden" if _is_hidden(el) else _boilerplate(el)
        if reason and el is not body:
            removed[reason.split()[0]] = removed.get(reason.split()[0], 0) + 1
            _drop(el)
    spans: list[Span] = []
    if title and title_el is not None:
        spans.append(
            Span(title_el.get(_ID_ATTR, ""), paths.get(title_el.get(_ID_ATTR, ""), ""), title)
        )
    found: Any = body.xpath(".//text()")
    for t in found if isinstance(found, list) else []:
        owner = t.getparent()
        if owner is None:
            continue
        if getattr(t, "is_tail", False):
            owner = owner.getparent()
            if owner is None:
                continue
        text = collapse(str(t))
        if text:
            nid = owner.get(_ID_ATTR, "")
            spans.append(Span(nid, paths.get(nid, ""), text))
    markdown = _to_markdown(body, keep_links)
    chunks = _chunks(([f"Page title: {title}"] if title else []), markdown)
    return PrunedPage(url, title, chunks, spans, estimate_tokens(raw), removed)


def _to_markdown(body: etree._Element, keep_links: bool) -> str:
    from markdownify import markdownify

    for el in body.iter():
        if isinstance(el.tag, str) and _ID_ATTR in el.attrib:
            del el.attrib[_ID_ATTR]
    html = etree.tostring(body, encoding="unicode", method="html")
    options: dict[str, Any] = {
        "heading_style": "ATX",
        "escape_asterisks": False,
        "escape_underscores": False,
        "escape_misc": False,
        "bullets": "-",
    }
    if not keep_links:
        options["strip"] = ["a"]
    text = str(markdownify(html, **options))
    lines = [_WS_LINE.sub(" ", line).rstrip() for line in text.replace("\u00a0", " ").splitlines()]
    return "\n".join(lines)


_WS_LINE = re.compile(r"[ \t\u3000\u200b\ufeff]+")
_BLANKS = re.compile(r"\n\s*\n+")
_EMPTY_ROW = re.compile(r"[|:\s-]+")


def _chunks(head: list[str], markdown: str) -> list[Chunk]:
    parts: list[tuple[str, bool]] = [(h, False) for h in head]
    for block in _BLANKS.split(markdown):
        block = block.strip("\n")
        if not block.strip():
            continue
        lines = block.split("\n")
        if all(line.lstrip().startswith("|") for line in lines if line.strip()):
            # A table: one chunk per row; the separator row travels with the header row.
            rows: list[str] = []
            for line in lines:
                if re.fullmatch(r"\s*\|[\s|:-]*\|?\s*", line) and rows:
                    rows[-1] += "\n" + line
                else:
                    rows.append(line)
            parts += [(r, True) for r in rows if _EMPTY_ROW.sub("", r)]
        else:
            parts.append((block.strip(), False))
    out: list[Chunk] = []
    for md, table in parts:
        for k, piece in enumerate(_pieces(md)):
            out.append(Chunk(len(out), piece, estimate_tokens(piece), table, k > 0))
    return out


#: Blocks longer than this (estimated tokens) are cut into pieces.
MAX_CHUNK = 120
_CUTS = (re.compile(r" (?=\| )"), re.compile(r" (?=\*\*)"), re.compile(r"(?<=[.!?]) (?=[A-Z0-9*])"))


def _pieces(text: str, level: int = 0) -> list[str]:
    """``text`` cut at cell borders, then bold labels, then sentence ends, into pieces of at
    most :data:`MAX_CHUNK` tokens where it can; the pieces joined by spaces give ``text``."""
    if estimate_tokens(text) <= MAX_CHUNK or level >= len(_CUTS) or "\n" in text:
        return [text]
    bits = _CUTS[level].split(text)
    if len(bits) == 1:
        return _pieces(text, level + 1)
    merged: list[str] = []
    for bit in bits:  # greedy: glue small neighbours back together
        if merged and estimate_tokens(merged[-1]) + estimate_tokens(bit) <= MAX_CHUNK:
            merged[-1] += " " + bit
        else:
            merged.append(bit)
    return [p for m in merged for p in _pieces(m, level + 1)]
