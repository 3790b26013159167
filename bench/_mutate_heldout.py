"""Held-out DOM mutations for the robustness part of bench/swde.py.

Written for the benchmark and independent of ``anchorpath.authoring.scoring.mutate`` (which authoring
uses to score candidates): separate code, its own random seed, and operators authoring never
sees (``restyle``, ``inline_before``, ``ascii_entities`` are not in its set). Every operator
keeps the rendered text of the gold values unchanged, so the SWDE ground truth stays valid; what
changes is the structure around them — the kind of change a site makes between two visits.

Mutations are applied *near the values* (on ancestors of the nodes holding gold values, found by
text search on the held-out page), otherwise a random change somewhere in a 100 KB page would
rarely touch anything that matters.
"""

from __future__ import annotations

import copy
import hashlib
import random
import re
from collections.abc import Callable, Sequence

import lxml.html
from lxml import etree

__all__ = ["OPERATORS", "find_targets", "mutate_page", "serialize"]

_WORDS = [
    "lorem",
    "ipsum",
    "dolor",
    "sit",
    "amet",
    "consectetur",
    "adipiscing",
    "elit",
    "sed",
    "do",
    "eiusmod",
    "tempor",
    "incididunt",
    "labore",
    "dolore",
    "magna",
    "aliqua",
    "enim",
    "minim",
    "veniam",
    "quis",
    "nostrud",
    "exercitation",
    "ullamco",
    "laboris",
]
_SKIP = {"script", "style", "noscript", "head", "title", "meta", "link", "base"}
# Table/list internals: wrapping them in a <div> would make the re-parsed page differ.
_NOT_WRAPPABLE = {
    "html", "body", "head", "tr", "td", "th", "tbody", "thead", "tfoot", "li", "dt", "dd",
    "option", "col", "colgroup", "caption", "optgroup",
}  # fmt: skip
_WS = re.compile(r"\s+")

Op = Callable[[etree._Element, random.Random, list[etree._Element]], str | None]


def _words(rng: random.Random, n: int = 3) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n))


def _norm(text: str) -> str:
    return _WS.sub(" ", text).strip().casefold()


def _is_el(node: object) -> bool:
    return isinstance(node, etree._Element) and isinstance(node.tag, str)


def find_targets(doc: etree._Element, values: Sequence[str]) -> list[etree._Element]:
    """The elements (outside scripts) whose own text contains one of ``values``; a value split
    over several inline nodes falls back to the deepest element whose whole text contains it."""
    wanted = [_norm(v) for v in values if _norm(v)]
    body = doc.find("body")
    if body is None or not wanted:
        return []
    found: dict[int, etree._Element] = {}
    missing = set(wanted)
    for text in body.xpath(".//text()"):
        norm = _norm(str(text))
        hits = [w for w in wanted if w in norm]
        if not hits:
            continue
        owner = text.getparent()
        el = owner.getparent() if getattr(text, "is_tail", False) else owner
        if el is None or not _is_el(el) or el.tag in _SKIP:
            continue
        found.setdefault(id(el), el)
        missing.difference_update(hits)
    if missing:  # values spread over inline children: the slow whole-text search
        for el in body.iter():
            if not _is_el(el) or el.tag in _SKIP:
                continue
            text = _norm(el.text_content())
            hits = [w for w in missing if w in text]
            if hits and not any(
                _is_el(c) and any(w in _norm(c.text_content()) for w in hits) for c in el
            ):
                found.setdefault(id(el), el)
    return list(found.values())


def _ancestors(el: etree._Element) -> list[etree._Element]:
    out = []
    node = el
    while node is not None and node.tag not in ("body", "html"):
        out.append(node)
        node = node.getparent()
    return out


def _pick_ancestor(
    rng: random.Random, targets: list[etree._Element], ok: Callable[[etree._Element], bool]
) -> etree._Element | None:
    if not targets:
        return None
    chain = [a for a in _ancestors(rng.choice(targets))[:6] if ok(a)]
    return rng.choice(chain) if chain else None


