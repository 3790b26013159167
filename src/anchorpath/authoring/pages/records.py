"""List pages: record-root induction and pagination next-link detection.

Record roots are generalised from ≥ 2 example records per page: the example values of each
record are grounded, and the records' *lowest common repeating ancestor* is the container whose
children (one per record) are the roots. Root XPaths are then proposed from the container's
anchors (stable id/attribute/class, a header label) plus a shape predicate that keeps header
and notice rows out, and verified like field XPaths.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urljoin

from lxml import etree

from anchorpath.authoring.candidates.ground import itext, norm
from anchorpath.authoring.candidates.xpath_common import (
    ANY_HEADING,
    HEADINGS,
    class_predicate,
    is_auto_id,
    label_like,
    literal,
    stable_classes,
    xpath_space,
)

__all__ = [
    "NEXT_WORDS",
    "RootCandidate",
    "common_ancestor",
    "detect_pagination",
    "induce_roots",
    "probe_path",
    "root_candidates",
    "root_result_ok",
    "similar_records",
]

#: Link texts (normalised) that mean "next page".
NEXT_WORDS = (
    "다음",
    "다음 페이지",
    "다음페이지",
    "next",
    "next page",
    "next »",
    "›",
    "»",
    ">",
    "next ›",
    "다음 ›",
    "다음 >",
    "次へ",
    "下一页",
    "suivant",
    "weiter",
)


def common_ancestor(a: etree._Element, b: etree._Element) -> etree._Element | None:
    anc = {id(x): x for x in [a, *a.iterancestors()]}
    for x in [b, *b.iterancestors()]:
        if id(x) in anc:
            return x
    return None


def _child_toward(container: etree._Element, node: etree._Element) -> etree._Element | None:
    for x in [node, *node.iterancestors()]:
        if x.getparent() is container:
            return x
    return None


def _elements(res: object) -> list[etree._Element]:
    """The element items of an XPath result (strings, numbers and booleans give none)."""
    return [x for x in res if isinstance(x, etree._Element)] if isinstance(res, list) else []


def _ancestor(node: etree._Element, k: int) -> etree._Element | None:
    x: etree._Element | None = node
    for _ in range(k):
        x = x.getparent() if x is not None else None
    return x


def probe_path(root: etree._Element, node: etree._Element) -> str:
    """The index-free tag path from ``root`` down to ``node`` (``h3/a``; ``.`` for itself)."""
    tags: list[str] = []
    x: etree._Element | None = node
    while x is not None and x is not root:
        tags.append(str(x.tag))
        x = x.getparent()
    return "/".join(reversed(tags)) or "."


def _suffix_len(a: etree._Element, b: etree._Element) -> int:
    n = 0
    for x, y in zip([a, *a.iterancestors()], [b, *b.iterancestors()], strict=False):
        if x.tag != y.tag:
            break
        n += 1
    return n


_CHROME = {"nav", "header", "footer", "aside"}


def _in_chrome(el: etree._Element) -> bool:
    """Inside the page's navigation, header, footer or sidebar (not its content)."""
    return any(
        a.tag in _CHROME or a.get("role") in ("navigation", "banner", "contentinfo")
        for a in [el, *el.iterancestors()]
    )


def _closest(a: etree._Element, cands: Sequence[etree._Element]) -> etree._Element:
    """The candidate sharing the longest tag path suffix with ``a`` (first on ties)."""
    return max(cands, key=lambda n: _suffix_len(a, n))


