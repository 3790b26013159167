"""Steps 2-4 of the repair (see ``repair.pipeline``): find the broken fields, re-author them from
the failing snapshots, merge them into the page type and verify the result against the
last good records; plus notes on navigation XPaths the repair does not touch."""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from anchorpath._errors import AnchorpathError, AuthoringError
from anchorpath.authoring.induce import author_page_type
from anchorpath.authoring.options import AuthoringOptions
from anchorpath.authoring.repair.lastgood import GoodPage, changed_fields, check_last_good
from anchorpath.authoring.repair.match import (
    FailingPage,
    canon,
    key_of,
    select_elements,
    show_key,
    values_equal,
    want_value,
)
from anchorpath.authoring.repair.result import MAX_MISMATCHES_PER_FIELD, Mismatch, Verification
from anchorpath.authoring.reports import AuthoringResult, FieldRequest
from anchorpath.authoring.seeds import SeedPage, seed_from_html
from anchorpath.bundle import Bundle
from anchorpath.selectors.evaluate import (
    CompiledSelectors,
    ExtractionWarning,
    PageResult,
    Record,
    compile_selectors,
    evaluate_page,
    extract,
    parse_html,
)
from anchorpath.selectors.model import FieldSpec, PageType, SelectorFile

#: A repaired field must be filled on at least this share of the failing records, relative to
#: how often the last good records had it.
FILL_RATIO = 0.9


def broken_fields(pages: Sequence[FailingPage], pt: PageType) -> tuple[str, ...]:
    """Fields whose old XPath misses a matched last good value on some page."""
    broken: list[str] = []
    for name in pt.fields:
        for page in pages:
            for k, rec in page.matches:
                if name not in rec:
                    continue
                old = page.old_by_key.get(k)
                got = old.values.get(name) if old is not None else None
                if not values_equal(got, want_value(rec, name, page)):
                    broken.append(name)
                    break
            if name in broken:
                break
    return tuple(broken)


def _example_value(value: Any, ftype: str) -> Any:
    """A stored value as the authoring core expects examples: text (a list for list fields)."""
    if value is None or value == "":
        return None
    if isinstance(value, list):
        return [_example_value(v, "string") for v in value] if ftype == "list" else None
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    return str(value)


def reauthor(
    pt: PageType,
    pages: Sequence[FailingPage],
    names: Sequence[str],
) -> tuple[AuthoringResult | None, list[str]]:
    """Author ``names`` of ``pt`` from the failing snapshots and the matched last good values."""
    notes: list[str] = []
    is_list = pt.record_root is not None
    seeds: list[SeedPage] = []
    examples: dict[str, dict[str, Any]] = {}
    for page in pages:
        if not page.matches or (is_list and len(page.matches) < 2):
            continue
        seed = seed_from_html(page.snap.body, page.snap.url, source=page.snap.file)
        ex: dict[str, Any] = {}
        for name in names:
            ftype = pt.fields[name].type
            vals = [_example_value(want_value(rec, name, page), ftype) for _k, rec in page.matches]
            if is_list:
                ex[name] = vals
            elif vals[0] is not None:
                ex[name] = vals[0]
        seeds.append(seed)
        examples[seed.source] = ex
    if not seeds:
        need = "two matched records on one page" if is_list else "one matched record"
        notes.append(f"page type {pt.name!r}: no failing snapshot with {need}; cannot re-author")
        return None, notes
    fields = [
        FieldRequest(n, pt.fields[n].type, pt.fields[n].description, pt.fields[n].required)
        for n in names
        if any(
            (v if not isinstance(v, list) else any(x is not None for x in v))
            for e in examples.values()
            for v in [e.get(n)]
        )
    ]
    left = [n for n in names if n not in {f.name for f in fields}]
    for n in left:
        notes.append(f"field {pt.name}.{n}: no last good value to learn from")
    if not fields:
        return None, notes
    try:
        result = author_page_type(
            seeds,
            fields,
            examples,
            AuthoringOptions(list_page=is_list, page_type=pt.name, match=pt.match, strict=False),
        )
    except AuthoringError as exc:
        notes.append(f"page type {pt.name!r}: {exc}")
        return None, notes
    notes += [f"page type {pt.name!r}: {p}" for p in result.problems]
    return result, notes


def merge_spec(old: FieldSpec, new: FieldSpec) -> FieldSpec:
    """The new XPath, anchor, normalisation and fallbacks; the old name, type and meaning."""
    nz = new.normalize
    keep = old.normalize
    nz = replace(
        nz,
        date_formats=nz.date_formats or keep.date_formats,
        number_locale=nz.number_locale if nz.number_locale != "en" else keep.number_locale,
        join=nz.join if nz.join is not None else keep.join,
    )
    return replace(
        old,
        xpath=new.xpath,
        anchor=new.anchor,
        normalize=nz,
        fallbacks=new.fallbacks,
        robustness=new.robustness,
        examples=new.examples or old.examples,
    )


