"""Synthetic DOM mutations for perturbation testing (the documented mutation set).

Each operator imitates a change real sites make between deploys. All of them keep the values of
the *targets* (the nodes holding field values) intact, so a robust XPath must still return
exactly the same values afterwards:

============================ ===============================================================
``wrap_ancestors``           wrap an ancestor of each target in an extra ``<div>``
``insert_sibling_before``    insert a same-tag sibling before each target (a whole column for
                             table cells, a label+value pair for label/value layouts)
``insert_sibling_after``     the same, after the target
``add_rows_above``           add rows above the target's row (a notice row on list pages)
``rename_classes``           rename about half of the semantic CSS class tokens
``hash_classes``             re-hash generated class tokens and add a hashed token everywhere
``drop_auto_ids``            remove generated-looking ids
``heading_shift``            h1→h2, h2→h3, …
``reorder_attributes``       reverse every element's attribute order
``decoy_label``              a sidebar block repeating a target's label with another value,
                             placed at the start of ``<body>`` (before the target: the
                             placement that fools a first-match ``[1]`` anchor) and again at
                             the end
``shuffle_siblings``         shuffle rows of uniform containers around the targets
``whitespace_entities``      pad texts with newlines/indentation, NBSP inside target values
``same_tag_above``           a small block holding an element of the target's own tag as the
                             first child of containers above the target's parent (a badge or
                             promo at the top of a section): fools ``descendant::a[1]`` from a
                             far anchor, not from the nearest one
============================ ===============================================================

Deterministic: the RNG is ``random.Random(seed)``; ``operators`` picks a subset so a benchmark
can hold some back. Pure with respect to the input: every mutant is a deep copy.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import lxml.html
from lxml import etree

from anchorpath.authoring.candidates.ground import itext
from anchorpath.authoring.candidates.xpath_common import (
    is_auto_class,
    is_auto_id,
    label_like,
    xpath_space,
)

__all__ = [
    "OPERATORS",
    "Mutant",
    "mutate_html",
    "mutate_tree",
]


@dataclass
class Mutant:
    """A mutated copy of a page. ``targets``/``records`` are the copies of the nodes passed in
    (same order), wherever the mutation moved them."""

    operator: str
    doc: etree._Element
    targets: list[etree._Element] = field(default_factory=list)
    records: list[etree._Element] = field(default_factory=list)


@dataclass
class _Ctx:
    doc: etree._Element
    targets: list[etree._Element]
    records: list[etree._Element]
    rng: random.Random
    #: value nodes of list fields: wrappers, decoys and same-tag blocks cluster around them
    #: too, sibling inserts do not (a sibling next to a list item *is* a new item)
    extra: list[etree._Element] = field(default_factory=list)

    @property
    def body(self) -> etree._Element:
        b = self.doc.find(".//body")
        return b if b is not None else self.doc

    @property
    def focus(self) -> list[etree._Element]:
        """The nodes mutations cluster around: record roots on list pages, else targets."""
        return self.records or self.targets

    def protected(self) -> set[etree._Element]:
        out: set[etree._Element] = set()
        for t in self.targets + self.records:
            out.add(t)
            out.update(t.iterancestors())
        return out


def _el(tag: str, text: str | None = None, **attrs: str) -> etree._Element:
    e: etree._Element = lxml.html.Element(tag, **attrs)
    e.text = text
    return e


def _hash(rng: random.Random, n: int = 6) -> str:
    return hashlib.sha1(str(rng.random()).encode()).hexdigest()[:n]


def _uniq(items: Sequence[etree._Element]) -> list[etree._Element]:
    return list(dict.fromkeys(items))


def _replace_texts(el: etree._Element, text: str) -> None:
    for node in el.iter():
        if not isinstance(node.tag, str):
            continue
        if node.text and node.text.strip():
            node.text = text
        if node is not el and node.tail and node.tail.strip():
            node.tail = text


def _in_body(el: etree._Element) -> bool:
    return any(a.tag == "body" for a in el.iterancestors())


def _wrap_ancestors(c: _Ctx) -> bool:
    done = False
    # List items too: a wrapper around their list adds no item.
    for t in _uniq(c.focus + c.extra):
        anc = [a for a in t.iterancestors() if a.tag not in ("html", "body", "head")][:3]
        # Wrapping table internals or list items in a div would be invalid HTML; real
        # redesigns wrap the block around them instead.
        blocked = ("table", "tbody", "thead", "tr", "ul", "ol", "dl", "select", "html")
        ok = [
            a
            for a in anc
            if (p := a.getparent()) is not None
            and p.tag not in blocked
            and a.tag not in ("tr", "td", "th", "li", "dt", "dd", "tbody", "thead")
        ]
        if not ok:
            continue
        a = c.rng.choice(ok)
        parent = a.getparent()
        assert parent is not None
        wrapper = _el("div", None, **{"class": "wrap-" + _hash(c.rng, 4)})
        wrapper.tail, a.tail = a.tail, None
        parent.replace(a, wrapper)
        wrapper.append(a)
        done = True
    return done


def _label_before(t: etree._Element) -> etree._Element | None:
    prev = t.getprevious()
    while prev is not None and not isinstance(prev.tag, str):
        prev = prev.getprevious()
    if prev is not None and label_like(itext(prev)) and len(itext(prev)) <= 40:
        return prev
    return None


def _insert_column(cell: etree._Element, after: bool, done: set[etree._Element]) -> bool:
    row = cell.getparent()
    table = next((a for a in cell.iterancestors() if a.tag == "table"), None)
    if row is None or table is None:
        return False
    col = [c for c in row if c.tag in ("td", "th")].index(cell)
    if table in done:  # one new column per table (targets shift once it is in)
        return True
    done.add(table)  # keeps the proxy alive, so identity holds
    for tr in table.iter("tr"):
        cells = [c for c in tr if c.tag in ("td", "th")]
        if len(cells) <= col:
            continue
        ref = cells[col]
        new = _el(ref.tag, "추가" if ref.tag == "th" else "—")
        if after:
            ref.addnext(new)
        else:
            ref.addprevious(new)
    return True


def _insert_sibling(c: _Ctx, after: bool) -> bool:
    done = False
    columns: set[etree._Element] = set()
    for t in _uniq(c.targets or c.records):
        if t.tag in ("html", "body", "head") or not _in_body(t) or t.getparent() is None:
            continue
        if t.tag in ("td", "th") and not c.records:
            # One added cell in one row would be a broken table; real tables gain a column.
            # (Detail pages with vertical th/td rows get a cell next to the value instead.)
            row = t.getparent()
            assert row is not None
            is_header_table = any(x.tag == "th" for x in row) and any(x.tag == "td" for x in row)
            if not is_header_table:
                done |= _insert_column(t, after, columns)
                continue
        if t.tag in ("td", "th") and c.records:
            done |= _insert_column(t, after, columns)
            continue
        label = _label_before(t)
        new = _el(t.tag, "—", **{"class": "extra"})
        if label is not None:
            new_label = _el(
                label.tag,
                "Note:" if itext(label).strip().endswith(":") else "비고 추가",
            )
            if after:
                t.addnext(new)
                t.addnext(new_label)
                new_label.tail, new.tail = t.tail, t.tail
            else:
                label.addprevious(new_label)
                label.addprevious(new)
                new_label.tail = new.tail = label.tail
        elif after:
            new.tail = t.tail
            t.addnext(new)
        else:
            new.tail = t.tail
            t.addprevious(new)
        done = True
    return done


def _row_of(t: etree._Element) -> etree._Element | None:
    """The table row, list item or ``dt`` that starts the target's row, if it has one."""
    for a in [t, *t.iterancestors()]:
        if a.tag in ("body", "html", "table"):
            return None
        if a.tag in ("tr", "li"):
            return a
        if a.tag == "dd":
            dt = next((p for p in a.itersiblings(preceding=True) if p.tag == "dt"), None)
            return dt
    return None