def _aligned_roots(nodes: Sequence[etree._Element]) -> list[etree._Element] | None:
    """Record roots for one value node per record, aligned from the bottom.

    The k-th ancestors of the nodes are record roots while they share their tag path down to
    the nodes, are distinct, lie strictly inside the records' common ancestor and hold one such
    path each. The highest such level wins. Unlike "the children of the lowest common
    ancestor", this finds records spread over sibling containers (a featured block and the main
    list, several ``<ul>`` sections, grid rows), even at different depths.
    """
    common: etree._Element | None = nodes[0]
    for n in nodes[1:]:
        common = common_ancestor(common, n) if common is not None else None
    if common is None:
        return None
    best: list[etree._Element] | None = None
    k = 0
    while True:
        roots = [_ancestor(n, k) for n in nodes]
        if any(r is None or r is common for r in roots):
            break
        found = [r for r in roots if r is not None]
        if len({r.tag for r in found}) != 1 or len({id(r) for r in found}) != len(found):
            break
        if any(common not in r.iterancestors() for r in found):
            break
        # Siblings alike to the value node itself (``<font>``s, ``<span>``s) are inline
        # formatting, not records: only levels above the value node's parent are tested.
        below = [_ancestor(n, k - 1) for n in nodes] if k >= 2 else []
        if any(_holds_records(r, c, n) for r, c, n in zip(found, below, nodes, strict=False)):
            break  # the level above the records: a list (or a block of a list)
        best = found
        k += 1
    return best


def _holds_records(el: etree._Element, child: etree._Element | None, node: etree._Element) -> bool:
    """``el`` has two or more children like ``child`` (tag and classes), each holding a
    non-empty node at the same path as ``node``: ``el`` contains several records."""
    if child is None:
        return False
    rel = probe_path(child, node)
    classes = set(stable_classes(child))
    alike = 0
    for c in el:
        if c.tag != child.tag or set(stable_classes(c)) != classes:
            continue
        hits = [c] if rel == "." else _elements(c.xpath(rel))
        if any(itext(h).strip() for h in hits):
            alike += 1
            if alike >= 2:
                return True
    return False


def induce_roots(
    per_record: Sequence[Sequence[Sequence[etree._Element]]],
) -> list[etree._Element] | None:
    """Record roots from grounded nodes.

    ``per_record[i][f]`` lists the candidate nodes of field ``f`` in example record ``i``
    (empty when the record has no value for it). Returns one root per record, or None when
    the records do not sit in distinct, alike subtrees.
    """
    if len(per_record) < 2:
        return None
    best: tuple[tuple[int, int, int], list[etree._Element]] | None = None
    nfields = max(len(r) for r in per_record)
    for f in range(nfields):
        if any(f >= len(rec) or not rec[f] for rec in per_record):
            continue
        for first in per_record[0][f][:4]:
            nodes = [first]
            for rec in per_record[1:]:
                nodes.append(_closest(first, rec[f][:6]))
            if len({id(n) for n in nodes}) != len(nodes):
                continue
            roots = _aligned_roots(nodes)
            if roots is None:
                continue
            held = sum(
                1
                for rec, root in zip(per_record, roots, strict=True)
                for cands in rec
                if any(n is root or root in n.iterancestors() for n in cands)
            )
            chrome = sum(1 for r in roots if _in_chrome(r))
            score = (held, -chrome, -len(_elements(roots[0].xpath("ancestor::*"))))
            if best is None or score > best[0]:
                best = (score, roots)
    if best is not None:
        return best[1]
    return _sibling_roots(per_record)


def _sibling_roots(
    per_record: Sequence[Sequence[Sequence[etree._Element]]],
) -> list[etree._Element] | None:
    """The children of the records' lowest common ancestor (the classic MDR assumption)."""
    best: tuple[int, list[etree._Element]] | None = None
    nfields = max(len(r) for r in per_record)
    for f in range(nfields):
        c0 = per_record[0][f] if f < len(per_record[0]) else []
        c1 = per_record[1][f] if f < len(per_record[1]) else []
        for a in c0[:4]:
            for b in c1[:4]:
                cont = common_ancestor(a, b)
                if cont is None:
                    continue
                ra, rb = _child_toward(cont, a), _child_toward(cont, b)
                if ra is None or rb is None or ra is rb or ra.tag != rb.tag:
                    continue
                roots: list[etree._Element] = []
                score = 0
                for rec in per_record:
                    root = None
                    for cands in rec:
                        for n in cands:
                            r = _child_toward(cont, n)
                            if r is not None and r.tag == ra.tag:
                                root = r
                                break
                        if root is not None:
                            break
                    if root is None or root in roots:
                        break
                    roots.append(root)
                    score += sum(
                        1 for cands in rec if any(_child_toward(cont, n) is root for n in cands)
                    )
                if len(roots) != len(per_record):
                    continue
                if best is None or score > best[0]:
                    best = (score, roots)
    return best[1] if best else None


