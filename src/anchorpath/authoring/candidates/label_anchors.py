"""Candidate family 2: label-text anchors. The nearest short text acting as a label
(``th``, ``dt``, ``label``, ``strong``, a ``span`` ending in ``:``, a table column header,
a label sharing the value's text node, a bare ``By:`` text) and the axis to the value."""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from anchorpath.authoring.candidates.attr_anchors import attribute_anchors
from anchorpath.authoring.candidates.ground import Target, itext
from anchorpath.authoring.candidates.xpath_common import (
    ANY_HEADING,
    HEADINGS,
    XCandidate,
    ancestors_within,
    child_steps,
    descendant_prefix,
    down_paths,
    first_match,
    label_like,
    literal,
    path_up,
    query_form,
    residue_normalizations,
    tag_of,
    text_node,
    value_suffix,
    xpath_space,
)
from anchorpath.selectors.model import Anchor, Normalize

_LABEL_TAGS = {
    "th",
    "dt",
    "label",
    "strong",
    "b",
    "em",
    "span",
    "div",
    "td",
    "p",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "legend",
    "caption",
    "li",
    "i",
    "font",
}


def _label_text(el: etree._Element) -> str:
    return xpath_space(itext(el))


def _deepest_same_text(el: etree._Element) -> etree._Element:
    node = el
    while True:
        kids = [c for c in node if isinstance(c.tag, str)]
        if len(kids) != 1 or _label_text(kids[0]) != _label_text(node):
            return node
        node = kids[0]


def _label_expr(pfx: str, el: etree._Element, text: str) -> str:
    return f"{pfx}{tag_of(el)}[normalize-space()={literal(text)}][1]"


def _label_exprs(pfx: str, el: etree._Element, text: str) -> list[str]:
    """The label element by its text; headings also level-blind (an h4 becomes an h5)."""
    out = [_label_expr(pfx, el, text)]
    if tag_of(el) in HEADINGS:
        out.append(f"{pfx}{ANY_HEADING}[normalize-space()={literal(text)}][1]")
    return out


