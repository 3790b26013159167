"""SQLite store: SCD Type 2 records, append-only events, one transaction per run."""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from anchorpath._errors import StoreError
from anchorpath.runner.store.database import (
    Event,
    PageRow,
    RunRow,
    Source,
    Store,
    canonical_json,
    compute_events,
    content_hash,
)

from ...conftest import dump

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
        sources={k: Source(f"http://x/item/{k}", True) for k in seen},  # found on a listing
    )
    return events


def test_new_changed_withdrawn_and_scd2(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    day1 = {"a": {"k": "a", "v": 1, "t": LONG}, "b": {"k": "b", "v": 2, "t": LONG}}
    ev1 = _commit(store, "r1", "2024-01-01", day1)
    assert [(e.kind, e.key) for e in ev1] == [("new", "a"), ("new", "b")]
    # a new event carries the record's values (old: None), stored and read back as such
    assert ev1[0].fields == {"k": (None, "a"), "t": (None, LONG), "v": (None, 1)}
    assert store.events("r1")[1].fields == ev1[1].fields
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

    current = {"a": StoredRecord("a", {"k": "a"}, content_hash({"k": "a"}), listed=True)}
    assert compute_events(current, {}, complete=False) == []
    assert [e.kind for e in compute_events(current, {}, complete=True)] == ["withdrawn"]


def test_withdrawn_only_on_evidence() -> None:
    from anchorpath.runner.store.database import StoredRecord, unseen_keys

    h = content_hash({"k": "a"})
    # Committed by a --url run (not through a listing): a complete crawl that does not reach
    # it says nothing about it.
    direct = {"a": StoredRecord("a", {"k": "a"}, h, source_url="http://x/item/a")}
    assert compute_events(direct, {}, complete=True) == []
    assert unseen_keys(direct, {}, []) == ["a"]
    # Its page answered 404/410 (on whatever origin: compared without scheme and host).
    gone = compute_events(direct, {}, complete=False, gone=["http://127.0.0.1:9/item/a"])
    assert [(e.kind, e.key) for e in gone] == [("withdrawn", "a")]
    # A listed record missing from a complete crawl is withdrawn, unless protected.
    listed = {"a": StoredRecord("a", {"k": "a"}, h, listed=True)}
    assert [e.kind for e in compute_events(listed, {}, complete=True)] == ["withdrawn"]
    assert compute_events(listed, {}, complete=True, protected=["a"]) == []


def test_sources_are_kept_for_seen_records(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    seen = {"a": {"k": "a"}}
    store.commit_run(
        _run("r1", "2024-01-01"),
        seen=seen,
        events=compute_events(store.current("s"), seen, complete=False),
        sources={"a": Source("http://x/item/a", False)},
    )
    assert store.current("s")["a"].listed is False
    # seen again, unchanged, this time through a listing: no new row, the source is updated
    store.commit_run(
        _run("r2", "2024-01-02"),
        seen=seen,
        events=compute_events(store.current("s"), seen, complete=True),
        sources={"a": Source("http://x/item/a", True)},
    )
    cur = store.current("s")["a"]
    assert (cur.source_url, cur.listed) == ("http://x/item/a", True)


def test_old_database_gains_source_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE records (id INTEGER PRIMARY KEY, site TEXT NOT NULL, key TEXT NOT NULL, "
        "valid_from TEXT NOT NULL, valid_to TEXT, is_current INTEGER NOT NULL, "
        "content_hash TEXT NOT NULL, values_json TEXT NOT NULL, selector_version INTEGER, "
        "run_id TEXT NOT NULL)"
    )
    db.execute(
        "INSERT INTO records (site, key, valid_from, is_current, content_hash, values_json, "
        "run_id) VALUES ('s', 'a', '2024', 1, 'h', '{}', 'r0')"
    )
    db.commit()
    db.close()
    cur = Store(path).current("s")["a"]
    assert (cur.source_url, cur.listed) == (None, False)


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
    before = dump(store)
    bad = [Event("zzz", "new")]  # no values for this key: the transaction must roll back
    with pytest.raises(StoreError):
        store.commit_run(_run("r2", "2024-01-02"), seen={}, events=bad)
    assert dump(store) == before
    assert [r.id for r in store.runs("s")] == ["r1"]


def test_quarantined_run_only_logs_the_run(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    _commit(store, "r1", "2024-01-01", {"a": {"k": "a"}})
    before = dump(store)
    store.commit_run(RunRow("r2", "s", "2024-01-02", "2024-01-02", "drift", error="drift: x"))
    assert dump(store) == before
    assert store.runs("s", verdicts=["drift"])[0].error == "drift: x"


def test_records_as_of_a_past_run_and_seeding_another_store(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    _commit(store, "r1", "2024-01-01", {"a": {"k": "a", "v": 1}, "b": {"k": "b", "v": 2}})
    _commit(store, "r2", "2024-01-02", {"a": {"k": "a", "v": 10}})  # b withdrawn
    before_r2 = store.records_as_of("s", "2024-01-02")
    assert {k: dict(r.values) for k, r in before_r2.items()} == {
        "a": {"k": "a", "v": 1},
        "b": {"k": "b", "v": 2},
    }
    assert before_r2["a"].listed and before_r2["a"].source_url == "http://x/item/a"
    assert store.records_as_of("s", "2024-01-01") == {}
    scratch = Store(tmp_path / "scratch.sqlite")
    scratch.seed_records("s", before_r2, run_id="seed", at="2024-01-02")
    assert {k: (dict(r.values), r.listed) for k, r in scratch.current("s").items()} == {
        "a": ({"k": "a", "v": 1}, True),
        "b": ({"k": "b", "v": 2}, True),
    }
    assert dump(scratch)["events"] == []  # seeding is not an event


def test_transaction_makes_several_runs_all_or_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    _commit(store, "r1", "2024-01-01", {"a": {"k": "a"}})
    before = dump(store)
    with pytest.raises(StoreError), store.transaction():
        _commit(store, "r2", "2024-01-02", {"a": {"k": "a"}, "b": {"k": "b"}})
        store.commit_run(_run("r3", "2024-01-03"), seen={}, events=[Event("zzz", "new")])
    assert dump(store) == before and [r.id for r in store.runs("s")] == ["r1"]
    with store.transaction():
        _commit(store, "r2", "2024-01-02", {"a": {"k": "a"}, "b": {"k": "b"}})
        _commit(store, "r3", "2024-01-03", {"a": {"k": "a"}, "b": {"k": "b"}, "c": {"k": "c"}})
    assert sorted(store.current("s")) == ["a", "b", "c"]


def test_runs_before_a_time_and_without_statistics(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    for run_id, at in (("r1", "2024-01-01"), ("r2", "2024-01-02"), ("r3", "2024-01-03")):
        store.commit_run(replace(_run(run_id, at), stats={"run_id": run_id}))
    assert [r.id for r in store.runs("s", before="2024-01-03")] == ["r2", "r1"]
    assert [r.stats for r in store.runs("s", limit=1)] == [{"run_id": "r3"}]
    lean = store.runs("s", stats=False)
    assert [r.stats for r in lean] == [None, None, None]
    assert [replace(r, stats=None) for r in store.runs("s")] == lean


def test_current_reads_again_what_changed_only(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    _commit(store, "r1", "2024-01-01", {"a": {"k": "a", "v": [1]}, "b": {"k": "b", "v": [2]}})
    first = store.current("s")
    _commit(store, "r2", "2024-01-02", {"a": {"k": "a", "v": [1]}, "b": {"k": "b", "v": [3]}})
    second = store.current("s")
    assert second["a"].values is first["a"].values  # the same text: parsed once
    assert second["b"].values == {"k": "b", "v": [3]}
    assert first["b"].values == {"k": "b", "v": [2]}
    assert second["b"].content_hash == content_hash({"k": "b", "v": [3]})


def test_scratch_database_keeps_no_write_ahead_log(tmp_path: Path) -> None:
    path = tmp_path / "scratch.sqlite"
    store = Store(path, scratch=True)
    _commit(store, "r1", "2024-01-01", {"a": {"k": "a", "v": 1}})
    assert not path.with_name("scratch.sqlite-wal").exists()
    store.close()
    with Store(path) as again:  # opened for review as any state database
        assert list(again.current("s")) == ["a"]
        assert [r.id for r in again.runs("s")] == ["r1"]


def test_stored_hash_is_the_sha256_of_the_stored_json(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    values = {"k": "a", "name": "한글 ü", "v": [1, None], "b": {"z": 1, "a": 2}}
    _commit(store, "r1", "2024-01-01", {"a": values})
    rows = store._query("SELECT content_hash, values_json FROM records")
    assert rows == [(content_hash(values), canonical_json(values))]
    assert rows[0][0] == hashlib.sha256(rows[0][1].encode("utf-8")).hexdigest()
