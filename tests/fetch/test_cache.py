"""The key/value store behind the robots cache and conditional-GET validators."""

from __future__ import annotations

from pathlib import Path

import pytest

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
