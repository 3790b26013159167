"""Helpers every test directory shares."""

from __future__ import annotations

import sqlite3
from typing import Any

from anchorpath.runner.store.database import Store


def dump(store: Store, site: str | None = None) -> dict[str, list[tuple[Any, ...]]]:
    """A store's ``records`` and ``events`` without run ids and timestamps, in a stable order:
    two runs of the same pages must give equal dumps, however often they were interrupted."""
    where, args = ("WHERE site = ?", (site,)) if site else ("", ())
    db = sqlite3.connect(store.path)
    try:
        recs = db.execute(
            "SELECT site, key, is_current, content_hash, values_json, selector_version "
            f"FROM records {where} ORDER BY id",
            args,
        ).fetchall()
        evs = db.execute(
            f"SELECT site, key, kind, fields_json FROM events {where} ORDER BY id", args
        ).fetchall()
    finally:
        db.close()
    return {"records": recs, "events": evs}