@dataclass(frozen=True)
class RootCandidate:
    xpath: str
    kind: str
    positional: int = 0

    @property
    def prior(self) -> tuple[int, int, int]:
        rank = {"id": 0, "attribute": 1, "label-text": 1, "structure": 3}.get(self.kind, 4)
        return (rank, self.positional, len(self.xpath))


def _shape(el: etree._Element) -> tuple[str, ...]:
    return tuple(sorted({str(c.tag) for c in el if isinstance(c.tag, str)}))


def _shape_predicate(roots: Sequence[etree._Element]) -> str | None:
    """``[td[7]]``-style: every example root has at least this many children of its main tag."""
    counts: dict[str, int] = {}
    for r in roots:
        for tag in _shape(r):
            n = sum(1 for c in r if c.tag == tag)
            counts[tag] = min(counts.get(tag, n), n)
    common = [t for t in counts if all(t in _shape(r) for r in roots)]
    if not common:
        return None
    tag = max(common, key=lambda t: counts[t])
    n = counts[tag]
    return f"[{tag}[{n}]]" if n > 1 else f"[{tag}]"


def _common_container(roots: Sequence[etree._Element]) -> etree._Element | None:
    common: etree._Element | None = roots[0].getparent()
    for r in roots[1:]:
        common = common_ancestor(common, r) if common is not None else None
    return common


def root_candidates(
    roots: Sequence[etree._Element], probe: str | None = None
) -> list[RootCandidate]:
    """XPaths that should select every record root (not just the examples) of one page.

    ``probe`` is the tag path from a root to its first field's node (``h3/a``): records spread
    over several containers are then also addressed as "elements of this tag holding that
    path" inside the containers' common anchored ancestor.
    """
    first = roots[0]
    tag = str(first.tag)
    container = first.getparent()
    if container is None:
        return []
    shape = _shape_predicate(roots) or ""
    out: list[RootCandidate] = []
    if probe and probe != ".":
        out += _probe_candidates(roots, probe)
    if out and any(r.getparent() is not container for r in roots):
        # Several containers: the per-container paths below would miss records.
        return _unique(out)
    out += _class_candidates(roots, tag, shape)
    out += _anchored_candidates(container, tag, shape)
    out += _structural_candidates(container, tag, shape)
    seen: set[str] = set()
    return [c for c in out if not (c.xpath in seen or seen.add(c.xpath))]  # type: ignore[func-returns-value]


def _class_candidates(roots: Sequence[etree._Element], tag: str, shape: str) -> list[RootCandidate]:
    """The roots' common stable class: ``//li[class~='item']``."""
    common = set(stable_classes(roots[0]))
    for r in roots[1:]:
        common &= set(stable_classes(r))
    out: list[RootCandidate] = []
    for c in sorted(common)[:2]:
        out.append(RootCandidate(f"/descendant::{tag}[{class_predicate(c)}]", "attribute"))
        if shape:
            out.append(
                RootCandidate(f"/descendant::{tag}[{class_predicate(c)}]{shape}", "attribute")
            )
    return out


def _anchored_candidates(container: etree._Element, tag: str, shape: str) -> list[RootCandidate]:
    """Container anchors: the container or a close ancestor with a stable id/attribute/class,
    or a table identified by one of its header labels."""
    chain: list[etree._Element] = []
    node: etree._Element | None = container
    while node is not None and node.tag not in ("body", "html") and len(chain) < 4:
        chain.append(node)
        node = node.getparent()

    def step(x: etree._Element) -> str:
        return ANY_HEADING if str(x.tag) in HEADINGS else str(x.tag)

    out: list[RootCandidate] = []
    for level, a in enumerate(chain):
        path = "/" + "/".join(str(x.tag) for x in reversed(chain[:level])) if level else ""
        variants = [f"{path}/{tag}"]
        if level:
            # Survive wrappers between the anchor and the container, and heading levels.
            variants.append(f"/descendant::{step(container)}/{tag}")
        for pred, kind in _anchor_predicates(a):
            for steps in variants:
                base = f"/descendant::{a.tag}{pred}[1]{steps}"
                out.append(RootCandidate(base + shape, kind))
                if shape:
                    out.append(RootCandidate(base, kind))
    return out


