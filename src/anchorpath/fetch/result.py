"""What one fetch returns: shared by the polite fetcher, its parts and the fake.

It lives apart from :mod:`anchorpath.fetch.polite` only so the fetcher's parts can build results
without importing the fetcher; import it from ``anchorpath.fetch.polite`` as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from anchorpath.fetch.events import FetchCounters

__all__ = ["FetchResult", "count_ok", "with_elapsed"]


@dataclass(frozen=True)
class FetchResult:
    """A successful fetch."""

    url: str  # URL requested
    final_url: str  # after redirects
    status: int  # 200..299; 304 only if not_modified
    headers: Mapping[str, str]  # lower-case names
    body: bytes  # decoded body; on 304 the previously stored body
    charset: str | None  # charset parameter of Content-Type, if any
    not_modified: bool
    elapsed: float  # seconds, including waits
    #: rendered pages: the data (XHR/fetch) requests the page's scripts made, in order
    #: (authoring's hint of an API the page itself loads)
    loaded: tuple[str, ...] = ()


def with_elapsed(result: FetchResult, elapsed: float) -> FetchResult:
    """``result`` with ``elapsed`` replaced (the caller's view includes waits)."""
    return replace(result, elapsed=elapsed)


def count_ok(counters: FetchCounters, attempt: int) -> None:
    """Count one successful fetch that took ``attempt`` attempts."""
    counters.add("ok_2xx")
    counters.add("ok_first_try" if attempt == 1 else "ok_after_retry")
