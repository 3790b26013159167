"""Scoped variants: a label or attribute candidate with its first step searched inside the
nearest stable container, so a decoy repeating the label earlier in the page does not take
the first match."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from lxml import etree

from anchorpath.authoring.candidates.attr_anchors import attribute_anchors
from anchorpath.authoring.candidates.xpath_common import XCandidate

_STEP_HEAD = re.compile(r"/descendant::(?:\*|text\(\)|[A-Za-z_][\w.-]*(?![\w.(-]))")


def split_first_step(xpath: str) -> tuple[str, str] | None:
    """``('/descendant::tag[…][1]', rest)`` for an XPath opening with an early-stopping
    element step, else None. Brackets inside string literals are skipped."""
    m = _STEP_HEAD.match(xpath)
    if m is None:
        return None
    i, n = m.end(), len(xpath)
    while i < n and xpath[i] == "[":
        depth, quote, j = 0, "", i
        while j < n:
            ch = xpath[j]
            if quote:
                quote = "" if ch == quote else quote
            elif ch in "'\"":
                quote = ch
            elif ch == "[":
                depth += 1
            elif ch == "]":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        else:
            return None
        i = j + 1
    return xpath[:i], xpath[i:]


#: What a step selects: elements as such, text nodes as (owner element, is_tail).
_Node = etree._Element | tuple[etree._Element, bool]


def _nodes(ctx: etree._Element, expr: str) -> list[_Node]:
    try:
        res = ctx.xpath(expr.lstrip("/"))
    except etree.XPathError:
        return []
    out: list[_Node] = []
    for r in res if isinstance(res, list) else []:
        if isinstance(r, etree._Element):
            out.append(r)
        else:
            getparent = getattr(r, "getparent", None)  # lxml "smart string" of a text node
            owner = getparent() if getparent is not None else None
            if isinstance(owner, etree._Element):
                out.append((owner, bool(getattr(r, "is_tail", False))))
    return out


def container_scopes(el: etree._Element, ctx: etree._Element, *, classes: int = 2) -> list[str]:
    """Expressions for the nearest stable containers of ``el`` (itself excluded): up to
    ``classes`` class/attribute anchors, nearest first, and the nearest stable id."""
    out: list[str] = []
    have_id = False
    others = 0
    parent = el.getparent()
    if parent is None:
        return out
    for expr, kind, _anchor, _pos in attribute_anchors(parent, ctx, False, limit=99):
        if kind == "id":
            if have_id:
                continue
            have_id = True
        elif others >= classes:
            continue
        else:
            others += 1
        out.append(expr)
        if have_id and others >= classes:
            break
    return out


def scoped_variants(cands: Sequence[XCandidate], ctx: etree._Element) -> list[XCandidate]:
    """The same candidates with their first step searched inside the nearest stable
    container: ``/descendant::ul[@class='details'][1]/descendant::strong[.='ISBN'][1]/…``.

    A decoy block repeating the label (or the class) earlier in the page takes the
    unscoped first match; the scoped form does not, unless the decoy copies the container
    too. Only label and attribute anchors are scoped (an id is unique already; positional
    steps would count inside the container). Mutation scoring decides which one wins: the
    longer scoped form loses ties.
    """
    out: list[XCandidate] = []
    steps: dict[str, list[_Node]] = {}
    scopes: dict[etree._Element, list[str]] = {}
    for c in cands:
        if c.kind not in ("label-text", "attribute", "aria"):
            continue
        split = split_first_step(c.xpath)
        if split is None or "@id=" in split[0]:
            continue
        step, rest = split
        if step not in steps:
            steps[step] = _nodes(ctx, step)
        nodes = steps[step]
        if not nodes:
            continue
        first = nodes[0]
        # A tail text lives in its owner's parent: scope from the owner. An element's own
        # text lives in the element: scope from a child of it (any will do).
        base = first[0] if isinstance(first, tuple) else first
        if isinstance(first, tuple) and not first[1]:
            kid = next((k for k in base if isinstance(k.tag, str)), None)
            base = kid if kid is not None else base
        if base not in scopes:
            scopes[base] = container_scopes(base, ctx)
        for sexpr in scopes[base]:
            scoped = sexpr + "/" + step.lstrip("/")
            if scoped not in steps:
                steps[scoped] = _nodes(ctx, scoped)
            if steps[scoped] == nodes:
                out.append(replace(c, xpath=scoped + rest))
    return out