def _anchor_predicates(a: etree._Element) -> list[tuple[str, str]]:
    """What anchors ``a`` (predicate, kind): a stable id, a stable attribute, up to two
    stable classes, and for a table its first label-like header."""
    preds: list[tuple[str, str]] = []
    aid = a.get("id")
    if aid and not is_auto_id(aid):
        preds.append((f"[@id={literal(aid)}]", "id"))
    for name in ("role", "aria-label", "summary", "itemprop", "name"):
        v = a.get(name)
        if v and not is_auto_id(v) and len(v) <= 60:
            preds.append((f"[@{name}={literal(v)}]", "attribute"))
    for c in stable_classes(a)[:2]:
        preds.append((f"[{class_predicate(c)}]", "attribute"))
    if a.tag == "table":
        for th in a.iter("th"):
            h = xpath_space(itext(th))
            if label_like(h):
                preds.append((f"[descendant::th[normalize-space()={literal(h)}]]", "label-text"))
                break
    return preds


def _structural_candidates(container: etree._Element, tag: str, shape: str) -> list[RootCandidate]:
    """When no ancestor near the container has a stable anchor: a tag-only path, then the
    absolute container path."""
    out = [RootCandidate(f"/descendant::{container.tag}/{tag}{shape}", "structure")]
    if str(container.tag) in HEADINGS:
        out.append(RootCandidate(f"/descendant::{ANY_HEADING}/{tag}{shape}", "structure"))
    out.append(
        RootCandidate(
            f"{container.getroottree().getpath(container)}/{tag}{shape}",
            "structure",
            container.getroottree().getpath(container).count("["),
        )
    )
    return out


def _unique(cands: Sequence[RootCandidate]) -> list[RootCandidate]:
    out: dict[str, RootCandidate] = {}
    for c in cands:
        out.setdefault(c.xpath, c)
    return list(out.values())


def _probe_candidates(roots: Sequence[etree._Element], probe: str) -> list[RootCandidate]:
    """``tag[class][probe]`` under the nearest anchored common ancestor, or anywhere."""
    tag = str(roots[0].tag)
    has = f"[{probe}]"
    common = set(stable_classes(roots[0]))
    for r in roots[1:]:
        common &= set(stable_classes(r))
    preds = [f"[{class_predicate(c)}]" for c in sorted(common)[:2]]
    out: list[RootCandidate] = []
    scopes: list[tuple[str, str]] = []
    node = _common_container(roots)
    hops = 0
    while node is not None and node.tag not in ("html",) and hops < 6:
        aid = node.get("id")
        if aid and not is_auto_id(aid):
            scopes.append((f"/descendant::{node.tag}[@id={literal(aid)}][1]", "id"))
        for c in stable_classes(node)[:1]:
            scopes.append((f"/descendant::{node.tag}[{class_predicate(c)}][1]", "attribute"))
        if node.tag in ("main", "body"):
            scopes.append((f"/descendant::{node.tag}[1]", "structure"))
        node = node.getparent()
        hops += 1
    for scope, kind in scopes[:3]:
        for pred in preds:
            out.append(RootCandidate(f"{scope}/descendant::{tag}{pred}{has}", kind))
        out.append(RootCandidate(f"{scope}/descendant::{tag}{has}", kind, 1))
    for pred in preds:
        out.append(RootCandidate(f"/descendant::{tag}{pred}{has}", "attribute"))
    return out


