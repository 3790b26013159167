"""The run state: one SQLite database (WAL) per state directory.

Tables:

* ``records`` – SCD Type 2: one row per *version* of a record. A change closes the current row
  (``valid_to``, ``is_current = 0``) and inserts a new one; a withdrawal only closes it.
* ``events`` – append-only: ``new`` / ``changed`` (with old and new value per changed field) /
  ``withdrawn``.
* ``runs`` – every run, accepted or not, with its verdict and counts; accepted runs keep their
  field statistics (``stats_json``), the drift gate's rolling baseline. A ``drift`` run that a
  person accepted later (``anchorpath accept``) becomes ``accepted``, with ``accepted_by`` and
  ``accepted_at``.
* ``pages`` – every page of an accepted run: status, validators, content hash.
* ``policy_runs``, ``stops``, ``deletions`` – governance: what each run saw of robots.txt and
  the terms page, stops and who lifted them, and the append-only audit of ``forget`` and
  ``purge`` (keyed hashes of keys, never a key). Read and written by
  :mod:`~anchorpath.runner.store.governance`.

Everything a run changes is written by :meth:`Store.commit_run` in **one transaction**: a run
killed at any point leaves the database as it was. Change detection (:func:`compute_events`) is
a pure function; long free-text fields count as changed only when their 64-bit SimHash differs
in more than 3 bits (see ``simhash.py``). A record whose only difference is such a near
duplicate keeps its stored version (no new row, no event): the comparison stays anchored on the
last recorded text, so edits that accumulate past the threshold are still reported.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args
from urllib.parse import urlsplit

from anchorpath._errors import StoreError
from anchorpath.runner.store.simhash import is_long_text, near_duplicate
from anchorpath.runner.verdict import Verdict, parse_verdict

__all__ = [
    "DB_NAME",
    "EVENT_KINDS",
    "Event",
    "EventKind",
    "PageRow",
    "RunRow",
    "Source",
    "Store",
    "StoredRecord",
    "canonical_json",
    "compute_events",
    "content_hash",
    "locator",
    "parse_event_kind",
    "unseen_keys",
]

DB_NAME = "anchorpath.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    site TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    verdict TEXT NOT NULL,
    selector_version INTEGER,
    warc_path TEXT,
    run_dir TEXT,
    complete INTEGER NOT NULL DEFAULT 0,
    pages INTEGER NOT NULL DEFAULT 0,
    records INTEGER NOT NULL DEFAULT 0,
    new INTEGER NOT NULL DEFAULT 0,
    changed INTEGER NOT NULL DEFAULT 0,
    withdrawn INTEGER NOT NULL DEFAULT 0,
    stats_json TEXT,
    error TEXT,
    accepted_by TEXT,
    accepted_at TEXT
);
CREATE INDEX IF NOT EXISTS runs_site ON runs(site, started_at);
CREATE TABLE IF NOT EXISTS records (
    id INTEGER PRIMARY KEY,
    site TEXT NOT NULL,
    key TEXT NOT NULL,
    valid_from TEXT NOT NULL,
    valid_to TEXT,
    is_current INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    values_json TEXT NOT NULL,
    selector_version INTEGER,
    run_id TEXT NOT NULL,
    source_url TEXT,
    listed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS records_current ON records(site, is_current, key);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL,
    site TEXT NOT NULL,
    key TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('new', 'changed', 'withdrawn')),
    fields_json TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_run ON events(run_id);
CREATE TABLE IF NOT EXISTS pages (
    run_id TEXT NOT NULL,
    url TEXT NOT NULL,
    final_url TEXT,
    status INTEGER,
    etag TEXT,
    last_modified TEXT,
    content_hash TEXT,
    page_type TEXT,
    records INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, url)
);
CREATE TABLE IF NOT EXISTS policy_runs (
    run_id TEXT PRIMARY KEY,
    site TEXT NOT NULL,
    at TEXT NOT NULL,
    seen_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS policy_runs_site ON policy_runs(site, at);
CREATE TABLE IF NOT EXISTS stops (
    id INTEGER PRIMARY KEY,
    site TEXT NOT NULL,
    run_id TEXT,
    at TEXT NOT NULL,
    cause TEXT NOT NULL,
    reason TEXT NOT NULL,
    diff TEXT,
    resumed_by TEXT,
    resumed_at TEXT,
    resume_reason TEXT
);
CREATE INDEX IF NOT EXISTS stops_site ON stops(site, id);
CREATE TABLE IF NOT EXISTS deletions (
    id INTEGER PRIMARY KEY,
    site TEXT NOT NULL,
    at TEXT NOT NULL,
    by TEXT NOT NULL,
    reason TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('forget', 'purge')),
    key_hashes TEXT NOT NULL,
    counts_json TEXT NOT NULL,
    files_json TEXT NOT NULL,
    cutoff TEXT
);
CREATE TRIGGER IF NOT EXISTS deletions_append_only_u BEFORE UPDATE ON deletions
BEGIN SELECT RAISE(ABORT, 'deletions are append-only'); END;
CREATE TRIGGER IF NOT EXISTS deletions_append_only_d BEFORE DELETE ON deletions
BEGIN SELECT RAISE(ABORT, 'deletions are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_u BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_d BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
"""