def _filler_like(el: etree._Element, rng: random.Random) -> etree._Element:
    """An unrelated element that fits where ``el`` sits (a row for a row, an item for an item)."""
    tag = el.tag if isinstance(el.tag, str) else "div"
    new = etree.Element(tag)
    if tag == "tr":
        for cell in el:
            if _is_el(cell) and cell.tag in ("td", "th"):
                td = etree.SubElement(new, cell.tag)
                td.text = _words(rng, 2)
        if not len(new):
            etree.SubElement(new, "td").text = _words(rng, 2)
    elif tag in ("table", "tbody", "ul", "ol", "dl", "select"):
        new = etree.Element("div")
        new.text = _words(rng)
    else:
        new.text = _words(rng)
    return new


# -- operators -----------------------------------------------------------------------------------


def wrap_ancestor(
    doc: etree._Element, rng: random.Random, targets: list[etree._Element]
) -> str | None:
    """Wrap an ancestor of a value in an extra <div>."""
    anc = _pick_ancestor(rng, targets, lambda a: a.tag not in _NOT_WRAPPABLE)
    if anc is None or anc.getparent() is None:
        return None
    parent = anc.getparent()
    wrapper = etree.Element("div", {"class": "w" + _words(rng, 1)})
    wrapper.tail, anc.tail = anc.tail, None
    parent.insert(parent.index(anc), wrapper)
    wrapper.append(anc)
    return f"wrapped <{anc.tag}>"


def _insert_sibling(
    doc: etree._Element, rng: random.Random, targets: list[etree._Element], after: bool
) -> str | None:
    anc = _pick_ancestor(rng, targets, lambda a: a.tag not in ("td", "th", "html", "body"))
    if anc is None or anc.getparent() is None:
        return None
    new = _filler_like(anc, rng)
    if after:
        new.tail = anc.tail
        anc.tail = None
        anc.addnext(new)
    else:
        anc.addprevious(new)
    return f"inserted <{new.tag}> {'after' if after else 'before'} <{anc.tag}>"


def sibling_before(
    doc: etree._Element, rng: random.Random, targets: list[etree._Element]
) -> str | None:
    """Insert an unrelated sibling before an ancestor of a value."""
    return _insert_sibling(doc, rng, targets, after=False)


def sibling_after(
    doc: etree._Element, rng: random.Random, targets: list[etree._Element]
) -> str | None:
    """Insert an unrelated sibling after an ancestor of a value."""
    return _insert_sibling(doc, rng, targets, after=True)


def rows_above(
    doc: etree._Element, rng: random.Random, targets: list[etree._Element]
) -> str | None:
    """Add 1–3 rows (or list items) at the top of the table or list that holds a value."""
    for t in rng.sample(targets, len(targets)):
        row = next((a for a in _ancestors(t) if a.tag in ("tr", "li", "dt")), None)
        if row is None or row.getparent() is None:
            continue
        parent = row.getparent()
        first = next((c for c in parent if _is_el(c)), row)
        n = rng.randint(1, 3)
        for _ in range(n):
            new = _filler_like(row, rng)
            if row.tag == "dt":
                first.addprevious(new)
                dd = etree.Element("dd")
                dd.text = _words(rng, 2)
                first.addprevious(dd)
            else:
                first.addprevious(new)
        return f"{n} <{row.tag}> added above"
    return None


def hash_classes(
    doc: etree._Element, rng: random.Random, targets: list[etree._Element]
) -> str | None:
    """Rename CSS classes to hash-like names (one mapping per page, as a CSS build would)."""
    mapping: dict[str, str] = {}
    salt = str(rng.random())
    n = 0
    for el in doc.iter():
        if not _is_el(el) or not el.get("class"):
            continue
        names = el.get("class", "").split()
        out = []
        for c in names:
            if c not in mapping:
                mapping[c] = "c" + hashlib.sha1((salt + c).encode()).hexdigest()[:6]
            out.append(mapping[c])
        el.set("class", " ".join(out))
        n += 1
    return f"{n} class attributes hashed" if n else None


def drop_generated_ids(
    doc: etree._Element, rng: random.Random, targets: list[etree._Element]
) -> str | None:
    """Drop ids that look generated (contain a digit), as a re-deploy renumbers them."""
    n = 0
    for el in doc.iter():
        if _is_el(el) and el.get("id") and re.search(r"\d", el.get("id", "")):
            del el.attrib["id"]
            n += 1
    return f"{n} ids dropped" if n else None