_SEMANTIC_ATTRS = ("id", "itemprop", "name", "property", "for")


def _add_rows_above(c: _Ctx) -> bool:
    if c.records:
        first = c.records[0]
        if first.tag == "tr":
            n = len([x for x in first if x.tag in ("td", "th")])
            row = _el("tr", None, **{"class": "notice"})
            row.append(_el("td", "공지: 시스템 점검 안내 (notice)", colspan=str(max(n, 1))))
        else:
            row = _el(first.tag, "공지: 시스템 점검 안내 (notice)", **{"class": "notice"})
        row.tail = first.tail
        first.addprevious(row)
        return True
    done = False
    for row in _uniq([r for r in (_row_of(t) for t in c.targets) if r is not None]):
        parent = row.getparent()
        if parent is None:
            continue
        first = next(s for s in parent if s.tag == row.tag)
        # A dt/dd layout gains a whole dt+dd pair; rows and items gain a row like the first.
        group = [first]
        if first.tag == "dt":
            nxt = first.getnext()
            if nxt is not None and nxt.tag == "dd":
                group.append(nxt)
        texts = itertools.cycle(["Notice:", "—"])
        for g in group:
            clone = copy.deepcopy(g)
            for node in clone.iter():
                if not isinstance(node.tag, str):
                    continue
                if node.text and node.text.strip():
                    node.text = next(texts)
                for a in _SEMANTIC_ATTRS:
                    if a in node.attrib:
                        del node.attrib[a]
            clone.tail = first.tail
            first.addprevious(clone)
        done = True
    return done


