"""Repair a drifted selector file from its re-authoring bundle, without an LLM.

A drifted run leaves a bundle (``anchorpath.runner.bundle``): the selector file it used, the
last good snapshots with the records the accepted run extracted from them, and this run's
failing snapshots. The repair treats the failing snapshots as the new template and the last
good records as the truth:

1. **Match.** Each failing snapshot gets the page type its URL matches. Its records are paired
   with last good records of that page type: detail pages by URL (path and query; the port of a
   test server may differ), else by the key the old selectors still extract, else by the key
   value found in the page text; list pages by the keys the old selectors extract, else by key
   values found in the page text.
2. **Diagnose.** A field is *broken* when its old XPath does not give the last good value of a
   matched record on a failing snapshot.
3. **Re-author** only the broken fields of each affected page type with the authoring core
   (``author_page_type``), the failing snapshots as seeds and the last good values as examples
   (list pages need ≥ 2 matched records per seed). Working fields keep their XPaths; a list page
   keeps its record root when the new one selects the same rows. When that minimal repair does
   not verify, the whole page type is re-authored once.
4. **Verify.** The repaired file must extract exactly the last good records from the failing
   snapshots — every matched record, every field, after normalisation (NFKC, white space; URLs
   compared on the failing page's origin) — and leave no required field empty that the last
   good records had filled. Only then is the repair *adopted*; otherwise nothing is written and
   the fields that could not be reproduced are named.

:func:`plan_repair` does 1-4 and returns a :class:`RepairResult`; :func:`repair_from_bundle`
also saves an adopted repair through ``save_selector_file`` (version bump, old version
archived, provenance method ``repair``). A file that had fixtures gets new ones: the verified
failing snapshots and the records the repaired file extracts from them (the old fixtures show
the old template). Next-page and ``follow`` XPaths are not re-authored; when they look broken
too, a note says so.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import unicodedata
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from lxml import etree

from anchorpath._errors import AnchorpathError, AuthoringError
from anchorpath._version import __version__
from anchorpath.authoring.induce import AuthoringResult, FieldRequest, author_page_type
from anchorpath.authoring.seeds import SeedPage, seed_from_html
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
from anchorpath.selectors.load import (
    dump_selector_file,
    load_selector_file,
    parse_selector_data,
    save_selector_file,
)
from anchorpath.selectors.model import (
    Anchor,
    FieldSpec,
    Fixture,
    PageType,
    Provenance,
    Seed,
    SelectorFile,
)

__all__ = [
    "BUNDLE_FORMAT",
    "FieldChange",
    "Mismatch",
    "RepairResult",
    "Snapshot",
    "Verification",
    "dump_preview",
    "plan_repair",
    "read_bundle",
    "render_diff",
    "repair_from_bundle",
    "save_repair",
]

BUNDLE_FORMAT = "anchorpath.bundle.v1"
#: Mismatches kept per field in a verification report (the rest are only counted).
MAX_MISMATCHES_PER_FIELD = 3


# -- data -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """One page of a bundle: the URL it was fetched from, its bytes and the file it came from."""

    url: str
    body: bytes
    file: str


@dataclass(frozen=True)
class Bundle:
    """A re-authoring bundle as read from disk."""

    path: Path
    site: str
    selector: SelectorFile
    selector_version: int | None
    run_id: str | None
    selector_source: str | None  # where the drifted run loaded the selector file from
    last_good: tuple[Snapshot, ...]
    last_good_records: tuple[Mapping[str, Any], ...]
    failing: tuple[Snapshot, ...]
    failing_fields: Mapping[str, Any]


@dataclass(frozen=True)
class FieldChange:
    """One re-authored field: its XPath and anchor before and after."""

    page_type: str
    field: str
    old_xpath: str
    new_xpath: str
    old_anchor: Anchor | None = None
    new_anchor: Anchor | None = None
    robustness: float | None = None
    fallbacks: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return self.old_xpath != self.new_xpath


@dataclass(frozen=True)
class Mismatch:
    """A last good value the (repaired) selectors do not reproduce on a failing snapshot."""

    page_type: str
    field: str
    url: str
    key: str
    want: Any
    got: Any

    def describe(self) -> str:
        return (
            f"{self.page_type}.{self.field} on {self.url} (key {self.key}): "
            f"expected {_short(self.want)}, got {_short(self.got)}"
        )


@dataclass(frozen=True)
class Verification:
    """Whether a selector file extracts the last good records from the failing snapshots."""

    records_checked: int
    values_checked: int
    mismatches: tuple[Mismatch, ...] = ()
    mismatch_counts: Mapping[str, int] = field(default_factory=dict)  # "pt.field" -> count
    problems: tuple[str, ...] = ()  # e.g. required fields left empty on unmatched records

    @property
    def ok(self) -> bool:
        return self.records_checked > 0 and not self.mismatch_counts and not self.problems

    @property
    def failed_fields(self) -> tuple[str, ...]:
        """``page_type.field`` names that could not be reproduced, in first-seen order."""
        return tuple(self.mismatch_counts)


@dataclass(frozen=True)
class RepairResult:
    """What a repair found, changed and proved. ``adopted`` only if verification passed."""

    site: str
    bundle: Path
    old: SelectorFile
    new: SelectorFile
    broken: Mapping[str, tuple[str, ...]]  # page type -> fields the old XPaths get wrong
    changes: tuple[FieldChange, ...]
    record_roots: Mapping[str, tuple[str | None, str | None]]  # page type -> (old, new)
    verification: Verification
    matched: Mapping[str, int]  # page type -> matched records
    notes: tuple[str, ...] = ()
    verified_pages: tuple[str, ...] = ()  # failing snapshot URLs whose records were checked
    target: Path | None = None  # where it was (or would be) saved
    saved: SelectorFile | None = None  # what was written (None: dry run or not adopted)

    @property
    def adopted(self) -> bool:
        return self.verification.ok and bool(self.matched)

    @property
    def unreproduced(self) -> tuple[str, ...]:
        """Fields the repaired file could not reproduce (empty when adopted)."""
        out = list(self.verification.failed_fields)
        for p in self.verification.problems:
            m = re.match(r"field (\S+):", p)
            if m and m.group(1) not in out:
                out.append(m.group(1))
        return tuple(out)


# -- reading the bundle ---------------------------------------------------------------------------


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AuthoringError(f"{path}: cannot read bundle file: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AuthoringError(f"{path}: bundle file is not valid JSON: {exc}") from exc


def _snapshots(bundle: Path, index: Any, what: str) -> tuple[Snapshot, ...]:
    if not isinstance(index, list):
        raise AuthoringError(f"{bundle / 'bundle.json'}: {what!r} must be a list of snapshots")
    out = []
    for i, entry in enumerate(index):
        if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
            raise AuthoringError(f"{bundle / 'bundle.json'}: {what}[{i}] has no url")
        path = bundle / str(entry.get("file", ""))
        try:
            body = path.read_bytes()
        except OSError as exc:
            raise AuthoringError(f"{path}: cannot read snapshot: {exc.strerror or exc}") from exc
        want = entry.get("sha256")
        if want and hashlib.sha256(body).hexdigest() != want:
            raise AuthoringError(f"{path}: snapshot bytes do not match the bundle's sha256")
        out.append(Snapshot(entry["url"], body, str(path)))
    return tuple(out)


def read_bundle(bundle_dir: str | Path) -> Bundle:
    """Read and check a re-authoring bundle (``bundle.json`` and everything it names)."""
    path = Path(bundle_dir)
    if path.is_file() and path.name == "bundle.json":
        path = path.parent
    manifest = _read_json(path / "bundle.json")
    if not isinstance(manifest, dict):
        raise AuthoringError(f"{path / 'bundle.json'}: not a bundle manifest")
    fmt = manifest.get("format")
    if fmt != BUNDLE_FORMAT:
        raise AuthoringError(
            f"{path / 'bundle.json'}: unsupported bundle format {fmt!r} (expected {BUNDLE_FORMAT})"
        )
    sel_path = path / str(manifest.get("selector_file") or "selector.json")
    try:
        selector = parse_selector_data(_read_json(sel_path), str(sel_path))
    except AuthoringError:
        raise
    except AnchorpathError as exc:
        raise AuthoringError(f"{sel_path}: {exc}") from exc
    records = _read_json(path / str(manifest.get("last_good_records") or "last_good/records.json"))
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise AuthoringError(f"{path}: last good records must be a list of objects")
    failing_fields = manifest.get("failing_fields") or {}
    version = manifest.get("selector_version")
    return Bundle(
        path=path,
        site=str(manifest.get("site") or selector.site.id),
        selector=selector,
        selector_version=version if isinstance(version, int) else None,
        run_id=manifest.get("run_id"),
        selector_source=manifest.get("selector_source"),
        last_good=_snapshots(path, manifest.get("last_good", []), "last_good"),
        last_good_records=tuple(records),
        failing=_snapshots(path, manifest.get("failing", []), "failing"),
        failing_fields=failing_fields if isinstance(failing_fields, dict) else {},
    )


# -- value comparison -----------------------------------------------------------------------------

_WS = re.compile(r"[\s\u00a0\u3000\u200b\ufeff]+")


def _norm_text(text: str) -> str:
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip()


def _origin(url: str) -> tuple[str, str]:
    p = urlsplit(url)
    return p.scheme.lower(), p.netloc.lower()


def _rebase(value: Any, old_page: str, new_page: str) -> Any:
    """A URL value of the last good page, moved to the failing page's origin.

    Same site, other host/port (the demo server, a staging mirror): an absolute link that
    pointed at the old page's origin now points at the new one's."""
    if isinstance(value, list):
        return [_rebase(v, old_page, new_page) for v in value]
    if not isinstance(value, str) or not value.startswith(("http://", "https://")):
        return value
    if _origin(value) != _origin(old_page):
        return value
    p, n = urlsplit(value), urlsplit(new_page)
    return urlunsplit((n.scheme, n.netloc, p.path, p.query, p.fragment))


def _canon(value: Any) -> Any:
    """Comparison form of an extracted or stored value (JSON types, normalised text)."""
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list | tuple):
        return [_canon(v) for v in value]
    text = value if isinstance(value, str) else str(value)
    return _norm_text(text)


def _same(got: Any, want: Any) -> bool:
    return bool(_canon(got) == _canon(want))


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _path_query(url: str) -> str:
    p = urlsplit(url)
    return p.path + ("?" + p.query if p.query else "")


# -- matching failing snapshots to last good records ----------------------------------------------


@dataclass
class _Page:
    """A failing snapshot, parsed, with what the old selectors make of it."""

    snap: Snapshot
    page_type: PageType
    doc: etree._Element
    text: str  # normalised text of the body, for finding key values
    old: PageResult
    # (key string, last good record, the last good record's page URL)
    matches: list[tuple[str, Mapping[str, Any]]] = field(default_factory=list)
    # key string -> the old record for it (list pages) / the only record (detail pages)
    old_by_key: dict[str, Record | None] = field(default_factory=dict)


def _key_of(values: Mapping[str, Any], key: Sequence[str]) -> str | None:
    parts = []
    for k in key:
        v = _canon(values.get(k))
        if v is None:
            return None
        parts.append(str(v))
    return "\x1f".join(parts)


def _show_key(key: str) -> str:
    return key.replace("\x1f", " / ")


def _page_text(doc: etree._Element) -> str:
    body = doc.find(".//body")
    node = body if body is not None else doc
    texts = node.xpath("string()")
    return _norm_text(str(texts))


def _key_values_in_text(rec: Mapping[str, Any], key: Sequence[str], text: str) -> int:
    """Position of the record's key values in the page text (-1 when any is absent)."""
    first = -1
    for k in key:
        v = _canon(rec.get(k))
        if not isinstance(v, str) or not v:
            return -1
        at = text.find(v)
        if at < 0:
            return -1
        first = at if first < 0 else min(first, at)
    return first


