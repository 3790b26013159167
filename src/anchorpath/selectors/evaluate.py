"""Pure evaluation of a selector file on one page: ``extract(selector_file, html, url)``.

Nothing here fetches. XPaths are compiled once per selector file (cached on the model object),
the page is parsed once with lxml, and every value can carry the XPath and node path that
produced it (``trace=True``).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin
from weakref import WeakKeyDictionary

import lxml.html
from lxml import etree

from anchorpath._errors import ExtractionError
from anchorpath.selectors.decode import decode_html
from anchorpath.selectors.model import FieldSpec, PageType, SelectorFile
from anchorpath.selectors.normalize import apply_strips, clean_text, convert

__all__ = [
    "CompiledSelectors",
    "ExtractionWarning",
    "FieldTrace",
    "PageResult",
    "Record",
    "compile_selectors",
    "evaluate_page",
    "extract",
    "parse_html",
]


class ExtractionWarning(UserWarning):
    """Something was coerced or guessed while extracting (the value is still produced)."""


@dataclass(frozen=True)
class FieldTrace:
    """Where a value came from: the XPath that matched and the path of each node."""

    xpath: str
    nodes: tuple[str, ...]
    fallback: int | None = None  # index into ``fallbacks`` when the primary found nothing

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"xpath": self.xpath, "nodes": list(self.nodes)}
        if self.fallback is not None:
            d["fallback"] = self.fallback
        return d


@dataclass(frozen=True)
class Record:
    """One extracted record. ``missing`` lists required fields with no value (the record is
    flagged, not dropped); ``problems`` lists values that did not fit their type."""

    page_type: str
    url: str
    values: Mapping[str, Any]
    missing: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    trace: Mapping[str, FieldTrace] | None = None

    @property
    def flagged(self) -> bool:
        return bool(self.missing or self.problems)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"_url": self.url, "_page_type": self.page_type}
        out.update(self.values)
        if self.missing:
            out["_missing"] = list(self.missing)
        if self.problems:
            out["_problems"] = list(self.problems)
        if self.trace is not None:
            out["_trace"] = {k: t.to_dict() for k, t in self.trace.items()}
        return out


@dataclass
class _CompiledField:
    spec: FieldSpec
    xpaths: list[tuple[str, etree.XPath]]


@dataclass
class _CompiledPageType:
    spec: PageType
    match: re.Pattern[str]
    record_root: etree.XPath | None
    fields: list[_CompiledField]
    follow: list[etree.XPath]
    anchor_labels: dict[str, str]


@dataclass
class CompiledSelectors:
    """A selector file with every regex and XPath compiled (one per selector file)."""

    selector_file: SelectorFile
    page_types: list[_CompiledPageType]
    next_page: etree.XPath | None
    smart: bool

    def page_type_for(self, url: str) -> _CompiledPageType | None:
        for pt in self.page_types:
            if pt.match.search(url):
                return pt
        return None


_cache: dict[bool, WeakKeyDictionary[SelectorFile, CompiledSelectors]] = {
    False: WeakKeyDictionary(),
    True: WeakKeyDictionary(),
}


def _xp(expr: str, where: str, smart: bool) -> etree.XPath:
    try:
        return etree.XPath(expr, smart_strings=smart)
    except etree.XPathSyntaxError as exc:
        raise ExtractionError(f"XPath syntax error in {where}: {exc}: {expr!r}") from exc


def compile_selectors(sf: SelectorFile, *, trace: bool = False) -> CompiledSelectors:
    """Compile once; later calls with the same model object return the cached result."""
    try:
        return _cache[trace][sf]
    except (KeyError, TypeError):
        pass
    pts = []
    for pt in sf.page_types.values():
        fields = [
            _CompiledField(
                spec,
                [
                    (x, _xp(x, f"field {name!r} of page type {pt.name!r}", trace))
                    for x in (spec.xpath, *spec.fallbacks)
                ],
            )
            for name, spec in pt.fields.items()
        ]
        labels = {
            name: spec.anchor.value
            for name, spec in pt.fields.items()
            if spec.anchor and spec.anchor.kind == "label-text" and spec.anchor.value
        }
        pts.append(
            _CompiledPageType(
                spec=pt,
                match=re.compile(pt.match),
                record_root=_xp(pt.record_root, f"record_root of {pt.name!r}", trace)
                if pt.record_root
                else None,
                fields=fields,
                follow=[_xp(x, f"follow link of {pt.name!r}", False) for x in pt.follow],
                anchor_labels=labels,
            )
        )
    pag = sf.fetch.pagination
    compiled = CompiledSelectors(
        selector_file=sf,
        page_types=pts,
        next_page=_xp(pag.next_xpath, "pagination", False) if pag else None,
        smart=trace,
    )
    try:
        _cache[trace][sf] = compiled
    except TypeError:  # unhashable model (mutable mapping inside): just do not cache
        pass
    return compiled


_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
_PARSER = lxml.html.HTMLParser(encoding="utf-8", remove_comments=False)


def parse_html(html: str | bytes, http_charset: str | None = None) -> etree._Element:
    """Decode (see ``decode.py``) and parse a page into an lxml tree; never raises on junk."""
    text, _codec = decode_html(html, http_charset)
    text = _XML_DECL.sub("", text, count=1)
    if not text.strip():
        text = "<html></html>"
    try:
        return lxml.html.document_fromstring(text.encode("utf-8", "surrogatepass"), parser=_PARSER)
    except (etree.ParserError, ValueError) as exc:
        raise ExtractionError(f"cannot parse page: {exc}") from exc


def _base_url(doc: etree._Element, url: str) -> str:
    base = doc.xpath("/descendant::base[@href][1]/@href")
    if base and isinstance(base, list):
        return urljoin(url, str(base[0]).strip())
    return url


def _node_text(item: Any) -> str:
    if isinstance(item, etree._Element):
        return str(item.text_content()) if isinstance(item, lxml.html.HtmlElement) else "".join(
            item.itertext()
        )
    return str(item)


def _node_path(item: Any) -> str:
    if isinstance(item, etree._Element):
        return str(item.getroottree().getpath(item))
    parent = getattr(item, "getparent", lambda: None)()
    if parent is None:
        return "(value)"
    path = str(parent.getroottree().getpath(parent))
    if getattr(item, "is_attribute", False):
        return f"{path}/@{item.attrname}"
    return f"{path}/text()"


def _as_items(result: Any) -> list[Any]:
    if isinstance(result, list):
        return result
    if isinstance(result, bool):
        return [str(result).lower()]
    if isinstance(result, float):
        return [str(int(result)) if result == int(result) else str(result)]
    if result is None:
        return []
    return [result]


def _eval_field(
    cf: _CompiledField, node: etree._Element, base_url: str, trace: bool
) -> tuple[Any, list[str], FieldTrace | None]:
    spec = cf.spec
    problems: list[str] = []
    items: list[Any] = []
    used = 0
    for used, (_expr, xp) in enumerate(cf.xpaths):  # noqa: B007 - `used` is read below
        items = [i for i in _as_items(xp(node)) if not isinstance(i, str) or i.strip() or
                 isinstance(i, etree._Element)]
        if items:
            break
    if not items:
        return None, problems, None
    elements = [i for i in items if isinstance(i, etree._Element)]
    if elements and spec.type != "list":
        if len(items) > 1:
            warnings.warn(
                f"field {spec.name!r}: XPath returned {len(items)} elements; first used",
                ExtractionWarning,
                stacklevel=2,
            )
            items = items[:1]
        elif len(elements[0]):
            # A leaf element's text is unambiguous; an element with markup inside is not.
            warnings.warn(
                f"field {spec.name!r}: XPath returned an element with child elements where "
                "text is expected; coerced to its text",
                ExtractionWarning,
                stacklevel=2,
            )
    texts = [clean_text(_node_text(i), spec.normalize.whitespace) for i in items]
    texts = [apply_strips(t, spec.normalize) for t in texts if t]
    texts = [t for t in texts if t]
    ft = None
    if trace:
        ft = FieldTrace(
            cf.xpaths[used][0], tuple(_node_path(i) for i in items), used - 1 if used else None
        )
    if not texts:
        return None, problems, ft
    if spec.type == "list":
        return texts, problems, ft
    text = (spec.normalize.join if spec.normalize.join is not None else " ").join(texts)
    try:
        return convert(text, spec.type, spec.normalize, base_url), problems, ft
    except ValueError as exc:
        problems.append(f"{spec.name}: cannot read {text!r} as {spec.type}: {exc}")
        return None, problems, ft


def _record(
    cpt: _CompiledPageType, node: etree._Element, url: str, base_url: str, trace: bool
) -> Record:
    values: dict[str, Any] = {}
    traces: dict[str, FieldTrace] = {}
    problems: list[str] = []
    for cf in cpt.fields:
        value, probs, ft = _eval_field(cf, node, base_url, trace)
        values[cf.spec.name] = value
        problems += probs
        if ft is not None:
            traces[cf.spec.name] = ft
    missing = tuple(
        cf.spec.name for cf in cpt.fields if cf.spec.required and values[cf.spec.name] in (None, [])
    )
    return Record(
        cpt.spec.name, url, values, missing, tuple(problems), traces if trace else None
    )


@dataclass(frozen=True)
class PageResult:
    """Everything one page yields: records, links to follow, the next page, drift signals."""

    url: str
    page_type: str | None
    records: tuple[Record, ...]
    links: tuple[str, ...] = ()
    next_url: str | None = None
    record_root_count: int | None = None
    anchors_present: Mapping[str, bool] = field(default_factory=dict)


def _hrefs(xp: etree.XPath, doc: etree._Element, base: str) -> list[str]:
    out = []
    for item in _as_items(xp(doc)):
        if isinstance(item, etree._Element):
            item = item.get("href") or item.get("src") or ""
        href = str(item).strip()
        if href and not href.startswith(("javascript:", "mailto:", "#")):
            out.append(urljoin(base, href))
    return out


def evaluate_page(
    compiled: CompiledSelectors, doc: etree._Element, url: str, *, trace: bool = False
) -> PageResult:
    """Evaluate a parsed page; a page no page type matches yields no records (not an error)."""
    cpt = compiled.page_type_for(url)
    base = _base_url(doc, url)
    next_url = None
    if compiled.next_page is not None:
        nxt = _hrefs(compiled.next_page, doc, base)
        next_url = nxt[0] if nxt else None
    if cpt is None:
        return PageResult(url, None, (), next_url=next_url)
    if cpt.record_root is not None:
        roots = [n for n in _as_items(cpt.record_root(doc)) if isinstance(n, etree._Element)]
        records = tuple(_record(cpt, n, url, base, trace) for n in roots)
        count: int | None = len(roots)
    else:
        records = (_record(cpt, doc, url, base, trace),)
        count = None
    links: list[str] = []
    for xp in cpt.follow:
        links += _hrefs(xp, doc, base)
    page_text = None
    anchors: dict[str, bool] = {}
    if cpt.anchor_labels:
        page_text = clean_text(_node_text(doc))
        anchors = {name: label in page_text for name, label in cpt.anchor_labels.items()}
    return PageResult(
        url, cpt.spec.name, records, tuple(dict.fromkeys(links)), next_url, count, anchors
    )


def extract(
    selector_file: SelectorFile,
    html: str | bytes,
    url: str,
    *,
    http_charset: str | None = None,
    trace: bool = False,
) -> list[Record]:
    """Records of one page. Pure: ``html`` is the page (bytes are decoded by HTTP charset >
    BOM > ``<meta>`` > detection); ``url`` picks the page type and resolves relative links."""
    compiled = compile_selectors(selector_file, trace=trace)
    doc = parse_html(html, http_charset)
    return list(evaluate_page(compiled, doc, url, trace=trace).records)


def extract_many(
    selector_file: SelectorFile, pages: Iterable[tuple[str | bytes, str]], *, trace: bool = False
) -> list[Record]:
    """Records of several ``(html, url)`` pages, in order."""
    out: list[Record] = []
    for html, url in pages:
        out += extract(selector_file, html, url, trace=trace)
    return out


def values_only(records: Sequence[Record]) -> list[dict[str, Any]]:
    """Plain value dicts, handy for comparing against expected records."""
    return [dict(r.values) for r in records]