def _rename_classes(c: _Ctx) -> bool:
    tokens = sorted(
        {t for e in c.doc.iter() if isinstance(e.tag, str) for t in (e.get("class") or "").split()}
    )
    renamed = {t: f"{t}-{_hash(c.rng, 3)}" for t in tokens if c.rng.random() < 0.5}
    for e in c.doc.iter():
        if isinstance(e.tag, str) and e.get("class"):
            e.set("class", " ".join(renamed.get(t, t) for t in (e.get("class") or "").split()))
    return bool(renamed)


def _hash_classes(c: _Ctx) -> bool:
    done = False
    for e in c.doc.iter():
        if not isinstance(e.tag, str) or not e.get("class"):
            continue
        toks = [
            ("sc-" + _hash(c.rng)) if is_auto_class(t) else t
            for t in (e.get("class") or "").split()
        ]
        e.set("class", " ".join([*toks, "css-" + _hash(c.rng)]))
        done = True
    return done


def _drop_auto_ids(c: _Ctx) -> bool:
    done = False
    for e in c.doc.iter():
        if isinstance(e.tag, str) and e.get("id") is not None and is_auto_id(e.get("id") or ""):
            del e.attrib["id"]
            done = True
    return done


def _heading_shift(c: _Ctx) -> bool:
    done = False
    for level in range(5, 0, -1):
        for e in list(c.doc.iter(f"h{level}")):
            e.tag = f"h{level + 1}"
            done = True
    return done


def _reorder_attributes(c: _Ctx) -> bool:
    done = False
    for e in c.doc.iter():
        if isinstance(e.tag, str) and len(e.attrib) > 1:
            items = list(e.attrib.items())
            e.attrib.clear()
            for k, v in reversed(items):
                e.set(k, v)
            done = True
    return done


def _decoy_source(
    t: etree._Element, targets: Sequence[etree._Element] = ()
) -> etree._Element | None:
    """The smallest ancestor-or-self holding the target *and* a label-like text (text beyond
    the values of the targets inside it: a list of genres alone is no labelled block); when
    every such block within four levels is long, the first of them (a "quick view" copy of a
    whole product block is a real pattern; ``_prune`` keeps the copy small)."""

    def size(x: etree._Element) -> int:
        return len(re.sub(r"\s+", "", itext(x)))

    big: etree._Element | None = None
    for a in [t, *t.iterancestors()][:4]:
        if a.tag in ("body", "html", "table", "tbody"):
            break
        inside = [u for u in [t, *targets] if u is a or a in u.iterancestors()]
        inside = [u for u in inside if not any(v in u.iterancestors() for v in inside)]
        own = sum(size(u) for u in dict.fromkeys(inside))
        text = size(a)
        if own < text <= 300:
            return a
        if big is None and own < text <= 50_000:
            big = a
    return big


_LABEL_TAGS = ("th", "dt", "label", "strong", "b", "em", "span", "font")
_VALUE_ATTRS = ("href", "src", "content", "title", "alt", "value")
#: A ``Label:`` opening a text (label residue sharing the value's text node).
_LABEL_PREFIX = re.compile(r"^(\s*[^:\n]{1,40}:\s*)")


