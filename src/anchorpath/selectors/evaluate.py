"""Pure evaluation of a selector file on one page: ``extract(selector_file, html, url)``.

Nothing here fetches. XPaths are compiled once per selector file (cached per model object),
the page is parsed once with lxml, and every value can carry the XPath and node path that
produced it (``trace=True``).

Speed (see ``bench/extract_throughput.py``): the page parse is the floor. Label-text anchored
XPaths of a page type are resolved together in one walk of the tree instead of one walk each,
UTF-8 bytes reach libxml2 without a decode/encode round trip, the ``<base>`` lookup happens only
when a URL needs it, and the drift signal ``anchors_present`` is computed by ``evaluate_page``
only (``extract`` returns records and skips it).
"""

from __future__ import annotations

import codecs
import re
import warnings
from collections import OrderedDict
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

import lxml.html
from lxml import etree

from anchorpath._errors import ExtractionError, NoPageTypeError, SelectorEvaluationError
from anchorpath.selectors.decode import decode_html, sniff_encoding
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
    """Something was coerced or guessed while extracting (the value is still produced).

    :func:`extract` warns with it; :func:`evaluate_page` returns the same texts in
    :attr:`PageResult.notes` instead (no process-global warning state: runs extract pages on
    several threads, and their reports, not stderr, are where such notes belong).
    """


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


# The label-text anchor form ``/descendant::TAG[normalize-space()='LABEL'][1]`` plus an optional
# relative rest (``/following-sibling::td[1]``...). libxml2 collects every TAG of the document
# before it applies ``[1]``, so twenty such fields cost twenty walks of the whole tree. All labels
# of a page type are instead found in one walk (``_label_index``) that stops at the last label,
# and only the short rest is evaluated from the anchor node: the same node-set for about a
# quarter of the time on a product page.
_ANCHORED = re.compile(
    r"""/descendant::([A-Za-z_][\w.\-]*)\[normalize-space\((?:\.)?\)\s*=\s*"""
    r"""(?:'([^']+)'|"([^"]+)")\]\[1\](/.*)?""",
    re.S,
)
# Outside predicates a rest may hold only steps: no union, comparison or arithmetic, which would
# change meaning once the rest is split from its head.
_STEP_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:*@/()")
_NORM = etree.XPath("normalize-space()", smart_strings=False)


def _simple_rest(rest: str) -> bool:
    """True when ``rest`` is a plain location path (steps and predicates, nothing else)."""
    depth, quote, prev = 0, "", ""
    for ch in rest:
        if not depth and not quote:
            if ch == "*" and prev not in "/:@":
                return False  # a multiplication, not a name test
            if ch == "-" and not (prev.isalnum() or prev in "_.-"):
                return False  # a subtraction, not part of a name
        prev = ch
        if quote:
            quote = "" if ch == quote else quote
        elif depth and ch in "'\"":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                return False
        elif not depth and ch not in _STEP_CHARS:
            return False
    return depth == 0 and not quote


@dataclass
class _Lookup:
    """One XPath of a field (primary or fallback), compiled; anchored ones also split."""

    expr: str
    xpath: etree.XPath
    tag: str | None = None  # set for the label-text anchor form
    label: str | None = None
    rest: etree.XPath | None = None  # None: the anchor node itself is the result


@dataclass
class _CompiledField:
    spec: FieldSpec
    lookups: list[_Lookup]

    @property
    def xpaths(self) -> list[tuple[str, etree.XPath]]:
        """``(expression, compiled)`` pairs in the order they are tried."""
        return [(lk.expr, lk.xpath) for lk in self.lookups]


@dataclass
class _CompiledPageType:
    spec: PageType
    match: re.Pattern[str]
    record_root: etree.XPath | None
    fields: list[_CompiledField]
    follow: list[etree.XPath]
    anchor_labels: dict[str, str]
    # tag -> the labels anchored lookups look for on that tag (found in one walk per page)
    label_queries: dict[str, frozenset[str]] = field(default_factory=dict)


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

    def page_type(self, name: str) -> _CompiledPageType:
        """The page type called ``name``; NoPageTypeError naming the known ones otherwise."""
        for pt in self.page_types:
            if pt.spec.name == name:
                return pt
        known = ", ".join(pt.spec.name for pt in self.page_types)
        raise NoPageTypeError(
            f"{self.selector_file.site.id}: no page type {name!r} (page types: {known})"
        )

    def describe(self) -> str:
        """``list (match '^https?://…'), detail (…)``: the page types with their patterns."""
        return ", ".join(f"{pt.spec.name} (match {pt.spec.match!r})" for pt in self.page_types)


