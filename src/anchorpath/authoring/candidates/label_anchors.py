"""Candidate family 2: label-text anchors. The nearest short text acting as a label
(``th``, ``dt``, ``label``, ``strong``, a ``span`` ending in ``:``, a table column header,
a label sharing the value's text node, a bare ``By:`` text) and the axis to the value."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from lxml import etree

from anchorpath.authoring.candidates.attr_anchors import attribute_anchors
from anchorpath.authoring.candidates.ground import Target, itext
from anchorpath.authoring.candidates.xpath_common import (
    ANY_HEADING,
    HEADINGS,
    LABEL_TAGS,
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


@dataclass(frozen=True)
class _LabelSearch:
    """What every step needs: the target, the context expressions run from, the step prefix,
    the value suffix and the residue normalisations to try."""

    target: Target
    ctx: etree._Element
    relative: bool
    value_norm: str
    pfx: str
    suffix: str
    norms: list[Normalize]

    @classmethod
    def of(
        cls, target: Target, ctx: etree._Element, relative: bool, value_norm: str
    ) -> _LabelSearch:
        return cls(
            target,
            ctx,
            relative,
            value_norm,
            descendant_prefix(relative),
            value_suffix(target),
            residue_normalizations(target),
        )

    def is_label(self, text: str) -> bool:
        """Label-like text that is not the value itself."""
        return label_like(text) and text.casefold() != self.value_norm

    def picks(self, expr: str, node: etree._Element) -> bool:
        """Does ``expr``, run from the context, select ``node`` first?"""
        return first_match(self.ctx, query_form(self.relative)(expr)) is node

    def candidates(
        self, xpath: str, label: str, axis: str, positional: int = 0
    ) -> Iterator[XCandidate]:
        """One label-text candidate per residue normalisation."""
        for nz in self.norms:
            yield XCandidate(
                xpath, "label-text", Anchor("label-text", label, axis=axis), nz, positional
            )


def label_anchors(
    target: Target, ctx: etree._Element, relative: bool, value_norm: str
) -> Iterator[XCandidate]:
    """Label-text candidates for ``target``, evaluated from ``ctx``, in this order (it breaks
    ties between equally scored candidates, so it is part of the behaviour):

    1. a label element before the value or a close ancestor (``<th>ISBN</th><td>…``);
    2. a label element before the value's text node (``<li><b>ISBN:</b> 978…</li>``);
    3. a label as the first child of the value element;
    4. a bare text label before the value element (``By: <a>Alex</a>``);
    5. a label sharing the value's text node (``starts-with`` on the residue);
    6. on list pages (``relative``), the table column header.
    """
    q = _LabelSearch.of(target, ctx, relative, value_norm)
    yield from _sibling_labels(q)
    yield from _label_before_text(q)
    yield from _first_child_label(q)
    yield from _bare_text_label(q)
    yield from _shared_text_label(q)
    if relative:
        yield from _column_header(q)


def _sibling_labels(q: _LabelSearch) -> Iterator[XCandidate]:
    """Step 1: a label among the two element siblings before the value or one of its
    ancestors (up to two levels), then the axis from the label to the value."""
    el = q.target.element
    for level, x in enumerate(ancestors_within(el, q.ctx, 2)):
        before = [s for s in x.itersiblings(preceding=True) if isinstance(s.tag, str)][:2]
        for s in before:
            text = _label_text(s)
            if not q.is_label(text) or tag_of(s) not in LABEL_TAGS:
                continue
            steps = _steps_to_value(s, x)
            if not steps:
                continue
            for lab in dict.fromkeys([s, _deepest_same_text(s)]):
                up = "/parent::*" * sum(1 for _ in path_up(lab, s))
                lexprs = _label_paths(q, lab, text)
                combos = ((e, st, dp) for e in lexprs for st in steps for dp in down_paths(x, el))
                for lexpr, step, (down, pos) in combos:
                    axis = f"{up}{step}{down}"
                    yield from q.candidates(
                        lexpr + axis + q.suffix,
                        text,
                        axis.lstrip("/") + q.suffix,
                        pos + (level > 0),
                    )


def _steps_to_value(label: etree._Element, x: etree._Element) -> list[str]:
    """Steps from ``label`` to its following sibling ``x``: by tag and position, and
    tag-blind (survives the value block being wrapped or retagged)."""
    same = [c for c in label.itersiblings() if c.tag == x.tag]
    if x not in same:
        return []
    j = same.index(x) + 1
    k = [c for c in label.itersiblings() if isinstance(c.tag, str)].index(x) + 1
    return [
        f"/following-sibling::{tag_of(x)}[{j}]",
        f"/following-sibling::*[{k}]/descendant-or-self::{tag_of(x)}[1]",
    ]


def _label_paths(q: _LabelSearch, lab: etree._Element, text: str) -> list[str]:
    """Expressions that select ``lab`` first by its text: plain, and scoped in the nearest
    stable container (survives a decoy block, a sidebar with the same label, placed before
    the content)."""
    out = [e for e in _label_exprs(q.pfx, lab, text) if q.picks(e, lab)]
    lab_parent = lab.getparent()
    for sexpr, _k, _a, _p in attribute_anchors(
        lab_parent if lab_parent is not None else lab, q.ctx, q.relative, limit=2
    ):
        scoped = sexpr + "/" + _label_expr("descendant::", lab, text)
        if q.picks(scoped, lab):
            out.append(scoped)
    return out


def _label_before_text(q: _LabelSearch) -> Iterator[XCandidate]:
    """Step 2, mixed content: the value is the tail text of the label element."""
    if q.target.mode != "text":
        return
    node = text_node(q.target)
    if node is None or not getattr(node, "is_tail", False):
        return
    lab = node.getparent()
    if lab is None:
        return
    text = _label_text(lab)
    if not label_like(text):
        return
    lexpr = _label_expr(q.pfx, lab, text)
    if q.picks(lexpr, lab):
        axis = "following-sibling::text()[1]"
        yield from q.candidates(f"{lexpr}/{axis}", text, axis)


def _first_child_label(q: _LabelSearch) -> Iterator[XCandidate]:
    """Step 3: the value element told apart by its first child, a label."""
    el = q.target.element
    if not ((q.target.mode == "element" or q.target.text_index == 1) and len(el)):
        return
    first = next((c for c in el if isinstance(c.tag, str)), None)
    if first is None:
        return
    text = _label_text(first)
    if not q.is_label(text):
        return
    expr = f"{q.pfx}{tag_of(el)}[{tag_of(first)}[normalize-space()={literal(text)}]][1]"
    if q.picks(expr, el):
        yield from q.candidates(expr + q.suffix, text, "self" + q.suffix)


def _bare_text_label(q: _LabelSearch) -> Iterator[XCandidate]:
    """Step 4: a bare ``Label:`` text right before the value element — the previous node's
    tail (a comment's too), or the parent's own text when the element comes first."""
    if q.target.mode == "jsonld":
        return
    el = q.target.element
    left = el.getprevious()
    parent = el.getparent()
    before = left.tail if left is not None else parent.text if parent is not None else None
    text = xpath_space(before or "")
    if not (text.endswith(":") and q.is_label(text)):
        return
    axis = f"following-sibling::{tag_of(el)}[1]"
    expr = f"{q.pfx}text()[normalize-space()={literal(text)}][1]/{axis}"
    if q.picks(expr, el):
        yield from q.candidates(expr + q.suffix, text, axis + q.suffix)


def _shared_text_label(q: _LabelSearch) -> Iterator[XCandidate]:
    """Step 5: the label shares the value's text node — ``starts-with`` on the residue."""
    pre = xpath_space(q.target.prefix)
    if not (pre and label_like(pre)):
        return
    el = q.target.element
    if q.target.mode == "element":
        expr = f"{q.pfx}{tag_of(el)}[starts-with(normalize-space(), {literal(pre)})][1]"
        ok = q.picks(expr, el)
    else:
        expr = f"{q.pfx}text()[starts-with(normalize-space(), {literal(pre)})][1]"
        ok = q.target.mode == "text"
    if ok:
        yield from q.candidates(expr, pre, "self")


def _column_header(q: _LabelSearch) -> Iterator[XCandidate]:
    """Step 6, list pages: the table's header cell names the value's column."""
    el, ctx = q.target.element, q.ctx
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
        yield from q.candidates(cell_expr + down + q.suffix, h, "column" + down, pos)