def _decoy_text(text: str) -> str:
    """``text`` with its value replaced: leading punctuation (``": 978…"``) and a
    ``Label:`` prefix survive, so label-residue readers still see their label."""
    m = _LABEL_PREFIX.match(text)
    if m and label_like(m.group(1).strip()):
        return m.group(1) + "decoy value"
    lead = re.match(r"^[\s:;,.\-–—|]*", text)
    return (lead.group(0) if lead else "") + "decoy value"


def _blank_value(hit: etree._Element) -> None:
    """Replace the value texts inside a cloned target, keeping the labels inside it
    (``<li><strong>ISBN-13</strong>: 978…</li>`` keeps ``ISBN-13``)."""
    whole = xpath_space(itext(hit))
    for node in hit.iter():
        if not isinstance(node.tag, str):
            continue
        text = node.text or ""
        if text.strip():
            t = xpath_space(text)
            is_label = (
                node is not hit
                and t != whole
                and label_like(t)
                and (t.endswith(":") or node.tag in _LABEL_TAGS)
            )
            if not is_label:
                node.text = _decoy_text(text)
        if node is not hit and node.tail and node.tail.strip():
            node.tail = _decoy_text(node.tail)
        for a in _VALUE_ATTRS:
            if a in node.attrib:
                node.set(a, "decoy")


def _prune(clone: etree._Element, keep: Sequence[etree._Element], limit: int = 300) -> None:
    """Drop long subtrees of a decoy copy that are off the path to the kept nodes: the copy
    keeps the block's shape (classes, labels, the target's siblings) without kilobytes of
    unrelated content."""
    path: set[etree._Element] = set()
    for k in keep:
        path.add(k)
        path.update(k.iterancestors())
    for parent in [clone, *clone.iterdescendants()]:
        if parent not in path or parent in keep:
            continue
        for child in list(parent):
            if child in path or not isinstance(child.tag, str):
                continue
            if len(itext(child)) > limit:
                tail = child.tail
                prev = child.getprevious()
                parent.remove(child)
                if tail and tail.strip():
                    if prev is not None:
                        prev.tail = (prev.tail or "") + tail
                    else:
                        parent.text = (parent.text or "") + tail


def _decoy_label(c: _Ctx) -> bool:
    aside = _el("aside", None, **{"class": "sidebar"})
    aside.append(_el("h3", "Related"))
    if c.records:
        sources = _uniq(c.records)
    else:
        every = _uniq(c.targets + c.extra)
        found = _uniq([s for s in (_decoy_source(t, every) for t in every) if s is not None])
        # One copy per block: a block inside another one's copy would be duplicated.
        sources = [s for s in found if not any(o in found for o in s.iterancestors())]
    for src in sources:
        clone = copy.deepcopy(src)
        for node in clone.iter():
            if isinstance(node.tag, str) and "id" in node.attrib:
                del node.attrib["id"]
        if c.records:
            _replace_texts(clone, "decoy")
        else:
            # Keep the labels, change the values of every target copied along (another
            # field's real value left in the copy would let a wrong XPath pass).
            base = src.getroottree().getpath(src)
            hits: list[etree._Element] = []
            for t in every:
                if t is not src and src not in t.iterancestors():
                    continue
                rel = src.getroottree().getpath(t)[len(base) :]
                inner = clone.xpath("." + rel) if rel else [clone]
                hits += [
                    h
                    for h in (inner if isinstance(inner, list) else [])
                    if isinstance(h, etree._Element)
                ]
            for hit in hits:
                _blank_value(hit)
            _prune(clone, hits)
        holder = clone
        if clone.tag == "tr":
            holder = _el("table")
            holder.append(clone)
        elif clone.tag in ("dt", "dd"):
            holder = _el("dl")
            holder.append(clone)
        elif clone.tag == "li":
            holder = _el("ul")
            holder.append(clone)
        clone.tail = None
        aside.append(holder)
    if len(aside) <= 1:
        return False
    body = c.body
    # Before the target is the placement that matters: a first-match anchor
    # (``/descendant::strong[.='ISBN'][1]``) takes the decoy. The copy at the end catches
    # unbounded reads (``//li[@class='x']``) that gain the decoy's items.
    tail_copy = copy.deepcopy(aside)
    aside.tail, body.text = body.text, None
    body.insert(0, aside)
    body.append(tail_copy)
    return True


