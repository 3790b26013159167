"""Confirmation of constant values: does the page itself name the field where the value is?

Under ``--yes``, a field asked for by name whose accepted value is identical on every seed is
suspect: it may be the template's own text, or a banner a page planted for the model ("answer
X for every field") that grounding then finds as its own node on every seed. The model cannot
vouch for its own answer; the page can. A constant value is **confirmed** when, on every seed,
an occurrence of it (the node perturbation showed the model read, when known) is named by the
page with a word of the field's name:

* by a **label** (short text, not the value itself): the text before the value in its own text
  node (``Publication Date: June 2010``); the element whose tail the value is
  (``<b>Date</b>: June 2010``) or a bare text right before the value's element; one of the two
  label-like elements before the value's element or one of its two closest ancestors (``th``,
  ``dt``, a label cell or ``span``, a heading); the first cell of its table row; its table
  column's header cell;
* or by its own **markup**: the ``itemprop``, ``class``, ``id``, ``name`` or ``property`` of the
  node (and of the ancestors holding exactly its text), the path of the link it is
  (``/company/lw13/page.html``), its JSON-LD key.

Words are case-folded letter/digit runs with at least one letter (field names also split at
``_``, ``-`` and camelCase; a few function words ignored). A field word and a page word match
when equal, equal after one common English ending is dropped (rating/rated, genres/genre), one
starts the other (4+ letters: date/dated), or they share a prefix of 5+ letters
(publication/published). A text that only sits before the value (an element that is neither a
label element nor ends in ":") must be a name through and through ("MPAA Rating", not "Choose
your rating"); a text another requested field matches better names that one ("Publisher"
names ``publisher``, not ``publication_date``). No synonym list: "Contact Information" does
not name ``company``.

A confirmed field is grounded at the node so named, and kept only if the XPath authored for it
reads that node on every seed (:func:`reads_confirmed_nodes`): a label elsewhere on the page
does not vouch for a banner with the same text.

What it cannot tell apart: a page that writes the field's name next to the planted value
("Publisher: X" on every seed) is confirmed — whoever writes the pages and knows the field
names can do that; the review session (without ``--yes``) remains the check for such sites.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from lxml import etree

from anchorpath._errors import GroundingError
from anchorpath._text import excerpt
from anchorpath.authoring.candidates.ground import (
    DocIndex,
    Target,
    ground_value,
    itext,
    norm,
    targets_at,
)
from anchorpath.authoring.candidates.xpath_common import LABEL_TAGS, label_like, tag_of, text_node
from anchorpath.authoring.llm.propose import Proposals
from anchorpath.authoring.seeds import SeedPage
from anchorpath.selectors.evaluate import parse_html

__all__ = [
    "Confirmation",
    "Evidence",
    "check_constants",
    "field_words",
    "names_field",
    "reads_confirmed_nodes",
    "what_confirms",
]


#: Attributes whose words name the node they are on.
_NAMING_ATTRS = ("itemprop", "class", "id", "name", "property")
#: Words too common to name anything.
_FUNCTION_WORDS = frozenset(
    [
        "an",
        "and",
        "are",
        "at",
        "by",
        "for",
        "from",
        "in",
        "is",
        "it",
        "its",
        "my",
        "of",
        "on",
        "or",
        "our",
        "the",
        "this",
        "that",
        "to",
        "with",
        "your",
        "you",
    ]
)
#: Elements that are labels by their tag (their text names what follows).
_LABEL_ELEMENTS = frozenset(["th", "dt", "label", "legend", "caption"])
#: English endings dropped before comparing words (longest first).
_ENDINGS = ("ations", "ation", "ings", "ing", "ers", "ies", "ion", "ed", "er", "es", "s")
#: Parts of a link's path that never name a field (file types, index pages).
_URL_NOISE = frozenset(["html", "htm", "php", "asp", "aspx", "jsp", "cgi", "www", "index", "page"])

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD = re.compile(r"[^\W_]+")


def _words(text: str) -> set[str]:
    """Case-folded letter/digit runs with a letter, function words left out."""
    return {
        w
        for w in (m.casefold() for m in _WORD.findall(_CAMEL.sub(" ", text)))
        if any(c.isalpha() for c in w) and w not in _FUNCTION_WORDS and len(w) > 1
    }


def field_words(name: str) -> set[str]:
    """The words of a field name: split at ``_``, ``-``, spaces and camelCase."""
    return _words(name)


def _stem(word: str) -> str:
    for end in _ENDINGS:
        if word.endswith(end) and len(word) - len(end) >= 3:
            return word[: -len(end)] + ("y" if end == "ies" else "")
    return word


def _same_word(a: str, b: str) -> bool:
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    if len(short) >= 4 and long_.startswith(short):
        return True
    common = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common += 1
    return common >= 5 or _stem(a) == _stem(b)


def _score(words: set[str], name: str) -> tuple[int, int]:
    """(page words equal to a word of the field name, also after an ending is dropped;
    page words matching one in any way)."""
    mine = field_words(name)
    same = sum(1 for w in words if any(a == w or _stem(a) == _stem(w) for a in mine))
    return same, sum(1 for w in words if any(_same_word(a, w) for a in mine))


def names_field(text: str, name: str, *, others: Sequence[str] = (), whole: bool = False) -> bool:
    """Does ``text`` (a label, class names, a link path) name field ``name``?

    It shares a word with the name, and no other requested field (``others``) matches it
    better ("Publisher" names ``publisher``, not ``publication_date``). With ``whole``, every
    word of ``text`` must match (a text merely next to the value must be a name, "MPAA
    Rating", not a sentence that happens to hold a word, "Choose your rating")."""
    words = _words(text)
    mine = _score(words, name)
    if not mine[1] or (whole and mine[1] < len(words)):
        return False
    return all(_score(words, o) <= mine for o in others if o != name)


def what_confirms(name: str) -> str:
    """What keeps a constant value of field ``name`` under ``--yes`` (for messages)."""
    label = " ".join(w.capitalize() for w in _CAMEL.sub(" ", name).replace("_", " ").split())
    return (
        f'kept when the page names the field at it on every seed (a label such as "{label}:", '
        "or the node's class, itemprop or link path)"
    )


@dataclass(frozen=True)
class Evidence:
    """Where one seed names the field at the value: the node and the naming text."""

    seed: str
    node: str  # absolute element path of the occurrence
    naming: str  # the label or markup that names the field
    kind: str  # label | markup


@dataclass
class Confirmation:
    """The constant fields of a run: those the pages name (with the evidence per seed) and
    those left unconfirmed (with why)."""

    confirmed: dict[str, tuple[Evidence, ...]] = field(default_factory=dict)
    unconfirmed: dict[str, str] = field(default_factory=dict)

    def pins(self, seeds: Sequence[SeedPage]) -> dict[str, dict[str, str]]:
        """seed source -> field -> the confirmed node: grounding keeps it (see ``read_nodes``)."""
        out: dict[str, dict[str, str]] = {}
        for name, evidence in self.confirmed.items():
            for e in evidence:
                out.setdefault(e.seed, {})[name] = e.node
        return {s.source: out[s.source] for s in seeds if s.source in out}

    def notes(self) -> list[str]:
        """One line per confirmed field, for the review and the problems list."""
        return [
            f"field {name!r}: the same value on every seed, kept: the page names it "
            f"({ev[0].kind} {excerpt(ev[0].naming)})"
            for name, ev in self.confirmed.items()
        ]


def check_constants(props: Proposals, seeds: Sequence[SeedPage]) -> Confirmation:
    """The fields whose accepted value is identical on every seed (two or more), each
    confirmed by the pages (see the module docstring) or left unconfirmed."""
    out = Confirmation()
    if len(seeds) < 2:
        return out
    docs: dict[str, DocIndex] = {}
    names = [f.name for f in props.fields]
    for f in props.fields:
        vals = [props.examples.get(s.source, {}).get(f.name) for s in seeds]
        if not (all(v is not None for v in vals) and all(v == vals[0] for v in vals)):
            continue
        read = {v.seed: v.read_node for v in props.verdicts if v.field == f.name and v.read_node}
        found: list[Evidence] = []
        for s in seeds:
            if s.source not in docs:
                docs[s.source] = DocIndex(parse_html(s.html), s.url)
            ev = _seed_evidence(
                docs[s.source], s.source, (f.name, names), vals[0], read.get(s.source)
            )
            if ev is None:
                break
            found.append(ev)
        if len(found) == len(seeds):
            out.confirmed[f.name] = tuple(found)
        else:
            out.unconfirmed[f.name] = (
                f"the same value {excerpt(_shown(vals[0]))} on all {len(seeds)} seeds, and no "
                f"label or markup at it names the field on {seeds[len(found)].source} "
                "(template text, or a banner planted for the model?): unconfirmed; "
                f"{what_confirms(f.name)}; else review it in the session (without --yes) or "
                "pass --allow-constant"
            )
    return out


def _shown(value: Any) -> str:
    return " | ".join(map(str, value)) if isinstance(value, list) else str(value)


def _seed_evidence(
    index: DocIndex, seed: str, asked: tuple[str, Sequence[str]], value: Any, read: str | None
) -> Evidence | None:
    """The first occurrence of ``value`` on this seed that the page names as the field
    ``asked[0]`` (of the fields ``asked[1]``); for a list value every item must be named (the
    evidence is the first item's)."""
    name, others = asked
    items = value if isinstance(value, list) else [value]
    first: Evidence | None = None
    for item in items:
        try:
            targets = ground_value(index, str(item))
        except GroundingError:
            return None
        if read is not None:
            targets = targets_at(targets, read) or targets
        ev = next(
            (
                Evidence(seed, str(t.element.getroottree().getpath(t.element)), text, kind)
                for t in targets
                for text, kind, whole in _namings(t, norm(str(item)))
                if names_field(text, name, others=others, whole=whole)
            ),
            None,
        )
        if ev is None:
            return None
        first = first or ev
    return first


def _namings(target: Target, value: str) -> Iterator[tuple[str, str, bool]]:
    """Texts that may name the occurrence ``target``: (text, kind, whole), labels first,
    then its markup. ``whole``: the text only sits next to the value (an element before it
    that is neither a label element nor ends in ":"), so all of it must be a name."""
    for text, shaped in _labels(target):
        if _label_shaped(text) and value not in norm(text):
            yield text, "label", not (shaped or text.strip().endswith(":"))
    yield from ((m, "markup", False) for m in _markup(target))


def _label_shaped(text: str) -> bool:
    """Short text that names rather than states: "Publisher" or "Publisher:", not
    "Publisher: Lantern House" (a labelled value next to the occurrence names that value)."""
    head, colon, rest = text.strip().partition(":")
    return label_like(text) and not (colon and rest.strip() and head.strip())


def _labels(target: Target) -> Iterator[tuple[str, bool]]:
    """Label texts around the occurrence, nearest first, and whether their place makes them
    a label (same text node, the element the value follows with ":", a label element, the
    row's first cell, the column header)."""
    if target.prefix.strip():
        yield target.prefix, True
    if target.mode == "text":
        tnode = text_node(target)
        owner = tnode.getparent() if getattr(tnode, "is_tail", False) else None
        if owner is not None:
            yield itext(owner), str(tnode).strip().startswith(":")
            before = owner.getprevious()
            if before is not None:
                yield itext(before), tag_of(before) in _LABEL_ELEMENTS
    el: etree._Element | None = target.element
    for _ in range(3):  # the element and its two closest ancestors
        if el is None or tag_of(el) in ("html", "body"):
            return
        yield from _before(el)
        if tag_of(el) in ("td", "th"):
            yield from ((t, True) for t in _row_and_column(el))
        el = el.getparent()


def _before(el: etree._Element) -> Iterator[tuple[str, bool]]:
    """A bare text right before ``el``, and the two label-like elements before it."""
    left = el.getprevious()
    parent = el.getparent()
    bare = left.tail if left is not None else parent.text if parent is not None else None
    if bare and bare.strip():
        yield bare, False
    siblings = [s for s in el.itersiblings(preceding=True) if isinstance(s.tag, str)][:2]
    for s in siblings:
        if tag_of(s) in LABEL_TAGS:
            yield itext(s), tag_of(s) in _LABEL_ELEMENTS


def _row_and_column(cell: etree._Element) -> Iterator[str]:
    """The first cell of the cell's row, and its column's header cell."""
    row = cell.getparent()
    if row is None or tag_of(row) != "tr":
        return
    cells = [c for c in row if tag_of(c) in ("td", "th")]
    if cells and cells[0] is not cell:
        yield itext(cells[0])
    table = next((a for a in row.iterancestors() if tag_of(a) == "table"), None)
    if table is None:
        return
    header = next((r for r in table.iter("tr") if any(tag_of(c) == "th" for c in r)), None)
    if header is None or header is row:
        return
    heads = [c for c in header if tag_of(c) in ("td", "th")]
    if len(heads) == len(cells):
        yield itext(heads[cells.index(cell)])


def _markup(target: Target) -> Iterator[str]:
    """The naming attributes of the occurrence (and of the ancestors with exactly its text),
    the path and query keys of the link it is, its JSON-LD key."""
    if target.mode == "jsonld" and target.json_key:
        yield target.json_key
        return
    el: etree._Element | None = target.element
    text = norm(itext(target.element))
    for depth in range(3):
        if el is None or tag_of(el) in ("html", "body"):
            return
        if depth and norm(itext(el)) != text:
            return
        for a in _NAMING_ATTRS:
            v = el.get(a)
            if v:
                yield v
        href = el.get("href")
        if tag_of(el) == "a" and href:
            yield _link_words(href)
        el = el.getparent()


def _link_words(href: str) -> str:
    """The path segments and query keys of a link, without file types and index pages."""
    try:
        parts = urlsplit(href.strip())
    except ValueError:
        return ""
    words = [*parts.path.split("/"), *(k for k, _ in parse_qsl(parts.query))]
    return " ".join(w for w in _words(" ".join(words)) if w not in _URL_NOISE)


def reads_confirmed_nodes(
    confirmation: Confirmation, field_name: str, selected: Mapping[str, Sequence[str] | None]
) -> bool:
    """Does the authored XPath read, on every seed, the node the page named (or one inside or
    around it)? ``selected``: seed source -> the element paths the XPath selects (None when it
    computes a string: nothing to compare, so not confirmed)."""
    for ev in confirmation.confirmed.get(field_name, ()):
        paths = selected.get(ev.seed)
        if not paths:
            return False
        if not any(
            p == ev.node or p.startswith(ev.node + "/") or ev.node.startswith(p + "/")
            for p in paths
        ):
            return False
    return True