def _support(rec: Mapping[str, Any], text: str, names: Iterable[str]) -> int:
    """How many of the record's string values occur in the page text."""
    n = 0
    for name in names:
        v = _canon(rec.get(name))
        if isinstance(v, str) and len(v) > 1 and v in text:
            n += 1
    return n


def _match_page(
    page: _Page,
    good: Sequence[Mapping[str, Any]],
    key: Sequence[str],
    compiled_url: str,
) -> None:
    """Pair the page's records with last good records of its page type (see module doc)."""
    pt = page.page_type
    by_key: dict[str, Mapping[str, Any]] = {}
    for rec in good:
        k = _key_of(rec, key)
        if k is not None:
            by_key.setdefault(k, rec)
    has_key = all(k in pt.fields for k in key)
    if pt.record_root is None:
        old = page.old.records[0] if page.old.records else None
        want = _path_query(compiled_url)
        same_url = [r for r in good if _path_query(str(r.get("_url", ""))) == want]
        chosen: Mapping[str, Any] | None = same_url[0] if len(same_url) == 1 else None
        if chosen is None and old is not None and has_key:
            k = _key_of(old.values, key)
            chosen = by_key.get(k) if k is not None else None
        if chosen is None and has_key:
            found = [r for r in by_key.values() if _key_values_in_text(r, key, page.text) >= 0]
            names = list(pt.fields)
            found.sort(key=lambda r: -_support(r, page.text, names))
            if len(found) == 1 or (
                len(found) > 1
                and _support(found[0], page.text, names) > _support(found[1], page.text, names)
            ):
                chosen = found[0]
        if chosen is not None:
            k = _key_of(chosen, key) if has_key else None
            name = k if k is not None else f"url {want}"
            page.matches.append((name, chosen))
            page.old_by_key[name] = old
        return
    if not has_key:
        return  # list records without their key cannot be paired one by one
    old_keys: dict[str, Record] = {}
    for r in page.old.records:
        k = _key_of(r.values, key)
        if k is not None:
            old_keys.setdefault(k, r)
    paired = [(k, by_key[k]) for k in old_keys if k in by_key]
    if len(paired) >= 2 or (paired and len(page.old.records) == len(paired)):
        for k, rec in paired:
            page.matches.append((k, rec))
            page.old_by_key[k] = old_keys[k]
        return
    # The record root or the key field broke: find the last good keys in the page text.
    in_text: list[tuple[int, str, Mapping[str, Any]]] = []
    for k, rec in by_key.items():
        at = _key_values_in_text(rec, key, page.text)
        if at >= 0:
            in_text.append((at, k, rec))
    # The old record of such a key is the one whose row holds the key text (if the old root
    # still selects rows): its other fields may still be right.
    rows = _elements(pt.record_root, page.doc)
    row_texts = (
        [_norm_text(str(r.xpath("string()"))) for r in rows]
        if len(rows) == len(page.old.records)
        else []
    )
    for _at, k, rec in sorted(in_text, key=lambda t: t[0]):
        page.matches.append((k, rec))
        holders = [i for i, t in enumerate(row_texts) if _key_values_in_text(rec, key, t) >= 0]
        page.old_by_key[k] = page.old.records[holders[0]] if len(holders) == 1 else None


