"""A small key/value store for state that must survive between runs (diskcache underneath).

The one cache abstraction of anchorpath. The fetcher keeps two namespaces here: ``robots``
(per-origin robots.txt, at most 24 h) and ``validators`` (per-URL ETag / Last-Modified plus
the last body, for conditional GET); authoring keeps the LLM's answers in ``llm``
(:mod:`anchorpath.authoring.llm.cache`).
Without a directory the store lives in memory, so tests and one-off commands need no disk.

A process opens a cache directory once (:func:`_shared_cache`; the last few directories stay
open): ``run --all`` builds a
fetcher per site, all on the state directory's one cache, and opening diskcache's ``Cache``
(settings rewritten, database closed and reopened) cost ~3 ms of CPU per site, under the GIL,
as the sites of a worker started together. Each thread still has its own SQLite connection.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

import diskcache

from anchorpath._errors import StoreError

__all__ = ["DiskStore", "KeyValueStore", "MemoryStore", "open_store", "scrub_store"]

#: this process's open caches: absolute directory -> (identity of its database file, cache),
#: least recently opened first
_caches: dict[str, tuple[tuple[int, int], diskcache.Cache]] = {}
_caches_lock = threading.Lock()
#: directories whose cache stays open (a long-lived process, a test session, opens many: the
#: oldest is dropped, and its connections close once no store uses it)
_KEEP_CACHES = 8


def _identity(directory: str) -> tuple[int, int] | None:
    try:
        st = os.stat(os.path.join(directory, diskcache.core.DBNAME))
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _shared_cache(directory: str) -> diskcache.Cache:
    """This process's ``diskcache.Cache`` of ``directory``, opened on first use. A ``Cache`` is
    safe across threads (a connection per thread, opened on its first query); one whose
    database file was removed or replaced since (a deleted state directory) is opened anew."""
    key = os.path.abspath(directory)
    with _caches_lock:
        known = _caches.pop(key, None)
        if known is not None and known[0] == _identity(key):
            _caches[key] = known  # now the most recent
            return known[1]
        cache = diskcache.Cache(key)
        ident = _identity(key)
        if ident is not None:
            while len(_caches) >= _KEEP_CACHES:
                del _caches[next(iter(_caches))]
            _caches[key] = (ident, cache)
        return cache


class KeyValueStore(Protocol):
    """What the fetcher needs from a cache: namespaced get/set/delete with optional expiry."""

    def get(self, namespace: str, key: str) -> Any | None: ...

    def set(self, namespace: str, key: str, value: Any, *, expire: float | None = None) -> None: ...

    def delete(self, namespace: str, key: str) -> None: ...

    def close(self) -> None: ...


class MemoryStore:
    """In-process store with the same interface (expiry by wall clock)."""

    def __init__(self) -> None:
        self._data: dict[tuple[str, str], tuple[Any, float | None]] = {}
        self._lock = threading.Lock()

    def get(self, namespace: str, key: str) -> Any | None:
        with self._lock:
            item = self._data.get((namespace, key))
            if item is None:
                return None
            value, expires = item
            if expires is not None and time.time() >= expires:
                del self._data[(namespace, key)]
                return None
            return value

    def set(self, namespace: str, key: str, value: Any, *, expire: float | None = None) -> None:
        with self._lock:
            expires = None if expire is None else time.time() + expire
            self._data[(namespace, key)] = (value, expires)

    def delete(self, namespace: str, key: str) -> None:
        with self._lock:
            self._data.pop((namespace, key), None)

    def close(self) -> None:
        with self._lock:
            self._data.clear()


class DiskStore:
    """diskcache-backed store in ``directory`` (created if missing); safe across threads.

    Stores of one directory share the process's ``Cache`` of it; :meth:`close` closes the
    calling thread's connection (the next use in that thread opens one again)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = os.fspath(directory)
        try:
            self._cache = _shared_cache(self.directory)
        except Exception as exc:  # diskcache raises OSError / sqlite3 errors
            raise StoreError(f"{self.directory}: cannot open cache: {exc}") from exc

    def get(self, namespace: str, key: str) -> Any | None:
        try:
            return self._cache.get(f"{namespace}\x00{key}")
        except Exception as exc:
            raise StoreError(f"{self.directory}: cannot read {namespace} {key!r}: {exc}") from exc

    def set(self, namespace: str, key: str, value: Any, *, expire: float | None = None) -> None:
        try:
            self._cache.set(f"{namespace}\x00{key}", value, expire=expire)
        except Exception as exc:
            raise StoreError(f"{self.directory}: cannot write {namespace} {key!r}: {exc}") from exc

    def delete(self, namespace: str, key: str) -> None:
        try:
            self._cache.delete(f"{namespace}\x00{key}")
        except Exception as exc:
            raise StoreError(f"{self.directory}: cannot delete {namespace} {key!r}: {exc}") from exc

    def close(self) -> None:
        self._cache.close()


def open_store(directory: str | os.PathLike[str] | None) -> KeyValueStore:
    """A :class:`DiskStore` in ``directory``, or a :class:`MemoryStore` when it is None."""
    return MemoryStore() if directory is None else DiskStore(directory)


def scrub_store(directory: str | os.PathLike[str], drop: Callable[[str, str, Any], bool]) -> int:
    """Delete every entry of the on-disk store in ``directory`` for which
    ``drop(namespace, key, value)`` is true, then compact its database so that no deleted
    byte stays in the file (``anchorpath forget``). Returns how many entries went."""
    import sqlite3

    path = os.fspath(directory)
    if not os.path.isdir(path):
        return 0
    try:
        cache = _shared_cache(path)
        gone = 0
        for full in list(cache.iterkeys()):
            if not isinstance(full, str):
                continue
            # this module's keys are namespaced (an older LLM cache's were not)
            namespace, _, key = full.partition("\x00") if "\x00" in full else ("", "", full)
            if drop(namespace, key, cache.get(full)):
                cache.delete(full)
                gone += 1
        if gone:
            db = sqlite3.connect(os.path.join(path, diskcache.core.DBNAME), timeout=30.0)
            try:
                db.execute("PRAGMA secure_delete=ON")
                db.execute("VACUUM")
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                db.close()
        return gone
    except Exception as exc:  # diskcache raises OSError / sqlite3 errors
        raise StoreError(f"{path}: cannot scrub the cache: {exc}") from exc
