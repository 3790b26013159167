"""SQLite store: SCD Type 2 records, append-only events, one transaction per run."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from anchorpath._errors import StoreError
from anchorpath.runner.store.database import (
    Event,
    PageRow,
    RunRow,
    Store,
    compute_events,
    content_hash,
)

LONG = "긴 비고 텍스트입니다. " * 30


def _run(run_id: str, at: str) -> RunRow:
    return RunRow(run_id, "s", at, at, "ok", selector_version=1)


def _commit(
    store: Store, run_id: str, at: str, seen: dict[str, dict[str, object]], *, complete: bool = True
) -> list[Event]:
    events = compute_events(store.current("s"), seen, complete=complete)
    store.commit_run(
        _run(run_id, at),
        seen=seen,
        events=events,
        pages=[PageRow("http://x/1", None, 200, '"e"', None, "h", "list", 2)],
    )
    return events


def test_new_changed_withdrawn_and_scd2(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    day1 = {"a": {"k": "a", "v": 1, "t": LONG}, "b": {"k": "b", "v": 2, "t": LONG}}
    ev1 = _commit(store, "r1", "2024-01-01", day1)
    assert [(e.kind, e.key) for e in ev1] == [("new", "a"), ("new", "b")]
    day2 = {
        "a": {"k": "a", "v": 10, "t": LONG},  # real change
        "b": {"k": "b", "v": 2, "t": LONG.replace(". ", " .  ", 1)},  # SimHash near-duplicate
        "c": {"k": "c", "v": 3, "t": None},  # new
    }
    ev2 = _commit(store, "r2", "2024-01-02", day2)
    assert [(e.kind, e.key) for e in ev2] == [("new", "c"), ("changed", "a")]
    assert ev2[1].fields == {"v": (1, 10)}
    ev3 = _commit(store, "r3", "2024-01-03", {"c": day2["c"]})
    assert [(e.kind, e.key) for e in ev3] == [("withdrawn", "a"), ("withdrawn", "b")]

    db = sqlite3.connect(tmp_path / "db.sqlite")
    rows = db.execute(
        "SELECT key, valid_from, valid_to, is_current FROM records ORDER BY id"
    ).fetchall()
    assert rows == [
        ("a", "2024-01-01", "2024-01-02", 0),
        ("b", "2024-01-01", "2024-01-03", 0),
        ("c", "2024-01-02", None, 1),
        ("a", "2024-01-02", "2024-01-03", 0),
    ]
    # the trivially edited text kept its stored version
    assert store.current("s") == {"c": store.current("s")["c"]}
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert [r.id for r in store.runs("s")] == ["r3", "r2", "r1"]
    assert store.events("r2")[1].fields == {"v": (1, 10)}


def test_partial_run_never_withdraws() -> None:
    from anchorpath.runner.store.database import StoredRecord

    current = {"a": StoredRecord("a", {"k": "a"}, content_hash({"k": "a"}))}
    assert compute_events(current, {}, complete=False) == []
    assert [e.kind for e in compute_events(current, {}, complete=True)] == ["withdrawn"]


def test_events_are_append_only(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    _commit(store, "r1", "2024-01-01", {"a": {"k": "a"}})
    db = sqlite3.connect(tmp_path / "db.sqlite")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM events")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE events SET kind = 'new'")


def test_failed_commit_changes_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    _commit(store, "r1", "2024-01-01", {"a": {"k": "a"}})
    before = store.dump()
    bad = [Event("zzz", "new")]  # no values for this key: the transaction must roll back
    with pytest.raises(StoreError):
        store.commit_run(_run("r2", "2024-01-02"), seen={}, events=bad)
    assert store.dump() == before
    assert [r.id for r in store.runs("s")] == ["r1"]


def test_quarantined_run_only_logs_the_run(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    _commit(store, "r1", "2024-01-01", {"a": {"k": "a"}})
    before = store.dump()
    store.commit_run(RunRow("r2", "s", "2024-01-02", "2024-01-02", "drift", error="drift: x"))
    assert store.dump() == before
    assert store.runs("s", verdicts=["drift"])[0].error == "drift: x"
