"""``anchorpath purge SITE`` (and ``run --purge``): apply the site's
``policy.retention_days``. Record versions that stopped being valid before the window, events
recorded before it, and the runs that started before it (their folders: WARCs, reports,
quarantines, bundles; their rows and pages) go, with one append-only audit row that keeps the
window's start (``records --as-of`` refuses a time before it). Current records stay, however
old: they are what the site shows now. The window is exact: ``records --as-of T`` for any
``T`` at or after its start answers as before the purge."""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anchorpath._errors import RunError
from anchorpath.runner.store.database import Store
from anchorpath.runner.store.governance import add_deletion
from anchorpath.selectors.model import SelectorFile

__all__ = ["PurgeResult", "purge_site", "purge_store", "retention_cutoff"]

_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


@dataclass(frozen=True)
class PurgeResult:
    """What a purge removed, and the start of the window it kept."""

    site: str
    cutoff: str
    counts: dict[str, int] = field(default_factory=dict)
    files: tuple[str, ...] = ()


def retention_cutoff(sf: SelectorFile, at: str) -> str:
    """The start of the retention window at ``at`` (the store's time format). Raises
    RunError when the selector file sets no ``policy.retention_days``."""
    days = sf.policy.retention_days if sf.policy is not None else None
    if days is None:
        raise RunError(
            f"site {sf.site.id!r}: no policy.retention_days in its selector file: nothing to "
            'purge by (set it, e.g. "retention_days": 365)'
        )
    when = dt.datetime.strptime(at, _FORMAT).replace(tzinfo=dt.UTC)
    return (when - dt.timedelta(days=days)).strftime(_FORMAT)


def purge_store(
    store: Store, state_dir: Path, sf: SelectorFile, *, by: str, reason: str, at: str
) -> PurgeResult:
    """Purge ``sf``'s site in ``store`` and ``state_dir`` (the caller holds the site lock)."""
    sid = sf.site.id
    cutoff = retention_cutoff(sf, at)
    old_runs = store.query(
        "SELECT id, run_dir FROM runs WHERE site = ? AND started_at < ?", (sid, cutoff)
    )
    n_versions = store.query(
        "SELECT COUNT(*) FROM records WHERE site = ? AND valid_to IS NOT NULL AND valid_to <= ?",
        (sid, cutoff),
    )[0][0]
    n_events = store.query("SELECT COUNT(*) FROM events WHERE site = ? AND at < ?", (sid, cutoff))[
        0
    ][0]
    files: list[str] = []
    for run_id, run_dir in old_runs:
        folder = Path(run_dir) if run_dir else state_dir / "runs" / sid / run_id
        if folder.is_dir():
            try:
                shutil.rmtree(folder)
            except OSError as exc:
                raise RunError(f"{folder}: cannot remove an expired run folder: {exc}") from exc
            where = folder.relative_to(state_dir) if folder.is_relative_to(state_dir) else folder
            files.append(str(where))
    ids = [r for r, _ in old_runs]
    marks = ",".join("?" * len(ids))
    statements: list[tuple[str, Sequence[Any]]] = [
        (
            "DELETE FROM records WHERE site = ? AND valid_to IS NOT NULL AND valid_to <= ?",
            (sid, cutoff),
        ),
        ("DROP TRIGGER IF EXISTS events_append_only_d", ()),
        ("DELETE FROM events WHERE site = ? AND at < ?", (sid, cutoff)),
        (
            "CREATE TRIGGER IF NOT EXISTS events_append_only_d BEFORE DELETE ON events "
            "BEGIN SELECT RAISE(ABORT, 'events are append-only'); END",
            (),
        ),
        # the last robots.txt and terms seen stay: the next run compares with them
        (
            "DELETE FROM policy_runs WHERE site = ? AND at < ? AND run_id != "
            "(SELECT run_id FROM policy_runs WHERE site = ? ORDER BY at DESC LIMIT 1)",
            (sid, cutoff, sid),
        ),
    ]
    if ids:
        statements += [
            (f"DELETE FROM pages WHERE run_id IN ({marks})", ids),
            (f"DELETE FROM runs WHERE id IN ({marks})", ids),
        ]
    counts = {
        "record_versions": int(n_versions),
        "events": int(n_events),
        "runs": len(ids),
        "run_folders": len(files),
    }
    statements.append(
        add_deletion(
            sid,
            at=at,
            by=by,
            reason=reason,
            kind="purge",
            key_hashes=(),
            counts=counts,
            files=files,
            cutoff=cutoff,
        )
    )
    store.write(statements)
    store.compact()
    return PurgeResult(sid, cutoff, counts, tuple(files))


def purge_site(
    *,
    state_dir: Path,
    selectors_dir: Path,
    site: str,
    by: str,
    reason: str | None = None,
    at: str | None = None,
) -> PurgeResult:
    """Purge ``site`` (a site id or selector file path) under its lock; ``reason`` defaults
    to the retention period."""
    from anchorpath.runner.lock import SiteLock
    from anchorpath.runner.run_types import now
    from anchorpath.runner.store.database import DB_NAME
    from anchorpath.selectors.load import find_selector_file, load_selector_file

    sf = load_selector_file(find_selector_file(site, selectors_dir))
    when = at or now()
    retention_cutoff(sf, when)  # no retention_days: refused before taking anything
    days = sf.policy.retention_days if sf.policy is not None else None
    why = reason or f"policy.retention_days = {days}"
    with SiteLock(state_dir, sf.site.id), Store(state_dir / DB_NAME) as store:
        return purge_store(store, state_dir, sf, by=by, reason=why, at=when)