def similar_records(doc: etree._Element, roots: Sequence[etree._Element], probe: str) -> int:
    """How many elements of the page look like the example records: same tag, holding the
    probe path, sharing a class the examples share (state classes such as ``in-view`` come
    and go) — or, when they share none, with the same class set near the examples. The
    plausible record count of the page."""
    common = set(stable_classes(roots[0]))
    for r in roots[1:]:
        common &= set(stable_classes(r))
    classes = {frozenset(stable_classes(r)) for r in roots}
    tag = str(roots[0].tag)
    items = _elements(doc.xpath(f"//{tag}[{probe}]" if probe != "." else f"//{tag}"))
    if common:
        alike = [x for x in items if common & set(stable_classes(x))]
    else:
        # Without a shared class, look-alikes must also sit near the examples: inside the
        # parent of their common container (grid rows: the table body). A sidebar list of bare
        # links is not more of the same records.
        common_box = _common_container(roots) if len(roots) > 1 else None
        scope = common_box.getparent() if common_box is not None else None
        alike = [
            x
            for x in items
            if frozenset(stable_classes(x)) in classes
            and (scope is None or scope in x.iterancestors())
        ]
    # Nested look-alikes (a wrapper of the same tag and classes) count once.
    ids = {id(x) for x in alike}
    return sum(1 for x in alike if not any(id(a) in ids for a in x.iterancestors()))


def root_result_ok(
    found: Sequence[etree._Element],
    roots: Sequence[etree._Element],
    expected_count: int | None = None,
    probe: str | None = None,
) -> bool:
    """The selected nodes hold every example root (in any order: people pick examples as
    they like), none inside another, all alike (in shape, or — records missing optional
    parts — holding the probe path), and — on mutated pages — exactly as many as on the
    original."""
    if not all(r in found for r in roots):
        return False
    shapes = {_shape(r) for r in roots}
    sizes = [len(r) for r in roots]
    lo, hi = min(sizes), max(sizes)
    ids = {id(f) for f in found}
    for f in found:
        if f.tag != roots[0].tag:
            return False
        if any(id(a) in ids for a in f.iterancestors()):
            return False
        if _shape(f) in shapes and lo <= len(f) <= hi:
            continue
        if probe and probe != "." and f.xpath(probe):
            continue
        return False
    return expected_count is None or len(found) == expected_count


# -- pagination ---------------------------------------------------------------------------------


def _href_of(res: object, url: str) -> str | None:
    items = res if isinstance(res, list) else [res]
    hrefs = [str(i).strip() for i in items if str(i).strip()]
    if len(hrefs) != 1 or hrefs[0].startswith(("javascript:", "#")):
        return None
    return urljoin(url, hrefs[0])


def _int(text: str) -> int | None:
    t = text.strip()
    return int(t) if re.fullmatch(r"\d{1,5}", t) else None


#: Ids of web-archive replay toolbars (Wayback Machine, pywb/webrecorder): their "Next
#: capture" links lead to another capture of the same page, never to the next page.
_ARCHIVE_TOOLBAR = re.compile(r"^(wm-ipp|wm-|_wb_|wb_|__wb|donato|playback)", re.IGNORECASE)
_NEXT_LABEL = re.compile(r"^(next|다음)( page| 페이지|페이지)?( [»›>]|[»›>])?$")


def _in_archive_toolbar(el: etree._Element) -> bool:
    return any(_ARCHIVE_TOOLBAR.match(a.get("id") or "") for a in [el, *el.iterancestors()])


def _means_next(label: str) -> bool:
    """A link label or image alt that says "next page" and nothing else ("Next capture",
    "Next article" do not)."""
    text = norm(label)
    return text in NEXT_WORDS or bool(_NEXT_LABEL.match(text))


def _pagination_candidates(doc: etree._Element) -> list[str]:
    out = ["/descendant::a[@rel='next'][1]/@href", "/descendant::link[@rel='next'][1]/@href"]
    for a in doc.iter("a"):
        if not a.get("href") or _in_archive_toolbar(a):
            continue
        out += _next_link_candidates(a)
    # Numbered links: the current page (a non-link number, or aria-current/active) followed
    # by the link to the next number.
    for el in doc.iter():
        if not isinstance(el.tag, str) or _int(itext(el)) is None:
            continue
        numbered = _numbered_candidate(el)
        if numbered is not None:
            out.append(numbered)
    return list(dict.fromkeys(out))


