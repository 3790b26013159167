"""Getting the data out of the state database: records as of a time, events since a time.

``anchorpath records`` and ``anchorpath events`` read through here. Rows are streamed from
SQLite (one cursor, never the whole table in memory) and written as CSV, JSON Lines or one JSON
array. The database is opened read-only: an export never creates a state directory by typo,
never takes the site's lock, and can run while a run commits (WAL readers see the last commit).

Times are ISO 8601 (``2026-12-01``, ``2026-12-01T06:00``, ``2026-12-01T06:00:00+09:00``);
a time without an offset is UTC, a bare date means 00:00 UTC of that day.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, TextIO

from anchorpath._errors import ConfigError, StoreError
from anchorpath.runner.store.commit import record_key

__all__ = [
    "EXPORT_FORMATS",
    "ExportFormat",
    "iter_events",
    "iter_records",
    "parse_time",
    "record_columns",
    "rekeyed_count",
    "write_rows",
]

ExportFormat = Literal["csv", "jsonl", "json"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("csv", "jsonl", "json")
EVENT_COLUMNS = ("at", "run_id", "key", "kind", "fields")
_META = ("_key", "_valid_from", "_valid_to", "_run_id")


def parse_time(text: str, what: str = "time") -> str:
    """``text`` (ISO 8601 date or date-time) as the store writes times: UTC, ``...Z``."""
    raw = text.strip()
    try:
        if len(raw) == 10:
            when = dt.datetime.combine(dt.date.fromisoformat(raw), dt.time(), dt.UTC)
        else:
            when = dt.datetime.fromisoformat(raw.replace("Z", "+00:00").replace(" ", "T"))
    except ValueError as exc:
        raise ConfigError(
            f"{what} {text!r} is not an ISO 8601 date or time (e.g. 2026-12-01 or "
            "2026-12-01T06:00:00Z)"
        ) from exc
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _connect(db_path: Path) -> sqlite3.Connection:
    if not db_path.is_file():
        raise StoreError(f"{db_path}: no state database (has a run of this site finished?)")
    try:
        return sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True, timeout=30.0)
    except sqlite3.Error as exc:
        raise StoreError(f"{db_path}: cannot open the state database: {exc}") from exc


def _check_site(db: sqlite3.Connection, db_path: Path, site: str) -> None:
    row = db.execute("SELECT 1 FROM runs WHERE site = ? LIMIT 1", (site,)).fetchone()
    if row is None:
        sites = [r[0] for r in db.execute("SELECT DISTINCT site FROM runs ORDER BY site")]
        known = f" (sites with runs: {', '.join(sites)})" if sites else ""
        raise StoreError(f"{db_path}: no run of site {site!r}{known}")


@contextmanager
def _reading(db_path: Path, site: str) -> Iterator[sqlite3.Connection]:
    """The read-only database, checked to hold runs of ``site``; SQLite errors as StoreError."""
    db = _connect(db_path)
    try:
        _check_site(db, db_path, site)
        yield db
    except sqlite3.Error as exc:
        raise StoreError(f"{db_path}: query failed: {exc}") from exc
    finally:
        db.close()


def _check_retention(db: sqlite3.Connection, db_path: Path, site: str, as_of: str) -> None:
    """Refuse a time before the window the site's latest ``purge`` kept: the versions valid
    then are gone, and an answer would look complete while it is not."""
    try:
        row = db.execute(
            "SELECT MAX(cutoff) FROM deletions WHERE site = ? AND kind = 'purge'", (site,)
        ).fetchone()
    except sqlite3.OperationalError:  # a database from before purge existed
        return
    cutoff = row[0] if row else None
    if cutoff and as_of < cutoff:
        raise StoreError(
            f"{db_path}: {as_of} is outside retention: site {site!r} keeps record versions "
            f"from {cutoff} on (policy.retention_days; older ones were purged)"
        )


def _records_sql(as_of: str | None) -> tuple[str, tuple[Any, ...]]:
    if as_of is None:
        return "is_current = 1", ()
    return "valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)", (as_of, as_of)


def record_columns(db_path: Path, site: str, as_of: str | None = None) -> list[str]:
    """Every field name of the selected records (first pass of a CSV export), sorted."""
    where, args = _records_sql(as_of)
    with _reading(db_path, site) as db:
        if as_of is not None:
            _check_retention(db, db_path, site, as_of)
        rows = db.execute(
            "SELECT DISTINCT j.key FROM records, json_each(records.values_json) AS j "
            f"WHERE site = ? AND {where} ORDER BY j.key",
            (site, *args),
        )
        return [r[0] for r in rows]


def iter_records(db_path: Path, site: str, as_of: str | None = None) -> Iterator[dict[str, Any]]:
    """The records of ``site`` as they stood at ``as_of`` (default: now), ordered by key.

    Each row is ``{"_key", "_valid_from", "_valid_to", "_run_id", <fields>...}``.
    """
    where, args = _records_sql(as_of)
    with _reading(db_path, site) as db:
        if as_of is not None:
            _check_retention(db, db_path, site, as_of)
        cursor = db.execute(
            "SELECT key, valid_from, valid_to, run_id, values_json FROM records "
            f"WHERE site = ? AND {where} ORDER BY key",
            (site, *args),
        )
        for key, valid_from, valid_to, run_id, values in cursor:
            row: dict[str, Any] = dict(zip(_META, (key, valid_from, valid_to, run_id), strict=True))
            row.update(json.loads(values))
            yield row


def rekeyed_count(db_path: Path, site: str, key_fields: Sequence[str]) -> int:
    """How many current records of ``site`` are stored under another key than ``key_fields``
    make of their values (the selector file's key changed and no complete run of the new
    version has retired them yet, see :mod:`anchorpath.runner.store.commit`)."""
    with _reading(db_path, site) as db:
        rows = db.execute(
            "SELECT key, values_json FROM records WHERE site = ? AND is_current = 1", (site,)
        )
        return sum(1 for key, values in rows if record_key(json.loads(values), key_fields) != key)


def iter_events(db_path: Path, site: str, since: str | None = None) -> Iterator[dict[str, Any]]:
    """The events of ``site`` recorded at or after ``since`` (default: all), oldest first.

    Each row is ``{"at", "run_id", "key", "kind", "fields"}``; ``fields`` maps a changed field
    to ``{"old": ..., "new": ...}`` (a new record's every field with a value, ``old`` null).
    """
    sql = "SELECT at, run_id, key, kind, fields_json FROM events WHERE site = ?"
    args: tuple[Any, ...] = (site,)
    if since is not None:
        sql += " AND at >= ?"
        args += (since,)
    with _reading(db_path, site) as db:
        for at, run_id, key, kind, fields in db.execute(sql + " ORDER BY id", args):
            yield dict(zip(EVENT_COLUMNS, (at, run_id, key, kind, json.loads(fields)), strict=True))


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        return "; ".join(str(v) for v in value)
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def write_rows(
    rows: Iterator[dict[str, Any]], out: TextIO, fmt: ExportFormat, columns: list[str]
) -> int:
    """Stream ``rows`` to ``out`` as ``fmt``; returns how many were written.

    CSV needs its ``columns`` up front (lists are joined with ``; ``, objects are JSON).
    """
    n = 0
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_cell(row.get(c)) for c in columns])
            n += 1
    elif fmt == "jsonl":
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    else:
        out.write("[")
        for row in rows:
            out.write(("," if n else "") + "\n" + json.dumps(row, ensure_ascii=False))
            n += 1
        out.write("\n]\n" if n else "]\n")
    return n