# Keyed by object identity: the models hold dicts, so they are unhashable. Entries keep their
# model alive, so an id cannot be reused while cached; the bound keeps memory flat.
_CACHE_SIZE = 64
_cache: OrderedDict[tuple[int, bool], tuple[SelectorFile, CompiledSelectors]] = OrderedDict()


def _xp(expr: str, where: str, smart: bool) -> etree.XPath:
    try:
        return etree.XPath(expr, smart_strings=smart)
    except etree.XPathSyntaxError as exc:
        raise ExtractionError(f"XPath syntax error in {where}: {exc}: {expr!r}") from exc


def _lookup(expr: str, where: str, smart: bool) -> _Lookup:
    lk = _Lookup(expr, _xp(expr, where, smart))
    m = _ANCHORED.fullmatch(expr.strip())
    if m is None:
        return lk
    label = m.group(2) if m.group(2) is not None else m.group(3)
    rest = m.group(4)
    if rest is not None and not _simple_rest(rest):
        return lk
    if rest is not None:
        try:
            lk.rest = etree.XPath("." + rest, smart_strings=smart)
        except etree.XPathSyntaxError:
            return lk  # not a plain relative path after all: keep the general form
    lk.tag, lk.label = m.group(1), label
    return lk


def _label_queries(fields: list[_CompiledField]) -> dict[str, frozenset[str]]:
    """``tag -> labels`` of every anchored lookup (primary or fallback) of a page type."""
    labels: dict[str, set[str]] = {}
    for cf in fields:
        for lk in cf.lookups:
            if lk.tag is not None and lk.label is not None:
                labels.setdefault(lk.tag, set()).add(lk.label)
    return {tag: frozenset(names) for tag, names in labels.items()}