def _next_link_candidates(a: etree._Element) -> list[str]:
    """XPaths to link ``a`` when it says "next page": by its text, aria-label or title, a
    ``next`` class, or the alt of its image."""
    out: list[str] = []
    text = xpath_space(itext(a))
    label = a.get("aria-label") or a.get("title") or ""
    if norm(text) in NEXT_WORDS and text:
        out.append(f"/descendant::a[normalize-space()={literal(text)}][1]/@href")
    if label and _means_next(label):
        out.append(
            f"/descendant::a[@aria-label={literal(label)}][1]/@href"
            if a.get("aria-label")
            else f"/descendant::a[@title={literal(label)}][1]/@href"
        )
    for c in stable_classes(a):
        if c.lower() in ("next", "btn-next", "pg-next", "page-next", "pagination-next"):
            out.append(f"/descendant::a[{class_predicate(c)}][1]/@href")
    img = a.find(".//img")
    if img is not None and _means_next(img.get("alt") or ""):
        out.append(f"/descendant::a[img[@alt={literal(img.get('alt') or '')}]][1]/@href")
    return out


def _numbered_candidate(el: etree._Element) -> str | None:
    """When ``el`` is the current page's number (a non-link number, or a link marked
    aria-current/active) followed by the link to the next number: an XPath to that link's
    href, else None."""
    is_current = (
        el.tag != "a"
        or not el.get("href")
        or el.get("aria-current")
        or any(
            c in ("on", "active", "current", "selected") for c in (el.get("class") or "").split()
        )
    )
    if not is_current or len(el):
        return None
    sib = el.getnext()
    hop = el
    up = el.getparent()
    if sib is None and up is not None and up.tag == "li":
        hop = up
        sib = hop.getnext()
    if sib is None:
        return None
    link = sib if sib.tag == "a" else sib.find(".//a")
    cur = _int(itext(el))
    if link is None or cur is None or _int(itext(link)) != cur + 1:
        return None
    parent = hop.getparent()
    if parent is None:
        return None
    scope = ""
    classes = stable_classes(parent)
    if classes:
        scope = f"/descendant::{parent.tag}[{class_predicate(classes[0])}][1]"
    pred = "[number(normalize-space()) = number(normalize-space())]"
    if el.get("aria-current"):
        pred = f"[@aria-current={literal(el.get('aria-current') or '')}]"
    own = f"{el.tag}{pred}[not(@href)]" if el.tag != "a" else f"{el.tag}{pred}"
    step = "/following-sibling::*[1]" + ("" if sib.tag == "a" else "/descendant::a[1]")
    if hop is not el:
        own = f"{hop.tag}[{own}]"
    head = f"{scope}/{own}[1]" if scope else f"/descendant::{own}[1]"
    return f"{head}{step}/@href"


def detect_pagination(pages: Sequence[tuple[etree._Element, str]]) -> str | None:
    """An XPath to the next page's href that works on every seed list page that has one.

    Candidates, in order: ``rel=next``, next words/arrows ("다음", "next", "›"), aria-label or
    class ``next``, numbered links after the current page number. A candidate must yield one
    href, different from the page itself, on every seed (the last page may have none).
    """
    if not pages:
        return None
    cands: list[str] = []
    for doc, _url in pages:
        cands += [c for c in _pagination_candidates(doc) if c not in cands]
    for expr in cands:
        hits = 0
        bad = False
        for doc, url in pages:
            try:
                res = doc.xpath(expr)
            except etree.XPathError:
                bad = True
                break
            if isinstance(res, list) and not res:
                continue
            href = _href_of(res, url)
            if href is None or href == url:
                bad = True
                break
            hits += 1
        if not bad and hits >= max(1, len(pages) - 1):
            return expr
    return None
