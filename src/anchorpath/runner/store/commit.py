"""The commit step: how a run's extracted records become store rows and events.

An ``ok`` run commits at once (``pipeline.py``); a ``drift`` run keeps its :class:`CommitPlan`
in its quarantine until a person accepts it (``accept.py``), which then commits exactly as the
run would have.

Records of page types with ``emit: true`` go to the store, identified by the selector file's
``key`` fields. When several emitting page types yield a record with the same key (a listing
row and its detail page), they are merged field by field: a non-empty value beats an empty one,
and on conflict the page type without a ``record_root`` (one record per page: the detail page,
the fuller view) wins over a listing row. Two *different* records of one page type with one key
(two books titled "Game Over" under a ``title`` key) are never merged: the key is reported as a
duplicate with both pages and not stored this run. Records that break their schema are not
stored; their keys still count as seen, so a bad row never turns into a ``withdrawn`` event. On
an incomplete crawl, fields that came back empty keep their stored values rather than being
recorded as deleted. A record is withdrawn only on evidence (``database.compute_events``).

A key change is a migration. After the selector file's ``key`` changed (re-authored with
``--key link`` instead of ``title``), the records stored under the old key are still current:
:func:`rekeyed` finds them (their key is not what the new key fields make of their values).
They stay current, and are counted, while runs of the new version are incomplete; the first
complete run retires them all (``withdrawn``), in its one transaction, beside the ``new``
records under the new key. ``anchorpath records`` warns until then.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from anchorpath.runner.model import PageEntry, RecordEntry
from anchorpath.runner.store.database import (
    Event,
    PageRow,
    RunRow,
    Source,
    Store,
    StoredRecord,
    canonical_json,
    compute_events,
    unseen_keys,
)
from anchorpath.runner.store.governance import forgotten, key_hash

__all__ = [
    "ACCEPT_PLAN",
    "CommitOutcome",
    "CommitPlan",
    "Merged",
    "commit_records",
    "merge_records",
    "page_rows",
    "record_key",
    "rekeyed",
]

#: File in a drift run's ``quarantine/`` holding its :class:`CommitPlan`.
ACCEPT_PLAN = "accept.json"


@dataclass(frozen=True)
class CommitPlan:
    """How a run's extracted records become store rows: what an ok run commits at once and a
    drift run keeps in its quarantine until a person accepts it.

    ``bad`` are the indices of the records that broke their schema; ``listing_types`` the
    page types with a ``record_root`` (merged first, so detail pages override them);
    ``crawl_complete`` whether the crawl saw the whole site (no cap, no failed page, no
    ``--url`` selection); ``stats`` the run's field statistics (the drift gate's baseline);
    ``gone`` the pages that answered 404/410 (evidence that their records are withdrawn).
    """

    key_fields: list[str]
    emit: list[str]
    listing_types: list[str]
    bad: list[int]
    crawl_complete: bool
    stats: dict[str, Any] | None
    gone: list[str] = dataclasses.field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CommitPlan:
        return cls(
            key_fields=[str(k) for k in d["key_fields"]],
            emit=[str(k) for k in d["emit"]],
            listing_types=[str(k) for k in d["listing_types"]],
            bad=[int(i) for i in d["bad"]],
            crawl_complete=bool(d["crawl_complete"]),
            stats=d.get("stats"),
            gone=[str(u) for u in d.get("gone", [])],
        )


def record_key(values: Mapping[str, Any], key_fields: Sequence[str]) -> str | None:
    """The natural key of a record: the key field's value (several: canonical JSON list)."""
    parts = [values.get(k) for k in key_fields]
    if any(p is None or p == "" or p == [] for p in parts):
        return None
    if len(parts) == 1:
        return str(parts[0]) if not isinstance(parts[0], str) else parts[0]
    return canonical_json(parts)


def rekeyed(current: Mapping[str, StoredRecord], key_fields: Sequence[str]) -> list[str]:
    """The stored records whose key is not what ``key_fields`` make of their values: stored
    under an earlier version's key (see the module docstring)."""
    return sorted(k for k, r in current.items() if record_key(r.values, key_fields) != k)


@dataclass(frozen=True)
class Merged:
    """A run's emitted records merged by key.

    ``seen``: valid records by key; ``invalid``: keys with a row that broke its schema;
    ``unidentified``: records without a key; ``duplicates``: keys that two different records
    of one page type carried in this run (page URLs of each), which are not stored this run;
    ``sources``: where each seen key was found.
    """

    seen: dict[str, dict[str, Any]]
    invalid: set[str]
    unidentified: int
    duplicates: dict[str, list[str]]
    sources: dict[str, Source]