def compile_selectors(sf: SelectorFile, *, trace: bool = False) -> CompiledSelectors:
    """Compile once; later calls with the same model object return the cached result."""
    key = (id(sf), trace)
    hit = _cache.get(key)
    if hit is not None and hit[0] is sf:
        with suppress(KeyError):  # another thread may have just evicted it
            _cache.move_to_end(key)
        return hit[1]
    pts = []
    for pt in sf.page_types.values():
        fields = [
            _CompiledField(
                spec,
                [
                    _lookup(x, f"field {name!r} of page type {pt.name!r}", trace)
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
                label_queries=_label_queries(fields),
            )
        )
    pag = sf.fetch.pagination
    compiled = CompiledSelectors(
        selector_file=sf,
        page_types=pts,
        next_page=_xp(pag.next_xpath, "pagination", False) if pag else None,
        smart=trace,
    )
    _cache[key] = (sf, compiled)
    while len(_cache) > _CACHE_SIZE:
        with suppress(KeyError):
            _cache.popitem(last=False)
    return compiled


_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
_XML_DECL_BYTES = re.compile(rb"\s*<\?xml", re.IGNORECASE)
# ``huge_tree`` lifts libxml2's default depth limit of 256 elements, past which it silently
# drops the rest of the page (every later record with it); the page size is already capped by
# the fetcher. Beyond the hard limit that remains (2048 levels) the page is refused, not cut.
_PARSER = lxml.html.HTMLParser(encoding="utf-8", remove_comments=False, huge_tree=True)
# The same libxml2 parser with lxml's plain element class: lxml.html looks up a Python element
# class for every node proxy it creates, which costs a tenth of a page's extraction time.
# Evaluation needs nothing HtmlElement adds, so extract() and the runner use this one.
_PLAIN_PARSER = etree.HTMLParser(encoding="utf-8", remove_comments=False, huge_tree=True)
_RESOURCE_LIMIT = etree.ErrorTypes.ERR_RESOURCE_LIMIT


def _document(body: bytes, plain: bool) -> etree._Element:
    parser = _PLAIN_PARSER if plain else _PARSER
    if plain:
        root = etree.fromstring(body, parser)
    else:
        root = lxml.html.document_fromstring(body, parser=parser)
    last = parser.error_log.last_error
    if last is not None and last.type == _RESOURCE_LIMIT:
        # Raised as ParserError so that the general path in parse_html retries after a decode
        # and then translates it; the message says what happened.
        limit = last.message.split(",")[0].strip()
        raise etree.ParserError(f"{limit} levels; the parser would cut the page there")
    if root is None:
        raise etree.ParserError("Document is empty")
    return root


def _utf8_body(html: bytes, http_charset: str | None) -> bytes | None:
    """The bytes themselves when libxml2 can parse them as is (valid UTF-8), else None.

    Decoding to str and encoding back yields the very same bytes for valid UTF-8, so skipping
    the round trip changes nothing but the time spent.
    """
    if sniff_encoding(html, http_charset) != "utf-8":
        return None
    body = html[3:] if html.startswith(codecs.BOM_UTF8) else html
    if not body or body.isspace() or _XML_DECL_BYTES.match(body):
        return None  # rare shapes: the general path handles them
    try:
        body.decode("utf-8")  # invalid bytes must become U+FFFD as in decode_html, not mojibake
    except UnicodeDecodeError:
        return None
    return body


def parse_html(
    html: str | bytes, http_charset: str | None = None, *, plain: bool = False
) -> etree._Element:
    """Decode (see ``decode.py``) and parse a page into an lxml tree; never raises on junk.

    ``plain=True`` builds plain lxml elements instead of ``lxml.html`` ones (faster; no
    ``text_content()`` and friends): enough for evaluating selectors.
    """
    if isinstance(html, bytes | bytearray):
        body = _utf8_body(bytes(html), http_charset)
        if body is not None:
            try:
                return _document(body, plain)
            except (etree.ParserError, ValueError):
                pass  # let the general path below decide
    text, _codec = decode_html(html, http_charset)
    text = _XML_DECL.sub("", text, count=1)
    if not text.strip():
        text = "<html></html>"
    try:
        return _document(text.encode("utf-8", "surrogatepass"), plain)
    except (etree.ParserError, ValueError) as exc:
        raise ExtractionError(f"cannot parse page: {exc}") from exc


def _base_url(doc: etree._Element, url: str) -> str:
    """``url`` resolved against the first ``<base href>`` (same as ``//base[@href][1]``)."""
    for el in doc.getroottree().getroot().iter("base"):
        href = el.get("href")
        if href is not None:
            return urljoin(url, href.strip())
    return url


class _LazyBase:
    """The page's base URL, looked up only if a url value or a link needs it."""

    __slots__ = ("_doc", "_url", "_value")

    def __init__(self, doc: etree._Element, url: str) -> None:
        self._doc, self._url = doc, url
        self._value: str | None = None

    def __call__(self) -> str:
        if self._value is None:
            self._value = _base_url(self._doc, self._url)
        return self._value


def _label_index(cpt: _CompiledPageType, doc: etree._Element) -> dict[tuple[str, str], Any]:
    """``(tag, label) -> first such node in document order`` for every anchored label.

    One walk over the anchor tags, stopping once every label is found. The key of a node is
    exactly XPath's ``normalize-space()`` of it: computed in Python only for the common plain
    case (a text-only node whose only white space is U+0020, where ``split``/``join`` agree with
    XPath), by libxml2 otherwise.
    """
    found: dict[tuple[str, str], Any] = {}
    queries = cpt.label_queries
    need = sum(len(v) for v in queries.values())
    root = doc.getroottree().getroot()
    for el in root.iter(*queries):
        tag = el.tag
        text = el.text
        if text is not None and not len(el) and text.isprintable():
            label = " ".join(text.split())
        else:
            label = str(_NORM(el))
        if label in queries[tag] and (tag, label) not in found:
            found[tag, label] = el  # document order: the first one is what [1] picks
            if len(found) == need:
                break
    return found


def _node_text(item: Any) -> str:
    if isinstance(item, lxml.html.HtmlElement):
        if not len(item):  # no child nodes: the string-value is the text (an XPath call saved)
            return item.text or ""
        return str(item.text_content())
    if isinstance(item, etree._Element):
        if not len(item) and isinstance(item.tag, str):  # an element without children
            return item.text or ""
        return "".join(map(str, item.itertext()))
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
        if result != result:  # NaN: XPath's number() of nothing, i.e. no value
            return []
        if result in (float("inf"), float("-inf")):
            return [str(result)]
        return [str(int(result)) if result == int(result) else str(result)]
    if result is None:
        return []
    return [result]


def _call(xp: etree.XPath, node: Any, what: str) -> Any:
    """``xp(node)``, with an evaluation failure (an extension function, a variable, an
    undefined prefix that compiled) translated to one ExtractionError naming ``what``."""
    try:
        return xp(node)
    except etree.XPathError as exc:
        message = f"cannot evaluate XPath of {what}: {exc}: {xp.path!r}"
        raise SelectorEvaluationError(message) from exc


def _run(lk: _Lookup, node: etree._Element, index: dict[tuple[str, str], Any] | None) -> Any:
    if lk.tag is None or index is None:
        return lk.xpath(node)
    anchor = index.get((lk.tag, lk.label or ""))
    if anchor is None:
        return []
    return [anchor] if lk.rest is None else lk.rest(anchor)


def _texts(items: list[Any], norm: Any) -> list[str]:
    texts = []
    for i in items:
        t = clean_text(_node_text(i), norm.whitespace)
        if t and (norm.strip_prefix or norm.strip_suffix or norm.capture):
            t = apply_strips(t, norm)
        if t:
            texts.append(t)
    return texts


def _eval_field(
    cf: _CompiledField,
    node: etree._Element,
    base: Callable[[], str],
    trace: bool,
    index: dict[tuple[str, str], Any] | None,
    notes: list[str],
) -> tuple[Any, list[str], FieldTrace | None]:
    spec = cf.spec
    problems: list[str] = []
    items: list[Any] = []
    used = 0
    norm = spec.normalize
    texts: list[str] = []
    for used, lk in enumerate(cf.lookups):  # noqa: B007 - `used` is read below
        try:
            result = _run(lk, node, index)
        except etree.XPathError as exc:
            raise SelectorEvaluationError(
                f"cannot evaluate XPath of field {spec.name!r}: {exc}: {lk.expr!r}"
            ) from exc
        items = [
            i
            for i in _as_items(result)
            if not isinstance(i, str) or i.strip() or isinstance(i, etree._Element)
        ]
        # Nodes that are all empty (an icon link, an empty cell) count as "nothing found",
        # so the next fallback gets its turn.
        texts = _texts(items, norm)
        if texts:
            break
    if not items:
        return None, problems, None
    elements = [i for i in items if isinstance(i, etree._Element)]
    if elements and spec.type != "list":
        if len(items) > 1:
            notes.append(f"field {spec.name!r}: XPath returned {len(items)} elements; first used")
            items = items[:1]
            texts = _texts(items, norm)
        elif len(elements[0]):
            # A leaf element's text is unambiguous; an element with markup inside is not.
            notes.append(
                f"field {spec.name!r}: XPath returned an element with child elements where "
                "text is expected; coerced to its text"
            )
    ft = None
    if trace:
        ft = FieldTrace(
            cf.lookups[used].expr, tuple(_node_path(i) for i in items), used - 1 if used else None
        )
    if not texts:
        return None, problems, ft
    if spec.type == "list":
        return texts, problems, ft
    sep = norm.join if norm.join is not None else " "
    text = texts[0] if len(texts) == 1 else sep.join(texts)
    try:
        return convert(text, spec.type, norm, base() if spec.type == "url" else ""), problems, ft
    except ValueError as exc:
        problems.append(f"{spec.name}: cannot read {text!r} as {spec.type}: {exc}")
        return None, problems, ft


def _record(
    cpt: _CompiledPageType,
    node: etree._Element,
    url: str,
    base: Callable[[], str],
    trace: bool,
    index: dict[tuple[str, str], Any] | None,
    notes: list[str],
) -> Record:
    values: dict[str, Any] = {}
    traces: dict[str, FieldTrace] = {}
    problems: list[str] = []
    missing: list[str] = []
    for cf in cpt.fields:
        value, probs, ft = _eval_field(cf, node, base, trace, index, notes)
        name = cf.spec.name
        values[name] = value
        if probs:
            problems += probs
        if ft is not None:
            traces[name] = ft
        if cf.spec.required and (value is None or value == []):
            missing.append(name)
    return Record(
        cpt.spec.name, url, values, tuple(missing), tuple(problems), traces if trace else None
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
    #: what was coerced or guessed (the texts :func:`extract` warns with), each once
    notes: tuple[str, ...] = ()


def _hrefs(xp: etree.XPath, doc: etree._Element, base: str, what: str) -> list[str]:
    out = []
    for item in _as_items(_call(xp, doc, what)):
        if isinstance(item, etree._Element):
            item = item.get("href") or item.get("src") or ""
        href = str(item).strip()
        if href and not href.startswith(("javascript:", "mailto:", "#")):
            out.append(urljoin(base, href))
    return out


def _short_texts(doc: etree._Element) -> set[str]:
    """Cleaned texts of leaf elements and of small elements (a label wrapped in a span or
    followed by a ``*`` mark), the places a label can stand."""
    out: set[str] = set()
    for el in doc.iter():
        if not isinstance(el.tag, str):
            continue
        if len(el) == 0:
            if el.text and el.text.strip():
                out.add(clean_text(el.text))
        elif len(el) <= 3:
            text = clean_text(_node_text(el))
            if len(text) <= 100:
                out.add(text)
    return out


def _anchors_present(
    cpt: _CompiledPageType, doc: etree._Element, index: dict[tuple[str, str], Any] | None
) -> dict[str, bool]:
    """Whether each label-text anchor still stands on the page as a whole label.

    Exact, not a substring test: a renamed label (성분명 → 주성분명) contains the old text, and
    a substring test would call the anchor present when it is gone.
    """
    found = {label for _tag, label in index} if index else set()
    texts: set[str] | None = None
    bare: set[str] | None = None  # the texts without a trailing colon, built once a page
    out: dict[str, bool] = {}
    for name, label in cpt.anchor_labels.items():
        wanted = clean_text(label)
        if wanted in found:
            out[name] = True
            continue
        if texts is None:
            texts = _short_texts(doc)
        if wanted in texts:
            out[name] = True
            continue
        core = wanted.rstrip(":：").strip()
        if core:  # a text with this core starts with its first character, as wanted does
            if bare is None:
                bare = {t.rstrip(":：").strip() for t in texts}
            out[name] = core in bare
        else:
            out[name] = any(not t.rstrip(":：").strip() for t in texts if t.startswith(wanted[:1]))
    return out


def evaluate_page(
    compiled: CompiledSelectors,
    doc: etree._Element,
    url: str,
    *,
    trace: bool = False,
    anchors: bool = True,
    page_type: str | None = None,
) -> PageResult:
    """Evaluate a parsed page; a page no page type matches yields no records (not an error).

    ``anchors=False`` skips the drift signal ``anchors_present`` (a scan of the page's text),
    which callers that only want records do not need. ``page_type`` evaluates the page as that
    page type whatever its URL (an unknown name is an :class:`ExtractionError`).
    """
    cpt = compiled.page_type_for(url) if page_type is None else compiled.page_type(page_type)
    base = _LazyBase(doc, url)
    next_url = None
    if compiled.next_page is not None:
        nxt = _hrefs(compiled.next_page, doc, base(), "pagination")
        next_url = nxt[0] if nxt else None
    if cpt is None:
        return PageResult(url, None, (), next_url=next_url)
    index = _label_index(cpt, doc) if cpt.label_queries else None
    notes: list[str] = []
    if cpt.record_root is not None:
        found = _call(cpt.record_root, doc, f"record_root of page type {cpt.spec.name!r}")
        roots = [n for n in _as_items(found) if isinstance(n, etree._Element)]
        records = tuple(_record(cpt, n, url, base, trace, index, notes) for n in roots)
        count: int | None = len(roots)
    else:
        records = (_record(cpt, doc, url, base, trace, index, notes),)
        count = None
    links: list[str] = []
    for xp in cpt.follow:
        links += _hrefs(xp, doc, base(), f"a follow link of page type {cpt.spec.name!r}")
    present = _anchors_present(cpt, doc, index) if anchors and cpt.anchor_labels else {}
    return PageResult(
        url,
        cpt.spec.name,
        records,
        tuple(dict.fromkeys(links)),
        next_url,
        count,
        present,
        tuple(dict.fromkeys(notes)),
    )


def extract(
    selector_file: SelectorFile,
    html: str | bytes,
    url: str,
    *,
    http_charset: str | None = None,
    trace: bool = False,
    page_type: str | None = None,
) -> list[Record]:
    """Records of one page. Pure: ``html`` is the page (bytes are decoded by HTTP charset >
    BOM > ``<meta>`` > detection); ``url`` picks the page type (unless ``page_type`` names
    one) and resolves relative links. What was coerced or guessed is an
    :class:`ExtractionWarning` (each text once).

    A page whose URL no page type matches raises :class:`NoPageTypeError` naming the URL and
    the page types' patterns: an empty list always means a page of a known type that lists
    no record, never a page that was not looked at."""
    compiled = compile_selectors(selector_file, trace=trace)
    if page_type is not None:
        compiled.page_type(page_type)  # an unknown name fails before the page is parsed
    elif compiled.page_type_for(url) is None:
        raise NoPageTypeError(
            f"{url}: matches no page type of {selector_file.site.id} ({compiled.describe()}); "
            "pass page_type= (anchorpath extract --page-type) to choose one"
        )
    doc = parse_html(html, http_charset, plain=True)
    result = evaluate_page(compiled, doc, url, trace=trace, anchors=False, page_type=page_type)
    for note in result.notes:
        warnings.warn(note, ExtractionWarning, stacklevel=2)
    return list(result.records)
