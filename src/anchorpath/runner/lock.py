"""One run per site at a time: an advisory lock file per site in the state directory.

The lock is an ``fcntl.flock`` on ``<state>/locks/<site>.lock``. The kernel releases a flock
when its holder dies, even on ``kill -9``, so a stale lock cannot outlive its process: the next
run simply acquires it ("takes it over") and reports whose it was, from the pid and start time
the holder wrote into the file. A live holder makes :class:`SiteLock` raise ``RunError``.

What the holder wrote is also a *lease* for work done elsewhere on its behalf: a Dask worker
crawling a site for ``run --all`` checks (:func:`lease_holds`) before every page that the lock
file still names the process that sent it, so a crawl orphaned by a killed submitter stops as
soon as the next run takes the lock over, instead of writing into the same checkpoint.
Processes of one machine see what the holder wrote at once (in the page cache); a worker on
another machine reads it over a shared filesystem, so for it the holder syncs the file
(``sync=True``, the default). ``run --all`` on this machine's threads or worker processes skips
that wait, ~10 ms a site (up to 40) while the first crawls write their own files. Nothing needs
the holder's info to survive a power cut: no holder does. A stale read only fails closed (the
lease looks lost and the crawl stops).
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from anchorpath._errors import RunError

__all__ = ["LockHolder", "SiteLock", "lease_holds"]


@dataclass(frozen=True)
class LockHolder:
    """Who held a lock, as its file says: process id, host and start time (None: not said)."""

    pid: int | None
    host: str | None
    started: str | None

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LockHolder:
        pid, host, started = d.get("pid"), d.get("host"), d.get("started")
        return cls(
            pid if isinstance(pid, int) else None,
            str(host) if host is not None else None,
            str(started) if started is not None else None,
        )


class SiteLock:
    """Context manager holding the per-site lock.

    ``took_over`` is the previous holder's info (pid, host, started) when a stale lock left
    by a dead process was found, else None. ``sync``: write the holder's info through to the
    disk before :meth:`acquire` returns, for readers of the lease on other machines.
    """

    def __init__(self, state_dir: str | os.PathLike[str], site: str, *, sync: bool = True) -> None:
        self.path = Path(state_dir) / "locks" / f"{site}.lock"
        self.site = site
        self.sync = sync
        self.took_over: LockHolder | None = None
        #: what this holder wrote into the lock file (pid, host, started, token)
        self.info: dict[str, Any] = {}
        self._fd: int | None = None

    def acquire(self) -> SiteLock:
        """Take the lock or raise ``RunError`` naming the live holder."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise RunError(f"{self.path}: cannot open the lock file: {exc}") from exc
        previous = self._read(fd)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(fd)
            who = f"pid {previous.get('pid')}" if previous else "another process"
            since = f" since {previous.get('started')}" if previous.get("started") else ""
            raise RunError(
                f"site {self.site!r} is already being run by {who}{since} (lock {self.path})"
            ) from exc
        # We hold the lock, so whoever wrote the leftover content is gone (the kernel drops a
        # flock with its process): a stale lock, taken over.
        if previous and previous.get("pid") != os.getpid():
            self.took_over = LockHolder.from_dict(previous)
        info = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "token": secrets.token_hex(8),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        if self.sync:
            os.fsync(fd)
        self._fd = fd
        self.info = info
        return self

    @staticmethod
    def _read(fd: int) -> dict[str, Any]:
        try:
            raw = os.pread(fd, 4096, 0)
            data = json.loads(raw.decode()) if raw.strip() else {}
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def release(self) -> None:
        """Clear the holder info and drop the lock (idempotent)."""
        if self._fd is None:
            return
        try:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> SiteLock:
        return self.acquire()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def lease_holds(state_dir: str | os.PathLike[str], site: str, info: dict[str, Any]) -> bool:
    """True while the site's lock file still holds ``info`` (its holder's token)."""
    path = Path(state_dir) / "locks" / f"{site}.lock"
    try:
        data = json.loads(path.read_bytes() or b"{}")
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("token") == info.get("token")