def label_anchors(
    target: Target, ctx: etree._Element, relative: bool, value_norm: str
) -> Iterator[XCandidate]:
    """Label-text candidates for ``target``, evaluated from ``ctx`` (see the module doc)."""
    pfx = descendant_prefix(relative)
    suffix = value_suffix(target)
    el = target.element
    ctx_q = query_form(relative)
    norms = residue_normalizations(target)
    # (a) a label in a preceding sibling of the value or of one of its close ancestors.
    for level, x in enumerate(ancestors_within(el, ctx, 2)):
        prev = [s for s in x.itersiblings(preceding=True) if isinstance(s.tag, str)][:2]
        for s in prev:
            text = _label_text(s)
            if (
                not label_like(text)
                or text.casefold() == value_norm
                or tag_of(s) not in _LABEL_TAGS
            ):
                continue
            same = [c for c in s.itersiblings() if c.tag == x.tag]
            if x not in same:
                continue
            j = same.index(x) + 1
            for lab in dict.fromkeys([s, _deepest_same_text(s)]):
                up_n = sum(1 for _ in path_up(lab, s))
                up = "/parent::*" * up_n
                lexprs = []
                for lexpr in _label_exprs(pfx, lab, text):
                    if first_match(ctx, ctx_q(lexpr)) is lab:
                        lexprs.append(lexpr)
                # Scoped in the nearest stable container: survives a decoy block (a sidebar
                # with the same label) placed before the content.
                lab_parent = lab.getparent()
                for sexpr, _k, _a, _p in attribute_anchors(
                    lab_parent if lab_parent is not None else lab, ctx, relative, limit=2
                ):
                    scoped = sexpr + "/" + _label_expr("descendant::", lab, text)
                    if first_match(ctx, ctx_q(scoped)) is lab:
                        lexprs.append(scoped)
                k = [c for c in s.itersiblings() if isinstance(c.tag, str)].index(x) + 1
                steps = [f"/following-sibling::{tag_of(x)}[{j}]"]
                # Tag-blind form: survives the value block being wrapped or retagged.
                steps.append(f"/following-sibling::*[{k}]/descendant-or-self::{tag_of(x)}[1]")
                combos = ((e, st, dp) for e in lexprs for st in steps for dp in down_paths(x, el))
                for lexpr, step, (down, pos) in combos:
                    axis = f"{up}{step}{down}"
                    for nz in norms:
                        yield XCandidate(
                            lexpr + axis + suffix,
                            "label-text",
                            Anchor("label-text", text, axis=axis.lstrip("/") + suffix),
                            nz,
                            pos + (level > 0),
                        )
    # (b) mixed content: ``<li><b>ISBN:</b> 978…</li>`` — the label is the element before.
    if target.mode == "text":
        node = text_node(target)
        if node is not None and getattr(node, "is_tail", False):
            lab = node.getparent()
            text = _label_text(lab) if lab is not None else ""
            if lab is not None and label_like(text):
                lexpr = _label_expr(pfx, lab, text)
                if first_match(ctx, ctx_q(lexpr)) is lab:
                    for nz in norms:
                        yield XCandidate(
                            lexpr + "/following-sibling::text()[1]",
                            "label-text",
                            Anchor("label-text", text, axis="following-sibling::text()[1]"),
                            nz,
                        )
    if (target.mode == "element" or target.text_index == 1) and len(el):
        first = next((c for c in el if isinstance(c.tag, str)), None)
        if first is not None:
            text = _label_text(first)
            if label_like(text) and text.casefold() != value_norm:
                expr = f"{pfx}{tag_of(el)}[{tag_of(first)}[normalize-space()={literal(text)}]][1]"
                if first_match(ctx, ctx_q(expr)) is el:
                    for nz in norms:
                        yield XCandidate(
                            expr + suffix,
                            "label-text",
                            Anchor("label-text", text, axis="self" + suffix),
                            nz,
                        )
    # (e) a bare text label right before the value element: ``By: <a>Alex</a>``.
    if target.mode != "jsonld":
        # The text right before the element: the previous node's tail (a comment's too), or
        # the parent's own text when the element comes first.
        left = el.getprevious()
        parent = el.getparent()
        before = left.tail if left is not None else parent.text if parent is not None else None
        text = xpath_space(before or "")
        if text.endswith(":") and label_like(text) and text.casefold() != value_norm:
            lexpr = f"{pfx}text()[normalize-space()={literal(text)}][1]"
            expr = f"{lexpr}/following-sibling::{tag_of(el)}[1]"
            if first_match(ctx, ctx_q(expr)) is el:
                for nz in norms:
                    yield XCandidate(
                        expr + suffix,
                        "label-text",
                        Anchor(
                            "label-text", text, axis=f"following-sibling::{tag_of(el)}[1]" + suffix
                        ),
                        nz,
                    )
    # (c) the label shares the value's text node: starts-with on the residue.
    pre = xpath_space(target.prefix)
    if pre and label_like(pre):
        if target.mode == "element":
            expr = f"{pfx}{tag_of(el)}[starts-with(normalize-space(), {literal(pre)})][1]"
            ok = first_match(ctx, ctx_q(expr)) is el
        else:
            expr = f"{pfx}text()[starts-with(normalize-space(), {literal(pre)})][1]"
            ok = target.mode == "text"
        if ok:
            for nz in norms:
                yield XCandidate(expr, "label-text", Anchor("label-text", pre, axis="self"), nz)
    # (d) table column header (list pages): the header cell names the column.
    if relative:
        yield from _column_candidates(target, ctx, norms)


def _column_candidates(
    target: Target, ctx: etree._Element, norms: list[Normalize]
) -> Iterator[XCandidate]:
    el = target.element
    outer = ctx.getparent()
    cell = next(
        (
            a
            for a in ancestors_within(el, outer if outer is not None else ctx, 6)
            if tag_of(a) in ("td", "th")
        ),
        None,
    )
    if cell is None:
        return
    row = cell.getparent()
    table = next((a for a in cell.iterancestors() if tag_of(a) == "table"), None)
    if row is None or table is None:
        return
    header = first_match(table, "descendant::tr[th][1]")
    if header is None or header is row:
        return
    cells = [c for c in row if tag_of(c) in ("td", "th")]
    hcells = [c for c in header if tag_of(c) in ("td", "th")]
    col = cells.index(cell)
    if col >= len(hcells) or len(hcells) != len(cells):
        return
    h = _label_text(hcells[col])
    if not label_like(h) or sum(1 for c in hcells if _label_text(c) == h) != 1:
        return
    hpath = f"ancestor::table[1]/descendant::tr[th][1]/th[normalize-space()={literal(h)}]"
    to_row = "." if row is ctx else None
    if to_row is None:
        steps = child_steps(ctx, row)
        if steps is None:
            return
        to_row = "." + steps[0]
    cell_expr = f"{to_row}/*[{hpath}][count({hpath}/preceding-sibling::*) + 1]"
    for down, pos in down_paths(cell, el)[:1]:
        for nz in norms:
            yield XCandidate(
                cell_expr + down + value_suffix(target),
                "label-text",
                Anchor("label-text", h, axis="column" + down),
                nz,
                pos,
            )