def apply_authored(
    pt: PageType, result: AuthoringResult, names: Sequence[str], pages: Sequence[FailingPage]
) -> tuple[PageType, list[str]]:
    """``pt`` with the re-authored fields of ``result``; the record root as discussed above."""
    authored = result.page_type
    fields = dict(pt.fields)
    missing = []
    for n in names:
        spec = authored.fields.get(n)
        if spec is None or not spec.xpath:
            missing.append(n)
            continue
        fields[n] = merge_spec(pt.fields[n], spec)
    root = pt.record_root
    if pt.record_root is not None and authored.record_root and authored.record_root != root:
        # Same rows → keep the old root (its relative field XPaths are unchanged); other rows →
        # the new one, and verification decides whether the kept fields still work under it.
        same = all(
            select_elements(pt.record_root, p.doc) == select_elements(authored.record_root, p.doc)
            for p in pages
        )
        if not same:
            root = authored.record_root
    return replace(pt, fields=fields, record_root=root), missing


def _required_filled(good: Sequence[Mapping[str, Any]], name: str) -> bool:
    return bool(good) and all(canon(r.get(name)) is not None for r in good)


@dataclass
class _Tally:
    """A verification's running totals: records and values compared, and the mismatches
    (every one counted per field, at most ``MAX_MISMATCHES_PER_FIELD`` of a field kept)."""

    records: int = 0
    values: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def mismatch(self, m: Mismatch) -> None:
        fname = f"{m.page_type}.{m.field}"
        self.counts[fname] = self.counts.get(fname, 0) + 1
        if self.counts[fname] <= MAX_MISMATCHES_PER_FIELD:
            self.mismatches.append(m)


def _records_by_key(
    pt: PageType, key: Sequence[str], records: Sequence[Record], empty: dict[str, int]
) -> dict[str, Record]:
    """The extracted records by key value (the first of a key); required fields left empty
    are counted in ``empty`` (``page_type.field`` -> records)."""
    by_key: dict[str, Record] = {}
    for r in records:
        k = key_of(r.values, key)
        if k is not None:
            by_key.setdefault(k, r)
        for name, spec in pt.fields.items():
            if spec.required and canon(r.values.get(name)) is None:
                empty[f"{pt.name}.{name}"] = empty.get(f"{pt.name}.{name}", 0) + 1
    return by_key


def _check_page(
    sf: SelectorFile,
    pt: PageType,
    result: PageResult,
    page: FailingPage,
    tally: _Tally,
    empty: dict[str, int],
) -> None:
    """Compare what ``sf`` extracts from one failing snapshot with its matched records."""
    by_key = _records_by_key(pt, sf.key, result.records, empty)
    for k, rec in page.matches:
        tally.records += 1
        if pt.record_root is None:
            got = result.records[0] if result.records else None
        else:
            got = by_key.get(k)
        for name in pt.fields:
            if name not in rec:
                continue
            tally.values += 1
            want = want_value(rec, name, page)
            value = got.values.get(name) if got is not None else None
            if not values_equal(value, want):
                shown = value if got is not None else "(no record with this key)"
                tally.mismatch(Mismatch(pt.name, name, page.snap.url, show_key(k), want, shown))


def verify_repair(
    sf: SelectorFile,
    pages: Sequence[FailingPage],
    good_by_type: Mapping[str, Sequence[Mapping[str, Any]]],
    *,
    old: SelectorFile | None = None,
    good_pages: Sequence[GoodPage] = (),
) -> Verification:
    """Extract every failing snapshot with ``sf`` and compare against the matched records;
    with ``old``, also every field ``sf`` changes on the last good pages (``repair.lastgood``)."""
    compiled = compile_selectors(sf)
    tally = _Tally()
    if old is not None:
        tally.records, tally.values, on_good = check_last_good(sf, old, good_pages)
        for m in on_good:
            tally.mismatch(m)
    empty_required: dict[str, int] = {}
    for page in pages:
        result = _evaluate(compiled, page)
        pt = sf.page_types.get(page.page_type.name)
        if pt is not None:
            _check_page(sf, pt, result, page, tally, empty_required)
    problems = []
    for fname, n in empty_required.items():
        pt_name, _, name = fname.partition(".")
        if _required_filled(good_by_type.get(pt_name, ()), name) and fname not in tally.counts:
            problems.append(
                f"field {fname}: required but empty on {n} record(s) of the failing snapshots"
            )
    return Verification(
        tally.records, tally.values, tuple(tally.mismatches), tally.counts, tuple(problems)
    )


