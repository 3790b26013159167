"""XPath candidate generators, anchors first (in the spirit of Robula+).

For one grounded target node the generators propose, in order of preference:

1. **attribute anchors** — the target or an ancestor with a stable id, ``data-*``, ``itemprop``,
   ``name``, ``aria-label``, ``role``, ``property`` or stable class, then the shortest way down;
2. **label-text anchors** — the nearest short text acting as a label (``th``, ``dt``,
   ``label``, ``strong``/``b``, a ``span``/``div`` ending in ``:``, a table column header, or a
   label sharing the value's own text node, a bare ``By:`` text before the value element) and
   the axis that reaches the value
   (``following-sibling::td[1]``, ``parent::*/following-sibling::*[1]``, a header-anchored
   column, …);
3. **neighbour anchors** — the target told apart by a child or the nearest sibling with a
   stable class/attribute (``h2[span[@class~='subtitle']]``,
   ``h3[@class~='author']/preceding-sibling::h2[1]``): no first-of-tag step to shift;
4. **structural paths** — first-of-tag, then positional, then the absolute path (last resort
   and the benchmark's baseline).

Label and attribute anchors are also proposed *scoped by the nearest stable container*
(``/descendant::ul[@class~='details'][1]/descendant::strong[.='ISBN'][1]/…``, the nearest
stable id too): a decoy repeating the label earlier in the page takes an unscoped first match.
The longer scoped forms lose ties, so only mutation scoring (``decoy_label``) promotes them.

Auto-generated ids and classes (hash-like, digits) are never used as anchors. All generated
forms stop early (``/descendant::th[…][1]``) instead of scanning the whole tree with ``//``.
Candidates are *proposals*: ``verify.py`` decides which reproduce the examples.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from lxml import etree

from anchorpath.authoring.ground import Target, itext, text_children
from anchorpath.selectors.model import Anchor, Normalize

__all__ = [
    "ANY_HEADING",
    "HEADINGS",
    "KIND_RANK",
    "STABLE_ATTRIBUTES",
    "XCandidate",
    "absolute_xpath",
    "class_predicate",
    "container_scopes",
    "generate_candidates",
    "is_auto_class",
    "is_auto_id",
    "label_like",
    "literal",
    "scoped_variants",
    "split_first_step",
    "stable_classes",
    "xpath_space",
]

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
#: Any heading level: an h2 that becomes an h3 in a redesign still matches.
ANY_HEADING = "*[" + " or ".join(f"self::{h}" for h in HEADINGS) + "]"
_HEADINGS = HEADINGS
_ANY_HEADING = ANY_HEADING
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


def _tag(el: etree._Element) -> str:
    return str(el.tag)


def _first(ctx: etree._Element, expr: str) -> etree._Element | None:
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


def _child_steps(
    ancestor: etree._Element, el: etree._Element, *, blind_headings: bool = False
) -> tuple[str, int] | None:
    """``/a/b[2]/c`` from ``ancestor`` (exclusive) down to ``el``, positions only if needed.

    With ``blind_headings`` heading steps match any level (``*[self::h1 or …]``)."""
    steps: list[str] = []
    positional = 0
    node: etree._Element | None = el
    while node is not None and node is not ancestor:
        parent = node.getparent()
        if blind_headings and _tag(node) in _HEADINGS:
            same = [c for c in parent if c.tag in _HEADINGS] if parent is not None else [node]
            step = _ANY_HEADING
        else:
            same = _siblings_same_tag(node)
            step = _tag(node)
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
    tag = _tag(el)
    if tag in _HEADINGS and _first(anchor, f"descendant::{_ANY_HEADING}[1]") is el:
        # Level-blind: survives an h2 becoming an h3 in a redesign.
        out.append((f"/descendant::{_ANY_HEADING}[1]", 0))
    if _first(anchor, f"descendant::{tag}[1]") is el:
        out.append((f"/descendant::{tag}[1]", 0))
    else:
        for c in stable_classes(el)[:2]:
            expr = f"descendant::{tag}[{class_predicate(c)}][1]"
            if _first(anchor, expr) is el:
                out.append(("/" + expr, 0))
                break
    steps = _child_steps(anchor, el)
    if steps is not None and steps[0] not in {p for p, _ in out}:
        out.append(steps)
        if any(_tag(a) in _HEADINGS for a in _path_up(el, anchor)):
            blind = _child_steps(anchor, el, blind_headings=True)
            if blind is not None:
                out.append(blind)
    return out


def _text_node(target: Target) -> Any:
    """The ``text_index``-th non-blank text child (an lxml "smart string": has
    ``getparent()`` and ``is_tail``)."""
    texts = text_children(target.element)
    i = (target.text_index or 1) - 1
    return texts[i] if 0 <= i < len(texts) else None


def value_suffix(target: Target) -> str:
    if target.mode == "attr":
        return f"/@{target.attr}"
    if target.mode == "text":
        return f"/text()[normalize-space()][{target.text_index}]"
    return ""


def residue_normalizations(target: Target) -> list[Normalize]:
    """Strip regexes that turn the node text into the value (label residue)."""
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
    if suf:
        suffixes = [r"\s*" + re.escape(suf)]
        if suf[0] in "([":
            suffixes.append(r"\s*[\(\[].*")
    return [Normalize(strip_prefix=p, strip_suffix=s) for p in prefixes for s in suffixes]


def _q(relative: bool) -> Callable[[str], str]:
    """How to run a generated expression from the context element while generating."""

    def run(expr: str) -> str:
        return expr if relative else expr.lstrip("/")

    return run


def _pfx(relative: bool) -> str:
    return "./descendant::" if relative else "/descendant::"


def _ancestors_within(
    el: etree._Element, ctx: etree._Element, limit: int
) -> Iterator[etree._Element]:
    node: etree._Element | None = el
    n = 0
    while node is not None and node is not ctx and n <= limit:
        if _tag(node) in ("html", "body"):
            return
        yield node
        node = node.getparent()
        n += 1


def _attribute_anchors(
    el: etree._Element, ctx: etree._Element, relative: bool, limit: int = 4
) -> Iterator[tuple[str, str, Anchor, int]]:
    """(expression selecting the anchor element, kind, anchor, positional) pairs for ``el``
    and its ancestors, nearest first."""
    pfx = _pfx(relative)
    seen = 0
    for a in _ancestors_within(el, ctx, 8):
        tag = _tag(a)
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
            if _first(ctx, expr.lstrip("/") if not relative else expr) is a:
                yield expr, kind, anchor, 0
                seen += 1
        if seen >= limit:
            return


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
    return f"{pfx}{_tag(el)}[normalize-space()={literal(text)}][1]"


def _label_exprs(pfx: str, el: etree._Element, text: str) -> list[str]:
    """The label element by its text; headings also level-blind (an h4 becomes an h5)."""
    out = [_label_expr(pfx, el, text)]
    if _tag(el) in _HEADINGS:
        out.append(f"{pfx}{_ANY_HEADING}[normalize-space()={literal(text)}][1]")
    return out


def _label_anchors(
    target: Target, ctx: etree._Element, relative: bool, value_norm: str
) -> Iterator[XCandidate]:
    pfx = _pfx(relative)
    suffix = value_suffix(target)
    el = target.element
    ctx_q = _q(relative)
    norms = residue_normalizations(target)
    # (a) a label in a preceding sibling of the value or of one of its close ancestors.
    for level, x in enumerate(_ancestors_within(el, ctx, 2)):
        prev = [s for s in x.itersiblings(preceding=True) if isinstance(s.tag, str)][:2]
        for s in prev:
            text = _label_text(s)
            if not label_like(text) or text.casefold() == value_norm or _tag(s) not in _LABEL_TAGS:
                continue
            same = [c for c in s.itersiblings() if c.tag == x.tag]
            if x not in same:
                continue
            j = same.index(x) + 1
            for lab in dict.fromkeys([s, _deepest_same_text(s)]):
                up_n = sum(1 for _ in _path_up(lab, s))
                up = "/parent::*" * up_n
                lexprs = []
                for lexpr in _label_exprs(pfx, lab, text):
                    if _first(ctx, ctx_q(lexpr)) is lab:
                        lexprs.append(lexpr)
                # Scoped in the nearest stable container: survives a decoy block (a sidebar
                # with the same label) placed before the content.
                lab_parent = lab.getparent()
                for sexpr, _k, _a, _p in _attribute_anchors(
                    lab_parent if lab_parent is not None else lab, ctx, relative, limit=2
                ):
                    scoped = sexpr + "/" + _label_expr("descendant::", lab, text)
                    if _first(ctx, ctx_q(scoped)) is lab:
                        lexprs.append(scoped)
                k = [c for c in s.itersiblings() if isinstance(c.tag, str)].index(x) + 1
                steps = [f"/following-sibling::{_tag(x)}[{j}]"]
                # Tag-blind form: survives the value block being wrapped or retagged.
                steps.append(f"/following-sibling::*[{k}]/descendant-or-self::{_tag(x)}[1]")
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
        node = _text_node(target)
        if node is not None and getattr(node, "is_tail", False):
            lab = node.getparent()
            text = _label_text(lab) if lab is not None else ""
            if lab is not None and label_like(text):
                lexpr = _label_expr(pfx, lab, text)
                if _first(ctx, ctx_q(lexpr)) is lab:
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
                expr = f"{pfx}{_tag(el)}[{_tag(first)}[normalize-space()={literal(text)}]][1]"
                if _first(ctx, ctx_q(expr)) is el:
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
            expr = f"{lexpr}/following-sibling::{_tag(el)}[1]"
            if _first(ctx, ctx_q(expr)) is el:
                for nz in norms:
                    yield XCandidate(
                        expr + suffix,
                        "label-text",
                        Anchor(
                            "label-text", text, axis=f"following-sibling::{_tag(el)}[1]" + suffix
                        ),
                        nz,
                    )
    # (c) the label shares the value's text node: starts-with on the residue.
    pre = xpath_space(target.prefix)
    if pre and label_like(pre):
        if target.mode == "element":
            expr = f"{pfx}{_tag(el)}[starts-with(normalize-space(), {literal(pre)})][1]"
            ok = _first(ctx, ctx_q(expr)) is el
        else:
            expr = f"{pfx}text()[starts-with(normalize-space(), {literal(pre)})][1]"
            ok = target.mode == "text"
        if ok:
            for nz in norms:
                yield XCandidate(expr, "label-text", Anchor("label-text", pre, axis="self"), nz)
    # (d) table column header (list pages): the header cell names the column.
    if relative:
        yield from _column_candidates(target, ctx, norms)


def _path_up(lab: etree._Element, top: etree._Element) -> Iterator[etree._Element]:
    node: etree._Element | None = lab
    while node is not top and node is not None:
        yield node
        node = node.getparent()


def _column_candidates(
    target: Target, ctx: etree._Element, norms: list[Normalize]
) -> Iterator[XCandidate]:
    el = target.element
    outer = ctx.getparent()
    cell = next(
        (
            a
            for a in _ancestors_within(el, outer if outer is not None else ctx, 6)
            if _tag(a) in ("td", "th")
        ),
        None,
    )
    if cell is None:
        return
    row = cell.getparent()
    table = next((a for a in cell.iterancestors() if _tag(a) == "table"), None)
    if row is None or table is None:
        return
    header = _first(table, "descendant::tr[th][1]")
    if header is None or header is row:
        return
    cells = [c for c in row if _tag(c) in ("td", "th")]
    hcells = [c for c in header if _tag(c) in ("td", "th")]
    col = cells.index(cell)
    if col >= len(hcells) or len(hcells) != len(cells):
        return
    h = _label_text(hcells[col])
    if not label_like(h) or sum(1 for c in hcells if _label_text(c) == h) != 1:
        return
    hpath = f"ancestor::table[1]/descendant::tr[th][1]/th[normalize-space()={literal(h)}]"
    to_row = "." if row is ctx else None
    if to_row is None:
        steps = _child_steps(ctx, row)
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
    for expr, kind, _anchor, _pos in _attribute_anchors(parent, ctx, False, limit=99):
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


def _neighbour_anchors(target: Target, ctx: etree._Element, relative: bool) -> Iterator[XCandidate]:
    """The target told apart by a stable neighbour: a child with a stable class or attribute
    (``h2[span[@class~='subtitle']]``), or the nearest sibling with one
    (``h3[@class~='author']/preceding-sibling::h2[1]``). Survives a same-tag element inserted
    before the target, which first-of-tag steps (``descendant::h2[1]``) do not."""
    el = target.element
    tag = _tag(el)
    pfx = _pfx(relative)
    ctx_q = _q(relative)
    suffix = value_suffix(target)
    norms = residue_normalizations(target)
    steps = [tag] + ([_ANY_HEADING] if tag in _HEADINGS else [])

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
                found.append((f"{pfx}{st}[{_tag(child)}[{pred}]][1]", anchor, f"parent::{st}"))
    for preceding, axis in ((False, "preceding-sibling"), (True, "following-sibling")):
        sib = next(
            (s for s in el.itersiblings(preceding=preceding) if isinstance(s.tag, str)), None
        )
        if sib is None:
            continue
        for pred, anchor in preds(sib):
            sexpr = f"{pfx}{_tag(sib)}[{pred}][1]"
            if _first(ctx, ctx_q(sexpr)) is not sib:
                continue
            for st in steps:
                found.append((f"{sexpr}/{axis}::{st}[1]", anchor, f"{axis}::{st}[1]"))
    for expr, anchor, to_value in found:
        if _first(ctx, ctx_q(expr)) is el:
            for nz in norms:
                yield XCandidate(
                    expr + suffix, "attribute", replace(anchor, axis=to_value + suffix), nz
                )


def _jsonld_candidate(target: Target, relative: bool) -> Iterator[XCandidate]:
    script = target.element
    raw = script.text or ""
    key = target.json_key or ""
    m = re.search(r'"' + re.escape(key) + r'"\s*:\s*"', raw)
    if not m:
        return
    opener = m.group(0)
    doc_expr = f"{_pfx(relative)}script[@type='application/ld+json'][{target.text_index}]"
    yield XCandidate(
        f"substring-before(substring-after({doc_expr}, {literal(opener)}), '\"')",
        "jsonld",
        Anchor("attribute", key, attribute="json-ld"),
    )


def _structural(target: Target, ctx: etree._Element, relative: bool) -> Iterator[XCandidate]:
    el = target.element
    pfx = _pfx(relative)
    suffix = value_suffix(target)
    tag = _tag(el)
    norms = residue_normalizations(target)
    ctx_q = _q(relative)
    if tag in _HEADINGS:
        heads = ctx.xpath(ctx_q(f"{pfx}{_ANY_HEADING}"))
        if isinstance(heads, list) and el in heads:
            k = heads.index(el) + 1
            for nz in norms:
                yield XCandidate(
                    f"{pfx}{_ANY_HEADING}[{k}]{suffix}",
                    "structure",
                    Anchor("structure"),
                    nz,
                    0 if k == 1 else 1,
                )
    all_tag = ctx.xpath(ctx_q(f"{pfx}{tag}"))
    if isinstance(all_tag, list) and el in all_tag:
        k = all_tag.index(el) + 1
        for nz in norms:
            yield XCandidate(
                f"{pfx}{tag}[{k}]{suffix}", "structure", Anchor("structure"), nz, 0 if k == 1 else 1
            )
    if relative:
        steps = _child_steps(ctx, el)
        if steps is not None:
            for nz in norms:
                yield XCandidate(
                    "." + steps[0] + suffix, "structure", Anchor("structure"), nz, steps[1]
                )
    else:
        path = absolute_xpath(el)
        for nz in norms:
            yield XCandidate(path + suffix, "absolute", Anchor("structure"), nz, path.count("["))


def generate_candidates(
    target: Target, ctx: etree._Element, *, relative: bool = False, value_norm: str = ""
) -> list[XCandidate]:
    """Every candidate XPath for ``target``, evaluated from ``ctx`` (document root, or the
    record root when ``relative``), deduplicated, in generator order."""
    out: list[XCandidate] = []
    if target.mode == "jsonld":
        out += _jsonld_candidate(target, relative)
        return out
    suffix = value_suffix(target)
    norms = residue_normalizations(target)
    for expr, kind, anchor, pos in _attribute_anchors(target.element, ctx, relative):
        a_el = _first(ctx, expr if relative else expr.lstrip("/"))
        if a_el is None:
            continue
        for down, dpos in down_paths(a_el, target.element):
            axis = (down.lstrip("/") + suffix) or None
            for nz in norms:
                out.append(
                    XCandidate(
                        expr + down + suffix,
                        kind,
                        Anchor(anchor.kind, anchor.value, anchor.attribute, axis),
                        nz,
                        pos + dpos,
                    )
                )
    out += _label_anchors(target, ctx, relative, value_norm)
    out += _neighbour_anchors(target, ctx, relative)
    if not relative:
        out += scoped_variants(out, ctx)
    out += _structural(target, ctx, relative)
    penalty = (target.zone != "body") + (
        target.mode == "element" and any(isinstance(c.tag, str) for c in target.element)
    )
    # A value cut out of running text ("Read all <title> reviews") is weaker evidence than
    # one after a label ("ISBN-13: …"): it pays in the ranking, not just on ties.
    label_residue = target.prefix.strip().endswith(":") and not target.suffix.strip()
    demerit = 0.0 if target.exact or label_residue else 0.1
    if target.zone != "body":
        demerit += 0.03
    nth_text = f"/text()[normalize-space()][{target.text_index}]"
    out = [
        replace(
            c,
            penalty=penalty,
            demerit=demerit,
            positional=c.positional
            + (
                1
                if target.mode == "text"
                and (target.text_index or 1) > 1
                and c.xpath.endswith(nth_text)
                else 0
            ),
        )
        for c in out
    ]
    seen: set[tuple[str, Normalize]] = set()
    unique = []
    for c in out:
        k = (c.xpath, c.normalize)
        if k not in seen:
            seen.add(k)
            unique.append(c)
    return unique
