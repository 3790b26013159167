"""The session's state and actions, without a terminal: one page type of a selector file
under review, its seed pages, and per field the spec, the authoring report and a status.

Every action re-checks what it changes on every seed before it is applied: a new value is
grounded and the field re-authored (``induce.author_page_type``), a typed XPath is compiled,
evaluated on every seed (it must find the field exactly where the field has a value, one node
for a single-valued field, values of the field's type) and re-scored under the same synthetic
DOM mutations as authoring; a fallback is promoted only under the same checks. Nothing is
written here: :meth:`Session.build` returns the selector file, ``fixtures.py`` writes it.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from lxml import etree

from anchorpath._errors import AnchorpathError, AuthoringError
from anchorpath._text import did_you_mean
from anchorpath.authoring.candidates.xpath_common import first_match
from anchorpath.authoring.induce import author_page_type
from anchorpath.authoring.options import AuthoringOptions
from anchorpath.authoring.reports import FieldReport, FieldRequest
from anchorpath.authoring.scoring.mutate import mutate_tree
from anchorpath.authoring.seeds import SeedPage
from anchorpath.authoring.session.sources import ValueSource
from anchorpath.selectors.evaluate import (
    ExtractionWarning,
    Record,
    compile_selectors,
    evaluate_page,
    parse_html,
)
from anchorpath.selectors.model import FieldSpec, Normalize, PageType, SelectorFile
from anchorpath.selectors.normalize import apply_strips, clean_text
from anchorpath.selectors.xpath_core import core_problem

__all__ = ["FieldRow", "FieldState", "Mark", "Session", "XPathCheck", "element_at"]

Status = Literal["pending", "accepted", "dropped"]
#: Below this robustness a field is flagged in the table.
LOW_ROBUSTNESS = 0.7
#: Example records per list page used when a list field is re-authored.
LIST_EXAMPLES = 3


@dataclass
class FieldState:
    """One field under review."""

    spec: FieldSpec
    report: FieldReport | None = None
    status: Status = "pending"
    changed: bool = False  # differs from the file the session started from
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class FieldRow:
    """What the table shows for one field."""

    name: str
    values: tuple[Any, ...]  # per seed (a list per seed on list pages: one per record)
    xpath: str
    anchor: str
    robustness: float | None
    fallbacks: tuple[str, ...]
    warnings: tuple[str, ...]
    status: Status


@dataclass(frozen=True)
class XPathCheck:
    """A typed XPath checked on every seed; applied only when ``ok``."""

    xpath: str
    ok: bool
    problems: tuple[str, ...] = ()
    values: tuple[Any, ...] = ()  # per seed
    robustness: float | None = None
    changed_on: tuple[int, ...] = ()  # seeds whose value differs from the current one


def _anchor_text(spec: FieldSpec) -> str:
    a = spec.anchor
    if a is None:
        return "-"
    if a.value:
        return f"{a.kind} {a.value!r}"
    if a.attribute:
        return f"{a.kind} @{a.attribute}"
    return a.kind


def _present(v: Any) -> bool:
    if isinstance(v, list):
        return any(_present(x) for x in v)
    return v is not None and str(v).strip() != ""


class Session:
    """Review of one page type of ``base`` on ``pages``.

    ``reports`` are authoring's per-field reports (absent for fields loaded from an existing
    file); ``source`` proposes values of fields added or asked about again; ``options`` are
    the authoring options a field added in the session is authored with (the page type's
    name, match and shape come from ``base``).
    """

    def __init__(
        self,
        base: SelectorFile,
        page_type: str,
        pages: Sequence[SeedPage],
        *,
        reports: Mapping[str, FieldReport] | None = None,
        problems: Sequence[str] = (),
        source: ValueSource | None = None,
        options: AuthoringOptions = AuthoringOptions(),
        changed: Sequence[str] = (),
    ) -> None:
        if page_type not in base.page_types:
            raise AuthoringError(
                f"{base.site.id}: no page type {page_type!r}"
                + did_you_mean([page_type], base.page_types)
            )
        if not pages:
            raise AuthoringError("a session needs at least one seed page")
        self.base = base
        self.page_type = page_type
        self.pages = list(pages)
        self.source = source
        self.options = options
        self.problems = list(problems)
        reports = reports or {}
        pt = base.page_types[page_type]
        self.fields: dict[str, FieldState] = {
            n: FieldState(s, reports.get(n), changed=n in changed) for n, s in pt.fields.items()
        }
        self.removed: list[str] = []  # fields of the base file dropped in the session
        self._docs: list[etree._Element] = []
        for p in self.pages:
            try:
                self._docs.append(parse_html(p.html, plain=True))
            except AnchorpathError as exc:
                raise AuthoringError(f"{p.source}: cannot parse seed page: {exc}") from exc
        self._values: dict[str, list[Any]] = {}

    # ------------------------------------------------------------------------ reading

    @property
    def spec(self) -> PageType:
        return self.base.page_types[self.page_type]

    @property
    def is_list(self) -> bool:
        return self.spec.record_root is not None

    def _page_type(self, fields: Mapping[str, FieldSpec], *, as_text: bool = False) -> PageType:
        if as_text:
            fields = {
                n: s if s.type in ("string", "list") else replace(s, type="string")
                for n, s in fields.items()
            }
        return replace(self.spec, match=".*", fields=dict(fields), follow=())

    def _evaluate(
        self, fields: Mapping[str, FieldSpec], *, trace: bool = False, as_text: bool = False
    ) -> list[tuple[Record, ...]]:
        pt = self._page_type(fields, as_text=as_text)
        sf = replace(self.base, page_types={pt.name: pt}, fetch=replace(self.base.fetch))
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExtractionWarning)
            compiled = compile_selectors(sf, trace=trace)
            for p, doc in zip(self.pages, self._docs, strict=True):
                page = evaluate_page(compiled, doc, p.url, trace=trace, anchors=False)
                out.append(page.records)
        return out

    def _per_seed(self, records: Sequence[tuple[Record, ...]], name: str) -> list[Any]:
        if self.is_list:
            return [[r.values.get(name) for r in recs] for recs in records]
        return [recs[0].values.get(name) if recs else None for recs in records]

    def values(self, name: str) -> list[Any]:
        """The field's value on each seed (a list of record values per seed on list pages)."""
        if name not in self._values:
            spec = self.fields[name].spec
            self._values[name] = self._per_seed(self._evaluate({name: spec}), name)
        return self._values[name]

    def warnings_for(self, name: str) -> list[str]:
        st = self.fields[name]
        out: list[str] = []
        vals = self.values(name)
        found = sum(1 for v in vals if _present(v))
        if found < len(vals):
            out.append(f"found on {found} of {len(vals)} seeds")
        if st.spec.robustness is not None and st.spec.robustness < LOW_ROBUSTNESS:
            out.append(f"low robustness {st.spec.robustness:.2f}")
        rep = st.report
        if rep is not None:
            if rep.leave_one_out_ok is False:
                out.append("leave-one-seed-out fails")
            for p in rep.problems:
                if "ambiguous anchor" in p:
                    out.append("ambiguous anchor: " + p.split("ambiguous anchor: ", 1)[1])
                elif "same on every seed" in p:
                    out.append("same value on every seed")
        out += st.notes
        return list(dict.fromkeys(out))

    def rows(self) -> list[FieldRow]:
        return [
            FieldRow(
                n,
                tuple(self.values(n)),
                st.spec.xpath,
                _anchor_text(st.spec),
                st.spec.robustness,
                st.spec.fallbacks,
                tuple(self.warnings_for(n)),
                st.status,
            )
            for n, st in self.fields.items()
        ]

    def active(self) -> dict[str, FieldSpec]:
        return {n: st.spec for n, st in self.fields.items() if st.status != "dropped"}

    def preview(self) -> list[tuple[Record, ...]]:
        """The records every seed gives with the fields as they stand (dropped ones left out)."""
        return self._evaluate(self.active())

    def matched_nodes(self) -> list[dict[str, list[Mark]]]:
        """Per seed: field -> where its values are (see :class:`Mark`), for the highlighted
        screenshots."""
        out: list[dict[str, list[Mark]]] = []
        for i, doc in enumerate(self._docs):
            tree = doc.getroottree()
            per: dict[str, list[Mark]] = {}
            for name, spec in self.active().items():
                for xpath in (spec.xpath, *spec.fallbacks):
                    found = [m for ctx in self._contexts(i) for m in _marks(xpath, ctx, spec)]
                    if found:
                        marks = [Mark(str(tree.getpath(el)), raw, text) for el, raw, text in found]
                        per[name] = list(dict.fromkeys(marks))
                        break
            out.append(per)
        return out

    def record_roots(self) -> list[list[str]]:
        """Per seed: absolute paths of the record roots (empty on detail pages)."""
        if self.spec.record_root is None:
            return [[] for _ in self.pages]
        xp = etree.XPath(self.spec.record_root)
        out = []
        for doc in self._docs:
            res = xp(doc)
            nodes = (
                [n for n in res if isinstance(n, etree._Element)] if isinstance(res, list) else []
            )
            out.append([str(doc.getroottree().getpath(n)) for n in nodes])
        return out

    # ------------------------------------------------------------------------ actions

    def _state(self, name: str) -> FieldState:
        if name not in self.fields:
            raise AuthoringError(f"no field {name!r}" + did_you_mean([name], self.fields))
        return self.fields[name]

    def accept(self, name: str) -> None:
        self._state(name).status = "accepted"

    def drop(self, name: str) -> None:
        st = self._state(name)
        if name in self.base.key:
            raise AuthoringError(f"field {name!r} is the record key; it cannot be dropped")
        st.status = "dropped"

    def check_xpath(self, name: str, xpath: str, *, spec: FieldSpec | None = None) -> XPathCheck:
        """Compile ``xpath``, evaluate it on every seed and score it under mutation."""
        st = self._state(name)
        xpath = xpath.strip()
        if not xpath:
            return XPathCheck(xpath, False, ("empty XPath",))
        try:
            etree.XPath(xpath)
        except etree.XPathError as exc:
            return XPathCheck(xpath, False, (f"does not compile: {exc}",))
        core = core_problem(xpath)
        if core:
            return XPathCheck(xpath, False, (core,))
        new = replace(spec or st.spec, xpath=xpath, fallbacks=())
        try:
            recs = self._evaluate({name: new}, trace=True)
        except AnchorpathError as exc:
            return XPathCheck(xpath, False, (str(exc),))
        got = self._per_seed(recs, name)
        old = self.values(name)
        problems: list[str] = []
        for i, (p, r, g, o) in enumerate(zip(self.pages, recs, got, old, strict=True)):
            if _present(o) and not _present(g):
                problems.append(f"finds nothing on seed {i + 1} ({p.source}), which has a value")
            many = self._max_nodes(xpath, i) if new.type != "list" else 0
            if many > 1:
                problems.append(
                    f"matches {many} nodes on seed {i + 1} ({p.source}); a {new.type} field "
                    "needs exactly one"
                )
            bad = [x for rec in r for x in rec.problems if x.startswith(f"{name}:")]
            if bad:
                problems.append(f"seed {i + 1} ({p.source}): {bad[0]}")
        if problems:
            return XPathCheck(xpath, False, tuple(problems), tuple(got))
        changed = tuple(i for i, (g, o) in enumerate(zip(got, old, strict=True)) if g != o)
        return XPathCheck(xpath, True, (), tuple(got), self._robustness(name, new), changed)

    def _contexts(self, i: int) -> list[etree._Element]:
        """Where field XPaths are evaluated on seed ``i``: the page, or each record root."""
        doc = self._docs[i]
        if self.spec.record_root is None:
            return [doc]
        res = etree.XPath(self.spec.record_root)(doc)
        return [n for n in res if isinstance(n, etree._Element)] if isinstance(res, list) else []

    def _max_nodes(self, xpath: str, i: int) -> int:
        """The most non-blank nodes ``xpath`` returns from one context of seed ``i``."""
        xp = etree.XPath(xpath)
        most = 0
        for ctx in self._contexts(i):
            res = xp(ctx)
            if isinstance(res, list):
                n = sum(1 for x in res if not isinstance(x, str) or x.strip())
                most = max(most, n)
        return most

    def _robustness(self, name: str, spec: FieldSpec) -> float:
        """Share of synthetic mutations (around the matched nodes) after which the field still
        gives exactly the same values on its seed."""
        one = {name: spec}
        pt = self._page_type(one)
        sf = replace(self.base, page_types={pt.name: pt})
        passed = total = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExtractionWarning)
            compiled = compile_selectors(sf, trace=True)
            for i, (p, doc) in enumerate(zip(self.pages, self._docs, strict=True)):
                page = evaluate_page(compiled, doc, p.url, trace=True, anchors=False)
                want = [r.values.get(name) for r in page.records]
                if not any(_present(v) for v in want):
                    continue
                tree = doc.getroottree()
                targets = []
                for r in page.records:
                    for path in (r.trace or {}).get(name, _NO_TRACE).nodes:
                        el = element_at(tree, path)
                        if el is not None:
                            targets.append(el)
                roots: list[etree._Element] = []
                if pt.record_root:
                    res = etree.XPath(pt.record_root)(doc)
                    roots = [n for n in res if isinstance(n, etree._Element)]  # type: ignore[union-attr]
                mutants = mutate_tree(
                    doc,
                    targets=targets[:8],
                    records=roots[:4],
                    seed=self.options.mutation_seed + i,
                )
                for m in mutants:
                    total += 1
                    res_m = evaluate_page(compiled, m.doc, p.url, anchors=False)
                    if [r.values.get(name) for r in res_m.records] == want:
                        passed += 1
        return round(passed / total, 3) if total else 1.0

    def set_xpath(self, name: str, check: XPathCheck) -> None:
        """Apply a passing :meth:`check_xpath` result (the old XPath becomes a fallback)."""
        if not check.ok:
            raise AuthoringError(f"field {name!r}: XPath rejected: {'; '.join(check.problems)}")
        st = self._state(name)
        old = st.spec.xpath
        # Same values: the old XPath is a fine fallback. Other values: the old XPath and its
        # fallbacks read the old (wrong) values, so none of them is kept.
        falls = (
            ()
            if check.changed_on
            else tuple(x for x in (old, *st.spec.fallbacks) if x != check.xpath)[:2]
        )
        st.spec = replace(st.spec, xpath=check.xpath, fallbacks=falls, robustness=check.robustness)
        st.changed = True
        st.status = "pending"
        st.notes = []
        self._values.pop(name, None)

    def pick_fallback(self, name: str, index: int) -> XPathCheck:
        """Check fallback ``index`` (0-based) as the primary XPath; applied when it passes."""
        st = self._state(name)
        if not 0 <= index < len(st.spec.fallbacks):
            raise AuthoringError(f"field {name!r} has {len(st.spec.fallbacks)} fallback(s)")
        xpath = st.spec.fallbacks[index]
        check = self.check_xpath(name, xpath)
        if check.ok:
            old = st.spec.xpath
            rest = tuple(x for x in st.spec.fallbacks if x != xpath)
            st.spec = replace(
                st.spec, xpath=xpath, fallbacks=(old, *rest)[:2], robustness=check.robustness
            )
            st.changed = True
            st.status = "pending"
            self._values.pop(name, None)
        return check

    def example_records(self) -> list[list[int]]:
        """Indices (0-based) of the example records per seed on list pages: the first, the
        middle and the last record; list values are given for these."""
        roots = self.record_roots()
        out = []
        for r in roots:
            n = len(r)
            idx = sorted({0, n // 2, n - 1}) if n else []
            out.append(idx[:LIST_EXAMPLES])
        return out

    def _author(self, req: FieldRequest, values: Sequence[Any]) -> tuple[FieldSpec, FieldReport]:
        """Ground ``values`` (one per seed; a list per seed on list pages) and author ``req``."""
        if len(values) != len(self.pages):
            raise AuthoringError(
                f"field {req.name!r}: {len(values)} values for {len(self.pages)} seeds"
            )
        examples: dict[str, dict[str, Any]] = {
            p.source: {req.name: v} for p, v in zip(self.pages, values, strict=True)
        }
        fields = [req]
        if self.is_list:
            # The record root is induced from every field's example records: give the other
            # fields' current values on the same records so the root stays the same.
            others = {n: s for n, s in self.active().items() if n != req.name}
            recs = self._evaluate(others, as_text=True)
            picks = self.example_records()
            for p, rs, idx in zip(self.pages, recs, picks, strict=True):
                for n in others:
                    examples[p.source][n] = [_text(rs[i].values.get(n)) for i in idx if i < len(rs)]
            fields = [
                FieldRequest(n, s.type, s.description, s.required) for n, s in others.items()
            ] + [req]
        result = author_page_type(
            self.pages,
            fields,
            examples,
            replace(
                self.options,
                list_page=self.is_list,
                page_type=self.page_type,
                match=self.spec.match,
            ),
        )
        new_root = result.page_type.record_root
        if self.is_list and new_root != self.spec.record_root and not self._same_rows(new_root):
            raise AuthoringError(
                f"field {req.name!r}: with these values the record root would change "
                f"({self.spec.record_root} -> {result.page_type.record_root}); check the values"
            )
        return result.page_type.fields[req.name], result.fields[req.name]

    def _same_rows(self, root: str | None) -> bool:
        """Whether ``root`` selects the same record elements as the page type's record root on
        every seed (then field XPaths relative to either are interchangeable)."""
        if root is None or self.spec.record_root is None:
            return False
        try:
            new, old = etree.XPath(root), etree.XPath(self.spec.record_root)
        except etree.XPathError:
            return False
        return all(new(doc) == old(doc) for doc in self._docs)

    def set_values(self, name: str, values: Sequence[Any]) -> None:
        """Re-ground the field on new values (one per seed) and re-author it."""
        st = self._state(name)
        req = FieldRequest(name, st.spec.type, st.spec.description, st.spec.required)
        spec, rep = self._author(req, values)
        st.spec = replace(spec, pattern=st.spec.pattern)
        st.report = rep
        st.changed = True
        st.status = "pending"
        st.notes = []
        self._values.pop(name, None)

    def example_values(self, name: str) -> list[Any]:
        """The field's current values as text, as :meth:`set_values` takes them (on list pages
        the example records only)."""
        st = self._state(name)
        recs = self._evaluate({name: st.spec}, as_text=True)
        if self.is_list:
            picks = self.example_records()
            return [
                [_text(rs[i].values.get(name)) for i in idx if i < len(rs)]
                for rs, idx in zip(recs, picks, strict=True)
            ]
        return [_text(rs[0].values.get(name)) if rs else None for rs in recs]

    def add_field(self, req: FieldRequest, values: Sequence[Any] | None = None) -> None:
        """Author a new field from ``values`` (one per seed) or the value source's proposal."""
        if req.name in self.fields and self.fields[req.name].status != "dropped":
            raise AuthoringError(f"field {req.name!r} exists already")
        if values is None:
            values = self.propose(req)
            if values is None:
                raise AuthoringError(f"field {req.name!r}: no values given and none proposed")
        spec, rep = self._author(req, values)
        self.fields[req.name] = FieldState(spec, rep, changed=True)
        self._values.pop(req.name, None)

    def propose(self, req: FieldRequest, *, again: bool = False) -> list[Any] | None:
        if self.source is None:
            return None
        return self.source.values(req, self.pages, again=again)

    def ask_again(self, name: str) -> bool:
        """Ask the value source again for the field; False when it has no new answer."""
        st = self._state(name)
        req = FieldRequest(name, st.spec.type, st.spec.description, st.spec.required)
        values = self.propose(req, again=True)
        if values is None:
            return False
        self.set_values(name, values)
        return True

    # ------------------------------------------------------------------------ result

    @property
    def changed(self) -> list[str]:
        """Fields added, changed or dropped relative to the base file."""
        out = [n for n, st in self.fields.items() if st.changed or st.status == "dropped"]
        return out

    def build(self) -> SelectorFile:
        """The selector file with the reviewed page type (dropped fields left out)."""
        fields = self.active()
        if not fields:
            raise AuthoringError(f"page type {self.page_type!r}: every field was dropped")
        pt = replace(self.spec, fields=fields)
        return replace(self.base, page_types={**self.base.page_types, self.page_type: pt})


_NO_TRACE: Any = type("_NoTrace", (), {"nodes": ()})()


def element_at(tree: etree._ElementTree, path: str) -> etree._Element | None:
    """The element an evaluate trace path names (attribute and text paths: their owner)."""
    path = path.removesuffix("/text()").split("/@", 1)[0]
    return first_match(tree, path) if path.startswith("/") else None


_WRAPPED = re.compile(r"^\s*(?:normalize-space|string)\((.*)\)\s*$", re.S)


@dataclass(frozen=True)
class Mark:
    """One place a field's value is on a seed: ``path`` of the element that holds it (a text
    node's or an attribute's owner), the text node's ``raw`` text (None for an element or an
    attribute) and the value ``text`` read there (None for an attribute: the element is
    outlined). A screenshot outlines ``text`` inside ``raw`` inside the element, not the
    whole element, when it finds it there."""

    path: str
    raw: str | None = None
    text: str | None = None


def _value_text(raw: str, norm: Normalize) -> str:
    text = clean_text(raw, norm.whitespace)
    if text and (norm.strip_prefix or norm.strip_suffix or norm.capture):
        text = apply_strips(text, norm)
    return text


def _marks(
    xpath: str, ctx: etree._Element, spec: FieldSpec
) -> list[tuple[etree._Element, str | None, str | None]]:
    """(owner element, raw text, value text) of each node ``xpath`` reads from ``ctx``."""
    m = _WRAPPED.match(xpath)
    if m:
        xpath = m.group(1)
    try:
        res = etree.XPath(xpath)(ctx)
    except etree.XPathError:
        return []
    out: list[tuple[etree._Element, str | None, str | None]] = []
    for item in res if isinstance(res, list) else []:
        if isinstance(item, etree._Element):
            text = _value_text("".join(map(str, item.itertext())), spec.normalize)
            out.append((item, None, text or None))
            continue
        parent = getattr(item, "getparent", lambda: None)()
        if parent is None:
            continue
        if getattr(item, "is_attribute", False):
            out.append((parent, None, None))
            continue
        if getattr(item, "is_tail", False):
            parent = parent.getparent() if parent.getparent() is not None else parent
        if str(item).strip():
            out.append((parent, str(item), _value_text(str(item), spec.normalize) or None))
    return out


def _text(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, list):
        return [str(x) for x in v]
    return str(v)