def quiet_extract(sf: SelectorFile, body: bytes | str, url: str) -> list[Record]:
    """The records ``sf`` extracts from a page, without warnings; none if it cannot be read."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtractionWarning)
        try:
            return extract(sf, body, url)
        except AnchorpathError:
            return []


def plausibility_problems(
    sf: SelectorFile, pt: str, names: Sequence[str], bundle: Bundle
) -> list[str]:
    """Why the values of fields ``names`` of page type ``pt`` on the failing snapshots are
    implausible: filled less often than in the last good records, not of the field's type,
    required but empty (none: fine)."""
    spec = sf.page_types[pt]
    good = [r for r in bundle.last_good_records if r.get("_page_type") == pt]
    recs: list[Record] = []
    rx = re.compile(spec.match)
    for snap in bundle.failing:
        if rx.search(snap.url):
            recs += [r for r in quiet_extract(sf, snap.body, snap.url) if r.page_type == pt]
    if not recs:
        return [f"page type {pt!r}: no record on the failing snapshots"]
    problems = []
    for name in names:
        f = spec.fields[name]
        had = sum(1 for r in good if canon(r.get(name)) is not None) / len(good) if good else 1.0
        has = sum(1 for r in recs if canon(r.values.get(name)) is not None) / len(recs)
        if has < had * FILL_RATIO:
            problems.append(
                f"field {pt}.{name}: filled on {has:.0%} of the failing records "
                f"(last good: {had:.0%})"
            )
        bad = [p for r in recs for p in r.problems if p.startswith(f"{name}:")]
        if bad:
            problems.append(f"field {pt}.{name}: {len(bad)} value(s) not a {f.type}: {bad[0]}")
        if f.required and any(name in r.missing for r in recs):
            problems.append(f"field {pt}.{name}: required but empty on a failing record")
    return problems


def adoption_check(
    sf: SelectorFile,
    old: SelectorFile,
    pages: Sequence[FailingPage],
    good_by_type: Mapping[str, Sequence[Mapping[str, Any]]],
    good_pages: Sequence[GoodPage],
    bundle: Bundle,
) -> Verification:
    """The check a repaired file must pass to be adopted (automatic or edited in the session):
    the matched last good records on the failing snapshots (:func:`verify_repair`), every
    changed field on the last good snapshots and fixtures (``repair.lastgood``), and plausible
    values of every changed field on the failing snapshots (:func:`plausibility_problems`)."""
    v = verify_repair(sf, pages, good_by_type, old=old, good_pages=good_pages)
    extra = [
        p
        for n, names in changed_fields(old, sf).items()
        for p in plausibility_problems(sf, n, names, bundle)
    ]
    return replace(v, problems=v.problems + tuple(p for p in extra if p not in v.problems))


def _evaluate(compiled: CompiledSelectors, page: FailingPage) -> PageResult:
    return evaluate_page(compiled, page.doc, page.snap.url, anchors=False)


def with_page_types(sf: SelectorFile, pts: Mapping[str, PageType]) -> SelectorFile:
    """``sf`` with the given page types replaced."""
    return replace(sf, page_types={n: pts.get(n, pt) for n, pt in sf.page_types.items()})


def navigation_notes(sf: SelectorFile, bundle: Bundle, pages: Sequence[FailingPage]) -> list[str]:
    """The repair re-authors fields only: say so when the next-page link or a page type's
    ``follow`` links found something on the last good snapshots and nothing now."""
    compiled = compile_selectors(sf)
    good_next = 0
    good_links: dict[str, int] = {}
    for snap in bundle.last_good:
        if sf.page_type_for(snap.url) is None:
            continue
        try:
            r = evaluate_page(compiled, parse_html(snap.body), snap.url, anchors=False)
        except AnchorpathError:
            continue
        good_next += r.next_url is not None
        if r.page_type:
            good_links[r.page_type] = good_links.get(r.page_type, 0) + len(r.links)
    notes = []
    pag = sf.fetch.pagination
    list_pages = [p for p in pages if p.page_type.record_root is not None]
    if pag and good_next and list_pages and not any(p.old.next_url for p in list_pages):
        notes.append(
            f"pagination: next_xpath {pag.next_xpath!r} finds no next page on the failing "
            "snapshots (it did on the last good ones); edit it by hand"
        )
    for name, n in good_links.items():
        now = [p for p in pages if p.page_type.name == name]
        if n and now and not any(p.old.links for p in now):
            notes.append(
                f"page type {name!r}: its follow XPaths find no links on the failing snapshots "
                "(they did on the last good ones); edit them by hand"
            )
    return notes