# -- diagnosis, re-authoring, verification --------------------------------------------------------


def _want(rec: Mapping[str, Any], name: str, page: _Page) -> Any:
    return _rebase(rec.get(name), str(rec.get("_url", "")), page.snap.url)


def _broken_fields(pages: Sequence[_Page], pt: PageType) -> tuple[str, ...]:
    broken: list[str] = []
    for name in pt.fields:
        for page in pages:
            for k, rec in page.matches:
                if name not in rec:
                    continue
                old = page.old_by_key.get(k)
                got = old.values.get(name) if old is not None else None
                if not _same(got, _want(rec, name, page)):
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


def _reauthor(
    pt: PageType,
    pages: Sequence[_Page],
    names: Sequence[str],
    *,
    mutation_seed: int,
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
            vals = [_example_value(_want(rec, name, page), ftype) for _k, rec in page.matches]
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
            list_page=is_list,
            mutation_seed=mutation_seed,
            name=pt.name,
            match=pt.match,
            strict=False,
        )
    except AuthoringError as exc:
        notes.append(f"page type {pt.name!r}: {exc}")
        return None, notes
    notes += [f"page type {pt.name!r}: {p}" for p in result.problems]
    return result, notes


def _elements(xpath: str | None, doc: etree._Element) -> list[etree._Element]:
    if not xpath:
        return []
    try:
        res = doc.xpath(xpath)
    except etree.XPathError:
        return []
    return [r for r in res if isinstance(r, etree._Element)] if isinstance(res, list) else []


