"""Repair with an LLM where the last good values are no longer on the failing pages.

The LLM-free repair (``repair.pipeline``) learns from last good values it finds again on the
failing snapshots. When it cannot (a list page whose records all changed, detail pages of other
records, a value that moved *and* changed), :func:`llm_repair` asks the model for the fields of
those page types only, on a few failing snapshots, with the same guards as authoring (the
verbatim guard with one re-ask, perturbation grounding: ``llm.propose``). Fields whose old
XPath already gives the model's values keep it; the others are re-authored from the model's
values with the authoring core, and their old XPath is kept as the last fallback (so archived
pages of the old template still read).

Adopted only if both hold, per repaired page type:

* the repaired file reproduces the last good records on the last good snapshots (every field,
  every record, after normalisation), and
* it extracts plausible values on every failing snapshot: each re-authored field filled about
  as often as in the last good records, of its type, required fields never empty.

Otherwise the result is returned unadopted with the reasons, and nothing is written.

The values may also come from a written answer to the bundle's ``prompt.md`` instead of a
configured model (``author repair --answer``, :mod:`anchorpath.authoring.repair.answer`): both
go through :func:`repair_with_values`, so an answer passes the same verbatim guard, grounding
and adoption check as the model's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from anchorpath._config import LLMConfig, Settings
from anchorpath._errors import AnchorpathError
from anchorpath.authoring.induce import author_page_type
from anchorpath.authoring.options import AuthoringOptions
from anchorpath.authoring.repair.check import (
    merge_spec,
    plausibility_problems,
    quiet_extract,
    with_page_types,
)
from anchorpath.authoring.repair.lastgood import check_last_good, last_good_pages, prune_fallbacks
from anchorpath.authoring.repair.match import values_equal
from anchorpath.authoring.repair.result import FieldChange, Mismatch, RepairResult, Verification
from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.seeds import SeedPage, seed_from_html
from anchorpath.bundle import Bundle, read_bundle
from anchorpath.selectors.evaluate import Record
from anchorpath.selectors.model import PageType, SelectorFile

if TYPE_CHECKING:  # the model's package is imported only when a model is asked
    from anchorpath.authoring.llm.client import LLMClient
    from anchorpath.authoring.llm.propose import Proposals

__all__ = [
    "LLM_SEEDS",
    "Ask",
    "SeedsOf",
    "flagged_fields",
    "llm_repair",
    "repair_with_model",
    "repair_with_values",
    "unverified_page_types",
]

#: Proposed values for the fields asked on the seeds (a model's, or a written answer's),
#: after the verbatim guard: ``propose`` with its source bound.
Ask = Callable[[Sequence[SeedPage], Sequence[FieldRequest]], "Proposals"]
#: The failing snapshots of a page type to take values from (bundle, page type, old file).
SeedsOf = Callable[[Bundle, PageType, SelectorFile], list[SeedPage]]

#: Failing snapshots per page type the model reads.
LLM_SEEDS = 3


def unverified_page_types(result: RepairResult, bundle: Bundle) -> list[str]:
    """Page types (with fields) the LLM-free repair could not verify and that need values:
    some field not reproduced; or none of their failing snapshots paired with a last good
    record while the page type looks broken — the drift gate flagged one of its fields (or no
    field at all: a structural drift), or its failing snapshots give none of its records. A
    navigation list that shows other records today, with fields the gate did not flag, is
    not broken: asking about it would only find nothing to check the answer against."""
    pts = result.old.page_types
    failing = {_pt_of(result.old, s.url) for s in bundle.failing}
    anything_flagged = any(flagged_fields(bundle, n, pt) for n, pt in pts.items())
    out = [
        n
        for n in pts
        if n not in result.matched
        and n in failing
        and (
            not anything_flagged
            or flagged_fields(bundle, n, pts[n])
            or not _records_on_failing(bundle, result.old, n)
        )
    ]
    out += [f.partition(".")[0] for f in result.unreproduced]
    return [n for n in dict.fromkeys(out) if n in pts and pts[n].fields]


def _records_on_failing(bundle: Bundle, sf: SelectorFile, pt_name: str) -> bool:
    """Whether ``sf`` reads any record of page type ``pt_name`` on the failing snapshots."""
    rx = re.compile(sf.page_types[pt_name].match)
    return any(
        r.page_type == pt_name
        for s in bundle.failing
        if rx.search(s.url)
        for r in quiet_extract(sf, s.body, s.url)
    )


def _pt_of(sf: SelectorFile, url: str) -> str | None:
    pt = sf.page_type_for(url)
    return pt.name if pt is not None else None


def _seeds(bundle: Bundle, pt: PageType, sf: SelectorFile) -> list[SeedPage]:
    """Failing snapshots of ``pt`` for the model, list pages with two or more rows first."""
    rx = re.compile(pt.match)
    snaps = [s for s in bundle.failing if rx.search(s.url)]
    if pt.record_root is not None:
        snaps.sort(key=lambda s: len(quiet_extract(sf, s.body, s.url)) < 2)
    return [seed_from_html(s.body, s.url, source=s.url) for s in snaps[:LLM_SEEDS]]


def flagged_fields(bundle: Bundle, pt_name: str, pt: PageType) -> list[str]:
    """The fields of ``pt`` the drift gate named (``page_type.field`` or a bare name)."""
    out = []
    for key in bundle.failing_fields:
        owner, _, name = str(key).rpartition(".")
        if owner in ("", pt_name) and name in pt.fields:
            out.append(name)
    return list(dict.fromkeys(out))


def _values_of(records: Sequence[Record], name: str, is_list: bool) -> Any:
    vals = [r.values.get(name) for r in records]
    return vals if is_list else (vals[0] if vals else None)


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(
            values_equal(g, w) for g, w in zip(got, want, strict=True)
        )
    return values_equal(got, want)


def llm_repair(
    result: RepairResult,
    client: LLMClient,
    llm: LLMConfig,
) -> RepairResult:
    """Ask the model for the fields of the page types the LLM-free ``result`` left unverified
    (``llm``: token budget, perturbation rounds), re-author, verify as the module docstring
    says; the returned result is adopted only then."""
    from anchorpath.authoring.llm.propose import propose

    def ask(seeds: Sequence[SeedPage], reqs: Sequence[FieldRequest]) -> Proposals:
        return propose(client, seeds, reqs, llm)

    return repair_with_values(result, ask, _seeds, source="LLM")


def repair_with_model(
    result: RepairResult,
    bundle: Bundle,
    settings: Settings,
    site: str,
    note: Callable[[str], None],
) -> RepairResult:
    """``author repair --llm``: the configured model (cache, per-site ledger) for the page
    types the LLM-free ``result`` left unverified; none left, no call. ``note`` receives what
    was asked and what it cost."""
    from anchorpath.authoring.llm import make_client

    todo = unverified_page_types(result, bundle)
    if not todo:
        note("--llm: every page type verified without the model; no LLM call")
        return result
    client = make_client(settings, site)
    try:
        note(f"--llm: asking {client.model} about page type(s) {', '.join(todo)}")
        result = llm_repair(result, client, settings.llm)
        note(f"  LLM: {client.ledger.totals.summary()}")
    finally:
        client.close()
    return result


def repair_with_values(
    result: RepairResult,
    ask: Ask,
    seeds_of: SeedsOf,
    *,
    source: str,
) -> RepairResult:
    """The page types the LLM-free ``result`` left unverified
    (:func:`unverified_page_types`), re-authored from the values ``ask`` proposes on the
    failing snapshots ``seeds_of`` picks, and verified as the module docstring says; the
    returned result is adopted only then. ``source`` names where the values came from in notes
    (``LLM``, ``answer``)."""
    bundle = read_bundle(result.bundle)
    targets = unverified_page_types(result, bundle)
    sf = result.new
    notes = list(result.notes)
    changes = [c for c in result.changes if c.page_type not in targets]
    records = values = 0
    mismatches: list[Mismatch] = []
    problems: list[str] = []
    repaired: dict[str, PageType] = {}
    matched = dict(result.matched)
    good_pages = last_good_pages(bundle)
    for n in targets:
        old_pt = result.old.page_types[n]
        is_list = old_pt.record_root is not None
        seeds = seeds_of(bundle, old_pt, result.old)
        if not seeds:
            problems.append(f"page type {n!r}: no failing snapshot to take its values from")
            continue
        reqs = [
            FieldRequest(k, f.type, f.description, f.required) for k, f in old_pt.fields.items()
        ]
        props = ask(seeds, reqs)
        notes += [f"{source}: {p}" for p in props.problems]
        # Fields whose old XPath already gives the model's values on every seed stay as they are.
        old_vals = {s.source: quiet_extract(result.old, s.html, s.url) for s in seeds}
        broken = []
        for k in old_pt.fields:
            asked = [props.examples.get(s.source, {}).get(k) for s in seeds]
            if not any(v not in (None, [], "") for v in asked):
                continue
            got = [_values_of(old_vals[s.source], k, is_list) for s in seeds]
            if not all(_same(g, a) for g, a in zip(got, asked, strict=True) if a is not None):
                broken.append(k)
        if not broken and not is_list:
            notes.append(f"page type {n!r}: the {source} values are what the old XPaths give")
            continue
        usable = [
            r for r in reqs if any(props.examples.get(s.source, {}).get(r.name) for s in seeds)
        ]
        try:
            authored = author_page_type(
                seeds,
                usable,
                props.examples,
                AuthoringOptions(list_page=is_list, page_type=n, match=old_pt.match, strict=False),
            )
        except AnchorpathError as exc:
            problems.append(f"page type {n!r}: {exc}")
            continue
        notes += [f"page type {n!r}: {p}" for p in authored.problems]
        new_root = authored.page_type.record_root if is_list else None
        take = list(old_pt.fields) if is_list and new_root != old_pt.record_root else broken
        fields = dict(old_pt.fields)
        for k in take:
            spec = authored.page_type.fields.get(k)
            if spec is None or not spec.xpath:
                problems.append(f"field {n}.{k}: no XPath reproduces the {source} values")
                continue
            merged = merge_spec(old_pt.fields[k], spec)
            # The old XPath last: pages of the old template (archives, fixtures) still read.
            falls = tuple(x for x in merged.fallbacks if x != old_pt.fields[k].xpath)[:2]
            if new_root == old_pt.record_root or not is_list:
                falls += (old_pt.fields[k].xpath,)
            fields[k] = replace(merged, fallbacks=falls)
            changes.append(
                FieldChange(
                    n,
                    k,
                    old_pt.fields[k].xpath,
                    spec.xpath,
                    old_pt.fields[k].anchor,
                    spec.anchor,
                    spec.robustness,
                    fields[k].fallbacks,
                )
            )
        repaired[n] = replace(old_pt, fields=fields, record_root=new_root or old_pt.record_root)
        repaired[n] = prune_fallbacks(with_page_types(sf, repaired), result.old, n, good_pages)
        kept = repaired[n].fields
        changes = [
            replace(c, fallbacks=kept[c.field].fallbacks)
            if c.page_type == n and c.field in kept
            else c
            for c in changes
        ]
        trial = with_page_types(sf, repaired)
        r, v, mm = check_last_good(trial, result.old, good_pages, (n,))
        records, values = records + r, values + v
        mismatches += mm
        # the fields the drift gate flagged too: one the values did not re-author (all of them
        # rejected by the verbatim guard, or null) must still read on the failing pages
        checked = [*take, *(k for k in flagged_fields(bundle, n, old_pt) if k not in take)]
        problems += plausibility_problems(trial, n, checked, bundle)
        matched[n] = r
    new_sf = with_page_types(sf, repaired)
    counts: dict[str, int] = {}
    for m in mismatches:
        counts[f"{m.page_type}.{m.field}"] = counts.get(f"{m.page_type}.{m.field}", 0) + 1
    if mismatches:
        problems.append(
            "the repaired file does not reproduce the last good records on the last good "
            "snapshots (the old XPaths are kept as fallbacks; a new XPath reads another value)"
        )
    if records == 0 and repaired:
        problems.append(f"no last good record to check the {source} repair against")
    base = result.verification
    verification = Verification(
        base.records_checked + records,
        base.values_checked + values,
        tuple(m for m in base.mismatches if m.page_type not in targets) + tuple(mismatches[:9]),
        {
            **{k: c for k, c in base.mismatch_counts.items() if k.partition(".")[0] not in targets},
            **counts,
        },
        tuple(p for p in base.problems if p.split(" ")[1].partition(".")[0] not in targets)
        + tuple(problems),
    )
    broken_map = {
        **result.broken,
        **{n: tuple(c.field for c in changes if c.page_type == n) for n in repaired},
    }
    stale = tuple(f"page type {n!r}: no failing snapshot could be paired" for n in repaired)
    notes = [x for x in notes if not x.startswith(stale)]
    rx = {n: re.compile(result.old.page_types[n].match) for n in repaired}
    verified = list(result.verified_pages) + [
        s.url for s in bundle.failing if any(r.search(s.url) for r in rx.values())
    ]
    return replace(
        result,
        verified_pages=tuple(dict.fromkeys(verified)),
        new=new_sf,
        changes=tuple(changes),
        verification=verification,
        matched={k: v for k, v in matched.items() if v},
        broken=broken_map,
        notes=tuple(dict.fromkeys(notes)),
        record_roots={
            **result.record_roots,
            **{
                n: (result.old.page_types[n].record_root, pt.record_root)
                for n, pt in repaired.items()
            },
        },
    )