#: Elements that cannot take a ``<div>`` child.
_NO_BLOCK_CHILD = ("table", "tbody", "thead", "tfoot", "tr", "ul", "ol", "dl", "select", "head")
_VOID = ("img", "input", "br", "hr", "meta", "link", "source")


def _same_tag_block(t: etree._Element) -> etree._Element:
    """A small block holding one element of ``t``'s tag (valid HTML around table cells,
    list items and definition terms)."""
    tag = str(t.tag)
    inner = _el(tag, None if tag in _VOID else "Sponsored")
    for a in _VALUE_ATTRS:
        if a in t.attrib:
            inner.set(a, "promo")
    if tag == "a" and "href" not in inner.attrib:
        inner.set("href", "#promo")
    if tag in ("td", "th"):
        block = _el("table", None, **{"class": "promo"})
        row = _el("tr")
        row.append(inner)
        block.append(row)
    elif tag == "tr":
        block = _el("table", None, **{"class": "promo"})
        inner.text = None
        inner.append(_el("td", "Sponsored"))
        block.append(inner)
    elif tag == "li":
        block = _el("ul", None, **{"class": "promo"})
        block.append(inner)
    elif tag in ("dt", "dd"):
        block = _el("dl", None, **{"class": "promo"})
        block.append(inner)
    else:
        block = _el("div", None, **{"class": "promo"})
        block.append(inner)
    return block


def _same_tag_above(c: _Ctx) -> bool:
    """An element of the target's tag at the top of containers above the target's parent:
    the nearest such container and one further up. ``/descendant::div[@id='x'][1]/
    descendant::a[1]`` from a far anchor takes the new element; the nearest anchor
    (``div.product-author``) and label axes do not."""
    done = False
    used: set[etree._Element] = set()
    roots = set(c.records)
    for t in _uniq(c.targets + c.extra):
        if not _in_body(t):
            continue
        chain: list[etree._Element] = []
        for a in list(t.iterancestors())[1:7]:
            if a in roots or a.tag == "html":
                break  # list pages: stay inside the record (its shape must not change)
            chain.append(a)
            if a.tag == "body":
                break
        usable = [a for a in chain if a.tag not in _NO_BLOCK_CHILD]
        if not usable:
            continue
        picks = [usable[0]]
        if len(usable) > 1:
            picks.append(c.rng.choice(usable[1:]))
        for a in picks:
            if a in used:
                continue
            used.add(a)
            block = _same_tag_block(t)
            block.tail, a.text = a.text, None
            a.insert(0, block)
            done = True
    return done


def _shuffle_siblings(c: _Ctx) -> bool:
    done = False
    seen: set[etree._Element] = set()
    for t in c.focus:
        for a in t.iterancestors():
            if a in seen or a.tag in ("html",):
                continue
            seen.add(a)
            kids = [k for k in a if isinstance(k.tag, str)]
            if len(kids) < 3 or len({k.tag for k in kids}) != 1 or len(kids) != len(a):
                continue
            order = kids[:]
            c.rng.shuffle(order)
            if order == kids:
                order = order[1:] + order[:1]
            tails = [k.tail for k in kids]
            for k in kids:
                a.remove(k)
            for k, tail in zip(order, tails, strict=True):
                k.tail = tail
                a.append(k)
            done = True
    return done


def _whitespace_entities(c: _Ctx) -> bool:
    targets = set(c.targets)
    for e in c.body.iter():
        if not isinstance(e.tag, str):
            continue
        if e.text and e.text.strip():
            text = f"\n      {e.text}\n    "
            if e in targets and " " in e.text.strip():
                text = text.replace(" ", "\u00a0", 1) if c.rng.random() < 0.5 else text
            e.text = text
        if e.tail is not None:
            e.tail = e.tail + "\n  " if e.tail.strip() else "\n    "
    return True