def _merge_spec(old: FieldSpec, new: FieldSpec) -> FieldSpec:
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


def _apply(
    pt: PageType, result: AuthoringResult, names: Sequence[str], pages: Sequence[_Page]
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
        fields[n] = _merge_spec(pt.fields[n], spec)
    root = pt.record_root
    if pt.record_root is not None and authored.record_root and authored.record_root != root:
        # Same rows → keep the old root (its relative field XPaths are unchanged); other rows →
        # the new one, and verification decides whether the kept fields still work under it.
        same = all(
            _elements(pt.record_root, p.doc) == _elements(authored.record_root, p.doc)
            for p in pages
        )
        if not same:
            root = authored.record_root
    return replace(pt, fields=fields, record_root=root), missing


def _required_filled(good: Sequence[Mapping[str, Any]], name: str) -> bool:
    return bool(good) and all(_canon(r.get(name)) is not None for r in good)


def _verify(
    sf: SelectorFile,
    pages: Sequence[_Page],
    good_by_type: Mapping[str, Sequence[Mapping[str, Any]]],
) -> Verification:
    """Extract every failing snapshot with ``sf`` and compare against the matched records."""
    compiled = compile_selectors(sf)
    records = values = 0
    mismatches: list[Mismatch] = []
    counts: dict[str, int] = {}
    empty_required: dict[str, int] = {}
    for page in pages:
        result = _evaluate(compiled, page)
        pt = sf.page_types.get(page.page_type.name)
        if pt is None:
            continue
        got_by_key: dict[str, Record] = {}
        for r in result.records:
            k = _key_of(r.values, sf.key)
            if k is not None:
                got_by_key.setdefault(k, r)
            for name, spec in pt.fields.items():
                if spec.required and _canon(r.values.get(name)) is None:
                    empty_required[f"{pt.name}.{name}"] = (
                        empty_required.get(f"{pt.name}.{name}", 0) + 1
                    )
        for k, rec in page.matches:
            records += 1
            if pt.record_root is None:
                got = result.records[0] if result.records else None
            else:
                got = got_by_key.get(k)
            for name in pt.fields:
                if name not in rec:
                    continue
                values += 1
                want = _want(rec, name, page)
                value = got.values.get(name) if got is not None else None
                if _same(value, want):
                    continue
                fname = f"{pt.name}.{name}"
                counts[fname] = counts.get(fname, 0) + 1
                if counts[fname] <= MAX_MISMATCHES_PER_FIELD:
                    shown = value if got is not None else "(no record with this key)"
                    mismatches.append(
                        Mismatch(pt.name, name, page.snap.url, _show_key(k), want, shown)
                    )
    problems = []
    for fname, n in empty_required.items():
        pt_name, _, name = fname.partition(".")
        if _required_filled(good_by_type.get(pt_name, ()), name) and fname not in counts:
            problems.append(
                f"field {fname}: required but empty on {n} record(s) of the failing snapshots"
            )
    return Verification(records, values, tuple(mismatches), counts, tuple(problems))


def _evaluate(compiled: CompiledSelectors, page: _Page) -> PageResult:
    return evaluate_page(compiled, page.doc, page.snap.url, anchors=False)


def _with_page_types(sf: SelectorFile, pts: Mapping[str, PageType]) -> SelectorFile:
    return replace(sf, page_types={n: pts.get(n, pt) for n, pt in sf.page_types.items()})


def _navigation_notes(sf: SelectorFile, bundle: Bundle, pages: Sequence[_Page]) -> list[str]:
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


def plan_repair(bundle_dir: str | Path, *, mutation_seed: int = 0) -> RepairResult:
    """Diagnose, re-author and verify a repair from a bundle; writes nothing.

    Raises :class:`AuthoringError` for an unreadable bundle; a repair that cannot be verified
    is returned with ``adopted == False`` and the fields in ``unreproduced``.
    """
    bundle = read_bundle(bundle_dir)
    # Broken selectors on a new template coerce and guess all the time (that is the point of
    # the diagnosis); the outcome is in the result, not in a stream of ExtractionWarnings.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtractionWarning)
        return _plan(bundle, mutation_seed)


def _plan(bundle: Bundle, mutation_seed: int) -> RepairResult:
    sf = bundle.selector
    compiled = compile_selectors(sf)
    good_by_type: dict[str, list[Mapping[str, Any]]] = {}
    for rec in bundle.last_good_records:
        pt_name = rec.get("_page_type")
        if not isinstance(pt_name, str):
            pt = sf.page_type_for(str(rec.get("_url", "")))
            pt_name = pt.name if pt else ""
        good_by_type.setdefault(pt_name, []).append(rec)
    pages: list[_Page] = []
    notes: list[str] = []
    for snap in bundle.failing:
        pt = sf.page_type_for(snap.url)
        if pt is None:
            notes.append(f"{snap.file}: {snap.url} matches no page type; skipped")
            continue
        try:
            doc = parse_html(snap.body)
        except AnchorpathError as exc:
            raise AuthoringError(f"{snap.file}: cannot parse failing snapshot: {exc}") from exc
        page = _Page(snap, pt, doc, _page_text(doc), evaluate_page(compiled, doc, snap.url))
        _match_page(page, good_by_type.get(pt.name, []), sf.key, snap.url)
        pages.append(page)
    by_type: dict[str, list[_Page]] = {}
    for p in pages:
        by_type.setdefault(p.page_type.name, []).append(p)
    matched = {n: sum(len(p.matches) for p in ps) for n, ps in by_type.items()}
    matched = {n: c for n, c in matched.items() if c}
    for n, ps in by_type.items():
        if not matched.get(n):
            notes.append(
                f"page type {n!r}: no failing snapshot could be paired with a last good record "
                f"({len(ps)} snapshot(s)); it is not checked"
            )
    broken = {n: _broken_fields(by_type[n], sf.page_types[n]) for n in matched}
    broken = {n: b for n, b in broken.items() if b}
    repaired: dict[str, PageType] = {}
    changes: list[FieldChange] = []
    roots: dict[str, tuple[str | None, str | None]] = {}
    for n, names in broken.items():
        pt = sf.page_types[n]
        pt_pages = by_type[n]
        # (fields to author, fields to take): the broken ones alone; all of them for a better
        # record-root induction but only the broken ones taken; finally the whole page type.
        every = list(pt.fields)
        attempts = [(list(names), list(names))]
        if len(names) < len(every):
            attempts += [(every, list(names)), (every, every)]
        best: tuple[int, PageType, list[str], list[str]] | None = None
        best_notes: list[str] = []  # why no attempt produced anything, if none did
        authored: dict[tuple[str, ...], tuple[AuthoringResult | None, list[str]]] = {}
        for author_names, take in attempts:
            if tuple(author_names) not in authored:
                authored[tuple(author_names)] = _reauthor(
                    pt, pt_pages, author_names, mutation_seed=mutation_seed
                )
            result, why = authored[tuple(author_names)]
            if result is None:
                best_notes = best_notes or why
                continue
            new_pt, missing = _apply(pt, result, take, pt_pages)
            trial = _with_page_types(sf, {**repaired, n: new_pt})
            check = _verify(trial, pt_pages, good_by_type)
            failed = len(check.failed_fields) + len(check.problems)
            why = why + [
                f"field {n}.{m}: no XPath reproduces the last good values" for m in missing
            ]
            # Keep the first attempt that verifies, else the one that fails on fewest fields;
            # only its notes are shown (an earlier attempt's complaints were overcome).
            if best is None or failed < best[0]:
                best = (failed, new_pt, take, why)
            if check.ok:
                break
        if best is None:
            notes += best_notes
            continue
        _failed, new_pt, attempt, why = best
        notes += why
        repaired[n] = new_pt
        roots[n] = (pt.record_root, new_pt.record_root)
        for name in attempt:
            old_f, new_f = pt.fields[name], new_pt.fields[name]
            if old_f.xpath == new_f.xpath and name not in names:
                continue
            changes.append(
                FieldChange(
                    n,
                    name,
                    old_f.xpath,
                    new_f.xpath,
                    old_f.anchor,
                    new_f.anchor,
                    new_f.robustness,
                    new_f.fallbacks,
                )
            )
    new_sf = _with_page_types(sf, repaired)
    verification = _verify(new_sf, pages, good_by_type)
    notes += _navigation_notes(sf, bundle, pages)
    for flagged in bundle.failing_fields:
        pt_name, _, fname = str(flagged).partition(".")
        if pt_name in matched and fname and fname not in broken.get(pt_name, ()):
            notes.append(
                f"field {flagged}: flagged by the drift gate, but its XPath still gives the last "
                "good values on the failing snapshots (content change, or values not checked)"
            )
    return RepairResult(
        site=bundle.site,
        bundle=bundle.path,
        old=sf,
        new=new_sf,
        broken=broken,
        changes=tuple(changes),
        record_roots=roots,
        verification=verification,
        matched=matched,
        notes=tuple(dict.fromkeys(notes)),
        verified_pages=tuple(p.snap.url for p in pages if p.matches),
    )


# -- saving ---------------------------------------------------------------------------------------


def _provenance(result: RepairResult, bundle: Bundle) -> Provenance:
    fields = ", ".join(f"{c.page_type}.{c.field}" for c in result.changes) or "none"
    seeds = tuple(
        Seed(s.url, hashlib.sha256(s.body).hexdigest())
        for s in bundle.failing
        if result.old.page_type_for(s.url) is not None
    )
    return Provenance(
        method="repair",
        author=result.old.provenance.author,
        tool_version=__version__,
        seeds=seeds,
        notes=(
            f"Repaired from the drift bundle of run {bundle.run_id or '?'} (selector version "
            f"{bundle.selector_version}); re-authored: {fields}; verified on "
            f"{result.verification.records_checked} last good records."
        ),
    )


def _target(bundle: Bundle, site_id: str, selectors_dir: str | Path | None) -> Path:
    """``<selectors_dir>/<site>.json``; by default the file the drifted run used, if it is
    still there, else the configured selectors directory."""
    if selectors_dir is not None:
        return Path(selectors_dir) / f"{site_id}.json"
    if bundle.selector_source:
        source = Path(bundle.selector_source)
        if source.is_file() and source.name == f"{site_id}.json":
            return source
    from anchorpath._config import load_settings

    return Path(load_settings().paths.selectors_dir) / f"{site_id}.json"


def repair_from_bundle(
    bundle_dir: str | Path,
    *,
    selectors_dir: str | Path | None = None,
    dry_run: bool = False,
    mutation_seed: int = 0,
) -> RepairResult:
    """Repair the bundle's site and, when the repair verifies and ``dry_run`` is false, save it.

    The repaired file goes to ``<selectors_dir>/<site>.json`` (default: the file the drifted
    run loaded, when it is still there, else the configured selectors directory) through
    ``save_selector_file``: version bumped, the replaced version archived under ``.history/``,
    provenance method ``repair``. The current file must still be
    the version the bundle was made with (else :class:`AuthoringError`: someone changed it
    since the drift). Check ``result.adopted``: a repair that does not reproduce the last good
    records is returned unsaved, with the failing fields in ``result.unreproduced``.
    """
    result = plan_repair(bundle_dir, mutation_seed=mutation_seed)
    bundle = read_bundle(bundle_dir)
    target = _target(bundle, result.new.site.id, selectors_dir)
    if not target.is_file():
        raise AuthoringError(
            f"{target}: no current selector file of site {result.new.site.id!r} to repair "
            "(pass the selectors directory the run used)"
        )
    current = load_selector_file(target)
    if bundle.selector_version is not None and current.version != bundle.selector_version:
        raise AuthoringError(
            f"{target}: now at version {current.version}, but the bundle was made with "
            f"version {bundle.selector_version}; the file changed since the drift (re-run "
            "the site to get a fresh bundle)"
        )
    result = replace(result, target=target)
    if not result.adopted or dry_run:
        return result
    return save_repair(result)


def _write_fixtures(
    result: RepairResult, bundle: Bundle, target: Path, version: int
) -> tuple[tuple[Fixture, ...], Path]:
    """The verified failing snapshots and what the repaired file extracts from them, as the
    new file's fixtures (the old ones show the old template, which the new XPaths no longer
    read). Files go to ``fixtures/<site>/repair-v<version>/`` next to the selector file."""
    rel = Path("fixtures") / result.new.site.id / f"repair-v{version}"
    folder = target.parent / rel
    wanted = set(result.verified_pages)
    out = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExtractionWarning)
            for i, snap in enumerate((s for s in bundle.failing if s.url in wanted), 1):
                records = [r.to_dict() for r in extract(result.new, snap.body, snap.url)]
                (folder / f"{i:03d}.html").write_bytes(snap.body)
                (folder / f"{i:03d}.records.json").write_text(
                    json.dumps(records, ensure_ascii=False, indent=2, default=str) + "\n",
                    encoding="utf-8",
                )
                out.append(
                    Fixture(
                        (rel / f"{i:03d}.html").as_posix(),
                        snap.url,
                        (rel / f"{i:03d}.records.json").as_posix(),
                    )
                )
    except OSError as exc:
        raise AuthoringError(f"{folder}: cannot write the repaired fixtures: {exc}") from exc
    return tuple(out), folder


