"""Candidate families 1 and 3: attribute anchors (a stable id, ``data-*``, ``itemprop``,
class, … on the target or an ancestor) and neighbour anchors (the target told apart by a
child or sibling carrying one)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from lxml import etree

from anchorpath.authoring.candidates.ground import Target
from anchorpath.authoring.candidates.xpath_common import (
    ANY_HEADING,
    HEADINGS,
    STABLE_ATTRIBUTES,
    XCandidate,
    ancestors_within,
    class_predicate,
    descendant_prefix,
    first_match,
    is_auto_id,
    literal,
    query_form,
    residue_normalizations,
    stable_classes,
    tag_of,
    value_suffix,
)
from anchorpath.selectors.model import Anchor


def attribute_anchors(
    el: etree._Element, ctx: etree._Element, relative: bool, limit: int = 4
) -> Iterator[tuple[str, str, Anchor, int]]:
    """(expression selecting the anchor element, kind, anchor, positional) pairs for ``el``
    and its ancestors, nearest first."""
    pfx = descendant_prefix(relative)
    seen = 0
    for a in ancestors_within(el, ctx, 8):
        tag = tag_of(a)
        found: list[tuple[str, str, Anchor]] = []
        aid = a.get("id")
        if aid and not is_auto_id(aid):
            found.append((f"{pfx}{tag}[@id={literal(aid)}][1]", "id", Anchor("id", aid)))
        names = [n for n in STABLE_ATTRIBUTES if a.get(n)] + sorted(
            str(n) for n in a.attrib if str(n).startswith("data-") and str(n) != "data-ap"
        )
        for name in names:
            v = a.get(name) or ""
            if not v.strip() or (name != "aria-label" and is_auto_id(v)) or len(v) > 60:
                continue
            kind = "aria" if name == "aria-label" else "attribute"
            anchor = Anchor(kind, v, attribute=None if kind == "aria" else name)
            found.append((f"{pfx}{tag}[@{name}={literal(v)}][1]", kind, anchor))
        for c in stable_classes(a)[:2]:
            found.append(
                (
                    f"{pfx}{tag}[{class_predicate(c)}][1]",
                    "attribute",
                    Anchor("attribute", c, attribute="class"),
                )
            )
        for expr, kind, anchor in found:
            # The anchor must be the first such element, or the early-stopping [1] lies.
            if first_match(ctx, expr.lstrip("/") if not relative else expr) is a:
                yield expr, kind, anchor, 0
                seen += 1
        if seen >= limit:
            return


def neighbour_anchors(target: Target, ctx: etree._Element, relative: bool) -> Iterator[XCandidate]:
    """The target told apart by a stable neighbour: a child with a stable class or attribute
    (``h2[span[@class~='subtitle']]``), or the nearest sibling with one
    (``h3[@class~='author']/preceding-sibling::h2[1]``). Survives a same-tag element inserted
    before the target, which first-of-tag steps (``descendant::h2[1]``) do not."""
    el = target.element
    tag = tag_of(el)
    pfx = descendant_prefix(relative)
    ctx_q = query_form(relative)
    suffix = value_suffix(target)
    norms = residue_normalizations(target)
    steps = [tag] + ([ANY_HEADING] if tag in HEADINGS else [])

    def preds(x: etree._Element) -> list[tuple[str, Anchor]]:
        out = [
            (f"@{n}={literal(x.get(n) or '')}", Anchor("attribute", x.get(n) or "", attribute=n))
            for n in STABLE_ATTRIBUTES
            if x.get(n) and not is_auto_id(x.get(n) or "") and len(x.get(n) or "") <= 60
        ]
        out += [
            (class_predicate(c), Anchor("attribute", c, attribute="class"))
            for c in stable_classes(x)[:2]
        ]
        return out

    # (expression, anchor, axis from the anchor element to the value)
    found: list[tuple[str, Anchor, str]] = []
    for child in [c for c in el if isinstance(c.tag, str)][:3]:
        for pred, anchor in preds(child):
            for st in steps:
                found.append((f"{pfx}{st}[{tag_of(child)}[{pred}]][1]", anchor, f"parent::{st}"))
    for preceding, axis in ((False, "preceding-sibling"), (True, "following-sibling")):
        sib = next(
            (s for s in el.itersiblings(preceding=preceding) if isinstance(s.tag, str)), None
        )
        if sib is None:
            continue
        for pred, anchor in preds(sib):
            sexpr = f"{pfx}{tag_of(sib)}[{pred}][1]"
            if first_match(ctx, ctx_q(sexpr)) is not sib:
                continue
            for st in steps:
                found.append((f"{sexpr}/{axis}::{st}[1]", anchor, f"{axis}::{st}[1]"))
    for expr, anchor, to_value in found:
        if first_match(ctx, ctx_q(expr)) is el:
            for nz in norms:
                yield XCandidate(
                    expr + suffix, "attribute", replace(anchor, axis=to_value + suffix), nz
                )