def heading_shift(
    doc: etree._Element, rng: random.Random, targets: list[etree._Element]
) -> str | None:
    """Change heading levels one step (h2→h3 …)."""
    n = 0
    for el in doc.iter("h1", "h2", "h3", "h4", "h5"):
        el.tag = f"h{int(str(el.tag)[1]) + 1}"
        n += 1
    return f"{n} headings shifted" if n else None


def shuffle_unrelated(
    doc: etree._Element, rng: random.Random, targets: list[etree._Element]
) -> str | None:
    """Shuffle the siblings of a value's ancestor that hold no value (the ancestor keeps its
    slot, the others trade places)."""
    # A dict keeps the element proxies alive, so their id()s stay valid while we compare.
    keep = {id(a): a for t in targets for a in _ancestors(t)}
    for t in rng.sample(targets, len(targets)):
        for anc in _ancestors(t)[:6]:
            parent = anc.getparent()
            if parent is None:
                continue
            kids = [c for c in parent if _is_el(c)]
            free = [i for i, c in enumerate(kids) if id(c) not in keep]
            if len(free) < 2 or len({kids[i].tag for i in free}) < 2:
                continue
            moved = [kids[i] for i in free]
            for _ in range(5):  # a shuffle that changes nothing is no mutation
                rng.shuffle(moved)
                if any(m is not kids[i] for m, i in zip(moved, free, strict=True)):
                    break
            # Swap through placeholders: value-holding children and the text after each slot
            # stay where they are; only the free elements trade places.
            holders = []
            for i in free:
                ph = etree.Element("ph")
                kids[i].addprevious(ph)
                ph.tail = kids[i].tail
                kids[i].tail = None
                parent.remove(kids[i])
                holders.append(ph)
            for ph, el in zip(holders, moved, strict=True):
                ph.addprevious(el)
                el.tail = ph.tail
                parent.remove(ph)
            return f"{len(free)} siblings of <{anc.tag}> shuffled"
    return None


def decoy_block(
    doc: etree._Element, rng: random.Random, targets: list[etree._Element]
) -> str | None:
    """Copy the block around a value (label included) into a sidebar with other values."""
    body = doc.find("body")
    if body is None or not targets:
        return None
    t = rng.choice(targets)
    chain = _ancestors(t)
    value_text = _norm(t.text_content())
    # The smallest ancestor with some text besides the value (it carries the label) that can
    # stand on its own outside a table or list.
    block = next(
        (
            a
            for a in chain[1:6]
            if a.tag not in _NOT_WRAPPABLE and len(_norm(a.text_content())) > len(value_text) + 2
        ),
        None,
    )
    if block is None:
        return None
    clone = copy.deepcopy(block)
    clone.tail = None
    # Keep label-like texts ("ISBN:", <th>Publisher</th>); every other text becomes filler, so
    # the decoy has the labels of the real block and none of its values.
    for el in clone.iter():
        if not _is_el(el):
            continue
        for attr in ("text", "tail"):
            txt = getattr(el, attr)
            if not txt or not txt.strip():
                continue
            short = len(txt.strip()) <= 40
            label = short and (
                txt.strip().endswith(":")
                or (attr == "text" and el.tag in ("th", "dt", "label", "strong", "b"))
            )
            if not label or (_norm(txt) in value_text and len(_norm(txt)) > 3):
                setattr(el, attr, " " + _words(rng, 2) + " ")
        for key in ("href", "src", "id", "content", "title", "alt", "value"):
            if key in el.attrib:
                el.set(key, "x-" + _words(rng, 1))
    side = etree.Element("div", {"class": "sidebar"})
    side.append(clone)
    if rng.random() < 0.5:
        body.insert(0, side)
        where = "start"
    else:
        body.append(side)
        where = "end"
    return f"decoy <{block.tag}> at body {where}"


def whitespace(
    doc: etree._Element, rng: random.Random, targets: list[etree._Element]
) -> str | None:
    """Re-indent: extra white space and newlines around text (values themselves untouched)."""
    n = 0
    for el in doc.iter():
        if not _is_el(el) or el.tag in _SKIP:
            continue
        if el.text and el.text.strip() and rng.random() < 0.5:
            el.text = "\n   " + el.text + "  \n"
            n += 1
        if el.tail and rng.random() < 0.3:
            el.tail = el.tail + "\n\t"
            n += 1
    return f"{n} text nodes re-indented" if n else None