def canonical_json(value: Any) -> str:
    """Stable JSON text (sorted keys, no ASCII escaping): equal values give equal bytes."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def content_hash(values: Mapping[str, Any]) -> str:
    """sha256 of a record's canonical JSON."""
    return _json_and_hash(values)[1]


def _json_and_hash(values: Mapping[str, Any]) -> tuple[str, str]:
    """A record's canonical JSON and its :func:`content_hash` (the JSON written once: a
    commit stores both for every new or changed record)."""
    text = canonical_json(dict(values))
    return text, hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class StoredRecord:
    """The current version of one record, and where it was last seen: ``source_url`` (its
    page) and ``listed`` (found on a listing, or on a page a listing linked to)."""

    key: str
    values: Mapping[str, Any]
    content_hash: str
    row_id: int = 0
    source_url: str | None = None
    listed: bool = False


@dataclass(frozen=True)
class Source:
    """Where a run saw a record: the page's URL and whether a listing led to it."""

    url: str | None
    listed: bool


def locator(url: str) -> str:
    """``url`` without scheme and host: the same page on the live site, a local copy or a
    demo server on another port (``--base-url``) compares equal."""
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


#: What an event says of a record: it appeared, one of its fields changed, it is gone.
EventKind = Literal["new", "changed", "withdrawn"]
EVENT_KINDS: tuple[EventKind, ...] = get_args(EventKind)


def parse_event_kind(text: object, where: str) -> EventKind:
    """``text`` as an :data:`EventKind`, or a one-line :class:`StoreError` naming ``where``."""
    for kind in EVENT_KINDS:
        if text == kind:
            return kind
    raise StoreError(f"{where}: unknown event kind {text!r} (expected new, changed or withdrawn)")


@dataclass(frozen=True)
class Event:
    """One change: the one event type of the store, the run's report and replay. ``fields``
    maps a changed field to ``(old, new)``: for ``new``, every field with a value (``old``
    None), so a consumer of the events needs no second look at the records; empty for
    ``withdrawn``. :meth:`to_dict` is its one JSON form (database, ``report.json``, exports)."""

    key: str
    kind: EventKind
    fields: Mapping[str, tuple[Any, Any]] = field(default_factory=dict)

    def fields_dict(self) -> dict[str, dict[str, Any]]:
        """``{field: {"old": ..., "new": ...}}`` (the database's ``fields_json``)."""
        return {k: {"old": o, "new": n} for k, (o, n) in self.fields.items()}

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind, "fields": self.fields_dict()}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], where: str = "event") -> Event:
        """An event read back from :meth:`to_dict`'s JSON."""
        fields = d.get("fields") or {}
        return cls(
            str(d.get("key")),
            parse_event_kind(d.get("kind"), where),
            {
                str(n): (v.get("old"), v.get("new"))
                for n, v in fields.items()
                if isinstance(v, Mapping)
            },
        )