def save_repair(result: RepairResult, *, fixtures: bool = True) -> RepairResult:
    """Save an adopted repair to ``result.target`` (from :func:`repair_from_bundle` with
    ``dry_run=True``, e.g. after asking a person); returns it with ``saved`` set.

    With ``fixtures`` (default) and when the old file had fixtures, they are replaced by the
    verified failing snapshots and their records (see :func:`_write_fixtures`)."""
    if not result.adopted:
        raise AuthoringError(
            f"{result.bundle}: the repair does not reproduce the last good records "
            f"({', '.join(result.unreproduced)}); not saved"
        )
    if result.target is None:
        raise AuthoringError(f"{result.bundle}: no target file for the repair")
    bundle = read_bundle(result.bundle)
    target = result.target
    current = load_selector_file(target) if target.is_file() else None
    version = current.version if current else result.new.version
    new = replace(result.new, version=version, provenance=_provenance(result, bundle))
    folder = None
    if fixtures and result.old.fixtures and result.verified_pages:
        new_fixtures, folder = _write_fixtures(result, bundle, target, version + 1)
        new = replace(new, fixtures=new_fixtures)
    try:
        saved = save_selector_file(new, target)
    except AnchorpathError:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)  # nothing written when the save fails
        raise
    return replace(result, new=new, saved=saved)


