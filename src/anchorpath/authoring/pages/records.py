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
    "root_candidates",
    "root_result_ok",
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


def induce_roots(
    per_record: Sequence[Sequence[Sequence[etree._Element]]],
) -> list[etree._Element] | None:
    """Record roots from grounded nodes.

    ``per_record[i][f]`` lists the candidate nodes of field ``f`` in example record ``i``
    (empty when the record has no value for it). Returns one root per record, or None when
    the records do not sit in distinct siblings of a common container.
    """
    if len(per_record) < 2:
        return None
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


def root_candidates(roots: Sequence[etree._Element]) -> list[RootCandidate]:
    """XPaths that should select every record root (not just the examples) of one page."""
    first = roots[0]
    tag = str(first.tag)
    container = first.getparent()
    if container is None:
        return []
    shape = _shape_predicate(roots) or ""
    out: list[RootCandidate] = []
    # Common stable class of the roots: //li[class~='item'].
    common = set(stable_classes(first))
    for r in roots[1:]:
        common &= set(stable_classes(r))
    for c in sorted(common)[:2]:
        out.append(RootCandidate(f"/descendant::{tag}[{class_predicate(c)}]", "attribute"))
        if shape:
            out.append(
                RootCandidate(f"/descendant::{tag}[{class_predicate(c)}]{shape}", "attribute")
            )
    # Container anchors: the container or a close ancestor with a stable id/attribute/class,
    # or a table identified by one of its header labels.
    chain: list[etree._Element] = []
    node: etree._Element | None = container
    while node is not None and node.tag not in ("body", "html") and len(chain) < 4:
        chain.append(node)
        node = node.getparent()

    def step(x: etree._Element) -> str:
        return ANY_HEADING if str(x.tag) in HEADINGS else str(x.tag)

    for level, a in enumerate(chain):
        path = "/" + "/".join(str(x.tag) for x in reversed(chain[:level])) if level else ""
        variants = [f"{path}/{tag}"]
        if level:
            # Survive wrappers between the anchor and the container, and heading levels.
            variants.append(f"/descendant::{step(container)}/{tag}")
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
                    preds.append(
                        (f"[descendant::th[normalize-space()={literal(h)}]]", "label-text")
                    )
                    break
        for pred, kind in preds:
            for steps in variants:
                base = f"/descendant::{a.tag}{pred}[1]{steps}"
                out.append(RootCandidate(base + shape, kind))
                if shape:
                    out.append(RootCandidate(base, kind))
    # Structural: the container's tag path from the nearest ancestor with a stable anchor
    # failed; fall back to a tag-only path, then to the absolute container path.
    out.append(RootCandidate(f"/descendant::{container.tag}/{tag}{shape}", "structure"))
    if str(container.tag) in HEADINGS:
        out.append(RootCandidate(f"/descendant::{ANY_HEADING}/{tag}{shape}", "structure"))
    out.append(
        RootCandidate(
            f"{container.getroottree().getpath(container)}/{tag}{shape}",
            "structure",
            container.getroottree().getpath(container).count("["),
        )
    )
    seen: set[str] = set()
    return [c for c in out if not (c.xpath in seen or seen.add(c.xpath))]  # type: ignore[func-returns-value]


def root_result_ok(
    found: Sequence[etree._Element],
    roots: Sequence[etree._Element],
    expected_count: int | None = None,
) -> bool:
    """The selected nodes hold every example root, all alike in shape (no header/notice rows),
    and — on mutated pages — exactly as many as on the original."""
    if not all(r in found for r in roots):
        return False
    order = [found.index(r) for r in roots]
    if order != sorted(order) and expected_count is None:
        return False
    shapes = {_shape(r) for r in roots}
    sizes = [len(r) for r in roots]
    lo, hi = min(sizes), max(sizes)
    for f in found:
        if f.tag != roots[0].tag or _shape(f) not in shapes or not lo <= len(f) <= hi:
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


def _pagination_candidates(doc: etree._Element) -> list[str]:
    out = ["/descendant::a[@rel='next'][1]/@href", "/descendant::link[@rel='next'][1]/@href"]
    for a in doc.iter("a"):
        if not a.get("href"):
            continue
        text = xpath_space(itext(a))
        label = a.get("aria-label") or a.get("title") or ""
        if norm(text) in NEXT_WORDS and text:
            out.append(f"/descendant::a[normalize-space()={literal(text)}][1]/@href")
        if label and any(w in norm(label) for w in ("next", "다음")):
            out.append(
                f"/descendant::a[@aria-label={literal(label)}][1]/@href"
                if a.get("aria-label")
                else f"/descendant::a[@title={literal(label)}][1]/@href"
            )
        for c in stable_classes(a):
            if c.lower() in ("next", "btn-next", "pg-next", "page-next", "pagination-next"):
                out.append(f"/descendant::a[{class_predicate(c)}][1]/@href")
        img = a.find(".//img")
        if img is not None and any(w in norm(img.get("alt") or "") for w in ("next", "다음")):
            out.append(f"/descendant::a[img[@alt={literal(img.get('alt') or '')}]][1]/@href")
    # Numbered links: the current page (a non-link number, or aria-current/active) followed
    # by the link to the next number.
    for el in doc.iter():
        if not isinstance(el.tag, str) or _int(itext(el)) is None:
            continue
        is_current = (
            el.tag != "a"
            or not el.get("href")
            or el.get("aria-current")
            or any(
                c in ("on", "active", "current", "selected")
                for c in (el.get("class") or "").split()
            )
        )
        if not is_current or len(el):
            continue
        sib = el.getnext()
        hop = el
        up = el.getparent()
        if sib is None and up is not None and up.tag == "li":
            hop = up
            sib = hop.getnext()
        if sib is None:
            continue
        link = sib if sib.tag == "a" else sib.find(".//a")
        cur = _int(itext(el))
        if link is None or cur is None or _int(itext(link)) != cur + 1:
            continue
        parent = hop.getparent()
        if parent is None:
            continue
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
        out.append(f"{head}{step}/@href")
    return list(dict.fromkeys(out))


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
