"""The last good side of a repair's adoption check.

A repaired selector file must still read what the accepted file read: on the *last good
pages* — the bundle's last good snapshots with the records the accepted run extracted from
them, and the drifted file's golden fixtures with their expected records — every field the
repair changes must give the last good value (after normalisation, see ``repair.match``). That
includes fallbacks: a generated fallback (a positional ``td[6]``, say) that reads another
column on the old template is worse than none, since the runner takes the first non-empty one.

:func:`last_good_pages` collects those pages, :func:`check_last_good` compares, and
:func:`prune_fallbacks` keeps only fallbacks that read the right value or nothing there and
appends the old XPath as the last fallback (so archived pages of the old template still read).
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lxml import etree

from anchorpath._errors import AnchorpathError
from anchorpath._untrusted import MAX_PAGE_BYTES, loads_json, read_capped
from anchorpath.authoring.repair.match import canon, key_of, rebase, show_key, values_equal
from anchorpath.authoring.repair.result import Mismatch
from anchorpath.bundle import Bundle
from anchorpath.selectors.evaluate import (
    ExtractionWarning,
    Record,
    compile_selectors,
    evaluate_page,
    parse_html,
)
from anchorpath.selectors.load import fixture_path
from anchorpath.selectors.model import PageType, SelectorFile

__all__ = [
    "GoodPage",
    "changed_fields",
    "check_last_good",
    "last_good_pages",
    "prune_fallbacks",
]


@dataclass(frozen=True)
class GoodPage:
    """A page the accepted selector file read, parsed, with the records it read from it."""

    url: str
    doc: etree._Element
    records: tuple[Mapping[str, Any], ...]
    where: str  # the snapshot or fixture file, for messages


def _path_query(url: str) -> str:
    p = urlsplit(url)
    return p.path + ("?" + p.query if p.query else "")


def _parse(body: bytes) -> etree._Element | None:
    try:
        return parse_html(body)
    except AnchorpathError:
        return None


def last_good_pages(bundle: Bundle) -> list[GoodPage]:
    """The bundle's last good snapshots with their records, then the drifted file's golden
    fixtures with their expected records (when the file the run loaded is still beside them)."""
    by_url: dict[str, list[Mapping[str, Any]]] = {}
    for rec in bundle.last_good_records:
        by_url.setdefault(_path_query(str(rec.get("_url", ""))), []).append(rec)
    out = []
    for snap in bundle.last_good:
        recs = by_url.get(_path_query(snap.url))
        doc = _parse(snap.body) if recs else None
        if recs and doc is not None:
            where = Path(snap.file)
            out.append(GoodPage(snap.url, doc, tuple(recs), f"{where.parent.name}/{where.name}"))
    if not bundle.selector_source:
        return out
    source = Path(bundle.selector_source)
    for fx in bundle.selector.fixtures:
        if fx.records is None:
            continue
        try:
            body = read_capped(fixture_path(source, fx.page), MAX_PAGE_BYTES, regular=True)
            records = read_capped(fixture_path(source, fx.records), MAX_PAGE_BYTES, regular=True)
            data = loads_json(records.decode("utf-8"))
        except (OSError, ValueError):
            continue  # moved or unreadable: the bundle's snapshots still count
        doc = _parse(body)
        if isinstance(data, list) and doc is not None:
            wanted = tuple(r for r in data if isinstance(r, dict))
            out.append(GoodPage(fx.url, doc, wanted, fx.page))
    return out


def changed_fields(old: SelectorFile, new: SelectorFile) -> dict[str, tuple[str, ...]]:
    """Page type -> the fields ``new`` reads differently from ``old`` (all of them when the
    record root changed)."""
    out: dict[str, tuple[str, ...]] = {}
    for n, pt in new.page_types.items():
        o = old.page_types.get(n)
        if o is None:
            continue
        if o.record_root != pt.record_root:
            names = tuple(pt.fields)
        else:
            names = tuple(f for f, spec in pt.fields.items() if o.fields.get(f) != spec)
        if names:
            out[n] = names
    return out


def _pairs(
    want: Sequence[Mapping[str, Any]], got: Sequence[Record], key: Sequence[str], pt: PageType
) -> list[tuple[str, Mapping[str, Any], Record | None]]:
    """Each last good record with the record extracted now: by key on list pages (else by
    position), the only record on detail pages."""
    if pt.record_root is None:
        return [(show_key(key_of(w, key) or "-"), w, got[0] if got else None) for w in want[:1]]
    by_key: dict[str, Record] = {}
    for r in got:
        k = key_of(r.values, key)
        if k is not None:
            by_key.setdefault(k, r)
    out = []
    for i, w in enumerate(want):
        k = key_of(w, key) if all(x in pt.fields for x in key) else None
        if k is not None:
            out.append((show_key(k), w, by_key.get(k)))
        else:
            out.append((f"#{i + 1}", w, got[i] if i < len(got) else None))
    return out


def _evaluate(sf: SelectorFile, page: GoodPage) -> tuple[str | None, tuple[Record, ...]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtractionWarning)
        try:
            r = evaluate_page(compile_selectors(sf), page.doc, page.url, anchors=False)
        except AnchorpathError:
            return None, ()
    return r.page_type, r.records


def check_last_good(
    new: SelectorFile,
    old: SelectorFile,
    pages: Sequence[GoodPage],
    page_types: Collection[str] | None = None,
) -> tuple[int, int, list[Mismatch]]:
    """Records and values compared, and the mismatches, of every field ``new`` changes from
    ``old`` on the last good pages (of ``page_types`` only, if given)."""
    changed = changed_fields(old, new)
    if page_types is not None:
        changed = {n: f for n, f in changed.items() if n in page_types}
    records = values = 0
    out: list[Mismatch] = []
    if not changed:
        return records, values, out
    for page in pages:
        pt_name, got = _evaluate(new, page)
        names = changed.get(pt_name or "")
        if pt_name is None or not names:
            continue
        pt = new.page_types[pt_name]
        want = [r for r in page.records if r.get("_page_type", pt_name) == pt_name]
        for key, w, g in _pairs(want, got, new.key, pt):
            records += 1
            for name in names:
                if name not in w:
                    continue
                values += 1
                expected = rebase(w.get(name), str(w.get("_url") or page.url), page.url)
                value = g.values.get(name) if g is not None else None
                if not values_equal(value, expected):
                    shown = value if g is not None else "(no record with this key)"
                    where = f"{page.url} (last good, {page.where})"
                    out.append(Mismatch(pt_name, name, where, key or "-", expected, shown))
    return records, values, out


def prune_fallbacks(
    sf: SelectorFile, old: SelectorFile, pt_name: str, pages: Sequence[GoodPage]
) -> PageType:
    """Page type ``pt_name`` of ``sf`` with each changed field's fallbacks pruned: those that
    read a wrong (non-empty, different) value on a last good page are dropped, and the old
    XPath is appended last when the record root is unchanged."""
    pt, old_pt = sf.page_types[pt_name], old.page_types[pt_name]
    names = changed_fields(old, sf).get(pt_name, ())
    chains = {n: [pt.fields[n].xpath, *pt.fields[n].fallbacks] for n in names}
    bad: dict[str, set[str]] = {n: set() for n in names}
    depth = max((len(c) for c in chains.values()), default=0)
    for k in range(1, depth):
        # One trial per fallback position: each field reads its k-th fallback alone.
        tried = {n: c[k] for n, c in chains.items() if k < len(c)}
        fields = dict(pt.fields)
        for n, xp in tried.items():
            fields[n] = replace(pt.fields[n], xpath=xp, fallbacks=())
        trial_pt = replace(pt, fields=fields)
        trial = replace(sf, page_types={**sf.page_types, pt_name: trial_pt})
        for page in pages:
            got_pt, got = _evaluate(trial, page)
            if got_pt != pt_name:
                continue
            want = [r for r in page.records if r.get("_page_type", pt_name) == pt_name]
            for _key, w, g in _pairs(want, got, sf.key, trial_pt):
                for n, xp in tried.items():
                    if g is None or n not in w:
                        continue
                    value = g.values.get(n)
                    expected = rebase(w.get(n), str(w.get("_url") or page.url), page.url)
                    if canon(value) is not None and not values_equal(value, expected):
                        bad[n].add(xp)
    fields = dict(pt.fields)
    for n, chain in chains.items():
        old_xp = old_pt.fields[n].xpath if n in old_pt.fields else None
        falls = [x for x in chain[1:] if x not in bad[n] and x != old_xp]
        if old_xp and old_xp != chain[0] and pt.record_root == old_pt.record_root:
            falls.append(old_xp)
        fields[n] = replace(pt.fields[n], fallbacks=tuple(falls))
    return replace(pt, fields=fields)