_KIND_ORDER = {"new": 0, "changed": 1, "withdrawn": 2}


def changed_fields(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Fields whose value really changed (long free text: SimHash distance > 3)."""
    out: dict[str, tuple[Any, Any]] = {}
    for name in sorted(set(old) | set(new)):
        a, b = old.get(name), new.get(name)
        if a == b:
            continue
        if is_long_text(a, b) and near_duplicate(str(a), str(b)):
            continue
        out[name] = (a, b)
    return out


def compute_events(
    current: Mapping[str, StoredRecord],
    seen: Mapping[str, Mapping[str, Any]],
    *,
    complete: bool,
    gone: Iterable[str] = (),
    protected: Iterable[str] = (),
    retire: Iterable[str] = (),
) -> list[Event]:
    """Events between the stored current records and this run's records (by key).

    A stored record the run did not see is ``withdrawn`` only on evidence: its page answered
    404/410 in this run (``gone``: URLs, compared by :func:`locator`), or it was found through a
    listing and this crawl was ``complete`` (so the listings no longer list it). Any other
    record the run did not see is merely unseen (:func:`unseen_keys`): a partial, blocked,
    drifted or ``--url`` crawl, or a crawl that never reaches it, says nothing about the site.
    ``protected`` keys (an invalid or ambiguous row this run) are never withdrawn; ``retire``
    keys (stored under an earlier key, see :func:`~.commit.commit_records`) are, when the run
    did not see them. Sorted by kind, then key, so the database does not depend on crawl
    order.
    """
    events: list[Event] = []
    for key in sorted(seen):
        values = seen[key]
        old = current.get(key)
        if old is None:
            events.append(Event(key, "new", changed_fields({}, values)))
        elif old.values != values and old.content_hash != content_hash(values):
            # (equal values: no field differs, so no event; comparing them is much cheaper
            # than hashing)
            diff = changed_fields(old.values, values)
            if diff:
                events.append(Event(key, "changed", diff))
    gone_at = {locator(u) for u in gone}
    keep = set(protected)
    old_keys = set(retire)
    for key in sorted(set(current) - set(seen) - keep):
        old = current[key]
        page_gone = old.source_url is not None and locator(old.source_url) in gone_at
        if page_gone or (complete and old.listed) or key in old_keys:
            events.append(Event(key, "withdrawn"))
    events.sort(key=lambda e: (_KIND_ORDER[e.kind], e.key))
    return events


def unseen_keys(
    current: Mapping[str, StoredRecord],
    seen: Mapping[str, Any],
    events: Sequence[Event],
    protected: Iterable[str] = (),
) -> list[str]:
    """Stored records this run neither saw nor withdrew (no evidence either way)."""
    withdrawn = {e.key for e in events if e.kind == "withdrawn"}
    return sorted(set(current) - set(seen) - withdrawn - set(protected))


@dataclass(frozen=True)
class RunRow:
    """One line of ``runs``."""

    id: str
    site: str
    started_at: str
    finished_at: str | None
    verdict: Verdict
    selector_version: int | None = None
    warc_path: str | None = None
    run_dir: str | None = None
    complete: bool = False
    pages: int = 0
    records: int = 0
    new: int = 0
    changed: int = 0
    withdrawn: int = 0
    stats: Any = None
    error: str | None = None
    accepted_by: str | None = None
    accepted_at: str | None = None


@dataclass(frozen=True)
class PageRow:
    """One line of ``pages``."""

    url: str
    final_url: str | None
    status: int | None
    etag: str | None
    last_modified: str | None
    content_hash: str | None
    page_type: str | None
    records: int = 0


class Store:
    """The SQLite state database of one state directory."""

    def __init__(self, path: str | Path, *, scratch: bool = False) -> None:
        """``scratch``: a database one process writes and then leaves for review (a replay's):
        no write-ahead log and no syncing to disk (a crash loses it, as it would lose the
        replay), so commits write each page once and closing it has nothing to checkpoint."""
        self.path = Path(path)
        self._outer = False  # inside transaction(): commit_run uses savepoints
        #: the parsed values of the records the last :meth:`current` read, by their JSON text
        #: (read again, as every commit of a site does, the same text needs no parsing)
        self._parsed: dict[str, Any] = {}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
            self._db.execute(f"PRAGMA journal_mode={'MEMORY' if scratch else 'WAL'}")
            self._db.execute(f"PRAGMA synchronous={'OFF' if scratch else 'NORMAL'}")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)
            self._migrate()
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open the state database: {exc}") from exc

    def _migrate(self) -> None:
        # Databases made before runs could be accepted lack the two columns.
        have = {r[1] for r in self._db.execute("PRAGMA table_info(runs)")}
        for column in ("accepted_by", "accepted_at"):
            if column not in have:
                self._db.execute(f"ALTER TABLE runs ADD COLUMN {column} TEXT")
        # ... and before withdrawals needed evidence: where each record was last seen. Old
        # rows get "not listed": they are withdrawn only when their page is gone or once a
        # run has seen them again.
        # ... and before purge recorded the start of the retention window.
        have = {r[1] for r in self._db.execute("PRAGMA table_info(deletions)")}
        if "cutoff" not in have:
            self._db.execute("ALTER TABLE deletions ADD COLUMN cutoff TEXT")
        have = {r[1] for r in self._db.execute("PRAGMA table_info(records)")}
        if "source_url" not in have:
            self._db.execute("ALTER TABLE records ADD COLUMN source_url TEXT")
        if "listed" not in have:
            self._db.execute("ALTER TABLE records ADD COLUMN listed INTEGER NOT NULL DEFAULT 0")

    @classmethod
    def in_state_dir(cls, state_dir: str | Path) -> Store:
        """The store at ``<state_dir>/anchorpath.sqlite``."""
        return cls(Path(state_dir) / DB_NAME)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reads ------------------------------------------------------------------------------

    def _query(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            return list(self._db.execute(sql, args))
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: query failed: {exc}") from exc

    def current(self, site: str) -> dict[str, StoredRecord]:
        """The current version of every record of ``site``, by key."""
        rows = self._query(
            "SELECT id, key, values_json, content_hash, source_url, listed FROM records "
            "WHERE site = ? AND is_current = 1",
            (site,),
        )
        parsed, self._parsed = self._parsed, {}
        out: dict[str, StoredRecord] = {}
        for i, k, v, h, src, listed in rows:
            values = parsed.get(v)
            if values is None:
                values = json.loads(v)
            self._parsed[v] = values
            out[k] = StoredRecord(k, values, h, i, src, bool(listed))
        return out

    def runs(
        self,
        site: str,
        *,
        verdicts: Iterable[Verdict] | None = None,
        limit: int | None = None,
        before: str | None = None,
        stats: bool = True,
    ) -> list[RunRow]:
        """Runs of ``site``, newest first (optionally only some verdicts, only those started
        before ``before``); ``stats=False`` leaves their statistics out (``None``: reading
        them is most of the cost, and the caller does not need them)."""
        sql = (
            "SELECT id, site, started_at, finished_at, verdict, selector_version, warc_path, "
            "run_dir, complete, pages, records, new, changed, withdrawn, "
            + ("stats_json" if stats else "NULL")
            + ", error, accepted_by, accepted_at FROM runs WHERE site = ?"
        )
        args: list[Any] = [site]
        if before is not None:
            sql += " AND started_at < ?"
            args.append(before)
        if verdicts is not None:
            wanted = list(verdicts)
            sql += f" AND verdict IN ({','.join('?' * len(wanted))})"
            args += wanted
        sql += " ORDER BY started_at DESC, rowid DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        out = []
        for r in self._query(sql, args):
            out.append(
                RunRow(
                    r[0],
                    r[1],
                    r[2],
                    r[3],
                    parse_verdict(r[4], f"{self.path}: run {r[0]}"),
                    r[5],
                    r[6],
                    r[7],
                    bool(r[8]),
                    r[9],
                    r[10],
                    r[11],
                    r[12],
                    r[13],
                    json.loads(r[14]) if r[14] else None,
                    r[15],
                    r[16],
                    r[17],
                )
            )
        return out

    def page_urls(self, run_id: str) -> list[tuple[str, str]]:
        """The pages a run read, in the order it read them: ``(url, final_url)`` (a redirected
        page's body is its target's)."""
        rows = self._query(
            "SELECT url, final_url FROM pages WHERE run_id = ? ORDER BY rowid", (run_id,)
        )
        return [(url, final or url) for url, final in rows]

    def events(self, run_id: str) -> list[Event]:
        """The events a run committed, in commit order."""
        rows = self._query(
            "SELECT key, kind, fields_json FROM events WHERE run_id = ? ORDER BY id", (run_id,)
        )
        where = f"{self.path}: events of run {run_id}"
        return [
            Event.from_dict({"key": k, "kind": kind, "fields": json.loads(f)}, where)
            for k, kind, f in rows
        ]

    # -- writes -----------------------------------------------------------------------------

    def commit_run(
        self,
        run: RunRow,
        *,
        seen: Mapping[str, Mapping[str, Any]] | None = None,
        events: Sequence[Event] = (),
        pages: Sequence[PageRow] = (),
        sources: Mapping[str, Source] | None = None,
    ) -> None:
        """Write a run in one transaction.

        ``sources`` (by key) records where this run saw each record, for later withdrawals.

        An accepted run passes ``seen`` (this run's records by key) and its ``events``; a
        quarantined run (drift, blocked, error) passes neither and only gets its ``runs`` line.
        A drift run accepted later is written again with its records (its ``runs`` line is
        replaced, in the same transaction).
        """
        at = run.finished_at or run.started_at
        seen = seen or {}
        try:
            self._begin()
            current = self.current(run.site) if events else {}
            for ev in events:
                old = current.get(ev.key)
                if ev.kind in ("changed", "withdrawn") and old is not None:
                    self._db.execute(
                        "UPDATE records SET valid_to = ?, is_current = 0 WHERE id = ?",
                        (run.started_at, old.row_id),
                    )
                if ev.kind in ("new", "changed"):
                    text, digest = _json_and_hash(seen[ev.key])
                    self._db.execute(
                        "INSERT INTO records (site, key, valid_from, valid_to, is_current, "
                        "content_hash, values_json, selector_version, run_id) "
                        "VALUES (?, ?, ?, NULL, 1, ?, ?, ?, ?)",
                        (
                            run.site,
                            ev.key,
                            run.started_at,
                            digest,
                            text,
                            run.selector_version,
                            run.id,
                        ),
                    )
                self._db.execute(
                    "INSERT INTO events (run_id, site, key, kind, fields_json, at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (run.id, run.site, ev.key, ev.kind, canonical_json(ev.fields_dict()), at),
                )
            if sources:
                self._db.executemany(
                    "UPDATE records SET source_url = ?, listed = ? "
                    "WHERE site = ? AND key = ? AND is_current = 1",
                    [(src.url, int(src.listed), run.site, k) for k, src in sources.items()],
                )
            self._db.executemany(
                "INSERT OR REPLACE INTO pages (run_id, url, final_url, status, etag, "
                "last_modified, content_hash, page_type, records) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        run.id,
                        p.url,
                        p.final_url,
                        p.status,
                        p.etag,
                        p.last_modified,
                        p.content_hash,
                        p.page_type,
                        p.records,
                    )
                    for p in pages
                ],
            )
            self._db.execute(
                "INSERT OR REPLACE INTO runs (id, site, started_at, finished_at, verdict, "
                "selector_version, warc_path, run_dir, complete, pages, records, new, changed, "
                "withdrawn, stats_json, error, accepted_by, accepted_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run.id,
                    run.site,
                    run.started_at,
                    run.finished_at,
                    run.verdict,
                    run.selector_version,
                    run.warc_path,
                    run.run_dir,
                    int(run.complete),
                    run.pages,
                    run.records,
                    run.new,
                    run.changed,
                    run.withdrawn,
                    None if run.stats is None else canonical_json(run.stats),
                    run.error,
                    run.accepted_by,
                    run.accepted_at,
                ),
            )
            self._end()
        except (sqlite3.Error, KeyError) as exc:
            self._abort()
            raise StoreError(f"{self.path}: cannot commit run {run.id}: {exc}") from exc

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of one read (governance tables, see ``governance.py``)."""
        return self._query(sql, args)

    def write(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> None:
        """Execute ``statements`` in one transaction (a savepoint inside :meth:`transaction`):
        all or nothing."""
        try:
            self._begin()
            for sql, args in statements:
                self._db.execute(sql, args)
            self._end()
        except sqlite3.Error as exc:
            self._abort()
            raise StoreError(f"{self.path}: cannot write: {exc}") from exc

    def compact(self) -> None:
        """Rewrite the database file so that deleted rows leave no bytes behind (``forget``,
        ``purge``): secure delete, VACUUM, and the write-ahead log truncated."""
        try:
            self._db.execute("PRAGMA secure_delete=ON")
            self._db.execute("VACUUM")
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot compact the database: {exc}") from exc

    # -- transactions -----------------------------------------------------------------------

    def _begin(self) -> None:
        if self._outer:
            self._db.execute("SAVEPOINT commit_run")
        else:
            self._db.execute("BEGIN IMMEDIATE")

    def _end(self) -> None:
        self._db.execute("RELEASE commit_run" if self._outer else "COMMIT")

    def _abort(self) -> None:
        if not self._db.in_transaction:
            return
        if self._outer:
            self._db.execute("ROLLBACK TO commit_run")
            self._db.execute("RELEASE commit_run")
        else:
            self._db.execute("ROLLBACK")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Make every :meth:`commit_run` inside the block one transaction: all or nothing
        (``replay --into store`` backfills several runs at once)."""
        if self._outer:
            raise StoreError(f"{self.path}: nested transaction")
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot start a transaction: {exc}") from exc
        self._outer = True
        try:
            yield
        except BaseException:
            self._outer = False
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise
        self._outer = False
        try:
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._db.execute("ROLLBACK")
            raise StoreError(f"{self.path}: cannot commit: {exc}") from exc

    # -- history ----------------------------------------------------------------------------

    def records_as_of(self, site: str, at: str) -> dict[str, StoredRecord]:
        """The records of ``site`` as they were just before a run that started at ``at``
        (SCD Type 2: versions valid then), by key."""
        rows = self._query(
            "SELECT id, key, values_json, content_hash, source_url, listed FROM records "
            "WHERE site = ? AND valid_from < ? AND (valid_to IS NULL OR valid_to >= ?) ORDER BY id",
            (site, at, at),
        )
        return {
            k: StoredRecord(k, json.loads(v), h, i, src, bool(listed))
            for i, k, v, h, src, listed in rows
        }

    def seed_records(
        self, site: str, records: Mapping[str, StoredRecord], *, run_id: str, at: str
    ) -> None:
        """Write ``records`` as the current records of ``site`` with no event (a scratch
        database starting from a point in another store's history)."""
        try:
            self._begin()
            for key, rec in sorted(records.items()):
                text, digest = _json_and_hash(rec.values)
                self._db.execute(
                    "INSERT INTO records (site, key, valid_from, valid_to, is_current, "
                    "content_hash, values_json, selector_version, run_id, source_url, listed) "
                    "VALUES (?, ?, ?, NULL, 1, ?, ?, NULL, ?, ?, ?)",
                    (
                        site,
                        key,
                        at,
                        digest,
                        text,
                        run_id,
                        rec.source_url,
                        int(rec.listed),
                    ),
                )
            self._end()
        except sqlite3.Error as exc:
            self._abort()
            raise StoreError(f"{self.path}: cannot seed records: {exc}") from exc