# -- presentation ---------------------------------------------------------------------------------


def _anchor_text(a: Anchor | None) -> str:
    if a is None:
        return "no anchor"
    parts = [a.kind]
    if a.value:
        parts.append(repr(a.value))
    if a.attribute:
        parts.append(f"@{a.attribute}")
    return " ".join(parts)


def render_diff(result: RepairResult) -> list[str]:
    """The semantic per-field diff: old XPath → new XPath and anchors, record roots, checks."""
    lines = []
    for pt_name, (old_root, new_root) in result.record_roots.items():
        if old_root != new_root:
            lines += [f"{pt_name} record root:", f"  - {old_root}", f"  + {new_root}"]
    kept = {
        n: [
            f
            for f in result.old.page_types[n].fields
            if f not in {c.field for c in result.changes if c.page_type == n}
        ]
        for n in result.broken
    }
    for c in result.changes:
        if not c.changed:
            lines.append(f"{c.page_type}.{c.field}: NOT REPAIRED (old XPath kept: {c.old_xpath})")
            continue
        rob = f", robustness {c.robustness}" if c.robustness is not None else ""
        lines.append(
            f"{c.page_type}.{c.field}: anchor {_anchor_text(c.old_anchor)} → "
            f"{_anchor_text(c.new_anchor)}{rob}"
        )
        lines.append(f"  - {c.old_xpath}")
        lines.append(f"  + {c.new_xpath}")
        for fb in c.fallbacks:
            lines.append(f"    fallback {fb}")
    for n, names in kept.items():
        if names:
            lines.append(f"{n}: unchanged (still right): {', '.join(names)}")
    v = result.verification
    lines.append(
        f"verification: {v.records_checked} last good records, {v.values_checked} values on "
        f"{len(result.matched)} page type(s): "
        + ("all reproduced" if v.ok else f"{sum(v.mismatch_counts.values())} mismatches")
    )
    return lines


def dump_preview(result: RepairResult) -> str:
    """The repaired selector file as it would be written (canonical text)."""
    return dump_selector_file(result.saved or result.new)