OPERATORS: dict[str, Callable[[_Ctx], bool]] = {
    "wrap_ancestors": _wrap_ancestors,
    "insert_sibling_before": lambda c: _insert_sibling(c, after=False),
    "insert_sibling_after": lambda c: _insert_sibling(c, after=True),
    "add_rows_above": _add_rows_above,
    "rename_classes": _rename_classes,
    "hash_classes": _hash_classes,
    "drop_auto_ids": _drop_auto_ids,
    "heading_shift": _heading_shift,
    "reorder_attributes": _reorder_attributes,
    "decoy_label": _decoy_label,
    "shuffle_siblings": _shuffle_siblings,
    "whitespace_entities": _whitespace_entities,
    # Last, so the other operators keep their RNG streams (seeded by position).
    "same_tag_above": _same_tag_above,
}


def mutate_tree(
    doc: etree._Element,
    *,
    targets: Sequence[etree._Element] = (),
    records: Sequence[etree._Element] = (),
    operators: Sequence[str] | None = None,
    seed: int = 0,
    list_targets: Sequence[etree._Element] = (),
) -> list[Mutant]:
    """Apply each operator to its own deep copy of ``doc``; operators that find nothing to
    change on this page are left out of the result (they would inflate robustness).

    ``targets`` are the value-holding elements, ``records`` the record roots of a list page;
    without targets, a few text-bearing leaves are picked at random as stand-ins.
    ``list_targets`` are the item nodes of list fields: only the operators that add no item
    (``wrap_ancestors``, ``decoy_label``, ``same_tag_above``) cluster around them.
    """
    names = list(OPERATORS) if operators is None else list(operators)
    unknown = [n for n in names if n not in OPERATORS]
    if unknown:
        from anchorpath._errors import AuthoringError

        raise AuthoringError(
            f"unknown mutation operator(s): {', '.join(unknown)}; known: {', '.join(OPERATORS)}"
        )
    root = doc.getroottree()
    tpaths = [root.getpath(t) for t in targets]
    rpaths = [root.getpath(r) for r in records]
    xpaths = [root.getpath(x) for x in list_targets]
    if not tpaths and not rpaths and not xpaths:
        rng0 = random.Random(seed)
        leaves = [
            e
            for e in doc.iter()
            if isinstance(e.tag, str) and not len(e) and (e.text or "").strip() and _in_body(e)
        ]
        tpaths = [root.getpath(e) for e in rng0.sample(leaves, min(8, len(leaves)))]
    out: list[Mutant] = []
    for i, name in enumerate(names):
        new = copy.deepcopy(doc)
        ts = [_resolve(new, p) for p in tpaths]
        rs = [_resolve(new, p) for p in rpaths]
        xs = [_resolve(new, p) for p in xpaths]
        ctx = _Ctx(new, ts, rs, random.Random(f"{seed}:{i}:{name}"), xs)
        try:
            applied = OPERATORS[name](ctx)
        except (ValueError, TypeError, AssertionError, etree.LxmlError):
            # An operator that trips over an odd page just does not apply to it; a
            # perturbation test must never make authoring fail.
            applied = False
        if applied:
            out.append(Mutant(name, new, ts, rs))
    return out


def _resolve(doc: etree._Element, path: str) -> etree._Element:
    found = doc.getroottree().xpath(path)
    assert isinstance(found, list) and found and isinstance(found[0], etree._Element), path
    return found[0]


def mutate_html(
    html: str,
    *,
    operators: Sequence[str] | None = None,
    seed: int = 0,
    target_xpaths: Sequence[str] = (),
) -> list[tuple[str, str]]:
    """``(operator, mutated html)`` pairs for a page given as text (benchmarks).

    ``target_xpaths`` (absolute paths, e.g. from ``xpathgen.absolute_xpath``) name the nodes
    the mutations should cluster around; values held by them are preserved.
    """
    from anchorpath.selectors.evaluate import parse_html

    doc = parse_html(html)
    targets = []
    for p in target_xpaths:
        found = doc.getroottree().xpath(p)
        if isinstance(found, list) and found and isinstance(found[0], etree._Element):
            targets.append(found[0])
    return [
        (m.operator, lxml.html.tostring(m.doc, encoding="unicode"))
        for m in mutate_tree(doc, targets=targets, operators=operators, seed=seed)
    ]