def merge_records(records: Sequence[RecordEntry], plan: CommitPlan) -> Merged:
    """Valid emitted records merged by key (see the module docstring).

    A listing row and its detail page carrying one key are one record, merged field by field.
    Two records of the same page type carrying one key are merged only when identical (a row
    repeated on two listing pages); otherwise the key is ambiguous this run: reported with the
    pages it came from, not stored, not withdrawn.
    """
    bad = set(plan.bad)
    listing = set(plan.listing_types)
    unidentified = 0
    # List rows (record_root) first, so that detail pages override them; stable otherwise.
    ordered = sorted(
        (i for i, r in enumerate(records) if r.page_type in plan.emit),
        key=lambda i: 0 if records[i].page_type in listing else 1,
    )
    seen: dict[str, dict[str, Any]] = {}
    invalid_keys: set[str] = set()
    first: dict[tuple[str, str], tuple[str, str]] = {}  # (key, page type) -> (values, url)
    duplicates: dict[str, list[str]] = {}
    sources: dict[str, Source] = {}
    for i in ordered:
        r = records[i]
        key = record_key(r.values, plan.key_fields)
        if key is None:
            unidentified += 1
            continue
        if i in bad:
            invalid_keys.add(key)
            continue
        url = r.url
        canon = canonical_json(r.values)
        earlier = first.setdefault((key, r.page_type), (canon, url))
        if earlier[0] != canon:
            urls = duplicates.setdefault(key, [earlier[1]])
            urls.append(url)
            continue
        if earlier[1] != url and earlier[0] == canon and key in sources:
            continue  # the same record again (a row repeated on two listing pages)
        merged = seen.setdefault(key, {})
        for name, value in r.values.items():
            if value not in (None, "", []) or name not in merged:
                merged[name] = value
        is_listing = r.page_type in listing
        listed = is_listing or r.via in ("follow", "next")
        old = sources.get(key)
        sources[key] = Source(
            url if not is_listing or old is None else old.url,
            listed or (old is not None and old.listed),
        )
    # A key with one bad source (say, its detail page broke) is not trusted this run; nor is
    # one that two different records carried.
    for key in invalid_keys | set(duplicates):
        seen.pop(key, None)
        sources.pop(key, None)
    return Merged(dict(sorted(seen.items())), invalid_keys, unidentified, duplicates, sources)


@dataclass(frozen=True)
class CommitOutcome:
    """What a commit did: events, whether withdrawals could be inferred from the crawl as a
    whole, the stored keys it left unseen, the ambiguous keys it did not store, the run's row
    as committed, and the stored keys of an earlier key (:func:`rekeyed`: retired when
    ``complete``, else still current)."""

    events: list[Event]
    complete: bool
    unseen: list[str]
    duplicates: dict[str, list[str]]
    row: RunRow
    rekeyed: list[str] = dataclasses.field(default_factory=list)


def commit_records(
    store: Store,
    run_row: RunRow,
    records: Sequence[RecordEntry],
    plan: CommitPlan,
    pages: Sequence[PageRow],
    *,
    merged: Merged | None = None,
) -> CommitOutcome:
    """Compute a run's events against the store's current records and commit them, the
    records, the pages and ``run_row`` (counts and statistics filled in) in one transaction.

    Withdrawals need evidence (``compute_events``): a page gone (404/410) in this run, or a
    listed record missing from a complete crawl whose every emitted record was identifiable.
    The caller holds the site lock. ``merged``: :func:`merge_records` of ``records`` and
    ``plan``, when the caller computed it already (elsewhere: a replay's executor).
    """
    m = merged if merged is not None else merge_records(records, plan)
    seen = m.seen
    gone = forgotten(store, run_row.site)
    if gone:  # a key `anchorpath forget` removed is never stored again (run or replay)
        seen = {k: v for k, v in seen.items() if key_hash(store, run_row.site, k) not in gone}
    complete = plan.crawl_complete and not m.unidentified
    current = store.current(run_row.site)
    if not complete:
        seen = _keep_stored_fields(seen, current)
    protected = m.invalid | set(m.duplicates)
    old_keys = rekeyed(current, plan.key_fields)
    # A key with an invalid or ambiguous row keeps its stored version: neither changed nor
    # withdrawn. Records stored under an earlier key are retired by a complete run.
    events = compute_events(
        current,
        {**_stored_values(protected, current), **seen},
        complete=complete,
        gone=plan.gone,
        protected=protected,
        retire=old_keys if complete else (),
    )
    unseen = unseen_keys(current, seen, events, protected)
    kinds = [e.kind for e in events]
    stats_store = dict(plan.stats or {})
    stats_store["run_id"] = run_row.id
    row = replace(
        run_row,
        complete=complete,
        new=kinds.count("new"),
        changed=kinds.count("changed"),
        withdrawn=kinds.count("withdrawn"),
        stats=stats_store,
    )
    store.commit_run(row, seen=seen, events=events, pages=pages, sources=m.sources)
    return CommitOutcome(events, complete, unseen, m.duplicates, row, old_keys)


def page_rows(pages: Sequence[PageEntry]) -> list[PageRow]:
    """Store rows for the pages a run's checkpoint recorded."""
    return [
        PageRow(
            p.url,
            p.final_url,
            p.status,
            p.etag,
            p.last_modified,
            p.sha256,
            p.page_type,
            p.records,
        )
        for p in pages
    ]


def _keep_stored_fields(
    seen: dict[str, dict[str, Any]], current: Mapping[str, StoredRecord]
) -> dict[str, dict[str, Any]]:
    """On an incomplete run, an empty field is a missing page, not a deleted value."""
    out = {}
    for key, values in seen.items():
        old = current.get(key)
        if old is None:
            out[key] = values
            continue
        merged = dict(values)
        for name, value in old.values.items():
            if merged.get(name) in (None, "", []):
                merged[name] = value
        out[key] = merged
    return out


def _stored_values(
    keys: set[str], current: Mapping[str, StoredRecord]
) -> dict[str, dict[str, Any]]:
    return {k: dict(current[k].values) for k in keys if k in current}
