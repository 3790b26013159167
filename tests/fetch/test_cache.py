"""The key/value store behind the robots cache and conditional-GET validators."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from anchorpath.fetch import cache as cache_module
from anchorpath.fetch.cache import DiskStore, MemoryStore, open_store


@pytest.mark.parametrize("kind", ["memory", "disk"])
def test_get_set_delete(tmp_path: Path, kind: str) -> None:
    store = open_store(None if kind == "memory" else tmp_path)
    assert isinstance(store, MemoryStore if kind == "memory" else DiskStore)
    store.set("robots", "http://h:80", {"body": b"x"})
    assert store.get("robots", "http://h:80") == {"body": b"x"}
    assert store.get("validators", "http://h:80") is None  # namespaces are separate
    store.delete("robots", "http://h:80")
    assert store.get("robots", "http://h:80") is None
    store.set("robots", "k", 1, expire=-1)
    assert store.get("robots", "k") is None
    store.close()


def test_disk_store_persists(tmp_path: Path) -> None:
    first = DiskStore(tmp_path)
    first.set("validators", "http://h/a", {"etag": '"1"'})
    first.close()
    second = DiskStore(tmp_path)
    assert second.get("validators", "http://h/a") == {"etag": '"1"'}
    second.close()


def test_disk_stores_of_one_directory_share_one_cache(tmp_path: Path) -> None:
    first = DiskStore(tmp_path)
    second = DiskStore(str(tmp_path))
    assert first._cache is second._cache  # opened once per process
    first.set("robots", "k", 1)
    first.close()  # closes this thread's connection only: the other store still works
    assert second.get("robots", "k") == 1
    second.close()


def test_disk_store_shared_across_threads(tmp_path: Path) -> None:
    store = DiskStore(tmp_path)
    got: list[object] = []

    def other() -> None:
        mine = DiskStore(tmp_path)
        mine.set("validators", "u", {"etag": "x"})
        got.append(mine.get("robots", "r"))
        mine.close()

    store.set("robots", "r", "here")
    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert got == ["here"]
    assert store.get("validators", "u") == {"etag": "x"}
    store.close()


def test_disk_store_reopens_a_removed_directory(tmp_path: Path) -> None:
    first = DiskStore(tmp_path / "c")
    first.set("robots", "k", 1)
    first.close()
    shutil.rmtree(tmp_path / "c")
    second = DiskStore(tmp_path / "c")
    assert second._cache is not first._cache
    assert second.get("robots", "k") is None
    second.set("robots", "k", 2)
    assert second.get("robots", "k") == 2
    second.close()


def test_disk_store_relative_directory_survives_chdir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    store = DiskStore("cache")
    store.set("robots", "k", 1)
    monkeypatch.chdir(tmp_path.parent)
    assert DiskStore(tmp_path / "cache").get("robots", "k") == 1
    assert store.get("robots", "k") == 1
    store.close()


def test_disk_store_keeps_few_directories_open(tmp_path: Path) -> None:
    first = DiskStore(tmp_path / "d0")
    first.set("robots", "k", 1)
    first.close()
    for i in range(1, 12):
        DiskStore(tmp_path / f"d{i}").close()
    assert len(cache_module._caches) <= cache_module._KEEP_CACHES
    again = DiskStore(tmp_path / "d0")  # dropped: opened anew, same data
    assert again._cache is not first._cache
    assert again.get("robots", "k") == 1
    again.close()


def test_scrub_store_drops_matching_entries_and_leaves_no_byte(tmp_path: Path) -> None:
    import diskcache

    from anchorpath.fetch.cache import DiskStore, scrub_store

    store = DiskStore(tmp_path / "c")
    store.set("validators", "http://x/a?id=SECRET-KEY", {"body": b"x"})
    store.set("validators", "http://x/b", {"body": b"y"})
    store.close()
    llm = diskcache.Cache(str(tmp_path / "llm"))
    llm.set("h1", {"data": {"title": "SECRET-KEY title"}})
    llm.set("h2", {"data": {"title": "other"}})
    llm.close()
    assert scrub_store(tmp_path / "c", lambda ns, key, value: "SECRET-KEY" in key) == 1
    assert scrub_store(tmp_path / "llm", lambda ns, key, v: "SECRET-KEY" in str(v)) == 1
    assert scrub_store(tmp_path / "missing", lambda ns, key, v: True) == 0
    for folder in ("c", "llm"):
        for f in (tmp_path / folder).rglob("*"):
            assert not f.is_file() or b"SECRET-KEY" not in f.read_bytes(), f
    again = DiskStore(tmp_path / "c")
    assert again.get("validators", "http://x/b") == {"body": b"y"}
    again.close()