def restyle(doc: etree._Element, rng: random.Random, targets: list[etree._Element]) -> str | None:
    """Change inline styles and add data-* attributes on ancestors of values (held out)."""
    n = 0
    for t in targets:
        for anc in _ancestors(t)[:4]:
            if rng.random() < 0.5:
                anc.set("style", f"margin:{rng.randint(0, 9)}px")
                anc.set("data-" + _words(rng, 1), str(rng.randint(0, 999)))
                n += 1
    return f"{n} ancestors restyled" if n else None


def inline_before(
    doc: etree._Element, rng: random.Random, targets: list[etree._Element]
) -> str | None:
    """Put an empty icon element first inside a value's parent (held out)."""
    for t in rng.sample(targets, len(targets)):
        parent = t.getparent()
        if parent is None or parent.tag in ("html", "body", "table", "tr", "tbody", "ul", "ol"):
            continue
        icon = etree.Element(rng.choice(["span", "i", "img"]), {"class": "icon"})
        icon.tail = parent.text
        parent.text = None
        parent.insert(0, icon)
        return f"<{icon.tag}> inserted first in <{parent.tag}>"
    return None


def reorder_attributes(
    doc: etree._Element, rng: random.Random, targets: list[etree._Element]
) -> str | None:
    """Shuffle attribute order on every element."""
    n = 0
    for el in doc.iter():
        if _is_el(el) and len(el.attrib) > 1:
            items = list(el.attrib.items())
            rng.shuffle(items)
            el.attrib.clear()
            for k, v in items:
                el.set(k, v)
            n += 1
    return f"{n} elements reordered" if n else None


#: name -> operator; ``ascii_entities`` is a serialisation change handled in ``serialize``.
OPERATORS: dict[str, Op | None] = {
    "wrap_ancestor": wrap_ancestor,
    "sibling_before": sibling_before,
    "sibling_after": sibling_after,
    "rows_above": rows_above,
    "hash_classes": hash_classes,
    "drop_generated_ids": drop_generated_ids,
    "heading_shift": heading_shift,
    "shuffle_unrelated": shuffle_unrelated,
    "decoy_block": decoy_block,
    "whitespace": whitespace,
    "restyle": restyle,
    "inline_before": inline_before,
    "reorder_attributes": reorder_attributes,
    "ascii_entities": None,
}


_PAGE_WIDE = {
    "hash_classes",
    "drop_generated_ids",
    "heading_shift",
    "whitespace",
    "reorder_attributes",
}


def serialize(doc: etree._Element, *, ascii_entities: bool = False) -> str:
    """The page as HTML text; with ``ascii_entities`` every non-ASCII character becomes a
    numeric character reference (``&#233;``), as some servers emit them."""
    if ascii_entities:
        raw = lxml.html.tostring(doc.getroottree(), encoding="us-ascii", method="html")
        return raw.decode("ascii")
    return str(lxml.html.tostring(doc.getroottree(), encoding="unicode", method="html"))


def mutate_page(
    html: str,
    gold_values: Sequence[str],
    operators: Sequence[str],
    seed: str,
    parse: Callable[[str], etree._Element],
) -> tuple[str, list[str]]:
    """Apply ``operators`` (names from ``OPERATORS``) in order to one page; returns the mutated
    HTML and what each operator did (operators that found nothing to change are listed too)."""
    rng = random.Random(seed)
    doc = parse(html)
    targets = find_targets(doc, gold_values)
    log: list[str] = []
    ascii_out = False
    for name in operators:
        op = OPERATORS[name]
        if op is None:
            ascii_out = True
            log.append(f"{name}: non-ASCII as entities")
            continue
        # Local operators act at one or two places near the values; page-wide ones once.
        times = 1 if name in _PAGE_WIDE else rng.randint(1, 2)
        results = [op(doc, rng, targets) for _ in range(times)]
        log.append(f"{name}: " + "; ".join(r or "n/a" for r in results))
        targets = find_targets(doc, gold_values)  # re-find: decoys and wraps moved things
    return serialize(doc, ascii_entities=ascii_out), log
