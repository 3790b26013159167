"""The governance tables of the state database: each run's policy observations
(``policy_runs``), the sites' stops and who lifted them (``stops``), and the append-only
audit of deletions (``deletions``). Plain rows in, typed rows out; what they mean is decided
in :mod:`anchorpath.runner.policy`."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anchorpath._errors import StoreError
from anchorpath.runner.store.database import Store

__all__ = [
    "KEY_FILE",
    "DeletionRow",
    "StopRow",
    "active_stop",
    "add_deletion",
    "deletions",
    "forgotten",
    "key_hash",
    "lift_stop",
    "policy_history",
    "record_policy",
    "retention_start",
]


@dataclass(frozen=True)
class StopRow:
    """One stop of a site: when, by which run, why, and who lifted it (if anyone did)."""

    id: int
    site: str
    run_id: str | None
    at: str
    cause: str
    reason: str
    diff: str | None
    resumed_by: str | None = None
    resumed_at: str | None = None
    resume_reason: str | None = None


@dataclass(frozen=True)
class DeletionRow:
    """One audit row of ``forget`` or ``purge``."""

    id: int
    site: str
    at: str
    by: str
    reason: str
    kind: str
    key_hashes: tuple[str, ...]
    counts: Mapping[str, int]
    files: tuple[str, ...]
    cutoff: str | None = None


def record_policy(
    store: Store,
    *,
    run_id: str,
    site: str,
    at: str,
    seen: Mapping[str, Any],
    stop: tuple[str, str, str | None] | None = None,
) -> None:
    """Keep a run's observations and, when it ended ``stopped``, the stop (cause, reason,
    diff), in one transaction."""
    statements: list[tuple[str, Sequence[Any]]] = [
        (
            "INSERT OR REPLACE INTO policy_runs (run_id, site, at, seen_json) VALUES (?, ?, ?, ?)",
            (run_id, site, at, json.dumps(seen, ensure_ascii=False, sort_keys=True)),
        )
    ]
    if stop is not None:
        statements.append(
            (
                "INSERT INTO stops (site, run_id, at, cause, reason, diff) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (site, run_id, at, stop[0], stop[1], stop[2]),
            )
        )
    store.write(statements)


def policy_history(store: Store, site: str, limit: int = 60) -> list[tuple[str, str, Any]]:
    """``(run_id, at, observations)`` of the site's last ``limit`` runs, newest first."""
    rows = store.query(
        "SELECT run_id, at, seen_json FROM policy_runs WHERE site = ? "
        "ORDER BY at DESC, rowid DESC LIMIT ?",
        (site, limit),
    )
    return [(r, a, json.loads(j)) for r, a, j in rows]


def _stop(row: tuple[Any, ...]) -> StopRow:
    return StopRow(*row)


_STOP_COLUMNS = "id, site, run_id, at, cause, reason, diff, resumed_by, resumed_at, resume_reason"


def active_stop(store: Store, site: str) -> StopRow | None:
    """The site's stop nobody lifted yet, or None."""
    rows = store.query(
        f"SELECT {_STOP_COLUMNS} FROM stops WHERE site = ? AND resumed_at IS NULL "
        "ORDER BY id DESC LIMIT 1",
        (site,),
    )
    return _stop(rows[0]) if rows else None


def lift_stop(store: Store, stop_id: int, *, by: str, at: str, reason: str) -> None:
    """Record who lifted a stop, when and why."""
    store.write(
        [
            (
                "UPDATE stops SET resumed_by = ?, resumed_at = ?, resume_reason = ? "
                "WHERE id = ? AND resumed_at IS NULL",
                (by, at, reason, stop_id),
            )
        ]
    )


def add_deletion(
    site: str,
    *,
    at: str,
    by: str,
    reason: str,
    kind: str,
    key_hashes: Sequence[str],
    counts: Mapping[str, int],
    files: Sequence[str],
    cutoff: str | None = None,
) -> tuple[str, Sequence[Any]]:
    """The INSERT of one audit row, to run in the transaction that deletes (``cutoff``: the
    start of the retention window a purge kept)."""
    return (
        "INSERT INTO deletions (site, at, by, reason, kind, key_hashes, counts_json, "
        "files_json, cutoff) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            site,
            at,
            by,
            reason,
            kind,
            json.dumps(list(key_hashes)),
            json.dumps(dict(counts), sort_keys=True),
            json.dumps(list(files)),
            cutoff,
        ),
    )


def deletions(store: Store, site: str) -> list[DeletionRow]:
    """The site's audit rows, oldest first."""
    rows = store.query(
        "SELECT id, site, at, by, reason, kind, key_hashes, counts_json, files_json, cutoff "
        "FROM deletions WHERE site = ? ORDER BY id",
        (site,),
    )
    return [
        DeletionRow(
            i, s, a, b, r, k, tuple(json.loads(h)), json.loads(c), tuple(json.loads(f)), cut
        )
        for i, s, a, b, r, k, h, c, f, cut in rows
    ]


def retention_start(store: Store, site: str) -> str | None:
    """The start of the window the site's latest purge kept (None: never purged)."""
    rows = store.query(
        "SELECT MAX(cutoff) FROM deletions WHERE site = ? AND kind = 'purge'", (site,)
    )
    return rows[0][0] if rows and rows[0][0] else None


#: The secret of the keyed hashes, beside the database (created 0600 on first use).
KEY_FILE = "deletions.key"


def _secret(state_dir: Path) -> bytes:
    path = state_dir / KEY_FILE
    try:
        if path.is_file():
            return path.read_bytes()
        state_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            key = secrets.token_bytes(32)
            fh.write(key)
        return key
    except OSError as exc:
        raise StoreError(f"{path}: cannot read or create the deletion key: {exc}") from exc


def key_hash(store: Store, site: str, key: str) -> str:
    """HMAC-SHA256 of ``site`` and ``key`` under the state directory's secret: shown a key,
    the audit says whether it was forgotten; it never tells the key itself."""
    mac = hmac.new(_secret(store.path.parent), f"{site}\0{key}".encode(), hashlib.sha256)
    return mac.hexdigest()


def forgotten(store: Store, site: str) -> set[str]:
    """The keyed hashes of every key ``anchorpath forget`` removed from the site."""
    rows = store.query(
        "SELECT key_hashes FROM deletions WHERE site = ? AND kind = 'forget'", (site,)
    )
    return {h for (text,) in rows for h in json.loads(text)}
