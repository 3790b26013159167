"""Repair a drifted selector file from its re-authoring bundle, without an LLM.

A drifted run leaves a bundle (:mod:`anchorpath.bundle`): the selector file it used, the
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
   good records had filled. It must also still read the last good records on the last good
   snapshots and golden fixtures for every field it changes, fallbacks included
   (``repair.lastgood``: generated fallbacks that read another value there are dropped, the old
   XPath is kept as the last fallback). Only then is the repair *adopted*; otherwise nothing is
   written and the fields that could not be reproduced are named.

:func:`plan_repair` does 1-4 and returns a :class:`RepairResult`; :func:`repair_from_bundle`
also saves an adopted repair through ``save_selector_file`` (version bump, old version
archived, provenance method ``repair``). The file gets new golden fixtures: the verified
failing snapshots and the records the repaired file extracts from them (the old fixtures show
the old template). Next-page and ``follow`` XPaths are not re-authored; when they look broken
too, a note says so.

Where the steps live: :mod:`anchorpath.bundle` reads the bundle, ``repair.match`` does 1
(and the value comparison), ``repair.check`` 2-4, ``repair.result`` holds the result types
and the diff; planning and saving are here.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from anchorpath._errors import AnchorpathError, AuthoringError
from anchorpath._version import __version__
from anchorpath.authoring.repair.check import (
    adoption_check,
    apply_authored,
    broken_fields,
    navigation_notes,
    reauthor,
    verify_repair,
    with_page_types,
)
from anchorpath.authoring.repair.lastgood import changed_fields, last_good_pages, prune_fallbacks
from anchorpath.authoring.repair.match import FailingPage, match_page, page_text
from anchorpath.authoring.repair.result import (
    FieldChange,
    RepairResult,
)
from anchorpath.authoring.reports import AuthoringResult
from anchorpath.bundle import Bundle, read_bundle
from anchorpath.selectors.evaluate import (
    ExtractionWarning,
    compile_selectors,
    evaluate_page,
    extract,
    parse_html,
)
from anchorpath.selectors.load import load_selector_file, save_selector_file
from anchorpath.selectors.model import Fixture, PageType, Provenance, Seed, SelectorFile

__all__ = [
    "plan_repair",
    "repair_from_bundle",
    "reverify",
    "save_repair",
]


def plan_repair(bundle_dir: str | Path) -> RepairResult:
    """Diagnose, re-author and verify a repair from a bundle; writes nothing.

    Raises :class:`AuthoringError` for an unreadable bundle; a repair that cannot be verified
    is returned with ``adopted == False`` and the fields in ``unreproduced``.
    """
    bundle = read_bundle(bundle_dir)
    # Broken selectors on a new template coerce and guess all the time (that is the point of
    # the diagnosis); the outcome is in the result, not in a stream of ExtractionWarnings.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtractionWarning)
        return _plan(bundle)


def _failing_pages(
    bundle: Bundle,
) -> tuple[list[FailingPage], dict[str, list[Mapping[str, Any]]], list[str]]:
    """Step 1: the failing snapshots paired with last good records, the last good records by
    page type, and notes on snapshots of no page type."""
    sf = bundle.selector
    compiled = compile_selectors(sf)
    good_by_type: dict[str, list[Mapping[str, Any]]] = {}
    for rec in bundle.last_good_records:
        pt_name = rec.get("_page_type")
        if not isinstance(pt_name, str):
            pt = sf.page_type_for(str(rec.get("_url", "")))
            pt_name = pt.name if pt else ""
        good_by_type.setdefault(pt_name, []).append(rec)
    pages: list[FailingPage] = []
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
        page = FailingPage(snap, pt, doc, page_text(doc), evaluate_page(compiled, doc, snap.url))
        match_page(page, good_by_type.get(pt.name, []), sf.key, snap.url)
        pages.append(page)
    return pages, good_by_type, notes


def _changes(
    n: str, pt: PageType, new_pt: PageType, attempt: Sequence[str], broken: Sequence[str]
) -> list[FieldChange]:
    """The fields of page type ``n`` the repair changed (a broken one even when its XPath
    came back the same)."""
    out = []
    for name in attempt:
        old_f, new_f = pt.fields[name], new_pt.fields[name]
        if old_f.xpath == new_f.xpath and name not in broken:
            continue
        out.append(
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
    return out


def _plan(bundle: Bundle) -> RepairResult:
    sf = bundle.selector
    pages, good_by_type, notes = _failing_pages(bundle)
    by_type: dict[str, list[FailingPage]] = {}
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
    broken = {n: broken_fields(by_type[n], sf.page_types[n]) for n in matched}
    broken = {n: b for n, b in broken.items() if b}
    good_pages = last_good_pages(bundle)
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
                authored[tuple(author_names)] = reauthor(pt, pt_pages, author_names)
            result, why = authored[tuple(author_names)]
            if result is None:
                best_notes = best_notes or why
                continue
            new_pt, missing = apply_authored(pt, result, take, pt_pages)
            new_pt = prune_fallbacks(with_page_types(sf, {n: new_pt}), sf, n, good_pages)
            trial = with_page_types(sf, {**repaired, n: new_pt})
            check = verify_repair(trial, pt_pages, good_by_type, old=sf, good_pages=good_pages)
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
        changes += _changes(n, pt, new_pt, attempt, names)
    new_sf = with_page_types(sf, repaired)
    verification = adoption_check(new_sf, sf, pages, good_by_type, good_pages, bundle)
    notes += navigation_notes(sf, bundle, pages)
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


def reverify(result: RepairResult, new: SelectorFile) -> RepairResult:
    """``result`` with ``new`` — the repaired file as a person left it in the review session —
    put through the same adoption check as the automatic repair: the changed fields' fallbacks
    pruned and the old XPath kept last (``repair.lastgood``), then :func:`adoption_check`.
    The returned result is adopted only if the edited file passes."""
    bundle = read_bundle(result.bundle)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtractionWarning)
        pages, good_by_type, _notes = _failing_pages(bundle)
        good = last_good_pages(bundle)
        pts = {
            n: prune_fallbacks(new, result.old, n, good) for n in changed_fields(result.old, new)
        }
        new = with_page_types(new, pts)
        verification = adoption_check(new, result.old, pages, good_by_type, good, bundle)
    changes = []
    for n, names in changed_fields(result.old, new).items():
        old_pt, new_pt = result.old.page_types[n], new.page_types[n]
        for name in names:
            if name not in old_pt.fields:
                continue
            o, f = old_pt.fields[name], new_pt.fields[name]
            changes.append(
                FieldChange(
                    n, name, o.xpath, f.xpath, o.anchor, f.anchor, f.robustness, f.fallbacks
                )
            )
    return replace(result, new=new, verification=verification, changes=tuple(changes))


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
    result = plan_repair(bundle_dir)
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

    With ``fixtures`` (default) the file's fixtures are replaced by the verified failing
    snapshots and their records (see :func:`_write_fixtures`), also when it had none: every
    write leaves golden fixtures for ``check`` and the next runs' young baseline."""
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
    if fixtures and result.verified_pages:
        new_fixtures, folder = _write_fixtures(result, bundle, target, version + 1)
        new = replace(new, fixtures=new_fixtures)
    try:
        saved = save_selector_file(new, target)
    except AnchorpathError:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)  # nothing written when the save fails
        raise
    return replace(result, new=new, saved=saved)
